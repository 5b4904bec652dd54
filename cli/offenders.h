/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders' parts: options and the column catalogue, shared by
 * offenders.c (options, JSON, Prometheus, --follow) and offenders-table.c
 * (the table, fitted to a terminal).
 */
#ifndef SLCTL_OFFENDERS_H
#define SLCTL_OFFENDERS_H

#include <stdint.h>

#include "offenders-fit.h"
#include "slctl.h"

enum format { FORMAT_TABLE, FORMAT_JSON, FORMAT_PROMETHEUS };

/* The column catalogue, as util-linux tools keep it. */
enum {
	COL_COMM, COL_PID, COL_TGID, COL_KIND, COL_ACTION, COL_EVENTS,
	COL_FIRST, COL_LAST, COL_IPS, COL_EXE, COL_CMDLINE, COL_UNIT,
};

struct column {
	const char *name;
	double whint;
	int flags;
	const char *help;
};

extern const struct column offenders_columns[];

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

/* "%s.%06u" seconds of a time since boot. */
void offenders_format_mono(int64_t usec, char *buf, size_t size);
/* Local "YYYY-MM-DD HH:MM:SS", or (@utc_iso) "YYYY-MM-DDTHH:MM:SS.uuuuuuZ". */
void offenders_format_wall(int64_t usec, bool utc_iso, char *buf, size_t size);
/* @s escaped as the table's cells are (see offenders.c). */
void offenders_printable(const char *s, size_t len, char *buf, size_t size);
/* offenders-time.c: --since and --until into the report's window: EXIT_OK,
 * or a usage error said. */
int offenders_set_window(struct splitlock_ctx *ctx, struct splitlock_offenders *r,
			 const struct options *o);
/* offenders-follow.c: the live log's events as they come. */
/* The sentence for a live log that cannot be read; the exit status. */
int offenders_kmsg_error(int err);
int offenders_follow(struct splitlock_ctx *ctx, struct splitlock_offenders *r,
		     const struct options *o);
/* offenders-cells.c: the text of column @col of @of in @buf and its
 * length (a name may hold a NUL). */
size_t offenders_cell(const struct options *o, const struct splitlock_offender *of,
		      int col, char *buf, size_t size);
/* The width of @s (@len bytes) as the table shows it escaped (C locale). */
size_t offenders_cell_width_n(const char *s, size_t len);
size_t offenders_cell_width(const char *s);
/* What marks a cell cut to fit a terminal ("…" or "..."), its width. */
const char *offenders_cut_marker(size_t *width);
/* @esc cut to fit @width with the marker; false when it fits whole.
 * @words: a list of addresses keeps only whole ones. */
bool offenders_cut_escaped(char *esc, size_t width, bool words, size_t marker_width);
/* @text escaped as libsmartcols escapes a cell: @text itself when it has
 * nothing to escape, else @esc. */
const char *offenders_escaped(const char *text, size_t len, char *esc, size_t size);
/* Offenders the report shows: all, or --top's. */
size_t offenders_shown(const struct options *o, const struct splitlock_offenders *r);
/* offenders-summary.c: is every event of the log counted once, none left
 * out or maybe twice? And the sentences that say why not. */
bool offenders_report_complete(const struct splitlock_offenders *r);
const char *offenders_undated_sentence(const struct splitlock_offenders *r);
const char *offenders_maybe_repeated_sentence(const struct splitlock_offenders *r);
/* The sentences that say a report is incomplete, and why. */
void offenders_print_unrecognized(FILE *out, const struct options *o,
				  const struct splitlock_offenders *r);
/* The sentence on detector-like lines ignored, and why. */
void offenders_print_forged(FILE *out, const struct splitlock_offenders *r);
/* offenders-json.c, offenders-prom.c: the report in the other formats
 * (-ENOMEM from the latter). */
void offenders_print_json(struct splitlock_ctx *ctx, const struct options *o,
			  const struct splitlock_offenders *r);
void offenders_print_json_event(const struct splitlock_offender *of,
				const struct splitlock_kmsg_record *rec, const char *ip);
int offenders_print_prometheus(struct splitlock_ctx *ctx, const struct options *o,
			       const struct splitlock_offenders *r);
/* The table and its summary; -ENOMEM. */
int offenders_print_table(const struct options *o, const struct splitlock_offenders *r);

#endif
