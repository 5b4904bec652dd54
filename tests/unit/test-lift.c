/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Choosing how misery is lifted for a run, the patched kernel's exemption
 * and who a process is: the public API on small fake roots.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsplitlock.h"
#include "fake-root.h"
#include "test.h"

static const char *const counters = "ac_traps 0\ndb_traps 0\nmisery_delays 0\nsigbus 0\n";

/*
 * A machine whose CPU has @flags, whose kernel is @release and in @mode
 * (NULL: no boot line, the default applies), with or without the sysctl
 * and the exemption.
 */
static struct splitlock_ctx *machine(const char *flags, const char *release, const char *mode,
				     bool sysctl, bool exemption)
{
	struct splitlock_ctx *ctx;
	char text[256];

	strcpy(root, "/tmp/slctl-test-lift-XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(text, sizeof(text), "processor\t: 0\nflags\t\t: fpu %s lm\n", flags);
	put("/proc/cpuinfo", text);
	snprintf(text, sizeof(text), "%s\n", release);
	put("/proc/sys/kernel/osrelease", text);
	put("/proc/cmdline", "quiet\n");
	put("/dev/kmsg", "");
	if (mode) {
		snprintf(text, sizeof(text), "%s\n", mode);
		put("/sys/kernel/split_lock/mode", text);
	}
	if (sysctl)
		put("/proc/sys/kernel/split_lock_mitigate", "1\n");
	if (exemption) {
		snprintf(text, sizeof(text), "%smisery_exempt 0\n", counters);
		put("/proc/self/split_lock", text);
	}
	ctx = splitlock_new(root);
	if (!ctx)
		abort();
	splitlock_set_log_priority(ctx, 0);
	return ctx;
}

static void done(struct splitlock_ctx *ctx)
{
	char cmd[128];

	splitlock_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		abort();
}

/*
 * The choice for a machine, and whether a sentence came with it: the
 * refusal, which leaves no way chosen, or 0.
 */
static int choice(struct splitlock_ctx *ctx, enum splitlock_lift *lift, const char *word)
{
	struct splitlock_lift_plan *plan = NULL;
	const char *why;
	int r = splitlock_lift_plan_new(ctx, &plan);

	if (r < 0) {
		CHECK(plan == NULL);
		return r;
	}
	why = splitlock_lift_plan_get_reason(plan);
	if (word)
		CHECK(why && strstr(why, word));
	else
		CHECK(why == NULL);
	*lift = splitlock_lift_plan_get_way(plan);
	r = splitlock_lift_plan_get_refusal(plan);
	if (r < 0)
		CHECK_INT(*lift, 0);
	splitlock_lift_plan_free(plan);
	return r;
}

TEST(patched_kernel_with_the_exemption_exempts)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect bus_lock_detect", "6.12.48", "warn",
					    true, true);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, NULL), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_EXEMPT);
	done(ctx);
}

/* A VM hides the flags, a test kernel injects traps: the kernel's own word wins. */
TEST(patched_kernel_exempts_whatever_cpuinfo_shows)
{
	struct splitlock_ctx *ctx = machine("hypervisor", "7.3.0", "warn", true, true);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, NULL), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_EXEMPT);
	done(ctx);
}

TEST(stock_kernel_with_the_sysctl_leases)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect bus_lock_detect", "6.5.0", NULL,
					    true, false);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, NULL), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_LEASE);
	done(ctx);
}

TEST(bus_lock_only_cpu_runs_unchanged_and_says_why)
{
	struct splitlock_ctx *ctx = machine("bus_lock_detect", "6.8.0", NULL, true, false);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, "governs nothing here"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNCHANGED);
	done(ctx);
}

TEST(bus_lock_only_guest_names_the_hypervisor_for_a_delay)
{
	/* A KVM guest on Sapphire/Emerald Rapids, as seen on a real one. */
	struct splitlock_ctx *ctx = machine("hypervisor bus_lock_detect", "6.18.44", NULL,
					    true, false);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, "governs nothing here (a delay that remains is "
			 "the hypervisor's, set on the host)"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNCHANGED);
	done(ctx);
}

TEST(no_detection_and_mode_off_need_nothing)
{
	struct splitlock_ctx *ctx = machine("hypervisor", "6.8.0", NULL, true, false);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, "detects no split locks"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNNEEDED);
	done(ctx);
	ctx = machine("split_lock_detect", "6.12.48", "off", true, true);
	CHECK_INT(choice(ctx, &lift, "detection is off"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNNEEDED);
	done(ctx);
}

TEST(fatal_and_ratelimit_are_not_misery)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "6.12.48", "fatal", true, true);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, "SIGBUS"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNCHANGED);
	done(ctx);
	/* Only the exemption lifts ratelimit's throttling, for one process. */
	ctx = machine("split_lock_detect bus_lock_detect", "6.12.48", "ratelimit:10", true, false);
	CHECK_INT(choice(ctx, &lift, "throttles bus locks"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNCHANGED);
	done(ctx);
	ctx = machine("split_lock_detect bus_lock_detect", "7.3.0", "ratelimit:10", true, true);
	CHECK_INT(choice(ctx, &lift, NULL), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_EXEMPT);
	done(ctx);
}

TEST(seq_is_refused)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "6.12.48", "seq", true, true);
	enum splitlock_lift lift = 0;

	CHECK_INT(choice(ctx, &lift, "seq mode"), -EPERM);
	done(ctx);
}

TEST(old_kernels_by_release)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "5.10.0-28-amd64", NULL, false, false);
	enum splitlock_lift lift = 0;

	/* 5.10 has no misery at all; 6.1 has it and no way to lift it. */
	CHECK_INT(choice(ctx, &lift, "before 5.19"), 0);
	CHECK_INT(lift, SPLITLOCK_LIFT_UNNEEDED);
	done(ctx);
	ctx = machine("split_lock_detect", "6.1.0-18-amd64", NULL, false, false);
	CHECK_INT(choice(ctx, &lift, "split_lock_detect=off"), -EOPNOTSUPP);
	done(ctx);
}

TEST(exemption_is_written_and_read_back)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "6.12.48", "warn", true, true);
	char text[256];

	snprintf(text, sizeof(text), "%smisery_exempt 0\n", counters);
	put("/proc/4242/split_lock", text);
	CHECK_INT(splitlock_exempt_get(ctx, 4242), 0);
	CHECK_INT(splitlock_exempt_set(ctx, 4242, true), 0);
	CHECK_INT(splitlock_exempt_get(ctx, 4242), 1);
	CHECK(strstr(get("/proc/4242/split_lock"), "misery_exempt 1\n") != NULL);
	CHECK_INT(splitlock_exempt_set(ctx, 4242, false), 0);
	CHECK_INT(splitlock_exempt_get(ctx, 4242), 0);
	/* A process that does not exist, and PID 0. */
	CHECK_INT(splitlock_exempt_set(ctx, 4243, true), -ESRCH);
	CHECK_INT(splitlock_exempt_get(ctx, 0), -EINVAL);
	done(ctx);
}

TEST(exemption_needs_the_kernel_that_has_it)
{
	/* Counters without the line: the observability patches alone. */
	struct splitlock_ctx *ctx = machine("split_lock_detect", "6.12.48", "warn", true, false);

	put("/proc/self/split_lock", counters);
	put("/proc/4242/split_lock", counters);
	CHECK_INT(splitlock_exempt_set(ctx, 4242, true), -EOPNOTSUPP);
	CHECK_STR(get("/proc/4242/split_lock"), counters);
	done(ctx);
	/* A stock kernel has no file at all. */
	ctx = machine("split_lock_detect", "6.5.0", NULL, true, false);
	CHECK_INT(splitlock_exempt_get(ctx, 1), -EOPNOTSUPP);
	done(ctx);
}

TEST(process_identity_from_status)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "6.12.48", "warn", true, true);
	uint32_t uid = 0, ppid = 0;

	put("/proc/10/status", "Name:\tgame\nPPid:\t9\nUid:\t1000\t1000\t1000\t1000\nGid:\t5\t5\t5\t5\n");
	put("/proc/11/status", "Name:\tsu\nPPid:\t9\nUid:\t1000\t0\t0\t0\n");
	put("/proc/12/status", "Name:\tx\nUid:\t1000\t1000\t1000\t1000\n");
	CHECK_INT(splitlock_process_identity(ctx, 10, &uid, &ppid), 0);
	CHECK_INT(uid, 1000);
	CHECK_INT(ppid, 9);
	CHECK_INT(splitlock_process_identity(ctx, 11, &uid, &ppid), -ENOTUNIQ);
	CHECK_INT(splitlock_process_identity(ctx, 12, &uid, &ppid), -EBADMSG);
	CHECK_INT(splitlock_process_identity(ctx, 13, &uid, &ppid), -ESRCH);
	done(ctx);
}

TEST(interfaces_of_run_time_control)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "6.12.48", "warn", true, true);
	unsigned ifaces = 0;
	char path[256];

	CHECK_INT(splitlock_kernel_interfaces(ctx, &ifaces), 0);
	CHECK(ifaces & SPLITLOCK_KERNEL_MODE_WRITABLE);
	CHECK(ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT);
	snprintf(path, sizeof(path), "%s/sys/kernel/split_lock/mode", root);
	chmod(path, 0444);
	put("/proc/self/split_lock", counters);
	CHECK_INT(splitlock_kernel_interfaces(ctx, &ifaces), 0);
	CHECK(!(ifaces & SPLITLOCK_KERNEL_MODE_WRITABLE));
	CHECK(!(ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT));
	CHECK(ifaces & SPLITLOCK_KERNEL_PROC_COUNTERS);
	done(ctx);
}

/* v3 of the series: the file only has the exemption, counts are traced. */
TEST(interfaces_of_v3_exemption_without_counters)
{
	struct splitlock_ctx *ctx = machine("split_lock_detect", "7.3.4", "warn", true, false);
	unsigned ifaces = 0;
	char path[256];

	put("/proc/self/split_lock", "misery_exempt 0\n");
	CHECK_INT(splitlock_kernel_interfaces(ctx, &ifaces), 0);
	CHECK(ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT);
	CHECK(!(ifaces & SPLITLOCK_KERNEL_PROC_COUNTERS));
	/* A kernel without the exemption option has no file at all. */
	snprintf(path, sizeof(path), "%s/proc/self/split_lock", root);
	unlink(path);
	CHECK_INT(splitlock_kernel_interfaces(ctx, &ifaces), 0);
	CHECK(!(ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT));
	CHECK(!(ifaces & SPLITLOCK_KERNEL_PROC_COUNTERS));
	done(ctx);
}
