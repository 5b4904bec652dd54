/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the detector line parser, the kmsg record parser and
 * the proc connector decoder. Not built by `make`:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilib -D_GNU_SOURCE \
 *     tests/fuzz/fuzz-detector-line.c lib/detector-line.c lib/kmsg.c \
 *     lib/proc-connector.c lib/ctx.c lib/path.c lib/fileio.c \
 *     lib/linereader.c -lmnl -o fuzz && ./fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"

static int ignore(const struct splitlock_proc_event *ev, void *data)
{
	(void)ev;
	(void)data;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct splitlock_event ev;
	struct splitlock_kmsg_record rec;
	char *copy = malloc(size ? size : 1), *buf = malloc(size + 1);
	void *aligned = malloc(size ? size : 1);

	if (!copy || !buf || !aligned)
		abort();
	memcpy(copy, data, size);
	if (splitlock_detector_line_parse(copy, size, &ev) == SPLITLOCK_LINE_EVENT &&
	    ev.comm + ev.comm_len > copy + size)
		abort();
	if (splitlock_kmsg_parse_record(copy, size, buf, &rec) == 0)
		splitlock_detector_line_parse(rec.message, rec.message_len, &ev);
	memcpy(aligned, data, size);
	splitlock_proc_connector_decode(aligned, size, ignore, NULL);
	free(copy);
	free(buf);
	free(aligned);
	return 0;
}
