/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Leases on kernel.split_lock_mitigate = 0: how a stock kernel (no
 * per-process exemption) lifts the misery penalty for one run without
 * leaving it off for good. All of it lives in /run/slctl/leases, inside
 * the root-only directory of core/config-lock.c, and every change is made under an
 * exclusive flock on /run/slctl/leases.lock:
 *
 *   PID-START-TAG  one file per lease, named by its holder's PID and start
 *              time (/proc/PID/stat field 22); TAG tells apart leases of
 *              one holder. The holder keeps a shared flock on it for the
 *              lease's whole life, and the kernel lets go of that lock when
 *              the holder ends (a zombie holds no file): a lease lasts
 *              while its file is locked, in the boot it was taken in, and
 *              while its run has not been reaped. Its lines (pid=, start=,
 *              uid=, run=, run_start=, boot=, since=) say for whom, for
 *              status.
 *   saved      the value the sysctl had before slctl set it to 0 and the
 *              boot it was saved in; present only while slctl owes it
 *              back. A value saved in another boot is not ours to give
 *              back: that boot's configuration has set the sysctl since.
 *
 * Nothing outside /run/slctl is looked up while leases.lock is held: the
 * sysctl is opened and the boot id read before, and liveness is the lease
 * file's lock, not /proc. A lookup under /proc/sys waits, unkillably, on
 * its directory's lock whenever the name is not cached (procfs answers
 * RESOLVE_CACHED with -ECHILD), and any user can hold that lock; a drop
 * waiting there held leases.lock with the penalty off (eighth review).
 *
 * A user reaches this through a root helper, so what a user can cause is
 * bounded: the lock is a root-only file, waited for SL_LOCK_TIMEOUT_MS at
 * most; a uid other than root's holds SL_LEASES_PER_UID leases at most;
 * temporary files a killed writer left are swept under the lock.
 *
 * Taking a lease when the value is not 0 saves it and sets 0; when the
 * last lease goes, the saved value comes back, but only over the 0 that
 * slctl wrote: a value someone else set since is theirs and stays. A lease
 * whose holder died (SIGKILL, a crash) is found by the next take or drop,
 * which removes it and, if it was the last, restores as above. tmpfs makes
 * a reboot forget everything, as it makes the kernel forget the value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>

#include "core/internal.h"
#include "dir-list.h"
#include "run/lease.h"

struct splitlock_lease {
	struct splitlock_ctx *ctx;
	char name[48];
	int self;        /* the lease file, flocked shared while the lease lives */
	struct lease_files files;
};

static void lease_files_close(struct lease_files *f)
{
	if (f->mitigate >= 0)
		close(f->mitigate);
	f->mitigate = -1;
}

/* Before leases.lock: the sysctl (-ENOENT where the kernel has none), the boot id. */
static int lease_files_open(struct splitlock_ctx *ctx, struct lease_files *f)
{
	struct statfs fs;
	int r;

	f->mitigate = -1;
	r = sl_boot_id(ctx, f->boot, sizeof(f->boot));
	if (r < 0) {
		sl_err(ctx, "cannot read the boot id: %s", strerror(-r));
		return r;
	}
	f->mitigate = sl_open(ctx, MITIGATE_PATH, O_RDWR | O_NOFOLLOW, 0);
	if (f->mitigate < 0) {
		r = f->mitigate;
		f->mitigate = -1;
		return r;
	}
	f->in_place = fstatfs(f->mitigate, &fs) == 0 && fs.f_type != PROC_SUPER_MAGIC;
	return 0;
}

static int mitigate_read(const struct lease_files *f, int *value)
{
	char buf[8];
	ssize_t n = pread(f->mitigate, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (streq(buf, "0\n") || streq(buf, "0"))
		*value = 0;
	else if (streq(buf, "1\n") || streq(buf, "1"))
		*value = 1;
	else
		return -EBADMSG;
	return 0;
}

static int mitigate_write(struct splitlock_ctx *ctx, const struct lease_files *f, int value)
{
	ssize_t n = pwrite(f->mitigate, value ? "1\n" : "0\n", 2, 0);

	if (n < 0)
		return -errno;
	if (n != 2)
		return -EIO;
	/* A fake root's file stands for the kernel's: one value, nothing after. */
	if (f->in_place && ftruncate(f->mitigate, 2) < 0)
		return -errno;
	sl_info(ctx, "kernel.split_lock_mitigate set to %d", value);
	return 0;
}

/*
 * Whether the lease file @name of @dir is still locked by its holder. A
 * holder that ended, by exit, crash or SIGKILL, or that is a zombie, has
 * closed it: the lock is ours to take then. What cannot be judged (an
 * open that fails) is left alive.
 */
static void sync_dir(int dir)
{
	/* A lost unlink would only make the next take find a dead lease. */
	(void)fsync(dir);
}

/*
 * Under the lock: give back the saved value when no lease is left, over
 * the 0 slctl wrote only. A failed write keeps the file for the next try.
 */
static int restore_saved(struct splitlock_ctx *ctx, int dir, const struct lease_files *f)
{
	const char *boot = f->boot;
	int saved, now, r = sl_lease_read_saved(dir, boot, &saved);

	if (r == -ENOENT)
		return 0;
	if (r == -ESTALE) {
		sl_info(ctx, SL_STATE_DIR "/" LEASE_DIR "/" SAVED " was saved in another boot; "
			"it is removed and kernel.split_lock_mitigate is left as this boot set it");
		unlinkat(dir, SAVED, 0);
		sync_dir(dir);
		return 0;
	}
	if (r < 0) {
		sl_warn(ctx, SL_STATE_DIR "/" LEASE_DIR "/" SAVED " is unreadable (%s); it is "
			"removed and kernel.split_lock_mitigate is left as it is", strerror(-r));
		unlinkat(dir, SAVED, 0);
		sync_dir(dir);
		return 0;
	}
	r = mitigate_read(f, &now);
	if (r == 0 && now == 0) {
		r = mitigate_write(ctx, f, saved);
		if (r < 0) {
			sl_err(ctx, "cannot set kernel.split_lock_mitigate back to %d: %s", saved,
			       strerror(-r));
			return r;
		}
		sl_info(ctx, "the last lease ended: kernel.split_lock_mitigate is %d again", saved);
	} else if (r == 0) {
		sl_info(ctx, "the last lease ended: kernel.split_lock_mitigate is %d, set by "
			"someone else meanwhile, and stays so", now);
	}
	unlinkat(dir, SAVED, 0);
	sync_dir(dir);
	return 0;
}

static bool is_temporary(const char *name, void *data)
{
	(void)data;
	return startswith(name, ".#");
}

/*
 * Under the lock, every temporary file is a killed writer's: writers of
 * this directory write under the lock only.
 */
static void sweep_temporaries(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n;
	char **names = NULL;

	if (fd < 0)
		return;
	n = dir_list(fd, is_temporary, NULL, &names);
	for (int i = 0; i < n; i++)
		unlinkat(dir, names[i], 0);
	if (n > 0)
		dir_list_free(names, (size_t)n);
}


/*
 * Under the lock: remove the leases of dead holders and runs, and when
 * none is left, restore. *@live (may be NULL) receives the count of live
 * leases, *@of_uid (may be NULL) those of @uid.
 */
static int reconcile(struct splitlock_ctx *ctx, int dir, const struct lease_files *f,
		     uint32_t uid, size_t *live, size_t *of_uid)
{
	char **names = NULL;
	size_t alive = 0, mine = 0;
	int n;

	sweep_temporaries(dir);
	n = sl_lease_list(dir, &names);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct lease_entry e = { .uid = UINT32_MAX };

		sl_lease_parse_name(names[i], &e.holder, &e.start);
		e.run = e.holder;
		if (sl_lease_read_entry(dir, names[i], &e) < 0 || sl_lease_alive(ctx, dir, names[i], &e, f->boot)) {
			alive++;
			if (e.uid == uid)
				mine++;
			continue;
		}
		if (unlinkat(dir, names[i], 0) == 0)
			sl_info(ctx, "removed the lease of process %" PRIu32 ", which ended, or "
				"whose run ended, without dropping it", e.holder);
	}
	dir_list_free(names, (size_t)n);
	sync_dir(dir);
	if (live)
		*live = alive;
	if (of_uid)
		*of_uid = mine;
	return alive ? 0 : restore_saved(ctx, dir, f);
}

static int64_t now_usec(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return SPLITLOCK_TIME_UNKNOWN;
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

_public_ int splitlock_lease_take(struct splitlock_ctx *ctx, uint32_t uid, uint32_t run_pid,
				  struct splitlock_lease **out)
{
	struct lease_dir ld = { -1, -1 };
	struct splitlock_lease *lease;
	uint32_t pid = (uint32_t)getpid(), tag;
	uint64_t start, run_start = 0;
	char text[320], saved[64];
	size_t of_uid = 0;
	int value, r;

	*out = NULL;
	lease = calloc(1, sizeof(*lease));
	if (!lease)
		return -ENOMEM;
	lease->self = -1;
	/* Nothing is created for a kernel that has nothing to lease. */
	r = lease_files_open(ctx, &lease->files);
	if (r == 0)
		r = mitigate_read(&lease->files, &value);
	if (r < 0)
		goto fail;
	r = sl_proc_start_time(ctx, pid, &start);
	if (r < 0) {
		sl_err(ctx, "cannot read this process's start time from /proc/%" PRIu32 "/stat: %s",
		       pid, strerror(-r));
		goto fail;
	}
	/* The run, when it is another process we can see: for status, and
	 * the lease ends with it too once it is reaped. */
	if (run_pid != pid && sl_proc_start_time(ctx, run_pid, &run_start) < 0)
		run_start = 0;
	/* The tag tells apart leases of one holder (a launcher of several runs). */
	if (getrandom(&tag, sizeof(tag), GRND_NONBLOCK) != sizeof(tag))
		tag = (uint32_t)(uintptr_t)lease ^ (uint32_t)now_usec();
	snprintf(lease->name, sizeof(lease->name), "%" PRIu32 "-%" PRIu64 "-%08" PRIx32, pid,
		 start, tag);

	r = sl_lease_dir_open(ctx, true, &ld);
	if (r < 0)
		goto fail;
	r = reconcile(ctx, ld.dir, &lease->files, uid, NULL, &of_uid);
	if (r < 0)
		goto fail;
	if (uid != 0 && of_uid >= SL_LEASES_PER_UID) {
		sl_err(ctx, "uid %" PRIu32 " holds %zu leases already, the most one user may hold",
		       uid, of_uid);
		r = -EDQUOT;
		goto fail;
	}
	snprintf(text, sizeof(text), "pid=%" PRIu32 "\nstart=%" PRIu64 "\nuid=%" PRIu32
		 "\nrun=%" PRIu32 "\nrun_start=%" PRIu64 "\nboot=%s\nsince=%" PRId64 "\n",
		 pid, start, uid, run_pid, run_start, lease->files.boot, now_usec());
	/* The lease first: a crash after it leaves a dead lease, which the next
	 * slctl removes, restoring what the saved file says. Locked before
	 * leases.lock is let go: nobody sees it unlocked while we live. */
	r = sl_write_file_atomic_at(ld.dir, lease->name, text, strlen(text), 0600);
	if (r == 0) {
		lease->self = openat(ld.dir, lease->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (lease->self < 0 || flock(lease->self, LOCK_SH | LOCK_NB) < 0)
			r = -errno;
		if (r < 0)
			unlinkat(ld.dir, lease->name, 0);
	}
	if (r < 0) {
		sl_err(ctx, "cannot write the lease " SL_STATE_DIR "/" LEASE_DIR "/%s: %s",
		       lease->name, strerror(-r));
		goto fail;
	}
	r = mitigate_read(&lease->files, &value);
	if (r == 0 && value != 0) {
		/*
		 * Not 0: the first lease, or someone set a value since the
		 * runs began; either way that value is the one to give back.
		 */
		if (*lease->files.boot)
			snprintf(saved, sizeof(saved), "%d\nboot=%s\n", value, lease->files.boot);
		else
			snprintf(saved, sizeof(saved), "%d\n", value);
		r = sl_write_file_atomic_at(ld.dir, SAVED, saved, strlen(saved), 0600);
		if (r == 0)
			r = mitigate_write(ctx, &lease->files, 0);
		if (r < 0) {
			sl_err(ctx, "cannot set kernel.split_lock_mitigate to 0: %s", strerror(-r));
			unlinkat(ld.dir, SAVED, 0);
		} else {
			sl_info(ctx, "kernel.split_lock_mitigate set to 0 (it was %d) for as long "
				"as runs hold leases", value);
		}
	}
	if (r < 0) {
		unlinkat(ld.dir, lease->name, 0);
		sync_dir(ld.dir);
		goto fail;
	}
	lease->ctx = splitlock_ref(ctx);
	sl_lease_dir_close(&ld);
	*out = lease;
	return 0;
fail:
	sl_lease_dir_close(&ld);
	if (lease->self >= 0)
		close(lease->self);
	lease_files_close(&lease->files);
	free(lease);
	return r;
}

_public_ int splitlock_lease_drop(struct splitlock_lease *lease)
{
	struct lease_dir ld;
	int r;

	if (!lease)
		return 0;
	/*
	 * The lease's files are open since the take; what is looked up here
	 * is /run/slctl alone, which only root can lock, and it is looked up
	 * before leases.lock is taken.
	 */
	r = sl_lease_dir_open(lease->ctx, false, &ld);
	if (r == 0) {
		if (unlinkat(ld.dir, lease->name, 0) < 0 && errno != ENOENT)
			r = -errno;
		if (r == 0)
			r = reconcile(lease->ctx, ld.dir, &lease->files, UINT32_MAX, NULL, NULL);
		sl_lease_dir_close(&ld);
	}
	if (lease->self >= 0)
		close(lease->self);
	lease_files_close(&lease->files);
	splitlock_unref(lease->ctx);
	free(lease);
	/* No directory: nothing of this lease is left to drop. */
	return r == -ENOENT ? 0 : r;
}

int sl_leases_set_by_hand(struct splitlock_ctx *ctx, int value)
{
	struct lease_files f;
	struct lease_dir ld;
	size_t live = 0;
	int saved, r;

	r = lease_files_open(ctx, &f);
	if (r < 0)
		return r;
	/*
	 * The value and the forgetting of the saved one under one hold of
	 * leases.lock: a run that took its lease in between saved root's new
	 * value and set 0, root then forgot that, and nothing restored the
	 * value when the runs ended (fourth review).
	 */
	r = sl_lease_dir_open(ctx, false, &ld);
	if (r == -ENOENT) {
		r = mitigate_write(ctx, &f, value);
		lease_files_close(&f);
		return r;
	}
	if (r < 0) {
		lease_files_close(&f);
		return r;
	}
	r = mitigate_write(ctx, &f, value);
	if (r == 0 && sl_lease_read_saved(ld.dir, "", &saved) != -ENOENT) {
		unlinkat(ld.dir, SAVED, 0);
		sync_dir(ld.dir);
		reconcile(ctx, ld.dir, &f, UINT32_MAX, &live, NULL);
		if (live)
			sl_info(ctx, "%zu run%s hold%s a lease; the value set now stays after %s",
				live, live == 1 ? "" : "s", live == 1 ? "s" : "",
				live == 1 ? "it ends" : "they end");
	}
	sl_lease_dir_close(&ld);
	lease_files_close(&f);
	return r;
}

