/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journalctl -o export, the form journals are shipped in (systemd's
 * docs/JOURNAL_EXPORT_FORMATS.md; what systemd-journal-remote reads):
 *
 *   __CURSOR=s=...
 *   __REALTIME_TIMESTAMP=1796083205000000
 *   _TRANSPORT=kernel
 *   MESSAGE=x86/split lock detection: ...
 *                                             (an empty line ends a record)
 *
 * A field that is not printable UTF-8 without newlines (a comm holding a
 * newline or any byte) is written as its name alone on a line, then its
 * size as 64-bit little-endian, the bytes and a newline. log/input.c hands
 * over lines, so such a field is put back together from them: the newlines
 * that split it are its own bytes.
 */
#include "log/format.h"

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A line of a binary field: its bytes so far are in the scratch buffer. */
static int binary_line(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_pending *pe = &rd->pending;
	uint64_t size;
	size_t have;

	if (pe->binary_len + len + 1 > SL_INPUT_BUF) {
		/* Too large to be a record of ours; its end is lost too. */
		pe->in_binary = false;
		if (pe->binary_message)
			sl_pending_message_lost(rd);
		return 0;
	}
	memcpy(rd->scratch + pe->binary_len, line, len);
	pe->binary_len += len;
	have = pe->binary_len;
	if (have >= 8) {
		size = le64((const unsigned char *)rd->scratch);
		if (have - 8 == size) {
			pe->in_binary = false;
			if (pe->binary_message)
				sl_pending_field(rd, "MESSAGE", 7, rd->scratch + 8, (size_t)size);
			return 0;
		}
		if (have - 8 > size) {
			/* Framing broken: what follows cannot be trusted to be fields. */
			pe->in_binary = false;
			sl_pending_message_lost(rd);
			pe->broken = true;
			return 0;
		}
	}
	/* The newline that ended this line is one of the field's bytes. */
	rd->scratch[pe->binary_len++] = '\n';
	return 0;
}

static bool field_name(const char *p, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return false;
	return true;
}

/*
 * Fields journald writes once an entry, which no writer can add (a
 * trusted field's name begins with "_"): one seen again within an entry
 * is another entry's, run on into it where a dump was cut inside a
 * binary field (its size swallowed the next dump's first lines) or a
 * line. _UDEV_DEVLINK and the like may repeat and are not here.
 */
static const char *const once_fields[] = {
	"__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP", "_BOOT_ID", "_TRANSPORT",
	"_MACHINE_ID", "_HOSTNAME", "_SOURCE_MONOTONIC_TIMESTAMP",
};

static unsigned once_field_bit(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(once_fields); i++)
		if (strlen(once_fields[i]) == len && memcmp(once_fields[i], name, len) == 0)
			return 1u << i;
	return 0;
}

static int journal_export_line(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_pending *pe = &rd->pending;
	const char *eq, *cursor;
	unsigned once;

	if (pe->in_binary)
		return binary_line(rd, line, len);
	if (len == 0)
		return sl_pending_end(rd);
	/*
	 * journalctl ends every line and begins every entry with its cursor
	 * ("__CURSOR=s=..."): one inside a line is the next dump's first
	 * line run on into a line cut short ("cat cut whole"). The entry cut
	 * there is counted as cut, never completed with the next one's
	 * fields, and the next entry is read whole. A message that holds
	 * the words makes its own entry cut: it can only make a report
	 * incomplete.
	 */
	if (len > 11 && (cursor = memmem(line + 1, len - 1, "__CURSOR=s=", 11)))
		return sl_pending_joined(rd, line, len, (size_t)(cursor - line));
	/* Each entry starts with its cursor: one in an open entry starts the
	 * next, and the one before was cut short (a dump cut, another
	 * appended). It ends there, whatever it lacks. */
	if (pe->open && pe->cursor && len > 9 && memcmp(line, "__CURSOR=", 9) == 0) {
		int r = sl_pending_cut(rd);

		if (r)
			return r;
	}
	if (!pe->open)
		sl_pending_begin(rd, true);
	eq = memchr(line, '=', len);
	if (!eq) {
		if (!field_name(line, len)) {
			sl_reader_unrecognized(rd, line, len);
			return 0;
		}
		pe->in_binary = true;
		pe->binary_len = 0;
		pe->binary_message = len == 7 && memcmp(line, "MESSAGE", 7) == 0;
		return 0;
	}
	if (!field_name(line, (size_t)(eq - line))) {
		sl_reader_unrecognized(rd, line, len);
		return 0;
	}
	once = once_field_bit(line, (size_t)(eq - line));
	if (once & pe->once_fields) {
		/* Another entry's: this one was cut, and that one lost its
		 * head (its cursor among it) to this one. */
		int r = sl_pending_cut(rd);

		if (r)
			return r;
		sl_pending_begin(rd, true);
		pe->headless = true;
	}
	pe->once_fields |= once;
	sl_pending_field(rd, line, (size_t)(eq - line), eq + 1, (size_t)(line + len - eq - 1));
	return 0;
}

/* -o export: fields from the first line on, a MESSAGE among them. */
static bool sniff_journal_export(const char *p, const char *end)
{
	if (!sl_journal_field_at(p, end))
		return false;
	return memmem(p, (size_t)(end - p), "\nMESSAGE=", 9) ||
	       memmem(p, (size_t)(end - p), "\nMESSAGE\n", 9) ||
	       memmem(p, (size_t)(end - p), "\n_TRANSPORT=", 12) ||
	       (end - p >= 9 && memcmp(p, "__CURSOR=", 9) == 0);
}

/* The end of the input ends the entry being gathered. */
static int journal_export_finish(struct sl_reader *rd)
{
	int r;

	if (rd->pending.in_binary) {
		rd->pending.in_binary = false;
		sl_pending_message_lost(rd);
	}
	r = sl_pending_end(rd);
	sl_pending_cut_finish(rd);
	return r;
}

/* Its lines whole, but the last entry without its blank line ("\r\n"
 * where saved on Windows). */
static bool journal_export_open_at_end(const struct sl_reader *rd, const char *buf, size_t end)
{
	const char *e = buf + end;

	if (rd->pending.in_binary || !end)
		return false;
	if (e[-1] != '\n')
		return true;
	e--;
	if (e > buf && e[-1] == '\r')
		e--;
	return !(e > buf && e[-1] == '\n');
}

const struct sl_log_format sl_log_format_journal_export = {
	.id = SPLITLOCK_INPUT_JOURNAL_EXPORT,
	.name = "journal-export",
	.flags = SL_FORMAT_JOURNAL_ENTRIES | SL_FORMAT_HOLDS_NULS | SL_FORMAT_EVERY_LINE,
	.sniff = sniff_journal_export,
	.line = journal_export_line,
	.finish = journal_export_finish,
	.line_cut = sl_entry_line_cut,
	.open_at_end = journal_export_open_at_end,
};
