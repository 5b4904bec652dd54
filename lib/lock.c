/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One slctl at a time changes the boot configuration: an exclusive flock on
 * /run/lock/slctl.lock under the root. The file stays (it is on tmpfs on a
 * running system); the lock goes with the descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>

#include "bootloader.h"

#define LOCK_DIR "/run/lock"
#define LOCK_FILE LOCK_DIR "/slctl.lock"

int sl_lock(struct splitlock_ctx *ctx)
{
	int fd, r;

	r = sl_mkdir_p(ctx, LOCK_DIR, 0755);
	if (r < 0)
		return r;
	fd = sl_open(ctx, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		return r;
	}
	return fd;
}
