/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders' table cells: the text of each column, how wide it
 * shows escaped, and how it is cut to fit a terminal.
 */
#include <inttypes.h>
#include <langinfo.h>
#include <libsmartcols.h>
#include <locale.h>
#include <strings.h>

#include "offenders.h"

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
		offenders_format_wall(wall, false, buf, size);
		if (form != FIT_TIME_FULL && strlen(buf) == 19) {
			memmove(buf, buf + 5, 15); /* "YYYY-" */
			if (form == FIT_TIME_MINUTES)
				buf[11] = '\0';
		}
	} else if (mono != SPLITLOCK_TIME_UNKNOWN) {
		buf[0] = '[';
		offenders_format_mono(mono, buf + 1, size - 2);
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

/*
 * The text of a cell in @buf, NUL-terminated, and its length: a name may
 * hold a NUL (escaped as \x00 when shown, like every other byte that is
 * not printable), so the length is the cell's, not strlen().
 */
size_t offenders_cell(const struct options *o, const struct splitlock_offender *of,
		   int col, char *buf, size_t size)
{
	size_t len, used;
	const char *s;

	buf[0] = '\0';
	switch (col) {
	case COL_COMM:
		s = splitlock_offender_get_comm(of, &len);
		if (!s) {
			append(buf, size, 0, "-"); /* tasks of several names */
			break;
		}
		if (len > size - 1)
			len = size - 1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		return len;
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
	return strlen(buf);
}

/* The width of a cell of @len bytes in the C locale: its escaped form. */
size_t offenders_cell_width_n(const char *s, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		w += c < 0x20 || c >= 0x7f || (c == '\\' && i + 1 < len && s[i + 1] == 'x') ? 4 : 1;
	}
	return w;
}

size_t offenders_cell_width(const char *s)
{
	return offenders_cell_width_n(s, strlen(s));
}

/*
 * What marks a cell cut to fit the terminal, as systemd's tools mark it:
 * "…" where the terminal's character set is UTF-8, "..." elsewhere. slctl
 * runs in the C locale, where libsmartcols escapes every byte that is not
 * printable ASCII: only the marker is written as it is, by stream_rows().
 */
const char *offenders_cut_marker(size_t *width)
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
bool offenders_cut_escaped(char *esc, size_t width, bool words, size_t marker_width)
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

/*
 * @text (@len bytes) escaped as libsmartcols escapes a cell in the C
 * locale, a NUL as \x00 (which libsmartcols cannot be given): @text
 * itself when it has nothing to escape (most cells), else @esc.
 */
const char *offenders_escaped(const char *text, size_t len, char *esc, size_t size)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c >= 0x7f || (c == '\\' && i + 1 < len && text[i + 1] == 'x')) {
			offenders_printable(text, len, esc, size);
			return esc;
		}
	}
	return text;
}
