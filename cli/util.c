/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Turning library errors into one sentence and an exit status. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "slctl.h"

/*
 * One message, one line: a control character in it (a newline in a --root
 * a caller chose, an escape sequence for the terminal) is written as \xNN,
 * so that nobody's text can forge a line of ours, least of all the root
 * helper's, whose messages its caller reads.
 */
void slctl_vmessage(const char *prefix, const char *format, va_list args)
{
	_cleanup_free_ char *text = NULL;

	fprintf(stderr, "%s: %s", program_invocation_short_name, prefix);
	if (vasprintf(&text, format, args) < 0) {
		fputs("(out of memory)\n", stderr);
		return;
	}
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(stderr, "\\x%02x", *c);
		else
			fputc(*c, stderr);
	}
	fputc('\n', stderr);
}

static void vmessage(const char *prefix, const char *format, va_list args)
{
	slctl_vmessage(prefix, format, args);
}

void slctl_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vmessage("", format, args);
	va_end(args);
}

void slctl_warning(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vmessage("warning: ", format, args);
	va_end(args);
}

int slctl_usage_error(const char *cmd, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vmessage("", format, args);
	va_end(args);
	fprintf(stderr, "Try '%s%s%s --help' for more information.\n",
		program_invocation_short_name, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

/*
 * getopt_long() has refused argv[optind - 1] (opterr is 0: it printed
 * nothing). One sentence, as the global options' errors have it.
 */
int slctl_option_error(const char *cmd, char *const argv[], const char *optstring,
		       const struct option *opts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "", *long_name = NULL;
	size_t len = 0, matches = 0;
	const struct option *found = NULL;
	const char *short_spec;

	/* A long option: its name without "=VALUE", and what getopt matched. */
	if (strncmp(arg, "--", 2) == 0 && arg[2]) {
		long_name = arg + 2;
		len = strcspn(long_name, "=");
		for (const struct option *o = opts; o->name; o++)
			if (strncmp(o->name, long_name, len) == 0) {
				matches++;
				if (strlen(o->name) == len || !found)
					found = o;
				if (strlen(o->name) == len) {
					matches = 1;
					break;
				}
			}
		/* In "-xy" after a "--long" argument, optopt names the short one. */
		if (optopt && !(found && found->val == optopt))
			long_name = NULL;
	}
	if (long_name) {
		if (matches > 1)
			return slctl_usage_error(cmd, "option '--%.*s' is ambiguous.", (int)len, long_name);
		if (!found)
			return slctl_usage_error(cmd, "unknown option '--%.*s'.", (int)len, long_name);
		if (long_name[len] == '=' && found->has_arg == no_argument)
			return slctl_usage_error(cmd, "option '--%s' takes no argument.", found->name);
		return slctl_usage_error(cmd, "option '--%s' needs an argument.", found->name);
	}
	short_spec = optopt && optopt != ':' ? strchr(optstring, optopt) : NULL;
	if (short_spec && short_spec[1] == ':')
		return slctl_usage_error(cmd, "option '-%c' needs an argument.", optopt);
	if (optopt >= 0x20 && optopt < 0x7f)
		return slctl_usage_error(cmd, "unknown option '-%c'.", optopt);
	return slctl_usage_error(cmd, "unknown option '%s'.", arg);
}

void slctl_lookup_stalled(void)
{
	slctl_error("a lookup or listing in a directory that every user can read was not "
		    "made within %d seconds (see above); nothing was changed, and nothing is "
		    "shown.", 5);
}

/*
 * Whether a bounded lookup or listing of @ctx stalled: the library then
 * answers -ETIMEDOUT to every later one, the sysctl's read included,
 * while a caller of a listing (a boot back end) may have gone on without
 * it. Half a report would mislead.
 */
bool slctl_stalled(struct splitlock_ctx *ctx)
{
	int value;

	return splitlock_mitigate_get(ctx, &value) == -ETIMEDOUT;
}

int slctl_exit_for(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return EXIT_PRIVILEGE;
	case ENOENT:
	case EOPNOTSUPP:
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_FAIL;
	}
}

int slctl_require_capability(enum splitlock_cap cap, const char *action)
{
	int r = splitlock_have_capability(cap);

	if (r > 0)
		return 0;
	slctl_error("%s needs %s; run it as root (e.g. with sudo).", action,
		    splitlock_capability_name(cap));
	return EXIT_PRIVILEGE;
}

bool slctl_plan_option(int c, struct slctl_plan_options *plan)
{
	if (c == 'p')
		plan->persist = true;
	else if (c == SLCTL_OPT_DRY_RUN)
		plan->dry_run = true;
	else
		return false;
	return true;
}

void slctl_print_wrapped(FILE *out, size_t indent, const char *text)
{
	size_t col = 0;

	for (const char *w = text; *w;) {
		size_t len = strcspn(w, " ");

		if (col && col + 1 + len > 80) {
			fputc('\n', out);
			col = 0;
		}
		if (col == 0)
			col = (size_t)fprintf(out, "%*s", (int)indent, "");
		else
			col += (size_t)fprintf(out, " ");
		col += fwrite(w, 1, len, out);
		w += len;
		w += strspn(w, " ");
	}
	fputc('\n', out);
}

const char *slctl_backend_names(void)
{
	/* The library's list, so a new backend needs no change here. */
	static char names[512];
	const char *const *list = splitlock_boot_backends();
	size_t len = 0;

	if (names[0])
		return names;
	for (size_t i = 0; list[i] && len < sizeof(names); i++) {
		bool last = !list[i + 1];
		const char *alias;

		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				i == 0 ? "" : last ? " or " : ", ", list[i]);
		/* "kernel-install (also systemd-boot)" */
		for (size_t a = 0; len < sizeof(names) &&
				   (alias = splitlock_boot_backend_alias(list[i], a)); a++)
			len += snprintf(names + len, sizeof(names) - len, "%s%s",
					a == 0 ? " (also " : ", ", alias);
		if (len < sizeof(names) && splitlock_boot_backend_alias(list[i], 0))
			len += snprintf(names + len, sizeof(names) - len, ")");
	}
	return names;
}

const char *slctl_mode_names(void)
{
	/* The library's modes, so a new one needs no change here. */
	static char names[256];
	const char *name;
	size_t len = 0;

	if (names[0])
		return names;
	for (int m = SPLITLOCK_MODE_OFF;
	     (name = splitlock_mode_name((enum splitlock_mode)m)) && len < sizeof(names); m++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s%s",
				m == SPLITLOCK_MODE_OFF ? "" : ", ", name,
				m == SPLITLOCK_MODE_RATELIMIT ? ":N" : "");
	return names;
}

const char *slctl_input_format_names(void)
{
	/* The library's list, so a new form needs no change here. */
	static char names[512];
	const char *name;
	size_t len = 0;

	if (names[0])
		return names;
	for (enum splitlock_input_format f = 0;
	     (name = splitlock_input_format_name(f)) && len < sizeof(names); f++) {
		bool last = !splitlock_input_format_name(f + 1);

		len += snprintf(names + len, sizeof(names) - len, "%s%s%s",
				f == 0 ? "" : last ? " or " : ", ", name,
				f == SPLITLOCK_INPUT_AUTO ? " (the default)" : "");
	}
	return names;
}

/*
 * The stats are there when any counter reads, or is merely not reported
 * or not a number; else the first error (-ENOENT: a kernel without them).
 */
int read_kernel_counters(struct splitlock_ctx *ctx, struct kernel_counters *c)
{
	bool present = false;
	int first = 0;

	c->count = 0;
	for (size_t i = 0; i < ARRAY_SIZE(c->values) &&
			   splitlock_counter_name((enum splitlock_counter)i); i++) {
		int64_t v = -1;
		int e = splitlock_kernel_counter(ctx, (enum splitlock_counter)i, &v);

		if (e == 0 || e == -ENODATA || e == -EBADMSG)
			present = true;
		else if (!first)
			first = e;
		c->values[c->count++] = e == 0 ? v : -1;
	}
	return present ? 0 : first ? first : -ENOENT;
}

int64_t kernel_counter(const struct kernel_counters *c, enum splitlock_counter counter)
{
	return (size_t)counter < c->count ? c->values[counter] : -1;
}
