/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dmesg text, as util-linux dmesg (sys-utils/dmesg.c) prints it:
 *
 *   [    5.000000] MSG                       default
 *   [Thu Dec  3 09:18:33 2026] MSG            -T, day and month in its locale
 *   [Dec 3 09:18] MSG / [  +0,118315] MSG     -H, -e (reltime; a locale's
 *                                            decimal comma)
 *   [<    0.118315>] MSG, [ 5.0 < 0.1>] MSG   --time-format delta, -d
 *   [Thu Dec  3 09:18:33 2026 <    0.1>] MSG  -T -d
 *   2026-12-03T09:18:33,000000+00:00 MSG     --time-format iso
 *   MSG                                      --time-format notime, -t
 *   <4>[    5.000000] MSG                    -r (the syslog(2) form)
 *   kern  :warn  : [    5.000000] MSG        -x
 *   \e[32m[    5.000000] \e[0mMSG            --color=always (any of the above)
 *
 * and after any stamp a printk caller id ("[ T1234]", "[C3]") when the
 * kernel has CONFIG_PRINTK_CALLER. Lines may be indented (pasted). Only -r
 * and -x say who wrote a line; plain text is taken as the kernel's.
 *
 * Under -r and -x a record that holds newlines (user space may write one
 * to /dev/kmsg) prints its further lines without the prefix, indented:
 * such a line is never a record of its own, whatever it says. The form is
 * decided once, from the first lines, so that a line cannot choose it.
 */
#include "log/format.h"

static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "res0", "res1", "res2", "res3",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6",
	"local7",
};

static const char *const level_names[] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
};

/* dmesg -x: "kern  :warn  : "; returns the bytes used, 0 if absent. */
static size_t decoded_prefix(const char *p, const char *end, int *facility, int *level)
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
		word = q;
		while (q < end && *q >= 'a' && *q <= 'z')
			q++;
		n = (size_t)(q - word);
		*level = -1;
		for (size_t l = 0; l < ARRAY_SIZE(level_names); l++)
			if (strlen(level_names[l]) == n && memcmp(word, level_names[l], n) == 0)
				*level = (int)l;
		while (q < end && *q == ' ')
			q++;
		if (*level < 0 || q + 1 >= end || q[0] != ':' || q[1] != ' ')
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

/*
 * -e/-H: "Dec 3 09:18", "Feb13 14:43" (strftime's "%b%e %H:%M": the day
 * follows the month without a space once it has two digits), the minute a
 * run of relative stamps starts, in some versions after a space.
 */
static bool minute_stamp(const char *p, const char *end)
{
	const char *sp, *word_end;
	int month;
	int64_t v;
	size_t n;

	while (p < end && *p == ' ')
		p++;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return false;
	word_end = sp;
	/* "Feb13": the month word is what comes before the day's digits. */
	while (word_end > p && word_end[-1] >= '0' && word_end[-1] <= '9' && sp - word_end < 2)
		word_end--;
	if (word_end == p)
		word_end = sp; /* "12月 3": a month that is a number */
	n = sl_stamp_month(p, word_end, &month);
	if (!n || p + n != word_end)
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

/*
 * -d after a stamp: "    5.000000 <    4.880000>" (with the default
 * stamps), "Sat Dec  5 19:14:45 2026 <    4.880000>" (with -T): the
 * stamp by @stamp, the delta dates nothing.
 */
static bool with_delta(const char *p, const char *end, int64_t *usec,
		       bool (*stamp)(const char *p, const char *end, int64_t *usec))
{
	const char *lt = memchr(p, '<', (size_t)(end - p));
	const char *e = lt;

	if (!lt)
		return false;
	while (e > p && e[-1] == ' ')
		e--;
	return stamp(p, e, usec) && relative_stamp(lt, end);
}

/* The end of the CSI sequence at @p ("\x1b[1;31m"), or NULL when none is. */
static const char *csi_end(const char *p, const char *end)
{
	const char *q = p + 2;

	if (end - p < 3 || p[0] != '\x1b' || p[1] != '[')
		return NULL;
	/* parameter bytes, then one final byte */
	while (q < end && ((*q >= '0' && *q <= '9') || *q == ';'))
		q++;
	return q < end && *q >= 0x40 && *q <= 0x7e ? q + 1 : NULL;
}

size_t sl_strip_colors(const char *p, size_t len, char *out)
{
	const char *end = p + len, *q;
	size_t o = 0;

	while (p < end) {
		if ((q = csi_end(p, end))) {
			p = q;
			continue;
		}
		out[o++] = *p++;
	}
	return o;
}


/* Only sequences and blanks from @p on: the reset that ends a line. */
static bool colours_to_end(const char *p, const char *end)
{
	const char *q;

	while (p < end) {
		if ((q = csi_end(p, end)))
			p = q;
		else if (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		else
			return false;
	}
	return true;
}

/* @out (@o bytes) is a -x prefix, "kern  :warn  : ", and nothing else. */
static bool is_decoded_prefix(const char *out, size_t o)
{
	const char *p = sl_skip_blanks(out, out + o);
	int facility, level;

	return decoded_prefix(p, out + o, &facility, &level) == (size_t)(out + o - p);
}

/*
 * dmesg --color=always's sequences, where dmesg puts them: around the
 * stamp, around the subsystem (the message up to its first ": ") with the
 * level's colour right after it, and at the end of the line. Inside the
 * message dmesg writes an ESC of the text as "\x1b" (safe_fwrite()), so a
 * raw one there is the message's own (busybox's or toybox's dmesg, a
 * syslog(2) buffer saved as it is: a task may name itself "sshd\x1b[0m")
 * and is kept, not stripped into another task's name.
 */
static size_t strip_dmesg_colours(const char *p, size_t len, char *out)
{
	const char *end = p + len, *q;
	size_t o = 0;
	bool body = false;

	while (p < end) {
		if ((q = csi_end(p, end)) && (!body || colours_to_end(q, end))) {
			p = q;
			continue;
		}
		out[o++] = *p++;
		if (!body && o >= 2 && out[o - 2] == ':' && out[o - 1] == ' ' &&
		    !is_decoded_prefix(out, o)) {
			/* The subsystem's end: the level's colour follows. */
			while ((q = csi_end(p, end)))
				p = q;
			body = true;
		}
	}
	return o;
}

/* "<PRI>" (-r) or "kern  :warn  : " (-x) at @p: the bytes after it, or NULL. */
static const char *record_prefix(const char *p, const char *end,
				 int *facility, int *level)
{
	const char *q = sl_syslog_pri(p, end, facility);
	size_t used;

	if (q) {
		*level = *facility & 7;
		*facility >>= 3;
		return q;
	}
	used = decoded_prefix(p, end, facility, level);
	return used ? p + used : NULL;
}

/*
 * A record's stamp at @p ("[  5.000000] ", -T's, -d's, iso's), as
 * sl_dmesg_line() reads it into @r: the bytes after it, or @p when none.
 */
static const char *record_stamp(const char *p, const char *end, struct sl_log_record *r)
{
	const char *q;

	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && (sl_stamp_mono(p + 1, close, &r->mono_usec) ||
			      with_delta(p + 1, close, &r->mono_usec, sl_stamp_mono) ||
			      ctime_stamp(p + 1, close, &r->wall_usec) ||
			      with_delta(p + 1, close, &r->wall_usec, ctime_stamp) ||
			      minute_stamp(p + 1, close) ||
			      relative_stamp(p + 1, close))) {
			/* -T shows whole seconds (its delta is no part of it) */
			if (r->wall_usec != SPLITLOCK_TIME_UNKNOWN) {
				r->wall_grain = INT64_C(1000000) - 1;
				sl_stamp_local_fold(&r->wall_usec, &r->wall_grain);
			}
			p = close + 1;
			if (p < end && *p == ' ')
				p++;
		}
	} else if (p < end && *p >= '0' && *p <= '9') {
		/* --time-format iso */
		q = sl_stamp_rfc3339(p, end, &r->wall_usec);
		if (q) {
			r->wall_grain = sl_stamp_grain(p, q);
			p = q;
		}
	}
	return p;
}

/*
 * A record's head at @p in dmesg's form *@ctx (log/join.c): in -x output
 * its prefix ("kern  :info  : ") and whatever follows it (a stamp of any
 * format, or none under -t); in -r output its "<6>", with a stamp, or the
 * line's end, after it where @strict (a message may begin "<4>x"); in
 * plain output a whole stamp. Where the message begins, past a printk
 * caller id; or NULL.
 */
static const char *dmesg_head(const char *p, const char *end, bool strict, const void *ctx)
{
	enum sl_dmesg_form form = *(const enum sl_dmesg_form *)ctx;
	struct sl_log_record r = SL_RECORD_INIT;
	int facility, level;
	const char *q = p, *s;

	if (form == SL_DMESG_DECODED) {
		size_t used = decoded_prefix(p, end, &facility, &level);

		if (!used)
			return NULL;
		q = p + used;
	} else if (form == SL_DMESG_RAW) {
		q = sl_syslog_pri(p, end, &facility);
		if (!q || (strict && q < end && *q != '[' && !(*q >= '0' && *q <= '9')))
			return NULL;
	}
	s = sl_skip_caller_id(record_stamp(q, end, &r), end);
	/* Plain: a stamp, or under -t a caller id alone. */
	if (form == SL_DMESG_PLAIN && s == q)
		return NULL;
	return s;
}

/* A record cut in its head joined to another dump's first (log/join.c). */
static bool joined_line_at(const struct sl_reader *rd, const char *line, const char *end)
{
	const struct sl_head_form head = {
		.head = dmesg_head,
		.ctx = &rd->dmesg_form,
		.indent = rd->indent,
	};

	return sl_joined_line(line, end, &head);
}

/* A line of -r, -x or plain dmesg (colours left out into @buf, when it
 * has any) that is a record joined to another, read from @line. */
static bool joined_line(const struct sl_reader *rd, const char *line, size_t len, char *buf)
{
	const char *end, *p;

	if (memchr(line, '\x1b', len)) {
		/* Cut inside a colour, the next dump's head may be read as
		 * its end ("\e[" then "kern  :info  : ": "\e[k"): the line
		 * as it is is looked at too. */
		p = sl_skip_blanks(line, line + len);
		if ((size_t)(p - line) <= rd->indent && joined_line_at(rd, p, line + len))
			return true;
		len = strip_dmesg_colours(line, len, buf);
		line = buf;
	}
	end = line + len;
	p = sl_skip_blanks(line, end);
	if (p == end)
		return false;
	/*
	 * An indented line continues a record (a further line), unless it
	 * begins with a whole head: a pasted log's record cut in its indent,
	 * the next dump's first record after it (twenty-third review, H2).
	 */
	if ((size_t)(p - line) > rd->indent)
		return rd->indent && dmesg_head(p, end, true, &rd->dmesg_form);
	return joined_line_at(rd, p, end);
}

/*
 * -r, -x: the lines the scan passes by, which hold none of the detector's
 * words, are looked at for a record joined to another; the line number
 * is counted only until the first unread line, as log/input.c does.
 */
static void dmesg_passed(struct sl_reader *rd, const char *p, const char *end)
{
	while (p < end) {
		const char *le = memchr(p, rd->sep, (size_t)(end - p));

		if (!le)
			le = end;
		if (joined_line(rd, p, (size_t)(le - p), rd->scratch))
			sl_unread_note_why(rd->unread, sl_passed_line(rd, p), SPLITLOCK_UNREAD_CUT);
		p = le + 1;
	}
}

/* Which dmesg it is (plain, -r, -x), from its first lines. */
static int dmesg_start(struct sl_reader *rd, const char *p, const char *end)
{
	unsigned lines = 0, raw = 0, decoded = 0;
	size_t indent = 0;
	char buf[512];

	while (p < end && lines < 200) {
		const char *le = memchr(p, '\n', (size_t)(end - p)), *q, *e;
		int facility, level;
		size_t n;

		if (!le)
			le = end;
		n = sl_strip_colors(p, (size_t)(le - p) < sizeof(buf) ? (size_t)(le - p)
								      : sizeof(buf), buf);
		e = buf + n;
		q = sl_skip_blanks(buf, e);
		if (q < e) {
			if (!lines)
				indent = (size_t)(q - buf);
			lines++;
			if (sl_syslog_pri(q, e, &facility))
				raw++;
			else if (decoded_prefix(q, e, &facility, &level))
				decoded++;
		}
		p = le + 1;
	}
	rd->dmesg_form = SL_DMESG_PLAIN;
	rd->indent = indent;
	/* Half of the lines decide: a short log's first line may be cut. */
	if (lines && raw * 2 >= lines)
		rd->dmesg_form = SL_DMESG_RAW;
	else if (lines && decoded * 2 >= lines)
		rd->dmesg_form = SL_DMESG_DECODED;
	/* Their records' heads show a record joined to another. */
	rd->passed = dmesg_passed;
	return 0;
}

int sl_dmesg_line(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_log_record r = SL_RECORD_INIT;
	const char *end, *p, *q;
	int facility, level;
	bool further;

	/*
	 * A record cut in its head, another dump's first record after it:
	 * counted as cut, the other's text no message of it (joined_line(),
	 * which the lines passed by are held to too).
	 */
	if (joined_line(rd, line, len, rd->scratch)) {
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
		return 0;
	}
	if (memchr(line, '\x1b', len)) {
		len = strip_dmesg_colours(line, len, rd->scratch);
		line = rd->scratch;
	}
	end = line + len;
	p = sl_skip_blanks(line, end);
	if (p == end)
		return 0;
	q = record_prefix(p, end, &facility, &level);
	/* A further line of a record: never the kernel's detector. */
	further = rd->dmesg_form != SL_DMESG_PLAIN &&
		  (!q || (size_t)(p - line) > rd->indent);
	if (q) {
		r.facility_known = true;
		r.level_known = true;
		r.rec.facility = facility;
		r.rec.level = level;
		p = q;
	}
	p = sl_skip_caller_id(record_stamp(p, end, &r), end);
	if (!r.facility_known)
		r.rec.facility = 0; /* plain text cannot tell; see slctl(8) */
	if (further) {
		r.facility_known = true;
		r.rec.facility = 1; /* never the kernel's, whatever it says */
		r.further = true;
	}
	r.mono_usec = sl_dmesg_mono(r.mono_usec);
	if (r.mono_usec != SPLITLOCK_TIME_UNKNOWN)
		r.rec.usec = (uint64_t)r.mono_usec;
	return sl_reader_emit(rd, &r, p, (size_t)(end - p));
}

/*
 * dmesg -x's facility cut before its colon ("kern", "kern  "): a line of
 * nothing but the start of a facility's name, which no record is; else
 * the text forms' rule.
 */
static bool dmesg_line_cut(const char *line, const char *end)
{
	const char *word_end = line;

	while (word_end < end && *word_end != ' ')
		word_end++;
	if (word_end > line && sl_skip_blanks(word_end, end) == end)
		for (size_t i = 0; i < ARRAY_SIZE(facility_names); i++)
			if ((size_t)(word_end - line) <= strlen(facility_names[i]) &&
			    memcmp(line, facility_names[i], (size_t)(word_end - line)) == 0)
				return true;
	return sl_text_line_cut(line, end);
}

const struct sl_log_format sl_log_format_dmesg = {
	.id = SPLITLOCK_INPUT_DMESG,
	.name = "dmesg",
	.flags = SL_FORMAT_REPEATS | SL_FORMAT_DERIVED_WALL,
	.start = dmesg_start,
	.line = sl_dmesg_line,
	.line_cut = dmesg_line_cut,
};
