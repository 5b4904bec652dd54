/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Journal JSON in every form journalctl writes it (systemd
 * src/shared/logs-show.c, output_json()): -o json (one object a line),
 * -o json-seq (each object after an RS byte, RFC 7464), -o json-sse
 * ("data: " before each), -o json-pretty (one field a line, tab-indented,
 * "KEY" : VALUE). A field is a string, null when too large, or an array of
 * byte values when it is not printable UTF-8. Only _TRANSPORT=kernel with
 * facility kern is the kernel's: journald also marks what user space wrote
 * to /dev/kmsg as kernel transport, keeping that writer's facility.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/json.h"
#include "log/format.h"
#include "log/needle-scan.h"

struct jfield {
	char buf[64];
	size_t len;
	bool set;
};

struct jrecord {
	struct jfield transport, facility, priority, realtime, source_mono, boot_id;
	bool message_set;
	size_t message_len;
};

static bool jfield_uint(const struct jfield *f, uint64_t *v)
{
	uint64_t n = 0;

	if (!f->set || f->len == 0)
		return false;
	for (size_t i = 0; i < f->len; i++) {
		if (f->buf[i] < '0' || f->buf[i] > '9' || n > UINT64_MAX / 10 - 1)
			return false;
		n = n * 10 + (uint64_t)(f->buf[i] - '0');
	}
	*v = n;
	return true;
}

static bool jfield_is(const struct jfield *f, const char *s)
{
	return f->set && sl_json_name_is(f->buf, f->len, s);
}

static int journal_object(struct sl_reader *rd, const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	struct jrecord j = { 0 };
	struct sl_log_record r = { .facility_known = true,
				   .mono_usec = SPLITLOCK_TIME_UNKNOWN,
				   .wall_usec = SPLITLOCK_TIME_UNKNOWN };
	struct sl_json_iter it;
	char key[64], cursor[256];
	size_t klen, cursor_len = 0;
	bool cursor_set = false;
	uint64_t v;
	int more, ret;

	p = sl_json_skip_ws(p, end);
	if (p == end)
		return 0;
	if (*p != '{' || !sl_json_iter_begin(&it, &p, end))
		goto malformed;
	while ((more = sl_json_iter_next(&it, &p, end, key, sizeof(key), &klen)) > 0) {
		struct jfield *f = NULL;

		if (sl_json_name_is(key, klen, "MESSAGE")) {
			if (*p == 'n') { /* null: too big for journalctl */
				if (!sl_json_value(&p, end, NULL, 0, NULL))
					goto malformed;
				continue;
			}
			if (!sl_json_value(&p, end, rd->decoded, SL_INPUT_BUF,
					   &j.message_len))
				goto malformed;
			j.message_set = true;
			continue;
		}
		if (sl_json_name_is(key, klen, "__CURSOR")) {
			if (!sl_json_value(&p, end, cursor, sizeof(cursor), &cursor_len))
				goto malformed;
			cursor_set = cursor_len < sizeof(cursor);
			continue;
		}
		if (sl_json_name_is(key, klen, "_TRANSPORT"))
			f = &j.transport;
		else if (sl_json_name_is(key, klen, "SYSLOG_FACILITY"))
			f = &j.facility;
		else if (sl_json_name_is(key, klen, "PRIORITY"))
			f = &j.priority;
		else if (sl_json_name_is(key, klen, "__REALTIME_TIMESTAMP"))
			f = &j.realtime;
		else if (sl_json_name_is(key, klen, "_SOURCE_MONOTONIC_TIMESTAMP"))
			f = &j.source_mono;
		else if (sl_json_name_is(key, klen, "_BOOT_ID"))
			f = &j.boot_id;
		if (!sl_json_value(&p, end, f ? f->buf : NULL,
				   f ? sizeof(f->buf) - 1 : 0, f ? &f->len : NULL))
			goto malformed;
		if (f)
			f->set = true;
	}
	if (more < 0)
		goto malformed;
	if (!j.message_set)
		return 0;
	ret = sl_journal_seen_before(rd, cursor_set ? sl_boot_hash(cursor, cursor_len) : 0);
	if (ret)
		return ret < 0 ? ret : 0;
	/*
	 * Only the kernel's records count. journald marks what it read from
	 * /dev/kmsg as _TRANSPORT=kernel, user-space writes there included,
	 * which keep their facility. journalctl --output-fields leaves the
	 * fields out unless asked: without _TRANSPORT, or a kernel entry
	 * without SYSLOG_FACILITY (journald writes it for each; a root write
	 * to /dev/kmsg keeps facility user), the writer is unknown, and
	 * detector text is neither counted nor called forged. Without
	 * PRIORITY the level is unknown, as in dmesg text.
	 */
	if (!j.transport.set || (jfield_is(&j.transport, "kernel") && !j.facility.set)) {
		if (sl_maybe_detector(rd->decoded, j.message_len))
			sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_WRITER_UNKNOWN);
		return 0;
	}
	if (!jfield_is(&j.transport, "kernel"))
		r.rec.facility = 1;
	else if (j.facility.set)
		r.rec.facility = jfield_uint(&j.facility, &v) && v == 0 ? 0 : 1;
	/* journald copies the record's level: held to the detector's. */
	if (jfield_uint(&j.priority, &v) && v < 8) {
		r.rec.level = (int)v;
		r.level_known = true;
	}
	if (jfield_uint(&j.source_mono, &v) && v <= INT64_MAX) {
		r.mono_usec = (int64_t)v;
		r.rec.usec = v;
	}
	if (jfield_uint(&j.realtime, &v) && v <= INT64_MAX)
		r.wall_usec = (int64_t)v;
	if (j.boot_id.set)
		r.boot = sl_boot_hash(j.boot_id.buf, j.boot_id.len);
	rd->decoded[j.message_len] = '\0';
	r.rec.message = rd->decoded;
	r.rec.message_len = j.message_len;
	r.line = rd->line;
	return sl_reader_deliver(rd, &r);

malformed:
	sl_reader_unrecognized(rd, line, len);
	return 0;
}

/* The object being gathered was cut: counted, and dropped. */
static void object_cut(struct sl_reader *rd)
{
	sl_unread_note_why(rd->unread, rd->object_line, SPLITLOCK_UNREAD_CUT);
	rd->in_object = false;
}

/* Does the object gathered so far end in a line that is a member whose
 * value opens an array or object ("entries": [), not a string cut and
 * joined to the next dump's "[" ("MESSAGE": "x86/spl[)? */
static bool object_opens_value(const struct sl_reader *rd)
{
	const char *b = rd->object, *e = rd->object + rd->object_len, *p, *q;

	while (e > b && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (e == b || (e[-1] != '[' && e[-1] != '{'))
		return false;
	p = memrchr(b, '\n', (size_t)(e - b));
	p = sl_json_skip_ws(p ? p + 1 : b, e);
	if (p >= e || *p != '"' || !(q = memchr(p + 1, '"', (size_t)(e - p - 1))))
		return false;
	p = sl_json_skip_ws(q + 1, e);
	if (p >= e || *p != ':')
		return false;
	return sl_json_skip_ws(p + 1, e) == e - 1;
}

/* json-pretty: lines of one object are gathered up to its closing brace. */
static int pretty_line(struct sl_reader *rd, const char *p, size_t len)
{
	size_t n = len, lead = 0;

	/* Entries inside another value: no layout slctl reads (slctl(8)). */
	if (rd->json_nested) {
		sl_reader_unrecognized(rd, p, len);
		return 0;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	/* jq's layout: the array's brackets on their own lines, each entry
	 * indented and closed by "}," but the last. */
	while (lead < n && (p[lead] == ' ' || p[lead] == '\t'))
		lead++;
	if (n && p[n - 1] == ',' && lead)
		n--;
	if (!rd->in_object && n == lead)
		return 0;
	if (rd->in_object && n - lead == 1 && (p[lead] == '{' || p[lead] == '[')) {
		/*
		 * An entry's members are one a line and hold no object, and
		 * an array of its byte values opens after a member's name.
		 * An object or array opening alone inside one: entries
		 * wrapped in another value (jq -s '{entries: .}'), refused
		 * as a layout slctl does not read; or, where no member
		 * opened it, the next dump's start after an entry cut short
		 * ("cat cut whole"): that entry is cut, the next read whole.
		 */
		if (p[lead] == '{' && object_opens_value(rd)) {
			rd->json_nested = true;
			rd->in_object = false;
			sl_reader_unrecognized(rd, rd->object, rd->object_len);
			return 0;
		}
		object_cut(rd);
		/* Its array too: not counted again when the next one opens. */
		rd->json_open = false;
	}
	if (!rd->in_object && n - lead == 1 && (p[lead] == '[' || p[lead] == ']')) {
		/* An array that opens before the one before it closed: that
		 * one was cut after an entry's "}" ("cat cut whole"). */
		if (p[lead] == '[' && rd->json_open)
			sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
		rd->json_open = p[lead] == '['; /* jq -s's array, until its "]" */
		return 0;
	}
	if (!rd->in_object) {
		rd->in_object = true;
		rd->object_overflow = false;
		rd->object_len = 0;
		rd->object_line = rd->line;
	}
	if (rd->object_len + len + 1 > SL_INPUT_BUF) {
		rd->object_overflow = true;
	} else {
		memcpy(rd->object + rd->object_len, p, len);
		rd->object_len += len;
		rd->object[rd->object_len++] = '\n';
	}
	if (n - lead != 1 || p[lead] != '}')
		return 0;
	rd->in_object = false;
	rd->line = rd->object_line;
	if (rd->object_overflow) {
		sl_unread_note(rd->unread, rd->line);
		return 0;
	}
	return journal_object(rd, rd->object, rd->object_len);
}

static int journal_json_line(struct sl_reader *rd, const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	if (rd->object)
		return pretty_line(rd, line, len);
	if (p < end && *p == '\x1e') /* json-seq */
		p++;
	else if (end - p >= 6 && memcmp(p, "data: ", 6) == 0) /* json-sse */
		p += 6;
	else if (end - p >= 3 && memcmp(p, "id:", 3) == 0)
		return 0;
	return journal_object(rd, p, (size_t)(end - p));
}

/*
 * -o json lines the scan passes by: an entry cut short (before its
 * MESSAGE, or inside it) with the next dump's first entry run on into it
 * ("cat cut whole"), or ended by a newline ("awk 1 cut whole", an editor).
 * '{"' stands only where an entry opens (a quote in a string is escaped),
 * so one past the line's own is such a seam; an entry's line ends in its
 * '}'. Most stretches hold no '{' but those that begin their lines and
 * end every line in "}\n", which one vectorized count says; only the
 * others are read line by line. A last line without its newline is the
 * log's end, which log/input.c sees cut.
 */
static void journal_json_passed(struct sl_reader *rd, const char *p, const char *end)
{
	struct sl_byte_counts n;

	sl_count_framed(p, end, '\n', '{', '}', &n);
	if (n.b == n.pairs + (p < end && *p == '{') && n.closing == n.a)
		return;
	while (p < end) {
		const char *le = memchr(p, '\n', (size_t)(end - p));
		const char *open, *last;

		if (!le)
			le = end;
		open = memchr(p, '{', (size_t)(le - p));
		last = le;
		while (last > p && (last[-1] == '\r' || last[-1] == ' ' || last[-1] == '\t'))
			last--;
		/* "{...": an entry cut short, then a newline (a dump cut
		 * there, another appended by a tool that ends every line). */
		if (open && (memmem(open + 1, (size_t)(le - open - 1), "{\"", 2) ||
			     (open < last && last[-1] != '}' && le < end)))
			sl_unread_note_why(rd->unread,
					   sl_passed_line(rd, p),
					   SPLITLOCK_UNREAD_CUT);
		p = le + 1;
	}
}

/* journalctl -o json-pretty: the first object's brace stands on its own line. */
static bool pretty(const char *p, const char *end)
{
	while (p < end && (*p == '\n' || *p == ' '))
		p++;
	/* jq -s: the entries in an array, one member a line */
	if (p < end && *p == '[')
		return true;
	if (p >= end || *p++ != '{')
		return false;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p < end && *p == '\n';
}

/* json-pretty: an object is gathered over its lines in a buffer of its own. */
static int journal_json_start(struct sl_reader *rd, const char *p, const char *end)
{
	if (!pretty(p, end)) {
		rd->passed = journal_json_passed;
		return 0;
	}
	rd->object = malloc(SL_INPUT_BUF);
	return rd->object ? 0 : -ENOMEM;
}

static void journal_json_release(struct sl_reader *rd)
{
	free(rd->object);
	rd->object = NULL;
}

/* -o json, json-pretty ("{"), json-seq (RS), json-sse ("data: {"); not
 * dmesg --json's {"dmesg": ...}. */
static bool sniff_journal_json(const char *p, const char *end)
{
	if (p < end && *p == '{')
		return !sl_dmesg_json_at(p, end);
	/* journalctl -o json | jq -s .: an array of entries; one cut before
	 * its first ("[" alone) is one too, and cut. */
	if (p < end && *p == '[') {
		p++;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		return p == end || *p == '{';
	}
	return (p < end && *p == '\x1e') || (end - p >= 7 && memcmp(p, "data: {", 7) == 0);
}

/*
 * journalctl's JSON lines hold a MESSAGE that is not printable UTF-8 as an
 * array of byte values, which hides the text: a line with any array is
 * parsed, whatever the spacing around its colon (journalctl writes none,
 * Python's json.dumps one after it, json-pretty one on each side: ":[",
 * "\": [", "\" :[", "\" : ["). Nine needles at most: each more costs
 * the scan of every block (a tenth doubled it).
 */
static const struct sl_needle needles[] = {
	/* Not "x86/": an entry is whole or its JSON is cut. */
	SL_DETECTOR_WORDS,
	{ ":[", 2, 1 },
	{ ": [", 3, 2 },
	/* journald's "Missed N kernel messages" */
	{ "kernel messages", 15, 10 },
};
_Static_assert(ARRAY_SIZE(needles) <= SL_NEEDLES_VECTOR_MAX, "searched in one vector pass");

const struct sl_log_format sl_log_format_journal_json = {
	.id = SPLITLOCK_INPUT_JOURNAL,
	.name = "journal",
	.flags = SL_FORMAT_JOURNAL_ENTRIES | SL_FORMAT_COLOURED,
	.needles = needles,
	.n_needles = ARRAY_SIZE(needles),
	.sniff = sniff_journal_json,
	.start = journal_json_start,
	.line = journal_json_line,
	.line_cut = sl_json_line_cut,
	.open_at_end = sl_json_open_at_end,
	.release = journal_json_release,
};
