/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl mitigate: the misery penalty (kernel.split_lock_mitigate). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "slctl.h"

/* The "version" of the JSON document(s) below: 1 since it was added. */
#define MITIGATE_JSON_VERSION 1

#define KEY "kernel.split_lock_mitigate"

static void usage(FILE *out)
{
	fputs("Usage: slctl mitigate [on|off] [--persist] [--dry-run]\n\n"
	      "Without an argument, show whether the kernel penalizes split-lock\n"
	      "offenders (a 10 ms sleep and one-at-a-time execution) now and after\n"
	      "reboot. With on or off, set kernel.split_lock_mitigate now.\n\n"
	      "Options:\n"
	      "  -p, --persist   also keep the setting across reboots, in\n"
	      "                  " SPLITLOCK_SYSCTLD_DROPIN "\n"
	      "      --dry-run   show what would change, change nothing\n"
	      "  -h, --help      show this help\n\n"
	      "The sysctl exists since Linux 6.2 (and in some stable backports).\n", out);
}

/* The sysctl could not be read: one sentence, and the status for it. */
static int read_failed(int r)
{
	if (r == -ENOENT) {
		slctl_error("this kernel has no " KEY "; it appeared in Linux 6.2 "
			    "(some distributions backport it to older stable kernels).");
		return EXIT_UNSUPPORTED;
	}
	if (r == -ETIMEDOUT)
		slctl_lookup_stalled();
	else
		slctl_error("cannot read " KEY ": %s.", errno_text(r));
	return slctl_exit_for(r);
}

static int show(struct splitlock_ctx *ctx, const struct slctl_globals *g)
{
	_cleanup_free_ char *file = NULL, *override = NULL;
	int value, persisted = 0, found, r;

	r = splitlock_mitigate_get(ctx, &value);
	if (r < 0)
		return read_failed(r);
	found = splitlock_mitigate_get_persisted(ctx, &persisted, &file, &override);
	if (found == -ETIMEDOUT || slctl_stalled(ctx)) {
		slctl_lookup_stalled();
		return EXIT_FAIL;
	}
	if (g->json) {
		struct json j;

		json_document_begin(&j, stdout, MITIGATE_JSON_VERSION);
		json_int(&j, "current", value);
		if (found > 0)
			json_int(&j, "persisted", persisted);
		else
			json_null(&j, "persisted");
		json_bool(&j, "persisted_valid", found >= 0);
		json_string(&j, "persisted_in", file);
		json_string(&j, "overrides_slctl", override);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("Now:          %s (" KEY " = %d)\n", value ? "on" : "off", value);
		if (found > 0)
			printf("After reboot: %s (%s)\n", persisted ? "on" : "off", file);
		else if (found == -EBADMSG)
			printf("After reboot: unknown (%s sets a value other than 0 or 1)\n", file);
		else if (found < 0)
			printf("After reboot: unknown (%s)\n", errno_text(found));
		else
			printf("After reboot: on (kernel default; no sysctl.d file sets " KEY ")\n");
	}
	return EXIT_OK;
}

/* Exit status for a refusal or failure of the plan. */
static int plan_exit(int r)
{
	return r == -EACCES ? EXIT_PRIVILEGE : EXIT_FAIL;
}

/* A file that still decides after reboot: the fix, for a person at a shell. */
static int report_override(const struct splitlock_mitigate_plan *plan, bool dry_run)
{
	unsigned line;
	const char *value;
	const char *file = splitlock_mitigate_plan_get_override(plan, &line, &value);
	const char *base;

	if (!file)
		return EXIT_OK;
	base = strrchr(file, '/');
	slctl_error("after reboot %s (line %u) %s " KEY " = %s and overrides %s; "
		    "remove that line, or mask the file with "
		    "'ln -s /dev/null /etc/sysctl.d/%s' if nothing else in it is needed.",
		    file, line, dry_run ? "would still set" : "sets", value,
		    SPLITLOCK_SYSCTLD_DROPIN, base ? base + 1 : file);
	return EXIT_FAIL;
}

static void print_result(const struct splitlock_mitigate_plan *plan,
			 const struct slctl_globals *g, bool persist, bool dry_run)
{
	int value = splitlock_mitigate_plan_get_value(plan);
	int before = splitlock_mitigate_plan_get_previous(plan);

	if (g->json) {
		struct json j;

		json_document_begin(&j, stdout, MITIGATE_JSON_VERSION);
		json_int(&j, "previous", before);
		json_int(&j, "current", dry_run ? before : splitlock_mitigate_plan_get_running(plan));
		json_int(&j, "requested", value);
		json_bool(&j, "dry_run", dry_run);
		json_string(&j, "persisted_in", persist ? SPLITLOCK_SYSCTLD_DROPIN : NULL);
		json_object_end(&j);
		json_finish(&j);
	} else if (dry_run) {
		printf("Would set " KEY " = %d (now %d).\n", value, before);
		if (persist)
			printf("Would write %s:\n%s", SPLITLOCK_SYSCTLD_DROPIN,
			       splitlock_mitigate_plan_get_dropin(plan));
	} else {
		printf("Split-lock misery is %s now (" KEY " = %d)%s.\n",
		       value ? "on" : "off", value,
		       persist ? " and after reboot (" SPLITLOCK_SYSCTLD_DROPIN ")" : "");
	}
}

static int set(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int value, bool persist, bool dry_run)
{
	struct splitlock_mitigate_plan *plan = NULL;
	int r, ret;

	r = splitlock_mitigate_plan_new(ctx, value, persist ? SPLITLOCK_MITIGATE_PERSIST : 0,
					&plan);
	if (r < 0)
		return read_failed(r);
	r = splitlock_mitigate_plan_get_refusal(plan);
	if (r < 0) {
		slctl_error("%s.", splitlock_mitigate_plan_get_error(plan));
		ret = plan_exit(r);
		goto out;
	}
	if (!dry_run) {
		ret = slctl_require_capability(splitlock_mitigate_plan_get_capability(plan),
					       persist ? "changing and persisting " KEY
						       : "changing " KEY);
		if (ret)
			goto out;
		r = splitlock_mitigate_plan_apply(plan);
		if (r == -ETIMEDOUT && !splitlock_mitigate_plan_get_error(plan)) {
			slctl_lookup_stalled();
			ret = EXIT_FAIL;
			goto out;
		}
		if (r < 0) {
			slctl_error("%s.", splitlock_mitigate_plan_get_error(plan) ?: errno_text(r));
			/* Half done is a failure, whatever the cause of the write error. */
			ret = splitlock_mitigate_plan_get_running(plan) >= 0 &&
			      splitlock_mitigate_plan_get_running(plan) !=
				      splitlock_mitigate_plan_get_previous(plan)
				      ? EXIT_FAIL : slctl_exit_for(r);
			goto out;
		}
	}
	print_result(plan, g, persist, dry_run);
	ret = persist ? report_override(plan, dry_run) : EXIT_OK;
out:
	splitlock_mitigate_plan_free(plan);
	return ret;
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	static const struct option options[] = {
		SLCTL_PLAN_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "ph";
	struct slctl_plan_options plan = { 0 };
	int c, value;
	while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
		if (slctl_plan_option(c, &plan))
			continue;
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return slctl_option_error("mitigate", argv, shorts, options);
		}
	}
	if (optind == argc) {
		if (plan.persist || plan.dry_run)
			return slctl_usage_error("mitigate", "--persist and --dry-run need 'on' or 'off'.");
		return show(ctx, g);
	}
	if (argc - optind > 1)
		return slctl_usage_error("mitigate", "unexpected argument '%s'.", argv[optind + 1]);
	/* The words only: "0" and "1" were undocumented aliases (issue 27). */
	if (streq(argv[optind], "on"))
		value = 1;
	else if (streq(argv[optind], "off"))
		value = 0;
	else
		return slctl_usage_error("mitigate", "'%s' is not 'on' or 'off'.", argv[optind]);
	return set(ctx, g, value, plan.persist, plan.dry_run);
}

const struct slctl_command slctl_cmd_mitigate = {
	.name = "mitigate",
	.run = run,
	.usage = usage,
	.summary = "show or set the split-lock penalty (kernel.split_lock_mitigate)",
};
