/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rpm-ostree (Silverblue, Kinoite, Bazzite): kernel arguments belong to the
 * deployment; "rpm-ostree kargs" stages a new one. It refuses to start while
 * another transaction runs, so we wait for "State: idle" first.
 */
#include <errno.h>

#include "boot/boot.h"

#define ENTRIES "/boot/loader/entries"
#define IDLE_WAIT_SECONDS 120

static int ostree_detect(struct splitlock_ctx *ctx)
{
	return sl_exists(ctx, "/run/ostree-booted") ? SL_DETECT_DECISIVE : SL_DETECT_NO;
}

/* The pending deployment: the ostree entry with the highest version. */
static int ostree_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	char **names = NULL;
	const char *best = NULL;
	long best_version = -1;
	int r = sl_list_dir(ctx, ENTRIES, ".conf", &names);

	*cmdline = *source = NULL;
	for (size_t i = 0; r == 0 && names[i]; i++) {
		_cleanup_free_ char *text = NULL;
		char path[512];
		const char *v;

		if (!startswith(names[i], "ostree-"))
			continue;
		snprintf(path, sizeof(path), ENTRIES "/%s", names[i]);
		if (sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, NULL) < 0)
			continue;
		v = strstr(text, "\nversion ");
		if (v && strtol(v + 9, NULL, 10) > best_version) {
			const char *o = strstr(text, "\noptions ");

			best_version = strtol(v + 9, NULL, 10);
			best = names[i];
			free(*cmdline);
			*cmdline = o ? strndup(o + 9, strcspn(o + 9, "\n")) : strdup("");
		}
	}
	if (r == 0 && !best)
		r = -ENOENT;
	if (r == 0 && asprintf(source, ENTRIES "/%s", best) < 0)
		r = -ENOMEM;
	sl_strv_free(names);
	if (r < 0) {
		free(*cmdline);
		*cmdline = NULL;
	}
	return r;
}

static int ostree_plan(struct splitlock_boot_plan *plan)
{
	_cleanup_free_ char *cmdline = NULL, *source = NULL;
	struct sl_command *cmd;
	unsigned n;
	int r = ostree_read(plan->ctx, &cmdline, &source);

	if (r < 0)
		return sl_plan_fail(plan, r, "cannot find the pending ostree deployment's "
				    "boot entry in " ENTRIES);
	if (sl_plan_cmdline_ok(plan, cmdline))
		return 0;
	n = sl_cmdline_count(cmdline, strlen(cmdline), NULL);
	cmd = sl_plan_command(plan);
	if (!cmd || sl_cmd_arg(cmd, "rpm-ostree") < 0 || sl_cmd_arg(cmd, "kargs") < 0)
		return -ENOMEM;
	if (n == 1 && plan->token[0])
		return sl_cmd_argf(cmd, "--replace=%s", plan->token);
	/*
	 * Delete each existing value, then add ours in a second call: within
	 * one call the daemon applies --append-if-missing before
	 * --delete-if-present, so a word both kept and deleted would vanish.
	 */
	for (char *w = strtok(cmdline, " \t"); w; w = strtok(NULL, " \t"))
		if (sl_cmdline_count(w, strlen(w), NULL) &&
		    sl_cmd_argf(cmd, "--delete-if-present=%s", w) < 0)
			return -ENOMEM;
	if (!plan->token[0])
		return 0;
	if (n > 0) {
		cmd = sl_plan_command(plan);
		if (!cmd || sl_cmd_arg(cmd, "rpm-ostree") < 0 || sl_cmd_arg(cmd, "kargs") < 0)
			return -ENOMEM;
	}
	return sl_cmd_argf(cmd, "--append-if-missing=%s", plan->token);
}

static int ostree_regenerate(struct splitlock_boot_plan *plan)
{
	char *const status[] = { (char *)"rpm-ostree", (char *)"status", NULL };

	for (int i = 0;; i++) {
		_cleanup_free_ char *out = NULL;
		int r = sl_spawn(plan->ctx, status, NULL, &out);

		if (r < 0)
			return sl_plan_fail(plan, -ECHILD, "cannot run rpm-ostree: %s", strerror(-r));
		if (r == 0 && out && (startswith(out, "State: idle") || strstr(out, "\nState: idle")))
			break;
		if (i >= IDLE_WAIT_SECONDS)
			return sl_plan_fail(plan, -ECHILD, "rpm-ostree stayed busy for %d seconds",
					    IDLE_WAIT_SECONDS);
		sleep(1);
	}
	return sl_boot_run_commands(plan);
}

/* "rpm-ostree kargs" prints the pending deployment's arguments. */
static int ostree_verify(struct splitlock_boot_plan *plan)
{
	char *const kargs[] = { (char *)"rpm-ostree", (char *)"kargs", NULL };
	_cleanup_free_ char *out = NULL;
	int r = sl_spawn(plan->ctx, kargs, NULL, &out);

	if (r != 0 || !out || !sl_plan_cmdline_ok(plan, out))
		return sl_plan_fail(plan, -EBADMSG, "'rpm-ostree kargs' does not show %s "
				    "after the change", plan->token[0] ? plan->token : "the removal");
	return 0;
}

const struct sl_boot_backend sl_boot_rpm_ostree = {
	.name = "rpm-ostree",
	.detect = ostree_detect,
	.read = ostree_read,
	.plan = ostree_plan,
	.regenerate = ostree_regenerate,
	.verify = ostree_verify,
};
