/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time stamps and prefixes that several saved-log formats share: the
 * kernel's "[sec.usec]", printk caller ids, month names as strftime's %b
 * writes them in the locale of whoever saved the log, clock times, UTC
 * offsets. Pure functions over bytes; every format parser is fuzzed.
 */
#include <pthread.h>
#include <time.h>

#include "log/format.h"

bool sl_stamp_num(const char **pp, const char *end, int max, int64_t *v)
{
	const char *p = *pp;
	int64_t n = 0;
	int digits = 0;

	while (p < end && *p >= '0' && *p <= '9' && digits < max) {
		n = n * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits)
		return false;
	*pp = p;
	*v = n;
	return true;
}

bool sl_stamp_mono(const char *p, const char *end, int64_t *usec)
{
	int64_t sec, frac = 0;
	const char *f;

	while (p < end && *p == ' ')
		p++;
	if (!sl_stamp_num(&p, end, 12, &sec) || p >= end || *p++ != '.')
		return false;
	f = p;
	if (!sl_stamp_num(&p, end, 6, &frac) || p != end)
		return false;
	for (ptrdiff_t d = p - f; d < 6; d++)
		frac *= 10;
	*usec = sec * 1000000 + frac;
	return true;
}

/*
 * Generated from glibc's localedata (abmon of en_US de_DE de_AT fr_FR
 * es_ES it_IT pt_PT pt_BR nl_NL sv_SE da_DK nb_NO fi_FI pl_PL cs_CZ ru_RU
 * uk_UA tr_TR hu_HU ro_RO el_GR): names that mean one month in all of
 * them.
 * Locales that write the month as a number ("12月", "12월") are read as
 * numbers.
 */
static const struct month_name {
	const char *name;
	int month;
} month_names[] = {
	{ "Jän", 0 }, { "ene", 0 }, { "gen", 0 }, { "ian", 0 }, { "jan", 0 },
	{ "jan.", 0 }, { "janv.", 0 }, { "led", 0 }, { "oca", 0 }, { "sty", 0 },
	{ "tammi", 0 }, { "Ιαν", 0 }, { "січ", 0 }, { "янв", 0 }, { "feb", 1 },
	{ "feb.", 1 }, { "febr", 1 }, { "fev", 1 }, { "févr.", 1 },
	{ "helmi", 1 }, { "lut", 1 }, { "úno", 1 }, { "Şub", 1 }, { "Φεβ", 1 },
	{ "лют", 1 }, { "фев", 1 }, { "Mär", 2 }, { "bře", 2 }, { "maalis", 2 },
	{ "mar", 2 }, { "mars", 2 }, { "mrt", 2 }, { "márc", 2 }, { "Μαρ", 2 },
	{ "бер", 2 }, { "мар", 2 }, { "abr", 3 }, { "apr", 3 }, { "april", 3 },
	{ "avril", 3 }, { "dub", 3 }, { "huhti", 3 }, { "kwi", 3 }, { "nis", 3 },
	{ "ápr", 3 }, { "Απρ", 3 }, { "апр", 3 }, { "кві", 3 }, { "kvě", 4 },
	{ "mag", 4 }, { "mai", 4 }, { "maj", 4 }, { "may", 4 }, { "mei", 4 },
	{ "máj", 4 }, { "touko", 4 }, { "Μαΐ", 4 }, { "мая", 4 }, { "тра", 4 },
	{ "cze", 5 }, { "giu", 5 }, { "haz", 5 }, { "iun", 5 }, { "juin", 5 },
	{ "jun", 5 }, { "juni", 5 }, { "jún", 5 }, { "kesä", 5 }, { "čen", 5 },
	{ "Ιουν", 5 }, { "июн", 5 }, { "чер", 5 }, { "heinä", 6 }, { "iul", 6 },
	{ "juil.", 6 }, { "jul", 6 }, { "juli", 6 }, { "júl", 6 }, { "lip", 6 },
	{ "lug", 6 }, { "tem", 6 }, { "čec", 6 }, { "Ιουλ", 6 }, { "июл", 6 },
	{ "лип", 6 }, { "Ağu", 7 }, { "ago", 7 }, { "août", 7 }, { "aug", 7 },
	{ "aug.", 7 }, { "elo", 7 }, { "sie", 7 }, { "srp", 7 }, { "Αυγ", 7 },
	{ "авг", 7 }, { "сер", 7 }, { "eyl", 8 }, { "sep", 8 }, { "sep.", 8 },
	{ "sept.", 8 }, { "set", 8 }, { "syys", 8 }, { "szept", 8 }, { "wrz", 8 },
	{ "zář", 8 }, { "Σεπ", 8 }, { "вер", 8 }, { "сен", 8 }, { "eki", 9 },
	{ "loka", 9 }, { "oct", 9 }, { "oct.", 9 }, { "okt", 9 }, { "okt.", 9 },
	{ "ott", 9 }, { "out", 9 }, { "paź", 9 }, { "říj", 9 }, { "Οκτ", 9 },
	{ "жов", 9 }, { "окт", 9 }, { "kas", 10 }, { "lis", 10 },
	{ "marras", 10 }, { "nov", 10 }, { "nov.", 10 }, { "Νοε", 10 },
	{ "лис", 10 }, { "ноя", 10 }, { "ara", 11 }, { "dec", 11 },
	{ "des.", 11 }, { "dez", 11 }, { "dic", 11 }, { "déc.", 11 },
	{ "gru", 11 }, { "joulu", 11 }, { "pro", 11 }, { "Δεκ", 11 },
	{ "гру", 11 }, { "дек", 11 },
};

/* A byte with ASCII's capitals made small, as strncasecmp() compares. */
static inline unsigned char fold_ascii(char c)
{
	return (unsigned char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

/*
 * The names by their first byte: every word of a line may be asked
 * (log/join.c looks for a head anywhere in a line's first bytes), and a
 * pass over all names for each took half of a syslog file's reading.
 */
static struct month_index {
	uint8_t n;
	uint8_t at[24];
} month_index[256];
static pthread_once_t month_index_once = PTHREAD_ONCE_INIT;

static void month_index_build(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(month_names); i++) {
		struct month_index *ix = &month_index[fold_ascii(month_names[i].name[0])];

		/* 17 names at most share a first byte (Cyrillic's 0xd0) */
		if (ix->n < sizeof(ix->at))
			ix->at[ix->n++] = (uint8_t)i;
	}
}

size_t sl_stamp_month(const char *p, const char *end, int *month)
{
	const char *q = p;
	int64_t n;
	size_t len;

	if (sl_stamp_num(&q, end, 2, &n)) {
		/* "月" (CJK) and "월" (Hangul) in UTF-8 */
		if (n >= 1 && n <= 12 && end - q >= 3 &&
		    (memcmp(q, "\xe6\x9c\x88", 3) == 0 || memcmp(q, "\xec\x9b\x94", 3) == 0)) {
			*month = (int)n - 1;
			return (size_t)(q + 3 - p);
		}
		return 0;
	}
	while (q < end && *q != ' ')
		q++;
	len = (size_t)(q - p);
	/*
	 * Every word of a line may be asked (log/join.c looks for a head
	 * anywhere in a line's first bytes): the first byte and the length
	 * turn most away before a comparison. No name is longer than 8 bytes.
	 */
	if (len >= 3 && len <= 8) {
		const struct month_index *ix;

		pthread_once(&month_index_once, month_index_build);
		ix = &month_index[fold_ascii(*p)];
		for (size_t k = 0; k < ix->n; k++) {
			const struct month_name *mn = &month_names[ix->at[k]];

			if (strlen(mn->name) == len && strncasecmp(mn->name, p, len) == 0) {
				*month = mn->month;
				return len;
			}
		}
	}
	/*
	 * A locale not in the table ("gruod." in lt_LT): a word where the
	 * month stands. The stamp is still recognized; it only dates nothing.
	 */
	if (len && len <= 16 && (unsigned char)*p > '9') {
		*month = -1;
		return len;
	}
	return 0;
}

bool sl_stamp_clock(const char **pp, const char *end, int *h, int *m, int *s,
		    int64_t *usec_frac, bool *has_frac)
{
	const char *p = *pp, *f;
	int64_t v[3], frac = 0;

	for (int i = 0; i < 3; i++) {
		const char *start = p;

		if (!sl_stamp_num(&p, end, 2, &v[i]) || p - start != 2)
			return false;
		if (i < 2 && (p >= end || *p++ != ':'))
			return false;
	}
	if (v[0] > 23 || v[1] > 59 || v[2] > 60)
		return false;
	*has_frac = false;
	if (p + 1 < end && (*p == '.' || *p == ',') && p[1] >= '0' && p[1] <= '9') {
		p++;
		f = p;
		if (!sl_stamp_num(&p, end, 9, &frac))
			return false;
		while (p - f > 6) {
			frac /= 10;
			f++;
		}
		for (ptrdiff_t d = p - f; d < 6; d++)
			frac *= 10;
		*has_frac = true;
	}
	*h = (int)v[0];
	*m = (int)v[1];
	*s = (int)v[2];
	*usec_frac = frac;
	*pp = p;
	return true;
}

/*
 * The last minute converted, per thread: glibc's mktime() and
 * localtime_r() look at /etc/localtime again on every call (a stat each,
 * where TZ is not set), and a log's lines come many to a minute. Zones
 * change their offsets on a minute's start.
 */
struct local_minute {
	bool valid;
	int year, mon, mday, h, m, isdst;
	time_t minute;
	long zone; /* timezone, which tzset() sets: another zone asked for */
};
/* Two: a yearless stamp is converted in two years to choose one
 * (log/syslog-stamp.c). */
static __thread struct local_minute local_minutes[2];
static __thread unsigned local_minute_next;

int64_t sl_stamp_local_dst(int year, int mon, int mday, int h, int m, int s, int isdst)
{
	struct local_minute *lm = NULL;

	if (mon < 0)
		return SPLITLOCK_TIME_UNKNOWN;
	for (size_t i = 0; i < ARRAY_SIZE(local_minutes); i++) {
		struct local_minute *c = &local_minutes[i];

		if (c->valid && c->year == year && c->mon == mon && c->mday == mday && c->h == h &&
		    c->m == m && c->isdst == isdst && c->zone == timezone && s >= 0 && s <= 59)
			lm = c;
	}
	if (!lm) {
		struct tm tm = { .tm_year = year - 1900, .tm_mon = mon, .tm_mday = mday,
				 .tm_hour = h, .tm_min = m, .tm_sec = 0, .tm_isdst = isdst };
		time_t t = mktime(&tm);

		/* Normalized (a day 31 of a 30-day month, 24:00) or not
		 * known: asked whole, not remembered. */
		if (t == (time_t)-1 || tm.tm_mday != mday || tm.tm_hour != h || tm.tm_min != m ||
		    s < 0 || s > 59) {
			struct tm whole = { .tm_year = year - 1900, .tm_mon = mon, .tm_mday = mday,
					    .tm_hour = h, .tm_min = m, .tm_sec = s, .tm_isdst = isdst };

			t = mktime(&whole);
			return t == (time_t)-1 ? SPLITLOCK_TIME_UNKNOWN : (int64_t)t * 1000000;
		}
		lm = &local_minutes[local_minute_next++ % ARRAY_SIZE(local_minutes)];
		*lm = (struct local_minute){ .valid = true, .year = year, .mon = mon, .mday = mday,
					     .h = h, .m = m, .isdst = isdst, .minute = t,
					     .zone = timezone };
	}
	return ((int64_t)lm->minute + s) * 1000000;
}

int64_t sl_stamp_local(int year, int mon, int mday, int h, int m, int s)
{
	return sl_stamp_local_dst(year, mon, mday, h, m, s, -1);
}

static bool same_local_clock(time_t a, time_t b)
{
	struct tm ta, tb;

	return localtime_r(&a, &ta) && localtime_r(&b, &tb) && ta.tm_hour == tb.tm_hour &&
	       ta.tm_min == tb.tm_min && ta.tm_sec == tb.tm_sec && ta.tm_mday == tb.tm_mday;
}

/* The last minute folded, per thread, and what its fold added (see
 * local_minutes). */
static __thread struct {
	bool valid;
	time_t minute;
	long zone;
	int64_t wall, grain;
} fold_minute;

static void local_fold(int64_t *wall, int64_t *grain);

void sl_stamp_local_fold(int64_t *wall, int64_t *grain)
{
	int64_t w, g;
	time_t minute;

	if (*wall == SPLITLOCK_TIME_UNKNOWN)
		return;
	minute = (time_t)(*wall / 1000000) - (time_t)(*wall / 1000000) % 60;
	if (*wall < 0 || !fold_minute.valid || fold_minute.minute != minute ||
	    fold_minute.zone != timezone) {
		w = (int64_t)minute * 1000000;
		g = 0;
		local_fold(&w, &g);
		fold_minute.valid = *wall >= 0;
		fold_minute.minute = minute;
		fold_minute.zone = timezone;
		fold_minute.wall = w - (int64_t)minute * 1000000;
		fold_minute.grain = g;
	}
	*wall += fold_minute.wall;
	*grain += fold_minute.grain;
}

static void local_fold(int64_t *wall, int64_t *grain)
{
	struct tm before, after;
	time_t t, back;

	t = (time_t)(*wall / 1000000);
	/* The time a fall back repeats (an hour; 30 minutes at Lord Howe,
	 * two at Troll): the clock shows it twice, that far apart; which one
	 * a line means, its stamp does not say. */
	for (time_t around = t - 3 * 3600; around <= t; around += 3 * 3600) {
		time_t a = around, b = around + 3 * 3600;

		if (!localtime_r(&a, &before) || !localtime_r(&b, &after) ||
		    before.tm_gmtoff <= after.tm_gmtoff)
			continue;
		back = (time_t)(before.tm_gmtoff - after.tm_gmtoff);
		if (same_local_clock(t, t + back)) {
			*grain += (int64_t)back * 1000000;
			return;
		}
		if (same_local_clock(t - back, t)) {
			*wall -= (int64_t)back * 1000000;
			*grain += (int64_t)back * 1000000;
			return;
		}
	}
}

int64_t sl_stamp_utc(int year, int mon, int mday, int h, int m, int s)
{
	struct tm tm = { .tm_year = year - 1900, .tm_mon = mon, .tm_mday = mday,
			 .tm_hour = h, .tm_min = m, .tm_sec = s };
	time_t t = timegm(&tm);

	return t == (time_t)-1 ? SPLITLOCK_TIME_UNKNOWN : (int64_t)t * 1000000;
}

bool sl_stamp_offset(const char **pp, const char *end, int *seconds)
{
	const char *p = *pp;
	int64_t hh, mm;
	int sign;

	if (p < end && *p == 'Z') {
		*seconds = 0;
		*pp = p + 1;
		return true;
	}
	if (p >= end || (*p != '+' && *p != '-'))
		return false;
	sign = *p++ == '-' ? -1 : 1;
	if (!sl_stamp_num(&p, end, 2, &hh))
		return false;
	if (p < end && *p == ':')
		p++;
	if (!sl_stamp_num(&p, end, 2, &mm) || hh > 23 || mm > 59)
		return false;
	*seconds = sign * (int)(hh * 3600 + mm * 60);
	*pp = p;
	return true;
}

const char *sl_syslog_pri(const char *p, const char *end, int *pri)
{
	int64_t v;

	/* Facility 0..0xffff and level: at most 0x7ffff, seven digits. */
	if (p >= end || *p++ != '<' || !sl_stamp_num(&p, end, 7, &v) ||
	    v > 0x7ffff || p >= end || *p++ != '>')
		return NULL;
	*pri = (int)v;
	return p;
}

const char *sl_skip_caller_id(const char *p, const char *end)
{
	const char *q = p;
	int64_t id;

	if (q < end && *q == ' ')
		q++;
	if (q >= end || *q++ != '[')
		return p;
	while (q < end && *q == ' ')
		q++;
	if (q >= end || (*q != 'T' && *q != 'C'))
		return p;
	q++;
	if (!sl_stamp_num(&q, end, 10, &id) || q >= end || *q++ != ']')
		return p;
	if (q < end && *q == ' ')
		q++;
	return q;
}

const char *sl_skip_kernel_stamp(const char *p, const char *end, int64_t *usec)
{
	const char *close;

	if (p >= end || *p != '[')
		return p;
	close = memchr(p, ']', (size_t)(end - p));
	if (!close || close - p > 24 || !sl_stamp_mono(p + 1, close, usec))
		return p;
	p = close + 1;
	if (p < end && *p == ' ')
		p++;
	return p;
}

uint64_t sl_boot_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

const char *sl_stamp_rfc3339(const char *p, const char *end, int64_t *wall)
{
	const char *q = p;
	int64_t y, mo, d, frac;
	int h, m, s, off;
	bool has_frac;

	if (!sl_stamp_num(&q, end, 4, &y) || q - p != 4 || q >= end || *q++ != '-' ||
	    !sl_stamp_num(&q, end, 2, &mo) || q >= end || *q++ != '-' ||
	    !sl_stamp_num(&q, end, 2, &d) || q >= end || *q++ != 'T' ||
	    !sl_stamp_clock(&q, end, &h, &m, &s, &frac, &has_frac) ||
	    !sl_stamp_offset(&q, end, &off) || q >= end || *q != ' ' ||
	    mo < 1 || mo > 12)
		return NULL;
	*wall = sl_stamp_utc((int)y, (int)mo - 1, (int)d, h, m, s);
	if (*wall != SPLITLOCK_TIME_UNKNOWN)
		*wall += frac - (int64_t)off * 1000000;
	return q + 1;
}

int64_t sl_stamp_grain(const char *p, const char *end)
{
	/* "HH:MM:SS" then its fraction; or the seconds of a Unix time. */
	for (const char *q = p; q < end; q++) {
		const char *f;
		int64_t grain = INT64_C(1000000);

		if (*q != '.' && *q != ',')
			continue;
		if (q == p || q[-1] < '0' || q[-1] > '9')
			continue;
		for (f = q + 1; f < end && *f >= '0' && *f <= '9'; f++)
			if (grain > 1)
				grain /= 10;
		if (f == q + 1)
			continue;
		return grain - 1;
	}
	return INT64_C(1000000) - 1;
}

const char *sl_skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

const char *sl_skip_nuls(const char *p, const char *end)
{
	while (p < end && *p == '\0')
		p++;
	return p;
}

/* Blanks before the first line's text: a log pasted into a forum or mail. */
size_t sl_first_line_indent(const char *p, const char *end)
{
	const char *q;

	while (p < end && (*p == '\n' || *p == '\0'))
		p++;
	q = sl_skip_blanks(p, end);
	return (size_t)(q - p);
}
