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

#include "core/internal.h"
#include "message.h"

static int say(char **why, const char *format, ...) _printf_(2, 3);
static int say(char **why, const char *format, ...)
{
	va_list args;
	int r;

	if (!why)
		return 0;
	va_start(args, format);
	r = message_vset(why, format, args);
	va_end(args);
	return r;
}

_public_ int splitlock_lift_choose(struct splitlock_ctx *ctx, enum splitlock_lift *lift,
				   char **why)
{
	struct splitlock_mode_info *info = NULL;
	enum splitlock_mode mode;
	unsigned cpu = 0, ifaces = 0;
	bool cpu_known;
	int r;

	if (why)
		*why = NULL;
	r = splitlock_mode_info_read(ctx, &info);
	if (r < 0)
		return r;
	mode = splitlock_mode_info_get_mode(info);
	splitlock_mode_info_free(info);
	cpu_known = splitlock_cpu_features(ctx, &cpu) == 0;
	splitlock_kernel_interfaces(ctx, &ifaces);

	/* seq is the kernel's own word (sysfs): it wins over what cpuinfo shows. */
	if (mode == SPLITLOCK_MODE_SEQ) {
		if (say(why, "the kernel runs in seq mode, whose penalty cannot be lifted for "
			"any process; boot with another split_lock_detect= mode") < 0)
			return -ENOMEM;
		return -EPERM;
	}
	r = 0;
	/*
	 * The patched kernel's exemption lifts the penalty of warn and the
	 * throttling of ratelimit for one process, and marking it costs
	 * nothing: where the kernel offers it, it is used whatever cpuinfo
	 * shows (a VM may hide the flags; a test kernel injects traps).
	 */
	if ((ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT) &&
	    (mode == SPLITLOCK_MODE_WARN || mode == SPLITLOCK_MODE_RATELIMIT)) {
		*lift = SPLITLOCK_LIFT_EXEMPT;
	} else if (cpu_known && !(cpu & (SPLITLOCK_CPU_SPLIT_LOCK_DETECT | SPLITLOCK_CPU_BUS_LOCK_DETECT))) {
		*lift = SPLITLOCK_LIFT_UNNEEDED;
		r = say(why, "the CPU detects no split locks, so nothing penalizes them");
	} else if (mode == SPLITLOCK_MODE_OFF) {
		*lift = SPLITLOCK_LIFT_UNNEEDED;
		r = say(why, "split-lock detection is off, so nothing penalizes split locks");
	} else if (mode == SPLITLOCK_MODE_FATAL) {
		*lift = SPLITLOCK_LIFT_UNCHANGED;
		r = say(why, "the kernel runs in fatal mode: a split-locking process is killed "
			"with SIGBUS, and only the misery penalty of warn mode can be lifted");
	} else if (mode == SPLITLOCK_MODE_RATELIMIT) {
		*lift = SPLITLOCK_LIFT_UNCHANGED;
		r = say(why, "the kernel runs in ratelimit mode, which throttles bus locks for "
			"every process; only the misery penalty of warn mode can be lifted");
	} else if (cpu_known && !(cpu & SPLITLOCK_CPU_SPLIT_LOCK_DETECT)) {
		*lift = SPLITLOCK_LIFT_UNCHANGED;
		r = say(why, "this CPU detects bus locks only (#DB, bus_lock_detect without "
			"split_lock_detect), which warn mode reports but never penalizes: "
			"kernel.split_lock_mitigate governs nothing here%s",
			cpu & SPLITLOCK_CPU_HYPERVISOR ?
			" (a delay that remains is the hypervisor's, set on the host)" : "");
	} else if (ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT) {
		*lift = SPLITLOCK_LIFT_EXEMPT;
	} else if (ifaces & SPLITLOCK_KERNEL_MITIGATE_SYSCTL) {
		*lift = SPLITLOCK_LIFT_LEASE;
	} else if (sl_release_before(ctx, 5, 19)) {
		*lift = SPLITLOCK_LIFT_UNNEEDED;
		r = say(why, "kernels before 5.19 warn about split locks but do not penalize them");
	} else {
		if (say(why, "this kernel penalizes split locks in warn mode but has neither "
			"kernel.split_lock_mitigate (Linux 6.2 and later) nor the per-process "
			"exemption, so the penalty cannot be lifted at run time; boot with "
			"split_lock_detect=off") < 0)
			return -ENOMEM;
		return -EOPNOTSUPP;
	}
	return r;
}
