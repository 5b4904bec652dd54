/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journalctl -o verbose (systemd src/shared/logs-show.c, output_verbose()):
 *
 *   Thu 2026-12-03 09:18:33.123456 UTC [s=...;i=...;b=...]
 *       _TRANSPORT=kernel
 *       MESSAGE=x86/split lock detection: #AC: fo
 *               o/12 took a split_lock trap at address: 0x1
 *
 * A header line with the entry's wall-clock time and its cursor (an entry
 * saved twice is read once by it, as in export and JSON), then one field a line
 * indented by four spaces; a value holding newlines goes on over lines
 * indented to where the value began. A value that is not printable text
 * is shown as "[1.2K blob data]": a kernel message shown so cannot be read,
 * and the report says so.
 */
#include "log/format.h"

#define FIELD_INDENT 4

static int field(struct sl_reader *rd, const char *p, size_t len)
{
	const char *eq = memchr(p, '=', len);
	size_t name_len;

	if (!eq) {
		sl_reader_unrecognized(rd, p, len);
		return 0;
	}
	name_len = (size_t)(eq - p);
	rd->pending.continues_message = name_len == 7 && memcmp(p, "MESSAGE", 7) == 0;
	if (rd->pending.continues_message && sl_blob_data(eq + 1, (size_t)(p + len - eq - 1))) {
		sl_pending_message_lost(rd);
		rd->pending.continues_message = false;
		return 0;
	}
	sl_pending_field(rd, p, name_len, eq + 1, (size_t)(p + len - eq - 1));
	return 0;
}

/* A line that goes on with the message: indented past "    MESSAGE=". */
static void continuation(struct sl_reader *rd, const char *p, size_t len)
{
	struct sl_pending *pe = &rd->pending;
	size_t indent = FIELD_INDENT + 8, skip = 0;

	while (skip < indent && skip < len && p[skip] == ' ')
		skip++;
	if (pe->message_len + 1 + (len - skip) > SL_INPUT_BUF) {
		sl_pending_message_lost(rd);
		pe->continues_message = false;
		return;
	}
	rd->decoded[pe->message_len++] = '\n';
	memcpy(rd->decoded + pe->message_len, p + skip, len - skip);
	pe->message_len += len - skip;
}

/*
 * The cursor's "t=": the entry's wall-clock time in hexadecimal
 * microseconds since the epoch (sd_journal_get_cursor()), exact where the
 * header's zone name is not the reader's. Returns it, or
 * SPLITLOCK_TIME_UNKNOWN.
 */
static int64_t cursor_realtime(const char *c, const char *end)
{
	for (const char *p = c; p + 2 < end; p++) {
		uint64_t v = 0;
		const char *q;

		if ((p != c && p[-1] != ';') || p[0] != 't' || p[1] != '=')
			continue;
		for (q = p + 2; q < end && q - p - 2 < 16 && sl_hexval(*q) >= 0; q++)
			v = v << 4 | (uint64_t)sl_hexval(*q);
		if (q == p + 2 || (q < end && *q != ';') || v > INT64_MAX)
			return SPLITLOCK_TIME_UNKNOWN;
		return (int64_t)v;
	}
	return SPLITLOCK_TIME_UNKNOWN;
}

/* An entry's header at @p, up to @end: "Thu 2026-12-03 09:18:33 UTC [CURSOR]". */
static bool header_at(const char *p, const char *end)
{
	int64_t wall;
	const char *after;

	/* A weekday's name, then the date: most bytes are no start of one. */
	if (end - p < 6 || p[0] < 'A' || p[0] > 'Z' || p[3] != ' ' || p[4] < '0' || p[4] > '9')
		return false;
	after = sl_journal_full_stamp(p, end, &wall);
	return after && end - after > 2 && after[0] == '[' && end[-1] == ']';
}

/*
 * Where an entry's header begins inside @line, past its first byte: the
 * next dump's first line run on into a line cut short ("cat cut whole");
 * 0 when none does.
 */
static size_t joined_header(const char *line, size_t len)
{
	const char *end = line + len;

	if (len < 8 || end[-1] != ']')
		return 0;
	for (const char *p = line + 1; p + 6 < end; p++)
		if (header_at(p, end))
			return (size_t)(p - line);
	return 0;
}

static int journal_verbose_line(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_pending *pe = &rd->pending;
	int64_t wall = SPLITLOCK_TIME_UNKNOWN;
	const char *after;
	size_t joined;
	int r;

	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return 0;
	/*
	 * A header inside a line: the entry being read was cut there and is
	 * counted as cut, not completed with the next entry's fields; the
	 * next one is read whole. (A value that ends in such words makes its
	 * entry cut: that can only make a report incomplete.)
	 */
	if ((joined = joined_header(line, len))) {
		/* A header cut short: the entry before it ended whole. */
		if (line[0] != ' ') {
			r = sl_pending_end(rd);
			if (r)
				return r;
			sl_pending_begin(rd, true);
		}
		return sl_pending_joined(rd, line, len, joined);
	}
	if (line[0] != ' ') {
		/* "-- Boot ... --", "-- No entries --" */
		if (len >= 3 && memcmp(line, "-- ", 3) == 0)
			return sl_pending_end(rd);
		r = sl_pending_end(rd);
		if (r)
			return r;
		after = sl_journal_full_stamp(line, line + len, &wall);
		if (!after) {
			sl_reader_unrecognized(rd, line, len);
			return 0;
		}
		sl_pending_begin(rd, true);
		pe->wall = wall;
		if (line + len - after > 2 && after[0] == '[' && line[len - 1] == ']') {
			int64_t t = cursor_realtime(after + 1, line + len - 1);

			pe->cursor = sl_boot_hash(after + 1, (size_t)(line + len - after - 2));
			if (t != SPLITLOCK_TIME_UNKNOWN)
				pe->wall = t;
		}
		return 0;
	}
	if (!pe->open) {
		sl_reader_unrecognized(rd, line, len);
		return 0;
	}
	if (len > FIELD_INDENT && memcmp(line, "    ", FIELD_INDENT) == 0 &&
	    line[FIELD_INDENT] != ' ')
		return field(rd, line + FIELD_INDENT, len - FIELD_INDENT);
	if (pe->continues_message) {
		continuation(rd, line, len);
		return 0;
	}
	/* Another field's further lines. */
	return 0;
}

/* The end of the input ends the entry being gathered; the entries cut
 * before are counted unless read whole since. */
static int journal_verbose_finish(struct sl_reader *rd)
{
	int r = sl_pending_end(rd);

	sl_pending_cut_finish(rd);
	return r;
}

/* -o verbose: a header with the weekday and date, then indented fields. */
static bool sniff_journal_verbose(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	int64_t wall;

	if (!nl || !sl_journal_full_stamp(p, nl, &wall))
		return false;
	nl++;
	return end - nl > 5 && memcmp(nl, "    ", 4) == 0 && sl_journal_field_at(nl + 4, end);
}

const struct sl_log_format sl_log_format_journal_verbose = {
	.id = SPLITLOCK_INPUT_JOURNAL_VERBOSE,
	.name = "journal-verbose",
	.flags = SL_FORMAT_JOURNAL_ENTRIES | SL_FORMAT_COLOURED | SL_FORMAT_EVERY_LINE,
	.sniff = sniff_journal_verbose,
	.line = journal_verbose_line,
	.finish = journal_verbose_finish,
	.line_cut = sl_entry_line_cut,
};
