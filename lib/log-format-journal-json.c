/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Journal JSON in every form journalctl writes it (systemd
 * src/shared/logs-show.c, output_json()): -o json (one object a line),
 * -o json-seq (each object after an RS byte, RFC 7464), -o json-sse
 * ("data: " before each), -o json-pretty (one field a line, tab-indented,
 * "KEY" : VALUE). A field is a string, null when too large, or an array of
 * byte values when it is not printable UTF-8. Only _TRANSPORT=kernel with
 * facility kern is the kernel's: journald also marks what user space wrote
 * to /dev/kmsg as kernel transport, keeping that writer's facility.
 */
#include "log-format.h"

struct jfield {
	char buf[64];
	size_t len;
	bool set;
};

struct jrecord {
	struct jfield transport, facility, priority, realtime, source_mono, boot_id;
	bool message_set;
	size_t message_len;
};

static const char *skip_ws(const char *p, const char *end)
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

/*
 * A JSON string at *pp (at the opening quote) decoded into @out (@size
 * bytes at least as long as the input; NULL to skip). Returns false when it
 * is not a well-formed string.
 */
static bool json_string(const char **pp, const char *end, char *out,
			size_t size, size_t *len)
{
	const char *p = *pp + 1;
	size_t o = 0;

	for (;;) {
		char c;

		if (p >= end)
			return false;
		c = *p++;
		if (c == '"')
			break;
		if (c != '\\') {
			if (out && o < size)
				out[o++] = c;
			continue;
		}
		if (p >= end)
			return false;
		c = *p++;
		if (c == 'u') {
			uint32_t cp, lo;
			char tmp[4];
			size_t n;

			if (!hex4(p, end, &cp))
				return false;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, &lo) &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			n = put_utf8(tmp, cp);
			for (size_t i = 0; i < n; i++)
				if (out && o < size)
					out[o++] = tmp[i];
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
		if (out && o < size)
			out[o++] = c;
	}
	*pp = p;
	if (len)
		*len = o;
	return true;
}

/* Skip any JSON value; arrays of byte values may be decoded into @out. */
static bool json_value(const char **pp, const char *end, char *out, size_t size,
		       size_t *len, int depth)
{
	const char *p = skip_ws(*pp, end);

	if (p >= end || depth > 32)
		return false;
	if (*p == '"') {
		if (!json_string(&p, end, out, size, len))
			return false;
	} else if (*p == '[' || *p == '{') {
		char close = *p == '[' ? ']' : '}';
		bool bytes = *p == '[' && out;
		size_t o = 0;

		p = skip_ws(p + 1, end);
		if (p < end && *p == close) {
			p++;
		} else {
			for (;;) {
				if (close == '}') {
					p = skip_ws(p, end);
					if (p >= end || *p != '"' ||
					    !json_string(&p, end, NULL, 0, NULL))
						return false;
					p = skip_ws(p, end);
					if (p >= end || *p++ != ':')
						return false;
				}
				p = skip_ws(p, end);
				if (bytes) {
					unsigned v = 0;
					int digits = 0;

					while (p < end && *p >= '0' && *p <= '9' && digits < 4) {
						v = v * 10 + (unsigned)(*p++ - '0');
						digits++;
					}
					if (!digits || v > 255)
						return false;
					if (o < size)
						out[o++] = (char)v;
				} else if (!json_value(&p, end, NULL, 0, NULL, depth + 1)) {
					return false;
				}
				p = skip_ws(p, end);
				if (p < end && *p == ',') {
					p++;
					continue;
				}
				if (p < end && *p == close) {
					p++;
					break;
				}
				return false;
			}
		}
		if (len)
			*len = o;
	} else {
		/* number, true, false, null */
		const char *start = p;

		while (p < end && *p != ',' && *p != '}' && *p != ']' &&
		       *p != ' ' && *p != '\n')
			p++;
		if (p == start)
			return false;
		if (out) {
			size_t n = (size_t)(p - start) < size ? (size_t)(p - start) : size;

			memcpy(out, start, n);
			if (len)
				*len = n;
		}
	}
	*pp = p;
	return true;
}

static bool jfield_uint(const struct jfield *f, uint64_t *v)
{
	uint64_t n = 0;

	if (!f->set || f->len == 0)
		return false;
	for (size_t i = 0; i < f->len; i++) {
		if (f->buf[i] < '0' || f->buf[i] > '9' || n > UINT64_MAX / 10 - 1)
			return false;
		n = n * 10 + (uint64_t)(f->buf[i] - '0');
	}
	*v = n;
	return true;
}

static bool jfield_is(const struct jfield *f, const char *s)
{
	return f->set && f->len == strlen(s) && memcmp(f->buf, s, f->len) == 0;
}

static int journal_object(struct sl_reader *rd, const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	struct jrecord j = { 0 };
	struct sl_log_record r = { .facility_known = true,
				   .mono_usec = SPLITLOCK_TIME_UNKNOWN,
				   .wall_usec = SPLITLOCK_TIME_UNKNOWN };
	uint64_t v;

	p = skip_ws(p, end);
	if (p == end)
		return 0;
	if (*p++ != '{')
		goto malformed;
	for (;;) {
		char key[64];
		size_t klen = 0;
		struct jfield *f = NULL;

		p = skip_ws(p, end);
		if (p < end && *p == '}')
			break;
		if (p >= end || *p != '"' || !json_string(&p, end, key, sizeof(key) - 1, &klen))
			goto malformed;
		key[klen] = '\0';
		p = skip_ws(p, end);
		if (p >= end || *p++ != ':')
			goto malformed;
		if (streq(key, "MESSAGE")) {
			p = skip_ws(p, end);
			if (p < end && *p == 'n') { /* null: too big for journalctl */
				if (!json_value(&p, end, NULL, 0, NULL, 0))
					goto malformed;
			} else {
				if (!json_value(&p, end, rd->decoded, SL_INPUT_BUF,
						&j.message_len, 0))
					goto malformed;
				j.message_set = true;
			}
		} else {
			if (streq(key, "_TRANSPORT"))
				f = &j.transport;
			else if (streq(key, "SYSLOG_FACILITY"))
				f = &j.facility;
			else if (streq(key, "PRIORITY"))
				f = &j.priority;
			else if (streq(key, "__REALTIME_TIMESTAMP"))
				f = &j.realtime;
			else if (streq(key, "_SOURCE_MONOTONIC_TIMESTAMP"))
				f = &j.source_mono;
			else if (streq(key, "_BOOT_ID"))
				f = &j.boot_id;
			if (!json_value(&p, end, f ? f->buf : NULL,
					f ? sizeof(f->buf) - 1 : 0,
					f ? &f->len : NULL, 0))
				goto malformed;
			if (f)
				f->set = true;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			break;
		goto malformed;
	}
	if (!j.message_set)
		return 0;
	/*
	 * Only the kernel's records count. journald marks what it read from
	 * /dev/kmsg as _TRANSPORT=kernel, user-space writes there included,
	 * which keep their facility.
	 */
	if (!jfield_is(&j.transport, "kernel"))
		r.rec.facility = 1;
	else if (j.facility.set)
		r.rec.facility = jfield_uint(&j.facility, &v) && v == 0 ? 0 : 1;
	if (jfield_uint(&j.priority, &v) && v < 8)
		r.rec.level = (int)v;
	if (jfield_uint(&j.source_mono, &v) && v <= INT64_MAX) {
		r.mono_usec = (int64_t)v;
		r.rec.usec = v;
	}
	if (jfield_uint(&j.realtime, &v) && v <= INT64_MAX)
		r.wall_usec = (int64_t)v;
	if (j.boot_id.set)
		r.boot = sl_boot_hash(j.boot_id.buf, j.boot_id.len);
	rd->decoded[j.message_len] = '\0';
	r.rec.message = rd->decoded;
	r.rec.message_len = j.message_len;
	r.line = rd->line;
	return rd->fn(&r, rd->data);

malformed:
	sl_reader_unrecognized(rd, line, len);
	return 0;
}

/* json-pretty: lines of one object are gathered up to its closing brace. */
static int pretty_line(struct sl_reader *rd, const char *p, size_t len)
{
	size_t n = len;

	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	if (!rd->in_object) {
		rd->in_object = true;
		rd->object_overflow = false;
		rd->object_len = 0;
		rd->object_line = rd->line;
	}
	if (rd->object_len + len + 1 > SL_INPUT_BUF) {
		rd->object_overflow = true;
	} else {
		memcpy(rd->object + rd->object_len, p, len);
		rd->object_len += len;
		rd->object[rd->object_len++] = '\n';
	}
	if (n != 1 || p[0] != '}')
		return 0;
	rd->in_object = false;
	rd->line = rd->object_line;
	if (rd->object_overflow) {
		sl_unread_note(rd->unread, rd->line);
		return 0;
	}
	return journal_object(rd, rd->object, rd->object_len);
}

int sl_journal_json_line(struct sl_reader *rd, const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	if (rd->object)
		return pretty_line(rd, line, len);
	if (p < end && *p == '\x1e') /* json-seq */
		p++;
	else if (end - p >= 6 && memcmp(p, "data: ", 6) == 0) /* json-sse */
		p += 6;
	else if (end - p >= 3 && memcmp(p, "id:", 3) == 0)
		return 0;
	return journal_object(rd, p, (size_t)(end - p));
}
