/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boot lines, kernel command lines, split_lock_detect= values, user input. */
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), out[32];
	enum splitlock_mode mode;
	unsigned rate;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (splitlock_mode_from_boot_line(text, &mode, &rate) &&
	    splitlock_mode_format(mode, rate, out, sizeof(out)) < 0)
		abort();
	if (splitlock_mode_from_cmdline(text, &mode, &rate) &&
	    (mode == SPLITLOCK_MODE_UNKNOWN || (mode == SPLITLOCK_MODE_RATELIMIT && rate > 1000)))
		abort();
	splitlock_mode_from_param((const char *)data, size, &mode, &rate);
	if (splitlock_mode_parse(text, &mode, &rate) == 0) {
		/* What the parser accepts must format back to the same text. */
		if (splitlock_mode_format(mode, rate, out, sizeof(out)) < 0 || strcmp(out, text) != 0)
			abort();
	}
	free(text);
	return 0;
}
