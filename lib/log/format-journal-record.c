/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records whose fields stand on lines of their own: journalctl -o export
 * and -o verbose (one "NAME=value" a line), dmesg --json (one "key": value
 * a line). The fields are gathered until the record ends, then judged as
 * one: journald marks what it read from /dev/kmsg _TRANSPORT=kernel, user
 * space's writes there included, which keep their facility; only
 * facility kern (or none given) with that transport is the kernel's.
 */
#include <errno.h>
#include <stdlib.h>

#include "log/format.h"

void sl_pending_begin(struct sl_reader *rd, bool journal)
{
	rd->pending = (struct sl_pending){
		.open = true, .journal = journal, .facility = -1, .level = -1,
		.mono = SPLITLOCK_TIME_UNKNOWN, .wall = SPLITLOCK_TIME_UNKNOWN,
		.line = rd->line,
	};
}

static bool field_is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(name, want, len) == 0;
}

static bool field_uint(const char *v, size_t len, uint64_t *out)
{
	uint64_t n = 0;

	if (len == 0 || len > 19)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	*out = n;
	return true;
}

void sl_pending_field(struct sl_reader *rd, const char *name, size_t name_len,
		      const char *value, size_t len)
{
	struct sl_pending *pe = &rd->pending;
	uint64_t v;

	if (!pe->open)
		sl_pending_begin(rd, true);
	if (field_is(name, name_len, "MESSAGE")) {
		if (len > SL_INPUT_BUF) {
			pe->message_lost = true;
			return;
		}
		memcpy(rd->decoded, value, len);
		pe->message_len = len;
		pe->has_message = true;
	} else if (field_is(name, name_len, "_TRANSPORT")) {
		pe->has_transport = true;
		pe->kernel_transport = len == 6 && memcmp(value, "kernel", 6) == 0;
	} else if (field_is(name, name_len, "SYSLOG_FACILITY")) {
		/* Not a number: not one the kernel gave. */
		pe->facility = field_uint(value, len, &v) && v < 24 ? (int)v : 1;
	} else if (field_is(name, name_len, "PRIORITY")) {
		if (field_uint(value, len, &v) && v < 8)
			pe->level = (int)v;
	} else if (field_is(name, name_len, "_SOURCE_MONOTONIC_TIMESTAMP")) {
		if (field_uint(value, len, &v) && v <= INT64_MAX)
			pe->mono = (int64_t)v;
	} else if (field_is(name, name_len, "__REALTIME_TIMESTAMP")) {
		if (field_uint(value, len, &v) && v <= INT64_MAX)
			pe->wall = (int64_t)v;
	} else if (field_is(name, name_len, "_BOOT_ID")) {
		pe->boot = sl_boot_hash(value, len);
	} else if (field_is(name, name_len, "__CURSOR")) {
		pe->cursor = sl_boot_hash(value, len);
	}
}

/* The slot of @cursor in the table (allocated), or the empty one it would take. */
static size_t seen_slot(const struct sl_journal_seen *s, uint64_t cursor)
{
	size_t i = cursor & (s->allocated - 1);

	while (s->slots[i] && s->slots[i] != cursor)
		i = (i + 1) & (s->allocated - 1);
	return i;
}

int sl_journal_seen_before(struct sl_reader *rd, uint64_t cursor)
{
	struct sl_journal_seen *s = rd->journal_seen;
	size_t i;

	if (!s || !cursor)
		return 0;
	if ((s->n + 1) * 2 > s->allocated) {
		size_t n = s->allocated ? s->allocated * 2 : 1024;
		uint64_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t k = 0; k < s->allocated; k++) {
			if (!s->slots[k])
				continue;
			for (i = s->slots[k] & (n - 1); slots[i]; i = (i + 1) & (n - 1))
				;
			slots[i] = s->slots[k];
		}
		free(s->slots);
		s->slots = slots;
		s->allocated = n;
	}
	i = seen_slot(s, cursor);
	if (s->slots[i]) {
		s->repeats++;
		return 1;
	}
	s->slots[i] = cursor;
	s->n++;
	return 0;
}

bool sl_blob_data(const char *v, size_t len)
{
	const char *p = v + 1, *end = v + len - 11;

	if (len < 14 || v[0] != '[' || memcmp(end, " blob data]", 11) != 0)
		return false;
	/* "84B", "1.2K", "3.0M": digits, a fraction, a unit's letters. */
	if (*p < '0' || *p > '9')
		return false;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '.'))
		p++;
	while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
		p++;
	return p == end;
}

static bool journal_seen_has(const struct sl_journal_seen *s, uint64_t cursor)
{
	return s->allocated && s->slots[seen_slot(s, cursor)];
}

int sl_pending_cut(struct sl_reader *rd)
{
	struct sl_pending *pe = &rd->pending;
	struct sl_journal_seen *s = rd->journal_seen;

	pe->open = false;
	if (!s || (pe->has_message && !sl_maybe_detector(rd->decoded, pe->message_len)))
		return 0;
	if (s->n_cut == s->allocated_cut) {
		size_t n = s->allocated_cut ? s->allocated_cut * 2 : 16;
		struct sl_journal_cut *c = reallocarray(s->cut, n, sizeof(*c));

		if (!c)
			return -ENOMEM;
		s->cut = c;
		s->allocated_cut = n;
	}
	s->cut[s->n_cut++] = (struct sl_journal_cut){ .cursor = pe->cursor, .line = pe->line };
	return 0;
}

void sl_pending_cut_finish(struct sl_reader *rd)
{
	struct sl_journal_seen *s = rd->journal_seen;

	/* Counted as what they are, cut (as a log that ends inside an
	 * entry): "unparsed" sent readers looking for a form not understood. */
	for (size_t i = 0; s && i < s->n_cut; i++)
		if (!journal_seen_has(s, s->cut[i].cursor))
			sl_unread_note_why(rd->unread, s->cut[i].line, SPLITLOCK_UNREAD_CUT);
}

int sl_pending_joined(struct sl_reader *rd, const char *line, size_t len, size_t at)
{
	int r;

	/*
	 * The piece is not fed as a field: a MESSAGE cut in it ("x86/spl")
	 * is no message, and the next dump's text after it no part of it.
	 * The entry is cut whatever it held (sl_pending_cut() keeps it
	 * unless its message was whole and no detector's), and is read
	 * from a whole copy later in the file if one comes.
	 */
	if (!rd->pending.open)
		sl_pending_begin(rd, true);
	r = sl_pending_cut(rd);
	if (r)
		return r;
	return rd->form->line(rd, line + at, len - at);
}

void sl_pending_message_lost(struct sl_reader *rd)
{
	if (!rd->pending.open)
		sl_pending_begin(rd, true);
	rd->pending.message_lost = true;
}

int sl_pending_end(struct sl_reader *rd)
{
	struct sl_pending *pe = &rd->pending;
	struct sl_log_record r = { .facility_known = true };
	uint64_t line = rd->line;
	int ret;

	if (!pe->open)
		return 0;
	pe->open = false;
	/*
	 * An entry with no message is none of ours; its cursor is not taken,
	 * so that the whole entry of another dump is read. But the kernel's
	 * entries always have one: a kernel entry without it was cut before
	 * its MESSAGE, the next dump's entry after it (-o verbose, whose
	 * entries no blank line ends; twenty-third review, H1).
	 */
	if (!pe->has_message && !pe->message_lost)
		return pe->journal && pe->kernel_transport ? sl_pending_cut(rd) : 0;
	/* Its first fields (its cursor among them) ran into the entry cut
	 * before it: the fields left may lack what says who wrote it. */
	if (pe->headless)
		return sl_pending_cut(rd);
	ret = sl_journal_seen_before(rd, pe->cursor);
	if (ret)
		return ret < 0 ? ret : 0;
	r.rec.facility = pe->facility < 0 ? 0 : pe->facility;
	/*
	 * dmesg --json without -x: a "pri" of 7 or less does not prove the
	 * kernel wrote the record (util-linux 2.38 writes facility | level,
	 * so auth.warning reads 4 as kern.warning does), and no "pri" says
	 * nothing: taken as the kernel's, as plain dmesg text (slctl(8)).
	 * Journal entries without SYSLOG_FACILITY are judged above.
	 */
	r.facility_known = pe->journal || pe->facility >= 0;
	/*
	 * journalctl --output-fields leaves out the fields not asked for,
	 * _TRANSPORT among them, or SYSLOG_FACILITY, which journald writes
	 * for each kernel entry (a root write to /dev/kmsg keeps facility
	 * user): the entry may be the kernel's or anyone's.
	 * Its detector text is neither counted nor called forged.
	 */
	if (pe->journal && (!pe->has_transport ||
			    (pe->kernel_transport && pe->facility < 0))) {
		if (pe->message_lost ||
		    (pe->has_message && sl_maybe_detector(rd->decoded, pe->message_len)))
			sl_unread_note_why(rd->unread, pe->line, SPLITLOCK_UNREAD_WRITER_UNKNOWN);
		return 0;
	}
	if (pe->journal && !pe->kernel_transport)
		r.rec.facility = 1;
	/* A kernel record nobody can read: the report cannot be complete. */
	if (pe->message_lost && r.rec.facility == 0) {
		sl_unread_note_why(rd->unread, pe->line,
				   pe->broken ? SPLITLOCK_UNREAD_UNPARSED : SPLITLOCK_UNREAD_HIDDEN);
		return 0;
	}
	if (!pe->has_message)
		return 0;
	r.level_known = pe->level >= 0;
	r.rec.level = pe->level < 0 ? 0 : pe->level;
	r.mono_usec = pe->mono;
	if (pe->mono != SPLITLOCK_TIME_UNKNOWN)
		r.rec.usec = (uint64_t)pe->mono;
	r.wall_usec = pe->wall;
	r.boot = pe->boot;
	r.line = pe->line;
	rd->decoded[pe->message_len] = '\0';
	r.rec.message = rd->decoded;
	r.rec.message_len = pe->message_len;
	/* dmesg --json has no cursor: a dump saved twice is told by its
	 * stamps since boot, as dmesg -r text is. Every record's, user
	 * space's too, is the kernel's stamp, in the buffer's order: no
	 * record here can go back in time as a daemon's in the journal can,
	 * so all of them take part (sl_reader_repeat() keeps those out). */
	if (!pe->journal && rd->repeat_seen) {
		ret = sl_text_repeat(rd, &r);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	rd->line = pe->line;
	ret = sl_reader_deliver(rd, &r);
	rd->line = line;
	return ret;
}

int sl_reader_emit_untrusted(struct sl_reader *rd, const struct sl_log_record *base,
			     const char *msg, size_t len)
{
	struct sl_log_record r = *base;

	r.facility_known = true;
	r.rec.facility = 1;
	/* Said as what it is, a record's further line (as dmesg -r and -x
	 * say it), not a record user space wrote. */
	r.further = true;
	r.rec.message = msg;
	r.rec.message_len = len;
	return sl_reader_deliver(rd, &r);
}

/* "NAME=" or "NAME" alone: a journal field as -o export writes it. */
bool sl_journal_field_at(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_'))
		q++;
	return q > p && q < end && (*q == '=' || *q == '\n');
}
