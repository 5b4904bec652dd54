/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Times of --since/--until, and the wall-clock time of boot.
 *
 * Log records carry CLOCK_MONOTONIC-like stamps (printk's local clock),
 * which stop while the machine is suspended. On the running system the
 * stamps are placed on the calendar as dmesg -T does: now - monotonic now
 * + stamp, exact for records logged since the last resume; a record logged
 * before a suspend comes out too late by the time spent suspended since.
 * Under another root only /proc/stat's btime is known (boot time, suspend
 * included), exact before the first suspend.
 */
#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "offenders-internal.h"

static bool parse_int(const char *s, const char **end, int64_t *v)
{
	int64_t n = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9') {
		if (n > (INT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (*p++ - '0');
	}
	if (p == s)
		return false;
	*v = n;
	*end = p;
	return true;
}

_public_ int splitlock_time_parse(const char *text, int64_t now, int64_t boot,
				  int64_t *usec)
{
	const char *end;
	int64_t n;

	if (streq(text, "boot")) {
		*usec = boot;
		return 0;
	}
	if (streq(text, "now")) {
		*usec = now;
		return 0;
	}
	if (text[0] == '@') {
		if (!parse_int(text + 1, &end, &n) || *end || n > INT64_MAX / 1000000)
			return -EINVAL;
		*usec = n * 1000000;
		return 0;
	}
	if (text[0] == '-' || text[0] == '+') {
		int64_t unit;

		if (!parse_int(text + 1, &end, &n))
			return -EINVAL;
		if (streq(end, "s") || *end == '\0')
			unit = 1;
		else if (streq(end, "m") || streq(end, "min"))
			unit = 60;
		else if (streq(end, "h"))
			unit = 3600;
		else if (streq(end, "d"))
			unit = 86400;
		else
			return -EINVAL;
		if (n > INT64_MAX / 1000000 / unit)
			return -EINVAL;
		*usec = now + (text[0] == '-' ? -1 : 1) * n * unit * 1000000;
		return 0;
	}
	{
		static const char *const formats[] = {
			"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d",
			"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M",
		};

		for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
			struct tm tm = { 0 }, asked;
			const char *rest = strptime(text, formats[i], &tm);
			time_t t;

			if (!rest || *rest)
				continue;
			/*
			 * strptime takes 2026-02-30 and 23:59:61, which mktime
			 * would carry into the next month or minute: refuse any
			 * field that does not survive the round trip (a local time
			 * skipped by a DST change included).
			 */
			asked = tm;
			tm.tm_isdst = -1;
			t = mktime(&tm);
			if (t == (time_t)-1 || tm.tm_year != asked.tm_year ||
			    tm.tm_mon != asked.tm_mon || tm.tm_mday != asked.tm_mday ||
			    tm.tm_hour != asked.tm_hour || tm.tm_min != asked.tm_min ||
			    tm.tm_sec != asked.tm_sec)
				return -EINVAL;
			*usec = (int64_t)t * 1000000;
			return 0;
		}
	}
	return -EINVAL;
}

_public_ int splitlock_time_boot(struct splitlock_ctx *ctx, int64_t *usec)
{
	_cleanup_free_ char *stat = NULL;
	const char *b;
	unsigned long long btime;
	int r = sl_read_file(ctx, "/proc/stat", 1u << 20, &stat, NULL);

	if (r < 0)
		return r;
	b = strstr(stat, "\nbtime ");
	if (!b || sscanf(b + 7, "%llu", &btime) != 1)
		return -ENODATA;
	*usec = (int64_t)btime * 1000000;
	return 0;
}

int sl_log_epoch(struct splitlock_ctx *ctx, int64_t *usec)
{
	struct timespec real, mono;

	if (!streq(ctx->root, "/"))
		return splitlock_time_boot(ctx, usec);
	if (clock_gettime(CLOCK_REALTIME, &real) < 0 ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) < 0)
		return -errno;
	*usec = ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000 +
		((int64_t)real.tv_nsec - (int64_t)mono.tv_nsec) / 1000;
	return 0;
}
