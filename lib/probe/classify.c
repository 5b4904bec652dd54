/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From what the probe's child went through to a verdict: none, warn, misery
 * or sigbus. The kernel says a split lock was seen by logging the task
 * (once per task in warn mode, rate-limited), punishes it by delaying the
 * trap (misery: a 10 ms sleep, then one semaphore for all offenders) or
 * kills it with SIGBUS/BUS_ADRALN (fatal mode). In a virtual machine the
 * host may delay the trap as well, with its own penalty on the virtual CPU.
 */
#include <stdlib.h>

#include "core/internal.h"
#include "probe/probe.h"

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

/*
 * Whether this kernel delays @trap (lift.c has the same table): warn
 * penalizes #AC only, since 5.19 and unless kernel.split_lock_mitigate is
 * 0; ratelimit throttles #DB; seq delays both, exempt or not; an exempt
 * process is spared the rest. What is not known is assumed to delay, so
 * that only a delay this kernel cannot have added is put on someone else.
 */
static bool kernel_delays(const struct sl_probe_obs *obs, enum splitlock_kind trap)
{
	switch (obs->mode) {
	case SPLITLOCK_MODE_UNKNOWN:
	case SPLITLOCK_MODE_SEQ:
		return true;
	case SPLITLOCK_MODE_RATELIMIT:
		return trap == SPLITLOCK_KIND_BUS_LOCK && !obs->exempt;
	case SPLITLOCK_MODE_WARN:
		return trap == SPLITLOCK_KIND_SPLIT_LOCK && !obs->exempt &&
		       !obs->before_misery && obs->mitigate != 0;
	case SPLITLOCK_MODE_OFF:
	case SPLITLOCK_MODE_FATAL:
		return false;
	}
	return true;
}

static enum splitlock_probe_delayer delayer(const struct sl_probe_obs *obs,
					    const struct sl_probe_verdict *v)
{
	/* An injected trap runs this kernel's handler and nothing else. */
	if (obs->simulated || !v->has_trap || kernel_delays(obs, v->trap))
		return SPLITLOCK_PROBE_DELAYER_KERNEL;
	if (obs->cpu_features & SPLITLOCK_CPU_HYPERVISOR)
		return SPLITLOCK_PROBE_DELAYER_HYPERVISOR;
	return SPLITLOCK_PROBE_DELAYER_UNKNOWN;
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
		v->delayer = delayer(obs, v);
	} else if (v->action == SPLITLOCK_PROBE_WARN) {
		v->has_delay = true;
		v->delay_ms = sl_median(extras, n);
	}
}
