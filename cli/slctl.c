/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl: see and steer the x86 split-lock detector.
 *
 * The dispatcher takes the global options from anywhere on the command line
 * (before or after the subcommand, up to "--"), then hands the rest to the
 * subcommand, which parses its own options.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "slctl.h"


static const struct slctl_command *const commands[] = {
	&slctl_cmd_status,
	&slctl_cmd_mitigate,
	&slctl_cmd_mode,
	&slctl_cmd_run,
	&slctl_cmd_offenders,
	&slctl_cmd_probe,
	&slctl_cmd_helper,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTIONS] COMMAND [ARGS...]\n\n"
		"See and steer the x86 split-lock detector of Linux.\n\n"
		"Commands:\n", program_invocation_short_name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!commands[i]->hidden)
			fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nGlobal options (before or after the command):\n"
	      "      --root DIR   act on the system tree under DIR (tests, images)\n"
	      "      --json       print one JSON document on stdout\n"
	      "  -v, --verbose    say more (repeat for debug output)\n"
	      "  -h, --help       show this help, or a command's help\n"
	      "  -V, --version    show the version\n\n"
	      "Exit status: 0 success, 1 failure, 2 usage error, 3 missing privileges,\n"
	      "4 not supported by this kernel or CPU. See slctl(8).\n", out);
}

void slctl_log(void *data, int priority, const char *file, int line,
	       const char *fn, const char *format, va_list args)
{
	(void)data;
	(void)file;
	(void)line;
	(void)fn;
	slctl_vmessage(priority <= LOG_ERR ? "" : priority == LOG_WARNING ? "warning: " : "",
		       format, args);
}

/* "-v", "-vv", "-vvv", ...: how many times. */
static int count_verbose(const char *a)
{
	size_t n = strlen(a + 1);

	if (a[0] != '-' || n == 0 || strspn(a + 1, "v") != n)
		return 0;
	return (int)n;
}

/*
 * The one parser of the global options: removes them from argv wherever
 * they are and returns the new argc, or -1 after a usage error. -h/--help
 * after the command is the command's own option and stays for it.
 */
static int take_globals(int argc, char **argv, struct slctl_globals *g)
{
	int out = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (streq(a, "--")) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (streq(a, "--json")) {
			g->json = true;
		} else if (streq(a, "--verbose")) {
			g->verbose++;
		} else if (count_verbose(a)) {
			g->verbose += count_verbose(a);
		} else if ((streq(a, "-h") || streq(a, "--help")) && out == 1) {
			g->help = true;
		} else if (streq(a, "-V") || streq(a, "--version")) {
			printf("slctl %s\n", VERSION);
			exit(EXIT_OK);
		} else if (strncmp(a, "--json=", 7) == 0 || strncmp(a, "--verbose=", 10) == 0) {
			/* lsblk's --json=pretty, journalctl's --output=json: left to
			 * the command, it was an "unknown option '--json'". */
			slctl_usage_error(NULL, "option '%.*s' takes no argument.",
					  (int)strcspn(a, "="), a);
			return -1;
		} else if (streq(a, "--root")) {
			if (i + 1 >= argc) {
				slctl_usage_error(NULL, "option '--root' needs a directory.");
				return -1;
			}
			g->root = argv[++i];
		} else if (strncmp(a, "--root=", 7) == 0) {
			g->root = a + 7;
		} else {
			argv[out++] = argv[i];
		}
	}
	argv[out] = NULL;
	return out;
}

int main(int argc, char **argv)
{
	struct slctl_globals g = { 0 };
	const struct slctl_command *cmd = NULL;
	struct splitlock_ctx *ctx;
	int r;

	slctl_ensure_std_fds();
	/* The root helper: reset before it parses or writes anything. Its
	 * standard output is the relay's, which checks its own writes. */
	if (argc > 1 && streq(argv[1], "__helper"))
		slctl_helper_prepare();
	else
		slctl_close_stdout_at_exit();
	argc = take_globals(argc, argv, &g);
	if (argc < 0)
		return EXIT_USAGE;
	if (argc < 2) {
		if (g.help) {
			usage(stdout);
			return EXIT_OK;
		}
		usage(stderr);
		return EXIT_USAGE;
	}
	if (argv[1][0] == '-')
		return slctl_usage_error(NULL, "unknown option '%s'.", argv[1]);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (streq(argv[1], commands[i]->name))
			cmd = commands[i];
	if (!cmd)
		return slctl_usage_error(NULL, "unknown command '%s'.", argv[1]);
	/* "slctl -v __helper" too: a global option before the helper's name
	 * found the check registered already. */
	if (cmd == &slctl_cmd_helper) {
		slctl_close_stdout_leave_to_helper();
		slctl_helper_prepare();
	}
	/* "slctl -h COMMAND": the command's help, as "slctl COMMAND -h" gives. */
	if (g.help) {
		cmd->usage(stdout);
		return EXIT_OK;
	}

	ctx = splitlock_new(g.root);
	if (!ctx) {
		slctl_error("cannot use root directory '%s': %s.",
			    g.root ? g.root : "/", strerror(errno));
		return g.root ? EXIT_USAGE : EXIT_FAIL;
	}
	splitlock_set_log_fn(ctx, slctl_log, NULL);
	if (g.verbose)
		splitlock_set_log_priority(ctx, g.verbose > 1 ? LOG_DEBUG : LOG_INFO);

	/* Subcommands see argv[0] = their name, as getopt expects; getopt
	 * prints nothing: slctl_option_error() says it in one sentence. */
	optind = 0;
	opterr = 0;
	r = cmd->run(ctx, &g, argc - 1, argv + 1);
	splitlock_unref(ctx);
	return r;
}
