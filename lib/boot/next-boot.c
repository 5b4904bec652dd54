/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mode after reboot: what the bootloader backend in charge has
 * configured. Without one (or with several that disagree about who boots
 * the machine) the next boot repeats this one's command line.
 */
#include <errno.h>

#include "boot/boot.h"

/* Hand @text to the caller (who frees it), or free it when not wanted. */
static int give(char **source, char *text)
{
	if (!text)
		return -ENOMEM;
	if (source)
		*source = text;
	else
		free(text);
	return 0;
}

_public_ int splitlock_mode_next_boot(struct splitlock_ctx *ctx,
				      enum splitlock_mode *mode,
				      unsigned *ratelimit, char **source)
{
	_cleanup_free_ char *cmdline = NULL, *where = NULL;
	const char *names[8];
	char *text = NULL;
	int n = splitlock_boot_detect(ctx, names, ARRAY_SIZE(names));
	int r;

	if (source)
		*source = NULL;
	if (n == 1) {
		r = splitlock_boot_read(ctx, names[0], mode, ratelimit, &where);
		if (asprintf(&text, "%s: %s", names[0], where ? where : "?") < 0)
			text = NULL;
		if (give(source, text) < 0)
			return -ENOMEM;
		return r;
	}
	r = sl_read_file(ctx, "/proc/cmdline", 64 * 1024, &cmdline, NULL);
	if (give(source, strdup(n > 1 ?
		"/proc/cmdline (several bootloader configurations, none chosen)" :
		"/proc/cmdline (no bootloader configuration found)")) < 0)
		return -ENOMEM;
	if (r < 0)
		return r;
	return splitlock_mode_from_cmdline(cmdline, mode, ratelimit);
}
