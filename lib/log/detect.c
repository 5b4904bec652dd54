/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which form a saved log is in, from its first lines (and the detector's
 * lines further in); and what the reader must know of the form before its
 * first line: a pasted log's indent, a syslog file without years,
 * journalctl's json-pretty, binary data that is no log at all.
 */
#include "core/json.h"
#include "log/format.h"

/* Blanks before the first line's text: a log pasted into a forum or mail. */
size_t sl_first_line_indent(const char *p, const char *end)
{
	const char *q;

	while (p < end && (*p == '\n' || *p == '\0'))
		p++;
	q = sl_skip_blanks(p, end);
	return (size_t)(q - p);
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

static bool looks_like_kmsg(const char *p, const char *end)
{
	for (int field = 0; field < 3; field++) {
		const char *start = p;

		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == start || p >= end)
			return false;
		if (field < 2 && *p++ != ',')
			return false;
	}
	return *p == ',' || *p == ';';
}

/*
 * Text logs: the form most of the first lines take. journalctl's "short"
 * and RFC 3164 syslog look the same; either parser reads both.
 */
static enum splitlock_input_format detect_text(const char *p, const char *end)
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

/* "NAME=" or "NAME" alone: a journal field as -o export writes it. */
static bool export_field(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_'))
		q++;
	return q > p && q < end && (*q == '=' || *q == '\n');
}

/* -o export: fields from the first line on, a MESSAGE among them. */
static bool looks_like_export(const char *p, const char *end)
{
	if (!export_field(p, end))
		return false;
	return memmem(p, (size_t)(end - p), "\nMESSAGE=", 9) ||
	       memmem(p, (size_t)(end - p), "\nMESSAGE\n", 9) ||
	       memmem(p, (size_t)(end - p), "\n_TRANSPORT=", 12) ||
	       (end - p >= 9 && memcmp(p, "__CURSOR=", 9) == 0);
}

/* -o verbose: a header with the weekday and date, then indented fields. */
static bool looks_like_verbose(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	int64_t wall;

	if (!nl || !sl_journal_full_stamp(p, nl, &wall))
		return false;
	nl++;
	return end - nl > 5 && memcmp(nl, "    ", 4) == 0 && export_field(nl + 4, end);
}

enum splitlock_input_format sl_log_detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end && (*p == '\n' || *p == '\0' || *p == ' '))
		p++;
	if (p < end && *p == '{') {
		/* dmesg --json: {"dmesg": [...]} */
		const char *q = sl_json_skip_ws(p + 1, end);

		if (end - q >= 7 && memcmp(q, "\"dmesg\"", 7) == 0)
			return SPLITLOCK_INPUT_DMESG_JSON;
		return SPLITLOCK_INPUT_JOURNAL;
	}
	if (p < end && *p == '\x1e')
		return SPLITLOCK_INPUT_JOURNAL;
	if (looks_like_export(p, end))
		return SPLITLOCK_INPUT_JOURNAL_EXPORT;
	if (looks_like_verbose(p, end))
		return SPLITLOCK_INPUT_JOURNAL_VERBOSE;
	if (end - p >= 7 && memcmp(p, "data: {", 7) == 0)
		return SPLITLOCK_INPUT_JOURNAL;
	if (looks_like_kmsg(p, end)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (nul && (!nl || nul < nl))
			return SPLITLOCK_INPUT_KMSG_NUL;
		return SPLITLOCK_INPUT_KMSG;
	}
	return detect_text(p, end);
}

/* journalctl -o json-pretty: the first object's brace stands on its own line. */
bool sl_journal_pretty(const char *p, const char *end)
{
	while (p < end && (*p == '\n' || *p == ' '))
		p++;
	if (p >= end || *p++ != '{')
		return false;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p < end && *p == '\n';
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
