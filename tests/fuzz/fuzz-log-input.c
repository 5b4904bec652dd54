/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Saved logs: raw kmsg, dmesg, syslog and journalctl text, journal JSON. */
/* The first byte picks the format (0 = detect), the rest is the log. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libsplitlock.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct splitlock_ctx *ctx;
	static unsigned forms;
	struct splitlock_offenders *report = NULL;
	enum splitlock_input_format format;
	int fd;

	if (size < 1)
		return 0;
	if (!ctx) {
		ctx = splitlock_new("/");
		splitlock_set_log_priority(ctx, 0);
		/* Every form the library reads, "auto" first: a form added is fuzzed. */
		while (splitlock_input_format_name((enum splitlock_input_format)forms))
			forms++;
	}
	format = (enum splitlock_input_format)(data[0] % forms);
	fd = memfd_create("log", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	lseek(fd, 0, SEEK_SET);
	if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &report) == 0) {
		splitlock_offenders_read_input(report, fd, format, NULL, NULL);
		for (size_t i = 0; i < splitlock_offenders_get_count(report); i++)
			if (!splitlock_offenders_get(report, i))
				abort();
		splitlock_offenders_unref(report);
	}
	close(fd);
	return 0;
}
