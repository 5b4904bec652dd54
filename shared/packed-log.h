/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A saved log that is not text: compressed, a journal file, UTF-16. Read
 * as text it holds no detector line and gave an empty report that said it
 * was complete. The library refuses it (-EMEDIUMTYPE); slctl names the
 * command that turns it into text. Known by the first bytes alone, so
 * that slctl can tell from a peek at a pipe.
 */
#ifndef SPLITLOCK_SHARED_PACKED_LOG_H
#define SPLITLOCK_SHARED_PACKED_LOG_H

#include <stddef.h>
#include <string.h>

#include "macro.h"

struct packed_log {
	const char *magic;
	size_t len;
	const char *what;      /* "is ..." */
	/* The command that writes its text: before and after the file name. */
	const char *command, *command_after;
};

/* The most bytes packed_log_find() looks at. */
#define PACKED_LOG_MAGIC_MAX 10

/* The form whose magic @buf starts with ('?' in bzip2's: a digit), or NULL. */
static inline const struct packed_log *packed_log_find(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	static const struct packed_log packed_logs[] = {
		{ "\x1f\x8b\x08", 3, "gzip-compressed", "zcat", "" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd-compressed", "zstdcat", "" },
		{ "\xfd" "7zXZ\0", 6, "xz-compressed", "xzcat", "" },
		/* "BZh", the block size, then a block's or the end's magic. */
		{ "BZh?1AY&SY", 10, "bzip2-compressed", "bzcat", "" },
		{ "BZh?\x17\x72\x45\x38\x50\x90", 10, "bzip2-compressed", "bzcat", "" },
		{ "\x04\x22\x4d\x18", 4, "lz4-compressed", "lz4cat", "" },
		{ "PK\x03\x04", 4, "a zip archive", "unzip -p", "" },
		{ "LPKSHHRH", 8, "a systemd journal file", "journalctl --file", " -o export" },
		{ "\xff\xfe", 2, "UTF-16 text", "iconv -f UTF-16 -t UTF-8", "" },
		{ "\xfe\xff", 2, "UTF-16 text", "iconv -f UTF-16 -t UTF-8", "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(packed_logs); i++) {
		const struct packed_log *p = &packed_logs[i];
		size_t k;

		if (len < p->len)
			continue;
		for (k = 0; k < p->len; k++)
			if (p->magic[k] == '?' ? !(b[k] >= '1' && b[k] <= '9')
					       : b[k] != (unsigned char)p->magic[k])
				break;
		if (k == p->len)
			return p;
	}
	return NULL;
}

#endif
