/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders' table: cells as libsmartcols lays them out, streamed
 * for large reports, and on a terminal fitted to its width
 * (offenders-fit.c) with what was cut or left out said after it.
 */
#include <inttypes.h>
#include <langinfo.h>
#include <libsmartcols.h>
#include <locale.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "offenders.h"

/*
 * libsmartcols holds every cell of a table until it prints: a few hundred
 * bytes a row, gigabytes for a log of millions of tasks. Larger reports
 * are streamed, row by row, in columns measured over all rows first.
 */
#define TABLE_CHUNK 4096

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
	f->heading = strlen(offenders_columns[col].name);
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
	/* Who and how much stay longest: EVENTS outlives KIND and ACTION. */
	f->drop = col == COL_CMDLINE ? 8 : col == COL_UNIT ? 7 : col == COL_EXE ? 6 :
		  col == COL_TGID ? 5 : col == COL_FIRST ? 4 : col == COL_LAST ? 3 :
		  col == COL_ACTION ? 2 : col == COL_KIND ? 1 : 0;
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
		offenders_cut_marker(&marker_width);
	for (size_t i = 0; i < o->n_cols; i++) {
		widths[i] = hints && offenders_columns[o->cols[i]].whint >= 1 ?
			    (size_t)offenders_columns[o->cols[i]].whint : 1;
		if (fit) {
			memset(&fit[i], 0, sizeof(fit[i]));
			fit_rules(o->cols[i], &fit[i]);
		}
	}
	for (size_t i = 0; i < o->n_cols && !o->noheadings; i++)
		if (strlen(offenders_columns[o->cols[i]].name) > widths[i])
			widths[i] = strlen(offenders_columns[o->cols[i]].name);
	for (size_t k = 0; k < n; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);

		for (size_t i = 0; i < o->n_cols; i++) {
			int col = o->cols[i];
			size_t w, len;

			len = offenders_cell(o, of, col, buf, sizeof(buf));
			if (offenders_cell_width_n(buf, len) > widths[i])
				widths[i] = offenders_cell_width_n(buf, len);
			if (!fit)
				continue;
			if (col == COL_FIRST || col == COL_LAST) {
				for (int t = 0; t < _FIT_TIME_FORMS; t++) {
					forms.time_form = (enum fit_time_form)t;
					offenders_cell(&forms, of, col, buf, sizeof(buf));
					if (offenders_cell_width(buf) > fit[i].time_width[t])
						fit[i].time_width[t] = offenders_cell_width(buf);
				}
			} else if (col == COL_IPS && splitlock_offender_get_ip_count(of)) {
				w = offenders_cell_width(splitlock_offender_get_ip(of, 0));
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

/*
 * -r: fields of one space, every byte that is blank, a backslash or not
 * printable as \xNN, as libsmartcols' raw output writes them (a NUL
 * included, which a libsmartcols cell cannot hold).
 */
static void put_raw(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void print_raw(const struct options *o, const struct splitlock_offenders *r, size_t n)
{
	char buf[4096];

	for (size_t i = 0; i < o->n_cols && !o->noheadings; i++)
		printf("%s%s", i ? " " : "", offenders_columns[o->cols[i]].name);
	if (!o->noheadings)
		putchar('\n');
	for (size_t k = 0; k < n; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);

		for (size_t i = 0; i < o->n_cols; i++) {
			size_t len = offenders_cell(o, of, o->cols[i], buf, sizeof(buf));

			if (i)
				putchar(' ');
			put_raw(buf, len);
		}
		putchar('\n');
	}
}

/* @widths: pinned column widths (NULL: libsmartcols chooses). */
static int print_rows(const struct options *o, const struct splitlock_offenders *r,
		      size_t from, size_t to, const size_t *widths)
{
	struct libscols_table *tb = scols_new_table();
	static char esc[4096 * 4 + 1];
	char buf[4096];

	if (!tb)
		return -ENOMEM;
	scols_table_enable_noheadings(tb, o->noheadings || from > 0);
	/* Cells come escaped (offenders_escaped()): a NUL in a name cannot reach
	 * libsmartcols, which would cut the cell there. */
	scols_table_enable_noencoding(tb, 1);
	/* Rows end where their text does, as in the streamed table. */
	scols_table_enable_minout(tb, 1);
	/* A terminal's table is cut by stream_rows(); --full keeps every byte. */
	if (o->full)
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	for (size_t i = 0; i < o->n_cols; i++) {
		const struct column *c = &offenders_columns[o->cols[i]];
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
			size_t len = offenders_cell(o, of, o->cols[i], buf, sizeof(buf));

			scols_line_set_data(ln, i, offenders_escaped(buf, len, esc, sizeof(esc)));
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
	const char *marker = cut ? offenders_cut_marker(&marker_width) : NULL;
	bool any_cut = false;

	b.len = 0;
	b.pending = 0;
	if (!o->noheadings)
		for (size_t i = 0; i < o->n_cols; i++)
			put_cell(&b, offenders_columns[o->cols[i]].name, widths[i],
				 offenders_columns[o->cols[i]].flags & SCOLS_FL_RIGHT, i + 1 == o->n_cols,
				 NULL, 0);
	for (size_t k = 0; k < n; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);

		for (size_t i = 0; i < o->n_cols; i++) {
			int col = o->cols[i];
			bool was_cut = false;
			const char *out;
			size_t len = offenders_cell(o, of, col, buf, sizeof(buf));

			out = offenders_escaped(buf, len, esc, sizeof(esc));
			if (cut && truncatable(col) && offenders_cell_width(out) > widths[i]) {
				if (out == buf) {
					memcpy(esc, buf, strlen(buf) + 1);
					out = esc;
				}
				was_cut = offenders_cut_escaped(esc, widths[i], col == COL_IPS, marker_width);
				any_cut |= was_cut;
			}
			put_cell(&b, out, widths[i], offenders_columns[col].flags & SCOLS_FL_RIGHT,
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
	const char *marker = offenders_cut_marker(&marker_width);

	measure(o, r, n, widths, false, fit);
	t.time_form = fit_columns(fit, o->n_cols, limit);
	t.n_cols = 0;
	for (size_t i = 0; i < o->n_cols; i++) {
		if (fit[i].hidden) {
			left_out[n_left++] = offenders_columns[o->cols[i]].name;
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

/* Whether a row shown under -g exe or -g unit is a name: its task's
 * executable or unit was not resolved. */
static bool grouped_by_name(const struct options *o, const struct splitlock_offenders *r,
			    size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct splitlock_offender *of = splitlock_offenders_get(r, k);

		if (o->group == SPLITLOCK_GROUP_EXE && !splitlock_offender_get_exe(of))
			return true;
		if (o->group == SPLITLOCK_GROUP_UNIT && !splitlock_offender_get_unit(of) &&
		    !splitlock_offender_get_container(of))
			return true;
	}
	return false;
}

int offenders_print_table(const struct options *o, const struct splitlock_offenders *r)
{
	size_t n = offenders_shown(o, r), widths[32] = { 0 }, limit = terminal_width(o), width = 0;
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
	else if (n > TABLE_CHUNK && !o->raw)
		measure(o, r, n, widths, true, NULL);
	if (limit && n > 0 && !o->raw) {
		/* printed */
	} else if (o->raw) {
		if (n > 0)
			print_raw(o, r, n);
	} else if (n > TABLE_CHUNK) {
		stream_rows(o, r, n, widths, false);
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
	offenders_print_unrecognized(buf, o, r);
	offenders_print_forged(buf, r);
	/* The grouping column is not among a saved log's columns, and would
	 * be empty: say what the rows are instead. */
	if (o->input && splitlock_offenders_get_count(r) &&
	    (o->group == SPLITLOCK_GROUP_EXE || o->group == SPLITLOCK_GROUP_UNIT))
		fprintf(buf, "A saved log names no %s: tasks are grouped by name.\n",
			o->group == SPLITLOCK_GROUP_EXE ? "executable" : "unit");
	else if (!o->input && grouped_by_name(o, r, n))
		fprintf(buf, "Rows with no %s are tasks with no known %s: they are grouped "
			"by name.\n", o->group == SPLITLOCK_GROUP_EXE ? "EXE" : "UNIT",
			o->group == SPLITLOCK_GROUP_EXE ? "executable" : "unit");
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
