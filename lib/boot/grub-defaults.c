/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The GRUB defaults as grub-mkconfig sees them: it sources /etc/default/grub,
 * then every /etc/default/grub.d/ *.cfg in order, with sh. We evaluate the
 * subset of sh those files use in practice (comments, NAME=VALUE with quotes
 * and $VARIABLE expansion, "export") and refuse everything else that could
 * change GRUB_CMDLINE_LINUX(_DEFAULT): unbalanced quotes, values spanning
 * lines, commands, and expansions we cannot evaluate. Assignments to other
 * variables may use commands (Debian's GRUB_DISTRIBUTOR does); they only
 * become an error when a command line variable uses them.
 */
#include <errno.h>
#include <stdarg.h>

#include "boot/boot.h"
#include "message.h"

struct var {
	char *name;
	char *value;
	char *unknown; /* why the value cannot be known, or NULL */
};

struct sh {
	const struct sl_sh_file *file;
	const char *t;
	size_t len, pos;
	unsigned line;
	struct var *vars;
	size_t n_vars;
	char *error;
	/* the word being read */
	char *buf;
	size_t used, cap;
	char *unknown;
	unsigned parts;
	char quote;
};

static int fail(struct sh *s, const char *format, ...) _printf_(2, 3);
static int fail(struct sh *s, const char *format, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int r;

	va_start(ap, format);
	r = message_vset(&msg, format, ap);
	va_end(ap);
	if (r == 0)
		message_set(&s->error, "%s line %u: %s", s->file->path, s->line, msg);
	return -EBADMSG;
}

static int put(struct sh *s, const char *p, size_t n)
{
	if (s->used + n + 1 > s->cap) {
		size_t cap = (s->used + n + 1) * 2;
		char *b = realloc(s->buf, cap);

		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->used, p, n);
	s->used += n;
	s->buf[s->used] = '\0';
	return 0;
}

static void mark_unknown(struct sh *s, const char *why, size_t n)
{
	if (!s->unknown)
		s->unknown = strndup(why, n);
}

static struct var *find_var(struct sh *s, const char *name, size_t n)
{
	for (size_t i = 0; i < s->n_vars; i++)
		if (strlen(s->vars[i].name) == n && memcmp(s->vars[i].name, name, n) == 0)
			return &s->vars[i];
	return NULL;
}

static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static int expand_name(struct sh *s, const char *name, size_t n)
{
	struct var *v = find_var(s, name, n);

	if (v) {
		if (v->unknown) {
			mark_unknown(s, v->unknown, strlen(v->unknown));
			return 0;
		}
		return put(s, v->value, strlen(v->value));
	}
	/* grub-mkconfig sets no GRUB_ variable before sourcing: unset is empty. */
	if (n > 5 && memcmp(name, "GRUB_", 5) == 0)
		return 0;
	/* Anything else would come from the environment of update-grub. */
	{
		char why[80];

		snprintf(why, sizeof(why), "$%.*s", (int)(n > 60 ? 60 : n), name);
		mark_unknown(s, why, strlen(why));
	}
	return 0;
}

/* Skip a command substitution that starts at s->pos (` or $( ). */
static int skip_command(struct sh *s)
{
	size_t p = s->pos;
	int depth = 0;

	if (s->t[p] == '`') {
		for (p++; p < s->len && s->t[p] != '`' && s->t[p] != '\n'; p++)
			if (s->t[p] == '\\')
				p++;
		if (p >= s->len || s->t[p] != '`')
			return fail(s, "unbalanced ` (command substitution)");
		s->pos = p + 1;
		mark_unknown(s, "a command substitution", 22);
		return 0;
	}
	/* $( ... ) with nesting */
	for (p += 1; p < s->len && s->t[p] != '\n'; p++) {
		if (s->t[p] == '(')
			depth++;
		else if (s->t[p] == ')' && --depth == 0)
			break;
	}
	if (p >= s->len || s->t[p] != ')')
		return fail(s, "unbalanced $( (command substitution)");
	s->pos = p + 1;
	mark_unknown(s, "a command substitution", 22);
	return 0;
}

/* At '$'. */
static int dollar(struct sh *s)
{
	const char *t = s->t;
	size_t p = s->pos + 1;

	if (p < s->len && t[p] == '(')
		return skip_command(s);
	if (p < s->len && t[p] == '{') {
		size_t start = p + 1, q = start;

		while (q < s->len && t[q] != '}' && t[q] != '\n')
			q++;
		if (q >= s->len || t[q] != '}')
			return fail(s, "unbalanced ${");
		s->pos = q + 1;
		for (size_t i = start; i < q; i++)
			if (!name_char(t[i], i == start)) {
				mark_unknown(s, t + start - 2, q - start + 3);
				return 0;
			}
		return expand_name(s, t + start, q - start);
	}
	if (p < s->len && name_char(t[p], true)) {
		size_t start = p;

		while (p < s->len && name_char(t[p], false))
			p++;
		s->pos = p;
		return expand_name(s, t + start, p - start);
	}
	if (p < s->len && strchr("0123456789#?@*!$-", t[p])) {
		mark_unknown(s, t + s->pos, 2);
		s->pos = p + 1;
		return 0;
	}
	s->pos++;
	return put(s, "$", 1);
}

static int quote_error(struct sh *s, char q, size_t from)
{
	const char *rest = memchr(s->t + from, q, s->len - from);

	if (rest)
		return fail(s, "the value spans several lines; only one-line values are edited");
	return fail(s, "unbalanced %c quote", q);
}

/* One sh word starting at s->pos; the value goes to s->buf. */
static int word(struct sh *s)
{
	const char *t = s->t;
	int r = 0;

	s->used = 0;
	s->parts = 0;
	s->quote = 0;
	if (put(s, "", 0) < 0)
		return -ENOMEM;
	free(s->unknown);
	s->unknown = NULL;
	while (s->pos < s->len && r == 0) {
		char c = t[s->pos];

		if (c == ' ' || c == '\t' || c == '\n')
			break;
		s->parts++;
		if (c == '\'') {
			size_t start = s->pos + 1, q = start;

			while (q < s->len && t[q] != '\'' && t[q] != '\n')
				q++;
			if (q >= s->len || t[q] != '\'')
				return quote_error(s, '\'', q);
			r = put(s, t + start, q - start);
			s->pos = q + 1;
			s->quote = s->parts == 1 ? '\'' : 'x';
		} else if (c == '"') {
			s->pos++;
			for (;;) {
				if (s->pos >= s->len)
					return fail(s, "unbalanced \" quote");
				c = t[s->pos];
				if (c == '"')
					break;
				if (c == '\n')
					return quote_error(s, '"', s->pos);
				if (c == '\\' && s->pos + 1 < s->len &&
				    strchr("$`\"\\\n", t[s->pos + 1])) {
					if (t[s->pos + 1] == '\n')
						return fail(s, "the value spans several lines; only one-line values are edited");
					r = put(s, t + s->pos + 1, 1);
					s->pos += 2;
				} else if (c == '$') {
					r = dollar(s);
				} else if (c == '`') {
					r = skip_command(s);
				} else {
					r = put(s, &c, 1);
					s->pos++;
				}
				if (r < 0)
					return r;
			}
			s->pos++;
			s->quote = s->parts == 1 ? '"' : 'x';
		} else if (c == '\\') {
			if (s->pos + 1 >= s->len || t[s->pos + 1] == '\n')
				return fail(s, "the value spans several lines; only one-line values are edited");
			r = put(s, t + s->pos + 1, 1);
			s->pos += 2;
			s->quote = 'x';
		} else if (c == '$') {
			r = dollar(s);
			s->quote = 'x';
		} else if (c == '`') {
			r = skip_command(s);
			s->quote = 'x';
		} else if (strchr(";|&<>()", c)) {
			return fail(s, "'%c' makes this more than a plain assignment", c);
		} else {
			r = put(s, &c, 1);
			s->pos++;
			s->quote = 'x';
		}
	}
	if (s->parts > 1 && s->quote != 0)
		s->quote = 'x';
	return r;
}

static int set_var(struct sh *s, const char *name, size_t n)
{
	struct var *v = find_var(s, name, n);

	if (!v) {
		struct var *vars = realloc(s->vars, (s->n_vars + 1) * sizeof(*vars));

		if (!vars)
			return -ENOMEM;
		s->vars = vars;
		v = &vars[s->n_vars++];
		*v = (struct var){ 0 };
		v->name = strndup(name, n);
		if (!v->name)
			return -ENOMEM;
	}
	free(v->value);
	free(v->unknown);
	v->value = strdup(s->buf);
	v->unknown = s->unknown;
	s->unknown = NULL;
	return v->value ? 0 : -ENOMEM;
}

static int add_assign(struct sl_grub_result *res, size_t file, unsigned line,
		      bool is_default, size_t start, size_t end, char quote)
{
	struct sl_grub_assign *a = realloc(res->assigns,
					   (res->n_assigns + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	res->assigns = a;
	a[res->n_assigns++] = (struct sl_grub_assign){
		.file = file, .line = line, .is_default = is_default,
		.value_start = start, .value_end = end, .quote = quote,
	};
	return 0;
}

static int eval_file(struct sh *s, size_t index, struct sl_grub_result *res)
{
	const char *t = s->t;
	int r;

	s->pos = 0;
	s->line = 1;
	while (s->pos < s->len) {
		size_t name, name_end, vstart;
		bool ours, is_default;

		while (s->pos < s->len && (t[s->pos] == ' ' || t[s->pos] == '\t'))
			s->pos++;
		if (s->pos < s->len && t[s->pos] == '#')
			while (s->pos < s->len && t[s->pos] != '\n')
				s->pos++;
		if (s->pos >= s->len)
			break;
		if (t[s->pos] == '\n') {
			s->pos++;
			s->line++;
			continue;
		}
		if (s->len - s->pos > 7 && memcmp(t + s->pos, "export", 6) == 0 &&
		    (t[s->pos + 6] == ' ' || t[s->pos + 6] == '\t')) {
			s->pos += 6;
			while (s->pos < s->len && (t[s->pos] == ' ' || t[s->pos] == '\t'))
				s->pos++;
		}
		name = s->pos;
		while (s->pos < s->len && name_char(t[s->pos], s->pos == name))
			s->pos++;
		name_end = s->pos;
		if (name_end == name || s->pos >= s->len || t[s->pos] != '=')
			return fail(s, "this is not a plain NAME=VALUE assignment");
		vstart = ++s->pos;
		r = word(s);
		if (r < 0)
			return r;
		is_default = name_end - name == 26 &&
			     memcmp(t + name, "GRUB_CMDLINE_LINUX_DEFAULT", 26) == 0;
		ours = is_default || (name_end - name == 18 &&
				      memcmp(t + name, "GRUB_CMDLINE_LINUX", 18) == 0);
		if (ours && s->unknown)
			return fail(s, "%.*s uses %s, which this library cannot evaluate",
				    (int)(name_end - name), t + name, s->unknown);
		if (ours) {
			r = add_assign(res, index, s->line, is_default, vstart,
				       s->pos, s->quote);
			if (r < 0)
				return r;
		}
		r = set_var(s, t + name, name_end - name);
		if (r < 0)
			return r;
		while (s->pos < s->len && (t[s->pos] == ' ' || t[s->pos] == '\t'))
			s->pos++;
		if (s->pos < s->len && t[s->pos] == '#')
			while (s->pos < s->len && t[s->pos] != '\n')
				s->pos++;
		if (s->pos < s->len && t[s->pos] != '\n')
			return fail(s, "this is not a plain NAME=VALUE assignment");
	}
	return 0;
}

int sl_grub_eval(const struct sl_sh_file *files, size_t n,
		 struct sl_grub_result *res)
{
	struct sh s = { 0 };
	struct var *v;
	int r = 0;

	*res = (struct sl_grub_result){ 0 };
	for (size_t i = 0; i < n && r == 0; i++) {
		s.file = &files[i];
		s.t = files[i].text;
		s.len = strlen(files[i].text);
		r = eval_file(&s, i, res);
	}
	if (r == 0) {
		v = find_var(&s, "GRUB_CMDLINE_LINUX", 18);
		res->linux_ = strdup(v ? v->value : "");
		v = find_var(&s, "GRUB_CMDLINE_LINUX_DEFAULT", 26);
		res->linux_default = strdup(v ? v->value : "");
		if (!res->linux_ || !res->linux_default)
			r = -ENOMEM;
	} else {
		res->error = s.error;
		s.error = NULL;
	}
	for (size_t i = 0; i < s.n_vars; i++) {
		free(s.vars[i].name);
		free(s.vars[i].value);
		free(s.vars[i].unknown);
	}
	free(s.vars);
	free(s.buf);
	free(s.unknown);
	free(s.error);
	return r;
}

void sl_grub_result_free(struct sl_grub_result *res)
{
	free(res->linux_);
	free(res->linux_default);
	free(res->assigns);
	free(res->error);
	*res = (struct sl_grub_result){ 0 };
}
