/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a probe found (struct splitlock_probe, filled by probe/probe.c),
 * and the names of its answers.
 */
#include <errno.h>

#include "core/internal.h"
#include "probe/probe.h"

_public_ struct splitlock_probe *splitlock_probe_free(struct splitlock_probe *p)
{
	free(p);
	return NULL;
}

_public_ enum splitlock_probe_action
splitlock_probe_get_action(const struct splitlock_probe *p)
{
	return p->verdict.action;
}

_public_ bool splitlock_probe_is_detected(const struct splitlock_probe *p)
{
	return p->verdict.action != SPLITLOCK_PROBE_NONE;
}

_public_ bool splitlock_probe_is_simulated(const struct splitlock_probe *p)
{
	return p->simulated;
}

_public_ bool splitlock_probe_is_complete(const struct splitlock_probe *p)
{
	return p->complete;
}

_public_ unsigned splitlock_probe_get_cpu(const struct splitlock_probe *p)
{
	return p->cpu;
}

_public_ int splitlock_probe_get_trap(const struct splitlock_probe *p,
				      enum splitlock_kind *trap)
{
	if (!p->verdict.has_trap)
		return -ENODATA;
	*trap = p->verdict.trap;
	return 0;
}

static int get_double(bool has, double value, double *out)
{
	if (!has)
		return -ENODATA;
	*out = value;
	return 0;
}

_public_ int splitlock_probe_get_delay_ms(const struct splitlock_probe *p,
					  double *ms)
{
	return get_double(p->verdict.has_delay, p->verdict.delay_ms, ms);
}

_public_ int splitlock_probe_get_split_lock_ns(const struct splitlock_probe *p,
					       double *ns)
{
	return get_double(p->has_split_ns, p->split_ns, ns);
}

_public_ int splitlock_probe_get_aligned_lock_ns(const struct splitlock_probe *p,
						 double *ns)
{
	return get_double(p->has_aligned_ns, p->aligned_ns, ns);
}

_public_ int splitlock_probe_get_stall_percent(const struct splitlock_probe *p,
					       double *percent)
{
	return get_double(p->has_stall, p->stall_percent, percent);
}

_public_ enum splitlock_probe_delayer
splitlock_probe_get_delayer(const struct splitlock_probe *p)
{
	return p->verdict.delayer;
}

_public_ const char *splitlock_probe_delayer_name(enum splitlock_probe_delayer d)
{
	static const char *const names[] = {
		[SPLITLOCK_PROBE_DELAYER_NONE] = "none",
		[SPLITLOCK_PROBE_DELAYER_KERNEL] = "kernel",
		[SPLITLOCK_PROBE_DELAYER_HYPERVISOR] = "hypervisor",
		[SPLITLOCK_PROBE_DELAYER_UNKNOWN] = "unknown",
	};

	return (size_t)d < ARRAY_SIZE(names) ? names[d] : NULL;
}

_public_ const char *splitlock_probe_action_name(enum splitlock_probe_action a)
{
	static const char *const names[] = {
		[SPLITLOCK_PROBE_NONE] = "none",
		[SPLITLOCK_PROBE_WARN] = "warn",
		[SPLITLOCK_PROBE_MISERY] = "misery",
		[SPLITLOCK_PROBE_SIGBUS] = "sigbus",
	};

	return (size_t)a < ARRAY_SIZE(names) ? names[a] : NULL;
}

_public_ const char *splitlock_probe_trap_name(enum splitlock_kind trap)
{
	switch (trap) {
	case SPLITLOCK_KIND_SPLIT_LOCK:
		return "ac";
	case SPLITLOCK_KIND_BUS_LOCK:
		return "db";
	}
	return NULL;
}
