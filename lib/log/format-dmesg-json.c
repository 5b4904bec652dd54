/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util-linux dmesg --json (sys-utils/dmesg.c, 2.38 and newer): one member
 * a line, as its JSON writer lays it out:
 *
 *   {
 *      "dmesg": [
 *         {
 *            "fac": "kern",          -x only; "pri" is then the level name
 *            "pri": 4,               without -x: facility | level (2.38),
 *                                    facility << 3 | level (later)
 *            "time":     5.000000,
 *            "caller": "T4242",      where the kernel has caller ids
 *            "msg": "x86/split lock detection: ..."   (no other member)
 *         },{
 *         ...
 *      ]
 *   }
 *
 * Only the first line of "msg" is the record's: the kernel's detector
 * writes one line, and 2.38 reading a saved buffer (-F) runs every msg on
 * to the end of the buffer, so the rest is passed on as untrusted text.
 *
 * 2.38 writes "pri" without -x as facility | level, not facility << 3 |
 * level: auth.warning (4 | 4) and auth.emerg (4 | 0) read 4 as
 * kern.warning does, and which dmesg wrote a document it does not say.
 * A "pri" of 7 or less therefore does not prove the kernel's facility
 * (the record is taken as the kernel's, as plain dmesg text is, slctl(8));
 * one above 7 is a facility other than kern in either writing, and the
 * level is held to the detector's all the same. -x writes "fac".
 */
#include "core/json.h"
#include "log/format.h"

static const char *const level_names[] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
};

static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "res0", "res1", "res2", "res3",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6",
	"local7",
};

static int name_index(const char *const *names, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return (int)i;
	return -1;
}

/* The record is complete: its message's first line, then the others. */
static int record_end(struct sl_reader *rd)
{
	struct sl_pending *pe = &rd->pending;
	struct sl_log_record base = { .mono_usec = pe->mono,
				      .wall_usec = SPLITLOCK_TIME_UNKNOWN,
				      .line = pe->line };
	const char *msg = rd->scratch, *end, *nl, *p;
	int r;

	if (!pe->open)
		return 0;
	if (!pe->has_message)
		return sl_pending_end(rd);
	end = msg + pe->message_len;
	nl = memchr(msg, '\n', pe->message_len);
	p = sl_skip_caller_id(msg, nl ? nl : end);
	pe->message_len = (size_t)((nl ? nl : end) - p);
	memcpy(rd->decoded, p, pe->message_len);
	r = sl_pending_end(rd);
	while (!r && nl) {
		const char *s = nl + 1, *le;
		int pri;

		nl = memchr(s, '\n', (size_t)(end - s));
		le = nl ? nl : end;
		/*
		 * 2.38's run-on: from the first "<PRI>" line on, the text is
		 * the later records' of the saved buffer, each read again as
		 * its own record. Passing it on here too counted a further
		 * line of a later record once per record before it.
		 */
		if (sl_syslog_pri(s, le, &pri))
			break;
		if (s < le)
			r = sl_reader_emit_untrusted(rd, &base, s, (size_t)(le - s));
	}
	return r;
}

static int member(struct sl_reader *rd, const char *p, const char *end)
{
	struct sl_pending *pe = &rd->pending;
	char key[16], val[32];
	size_t klen, vlen;
	int64_t usec;

	if (!sl_json_string(&p, end, key, sizeof(key), &klen))
		return -1;
	p = sl_json_skip_ws(p, end);
	if (p >= end || *p++ != ':')
		return -1;
	p = sl_json_skip_ws(p, end);
	if (sl_json_name_is(key, klen, "msg")) {
		if (!sl_json_string(&p, end, rd->scratch, SL_INPUT_BUF, &pe->message_len))
			return -1;
		pe->has_message = true;
	} else {
		if (!sl_json_value(&p, end, val, sizeof(val) - 1, &vlen))
			return -1;
		if (sl_json_name_is(key, klen, "fac")) {
			pe->facility = name_index(facility_names, ARRAY_SIZE(facility_names), val, vlen);
			if (pe->facility < 0)
				return -1;
		} else if (sl_json_name_is(key, klen, "pri")) {
			const char *q = val;
			int64_t n;

			if (vlen && val[0] >= '0' && val[0] <= '9') {
				if (!sl_stamp_num(&q, val + vlen, 3, &n) || q != val + vlen || n > 191)
					return -1;
				/* 7 or less: the facility unproven (see above). */
				pe->facility = n > 7 ? (int)(n >> 3) : -1;
				pe->level = (int)(n & 7);
			} else {
				pe->level = name_index(level_names, ARRAY_SIZE(level_names), val, vlen);
				if (pe->level < 0)
					return -1;
			}
		} else if (sl_json_name_is(key, klen, "time")) {
			if (sl_stamp_mono(val, val + vlen, &usec))
				pe->mono = sl_dmesg_mono(usec);
		} else if (!sl_json_name_is(key, klen, "caller")) {
			/*
			 * dmesg writes no other member: another form's line
			 * (a journal's "MESSAGE" cat'ed after this log) is
			 * no member of a record, and detector text in it
			 * is counted as unread rather than skipped.
			 */
			return -1;
		}
	}
	p = sl_json_skip_ws(p, end);
	if (p < end && *p == ',')
		p = sl_json_skip_ws(p + 1, end);
	return p == end ? 0 : -1;
}

/* A document's head cut short with the next document's "{" after it. */
static bool head_joined(const char *p, size_t n)
{
	static const char open[] = "\"dmesg\": [";

	if (n >= 2 && memcmp(p, "{{", 2) == 0)
		return true;
	if (n < 2 || *p != '"' || p[n - 1] != '{')
		return false;
	/* "\"dm{", "\"dmesg\": {", "\"dmesg\": [{" */
	return n - 1 <= sizeof(open) - 1 ? memcmp(p, open, n - 1) == 0
					 : (n == sizeof(open) && memcmp(p, open, n - 1) == 0);
}

static int dmesg_json_line(struct sl_reader *rd, const char *line, size_t len)
{
	const char *end = line + len, *p = sl_json_skip_ws(line, end);
	size_t n;
	int r;

	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	n = (size_t)(end - p);
	if (n == 0)
		return 0;
	/*
	 * A document cut before its "dmesg": [ line was whole ("{", "{\n
	 * \"dm"), another appended: its "{" runs on into the next one's
	 * ("{{", "\"dm{", "\"dmesg\": [{"), or comes twice before it.
	 */
	if (!rd->json_open && (head_joined(p, n) || (n == 1 && *p == '{' && rd->json_head))) {
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
		/* The "{" ending it is the next document's head. */
		rd->json_head = true;
		return 0;
	}
	if (n == 1 && *p == '{' && !rd->json_open)
		rd->json_head = true;
	if ((n == 1 && (*p == '{' || *p == '}' || *p == ']')) ||
	    (n == 2 && (memcmp(p, "},", 2) == 0 || memcmp(p, "],", 2) == 0)) ||
	    (n == 3 && memcmp(p, "},{", 3) == 0)) {
		r = record_end(rd);
		if (r)
			return r;
		if (p[n - 1] == '{')
			sl_pending_begin(rd, false);
		/* The document ends with the array's "]" and then its "}". */
		if (*p == ']')
			rd->json_array_closed = true;
		else if (n == 1 && *p == '}' && rd->json_array_closed)
			rd->json_open = false;
		return 0;
	}
	if (*p == '"') {
		/* "dmesg": [ */
		if (n >= 7 && memcmp(p, "\"dmesg\"", 7) == 0 && p[n - 1] == '[') {
			/*
			 * A document that opens before the one before it
			 * closed: that one was cut ("cat cut whole"), what
			 * came after its last record read lost. Its records
			 * read whole so far stay read.
			 */
			if (rd->json_open)
				sl_unread_note_why(rd->unread, rd->line > 1 ? rd->line - 1 : rd->line,
						   SPLITLOCK_UNREAD_CUT);
			rd->json_open = true;
			rd->json_array_closed = false;
			rd->json_head = false;
			return 0;
		}
		if (!rd->pending.open)
			sl_pending_begin(rd, false);
		if (member(rd, p, end) == 0)
			return 0;
	}
	sl_reader_unrecognized(rd, line, len);
	return 0;
}

/* The end of the input ends the record being gathered. */
static int dmesg_json_finish(struct sl_reader *rd)
{
	return dmesg_json_line(rd, "}", 1);
}

bool sl_dmesg_json_at(const char *p, const char *end)
{
	const char *q;

	if (p >= end || *p != '{')
		return false;
	q = sl_json_skip_ws(p + 1, end);
	return end - q >= 7 && memcmp(q, "\"dmesg\"", 7) == 0;
}

const struct sl_log_format sl_log_format_dmesg_json = {
	.id = SPLITLOCK_INPUT_DMESG_JSON,
	.name = "dmesg-json",
	.flags = SL_FORMAT_REPEATS | SL_FORMAT_EVERY_LINE,
	.sniff = sl_dmesg_json_at,
	.line = dmesg_json_line,
	.finish = dmesg_json_finish,
	.line_cut = sl_json_line_cut,
	.open_at_end = sl_json_open_at_end,
};
