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
_Static_assert(MAX_VECTOR_NEEDLES == 10, "vector_find_any() has a case for each count");

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
 * The same on 32-byte blocks where the CPU has AVX2 (chosen at run time:
 * the build targets baseline x86-64): half the blocks, the scan's main
 * cost once the needles are five.
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

#pragma GCC unroll 8
	for (size_t k = 0; k < n; k++) {
		first[k] = _mm256_set1_epi8(set[k].text[0]);
		last[k] = _mm256_set1_epi8(set[k].text[set[k].len - 1]);
		shift[k] = set[k].len - 1;
		at_rare[k] = set[k].anchor < set[k].len ? set[k].anchor : 0;
		rare[k] = _mm256_set1_epi8(set[k].text[at_rare[k]]);
		pair[k] = at_rare[k] + 1 < set[k].len;
		rare_next[k] = _mm256_set1_epi8(pair[k] ? set[k].text[at_rare[k] + 1] : 0);
	}
	while ((size_t)(end - p) >= 32 + longest - 1) {
		__m256i block, seen = _mm256_setzero_si256(), any = _mm256_setzero_si256();
		unsigned mask;

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

static __attribute__((target("avx2"))) void
count_avx2(const char **pp, const char *end, char a, char b, struct sl_byte_counts *n, bool pairs)
{
	const __m256i va = _mm256_set1_epi8(a), vb = _mm256_set1_epi8(b);
	const __m256i zero = _mm256_setzero_si256();
	const char *p = *pp;
	const ptrdiff_t stop = pairs ? 33 : 32;

	while (end - p >= stop) {
		__m256i acc_a = zero, acc_b = zero, acc_pairs = zero;
		/* 255 blocks at most: a byte counter holds 255. */
		size_t blocks = (size_t)(end - p - (stop - 32)) / 32;

		if (blocks > 255)
			blocks = 255;
#pragma GCC unroll 4
		for (size_t i = 0; i < blocks; i++, p += 32) {
			__m256i m = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)p), va);

			acc_a = _mm256_sub_epi8(acc_a, m);
			if (pairs) {
				__m256i next = _mm256_cmpeq_epi8(
					_mm256_loadu_si256((const __m256i *)(p + 1)), vb);

				acc_b = _mm256_sub_epi8(acc_b, _mm256_cmpeq_epi8(
					_mm256_loadu_si256((const __m256i *)p), vb));
				acc_pairs = _mm256_sub_epi8(acc_pairs, _mm256_and_si256(m, next));
			}
		}
		sum256(&n->a, acc_a);
		if (pairs) {
			sum256(&n->b, acc_b);
			sum256(&n->pairs, acc_pairs);
		}
	}
	*pp = p;
}

static inline void sum128(uint64_t *n, __m128i acc)
{
	__m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());

	*n += (uint64_t)_mm_cvtsi128_si64(sums) +
	      (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
}
#endif

/* @a's, and where @pairs @b's and @a's with @b after them, into @n. */
static inline void count(const char *p, const char *end, char a, char b,
			 struct sl_byte_counts *n, bool pairs)
{
	*n = (struct sl_byte_counts){ 0 };
#if defined(__SSE2__) && defined(__x86_64__)
	if (have_avx2())
		count_avx2(&p, end, a, b, n, pairs);
	{
		const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
		const __m128i zero = _mm_setzero_si128();
		const ptrdiff_t stop = pairs ? 17 : 16;

		while (end - p >= stop) {
			__m128i acc_a = zero, acc_b = zero, acc_pairs = zero;
			size_t blocks = (size_t)(end - p - (stop - 16)) / 16;

			if (blocks > 255)
				blocks = 255;
			for (size_t i = 0; i < blocks; i++, p += 16) {
				__m128i block = _mm_loadu_si128((const __m128i *)p);
				__m128i m = _mm_cmpeq_epi8(block, va);

				acc_a = _mm_sub_epi8(acc_a, m);
				if (pairs) {
					acc_b = _mm_sub_epi8(acc_b, _mm_cmpeq_epi8(block, vb));
					acc_pairs = _mm_sub_epi8(acc_pairs, _mm_and_si128(m, _mm_cmpeq_epi8(
						_mm_loadu_si128((const __m128i *)(p + 1)), vb)));
				}
			}
			sum128(&n->a, acc_a);
			if (pairs) {
				sum128(&n->b, acc_b);
				sum128(&n->pairs, acc_pairs);
			}
		}
	}
#endif
	for (; p < end; p++) {
		n->a += *p == a;
		if (pairs) {
			n->b += *p == b;
			n->pairs += *p == a && p + 1 < end && p[1] == b;
		}
	}
}

uint64_t sl_count_byte(const char *p, const char *end, char c)
{
	struct sl_byte_counts n;

	count(p, end, c, 0, &n, false);
	return n.a;
}

void sl_count_bytes(const char *p, const char *end, char a, char b, struct sl_byte_counts *n)
{
	count(p, end, a, b, n, true);
}
