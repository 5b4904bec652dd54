/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Standard output checked when slctl exits, whichever way it exits.
 *
 * stdio keeps what was printed in a buffer until exit, so a full disk or a
 * closed pipe is only seen by the last fflush() and fclose(): a program
 * that does not check them reports success for a help text or a JSON
 * document that never reached its file. util-linux calls close_stdout()
 * from atexit() in every program for this (include/closestream.h); so does
 * slctl, for the paths that print and exit() as well as those that return
 * from main().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "slctl.h"

static bool left_to_helper;

static void close_stdout(void)
{
	int err = 0;

	if (left_to_helper)
		return;
	/* ferror(): a write that failed before, with its errno long gone. */
	if (ferror(stdout))
		err = EIO;
	if (fflush(stdout) != 0 && !err)
		err = errno;
	if (fclose(stdout) != 0 && !err && errno != EBADF)
		err = errno;
	if (!err)
		return;
	slctl_error("cannot write output: %s.", strerror(err));
	_exit(EXIT_FAIL);
}

void slctl_close_stdout_at_exit(void)
{
	atexit(close_stdout);
}

void slctl_close_stdout_leave_to_helper(void)
{
	left_to_helper = true;
}
