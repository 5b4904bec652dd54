/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl's JSON writer (cli/json.c), built into this test: its buffered,
 * word-at-a-time escaping against the byte-by-byte rules it replaced.
 */
#include "../../cli/json.c"
#include "test.h"

/*
 * The rules, one byte at a time: what every string must come out as. A
 * value that is not UTF-8 is the array of its bytes (journalctl's way).
 */
static void reference_escape(FILE *out, const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = s[i] < 0x80 ? 1 : utf8_sequence(s + i, len - i);

		if (n == 0) {
			fputc('[', out);
			for (size_t k = 0; k < len; k++)
				fprintf(out, "%s%u", k ? "," : "", s[k]);
			fputc(']', out);
			return;
		}
		i += n;
	}
	fputc('"', out);
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			fputc(c, out);
			i++;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", out); i++; continue;
		case '\\': fputs("\\\\", out); i++; continue;
		case '\n': fputs("\\n", out); i++; continue;
		case '\t': fputs("\\t", out); i++; continue;
		case '\r': fputs("\\r", out); i++; continue;
		default: break;
		}
		n = c < 0x20 || c == 0x7f ? 0 : utf8_sequence(s + i, len - i);
		if (n == 0) {
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		fwrite(s + i, 1, n, out);
		i += n;
	}
	fputc('"', out);
}

/* One document of one string member, written by the writer. */
static char *written(const unsigned char *s, size_t len, bool pretty, size_t *size)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, size);
	struct json j;

	json_init(&j, f);
	j.pretty = pretty;
	json_object_begin(&j, NULL);
	json_string_len(&j, "k", (const char *)s, len);
	json_object_end(&j);
	json_finish(&j);
	fclose(f);
	return text;
}

static char *expected(const unsigned char *s, size_t len, bool pretty, size_t *size)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, size);

	fputs(pretty ? "{\n  \"k\": " : "{\"k\":", f);
	reference_escape(f, s, len);
	fputs(pretty ? "\n}\n" : "}\n", f);
	fclose(f);
	return text;
}

TEST(strings_are_escaped_as_byte_by_byte)
{
	/* Plain bytes, each special one, and pieces of UTF-8 sequences. */
	static const unsigned char alphabet[] = "ab \"\\\n\t\r\x01\x1f\x7f\x80\xbf\xc3\xa9\xe2\x82\xac\xf0\x9f\xff~ ";
	unsigned char s[80];
	unsigned seed = 4242;

	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(seed % sizeof(s)), a, b;
		bool pretty = round & 1;
		char *got, *want;

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Mostly plain text, as comms are. */
			s[i] = (seed >> 16) % 4 ? (unsigned char)('a' + (seed >> 20) % 26)
					      : alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		got = written(s, len, pretty, &a);
		want = expected(s, len, pretty, &b);
		CHECK(a == b && memcmp(got, want, a) == 0);
		free(got);
		free(want);
		seed = seed * 1103515245u + 12345u;
	}
}

TEST(documents_larger_than_the_buffer_come_out_whole)
{
	static unsigned char big[3 * JSON_BUF];
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);
	struct json j;

	memset(big, 'x', sizeof(big));
	big[JSON_BUF] = '"';
	json_init(&j, f);
	json_array_begin(&j, NULL);
	for (int i = 0; i < 5000; i++)
		json_uint(&j, NULL, (unsigned long long)i * 1000003u);
	json_string_len(&j, NULL, (const char *)big, sizeof(big));
	json_int(&j, NULL, -9223372036854775807LL - 1);
	json_array_end(&j);
	json_finish(&j);
	fclose(f);
	CHECK(strstr(text, "[\n  0,\n  1000003,\n  2000006,\n") == text);
	CHECK(strstr(text, "\n  4999014997,\n") != NULL);
	CHECK(strstr(text, "\n  -9223372036854775808\n]\n") != NULL);
	/* The long string: its escaped quote, and every x. */
	CHECK(memmem(text, size, "xx\\\"xx", 6) != NULL);
	CHECK(size > sizeof(big));
	free(text);
}

TEST(keys_and_nesting_in_both_layouts)
{
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);
	struct json j;

	json_init(&j, f);
	json_object_begin(&j, NULL);
	json_uint(&j, "a", 1);
	json_object_begin(&j, "deeper key");
	json_array_begin(&j, "list");
	json_bool(&j, NULL, true);
	json_null(&j, NULL);
	json_array_end(&j);
	json_array_begin(&j, "empty");
	json_array_end(&j);
	json_string(&j, "k\"ey", "v");
	json_object_end(&j);
	json_number(&j, "n", "1.500000");
	json_object_end(&j);
	json_finish(&j);
	fclose(f);
	CHECK_STR(text, "{\n  \"a\": 1,\n  \"deeper key\": {\n    \"list\": [\n      true,\n"
			"      null\n    ],\n    \"empty\": [],\n    \"k\\\"ey\": \"v\"\n  },\n"
			"  \"n\": 1.500000\n}\n");
	free(text);
}
