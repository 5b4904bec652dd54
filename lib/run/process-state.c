/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who a process is, from /proc/PID under the context's root: its owner and
 * parent (status), and its start time (stat), which together with the PID
 * names one process for good: a PID is reused, a PID with its start time
 * is not.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>

#include <sys/vfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include "core/internal.h"

static int read_proc(struct splitlock_ctx *ctx, uint32_t pid, const char *what,
		     char **text)
{
	char path[64];
	int r;

	if (pid == 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/%s", pid, what);
	r = sl_read_file(ctx, path, 64 * 1024, text, NULL);
	/* A process that is gone leaves no directory: say it as kill(2) does. */
	return r == -ENOENT ? -ESRCH : r;
}

/* The digits at @s as a number that fits @max; false for anything else. */
static bool parse_number(const char *s, const char **end, uint64_t max, uint64_t *value)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*end = p;
	*value = v;
	return true;
}

int sl_proc_start_time(struct splitlock_ctx *ctx, uint32_t pid, uint64_t *start)
{
	char state;
	int r = sl_proc_stat(ctx, pid, start, &state);

	return r;
}

/*
 * "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so
 * the fields are counted from the last ')'. starttime is field 22, the
 * 20th after COMM.
 */
static int parse_stat(const char *text, uint64_t *start, char *state)
{
	const char *p = strrchr(text, ')');

	if (!p || p[1] != ' ' || !p[2])
		return -EBADMSG;
	*state = p[2];
	p++;
	for (int field = 3; field < 22; field++) {
		p += strspn(p, " ");
		p += strcspn(p, " \n");
		if (!*p)
			return -EBADMSG;
	}
	p += strspn(p, " ");
	if (!parse_number(p, &p, UINT64_MAX, start) || (*p != ' ' && *p != '\n' && *p))
		return -EBADMSG;
	return 0;
}

int sl_proc_stat(struct splitlock_ctx *ctx, uint32_t pid, uint64_t *start, char *state)
{
	_cleanup_free_ char *text = NULL;
	int r = read_proc(ctx, pid, "stat", &text);

	return r < 0 ? r : parse_stat(text, start, state);
}

int sl_proc_start_time_bounded(struct splitlock_ctx *ctx, uint32_t pid, uint64_t *start)
{
	_cleanup_free_ char *text = NULL;
	char path[64], state;
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", pid);
	fd = sl_open_bounded(ctx, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	r = sl_read_fd(fd, 64 * 1024, &text, NULL);
	close(fd);
	return r < 0 ? r : parse_stat(text, start, &state);
}

bool sl_proc_is_procfs(struct splitlock_ctx *ctx)
{
	_cleanup_close_ int fd = sl_open_dir(ctx, "/proc");
	struct statfs fs;

	return fd >= 0 && fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

bool sl_pid_reaped(uint32_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0U);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ESRCH;
}

int sl_boot_id(struct splitlock_ctx *ctx, char *id, size_t size)
{
	int r = sl_read_line(ctx, "/proc/sys/kernel/random/boot_id", id, size);

	/* A root without one (an image, an old fixture) has one boot. */
	if (r == -ENOENT) {
		*id = '\0';
		return 0;
	}
	if (r < 0)
		return r;
	for (char *c = id; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || *c == '-'))
			return -EBADMSG;
	return 0;
}

_public_ int splitlock_process_identity(struct splitlock_ctx *ctx, uint32_t pid,
				       uint32_t *uid, uint32_t *ppid)
{
	_cleanup_free_ char *text = NULL;
	const char *line;
	uint64_t ids[4], parent;
	int r = read_proc(ctx, pid, "status", &text);

	if (r < 0)
		return r;
	line = sl_find_key(text, "Uid:");
	if (!line)
		return -EBADMSG;
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		line += strspn(line, " \t");
		if (!parse_number(line, &line, UINT32_MAX, &ids[i]))
			return -EBADMSG;
	}
	line = sl_find_key(text, "PPid:");
	if (!line || !parse_number(line, &line, UINT32_MAX, &parent))
		return -EBADMSG;
	/* Real, effective, saved and filesystem: a process between identities
	 * (a setuid program, a daemon dropping root) is nobody's plain process. */
	if (ids[1] != ids[0] || ids[2] != ids[0] || ids[3] != ids[0])
		return -ENOTUNIQ;
	if (uid)
		*uid = (uint32_t)ids[0];
	if (ppid)
		*ppid = (uint32_t)parent;
	return 0;
}
