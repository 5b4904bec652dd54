/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counting a process tree's split locks (slctl run --check): the PMU event
 * table, the CPU read from /proc/cpuinfo, and the choice of a source on
 * fake roots, where no source can open and each refusal must be named.
 */
#include <errno.h>
#include <unistd.h>

#include "count/pmu-events.h"
#include "macro.h"
#include "fake-root.h"
#include "test.h"

static const struct sl_pmu_event *event_of(const char *vendor, unsigned family, unsigned model)
{
	struct sl_cpu_id cpu = { .family = family, .model = model, .known = true };

	snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", vendor);
	return sl_pmu_event_for(&cpu);
}

TEST(intel_cores_up_to_cascade_lake_count_split_locks_with_sq_misc_split_lock)
{
	static const unsigned models[] = { 0x2a, 0x2d, 0x3a, 0x3e, 0x3c, 0x3f, 0x3d, 0x4f,
					   0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5 };

	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		const struct sl_pmu_event *ev = event_of("GenuineIntel", 6, models[i]);

		CHECK(ev != NULL);
		CHECK_STR(ev->name, "SQ_MISC.SPLIT_LOCK");
		/* EventCode 0xF4, UMask 0x10 (perf's pmu-events JSON). */
		CHECK_INT((int)ev->config, 0x10f4);
		CHECK_INT((int)ev->kind, SPLITLOCK_KIND_SPLIT_LOCK);
	}
}

TEST(ice_lake_server_and_granite_rapids_count_bus_locks_with_their_own_codes)
{
	CHECK_STR(event_of("GenuineIntel", 6, 0x6a)->name, "SQ_MISC.BUS_LOCK");
	CHECK_INT((int)event_of("GenuineIntel", 6, 0x6a)->config, 0x10f4);
	CHECK_INT((int)event_of("GenuineIntel", 6, 0xad)->config, 0x102c);
	CHECK_INT((int)event_of("GenuineIntel", 6, 0xad)->kind, SPLITLOCK_KIND_BUS_LOCK);
}

TEST(amd_zen_counts_bus_locks_with_ls_locks_bus_lock)
{
	static const unsigned families[] = { 0x17, 0x19, 0x1a };

	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		const struct sl_pmu_event *ev = event_of("AuthenticAMD", families[i], 1);

		CHECK(ev != NULL);
		CHECK_STR(ev->name, "ls_locks.bus_lock");
		CHECK_INT((int)ev->config, 0x0125);
		CHECK_INT((int)ev->kind, SPLITLOCK_KIND_BUS_LOCK);
	}
}

TEST(hybrid_unknown_and_foreign_cpus_get_no_guessed_event)
{
	/* Alder Lake, Raptor Lake: the E-cores need an event of their own. */
	CHECK(event_of("GenuineIntel", 6, 0x97) == NULL);
	CHECK(event_of("GenuineIntel", 6, 0xb7) == NULL);
	CHECK(event_of("GenuineIntel", 6, 0x01) == NULL);
	CHECK(event_of("GenuineIntel", 0xf, 0x55) == NULL);
	CHECK(event_of("AuthenticAMD", 0x15, 0x01) == NULL);
	CHECK(event_of("HygonGenuine", 0x18, 0x01) == NULL);
	CHECK(sl_pmu_event_for(&(struct sl_cpu_id){ .known = false }) == NULL);
}

TEST(cpuinfo_gives_the_first_processors_vendor_family_and_model)
{
	struct sl_cpu_id cpu;

	sl_cpu_id_parse("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
			"model\t\t: 85\nmodel name\t: Intel(R) Xeon(R)\n\n"
			"processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
			"model\t\t: 1\n", &cpu);
	CHECK(cpu.known);
	CHECK_STR(cpu.vendor, "GenuineIntel");
	CHECK_INT((int)cpu.family, 6);
	CHECK_INT((int)cpu.model, 85);
	/* "model name" before "model" is not the model. */
	sl_cpu_id_parse("vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel name\t: AMD EPYC\n"
			"model\t\t: 17\n", &cpu);
	CHECK(cpu.known);
	CHECK_INT((int)cpu.model, 17);
	/* The second block is another CPU's: not read for the first. */
	sl_cpu_id_parse("vendor_id\t: GenuineIntel\ncpu family\t: 6\n\nmodel\t\t: 85\n", &cpu);
	CHECK(!cpu.known);
	sl_cpu_id_parse("vendor_id\t: GenuineIntel\ncpu family\t: six\nmodel\t\t: 85\n", &cpu);
	CHECK(!cpu.known);
	sl_cpu_id_parse("", &cpu);
	CHECK(!cpu.known);
}

/* A root whose CPU is @cpuinfo, with a tracepoint id file when @id. */
static struct splitlock_ctx *machine(const char *cpuinfo, const char *id)
{
	fake_root_make("count");
	put("/proc/cpuinfo", cpuinfo);
	put("/proc/sys/kernel/perf_event_paranoid", "2\n");
	if (id) {
		put("/sys/kernel/split_lock/mode", "warn\n");
		put("/sys/kernel/tracing/events/split_lock/split_lock_trap/id", id);
	}
	return fake_root_ctx();
}

/* Whether this machine's PMU takes raw events at all (a VM often has none). */
static bool machine_has_core_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;
}

TEST(a_cpu_outside_the_table_and_no_tracepoint_refuse_with_both_reasons)
{
	struct splitlock_ctx *ctx = machine("vendor_id\t: GenuineIntel\ncpu family\t: 6\n"
					    "model\t\t: 151\n", NULL);
	struct splitlock_count *count = NULL;
	uint64_t n = 7;

	CHECK_INT(splitlock_count_new(ctx, 0, &count), 0);
	CHECK_INT(splitlock_count_get_refusal(count), -EOPNOTSUPP);
	CHECK_INT((int)splitlock_count_get_source(count), 0);
	CHECK(!splitlock_count_is_exact(count));
	CHECK(strstr(splitlock_count_get_reason(count), "GenuineIntel family 0x6 model 0x97"));
	CHECK(strstr(splitlock_count_get_reason(count), "no split_lock:split_lock_trap"));
	CHECK_INT(splitlock_count_attach(count, (uint32_t)getpid()), -EOPNOTSUPP);
	CHECK_INT(splitlock_count_read(count, SPLITLOCK_KIND_SPLIT_LOCK, &n), -ENOTCONN);
	CHECK(n == 0);
	splitlock_count_free(count);
	splitlock_unref(ctx);
	fake_root_remove();
}

TEST(an_event_the_kernel_cannot_open_is_named_in_the_refusal)
{
	struct splitlock_ctx *ctx;
	struct splitlock_count *count = NULL;

	if (machine_has_core_pmu()) {
		SKIP("this machine has a core PMU, which may count the event");
		return;
	}
	ctx = machine("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n",
		      /* No tracepoint has this id: the kernel refuses it. */
		      "4000000000\n");
	CHECK_INT(splitlock_count_new(ctx, 0, &count), 0);
	CHECK(splitlock_count_get_refusal(count) < 0);
	CHECK(strstr(splitlock_count_get_reason(count), "SQ_MISC.SPLIT_LOCK cannot be counted"));
	CHECK(strstr(splitlock_count_get_reason(count), "tracepoint split_lock:split_lock_trap"));
	splitlock_count_free(count);
	splitlock_unref(ctx);
	fake_root_remove();
}

TEST(unknown_flags_and_kinds_are_refused)
{
	struct splitlock_ctx *ctx = machine("", NULL);
	struct splitlock_count *count = (void *)1;
	uint64_t n;

	size_t tasks = 9;
	const uint64_t *ips = (void *)1;

	CHECK_INT(splitlock_count_new(ctx, 1u << 1, &count), -EINVAL);
	CHECK(count == NULL);
	CHECK_INT(splitlock_count_new(ctx, SPLITLOCK_COUNT_TASKS, &count), 0);
	/* Nothing attached: no tasks, nothing to poll, nothing to drain. */
	CHECK_INT(splitlock_count_get_tasks(count, &tasks, NULL), -ENOTCONN);
	CHECK(tasks == 0);
	CHECK_INT(splitlock_count_get_fd(count), -ENODATA);
	CHECK_INT(splitlock_count_drain(count), 0);
	CHECK_INT(splitlock_count_get_task(count, 0, NULL, NULL, NULL, NULL), -ERANGE);
	CHECK_INT(splitlock_count_get_task_ips(count, 0, &ips, &tasks, NULL), -ERANGE);
	CHECK(ips == NULL);
	CHECK_INT(splitlock_count_read(count, (enum splitlock_kind)2, &n), -EINVAL);
	CHECK(strstr(splitlock_count_get_reason(count), "names no vendor"));
	splitlock_count_free(count);
	CHECK_STR(splitlock_count_source_name(SPLITLOCK_COUNT_PMU), "pmu");
	CHECK_STR(splitlock_count_source_name(SPLITLOCK_COUNT_TRACE), "trace");
	CHECK_STR(splitlock_count_source_name(SPLITLOCK_COUNT_LOG), "log");
	CHECK(splitlock_count_source_name(0) == NULL);
	CHECK(splitlock_count_source_name(SPLITLOCK_COUNT_LOG + 1) == NULL);
	splitlock_unref(ctx);
	fake_root_remove();
}

