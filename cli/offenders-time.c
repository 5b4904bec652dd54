/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders: times as the report prints them, and the window that
 * --since and --until give, as journalctl reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "offenders.h"

void offenders_format_mono(int64_t usec, char *buf, size_t size)
{
	char d[32];
	size_t at = sizeof(d);
	uint64_t v = (uint64_t)usec;

	/* Two per offender in a report of thousands: no snprintf(). */
	if (usec < 0 || size < sizeof(d)) {
		snprintf(buf, size, "%" PRId64 ".%06" PRId64, usec / 1000000, usec % 1000000);
		return;
	}
	d[--at] = '\0';
	for (int i = 0; i < 6; i++, v /= 10)
		d[--at] = (char)('0' + v % 10);
	d[--at] = '.';
	do {
		d[--at] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, d + at, sizeof(d) - at);
}

/*
 * "%Y-%m-%dT%H:%M:%S.uuuuuuZ" as gmtime_r() and strftime() write it, for
 * years 1970 to 9999 (days to a date: H. Hinnant's civil_from_days()):
 * two a JSON offender, and strftime() was a tenth of a journal log's report.
 * False for other times, which take the library's way.
 */
static bool civil_utc(int64_t usec, char *buf, size_t size)
{
	int64_t secs, days, rem, era, doe, yoe, y, doy, mp, d, m;
	char *o = buf;

	if (usec < 0 || size < sizeof("YYYY-MM-DDTHH:MM:SS.uuuuuuZ"))
		return false;
	secs = usec / 1000000;
	days = secs / 86400;
	rem = secs % 86400;
	days += 719468;
	era = days / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	if (y > 9999)
		return false;
#define DIGITS(v, n) do { for (int i_ = (n) - 1; i_ >= 0; i_--) { \
		o[i_] = (char)('0' + (v) % 10); (v) /= 10; } o += (n); } while (0)
	{
		int64_t hh = rem / 3600, mm = rem / 60 % 60, ss = rem % 60, us = usec % 1000000;

		DIGITS(y, 4);
		*o++ = '-';
		DIGITS(m, 2);
		*o++ = '-';
		DIGITS(d, 2);
		*o++ = 'T';
		DIGITS(hh, 2);
		*o++ = ':';
		DIGITS(mm, 2);
		*o++ = ':';
		DIGITS(ss, 2);
		*o++ = '.';
		DIGITS(us, 6);
	}
#undef DIGITS
	*o++ = 'Z';
	*o = '\0';
	return true;
}

void offenders_format_wall(int64_t usec, bool utc_iso, char *buf, size_t size)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (utc_iso && civil_utc(usec, buf, size))
		return;
	if (utc_iso) {
		gmtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf + strlen(buf), size - strlen(buf), ".%06" PRId64 "Z",
			 usec % 1000000);
	} else {
		localtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	}
}

/* After "cannot understand --since 'X'": the forms, in one sentence. */
#define TIME_FORMS ": give a time as journalctl takes it ('[Tue] 2026-12-01 10:00[:05.5] " \
		   "[UTC|+01:00|Europe/Berlin]', '10:00', today, -1h, '1h ago', @EPOCH; " \
		   "see slctl(8))."

/* A zone of the tz database: a plain relative name of a TZif file. */
static bool tz_database_zone(const char *name)
{
	const char *dir = getenv("TZDIR");
	char path[PATH_MAX], magic[4];
	int fd;
	bool ok;

	if (!name[0] || name[0] == '/' || strstr(name, "..") ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") !=
	    strlen(name))
		return false;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir && dir[0] ? dir : "/usr/share/zoneinfo",
			     name) >= sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	ok = read(fd, magic, sizeof(magic)) == sizeof(magic) && memcmp(magic, "TZif", 4) == 0;
	close(fd);
	return ok;
}

/*
 * splitlock_time_parse(), and for "... Europe/Berlin" (which journalctl
 * takes) the time before the zone read in that zone. Only a process's TZ
 * names such a zone to the C library, and the library must not change
 * it under its callers: slctl, one thread, sets it for the call.
 */
static int parse_time(const char *text, int64_t now, int64_t boot, int64_t *usec)
{
	const char *space = strrchr(text, ' ');
	_cleanup_free_ char *before = NULL, *saved = NULL, *zone = NULL;
	int ret = splitlock_time_parse(text, now, boot, usec);

	if (ret != -EINVAL || !space || !tz_database_zone(space + 1))
		return ret;
	before = strndup(text, (size_t)(space - text));
	zone = malloc(strlen(space + 1) + 2);
	if (getenv("TZ"))
		saved = strdup(getenv("TZ"));
	if (!before || !zone || (getenv("TZ") && !saved))
		return -ENOMEM;
	zone[0] = ':';
	strcpy(zone + 1, space + 1);
	if (setenv("TZ", zone, 1) < 0)
		return -errno;
	tzset();
	ret = splitlock_time_parse(before, now, boot, usec);
	if (saved)
		setenv("TZ", saved, 1);
	else
		unsetenv("TZ");
	tzset();
	return ret;
}

int offenders_set_window(struct splitlock_ctx *ctx, struct splitlock_offenders *r,
		      const struct options *o)
{
	struct timespec now_ts;
	int64_t now, boot = SPLITLOCK_TIME_UNKNOWN, since = SPLITLOCK_TIME_UNKNOWN,
		until = SPLITLOCK_TIME_UNKNOWN;

	if (!o->since && !o->until)
		return EXIT_OK;
	clock_gettime(CLOCK_REALTIME, &now_ts);
	now = (int64_t)now_ts.tv_sec * 1000000 + now_ts.tv_nsec / 1000;
	/* "boot" is the boot of the running system; records are dated by the library. */
	if (!o->input)
		splitlock_time_boot(ctx, &boot);
	if (o->since && streq(o->since, "boot") && (o->input || boot == SPLITLOCK_TIME_UNKNOWN)) {
		/* Everything in the log is since its boot. */
	} else if (o->since && parse_time(o->since, now, boot, &since) < 0) {
		return slctl_usage_error("offenders", "cannot understand --since '%s'%s", o->since,
					 TIME_FORMS);
	}
	/* The running system's boot says nothing about when a saved log's boot ended. */
	if (o->until && o->input && streq(o->until, "boot"))
		return slctl_usage_error("offenders", "--until boot cannot apply to a saved log, "
					 "which does not say when its boot ended; leave --until "
					 "out to read to the end of the log.");
	if (o->until && parse_time(o->until, now, boot, &until) < 0)
		return slctl_usage_error("offenders", "cannot understand --until '%s'%s", o->until,
					 TIME_FORMS);
	/* [since, until) would hold nothing: a typo more likely than a wish. */
	if (since != SPLITLOCK_TIME_UNKNOWN && until != SPLITLOCK_TIME_UNKNOWN && since >= until)
		return slctl_usage_error("offenders", "--since '%s' is not before --until '%s'.",
					 o->since, o->until);
	splitlock_offenders_set_window(r, since, until);
	return EXIT_OK;
}
