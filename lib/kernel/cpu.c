/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the CPU can detect, from the flags line of /proc/cpuinfo. */
#include <errno.h>
#include <fcntl.h>

#include "core/internal.h"
#include "core/linereader.h"

static unsigned flag_bit(const char *word, size_t len)
{
	static const struct { const char *name; unsigned bit; } flags[] = {
		{ "split_lock_detect", SPLITLOCK_CPU_SPLIT_LOCK_DETECT },
		{ "bus_lock_detect", SPLITLOCK_CPU_BUS_LOCK_DETECT },
		{ "hypervisor", SPLITLOCK_CPU_HYPERVISOR },
	};

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (strlen(flags[i].name) == len &&
		    memcmp(flags[i].name, word, len) == 0)
			return flags[i].bit;
	return 0;
}

/* The value of a "flags" line; internal, fuzzed directly. */
unsigned sl_cpu_parse_flags(const char *value)
{
	unsigned bits = 0;

	while (*value) {
		size_t len;

		value += strspn(value, " \t\n");
		len = strcspn(value, " \t\n");
		if (len == 0)
			break;
		bits |= flag_bit(value, len);
		value += len;
	}
	return bits;
}

_public_ int splitlock_cpu_features(struct splitlock_ctx *ctx,
				   unsigned *features)
{
	_cleanup_close_ int fd = sl_open_regular(ctx, "/proc/cpuinfo", false);
	struct sl_linereader lr;
	bool truncated;
	char *line;
	size_t len;
	int r;

	if (fd < 0)
		return fd;
	/* A flags line is about 1.5 KiB; longer lines are not cpuinfo's. */
	r = sl_linereader_init(&lr, fd, 64 * 1024);
	if (r < 0)
		return r;
	r = -ENODATA;
	*features = 0;
	/* All CPUs report the same flags; the first "flags" line is enough. */
	while (sl_linereader_next(&lr, &line, &len, &truncated) > 0) {
		char *colon;

		if (truncated || len < 5 || memcmp(line, "flags", 5) != 0)
			continue;
		colon = memchr(line, ':', len);
		if (!colon)
			continue;
		*features = sl_cpu_parse_flags(colon + 1);
		r = 0;
		break;
	}
	sl_linereader_done(&lr);
	return r;
}
