/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one JSON reader (lib/core/json.c) on any bytes: a value read whole never
 * goes past the end, a decoded string is never longer than its JSON, and
 * kernelstub's lookup of "user" → "kernel_options" agrees with the walk.
 */
#include <stdlib.h>

#include "core/json.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *json = (const char *)data, *end = json + size, *p = json;
	char *out = malloc(size + 1);
	size_t len = 0;

	if (!out)
		return 0;
	if (sl_json_value(&p, end, out, size, &len) && (p < json || p > end || len > size))
		abort();
	p = sl_json_skip_ws(json, end);
	if (p < end && *p == '"' && sl_json_string(&p, end, out, size, &len) &&
	    len > (size_t)(p - json))
		abort();
	p = json;
	if (sl_json_object_find(&p, end, "user") == 0 &&
	    sl_json_object_find(&p, end, "kernel_options") == 0) {
		struct sl_json_iter it;

		if (p < json || p >= end)
			abort();
		if (sl_json_iter_begin(&it, &p, end))
			while (sl_json_iter_next(&it, &p, end, NULL, 0, NULL) > 0)
				if (!sl_json_value(&p, end, out, size, &len) || p > end)
					break;
	}
	free(out);
	return 0;
}
