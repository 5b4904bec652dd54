/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stamps of journalctl's short forms (see log/format-journal-text.c),
 * apart from that form's reader: the syslog reader reads them too, in a
 * dump of another short form appended to its own (log/format-syslog.c).
 */
#include <time.h>

#include "log/format.h"

/*
 * The zone journalctl printed (strftime's %Z) at [@z, @end): seconds east
 * of UTC in *@off, or in *@local 0 or 1 for a name of the reader's own zone
 * (standard or summer time; -1 for neither). False
 * for a name that tells nothing certain ("IST" is three zones).
 */
static bool full_stamp_zone(const char *z, const char *end, int *off, int *local)
{
	size_t n = (size_t)(end - z);
	const char *q = z;

	*local = -1;
	*off = 0;
	if ((n == 3 && (memcmp(z, "UTC", 3) == 0 || memcmp(z, "GMT", 3) == 0)) ||
	    (n == 1 && *z == 'Z'))
		return true;
	/* tzdata's numeric abbreviations: "+03", "-0330" */
	if ((*z == '+' || *z == '-') && (n == 3 || n == 5)) {
		int64_t v;
		int sign = *q++ == '-' ? -1 : 1;

		if (!sl_stamp_num(&q, end, (int)n - 1, &v) || q != end)
			return false;
		*off = sign * (n == 3 ? (int)v * 3600 : (int)(v / 100) * 3600 + (int)(v % 100) * 60);
		return true;
	}
	tzset();
	for (int j = 0; j <= 1; j++)
		if (tzname[j] && strlen(tzname[j]) == n && memcmp(tzname[j], z, n) == 0) {
			*local = j; /* tzname[1] is the summer time's */
			return true;
		}
	return false;
}

/*
 * short-full and the verbose header: "Thu 2026-12-03 09:18:33 UTC". A
 * zone that is neither UTC, an offset nor a name of the reader's zone
 * leaves the time unknown: read as local, it was hours off.
 */
const char *sl_journal_full_stamp(const char *p, const char *end, int64_t *wall)
{
	const char *q = p, *z;
	int64_t y, mo, d, frac;
	int h, m, s, off, local;
	bool has_frac;

	/*
	 * The weekday, of any locale (glibc's abday): letters, UTF-8 ones
	 * too, digits ("T2" of vi_VN, "m1." of ln_CD), an apostrophe (he_IL)
	 * or a slash (tig_ER), a letter among them, and a point or comma
	 * after them ("Di.", "ven."), or a colon after a UTF-8 one (sa_IN).
	 * Not brackets nor a colon after ASCII: "postgres[1700]: 2024-12-04
	 * 09:00:01.123 UTC" and "sudo: 2024-..." are a message's own stamp
	 * after a tag.
	 */
	{
		bool letter = false, utf8 = false;

		for (; q < end; q++) {
			bool wide = (unsigned char)*q >= 0x80;

			if (!(sl_letter(*q) || wide || sl_digit(*q) || *q == '\'' || *q == '/'))
				break;
			letter |= sl_letter(*q) || wide;
			utf8 |= wide;
		}
		if (q < end && (*q == '.' || *q == ',' || (*q == ':' && utf8)))
			q++;
		if (!letter || q - p > 40 || q >= end || *q != ' ')
			return NULL;
	}
	q++;
	p = q;
	if (!sl_stamp_num(&q, end, 4, &y) || q - p != 4 || q >= end || *q++ != '-' ||
	    !sl_stamp_num(&q, end, 2, &mo) || q >= end || *q++ != '-' ||
	    !sl_stamp_num(&q, end, 2, &d) || q >= end || *q++ != ' ' ||
	    !sl_stamp_clock(&q, end, &h, &m, &s, &frac, &has_frac) ||
	    q >= end || *q++ != ' ' || mo < 1 || mo > 12)
		return NULL;
	z = q;
	while (q < end && *q != ' ')
		q++;
	if (q >= end || q == z)
		return NULL;
	if (!full_stamp_zone(z, q, &off, &local))
		*wall = SPLITLOCK_TIME_UNKNOWN;
	else if (local >= 0)
		*wall = sl_stamp_local_dst((int)y, (int)mo - 1, (int)d, h, m, s, local);
	else if ((*wall = sl_stamp_utc((int)y, (int)mo - 1, (int)d, h, m, s)) != SPLITLOCK_TIME_UNKNOWN)
		*wall -= (int64_t)off * 1000000;
	if (*wall != SPLITLOCK_TIME_UNKNOWN)
		*wall += frac;
	return q + 1;
}

/* short-unix: "1796083205.000000" */
static const char *unix_stamp(const char *p, const char *end, int64_t *wall)
{
	const char *q = p, *close;
	int64_t sec;

	if (!sl_stamp_num(&q, end, 12, &sec) || q >= end || *q != '.')
		return NULL;
	close = memchr(q, ' ', (size_t)(end - q));
	if (!close || !sl_stamp_mono(p, close, wall))
		return NULL;
	return close + 1;
}

/* short-monotonic, short-delta: "[    5.000000]", "[ 5.000000 < 0.1>]" */
static const char *mono_stamp(const char *p, const char *end, int64_t *mono)
{
	const char *close, *e;

	if (p >= end || *p != '[')
		return NULL;
	close = memchr(p, ']', (size_t)(end - p));
	if (!close || close + 1 >= end || close[1] != ' ')
		return NULL;
	e = memchr(p, '<', (size_t)(close - p));
	if (!e)
		e = close;
	while (e > p + 1 && e[-1] == ' ')
		e--;
	if (!sl_stamp_mono(p + 1, e, mono))
		return NULL;
	return close + 2;
}

/* (log/format.h) */
const char *sl_journal_record_stamp(const char *p, const char *end, struct sl_log_record *r)
{
	const char *q;

	if ((q = mono_stamp(p, end, &r->mono_usec))) {
		r->rec.usec = (uint64_t)r->mono_usec;
		return q;
	}
	if ((q = sl_syslog_stamp(p, end, &r->wall_usec)) ||
	    (q = unix_stamp(p, end, &r->wall_usec)) ||
	    (q = sl_journal_full_stamp(p, end, &r->wall_usec)))
		return q;
	return NULL;
}

/* (log/format.h) */
const char *sl_journal_text_stamp(const char *p, const char *end, int64_t *t)
{
	struct sl_log_record r = SL_RECORD_INIT;

	const char *q = sl_journal_record_stamp(p, end, &r);

	*t = r.wall_usec != SPLITLOCK_TIME_UNKNOWN ? r.wall_usec : r.mono_usec;
	return q;
}

