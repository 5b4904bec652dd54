/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Detection modes: as a user writes them, as the kernel parses its boot
 * parameter, and as the detector announces itself in the boot log.
 */
#include <errno.h>
#include <limits.h>

#include "core/internal.h"
#include "name-table.h"

#define RATELIMIT_MIN 1
#define RATELIMIT_MAX 1000

/* Modes written as one word; ratelimit carries its rate and is apart. */
static const struct name_table mode_names[] = {
	{ SPLITLOCK_MODE_OFF, "off" },
	{ SPLITLOCK_MODE_WARN, "warn" },
	{ SPLITLOCK_MODE_SEQ, "seq" },
	{ SPLITLOCK_MODE_FATAL, "fatal" },
};

static const struct name_table source_names[] = {
	{ SPLITLOCK_SOURCE_NONE, "none" },
	{ SPLITLOCK_SOURCE_SYSFS, "sysfs" },
	{ SPLITLOCK_SOURCE_BOOT_LOG, "boot-log" },
	{ SPLITLOCK_SOURCE_CMDLINE, "cmdline" },
	{ SPLITLOCK_SOURCE_DEFAULT, "default" },
};

/* Strict decimal in [min, max], nothing after it. */
static int parse_bounded(const char *s, unsigned min, unsigned max,
			 unsigned *out)
{
	unsigned long v = 0;

	/* Canonical decimal only: what we accept is what we write back. */
	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	if (v < min)
		return -ERANGE;
	*out = (unsigned)v;
	return 0;
}

_public_ int splitlock_mode_parse(const char *text, enum splitlock_mode *mode,
				  unsigned *ratelimit)
{
	unsigned rate = 0;

	if (!text)
		return -EINVAL;
	if (startswith(text, "ratelimit:")) {
		int r = parse_bounded(text + strlen("ratelimit:"),
				      RATELIMIT_MIN, RATELIMIT_MAX, &rate);
		if (r < 0)
			return -EINVAL;
		*mode = SPLITLOCK_MODE_RATELIMIT;
	} else {
		int m;

		if (NAME_TABLE_VALUE(mode_names, text, &m) < 0)
			return -EINVAL;
		*mode = (enum splitlock_mode)m;
	}
	if (ratelimit)
		*ratelimit = rate;
	return 0;
}

_public_ int splitlock_mode_format(enum splitlock_mode mode, unsigned ratelimit,
				   char *buf, size_t size)
{
	const char *name = NAME_TABLE_NAME(mode_names, mode);
	int n;

	if (size)
		buf[0] = '\0';
	/* Nothing to print is an error, not a word a caller might mistake for a mode. */
	if (mode == SPLITLOCK_MODE_RATELIMIT ? ratelimit < RATELIMIT_MIN ||
					       ratelimit > RATELIMIT_MAX : !name)
		return -EINVAL;
	if (mode == SPLITLOCK_MODE_RATELIMIT)
		n = snprintf(buf, size, "ratelimit:%u", ratelimit);
	else
		n = snprintf(buf, size, "%s", name);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return 0;
}

_public_ const char *splitlock_mode_name(enum splitlock_mode mode)
{
	return mode == SPLITLOCK_MODE_RATELIMIT ? "ratelimit" : NAME_TABLE_NAME(mode_names, mode);
}

_public_ const char *splitlock_mode_source_name(enum splitlock_mode_source source)
{
	return NAME_TABLE_NAME(source_names, source);
}

/*
 * The kernel copies at most 19 bytes of the value (a 20-byte buffer), then
 * takes the first option that is a prefix of it: an exact match, or
 * "ratelimit:" followed by what sscanf("%d") reads as 1..1000. "seq" exists
 * only in the patched kernel; a stock kernel reads it as an unknown word.
 */
_public_ void splitlock_mode_from_param(const char *value, size_t len,
					enum splitlock_mode *mode,
					unsigned *ratelimit)
{
	static const struct { const char *option; enum splitlock_mode mode; } options[] = {
		{ "off", SPLITLOCK_MODE_OFF },
		{ "warn", SPLITLOCK_MODE_WARN },
		{ "seq", SPLITLOCK_MODE_SEQ },
		{ "fatal", SPLITLOCK_MODE_FATAL },
		{ "ratelimit:", SPLITLOCK_MODE_RATELIMIT },
	};
	char arg[20];
	size_t copied = len < sizeof(arg) - 1 ? len : sizeof(arg) - 1;

	memcpy(arg, value, copied);
	arg[copied] = '\0';
	*mode = SPLITLOCK_MODE_WARN;
	*ratelimit = 0;

	for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
		size_t optlen = strlen(options[i].option);
		int rate;

		if (strncmp(arg, options[i].option, optlen) != 0)
			continue;
		if (sscanf(arg, "ratelimit:%d", &rate) == 1 &&
		    rate >= RATELIMIT_MIN && rate <= RATELIMIT_MAX) {
			*mode = SPLITLOCK_MODE_RATELIMIT;
			*ratelimit = (unsigned)rate;
			return;
		}
		if (optlen == len) {
			*mode = options[i].mode;
			return;
		}
	}
}

/*
 * The kernel's own command-line scanner: words are separated by white space,
 * a word may be double-quoted, and the last "split_lock_detect=" wins.
 */
_public_ int splitlock_mode_from_cmdline(const char *cmdline,
					 enum splitlock_mode *mode,
					 unsigned *ratelimit)
{
	static const char key[] = "split_lock_detect";
	const char *p = cmdline, *found = NULL;
	size_t found_len = 0;

	if (!cmdline)
		return -EINVAL;
	while (*p) {
		const char *word, *end;
		bool quoted = false;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		word = p;
		while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n'))) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		end = p;
		if (*word == '"')
			word++;
		if ((size_t)(end - word) > sizeof(key) - 1 &&
		    memcmp(word, key, sizeof(key) - 1) == 0 &&
		    word[sizeof(key) - 1] == '=') {
			const char *v = word + sizeof(key);

			if (*v == '"')
				v++;
			found = v;
			found_len = (size_t)(end - v);
			if (found_len && v[found_len - 1] == '"')
				found_len--;
		} else if ((size_t)(end - word) == sizeof(key) - 1 &&
			   memcmp(word, key, sizeof(key) - 1) == 0) {
			/* A bare key has an empty value: unknown, so warn. */
			found = word + sizeof(key) - 1;
			found_len = 0;
		}
	}
	if (!found)
		return 0;
	splitlock_mode_from_param(found, found_len, mode, ratelimit);
	return 1;
}

/*
 * Every boot line the detector has printed since 5.7, after the
 * "x86/split lock detection: " prefix. Kernels 5.7-5.12 had only #AC and
 * said "warning about user-space split_locks" / "sending SIGBUS on
 * user-space split_locks" / "disabled"; 5.13 added the #DB variants and
 * ratelimit; the kernel-patch/ series adds the seq lines.
 */
_public_ int splitlock_mode_from_boot_line(const char *message,
					   enum splitlock_mode *mode,
					   unsigned *ratelimit)
{
	static const char prefix[] = "x86/split lock detection: ";
	static const struct { const char *text; enum splitlock_mode mode; } lines[] = {
		{ "disabled", SPLITLOCK_MODE_OFF },
		{ "warning about user-space split_locks", SPLITLOCK_MODE_WARN },
		{ "sending SIGBUS on user-space split_locks", SPLITLOCK_MODE_FATAL },
		{ "#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks with an unconditional penalty",
		  SPLITLOCK_MODE_SEQ },
		{ "#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks",
		  SPLITLOCK_MODE_WARN },
		{ "#AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks",
		  SPLITLOCK_MODE_FATAL },
		{ "#DB: warning on user-space bus_locks with an unconditional penalty",
		  SPLITLOCK_MODE_SEQ },
		{ "#DB: warning on user-space bus_locks", SPLITLOCK_MODE_WARN },
		{ "#DB: sending SIGBUS on user-space bus_locks from non-WB", SPLITLOCK_MODE_FATAL },
		{ "#DB: sending SIGBUS on user-space bus_locks", SPLITLOCK_MODE_FATAL },
	};
	static const char rate_text[] = "#DB: setting system wide bus lock rate limit to ";
	const char *rest;
	size_t len;

	if (!startswith(message, prefix))
		return 0;
	rest = message + sizeof(prefix) - 1;
	len = strcspn(rest, "\n");
	while (len && rest[len - 1] == ' ')
		len--;

	if (startswith(rest, rate_text)) {
		const char *num = rest + sizeof(rate_text) - 1;
		unsigned long rate = 0;
		size_t digits = 0;

		while (num[digits] >= '0' && num[digits] <= '9' && digits < 5)
			rate = rate * 10 + (unsigned long)(num[digits++] - '0');
		if (!digits || strncmp(num + digits, "/sec", 4) != 0 ||
		    (size_t)(num + digits + 4 - rest) != len ||
		    rate < RATELIMIT_MIN || rate > RATELIMIT_MAX)
			return 0;
		*mode = SPLITLOCK_MODE_RATELIMIT;
		*ratelimit = (unsigned)rate;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		if (strlen(lines[i].text) == len &&
		    memcmp(rest, lines[i].text, len) == 0) {
			*mode = lines[i].mode;
			*ratelimit = 0;
			return 1;
		}
	}
	return 0;
}
