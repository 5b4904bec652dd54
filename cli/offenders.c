/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders: who trips the detector, from the kernel log, live or
 * saved. The library parses and aggregates; this file chooses, prints and
 * follows.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <libsmartcols.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "name-table.h"
#include "offenders-fit.h"
#include "packed-log.h"
#include "slctl.h"

enum format { FORMAT_TABLE, FORMAT_JSON, FORMAT_PROMETHEUS };

/* The "version" of the JSON report: raised when a key changes meaning. */
#define OFFENDERS_JSON_VERSION 1

static const struct name_table format_names[] = {
	{ FORMAT_TABLE, "table" },
	{ FORMAT_JSON, "json" },
	{ FORMAT_PROMETHEUS, "prometheus" },
};

static DEFINE_NAME_TABLE_PARSE(format_parse, format_names, enum format)

/* The column catalogue, as util-linux tools keep it. */
enum {
	COL_COMM, COL_PID, COL_TGID, COL_KIND, COL_ACTION, COL_EVENTS,
	COL_FIRST, COL_LAST, COL_IPS, COL_EXE, COL_CMDLINE, COL_UNIT,
};

static const struct column {
	const char *name;
	double whint;
	int flags;
	const char *help;
} columns[] = {
	[COL_COMM] = { "COMM", 0.1, SCOLS_FL_TRUNC, "task name as the kernel printed it" },
	[COL_PID] = { "PID", 5, SCOLS_FL_RIGHT, "task id the kernel printed (TGID for --group-by process)" },
	[COL_TGID] = { "TGID", 5, SCOLS_FL_RIGHT, "thread group of the live process" },
	[COL_KIND] = { "KIND", 10, 0, "split_lock (#AC) or bus_lock (#DB)" },
	[COL_ACTION] = { "ACTION", 6, 0, "warn, fatal or sigbus" },
	[COL_EVENTS] = { "EVENTS", 6, SCOLS_FL_RIGHT, "events in the log" },
	[COL_FIRST] = { "FIRST", 19, 0, "first event (local time, or [seconds since boot])" },
	[COL_LAST] = { "LAST", 19, 0, "last event" },
	[COL_IPS] = { "IPS", 0.3, SCOLS_FL_TRUNC, "trap addresses, as object+offset when known" },
	[COL_EXE] = { "EXE", 0.2, SCOLS_FL_TRUNC, "executable of the live process" },
	[COL_CMDLINE] = { "CMDLINE", 0.3, SCOLS_FL_TRUNC, "command line of the live process" },
	[COL_UNIT] = { "UNIT", 0.2, SCOLS_FL_TRUNC, "systemd unit or container" },
};

struct options {
	const char *input;
	enum splitlock_input_format input_format;
	bool input_format_set;
	enum splitlock_group group;
	bool group_set;
	const char *since, *until;
	size_t top;
	bool follow;
	enum format format;
	bool format_set;
	int cols[32];
	size_t n_cols;
	bool cols_set;
	bool noheadings, raw, full;
	enum fit_time_form time_form; /* FIRST and LAST, as the terminal's width allows */
};

static void usage(FILE *out)
{
	fputs("Usage: slctl offenders [OPTIONS]\n\n"
	      "Report which tasks took split-lock and bus-lock traps, from the\n"
	      "running boot's kernel log (/dev/kmsg) or a saved log.\n\n"
	      "Options:\n"
	      "  -i, --input FILE          read a saved log ('-': stdin): /dev/kmsg records,\n"
	      "                            dmesg text or JSON, syslog files, any journalctl -o\n"
	      "      --input-format FMT    with --input: auto (default), kmsg, kmsg-nul, dmesg,\n"
	      "                            dmesg-json, syslog, journal-text, journal (JSON),\n"
	      "                            journal-export, journal-verbose\n"
	      "  -g, --group-by KEY        task (default for --input), process (default\n"
	      "                            for the live log), comm, exe, unit\n"
	      "  -S, --since TIME          boot, now, today, yesterday, HH:MM, -2h,\n"
	      "                            'YYYY-MM-DD HH:MM[:SS]', '1h 30min ago', @EPOCH\n"
	      "                            (as journalctl)\n"
	      "  -U, --until TIME          same forms\n"
	      "  -t, --top N               only the N offenders with most events\n"
	      "  -f, --follow              print events as they happen (live log only)\n"
	      "  -F, --format FMT          table (default), json, prometheus\n"
	      "  -o, --output COLS         table columns, comma-separated (see below)\n"
	      "  -n, --noheadings          no table header; the summary goes to stderr\n"
	      "  -r, --raw                 raw table output; the summary goes to stderr\n"
	      "  -l, --full                on a terminal too, every column and every byte\n"
	      "      --json                same as --format json (-o chooses its keys)\n\n"
	      "Columns:\n", out);
	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		fprintf(out, "  %8s  %s\n", columns[i].name, columns[i].help);
	fputs("\nThe report says how many events the kernel's rate limit suppressed:\n"
	      "the log is incomplete by that much. See slctl(8).\n", out);
}

static int column_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		if (strlen(columns[i].name) == len && strncasecmp(columns[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static int parse_columns(struct options *o, const char *list)
{
	o->n_cols = 0;
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int c = column_by_name(p, len);

		/* An empty name ("", "A,,B", a trailing comma) is no column either. */
		if (len == 0) {
			slctl_usage_error("offenders", "--output needs a comma-separated list of "
					  "column names, without empty ones.");
			return -1;
		}
		if (c < 0 || o->n_cols >= 32) {
			slctl_usage_error("offenders", "unknown column '%.*s'.", (int)len, p);
			return -1;
		}
		o->cols[o->n_cols++] = c;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

/* ---- time -------------------------------------------------------------- */

static void format_mono(int64_t usec, char *buf, size_t size)
{
	char d[32];
	size_t at = sizeof(d);
	uint64_t v = (uint64_t)usec;

	/* Two per offender in a report of thousands: no snprintf(). */
	if (usec < 0 || size < sizeof(d)) {
		snprintf(buf, size, "%" PRId64 ".%06" PRId64, usec / 1000000, usec % 1000000);
		return;
	}
	d[--at] = '\0';
	for (int i = 0; i < 6; i++, v /= 10)
		d[--at] = (char)('0' + v % 10);
	d[--at] = '.';
	do {
		d[--at] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, d + at, sizeof(d) - at);
}

/*
 * "%Y-%m-%dT%H:%M:%S.uuuuuuZ" as gmtime_r() and strftime() write it, for
 * years 1970 to 9999 (days to a date: H. Hinnant's civil_from_days()):
 * two a JSON offender, and strftime() was a tenth of a journal log's report.
 * False for other times, which take the library's way.
 */
static bool civil_utc(int64_t usec, char *buf, size_t size)
{
	int64_t secs, days, rem, era, doe, yoe, y, doy, mp, d, m;
	char *o = buf;

	if (usec < 0 || size < sizeof("YYYY-MM-DDTHH:MM:SS.uuuuuuZ"))
		return false;
	secs = usec / 1000000;
	days = secs / 86400;
	rem = secs % 86400;
	days += 719468;
	era = days / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	if (y > 9999)
		return false;
#define DIGITS(v, n) do { for (int i_ = (n) - 1; i_ >= 0; i_--) { \
		o[i_] = (char)('0' + (v) % 10); (v) /= 10; } o += (n); } while (0)
	{
		int64_t hh = rem / 3600, mm = rem / 60 % 60, ss = rem % 60, us = usec % 1000000;

		DIGITS(y, 4);
		*o++ = '-';
		DIGITS(m, 2);
		*o++ = '-';
		DIGITS(d, 2);
		*o++ = 'T';
		DIGITS(hh, 2);
		*o++ = ':';
		DIGITS(mm, 2);
		*o++ = ':';
		DIGITS(ss, 2);
		*o++ = '.';
		DIGITS(us, 6);
	}
#undef DIGITS
	*o++ = 'Z';
	*o = '\0';
	return true;
}

static void format_wall(int64_t usec, bool utc_iso, char *buf, size_t size)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (utc_iso && civil_utc(usec, buf, size))
		return;
	if (utc_iso) {
		gmtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf + strlen(buf), size - strlen(buf), ".%06" PRId64 "Z",
			 usec % 1000000);
	} else {
		localtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	}
}

/*
 * A time in the table, in @form: shorter forms leave out the year, then
 * the seconds ("12-01 00:00"); a time since boot keeps milliseconds, then
 * whole seconds. Digits are left out, never rounded up: a shorter time is
 * never a later one.
 */
static void format_when(int64_t mono, int64_t wall, enum fit_time_form form,
			char *buf, size_t size)
{
	size_t len;

	if (wall != SPLITLOCK_TIME_UNKNOWN) {
		format_wall(wall, false, buf, size);
		if (form != FIT_TIME_FULL && strlen(buf) == 19) {
			memmove(buf, buf + 5, 15); /* "YYYY-" */
			if (form == FIT_TIME_MINUTES)
				buf[11] = '\0';
		}
	} else if (mono != SPLITLOCK_TIME_UNKNOWN) {
		buf[0] = '[';
		format_mono(mono, buf + 1, size - 2);
		len = strlen(buf);
		if (form == FIT_TIME_NO_YEAR && len > 4)
			len -= 3;
		else if (form == FIT_TIME_MINUTES && len > 8)
			len -= 7; /* ".uuuuuu" */
		buf[len] = ']';
		buf[len + 1] = '\0';
	} else {
		snprintf(buf, size, "-");
	}
}

/* ---- output ------------------------------------------------------------ */

/*
 * Text from a process for a terminal, escaped exactly as the table's cells
 * are: libsmartcols runs every cell through util-linux's
 * mbs_safe_encode_to_buffer() (lib/mbsalign.c), which in the C locale slctl
 * runs in writes a byte that is not isprint() as \xNN, a backslash as \x5c
 * only where an "x" follows (so that "\x1b" typed by a process cannot pass
 * for an escaped byte), and copies the rest. A NUL, which would cut a cell,
 * is '?' in both.
 */
static void printable(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = s[i] ? (unsigned char)s[i] : '?';

		if (c < 0x20 || c >= 0x7f || (c == '\\' && i + 1 < len && s[i + 1] == 'x'))
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
}

/*
 * @s after the @used bytes of @buf, as snprintf(buf + used, size - used,
 * "%s", s) writes it (cut to fit, NUL-terminated); its full length. A
 * table of tens of thousands of rows is measured and then printed: two
 * snprintf() calls a cell were a third of its time.
 */
static size_t append(char *buf, size_t size, size_t used, const char *s)
{
	size_t len = strlen(s), room = size - used - 1;

	memcpy(buf + used, s, len < room ? len : room);
	buf[used + (len < room ? len : room)] = '\0';
	return len;
}

/* "%" PRIu64, the same way. */
static void decimal(uint64_t v, char *buf, size_t size)
{
	char d[24];
	size_t at = sizeof(d);

	d[--at] = '\0';
	do {
		d[--at] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	append(buf, size, 0, d + at);
}

static void cell(const struct options *o, const struct splitlock_offender *of,
		 int col, char *buf, size_t size)
{
	size_t len, used;
	const char *s;

	buf[0] = '\0';
	switch (col) {
	case COL_COMM:
		/* libsmartcols escapes unsafe bytes itself; a NUL would cut. */
		s = splitlock_offender_get_comm(of, &len);
		if (!s) {
			append(buf, size, 0, "-"); /* tasks of several names */
			break;
		}
		for (size_t i = 0; i < len && i + 1 < size; i++)
			buf[i] = s[i] ? s[i] : '?';
		buf[len < size ? len : size - 1] = '\0';
		break;
	case COL_PID:
		if (splitlock_offender_get_pid(of))
			decimal(splitlock_offender_get_pid(of), buf, size);
		else
			append(buf, size, 0, "-"); /* several tasks */
		break;
	case COL_TGID:
		if (splitlock_offender_get_tgid(of))
			decimal(splitlock_offender_get_tgid(of), buf, size);
		break;
	case COL_KIND:
		append(buf, size, 0, splitlock_kind_name(splitlock_offender_get_kind(of)));
		break;
	case COL_ACTION:
		/* The probe's own split locks are no one's offence. */
		used = append(buf, size, 0, splitlock_action_name(splitlock_offender_get_action(of)));
		if (splitlock_offender_is_probe(of) && used < size - 1)
			append(buf, size, used, " (probe)");
		break;
	case COL_EVENTS:
		decimal(splitlock_offender_get_events(of), buf, size);
		break;
	case COL_FIRST:
		format_when(splitlock_offender_get_first_seen(of),
			    splitlock_offender_get_first_wall(of), o->time_form, buf, size);
		break;
	case COL_LAST:
		format_when(splitlock_offender_get_last_seen(of),
			    splitlock_offender_get_last_wall(of), o->time_form, buf, size);
		break;
	case COL_IPS:
		used = 0;
		for (size_t i = 0; i < splitlock_offender_get_ip_count(of); i++) {
			/* A piece that does not fit is cut, and the last. */
			size_t n = i ? append(buf, size, used, " ") : 0;

			if (n >= size - used)
				break;
			n += append(buf, size, used + n, splitlock_offender_get_ip(of, i));
			if (n >= size - used)
				break;
			used += n;
		}
		break;
	case COL_EXE:
		snprintf(buf, size, "%s", splitlock_offender_get_exe(of) ?: "");
		break;
	case COL_CMDLINE:
		snprintf(buf, size, "%s", splitlock_offender_get_cmdline(of) ?: "");
		break;
	case COL_UNIT:
		s = splitlock_offender_get_container(of);
		snprintf(buf, size, "%s", s ? s : splitlock_offender_get_unit(of) ?: "");
		break;
	}
}

static size_t shown(const struct options *o, const struct splitlock_offenders *r)
{
	size_t n = splitlock_offenders_get_count(r);

	return o->top && o->top < n ? o->top : n;
}

/* Events a --since/--until window could not place: the log gives no time. */
static const char *undated_sentence(const struct splitlock_offenders *r)
{
	static char buf[256];
	uint64_t n = splitlock_offenders_get_undated(r);

	snprintf(buf, sizeof(buf), "%" PRIu64 " event%s no wall-clock time in this log's "
		 "form, so --since/--until cannot place %s and this report is incomplete "
		 "(dmesg -T and the journal's forms have one)", n, n == 1 ? " has" : "s have",
		 n == 1 ? "it" : "them");
	return buf;
}

/* Never silently incomplete: say how much detector text was not read. */
static void print_unrecognized(FILE *out, const struct splitlock_offenders *r)
{
	uint64_t first, n = splitlock_offenders_get_unrecognized(r, &first);

	if (n && first)
		fprintf(out, "%" PRIu64 " line%s with detector text could not be read (the first "
		       "is line %" PRIu64 "), so this report is incomplete.\n",
		       n, n == 1 ? "" : "s", first);
	else if (n)
		fprintf(out, "%" PRIu64 " line%s with detector text could not be read, so this "
		       "report is incomplete.\n", n, n == 1 ? "" : "s");
	if (splitlock_offenders_get_undated(r))
		fprintf(out, "%s.\n", undated_sentence(r));
	if (splitlock_offenders_get_alignment_checks(r))
		fprintf(out, "%" PRIu64 " alignment-check kill%s outside fatal mode left out: "
		       "programs that set the AC flag themselves, not split locks.\n",
		       splitlock_offenders_get_alignment_checks(r),
		       splitlock_offenders_get_alignment_checks(r) == 1 ? "" : "s");
}

/*
 * libsmartcols holds every cell of a table until it prints: a few hundred
 * bytes a row, gigabytes for a log of millions of tasks. Larger reports
 * are streamed, row by row, in columns measured over all rows first.
 */
#define TABLE_CHUNK 4096

/* The width libsmartcols gives a cell in the C locale: its escaped form. */
static size_t cell_width(const char *s)
{
	size_t w = 0;

	for (size_t i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		w += c < 0x20 || c >= 0x7f || (c == '\\' && s[i + 1] == 'x') ? 4 : 1;
	}
	return w;
}

/*
 * What marks a cell cut to fit the terminal, as systemd's tools mark it:
 * "…" where the terminal's character set is UTF-8, "..." elsewhere. slctl
 * runs in the C locale, where libsmartcols escapes every byte that is not
 * printable ASCII: only the marker is written as it is, by stream_rows().
 */
static const char *cut_marker(size_t *width)
{
	static const char *marker;
	const char *charset;

	if (!marker) {
		setlocale(LC_CTYPE, "");
		charset = nl_langinfo(CODESET);
		marker = strcasecmp(charset, "UTF-8") == 0 || strcasecmp(charset, "utf8") == 0 ?
			 "\xe2\x80\xa6" : "...";
		setlocale(LC_CTYPE, "C");
	}
	*width = marker[0] == '.' ? 3 : 1;
	return marker;
}

/*
 * Cut @esc, a cell as escaped for the terminal (printable ASCII, "\\xNN"
 * four columns that stay whole), so that it and a marker @marker_width
 * wide fit @width; false when it fits whole. A list of addresses (@words)
 * keeps the whole ones that fit and never shows part of one: a cut
 * "0xffffff" reads as another address, marked or not. When not even the
 * first fits, the marker stands alone.
 */
static bool cut_escaped(char *esc, size_t width, bool words, size_t marker_width)
{
	size_t room = width > marker_width ? width - marker_width : 0, space = 0;
	bool has_space = false;

	if (strlen(esc) <= width)
		return false;
	for (size_t i = 0;;) {
		size_t unit = esc[i] == '\\' && esc[i + 1] == 'x' ? 4 : 1;

		if (i + unit > room) {
			esc[!words ? i : has_space ? space + 1 : 0] = '\0';
			return true;
		}
		if (esc[i] == ' ') {
			space = i;
			has_space = true;
		}
		i += unit;
	}
}

/* Columns whose text may be cut to fit a terminal: never numbers or times. */
static bool truncatable(int col)
{
	return col == COL_COMM || col == COL_IPS || col == COL_EXE ||
	       col == COL_CMDLINE || col == COL_UNIT;
}

/*
 * The terminal's width when stdout is one and the table may be cut to it
 * (not --full, not --raw); 0 otherwise: a pipe or a file gets every byte
 * and no line is wrapped.
 */
static size_t terminal_width(const struct options *o)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (o->full || o->raw || !isatty(STDOUT_FILENO))
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env && atoi(env) > 0)
		return (size_t)atoi(env);
	return 80;
}

/*
 * What a column needs to stay useful on a terminal, and which go first
 * when even that does not fit: the command line, the unit, the
 * executable, the thread group, the first event's time. The name, the
 * task, what it did, how often, when last and where stay.
 */
static void fit_rules(int col, struct fit_column *f)
{
	f->kind = col == COL_FIRST || col == COL_LAST ? FIT_TIME :
		  col == COL_IPS ? FIT_ADDRESSES : truncatable(col) ? FIT_TEXT : FIT_FIXED;
	f->heading = strlen(columns[col].name);
	switch (col) {
	case COL_COMM:
		f->readable = 15; /* a whole name: the kernel keeps 15 bytes */
		break;
	case COL_EXE:
	case COL_CMDLINE:
	case COL_UNIT:
		f->readable = 20;
		break;
	default:
		f->readable = 0; /* IPS: measured, the first address of each row */
	}
	f->drop = col == COL_CMDLINE ? 5 : col == COL_UNIT ? 4 : col == COL_EXE ? 3 :
		  col == COL_TGID ? 2 : col == COL_FIRST ? 1 : 0;
}

/*
 * The widest cell of each column, whole, in @widths; with @fit (a
 * terminal's table) what fit_columns() needs too: each time form's
 * width, the first address of each row with the marker after it.
 * @hints: an absolute hint is the least width, as libsmartcols has it.
 */
static void measure(const struct options *o, const struct splitlock_offenders *r,
		    size_t n, size_t *widths, bool hints, struct fit_column *fit)
{
	struct options forms = *o;
	size_t marker_width = 0;
	char buf[4096];

	if (fit)
		cut_marker(&marker_width);
	for (size_t i = 0; i < o->n_cols; i++) {
		widths[i] = hints && columns[o->cols[i]].whint >= 1 ?
			    (size_t)columns[o->cols[i]].whint : 1;
		if (fit) {
			memset(&fit[i], 0, sizeof(fit[i]));
			fit_rules(o->cols[i], &fit[i]);
		}
	}
	for (size_t i = 0; i < o->n_cols && !o->noheadings; i++)
		if (strlen(columns[o->cols[i]].name) > widths[i])
			widths[i] = strlen(columns[o->cols[i]].name);
	for (size_t k = 0; k < n; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);

		for (size_t i = 0; i < o->n_cols; i++) {
			int col = o->cols[i];
			size_t w;

			cell(o, of, col, buf, sizeof(buf));
			if (cell_width(buf) > widths[i])
				widths[i] = cell_width(buf);
			if (!fit)
				continue;
			if (col == COL_FIRST || col == COL_LAST) {
				for (int t = 0; t < _FIT_TIME_FORMS; t++) {
					forms.time_form = (enum fit_time_form)t;
					cell(&forms, of, col, buf, sizeof(buf));
					if (cell_width(buf) > fit[i].time_width[t])
						fit[i].time_width[t] = cell_width(buf);
				}
			} else if (col == COL_IPS && splitlock_offender_get_ip_count(of)) {
				w = cell_width(splitlock_offender_get_ip(of, 0));
				if (splitlock_offender_get_ip_count(of) > 1)
					w += 1 + marker_width;
				if (w > fit[i].readable)
					fit[i].readable = w;
			}
		}
	}
	for (size_t i = 0; fit && i < o->n_cols; i++) {
		fit[i].natural = widths[i];
		if (fit[i].readable > widths[i])
			fit[i].readable = widths[i];
	}
}

/* @widths: pinned column widths (NULL: libsmartcols chooses). */
static int print_rows(const struct options *o, const struct splitlock_offenders *r,
		      size_t from, size_t to, const size_t *widths)
{
	struct libscols_table *tb = scols_new_table();
	char buf[4096];

	if (!tb)
		return -ENOMEM;
	scols_table_enable_noheadings(tb, o->noheadings || from > 0);
	scols_table_enable_raw(tb, o->raw);
	/* Rows end where their text does, as in the streamed table. */
	scols_table_enable_minout(tb, 1);
	/* A terminal's table is cut by stream_rows(); --full keeps every byte. */
	if (o->full)
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	for (size_t i = 0; i < o->n_cols; i++) {
		const struct column *c = &columns[o->cols[i]];
		if (!scols_table_new_column(tb, c->name, widths ? (double)widths[i] : c->whint,
					    c->flags)) {
			scols_unref_table(tb);
			return -ENOMEM;
		}
	}
	for (size_t k = from; k < to; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln) {
			scols_unref_table(tb);
			return -ENOMEM;
		}
		for (size_t i = 0; i < o->n_cols; i++) {
			cell(o, of, o->cols[i], buf, sizeof(buf));
			scols_line_set_data(ln, i, buf);
		}
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
}

/*
 * The streamed table's rows gather here and reach stdout 64 KiB at a time:
 * three stdio calls a cell were a fifth of a large table's time.
 */
struct rowbuf {
	size_t len;
	size_t pending; /* padding, written only if text follows on the line */
	char data[64 * 1024];
};

static void rowbuf_flush(struct rowbuf *b)
{
	fwrite_unlocked(b->data, 1, b->len, stdout);
	b->len = 0;
}

static void rowbuf_put(struct rowbuf *b, const char *s, size_t n)
{
	if (n > sizeof(b->data) - b->len) {
		rowbuf_flush(b);
		if (n > sizeof(b->data)) {
			fwrite_unlocked(s, 1, n, stdout);
			return;
		}
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

/* A row ends where its text does: no trailing spaces after empty cells. */
static void rowbuf_pad(struct rowbuf *b, size_t n)
{
	b->pending += n;
}

static void rowbuf_spaces(struct rowbuf *b)
{
	static const char spaces[] = "                                                                ";
	size_t n = b->pending;

	b->pending = 0;
	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		rowbuf_put(b, spaces, k);
		n -= k;
	}
}

/*
 * @text escaped as libsmartcols escapes a cell in the C locale: @text
 * itself when it has nothing to escape (most cells), else @esc.
 */
static const char *escaped(const char *text, char *esc, size_t size)
{
	for (size_t i = 0; text[i]; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c >= 0x7f || (c == '\\' && text[i + 1] == 'x')) {
			printable(text, strlen(text), esc, size);
			return esc;
		}
	}
	return text;
}

/*
 * One cell as libsmartcols lays it out: @out (escaped already), padded
 * unless last; @marker (NULL: none), @marker_width wide, after the text
 * of a cut cell.
 */
static void put_cell(struct rowbuf *b, const char *out, size_t width, bool right, bool last,
		     const char *marker, size_t marker_width)
{
	size_t len = strlen(out), shown;

	shown = len + (marker ? marker_width : 0);
	if (right && shown < width)
		rowbuf_pad(b, width - shown);
	if (shown)
		rowbuf_spaces(b);
	rowbuf_put(b, out, len);
	if (marker)
		rowbuf_put(b, marker, strlen(marker));
	if (!right && !last && shown < width)
		rowbuf_pad(b, width - shown);
	if (last) {
		b->pending = 0;
		rowbuf_put(b, "\n", 1);
	} else {
		rowbuf_pad(b, 1);
	}
}

/*
 * A large report, streamed: memory stays a row and a block, whatever the
 * count. True when a cell was cut.
 */
static bool stream_rows(const struct options *o, const struct splitlock_offenders *r,
			size_t n, const size_t *widths, bool cut)
{
	static struct rowbuf b;
	static char esc[4096 * 4 + 1];
	char buf[4096];
	size_t marker_width = 0;
	const char *marker = cut ? cut_marker(&marker_width) : NULL;
	bool any_cut = false;

	b.len = 0;
	b.pending = 0;
	if (!o->noheadings)
		for (size_t i = 0; i < o->n_cols; i++)
			put_cell(&b, columns[o->cols[i]].name, widths[i],
				 columns[o->cols[i]].flags & SCOLS_FL_RIGHT, i + 1 == o->n_cols,
				 NULL, 0);
	for (size_t k = 0; k < n; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);

		for (size_t i = 0; i < o->n_cols; i++) {
			int col = o->cols[i];
			bool was_cut = false;
			const char *out;

			cell(o, of, col, buf, sizeof(buf));
			out = escaped(buf, esc, sizeof(esc));
			if (cut && truncatable(col) && cell_width(out) > widths[i]) {
				if (out == buf) {
					memcpy(esc, buf, strlen(buf) + 1);
					out = esc;
				}
				was_cut = cut_escaped(esc, widths[i], col == COL_IPS, marker_width);
				any_cut |= was_cut;
			}
			put_cell(&b, out, widths[i], columns[col].flags & SCOLS_FL_RIGHT,
				 i + 1 == o->n_cols, was_cut ? marker : NULL, marker_width);
		}
	}
	rowbuf_flush(&b);
	return any_cut;
}

/* "A, B and C" after the @used bytes of @buf. */
static size_t list_names(char *buf, size_t size, size_t used, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
	return used;
}

/*
 * A terminal's table, fitted (fit_columns()): what was left out and how a
 * cut cell looks, so that nobody takes the table for all there is.
 */
static void print_fitted(const struct options *o, const struct splitlock_offenders *r,
			 size_t n, size_t limit, char *note, size_t size)
{
	struct fit_column fit[32];
	const char *left_out[32];
	size_t widths[32] = { 0 }, shown_widths[32] = { 0 }, n_left = 0, marker_width, used;
	struct options t = *o;
	bool cut, shorter = false;
	const char *marker = cut_marker(&marker_width);

	measure(o, r, n, widths, false, fit);
	t.time_form = fit_columns(fit, o->n_cols, limit);
	t.n_cols = 0;
	for (size_t i = 0; i < o->n_cols; i++) {
		if (fit[i].hidden) {
			left_out[n_left++] = columns[o->cols[i]].name;
			continue;
		}
		shown_widths[t.n_cols] = fit[i].width;
		t.cols[t.n_cols++] = o->cols[i];
	}
	cut = stream_rows(&t, r, n, shown_widths, true);
	for (size_t i = 0; i < t.n_cols; i++)
		shorter |= t.time_form != FIT_TIME_FULL &&
			   (t.cols[i] == COL_FIRST || t.cols[i] == COL_LAST);
	if (!n_left && !cut && !shorter)
		return;
	/* "To fit 80 columns: FIRST and EXE left out; times shortened; … ends
	 * a cut cell. --full shows everything." */
	used = (size_t)snprintf(note, size, "To fit %zu columns:", limit);
	if (n_left && used < size) {
		note[used++] = ' ';
		used = list_names(note, size, used, left_out, n_left);
		if (used < size)
			used += (size_t)snprintf(note + used, size - used, " left out%s",
						 shorter || cut ? ";" : "");
	}
	if (shorter && used < size)
		used += (size_t)snprintf(note + used, size - used, " times shortened%s",
					 cut ? ";" : "");
	if (cut && used < size)
		used += (size_t)snprintf(note + used, size - used, " %s ends a cut cell", marker);
	if (used < size)
		snprintf(note + used, size - used, ". --full shows everything.\n");
}

static int print_table(const struct options *o, const struct splitlock_offenders *r)
{
	size_t n = shown(o, r), widths[32] = { 0 }, limit = terminal_width(o), width = 0;
	char *text = NULL, note[512] = "";
	size_t text_len = 0;
	FILE *sum, *buf;

	/* Sentences wrap at a terminal's width: written here, then wrapped. */
	buf = open_memstream(&text, &text_len);
	if (!buf)
		return -ENOMEM;
	/* On a terminal every row is laid out by print_fitted(); a large
	 * report elsewhere is streamed in columns measured first. */
	if (limit && n > 0 && !o->raw)
		print_fitted(o, r, n, limit, note, sizeof(note));
	else if (n > TABLE_CHUNK)
		measure(o, r, n, widths, true, NULL);
	if (limit && n > 0 && !o->raw) {
		/* printed */
	} else if (n > TABLE_CHUNK && !o->raw) {
		stream_rows(o, r, n, widths, false);
	} else if (n > TABLE_CHUNK) {
		/* Raw rows are escaped by libsmartcols' rules: chunks of its tables. */
		for (size_t k = 0; k < n; k += TABLE_CHUNK)
			if (print_rows(o, r, k, k + TABLE_CHUNK < n ? k + TABLE_CHUNK : n,
				       widths) < 0)
				goto oom;
	} else if (n > 0 && print_rows(o, r, 0, n, NULL) < 0) {
		goto oom;
	}
	fflush(stdout);
	/* Rows only on stdout for -n and -r, which scripts read. */
	sum = o->noheadings || o->raw ? stderr : stdout;
	if (sum == stdout)
		width = limit;
	else if (limit && isatty(STDERR_FILENO))
		width = limit;
	if (splitlock_offenders_get_count(r) && sum == stdout)
		fputc('\n', sum);
	fprintf(buf, "%" PRIu64 " event%s", splitlock_offenders_get_events(r),
		splitlock_offenders_get_events(r) == 1 ? "" : "s");
	if (splitlock_offenders_get_suppressed(r))
		fprintf(buf, "; %" PRIu64 " more suppressed by the kernel's rate limit, so "
			"this report is incomplete", splitlock_offenders_get_suppressed(r));
	fprintf(buf, ".\n");
	print_unrecognized(buf, r);
	if (splitlock_offenders_get_forged(r))
		fprintf(buf, "%" PRIu64 " detector-like line%s from user space ignored.\n",
			splitlock_offenders_get_forged(r),
			splitlock_offenders_get_forged(r) == 1 ? "" : "s");
	if (fclose(buf) != 0) {
		free(text);
		return -ENOMEM;
	}
	fit_wrap(sum, text, width);
	fit_wrap(sum, note, width);
	free(text);
	return 0;
oom:
	fclose(buf);
	free(text);
	return -ENOMEM;
}

static void json_time(struct json *j, const char *key, int64_t usec, bool wall)
{
	char buf[64];

	if (usec == SPLITLOCK_TIME_UNKNOWN) {
		json_null(j, key);
		return;
	}
	if (wall) {
		format_wall(usec, true, buf, sizeof(buf));
		json_string(j, key, buf);
	} else {
		format_mono(usec, buf, sizeof(buf));
		json_number(j, key, buf);
	}
}

/* 0: the group holds several tasks, so no one pid. */
static void json_pid(struct json *j, const char *key, uint32_t pid)
{
	if (pid)
		json_uint(j, key, pid);
	else
		json_null(j, key);
}

/* --output chooses JSON keys too: those of the columns named, as lsblk -J -o. */
static bool wanted(const struct options *o, int col)
{
	if (!o->cols_set)
		return true;
	for (size_t i = 0; i < o->n_cols; i++)
		if (o->cols[i] == col)
			return true;
	return false;
}

static void json_offender(struct json *j, const struct options *o,
			  const struct splitlock_offender *of)
{
	size_t len;
	const char *comm = splitlock_offender_get_comm(of, &len);

	json_object_begin(j, NULL);
	if (wanted(o, COL_COMM)) {
		if (comm)
			json_string_len(j, "comm", comm, len);
		else
			json_null(j, "comm");
	}
	if (wanted(o, COL_PID))
		json_pid(j, "pid", splitlock_offender_get_pid(of));
	if (wanted(o, COL_TGID)) {
		if (splitlock_offender_get_tgid(of))
			json_uint(j, "tgid", splitlock_offender_get_tgid(of));
		else
			json_null(j, "tgid");
	}
	if (wanted(o, COL_KIND))
		json_string(j, "kind", splitlock_kind_name(splitlock_offender_get_kind(of)));
	if (wanted(o, COL_ACTION)) {
		json_string(j, "action", splitlock_action_name(splitlock_offender_get_action(of)));
		json_bool(j, "probe", splitlock_offender_is_probe(of));
	}
	if (wanted(o, COL_EVENTS)) {
		json_uint(j, "events", splitlock_offender_get_events(of));
		json_kernel_traps(j, of);
	}
	if (wanted(o, COL_FIRST)) {
		json_time(j, "first_seen", splitlock_offender_get_first_seen(of), false);
		json_time(j, "first_seen_wall", splitlock_offender_get_first_wall(of), true);
	}
	if (wanted(o, COL_LAST)) {
		json_time(j, "last_seen", splitlock_offender_get_last_seen(of), false);
		json_time(j, "last_seen_wall", splitlock_offender_get_last_wall(of), true);
	}
	if (wanted(o, COL_IPS)) {
		json_array_begin(j, "ips");
		for (size_t i = 0; i < splitlock_offender_get_ip_count(of); i++)
			json_string(j, NULL, splitlock_offender_get_ip(of, i));
		json_array_end(j);
	}
	if (wanted(o, COL_EXE))
		json_string(j, "exe", splitlock_offender_get_exe(of));
	if (wanted(o, COL_CMDLINE))
		json_string(j, "cmdline", splitlock_offender_get_cmdline(of));
	if (wanted(o, COL_UNIT)) {
		json_string(j, "unit", splitlock_offender_get_unit(of));
		json_string(j, "container", splitlock_offender_get_container(of));
	}
	json_object_end(j);
}

static void print_json(struct splitlock_ctx *ctx, const struct options *o,
		       const struct splitlock_offenders *r)
{
	struct kernel_counters counters;
	uint64_t first_line;
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	/* The document's schema: 1 since keys were first documented in full. */
	json_uint(&j, "version", OFFENDERS_JSON_VERSION);
	json_uint(&j, "events", splitlock_offenders_get_events(r));
	json_uint(&j, "suppressed", splitlock_offenders_get_suppressed(r));
	json_bool(&j, "complete", splitlock_offenders_get_suppressed(r) == 0 &&
		  splitlock_offenders_get_unrecognized(r, NULL) == 0 &&
		  splitlock_offenders_get_undated(r) == 0);
	json_uint(&j, "unrecognized", splitlock_offenders_get_unrecognized(r, &first_line));
	if (first_line)
		json_uint(&j, "first_unrecognized_line", first_line);
	else
		json_null(&j, "first_unrecognized_line");
	json_uint(&j, "alignment_checks", splitlock_offenders_get_alignment_checks(r));
	json_uint(&j, "malformed", splitlock_offenders_get_malformed(r));
	json_uint(&j, "forged", splitlock_offenders_get_forged(r));
	json_uint(&j, "undated", splitlock_offenders_get_undated(r));
	json_string(&j, "source", o->input ? "input" : "kmsg");
	json_string(&j, "input_format", o->input ? splitlock_input_format_name(
				    splitlock_offenders_get_input_format(r)) : NULL);
	json_string(&j, "group_by", splitlock_group_name(o->group));
	/* The patched kernel's own counts of the running boot: exact where the
	 * log lost lines to the rate limit. null for saved logs, stock kernels. */
	json_kernel_counters(&j, "kernel_counters",
			     !o->input && read_kernel_counters(ctx, &counters) == 0 ?
			     &counters : NULL);
	json_array_begin(&j, "offenders");
	for (size_t k = 0; k < shown(o, r); k++)
		json_offender(&j, o, splitlock_offenders_get(r, k));
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/*
 * A label value is the name as the table shows it (printable(), which can
 * be decoded back, so two names never share a value), then with Prometheus'
 * own escapes for \\ and ". A NUL is \x00 here, not the table's '?', for
 * the same reason.
 */
static void prom_label(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || (c == '\\' && i + 1 < len && s[i + 1] == 'x'))
			printf("\\\\x%02x", c);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '"')
			fputs("\\\"", stdout);
		else
			putchar(c);
	}
}

/* By comm bytes, then kind: a series' groups (one per action) side by side. */
static int compare_series(const void *a, const void *b)
{
	const struct splitlock_offender *x = *(const struct splitlock_offender *const *)a;
	const struct splitlock_offender *y = *(const struct splitlock_offender *const *)b;
	size_t xl, yl;
	const char *xc = splitlock_offender_get_comm(x, &xl);
	const char *yc = splitlock_offender_get_comm(y, &yl);
	int c = memcmp(xc, yc, xl < yl ? xl : yl);

	if (c)
		return c;
	if (xl != yl)
		return xl < yl ? -1 : 1;
	return (int)splitlock_offender_get_kind(x) - (int)splitlock_offender_get_kind(y);
}

static bool same_series(const struct splitlock_offender *x, const struct splitlock_offender *y)
{
	return compare_series(&x, &y) == 0;
}

static int print_prometheus(struct splitlock_ctx *ctx, const struct options *o,
			    const struct splitlock_offenders *r)
{
	size_t n = splitlock_offenders_get_count(r);
	const struct splitlock_offender **by = malloc((n ? n : 1) * sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		by[k] = splitlock_offenders_get(r, k);
	/* One series per (comm, kind): sort once and sum neighbours, so that
	 * the cost stays n log n however many offenders the log names. */
	qsort(by, n, sizeof(*by), compare_series);
	puts("# HELP splitlock_events_total Split-lock and bus-lock events in the kernel log, by command and kind.");
	puts("# TYPE splitlock_events_total counter");
	for (size_t k = 0; k < n;) {
		const struct splitlock_offender *a = by[k];
		size_t len;
		const char *comm = splitlock_offender_get_comm(a, &len);
		uint64_t sum = 0;

		for (; k < n && same_series(a, by[k]); k++)
			sum += splitlock_offender_get_events(by[k]);
		fputs("splitlock_events_total{comm=\"", stdout);
		prom_label(comm, len);
		printf("\",kind=\"%s\"} %" PRIu64 "\n",
		       splitlock_kind_name(splitlock_offender_get_kind(a)), sum);
	}
	free(by);
	puts("# HELP splitlock_suppressed_total Events the kernel's rate limit kept out of the log.");
	puts("# TYPE splitlock_suppressed_total counter");
	printf("splitlock_suppressed_total %" PRIu64 "\n", splitlock_offenders_get_suppressed(r));
	puts("# HELP splitlock_malformed_total Detector-like log lines that did not parse.");
	puts("# TYPE splitlock_malformed_total counter");
	printf("splitlock_malformed_total %" PRIu64 "\n", splitlock_offenders_get_malformed(r));
	if (o->since || o->until) {
		puts("# HELP splitlock_undated_total Events a --since/--until window left out "
		     "because the log gives them no wall-clock time.");
		puts("# TYPE splitlock_undated_total counter");
		printf("splitlock_undated_total %" PRIu64 "\n", splitlock_offenders_get_undated(r));
	}
	if (o->input)
		return 0; /* a saved log says nothing about this machine's settings */

	{
		struct splitlock_mode_info *info = NULL;
		int mitigate;

		if (splitlock_mode_info_read(ctx, &info) == 0) {
			static const enum splitlock_mode modes[] = {
				SPLITLOCK_MODE_OFF, SPLITLOCK_MODE_WARN, SPLITLOCK_MODE_SEQ,
				SPLITLOCK_MODE_FATAL, SPLITLOCK_MODE_RATELIMIT,
			};
			static const char *const names[] = { "off", "warn", "seq", "fatal", "ratelimit" };
			enum splitlock_mode mode = splitlock_mode_info_get_mode(info);

			puts("# HELP splitlock_mode Detection mode of the running kernel (1: the current one).");
			puts("# TYPE splitlock_mode gauge");
			for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
				printf("splitlock_mode{mode=\"%s\"} %d\n", names[i], mode == modes[i]);
			if (mode == SPLITLOCK_MODE_RATELIMIT) {
				puts("# HELP splitlock_ratelimit Bus locks per second allowed in ratelimit mode.");
				puts("# TYPE splitlock_ratelimit gauge");
				printf("splitlock_ratelimit %u\n", splitlock_mode_info_get_ratelimit(info));
			}
			splitlock_mode_info_free(info);
		}
		if (splitlock_mitigate_get(ctx, &mitigate) == 0) {
			puts("# HELP splitlock_mitigate Whether kernel.split_lock_mitigate (misery) is on.");
			puts("# TYPE splitlock_mitigate gauge");
			printf("splitlock_mitigate %d\n", mitigate);
		}
	}
	return 0;
}

/* ---- progress ---------------------------------------------------------- */

struct progress {
	uint64_t total;
	bool shown;
};

static void progress_cb(uint64_t bytes, void *data)
{
	struct progress *p = data;

	if (p->total == 0)
		return;
	fprintf(stderr, "\rslctl: reading log: %3u%%",
		(unsigned)(bytes * 100 / (bytes > p->total ? bytes : p->total)));
	p->shown = true;
}

/* ---- follow ------------------------------------------------------------ */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int follow_event(const struct splitlock_offender *of,
			const struct splitlock_kmsg_record *rec, const char *ip,
			void *data)
{
	const struct options *o = data;
	size_t len;
	const char *comm = splitlock_offender_get_comm(of, &len);

	if (o->format == FORMAT_JSON) {
		struct json j;
		char buf[64];

		json_init(&j, stdout);
		j.pretty = false;
		json_object_begin(&j, NULL);
		/* Each line is a document: it says its schema, as the report does. */
		json_uint(&j, "version", OFFENDERS_JSON_VERSION);
		format_mono((int64_t)splitlock_kmsg_record_get_usec(rec), buf, sizeof(buf));
		json_number(&j, "time", buf);
		if (comm)
			json_string_len(&j, "comm", comm, len);
		else
			json_null(&j, "comm");
		json_pid(&j, "pid", splitlock_offender_get_pid(of));
		json_string(&j, "kind", splitlock_kind_name(splitlock_offender_get_kind(of)));
		json_string(&j, "action", splitlock_action_name(splitlock_offender_get_action(of)));
		json_bool(&j, "probe", splitlock_offender_is_probe(of));
		json_string(&j, "ip", ip);
		json_string(&j, "exe", splitlock_offender_get_exe(of));
		json_string(&j, "cmdline", splitlock_offender_get_cmdline(of));
		json_string(&j, "unit", splitlock_offender_get_unit(of));
		json_uint(&j, "events", splitlock_offender_get_events(of));
		json_object_end(&j);
		json_finish(&j);
	} else {
		const char *exe = splitlock_offender_get_exe(of);
		char name[256], where[2048], path[16384];

		/* Comm, object names in the address and the path all come from
		 * the process: none reaches the terminal unescaped. */
		printable(comm ? comm : "-", comm ? len : 1, name, sizeof(name));
		printable(ip ? ip : "?", strlen(ip ? ip : "?"), where, sizeof(where));
		printable(exe ? exe : "", exe ? strlen(exe) : 0, path, sizeof(path));
		printf("[%5" PRIu64 ".%06" PRIu64 "] %s/%" PRIu32 " %s %s%s at %s%s%s\n",
		       splitlock_kmsg_record_get_usec(rec) / 1000000,
		       splitlock_kmsg_record_get_usec(rec) % 1000000, name,
		       splitlock_offender_get_pid(of),
		       splitlock_kind_name(splitlock_offender_get_kind(of)),
		       splitlock_action_name(splitlock_offender_get_action(of)),
		       splitlock_offender_is_probe(of) ? " (probe)" : "",
		       where, exe ? " exe " : "", path);
	}
	fflush(stdout);
	return 0;
}

/*
 * The kernel refuses /dev/kmsg to a user without CAP_SYSLOG while
 * kernel.dmesg_restrict is 1 (a file under --root: by its mode); either
 * way, one sentence says what it takes. The exit status for @err.
 */
static int kmsg_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		slctl_error("cannot read the kernel log: it needs CAP_SYSLOG (run as root) "
			    "or kernel.dmesg_restrict=0.");
	else
		slctl_error("cannot read the kernel log: %s.", strerror(-err));
	return slctl_exit_for(err);
}

static int follow(struct splitlock_ctx *ctx, struct splitlock_offenders *r,
		  const struct options *o)
{
	struct splitlock_follow *f;
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = splitlock_follow_new(r, o->since != NULL, &f);
	int err;

	if (ret < 0)
		return kmsg_error(ret);
	err = splitlock_follow_get_connector_error(f);
	if (err == -EPERM || err == -EACCES)
		slctl_warning("process events unavailable (needs CAP_NET_ADMIN): a task that "
			      "exits before its line is read stays unnamed.");
	else if (err == -EXDEV)
		slctl_warning("process events are only followed on the running system, not under --root.");
	else if (err == -EOPNOTSUPP)
		slctl_warning("process events unavailable in a container or non-initial "
			      "namespace: a task that exits before its line is read stays unnamed.");
	else if (err < 0)
		slctl_warning("process events unavailable: %s.", strerror(-err));
	/* The library's warnings say what a long follow forgets: show them. */
	if (splitlock_get_log_priority(ctx) < LOG_WARNING)
		splitlock_set_log_priority(ctx, LOG_WARNING);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		struct pollfd pfd[2];
		int n = 0;
		int timeout = -1;

		if (splitlock_follow_get_log_fd(f) >= 0)
			pfd[n++] = (struct pollfd){ splitlock_follow_get_log_fd(f), POLLIN, 0 };
		else
			timeout = 500; /* a regular file cannot be polled */
		if (splitlock_follow_get_connector_fd(f) >= 0)
			pfd[n++] = (struct pollfd){ splitlock_follow_get_connector_fd(f), POLLIN, 0 };
		ret = splitlock_follow_process(f, follow_event, (void *)o);
		if (ret < 0)
			break;
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
	}
	splitlock_follow_free(f);
	if (ret < 0)
		return kmsg_error(ret);
	return EXIT_OK;
}

/* ---- main -------------------------------------------------------------- */

static int parse_options(struct options *o, const struct slctl_globals *g,
			 int argc, char **argv)
{
	enum { OPT_INPUT_FORMAT = 0x100 };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "input-format", required_argument, NULL, OPT_INPUT_FORMAT },
		{ "group-by", required_argument, NULL, 'g' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "top", required_argument, NULL, 't' },
		{ "follow", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "raw", no_argument, NULL, 'r' },
		{ "full", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "+i:g:S:U:t:fF:o:nrlh";
	const char *cols = NULL;
	enum format format;
	char *end;
	int c;

	o->format = g->json ? FORMAT_JSON : FORMAT_TABLE;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case OPT_INPUT_FORMAT:
			if (splitlock_input_format_parse(optarg, &o->input_format) < 0)
				return slctl_usage_error("offenders", "unknown input format '%s'.", optarg);
			o->input_format_set = true;
			break;
		case 'g':
			if (splitlock_group_parse(optarg, &o->group) < 0)
				return slctl_usage_error("offenders", "unknown --group-by key '%s'.", optarg);
			o->group_set = true;
			break;
		case 'S':
			o->since = optarg;
			break;
		case 'U':
			o->until = optarg;
			break;
		case 't':
			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || o->top == 0)
				return slctl_usage_error("offenders", "--top needs a positive number.");
			break;
		case 'f':
			o->follow = true;
			break;
		case 'F':
			if (format_parse(optarg, &format) < 0)
				return slctl_usage_error("offenders", "unknown format '%s'.", optarg);
			/* One output: --json and another --format do not both win. */
			if ((o->format_set || g->json) && format != o->format)
				return slctl_usage_error("offenders", "--format %s conflicts with %s.",
							 optarg, o->format_set ? "an earlier --format"
									       : "--json");
			o->format = format;
			o->format_set = true;
			break;
		case 'o':
			cols = optarg;
			break;
		case 'n':
			o->noheadings = true;
			break;
		case 'r':
			o->raw = true;
			break;
		case 'l':
			o->full = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		default:
			return slctl_option_error("offenders", argv, shorts, opts);
		}
	}
	if (optind < argc)
		return slctl_usage_error("offenders", "unexpected argument '%s'.", argv[optind]);
	if (o->input_format_set && !o->input)
		return slctl_usage_error("offenders", "--input-format needs --input: the live log "
					 "is read as /dev/kmsg records.");
	if (o->follow && o->input)
		return slctl_usage_error("offenders", "--follow reads the live log, not --input.");
	/* One line an event: what shapes a report's table has nothing to shape. */
	if (o->follow && (cols || o->top || o->noheadings || o->raw || o->full))
		return slctl_usage_error("offenders", "%s shapes the report, not --follow's lines.",
					 cols ? "--output" : o->top ? "--top" :
					 o->noheadings ? "--noheadings" : o->raw ? "--raw" : "--full");
	if (o->follow && o->format == FORMAT_PROMETHEUS)
		return slctl_usage_error("offenders", "--follow prints events, not --format prometheus.");
	if (o->format != FORMAT_TABLE && (o->noheadings || o->raw || o->full))
		return slctl_usage_error("offenders", "%s shapes the table, not --format %s.",
					 o->noheadings ? "--noheadings" : o->raw ? "--raw" : "--full",
					 format_names[o->format].name);
	if (cols && o->format == FORMAT_PROMETHEUS)
		return slctl_usage_error("offenders", "--output chooses table columns or JSON keys, "
					 "not Prometheus series.");
	if (!o->group_set)
		o->group = o->input ? SPLITLOCK_GROUP_TASK : SPLITLOCK_GROUP_PROCESS;
	/* Its series are per comm and kind, whatever the table would group by. */
	if (o->format == FORMAT_PROMETHEUS)
		o->group = SPLITLOCK_GROUP_COMM;
	if (cols) {
		if (parse_columns(o, cols) < 0)
			return EXIT_USAGE;
		o->cols_set = true;
	} else {
		static const int def[] = { COL_COMM, COL_PID, COL_KIND, COL_ACTION, COL_EVENTS,
					   COL_FIRST, COL_LAST, COL_IPS };

		for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
			o->cols[o->n_cols++] = def[i];
		if (!o->input) {
			o->cols[o->n_cols++] = COL_EXE;
			o->cols[o->n_cols++] = COL_UNIT;
		}
	}
	return EXIT_OK;
}

static int set_window(struct splitlock_ctx *ctx, struct splitlock_offenders *r,
		      const struct options *o)
{
	struct timespec now_ts;
	int64_t now, boot = SPLITLOCK_TIME_UNKNOWN, since = SPLITLOCK_TIME_UNKNOWN,
		until = SPLITLOCK_TIME_UNKNOWN;

	if (!o->since && !o->until)
		return EXIT_OK;
	clock_gettime(CLOCK_REALTIME, &now_ts);
	now = (int64_t)now_ts.tv_sec * 1000000 + now_ts.tv_nsec / 1000;
	/* "boot" is the boot of the running system; records are dated by the library. */
	if (!o->input)
		splitlock_time_boot(ctx, &boot);
	if (o->since && streq(o->since, "boot") && (o->input || boot == SPLITLOCK_TIME_UNKNOWN)) {
		/* Everything in the log is since its boot. */
	} else if (o->since && splitlock_time_parse(o->since, now, boot, &since) < 0) {
		return slctl_usage_error("offenders", "cannot understand --since '%s'.", o->since);
	}
	/* The running system's boot says nothing about when a saved log's boot ended. */
	if (o->until && o->input && streq(o->until, "boot"))
		return slctl_usage_error("offenders", "--until boot cannot apply to a saved log, "
					 "which does not say when its boot ended; leave --until "
					 "out to read to the end of the log.");
	if (o->until && splitlock_time_parse(o->until, now, boot, &until) < 0)
		return slctl_usage_error("offenders", "cannot understand --until '%s'.", o->until);
	/* [since, until) would hold nothing: a typo more likely than a wish. */
	if (since != SPLITLOCK_TIME_UNKNOWN && until != SPLITLOCK_TIME_UNKNOWN && since >= until)
		return slctl_usage_error("offenders", "--since '%s' is not before --until '%s'.",
					 o->since, o->until);
	splitlock_offenders_set_window(r, since, until);
	return EXIT_OK;
}

/* ---- input that is no text --------------------------------------------- */

/*
 * The first bytes of @fd, left there for the library: pread() of a file
 * from where it stands, tee() of a pipe. 0 when neither can be peeked.
 */
static size_t peek(int fd, unsigned char *buf, size_t size)
{
	struct stat st;
	ssize_t n = 0;

	if (fstat(fd, &st) < 0)
		return 0;
	if (S_ISREG(st.st_mode)) {
		off_t at = lseek(fd, 0, SEEK_CUR);

		n = at < 0 ? -1 : pread(fd, buf, size, at);
	} else if (S_ISFIFO(st.st_mode)) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			return 0;
		n = tee(fd, p[1], size, 0);
		if (n > 0)
			n = read(p[0], buf, (size_t)n);
		close(p[0]);
		close(p[1]);
	}
	return n > 0 ? (size_t)n : 0;
}

/* @name for a shell command: as it is, or in double quotes. */
static void shell_word(const char *name, char *buf, size_t size)
{
	size_t o = 0;

	if (name[0] && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789_./+-,:@%=") == strlen(name)) {
		snprintf(buf, size, "%s", name);
		return;
	}
	buf[o++] = '"';
	for (const char *c = name; *c && o + 3 < size; c++) {
		if (strchr("\"\\$`", *c))
			buf[o++] = '\\';
		buf[o++] = *c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

/* A compressed log, a journal file, UTF-16: the command that gives its text. */
static void packed_input_error(const char *input, const struct packed_log *p)
{
	char word[8192];

	if (streq(input, "-")) {
		slctl_error("standard input is %s; run '%s FILE%s | slctl offenders --input -'.",
			    p->what, p->command, p->command_after);
		return;
	}
	shell_word(input, word, sizeof(word));
	slctl_error("'%s' is %s; run '%s %s%s | slctl offenders --input -'.",
		    input, p->what, p->command, word, p->command_after);
}

static int read_input(struct splitlock_offenders *r, const struct options *o)
{
	int fd = streq(o->input, "-") ? STDIN_FILENO : open(o->input, O_RDONLY | O_CLOEXEC);
	unsigned char head[PACKED_LOG_MAGIC_MAX];
	const struct packed_log *packed;
	struct progress p = { 0 };
	struct stat st;
	int ret;

	if (fd < 0) {
		slctl_error("cannot open '%s': %s.", o->input, strerror(errno));
		return EXIT_FAIL;
	}
	packed = packed_log_find(head, peek(fd, head, sizeof(head)));
	if (packed) {
		packed_input_error(o->input, packed);
		ret = -EMEDIUMTYPE;
		goto out;
	}
	/* Large files on a terminal: say how far we are. */
	if (isatty(STDERR_FILENO) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > (64 << 20))
		p.total = (uint64_t)st.st_size;
	ret = splitlock_offenders_read_input(r, fd, o->input_format,
					     p.total ? progress_cb : NULL, &p);
	if (p.shown)
		fputs("\r\033[K", stderr);
	if (ret == -EMEDIUMTYPE)
		slctl_error("%s%s%s holds binary data, not a kernel log in a form slctl reads "
			    "(see SAVED LOGS in slctl(8)).", streq(o->input, "-") ? "" : "'",
			    streq(o->input, "-") ? "standard input" : o->input,
			    streq(o->input, "-") ? "" : "'");
	else if (ret < 0)
		slctl_error("cannot read '%s': %s.", o->input, strerror(-ret));
out:
	if (fd != STDIN_FILENO)
		close(fd);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	struct options o = { 0 };
	struct splitlock_offenders *r = NULL;
	int ret = parse_options(&o, g, argc, argv);

	if (ret != EXIT_OK)
		return ret;
	/*
	 * A report of a large log is megabytes: written in 64 KiB blocks
	 * rather than the 4 KiB of a file's default, and without stdio's
	 * lock around each of its many small calls (slctl has one thread).
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 64 * 1024);
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	ret = splitlock_offenders_new(ctx, o.group,
				      o.input ? 0 : SPLITLOCK_OFFENDERS_RESOLVE, &r);
	if (ret < 0) {
		slctl_error("%s.", strerror(-ret));
		return EXIT_FAIL;
	}
	ret = set_window(ctx, r, &o);
	if (ret != EXIT_OK)
		goto out;
	if (o.follow) {
		ret = follow(ctx, r, &o);
		goto out;
	}
	if (o.input) {
		ret = read_input(r, &o);
		if (ret != EXIT_OK)
			goto out;
	} else {
		ret = splitlock_offenders_read_kmsg(r);
		if (ret < 0) {
			ret = kmsg_error(ret);
			goto out;
		}
	}
	/* The table says it after its rows; JSON and Prometheus here too. */
	if (splitlock_offenders_get_undated(r) && o.format != FORMAT_TABLE)
		slctl_warning("%s.", undated_sentence(r));
	switch (o.format) {
	case FORMAT_JSON:
		print_json(ctx, &o, r);
		break;
	case FORMAT_PROMETHEUS:
		if (print_prometheus(ctx, &o, r) < 0) {
			slctl_error("out of memory.");
			ret = EXIT_FAIL;
			goto out;
		}
		break;
	default:
		if (print_table(&o, r) < 0) {
			slctl_error("out of memory.");
			ret = EXIT_FAIL;
			goto out;
		}
	}
	ret = EXIT_OK;
out:
	splitlock_offenders_unref(r);
	return ret;
}

const struct slctl_command slctl_cmd_offenders = {
	.name = "offenders",
	.run = run,
	.usage = usage,
	.summary = "who trips the detector, from the kernel log",
};
