/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernel.split_lock_mitigate at run time (Linux 6.2+). */
#include <errno.h>
#include <fcntl.h>

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
	ssize_t n;

	if (value != 0 && value != 1)
		return -EINVAL;
	/* O_TRUNC matters only for a fake root, where this is a plain file. */
	fd = sl_open(ctx, MITIGATE_PATH, O_WRONLY | O_TRUNC | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	n = write(fd, text, 2);
	if (n < 0)
		return -errno;
	if (n != 2)
		return -EIO;
	sl_info(ctx, "kernel.split_lock_mitigate set to %d", value);
	return 0;
}
