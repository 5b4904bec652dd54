/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernel.split_lock_mitigate at run time (Linux 6.2+). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "internal.h"

#define MITIGATE_PATH "/proc/sys/kernel/split_lock_mitigate"

_public_ int splitlock_mitigate_get(struct splitlock_ctx *ctx, int *value)
{
	char buf[32];
	int r = sl_read_line(ctx, MITIGATE_PATH, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (streq(buf, "0"))
		*value = 0;
	else if (streq(buf, "1"))
		*value = 1;
	else
		return -EBADMSG;
	return 0;
}

_public_ int splitlock_mitigate_set(struct splitlock_ctx *ctx, int value)
{
	const char *text = value ? "1\n" : "0\n";
	_cleanup_close_ int fd = -1;
	struct statfs fs;
	ssize_t n;

	if (value != 0 && value != 1)
		return -EINVAL;
	fd = sl_open(ctx, MITIGATE_PATH, O_WRONLY | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	if (fstatfs(fd, &fs) < 0)
		return -errno;
	if (fs.f_type != PROC_SUPER_MAGIC) {
		/* A saved or fake root: replace the file like any other. */
		int r = sl_write_atomic(ctx, MITIGATE_PATH, text, 2, 0644);

		if (r == 0)
			sl_info(ctx, "%s set to %d", MITIGATE_PATH, value);
		return r;
	}
	n = write(fd, text, 2);
	if (n < 0)
		return -errno;
	if (n != 2)
		return -EIO;
	sl_info(ctx, "kernel.split_lock_mitigate set to %d", value);
	return 0;
}
