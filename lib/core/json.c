/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one JSON reader: see json.h. RFC 8259 is the grammar. */
#include <errno.h>
#include <stdint.h>

#include "core/internal.h"
#include "core/json.h"

const char *sl_json_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static bool hex4(const char *p, const char *end, uint32_t *v)
{
	*v = 0;
	if (end - p < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		int h = sl_hexval(p[i]);

		if (h < 0)
			return false;
		*v = *v << 4 | (uint32_t)h;
	}
	return true;
}

/* @n bytes of @s to @out at *@o, as many as fit in @size. */
static void put(char *out, size_t size, size_t *o, const char *s, size_t n)
{
	if (!out || *o >= size)
		return;
	if (n > size - *o)
		n = size - *o;
	memcpy(out + *o, s, n);
	*o += n;
}

bool sl_json_string(const char **pp, const char *end, char *out, size_t size,
		    size_t *len)
{
	const char *p = *pp;
	size_t o = 0;

	if (p >= end || *p++ != '"')
		return false;
	for (;;) {
		const char *run = p;
		char c;

		/* Most strings have no escape: copy up to the quote at once. */
		while (p < end && *p != '"' && *p != '\\')
			p++;
		put(out, size, &o, run, (size_t)(p - run));
		if (p >= end)
			return false;
		if (*p++ == '"')
			break;
		if (p >= end)
			return false;
		c = *p++;
		if (c == 'u') {
			uint32_t cp, lo;
			char utf8[4];

			if (!hex4(p, end, &cp))
				return false;
			p += 4;
			/*
			 * A high surrogate followed by a low one is one code
			 * point; a lone half is written as its own three bytes,
			 * as journald does not check what it is given.
			 */
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, &lo) &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			put(out, size, &o, utf8, put_utf8(utf8, cp));
			continue;
		}
		switch (c) {
		case 'n': c = '\n'; break;
		case 't': c = '\t'; break;
		case 'r': c = '\r'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case '"': case '\\': case '/': break;
		default: return false;
		}
		put(out, size, &o, &c, 1);
	}
	*pp = p;
	if (len)
		*len = o;
	return true;
}

static const char *digits(const char *p, const char *end)
{
	const char *start = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > start ? p : NULL;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? ; the bytes after, or NULL. */
static const char *number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		p = digits(p, end);
	}
	return p;
}

static const char *literal(const char *p, const char *end)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(end - p) >= n && memcmp(p, words[i], n) == 0)
			return p + n;
	}
	return NULL;
}

static bool value(const char **pp, const char *end, char *out, size_t size,
		  size_t *len, int depth);

/* An array or object at *pp; with @out an array is taken as byte values. */
static bool container(const char **pp, const char *end, char *out, size_t size,
		      size_t *len, int depth)
{
	struct sl_json_iter it;
	const char *p = *pp;
	bool bytes = **pp == '[' && out;
	size_t o = 0;
	int r;

	if (depth >= SL_JSON_MAX_DEPTH || !sl_json_iter_begin(&it, &p, end))
		return false;
	while ((r = sl_json_iter_next(&it, &p, end, NULL, 0, NULL)) > 0) {
		if (bytes) {
			int64_t v = 0;
			const char *q = p;

			while (q < end && *q >= '0' && *q <= '9' && q - p < 4)
				v = v * 10 + (*q++ - '0');
			if (q == p || v > 255)
				return false;
			put(out, size, &o, &(char){ (char)v }, 1);
			p = q;
		} else if (!value(&p, end, NULL, 0, NULL, depth + 1)) {
			return false;
		}
	}
	if (r < 0)
		return false;
	*pp = p;
	if (len)
		*len = o;
	return true;
}

static bool value(const char **pp, const char *end, char *out, size_t size,
		  size_t *len, int depth)
{
	const char *p = sl_json_skip_ws(*pp, end), *after;

	if (p >= end)
		return false;
	if (*p == '"') {
		if (!sl_json_string(&p, end, out, size, len))
			return false;
		*pp = p;
		return true;
	}
	if (*p == '[' || *p == '{') {
		if (!container(&p, end, out, size, len, depth))
			return false;
		*pp = p;
		return true;
	}
	after = *p == '-' || (*p >= '0' && *p <= '9') ? number(p, end) : literal(p, end);
	if (!after)
		return false;
	if (out) {
		size_t n = (size_t)(after - p) < size ? (size_t)(after - p) : size;

		memcpy(out, p, n);
		if (len)
			*len = n;
	}
	*pp = after;
	return true;
}

bool sl_json_value(const char **pp, const char *end, char *out, size_t size,
		   size_t *len)
{
	return value(pp, end, out, size, len, 0);
}

bool sl_json_iter_begin(struct sl_json_iter *it, const char **pp, const char *end)
{
	const char *p = sl_json_skip_ws(*pp, end);

	if (p >= end || (*p != '{' && *p != '['))
		return false;
	it->close = *p == '{' ? '}' : ']';
	it->started = false;
	*pp = p + 1;
	return true;
}

int sl_json_iter_next(struct sl_json_iter *it, const char **pp, const char *end,
		      char *key, size_t size, size_t *klen)
{
	const char *p = sl_json_skip_ws(*pp, end);

	if (p >= end)
		return -EBADMSG;
	if (*p == it->close) {
		*pp = p + 1;
		return 0;
	}
	if (it->started) {
		if (*p++ != ',')
			return -EBADMSG;
		p = sl_json_skip_ws(p, end);
	}
	if (it->close == '}') {
		if (!sl_json_string(&p, end, key, size, klen))
			return -EBADMSG;
		p = sl_json_skip_ws(p, end);
		if (p >= end || *p++ != ':')
			return -EBADMSG;
		p = sl_json_skip_ws(p, end);
	}
	/* "[1,]" and "{"a":1,}" are not JSON. */
	if (p >= end || *p == it->close)
		return -EBADMSG;
	it->started = true;
	*pp = p;
	return 1;
}

int sl_json_object_find(const char **pp, const char *end, const char *name)
{
	struct sl_json_iter it;
	const char *p = *pp, *found = NULL;
	size_t nlen = strlen(name), klen;
	/* A key longer than @name cannot match: one byte more tells it apart. */
	char key[64];
	int r;

	if (nlen >= sizeof(key) || !sl_json_iter_begin(&it, &p, end) || it.close != '}')
		return -EBADMSG;
	while ((r = sl_json_iter_next(&it, &p, end, key, nlen + 1, &klen)) > 0) {
		if (sl_json_name_is(key, klen, name))
			found = p;
		if (!sl_json_value(&p, end, NULL, 0, NULL))
			return -EBADMSG;
	}
	if (r < 0)
		return r;
	if (!found)
		return -ENOENT;
	*pp = found;
	return 0;
}
