/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which core PMU event counts split locks or bus locks on which CPU.
 *
 * Every encoding is perf's, from the kernel tree's
 * tools/perf/pmu-events/arch/x86/MODEL/ JSON files (EventCode, UMask), keyed
 * the way tools/perf/pmu-events/arch/x86/mapfile.csv keys those
 * directories: vendor, family, model. A raw x86 config is the event code in
 * bits 0-7 and the unit mask in bits 8-15.
 *
 * Left out on purpose:
 *  - hybrid Intel parts (Alder Lake, Raptor Lake, Meteor Lake, ...): their
 *    E-cores count bus locks with another event on another PMU
 *    (BUS_LOCK.SELF_LOCKS on cpu_atom); counting on the P-cores alone would
 *    be a lower bound sold as exact;
 *  - every model whose JSON this table has not been checked against. A CPU
 *    missing here is counted by another source or not at all, never with
 *    an event guessed from a neighbour.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "pmu-events.h"

/* SQ_MISC.SPLIT_LOCK, EventCode 0xF4, UMask 0x10: sandybridge, jaketown,
 * ivybridge, ivytown, haswell, haswellx, broadwell, broadwellde,
 * broadwellx, skylake, skylakex, cascadelakex (core.json/cache.json,
 * "Split locks in SQ"). */
static const struct sl_pmu_event sq_misc_split_lock = {
	"SQ_MISC.SPLIT_LOCK", 0x10f4, SPLITLOCK_KIND_SPLIT_LOCK,
};
/* SQ_MISC.BUS_LOCK, EventCode 0xF4, UMask 0x10: icelakex (cache.json,
 * "Counts bus locks, accounts for cache line split locks and UC locks"). */
static const struct sl_pmu_event sq_misc_bus_lock_f4 = {
	"SQ_MISC.BUS_LOCK", 0x10f4, SPLITLOCK_KIND_BUS_LOCK,
};
/* SQ_MISC.BUS_LOCK, EventCode 0x2C, UMask 0x10: graniterapids (cache.json). */
static const struct sl_pmu_event sq_misc_bus_lock_2c = {
	"SQ_MISC.BUS_LOCK", 0x102c, SPLITLOCK_KIND_BUS_LOCK,
};
/* ls_locks.bus_lock, EventCode 0x25, UMask 0x01: amdzen1 to amdzen5
 * (memory.json, core.json, load-store.json: "Retired lock instructions
 * which caused a bus lock"). */
static const struct sl_pmu_event ls_locks_bus_lock = {
	"ls_locks.bus_lock", 0x0125, SPLITLOCK_KIND_BUS_LOCK,
};

struct model_event {
	unsigned model;
	const struct sl_pmu_event *event;
};

/* GenuineIntel, family 6, by model (mapfile.csv). */
static const struct model_event intel_family6[] = {
	{ 0x2a, &sq_misc_split_lock },  /* sandybridge */
	{ 0x2d, &sq_misc_split_lock },  /* jaketown */
	{ 0x3a, &sq_misc_split_lock },  /* ivybridge */
	{ 0x3e, &sq_misc_split_lock },  /* ivytown */
	{ 0x3c, &sq_misc_split_lock },  /* haswell */
	{ 0x45, &sq_misc_split_lock },  /* haswell */
	{ 0x46, &sq_misc_split_lock },  /* haswell */
	{ 0x3f, &sq_misc_split_lock },  /* haswellx */
	{ 0x3d, &sq_misc_split_lock },  /* broadwell */
	{ 0x47, &sq_misc_split_lock },  /* broadwell */
	{ 0x56, &sq_misc_split_lock },  /* broadwellde */
	{ 0x4f, &sq_misc_split_lock },  /* broadwellx */
	{ 0x4e, &sq_misc_split_lock },  /* skylake */
	{ 0x5e, &sq_misc_split_lock },  /* skylake */
	{ 0x8e, &sq_misc_split_lock },  /* skylake (Kaby Lake) */
	{ 0x9e, &sq_misc_split_lock },  /* skylake (Coffee Lake) */
	{ 0xa5, &sq_misc_split_lock },  /* skylake (Comet Lake) */
	{ 0xa6, &sq_misc_split_lock },  /* skylake (Comet Lake) */
	{ 0x55, &sq_misc_split_lock },  /* skylakex, cascadelakex */
	{ 0x6a, &sq_misc_bus_lock_f4 }, /* icelakex */
	{ 0x6c, &sq_misc_bus_lock_f4 }, /* icelakex */
	{ 0xad, &sq_misc_bus_lock_2c }, /* graniterapids */
	{ 0xae, &sq_misc_bus_lock_2c }, /* graniterapids */
};

const struct sl_pmu_event *sl_pmu_event_for(const struct sl_cpu_id *cpu)
{
	if (!cpu->known)
		return NULL;
	if (streq(cpu->vendor, "GenuineIntel") && cpu->family == 6) {
		for (size_t i = 0; i < ARRAY_SIZE(intel_family6); i++)
			if (intel_family6[i].model == cpu->model)
				return intel_family6[i].event;
		return NULL;
	}
	/* Zen 1 and 2 (0x17), Zen 3 and 4 (0x19), Zen 5 (0x1a): amdzen1-5. */
	if (streq(cpu->vendor, "AuthenticAMD") &&
	    (cpu->family == 0x17 || cpu->family == 0x19 || cpu->family == 0x1a))
		return &ls_locks_bus_lock;
	return NULL;
}

/* The value after "KEY\t*: " on a line of @text that starts with KEY. */
static const char *field(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);

	for (const char *line = text; *line; ) {
		const char *end = strchrnul(line, '\n');

		/* The first processor's block ends at its blank line. */
		if (end == line)
			return NULL;
		if (strncmp(line, key, klen) == 0 && strchr("\t :", line[klen])) {
			const char *v = line + klen;

			v += strspn(v, "\t ");
			if (*v == ':') {
				v++;
				v += strspn(v, "\t ");
				*len = (size_t)(end - v);
				return v;
			}
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

static bool number(const char *v, size_t len, unsigned *out)
{
	char buf[16], *end;
	unsigned long n;

	if (len == 0 || len >= sizeof(buf) || v[0] < '0' || v[0] > '9')
		return false;
	memcpy(buf, v, len);
	buf[len] = '\0';
	errno = 0;
	n = strtoul(buf, &end, 10);
	if (errno || *end || n > 0xffff)
		return false;
	*out = (unsigned)n;
	return true;
}

void sl_cpu_id_parse(const char *text, struct sl_cpu_id *cpu)
{
	const char *v;
	size_t len;

	memset(cpu, 0, sizeof(*cpu));
	v = field(text, "vendor_id", &len);
	if (!v || len == 0 || len >= sizeof(cpu->vendor))
		return;
	memcpy(cpu->vendor, v, len);
	v = field(text, "cpu family", &len);
	if (!v || !number(v, len, &cpu->family))
		return;
	v = field(text, "model", &len);
	if (!v || !number(v, len, &cpu->model))
		return;
	cpu->known = true;
}
