/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Token editing of a kernel command line: drop every split_lock_detect
 * token, append one, and leave everything else (order, spacing, the final
 * newline) as it was. Words are split as the kernel splits them: at white
 * space outside double quotes. The kernel stops reading parameters at a
 * bare "--" and hands the words after it to init, so those are never ours:
 * they are neither counted nor touched, and the token goes before "--".
 */
#include <errno.h>

#include "boot/boot.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* End of the word starting at @p. */
static size_t word_end(const char *s, size_t p, size_t len)
{
	bool quoted = false;

	while (p < len && (quoted || !is_space(s[p]))) {
		if (s[p] == '"')
			quoted = !quoted;
		p++;
	}
	return p;
}

static bool is_ours(const char *w, size_t n)
{
	static const char key[] = SL_PARAM;
	size_t k = sizeof(key) - 1;

	if (n && *w == '"') {
		w++;
		n--;
	}
	if (n < k || memcmp(w, key, k) != 0)
		return false;
	return n == k || w[k] == '=' || w[k] == '"';
}

/* The next word at or after *@p: [*@start, *@p), false at the end. */
static bool next_word(const char *s, size_t len, size_t *p, size_t *start)
{
	while (*p < len && is_space(s[*p]))
		(*p)++;
	if (*p >= len)
		return false;
	*start = *p;
	*p = word_end(s, *p, len);
	return true;
}

/* Where the kernel's parameters end: the start of a bare "--" word, or @len. */
static size_t params_end(const char *s, size_t len)
{
	size_t p = 0, start;

	while (next_word(s, len, &p, &start))
		if (p - start == 2 && s[start] == '-' && s[start + 1] == '-')
			return start;
	return len;
}

static bool quotes_balanced(const char *s, size_t len)
{
	bool quoted = false;

	for (size_t i = 0; i < len; i++)
		if (s[i] == '"')
			quoted = !quoted;
	return !quoted;
}

int sl_cmdline_set(const char *in, size_t len, const char *token, char **out)
{
	size_t cap = len + (token ? strlen(token) : 0) + 3, used = 0;
	size_t p = 0, tail, ws_start = 0;
	bool any = false;
	char *buf;

	/* An appended word would land inside the open quote (found by fuzzing). */
	if (!quotes_balanced(in, len))
		return -EBADMSG;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	tail = params_end(in, len);
	while (tail > 0 && is_space(in[tail - 1]))
		tail--;
	/* Leading white space stays. */
	while (p < tail && is_space(in[p]))
		p++;
	memcpy(buf, in, p);
	used = p;
	while (p < tail) {
		size_t start = p, end = word_end(in, p, tail);

		if (!is_ours(in + start, end - start)) {
			if (any) {
				memcpy(buf + used, in + ws_start, start - ws_start);
				used += start - ws_start;
			}
			memcpy(buf + used, in + start, end - start);
			used += end - start;
			any = true;
		}
		p = end;
		ws_start = p;
		while (p < tail && is_space(in[p]))
			p++;
	}
	if (token && *token) {
		if (any)
			buf[used++] = ' ';
		memcpy(buf + used, token, strlen(token));
		used += strlen(token);
		/* "--" right at the start: keep it a word of its own. */
		if (tail < len && !is_space(in[tail]))
			buf[used++] = ' ';
	}
	memcpy(buf + used, in + tail, len - tail);
	used += len - tail;
	buf[used] = '\0';
	*out = buf;
	return 0;
}

unsigned sl_cmdline_count(const char *in, size_t len, char **last)
{
	size_t p = 0, start;
	unsigned n = 0;

	if (last)
		*last = NULL;
	len = params_end(in, len);
	while (next_word(in, len, &p, &start)) {
		if (!is_ours(in + start, p - start))
			continue;
		n++;
		if (last) {
			free(*last);
			*last = strndup(in + start, p - start);
		}
	}
	return n;
}

/* A line of a command line file that is a comment ("#" after blanks). */
static bool comment_line(const char *line, size_t len)
{
	size_t p = 0;

	while (p < len && (line[p] == ' ' || line[p] == '\t'))
		p++;
	return p < len && line[p] == '#';
}

int sl_cmdline_file_join(const char *text, char **out)
{
	size_t len = strlen(text), used = 0;
	char *buf = malloc(len + 1);

	if (!buf)
		return -ENOMEM;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		if (!comment_line(line, n)) {
			if (used)
				buf[used++] = ' ';
			memcpy(buf + used, line, n);
			used += n;
		}
		line += n + (nl ? 1 : 0);
	}
	buf[used] = '\0';
	*out = buf;
	return 0;
}

int sl_cmdline_file_set(const char *text, const char *token, char **out)
{
	size_t len = strlen(text), used = 0, last_start = 0, last_end = SIZE_MAX;
	size_t cap = len + (token ? strlen(token) : 0) + 8;
	char *buf = malloc(cap);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (const char *line = text; *line && r == 0;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char *edited = NULL;

		if (comment_line(line, n)) {
			memcpy(buf + used, line, n);
			used += n;
		} else if ((r = sl_cmdline_set(line, n, NULL, &edited)) == 0) {
			last_start = used;
			memcpy(buf + used, edited, strlen(edited));
			used += strlen(edited);
			last_end = used;
			free(edited);
		}
		if (nl)
			buf[used++] = '\n';
		line += n + (nl ? 1 : 0);
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[used] = '\0';
	if (token && *token) {
		char *joined = NULL;

		if (last_end == SIZE_MAX) {
			/* Only comments (or nothing): the token gets a line of its own. */
			r = asprintf(&joined, "%s%s%s\n", buf,
				     used && buf[used - 1] != '\n' ? "\n" : "", token);
		} else {
			_cleanup_free_ char *last = NULL;

			r = sl_cmdline_set(buf + last_start, last_end - last_start, token, &last);
			if (r == 0 && asprintf(&joined, "%.*s%s%s", (int)last_start, buf, last,
					       buf + last_end) < 0)
				r = -ENOMEM;
		}
		free(buf);
		if (r < 0)
			return r == -1 ? -ENOMEM : r;
		buf = joined;
	}
	*out = buf;
	return 0;
}
