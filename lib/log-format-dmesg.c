/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dmesg text, as util-linux dmesg (sys-utils/dmesg.c) prints it:
 *
 *   [    5.000000] MSG                       default
 *   [Thu Dec  3 09:18:33 2026] MSG            -T, day and month in its locale
 *   [Dec 3 09:18] MSG / [  +0,118315] MSG     -H, -e (reltime; a locale's
 *                                            decimal comma)
 *   [<    0.118315>] MSG, [ 5.0 < 0.1>] MSG   --time-format delta, -d
 *   2026-12-03T09:18:33,000000+00:00 MSG     --time-format iso
 *   MSG                                      --time-format notime, -t
 *   <4>[    5.000000] MSG                    -r (the syslog(2) form)
 *   kern  :warn  : [    5.000000] MSG        -x
 *
 * and after any stamp a printk caller id ("[ T1234]", "[C3]") when the
 * kernel has CONFIG_PRINTK_CALLER. Lines may be indented (pasted). Only -r
 * and -x say who wrote a line; plain text is taken as the kernel's.
 */
#include "log-format.h"

static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "res0", "res1", "res2", "res3",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6",
	"local7",
};

/* dmesg -x: "kern  :warn  : "; returns the bytes used, 0 if absent. */
static size_t decoded_prefix(const char *p, const char *end, int *facility)
{
	const char *q = p, *word;
	size_t n;

	while (q < end && *q >= 'a' && *q <= 'z')
		q++;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	n = (size_t)(q - p);
	word = p;
	while (q < end && *q == ' ')
		q++;
	if (q >= end || *q != ':' || n == 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(facility_names); i++) {
		if (strlen(facility_names[i]) != n || memcmp(word, facility_names[i], n))
			continue;
		q++;
		while (q < end && *q >= 'a' && *q <= 'z')
			q++;
		while (q < end && *q == ' ')
			q++;
		if (q + 1 >= end || q[0] != ':' || q[1] != ' ')
			return 0;
		*facility = (int)i;
		return (size_t)(q + 2 - p);
	}
	return 0;
}

/* -T: "Thu Dec  3 09:18:33 2026" with names in any locale we know. */
static bool ctime_stamp(const char *p, const char *end, int64_t *usec)
{
	int month, h, m, s;
	int64_t mday, year, frac;
	bool has_frac;
	size_t n;

	while (p < end && *p != ' ') /* the weekday: its name does not matter */
		p++;
	while (p < end && *p == ' ')
		p++;
	n = sl_stamp_month(p, end, &month);
	if (!n)
		return false;
	p += n;
	while (p < end && *p == ' ')
		p++;
	if (!sl_stamp_num(&p, end, 2, &mday) || p >= end || *p++ != ' ')
		return false;
	if (!sl_stamp_clock(&p, end, &h, &m, &s, &frac, &has_frac) ||
	    p >= end || *p++ != ' ' || !sl_stamp_num(&p, end, 4, &year) || p != end)
		return false;
	*usec = sl_stamp_local((int)year, month, (int)mday, h, m, s);
	return true;
}

/* -e/-H: "Dec 3 09:18" (the minute a run of relative stamps starts). */
static bool minute_stamp(const char *p, const char *end)
{
	int month;
	int64_t v;
	size_t n = sl_stamp_month(p, end, &month);

	if (!n)
		return false;
	p += n;
	while (p < end && *p == ' ')
		p++;
	if (!sl_stamp_num(&p, end, 2, &v) || p >= end || *p++ != ' ' ||
	    !sl_stamp_num(&p, end, 2, &v) || p >= end || *p++ != ':' ||
	    !sl_stamp_num(&p, end, 2, &v))
		return false;
	return p == end;
}

/* "+4,880000", "<    0.118315>": relative stamps that do not date a line. */
static bool relative_stamp(const char *p, const char *end)
{
	int64_t v;
	bool angle;

	while (p < end && *p == ' ')
		p++;
	angle = p < end && *p == '<';
	if (angle || (p < end && *p == '+'))
		p++;
	else
		return false;
	while (p < end && *p == ' ')
		p++;
	if (!sl_stamp_num(&p, end, 12, &v) || p >= end || (*p != '.' && *p != ','))
		return false;
	p++;
	if (!sl_stamp_num(&p, end, 9, &v))
		return false;
	if (angle && (p >= end || *p++ != '>'))
		return false;
	return p == end;
}

/* -d: "    5.000000 <    4.880000>" */
static bool mono_delta_stamp(const char *p, const char *end, int64_t *usec)
{
	const char *lt = memchr(p, '<', (size_t)(end - p));
	const char *e = lt;

	if (!lt)
		return false;
	while (e > p && e[-1] == ' ')
		e--;
	return sl_stamp_mono(p, e, usec) && relative_stamp(lt, end);
}

int sl_dmesg_line(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_log_record r = SL_RECORD_INIT;
	const char *end = line + len, *p = sl_skip_blanks(line, end), *q;
	size_t used;
	int facility, pri;

	if (p == end)
		return 0;
	/* dmesg -r: "<PRI>", read as the live log's syslog(2) lines are */
	q = sl_syslog_pri(p, end, &pri);
	if (q) {
		r.facility_known = true;
		r.rec.facility = pri >> 3;
		r.rec.level = pri & 7;
		p = q;
	}
	if (!r.facility_known && (used = decoded_prefix(p, end, &facility))) {
		r.facility_known = true;
		r.rec.facility = facility;
		p += used;
	}
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && (sl_stamp_mono(p + 1, close, &r.mono_usec) ||
			      mono_delta_stamp(p + 1, close, &r.mono_usec) ||
			      ctime_stamp(p + 1, close, &r.wall_usec) ||
			      minute_stamp(p + 1, close) ||
			      relative_stamp(p + 1, close))) {
			p = close + 1;
			if (p < end && *p == ' ')
				p++;
		}
	} else if (p < end && *p >= '0' && *p <= '9') {
		/* --time-format iso */
		q = sl_stamp_rfc3339(p, end, &r.wall_usec);
		if (q)
			p = q;
	}
	p = sl_skip_caller_id(p, end);
	if (!r.facility_known)
		r.rec.facility = 0; /* plain text cannot tell; see slctl(8) */
	if (r.mono_usec != SPLITLOCK_TIME_UNKNOWN)
		r.rec.usec = (uint64_t)r.mono_usec;
	return sl_reader_emit(rd, &r, p, (size_t)(end - p));
}
