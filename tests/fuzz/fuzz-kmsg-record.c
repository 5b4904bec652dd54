/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One /dev/kmsg record: prefix, escapes, and what status reads from it. */
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"
/* The parsers fill the library's own types: their members are checked. */
#include "core/public-types.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct splitlock_kmsg_record rec;
	char *buf = malloc(size + 1);
	enum splitlock_mode mode;
	unsigned rate;

	if (!buf)
		return 0;
	if (splitlock_kmsg_parse_record((const char *)data, size, buf, &rec) == 0) {
		if (rec.message_len > size || rec.message[rec.message_len] != '\0')
			abort();
		splitlock_mode_from_boot_line(rec.message, &mode, &rate);
	}
	free(buf);
	return 0;
}
