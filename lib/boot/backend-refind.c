/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rEFInd: /boot/refind_linux.conf holds one `"TITLE" "OPTIONS"` line per
 * menu entry; the first is the default. We edit the options of every line;
 * rEFInd reads the file at boot, so nothing needs regenerating.
 */
#include <errno.h>

#include "boot/boot.h"

#define CONF "/boot/refind_linux.conf"

static int refind_detect(struct splitlock_ctx *ctx)
{
	return sl_exists(ctx, CONF) ? SL_DETECT_PLAUSIBLE : SL_DETECT_NO;
}

static size_t skip_blanks(const char *line, size_t len, size_t p)
{
	while (p < len && (line[p] == ' ' || line[p] == '\t'))
		p++;
	return p;
}

/* After blanks at *@p, one "..." field: its contents are [*@start, *@end). */
static bool quoted_field(const char *line, size_t len, size_t *p, size_t *start,
			 size_t *end)
{
	size_t q = skip_blanks(line, len, *p);

	if (q >= len || line[q] != '"')
		return false;
	*start = ++q;
	while (q < len && line[q] != '"')
		q++;
	if (q >= len)
		return false;
	*end = q;
	*p = q + 1;
	return true;
}

/* Byte range of the second quoted field of @line, or -EBADMSG. */
static int options_range(const char *line, size_t len, size_t *start, size_t *end)
{
	size_t p = 0, title_start, title_end;

	if (!quoted_field(line, len, &p, &title_start, &title_end) ||
	    !quoted_field(line, len, &p, start, end))
		return -EBADMSG;
	return skip_blanks(line, len, p) == len ? 0 : -EBADMSG;
}

/* Calls @fn for each menu line; stops at a malformed one (its number in *bad). */
static int edit(const char *text, const char *token, char **out, char **first,
		unsigned *bad)
{
	size_t cap = strlen(text) * 2 + 256, used = 0;
	unsigned lineno = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	*first = NULL;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n"), s, e, skip = strspn(l, " \t");
		bool nl = l[len] == '\n';

		lineno++;
		if (skip == len || l[skip] == '#') {
			memcpy(buf + used, l, len + nl);
			used += len + nl;
		} else if (options_range(l, len, &s, &e) < 0) {
			free(buf);
			free(*first);
			*first = NULL;
			*bad = lineno;
			return -EBADMSG;
		} else {
			char *opts = NULL;

			if (!*first)
				*first = strndup(l + s, e - s);
			int r = sl_cmdline_set(l + s, e - s, token, &opts);

			if (r < 0) {
				free(buf);
				return r;
			}
			if (used + len + strlen(opts) + 2 > cap) {
				char *bigger = realloc(buf, cap = (used + len + strlen(opts)) * 2 + 2);

				if (!bigger) {
					free(opts);
					free(buf);
					return -ENOMEM;
				}
				buf = bigger;
			}
			used += (size_t)sprintf(buf + used, "%.*s%s%.*s", (int)s, l, opts,
						(int)(len - e + nl), l + e);
			free(opts);
		}
		l += len + nl;
	}
	buf[used] = '\0';
	*out = buf;
	return 0;
}

static int refind_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	_cleanup_free_ char *text = NULL, *copy = NULL;
	unsigned bad = 0;
	int r = sl_read_file(ctx, CONF, SL_MAX_CONFIG_SIZE, &text, NULL);

	*cmdline = NULL;
	*source = NULL;
	if (r < 0)
		return r;
	r = edit(text, NULL, &copy, cmdline, &bad);
	if (r == -EBADMSG) {
		if (asprintf(source, CONF " line %u is not a \"TITLE\" \"OPTIONS\" line", bad) < 0)
			*source = NULL;
		return r;
	}
	/* The unedited options of the default line. */
	free(*cmdline);
	*cmdline = NULL;
	if (r == 0) {
		for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
			size_t len = strcspn(l, "\n"), s, e, skip = strspn(l, " \t");

			if (skip == len || l[skip] == '#')
				continue;
			if (options_range(l, len, &s, &e) == 0) {
				*cmdline = strndup(l + s, e - s);
				break;
			}
		}
		*source = strdup(CONF);
		if (!*cmdline)
			return -ENOENT;
	}
	return r;
}

static int refind_plan(struct splitlock_boot_plan *plan)
{
	_cleanup_free_ char *text = NULL, *first = NULL;
	char *new = NULL;
	unsigned bad = 0;
	int r = sl_read_file(plan->ctx, CONF, SL_MAX_CONFIG_SIZE, &text, NULL);

	if (r < 0)
		return sl_plan_fail(plan, r, "cannot read " CONF ": %s", strerror(-r));
	r = edit(text, plan->token, &new, &first, &bad);
	if (r == -EBADMSG)
		return sl_plan_fail(plan, r, CONF " line %u is not a \"TITLE\" \"OPTIONS\" "
				    "line; nothing was changed", bad);
	if (r < 0)
		return r;
	return sl_plan_file(plan, CONF, new);
}

const struct sl_boot_backend sl_boot_refind = {
	.name = "refind",
	.detect = refind_detect,
	.read = refind_read,
	.plan = refind_plan,
};
