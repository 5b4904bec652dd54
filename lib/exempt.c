/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The patched kernel's per-process misery exemption. The kernel ABI this is
 * written against: writing "misery_exempt 1" (or 0) to /proc/PID/split_lock
 * needs CAP_SYS_ADMIN and ptrace access to PID and is refused with EPERM in
 * seq mode; the file then shows a "misery_exempt 1" line after the
 * counters; the mark is inherited across fork and exec, as oom_score_adj
 * is. An exempt process is still detected, warned about and counted, only
 * not penalized.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "internal.h"

static void exempt_path(uint32_t pid, char *path, size_t size)
{
	snprintf(path, size, "/proc/%" PRIu32 "/split_lock", pid);
}

_public_ int splitlock_exempt_get(struct splitlock_ctx *ctx, uint32_t pid)
{
	_cleanup_free_ char *text = NULL;
	const char *value;
	char path[64];
	int r;

	if (pid == 0)
		return -EINVAL;
	exempt_path(pid, path, sizeof(path));
	r = sl_read_file(ctx, path, 64 * 1024, &text, NULL);
	if (r == -ENOENT)
		/* No process, or a kernel without the file at all. */
		return sl_access(ctx, "/proc/self/split_lock", F_OK) == 0 ? -ESRCH : -EOPNOTSUPP;
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

_public_ int splitlock_exempt_set(struct splitlock_ctx *ctx, uint32_t pid, bool exempt)
{
	const char *line = exempt ? "misery_exempt 1\n" : "misery_exempt 0\n";
	_cleanup_close_ int fd = -1;
	struct statfs fs;
	char path[64];
	ssize_t n;
	int r;

	/* Reading first tells a kernel without the exemption from a refusal. */
	r = splitlock_exempt_get(ctx, pid);
	if (r < 0)
		return r;
	exempt_path(pid, path, sizeof(path));
	fd = sl_open(ctx, path, O_WRONLY | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	if (fstatfs(fd, &fs) < 0)
		return -errno;
	if (fs.f_type != PROC_SUPER_MAGIC) {
		/* A fake root: the file shows what was written, as mitigate.c's do. */
		r = sl_write_atomic(ctx, path, line, strlen(line), 0600);
	} else {
		n = write(fd, line, strlen(line));
		r = n < 0 ? -errno : (size_t)n == strlen(line) ? 0 : -EIO;
	}
	if (r < 0)
		return r;
	/* Said done only once the kernel shows it. */
	r = splitlock_exempt_get(ctx, pid);
	if (r < 0)
		return r;
	if (r != exempt) {
		sl_err(ctx, "%s was written \"%.15s\" but does not show it", path, line);
		return -EIO;
	}
	sl_info(ctx, "process %" PRIu32 " %s misery", pid, exempt ? "is exempt from" : "is subject to");
	return 0;
}
