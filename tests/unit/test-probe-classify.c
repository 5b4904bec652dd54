/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The probe's verdict for every policy the kernel can apply, from what the
 * child went through: this machine only ever shows "none".
 */
#include "core/internal.h"
#include "probe/probe.h"
#include "test.h"

#define US 1000ull
#define MS 1000000ull

static struct sl_probe_obs three(uint64_t a, uint64_t b, uint64_t c)
{
	return (struct sl_probe_obs){
		.attempts = 3, .attempt_ns = { a, b, c }, .baseline_ns = 40,
	};
}

TEST(nothing_logged_and_no_delay_is_none)
{
	/* 60 us a split lock, as where a hypervisor handles it: no penalty. */
	struct sl_probe_obs obs = three(60 * US, 58 * US, 61 * US);
	struct sl_probe_verdict v;

	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_NONE);
	CHECK(!v.has_trap);
	CHECK(!v.has_delay);
}

TEST(logged_without_delay_is_warn_with_the_logged_trap)
{
	struct sl_probe_obs obs = three(3 * US, 2 * US, 2 * US);
	struct sl_probe_verdict v;

	obs.logged = 1;
	obs.logged_kind = SPLITLOCK_KIND_BUS_LOCK;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_WARN);
	CHECK(v.has_trap);
	CHECK_INT(v.trap, SPLITLOCK_KIND_BUS_LOCK);
	CHECK(v.has_delay);
	CHECK(v.delay_ms < 0.01);
}

TEST(logged_and_delayed_is_misery_with_the_median_delay)
{
	/* The first trap is logged, all three sleep; one waited longer. */
	struct sl_probe_obs obs = three(10 * MS + 40, 14 * MS + 40, 11 * MS + 40);
	struct sl_probe_verdict v;

	obs.logged = 1;
	obs.logged_kind = SPLITLOCK_KIND_SPLIT_LOCK;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_MISERY);
	CHECK_INT(v.trap, SPLITLOCK_KIND_SPLIT_LOCK);
	CHECK(v.delay_ms > 10.99 && v.delay_ms < 11.01);
}

TEST(one_slow_attempt_is_preemption_not_misery)
{
	/* A busy machine took the CPU away for 4 ms once. */
	struct sl_probe_obs obs = three(60 * US, 4 * MS, 61 * US);
	struct sl_probe_verdict v;

	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_NONE);
}

TEST(delay_without_log_line_is_misery_of_the_cpus_trap)
{
	/* The log's rate limit ate the line; the penalty still shows. */
	struct sl_probe_obs obs = three(12 * MS, 10 * MS, 3 * US);
	struct sl_probe_verdict v;

	obs.cpu_features = SPLITLOCK_CPU_SPLIT_LOCK_DETECT | SPLITLOCK_CPU_BUS_LOCK_DETECT;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_MISERY);
	CHECK(v.has_trap);
	CHECK_INT(v.trap, SPLITLOCK_KIND_SPLIT_LOCK);
}

TEST(sigbus_on_first_attempt_is_sigbus)
{
	struct sl_probe_obs obs = { .attempts = 0, .sigbus = true,
				    .cpu_features = SPLITLOCK_CPU_BUS_LOCK_DETECT };
	struct sl_probe_verdict v;

	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_SIGBUS);
	CHECK_INT(v.trap, SPLITLOCK_KIND_BUS_LOCK);
	CHECK(!v.has_delay);
}

TEST(simulated_trap_is_the_injected_kind_without_cpu_support)
{
	struct sl_probe_obs obs = three(10 * MS, 10 * MS, 10 * MS);
	struct sl_probe_verdict v;

	obs.simulated = true;
	obs.simulated_kind = SPLITLOCK_KIND_BUS_LOCK;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_MISERY);
	CHECK(v.has_trap);
	CHECK_INT(v.trap, SPLITLOCK_KIND_BUS_LOCK);
}

TEST(detected_on_a_cpu_without_flags_has_no_known_trap)
{
	struct sl_probe_obs obs = three(20 * MS, 3 * US, 15 * MS);
	struct sl_probe_verdict v;

	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_MISERY);
	CHECK(!v.has_trap);
}

/*
 * Seen on a real machine: a KVM guest (Linux 6.18, #DB only, warn mode) on
 * an Emerald Rapids host. The guest logged its #DB warnings and delayed
 * nothing, yet every trap took 11 ms, also with kernel.split_lock_mitigate
 * at 0: the host's misery on the virtual CPU.
 */
static struct sl_probe_obs guest_db_warn(void)
{
	struct sl_probe_obs obs = three(10855 * US, 11900 * US, 10400 * US);

	obs.cpu_features = SPLITLOCK_CPU_BUS_LOCK_DETECT | SPLITLOCK_CPU_HYPERVISOR;
	obs.logged = 3;
	obs.logged_kind = SPLITLOCK_KIND_BUS_LOCK;
	obs.mode = SPLITLOCK_MODE_WARN;
	obs.mitigate = 1;
	return obs;
}

TEST(a_delay_the_kernel_cannot_have_added_in_a_vm_is_the_hypervisors)
{
	struct sl_probe_obs obs = guest_db_warn();
	struct sl_probe_verdict v;

	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_MISERY);
	CHECK_INT(v.trap, SPLITLOCK_KIND_BUS_LOCK);
	CHECK(v.delay_ms > 10.85 && v.delay_ms < 10.86);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_HYPERVISOR);

	obs.mitigate = 0;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_HYPERVISOR);
}

TEST(the_same_delay_outside_a_vm_has_an_unknown_cause)
{
	struct sl_probe_obs obs = guest_db_warn();
	struct sl_probe_verdict v;

	obs.cpu_features = SPLITLOCK_CPU_BUS_LOCK_DETECT;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_UNKNOWN);
}

TEST(the_kernels_own_penalties_are_the_kernels)
{
	struct sl_probe_obs obs = guest_db_warn();
	struct sl_probe_verdict v;

	/* ratelimit throttles #DB; seq delays it, exempt or not. */
	obs.mode = SPLITLOCK_MODE_RATELIMIT;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_KERNEL);
	obs.mode = SPLITLOCK_MODE_SEQ;
	obs.exempt = true;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_KERNEL);
	/* A mode that could not be read is assumed to delay. */
	obs.mode = SPLITLOCK_MODE_UNKNOWN;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_KERNEL);
	/* warn: #AC misery, on when the sysctl is 1 or missing (5.19-6.1). */
	obs = guest_db_warn();
	obs.logged_kind = SPLITLOCK_KIND_SPLIT_LOCK;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_KERNEL);
	obs.mitigate = -1;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_KERNEL);
	/* An injected trap runs this kernel's handler alone. */
	obs = guest_db_warn();
	obs.simulated = true;
	obs.simulated_kind = SPLITLOCK_KIND_BUS_LOCK;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_KERNEL);
}

TEST(ac_warn_delays_the_kernel_does_not_add_are_put_on_the_host)
{
	struct sl_probe_obs obs = guest_db_warn();
	struct sl_probe_verdict v;

	obs.logged_kind = SPLITLOCK_KIND_SPLIT_LOCK;
	obs.mitigate = 0;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_HYPERVISOR);
	/* The caller is exempt (slctl run --no-misery -- slctl probe). */
	obs.mitigate = 1;
	obs.exempt = true;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_HYPERVISOR);
	/* Before 5.19 warn mode only warned. */
	obs.exempt = false;
	obs.before_misery = true;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_HYPERVISOR);
	/* off and fatal delay nothing; a VM's host still may. */
	obs.before_misery = false;
	obs.mode = SPLITLOCK_MODE_OFF;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_HYPERVISOR);
}

TEST(undelayed_outcomes_have_no_delayer)
{
	struct sl_probe_obs obs = guest_db_warn();
	struct sl_probe_verdict v;

	obs.attempt_ns[0] = obs.attempt_ns[1] = obs.attempt_ns[2] = 3 * US;
	sl_probe_classify(&obs, &v);
	CHECK_INT(v.action, SPLITLOCK_PROBE_WARN);
	CHECK_INT(v.delayer, SPLITLOCK_PROBE_DELAYER_NONE);
}

TEST(names)
{
	CHECK_STR(splitlock_probe_delayer_name(SPLITLOCK_PROBE_DELAYER_HYPERVISOR), "hypervisor");
	CHECK_STR(splitlock_probe_delayer_name(SPLITLOCK_PROBE_DELAYER_NONE), "none");
	CHECK(splitlock_probe_delayer_name((enum splitlock_probe_delayer)7) == NULL);
	CHECK_STR(splitlock_probe_action_name(SPLITLOCK_PROBE_MISERY), "misery");
	CHECK(splitlock_probe_action_name((enum splitlock_probe_action)9) == NULL);
	CHECK_STR(splitlock_probe_trap_name(SPLITLOCK_KIND_SPLIT_LOCK), "ac");
	CHECK_STR(splitlock_probe_trap_name(SPLITLOCK_KIND_BUS_LOCK), "db");
}
