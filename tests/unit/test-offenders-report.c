/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report fed record by record, times, cgroups. */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "libsplitlock.h"
#include "offenders-internal.h"

static struct splitlock_kmsg_record rec(int facility, uint64_t usec, const char *msg)
{
	return (struct splitlock_kmsg_record){ .facility = facility, .level = 4,
					       .usec = usec, .message = msg,
					       .message_len = strlen(msg) };
}

TEST(report_counts_only_kernel_records)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	struct splitlock_kmsg_record a = rec(0, 1000, "#AC: a b/12 took a split_lock trap at address: 0x10");
	struct splitlock_kmsg_record b = rec(1, 2000, "#AC: evil/13 took a split_lock trap at address: 0x10");
	struct splitlock_kmsg_record c = rec(0, 3000, "#AC: a b/12 took a split_lock trap at address: 0x20");
	struct splitlock_kmsg_record d = rec(0, 4000, "split_lock_warn: 9 callbacks suppressed");
	const struct splitlock_offender *o = NULL;
	size_t len;

	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	CHECK_INT(splitlock_offenders_add_record(r, &a, &o), 1);
	CHECK(o != NULL);
	CHECK_INT(splitlock_offenders_add_record(r, &b, NULL), 0);
	CHECK_INT(splitlock_offenders_add_record(r, &c, NULL), 1);
	CHECK_INT(splitlock_offenders_add_record(r, &d, NULL), 0);
	CHECK_INT(splitlock_offenders_get_events(r), 2);
	CHECK_INT(splitlock_offenders_get_forged(r), 1);
	CHECK_INT(splitlock_offenders_get_suppressed(r), 9);
	CHECK_INT(splitlock_offenders_get_count(r), 1);
	o = splitlock_offenders_get(r, 0);
	CHECK_STR(splitlock_offender_get_comm(o, &len), "a b");
	CHECK_INT(splitlock_offender_get_pid(o), 12);
	CHECK_INT(splitlock_offender_get_first_seen(o), 1000);
	CHECK_INT(splitlock_offender_get_last_seen(o), 3000);
	CHECK_INT(splitlock_offender_get_ip_count(o), 2);
	CHECK_STR(splitlock_offender_get_ip(o, 1), "0x20");
	CHECK(splitlock_offenders_unref(r) == NULL);
	splitlock_unref(ctx);
}

TEST(time_parse_forms)
{
	int64_t now = 1796083200LL * 1000000, boot = now - 3600LL * 1000000, t;

	setenv("TZ", "UTC", 1);
	CHECK_INT(splitlock_time_parse("boot", now, boot, &t), 0);
	CHECK(t == boot);
	CHECK_INT(splitlock_time_parse("-2h", now, boot, &t), 0);
	CHECK(t == now - 7200LL * 1000000);
	CHECK_INT(splitlock_time_parse("-30m", now, boot, &t), 0);
	CHECK(t == now - 1800LL * 1000000);
	CHECK_INT(splitlock_time_parse("@1796083200", now, boot, &t), 0);
	CHECK(t == now);
	CHECK_INT(splitlock_time_parse("2026-12-01 10:00", now, boot, &t), 0);
	CHECK(t == now + 36000LL * 1000000);
	CHECK_INT(splitlock_time_parse("2026-12-01 10:00:30", now, boot, &t), 0);
	CHECK(t == now + 36030LL * 1000000);
	CHECK_INT(splitlock_time_parse("tomorrow", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("-2x", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("@12abc", now, boot, &t), -EINVAL);
}

TEST(cgroup_unit_and_container)
{
	char *unit, *container;

	sl_cgroup_parse("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-steam-1.scope\n",
			&unit, &container);
	CHECK_STR(unit, "app-steam-1.scope");
	CHECK(container == NULL);
	free(unit);
	sl_cgroup_parse("0::/system.slice/libpod-0123456789abcdef0123.scope/container\n", &unit, &container);
	CHECK_STR(container, "podman:0123456789ab");
	free(unit);
	free(container);
	sl_cgroup_parse("12:pids:/docker/fedcba9876543210fedc\n1:name=systemd:/docker/fedcba9876543210fedc\n",
			&unit, &container);
	CHECK_STR(container, "docker:fedcba987654");
	free(unit);
	free(container);
	sl_cgroup_parse("0::/\n", &unit, &container);
	CHECK(unit == NULL && container == NULL);
}

TEST(names_round_trip)
{
	enum splitlock_group g;
	enum splitlock_input_format f;

	CHECK_INT(splitlock_group_parse("unit", &g), 0);
	CHECK_STR(splitlock_group_name(g), "unit");
	CHECK_INT(splitlock_group_parse("units", &g), -EINVAL);
	CHECK_INT(splitlock_input_format_parse("kmsg-nul", &f), 0);
	CHECK_STR(splitlock_input_format_name(f), "kmsg-nul");
	CHECK_STR(splitlock_kind_name(SPLITLOCK_KIND_BUS_LOCK), "bus_lock");
	CHECK_STR(splitlock_action_name(SPLITLOCK_ACTION_SIGBUS), "sigbus");
}
