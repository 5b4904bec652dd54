/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The flags line of /proc/cpuinfo. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (sl_cpu_parse_flags(text) & ~7u)
		abort();
	free(text);
	return 0;
}
