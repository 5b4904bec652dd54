/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl offenders: who trips the detector, from the kernel log, live or
 * saved. The library parses and aggregates; this file chooses, prints and
 * follows.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <libsmartcols.h>
#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "name-table.h"
#include "offenders.h"
#include "packed-log.h"

static const struct name_table format_names[] = {
	{ FORMAT_TABLE, "table" },
	{ FORMAT_JSON, "json" },
	{ FORMAT_PROMETHEUS, "prometheus" },
};

static DEFINE_NAME_TABLE_PARSE(format_parse, format_names, enum format)

/* The column catalogue, as util-linux tools keep it. */
const struct column offenders_columns[] = {
	[COL_COMM] = { "COMM", 0.1, SCOLS_FL_TRUNC, "task name as the kernel printed it" },
	[COL_PID] = { "PID", 5, SCOLS_FL_RIGHT, "task id the kernel printed (TGID for --group-by process)" },
	[COL_TGID] = { "TGID", 5, SCOLS_FL_RIGHT, "thread group of the live process" },
	[COL_KIND] = { "KIND", 10, 0, "split_lock (#AC) or bus_lock (#DB)" },
	[COL_ACTION] = { "ACTION", 6, 0, "warn, fatal or sigbus" },
	[COL_EVENTS] = { "EVENTS", 6, SCOLS_FL_RIGHT, "events in the log" },
	[COL_FIRST] = { "FIRST", 19, 0, "first event (local time, or [seconds since boot])" },
	[COL_LAST] = { "LAST", 19, 0, "last event" },
	[COL_IPS] = { "IPS", 0.3, SCOLS_FL_TRUNC, "trap addresses, as object+offset when known" },
	[COL_EXE] = { "EXE", 0.2, SCOLS_FL_TRUNC, "executable of the live process" },
	[COL_CMDLINE] = { "CMDLINE", 0.3, SCOLS_FL_TRUNC, "command line of the live process" },
	[COL_UNIT] = { "UNIT", 0.2, SCOLS_FL_TRUNC, "systemd unit or container" },
};

static void usage(FILE *out)
{
	fputs("Usage: slctl offenders [OPTIONS]\n\n"
	      "Report which tasks took split-lock and bus-lock traps, from the\n"
	      "running boot's kernel log (/dev/kmsg) or a saved log.\n\n"
	      "Options:\n"
	      "  -i, --input FILE          read a saved log ('-': stdin): /dev/kmsg records,\n"
	      "                            dmesg text or JSON, syslog files, any journalctl -o\n"
	      "      --input-format FMT    with --input, one of ('help' lists them):\n", out);
	slctl_print_wrapped(out, 28, slctl_input_format_names());
	fputs(	      "  -g, --group-by KEY        task (default for --input), process (default\n"
	      "                            for the live log), comm, exe, unit\n"
	      "  -S, --since TIME          boot, now, today, yesterday, HH:MM, -2h,\n"
	      "                            '[Tue] YYYY-MM-DD HH:MM[:SS[.N]] [UTC|+01:00]',\n"
	      "                            '1h 30min ago', @EPOCH (as journalctl)\n"
	      "  -U, --until TIME          same forms\n"
	      "  -t, --top N               only the N offenders with most events\n"
	      "  -f, --follow              print events as they happen (live log only)\n"
	      "  -F, --format FMT          table (default), json, prometheus\n"
	      "  -o, --output COLS         table columns, comma-separated (see below);\n"
	      "                            +COLS adds them to the default ones\n"
	      "  -n, --noheadings          no table header; the summary goes to stderr\n"
	      "  -r, --raw                 raw table output; the summary goes to stderr\n"
	      "  -l, --full                on a terminal too, every column and every byte\n"
	      "      --json                same as --format json (-o chooses its keys)\n\n"
	      "Columns:\n", out);
	for (size_t i = 0; i < sizeof(offenders_columns) / sizeof(offenders_columns[0]); i++)
		fprintf(out, "  %8s  %s\n", offenders_columns[i].name, offenders_columns[i].help);
	fputs("\nThe report says how many events the kernel's rate limit suppressed:\n"
	      "the log is incomplete by that much. See slctl(8).\n", out);
}

static int column_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(offenders_columns) / sizeof(offenders_columns[0]); i++)
		if (strlen(offenders_columns[i].name) == len && strncasecmp(offenders_columns[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* The table's columns without -o: the live log's show its processes. */
static void default_columns(struct options *o)
{
	static const int def[] = { COL_COMM, COL_PID, COL_KIND, COL_ACTION, COL_EVENTS,
				   COL_FIRST, COL_LAST, COL_IPS };

	o->n_cols = 0;
	for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
		o->cols[o->n_cols++] = def[i];
	if (!o->input) {
		o->cols[o->n_cols++] = COL_EXE;
		o->cols[o->n_cols++] = COL_UNIT;
	}
}

/*
 * "+COLS" adds to the default columns, as lsblk and findmnt read it: a
 * column shown already is not shown twice. With --json the defaults are
 * every key, which the names only check.
 */
static int parse_columns(struct options *o, const char *list)
{
	bool add = list[0] == '+';

	o->n_cols = 0;
	if (add) {
		default_columns(o);
		list++;
	}
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int c = column_by_name(p, len);

		/* An empty name ("", "A,,B", a trailing comma) is no column either. */
		if (len == 0) {
			slctl_usage_error("offenders", "--output needs a comma-separated list of "
					  "column names, without empty ones.");
			return -1;
		}
		if (c < 0) {
			slctl_usage_error("offenders", "unknown column '%.*s'.", (int)len, p);
			return -1;
		}
		for (size_t i = 0; add && i < o->n_cols; i++)
			if (o->cols[i] == c)
				c = -1;
		if (c >= 0 && o->n_cols >= ARRAY_SIZE(o->cols)) {
			slctl_usage_error("offenders", "too many columns in --output (at most %zu).",
					  ARRAY_SIZE(o->cols));
			return -1;
		}
		if (c >= 0)
			o->cols[o->n_cols++] = c;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

/* ---- output ------------------------------------------------------------ */

/*
 * Text from a process for a terminal, escaped exactly as the table's cells
 * are: libsmartcols runs every cell through util-linux's
 * mbs_safe_encode_to_buffer() (lib/mbsalign.c), which in the C locale slctl
 * runs in writes a byte that is not isprint() as \xNN, a backslash as \x5c
 * only where an "x" follows (so that "\x1b" typed by a process cannot pass
 * for an escaped byte), and copies the rest. A NUL, which libsmartcols
 * cannot be given, is \x00: the table hands it cells escaped here.
 */
void offenders_printable(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || (c == '\\' && i + 1 < len && s[i + 1] == 'x'))
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
}

size_t offenders_shown(const struct options *o, const struct splitlock_offenders *r)
{
	size_t n = splitlock_offenders_get_count(r);

	return o->top && o->top < n ? o->top : n;
}

/* ---- progress ---------------------------------------------------------- */

struct progress {
	uint64_t total;
	bool shown;
};

static void progress_cb(uint64_t bytes, void *data)
{
	struct progress *p = data;

	if (p->total == 0)
		return;
	fprintf(stderr, "\rslctl: reading log: %3u%%",
		(unsigned)(bytes * 100 / (bytes > p->total ? bytes : p->total)));
	p->shown = true;
}

/* ---- main -------------------------------------------------------------- */

static int parse_options(struct options *o, const struct slctl_globals *g,
			 int argc, char **argv)
{
	enum { OPT_INPUT_FORMAT = 0x100 };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "input-format", required_argument, NULL, OPT_INPUT_FORMAT },
		{ "group-by", required_argument, NULL, 'g' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "top", required_argument, NULL, 't' },
		{ "follow", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "raw", no_argument, NULL, 'r' },
		{ "full", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "+i:g:S:U:t:fF:o:nrlh";
	const char *cols = NULL;
	enum format format;
	char *end;
	int c;

	o->format = g->json ? FORMAT_JSON : FORMAT_TABLE;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			/* One log per run: a second replaced the first without a word. */
			if (o->input)
				return slctl_usage_error("offenders", "--input is given once: to read "
							 "several logs, cat them into --input -.");
			o->input = optarg;
			break;
		case OPT_INPUT_FORMAT:
			if (streq(optarg, "help")) {
				const char *name;

				/* One a line, as systemctl -t help: the shell
				 * completions ask this build for its forms. */
				for (enum splitlock_input_format f = 0;
				     (name = splitlock_input_format_name(f)); f++)
					puts(name);
				exit(EXIT_OK);
			}
			if (splitlock_input_format_parse(optarg, &o->input_format) < 0)
				return slctl_usage_error("offenders", "unknown input format '%s'; use %s.",
							 optarg, slctl_input_format_names());
			o->input_format_set = true;
			break;
		case 'g': {
			/* Any case, as -o's columns: the keys are lower case. */
			char key[16];
			size_t i;

			for (i = 0; optarg[i] && i + 1 < sizeof(key); i++)
				key[i] = (char)tolower((unsigned char)optarg[i]);
			key[i] = '\0';
			if (optarg[i] || splitlock_group_parse(key, &o->group) < 0)
				return slctl_usage_error("offenders", "unknown --group-by key '%s'.", optarg);
			}
			o->group_set = true;
			break;
		case 'S':
			o->since = optarg;
			break;
		case 'U':
			o->until = optarg;
			break;
		case 't':
			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			if (errno == ERANGE && !*end && optarg[0] != '-')
				return slctl_usage_error("offenders", "--top %s is too large (at most %lu).",
							 optarg, ULONG_MAX);
			if (errno || *end || !*optarg || optarg[0] == '-' || o->top == 0)
				return slctl_usage_error("offenders", "--top needs a positive number.");
			break;
		case 'f':
			o->follow = true;
			break;
		case 'F':
			if (format_parse(optarg, &format) < 0)
				return slctl_usage_error("offenders", "unknown format '%s'.", optarg);
			/* One output: --json and another --format do not both win. */
			if ((o->format_set || g->json) && format != o->format)
				return slctl_usage_error("offenders", "--format %s conflicts with %s.",
							 optarg, o->format_set ? "an earlier --format"
									       : "--json");
			o->format = format;
			o->format_set = true;
			break;
		case 'o':
			cols = optarg;
			break;
		case 'n':
			o->noheadings = true;
			break;
		case 'r':
			o->raw = true;
			break;
		case 'l':
			o->full = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		default:
			return slctl_option_error("offenders", argv, shorts, opts);
		}
	}
	if (optind < argc)
		return slctl_usage_error("offenders", "unexpected argument '%s'.", argv[optind]);
	if (o->input_format_set && !o->input)
		return slctl_usage_error("offenders", "--input-format needs --input: the live log "
					 "is read as /dev/kmsg records.");
	if (o->follow && o->input)
		return slctl_usage_error("offenders", "--follow reads the live log, not --input.");
	/* One line an event: what shapes a report's table has nothing to shape. */
	if (o->follow && (cols || o->top || o->noheadings || o->raw || o->full))
		return slctl_usage_error("offenders", "%s shapes the report, not --follow's lines.",
					 cols ? "--output" : o->top ? "--top" :
					 o->noheadings ? "--noheadings" : o->raw ? "--raw" : "--full");
	if (o->follow && o->format == FORMAT_PROMETHEUS)
		return slctl_usage_error("offenders", "--follow prints events, not --format prometheus.");
	if (o->format != FORMAT_TABLE && (o->noheadings || o->raw || o->full))
		return slctl_usage_error("offenders", "%s shapes the table, not --format %s.",
					 o->noheadings ? "--noheadings" : o->raw ? "--raw" : "--full",
					 format_names[o->format].name);
	if (cols && o->format == FORMAT_PROMETHEUS)
		return slctl_usage_error("offenders", "--output chooses table columns or JSON keys, "
					 "not Prometheus series.");
	if (!o->group_set)
		o->group = o->input ? SPLITLOCK_GROUP_TASK : SPLITLOCK_GROUP_PROCESS;
	/* Its series are per comm and kind, whatever the table would group by. */
	if (o->format == FORMAT_PROMETHEUS)
		o->group = SPLITLOCK_GROUP_COMM;
	if (cols) {
		if (parse_columns(o, cols) < 0)
			return EXIT_USAGE;
		/* JSON's default keys are all of them: "+" adds none. */
		o->cols_set = !(cols[0] == '+' && o->format == FORMAT_JSON);
	} else {
		default_columns(o);
	}
	return EXIT_OK;
}

/* ---- input that is no text --------------------------------------------- */

/*
 * The first bytes of @fd, left there for the library: pread() of a file
 * from where it stands, tee() of a pipe. 0 when neither can be peeked.
 */
static size_t peek(int fd, unsigned char *buf, size_t size)
{
	struct stat st;
	ssize_t n = 0;

	if (fstat(fd, &st) < 0)
		return 0;
	if (S_ISREG(st.st_mode)) {
		off_t at = lseek(fd, 0, SEEK_CUR);

		n = at < 0 ? -1 : pread(fd, buf, size, at);
	} else if (S_ISFIFO(st.st_mode)) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			return 0;
		n = tee(fd, p[1], size, 0);
		if (n > 0)
			n = read(p[0], buf, (size_t)n);
		close(p[0]);
		close(p[1]);
	}
	return n > 0 ? (size_t)n : 0;
}

/* @name for a shell command: as it is, or in double quotes. */
static void shell_word(const char *name, char *buf, size_t size)
{
	size_t o = 0;

	if (name[0] && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789_./+-,:@%=") == strlen(name)) {
		snprintf(buf, size, "%s", name);
		return;
	}
	buf[o++] = '"';
	for (const char *c = name; *c && o + 3 < size; c++) {
		if (strchr("\"\\$`", *c))
			buf[o++] = '\\';
		buf[o++] = *c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

/* A compressed log, a journal file, UTF-16: the command that gives its text. */
static void packed_input_error(const char *input, const struct packed_log *p)
{
	char word[8192];

	if (streq(input, "-")) {
		slctl_error("standard input is %s; run '%s FILE%s | slctl offenders --input -'.",
			    p->what, p->command, p->command_after);
		return;
	}
	shell_word(input, word, sizeof(word));
	slctl_error("'%s' is %s; run '%s %s%s | slctl offenders --input -'.",
		    input, p->what, p->command, word, p->command_after);
}

static int read_input(struct splitlock_offenders *r, const struct options *o)
{
	int fd = streq(o->input, "-") ? STDIN_FILENO : open(o->input, O_RDONLY | O_CLOEXEC);
	unsigned char head[PACKED_LOG_MAGIC_MAX];
	const struct packed_log *packed;
	struct progress p = { 0 };
	struct stat st;
	int ret;

	if (fd < 0) {
		slctl_error("cannot open '%s': %s.", o->input, strerror(errno));
		return EXIT_FAIL;
	}
	packed = packed_log_find(head, peek(fd, head, sizeof(head)));
	if (packed) {
		packed_input_error(o->input, packed);
		ret = -EMEDIUMTYPE;
		goto out;
	}
	/* Large files on a terminal: say how far we are. */
	if (isatty(STDERR_FILENO) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > (64 << 20))
		p.total = (uint64_t)st.st_size;
	ret = splitlock_offenders_read_input(r, fd, o->input_format,
					     p.total ? progress_cb : NULL, &p);
	if (p.shown)
		fputs("\r\033[K", stderr);
	if (ret == -EMEDIUMTYPE)
		slctl_error("%s%s%s holds binary data, not a kernel log in a form slctl reads "
			    "(see SAVED LOGS in slctl(8)).", streq(o->input, "-") ? "" : "'",
			    streq(o->input, "-") ? "standard input" : o->input,
			    streq(o->input, "-") ? "" : "'");
	else if (ret < 0)
		slctl_error("cannot read '%s': %s.", o->input, strerror(-ret));
out:
	if (fd != STDIN_FILENO)
		close(fd);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	struct options o = { 0 };
	struct splitlock_offenders *r = NULL;
	int ret = parse_options(&o, g, argc, argv);

	if (ret != EXIT_OK)
		return ret;
	/*
	 * A report of a large log is megabytes: written in 64 KiB blocks
	 * rather than the 4 KiB of a file's default, and without stdio's
	 * lock around each of its many small calls (slctl has one thread).
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 64 * 1024);
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	ret = splitlock_offenders_new(ctx, o.group,
				      o.input ? 0 : SPLITLOCK_OFFENDERS_RESOLVE, &r);
	if (ret < 0) {
		slctl_error("%s.", strerror(-ret));
		return EXIT_FAIL;
	}
	ret = offenders_set_window(ctx, r, &o);
	if (ret != EXIT_OK)
		goto out;
	if (o.follow) {
		ret = offenders_follow(ctx, r, &o);
		goto out;
	}
	if (o.input) {
		ret = read_input(r, &o);
		if (ret != EXIT_OK)
			goto out;
	} else {
		ret = splitlock_offenders_read_kmsg(r);
		if (ret < 0) {
			ret = offenders_kmsg_error(ret);
			goto out;
		}
	}
	/* The table says it after its rows; JSON and Prometheus here too. */
	if (splitlock_offenders_get_undated(r) && o.format != FORMAT_TABLE)
		slctl_warning("%s.", offenders_undated_sentence(r));
	if (splitlock_offenders_get_maybe_repeated(r) && o.format != FORMAT_TABLE)
		slctl_warning("%s.", offenders_maybe_repeated_sentence(r));
	switch (o.format) {
	case FORMAT_JSON:
		offenders_print_json(ctx, &o, r);
		break;
	case FORMAT_PROMETHEUS:
		if (offenders_print_prometheus(ctx, &o, r) < 0) {
			slctl_error("out of memory.");
			ret = EXIT_FAIL;
			goto out;
		}
		break;
	default:
		if (offenders_print_table(&o, r) < 0) {
			slctl_error("out of memory.");
			ret = EXIT_FAIL;
			goto out;
		}
	}
	ret = EXIT_OK;
out:
	splitlock_offenders_unref(r);
	return ret;
}

const struct slctl_command slctl_cmd_offenders = {
	.name = "offenders",
	.run = run,
	.usage = usage,
	.summary = "who trips the detector, from the kernel log",
};
