/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/linereader.h"

int sl_linereader_init(struct sl_linereader *lr, int fd, size_t size)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->size = size;
	lr->separator = '\n';
	/* One spare byte: every line handed out is NUL-terminated. */
	lr->buf = malloc(size + 1);
	return lr->buf ? 0 : -ENOMEM;
}

void sl_linereader_done(struct sl_linereader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

static int fill(struct sl_linereader *lr)
{
	ssize_t n;

	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	do
		n = read(lr->fd, lr->buf + lr->end, lr->size - lr->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		lr->eof = true;
	lr->end += (size_t)n;
	lr->bytes += (unsigned long long)n;
	return 0;
}

int sl_linereader_next(struct sl_linereader *lr, char **line, size_t *len,
		       bool *truncated)
{
	for (;;) {
		char *sep = memchr(lr->buf + lr->start, lr->separator,
				   lr->end - lr->start);
		int r;

		if (sep) {
			size_t n = (size_t)(sep - (lr->buf + lr->start));
			char *begin = lr->buf + lr->start;

			lr->start += n + 1;
			if (lr->skipping) {
				lr->skipping = false;
				continue;
			}
			begin[n] = '\0';
			*line = begin;
			*len = n;
			*truncated = false;
			return 1;
		}
		if (lr->eof) {
			size_t n = lr->end - lr->start;
			char *begin = lr->buf + lr->start;

			lr->start = lr->end;
			if (n == 0 || lr->skipping) {
				lr->skipping = false;
				return 0;
			}
			begin[n] = '\0';
			*line = begin;
			*len = n;
			*truncated = false;
			return 1;
		}
		if (lr->start == 0 && lr->end == lr->size) {
			/* A line longer than the buffer: hand out what fits. */
			bool first = !lr->skipping;

			lr->start = lr->end = 0;
			lr->skipping = true;
			if (first) {
				lr->buf[lr->size] = '\0';
				*line = lr->buf;
				*len = lr->size;
				*truncated = true;
				return 1;
			}
		}
		r = fill(lr);
		if (r < 0)
			return r;
	}
}
