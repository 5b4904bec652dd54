/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mkinitcpio building unified kernel images (Arch): the command line baked
 * into the UKI comes from /etc/kernel/cmdline when it exists, else from
 * /etc/cmdline.d/ *.conf. We edit the one mkinitcpio reads (our own
 * /etc/cmdline.d/slctl.conf in the second case), then "mkinitcpio -P".
 */
#include <errno.h>

#include "bootloader.h"

#define KERNEL_CMDLINE "/etc/kernel/cmdline"
#define CMDLINE_D "/etc/cmdline.d"
#define OURS CMDLINE_D "/slctl.conf"

static bool uki_preset(struct splitlock_ctx *ctx)
{
	char **names = NULL;
	bool found = false;

	if (sl_list_dir(ctx, "/etc/mkinitcpio.d", ".preset", &names) < 0)
		return false;
	for (size_t i = 0; !found && names[i]; i++) {
		_cleanup_free_ char *text = NULL;
		char path[512];

		snprintf(path, sizeof(path), "/etc/mkinitcpio.d/%s", names[i]);
		if (sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, NULL) < 0)
			continue;
		for (char *l = strtok(text, "\n"); l && !found; l = strtok(NULL, "\n")) {
			l += strspn(l, " \t");
			found = *l != '#' && strstr(l, "_uki=");
		}
	}
	sl_strv_free(names);
	return found;
}

static int mk_detect(struct splitlock_ctx *ctx)
{
	char **entries = NULL;
	bool bls;

	if (!uki_preset(ctx))
		return SL_DETECT_NO;
	/* With BLS entries as well, kernel-install may be the one in charge. */
	sl_list_dir(ctx, "/boot/loader/entries", ".conf", &entries);
	bls = entries && entries[0];
	sl_strv_free(entries);
	return bls ? SL_DETECT_PLAUSIBLE : SL_DETECT_DECISIVE;
}

static int read_dropins(struct splitlock_ctx *ctx, char ***names, char **joined)
{
	size_t used = 0;
	int r = sl_list_dir(ctx, CMDLINE_D, ".conf", names);

	*joined = strdup("");
	for (size_t i = 0; r == 0 && *joined && (*names)[i]; i++) {
		_cleanup_free_ char *text = NULL;
		char path[512], *bigger;

		snprintf(path, sizeof(path), CMDLINE_D "/%s", (*names)[i]);
		r = sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, NULL);
		if (r < 0)
			break;
		bigger = realloc(*joined, used + strlen(text) + 2);
		if (!bigger)
			return -ENOMEM;
		*joined = bigger;
		used += (size_t)sprintf(*joined + used, "%s%s", used ? " " : "", text);
	}
	return *joined ? r : -ENOMEM;
}

static int mk_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	char **names = NULL;
	int r = sl_read_file(ctx, KERNEL_CMDLINE, 64 * 1024, cmdline, NULL);

	if (r == 0) {
		*source = strdup(KERNEL_CMDLINE);
		return 0;
	}
	r = read_dropins(ctx, &names, cmdline);
	sl_strv_free(names);
	*source = strdup(CMDLINE_D "/*.conf");
	if (r == 0 && !**cmdline)
		r = -ENOENT;
	return r;
}

static int mk_plan(struct splitlock_boot_plan *plan)
{
	struct splitlock_ctx *ctx = plan->ctx;
	struct sl_command *cmd;
	char **names = NULL;
	_cleanup_free_ char *joined = NULL;
	int r;

	if (sl_exists(ctx, KERNEL_CMDLINE)) {
		_cleanup_free_ char *text = NULL;
		char *new = NULL;

		if (sl_is_symlink(ctx, KERNEL_CMDLINE))
			return sl_plan_fail(plan, -ELOOP, KERNEL_CMDLINE " is a symbolic link; "
					    "slctl does not write through symlinks");
		r = sl_read_file(ctx, KERNEL_CMDLINE, 64 * 1024, &text, NULL);
		if (r == 0)
			r = sl_cmdline_set(text, strlen(text), plan->token, &new);
		if (r == 0)
			r = sl_plan_file(plan, KERNEL_CMDLINE, new);
	} else {
		r = read_dropins(ctx, &names, &joined);
		for (size_t i = 0; r == 0 && names[i]; i++) {
			_cleanup_free_ char *text = NULL;
			char path[512], *new = NULL;

			snprintf(path, sizeof(path), CMDLINE_D "/%s", names[i]);
			if (streq(path, OURS))
				continue;
			r = sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, NULL);
			if (r == 0 && sl_cmdline_count(text, strlen(text), NULL) == 0)
				continue;
			if (r == 0)
				r = sl_cmdline_set(text, strlen(text), NULL, &new);
			if (r == 0)
				r = sl_plan_file(plan, path, new);
		}
		sl_strv_free(names);
		if (r == 0 && plan->token[0]) {
			char *ours = NULL;

			r = asprintf(&ours, "%s\n", plan->token) < 0 ? -ENOMEM : 0;
			if (r == 0)
				r = sl_plan_file(plan, OURS, ours);
		} else if (r == 0) {
			r = sl_plan_delete(plan, OURS);
		}
	}
	if (r < 0 || plan->n_files == 0)
		return r;
	cmd = sl_plan_command(plan);
	if (!cmd || sl_cmd_arg(cmd, "mkinitcpio") < 0 || sl_cmd_arg(cmd, "-P") < 0)
		return -ENOMEM;
	return 0;
}

const struct sl_boot_backend sl_boot_mkinitcpio = {
	.name = "mkinitcpio",
	.detect = mk_detect,
	.read = mk_read,
	.plan = mk_plan,
};
