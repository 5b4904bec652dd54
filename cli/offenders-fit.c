/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A table that fits the terminal and stays useful there. Cutting the
 * widest column a character at a time, as it was done before, kept two
 * dates of 19 and left "CPU…" for both "CPU 0/KVM" and "CPU 1/KVM" at 80
 * columns, and no address at all. Here each column has a width below
 * which it says nothing useful; the times get shorter and the columns that
 * matter least go before any cell is cut below that.
 */
#include "offenders-fit.h"

#include <string.h>

static size_t row_width(const struct fit_column *c, size_t n)
{
	size_t total = 0, shown = 0;

	for (size_t i = 0; i < n; i++)
		if (!c[i].hidden) {
			total += c[i].width;
			shown++;
		}
	return total + (shown ? shown - 1 : 0);
}

static size_t at_least(size_t w, size_t heading)
{
	return w > heading ? w : heading;
}

/*
 * Text loses a character at a time, the widest first, down to readable
 * (@to_heading: to the heading).
 */
static bool shrink_text(struct fit_column *c, size_t n, size_t limit, bool to_heading)
{
	for (;;) {
		size_t total = row_width(c, n), widest = n;

		if (total <= limit)
			return true;
		for (size_t i = 0; i < n; i++) {
			size_t floor;

			if (c[i].hidden || (c[i].kind != FIT_TEXT && c[i].kind != FIT_ADDRESSES))
				continue;
			floor = to_heading ? c[i].heading : at_least(c[i].readable, c[i].heading);
			if (c[i].width > floor && (widest == n || c[i].width > c[widest].width))
				widest = i;
		}
		if (widest == n)
			return false;
		c[widest].width--;
	}
}

/*
 * Room left after shorter times goes back to cut cells: addresses only
 * when all of them then fit (a part of a list shows no more of it), then
 * text, the narrowest first.
 */
static void regrow(struct fit_column *c, size_t n, size_t limit)
{
	for (size_t i = 0; i < n; i++) {
		size_t total = row_width(c, n), want = at_least(c[i].natural, c[i].heading);

		if (!c[i].hidden && c[i].kind == FIT_ADDRESSES && c[i].width < want &&
		    total + (want - c[i].width) <= limit)
			c[i].width = want;
	}
	for (size_t total = row_width(c, n); total < limit; total++) {
		size_t pick = n;

		for (size_t i = 0; i < n; i++)
			if (!c[i].hidden && c[i].kind == FIT_TEXT &&
			    c[i].width < at_least(c[i].natural, c[i].heading) &&
			    (pick == n || c[i].width < c[pick].width))
				pick = i;
		if (pick == n)
			return;
		c[pick].width++;
	}
}

static void set_times(struct fit_column *c, size_t n, enum fit_time_form form)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == FIT_TIME)
			c[i].width = at_least(c[i].time_width[form], c[i].heading);
}

static void whole(struct fit_column *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i].width = c[i].kind == FIT_TIME ? at_least(c[i].time_width[FIT_TIME_FULL], c[i].heading)
						   : at_least(c[i].natural, c[i].heading);
}

/* The shown column to leave out next: the highest @drop, else none (n). */
static size_t next_to_drop(const struct fit_column *c, size_t n)
{
	size_t pick = n;

	for (size_t i = 0; i < n; i++)
		if (!c[i].hidden && c[i].drop > 0 && (pick == n || c[i].drop > c[pick].drop))
			pick = i;
	return pick;
}

enum fit_time_form fit_columns(struct fit_column *c, size_t n, size_t limit)
{
	for (size_t i = 0; i < n; i++)
		c[i].hidden = false;
	for (;;) {
		size_t drop, last = n;

		whole(c, n);
		if (row_width(c, n) <= limit || shrink_text(c, n, limit, false))
			return FIT_TIME_FULL;
		for (int form = FIT_TIME_NO_YEAR; form < _FIT_TIME_FORMS; form++) {
			set_times(c, n, (enum fit_time_form)form);
			if (row_width(c, n) <= limit) {
				regrow(c, n, limit);
				return (enum fit_time_form)form;
			}
		}
		drop = next_to_drop(c, n);
		if (drop < n) {
			c[drop].hidden = true;
			continue;
		}
		/* Nothing left that matters less: the columns at the right go
		 * before names and addresses are cut to stubs. */
		for (size_t i = 1; i < n; i++)
			if (!c[i].hidden)
				last = i;
		if (last == n) {
			/* One column: cut to its heading, else it overflows. */
			shrink_text(c, n, limit, true);
			return FIT_TIME_MINUTES;
		}
		c[last].hidden = true;
	}
}

/* Columns of UTF-8 text: continuation bytes take none. */
static size_t text_width(const char *s, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

static void wrap_line(FILE *out, const char *s, size_t len, size_t width)
{
	while (text_width(s, len) > width) {
		size_t cut = 0, used = 0;

		/* The last space that leaves at most @width before it. */
		for (size_t i = 0; i < len; i++) {
			if (s[i] == ' ' && used <= width)
				cut = i;
			used += ((unsigned char)s[i] & 0xc0) != 0x80;
			if (used > width && cut)
				break;
		}
		if (!cut) {
			/* One word wider than the terminal: it alone, then on. */
			const char *sp = memchr(s, ' ', len);

			if (!sp)
				break;
			cut = (size_t)(sp - s);
		}
		fwrite(s, 1, cut, out);
		fputc('\n', out);
		s += cut + 1;
		len -= cut + 1;
	}
	fwrite(s, 1, len, out);
	fputc('\n', out);
}

void fit_wrap(FILE *out, const char *text, size_t width)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);

		if (width)
			wrap_line(out, text, len, width);
		else {
			fwrite(text, 1, len, out);
			fputc('\n', out);
		}
		text += len + (nl != NULL);
	}
}
