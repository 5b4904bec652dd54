/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one-pass search for the first of several needles (lib/log/needle-scan.c). */
#include "log/needle-scan.h"
#include "test.h"

/* What the scanner must agree with: the earliest memmem() of any needle. */
static const char *naive(const char *p, const char *end,
			 const struct sl_needle *set, size_t n)
{
	const char *best = NULL;

	for (size_t k = 0; k < n; k++) {
		const char *hit = memmem(p, (size_t)(end - p), set[k].text, set[k].len);

		if (hit && (!best || hit < best))
			best = hit;
	}
	return best;
}

static const struct sl_needle set[] = {
	{ "#", 1, 0 },
	{ "callbacks suppressed", 20, 19 },
	{ "alignment check", 15, 0 },
	{ "\":[", 3, 2 },
};
#define N (sizeof(set) / sizeof(set[0]))

TEST(finds_each_needle_at_every_offset_and_length)
{
	char buf[160];

	for (size_t k = 0; k < N; k++)
		for (size_t len = set[k].len; len <= sizeof(buf); len += 7)
			for (size_t at = 0; at + set[k].len <= len; at++) {
				memset(buf, 'x', sizeof(buf));
				memcpy(buf + at, set[k].text, set[k].len);
				CHECK(sl_needle_find(buf, buf + len, set, N) == buf + at);
			}
}

TEST(a_needle_cut_by_the_end_is_not_found)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	memcpy(buf + 50, "alignment check", 14);
	CHECK(sl_needle_find(buf, buf + 64, set, N) == NULL);
	memcpy(buf + 40, "callbacks suppressed", 20);
	CHECK(sl_needle_find(buf, buf + 59, set, N) == NULL);
	CHECK(sl_needle_find(buf, buf + 60, set, N) == buf + 40);
}

TEST(the_earliest_of_overlapping_needles_wins)
{
	const char text[] = "................................"
			    "alignment check ....# callbacks suppressed";
	const char *end = text + sizeof(text) - 1;

	CHECK(sl_needle_find(text, end, set, N) == text + 32);
	CHECK(sl_needle_find(text + 33, end, set, N) == strchr(text, '#'));
}

TEST(agrees_with_memmem_on_random_text)
{
	static char buf[4096];
	/* Letters of the needles, so partial matches are everywhere. */
	static const char alphabet[] = "#\":[ aclignmentsupr";
	unsigned seed = 12345;

	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(seed % sizeof(buf));

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		/* Plant a needle now and then, the rest is noise. */
		if (round % 3 == 0 && len > 40) {
			const struct sl_needle *nd = &set[round % N];

			memcpy(buf + (seed >> 8) % (len - 20), nd->text, nd->len);
		}
		for (size_t start = 0; start < len; start += 1 + len / 5)
			CHECK(sl_needle_find(buf + start, buf + len, set, N) ==
			      naive(buf + start, buf + len, set, N));
		seed = seed * 1103515245u + 12345u;
	}
}

TEST(empty_buffer_and_no_needles)
{
	const char text[] = "#";

	CHECK(sl_needle_find(text, text, set, N) == NULL);
	CHECK(sl_needle_find(text, text + 1, set, 0) == NULL);
	CHECK(sl_needle_find(text, text + 1, set, 1) == text);
}

/* Each count of needles has its own unrolled scan: all of them, 1 to 9, with their rare pairs. */
TEST(every_count_of_needles_agrees_with_memmem)
{
	static const struct sl_needle many[] = {
		/* Rare pairs anywhere in the text, as log/format.h has them,
		 * and a needle's last byte alone. */
		{ "#", 1, 0 }, { "lock detection", 14, 9 }, { "_lock", 5, 0 },
		{ "alignment check", 15, 4 }, { "\":[", 3, 2 }, { "\" : [", 5, 4 },
		{ "-- Boot ", 8, 3 }, { "xy", 2, 1 }, { "zzz", 3, 1 }, { "x86/", 4, 2 },
		{ "...", 3, 1 },
	};
	static char buf[600];
	static const char alphabet[] = "#\":[ _-Blockdetinagmhxyz86/.";
	unsigned seed = 777;

	for (size_t n = 1; n <= sizeof(many) / sizeof(many[0]); n++)
		for (int round = 0; round < 300; round++) {
			size_t len = (size_t)(seed % sizeof(buf));

			for (size_t i = 0; i < len; i++) {
				seed = seed * 1103515245u + 12345u;
				buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
			}
			if (round % 2 == 0 && len > 40) {
				const struct sl_needle *nd = &many[round % n];

				memcpy(buf + (seed >> 8) % (len - 20), nd->text, nd->len);
			}
			for (size_t start = 0; start < len; start += 1 + len / 7)
				CHECK(sl_needle_find(buf + start, buf + len, many, n) ==
				      naive(buf + start, buf + len, many, n));
			seed = seed * 1103515245u + 12345u;
		}
}

/*
 * The pair filter looks 32 places ahead of a block: needles whose rare
 * pair stands far into them (31: the last place it reaches; 40: past it,
 * the plain scan), at every offset of a buffer long enough for several
 * blocks, found where they start and never before.
 */
TEST(needles_whose_rare_pair_stands_far_in_are_found_at_every_offset)
{
	static const struct sl_needle far[] = {
		{ "0123456789abcdefghijklmnopqrstuvwxyz", 36, 31 },
		{ "zyxwvutsrqponmlkjihgfedcba9876543210ABCDEFGH", 44, 40 },
		{ "#", 1, 0 },
	};
	char buf[300];

	for (size_t set_n = 1; set_n <= 3; set_n++)
		for (size_t k = 0; k < set_n && k < 2; k++)
			for (size_t at = 0; at + far[k].len <= sizeof(buf); at++) {
				memset(buf, '.', sizeof(buf));
				memcpy(buf + at, far[k].text, far[k].len);
				for (size_t start = 0; start <= at; start += 13) {
					CHECK(sl_needle_find(buf + start, buf + sizeof(buf), far, set_n) ==
					      buf + at);
				}
				/* Its rare pair alone is no match. */
				memset(buf + at, '.', far[k].anchor);
				CHECK(sl_needle_find(buf, buf + sizeof(buf), far, set_n) == NULL);
			}
}

/* Eleven needles share the filter's eight bits: more places flagged, none
 * missed, a needle without a pair ("u") among them. */
TEST(eleven_needles_sharing_the_filter_bits_agree_with_memmem)
{
	static const struct sl_needle ten[] = {
		{ "u", 1, 0 }, { "ab", 2, 0 }, { "cd", 2, 0 }, { "ef", 2, 1 }, { "gh", 2, 0 }, { "ij", 2, 0 },
		{ "kl", 2, 0 }, { "mn", 2, 0 }, { "op", 2, 0 }, { "qr", 2, 0 }, { "st", 2, 0 },
	};
	static char buf[2000];
	static const char alphabet[] = "abcdefghijklmnopqrstu.";
	unsigned seed = 4242;

	for (int round = 0; round < 400; round++) {
		size_t len = (size_t)(seed % sizeof(buf));

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Mostly noise, so that a first match lies far in. */
			buf[i] = (seed >> 16) % 8 ? '.' : alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		for (size_t start = 0; start < len; start += 1 + len / 9)
			CHECK(sl_needle_find(buf + start, buf + len, ten, 11) ==
			      naive(buf + start, buf + len, ten, 11));
		seed = seed * 1103515245u + 12345u;
	}
}

/* Line numbers: byte counters summed before they wrap (255 blocks). */
TEST(counts_a_byte_over_any_length_and_alignment)
{
	static char buf[40000];
	unsigned seed = 99;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (seed >> 16) % 3 == 0 ? '\n' : 'a';
	}
	for (size_t len = 0; len < sizeof(buf); len = len * 2 + 1)
		for (size_t start = 0; start < 40 && start <= len; start += 13) {
			uint64_t want = 0;

			for (size_t i = start; i < len; i++)
				want += buf[i] == '\n';
			CHECK(sl_count_byte(buf + start, buf + len, '\n') == want);
		}
	memset(buf, '\n', sizeof(buf));
	CHECK(sl_count_byte(buf, buf + sizeof(buf), '\n') == sizeof(buf));
	CHECK(sl_count_byte(buf + 1, buf + sizeof(buf), '\0') == 0);
	CHECK(sl_count_byte(buf, buf, '\n') == 0);
}

/* The continuation lines of a saved /dev/kmsg ("\n "), the entries of
 * journal JSON ("\n{"): two bytes and the pairs of them, in one pass;
 * a pair that spans the vector blocks' edges, or ends the buffer,
 * counts as the bytes do. */
TEST(counts_two_bytes_and_their_pairs_in_one_pass)
{
	static char buf[40000];
	unsigned seed = 7;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = "\n {a}"[(seed >> 16) % 5];
	}
	for (size_t len = 0; len < sizeof(buf); len = len * 2 + 1)
		for (size_t start = 0; start < 40 && start <= len; start += 7) {
			struct sl_byte_counts want = { 0 }, n;

			for (size_t i = start; i < len; i++) {
				want.a += buf[i] == '\n';
				want.b += buf[i] == '{';
				want.pairs += buf[i] == '\n' && i + 1 < len && buf[i + 1] == '{';
				want.closing += buf[i] == '}' && i + 1 < len && buf[i + 1] == '\n';
			}
			sl_count_bytes(buf + start, buf + len, '\n', '{', &n);
			CHECK(n.a == want.a && n.b == want.b && n.pairs == want.pairs);
			/* And the lines' last bytes ("}\n") in the same pass. */
			sl_count_framed(buf + start, buf + len, '\n', '{', '}', &n);
			CHECK(n.a == want.a && n.b == want.b && n.pairs == want.pairs &&
			      n.closing == want.closing);
		}
	/* A pair's first byte last: no pair, whatever follows the end. */
	memcpy(buf, "\n \n ", 4);
	{
		struct sl_byte_counts n;

		sl_count_bytes(buf, buf + 3, '\n', ' ', &n);
		CHECK(n.a == 2 && n.b == 1 && n.pairs == 1);
	}
}

/* A saved /dev/kmsg's record lines: a separator, one to three digits and
 * a comma (a line "1" before a record is none); every alignment, the end
 * anywhere. */
TEST(counts_the_lines_that_begin_as_kmsg_records)
{
	static char buf[20000];
	static const char alphabet[] = "\n\n,,0059a -\0";
	unsigned seed = 3;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
	}
	for (size_t len = 0; len < sizeof(buf); len = len * 2 + 1)
		for (size_t start = 0; start < 40 && start <= len; start += 3)
			for (int nul = 0; nul < 2; nul++) {
				char sep = nul ? '\0' : '\n';
				uint64_t want = 0;

				/* "D,", "DD," or "DDD,": the comma in the line. */
				for (size_t i = start; i + 2 < len; i++) {
					const char *q = buf + i + 1;
					size_t room = len - i - 1, d = 0;

					if (buf[i] != sep)
						continue;
					while (d < room && d < 3 && q[d] >= '0' && q[d] <= '9')
						d++;
					want += d >= 1 && d < room && q[d] == ',';
				}
				CHECK(sl_count_record_starts(buf + start, buf + len, sep) == want);
			}
}
