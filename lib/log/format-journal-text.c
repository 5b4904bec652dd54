/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journalctl text output (systemd src/shared/logs-show.c, output_short()):
 *
 *   Dec 03 09:18:33 host kernel: MSG              short (%b in the locale
 *                                                of journalctl: "12月 03")
 *   Dec 03 09:18:33.123456 host kernel: MSG       short-precise
 *   2026-12-03T09:18:33+0000 host kernel: MSG     short-iso
 *   2026-12-03T09:18:33.123456+0000 host ...      short-iso-precise
 *   Thu 2026-12-03 09:18:33 UTC host kernel: MSG  short-full
 *   [    5.000000] host kernel: MSG               short-monotonic
 *   [    5.000000 <    0.118315>] host ...        short-delta
 *   1796083205.000000 host kernel: MSG            short-unix
 *
 * with "-- Boot ID --" between boots and "-- Journal begins at ... --"
 * (or "-- Logs begin at") headers. journald tags what it read from
 * /dev/kmsg "kernel" and prints no PID for it; what a process logged
 * shows its PID ("kernel[1234]:") and is not the kernel's.
 */
#include "log/format.h"

/*
 * A log that ends after a line's stamp, HOST and tag, before its message
 * ("[  102.000000] h kernel: "): cut, as in every short form. (The text
 * forms' rule takes short-monotonic's "] h" for a message begun.)
 */
static bool journal_text_line_cut(const char *line, const char *end)
{
	struct sl_log_record r = SL_RECORD_INIT;
	const char *p = sl_skip_blanks(line, end), *q = sl_journal_record_stamp(p, end, &r), *colon;

	if (q) {
		colon = memmem(q, (size_t)(end - q), ": ", 2);
		if (!colon || colon + 2 >= end)
			return true;
	}
	return sl_text_line_cut(line, end);
}

static void journal_text_passed(struct sl_reader *rd, const char *p, const char *end)
{
	while (p < end) {
		const char *le = memchr(p, '\n', (size_t)(end - p));

		if (!le)
			le = end;
		sl_text_passed_joined(rd, p, le, sl_journal_text_stamp);
		p = le + 1;
	}
}

static bool marker(const char *p, size_t len)
{
	return len >= 6 && memcmp(p, "-- ", 3) == 0 && memcmp(p + len - 3, " --", 3) == 0;
}

bool sl_journal_text_line_matches(const char *line, size_t len)
{
	struct sl_log_record r = SL_RECORD_INIT;
	const char *p, *end = line + len;

	if (marker(line, len))
		return true;
	p = sl_journal_record_stamp(line, end, &r);
	/* "[ 5.0] usb 1-1: ..." is dmesg text: a monotonic stamp needs a real tag. */
	return p && sl_syslog_tail_matches(p, end, r.mono_usec != SPLITLOCK_TIME_UNKNOWN);
}

static int journal_text_line(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_log_record r = SL_RECORD_INIT;
	const char *end = line + len, *p = sl_skip_blanks(line, end), *q;

	if (p == end)
		return 0;
	if (sl_continuation_line(rd, line, len))
		return sl_reader_emit_further(rd, p, (size_t)(end - p));
	if (marker(p, (size_t)(end - p))) {
		if (end - p > 8 && memcmp(p, "-- Boot ", 8) == 0)
			rd->boot = sl_boot_hash(p + 8, (size_t)(end - p - 8));
		/* systemd 249 and older: "-- Reboot --", a boot without its id. */
		else if (end - p == 12 && memcmp(p, "-- Reboot --", 12) == 0)
			rd->boot = sl_boot_hash((const char *)&rd->line, sizeof(rd->line));
		return 0;
	}
	/* A record cut in its head, another dump's first after it; or cut
	 * anywhere, the next dump's kernel line or journalctl's first line
	 * ("-- Logs begin at ... --") after it. */
	if (((size_t)(p - line) <= rd->indent && sl_text_joined(rd, p, end, sl_journal_text_stamp)) ||
	    sl_text_marker_joined(p, end, sl_journal_text_stamp) ||
	    sl_text_inner_head(p, end, sl_journal_text_stamp)) {
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
		return 0;
	}
	q = sl_journal_record_stamp(p, end, &r);
	if (!q) {
		sl_reader_unrecognized(rd, line, len);
		return 0;
	}
	if (r.wall_usec != SPLITLOCK_TIME_UNKNOWN)
		r.wall_grain = sl_stamp_grain(p, q);
	/* Lines before the first "-- Boot" marker are of one boot too. */
	if (!rd->boot)
		rd->boot = SL_BOOT_UNMARKED;
	r.boot = rd->boot;
	return sl_syslog_tail(rd, &r, q, end);
}

static int journal_text_start(struct sl_reader *rd, const char *p, const char *end)
{
	rd->indent = sl_first_line_indent(p, end);
	/* Its lines' heads show a record joined to another. */
	rd->passed = journal_text_passed;
	return 0;
}

/*
 * Its "-- Boot ID --" lines start a new boot; without -a it shows a
 * message that is not printable UTF-8 as "[84B blob data]", which hides
 * whether it was the detector's; with --no-full it shortens one with
 * "…"; journald says "Missed N kernel messages" where it lost some.
 */
static const struct sl_needle needles[] = {
	SL_DETECTOR_NEEDLES,
	{ "-- ", 3, 1 },          /* "-- Boot ID --", "-- Reboot --" */
	{ " blob data]", 11, 10 },
	{ "\xe2\x80\xa6", 3, 0 }, /* "…"; "..." where the locale is not UTF-8 is
				   * not looked for: a tenth needle doubles the scan */
	{ "kernel messages", 15, 10 },
};
_Static_assert(ARRAY_SIZE(needles) <= SL_NEEDLES_VECTOR_MAX, "searched in one vector pass");

const struct sl_log_format sl_log_format_journal_text = {
	.id = SPLITLOCK_INPUT_JOURNAL_TEXT,
	.name = "journal-text",
	.flags = SL_FORMAT_REPEATS | SL_FORMAT_COLOURED,
	.needles = needles,
	.n_needles = ARRAY_SIZE(needles),
	.start = journal_text_start,
	.line = journal_text_line,
	.line_cut = journal_text_line_cut,
};
