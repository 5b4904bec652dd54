/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Syslog files as rsyslog and syslog-ng write them (/var/log/kern.log,
 * /var/log/messages, /var/log/syslog):
 *
 *   Dec  3 09:18:33 host kernel: MSG          RSYSLOG_TraditionalFileFormat,
 *                                            syslog-ng's default (RFC 3164)
 *   2026-12-03T09:18:33.123456+00:00 host kernel: MSG
 *                                            RSYSLOG_FileFormat (RFC 3339),
 *                                            syslog-ng ts-format(iso)
 *
 * MSG may still start with the kernel's own "[    5.000000]" stamp and a
 * caller id. Only the "kernel" tag marks a line as the kernel's, and any
 * user can forge it (logger -t kernel): slctl(8) says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "log/format.h"

/* "TAG:" or "TAG[PID]:" and the space after; NULL when it is not a tag. */
static const char *tag(const char *p, const char *end, bool *kernel)
{
	const char *q = p, *name_end;

	while (q < end && *q != ' ' && *q != ':' && *q != '[')
		q++;
	name_end = q;
	if (q == p || q >= end)
		return NULL;
	if (*q == '[') {
		int64_t pid;

		q++;
		if (!sl_stamp_num(&q, end, 10, &pid) || q >= end || *q++ != ']')
			return NULL;
	}
	if (q >= end || *q++ != ':')
		return NULL;
	if (q < end && *q != ' ')
		return NULL;
	/* journald and rsyslog's imklog tag the kernel "kernel", without a PID. */
	*kernel = name_end - p == 6 && memcmp(p, "kernel", 6) == 0 && *name_end == ':';
	return q < end ? q + 1 : q;
}

/*
 * syslog-ng's suppress(): "Last message '%.20s' repeated %d times,
 * suppressed by syslog-ng on HOST" (lib/logwriter.c). N, and the quoted
 * start of the message in [*@quote, *@quote_end); 0 when it is not one.
 */
static uint64_t syslog_ng_count(const char *p, const char *end, const char **quote,
				const char **quote_end)
{
	static const char head[] = "Last message '", tail[] = " times, suppressed by syslog-ng on ";
	const char *q;
	int64_t n;

	if ((size_t)(end - p) < sizeof(head) - 1 || memcmp(p, head, sizeof(head) - 1) != 0)
		return 0;
	p += sizeof(head) - 1;
	/* At most 20 bytes quoted, which may hold a quote themselves. */
	for (q = p; q <= p + 20 && q < end; q++) {
		const char *r = q;

		if (end - q < 11 || memcmp(q, "' repeated ", 11) != 0)
			continue;
		r += 11;
		if (!sl_stamp_num(&r, end, 10, &n) || n < 1 ||
		    (size_t)(end - r) < sizeof(tail) - 1 || memcmp(r, tail, sizeof(tail) - 1) != 0)
			continue;
		*quote = p;
		*quote_end = q;
		return (uint64_t)n;
	}
	return 0;
}

/*
 * "message repeated N times: [" (rsyslog, MSG after it up to a closing
 * "]") or "last message repeated N times" (sysklogd; rsyslog's old form)
 * at @p, to @end: N, or 0 when it is neither. *@inner: rsyslog's MSG.
 */
#define SYSLOG_REPEATS_MAX (1u << 20)
static uint64_t repeat_count(const char *p, const char *end, const char **inner,
			     const char **inner_end)
{
	bool last = end - p > 5 && memcmp(p, "last ", 5) == 0;
	int64_t n;

	if (last)
		p += 5;
	if (end - p < 17 || memcmp(p, "message repeated ", 17) != 0)
		return 0;
	p += 17;
	if (!sl_stamp_num(&p, end, 10, &n) || n < 1 || end - p < 6 || memcmp(p, " times", 6) != 0)
		return 0;
	p += 6;
	*inner = NULL;
	if (last)
		return p == end ? (uint64_t)n : 0;
	if (end - p < 4 || memcmp(p, ": [", 3) != 0 || end[-1] != ']')
		return 0;
	/* MSG as rsyslog holds it: with the space that followed the tag. */
	p += 3;
	if (*p == ' ')
		p++;
	*inner = p;
	*inner_end = end - 1;
	return (uint64_t)n;
}

/*
 * The kernel's message at [@msg, @end) as if logged @n times more, as the
 * repeat line at [@line, @line_end) says. That line, with its own stamp,
 * is what a dump saved twice holds again: its repeats all share one
 * stamp, and each one checked would be taken for the one before it again.
 */
static int emit_repeats(struct sl_reader *rd, const struct sl_log_record *tmpl,
			const char *line, const char *line_end,
			const char *msg, const char *end, uint64_t n)
{
	struct sl_log_record repeat_line = *tmpl;
	int64_t mono;
	const char *p = sl_skip_kernel_stamp(msg, end, &mono);
	int ret;

	/*
	 * Each repeat is read as a line: a count no daemon reaches is no
	 * count to spend time on, in one line or in all of them (any user
	 * may write one with logger -t kernel).
	 */
	if (n > SYSLOG_REPEATS_MAX - rd->last->repeats) {
		if (sl_maybe_detector(msg, (size_t)(end - msg)))
			sl_unread_note(rd->unread, rd->line);
		return 0;
	}
	rd->last->repeats += n;
	repeat_line.rec.message = line;
	repeat_line.rec.message_len = (size_t)(line_end - line);
	repeat_line.mono_usec = SPLITLOCK_TIME_UNKNOWN;
	repeat_line.maybe_repeat = false;
	ret = sl_reader_repeat(rd, &repeat_line);
	if (ret)
		return ret < 0 ? ret : 0;
	p = sl_skip_caller_id(p, end);
	for (uint64_t i = 0; i < n; i++) {
		struct sl_log_record r = *tmpl;

		r.folded = true;
		r.maybe_repeat = repeat_line.maybe_repeat;
		ret = sl_reader_emit(rd, &r, p, (size_t)(end - p));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The daemon's repeat lines: rsyslog names the message again, sysklogd
 * means the line before (of this file: the daemon counts per file). 1
 * when the line at @msg is one (handled), 0 when not, or an error.
 */
static int syslog_repeats(struct sl_reader *rd, struct sl_log_record *r,
			  const char *msg, const char *end, bool kernel)
{
	struct sl_syslog_last *last = rd->last;
	const char *inner, *inner_end, *quote = NULL, *quote_end = NULL;
	uint64_t n = repeat_count(msg, end, &inner, &inner_end);
	int ret;

	if (!n && (n = syslog_ng_count(msg, end, &quote, &quote_end)))
		inner = NULL;
	if (!n)
		return 0;
	if (inner) {
		r->facility_known = true;
		r->rec.facility = kernel ? 0 : 1;
		/* rsyslog keeps the last repeat's time: the others came after
		 * the line repeated, which is the one before where it is read. */
		r->wall_before = rd->follows && last->valid && last->r.wall_usec != SPLITLOCK_TIME_UNKNOWN &&
				 r->wall_usec != SPLITLOCK_TIME_UNKNOWN ?
				 r->wall_usec - last->r.wall_usec : INT64_MAX;
		ret = emit_repeats(rd, r, msg, end, inner, inner_end, n);
		return ret ? ret : 1;
	}
	/* The line before was not read: the scan passed it by, holding no
	 * detector text; or it was not the kernel's. */
	/* syslog-ng quotes the message's start: it must be the line's. */
	if (quote && rd->follows && last->valid &&
	    ((size_t)(quote_end - quote) > last->len || memcmp(quote, last->msg, (size_t)(quote_end - quote)) != 0)) {
		if (sl_maybe_detector(quote, (size_t)(quote_end - quote)) || quote_end - quote == 20)
			sl_unread_note(rd->unread, rd->line);
		return 1;
	}
	if (!rd->follows || !last->valid) {
		/* The file's first line: what it repeats is in an older file
		 * (rotated), and may have been the detector's. */
		if ((rd->follows && last->overlong) || rd->line == 1)
			sl_unread_note(rd->unread, rd->line);
		last->valid = last->overlong = false;
		return 1;
	}
	/* Logged again since, at the latest at the repeat line's time. */
	if (last->r.wall_usec != SPLITLOCK_TIME_UNKNOWN && r->wall_usec != SPLITLOCK_TIME_UNKNOWN)
		last->r.wall_before = r->wall_usec - last->r.wall_usec;
	else
		last->r.wall_before = INT64_MAX;
	last->r.wall_usec = r->wall_usec;
	last->r.wall_grain = r->wall_grain;
	last->r.mono_usec = SPLITLOCK_TIME_UNKNOWN;
	last->r.rec.usec = 0;
	ret = emit_repeats(rd, &last->r, msg, end, last->msg, last->msg + last->len, n);
	return ret ? ret : 1;
}

/* The kernel's line, kept for a "last message repeated" after it. */
static void keep_last(struct sl_reader *rd, const struct sl_log_record *r,
		      const char *msg, const char *end, bool kernel)
{
	struct sl_syslog_last *last = rd->last;
	size_t len = (size_t)(end - msg);

	if (!last)
		return;
	last->valid = kernel && len <= sizeof(last->msg);
	last->overlong = kernel && !last->valid;
	if (last->valid) {
		memcpy(last->msg, msg, len);
		last->len = len;
		last->r = *r;
	}
}

int sl_syslog_tail(struct sl_reader *rd, struct sl_log_record *r,
		   const char *p, const char *end)
{
	const char *msg;
	bool kernel;
	int64_t mono;
	int ret;

	r->short_text = true;
	/* A HOST token unless the tag comes first (journalctl --no-hostname). */
	msg = tag(p, end, &kernel);
	if (!msg) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));

		msg = sp ? tag(sp + 1, end, &kernel) : NULL;
		/* sysklogd: "HOST last message repeated N times", no tag. */
		if (!msg && rd->last && sp && (ret = syslog_repeats(rd, r, sp + 1, end, false)))
			return ret < 0 ? ret : 0;
		/* One file may hold the kernels of many hosts (remote syslog). */
		if (msg)
			r->host = sl_boot_hash(p, (size_t)(sp - p));
	}
	if (!msg) {
		if (rd->last)
			rd->last->valid = rd->last->overlong = false;
		sl_reader_unrecognized(rd, p, (size_t)(end - p));
		return 0;
	}
	if (rd->last && (ret = syslog_repeats(rd, r, msg, end, kernel)))
		return ret < 0 ? ret : 0;
	r->facility_known = true;
	r->rec.facility = kernel ? 0 : 1;
	keep_last(rd, r, msg, end, kernel);
	/* journalctl's short forms without -a hide a message that is not
	 * printable UTF-8: a task's name may hold any byte. (Short is read
	 * as syslog: the two look the same.) */
	if (kernel && sl_blob_data(msg, (size_t)(end - msg))) {
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_HIDDEN);
		return 0;
	}
	p = sl_skip_kernel_stamp(msg, end, &mono);
	if (p != msg && r->mono_usec == SPLITLOCK_TIME_UNKNOWN) {
		r->mono_usec = mono;
		r->rec.usec = (uint64_t)mono;
	}
	p = sl_skip_caller_id(p, end);
	return sl_reader_emit(rd, r, p, (size_t)(end - p));
}

bool sl_syslog_tail_matches(const char *p, const char *end, bool strict)
{
	const char *t = tag(p, end, &(bool){ false }), *sp;
	bool kernel = false;

	if (!t) {
		sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			return false;
		p = sp + 1;
		t = tag(p, end, &kernel);
	} else {
		tag(p, end, &kernel);
	}
	/* Strict: the kernel's tag or one with a PID, not "usb 1-1: ..." text. */
	return t && (!strict || kernel || memchr(p, '[', (size_t)(t - p)));
}

bool sl_syslog_line_matches(const char *line, size_t len)
{
	const char *end = line + len, *p;
	int64_t wall;

	const char *sp, *inner, *inner_end;

	p = sl_syslog_stamp(line, end, &wall);
	if (!p)
		return false;
	if (sl_syslog_tail_matches(p, end, false))
		return true;
	/* sysklogd's "HOST last message repeated N times" has no tag. */
	sp = memchr(p, ' ', (size_t)(end - p));
	return sp && repeat_count(sp + 1, end, &inner, &inner_end) && !inner;
}

/* How far past a stamp a head's ": " may be: a host (a DNS name, 253
 * bytes) and a tag. */
#define HOST_AND_TAG_MAX 300

/* How far into a line a seam may be: a head with the longest host, and a
 * kernel stamp, a caller id and a detector line's first words. */
#define TEXT_SEAM_REACH 420

/*
 * A record's head at @p (log/join.c): a stamp, a HOST and a tag, or the
 * tag alone (a stamp of the forms that print no HOST), ending in ": ",
 * or in ':' at the line's end; where the message begins, or NULL. Where
 * @strict, only with a stamp whose time reads.
 */
static const char *text_head(const char *p, const char *end, bool strict, const void *ctx)
{
	sl_text_stamp_fn stamp = *(const sl_text_stamp_fn *)ctx;
	const char *q, *colon;
	int64_t t;
	size_t n;

	t = SPLITLOCK_TIME_UNKNOWN;
	q = stamp(p, end, &t);
	/* Strictly: a stamp whose time reads (a month of a known name). */
	if (!q || (strict && t == SPLITLOCK_TIME_UNKNOWN))
		return NULL;
	n = (size_t)(end - q) < HOST_AND_TAG_MAX ? (size_t)(end - q) : HOST_AND_TAG_MAX;
	colon = memmem(q, n, ": ", 2);
	if (colon)
		return colon + 2;
	return q + n == end && n && q[n - 1] == ':' ? end : NULL;
}

/* After a stamp at @q: "HOST TAG: " or "TAG: " (no HOST); past it, or NULL. */
static const char *host_and_tag(const char *q, const char *end, bool *kernel)
{
	const char *t, *sp;

	/* A stamp read may end before its blank (journalctl's short forms). */
	while (q < end && *q == ' ')
		q++;
	t = tag(q, end, kernel);

	if (!t) {
		sp = memchr(q, ' ', (size_t)(end - q));
		t = sp ? tag(sp + 1, end, kernel) : NULL;
	}
	return t;
}

/*
 * A head at [@p, @end) whose tag is whole and not the kernel's: its
 * record was no detector line. One cut before its tag ends may have been.
 */
static bool text_maybe_kernel(const char *p, const char *end, const void *ctx)
{
	sl_text_stamp_fn stamp = *(const sl_text_stamp_fn *)ctx;
	bool kernel = false;
	int64_t when;
	const char *q = stamp(p, end, &when);

	return !q || !host_and_tag(q, end, &kernel) || kernel;
}

/*
 * [@line, @hend): a head cut short (log/join.c): a stamp, then a host or a
 * tag without its ": ", cut inside a word; or a stamp's first bytes alone
 * ("Dec  3 10:4", "2024-12-04T09:0", "[  100.12").
 */
static bool text_head_cut(const char *line, const char *hend, const void *ctx)
{
	sl_text_stamp_fn stamp = *(const sl_text_stamp_fn *)ctx;
	int64_t t;
	const char *q;

	while (hend > line && hend[-1] == '\0')
		hend--;
	if (hend == line)
		return false;
	q = stamp(line, hend, &t);
	/*
	 * Cut inside a word: one that ends in a blank was whole, and a head
	 * after it is a relay's double head ("Dec  4 09:00:01 10.0.0.1 Dec  4
	 * ... fw01 sshd[12]: ") or a stamp in a message read as one (any
	 * word is short-full's weekday: "host postgres[1700]: 2024-12-04 ...").
	 */
	if (q)
		return hend - q < HOST_AND_TAG_MAX && !memmem(q, (size_t)(hend - q), ": ", 2) &&
		       !memchr(q, '\0', (size_t)(hend - q)) && hend[-1] != ' ';
	if (hend - line > 40 || hend[-1] == ' ' ||
	    !((*line >= 'A' && *line <= 'Z') || sl_digit(*line) || *line == '['))
		return false;
	for (const char *c = line + (*line == '['); c < hend; c++)
		if (!(sl_digit(*c) || sl_letter(*c) || strchr(" :.,+-", *c)))
			return false;
	return true;
}

/* (log/format.h) */
bool sl_text_marker_joined(const char *line, const char *end, sl_text_stamp_fn stamp)
{
	static const char *const markers[] = {
		"-- Logs begin at ", "-- Journal begins at ", "-- Boot ", "-- No entries --",
		"-- Reboot --",
	};

	if (end - line < 7 || memcmp(end - 3, " --", 3) != 0)
		return false;
	for (const char *m = line + 1; (m = memmem(m, (size_t)(end - m), "-- ", 3)); m++)
		for (size_t k = 0; k < ARRAY_SIZE(markers); k++)
			if ((size_t)(end - m) >= strlen(markers[k]) &&
			    memcmp(m, markers[k], strlen(markers[k])) == 0)
				return sl_text_line_cut(line, m) && text_maybe_kernel(line, m, &stamp);
	return false;
}

/* (log/format.h) */
bool sl_text_joined(const struct sl_reader *rd, const char *line, const char *end,
		    sl_text_stamp_fn stamp)
{
	const struct sl_head_form head = {
		.head = text_head, .ctx = &stamp, .indent = rd->indent,
		.reach = TEXT_SEAM_REACH, .maybe_kernel = text_maybe_kernel,
		.any_next_head = true, .cut_short = text_head_cut,
	};

	return sl_joined_line(line, end, &head);
}

/*
 * A head at @p with the kernel's tag: a kernel record. Where @read_time,
 * only one whose time reads: a word's tail may read as a month or weekday
 * of some locale ("ec" of a relay's "Dec"), not as a known one. Else the
 * time need not read (a zone or a month of another machine's: "CET",
 * "gruod.").
 */
static bool kernel_head(const char *p, const char *end, sl_text_stamp_fn stamp, bool read_time)
{
	bool kernel = false;
	int64_t when = SPLITLOCK_TIME_UNKNOWN;
	const char *q = stamp(p, end, &when);

	if (!q || (read_time && when == SPLITLOCK_TIME_UNKNOWN))
		return false;
	return host_and_tag(q, end, &kernel) && kernel;
}

/*
 * Digits begin a stamp only as an ISO date's year ("...port 22"
 * "2026-12-05T..."), a month written as a number ("12月 01 ...") or a Unix
 * time's ten digits before its point: not
 * inside another stamp's time ("05.000000" of "00:00:05.000000") or a
 * number ("22" of "port 22").
 */
static bool stamp_in_digits(const char *p, const char *end)
{
	const char *q = p;

	if (end - p > 4 && sl_digit(p[1]) && sl_digit(p[2]) && sl_digit(p[3]) && p[4] == '-')
		return true;
	while (q < end && sl_digit(*q))
		q++;
	/* A month written as a number, "12月" (CJK) or "12월" (Hangul), as
	 * journalctl's short form writes it in ja_JP and ko_KR: after other
	 * digits only a two-digit one ("...port 22" "12月"; "2月" of a
	 * relay's "12月" is none). */
	if ((sl_digit(p[-1]) ? q - p == 2 : q - p <= 2) && end - q >= 3 &&
	    (memcmp(q, "\xe6\x9c\x88", 3) == 0 || memcmp(q, "\xec\x9b\x94", 3) == 0))
		return true;
	return q - p == 10 && q < end && *q == '.';
}

/* How far before the kernel's tag a head may begin: a stamp and a host
 * (a DNS name: 253 bytes). */
#define INNER_REACH 320

/* (log/format.h) */
bool sl_text_inner_head(const char *line, const char *end, sl_text_stamp_fn stamp)
{
	const char *msg = text_head(line, end, false, &stamp), *from = msg, *k;

	/* Past the line's own head; where it does not read, its first word
	 * (inside which a stamp may be its own: "733390000.000000"). */
	if (!from)
		for (from = line; from < end && *from != ' '; from++)
			;
	for (k = from; (k = memmem(k, (size_t)(end - k), "kernel:", 7)); k += 7) {
		for (const char *p = k - from > INNER_REACH ? k - INNER_REACH : from; p < k; p++) {
			if (p == line || !(sl_letter(*p) || sl_digit(*p) || *p == '['))
				continue;
			if (sl_digit(*p) && !stamp_in_digits(p, end))
				continue;
			/* A relay's copy begins its message, right after its tag. */
			if (p == msg)
				continue;
			if (kernel_head(p, end, stamp, sl_letter(p[-1]) && sl_letter(*p)))
				return true;
		}
	}
	return false;
}

/* (log/format.h) */
void sl_text_passed_joined(struct sl_reader *rd, const char *p, const char *le, sl_text_stamp_fn stamp)
{
	const char *s = sl_skip_blanks(p, le);

	if ((size_t)(s - p) <= rd->indent && sl_text_joined(rd, s, le, stamp))
		sl_unread_note_why(rd->unread, sl_passed_line(rd, p), SPLITLOCK_UNREAD_CUT);
}

static const char *syslog_stamp_any(const char *p, const char *end, int64_t *t)
{
	return sl_syslog_stamp_in(p, end, 0, t);
}

/* A stamp of any text form: the next dump may be another's (short
 * appended to short-unix or short-monotonic). */
static const char *text_stamp_any(const char *p, const char *end, int64_t *t)
{
	const char *q = syslog_stamp_any(p, end, t);

	return q ? q : sl_journal_text_stamp(p, end, t);
}

/* A century: the years that a gap in a yearless file leaves unknown. */
#define YEARS_UNKNOWN_USEC (INT64_C(100) * 366 * 86400 * 1000000)

/*
 * @year: 0 to guess; @earlier: the line may be years earlier than @year
 * puts it (a gap in the file); @later: or later (pieces out of order).
 */
static int sl_syslog_line_in(struct sl_reader *rd, const char *line, size_t len, int year,
			     bool earlier, bool later)
{
	struct sl_log_record r = SL_RECORD_INIT;
	const char *end = line + len, *p = sl_skip_blanks(line, end), *q;

	if (p == end)
		return 0;
	if (sl_continuation_line(rd, line, len))
		return sl_reader_emit_further(rd, p, (size_t)(end - p));
	/* journalctl -o short and short-precise, yearless, are read here:
	 * their "-- Boot ID --" lines start a boot (lines before the first
	 * are of boot 0, as a syslog file's). */
	if (end - p > 11 && memcmp(p, "-- Boot ", 8) == 0 && memcmp(end - 3, " --", 3) == 0) {
		rd->boot = sl_boot_hash(p + 8, (size_t)(end - 3 - p - 8));
		return 0;
	}
	/* systemd 249 and older: "-- Reboot --", a boot without its id. */
	if (end - p == 12 && memcmp(p, "-- Reboot --", 12) == 0) {
		rd->boot = sl_boot_hash((const char *)&rd->line, sizeof(rd->line));
		return 0;
	}
	r.boot = rd->boot;
	/* A record cut in its head, another dump's first after it; or cut
	 * anywhere, the next dump's kernel line or journalctl's first line
	 * ("-- Logs begin at ... --") after it. */
	if (((size_t)(p - line) <= rd->indent && sl_text_joined(rd, p, end, syslog_stamp_any)) ||
	    sl_text_marker_joined(p, end, syslog_stamp_any) ||
	    sl_text_inner_head(p, end, text_stamp_any)) {
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
		return 0;
	}
	q = sl_syslog_stamp_in(p, end, year, &r.wall_usec);
	if (!q) {
		sl_reader_unrecognized(rd, line, len);
		return 0;
	}
	r.wall_grain = sl_stamp_grain(p, q);
	/* RFC 3164 stamps ("Oct 25 02:10:00") are the writer's local time;
	 * RFC 3339 ones carry their offset. */
	if (*p >= 'A' && *p <= 'Z')
		sl_stamp_local_fold(&r.wall_usec, &r.wall_grain);
	if (earlier)
		r.wall_before = YEARS_UNKNOWN_USEC;
	if (later)
		r.wall_grain = YEARS_UNKNOWN_USEC;
	return sl_syslog_tail(rd, &r, q, end);
}

static int syslog_line(struct sl_reader *rd, const char *line, size_t len)
{
	/* A yearless file: its years are known at its end. */
	if (rd->years)
		return sl_syslog_years_keep(rd, line, len);
	return sl_syslog_line_in(rd, line, len, 0, false, false);
}

/* The lines the scan passes by: their dates say a yearless file's years;
 * a record joined to another dump's first (sl_text_joined()). */
static void syslog_passed(struct sl_reader *rd, const char *p, const char *end)
{
	while (p < end) {
		const char *le = memchr(p, '\n', (size_t)(end - p));

		if (!le)
			le = end;
		if (rd->years)
			sl_syslog_years_see(rd->years, p, (size_t)(le - p));
		sl_text_passed_joined(rd, p, le, syslog_stamp_any);
		p = le + 1;
	}
}

static int syslog_start(struct sl_reader *rd, const char *p, const char *end)
{
	rd->indent = sl_first_line_indent(p, end);
	rd->last = calloc(1, sizeof(*rd->last));
	if (!rd->last)
		return -ENOMEM;
	if (sl_first_line_yearless(p, end)) {
		rd->years = calloc(1, sizeof(*rd->years));
		if (!rd->years)
			return -ENOMEM;
		rd->years->month = -1;
	}
	/* Its lines' heads show a record joined to another. */
	rd->passed = syslog_passed;
	return 0;
}

static int syslog_finish(struct sl_reader *rd)
{
	return rd->years ? sl_syslog_years_replay(rd, sl_syslog_line_in) : 0;
}

static void syslog_release(struct sl_reader *rd)
{
	free(rd->last);
	rd->last = NULL;
	if (rd->years) {
		free(rd->years->bytes);
		free(rd->years->lines);
		free(rd->years);
		rd->years = NULL;
	}
}

/*
 * "message": the daemons' "message repeated N times" lines, which hold a
 * count (syslog-ng's "Last message '...' repeated N times, suppressed
 * by"), and the loggers' own notes that they lost kernel messages
 * (journald's "Missed N kernel messages", rsyslog's "imjournal: N
 * messages lost"). journalctl's short form, which looks the same and is
 * read as syslog, may hide a message as "[84B blob data]"
 * (format-journal-text.c), shorten one with "…" or "..." (--no-full),
 * and names each boot in a "-- Boot ID --" line.
 */
static const struct sl_needle needles[] = {
	SL_DETECTOR_NEEDLES,
	{ "message", 7, 5 },
	{ " blob data]", 11, 10 },
	{ "-- ", 3, 1 },          /* "-- Boot ID --", "-- Reboot --" */
	{ "\xe2\x80\xa6", 3, 0 }, /* "…" */
	{ "...", 3, 1 },          /* "…" where the locale is not UTF-8 */
};
_Static_assert(ARRAY_SIZE(needles) <= SL_NEEDLES_VECTOR_MAX, "searched in one vector pass");

const struct sl_log_format sl_log_format_syslog = {
	.id = SPLITLOCK_INPUT_SYSLOG,
	.name = "syslog",
	.flags = SL_FORMAT_REPEATS | SL_FORMAT_COLOURED,
	.needles = needles,
	.n_needles = ARRAY_SIZE(needles),
	.start = syslog_start,
	.line = syslog_line,
	.finish = syslog_finish,
	.release = syslog_release,
};
