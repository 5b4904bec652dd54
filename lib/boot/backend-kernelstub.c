/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernelstub (Pop!_OS): the options live in /etc/kernelstub/configuration
 * (JSON, "user" -> "kernel_options"); kernelstub copies kernel and options
 * to the EFI partition. We give the whole new list with "-o": kernelstub's
 * "-d" (kernelstub/application.py) runs after "-a" whatever their order and
 * subtracts as a Python set, which loses the order of every option and
 * drops a word that is both added and deleted.
 */
#include <errno.h>

#include "boot/boot.h"
#include "core/json.h"

#define CONFIG "/etc/kernelstub/configuration"

static int stub_detect(struct splitlock_ctx *ctx)
{
	return sl_exists(ctx, CONFIG) ? SL_DETECT_DECISIVE : SL_DETECT_NO;
}

/*
 * The strings of "user": {"kernel_options": [...]}, joined by spaces as
 * kernelstub joins them for the command line. -EBADMSG when the file is not
 * JSON, the list is missing or holds anything but strings (kernelstub
 * itself would fail on either), or an option holds a NUL.
 */
static int parse_options(const char *json, size_t len, char **out)
{
	const char *p = json, *end = json + len;
	struct sl_json_iter it;
	_cleanup_free_ char *buf = NULL;
	size_t used = 0;
	int r;

	if (sl_json_object_find(&p, end, "user") < 0 ||
	    sl_json_object_find(&p, end, "kernel_options") < 0 ||
	    !sl_json_iter_begin(&it, &p, end) || it.close != ']')
		return -EBADMSG;
	/* Decoded text is never longer than its JSON. */
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	while ((r = sl_json_iter_next(&it, &p, end, NULL, 0, NULL)) > 0) {
		size_t n;

		if (used)
			buf[used++] = ' ';
		if (*p != '"' || !sl_json_string(&p, end, buf + used, len - used, &n) ||
		    memchr(buf + used, '\0', n))
			return -EBADMSG;
		used += n;
	}
	if (r < 0)
		return -EBADMSG;
	buf[used] = '\0';
	*out = buf;
	buf = NULL;
	return 0;
}

static int stub_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	_cleanup_free_ char *json = NULL;
	size_t len;
	int r = sl_read_file(ctx, CONFIG, SL_MAX_CONFIG_SIZE, &json, &len);

	*cmdline = NULL;
	*source = strdup(CONFIG);
	if (r < 0)
		return r;
	r = parse_options(json, len, cmdline);
	if (r == -EBADMSG) {
		free(*source);
		*source = strdup(CONFIG " has no user kernel_options list this library can read");
	}
	return r;
}

static int stub_plan(struct splitlock_boot_plan *plan)
{
	_cleanup_free_ char *cmdline = NULL, *source = NULL, *options = NULL;
	struct sl_command *cmd;
	int r = stub_read(plan->ctx, &cmdline, &source);

	if (r < 0)
		return sl_plan_fail(plan, r, "%s", source ? source : CONFIG " is unreadable");
	if (sl_plan_cmdline_ok(plan, cmdline))
		return 0;
	r = sl_cmdline_set(cmdline, strlen(cmdline), plan->token, &options);
	if (r < 0)
		return r;
	cmd = sl_plan_command(plan);
	if (!cmd || sl_cmd_arg(cmd, "kernelstub") < 0 || sl_cmd_arg(cmd, "-o") < 0 ||
	    sl_cmd_arg(cmd, options + strspn(options, " ")) < 0)
		return -ENOMEM;
	return sl_plan_snapshot(plan, CONFIG);
}

const struct sl_boot_backend sl_boot_kernelstub = {
	.name = "kernelstub",
	.detect = stub_detect,
	.read = stub_read,
	.plan = stub_plan,
};
