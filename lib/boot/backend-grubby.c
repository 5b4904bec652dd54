/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * grubby (Fedora, RHEL): BLS entries in /boot/loader/entries edited by
 * "grubby --update-kernel=ALL --args=... / --remove-args=...". Entries whose
 * options are "$kernelopts" take them from grubenv (Fedora < 33); grubby
 * would change grubenv instead, so we refuse those.
 */
#include <errno.h>

#include "boot/boot.h"

#define ENTRIES "/boot/loader/entries"

/*
 * Besides the entries, grubby-bls (rhboot/grubby) edits these with
 * --update-kernel=ALL: snapshotted so that a failure restores them too.
 */
static const char *const grubby_also_edits[] = {
	"/etc/default/grub", "/etc/kernel/cmdline", "/boot/grub2/grubenv",
};

/* Every entry: path and options. */
struct entries {
	char **paths;
	char **options;
	size_t n;
};

static void entries_free(struct entries *e)
{
	sl_strv_free(e->paths);
	for (size_t i = 0; i < e->n; i++)
		free(e->options[i]);
	free(e->options);
}

static char *field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, klen) == 0 && (l[klen] == ' ' || l[klen] == '\t')) {
			const char *v = l + klen + strspn(l + klen, " \t");

			return strndup(v, strcspn(v, "\n"));
		}
	return NULL;
}

static int load(struct splitlock_ctx *ctx, struct entries *e)
{
	char **names = NULL;
	int r = sl_list_dir(ctx, ENTRIES, ".conf", &names);
	size_t n = 0;

	*e = (struct entries){ 0 };
	if (r < 0)
		return r;
	while (names[n])
		n++;
	e->paths = calloc(n + 1, sizeof(char *));
	e->options = calloc(n + 1, sizeof(char *));
	if (!e->paths || !e->options) {
		sl_strv_free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *text = NULL;

		if (asprintf(&e->paths[e->n], ENTRIES "/%s", names[i]) < 0)
			break;
		r = sl_read_file(ctx, e->paths[e->n], SL_MAX_CONFIG_SIZE, &text, NULL);
		if (r < 0) {
			free(e->paths[e->n]);
			e->paths[e->n] = NULL;
			continue;
		}
		e->options[e->n] = field(text, "options");
		if (!e->options[e->n])
			e->options[e->n] = strdup("");
		e->n++;
	}
	sl_strv_free(names);
	return 0;
}

static int grubby_detect(struct splitlock_ctx *ctx)
{
	struct entries e;
	int r;

	if (!sl_have_tool(ctx, "grubby"))
		return SL_DETECT_NO;
	r = load(ctx, &e);
	if (r == 0)
		r = e.n > 0 ? SL_DETECT_DECISIVE : SL_DETECT_NO;
	entries_free(&e);
	return r;
}

static int refuse_variables(const struct entries *e, char **why)
{
	for (size_t i = 0; i < e->n; i++)
		if (strchr(e->options[i], '$')) {
			if (asprintf(why, "%s takes its options from a variable (%s) in "
				     "grubenv, which is not edited; nothing was changed",
				     e->paths[i], e->options[i]) < 0)
				*why = NULL;
			return -EBADMSG;
		}
	return 0;
}

/* The default kernel is the newest entry: the last by version order. */
static int grubby_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	struct entries e;
	int r = load(ctx, &e);

	*cmdline = *source = NULL;
	if (r < 0)
		return r;
	r = refuse_variables(&e, source);
	if (r == 0 && e.n == 0)
		r = -ENOENT;
	if (r == 0) {
		size_t best = 0;

		for (size_t i = 1; i < e.n; i++)
			if (strverscmp(e.paths[i], e.paths[best]) > 0)
				best = i;
		*cmdline = strdup(e.options[best]);
		*source = strdup(e.paths[best]);
	}
	entries_free(&e);
	return r;
}

static int grubby_plan(struct splitlock_boot_plan *plan)
{
	struct entries e;
	struct sl_command *cmd;
	bool present = false, done = true;
	char *why = NULL;
	int r = load(plan->ctx, &e);

	if (r < 0)
		return sl_plan_fail(plan, r, "cannot read " ENTRIES ": %s", strerror(-r));
	r = refuse_variables(&e, &why);
	if (r < 0) {
		sl_plan_fail(plan, r, "%s", why ? why : "an entry uses $variables");
		free(why);
		goto out;
	}
	for (size_t i = 0; i < e.n; i++) {
		present |= sl_cmdline_count(e.options[i], strlen(e.options[i]), NULL) > 0;
		done &= sl_plan_cmdline_ok(plan, e.options[i]);
		r = sl_plan_snapshot(plan, e.paths[i]);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(grubby_also_edits); i++) {
		r = sl_plan_snapshot(plan, grubby_also_edits[i]);
		if (r < 0)
			goto out;
	}
	if (done)
		goto out;
	if (present) {
		cmd = sl_plan_command(plan);
		if (!cmd || sl_cmd_arg(cmd, "grubby") < 0 ||
		    sl_cmd_arg(cmd, "--update-kernel=ALL") < 0 ||
		    sl_cmd_arg(cmd, "--remove-args=" SL_PARAM) < 0) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (plan->token[0]) {
		cmd = sl_plan_command(plan);
		if (!cmd || sl_cmd_arg(cmd, "grubby") < 0 ||
		    sl_cmd_arg(cmd, "--update-kernel=ALL") < 0 ||
		    sl_cmd_argf(cmd, "--args=%s", plan->token) < 0)
			r = -ENOMEM;
	}
out:
	entries_free(&e);
	return r;
}

/*
 * Ask grubby itself: every args="..." line of `grubby --info=ALL` must now
 * carry the token (or none). Only where the commands really ran.
 */
static int verify_with_grubby(struct splitlock_boot_plan *plan)
{
	char *const argv[] = { (char *)"grubby", (char *)"--info=ALL", NULL };
	_cleanup_free_ char *out = NULL;
	unsigned seen = 0;
	int r = sl_spawn(plan->ctx, argv, NULL, &out);

	if (r != 0)
		return sl_plan_fail(plan, r < 0 ? r : -EIO,
				    "grubby --info=ALL failed, so the new arguments are unconfirmed");
	for (char *line = out, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!startswith(line, "args=\""))
			continue;
		/* The options as written: quotes inside stay, the last one closes. */
		line += strlen("args=\"");
		if (strrchr(line, '"'))
			*strrchr(line, '"') = '\0';
		seen++;
		if (!sl_plan_cmdline_ok(plan, line))
			return sl_plan_fail(plan, -EBADMSG, "grubby --info=ALL shows a kernel "
					    "without %s", plan->token[0] ? plan->token : "the removal");
	}
	if (!seen)
		return sl_plan_fail(plan, -EBADMSG, "grubby --info=ALL lists no kernel");
	return 0;
}

static int grubby_verify(struct splitlock_boot_plan *plan)
{
	struct entries e;
	int r = load(plan->ctx, &e);

	for (size_t i = 0; r == 0 && i < e.n; i++)
		if (!sl_plan_cmdline_ok(plan, e.options[i]))
			r = sl_plan_fail(plan, -EBADMSG, "%s does not carry %s after grubby ran",
					 e.paths[i], plan->token[0] ? plan->token : "the removal");
	entries_free(&e);
	if (r == 0 && plan->run_tools)
		r = verify_with_grubby(plan);
	return r;
}

const struct sl_boot_backend sl_boot_grubby = {
	.name = "grubby",
	.detect = grubby_detect,
	.read = grubby_read,
	.plan = grubby_plan,
	.verify = grubby_verify,
};
