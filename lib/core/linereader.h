/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SPLITLOCK_LINEREADER_H
#define SPLITLOCK_LINEREADER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Streams lines (split on '\n' or, when asked, on '\0') from a descriptor
 * with a fixed buffer, so that memory does not grow with the input. A line
 * longer than the buffer is returned once, cut to the buffer, with
 * *truncated set, and its remainder is skipped.
 */
struct sl_linereader {
	int fd;
	char *buf;
	size_t size, start, end;
	bool eof, skipping;
	char separator;
	unsigned long long bytes; /* consumed so far, for progress */
};

int sl_linereader_init(struct sl_linereader *lr, int fd, size_t size);
void sl_linereader_done(struct sl_linereader *lr);
/* 1: a line of *len bytes (may contain NULs; a NUL follows it); 0: end; <0 err */
int sl_linereader_next(struct sl_linereader *lr, char **line, size_t *len,
		       bool *truncated);

#endif
