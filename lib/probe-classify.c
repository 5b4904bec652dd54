/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From what the probe's child went through to a verdict: none, warn, misery
 * or sigbus. The kernel says a split lock was seen by logging the task
 * (once per task in warn mode, rate-limited), punishes it by delaying the
 * trap (misery: a 10 ms sleep, then one semaphore for all offenders) or
 * kills it with SIGBUS/BUS_ADRALN (fatal mode).
 */
#include <stdlib.h>

#include "internal.h"
#include "probe-internal.h"

int sl_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @values. */
double sl_median(double *values, size_t n)
{
	if (n == 0)
		return 0;
	qsort(values, n, sizeof(*values), sl_double_cmp);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/*
 * Which trap it was when the log does not say: the injected one, else the
 * one the CPU has (#AC first: a CPU with both takes #AC for split locks).
 */
static bool unlogged_trap(const struct sl_probe_obs *obs,
			  enum splitlock_kind *trap)
{
	if (obs->simulated)
		*trap = obs->simulated_kind;
	else if (obs->cpu_features & SPLITLOCK_CPU_SPLIT_LOCK_DETECT)
		*trap = SPLITLOCK_KIND_SPLIT_LOCK;
	else if (obs->cpu_features & SPLITLOCK_CPU_BUS_LOCK_DETECT)
		*trap = SPLITLOCK_KIND_BUS_LOCK;
	else
		return false;
	return true;
}

void sl_probe_classify(const struct sl_probe_obs *obs,
		       struct sl_probe_verdict *v)
{
	double delays[SL_PROBE_ATTEMPTS], extras[SL_PROBE_ATTEMPTS];
	size_t delayed = 0, n = 0;

	*v = (struct sl_probe_verdict){ .action = SPLITLOCK_PROBE_NONE };
	for (unsigned i = 0; i < obs->attempts && i < SL_PROBE_ATTEMPTS; i++) {
		uint64_t extra = obs->attempt_ns[i] > obs->baseline_ns ?
				 obs->attempt_ns[i] - obs->baseline_ns : 0;

		extras[n++] = extra / 1e6;
		if (extra >= SL_PROBE_DELAYED_NS)
			delays[delayed++] = extra / 1e6;
	}

	/*
	 * The penalty delays every trap (the gaps between attempts let the
	 * kernel re-arm); one slow attempt alone is the scheduler's doing.
	 */
	if (delayed * 2 <= obs->attempts)
		delayed = 0;

	if (obs->sigbus)
		v->action = SPLITLOCK_PROBE_SIGBUS;
	else if (delayed)
		/* A delay without a log line: the log's rate limit ate it. */
		v->action = SPLITLOCK_PROBE_MISERY;
	else if (obs->logged)
		v->action = SPLITLOCK_PROBE_WARN;
	else
		return;

	if (obs->logged) {
		v->has_trap = true;
		v->trap = obs->logged_kind;
	} else {
		v->has_trap = unlogged_trap(obs, &v->trap);
	}
	if (v->action == SPLITLOCK_PROBE_MISERY) {
		v->has_delay = true;
		v->delay_ms = sl_median(delays, delayed);
	} else if (v->action == SPLITLOCK_PROBE_WARN) {
		v->has_delay = true;
		v->delay_ms = sl_median(extras, n);
	}
}
