/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The running kernel: release, interfaces it offers, patched counters. */
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/internal.h"

_public_ int splitlock_kernel_release(struct splitlock_ctx *ctx, char *buf,
				      size_t size)
{
	return sl_read_line(ctx, "/proc/sys/kernel/osrelease", buf, size);
}

/* True when the release is older than @major.@minor; false when unknown. */
bool sl_release_before(struct splitlock_ctx *ctx, unsigned major, unsigned minor)
{
	char release[128];
	unsigned a, b;

	if (splitlock_kernel_release(ctx, release, sizeof(release)) < 0 ||
	    sscanf(release, "%u.%u", &a, &b) != 2)
		return false;
	return a < major || (a == major && b < minor);
}

_public_ int splitlock_kernel_interfaces(struct splitlock_ctx *ctx,
					 unsigned *ifaces)
{
	static const struct { const char *path; unsigned bit; } probes[] = {
		{ "/proc/sys/kernel/split_lock_mitigate",
		  SPLITLOCK_KERNEL_MITIGATE_SYSCTL },
		{ SL_SYSFS_MODE, SPLITLOCK_KERNEL_SYSFS },
		{ "/sys/kernel/debug/split_lock/inject",
		  SPLITLOCK_KERNEL_INJECT },
	};
	unsigned bits = 0;
	int fd;

	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		if (sl_access(ctx, probes[i].path, F_OK) == 0)
			bits |= probes[i].bit;
	fd = sl_open(ctx, "/dev/kmsg", O_RDONLY | O_NONBLOCK, 0);
	if (fd >= 0) {
		bits |= SPLITLOCK_KERNEL_KMSG;
		close(fd);
	}
	if (sl_mode_file_writable(ctx))
		bits |= SPLITLOCK_KERNEL_MODE_WRITABLE;
	if (sl_has_misery_exempt(ctx))
		bits |= SPLITLOCK_KERNEL_MISERY_EXEMPT;
	if (sl_has_proc_counters(ctx))
		bits |= SPLITLOCK_KERNEL_PROC_COUNTERS;
	*ifaces = bits;
	return 0;
}

bool sl_has_proc_counters(struct splitlock_ctx *ctx)
{
	_cleanup_free_ char *text = NULL;

	/*
	 * v1 and v2 of the series count per process in /proc/PID/split_lock;
	 * v3 leaves that to the tracepoint and keeps only the exemption there.
	 */
	if (sl_read_file(ctx, "/proc/self/split_lock", 64 * 1024, &text, NULL) < 0)
		return false;
	return sl_find_key(text, "ac_traps") != NULL;
}

bool sl_mode_file_writable(struct splitlock_ctx *ctx)
{
	struct stat st;

	/*
	 * sysfs shows a file with a store method as 0644 and one without as
	 * 0444; root's CAP_DAC_OVERRIDE would let access(W_OK) say yes to
	 * either, so the mode bits are the kernel's answer.
	 */
	return sl_lstat(ctx, SL_SYSFS_MODE, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & S_IWUSR);
}

bool sl_has_misery_exempt(struct splitlock_ctx *ctx)
{
	_cleanup_free_ char *text = NULL;

	/* The kernel with the exemption always shows the line, 0 or 1. */
	if (sl_read_file(ctx, "/proc/self/split_lock", 64 * 1024, &text, NULL) < 0)
		return false;
	return sl_find_key(text, "misery_exempt") != NULL;
}

const char *sl_find_key(const char *text, const char *key)
{
	size_t len = strlen(key);

	for (const char *line = text; line && *line;) {
		if (strncmp(line, key, len) == 0 && (line[len] == ' ' || line[len] == '\t'))
			return line + len + strspn(line + len, " \t");
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

#define STATS_PATH "/sys/kernel/split_lock/stats"

/* In enum order, without gaps: a NULL name ends a program's walk. */
static const char *const counter_names[] = {
	[SPLITLOCK_COUNTER_AC_TRAPS] = "ac_traps",
	[SPLITLOCK_COUNTER_DB_TRAPS] = "db_traps",
	[SPLITLOCK_COUNTER_MISERY_DELAYS] = "misery_delays",
	[SPLITLOCK_COUNTER_SIGBUS] = "sigbus",
	[SPLITLOCK_COUNTER_WARNINGS_SUPPRESSED] = "warnings_suppressed",
};

_public_ const char *splitlock_counter_name(enum splitlock_counter counter)
{
	return (size_t)counter < ARRAY_SIZE(counter_names) ? counter_names[counter] : NULL;
}

/* Value of @name in the "name value" lines of @text (modified); -ENOENT if absent. */
static int stat_value(char *text, const char *name, uint64_t *value)
{
	size_t namelen = strlen(name);

	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');

		if (next)
			*next = '\0';
		if (strncmp(line, name, namelen) == 0 && line[namelen] == ' ') {
			char *end;

			errno = 0;
			*value = strtoull(line + namelen + 1, &end, 10);
			if (next)
				*next = '\n';
			if (errno || end == line + namelen + 1)
				return -EBADMSG;
			return 0;
		}
		if (next)
			*next++ = '\n';
		line = next;
	}
	return -ENOENT;
}

/*
 * v2 kernels give one value per file in the stats directory, as sysfs
 * wants; v1 kernels of the series one file of "name value" lines.
 */
_public_ int splitlock_kernel_counter(struct splitlock_ctx *ctx,
				      enum splitlock_counter counter, int64_t *value)
{
	_cleanup_free_ char *text = NULL;
	const char *name = splitlock_counter_name(counter);
	struct stat st;
	uint64_t v;
	int r;

	if (!name)
		return -EINVAL;
	if (sl_lstat(ctx, STATS_PATH, &st) == 0 && S_ISDIR(st.st_mode)) {
		char path[128], line[64], *end;

		snprintf(path, sizeof(path), STATS_PATH "/%s", name);
		r = sl_read_line(ctx, path, line, sizeof(line));
		if (r < 0)
			return r == -ENOENT ? -ENODATA : r;
		errno = 0;
		v = strtoull(line, &end, 10);
		if (errno || end == line || (*end && *end != '\n'))
			return -EBADMSG;
	} else {
		r = sl_read_file(ctx, STATS_PATH, 64 * 1024, &text, NULL);
		if (r < 0)
			return r;
		r = stat_value(text, name, &v);
		if (r < 0)
			return r == -ENOENT ? -ENODATA : r;
	}
	if (v > INT64_MAX)
		return -EBADMSG;
	*value = (int64_t)v;
	return 0;
}
