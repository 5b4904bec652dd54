/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl mitigate: the misery penalty (kernel.split_lock_mitigate). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "slctl.h"

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
	      "  -n, --dry-run   show what would change, change nothing\n"
	      "  -h, --help      show this help\n\n"
	      "The sysctl exists since Linux 6.2 (and in some stable backports).\n", out);
}

static void no_sysctl(void)
{
	slctl_error("this kernel has no " KEY "; it appeared in Linux 6.2 "
		    "(some distributions backport it to older stable kernels).");
}

static int show(struct splitlock_ctx *ctx, const struct slctl_globals *g)
{
	struct splitlock_sysctld *res = NULL;
	int value, r;
	const char *file = NULL, *persisted = NULL, *override = NULL;

	r = splitlock_mitigate_get(ctx, &value);
	if (r == -ENOENT) {
		no_sysctl();
		return EXIT_UNSUPPORTED;
	}
	if (r < 0) {
		slctl_error("cannot read " KEY ": %s.", strerror(-r));
		return slctl_exit_for(r);
	}
	if (splitlock_sysctld_resolve(ctx, KEY, &res) == 0) {
		persisted = splitlock_sysctld_get_value(res);
		file = splitlock_sysctld_get_file(res);
		override = splitlock_sysctld_get_override(res, SPLITLOCK_SYSCTLD_DROPIN);
	}
	if (g->json) {
		struct json j;

		json_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_int(&j, "current", value);
		if (persisted && (streq(persisted, "0") || streq(persisted, "1")))
			json_int(&j, "persisted", persisted[0] - '0');
		else
			json_string(&j, "persisted", persisted);
		json_string(&j, "persisted_in", file);
		json_string(&j, "overrides_slctl", override);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("Now:          %s (" KEY " = %d)\n", value ? "on" : "off", value);
		if (persisted)
			printf("After reboot: %s (%s)\n",
			       streq(persisted, "0") ? "off" : streq(persisted, "1") ? "on" : persisted,
			       file);
		else
			printf("After reboot: on (kernel default; no sysctl.d file sets " KEY ")\n");
	}
	splitlock_sysctld_unref(res);
	return EXIT_OK;
}

/* After writing our drop-in, make sure it is what the next boot applies. */
static int check_winner(struct splitlock_ctx *ctx, const char *want, bool dry_run)
{
	struct splitlock_sysctld *res;
	const char *override;
	int r = splitlock_sysctld_resolve(ctx, KEY, &res);

	if (r < 0) {
		slctl_error("cannot check the sysctl.d files: %s.", strerror(-r));
		return EXIT_FAIL;
	}
	override = splitlock_sysctld_get_override(res, SPLITLOCK_SYSCTLD_DROPIN);
	if (override) {
		const char *value = NULL, *file;
		unsigned line = 0;
		unsigned n = splitlock_sysctld_get_count(res);

		for (unsigned i = 0; i < n; i++) {
			splitlock_sysctld_get_entry(res, i, &file, &line, &value);
			if (streq(file, override))
				break;
		}
		if (!streq(value, want)) {
			const char *base = strrchr(override, '/');

			slctl_error("after reboot %s (line %u) %s " KEY " = %s and overrides %s; "
				    "remove that line, or mask the file with "
				    "'ln -s /dev/null /etc/sysctl.d/%s' if nothing else in it is needed.",
				    override, line, dry_run ? "would still set" : "sets", value,
				    SPLITLOCK_SYSCTLD_DROPIN, base ? base + 1 : override);
			splitlock_sysctld_unref(res);
			return EXIT_FAIL;
		}
	}
	splitlock_sysctld_unref(res);
	return EXIT_OK;
}

/* Write (or with @dry_run only plan) our drop-in; one sentence on failure. */
static int persist_dropin(struct splitlock_ctx *ctx, const char *text,
			  bool dry_run, char **content)
{
	int r = splitlock_sysctld_persist(ctx, KEY, text,
					  dry_run ? SPLITLOCK_WRITE_DRY_RUN : 0,
					  content);

	if (r == -ELOOP) {
		slctl_error("%s is a symlink; slctl does not write through symlinks, "
			    "remove it and run this again.", SPLITLOCK_SYSCTLD_DROPIN);
		return EXIT_FAIL;
	}
	if (r == -EEXIST) {
		slctl_error("%s exists but was not written by slctl; move it away and "
			    "run this again.", SPLITLOCK_SYSCTLD_DROPIN);
		return EXIT_FAIL;
	}
	if (r == -EUCLEAN) {
		slctl_error("refusing to write into /etc/sysctl.d: every user can write there; "
			    "fix it with 'chmod o-w /etc/sysctl.d' and check its files.");
		return EXIT_FAIL;
	}
	if (r < 0) {
		slctl_error("cannot write %s: %s.", SPLITLOCK_SYSCTLD_DROPIN, strerror(-r));
		return r == -EACCES || r == -EPERM ? EXIT_PRIVILEGE : EXIT_FAIL;
	}
	return EXIT_OK;
}

static int set(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int value, bool persist, bool dry_run)
{
	struct splitlock_mode_info *mode = NULL;
	_cleanup_free_ char *content = NULL;
	const char *text = value ? "1" : "0";
	int before, r;

	r = splitlock_mitigate_get(ctx, &before);
	if (r == -ENOENT) {
		no_sysctl();
		return EXIT_UNSUPPORTED;
	}
	if (r < 0) {
		slctl_error("cannot read " KEY ": %s.", strerror(-r));
		return slctl_exit_for(r);
	}
	if (value == 0 && splitlock_mode_info_read(ctx, &mode) == 0 &&
	    splitlock_mode_info_get_mode(mode) == SPLITLOCK_MODE_SEQ) {
		splitlock_mode_info_unref(mode);
		slctl_error("the kernel runs in seq mode, whose penalty cannot be switched off; "
			    "boot with another split_lock_detect= mode (see 'slctl mode').");
		return EXIT_FAIL;
	}
	splitlock_mode_info_unref(mode);

	/* Plan the drop-in first, so a refusal leaves the runtime value alone. */
	if (persist) {
		r = persist_dropin(ctx, text, true, &content);
		if (r)
			return r;
	}

	if (!dry_run) {
		r = slctl_require_capability(SPLITLOCK_CAP_SYS_ADMIN,
					     persist ? "changing and persisting " KEY
						     : "changing " KEY);
		if (r)
			return r;
		r = splitlock_mitigate_set(ctx, value);
		if (r < 0) {
			slctl_error("cannot set " KEY " to %d: %s.", value, strerror(-r));
			return slctl_exit_for(r);
		}
	}

	if (persist && !dry_run) {
		r = persist_dropin(ctx, text, false, NULL);
		if (r)
			return r;
	}

	if (g->json) {
		struct json j;

		json_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_int(&j, "previous", before);
		json_int(&j, "current", dry_run ? before : value);
		json_int(&j, "requested", value);
		json_bool(&j, "dry_run", dry_run);
		json_string(&j, "persisted_in", persist ? SPLITLOCK_SYSCTLD_DROPIN : NULL);
		json_object_end(&j);
		json_finish(&j);
	} else if (dry_run) {
		printf("Would set " KEY " = %d (now %d).\n", value, before);
		if (persist)
			printf("Would write %s:\n%s", SPLITLOCK_SYSCTLD_DROPIN, content);
	} else {
		printf("Split-lock misery is %s now (" KEY " = %d)%s.\n",
		       value ? "on" : "off", value,
		       persist ? " and after reboot (" SPLITLOCK_SYSCTLD_DROPIN ")" : "");
	}
	return persist ? check_winner(ctx, text, dry_run) : EXIT_OK;
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	static const struct option options[] = {
		{ "persist", no_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool persist = false, dry_run = false;
	int c, value;

	while ((c = getopt_long(argc, argv, "pnh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			persist = true;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return slctl_usage_error("mitigate", "bad option.");
		}
	}
	if (optind == argc) {
		if (persist || dry_run)
			return slctl_usage_error("mitigate", "--persist and --dry-run need 'on' or 'off'.");
		return show(ctx, g);
	}
	if (argc - optind > 1)
		return slctl_usage_error("mitigate", "unexpected argument '%s'.", argv[optind + 1]);
	if (streq(argv[optind], "on") || streq(argv[optind], "1"))
		value = 1;
	else if (streq(argv[optind], "off") || streq(argv[optind], "0"))
		value = 0;
	else
		return slctl_usage_error("mitigate", "'%s' is not 'on' or 'off'.", argv[optind]);
	return set(ctx, g, value, persist, dry_run);
}

const struct slctl_command slctl_cmd_mitigate = {
	.name = "mitigate",
	.run = run,
	.usage = usage,
	.summary = "show or set the split-lock penalty (kernel.split_lock_mitigate)",
};
