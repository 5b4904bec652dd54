/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One sysctl.d file's text. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), *line, *next;
	const char *value;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sl_sysctld_parse_line(line, "kernel/split_lock_mitigate", &value) > 0 && !value)
			abort();
	}
	free(text);
	return 0;
}
