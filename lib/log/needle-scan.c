/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding the first of a few needles in a large buffer in one pass.
 *
 * Saved logs are scanned for the few texts every detector line holds. One
 * memmem() per needle reads the buffer once per needle: on 740 MiB of
 * journal JSON, four of them were 70 % of the run. Here each 16-byte block
 * is read once and, for every needle, compared with its first byte and,
 * 16 bytes further along shifted by its length less one, with its last
 * byte (W. Muła, "SIMD-friendly algorithms for substring searching"); only
 * places where both match are compared in full. Detector text is rare, and
 * so are the candidates.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "log/needle-scan.h"

#ifdef __SSE2__
#include <emmintrin.h>

/* More needles than this take the plain path; every caller has fewer. */
#define MAX_VECTOR_NEEDLES SL_NEEDLES_VECTOR_MAX
_Static_assert(MAX_VECTOR_NEEDLES == 11, "vector_find_any() has a case for each count");

static const char *first_match(const char *at, const char *end,
			       const struct sl_needle *set, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if ((size_t)(end - at) >= set[k].len &&
		    memcmp(at, set[k].text, set[k].len) == 0)
			return at;
	return NULL;
}

/*
 * Inlined for each needle count the callers use, so that the loop over the
 * needles unrolls and every comparison stays in a register.
 */
static inline __attribute__((always_inline)) const char *
vector_find(const char **pp, const char *end, const struct sl_needle *set,
	    size_t n, size_t longest)
{
	__m128i first[MAX_VECTOR_NEEDLES], last[MAX_VECTOR_NEEDLES], rare[MAX_VECTOR_NEEDLES];
	__m128i rare_next[MAX_VECTOR_NEEDLES];
	size_t shift[MAX_VECTOR_NEEDLES], at_rare[MAX_VECTOR_NEEDLES];
	bool pair[MAX_VECTOR_NEEDLES];
	const char *p = *pp;

#pragma GCC unroll 8
	for (size_t k = 0; k < n; k++) {
		first[k] = _mm_set1_epi8(set[k].text[0]);
		last[k] = _mm_set1_epi8(set[k].text[set[k].len - 1]);
		shift[k] = set[k].len - 1;
		at_rare[k] = set[k].anchor < set[k].len ? set[k].anchor : 0;
		rare[k] = _mm_set1_epi8(set[k].text[at_rare[k]]);
		pair[k] = at_rare[k] + 1 < set[k].len;
		rare_next[k] = _mm_set1_epi8(pair[k] ? set[k].text[at_rare[k] + 1] : 0);
	}
	/* Every load, the shifted ones included, stays inside the buffer. */
	while ((size_t)(end - p) >= 16 + longest - 1) {
		__m128i block, seen = _mm_setzero_si128(), any = _mm_setzero_si128();
		unsigned mask;

		/* First each needle's rare pair of bytes at its place: most
		 * blocks stop here. */
#pragma GCC unroll 8
		for (size_t k = 0; k < n; k++) {
			__m128i m = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + at_rare[k])), rare[k]);

			if (pair[k])
				m = _mm_and_si128(m, _mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(p + at_rare[k] + 1)), rare_next[k]));
			seen = _mm_or_si128(seen, m);
		}
		if (!_mm_movemask_epi8(seen)) {
			p += 16;
			continue;
		}
		block = _mm_loadu_si128((const __m128i *)p);

		/* Unrolled: at -O2 gcc keeps a loop, and the needles on the stack. */
#pragma GCC unroll 8
		for (size_t k = 0; k < n; k++) {
			__m128i tail = _mm_loadu_si128((const __m128i *)(p + shift[k]));

			any = _mm_or_si128(any, _mm_and_si128(_mm_cmpeq_epi8(block, first[k]),
							      _mm_cmpeq_epi8(tail, last[k])));
		}
		mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(any, seen));
		while (mask) {
			const char *at = p + __builtin_ctz(mask);

			if (first_match(at, end, set, n))
				return at;
			mask &= mask - 1;
		}
		p += 16;
	}
	*pp = p;
	return NULL;
}

#ifdef __x86_64__
#include <immintrin.h>

/*
 * The rare pairs of all needles at once, 32 places at a time: each byte's
 * two halves look up, in a 16-byte table each (one shuffle), the needles
 * whose rare byte has that half; a needle is a bit, and a place keeps the
 * bits that both halves of both bytes share (the "Teddy" filter of
 * Hyperscan, also in ripgrep's aho-corasick). Twelve vector operations a
 * block whatever the needles are, where the pairs compared one needle at a
 * time took four a needle. A bit shared by two needles (more than eight)
 * lets through more places, never fewer (teddy_buckets()).
 */
struct teddy {
	__m256i lo0, hi0, lo1, hi1;
};

/*
 * The nibbles a needle's rare pair has, one bit each: its first byte's low
 * and high halves, its second's (all sixteen where it has none).
 */
struct pair_nibbles {
	uint16_t lo0, hi0, lo1, hi1;
};

static struct pair_nibbles pair_nibbles_of(const struct sl_needle *nd)
{
	size_t at = nd->anchor < nd->len ? nd->anchor : 0;
	uint8_t c0 = (uint8_t)nd->text[at];
	struct pair_nibbles pn = { (uint16_t)(1u << (c0 & 15)), (uint16_t)(1u << (c0 >> 4)),
				   0xffff, 0xffff };

	if (at + 1 < nd->len) {
		uint8_t c1 = (uint8_t)nd->text[at + 1];

		pn.lo1 = (uint16_t)(1u << (c1 & 15));
		pn.hi1 = (uint16_t)(1u << (c1 >> 4));
	}
	return pn;
}

/* How many pairs of bytes a bucket with these nibbles lets through. */
static unsigned pairs_let_through(struct pair_nibbles b)
{
	return (unsigned)(__builtin_popcount(b.lo0) * __builtin_popcount(b.hi0) *
			  __builtin_popcount(b.lo1) * __builtin_popcount(b.hi1));
}

/*
 * Which of the eight buckets (bits) each needle is: its own for the first
 * eight; a ninth and later shares the bucket that lets through the fewest
 * pairs more with it. A bucket lets through every pair its needles' halves
 * make up: '#' (any byte after it) shared with "- " of "-- " flagged every
 * ISO date's '-'.
 */
static void teddy_buckets(const struct sl_needle *set, size_t n, uint8_t *bucket)
{
	struct pair_nibbles b[8] = { { 0, 0, 0, 0 } };

	for (size_t k = 0; k < n; k++) {
		struct pair_nibbles pn = pair_nibbles_of(&set[k]);
		unsigned best_cost = ~0u;
		size_t best = 0;

		if (k < 8) {
			bucket[k] = (uint8_t)k;
			b[k] = pn;
			continue;
		}
		for (size_t i = 0; i < 8; i++) {
			struct pair_nibbles u = { b[i].lo0 | pn.lo0, b[i].hi0 | pn.hi0,
						  b[i].lo1 | pn.lo1, b[i].hi1 | pn.hi1 };
			unsigned cost = pairs_let_through(u) - pairs_let_through(b[i]);

			if (cost < best_cost) {
				best_cost = cost;
				best = i;
			}
		}
		bucket[k] = (uint8_t)best;
		b[best].lo0 |= pn.lo0;
		b[best].hi0 |= pn.hi0;
		b[best].lo1 |= pn.lo1;
		b[best].hi1 |= pn.hi1;
	}
}

static inline __attribute__((always_inline, target("avx2"))) void
teddy_init(struct teddy *t, const struct sl_needle *set, size_t n)
{
	uint8_t lo0[16] = { 0 }, hi0[16] = { 0 }, lo1[16] = { 0 }, hi1[16] = { 0 };
	uint8_t bucket[MAX_VECTOR_NEEDLES];

	teddy_buckets(set, n, bucket);
	for (size_t k = 0; k < n; k++) {
		size_t at = set[k].anchor < set[k].len ? set[k].anchor : 0;
		uint8_t bit = (uint8_t)(1u << bucket[k]);
		uint8_t c0 = (uint8_t)set[k].text[at];

		lo0[c0 & 15] |= bit;
		hi0[c0 >> 4] |= bit;
		if (at + 1 < set[k].len) {
			uint8_t c1 = (uint8_t)set[k].text[at + 1];

			lo1[c1 & 15] |= bit;
			hi1[c1 >> 4] |= bit;
		} else {
			/* A needle's last byte alone: any byte may follow. */
			for (int i = 0; i < 16; i++) {
				lo1[i] |= bit;
				hi1[i] |= bit;
			}
		}
	}
	t->lo0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lo0));
	t->hi0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)hi0));
	t->lo1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lo1));
	t->hi1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)hi1));
}

/* Whether some needle's rare pair begins in [q, q + 32); reads q[32]. */
static inline __attribute__((always_inline, target("avx2"))) bool
teddy_any(const struct teddy *t, const char *q)
{
	const __m256i nibble = _mm256_set1_epi8(0x0f);
	__m256i b0 = _mm256_loadu_si256((const __m256i *)q);
	__m256i b1 = _mm256_loadu_si256((const __m256i *)(q + 1));
	__m256i m0 = _mm256_and_si256(
		_mm256_shuffle_epi8(t->lo0, _mm256_and_si256(b0, nibble)),
		_mm256_shuffle_epi8(t->hi0, _mm256_and_si256(_mm256_srli_epi16(b0, 4), nibble)));
	__m256i m1 = _mm256_and_si256(
		_mm256_shuffle_epi8(t->lo1, _mm256_and_si256(b1, nibble)),
		_mm256_shuffle_epi8(t->hi1, _mm256_and_si256(_mm256_srli_epi16(b1, 4), nibble)));

	return !_mm256_testz_si256(m0, m1);
}

/*
 * The same on 32-byte blocks where the CPU has AVX2 (chosen at run time:
 * the build targets baseline x86-64): half the blocks, the scan's main
 * cost once the needles are five. The places where a needle may start in
 * a block have their rare pairs in it or in the next one (anchors are
 * below 32): a block is looked at closer only where the Teddy filter
 * flags one of the two.
 */
static inline __attribute__((always_inline, target("avx2"))) const char *
vector_find_avx2(const char **pp, const char *end, const struct sl_needle *set,
		 size_t n, size_t longest)
{
	__m256i first[MAX_VECTOR_NEEDLES], last[MAX_VECTOR_NEEDLES], rare[MAX_VECTOR_NEEDLES];
	__m256i rare_next[MAX_VECTOR_NEEDLES];
	size_t shift[MAX_VECTOR_NEEDLES], at_rare[MAX_VECTOR_NEEDLES];
	bool pair[MAX_VECTOR_NEEDLES];
	const char *p = *pp;
	struct teddy t;
	bool flagged, flagged_next;
	/* The filter of the next block reads up to 65 bytes on. */
	size_t room = 32 + longest - 1 > 65 ? 32 + longest - 1 : 65;

#pragma GCC unroll 8
	for (size_t k = 0; k < n; k++) {
		first[k] = _mm256_set1_epi8(set[k].text[0]);
		last[k] = _mm256_set1_epi8(set[k].text[set[k].len - 1]);
		shift[k] = set[k].len - 1;
		at_rare[k] = set[k].anchor < set[k].len ? set[k].anchor : 0;
		rare[k] = _mm256_set1_epi8(set[k].text[at_rare[k]]);
		pair[k] = at_rare[k] + 1 < set[k].len;
		rare_next[k] = _mm256_set1_epi8(pair[k] ? set[k].text[at_rare[k] + 1] : 0);
		/* The filter's next block holds no pair further on. */
		if (at_rare[k] >= 32)
			return NULL;
	}
	if ((size_t)(end - p) < room)
		return NULL;
	teddy_init(&t, set, n);
	flagged = teddy_any(&t, p);
	while ((size_t)(end - p) >= room) {
		__m256i block, seen = _mm256_setzero_si256(), any = _mm256_setzero_si256();
		unsigned mask;

		flagged_next = teddy_any(&t, p + 32);
		if (!flagged && !flagged_next) {
			p += 32;
			continue;
		}
		flagged = flagged_next;

#pragma GCC unroll 8
		for (size_t k = 0; k < n; k++) {
			__m256i m = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + at_rare[k])), rare[k]);

			if (pair[k])
				m = _mm256_and_si256(m, _mm256_cmpeq_epi8(
					_mm256_loadu_si256((const __m256i *)(p + at_rare[k] + 1)), rare_next[k]));
			seen = _mm256_or_si256(seen, m);
		}
		if (_mm256_testz_si256(seen, seen)) {
			p += 32;
			continue;
		}
		block = _mm256_loadu_si256((const __m256i *)p);

#pragma GCC unroll 8
		for (size_t k = 0; k < n; k++) {
			__m256i tail = _mm256_loadu_si256((const __m256i *)(p + shift[k]));

			any = _mm256_or_si256(any, _mm256_and_si256(_mm256_cmpeq_epi8(block, first[k]),
								    _mm256_cmpeq_epi8(tail, last[k])));
		}
		mask = (unsigned)_mm256_movemask_epi8(_mm256_and_si256(any, seen));
		while (mask) {
			const char *at = p + __builtin_ctz(mask);

			if (first_match(at, end, set, n))
				return at;
			mask &= mask - 1;
		}
		p += 32;
	}
	*pp = p;
	return NULL;
}

static __attribute__((target("avx2"))) const char *
avx2_find_any(const char **pp, const char *end, const struct sl_needle *set,
	      size_t n, size_t longest)
{
	/* A constant count in each: the loops over the needles unroll. */
	switch (n) {
	case 1: return vector_find_avx2(pp, end, set, 1, longest);
	case 2: return vector_find_avx2(pp, end, set, 2, longest);
	case 3: return vector_find_avx2(pp, end, set, 3, longest);
	case 4: return vector_find_avx2(pp, end, set, 4, longest);
	case 5: return vector_find_avx2(pp, end, set, 5, longest);
	case 6: return vector_find_avx2(pp, end, set, 6, longest);
	case 7: return vector_find_avx2(pp, end, set, 7, longest);
	case 8: return vector_find_avx2(pp, end, set, 8, longest);
	case 9: return vector_find_avx2(pp, end, set, 9, longest);
	case 10: return vector_find_avx2(pp, end, set, 10, longest);
	default: return vector_find_avx2(pp, end, set, MAX_VECTOR_NEEDLES, longest);
	}
}

/* Asked once; threads of a program may race to ask, with one answer. */
static bool have_avx2(void)
{
	static int have = -1;
	int h = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (h < 0) {
		__builtin_cpu_init();
		h = __builtin_cpu_supports("avx2") ? 1 : 0;
		__atomic_store_n(&have, h, __ATOMIC_RELAXED);
	}
	return h;
}
#endif

static const char *vector_find_any(const char **pp, const char *end,
				   const struct sl_needle *set, size_t n,
				   size_t longest)
{
#ifdef __x86_64__
	if (have_avx2()) {
		const char *hit = avx2_find_any(pp, end, set, n, longest);

		/* The tail shorter than a 32-byte block: 16-byte ones below. */
		if (hit)
			return hit;
	}
#endif
	/* A constant count in each: the loops over the needles unroll. */
	switch (n) {
	case 1: return vector_find(pp, end, set, 1, longest);
	case 2: return vector_find(pp, end, set, 2, longest);
	case 3: return vector_find(pp, end, set, 3, longest);
	case 4: return vector_find(pp, end, set, 4, longest);
	case 5: return vector_find(pp, end, set, 5, longest);
	case 6: return vector_find(pp, end, set, 6, longest);
	case 7: return vector_find(pp, end, set, 7, longest);
	case 8: return vector_find(pp, end, set, 8, longest);
	case 9: return vector_find(pp, end, set, 9, longest);
	case 10: return vector_find(pp, end, set, 10, longest);
	default: return vector_find(pp, end, set, MAX_VECTOR_NEEDLES, longest);
	}
}
#endif

const char *sl_needle_find(const char *p, const char *end,
			   const struct sl_needle *set, size_t n)
{
	const char *best = NULL;
	size_t longest = 1;

	if (p >= end || n == 0)
		return NULL;
	for (size_t k = 0; k < n; k++)
		if (set[k].len > longest)
			longest = set[k].len;
#ifdef __SSE2__
	if (n <= MAX_VECTOR_NEEDLES) {
		const char *hit = vector_find_any(&p, end, set, n, longest);

		if (hit)
			return hit;
	}
#endif
	/* The short tail, or no vector unit: one search per needle. */
	for (size_t k = 0; k < n; k++) {
		/* Only a start before the best so far can beat it. */
		size_t window = (size_t)(end - p);
		const char *hit;

		if (best) {
			window = (size_t)(best - p) + set[k].len - 1;
			if (window > (size_t)(end - p))
				window = (size_t)(end - p);
		}
		if (set[k].len == 1)
			hit = memchr(p, set[k].text[0], window);
		else
			hit = memmem(p, window, set[k].text, set[k].len);
		if (hit && (!best || hit < best))
			best = hit;
	}
	return best;
}

/*
 * Counting a byte (line numbers of a saved log), or a byte followed by
 * another (the continuation lines of a saved /dev/kmsg, "\n "): compares
 * and subtracts 32 or 16 bytes at a time into byte counters that are
 * summed before they can wrap. gcc's vectorized C loop took six times
 * the instructions; finding each "\n " with sl_needle_find() cost as much
 * as the needle scan of the whole file, '\n' being in most blocks.
 * Pairs are counted in the same pass as the byte; the vector loops stop
 * a byte early then, so that the load of the following bytes stays in
 * [p, end).
 */
#if defined(__SSE2__) && defined(__x86_64__)
static inline __attribute__((always_inline, target("avx2"))) void
sum256(uint64_t *n, __m256i acc)
{
	__m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());

	*n += (uint64_t)_mm256_extract_epi64(sums, 0) + (uint64_t)_mm256_extract_epi64(sums, 1) +
	      (uint64_t)_mm256_extract_epi64(sums, 2) + (uint64_t)_mm256_extract_epi64(sums, 3);
}

/* Bytes of @x in [lo, lo + span] (unsigned): 0xff where they are. */
static inline __attribute__((always_inline, target("avx2"))) __m256i
in_range256(__m256i x, __m256i lo, __m256i span)
{
	__m256i t = _mm256_sub_epi8(x, lo);

	return _mm256_cmpeq_epi8(_mm256_min_epu8(t, span), t);
}

static inline __attribute__((always_inline, target("avx2"))) void
count_avx2(const char **pp, const char *end, char a, char b, char c, struct sl_byte_counts *n,
	   bool pairs, bool closing)
{
	const __m256i va = _mm256_set1_epi8(a), vb = _mm256_set1_epi8(b), vc = _mm256_set1_epi8(c);
	const __m256i zero = _mm256_setzero_si256();
	const char *p = *pp;
	const ptrdiff_t stop = pairs ? 33 : 32;

	while (end - p >= stop) {
		__m256i acc_a = zero, acc_b = zero, acc_pairs = zero, acc_closing = zero;
		/* 255 blocks at most: a byte counter holds 255. */
		size_t blocks = (size_t)(end - p - (stop - 32)) / 32;

		if (blocks > 255)
			blocks = 255;
#pragma GCC unroll 4
		for (size_t i = 0; i < blocks; i++, p += 32) {
			__m256i block = _mm256_loadu_si256((const __m256i *)p);
			__m256i m = _mm256_cmpeq_epi8(block, va);

			acc_a = _mm256_sub_epi8(acc_a, m);
			if (pairs) {
				__m256i after = _mm256_loadu_si256((const __m256i *)(p + 1));
				__m256i next = _mm256_cmpeq_epi8(after, vb);

				acc_b = _mm256_sub_epi8(acc_b, _mm256_cmpeq_epi8(block, vb));
				acc_pairs = _mm256_sub_epi8(acc_pairs, _mm256_and_si256(m, next));
				if (closing)
					acc_closing = _mm256_sub_epi8(acc_closing, _mm256_and_si256(
						_mm256_cmpeq_epi8(block, vc), _mm256_cmpeq_epi8(after, va)));
			}
		}
		sum256(&n->a, acc_a);
		if (pairs) {
			sum256(&n->b, acc_b);
			sum256(&n->pairs, acc_pairs);
		}
		if (closing)
			sum256(&n->closing, acc_closing);
	}
	*pp = p;
}

static __attribute__((target("avx2"))) void
count_avx2_pairs(const char **pp, const char *end, char a, char b, struct sl_byte_counts *n, bool pairs)
{
	count_avx2(pp, end, a, b, 0, n, pairs, false);
}

static __attribute__((target("avx2"))) void
count_avx2_closing(const char **pp, const char *end, char a, char b, char c, struct sl_byte_counts *n)
{
	count_avx2(pp, end, a, b, c, n, true, true);
}

static inline void sum128(uint64_t *n, __m128i acc)
{
	__m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());

	*n += (uint64_t)_mm_cvtsi128_si64(sums) +
	      (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
}
#endif

/* @a's, and where @pairs @b's and @a's with @b after them, and where
 * @closing @c's with @a after them, into @n. */
static inline __attribute__((always_inline)) void
count(const char *p, const char *end, char a, char b, char c,
      struct sl_byte_counts *n, bool pairs, bool closing)
{
	*n = (struct sl_byte_counts){ 0 };
#if defined(__SSE2__) && defined(__x86_64__)
	if (have_avx2()) {
		if (closing)
			count_avx2_closing(&p, end, a, b, c, n);
		else
			count_avx2_pairs(&p, end, a, b, n, pairs);
	}
	{
		const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
		const __m128i zero = _mm_setzero_si128();
		const ptrdiff_t stop = pairs ? 17 : 16;

		while (end - p >= stop) {
			__m128i acc_a = zero, acc_b = zero, acc_pairs = zero, acc_closing = zero;
			size_t blocks = (size_t)(end - p - (stop - 16)) / 16;

			if (blocks > 255)
				blocks = 255;
			for (size_t i = 0; i < blocks; i++, p += 16) {
				__m128i block = _mm_loadu_si128((const __m128i *)p);
				__m128i m = _mm_cmpeq_epi8(block, va);

				acc_a = _mm_sub_epi8(acc_a, m);
				if (pairs) {
					__m128i after = _mm_loadu_si128((const __m128i *)(p + 1));

					acc_b = _mm_sub_epi8(acc_b, _mm_cmpeq_epi8(block, vb));
					acc_pairs = _mm_sub_epi8(acc_pairs, _mm_and_si128(m, _mm_cmpeq_epi8(after, vb)));
					if (closing)
						acc_closing = _mm_sub_epi8(acc_closing, _mm_and_si128(
							_mm_cmpeq_epi8(block, vc), _mm_cmpeq_epi8(after, va)));
				}
			}
			sum128(&n->a, acc_a);
			if (pairs) {
				sum128(&n->b, acc_b);
				sum128(&n->pairs, acc_pairs);
			}
			if (closing)
				sum128(&n->closing, acc_closing);
		}
	}
#endif
	for (; p < end; p++) {
		n->a += *p == a;
		if (pairs) {
			n->b += *p == b;
			n->pairs += *p == a && p + 1 < end && p[1] == b;
		}
		if (closing)
			n->closing += *p == c && p + 1 < end && p[1] == a;
	}
}

uint64_t sl_count_byte(const char *p, const char *end, char c)
{
	struct sl_byte_counts n;

	count(p, end, c, 0, 0, &n, false, false);
	return n.a;
}

void sl_count_bytes(const char *p, const char *end, char a, char b, struct sl_byte_counts *n)
{
	count(p, end, a, b, 0, n, true, false);
}

void sl_count_framed(const char *p, const char *end, char a, char b, char c, struct sl_byte_counts *n)
{
	count(p, end, a, b, c, n, true, true);
}

/*
 * A line that begins as a saved /dev/kmsg record does: "PRI," with a PRI
 * of one to three digits. (A PRI is at most 191; a line of other text that
 * begins with a digit, an ISO stamp or a number, has no comma there.)
 * dK: the line's K-th byte is a digit, cK: a comma.
 */
#define RECORD_START(d1, d2, d3, c2, c3, c4) ((d1) & ((c2) | ((d2) & ((c3) | ((d3) & (c4))))))

#if defined(__SSE2__) && defined(__x86_64__)
static __attribute__((target("avx2"))) uint64_t
count_record_starts_avx2(const char **pp, const char *end, char sep)
{
	const __m256i vsep = _mm256_set1_epi8(sep), comma = _mm256_set1_epi8(',');
	const __m256i zero_digit = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
	const char *p = *pp;
	uint64_t n = 0;

	while (end - p >= 36) {
		__m256i acc = _mm256_setzero_si256();
		size_t blocks = (size_t)(end - p - 4) / 32;

		if (blocks > 255)
			blocks = 255;
		for (size_t i = 0; i < blocks; i++, p += 32) {
#define LOAD(k) _mm256_loadu_si256((const __m256i *)(p + (k)))
			__m256i s = _mm256_cmpeq_epi8(LOAD(0), vsep);
			__m256i b2 = LOAD(2), b3 = LOAD(3);
			__m256i d1 = in_range256(LOAD(1), zero_digit, nine);
			__m256i d2 = in_range256(b2, zero_digit, nine);
			__m256i d3 = in_range256(b3, zero_digit, nine);
			__m256i c2 = _mm256_cmpeq_epi8(b2, comma);
			__m256i c3 = _mm256_cmpeq_epi8(b3, comma);
			__m256i c4 = _mm256_cmpeq_epi8(LOAD(4), comma);
#undef LOAD
			__m256i r = _mm256_and_si256(s, RECORD_START(d1, d2, d3, c2, c3, c4));

			acc = _mm256_sub_epi8(acc, r);
		}
		sum256(&n, acc);
	}
	*pp = p;
	return n;
}
#endif

uint64_t sl_count_record_starts(const char *p, const char *end, char sep)
{
	uint64_t n = 0;

#if defined(__SSE2__) && defined(__x86_64__)
	if (have_avx2())
		n = count_record_starts_avx2(&p, end, sep);
#endif
	for (; p < end; p++) {
		if (*p != sep || end - p < 3 || p[1] < '0' || p[1] > '9')
			continue;
		n += RECORD_START(1, p[2] >= '0' && p[2] <= '9',
				  end - p > 3 && p[3] >= '0' && p[3] <= '9', p[2] == ',',
				  end - p > 3 && p[3] == ',', end - p > 4 && p[4] == ',');
	}
	return n;
}
