/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The patched kernel's counters, one getter per counter: both layouts of
 * the stats, a counter the kernel does not report, and walking the
 * counters by name (the enum has no _MAX a program could size arrays by).
 */
#include <errno.h>

#include "libsplitlock.h"
#include "fake-root.h"
#include "test.h"

static int counter(const char *stats_file, const char *dir_file, const char *dir_text,
		   enum splitlock_counter c, int64_t *value)
{
	struct splitlock_ctx *ctx;
	int r;

	fake_root_make("counter");
	put("/proc/sys/kernel/osrelease", "6.12.0\n");
	if (stats_file)
		put("/sys/kernel/split_lock/stats", stats_file);
	if (dir_file) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/kernel/split_lock/stats/%s", dir_file);
		put(path, dir_text);
	}
	ctx = fake_root_ctx();
	r = splitlock_kernel_counter(ctx, c, value);
	splitlock_unref(ctx);
	fake_root_remove();
	return r;
}

TEST(v1_stats_file_gives_each_counter)
{
	static const char stats[] = "ac_traps 30\ndb_traps 2\nmisery_delays 29\nsigbus 1\n";
	int64_t v = -7;

	CHECK_INT(counter(stats, NULL, NULL, SPLITLOCK_COUNTER_AC_TRAPS, &v), 0);
	CHECK_INT(v, 30);
	CHECK_INT(counter(stats, NULL, NULL, SPLITLOCK_COUNTER_MISERY_DELAYS, &v), 0);
	CHECK_INT(v, 29);
	CHECK_INT(counter(stats, NULL, NULL, SPLITLOCK_COUNTER_SIGBUS, &v), 0);
	CHECK_INT(v, 1);
	/* Not in this kernel's file: no data, and *value untouched. */
	v = -7;
	CHECK_INT(counter(stats, NULL, NULL, SPLITLOCK_COUNTER_WARNINGS_SUPPRESSED, &v), -ENODATA);
	CHECK_INT(v, -7);
}

TEST(v2_stats_directory_gives_each_counter)
{
	int64_t v = -7;

	CHECK_INT(counter(NULL, "db_traps", "12\n", SPLITLOCK_COUNTER_DB_TRAPS, &v), 0);
	CHECK_INT(v, 12);
	CHECK_INT(counter(NULL, "db_traps", "12\n", SPLITLOCK_COUNTER_AC_TRAPS, &v), -ENODATA);
	CHECK_INT(counter(NULL, "sigbus", "3 4\n", SPLITLOCK_COUNTER_SIGBUS, &v), -EBADMSG);
	CHECK_INT(counter(NULL, "sigbus", "18446744073709551615\n", SPLITLOCK_COUNTER_SIGBUS, &v),
		  -EBADMSG);
}

TEST(stock_kernel_has_no_counters)
{
	int64_t v;

	CHECK_INT(counter(NULL, NULL, NULL, SPLITLOCK_COUNTER_AC_TRAPS, &v), -ENOENT);
}

TEST(unknown_counter_is_invalid_and_names_end_the_walk)
{
	int64_t v;
	int n = 0;

	for (int c = 0; splitlock_counter_name((enum splitlock_counter)c); c++)
		n++;
	CHECK_INT(n, 5);
	CHECK(splitlock_counter_name((enum splitlock_counter)n) == NULL);
	CHECK(splitlock_counter_name((enum splitlock_counter)-1) == NULL);
	CHECK_INT(counter("ac_traps 1\n", NULL, NULL, (enum splitlock_counter)n, &v), -EINVAL);
}
