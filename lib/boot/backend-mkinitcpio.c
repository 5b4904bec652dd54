/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mkinitcpio building unified kernel images (Arch). Since v37.3 the command
 * line baked into a UKI is /etc/kernel/cmdline (or, without it,
 * /usr/lib/kernel/cmdline) followed by every /etc/cmdline.d/ *.conf in
 * name order, lines starting with "#" left out; a preset's PRESET_cmdline=
 * names a file that its image uses instead. Every one of those sources
 * loses its split_lock_detect= words; the token goes to /etc/kernel/cmdline
 * when it exists, else to our own /etc/cmdline.d/slctl.conf (last but for
 * names sorting after it, which lose their words), and to each preset's
 * own file; then "mkinitcpio -P".
 */
#include <errno.h>

#include "boot/boot.h"

#define KERNEL_CMDLINE "/etc/kernel/cmdline"
#define VENDOR_CMDLINE "/usr/lib/kernel/cmdline"
#define CMDLINE_D "/etc/cmdline.d"
#define OURS CMDLINE_D "/slctl.conf"
#define PRESETS "/etc/mkinitcpio.d"

static size_t strv_length(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* The assignment starting at @line (its "=" at @eq) is to a NAME ending in @suffix. */
static bool key_ends(const char *line, const char *eq, const char *suffix)
{
	size_t n = strlen(suffix);

	return (size_t)(eq - line) > n && strncmp(eq - n, suffix, n) == 0;
}

/*
 * Over the uncommented assignments of every preset: whether one builds a
 * UKI (PRESET_uki=), and the files PRESET_cmdline= names.
 */
static int presets(struct splitlock_ctx *ctx, char ***cmdline_files, bool *uki)
{
	char **names = NULL, **files = calloc(1, sizeof(char *));
	size_t n = 0;
	int r;

	*uki = false;
	*cmdline_files = files;
	if (!files)
		return -ENOMEM;
	r = sl_list_dir(ctx, PRESETS, ".preset", &names);
	for (size_t i = 0; r == 0 && names[i]; i++) {
		_cleanup_free_ char *text = NULL;
		char path[512];

		snprintf(path, sizeof(path), PRESETS "/%s", names[i]);
		if (sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, NULL) < 0)
			continue;
		for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
			char *eq, *value, **bigger;
			size_t vlen;

			l += strspn(l, " \t");
			eq = strchr(l, '=');
			if (*l == '#' || !eq)
				continue;
			if (key_ends(l, eq, "_uki"))
				*uki = true;
			if (!key_ends(l, eq, "_cmdline"))
				continue;
			/* PRESET_cmdline="FILE": a plain path, quoted or not. */
			value = eq + 1;
			if (*value == '"' || *value == '\'')
				value++;
			vlen = strcspn(value, "\"' \t");
			if (vlen == 0 || *value != '/')
				continue;
			bigger = realloc(files, (n + 2) * sizeof(*files));
			if (!bigger) {
				r = -ENOMEM;
				break;
			}
			files = bigger;
			files[n] = strndup(value, vlen);
			if (files[n])
				n++;
			files[n] = NULL;
		}
	}
	sl_strv_free(names);
	*cmdline_files = files;
	return r;
}

static int mk_detect(struct splitlock_ctx *ctx)
{
	char **entries = NULL, **files = NULL;
	bool uki, bls;
	int r = presets(ctx, &files, &uki);

	sl_strv_free(files);
	if (r < 0 || !uki)
		return r < 0 ? r : SL_DETECT_NO;
	/* With BLS entries as well, kernel-install may be the one in charge. */
	sl_list_dir(ctx, "/boot/loader/entries", ".conf", &entries);
	bls = entries && entries[0];
	sl_strv_free(entries);
	return bls ? SL_DETECT_PLAUSIBLE : SL_DETECT_DECISIVE;
}

/* The files of the default command line, in mkinitcpio's order. */
static int default_sources(struct splitlock_ctx *ctx, char ***paths)
{
	char **names = NULL, **v;
	size_t n = 0;
	int r = sl_list_dir(ctx, CMDLINE_D, ".conf", &names);

	if (r < 0)
		return r;
	v = calloc(strv_length(names) + 2, sizeof(*v));
	if (!v) {
		sl_strv_free(names);
		return -ENOMEM;
	}
	if (sl_exists(ctx, KERNEL_CMDLINE))
		v[n++] = strdup(KERNEL_CMDLINE);
	else if (sl_exists(ctx, VENDOR_CMDLINE))
		v[n++] = strdup(VENDOR_CMDLINE);
	for (size_t i = 0; names[i]; i++)
		if (asprintf(&v[n], CMDLINE_D "/%s", names[i]) >= 0)
			n++;
	sl_strv_free(names);
	*paths = v;
	return 0;
}

/* The command line @paths give, read as mkinitcpio reads them. */
static int join_sources(struct splitlock_ctx *ctx, char *const *paths, char **cmdline)
{
	char *all = strdup("");
	int r = 0;

	for (size_t i = 0; all && paths[i]; i++) {
		_cleanup_free_ char *text = NULL, *words = NULL;
		char *bigger = NULL;

		r = sl_read_file(ctx, paths[i], 64 * 1024, &text, NULL);
		if (r == -ENOENT)
			continue;
		if (r == 0)
			r = sl_cmdline_file_join(text, &words);
		if (r < 0)
			break;
		if (asprintf(&bigger, "%s%s%s", all, *all && *words ? " " : "", words) < 0)
			bigger = NULL;
		free(all);
		all = bigger;
	}
	if (!all)
		return -ENOMEM;
	if (r < 0) {
		free(all);
		return r;
	}
	*cmdline = all;
	return 0;
}

static int mk_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	char **paths = NULL;
	int r = default_sources(ctx, &paths);

	*cmdline = NULL;
	*source = NULL;
	if (r == 0)
		r = join_sources(ctx, paths, cmdline);
	if (r == 0) {
		bool base = paths[0] && !startswith(paths[0], CMDLINE_D "/");

		if (asprintf(source, "%s%s" CMDLINE_D "/*.conf", base ? paths[0] : "",
			     base ? ", " : "") < 0) {
			*source = NULL;
			r = -ENOMEM;
		}
	}
	sl_strv_free(paths);
	if (r == 0 && !**cmdline)
		r = -ENOENT;
	return r;
}

/* Plan @path with its words removed and @token (may be NULL) appended. */
static int plan_source(struct splitlock_boot_plan *plan, const char *path, const char *token)
{
	_cleanup_free_ char *text = NULL;
	char *new = NULL;
	int r;

	if (sl_is_symlink(plan->ctx, path))
		return sl_plan_fail(plan, -ELOOP, "%s is a symbolic link; symlinks are not "
				    "written through", path);
	r = sl_read_file(plan->ctx, path, 64 * 1024, &text, NULL);
	if (r == -ENOENT && !token)
		return 0;
	if (r < 0 && r != -ENOENT)
		return sl_plan_fail(plan, r, "cannot read %s: %s", path, strerror(-r));
	r = sl_cmdline_file_set(text ? text : "", token, &new);
	if (r < 0)
		return r;
	return sl_plan_file(plan, path, new);
}

static int mk_plan(struct splitlock_boot_plan *plan)
{
	struct splitlock_ctx *ctx = plan->ctx;
	const char *token = plan->token[0] ? plan->token : NULL;
	char **paths = NULL, **preset_files = NULL;
	bool uki, have_kernel_cmdline = sl_exists(ctx, KERNEL_CMDLINE);
	bool ours_seen = false;
	struct sl_command *cmd;
	int r = default_sources(ctx, &paths);

	if (r == 0)
		r = presets(ctx, &preset_files, &uki);
	for (size_t i = 0; r == 0 && paths[i]; i++) {
		if (streq(paths[i], OURS)) {
			ours_seen = true;
			r = have_kernel_cmdline || !token ? sl_plan_delete(plan, OURS)
							  : plan_source(plan, OURS, token);
		} else if (streq(paths[i], VENDOR_CMDLINE)) {
			/* The vendor's file is not ours to edit: override it. */
			_cleanup_free_ char *text = NULL;

			if (sl_read_file(ctx, VENDOR_CMDLINE, 64 * 1024, &text, NULL) == 0 &&
			    sl_cmdline_count(text, strlen(text), NULL) > 0) {
				char *new = NULL;

				r = sl_cmdline_file_set(text, token, &new);
				if (r == 0)
					r = sl_plan_file(plan, KERNEL_CMDLINE, new);
				have_kernel_cmdline = r == 0;
			}
		} else {
			r = plan_source(plan, paths[i],
					streq(paths[i], KERNEL_CMDLINE) ? token : NULL);
		}
	}
	if (r == 0 && token && !have_kernel_cmdline && !ours_seen)
		r = plan_source(plan, OURS, token);
	for (size_t i = 0; r == 0 && preset_files[i]; i++)
		r = plan_source(plan, preset_files[i], token);
	sl_strv_free(paths);
	sl_strv_free(preset_files);
	if (r < 0 || plan->n_files == 0)
		return r;
	cmd = sl_plan_command(plan);
	if (!cmd || sl_cmd_arg(cmd, "mkinitcpio") < 0 || sl_cmd_arg(cmd, "-P") < 0)
		return -ENOMEM;
	return 0;
}

/* After mkinitcpio -P: every preset's own file says the same. */
static int mk_verify(struct splitlock_boot_plan *plan)
{
	char **files = NULL;
	bool uki;
	int r = presets(plan->ctx, &files, &uki);

	for (size_t i = 0; r == 0 && files[i]; i++) {
		_cleanup_free_ char *text = NULL, *words = NULL;

		r = sl_read_file(plan->ctx, files[i], 64 * 1024, &text, NULL);
		if (r == 0)
			r = sl_cmdline_file_join(text, &words);
		if (r == 0 && !sl_plan_cmdline_ok(plan, words))
			r = sl_plan_fail(plan, -EBADMSG, "%s does not hold exactly %s", files[i],
					 plan->token[0] ? plan->token : "no " SL_PARAM "= parameter");
	}
	sl_strv_free(files);
	return r;
}

const struct sl_boot_backend sl_boot_mkinitcpio = {
	.name = "mkinitcpio",
	.detect = mk_detect,
	.read = mk_read,
	.plan = mk_plan,
	.verify = mk_verify,
};
