/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/PID/maps: a trap address to object+offset. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "offenders/offenders.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const uint64_t ips[] = { 0x0, 0x401000, 0x7f0000001234, UINT64_MAX };
	char *text = malloc(size + 1), *copy = malloc(size + 1), out[64];

	if (!text || !copy)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		memcpy(copy, text, size + 1);
		if (sl_maps_lookup(copy, ips[i], out, sizeof(out)) == 0 &&
		    strnlen(out, sizeof(out)) == sizeof(out))
			abort();
	}
	free(text);
	free(copy);
	return 0;
}
