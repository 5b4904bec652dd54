/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detector lines, alone and inside kmsg records. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"
/* The parsers fill the library's own types: their members are checked. */
#include "core/public-types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct splitlock_event ev;
	struct splitlock_kmsg_record rec;
	char *copy = malloc(size ? size : 1), *buf = malloc(size + 1);

	if (!copy || !buf)
		abort();
	memcpy(copy, data, size);
	if (splitlock_detector_line_parse(copy, size, &ev) == SPLITLOCK_LINE_EVENT &&
	    ev.comm + ev.comm_len > copy + size)
		abort();
	if (splitlock_kmsg_parse_record(copy, size, buf, &rec) == 0)
		splitlock_detector_line_parse(rec.message, rec.message_len, &ev);
	free(copy);
	free(buf);
	return 0;
}
