/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mode after reboot. Until a bootloader backend says otherwise, the
 * next boot repeats this one's command line.
 */
#include <errno.h>

#include "internal.h"

_public_ int splitlock_mode_next_boot(struct splitlock_ctx *ctx,
				      enum splitlock_mode *mode,
				      unsigned *ratelimit, const char **source)
{
	_cleanup_free_ char *cmdline = NULL;
	int r = sl_read_file(ctx, "/proc/cmdline", 64 * 1024, &cmdline, NULL);

	if (source)
		*source = "/proc/cmdline";
	if (r < 0)
		return r;
	return splitlock_mode_from_cmdline(cmdline, mode, ratelimit);
}
