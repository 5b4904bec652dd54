/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every form's parser on the same bytes (every entry of log/formats.c:
 * /dev/kmsg records, dmesg, syslog and journalctl text, journal JSON,
 * dmesg --json, journalctl -o export and -o verbose) and the guess,
 * with the report's invariants.
 * A line of any form is read by every parser, so each sees the stamps,
 * tags and prefixes the others understand. The bytes are also one line of
 * the syslog(2) buffer, the live log's fallback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log/format.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct splitlock_ctx *ctx;
	int fd, r;

	if (!ctx) {
		ctx = splitlock_new("/");
		splitlock_set_log_priority(ctx, 0);
	}
	{
		struct splitlock_kmsg_record rec;

		if (sl_klog_line_parse((const char *)data, size, &rec) &&
		    (rec.message < (const char *)data ||
		     rec.message + rec.message_len != (const char *)data + size))
			abort();
	}
	fd = memfd_create("log", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	/* Every form the library knows, and its guess (auto): the list is
	 * the library's, so a new form is fuzzed without a change here. */
	for (enum splitlock_input_format f = 0; splitlock_input_format_name(f); f++) {
		struct splitlock_offenders *report = NULL;
		uint64_t events = 0, first;

		lseek(fd, 0, SEEK_SET);
		if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &report) < 0)
			abort();
		r = splitlock_offenders_read_input(report, fd, f, NULL, NULL);
		/* Binary data (a control byte where text goes) is refused whole. */
		if (r == -EMEDIUMTYPE) {
			splitlock_offenders_unref(report);
			continue;
		}
		if (r < 0)
			abort();
		for (size_t k = 0; k < splitlock_offenders_get_count(report); k++)
			events += splitlock_offender_get_events(splitlock_offenders_get(report, k));
		if (events != splitlock_offenders_get_events(report))
			abort();
		/* A first unread line is named only when there is one, and exists. */
		if (splitlock_offenders_get_unrecognized(report, &first) == 0 ? first != 0
									       : first > size + 1)
			abort();
		splitlock_offenders_unref(report);
	}
	close(fd);
	return 0;
}
