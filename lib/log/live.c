/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the kernel log of the running boot.
 *
 * /dev/kmsg hands out one record per read(); a record overwritten while we
 * read makes read() fail with EPIPE once, after which reading goes on from
 * the oldest record still there. SEEK_DATA skips what `dmesg -C` cleared.
 * A regular file in its place (fake roots, saved copies) holds the same
 * records one per line. Without /dev/kmsg (no permission, very old
 * container setups) the syslog(2) buffer is the fallback on the real root.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/klog.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "log/format.h"

/* The kernel's records are at most ~1 KiB of text plus dictionary. */
#define KMSG_RECORD_MAX 16384

struct kmsg_file_fn {
	splitlock_kmsg_fn fn;
	void *data;
};

static int foreach_device(struct splitlock_ctx *ctx, int fd,
			  splitlock_kmsg_fn fn, void *data)
{
	_cleanup_free_ char *raw = malloc(KMSG_RECORD_MAX);
	_cleanup_free_ char *decoded = malloc(KMSG_RECORD_MAX);

	if (!raw || !decoded)
		return -ENOMEM;
	/* Skip records cleared by SYSLOG_ACTION_CLEAR (dmesg -C). */
	lseek(fd, 0, SEEK_DATA);
	for (;;) {
		struct splitlock_kmsg_record rec;
		ssize_t n = read(fd, raw, KMSG_RECORD_MAX - 1);
		int r;

		if (n < 0) {
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0)
			return 0;
		if (splitlock_kmsg_parse_record(raw, (size_t)n, decoded, &rec) < 0) {
			sl_dbg(ctx, "skipping a malformed /dev/kmsg record");
			continue;
		}
		r = fn(&rec, data);
		if (r)
			return r < 0 ? r : 0;
	}
}

/* sl_kmsg_line() hands on a saved log's record; the live API wants its kmsg part. */
static int file_record(const struct sl_log_record *r, void *data)
{
	const struct kmsg_file_fn *f = data;

	return f->fn(&r->rec, f->data);
}

/*
 * A regular file in place of /dev/kmsg (fake roots, saved copies) holds
 * the records one a line: it is read as a saved log in the kmsg format
 * (log/input.c, log/format-kmsg.c), every record handed on.
 */
static int foreach_file(struct splitlock_ctx *ctx, int fd,
			splitlock_kmsg_fn fn, void *data, struct sl_unread *unread)
{
	enum splitlock_input_format format = SPLITLOCK_INPUT_KMSG;
	struct kmsg_file_fn f = { .fn = fn, .data = data };
	int r = sl_log_input_foreach(ctx, fd, &format, true, file_record, &f,
				     NULL, NULL, unread);

	if (unread->lines)
		sl_dbg(ctx, "/dev/kmsg: %" PRIu64 " lines with detector text are "
		       "not records, the first line %" PRIu64, unread->lines,
		       unread->first_line);
	return r;
}

/* "<PRI>[ sec.usec] message" lines from syslog(2); no sequence numbers. */
static int foreach_klog(struct splitlock_ctx *ctx, splitlock_kmsg_fn fn,
			void *data)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	_cleanup_free_ char *buf = NULL;
	uint64_t seq = 0;
	int n, r = 0;

	if (size <= 0)
		return size < 0 ? -errno : -ENODATA;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	sl_dbg(ctx, "read %d bytes from the syslog(2) buffer", n);
	for (char *line = buf; line && *line && r == 0;) {
		struct splitlock_kmsg_record rec = { 0 };
		char *next = strchr(line, '\n');

		if (next)
			*next++ = '\0';
		if (sl_klog_line_parse(line, strlen(line), &rec)) {
			/* No numbers here: a buffer whose first record is not
			 * the boot's banner lost its start (it wrapped, or was
			 * cleared), which a first number past 0 says. */
			if (seq == 0 && !(rec.message_len >= 14 &&
					  memcmp(rec.message, "Linux version ", 14) == 0))
				seq = 1;
			rec.seq = seq++;
			r = fn(&rec, data);
		}
		line = next;
	}
	return r < 0 ? r : 0;
}

_public_ int splitlock_kmsg_foreach(struct splitlock_ctx *ctx,
				    splitlock_kmsg_fn fn, void *data)
{
	struct sl_unread unread = { 0 };

	return sl_kmsg_foreach(ctx, fn, data, &unread);
}

int sl_kmsg_foreach(struct splitlock_ctx *ctx, splitlock_kmsg_fn fn, void *data,
		    struct sl_unread *unread)
{
	_cleanup_close_ int fd = sl_open(ctx, "/dev/kmsg",
					 O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	struct stat st;

	if (fd < 0) {
		if (streq(ctx->root, "/") && (fd == -EPERM || fd == -EACCES ||
					       fd == -ENOENT)) {
			int r = foreach_klog(ctx, fn, data);

			/* Report the original failure if the fallback fails too. */
			return r == -EPERM || r == -EACCES ? fd : r;
		}
		return fd;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISCHR(st.st_mode))
		return foreach_device(ctx, fd, fn, data);
	return foreach_file(ctx, fd, fn, data, unread);
}
