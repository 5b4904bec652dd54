/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A JSON writer small enough to read: nesting, commas, escaping. */
#include <stdint.h>
#include <string.h>

#include "slctl.h"

/*
 * Bytes gather in the writer's own buffer and go to the stream a block at
 * a time: a report of tens of thousands of offenders is a few hundred
 * thousand keys and values, and one stdio call for each of their pieces
 * (even unlocked) was most of the time of writing it.
 */
static void flush(struct json *j)
{
	if (j->len)
		fwrite_unlocked(j->buf, 1, j->len, j->out);
	j->len = 0;
}

static inline void put(struct json *j, const void *data, size_t n)
{
	if (n > sizeof(j->buf) - j->len) {
		flush(j);
		if (n > sizeof(j->buf)) {
			fwrite_unlocked(data, 1, n, j->out);
			return;
		}
	}
	memcpy(j->buf + j->len, data, n);
	j->len += n;
}

static inline void putch(struct json *j, char c)
{
	if (j->len == sizeof(j->buf))
		flush(j);
	j->buf[j->len++] = c;
}

static inline void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

void json_init(struct json *j, FILE *out)
{
	/* Not the buffer: 64 KiB cleared for every document of the follower. */
	j->out = out;
	j->depth = 0;
	memset(j->first, 0, sizeof(j->first));
	j->pretty = true;
	j->first[0] = true;
	j->len = 0;
}

void json_document_begin(struct json *j, FILE *out, unsigned version)
{
	json_init(j, out);
	json_object_begin(j, NULL);
	json_uint(j, "version", version);
}

void json_finish(struct json *j)
{
	putch(j, '\n');
	flush(j);
}

static void indent(struct json *j)
{
	/* A newline and two spaces a level (the depth stays under 32). */
	static const char spaces[] = "\n"
		"                                                                ";

	if (!j->pretty)
		return;
	put(j, spaces, 1 + 2 * (size_t)j->depth);
}

/* The length of the UTF-8 sequence at @s, 0 when it is not one. */
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

/* Bytes written as they are: printable ASCII but the quote and backslash. */
static inline bool plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * Nonzero when a word holds a byte that is not plain (SWAR: exact for the
 * word as a whole, not for which byte). @ones: 0x01 in every byte.
 */
static inline uint64_t special_bits(uint64_t x, uint64_t ones)
{
	uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');

	return (((x - ones * 0x20) & ~x) |          /* below 0x20 */
		(x | (x + ones)) |                  /* 0x7f and above */
		((quote - ones) & ~quote) |         /* '"' */
		((backslash - ones) & ~backslash)) & (ones * 0x80);
}

#define ONES64 0x0101010101010101ull
#define ONES32 0x01010101ull

/*
 * Copies @len bytes of @s to @o, which has 8 bytes to spare after them,
 * and says whether they were all plain: words of 8 (the last overlapping)
 * or of 4, checked as they are copied. Keys and most values are short.
 */
static inline bool copy_plain(char *o, const unsigned char *s, size_t len)
{
	uint64_t bad = 0, x;
	uint32_t a, b;

	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8) {
			memcpy(&x, s + i, 8);
			bad |= special_bits(x, ONES64);
			memcpy(o + i, &x, 8);
		}
		memcpy(&x, s + len - 8, 8);
		bad |= special_bits(x, ONES64);
		memcpy(o + len - 8, &x, 8);
	} else if (len >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + len - 4, 4);
		bad = special_bits(a, ONES32) | special_bits(b, ONES32);
		memcpy(o, &a, 4);
		memcpy(o + len - 4, &b, 4);
	} else {
		for (size_t i = 0; i < len; i++) {
			o[i] = (char)s[i];
			bad |= !plain_byte(s[i]);
		}
	}
	return !bad;
}

/* Room for @n more bytes (n < JSON_BUF), written at the returned place. */
static inline char *reserve(struct json *j, size_t n)
{
	if (n > sizeof(j->buf) - j->len)
		flush(j);
	return j->buf + j->len;
}

/* Strings shorter than this are tried as plain text first. */
#define SHORT_STRING 1024

/* Every byte of @s from @i on that is not ASCII starts a UTF-8 sequence. */
static bool valid_utf8(const unsigned char *s, size_t i, size_t len)
{
	while (i < len) {
		size_t n = s[i] < 0x80 ? 1 : utf8_sequence(s + i, len - i);

		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

/* Decimal digits of @v, as printf's %llu writes them. */
static void put_decimal(struct json *j, bool negative, unsigned long long v)
{
	char d[24];
	size_t at = sizeof(d);

	do {
		d[--at] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (negative)
		d[--at] = '-';
	put(j, d + at, sizeof(d) - at);
}

/*
 * A value that is not UTF-8 (a task names itself with any bytes) as the
 * array of its bytes, as journalctl -o json writes such a field: a JSON
 * string cannot hold it, and writing a byte as \u00XX made "caf\xe9" and
 * "café" one name.
 */
static void write_bytes(struct json *j, const unsigned char *s, size_t len)
{
	putch(j, '[');
	for (size_t i = 0; i < len; i++) {
		if (i)
			putch(j, ',');
		put_decimal(j, false, s[i]);
	}
	putch(j, ']');
}

static void write_escaped(struct json *j, const char *value, size_t len)
{
	const unsigned char *s = (const unsigned char *)value;
	char u[8];

	if (len < SHORT_STRING) {
		char *o = reserve(j, len + 2 + 8);

		*o = '"';
		if (copy_plain(o + 1, s, len)) {
			o[len + 1] = '"';
			j->len += len + 2;
			return;
		}
	}
	if (!valid_utf8(s, 0, len)) {
		write_bytes(j, s, len);
		return;
	}
	putch(j, '"');
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n;

		/* A run of plain ASCII in one copy. */
		for (n = 0; i + n < len && plain_byte(s[i + n]); n++)
			;
		if (n) {
			put(j, s + i, n);
			i += n;
			continue;
		}
		switch (c) {
		case '"': put(j, "\\\"", 2); i++; continue;
		case '\\': put(j, "\\\\", 2); i++; continue;
		case '\n': put(j, "\\n", 2); i++; continue;
		case '\t': put(j, "\\t", 2); i++; continue;
		case '\r': put(j, "\\r", 2); i++; continue;
		default: break;
		}
		/* Control bytes; anything else here is valid UTF-8. */
		n = c < 0x20 || c == 0x7f ? 0 : utf8_sequence(s + i, len - i);
		if (n == 0) {
			snprintf(u, sizeof(u), "\\u%04x", c);
			put(j, u, 6);
			i++;
			continue;
		}
		put(j, s + i, n);
		i += n;
	}
	putch(j, '"');
}

/*
 * A key, with its comma and indentation before it: written straight into
 * the buffer when it is plain and short, as every key of slctl's is.
 */
static void member(struct json *j, const char *key)
{
	bool comma = !j->first[j->depth];
	size_t pad = j->depth > 0 && j->pretty ? 2 * (size_t)j->depth : 0;
	size_t klen = key ? strlen(key) : 0;
	char *o;

	j->first[j->depth] = false;
	if (key && klen < SHORT_STRING) {
		/* ",\n" + pad + '"' key '"' + ": " and the 8 spare bytes. */
		o = reserve(j, 2 + pad + klen + 4 + 8);
		if (comma)
			*o++ = ',';
		if (j->depth > 0 && j->pretty) {
			*o++ = '\n';
			for (size_t i = 0; i < pad; i += 8)
				memcpy(o + i, "        ", 8);
			o += pad;
		}
		*o++ = '"';
		if (copy_plain(o, (const unsigned char *)key, klen)) {
			o += klen;
			*o++ = '"';
			*o++ = ':';
			if (j->pretty)
				*o++ = ' ';
			j->len = (size_t)(o - j->buf);
			return;
		}
	}
	if (comma)
		putch(j, ',');
	if (j->depth > 0)
		indent(j);
	if (key) {
		write_escaped(j, key, klen);
		if (j->pretty)
			put(j, ": ", 2);
		else
			putch(j, ':');
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	member(j, key);
	putch(j, c);
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
	putch(j, c);
}

void json_object_begin(struct json *j, const char *key) { open_container(j, key, '{'); }
void json_object_end(struct json *j) { close_container(j, '}'); }
void json_array_begin(struct json *j, const char *key) { open_container(j, key, '['); }
void json_array_end(struct json *j) { close_container(j, ']'); }

void json_string_len(struct json *j, const char *key, const char *value, size_t len)
{
	member(j, key);
	write_escaped(j, value, len);
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
	/* The magnitude of LLONG_MIN too, computed unsigned. */
	put_decimal(j, value < 0, value < 0 ? 0ull - (unsigned long long)value
					    : (unsigned long long)value);
}

void json_uint(struct json *j, const char *key, unsigned long long value)
{
	member(j, key);
	put_decimal(j, false, value);
}

void json_bool(struct json *j, const char *key, bool value)
{
	member(j, key);
	if (value)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	put(j, "null", 4);
}

/* A number already formatted by the caller (e.g. "12.345678"). */
void json_number(struct json *j, const char *key, const char *text)
{
	member(j, key);
	puts_(j, text);
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
