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

#include "bootloader.h"

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

/* Where the kernel's parameters end: the start of a bare "--" word, or @len. */
static size_t params_end(const char *s, size_t len)
{
	size_t p = 0;

	while (p < len) {
		size_t end;

		while (p < len && is_space(s[p]))
			p++;
		if (p >= len)
			break;
		end = word_end(s, p, len);
		if (end - p == 2 && s[p] == '-' && s[p + 1] == '-')
			return p;
		p = end;
	}
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
	size_t p = 0;
	unsigned n = 0;

	if (last)
		*last = NULL;
	len = params_end(in, len);
	while (p < len) {
		size_t end;

		while (p < len && is_space(in[p]))
			p++;
		if (p >= len)
			break;
		end = word_end(in, p, len);
		if (is_ours(in + p, end - p)) {
			n++;
			if (last) {
				free(*last);
				*last = strndup(in + p, end - p);
			}
		}
		p = end;
	}
	return n;
}
