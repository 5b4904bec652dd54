/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the format parsers put what they read: records on to the report
 * (unescaped, a saved dump's repeats marked or dropped), and detector-like
 * lines that no parser read into the count of unread lines. The parsers
 * call down into this file; log/input.c, which calls the parsers, is above
 * both.
 */
#include "log/format.h"
#include "log/needle-scan.h"

static const struct sl_needle needles[] = {
	SL_DETECTOR_WORDS,
};
#define N_NEEDLES (sizeof(needles) / sizeof(needles[0]))

bool sl_maybe_detector(const char *s, size_t len)
{
	for (size_t i = 0; i < N_NEEDLES; i++)
		if (memmem(s, len, needles[i].text, needles[i].len))
			return true;
	return sl_detector_prefix_cut(s, len);
}

uint64_t sl_passed_line(const struct sl_reader *rd, const char *p)
{
	return rd->unread->lines ? 0 : rd->lines + sl_count_byte(rd->counted, p, rd->sep) + 1;
}

void sl_reader_unrecognized(struct sl_reader *rd, const char *line, size_t len)
{
	if (sl_maybe_detector(line, len))
		sl_unread_note(rd->unread, rd->line);
}

/*
 * Text forms: a record saved twice is read once (log/repeat.c). The
 * kernel's stamps since boot and the journal's stored times are the
 * record's own; dmesg's wall-clock times (-T, iso) it reckons at each
 * dump, and the other forms have none: their repeats are only marked,
 * an earlier boot's text again or a split lock the kernel had warned of
 * already for the task (log/repeat.c: seen with no boot line too).
 */
int sl_text_repeat(struct sl_reader *rd, struct sl_log_record *r)
{
	const char *msg = r->rec.message;
	size_t len = r->rec.message_len;
	int64_t stamp = r->mono_usec != SPLITLOCK_TIME_UNKNOWN ? r->mono_usec : r->wall_usec;
	bool own = r->mono_usec != SPLITLOCK_TIME_UNKNOWN ||
		   (r->wall_usec != SPLITLOCK_TIME_UNKNOWN && !(rd->form->flags & SL_FORMAT_DERIVED_WALL));
	bool exact = r->mono_usec != SPLITLOCK_TIME_UNKNOWN || (own && r->wall_grain == 0);
	int facility = r->facility_known ? r->rec.facility : -1;
	int level = r->level_known ? r->rec.level : -1;
	bool maybe = false, boot = sl_boot_line(msg, len);
	uint64_t stamped = stamp != SPLITLOCK_TIME_UNKNOWN && !boot ?
			   sl_repeat_key(stamp, r->host, facility, level, msg, len) : 0;
	int ret;

	/*
	 * A boot line is never dropped: each boot has its own, byte for
	 * byte the same, and it says where the boot's mode begins. A stamp
	 * of whole seconds (or milliseconds) that the writer took from its
	 * clock, with the text of an earlier boot's record, may also be a
	 * later event of the same second after that clock was stepped back
	 * (NTP, the hour summer time gives back) or another host's clock
	 * (syslog, journalctl's short forms): only marked. dmesg reckons
	 * its stamps from the records' own, the same at every dump of a boot.
	 */
	ret = sl_repeat_check(rd->repeat_seen, stamp, exact, boot, exact || !own ? stamped : 0,
			      !own ? sl_repeat_key(SPLITLOCK_TIME_UNKNOWN, r->host, facility, level, msg, len) :
			      !exact ? stamped : 0,
			      &maybe);
	if (ret == 0 && !own && !boot && !(r->facility_known && r->rec.facility != 0)) {
		ret = sl_repeat_event_again(rd->repeat_seen, msg, len, stamp);
		if (ret > 0)
			maybe = true;
		ret = ret < 0 ? ret : 0;
	}
	r->maybe_repeat = maybe;
	return ret;
}

int sl_reader_repeat(struct sl_reader *rd, struct sl_log_record *r)
{
	/* Only a line that may be the kernel's: user space's lines may go
	 * back in time (journald shows a daemon's own send time), which
	 * must not start a boot of the file. */
	if (!rd->repeat_seen || r->further || r->folded ||
	    (r->facility_known && r->rec.facility != 0))
		return 0;
	return sl_text_repeat(rd, r);
}

int sl_reader_emit(struct sl_reader *rd, struct sl_log_record *r,
		   const char *msg, size_t len)
{
	int ret;

	r->rec.message_len = sl_unescape_unprintable(msg, len, rd->decoded);
	rd->decoded[r->rec.message_len] = '\0';
	r->rec.message = rd->decoded;
	ret = sl_reader_repeat(rd, r);
	if (ret)
		return ret < 0 ? ret : 0;
	r->line = rd->line;
	return sl_reader_deliver(rd, r);
}

bool sl_continuation_line(const struct sl_reader *rd, const char *line, size_t len)
{
	return (size_t)(sl_skip_blanks(line, line + len) - line) > rd->indent;
}

int sl_reader_emit_further(struct sl_reader *rd, const char *msg, size_t len)
{
	struct sl_log_record r = SL_RECORD_INIT;

	r.facility_known = true;
	r.rec.facility = 1; /* never the kernel's, whatever it says */
	r.further = true;
	return sl_reader_emit(rd, &r, msg, len);
}

/* @end back past blanks, line ends and colour resets ("\x1b[0m": a
 * coloured journalctl ends with one, after its last newline). */
const char *sl_trim_end(const char *p, const char *end)
{
	for (;;) {
		const char *q = end;

		while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r' || q[-1] == '\n'))
			q--;
		if (q > p && q[-1] == 'm') {
			const char *e = q - 1;

			while (e > p && ((e[-1] >= '0' && e[-1] <= '9') || e[-1] == ';'))
				e--;
			if (e - p >= 2 && e[-1] == '[' && e[-2] == '\x1b')
				q = e - 2;
		}
		if (q == end)
			return end;
		end = q;
	}
}

/* journalctl -o export and -o verbose end every line: a last line
 * without its newline was cut, whatever it holds. */
bool sl_entry_line_cut(const char *line, const char *end)
{
	(void)line;
	(void)end;
	return true;
}

bool sl_json_line_cut(const char *line, const char *end)
{
	/* "]": the end of dmesg --json's list or of jq -s's array */
	return end > line && end[-1] != '}' && end[-1] != ']';
}

/* Its lines whole, but an entry never closed: journalctl -o json-pretty
 * and dmesg --json end with a "}". */
bool sl_json_open_at_end(const struct sl_reader *rd, const char *buf, size_t end)
{
	const char *e = sl_trim_end(buf, buf + end);

	if (rd->json_open)
		return true;
	while (e > buf && e[-1] == ']') { /* jq -s's array closed */
		e--;
		e = sl_trim_end(buf, e);
	}
	return e > buf && e[-1] != '}';
}

/* Does the line start as a stamped form's do: a dmesg stamp or -x's
 * facility, -r's priority, a date, a /dev/kmsg record, a syslog month? */
static bool rd_form_stamped(const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len < 16 ? len : 16);

	if (!len)
		return false;
	return line[0] == '[' || line[0] == '<' || (line[0] >= '0' && line[0] <= '9') ||
	       (colon && colon > line && colon[-1] == ' ') || /* "kern  :warn  : " */
	       (len > 4 && line[0] >= 'A' && line[0] <= 'Z' && line[3] == ' ' &&
		memchr("0123456789 ", line[4], 11));
}

/* (log/format.h) Cut where it holds the detector's words, the start of
 * one of its lines, or a stamp without a message yet. */
bool sl_text_line_cut(const char *line, const char *end_of_line)
{
	size_t len = (size_t)(end_of_line - line);
	const char *traps = memmem(line, len, "traps: ", 7);
	bool message = false;

	if (sl_maybe_detector(line, len))
		return true;
	/* A kill line cut short: "traps: game[700] trap alignm". */
	if (traps && sl_kill_line_start(traps, line + len))
		return true;
	/*
	 * Cut before its message began: "[  100.000000] ", "kern  :warn  :
	 * [  30.0", "Dec  5 10:00:00 host kern", "4,12,5000000,-;". A message
	 * follows the stamp's "] ", the tag's ": " (not dmesg -x's before its
	 * stamp, "[" or a date) or a /dev/kmsg record's ';'. Lines of a form without stamps
	 * (dmesg -t) have no such mark: only their words tell.
	 */
	if (rd_form_stamped(line, len)) {
		for (size_t i = 1; i + 1 < len && !message; i++)
			message = ((line[i - 1] == ']' || line[i - 1] == ':') && line[i] == ' ' &&
				   line[i + 1] != ' ' && line[i + 1] != '[' &&
				   !(line[i + 1] >= '0' && line[i + 1] <= '9')) ||
				  (line[i] == ';' && line[i + 1] != ' ');
		if (!message)
			return true;
	}
	for (size_t i = 0; i < len; i++) {
		if (i && line[i - 1] != ' ' && line[i - 1] != ']' && line[i - 1] != '"' &&
		    line[i - 1] != '\t' && line[i - 1] != ';')
			continue;
		if (sl_detector_start_prefix(line + i, len - i))
			return true;
	}
	return false;
}
