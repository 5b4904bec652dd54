/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Descriptors 0, 1 and 2 made valid before anything else is opened.
 *
 * Started with one of them closed (by a careless service manager or a
 * `slctl ... >&- 2>&-`), the first file slctl opens would take its number:
 * the lock file would become fd 2 and receive every message, or a config
 * file fd 1 and receive the JSON. util-linux (include/closestream.h's
 * callers, login-utils) and systemd (rearrange_stdio() in src/basic/fd-util.c)
 * do the same: each closed one is pointed at /dev/null.
 */
#include <fcntl.h>
#include <unistd.h>

#include "slctl.h"

void slctl_ensure_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		/* open() returns the lowest free number, which is @fd itself. */
		null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (null < 0)
			_exit(EXIT_FAIL);
		if (null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
}
