/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Times of --since/--until (the forms journalctl takes), and the
 * wall-clock time of boot.
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

/*
 * A time span as systemd writes and reads it (parse_sec()): numbers with
 * units, several in a row, spaces allowed between ("1h 30min", "2 days",
 * "90s"); a bare number is seconds. Microseconds in *@usec.
 */
static bool parse_span(const char *p, const char *end, int64_t *usec)
{
	static const struct {
		const char *name;
		int64_t usec;
	} units[] = {
		{ "seconds", 1000000 }, { "second", 1000000 }, { "sec", 1000000 },
		{ "s", 1000000 }, { "minutes", 60000000 }, { "minute", 60000000 },
		{ "min", 60000000 }, { "months", 2629800000000 }, { "month", 2629800000000 },
		{ "msec", 1000 }, { "ms", 1000 }, { "m", 60000000 }, { "hours", 3600000000 },
		{ "hour", 3600000000 }, { "hr", 3600000000 }, { "h", 3600000000 },
		{ "days", 86400000000 }, { "day", 86400000000 }, { "d", 86400000000 },
		{ "weeks", 604800000000 }, { "week", 604800000000 }, { "w", 604800000000 },
		{ "M", 2629800000000 }, { "years", 31557600000000 }, { "year", 31557600000000 },
		{ "y", 31557600000000 }, { "usec", 1 }, { "us", 1 },
	};
	int64_t total = 0;
	bool any = false;

	while (p < end && *p == ' ')
		p++;
	while (p < end) {
		const char *q;
		int64_t n, unit = 1000000;
		size_t best = 0;

		if (!parse_int(p, &q, &n) || q > end)
			return false;
		p = q;
		while (p < end && *p == ' ')
			p++;
		for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
			size_t len = strlen(units[i].name);

			/* The longest name that ends where a word ends. */
			if (len > best && (size_t)(end - p) >= len &&
			    memcmp(p, units[i].name, len) == 0 &&
			    (p + len == end || p[len] == ' ' || (p[len] >= '0' && p[len] <= '9'))) {
				best = len;
				unit = units[i].usec;
			}
		}
		if (!best && p < end && !(*p >= '0' && *p <= '9'))
			return false;
		p += best;
		if (n > INT64_MAX / unit || total > INT64_MAX - n * unit)
			return false;
		total += n * unit;
		any = true;
		while (p < end && *p == ' ')
			p++;
	}
	*usec = total;
	return any;
}

/* Local midnight @days from today's. */
static int64_t midnight(int64_t now, int days)
{
	time_t t = (time_t)(now / 1000000);
	struct tm tm;

	localtime_r(&t, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm) * 1000000;
}

/*
 * strptime() takes 2026-02-30 and 23:59:61, which mktime() would carry
 * into the next month or minute: refuse any field that does not survive
 * the round trip (a local time skipped by a DST change included).
 */
static int local_time(struct tm *tm, int64_t *usec)
{
	struct tm asked = *tm;
	time_t t;

	tm->tm_isdst = -1;
	t = mktime(tm);
	if (t == (time_t)-1 || tm->tm_year != asked.tm_year ||
	    tm->tm_mon != asked.tm_mon || tm->tm_mday != asked.tm_mday ||
	    tm->tm_hour != asked.tm_hour || tm->tm_min != asked.tm_min ||
	    tm->tm_sec != asked.tm_sec)
		return -EINVAL;
	*usec = (int64_t)t * 1000000;
	return 0;
}

/*
 * The forms journalctl's --since takes (systemd's parse_timestamp()):
 * "now", "today", "yesterday", "tomorrow", "-1h", "+30min", "1h 30min ago",
 * "2 days left", "@EPOCH", "YYYY-MM-DD [HH:MM[:SS]]", "HH:MM[:SS]" (today),
 * plus "boot".
 */
_public_ int splitlock_time_parse(const char *text, int64_t now, int64_t boot,
				  int64_t *usec)
{
	size_t len = strlen(text);
	const char *end;
	int64_t n, span;

	if (streq(text, "boot")) {
		*usec = boot;
		return 0;
	}
	if (streq(text, "now")) {
		*usec = now;
		return 0;
	}
	if (streq(text, "today") || streq(text, "yesterday") || streq(text, "tomorrow")) {
		*usec = midnight(now, text[0] == 'y' ? -1 : text[2] == 'm' ? 1 : 0);
		return 0;
	}
	if (text[0] == '@') {
		if (!parse_int(text + 1, &end, &n) || *end || n > INT64_MAX / 1000000)
			return -EINVAL;
		*usec = n * 1000000;
		return 0;
	}
	if (text[0] == '-' || text[0] == '+') {
		if (!parse_span(text + 1, text + len, &span))
			return -EINVAL;
		*usec = text[0] == '-' ? now - span : now + span;
		return 0;
	}
	if (len > 4 && streq(text + len - 4, " ago")) {
		if (!parse_span(text, text + len - 4, &span))
			return -EINVAL;
		*usec = now - span;
		return 0;
	}
	if (len > 5 && streq(text + len - 5, " left")) {
		if (!parse_span(text, text + len - 5, &span))
			return -EINVAL;
		*usec = now + span;
		return 0;
	}
	{
		static const char *const formats[] = {
			"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d",
			"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M",
		};
		static const char *const clock_formats[] = { "%H:%M:%S", "%H:%M" };

		for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
			struct tm tm = { 0 };
			const char *rest = strptime(text, formats[i], &tm);

			if (rest && !*rest)
				return local_time(&tm, usec);
		}
		for (size_t i = 0; i < ARRAY_SIZE(clock_formats); i++) {
			time_t t = (time_t)(now / 1000000);
			struct tm tm;
			const char *rest;

			localtime_r(&t, &tm);
			tm.tm_sec = 0;
			rest = strptime(text, clock_formats[i], &tm);
			if (rest && !*rest)
				return local_time(&tm, usec);
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
