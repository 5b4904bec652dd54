/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SPLITLOCK_PROBE_INTERNAL_H
#define SPLITLOCK_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "libsplitlock.h"

/* Split locks the child attempts to learn the kernel's policy. */
#define SL_PROBE_ATTEMPTS 3
/*
 * The misery penalty sleeps 10 ms per trap; a split lock that takes more
 * than a millisecond longer than an aligned one was delayed on purpose
 * (a split lock costs microseconds even where a hypervisor handles it).
 */
#define SL_PROBE_DELAYED_NS 1000000ull

/* What the parent observed of the child, the input of the classification. */
struct sl_probe_obs {
	bool simulated;
	enum splitlock_kind simulated_kind;
	unsigned cpu_features;        /* SPLITLOCK_CPU_* of the root */
	unsigned attempts;            /* attempts the child reported as done */
	uint64_t attempt_ns[SL_PROBE_ATTEMPTS];
	uint64_t baseline_ns;         /* an aligned locked op, timed alike */
	bool sigbus;                  /* died of SIGBUS with BUS_ADRALN */
	unsigned logged;              /* detector lines for the child's pid */
	enum splitlock_kind logged_kind;
	/* What decides whether this kernel delays a trap (SPLITLOCK_MODE_UNKNOWN: assume it may). */
	enum splitlock_mode mode;
	int mitigate;                 /* kernel.split_lock_mitigate; -1 without it */
	bool before_misery;           /* a release before 5.19: no penalty at all */
	bool exempt;                  /* the child inherits a misery exemption */
};

struct sl_probe_verdict {
	enum splitlock_probe_action action;
	bool has_trap;
	enum splitlock_kind trap;
	bool has_delay;
	double delay_ms;
	enum splitlock_probe_delayer delayer;
};

/* probe/classify.c: pure, so that every outcome is tested without a trap. */
void sl_probe_classify(const struct sl_probe_obs *obs,
		       struct sl_probe_verdict *verdict);
int sl_double_cmp(const void *a, const void *b);
double sl_median(double *values, size_t n);

/* probe/locked-ops.c: the locked instructions and their timing. */
uint64_t sl_now_ns(void);
/* One locked add at @addr, which may cross a cache line. */
void sl_locked_add(void *addr);
/*
 * Median cost in ns of one locked add at @addr, over batches sized to the
 * clock's resolution, spending at most @budget_ns in locked adds.
 */
double sl_lock_cost_ns(void *addr, uint64_t budget_ns);
/* Memory loads per microsecond of a walk over @buf for @window_ns. */
double sl_memory_throughput(const char *buf, size_t size, uint64_t window_ns);

/* probe/msr-module.c: load the msr module found by splitlock_msr_module_find(). */
int sl_msr_module_load(struct splitlock_ctx *ctx);

/* What a probe found (probe/probe.c runs it, probe/probe-get.c reads it). */
struct splitlock_probe {
	struct sl_probe_verdict verdict;
	bool simulated;
	bool complete;
	bool has_split_ns, has_aligned_ns, has_stall;
	double split_ns, aligned_ns, stall_percent;
	unsigned cpu;
};

#endif
