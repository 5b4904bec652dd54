/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How slctl offenders' table shares a terminal's columns, and how its
 * sentences wrap there: pure functions of widths, kept apart from what
 * the cells hold.
 */
#ifndef SLCTL_OFFENDERS_FIT_H
#define SLCTL_OFFENDERS_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The shorter forms a time takes, longest first. */
enum fit_time_form {
	FIT_TIME_FULL,    /* 2026-12-01 00:00:05, [12.345678] */
	FIT_TIME_NO_YEAR, /* 12-01 00:00:05, [12.345] */
	FIT_TIME_MINUTES, /* 12-01 00:00, [12] */
	_FIT_TIME_FORMS,
};

enum fit_kind {
	FIT_FIXED,     /* numbers, names of kinds: whole or not at all */
	FIT_TEXT,      /* cut at its end, and marked */
	FIT_ADDRESSES, /* whole addresses, then a marker */
	FIT_TIME,      /* shorter forms, never cut */
};

struct fit_column {
	enum fit_kind kind;
	size_t heading;  /* the heading's width */
	size_t natural;  /* the widest cell, whole (FIT_TIME: of the full form) */
	/* FIT_TEXT, FIT_ADDRESSES: the least width that keeps every cell
	 * useful (a whole name of 15, the first address); FIT_TIME: each form. */
	size_t readable;
	size_t time_width[_FIT_TIME_FORMS];
	/* Left out when even the readable widths do not fit: higher first;
	 * 0 never (until only cutting to headings has not been enough). */
	int drop;
	/* Results. */
	size_t width;
	bool hidden;
};

/*
 * Widths of @n columns for a terminal @limit wide: cells whole while they
 * fit; then text cut, widest first, down to readable; then shorter times;
 * then the columns that matter least left out (and the rest tried whole
 * again), then columns from the right; a last one alone is cut to its
 * heading. The time form chosen.
 */
enum fit_time_form fit_columns(struct fit_column *c, size_t n, size_t limit);

/*
 * @text (sentences, lines ended by '\n') on @out, each line broken at
 * spaces to be at most @width columns; 0: as it is. A word wider than
 * @width stands alone on its line.
 */
void fit_wrap(FILE *out, const char *text, size_t width);

#endif
