/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Token editing of kernel command lines, and the diff shown by --dry-run. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "boot/boot.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *in = malloc(size + 1), *out = NULL, *again = NULL, *diff = NULL;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	if (sl_cmdline_set(in, strlen(in), "split_lock_detect=fatal", &out) == 0) {
		char *last = NULL;

		/* Exactly one token remains, and setting it again changes nothing. */
		if (sl_cmdline_count(out, strlen(out), &last) != 1 ||
		    !last || strcmp(last, "split_lock_detect=fatal") != 0)
			abort();
		free(last);
		if (sl_cmdline_set(out, strlen(out), "split_lock_detect=fatal", &again) != 0 ||
		    strcmp(out, again) != 0)
			abort();
		sl_diff("/etc/kernel/cmdline", in, out, &diff);
	}
	free(out);
	free(again);
	free(diff);
	free(in);
	return 0;
}
