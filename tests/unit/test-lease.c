/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Leases on kernel.split_lock_mitigate, through the public API only, on
 * small fake roots. The holder is this test process: the fake root's
 * /proc/PID/stat of its PID is a copy of the real one, as the kernel would
 * show it; a live holder keeps its lease file flocked (the kernel lets go
 * when it ends), so a dead holder is a lease file nobody locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsplitlock.h"
#include "fake-root.h"
#include "test.h"

static bool exists(const char *path)
{
	char full[256];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return access(full, F_OK) == 0;
}

/* The fake /proc/PID/stat of a process that started at @start. */
static void put_stat(unsigned pid, unsigned long long start)
{
	char path[64], text[256];

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	snprintf(text, sizeof(text), "%u (a) b) S 1 %u %u 0 -1 4194560 0 0 0 0 0 0 0 0 "
		 "20 0 1 0 %llu 1000 100 18446744073709551615\n", pid, pid, pid, start);
	put(path, text);
}

/* This process, as the fake kernel shows it: the real stat line. */
static void put_self(void)
{
	char path[64], text[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;

	if (!f)
		abort();
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getpid());
	put(path, text);
}

/* put() makes directories 0755; slctl's are 0700, as it creates them. */
static void private_dirs(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/run/slctl", root);
	chmod(path, 0700);
	snprintf(path, sizeof(path), "%s/run/slctl/leases", root);
	chmod(path, 0700);
}

/* A stock 6.x kernel with misery on. */
static struct splitlock_ctx *fresh_root(void)
{
	struct splitlock_ctx *ctx;

	strcpy(root, "/tmp/slctl-test-lease-XXXXXX");
	if (!mkdtemp(root))
		abort();
	put("/proc/sys/kernel/split_lock_mitigate", "1\n");
	put_self();
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

static const char *sysctl_value(void)
{
	return get("/proc/sys/kernel/split_lock_mitigate");
}

TEST(first_lease_saves_and_sets_0_last_restores)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_lease *lease = NULL;
	struct stat st;
	char path[300];

	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), 0);
	CHECK(lease != NULL);
	CHECK_STR(sysctl_value(), "0\n");
	CHECK_STR(get("/run/slctl/leases/saved"), "1\n");
	snprintf(path, sizeof(path), "%s/run/slctl/leases", root);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0700);
	CHECK_INT(splitlock_lease_drop(lease), 0);
	CHECK_STR(sysctl_value(), "1\n");
	CHECK(!exists("/run/slctl/leases/saved"));
	done(ctx);
}

TEST(overlapping_leases_restore_after_the_last)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_lease *a = NULL, *b = NULL;
	struct splitlock_leases *leases = NULL;

	/* One holder may hold several leases: a launcher of several runs. */
	CHECK_INT(splitlock_lease_take(ctx, 1000, 1, &a), 0);
	CHECK_INT(splitlock_lease_take(ctx, 1001, 2, &b), 0);
	CHECK_INT(splitlock_leases_read(ctx, &leases), 0);
	CHECK_INT(splitlock_leases_get_count(leases), 2);
	splitlock_leases_free(leases);
	CHECK_STR(sysctl_value(), "0\n");
	CHECK_INT(splitlock_lease_drop(a), 0);
	CHECK_STR(sysctl_value(), "0\n");
	CHECK_STR(get("/run/slctl/leases/saved"), "1\n");
	CHECK_INT(splitlock_lease_drop(b), 0);
	CHECK_STR(sysctl_value(), "1\n");
	done(ctx);
}

TEST(a_value_set_meanwhile_is_never_overwritten)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_lease *lease = NULL;

	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), 0);
	CHECK_STR(sysctl_value(), "0\n");
	put("/proc/sys/kernel/split_lock_mitigate", "1\n");
	CHECK_INT(splitlock_lease_drop(lease), 0);
	CHECK_STR(sysctl_value(), "1\n");
	CHECK(!exists("/run/slctl/leases/saved"));

	/* And a 0 of the user's own is not turned into the saved 1. */
	put("/proc/sys/kernel/split_lock_mitigate", "0\n");
	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), 0);
	CHECK(!exists("/run/slctl/leases/saved"));
	CHECK_INT(splitlock_lease_drop(lease), 0);
	CHECK_STR(sysctl_value(), "0\n");
	done(ctx);
}

TEST(the_mitigate_plan_keeps_its_value_after_the_leases)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_mitigate_plan *plan = NULL;
	struct splitlock_lease *lease = NULL;

	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), 0);
	/* The admin wants misery off for good: the same 0, now theirs. */
	CHECK_INT(splitlock_mitigate_plan_new(ctx, 0, 0, &plan), 0);
	CHECK_INT(splitlock_mitigate_plan_apply(plan), 0);
	splitlock_mitigate_plan_free(plan);
	CHECK(!exists("/run/slctl/leases/saved"));
	CHECK_INT(splitlock_lease_drop(lease), 0);
	CHECK_STR(sysctl_value(), "0\n");
	done(ctx);
}

TEST(a_dead_holders_lease_is_removed_and_restored_by_the_next_take)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_leases *leases = NULL;
	struct splitlock_lease *lease = NULL;
	uint32_t holder = 0;
	bool live = true;
	int saved = -1;

	/* What a SIGKILLed run leaves: its lease, the saved 1 and the 0. */
	put("/run/slctl/leases/4000000-777-00000001", "pid=4000000\nstart=777\nuid=1000\nrun=4000000\nsince=1\n");
	put("/run/slctl/leases/saved", "1\n");
	put("/proc/sys/kernel/split_lock_mitigate", "0\n");
	private_dirs();

	CHECK_INT(splitlock_leases_read(ctx, &leases), 0);
	CHECK_INT(splitlock_leases_get_count(leases), 1);
	CHECK_INT(splitlock_leases_get(leases, 0, &holder, NULL, NULL, NULL, &live), 0);
	CHECK_INT(holder, 4000000);
	CHECK(!live);
	CHECK_INT(splitlock_leases_get_saved(leases, &saved), 0);
	CHECK_INT(saved, 1);
	CHECK_INT(splitlock_leases_get(leases, 1, NULL, NULL, NULL, NULL, NULL), -ERANGE);
	splitlock_leases_free(leases);
	/* Reading changed nothing. */
	CHECK(exists("/run/slctl/leases/4000000-777-00000001"));

	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), 0);
	CHECK(!exists("/run/slctl/leases/4000000-777-00000001"));
	/* Restored when the dead lease went, then saved again for this one. */
	CHECK_STR(get("/run/slctl/leases/saved"), "1\n");
	CHECK_STR(sysctl_value(), "0\n");
	CHECK_INT(splitlock_lease_drop(lease), 0);
	CHECK_STR(sysctl_value(), "1\n");
	done(ctx);
}

/* What a live holder does: a shared flock on its lease file; -1 on failure. */
static int lock_lease(const char *name)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/run/slctl/leases/%s", root, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_SH) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST(a_lease_lives_while_its_file_is_locked_whatever_proc_says)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_leases *leases = NULL;
	bool live[2] = { true, true };
	int fd;

	/*
	 * 4000001 has no /proc entry at all and lives: its holder locks its
	 * file. 4000002 looks alive in /proc and is dead: nobody locks it
	 * (a PID reused, a zombie whose main thread ended).
	 */
	put_stat(4000002, 600);
	put("/run/slctl/leases/4000001-555-00000001", "pid=4000001\nstart=555\nuid=7\nrun=9\nsince=5\n");
	put("/run/slctl/leases/4000002-600-00000001", "pid=4000002\nstart=600\nuid=7\nrun=9\nsince=5\n");
	put("/run/slctl/leases/saved", "1\n");
	put("/proc/sys/kernel/split_lock_mitigate", "0\n");
	private_dirs();
	fd = lock_lease("4000001-555-00000001");
	CHECK(fd >= 0);
	CHECK_INT(splitlock_leases_read(ctx, &leases), 0);
	CHECK_INT(splitlock_leases_get_count(leases), 2);
	splitlock_leases_get(leases, 0, NULL, NULL, NULL, NULL, &live[0]);
	splitlock_leases_get(leases, 1, NULL, NULL, NULL, NULL, &live[1]);
	CHECK(live[0]);
	CHECK(!live[1]);
	splitlock_leases_free(leases);
	/* The holder ends: its lease with it, and the value comes back. */
	close(fd);
	CHECK_INT(splitlock_leases_read(ctx, &leases), 0);
	splitlock_leases_get(leases, 0, NULL, NULL, NULL, NULL, &live[0]);
	CHECK(!live[0]);
	splitlock_leases_free(leases);
	done(ctx);
}

TEST(a_drop_looks_nothing_up_under_proc)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_lease *lease = NULL;
	char path[300], gone[310];

	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), 0);
	CHECK_STR(sysctl_value(), "0\n");
	/* /proc/sys cannot be looked up now; the drop's files are open. */
	snprintf(path, sizeof(path), "%s/proc", root);
	snprintf(gone, sizeof(gone), "%s/gone", root);
	CHECK_INT(rename(path, gone), 0);
	CHECK_INT(splitlock_lease_drop(lease), 0);
	CHECK_INT(rename(gone, path), 0);
	CHECK_STR(sysctl_value(), "1\n");
	CHECK(!exists("/run/slctl/leases/saved"));
	done(ctx);
}

TEST(a_kernel_without_the_sysctl_gets_no_lease_and_no_directory)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_lease *lease = NULL;
	struct splitlock_leases *leases = NULL;
	char path[300];

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/split_lock_mitigate", root);
	unlink(path);
	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), -ENOENT);
	CHECK(lease == NULL);
	CHECK(!exists("/run/slctl"));
	CHECK_INT(splitlock_leases_read(ctx, &leases), 0);
	CHECK_INT(splitlock_leases_get_count(leases), 0);
	CHECK(!exists("/run/slctl"));
	splitlock_leases_free(leases);
	CHECK_INT(splitlock_lease_drop(NULL), 0);
	done(ctx);
}

TEST(a_lease_directory_of_someone_else_is_refused)
{
	struct splitlock_ctx *ctx = fresh_root();
	struct splitlock_lease *lease = NULL;
	char path[300];

	put("/run/slctl/leases/.keep", "");
	private_dirs();
	snprintf(path, sizeof(path), "%s/run/slctl/leases", root);
	chmod(path, 0777);
	CHECK_INT(splitlock_lease_take(ctx, 1000, 42, &lease), -EUCLEAN);
	CHECK_STR(sysctl_value(), "1\n");
	done(ctx);
}

