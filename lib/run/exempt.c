/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The patched kernel's per-process misery exemption. The kernel ABI this is
 * written against: writing "misery_exempt 1" (or 0) to /proc/PID/split_lock
 * needs CAP_SYS_ADMIN and ptrace access to PID and is refused with EPERM in
 * seq mode; the file then shows a "misery_exempt 1" line after the
 * counters; the mark is inherited across fork and exec, as oom_score_adj
 * is. An exempt process is still detected, warned about and counted, only
 * not penalized.
 *
 * The file is read, written and read back through one descriptor of the
 * /proc/PID directory: once the process it was opened for has ended, the
 * kernel refuses every lookup in it, so a PID reused meanwhile by another
 * process is never marked in its place.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/vfs.h>

#include "core/internal.h"
#include "helper-lib.h"

static void exempt_path(uint32_t pid, char *path, size_t size)
{
	snprintf(path, size, "/proc/%" PRIu32 "/split_lock", pid);
}

/* /proc/PID under the root: the handle that pins the process. */
static int open_proc_dir(struct splitlock_ctx *ctx, uint32_t pid)
{
	char path[32];
	int fd;

	if (pid == 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%" PRIu32, pid);
	fd = sl_open_dir(ctx, path);
	return fd == -ENOENT ? -ESRCH : fd;
}

static int get_at(struct splitlock_ctx *ctx, int dir)
{
	_cleanup_close_ int fd = openat(dir, "split_lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	const char *value;
	int r;

	if (fd < 0) {
		if (errno != ENOENT)
			return -errno;
		/* No process, or a kernel without the file at all. */
		return sl_access(ctx, "/proc/self/split_lock", F_OK) == 0 ? -ESRCH : -EOPNOTSUPP;
	}
	r = sl_read_fd(fd, 64 * 1024, &text, NULL);
	if (r < 0)
		return r;
	value = sl_find_key(text, "misery_exempt");
	if (!value)
		return -EOPNOTSUPP;
	if (value[0] == '0' || value[0] == '1')
		if (value[1] == '\n' || value[1] == '\0')
			return value[0] == '1';
	return -EBADMSG;
}

_public_ int splitlock_exempt_get(struct splitlock_ctx *ctx, uint32_t pid)
{
	_cleanup_close_ int dir = open_proc_dir(ctx, pid);

	if (dir == -ESRCH)
		return sl_access(ctx, "/proc/self/split_lock", F_OK) == 0 ? -ESRCH : -EOPNOTSUPP;
	if (dir < 0)
		return dir;
	return get_at(ctx, dir);
}

static int set_at(struct splitlock_ctx *ctx, int dir, uint32_t pid, bool exempt)
{
	const char *line = exempt ? "misery_exempt 1\n" : "misery_exempt 0\n";
	_cleanup_close_ int fd = -1;
	struct statfs fs;
	char path[64];
	ssize_t n;
	int r;

	/* Reading first tells a kernel without the exemption from a refusal. */
	r = get_at(ctx, dir);
	if (r < 0)
		return r;
	exempt_path(pid, path, sizeof(path));
	fd = openat(dir, "split_lock", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstatfs(fd, &fs) < 0)
		return -errno;
	if (fs.f_type != PROC_SUPER_MAGIC) {
		/* A fake root: the file shows what was written, as sysctl/mitigate-plan.c's do. */
		r = sl_write_file_atomic_at(dir, "split_lock", line, strlen(line), 0600);
	} else {
		n = write(fd, line, strlen(line));
		r = n < 0 ? -errno : (size_t)n == strlen(line) ? 0 : -EIO;
	}
	if (r < 0)
		return r;
	/* Said done only once the kernel shows it. */
	r = get_at(ctx, dir);
	if (r < 0)
		return r;
	if (r != exempt) {
		sl_err(ctx, "%s was written \"%.15s\" but does not show it", path, line);
		return -EIO;
	}
	sl_info(ctx, "process %" PRIu32 " %s misery", pid, exempt ? "is exempt from" : "is subject to");
	return 0;
}

_public_ int splitlock_exempt_set(struct splitlock_ctx *ctx, uint32_t pid, bool exempt)
{
	_cleanup_close_ int dir = open_proc_dir(ctx, pid);

	if (dir == -ESRCH)
		return sl_access(ctx, "/proc/self/split_lock", F_OK) == 0 ? -ESRCH : -EOPNOTSUPP;
	if (dir < 0)
		return dir;
	return set_at(ctx, dir, pid, exempt);
}

/* Whether the process of @pidfd has ended (a zombie has). */
static bool pidfd_ended(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* Whether the Uid: line of DIR's status still reads @ids. */
static bool same_ids(int dir, const unsigned long ids[4])
{
	_cleanup_close_ int fd = openat(dir, "status", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	_cleanup_free_ char *status = NULL;
	unsigned long now[4];
	const char *line;

	if (fd < 0 || sl_read_fd(fd, 64 * 1024, &status, NULL) < 0)
		return false;
	line = sl_find_key(status, "Uid:");
	return line && sscanf(line, "%lu %lu %lu %lu", &now[0], &now[1], &now[2], &now[3]) == 4 &&
	       memcmp(now, ids, sizeof(now)) == 0;
}

int sl_exempt_set_checked(struct splitlock_ctx *ctx, uint32_t pid, uint32_t uid,
			  uint32_t ppid, bool exempt)
{
	_cleanup_close_ int pidfd = -1, dir = -1, status_fd = -1;
	_cleanup_free_ char *status = NULL;
	const char *line;
	unsigned long ids[4], parent;
	int r;

	if (pid == 0 || pid > INT32_MAX)
		return -EINVAL;
	/*
	 * The kernel's handle first, then the directory: while the pidfd's
	 * process has not ended, PID is that process, so the directory
	 * opened after it is that process's too.
	 */
	pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0)
		return -errno;
	dir = open_proc_dir(ctx, pid);
	if (dir < 0)
		return dir;
	status_fd = openat(dir, "status", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (status_fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = sl_read_fd(status_fd, 64 * 1024, &status, NULL);
	if (r < 0)
		return r;
	line = sl_find_key(status, "Uid:");
	if (!line || sscanf(line, "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) != 4)
		return -EBADMSG;
	if (ids[1] != ids[0] || ids[2] != ids[0] || ids[3] != ids[0])
		return -ENOTUNIQ;
	line = sl_find_key(status, "PPid:");
	if (!line || sscanf(line, "%lu", &parent) != 1)
		return -EBADMSG;
	if (ids[0] != uid || parent != ppid)
		return -ECHILD;
	line = sl_find_key(status, "State:");
	if ((line && (*line == 'Z' || *line == 'X')) || pidfd_ended(pidfd))
		return -ESRCH;
	r = set_at(ctx, dir, pid, exempt);
	/* The pin held from the check to the write (the real /proc refuses a
	 * dead process's directory); a fake root has no such pin, so ask the
	 * kernel once more, and undo what may have reached another process. */
	if (r == 0 && pidfd_ended(pidfd)) {
		set_at(ctx, dir, pid, !exempt);
		return -ESRCH;
	}
	/* A setuid program exec'ed between the check and the write is not
	 * the user's to exempt: read the identity again, undo on a change. */
	if (r == 0 && exempt && !same_ids(dir, ids)) {
		set_at(ctx, dir, pid, false);
		return -ENOTUNIQ;
	}
	return r;
}
