/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SPLITLOCK_PMU_EVENTS_H
#define SPLITLOCK_PMU_EVENTS_H

#include <stdint.h>

#include "libsplitlock.h"

/* The CPU as /proc/cpuinfo names it: enough to key the event table. */
struct sl_cpu_id {
	char vendor[16];  /* "GenuineIntel", "AuthenticAMD", ... */
	unsigned family;  /* "cpu family", the display family */
	unsigned model;   /* "model", the display model */
	bool known;
};

/* A core PMU event that counts split locks or bus locks. */
struct sl_pmu_event {
	const char *name;          /* as perf lists it */
	uint64_t config;           /* PERF_TYPE_RAW encoding */
	enum splitlock_kind kind;  /* what it counts */
};

/* The event for @cpu, or NULL: not in the table (see pmu-events.c). */
const struct sl_pmu_event *sl_pmu_event_for(const struct sl_cpu_id *cpu);
/* The first processor's vendor, family and model in /proc/cpuinfo's
 * text @text; cpu->known false when a field is missing. */
void sl_cpu_id_parse(const char *text, struct sl_cpu_id *cpu);

#endif
