/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A JSON writer small enough to read: nesting, commas, escaping. */
#include <stdint.h>
#include <string.h>

#include "slctl.h"

/*
 * One thread writes a document: stdio's per-call locking was a fifth of
 * the time of a large report. glibc's unlocked variants (GNU, in stdio.h).
 */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

void json_init(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = true;
	j->first[0] = true;
}

void json_document_begin(struct json *j, FILE *out, unsigned version)
{
	json_init(j, out);
	json_object_begin(j, NULL);
	json_uint(j, "version", version);
}

void json_finish(struct json *j)
{
	fputc('\n', j->out);
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Bytes that are not valid UTF-8 are written as \u00XX (Latin-1). */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void write_escaped(FILE *out, const char *value, size_t len)
{
	const unsigned char *s = (const unsigned char *)value;

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n;

		/* A run of plain ASCII in one write: per-byte stdio calls made
		 * large reports spend most of their time here. */
		for (n = 0; i + n < len && s[i + n] >= 0x20 && s[i + n] < 0x7f &&
			    s[i + n] != '"' && s[i + n] != '\\'; n++)
			;
		if (n) {
			fwrite(s + i, 1, n, out);
			i += n;
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
		if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_sequence(s + i, len - i);
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

static void member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
	if (j->depth > 0)
		indent(j);
	if (key) {
		write_escaped(j->out, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->out);
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
		j->depth++;
	j->first[j->depth] = true;
}

static void close_container(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->out);
}

void json_object_begin(struct json *j, const char *key) { open_container(j, key, '{'); }
void json_object_end(struct json *j) { close_container(j, '}'); }
void json_array_begin(struct json *j, const char *key) { open_container(j, key, '['); }
void json_array_end(struct json *j) { close_container(j, ']'); }

void json_string_len(struct json *j, const char *key, const char *value, size_t len)
{
	member(j, key);
	write_escaped(j->out, value, len);
}

void json_string(struct json *j, const char *key, const char *value)
{
	if (!value) {
		json_null(j, key);
		return;
	}
	json_string_len(j, key, value, strlen(value));
}

void json_int(struct json *j, const char *key, long long value)
{
	member(j, key);
	fprintf(j->out, "%lld", value);
}

void json_uint(struct json *j, const char *key, unsigned long long value)
{
	member(j, key);
	fprintf(j->out, "%llu", value);
}

void json_bool(struct json *j, const char *key, bool value)
{
	member(j, key);
	fputs(value ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

/* A number already formatted by the caller (e.g. "12.345678"). */
void json_number(struct json *j, const char *key, const char *text)
{
	member(j, key);
	fputs(text, j->out);
}

/* @key: the patched kernel's counters (null: not reported), or null. */
void json_kernel_counters(struct json *j, const char *key, const struct kernel_counters *c)
{
	if (!c) {
		json_null(j, key);
		return;
	}
	json_object_begin(j, key);
	for (size_t i = 0; i < c->count; i++) {
		const char *name = splitlock_counter_name((enum splitlock_counter)i);

		if (c->values[i] >= 0)
			json_int(j, name, c->values[i]);
		else
			json_null(j, name);
	}
	json_object_end(j);
}

/* "kernel_traps": the patched kernel's per-process count, or null. */
void json_kernel_traps(struct json *j, const struct splitlock_offender *o)
{
	uint64_t traps;

	if (splitlock_offender_get_kernel_traps(o, &traps) == 0)
		json_uint(j, "kernel_traps", traps);
	else
		json_null(j, "kernel_traps");
}
