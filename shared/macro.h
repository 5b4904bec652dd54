/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal helpers shared by lib/ and cli/ (never installed): cleanup
 * attributes that keep error paths short, and the string tests every file
 * needs. Modelled on kmod's shared/macro.h.
 */
#ifndef SPLITLOCK_SHARED_MACRO_H
#define SPLITLOCK_SHARED_MACRO_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(const int *fd) { if (*fd >= 0) close(*fd); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

#endif
