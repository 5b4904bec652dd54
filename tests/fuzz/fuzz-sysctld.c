/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One sysctl.d file's text. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int count(void *data, unsigned line, const char *value)
{
	(void)line;
	if (!value)
		abort();
	(*(unsigned *)data)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1);
	unsigned n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sl_sysctld_parse(text, "kernel/split_lock_mitigate", count, &n);
	free(text);
	return 0;
}
