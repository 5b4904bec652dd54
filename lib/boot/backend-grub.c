/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GRUB through its defaults files. Debian and Ubuntu (update-grub): our own
 * drop-in /etc/default/grub.d/zz-slctl.cfg appends to
 * GRUB_CMDLINE_LINUX_DEFAULT, as kdump-tools does, so it survives drop-ins
 * that assign the variable before it. Elsewhere (Arch, Fedora without BLS):
 * GRUB_CMDLINE_LINUX in /etc/default/grub, edited in place. Either way every
 * other split_lock_detect= token in the sourced files is removed, and the
 * result is evaluated again before anything is written: exactly one token
 * must come out.
 */
#include <errno.h>

#include "boot/boot.h"

#define DEFAULTS "/etc/default/grub"
#define DROPIN_DIR "/etc/default/grub.d"
#define DROPIN DROPIN_DIR "/zz-slctl.cfg"
/* grub-mkconfig marks what each /etc/grub.d script generated. */
#define LINUX_SECTION_BEGIN "### BEGIN /etc/grub.d/10_linux ###"
#define DROPIN_HEADER "# Written by slctl mode --persist; change it with 'slctl mode'.\n"

struct defaults {
	size_t n;
	char *paths[64];
	char *texts[64];
	struct sl_sh_file files[64];
};

static void defaults_free(struct defaults *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->paths[i]);
		free(d->texts[i]);
	}
	d->n = 0;
}

static int add_file(struct splitlock_ctx *ctx, struct defaults *d, const char *path)
{
	int r;

	if (d->n >= ARRAY_SIZE(d->paths))
		return -E2BIG;
	d->paths[d->n] = strdup(path);
	if (!d->paths[d->n])
		return -ENOMEM;
	r = sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &d->texts[d->n], NULL);
	if (r < 0) {
		free(d->paths[d->n]);
		return r;
	}
	d->files[d->n] = (struct sl_sh_file){ d->paths[d->n], d->texts[d->n] };
	d->n++;
	return 0;
}

static bool debian_style(struct splitlock_ctx *ctx)
{
	return sl_have_tool(ctx, "update-grub");
}

/*
 * Whether this distribution's grub-mkconfig sources /etc/default/grub.d:
 * Debian's (and Ubuntu's, the ones update-grub runs) is patched to;
 * upstream's, Arch's and Fedora's grub2-mkconfig read /etc/default/grub
 * alone, so a drop-in there changes nothing and is not ours to edit.
 */
static bool sources_dropins(struct splitlock_ctx *ctx)
{
	static const char *const scripts[] = {
		"/usr/sbin/grub-mkconfig", "/usr/bin/grub-mkconfig",
		"/usr/sbin/grub2-mkconfig", "/usr/bin/grub2-mkconfig",
		"/sbin/grub-mkconfig", "/sbin/grub2-mkconfig",
	};

	if (debian_style(ctx))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(scripts); i++) {
		_cleanup_free_ char *text = NULL;

		if (sl_read_file(ctx, scripts[i], SL_MAX_CONFIG_SIZE, &text, NULL) == 0 &&
		    strstr(text, "default/grub.d"))
			return true;
	}
	return false;
}

/* The files in the order this system's grub-mkconfig sources them. */
static int load(struct splitlock_ctx *ctx, struct defaults *d)
{
	char **names = NULL;
	int r;

	*d = (struct defaults){ 0 };
	r = add_file(ctx, d, DEFAULTS);
	if (r < 0 && r != -ENOENT)
		return r;
	if (!sources_dropins(ctx))
		return 0;
	r = sl_list_dir(ctx, DROPIN_DIR, ".cfg", &names);
	for (size_t i = 0; r == 0 && names[i]; i++) {
		char path[512];

		snprintf(path, sizeof(path), DROPIN_DIR "/%s", names[i]);
		r = add_file(ctx, d, path);
		if (r == -ENOENT)
			r = 0;
	}
	sl_strv_free(names);
	if (r < 0)
		defaults_free(d);
	return r;
}

static int grub_detect(struct splitlock_ctx *ctx)
{
	if (!sl_exists(ctx, DEFAULTS))
		return SL_DETECT_NO;
	if (debian_style(ctx) || sl_have_tool(ctx, "grub-mkconfig") ||
	    sl_have_tool(ctx, "grub2-mkconfig"))
		return SL_DETECT_PLAUSIBLE;
	return SL_DETECT_NO;
}

static char *joined(const struct sl_grub_result *res)
{
	char *s = NULL;

	if (asprintf(&s, "%s %s", res->linux_, res->linux_default) < 0)
		return NULL;
	return s;
}

static int grub_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	struct defaults d;
	struct sl_grub_result res;
	int r = load(ctx, &d);

	*cmdline = NULL;
	*source = strdup(sources_dropins(ctx) ? DEFAULTS ", " DROPIN_DIR "/*.cfg" : DEFAULTS);
	if (r < 0)
		return r;
	if (d.n == 0)
		return -ENOENT;
	r = sl_grub_eval(d.files, d.n, &res);
	if (r == -EBADMSG) {
		free(*source);
		*source = res.error;
		res.error = NULL;
	} else if (r == 0) {
		*cmdline = joined(&res);
		if (!*cmdline)
			r = -ENOMEM;
	}
	sl_grub_result_free(&res);
	defaults_free(&d);
	return r;
}

/* Replace bytes [start, end) of *text with @with. */
static int splice(char **text, size_t start, size_t end, const char *with)
{
	size_t len = strlen(*text), wlen = strlen(with);
	char *s = malloc(len - (end - start) + wlen + 1);

	if (!s)
		return -ENOMEM;
	memcpy(s, *text, start);
	memcpy(s + start, with, wlen);
	memcpy(s + start + wlen, *text + end, len - end + 1);
	free(*text);
	*text = s;
	return 0;
}

/*
 * Rewrite the value of @a in @text: drop our tokens, append @token (may be
 * NULL). Values must be one quoted string or empty.
 */
static int edit_value(struct splitlock_boot_plan *plan, const char *path,
		      char **text, const struct sl_grub_assign *a, const char *token)
{
	const char *v = *text + a->value_start;
	size_t vlen = a->value_end - a->value_start;
	_cleanup_free_ char *inner = NULL, *quoted = NULL;
	char q;
	int r;

	if (a->quote == 'x') {
		if (!token && sl_cmdline_count(v, vlen, NULL) == 0)
			return 0;
		return sl_plan_fail(plan, -EBADMSG, "%s line %u: %s is not one quoted "
				    "string, and only such values are edited",
				    path, a->line, a->is_default ? "GRUB_CMDLINE_LINUX_DEFAULT"
								 : "GRUB_CMDLINE_LINUX");
	}
	if (a->quote == 0) {
		if (!token)
			return 0;
		q = '"';
		r = sl_cmdline_set("", 0, token, &inner);
	} else {
		q = a->quote;
		if (!token && sl_cmdline_count(v + 1, vlen - 2, NULL) == 0)
			return 0;
		r = sl_cmdline_set(v + 1, vlen - 2, token, &inner);
	}
	if (r < 0)
		return r;
	if (asprintf(&quoted, "%c%s%c", q, inner, q) < 0)
		return -ENOMEM;
	return splice(text, a->value_start, a->value_end, quoted);
}

static int check_result(struct splitlock_boot_plan *plan, struct defaults *d,
			char **texts, const char *dropin_text)
{
	struct sl_sh_file files[ARRAY_SIZE(d->files) + 1];
	struct sl_grub_result res;
	_cleanup_free_ char *cmdline = NULL;
	size_t n = 0;
	bool dropin_seen = false;
	int r;

	for (size_t i = 0; i < d->n; i++) {
		if (streq(d->paths[i], DROPIN)) {
			dropin_seen = true;
			if (!dropin_text)
				continue;
			files[n++] = (struct sl_sh_file){ DROPIN, dropin_text };
			continue;
		}
		/* Our drop-in sorts among the others by name. */
		if (!dropin_seen && dropin_text && i > 0 && strcmp(d->paths[i], DROPIN) > 0) {
			files[n++] = (struct sl_sh_file){ DROPIN, dropin_text };
			dropin_seen = true;
		}
		files[n++] = (struct sl_sh_file){ d->paths[i], texts[i] };
	}
	if (!dropin_seen && dropin_text)
		files[n++] = (struct sl_sh_file){ DROPIN, dropin_text };
	r = sl_grub_eval(files, n, &res);
	if (r == -EBADMSG) {
		r = sl_plan_fail(plan, r, "after the edit %s", res.error);
		sl_grub_result_free(&res);
		return r;
	}
	if (r < 0)
		return r;
	cmdline = joined(&res);
	sl_grub_result_free(&res);
	if (!cmdline)
		return -ENOMEM;
	if (!sl_plan_cmdline_ok(plan, cmdline))
		return sl_plan_fail(plan, -EBADMSG, "after the edit the GRUB defaults would "
				    "still not give exactly %s (a file sourced later assigns "
				    "GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT again); "
				    "nothing was changed",
				    plan->token[0] ? plan->token : "no " SL_PARAM "= parameter");
	return 0;
}

static int grub_plan(struct splitlock_boot_plan *plan)
{
	struct splitlock_ctx *ctx = plan->ctx;
	bool debian = debian_style(ctx);
	struct defaults d;
	struct sl_grub_result res;
	char *texts[ARRAY_SIZE(d.paths)] = { 0 };
	_cleanup_free_ char *dropin = NULL;
	const char *token = plan->token[0] ? plan->token : NULL;
	struct sl_command *cmd;
	ssize_t append_to = -1;
	size_t defaults_index = SIZE_MAX;
	int r;

	r = load(ctx, &d);
	if (r < 0)
		return sl_plan_fail(plan, r, "cannot read the GRUB defaults: %s", strerror(-r));
	r = sl_grub_eval(d.files, d.n, &res);
	if (r == -EBADMSG) {
		r = sl_plan_fail(plan, r, "%s; nothing was changed", res.error);
		goto out;
	}
	if (r < 0)
		goto out;
	for (size_t i = 0; i < d.n; i++) {
		texts[i] = strdup(d.texts[i]);
		if (!texts[i]) {
			r = -ENOMEM;
			goto out;
		}
		if (streq(d.paths[i], DEFAULTS))
			defaults_index = i;
		if (streq(d.paths[i], DROPIN) && !startswith(d.texts[i], DROPIN_HEADER)) {
			r = sl_plan_fail(plan, -EEXIST, "%s exists but was not written by "
					 "this library; move it away", DROPIN);
			goto out;
		}
	}
	if (!debian) {
		if (defaults_index == SIZE_MAX) {
			r = sl_plan_fail(plan, -ENOENT, DEFAULTS " does not exist");
			goto out;
		}
		for (size_t k = 0; k < res.n_assigns; k++)
			if (res.assigns[k].file == defaults_index && !res.assigns[k].is_default)
				append_to = (ssize_t)k;
	}
	/* Backwards, so that earlier offsets in the same file stay valid. */
	for (size_t k = res.n_assigns; k-- > 0;) {
		const struct sl_grub_assign *a = &res.assigns[k];

		if (streq(d.paths[a->file], DROPIN))
			continue;
		r = edit_value(plan, d.paths[a->file], &texts[a->file], a,
			       (ssize_t)k == append_to ? token : NULL);
		if (r < 0)
			goto out;
	}
	if (!debian && token && append_to < 0) {
		char *line = NULL;
		const char *t = texts[defaults_index];
		bool nl = !*t || t[strlen(t) - 1] == '\n';

		if (asprintf(&line, "%s%sGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n",
			     t, nl ? "" : "\n", token) < 0) {
			r = -ENOMEM;
			goto out;
		}
		free(texts[defaults_index]);
		texts[defaults_index] = line;
	}
	if (debian && token &&
	    asprintf(&dropin, DROPIN_HEADER
		     "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT %s\"\n",
		     token) < 0) {
		r = -ENOMEM;
		goto out;
	}
	r = check_result(plan, &d, texts, dropin);
	if (r < 0)
		goto out;

	for (size_t i = 0; i < d.n; i++) {
		if (streq(d.paths[i], DROPIN) || streq(texts[i], d.texts[i]))
			continue;
		r = sl_plan_file(plan, d.paths[i], texts[i]);
		texts[i] = NULL;
		if (r < 0)
			goto out;
	}
	if (dropin) {
		r = sl_plan_file(plan, DROPIN, dropin);
		dropin = NULL;
	} else {
		r = sl_plan_delete(plan, DROPIN);
	}
	if (r < 0)
		goto out;

	if (plan->n_files == 0)
		goto out; /* already so: nothing to regenerate */
	cmd = sl_plan_command(plan);
	if (!cmd) {
		r = -ENOMEM;
		goto out;
	}
	if (debian) {
		r = sl_cmd_arg(cmd, "update-grub");
	} else if (sl_have_tool(ctx, "grub2-mkconfig")) {
		r = sl_cmd_arg(cmd, "grub2-mkconfig");
		if (r == 0)
			r = sl_cmd_arg(cmd, "-o");
		if (r == 0)
			r = sl_cmd_arg(cmd, "/boot/grub2/grub.cfg");
	} else {
		r = sl_cmd_arg(cmd, "grub-mkconfig");
		if (r == 0)
			r = sl_cmd_arg(cmd, "-o");
		if (r == 0)
			r = sl_cmd_arg(cmd, "/boot/grub/grub.cfg");
	}
out:
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		free(texts[i]);
	sl_grub_result_free(&res);
	defaults_free(&d);
	return r;
}

/*
 * The generated grub.cfg: the entries 10_linux wrote carry the token, none
 * twice (the recovery entry, built from GRUB_CMDLINE_LINUX alone, may lack
 * it when the token went to GRUB_CMDLINE_LINUX_DEFAULT).
 */
static int grub_verify(struct splitlock_boot_plan *plan)
{
	const char *cfg = sl_have_tool(plan->ctx, "grub2-mkconfig") && !debian_style(plan->ctx)
				  ? "/boot/grub2/grub.cfg" : "/boot/grub/grub.cfg";
	_cleanup_free_ char *text = NULL;
	unsigned good = 0, bad = 0;
	bool in_linux = false;
	int r = sl_read_file(plan->ctx, cfg, SL_MAX_CONFIG_SIZE, &text, NULL);

	if (r < 0)
		return sl_plan_fail(plan, -EBADMSG, "cannot read %s after regenerating it: %s",
				    cfg, strerror(-r));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		_cleanup_free_ char *last = NULL;
		unsigned n;

		/*
		 * Only the entries 10_linux generates carry GRUB_CMDLINE_LINUX*:
		 * a user's own 40_custom entry with another word is theirs.
		 */
		if (startswith(line, "### BEGIN ")) {
			in_linux = streq(line, LINUX_SECTION_BEGIN);
			continue;
		}
		if (startswith(line, "### END "))
			in_linux = false;
		line += strspn(line, " \t");
		if (!in_linux || !startswith(line, "linux"))
			continue;
		n = sl_cmdline_count(line, strlen(line), &last);
		if (plan->token[0] ? (n == 1 && streq(last, plan->token)) : n == 0)
			good++;
		else if (n > 0)
			bad++;
	}
	if (!good || bad)
		return sl_plan_fail(plan, -EBADMSG, "%s does not carry %s on its boot "
				    "entries after regeneration", cfg,
				    plan->token[0] ? plan->token : "the removal");
	return 0;
}

const struct sl_boot_backend sl_boot_grub = {
	.name = "grub",
	.detect = grub_detect,
	.read = grub_read,
	.plan = grub_plan,
	.verify = grub_verify,
};
