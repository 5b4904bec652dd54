/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/kmsg records saved to a file: one a line with " KEY=VALUE"
 * continuation lines, or NUL-separated (kmsg-nul; log/input.c splits the
 * lines either way). A record is parsed by splitlock_kmsg_parse_record()
 * (kmsg.c), the one reader of that form, which the live reader uses too.
 */
#include <errno.h>

#include "log/format.h"

/*
 * SEQ numbers every record of a boot in order and starts again at each
 * boot: where it goes back, a boot of the file begins (log/repeat.c). A
 * record that an earlier boot of the file held byte for byte (SEQ, stamp,
 * level, message) is that record again: an overlapping second dump, or a
 * boot's dump appended again after another boot's, is read once.
 */
static int seen_before(struct sl_repeat_seen *s, const struct splitlock_kmsg_record *rec,
		       const char *line, size_t len)
{
	/* A boot line is never dropped: each boot's is the same. */
	bool boot = sl_boot_line(rec->message, rec->message_len);

	return sl_repeat_check(s, rec->seq > INT64_MAX ? INT64_MAX : (int64_t)rec->seq, true, false,
			       boot ? 0 : sl_repeat_key(0, 0, 0, 0, line, len), 0, NULL);
}

/* "PRI,SEQ,USEC," and "," or ";" at @p: a record's header. */
static bool record_at(const char *p, const char *end)
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
 * A record whose message begins with another record's header ("4,3,
 * 502000000,-;6,0,0,-;Linux version"): a dump cut before the message and
 * another appended ("cat cut whole"). The record may have been the
 * detector's, and its message never came.
 */
static bool joined_record(const char *line, const char *end)
{
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	const char *semi;

	if (nl)
		end = nl;
	semi = memchr(line, ';', (size_t)(end - line) < 64 ? (size_t)(end - line) : 64);
	if (!semi)
		return false;
	return record_at(semi + 1, end);
}

/* A record's header at @p (log/join.c): where its message begins. */
static const char *kmsg_head(const char *p, const char *end, bool strict, const void *ctx)
{
	const char *semi;

	(void)strict;
	(void)ctx;
	if (!record_at(p, end))
		return NULL;
	semi = memchr(p, ';', (size_t)(end - p) < 64 ? (size_t)(end - p) : 64);
	return semi ? semi + 1 : NULL;
}

/*
 * A record cut inside its header or in the start of a detector line, the
 * next dump's first record's header after it ("4,3,50206,0,0,-;",
 * "4,3,502000000,-;x86/split lock dete6,0,0,-;", "4,1,5000000,-,c6,0,0,-,
 * caller=T0;"): log/join.c. Such a record ends a run of numbers (the next
 * record is the other dump's second): only a record before a break, or
 * the last of a stretch, is looked at so.
 */
static bool joined_cut_record(const char *line, const char *end)
{
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	const char *semi;
	struct sl_head_form head = { .head = kmsg_head };

	if (nl)
		end = nl;
	/* The seam is in the header, or in the detector's first words
	 * (shorter than 32 bytes) after its ';': no further. */
	semi = memchr(line, ';', (size_t)(end - line) < 64 ? (size_t)(end - line) : 64);
	head.reach = semi ? (size_t)(semi - line) + 32 : 64;
	/*
	 * What every such line has, cheaply first (it is asked at each
	 * stretch's end): no ';', another ';' within reach, or more commas
	 * than PRI,SEQ,USEC,FLAG and one field ("caller=T8") before it.
	 */
	if (semi) {
		size_t reach = (size_t)(end - semi - 1) < 32 ? (size_t)(end - semi - 1) : 32;
		int commas = 0;

		for (const char *c = line; c < semi; c++)
			commas += *c == ',';
		if (commas < 4 && !memchr(semi + 1, ';', reach))
			return false;
	}
	return sl_joined_line(line, end, &head);
}

static int kmsg_line(struct sl_reader *rd, const char *line, size_t len)
{
	/* The record shows its level: held to the detector's, as in every
	 * form that shows it (offenders.c). */
	struct sl_log_record r = { .facility_known = true, .level_known = true,
				   .wall_usec = SPLITLOCK_TIME_UNKNOWN };

	/* Continuation lines carry the record's dictionary. */
	if (len == 0 || line[0] == ' ')
		return 0;
	if (splitlock_kmsg_parse_record(line, len, rd->decoded, &r.rec) < 0) {
		sl_reader_unrecognized(rd, line, len);
		return 0;
	}
	/* kmsg-nul: a record's further lines are its dictionary, each one
	 * indented; others are no part of it (newline-separated records read
	 * as kmsg-nul). */
	if (rd->sep == '\0') {
		const char *end = line + len, *p = memchr(line, '\n', len);

		while (p && ++p < end) {
			const char *le = memchr(p, '\n', (size_t)(end - p));

			if (*p != ' ')
				sl_reader_unrecognized(rd, p, (size_t)((le ? le : end) - p));
			p = le;
		}
	}
	/* Records the kernel numbered but the file does not hold: lost when
	 * its buffer wrapped or was cleared before they were saved. */
	/* A gap among the records passed by is noted at the next one read
	 * (their line numbers are not counted). */
	if ((!rd->stand_in && sl_kmsg_seq_lost(&rd->kmsg_seq, r.rec.seq)) || rd->kmsg_lost)
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_LOST);
	rd->kmsg_lost = false;
	if (!rd->stand_in && (joined_record(line, line + len) || joined_cut_record(line, line + len))) {
		sl_unread_note_why(rd->unread, rd->line, SPLITLOCK_UNREAD_CUT);
		return 0;
	}
	if (rd->repeat_seen) {
		int seen = seen_before(rd->repeat_seen, &r.rec, line, len);

		if (seen)
			return seen < 0 ? seen : 0;
	}
	r.line = rd->line;
	r.mono_usec = r.rec.usec > INT64_MAX ? SPLITLOCK_TIME_UNKNOWN
					     : (int64_t)r.rec.usec;
	return sl_reader_deliver(rd, &r);
}

/* "PRI,SEQ,..." at @line: its SEQ; false for a line that is no record. */
static bool record_seq(const char *line, const char *end, uint64_t *seq)
{
	const char *p = line;
	uint64_t v = 0;

	/* "PRI,SEQ,": the digits of each as the record's parser reads them
	 * (log/kmsg.c), leading zeros and all. */
	while (p < end && p - line < 8 && *p >= '0' && *p <= '9')
		p++;
	if (p == line || p >= end || *p != ',')
		return false;
	for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p >= end || *p != ',' || p[-1] == ',')
		return false;
	*seq = v;
	return true;
}

/* Each record of [@p, @end), one by one. */
static void passed_each(struct sl_reader *rd, const char *p, const char *end)
{
	const char *prev = NULL, *prev_end = NULL;
	uint64_t seq, prev_seq = 0;

	while (p < end) {
		const char *le = memchr(p, rd->sep, (size_t)(end - p));

		if (!le)
			le = end;
		if (record_seq(p, le, &seq) && sl_kmsg_seq_lost(&rd->kmsg_seq, seq))
			rd->kmsg_lost = true;
		if (record_seq(p, le, &seq)) {
			if (joined_record(p, le))
				sl_unread_note_why(rd->unread, sl_passed_line(rd, p), SPLITLOCK_UNREAD_CUT);
			/* The record before a break in the numbers. */
			else if (prev && seq != prev_seq + 1 && joined_cut_record(prev, prev_end))
				sl_unread_note_why(rd->unread, sl_passed_line(rd, prev), SPLITLOCK_UNREAD_CUT);
			prev = p;
			prev_end = le;
			prev_seq = seq;
		}
		p = le + 1;
	}
	/* The last one: the record after it was not passed by. */
	if (prev && joined_cut_record(prev, prev_end))
		sl_unread_note_why(rd->unread, sl_passed_line(rd, prev), SPLITLOCK_UNREAD_CUT);
}

/*
 * How far apart a stretch's numbers are checked: at the first and last
 * record of each piece of it. Repeats (dumps appended with an overlap) can
 * make up for lost records in a count only where both fall in one piece:
 * an appended dump shorter than a piece (the smallest kernel buffer is
 * 128 KiB) between one it overlaps and one after a gap. Pieces of 4 KiB
 * cost 7 % of a large log's read.
 */
#define SEQ_PIECE 16384

/* The first record's line at or after @p: past continuation lines. */
static const char *record_start(const char *p, const char *end, char sep)
{
	while (sep == '\n' && p < end && *p == ' ') {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	return p;
}

/* The last record's line in [@p, @end), above its continuation lines (a
 * device's records end in " SUBSYSTEM=", " DEVICE="). */
static const char *last_record(const char *p, const char *end, char sep)
{
	const char *last = end;

	if (end > p && end[-1] == sep)
		last--;
	while (last > p && last[-1] != sep)
		last--;
	while (sep == '\n' && last > p && last[0] == ' ') {
		last--;
		while (last > p && last[-1] != '\n')
			last--;
	}
	return last;
}

/*
 * Whether the records of [@p, @end) (@p a record's line) are numbered one
 * after another from *@next (UINT64_MAX: any), piece by piece: each
 * piece's first number follows the one before's and its count, and the
 * last record's follows the last piece's; *@next becomes the number after
 * the last, *@last that record's line. (A seam between two pieces breaks
 * the first condition.) A piece's records are its first line and the
 * lines that begin as a record, "PRI,": continuation lines, empty lines
 * and other text (an ISO stamp, a number) are none, so that they cannot
 * make up for a lost record.
 */
static bool numbered_in_order(const char *p, const char *end, char sep, uint64_t *next,
			      const char **last)
{
	uint64_t first_seq = 0, records = 0, last_seq;

	while (p < end) {
		const char *b = end;

		if ((size_t)(end - p) > SEQ_PIECE) {
			b = memchr(p + SEQ_PIECE, sep, (size_t)(end - p - SEQ_PIECE));
			b = b ? record_start(b + 1, end, sep) : end;
		}
		if (!record_seq(p, b, &first_seq) ||
		    (*next != UINT64_MAX && first_seq != *next))
			return false;
		records = sl_count_record_starts(p, b, sep) + 1;
		*next = first_seq + records;
		if (b == end)
			break;
		p = b;
	}
	/* The last piece, at its end: its last record's number. */
	*last = last_record(p, end, sep);
	return record_seq(*last, end, &last_seq) && last_seq == first_seq + records - 1;
}

/*
 * The records passed by: their numbers too, so that a gap is seen
 * wherever it falls, also where dumps appended to one file overlap
 * (counting the records would let the repeated ones make up for lost
 * ones). Most stretches run on without a gap: the first and last numbers
 * of each piece and how many records it holds say so, at the cost of a
 * count (vectorized); the others are read record by record.
 */
static void kmsg_passed(struct sl_reader *rd, const char *p, const char *end)
{
	/* A stretch may start inside a record: its continuation lines. */
	const char *first = record_start(p, end, rd->sep), *last;
	uint64_t next = rd->kmsg_seq.any ? rd->kmsg_seq.last + 1 :
			rd->kmsg_seq.from_start ? 0 : UINT64_MAX;

	if (first == end)
		return;
	if (numbered_in_order(first, end, rd->sep, &next, &last)) {
		rd->kmsg_seq.any = true;
		rd->kmsg_seq.last = next - 1;
		/*
		 * A record joined to another dump's first is the last of its
		 * stretch: the numbers after it go back to that dump's. (One
		 * inside would hide a record numbered as it is, another
		 * dump's of the same boot from where it was cut.)
		 */
		if (joined_record(last, end) || joined_cut_record(last, end))
			sl_unread_note_why(rd->unread, sl_passed_line(rd, last), SPLITLOCK_UNREAD_CUT);
		return;
	}
	passed_each(rd, p, end);
}

/* A saved buffer begins with the boot's first record, unless some were
 * lost before it was saved. */
static int kmsg_start(struct sl_reader *rd, const char *p, const char *end)
{
	(void)p;
	(void)end;
	/* A file standing in for /dev/kmsg hands every record to the live
	 * log's reader, which checks the numbers itself. */
	if (rd->stand_in)
		return 0;
	rd->kmsg_seq.from_start = true;
	rd->passed = kmsg_passed;
	return 0;
}

/* A gap after the last record read. */
static int kmsg_finish(struct sl_reader *rd)
{
	if (rd->kmsg_lost)
		sl_unread_note_why(rd->unread, 0, SPLITLOCK_UNREAD_LOST);
	return 0;
}

/* Is the first record's end a NUL, before any newline? */
static bool nul_separated(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *nul = memchr(p, '\0', (size_t)(end - p));

	return nul && (!nl || nul < nl);
}

static bool sniff_kmsg(const char *p, const char *end)
{
	return record_at(p, end) && !nul_separated(p, end);
}

static bool sniff_kmsg_nul(const char *p, const char *end)
{
	return record_at(p, end) && nul_separated(p, end);
}

const struct sl_log_format sl_log_format_kmsg = {
	.id = SPLITLOCK_INPUT_KMSG,
	.name = "kmsg",
	.flags = SL_FORMAT_REPEATS,
	.sniff = sniff_kmsg,
	.start = kmsg_start,
	.line = kmsg_line,
	.finish = kmsg_finish,
};

const struct sl_log_format sl_log_format_kmsg_nul = {
	.id = SPLITLOCK_INPUT_KMSG_NUL,
	.name = "kmsg-nul",
	.flags = SL_FORMAT_REPEATS | SL_FORMAT_HOLDS_NULS | SL_FORMAT_NUL_SEPARATED,
	.sniff = sniff_kmsg_nul,
	.start = kmsg_start,
	.line = kmsg_line,
	.finish = kmsg_finish,
};
