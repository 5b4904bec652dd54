/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Saved kernel logs: /dev/kmsg records (one a line with " KEY=VALUE"
 * continuation lines, or NUL-separated), dmesg text ("[ sec.usec]", -T
 * ctime stamps, -r "<PRI>", -x "kern  :warn  : ", or nothing), and
 * `journalctl -o json` (MESSAGE a string or an array of bytes).
 *
 * Speed matters: logs of millions of records are scanned at close to grep's
 * pace because records are found by searching the buffer for text every
 * detector line holds ("_lock", "alignment check"); only the lines around
 * a hit are split off and parsed. journalctl's byte-array MESSAGEs hide the
 * text, so that format is parsed line by line. Memory is one fixed buffer.
 */
#include <errno.h>
#include <time.h>

#include "offenders-internal.h"

#define INPUT_BUF (256u * 1024)
#define PROGRESS_STEP (8ull << 20)

/*
 * Text that every detector line holds, even one cut short: '#' of "#AC:"
 * and "#DB:" (searched with memchr(), the fastest scan there is, and rare
 * in kernel logs), the rate limits' "callbacks suppressed" and fatal
 * mode's "alignment check". Long needles let memmem() skip ahead: a short
 * one like "_lock" scans three times slower.
 */
static const struct needle {
	const char *text;
	size_t len;
} needles[] = {
	{ "#", 1 },
	{ "callbacks suppressed", 20 },
	{ "alignment check", 15 },
};
#define N_NEEDLES (sizeof(needles) / sizeof(needles[0]))

/*
 * journalctl writes a MESSAGE that is not printable UTF-8 as an array of
 * byte values, which hides the text: a line with any array is parsed.
 */
static const struct needle journal_needles[] = {
	{ "#", 1 },
	{ "callbacks suppressed", 20 },
	{ "alignment check", 15 },
	{ "\":[", 3 },
	{ "\" : [", 5 },
};
#define N_MAX_NEEDLES (sizeof(journal_needles) / sizeof(journal_needles[0]))

bool sl_maybe_detector(const char *s, size_t len)
{
	for (size_t i = 0; i < N_NEEDLES; i++)
		if (memmem(s, len, needles[i].text, needles[i].len))
			return true;
	return false;
}

struct reader {
	struct splitlock_ctx *ctx;
	enum splitlock_input_format format;
	char sep;
	char *decoded; /* INPUT_BUF + 1 */
	sl_log_record_fn fn;
	void *data;
	uint64_t *malformed;
};

static void count_malformed(struct reader *rd, const char *line, size_t len)
{
	if (sl_maybe_detector(line, len))
		(*rd->malformed)++;
}

/* ---- /dev/kmsg records -------------------------------------------------- */

static int kmsg_line(struct reader *rd, const char *line, size_t len)
{
	struct sl_log_record r = { .facility_known = true,
				   .wall_usec = SPLITLOCK_TIME_UNKNOWN };

	/* Continuation lines carry the record's dictionary. */
	if (len == 0 || line[0] == ' ')
		return 0;
	if (splitlock_kmsg_parse_record(line, len, rd->decoded, &r.rec) < 0) {
		count_malformed(rd, line, len);
		return 0;
	}
	r.mono_usec = r.rec.usec > INT64_MAX ? SPLITLOCK_TIME_UNKNOWN
					     : (int64_t)r.rec.usec;
	return rd->fn(&r, rd->data);
}

/* ---- dmesg text --------------------------------------------------------- */

static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "res0", "res1", "res2", "res3",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6",
	"local7",
};

/* dmesg -x: "kern  :warn  : "; returns the bytes used, 0 if absent. */
static size_t dmesg_decoded_prefix(const char *p, const char *end, int *facility)
{
	const char *q = p, *word;
	size_t n;

	while (q < end && *q >= 'a' && *q <= 'z')
		q++;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	n = (size_t)(q - p);
	word = p;
	while (q < end && *q == ' ')
		q++;
	if (q >= end || *q != ':' || n == 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(facility_names); i++) {
		if (strlen(facility_names[i]) != n || memcmp(word, facility_names[i], n))
			continue;
		q++;
		while (q < end && *q >= 'a' && *q <= 'z')
			q++;
		while (q < end && *q == ' ')
			q++;
		if (q + 1 >= end || q[0] != ':' || q[1] != ' ')
			return 0;
		*facility = (int)i;
		return (size_t)(q + 2 - p);
	}
	return 0;
}

/* "[  12.345678]" → microseconds; false when it is not such a stamp. */
static bool parse_mono_stamp(const char *p, const char *end, int64_t *usec)
{
	uint64_t sec = 0, frac = 0;
	int fdigits = 0, sdigits = 0;

	while (p < end && *p == ' ')
		p++;
	while (p < end && *p >= '0' && *p <= '9' && sdigits < 12) {
		sec = sec * 10 + (uint64_t)(*p++ - '0');
		sdigits++;
	}
	if (sdigits == 0 || p >= end || *p++ != '.')
		return false;
	while (p < end && *p >= '0' && *p <= '9' && fdigits < 6) {
		frac = frac * 10 + (uint64_t)(*p++ - '0');
		fdigits++;
	}
	if (fdigits == 0 || p != end)
		return false;
	while (fdigits++ < 6)
		frac *= 10;
	*usec = (int64_t)(sec * 1000000 + frac);
	return true;
}

/* dmesg -T: "[Thu Dec  3 04:40:06 2026]" in local time. */
static bool parse_ctime_stamp(const char *p, const char *end, int64_t *usec)
{
	char buf[64];
	struct tm tm = { 0 };
	const char *rest;
	time_t t;

	if ((size_t)(end - p) >= sizeof(buf))
		return false;
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = '\0';
	rest = strptime(buf, "%a %b %e %H:%M:%S %Y", &tm);
	if (!rest || *rest)
		return false;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return false;
	*usec = (int64_t)t * 1000000;
	return true;
}

static int dmesg_line(struct reader *rd, const char *line, size_t len)
{
	struct sl_log_record r = { .mono_usec = SPLITLOCK_TIME_UNKNOWN,
				   .wall_usec = SPLITLOCK_TIME_UNKNOWN };
	const char *p = line, *end = line + len;
	size_t used;
	int facility;

	if (len == 0)
		return 0;
	/* dmesg -r: "<PRI>" */
	if (*p == '<') {
		const char *q = p + 1;
		unsigned pri = 0;

		while (q < end && *q >= '0' && *q <= '9' && pri < 0x80000)
			pri = pri * 10 + (unsigned)(*q++ - '0');
		if (q < end && *q == '>' && q > p + 1) {
			r.facility_known = true;
			r.rec.facility = (int)(pri >> 3);
			r.rec.level = (int)(pri & 7);
			p = q + 1;
		}
	}
	if (!r.facility_known && (used = dmesg_decoded_prefix(p, end, &facility))) {
		r.facility_known = true;
		r.rec.facility = facility;
		p += used;
	}
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && (parse_mono_stamp(p + 1, close, &r.mono_usec) ||
			      parse_ctime_stamp(p + 1, close, &r.wall_usec))) {
			p = close + 1;
			if (p < end && *p == ' ')
				p++;
		}
	}
	if (!r.facility_known)
		r.rec.facility = 0; /* plain text cannot tell; see slctl(8) */
	if (r.mono_usec != SPLITLOCK_TIME_UNKNOWN)
		r.rec.usec = (uint64_t)r.mono_usec;
	r.rec.message_len = sl_unescape(p, (size_t)(end - p), rd->decoded);
	rd->decoded[r.rec.message_len] = '\0';
	r.rec.message = rd->decoded;
	return rd->fn(&r, rd->data);
}

/* ---- journalctl -o json ------------------------------------------------- */

struct jfield {
	char buf[64];
	size_t len;
	bool set;
};

struct jrecord {
	struct jfield transport, facility, priority, realtime, source_mono;
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

static int journal_line(struct reader *rd, const char *line, size_t len)
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
				if (!json_value(&p, end, rd->decoded, INPUT_BUF,
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
	rd->decoded[j.message_len] = '\0';
	r.rec.message = rd->decoded;
	r.rec.message_len = j.message_len;
	return rd->fn(&r, rd->data);

malformed:
	count_malformed(rd, line, len);
	return 0;
}

/* ---- scanning ------------------------------------------------------------ */

static int handle_line(struct reader *rd, const char *line, size_t len)
{
	switch (rd->format) {
	case SPLITLOCK_INPUT_JOURNAL:
		return journal_line(rd, line, len);
	case SPLITLOCK_INPUT_DMESG:
		return dmesg_line(rd, line, len);
	default:
		return kmsg_line(rd, line, len);
	}
}

static const char *find(const char *p, const char *end, const char *needle,
			size_t n)
{
	if (n == 1)
		return memchr(p, needle[0], (size_t)(end - p));
	return memmem(p, (size_t)(end - p), needle, n);
}

/* Complete lines in [p, end): hand over those that may matter. */
static int scan_region(struct reader *rd, const char *p, const char *end)
{
	const char *next[N_MAX_NEEDLES] = { NULL };
	bool journal = rd->format == SPLITLOCK_INPUT_JOURNAL;
	const struct needle *set = journal ? journal_needles : needles;
	size_t n_set = journal ? N_MAX_NEEDLES : N_NEEDLES;

	while (p < end) {
		const char *hit = end, *ls, *le;
		int r;

		/* Each needle's next hit is searched for once, not per line. */
		for (size_t i = 0; i < n_set; i++) {
			if (!next[i] || next[i] < p) {
				next[i] = find(p, end, set[i].text, set[i].len);
				if (!next[i])
					next[i] = end;
			}
			if (next[i] < hit)
				hit = next[i];
		}
		if (hit >= end)
			break;
		ls = memrchr(p, rd->sep, (size_t)(hit - p));
		ls = ls ? ls + 1 : p;
		le = memchr(hit, rd->sep, (size_t)(end - hit));
		if (!le)
			le = end;
		r = handle_line(rd, ls, (size_t)(le - ls));
		if (r)
			return r;
		p = le + 1;
	}
	return 0;
}

static bool looks_like_kmsg(const char *p, const char *end)
{
	for (int field = 0; field < 3; field++) {
		const char *start = p;

		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == start || p >= end)
			return false;
		if (field < 2 && *p++ != ',')
			return false;
	}
	return *p == ',' || *p == ';';
}

static enum splitlock_input_format detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end && (*p == '\n' || *p == '\0' || *p == ' '))
		p++;
	if (p < end && *p == '{')
		return SPLITLOCK_INPUT_JOURNAL;
	if (looks_like_kmsg(p, end)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (nul && (!nl || nul < nl))
			return SPLITLOCK_INPUT_KMSG_NUL;
		return SPLITLOCK_INPUT_KMSG;
	}
	return SPLITLOCK_INPUT_DMESG;
}

static int fill(int fd, char *buf, size_t *end, size_t size, bool *eof)
{
	ssize_t n;

	do
		n = read(fd, buf + *end, size - *end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		*eof = true;
	*end += (size_t)n;
	return (int)n;
}

int sl_log_input_foreach(struct splitlock_ctx *ctx, int fd,
			 enum splitlock_input_format *format,
			 sl_log_record_fn fn, void *data,
			 splitlock_progress_fn progress, void *progress_data,
			 uint64_t *malformed)
{
	_cleanup_free_ char *buf = malloc(INPUT_BUF);
	_cleanup_free_ char *decoded = malloc(INPUT_BUF + 1);
	struct reader rd = { .ctx = ctx, .fn = fn, .data = data,
			     .malformed = malformed };
	size_t start = 0, end = 0;
	uint64_t bytes = 0, reported = 0;
	bool eof = false, skipping = false, detected = *format != SPLITLOCK_INPUT_AUTO;
	int r;

	if (!buf || !decoded)
		return -ENOMEM;
	rd.decoded = decoded;
	rd.format = *format;
	for (;;) {
		char *last;

		r = fill(fd, buf, &end, INPUT_BUF, &eof);
		if (r < 0)
			return r;
		bytes += (uint64_t)r;
		if (progress && bytes - reported >= PROGRESS_STEP) {
			progress(bytes, progress_data);
			reported = bytes;
		}
		if (!detected) {
			/* Decide on the first full buffer, or all there is. */
			if (end < INPUT_BUF && !eof)
				continue;
			rd.format = *format = detect(buf, end);
			detected = true;
			sl_dbg(ctx, "input format: %s", splitlock_input_format_name(rd.format));
		}
		rd.sep = rd.format == SPLITLOCK_INPUT_KMSG_NUL ? '\0' : '\n';
		if (skipping) {
			char *sep = memchr(buf + start, rd.sep, end - start);

			if (!sep) {
				start = end = 0;
				if (eof)
					break;
				continue;
			}
			start = (size_t)(sep + 1 - buf);
			skipping = false;
		}
		last = memrchr(buf + start, rd.sep, end - start);
		if (last) {
			r = scan_region(&rd, buf + start, last);
			if (r)
				return r < 0 ? r : 0;
			start = (size_t)(last + 1 - buf);
		}
		if (eof) {
			if (end > start) {
				r = handle_line(&rd, buf + start, end - start);
				if (r < 0)
					return r;
			}
			break;
		}
		if (start == 0 && end == INPUT_BUF) {
			/* A line longer than the buffer cannot be a record. */
			sl_dbg(ctx, "skipping a line longer than %u bytes", INPUT_BUF);
			(*malformed)++;
			skipping = true;
			start = end = 0;
			continue;
		}
		memmove(buf, buf + start, end - start);
		end -= start;
		start = 0;
	}
	if (progress)
		progress(bytes, progress_data);
	return 0;
}

static const char *const format_names[] = {
	[SPLITLOCK_INPUT_AUTO] = "auto",
	[SPLITLOCK_INPUT_KMSG] = "kmsg",
	[SPLITLOCK_INPUT_KMSG_NUL] = "kmsg-nul",
	[SPLITLOCK_INPUT_DMESG] = "dmesg",
	[SPLITLOCK_INPUT_JOURNAL] = "journal",
};

_public_ int splitlock_input_format_parse(const char *name,
					  enum splitlock_input_format *format)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
		if (streq(name, format_names[i])) {
			*format = (enum splitlock_input_format)i;
			return 0;
		}
	return -EINVAL;
}

_public_ const char *splitlock_input_format_name(enum splitlock_input_format format)
{
	if ((size_t)format < ARRAY_SIZE(format_names))
		return format_names[format];
	return "unknown";
}
