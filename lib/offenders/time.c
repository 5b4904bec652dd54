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
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "offenders/offenders.h"

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

/*
 * An absolute time of journalctl's --since (systemd's parse_timestamp(),
 * src/basic/time-util.c), without its time zone: what the zone word
 * says comes in @utc (the fields are UTC), @gmtoff (seconds east of UTC,
 * with @utc) and @isdst (the local zone's standard or summer name; -1
 * when none was given).
 */
struct zone {
	bool utc;
	int isdst;
	long gmtoff;
};

static const struct {
	const char *name;
	int wday;
} weekdays[] = {
	{ "Sunday", 0 }, { "Sun", 0 }, { "Monday", 1 }, { "Mon", 1 },
	{ "Tuesday", 2 }, { "Tue", 2 }, { "Wednesday", 3 }, { "Wed", 3 },
	{ "Thursday", 4 }, { "Thu", 4 }, { "Friday", 5 }, { "Fri", 5 },
	{ "Saturday", 6 }, { "Sat", 6 },
};

/*
 * ".1" to ".123456" (more digits are read, the seventh rounds, as
 * systemd's parse_fractional_part_u() does): microseconds in *@usec.
 */
static bool parse_fraction(const char *p, int64_t *usec)
{
	int64_t v = 0;
	int digits = 0;

	if (*p++ != '.' || !(*p >= '0' && *p <= '9'))
		return false;
	for (; digits < 6 && *p >= '0' && *p <= '9'; digits++)
		v = v * 10 + (*p++ - '0');
	for (; digits < 6; digits++)
		v *= 10;
	if (*p >= '5' && *p <= '9')
		v++;
	while (*p >= '0' && *p <= '9')
		p++;
	*usec = v;
	return *p == '\0';
}

/* tm's fields as @z says they are meant; false when one does not exist. */
static bool tm_to_usec(struct tm *tm, const struct zone *z, bool check, int64_t *usec)
{
	struct tm asked = *tm;
	time_t t;

	tm->tm_isdst = z->utc ? 0 : z->isdst;
	t = z->utc ? timegm(tm) : mktime(tm);
	if (t == (time_t)-1)
		return false;
	/* strptime() takes 2026-02-30 and 23:59:61, which mktime() carries
	 * into the next month or minute: refuse what does not survive the
	 * round trip (a local time skipped by a DST change included; a
	 * summer or standard time named by the zone may move the hour). */
	if (check && (tm->tm_year != asked.tm_year || tm->tm_mon != asked.tm_mon ||
		      tm->tm_mday != asked.tm_mday || tm->tm_min != asked.tm_min ||
		      tm->tm_sec != asked.tm_sec ||
		      (tm->tm_hour != asked.tm_hour && (z->utc || z->isdst < 0))))
		return false;
	*usec = ((int64_t)t - (z->utc ? z->gmtoff : 0)) * 1000000;
	return true;
}

static int parse_absolute(const char *text, size_t len, int64_t now, const struct zone *z,
			  int64_t *usec)
{
	static const struct {
		const char *format;
		bool fraction; /* ".NNNNNN" may follow */
		int fields;    /* 3: H:M:S given, 2: H:M, 0: a date alone */
	} forms[] = {
		{ "%y-%m-%d %H:%M:%S", true, 3 }, { "%Y-%m-%d %H:%M:%S", true, 3 },
		{ "%Y-%m-%dT%H:%M:%S", true, 3 }, { "%b %d %H:%M:%S", true, 3 },
		{ "%y-%m-%d %H:%M", false, 2 }, { "%Y-%m-%d %H:%M", false, 2 },
		{ "%Y-%m-%dT%H:%M", false, 2 }, { "%y-%m-%d", false, 0 },
		{ "%Y-%m-%d", false, 0 }, { "%H:%M:%S", true, 3 }, { "%H:%M", false, 2 },
	};
	time_t t = (time_t)(now / 1000000);
	struct tm base, tm;
	char buf[128];
	const char *p = buf;
	int wday = -1;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	/* Fields not given are today's, in the zone the time is meant in. */
	if (!(z->utc ? gmtime_r(&t, &base) : localtime_r(&t, &base)))
		return -EINVAL;
	if (streq(p, "today") || streq(p, "yesterday") || streq(p, "tomorrow")) {
		tm = base;
		tm.tm_mday += p[0] == 'y' ? -1 : p[2] == 'm' ? 1 : 0;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		return tm_to_usec(&tm, z, false, usec) ? 0 : -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(weekdays); i++) {
		size_t n = strlen(weekdays[i].name);

		if (strncasecmp(p, weekdays[i].name, n) == 0 && p[n] == ' ') {
			wday = weekdays[i].wday;
			p += n + 1;
			break;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		const char *rest;
		int64_t fraction = 0;

		tm = base;
		rest = strptime(p, forms[i].format, &tm);
		if (!rest || (*rest && !(forms[i].fraction && parse_fraction(rest, &fraction))))
			continue;
		if (forms[i].fields < 3)
			tm.tm_sec = 0;
		if (forms[i].fields == 0)
			tm.tm_hour = tm.tm_min = 0;
		if (!tm_to_usec(&tm, z, true, usec) || (wday >= 0 && tm.tm_wday != wday))
			return -EINVAL;
		*usec += fraction;
		return 0;
	}
	return -EINVAL;
}

/* "+01", "-0530", "+05:30" (not past a day, as systemd): seconds east of UTC. */
static bool parse_offset(const char *p, long *gmtoff)
{
	int sign = *p == '-' ? -1 : 1, hh, mm = 0;

	if ((*p != '+' && *p != '-') || !(p[1] >= '0' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9'))
		return false;
	hh = (p[1] - '0') * 10 + (p[2] - '0');
	p += 3;
	if (*p == ':')
		p++;
	if (*p) {
		if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9') || p[2])
			return false;
		mm = (p[0] - '0') * 10 + (p[1] - '0');
	}
	if (mm > 59 || hh * 60 + mm > 24 * 60)
		return false;
	*gmtoff = sign * (long)(hh * 3600 + mm * 60);
	return true;
}

/*
 * What names the zone at the end of an absolute time, as systemd reads
 * it: "Z", "+05:30", "+0530" or "+05" welded to a T time, or a last word "UTC", "+0530",
 * or the local zone's own names (tzname[], "CET" and "CEST"). A zone of
 * the tz database ("Europe/Berlin") is not taken: its rules are read
 * only through the TZ variable of the whole process.
 */
static int parse_zoned(const char *text, int64_t now, int64_t *usec)
{
	size_t len = strlen(text);
	const char *space = strrchr(text, ' ');
	struct zone z = { .isdst = -1 };

	if (len > 2 && text[len - 1] == 'Z') {
		z.utc = true;
		if (parse_absolute(text, len - 1, now, &z, usec) == 0)
			return 0;
		z.utc = false;
	}
	if (len > 7 && (text[len - 6] == '+' || text[len - 6] == '-') && text[len - 7] != ' ' &&
	    text[len - 3] == ':' && parse_offset(text + len - 6, &z.gmtoff)) {
		z.utc = true;
		return parse_absolute(text, len - 6, now, &z, usec);
	}
	/* "+01" and "+0100" (date +%FT%T%z) welded to a T time: only
	 * there, as the "-01" of "2026-12-01" is a day, not an offset. */
	for (size_t n = 5; n >= 3; n -= 2) {
		const char *t = len > n ? memchr(text, 'T', len - n) : NULL;

		if (t && t > text && isdigit((unsigned char)t[-1]) && isdigit((unsigned char)t[1]) &&
		    (text[len - n] == '+' || text[len - n] == '-') &&
		    isdigit((unsigned char)text[len - n - 1]) &&
		    parse_offset(text + len - n, &z.gmtoff)) {
			z.utc = true;
			return parse_absolute(text, len - n, now, &z, usec);
		}
	}
	if (space) {
		size_t at = (size_t)(space - text);

		if (strcasecmp(space + 1, "UTC") == 0) {
			z.utc = true;
			return parse_absolute(text, at, now, &z, usec);
		}
		if (parse_offset(space + 1, &z.gmtoff)) {
			z.utc = true;
			return parse_absolute(text, at, now, &z, usec);
		}
		tzset();
		for (int j = 0; j <= 1; j++)
			if (tzname[j] && tzname[j][0] && streq(space + 1, tzname[j])) {
				z.isdst = j;
				return parse_absolute(text, at, now, &z, usec);
			}
	}
	return parse_absolute(text, len, now, &z, usec);
}

/*
 * The forms journalctl's --since takes (systemd's parse_timestamp()):
 * "now", "today", "yesterday", "tomorrow", "-1h", "+30min", "1h 30min ago",
 * "2 days left", "@EPOCH", "[WEEKDAY ]YYYY-MM-DD[ HH:MM[:SS[.FRACTION]]][
 * ZONE]" (also YY-MM-DD, a "T" for the space, "Mon DD HH:MM:SS"),
 * "HH:MM[:SS]" (today), plus "boot".
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
	if (text[0] == '@') {
		int64_t frac = 0, scale = 100000;

		if (!parse_int(text + 1, &end, &n) || n > INT64_MAX / 1000000 - 1)
			return -EINVAL;
		/* "@1796083205.5", as systemd's parse_sec() takes it. */
		if (*end == '.' && end[1]) {
			for (end++; *end >= '0' && *end <= '9'; end++, scale /= 10)
				if (scale)
					frac += (*end - '0') * scale;
		}
		if (*end)
			return -EINVAL;
		*usec = n * 1000000 + frac;
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
	return parse_zoned(text, now, usec);
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
