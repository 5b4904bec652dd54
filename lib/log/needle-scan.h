/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SLCTL_NEEDLE_SCAN_H
#define SLCTL_NEEDLE_SCAN_H

#include <stddef.h>
#include <stdint.h>

struct sl_needle {
	const char *text;
	size_t len; /* >= 1 */
	/*
	 * Where in the text a pair of bytes rare in logs begins (0: the
	 * first byte; the last byte: that byte alone): a block of the buffer
	 * is looked at closer only where some needle's rare pair stands at
	 * its place. Any place is correct; a rare pair makes the scan faster.
	 * A single byte flagged a third of the blocks of a kernel log ('k'
	 * of "lock" is in 1 % of its bytes), a pair of them a tenth.
	 */
	size_t anchor;
};

/* Sets of more needles than this are searched one needle at a time,
 * several times slower: each set of the readers' is held to it. */
#define SL_NEEDLES_VECTOR_MAX 11

/*
 * The earliest place in [p, end) where any of the n needles starts, or NULL.
 * One pass over the buffer whatever n is; see needle-scan.c.
 */
const char *sl_needle_find(const char *p, const char *end,
			   const struct sl_needle *set, size_t n);

/* How many bytes of [p, end) are @c (vectorized). */
uint64_t sl_count_byte(const char *p, const char *end, char c);

/* How many bytes of [p, end) are @a, how many @b, and how many are @a
 * with @b after it, in one pass (vectorized). */
struct sl_byte_counts {
	uint64_t a, b, pairs;
	uint64_t closing; /* sl_count_framed(): @c with @a after it */
};
void sl_count_bytes(const char *p, const char *end, char a, char b, struct sl_byte_counts *n);
/* The same, and how many are @c with @a after it (lines that begin with
 * @b and end with @c, @a ending lines: '\n', '{', '}'), in the same pass. */
void sl_count_framed(const char *p, const char *end, char a, char b, char c, struct sl_byte_counts *n);
/* How many @sep bytes of [p, end) a line follows that begins as a saved
 * /dev/kmsg record does: one to three digits (its PRI) and a comma. */
uint64_t sl_count_record_starts(const char *p, const char *end, char sep);

#endif
