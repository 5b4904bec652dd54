/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A unified diff (diff -u) of two small texts, for --dry-run. Configuration
 * files are short, so the longest common subsequence table is cheap; past
 * a few thousand lines we print the files as one hunk instead.
 */
#include <errno.h>
#include <stdarg.h>

#include "boot/boot.h"

#define CONTEXT 3
#define MAX_LCS_LINES 4000

struct lines {
	const char **start;
	size_t *len;
	size_t n;
};

static int split_lines(const char *text, struct lines *l)
{
	size_t n = 0;
	const char *p;

	l->n = 0;
	l->start = NULL;
	l->len = NULL;
	if (!text || !*text)
		return 0;
	for (p = text; *p; p++)
		if (*p == '\n')
			n++;
	if (p[-1] != '\n')
		n++;
	l->start = calloc(n, sizeof(*l->start));
	l->len = calloc(n, sizeof(*l->len));
	if (!l->start || !l->len)
		return -ENOMEM;
	for (p = text; *p; l->n++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		l->start[l->n] = p;
		l->len[l->n] = len;
		p += len;
	}
	return 0;
}

static bool same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->start[i], b->start[j], a->len[i]) == 0;
}

struct buf {
	char *p;
	size_t used, cap;
	int err;
};

static void add(struct buf *b, const char *format, ...) _printf_(2, 3);
static void add(struct buf *b, const char *format, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	for (;;) {
		va_start(ap, format);
		n = vsnprintf(b->p ? b->p + b->used : NULL, b->p ? b->cap - b->used : 0,
			      format, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if (b->p && b->used + (size_t)n < b->cap) {
			b->used += (size_t)n;
			return;
		}
		size_t cap = (b->cap + (size_t)n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

static void add_line(struct buf *b, char sign, const struct lines *l, size_t i)
{
	add(b, "%c%.*s", sign, (int)l->len[i], l->start[i]);
	if (l->start[i][l->len[i] - 1] != '\n')
		add(b, "\n\\ No newline at end of file\n");
}

/* Edit script: 0 keep, 1 delete from a, 2 insert from b. */
static int script(const struct lines *a, const struct lines *b, unsigned char **ops,
		  size_t *n_ops)
{
	size_t n = a->n, m = b->n, k = 0, i = 0, j = 0;
	unsigned char *o = malloc(n + m + 1);
	unsigned *t = NULL;

	if (!o)
		return -ENOMEM;
	if (n <= MAX_LCS_LINES && m <= MAX_LCS_LINES) {
		t = calloc((n + 1) * (m + 1), sizeof(*t));
		if (!t) {
			free(o);
			return -ENOMEM;
		}
		for (size_t x = n; x-- > 0;)
			for (size_t y = m; y-- > 0;)
				t[x * (m + 1) + y] = same(a, x, b, y) ?
					t[(x + 1) * (m + 1) + y + 1] + 1 :
					(t[(x + 1) * (m + 1) + y] > t[x * (m + 1) + y + 1] ?
					 t[(x + 1) * (m + 1) + y] : t[x * (m + 1) + y + 1]);
		while (i < n && j < m) {
			if (same(a, i, b, j)) {
				o[k++] = 0;
				i++;
				j++;
			} else if (t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]) {
				o[k++] = 1;
				i++;
			} else {
				o[k++] = 2;
				j++;
			}
		}
	}
	while (i < n) {
		o[k++] = 1;
		i++;
	}
	while (j < m) {
		o[k++] = 2;
		j++;
	}
	free(t);
	*ops = o;
	*n_ops = k;
	return 0;
}

int sl_diff(const char *path, const char *old, const char *new, char **out)
{
	struct lines a = { 0 }, b = { 0 };
	struct buf buf = { .p = *out, .used = *out ? strlen(*out) : 0,
			   .cap = *out ? strlen(*out) + 1 : 0 };
	unsigned char *ops = NULL;
	size_t n_ops = 0;
	int r;

	r = split_lines(old, &a);
	if (r == 0)
		r = split_lines(new, &b);
	if (r == 0)
		r = script(&a, &b, &ops, &n_ops);
	if (r < 0)
		goto out;

	add(&buf, "--- %s%s\n", old ? "a" : "", old ? path : "/dev/null");
	add(&buf, "+++ %s%s\n", new ? "b" : "", new ? path : "/dev/null");
	for (size_t k = 0, ai = 0, bi = 0; k < n_ops;) {
		size_t start, end, sa, sb, ca = 0, cb = 0;

		if (ops[k] == 0) {
			k++;
			ai++;
			bi++;
			continue;
		}
		/* A hunk: back up CONTEXT kept lines, run until 2*CONTEXT keeps. */
		start = k;
		sa = ai;
		sb = bi;
		for (size_t c = 0; c < CONTEXT && start > 0 && ops[start - 1] == 0; c++) {
			start--;
			sa--;
			sb--;
		}
		end = k;
		for (;;) {
			size_t run = 0;

			while (end < n_ops && ops[end] != 0)
				end++;
			while (end + run < n_ops && ops[end + run] == 0)
				run++;
			if (end + run >= n_ops || run > 2 * CONTEXT) {
				end += run < CONTEXT ? run : CONTEXT;
				break;
			}
			end += run;
		}
		for (size_t x = start; x < end; x++) {
			ca += ops[x] != 2;
			cb += ops[x] != 1;
		}
		add(&buf, "@@ -%zu,%zu +%zu,%zu @@\n", ca ? sa + 1 : sa, ca, cb ? sb + 1 : sb, cb);
		for (size_t x = start, i = sa, j = sb; x < end; x++) {
			if (ops[x] == 0) {
				add_line(&buf, ' ', &a, i++);
				j++;
			} else if (ops[x] == 1) {
				add_line(&buf, '-', &a, i++);
			} else {
				add_line(&buf, '+', &b, j++);
			}
		}
		for (size_t x = k; x < end; x++) {
			ai += ops[x] != 2;
			bi += ops[x] != 1;
		}
		k = end;
	}
	r = buf.err;
out:
	free(a.start);
	free(a.len);
	free(b.start);
	free(b.len);
	free(ops);
	if (r < 0)
		return r;
	*out = buf.p;
	return 0;
}
