/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Saved kernel logs: finding the lines that matter and handing each to
 * the parser of the log's form. The forms are entries of log/formats.c,
 * each in its file (log/format-*.c): this file names none of them; what
 * differs between forms (needles, NULs, records over lines, how a cut
 * shows) is in the entry.
 *
 * The records go to the report through log/reader.c, which the format
 * parsers call; this file finds the lines and hands them to the form's
 * parser, so data flows one way: input.c, the form, reader.c.
 *
 * Speed matters: logs of millions of records are scanned at close to grep's
 * pace because records are found by searching the buffer, in one pass
 * (needle-scan.c), for text every detector line holds ("#", "callbacks
 * suppressed", "alignment check"); only the lines around a hit are split
 * off and parsed. journalctl's byte-array MESSAGEs hide the text, so a
 * journal line holding an array is parsed too. Memory is one fixed buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "log/format.h"
#include "log/needle-scan.h"
#include "packed-log.h"

#define INPUT_BUF SL_INPUT_BUF
#define PROGRESS_STEP (8ull << 20)
#define READ_STEP (128u * 1024)

/* The forms without needles of their own: the detector's, and journald's
 * "Missed N kernel messages" (journalctl -o cat is read as dmesg text). */
static const struct sl_needle needles[] = {
	SL_DETECTOR_NEEDLES,
	{ "kernel messages", 15, 10 },
};
#define N_NEEDLES (sizeof(needles) / sizeof(needles[0]))

_Static_assert(N_NEEDLES <= SL_NEEDLES_VECTOR_MAX, "searched in one vector pass");

/*
 * A log that ends inside a line (a copy stopped mid-write, head -c, a full
 * disk): the line may have been the detector's, cut before its words or
 * inside its address. Text forms: where it holds the detector's words,
 * ends in the start of one of them ("x86/spl", "traps: game[7"), or was
 * cut before its message began (any record may have followed). Forms
 * of entries (JSON, export, verbose), which their writers always end with
 * a newline: any line but a JSON value's close.
 */
static bool last_line_cut(const struct sl_reader *rd, const char *line, size_t len)
{
	const char *end = sl_trim_end(line, line + len);

	if (rd->stand_in)
		return false;
	/* Only colours: a reset ends a coloured journalctl after its last
	 * newline; a colour begun is a dmesg line cut before its text. */
	if (end == line) {
		for (const char *e = memchr(line, '\x1b', len); e;
		     e = memchr(e + 1, '\x1b', len - (size_t)(e + 1 - line)))
			if (!(line + len - e >= 3 && (memcmp(e, "\x1b[m", 3) == 0 ||
						      (line + len - e >= 4 && memcmp(e, "\x1b[0m", 4) == 0))))
				return true;
		return false;
	}
	/* dmesg --color=always: its colours are no part of the words (a cut
	 * may fall inside one: "\x1b[33", "\x1b["). */
	if (memchr(line, '\x1b', (size_t)(end - line))) {
		const char *esc = memrchr(line, '\x1b', (size_t)(end - line));

		len = (size_t)(end - line);
		if (!memchr(esc, 'm', (size_t)(end - esc)))
			len = (size_t)(esc - line); /* a sequence cut short */
		len = sl_strip_colors(line, len, rd->scratch);
		line = rd->scratch;
		end = sl_trim_end(line, line + len);
		if (end == line)
			return true; /* nothing but colours: its text never came */
	}
	return (rd->form->line_cut ? rd->form->line_cut : sl_text_line_cut)(line, end);
}

/*
 * Line numbers are counted only until the first unread line is found: the
 * report names that one, and counting costs a pass over the buffer.
 */
static void count_lines_to(struct sl_reader *rd, const char *pos)
{
	if (rd->unread->lines) {
		rd->line = 0;
		return;
	}
	rd->lines += sl_count_byte(rd->counted, pos, rd->sep);
	rd->counted = pos;
	rd->line = rd->lines + 1;
}

/* ---- scanning ------------------------------------------------------------ */

static int handle_line(struct sl_reader *rd, const char *line, size_t len)
{
	count_lines_to(rd, line);
	rd->follows = rd->every_line || line == rd->after_handled;
	rd->after_handled = line + len + 1;
	/*
	 * A log saved on Windows ends its lines with "\r\n". No text form
	 * ends a line of its own with a raw CR (the kernel, dmesg and
	 * journalctl escape it), so it goes; the bytes of an export binary
	 * field are the field's.
	 */
	if (len && line[len - 1] == '\r' && rd->sep == '\n' && !rd->pending.in_binary)
		len--;
	/*
	 * Where logrotate's copytruncate cut a file that was being written,
	 * the writer goes on at its old offset: a hole of NULs, then whole
	 * lines. The first of them starts behind the NULs.
	 */
	if (len && line[0] == '\0' && rd->sep == '\n' && !rd->pending.in_binary) {
		while (len && line[0] == '\0') {
			line++;
			len--;
		}
	}
	/*
	 * A hole of NULs inside a line: the data written before it was lost
	 * (a crash on a file system that allocates late). What stands before
	 * it is a line cut short, as a log's last one may be; the line
	 * behind it is read.
	 */
	if (len && rd->sep == '\n' && !rd->pending.in_binary &&
	    !(rd->form->flags & SL_FORMAT_NUL_SEPARATED)) {
		const char *nul = memchr(line, '\0', len);
		const char *after = nul ? sl_skip_nuls(nul, line + len) : NULL;

		/* A hole is a run (SL_NUL_HOLE); a NUL or two is a line's own
		 * broken bytes, read as they are. */
		if (nul && (after - nul >= SL_NUL_HOLE || after == line + len)) {
			if (last_line_cut(rd, line, (size_t)(nul - line)))
				sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
			len -= (size_t)(after - line);
			line = after;
			if (!len)
				return 0;
		}
	}
	/*
	 * journalctl colours its output on a terminal or with SYSTEMD_COLORS
	 * (a "script" capture): the keys of json and verbose, the messages of
	 * the short forms. Its JSON escapes a name's own ESC as \u001b and
	 * rsyslog writes it as #033, so a raw one is a colour. (dmesg's
	 * parser leaves its colours out itself.)
	 */
	if ((rd->form->flags & SL_FORMAT_COLOURED) && memchr(line, '\x1b', len)) {
		len = sl_strip_colors(line, len, rd->scratch);
		line = rd->scratch;
	}
	if (!rd->records && sl_maybe_detector(line, len) && !rd->lines_before_record++)
		rd->first_line_before_record = rd->line;
	return rd->form->line(rd, line, len);
}

/* Complete lines in [p, end): hand over those that may matter. */
/*
 * A yearless syslog file's order and years come from every line's date,
 * in file order (sl_syslog_years_see()): the lines the scan passes by, in
 * [@p, @end), too. The seams of rotated files cat'ed newest first are
 * among them.
 */
static void see_lines(struct sl_reader *rd, const char *p, const char *end)
{
	if (p < end)
		rd->passed(rd, p, end);
}

static int scan_region(struct sl_reader *rd, const char *p, const char *end)
{
	const struct sl_needle *set = rd->form->needles ? rd->form->needles : needles;
	size_t n_set = rd->form->needles ? rd->form->n_needles : N_NEEDLES;
	/* json-pretty spreads a record over lines: every line is read. */
	if (rd->object || rd->every_line) {
		while (p < end) {
			const char *le = memchr(p, rd->sep, (size_t)(end - p));
			int r;

			if (!le)
				le = end;
			r = handle_line(rd, p, (size_t)(le - p));
			if (r)
				return r;
			p = le + 1;
		}
		return 0;
	}

	while (p < end) {
		const char *hit = sl_needle_find(p, end, set, n_set), *ls, *le;
		int r;

		if (!hit)
			break;
		ls = memrchr(p, rd->sep, (size_t)(hit - p));
		ls = ls ? ls + 1 : p;
		le = memchr(hit, rd->sep, (size_t)(end - hit));
		if (!le)
			le = end;
		if (rd->passed)
			see_lines(rd, p, ls);
		r = handle_line(rd, ls, (size_t)(le - ls));
		if (r)
			return r;
		p = le + 1;
	}
	if (rd->passed && p < end)
		see_lines(rd, p, end);
	return 0;
}

static int fill(int fd, char *buf, size_t *end, size_t size, bool *eof)
{
	ssize_t n;

	do
		n = read(fd, buf + *end, size - *end > READ_STEP ? READ_STEP : size - *end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		*eof = true;
	*end += (size_t)n;
	return (int)n;
}

static void repeat_seen_free(struct sl_repeat_seen *s)
{
	free(s->slots);
	free(s->first);
}

static void journal_seen_free(struct sl_journal_seen *s)
{
	free(s->slots);
	free(s->cut);
}

/* What the form's start() took, given back. */
static void release(struct sl_reader *rd)
{
	if (rd->form && rd->form->release)
		rd->form->release(rd);
}

int sl_log_input_foreach(struct splitlock_ctx *ctx, int fd,
			 enum splitlock_input_format *format, bool every_record,
			 sl_log_record_fn fn, void *data,
			 splitlock_progress_fn progress, void *progress_data,
			 struct sl_unread *unread)
{
	_cleanup_free_ char *buf = malloc(INPUT_BUF);
	_cleanup_free_ char *decoded = malloc(INPUT_BUF + 1);
	_cleanup_free_ char *scratch = malloc(INPUT_BUF);
	_cleanup_(repeat_seen_free) struct sl_repeat_seen repeat_seen = { 0 };
	_cleanup_(journal_seen_free) struct sl_journal_seen journal_seen = { 0 };
	_cleanup_(release) struct sl_reader rd = { .ctx = ctx, .fn = fn, .data = data,
			     .unread = unread, .every_line = every_record,
			     .stand_in = every_record };
	size_t start = 0, end = 0;
	uint64_t bytes = 0, reported = 0;
	bool eof = false, skipping = false, detected;
	int r;

	if (!buf || !decoded || !scratch)
		return -ENOMEM;
	rd.decoded = decoded;
	rd.scratch = scratch;
	rd.form = sl_log_format_of(*format);
	if (!rd.form && *format != SPLITLOCK_INPUT_AUTO)
		return -EINVAL;
	/* A form given is still looked at once: json-pretty needs to know. */
	detected = false;
	for (;;) {
		char *last;

		r = fill(fd, buf, &end, INPUT_BUF, &eof);
		if (r < 0)
			return r;
		bytes += (uint64_t)r;
		if (progress && bytes - reported >= PROGRESS_STEP) {
			progress(bytes, progress_data);
			reported = bytes;
		}
		/*
		 * The hole of NULs that logrotate's copytruncate leaves at a
		 * file's start may be larger than the buffer: dropped as it
		 * comes, not read as one overlong line nor left to decide the
		 * form. (NUL-separated records and export's binary fields
		 * keep theirs.)
		 */
		if (end > start && buf[start] == '\0' &&
		    !(rd.form && (rd.form->flags & SL_FORMAT_NUL_SEPARATED)) && !rd.pending.in_binary) {
			size_t n = start;

			while (n < end && buf[n] == '\0')
				n++;
			if (n - start >= SL_NUL_HOLE || n == end) {
				if (detected)
					count_lines_to(&rd, buf + start);
				memmove(buf, buf + n, end - n);
				end -= n;
				start = 0;
				if (detected)
					rd.counted = buf;
				rd.after_handled = NULL;
				if (!end && !eof)
					continue;
			}
		}
		if (!detected) {
			/* Decide on the first full buffer, or all there is. */
			if (end < INPUT_BUF && !eof)
				continue;
			if (packed_log_find(buf, end)) {
				sl_dbg(ctx, "the input is %s, not text", packed_log_find(buf, end)->what);
				return -EMEDIUMTYPE;
			}
			/* A file saved by a Windows editor starts with a UTF-8
			 * byte order mark: journal JSON behind one was taken
			 * for dmesg text, every event unread. */
			if (end >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
				start = 3;
			if (*format == SPLITLOCK_INPUT_AUTO) {
				*format = sl_log_detect(buf + start, end - start);
				rd.form = sl_log_format_of(*format);
			}
			detected = true;
			sl_dbg(ctx, "input format: %s", rd.form->name);
			if (!(rd.form->flags & SL_FORMAT_HOLDS_NULS) && sl_looks_binary(buf + start, buf + end)) {
				sl_dbg(ctx, "the input holds binary data, not text");
				return -EMEDIUMTYPE;
			}
			if (rd.form->start) {
				r = rd.form->start(&rd, buf + start, buf + end);
				if (r < 0)
					return r;
			}
			if (rd.form->flags & SL_FORMAT_REPEATS)
				rd.repeat_seen = &repeat_seen;
			if (rd.form->flags & SL_FORMAT_JOURNAL_ENTRIES)
				rd.journal_seen = &journal_seen;
			if (rd.form->flags & SL_FORMAT_EVERY_LINE)
				rd.every_line = true;
			rd.counted = buf + start;
		}
		rd.sep = rd.form && (rd.form->flags & SL_FORMAT_NUL_SEPARATED) ? '\0' : '\n';
		if (skipping) {
			char *sep = memchr(buf + start, rd.sep, end - start);

			if (!sep) {
				start = end = 0;
				if (eof)
					break;
				continue;
			}
			start = (size_t)(sep + 1 - buf);
			rd.counted = buf + start;
			skipping = false;
		}
		last = memrchr(buf + start, rd.sep, end - start);
		if (last) {
			r = scan_region(&rd, buf + start, last);
			if (r)
				return r < 0 ? r : 0;
			start = (size_t)(last + 1 - buf);
		}
		if (eof) {
			bool cut = false;

			if (end > start && rd.sep == '\n' && last_line_cut(&rd, buf + start, end - start)) {
				count_lines_to(&rd, buf + start);
				sl_unread_note_why(unread, rd.line, SPLITLOCK_UNREAD_CUT);
				cut = true;
			} else if (end > start) {
				r = handle_line(&rd, buf + start, end - start);
				if (r)
					return r < 0 ? r : 0;
			}
			if (!cut && rd.form->open_at_end && rd.form->open_at_end(&rd, buf, end)) {
				count_lines_to(&rd, buf + end);
				sl_unread_note_why(unread, rd.line ? rd.line - 1 : 0, SPLITLOCK_UNREAD_CUT);
			}
			r = rd.form->finish ? rd.form->finish(&rd) : 0;
			if (r)
				return r < 0 ? r : 0;
			break;
		}
		if (start == 0 && end == INPUT_BUF) {
			/* A line longer than the buffer cannot be a record. */
			sl_dbg(ctx, "skipping a line longer than %u bytes", INPUT_BUF);
			count_lines_to(&rd, buf);
			sl_unread_note(unread, rd.line);
			/* Passed by, as lines without needles are: a record
			 * between the numbers of those read. */
			if (rd.passed)
				rd.passed(&rd, buf, buf + end);
			skipping = true;
			start = end = 0;
			rd.after_handled = NULL;
			continue;
		}
		count_lines_to(&rd, buf + start);
		rd.after_handled = rd.after_handled == buf + start ? buf : NULL;
		memmove(buf, buf + start, end - start);
		end -= start;
		start = 0;
		rd.counted = buf;
	}
	if (!rd.records && rd.lines_before_record && !unread->lines) {
		sl_dbg(ctx, "no record of the input read as %s", rd.form->name);
		unread->lines = rd.lines_before_record;
		unread->first_line = rd.first_line_before_record;
		unread->by[SPLITLOCK_UNREAD_UNPARSED] += rd.lines_before_record;
	}
	if (journal_seen.repeats)
		sl_dbg(ctx, "%" PRIu64 " journal entries saved twice (overlapping dumps) read once",
		       journal_seen.repeats);
	if (repeat_seen.repeats)
		sl_dbg(ctx, "%" PRIu64 " records saved twice (repeated dumps) read once",
		       repeat_seen.repeats);
	if (progress)
		progress(bytes, progress_data);
	return 0;
}
