/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Syslog's stamps: RFC 3164's "Dec  3 09:18:33", which has no year, and
 * RFC 3339's; the year a yearless stamp most likely has.
 */
#include <time.h>

#include "log/format.h"

/*
 * RFC 3164 has no year: the latest year that puts the date no further
 * ahead of now than one time zone is of another (UTC+14 against UTC-12):
 * the writer's clock may be ahead of the reader's. Across a new year
 * that is next year ("Jan  1 00:30" read on Dec 31 at 23:00).
 */
#define SYSLOG_AHEAD_USEC (26 * 3600 * INT64_C(1000000))

int sl_syslog_guess_year(int month, int mday, int h, int m, int s)
{
	/* This second's local date, per thread: localtime_r() looks at
	 * /etc/localtime again on every call (log/stamp.c). */
	static __thread time_t then = -1;
	static __thread struct tm tm;
	time_t now = time(NULL);
	int64_t wall;

	if (now != then) {
		localtime_r(&now, &tm);
		then = now;
	}
	for (int year = tm.tm_year + 1900 + 1; year > tm.tm_year + 1900 - 1; year--) {
		wall = sl_stamp_local(year, month, mday, h, m, s);
		if (wall != SPLITLOCK_TIME_UNKNOWN && wall <= (int64_t)now * 1000000 + SYSLOG_AHEAD_USEC)
			return year;
	}
	return tm.tm_year + 1900 - 1;
}

/* "Dec  3 09:18:33 ": the bytes after it; its month and day. */
static const char *rfc3164_parse(const char *p, const char *end, int *month, int *mday,
				 int *h, int *m, int *s, int64_t *frac)
{
	int64_t day;
	bool has_frac;
	size_t n = sl_stamp_month(p, end, month);

	if (!n)
		return NULL;
	p += n;
	while (p < end && *p == ' ')
		p++;
	if (!sl_stamp_num(&p, end, 2, &day) || day < 1 || day > 31 ||
	    p >= end || *p++ != ' ' ||
	    !sl_stamp_clock(&p, end, h, m, s, frac, &has_frac) ||
	    p >= end || *p != ' ')
		return NULL;
	*mday = (int)day;
	return p + 1;
}

static const char *rfc3164(const char *p, const char *end, int year, int64_t *wall)
{
	int month, mday, h, m, s;
	int64_t frac;

	p = rfc3164_parse(p, end, &month, &mday, &h, &m, &s, &frac);
	if (!p)
		return NULL;
	if (month >= 0 && !year)
		year = sl_syslog_guess_year(month, mday, h, m, s);
	*wall = sl_stamp_local(month < 0 ? 0 : year, month, mday, h, m, s);
	if (*wall != SPLITLOCK_TIME_UNKNOWN)
		*wall += frac;
	return p;
}

const char *sl_syslog_stamp_in(const char *p, const char *end, int year, int64_t *wall)
{
	const char *q = sl_stamp_rfc3339(p, end, wall);

	return q ? q : rfc3164(p, end, year, wall);
}

const char *sl_syslog_stamp(const char *p, const char *end, int64_t *wall)
{
	return sl_syslog_stamp_in(p, end, 0, wall);
}

bool sl_syslog_yearless_time(const char *p, const char *end, int *month, int *mday, int *h, int *m,
		     int *s)
{
	int64_t frac, wall;

	p = sl_skip_blanks(p, end);
	return !sl_stamp_rfc3339(p, end, &wall) &&
	       rfc3164_parse(p, end, month, mday, h, m, s, &frac) && *month >= 0;
}

bool sl_syslog_yearless(const char *p, const char *end, int *month, int *mday)
{
	int h, m, s;

	return sl_syslog_yearless_time(p, end, month, mday, &h, &m, &s);
}

/*
 * Syslog with RFC 3164 stamps, which have no year: the first stamped line,
 * past a hole of NULs and journalctl's "-- Logs begin at ... --" (systemd
 * 245 to 249 print it first).
 */
bool sl_first_line_yearless(const char *p, const char *end)
{
	int month, mday;

	for (int lines = 0; p < end && lines < 100; lines++) {
		const char *le = memchr(p, '\n', (size_t)(end - p));

		while (p < end && (*p == ' ' || *p == '\0'))
			p++;
		if (!le)
			le = end;
		if (p < le && !(le - p >= 3 && memcmp(p, "-- ", 3) == 0))
			return sl_syslog_yearless(p, le, &month, &mday);
		p = le + 1;
	}
	return false;
}
