/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The years of a yearless syslog file (RFC 3164 stamps): its lines are in
 * time order, so each step back in the month began a year. The lines that
 * may matter are kept until the end of the input, when every line's year
 * is known, and read then (struct sl_syslog_years in log/format.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "log/format.h"

#define SEAM_SEC (2 * 3600)
#define YEAR_SEC (INT64_C(365) * 86400)
/* A rotated piece spans up to a month and a half (monthly rotation): a
 * step back across a new year by more is taken for a gap of months. */
#define ROTATION_SEC (INT64_C(45) * 86400)

/* Any line of the file: a month before the last line's began a year. */
void sl_syslog_years_see(struct sl_syslog_years *y, const char *line, size_t len)
{
	int month, mday, h, m, s;

	/* The minute of the line before: a step of seconds says nothing the
	 * file's other steps do not, and most lines are read no further. */
	if (len >= sizeof(y->minute) && y->month >= 0 &&
	    memcmp(line, y->minute, sizeof(y->minute)) == 0)
		return;
	if (!sl_syslog_yearless_time(line, line + len, &month, &mday, &h, &m, &s))
		return;
	if (len >= sizeof(y->minute))
		memcpy(y->minute, line, sizeof(y->minute));
	/*
	 * A step of over half a year is a new year, or a gap: December to
	 * January in a file in order, January to December in one read newest
	 * first (journalctl -r); the other way it is
	 * a machine off for months, whose length no date without a year
	 * tells. Shorter steps say the file's order (sl_syslog_years_replay);
	 * a step back by less than half a year in a file in order is a file
	 * out of order (dumps appended across a month's end), its lines in
	 * the year of the line before. Rotated files cat'ed newest first go
	 * forward in each piece: the lines seen (the detector's, the last of
	 * each read) cannot show the seams, and the man page says so.
	 */
	if (y->month < 0) {
		y->first_month = month;
		y->first_mday = mday;
		y->first_h = h;
		y->first_m = m;
		y->first_s = s;
	} else {
		static const int before_month[12] = { 0,   31,  59,  90,  120, 151,
						      181, 212, 243, 273, 304, 334 };
		int64_t step = (int64_t)(before_month[month] + mday -
					 (before_month[y->month] + y->mday)) * 86400 +
			       (h - y->h) * 3600 + (m - y->m) * 60 + (s - y->s);

		/*
		 * A year less a few hours is a few hours across a new year:
		 * "Dec 31 23:59:50" after "Jan  1 00:00:05" is a step back of
		 * seconds (another host's clock, a rotated piece cat'ed
		 * before its successor), not a gap of a year less them.
		 */
		if (step < -INT64_C(183) * 86400) {
			y->back++;
			if (step + YEAR_SEC <= SEAM_SEC)
				y->back_near++;
			else if (step + YEAR_SEC <= ROTATION_SEC)
				y->seams_ahead++; /* newest first: days ahead across a year */
		} else if (step > INT64_C(183) * 86400) {
			y->ahead++;
			if (YEAR_SEC - step <= SEAM_SEC)
				y->ahead_near++;
			else if (YEAR_SEC - step <= ROTATION_SEC)
				y->seams_back++; /* or days back across a year: a seam */
		}
		else if (step < 0)
			y->steps_back++;
		else if (step > 0)
			y->steps_ahead++;
		/* Hours against the file's order (one: summer time's end) are
		 * a seam of pieces in another order than their lines: rotated
		 * files cat'ed newest first, each written forward. */
		if (step < -SEAM_SEC && step >= -INT64_C(183) * 86400)
			y->seams_back++;
		else if (step > SEAM_SEC && step <= INT64_C(183) * 86400)
			y->seams_ahead++;
	}
	y->month = month;
	y->mday = mday;
	y->h = h;
	y->m = m;
	y->s = s;
}

int sl_syslog_years_keep(struct sl_reader *rd, const char *line, size_t len)
{
	struct sl_syslog_years *y = rd->years;

	sl_syslog_years_see(y, line, len);
	if (y->len + len > y->allocated) {
		size_t n = y->allocated ? y->allocated : 64 * 1024;
		char *b;

		while (n < y->len + len)
			n *= 2;
		b = realloc(y->bytes, n);
		if (!b)
			return -ENOMEM;
		y->bytes = b;
		y->allocated = n;
	}
	if (y->n == y->lines_allocated) {
		size_t n = y->lines_allocated ? y->lines_allocated * 2 : 256;
		struct sl_syslog_kept *k = reallocarray(y->lines, n, sizeof(*k));

		if (!k)
			return -ENOMEM;
		y->lines = k;
		y->lines_allocated = n;
	}
	memcpy(y->bytes + y->len, line, len);
	y->lines[y->n++] = (struct sl_syslog_kept){ .line = rd->line, .at = y->len,
						    .len = len, .back = y->back, .ahead = y->ahead,
						    .back_near = y->back_near, .ahead_near = y->ahead_near,
						    .follows = rd->follows };
	y->len += len;
	return 0;
}

int sl_syslog_years_replay(struct sl_reader *rd, sl_syslog_line_fn line_in)
{
	struct sl_syslog_years *y = rd->years;
	bool newest_first = y->steps_back > y->steps_ahead;
	int newest;

	if (!y->n)
		return 0;
	/*
	 * The newest line's year is the latest not over a day ahead: the
	 * last line's in a file in order, the first's in one newest first.
	 */
	newest = newest_first ? sl_syslog_guess_year(y->first_month, y->first_mday, y->first_h,
					   y->first_m, y->first_s) :
				sl_syslog_guess_year(y->month, y->mday, y->h, y->m, y->s);
	rd->years = NULL; /* the lines are read now, not kept again */
	for (size_t i = 0; i < y->n; i++) {
		const struct sl_syslog_kept *k = &y->lines[i];
		/* The new years between the line and the newest; a gap
		 * between them leaves its year a guess, the latest it can be:
		 * the line may be years earlier. */
		/* A step of hours back across a new year takes the year back
		 * one; it is no gap. */
		int year = newest_first ?
			newest - (k->ahead - k->back_near) :
			newest - ((y->back - y->ahead_near) - (k->back - k->ahead_near));
		bool uncertain = newest_first ? k->back != k->back_near :
				 y->ahead - y->ahead_near != k->ahead - k->ahead_near;
		/* Pieces against the file's order: which piece is the newest,
		 * and so every line's year, is a guess either way. */
		bool guessed = newest_first ? y->seams_ahead : y->seams_back;
		int r;

		rd->line = k->line;
		rd->follows = k->follows;
		r = line_in(rd, y->bytes + k->at, k->len, year, uncertain || guessed,
				      guessed);
		if (r) {
			rd->years = y;
			return r;
		}
	}
	rd->years = y;
	return 0;
}
