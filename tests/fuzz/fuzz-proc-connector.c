/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Proc connector netlink messages, decoded from a buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"
/* The parsers fill the library's own types: their members are checked. */
#include "core/public-types.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int count(const struct splitlock_proc_event *ev, void *data)
{
	/* The comm is read as a string: it must end where its length says. */
	if (strlen(ev->comm) != ev->comm_len)
		abort();
	(*(unsigned *)data)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* Netlink buffers are aligned; so is the copy. */
	void *aligned = malloc(size ? size : 1);
	unsigned n = 0;

	if (!aligned)
		abort();
	memcpy(aligned, data, size);
	splitlock_proc_connector_decode(aligned, size, count, &n);
	free(aligned);
	return 0;
}
