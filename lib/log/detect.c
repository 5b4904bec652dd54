/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which text form a saved log is in (dmesg, syslog, journalctl's short
 * forms), from the vote of its first lines and the detector's lines
 * further in; and binary data that is no log at all. The forms that tell
 * themselves by their first bytes answer in their entries (log/formats.c).
 */
#include "core/json.h"
#include "log/format.h"

/*
 * Text logs: the form most of the first lines take. journalctl's "short"
 * and RFC 3164 syslog look the same; either parser reads both.
 */
enum splitlock_input_format sl_log_detect_text(const char *p, const char *end)
{
	const char *start = p;
	unsigned lines = 0, syslog = 0, journal = 0, detector = 0, detector_dmesg = 0;
	size_t indent = sl_first_line_indent(p, end);

	while (p < end && lines < 1000) {
		const char *le = memchr(p, '\n', (size_t)(end - p));
		size_t len;

		if (!le)
			le = end;
		/* Behind a hole of NULs, as handle_line() reads it. */
		while (p < le && *p == '\0')
			p++;
		len = (size_t)(le - p);
		/* A record's further lines (journalctl's, indented) are not
		 * lines of the form: a message may hold many. */
		if (len && (size_t)(sl_skip_blanks(p, le) - p) > indent)
			len = 0;
		if (len) {
			lines++;
			/*
			 * dmesg --time-format iso: "2026-12-03T09:18:33,000000+00:00
			 * MSG", a comma where the RFC 3339 stamps of the syslog
			 * daemons and journalctl have a point. Its other lines
			 * ("usb 1-1: ...") would pass for a host and a tag.
			 */
			if (len <= 19 || p[10] != 'T' || p[19] != ',') {
				bool s = sl_syslog_line_matches(p, len);
				bool j = sl_journal_text_line_matches(p, len);

				syslog += s;
				journal += j;
				/* The lines that count most: a dmesg whose other
				 * lines ("svc[600]: segfault at ...") pass for a
				 * host and a tag has detector lines that do not. */
				if (memmem(p, len, "split lock detection: ", 22)) {
					detector++;
					detector_dmesg += !s && !j;
				}
			}
		}
		p = le + 1;
	}
	/* Past the first thousand lines (a wrapped buffer that a service's
	 * "NAME[PID]: ..." lines fill), the detector's lines still count. */
	while (p < end && detector < 16) {
		const char *hit = memmem(p, (size_t)(end - p), "split lock detection: ", 22);
		const char *ls, *le;

		if (!hit)
			break;
		for (ls = hit; ls > start && ls[-1] != '\n'; ls--)
			;
		le = memchr(hit, '\n', (size_t)(end - hit));
		if (!le)
			le = end;
		detector++;
		detector_dmesg += !sl_syslog_line_matches(ls, (size_t)(le - ls)) &&
				  !sl_journal_text_line_matches(ls, (size_t)(le - ls));
		p = le;
	}
	if (detector && detector_dmesg * 2 > detector)
		return SPLITLOCK_INPUT_DMESG;
	if (lines && syslog * 2 > lines && syslog >= journal)
		return SPLITLOCK_INPUT_SYSLOG;
	/*
	 * journalctl's "short" has syslog's yearless stamps: read as syslog,
	 * whose reader gives each line its year from the file's order (its
	 * "-- Boot" and "-- Logs begin at" lines say nothing then).
	 */
	if (lines && journal * 2 > lines)
		return sl_first_line_yearless(start, end) ? SPLITLOCK_INPUT_SYSLOG :
							 SPLITLOCK_INPUT_JOURNAL_TEXT;
	return SPLITLOCK_INPUT_DMESG;
}

static const char nul_hole[SL_NUL_HOLE];

/*
 * Binary data read as text holds no detector line, so its report would be
 * empty and complete. A text log has few control bytes, stray ones where a
 * crash cut a record; a program, a database or UTF-16 text has them on
 * every line. The NULs that logrotate's copytruncate leaves at the start
 * of a file, or in it, are no part of it. The forms with NULs of their own (NUL-
 * separated records, export's binary fields) are not asked.
 */
bool sl_looks_binary(const char *p, const char *end)
{
	size_t n = 0, control = 0;

	while (p < end && n < 4096) {
		unsigned char c = (unsigned char)*p;

		/* A hole of NULs (copytruncate, a crash) is no part of the text:
		 * a program's NULs come with other control bytes. */
		if (c == '\0' && end - p >= SL_NUL_HOLE && !memcmp(p, nul_hole, SL_NUL_HOLE)) {
			while (p < end && *p == '\0')
				p++;
			continue;
		}
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' &&
		     c != '\r' && c != 0x1b) || c == 0x7f)
			control++;
		p++;
		n++;
	}
	return control * 16 > n;
}
