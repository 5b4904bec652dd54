/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the misery penalty can be lifted for one process tree here, and
 * whether there is a penalty to lift at all. What the kernel does, by mode
 * (arch/x86/kernel/cpu/bus_lock.c):
 *
 *  - warn: an #AC split lock is warned about and, since 5.19, penalized
 *    (misery: a 10 ms sleep, then one offender at a time), unless
 *    kernel.split_lock_mitigate (6.2+) is 0; an #DB bus lock is only
 *    warned about: the sysctl governs nothing there;
 *  - ratelimit: bus locks are throttled for everyone, misery plays no part;
 *  - fatal: the offender gets SIGBUS; off: nothing happens;
 *  - seq (patched kernel): the penalty of warn that nothing can switch off.
 *
 * The patched kernel's exemption lifts the penalty for one process and what
 * it starts; elsewhere the global sysctl, under leases (lease.c), is the
 * only way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "core/internal.h"
#include "message.h"

struct splitlock_lift_plan {
	enum splitlock_lift way;
	int refusal;
	char *reason;
};

/* The sentence of a refusal or of a run that goes unchanged. */
static int say(struct splitlock_lift_plan *plan, const char *format, ...) _printf_(2, 3);
static int say(struct splitlock_lift_plan *plan, const char *format, ...)
{
	va_list args;
	int r;

	va_start(args, format);
	r = message_vset(&plan->reason, format, args);
	va_end(args);
	return r;
}

static int refuse(struct splitlock_lift_plan *plan, int refusal, const char *sentence)
{
	plan->way = 0;
	plan->refusal = refusal;
	return say(plan, "%s", sentence);
}

_public_ int splitlock_lift_plan_new(struct splitlock_ctx *ctx, struct splitlock_lift_plan **out)
{
	_cleanup_(splitlock_lift_plan_freep) struct splitlock_lift_plan *plan = NULL;
	struct splitlock_mode_info *info = NULL;
	enum splitlock_mode mode;
	unsigned cpu = 0, ifaces = 0;
	bool cpu_known;
	int r;

	*out = NULL;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	r = splitlock_mode_info_read(ctx, &info);
	if (r < 0)
		return r;
	mode = splitlock_mode_info_get_mode(info);
	splitlock_mode_info_free(info);
	cpu_known = splitlock_cpu_features(ctx, &cpu) == 0;
	splitlock_kernel_interfaces(ctx, &ifaces);

	r = 0;
	/* seq is the kernel's own word (sysfs): it wins over what cpuinfo shows. */
	if (mode == SPLITLOCK_MODE_SEQ) {
		r = refuse(plan, -EPERM, "the kernel runs in seq mode, whose penalty cannot be "
			   "lifted for any process; boot with another split_lock_detect= mode");
	/*
	 * The patched kernel's exemption lifts the penalty of warn and the
	 * throttling of ratelimit for one process, and marking it costs
	 * nothing: where the kernel offers it, it is used whatever cpuinfo
	 * shows (a VM may hide the flags; a test kernel injects traps).
	 */
	} else if ((ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT) &&
		   (mode == SPLITLOCK_MODE_WARN || mode == SPLITLOCK_MODE_RATELIMIT)) {
		plan->way = SPLITLOCK_LIFT_EXEMPT;
	} else if (cpu_known && !(cpu & (SPLITLOCK_CPU_SPLIT_LOCK_DETECT | SPLITLOCK_CPU_BUS_LOCK_DETECT))) {
		plan->way = SPLITLOCK_LIFT_UNNEEDED;
		r = say(plan, "the CPU detects no split locks, so nothing penalizes them");
	} else if (mode == SPLITLOCK_MODE_OFF) {
		plan->way = SPLITLOCK_LIFT_UNNEEDED;
		r = say(plan, "split-lock detection is off, so nothing penalizes split locks");
	} else if (mode == SPLITLOCK_MODE_FATAL) {
		plan->way = SPLITLOCK_LIFT_UNCHANGED;
		r = say(plan, "the kernel runs in fatal mode: a split-locking process is killed "
			"with SIGBUS, and only the misery penalty of warn mode can be lifted");
	} else if (mode == SPLITLOCK_MODE_RATELIMIT) {
		plan->way = SPLITLOCK_LIFT_UNCHANGED;
		r = say(plan, "the kernel runs in ratelimit mode, which throttles bus locks for "
			"every process; only the misery penalty of warn mode can be lifted");
	} else if (cpu_known && !(cpu & SPLITLOCK_CPU_SPLIT_LOCK_DETECT)) {
		plan->way = SPLITLOCK_LIFT_UNCHANGED;
		r = say(plan, "this CPU detects bus locks only (#DB, bus_lock_detect without "
			"split_lock_detect), which warn mode reports but never penalizes: "
			"kernel.split_lock_mitigate governs nothing here%s",
			cpu & SPLITLOCK_CPU_HYPERVISOR ?
			" (a delay that remains is the hypervisor's, set on the host)" : "");
	} else if (ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT) {
		plan->way = SPLITLOCK_LIFT_EXEMPT;
	} else if (ifaces & SPLITLOCK_KERNEL_MITIGATE_SYSCTL) {
		plan->way = SPLITLOCK_LIFT_LEASE;
	} else if (sl_release_before(ctx, 5, 19)) {
		plan->way = SPLITLOCK_LIFT_UNNEEDED;
		r = say(plan, "kernels before 5.19 warn about split locks but do not penalize them");
	} else {
		r = refuse(plan, -EOPNOTSUPP, "this kernel penalizes split locks in warn mode but "
			   "has neither kernel.split_lock_mitigate (Linux 6.2 and later) nor the "
			   "per-process exemption, so the penalty cannot be lifted at run time; "
			   "boot with split_lock_detect=off");
	}
	if (r < 0)
		return r;
	*out = plan;
	plan = NULL;
	return 0;
}

_public_ struct splitlock_lift_plan *splitlock_lift_plan_free(struct splitlock_lift_plan *plan)
{
	if (plan) {
		free(plan->reason);
		free(plan);
	}
	return NULL;
}

_public_ enum splitlock_lift splitlock_lift_plan_get_way(const struct splitlock_lift_plan *plan)
{
	return plan->way;
}

_public_ int splitlock_lift_plan_get_refusal(const struct splitlock_lift_plan *plan)
{
	return plan->refusal;
}

_public_ const char *splitlock_lift_plan_get_reason(const struct splitlock_lift_plan *plan)
{
	return plan->reason;
}
