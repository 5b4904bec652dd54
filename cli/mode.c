/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl mode: the detection mode now, after reboot, and persisting it. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "slctl.h"

/* The "version" of the JSON document(s) below: 1 since it was added. */
#define MODE_JSON_VERSION 1

static void usage(FILE *out)
{
	fputs("Usage: slctl mode\n"
	      "       slctl mode MODE --persist [--backend NAME] [--dry-run] [--run-tools]\n"
	      "       slctl mode MODE --now [--persist ...] [--dry-run]\n\n"
	      "Without MODE, show the detection mode of the running kernel and the\n"
	      "mode the next boot will use, with where each comes from. With MODE and\n"
	      "--persist, set the split_lock_detect= boot parameter through the\n"
	      "system's own bootloader tool; the kernel reads it only at boot. With\n"
	      "--now, switch the running kernel, where it can (the patched kernel's\n"
	      "writable /sys/kernel/split_lock/mode).\n\n"
	      "Modes (seq needs the patched kernel; default removes the parameter):\n", out);
	/* The library's modes, so a new one needs no change here. */
	fprintf(out, "       %s (1 <= N <= 1000), default\n\n", slctl_mode_names());
	fputs("Options:\n"
	      "  -p, --persist        write the parameter for the next boot\n"
	      "      --now            switch the running kernel now (not with default)\n"
	      "  -b, --backend NAME   auto (default), or one of\n", out);
	slctl_print_wrapped(out, 23, slctl_backend_names());
	fputs(	      "      --dry-run        show the diff and the commands, change nothing\n"
	      "      --run-tools      with --root, run the regeneration commands inside\n"
	      "                       the root (chroot), with the root's own tools\n"
	      "  -h, --help           show this help\n\n"
	      "With --root other than /, files under the root are edited and the\n"
	      "regeneration commands are printed, not run, unless --run-tools is given.\n",
	      out);
}

static const char *mode_text(enum splitlock_mode mode, unsigned rate, char *buf,
			     size_t size)
{
	if (splitlock_mode_format(mode, rate, buf, size) < 0)
		return "unknown";
	return buf;
}

static int show(struct splitlock_ctx *ctx, const struct slctl_globals *g)
{
	struct splitlock_mode_info *info = NULL;
	enum splitlock_mode next = SPLITLOCK_MODE_UNKNOWN;
	unsigned next_rate = 0;
	_cleanup_free_ char *next_source = NULL;
	char cur[32], nb[32];
	int r, n;

	r = splitlock_mode_info_read(ctx, &info);
	if (r < 0) {
		slctl_error("cannot learn the current mode: %s.", strerror(-r));
		return EXIT_FAIL;
	}
	n = splitlock_mode_next_boot(ctx, &next, &next_rate, &next_source);
	if (n == -ETIMEDOUT || slctl_stalled(ctx)) {
		slctl_lookup_stalled();
		splitlock_mode_info_free(info);
		return EXIT_FAIL;
	}
	if (g->json) {
		struct json j;

		json_document_begin(&j, stdout, MODE_JSON_VERSION);
		json_string(&j, "current", mode_text(splitlock_mode_info_get_mode(info),
						     splitlock_mode_info_get_ratelimit(info),
						     cur, sizeof(cur)));
		json_string(&j, "source", splitlock_mode_source_name(
					splitlock_mode_info_get_source(info)));
		json_bool(&j, "guess", splitlock_mode_info_is_guess(info));
		if (n < 0)
			json_null(&j, "next_boot");
		else
			json_string(&j, "next_boot", n > 0 ? mode_text(next, next_rate, nb, sizeof(nb))
							   : "default");
		json_string(&j, "next_boot_source", next_source);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("Current:   %s (from %s%s)\n",
		       mode_text(splitlock_mode_info_get_mode(info),
				 splitlock_mode_info_get_ratelimit(info), cur, sizeof(cur)),
		       splitlock_mode_source_name(splitlock_mode_info_get_source(info)),
		       splitlock_mode_info_is_guess(info) ? ", a guess" : "");
		if (n < 0)
			printf("Next boot: unknown (%s)\n", next_source ? next_source : strerror(-n));
		else if (n > 0)
			printf("Next boot: %s (%s)\n", mode_text(next, next_rate, nb, sizeof(nb)),
			       next_source);
		else
			printf("Next boot: default, no split_lock_detect= parameter (%s)\n",
			       next_source);
	}
	splitlock_mode_info_free(info);
	/* The exit status says the same with and without --json. */
	return n < 0 ? EXIT_FAIL : EXIT_OK;
}

/* An argument as a shell would need it, for printing only. */
static void print_arg(FILE *out, const char *arg)
{
	if (*arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789-_=./:,+@%") == strlen(arg)) {
		fputs(arg, out);
		return;
	}
	fputc('\'', out);
	for (; *arg; arg++)
		if (*arg == '\'')
			fputs("'\\''", out);
		else
			fputc(*arg, out);
	fputc('\'', out);
}

static void print_commands(FILE *out, const struct splitlock_boot_plan *plan,
			   const char *indent)
{
	size_t n = splitlock_boot_plan_get_command_count(plan);

	for (size_t i = 0; i < n; i++) {
		const char *const *argv = splitlock_boot_plan_get_command(plan, i);

		fputs(indent, out);
		for (size_t k = 0; argv[k]; k++) {
			if (k)
				fputc(' ', out);
			print_arg(out, argv[k]);
		}
		fputc('\n', out);
	}
}

/*
 * The library's sentences name no program and no option (other front ends
 * link it too); what to do next with this one is added here, by errno.
 */
static const char *next_step(int r)
{
	switch (r) {
	case -ESTALE:
	case -EBUSY:
		return "; run the command again";
	case -EEXIST:
	case -EUCLEAN:
		return ", then run the command again";
	case -ENOTUNIQ:
		return "; choose one with --backend";
	default:
		return "";
	}
}

static void manual_steps(void)
{
	fputs("To set the parameter by hand, add split_lock_detect=MODE to the kernel\n"
	      "command line where your bootloader keeps it, for example:\n"
	      "  GRUB:          GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub\n"
	      "                 or grub-mkconfig -o /boot/grub/grub.cfg\n"
	      "  systemd-boot:  /etc/kernel/cmdline, then kernel-install add for each kernel\n"
	      "  other:         the \"options\" line of the boot entry\n"
	      "Remove any other split_lock_detect= word; the kernel uses the last one.\n",
	      stderr);
}

/* The boot plan's keys, into an open object. */
static void json_plan_fields(struct json *j, const struct splitlock_boot_plan *plan,
			     const char *value, bool dry_run, bool ran)
{
	size_t nf = splitlock_boot_plan_get_file_count(plan);
	size_t nc = splitlock_boot_plan_get_command_count(plan);

	json_string(j, "backend", splitlock_boot_plan_get_backend(plan));
	json_string(j, "next_boot", value);
	json_bool(j, "dry_run", dry_run);
	json_bool(j, "changed", !dry_run && (nf || nc));
	json_array_begin(j, "files");
	for (size_t i = 0; i < nf; i++)
		json_string(j, NULL, splitlock_boot_plan_get_file(plan, i));
	json_array_end(j);
	json_string(j, "diff", splitlock_boot_plan_get_diff(plan));
	json_array_begin(j, "commands");
	for (size_t i = 0; i < nc; i++) {
		const char *const *argv = splitlock_boot_plan_get_command(plan, i);

		json_array_begin(j, NULL);
		for (size_t k = 0; argv[k]; k++)
			json_string(j, NULL, argv[k]);
		json_array_end(j);
	}
	json_array_end(j);
	json_bool(j, "commands_run", ran);
}

static void print_json_plan(const struct splitlock_boot_plan *plan, const char *value,
			    bool dry_run, bool ran)
{
	struct json j;

	json_document_begin(&j, stdout, MODE_JSON_VERSION);
	json_plan_fields(&j, plan, value, dry_run, ran);
	json_object_end(&j);
	json_finish(&j);
}

/*
 * After a failed apply, what is still changed and how to fix each, on
 * stderr after the one-sentence error. The library said "restored" only
 * when it read every file back; here each leftover gets its command.
 */
static void print_leftovers(struct splitlock_ctx *ctx, const struct splitlock_boot_plan *plan)
{
	static const char *const what[] = {
		[SPLITLOCK_LEFTOVER_NOT_RESTORED] = "still the new version, restoring it failed",
		[SPLITLOCK_LEFTOVER_REWRITTEN] = "rewritten by the failed command",
		[SPLITLOCK_LEFTOVER_CREATED] = "created by the failed command",
		[SPLITLOCK_LEFTOVER_REMOVED] = "removed by the failed command",
	};
	size_t n = splitlock_boot_plan_get_leftover_count(plan);
	const char *previous = splitlock_boot_plan_get_previous(plan);
	const char *root = splitlock_get_root(ctx);
	bool unknown_fix = false;

	if (!n)
		return;
	fprintf(stderr, "Still changed%s%s:\n", streq(root, "/") ? "" : " under ",
		streq(root, "/") ? "" : root);
	for (size_t i = 0; i < n; i++) {
		enum splitlock_boot_leftover kind;
		const char *path, *fix;

		if (splitlock_boot_plan_get_leftover(plan, i, &path, &kind, &fix) < 0)
			continue;
		fprintf(stderr, "  %s: %s\n", path, what[kind]);
		if (fix)
			fprintf(stderr, "    fix: %s\n", fix);
		else
			unknown_fix = true;
	}
	if (unknown_fix)
		fprintf(stderr, "slctl knows no command that undoes what the tool did to the files "
			"without a fix; before this run the next boot used %s.\n",
			previous ? previous : "a mode slctl could not read");
}

/*
 * A boot plan for @mode through @backend, checked up to applying: EXIT_OK
 * with *@planp, or an exit status after one sentence (and no plan).
 */
static int plan_boot(struct splitlock_ctx *ctx, enum splitlock_mode mode, unsigned rate,
		     const char *backend, bool run_tools, struct splitlock_boot_plan **planp)
{
	struct splitlock_boot_plan *plan = NULL;
	int r, ret = EXIT_OK;

	*planp = NULL;
	r = splitlock_boot_plan_new(ctx, backend, run_tools ? SPLITLOCK_BOOT_RUN_TOOLS : 0, &plan);
	if (r < 0) {
		slctl_error("%s.", strerror(-r));
		return EXIT_FAIL;
	}
	r = splitlock_boot_plan_get_refusal(plan);
	if (r == -ENOENT || r == -ENOTUNIQ) {
		slctl_error("%s%s.", splitlock_boot_plan_get_error(plan), next_step(r));
		if (r == -ENOENT)
			manual_steps();
		ret = EXIT_UNSUPPORTED;
	} else if (r < 0) {
		slctl_error("%s.", splitlock_boot_plan_get_error(plan) ?: strerror(-r));
		ret = EXIT_FAIL;
	} else {
		r = splitlock_boot_plan_mode(plan, mode, rate);
		if (r < 0) {
			slctl_error("%s%s.", splitlock_boot_plan_get_error(plan) ?: strerror(-r),
				    next_step(r));
			ret = EXIT_FAIL;
		}
	}
	if (ret != EXIT_OK)
		splitlock_boot_plan_free(plan);
	else
		*planp = plan;
	return ret;
}

/* Apply a plan; an exit status after the sentence and the leftovers. */
static int apply_boot(struct splitlock_ctx *ctx, struct splitlock_boot_plan *plan,
		      const char *already)
{
	int r = splitlock_boot_plan_apply(plan);

	if (r == 0)
		return EXIT_OK;
	slctl_error("%s%s%s.", already ? already : "",
		    splitlock_boot_plan_get_error(plan) ?: strerror(-r), next_step(r));
	print_leftovers(ctx, plan);
	return r == -EACCES || r == -EPERM ? EXIT_PRIVILEGE : EXIT_FAIL;
}

static bool commands_ran(const struct splitlock_boot_plan *plan, bool dry_run)
{
	return !dry_run && splitlock_boot_plan_runs_commands(plan) &&
	       splitlock_boot_plan_get_command_count(plan) > 0;
}

static void print_boot_text(struct splitlock_ctx *ctx, const struct splitlock_boot_plan *plan,
			    const char *text, bool dry_run)
{
	if (dry_run) {
		const char *diff = splitlock_boot_plan_get_diff(plan);

		printf("Backend: %s\n", splitlock_boot_plan_get_backend(plan));
		if (diff)
			fputs(diff, stdout);
		if (splitlock_boot_plan_get_command_count(plan)) {
			printf("Would run:\n");
			print_commands(stdout, plan, "  ");
		}
		if (!diff && !splitlock_boot_plan_get_command_count(plan))
			printf("Nothing to change: the next boot already uses %s.\n", text);
		return;
	}
	if (!splitlock_boot_plan_get_file_count(plan) &&
	    !splitlock_boot_plan_get_command_count(plan))
		printf("Nothing to change: the next boot already uses %s.\n", text);
	else
		printf("Next boot: %s (set through %s).\n", text,
		       splitlock_boot_plan_get_backend(plan));
	if (!commands_ran(plan, dry_run) && splitlock_boot_plan_get_command_count(plan)) {
		printf("Run inside %s to regenerate the boot configuration:\n",
		       splitlock_get_root(ctx));
		print_commands(stdout, plan, "  ");
	}
}

static int parse_mode(const char *text, enum splitlock_mode *mode, unsigned *rate)
{
	*mode = SPLITLOCK_MODE_UNKNOWN;
	*rate = 0;
	if (streq(text, "default") || splitlock_mode_parse(text, mode, rate) == 0)
		return 0;
	return slctl_usage_error("mode", "'%s' is not a mode; use %s (1 <= N <= 1000), or "
				 "default.", text, slctl_mode_names());
}

static int set(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       const char *text, const char *backend, bool dry_run, bool run_tools)
{
	struct splitlock_boot_plan *plan = NULL;
	enum splitlock_mode mode;
	unsigned rate, ifaces = 0;
	bool real_root = streq(splitlock_get_root(ctx), "/");
	int r;

	r = parse_mode(text, &mode, &rate);
	if (r)
		return r;
	if (mode == SPLITLOCK_MODE_SEQ &&
	    splitlock_kernel_interfaces(ctx, &ifaces) == 0 &&
	    !(ifaces & SPLITLOCK_KERNEL_SYSFS))
		slctl_warning("seq needs the patched kernel (kernel-patch/); this kernel has no "
			      "/sys/kernel/split_lock and would treat seq as warn.");
	if (!dry_run && real_root) {
		r = slctl_require_capability(SPLITLOCK_CAP_SYS_ADMIN,
					     "changing the boot configuration");
		if (r)
			return r;
	}
	r = plan_boot(ctx, mode, rate, backend, run_tools, &plan);
	if (r)
		return r;
	if (!dry_run)
		r = apply_boot(ctx, plan, NULL);
	if (r == EXIT_OK) {
		if (g->json)
			print_json_plan(plan, text, dry_run, commands_ran(plan, dry_run));
		else
			print_boot_text(ctx, plan, text, dry_run);
	}
	splitlock_boot_plan_free(plan);
	return r;
}

/*
 * --now: switch the running kernel (and with --persist the next boot too).
 * Every refusal comes before anything is written, so that a refused
 * command changes nothing; the running kernel is switched first, since it
 * is the part that can still be refused by the kernel itself.
 */
static int set_now(struct splitlock_ctx *ctx, const struct slctl_globals *g,
		   const char *text, bool persist, const char *backend, bool dry_run,
		   bool run_tools)
{
	struct splitlock_mode_switch *sw = NULL;
	struct splitlock_boot_plan *plan = NULL;
	enum splitlock_mode mode, before, after;
	unsigned rate, before_rate, after_rate;
	char before_text[32], after_text[32], already[160];
	int r, ret;

	r = parse_mode(text, &mode, &rate);
	if (r)
		return r;
	if (mode == SPLITLOCK_MODE_UNKNOWN)
		return slctl_usage_error("mode", "'default' names no mode the kernel could switch "
					 "to now; give the mode itself with --now.");
	r = splitlock_mode_switch_new(ctx, mode, rate, &sw);
	if (r < 0) {
		slctl_error("cannot read /sys/kernel/split_lock/mode: %s.", errno_text(r));
		return slctl_exit_for(r) == EXIT_PRIVILEGE ? EXIT_PRIVILEGE : EXIT_FAIL;
	}
	r = splitlock_mode_switch_get_refusal(sw);
	if (r == -EOPNOTSUPP) {
		slctl_error("%s; %s 'slctl mode %s --persist', then reboot.",
			    splitlock_mode_switch_get_error(sw),
			    persist ? "leave out --now: the boot parameter is set with"
				    : "set the mode for the next boot with", text);
		ret = EXIT_UNSUPPORTED;
		goto out;
	}
	if (r < 0) {
		slctl_error("%s.", splitlock_mode_switch_get_error(sw));
		ret = EXIT_FAIL;
		goto out;
	}
	if (persist) {
		ret = plan_boot(ctx, mode, rate, backend, run_tools, &plan);
		if (ret)
			goto out;
	}
	before = splitlock_mode_switch_get_previous(sw, &before_rate);
	splitlock_mode_format(before, before_rate, before_text, sizeof(before_text));
	if (!dry_run) {
		ret = slctl_require_capability(splitlock_mode_switch_get_capability(sw),
					       "switching the detection mode");
		if (ret)
			goto out;
		r = splitlock_mode_switch_apply(sw);
		if (r < 0) {
			slctl_error("%s.", splitlock_mode_switch_get_error(sw) ?: errno_text(r));
			ret = r == -EACCES ? EXIT_PRIVILEGE : EXIT_FAIL;
			goto out;
		}
		if (plan) {
			snprintf(already, sizeof(already), "the running kernel was switched to %s "
				 "(it ran in %s), but the next boot keeps its mode: ", text,
				 before_text);
			ret = apply_boot(ctx, plan, already);
			if (ret)
				goto out;
		}
	}
	after = dry_run ? before : splitlock_mode_switch_get_current(sw, &after_rate);
	if (dry_run)
		after_rate = before_rate;
	splitlock_mode_format(after, after_rate, after_text, sizeof(after_text));
	if (g->json) {
		struct json j;

		json_document_begin(&j, stdout, MODE_JSON_VERSION);
		json_string(&j, "before", before_text);
		json_string(&j, "after", after_text);
		json_string(&j, "requested", text);
		json_bool(&j, "dry_run", dry_run);
		if (plan) {
			json_object_begin(&j, "persist");
			json_plan_fields(&j, plan, text, dry_run, commands_ran(plan, dry_run));
			json_object_end(&j);
		} else {
			json_null(&j, "persist");
		}
		json_object_end(&j);
		json_finish(&j);
	} else {
		if (dry_run)
			printf("Would switch the running kernel from %s to %s.\n", before_text, text);
		else
			printf("Split-lock detection runs in %s mode now (it was %s).\n",
			       after_text, before_text);
		if (plan)
			print_boot_text(ctx, plan, text, dry_run);
	}
	ret = EXIT_OK;
out:
	splitlock_boot_plan_free(plan);
	splitlock_mode_switch_free(sw);
	return ret;
}

static bool known_backend(const char *name)
{
	return streq(name, "auto") || splitlock_boot_backend_name(name);
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	static const struct option options[] = {
		SLCTL_PLAN_OPTIONS,
		{ "backend", required_argument, NULL, 'b' },
		{ "run-tools", no_argument, NULL, 'T' },
		{ "now", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "pb:h";
	struct slctl_plan_options plan = { 0 };
	bool run_tools = false, now = false;
	const char *backend = NULL;
	int c;
	while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
		if (slctl_plan_option(c, &plan))
			continue;
		switch (c) {
		case 'b':
			if (streq(optarg, "help")) {
				/* One a line, as systemctl -t help: the shell
				 * completions ask this build for its backends. */
				const char *const *names = splitlock_boot_backends();

				const char *alias;

				puts("auto");
				for (size_t i = 0; names[i]; i++) {
					puts(names[i]);
					for (size_t a = 0; (alias = splitlock_boot_backend_alias(names[i], a)); a++)
						puts(alias);
				}
				exit(EXIT_OK);
			}
			backend = optarg;
			break;
		case 'T':
			run_tools = true;
			break;
		case 'N':
			now = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return slctl_option_error("mode", argv, shorts, options);
		}
	}
	if (backend && !known_backend(backend))
		return slctl_usage_error("mode", "'%s' is not a backend; use auto, %s.", backend,
					 slctl_backend_names());
	if (optind == argc) {
		if (plan.persist || plan.dry_run || backend || run_tools || now)
			return slctl_usage_error("mode", "--persist, --now, --dry-run, --backend and "
						 "--run-tools need a MODE.");
		return show(ctx, g);
	}
	if (argc - optind > 1)
		return slctl_usage_error("mode", "unexpected argument '%s'.", argv[optind + 1]);
	if (now) {
		if ((backend || run_tools) && !plan.persist)
			return slctl_usage_error("mode", "--backend and --run-tools choose how the "
						 "boot parameter is written; add --persist.");
		return set_now(ctx, g, argv[optind], plan.persist, backend, plan.dry_run, run_tools);
	}
	if (!plan.persist) {
		enum splitlock_mode m;
		unsigned rate;
		int r = parse_mode(argv[optind], &m, &rate);

		if (r)
			return r;
		return slctl_usage_error("mode", "the kernel reads split_lock_detect= only at boot: "
					 "add --persist to set it for the next boot, or --now to "
					 "switch a kernel that can switch at run time.");
	}
	return set(ctx, g, argv[optind], backend, plan.dry_run, run_tools);
}

const struct slctl_command slctl_cmd_mode = {
	.name = "mode",
	.run = run,
	.usage = usage,
	.summary = "show the detection mode, switch it now, or persist it",
};
