/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/kmsg records saved to a file: one a line with " KEY=VALUE"
 * continuation lines, or NUL-separated (kmsg-nul; log-input.c splits the
 * lines either way). A record is parsed by splitlock_kmsg_parse_record()
 * (kmsg.c), the one reader of that form, which the live reader uses too.
 */
#include <errno.h>

#include "log-format.h"

static uint64_t record_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

/*
 * Has this record been read already? SEQ numbers every record of a boot
 * in order, and starts again at each boot. A record at or below the
 * highest SEQ read is a repeat when it is the very record read with that
 * SEQ (the same bytes: stamp, level, message); anything else there is a
 * new boot's record, and the boot's sequence goes on from it. So an
 * overlapping second dump of the same boot is read once, and a later
 * boot's records, whose SEQs repeat the earlier boot's, all count.
 */
static int seen_before(struct sl_kmsg_seen *s, uint64_t seq, const char *line, size_t len)
{
	uint64_t hash = record_hash(line, len);
	size_t lo = 0, hi = s->n;

	if (s->n && seq <= s->records[s->n - 1].seq) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->records[mid].seq < seq)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->n && s->records[lo].seq == seq && s->records[lo].hash == hash) {
			s->repeats++;
			return 1;
		}
		/* Another boot: its records below this one were the earlier
		 * boot's very records (the same first lines), and stay. */
		s->n = lo;
	}
	if (s->n == s->allocated) {
		size_t n = s->allocated ? s->allocated * 2 : 256;
		struct sl_kmsg_seen_record *r = reallocarray(s->records, n, sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->records = r;
		s->allocated = n;
	}
	s->records[s->n++] = (struct sl_kmsg_seen_record){ .seq = seq, .hash = hash };
	return 0;
}

int sl_kmsg_line(struct sl_reader *rd, const char *line, size_t len)
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
	if (rd->kmsg_seen) {
		int seen = seen_before(rd->kmsg_seen, r.rec.seq, line, len);

		if (seen)
			return seen < 0 ? seen : 0;
	}
	r.line = rd->line;
	r.mono_usec = r.rec.usec > INT64_MAX ? SPLITLOCK_TIME_UNKNOWN
					     : (int64_t)r.rec.usec;
	return rd->fn(&r, rd->data);
}
