/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Error formatting: a sentence kept in an object (a plan's reason) is
 * replaced, never leaked, and a negative errno reads as text.
 */
#ifndef SPLITLOCK_SHARED_MESSAGE_H
#define SPLITLOCK_SHARED_MESSAGE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

/* strerror() of a negative errno as the library returns it. */
static inline const char *errno_text(int err)
{
	return strerror(err < 0 ? -err : err);
}

/* Replace *@msg with the formatted sentence; -ENOMEM leaves *@msg as it was. */
static inline int message_vset(char **msg, const char *format, va_list args)
{
	char *text;

	if (vasprintf(&text, format, args) < 0)
		return -ENOMEM;
	free(*msg);
	*msg = text;
	return 0;
}

static inline int message_set(char **msg, const char *format, ...) _printf_(2, 3);
static inline int message_set(char **msg, const char *format, ...)
{
	va_list args;
	int r;

	va_start(args, format);
	r = message_vset(msg, format, args);
	va_end(args);
	return r;
}

#endif
