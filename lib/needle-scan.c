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
#include <string.h>

#include "needle-scan.h"

#ifdef __SSE2__
#include <emmintrin.h>

/* More needles than this take the plain path; every caller has fewer. */
#define MAX_VECTOR_NEEDLES 8

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
	__m128i first[MAX_VECTOR_NEEDLES], last[MAX_VECTOR_NEEDLES];
	size_t shift[MAX_VECTOR_NEEDLES];
	const char *p = *pp;

	for (size_t k = 0; k < n; k++) {
		first[k] = _mm_set1_epi8(set[k].text[0]);
		last[k] = _mm_set1_epi8(set[k].text[set[k].len - 1]);
		shift[k] = set[k].len - 1;
	}
	/* Every load, the shifted ones included, stays inside the buffer. */
	while ((size_t)(end - p) >= 16 + longest - 1) {
		__m128i block = _mm_loadu_si128((const __m128i *)p);
		__m128i any = _mm_setzero_si128();
		unsigned mask;

		for (size_t k = 0; k < n; k++) {
			__m128i tail = _mm_loadu_si128((const __m128i *)(p + shift[k]));

			any = _mm_or_si128(any, _mm_and_si128(_mm_cmpeq_epi8(block, first[k]),
							      _mm_cmpeq_epi8(tail, last[k])));
		}
		mask = (unsigned)_mm_movemask_epi8(any);
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
	__m256i first[MAX_VECTOR_NEEDLES], last[MAX_VECTOR_NEEDLES];
	size_t shift[MAX_VECTOR_NEEDLES];
	const char *p = *pp;

	for (size_t k = 0; k < n; k++) {
		first[k] = _mm256_set1_epi8(set[k].text[0]);
		last[k] = _mm256_set1_epi8(set[k].text[set[k].len - 1]);
		shift[k] = set[k].len - 1;
	}
	while ((size_t)(end - p) >= 32 + longest - 1) {
		__m256i block = _mm256_loadu_si256((const __m256i *)p);
		__m256i any = _mm256_setzero_si256();
		unsigned mask;

		for (size_t k = 0; k < n; k++) {
			__m256i tail = _mm256_loadu_si256((const __m256i *)(p + shift[k]));

			any = _mm256_or_si256(any, _mm256_and_si256(_mm256_cmpeq_epi8(block, first[k]),
								    _mm256_cmpeq_epi8(tail, last[k])));
		}
		mask = (unsigned)_mm256_movemask_epi8(any);
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
	switch (n) {
	case 4:
		return vector_find_avx2(pp, end, set, 4, longest);
	case 5:
		return vector_find_avx2(pp, end, set, 5, longest);
	case 6:
		return vector_find_avx2(pp, end, set, 6, longest);
	default:
		return vector_find_avx2(pp, end, set, n, longest);
	}
}

static bool have_avx2(void)
{
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx2") ? 1 : 0;
	}
	return have;
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
	switch (n) {
	case 4:
		return vector_find(pp, end, set, 4, longest);
	case 5:
		return vector_find(pp, end, set, 5, longest);
	case 6:
		return vector_find(pp, end, set, 6, longest);
	default:
		return vector_find(pp, end, set, n, longest);
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
