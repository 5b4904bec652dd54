/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLCTL_H
#define SLCTL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libsplitlock.h"
#include "macro.h"
#include "message.h"

/* Exit statuses, documented in slctl(8). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_PRIVILEGE = 3,
	EXIT_UNSUPPORTED = 4,
	EXIT_CHECK_FAILED = 5, /* run --check: CMD split-locked more than allowed */
};

/* Options every subcommand understands, wherever they stand. */
struct slctl_globals {
	const char *root;
	bool json;
	int verbose;
	bool help;
};

struct slctl_command {
	const char *name;
	int (*run)(struct splitlock_ctx *ctx, const struct slctl_globals *g,
		   int argc, char **argv);
	void (*usage)(FILE *out);
	const char *summary;
	bool hidden;   /* not in the help: run by slctl itself (__helper) */
};

extern const struct slctl_command slctl_cmd_status;
extern const struct slctl_command slctl_cmd_mitigate;
extern const struct slctl_command slctl_cmd_mode;
extern const struct slctl_command slctl_cmd_offenders;
extern const struct slctl_command slctl_cmd_probe;
extern const struct slctl_command slctl_cmd_run;
extern const struct slctl_command slctl_cmd_helper;

/* The library's log function: "slctl: " and the sentence on stderr. */
void slctl_log(void *data, int priority, const char *file, int line,
	       const char *fn, const char *format, va_list args);


/* One sentence on stderr, prefixed with the program name. */
void slctl_vmessage(const char *prefix, const char *format, va_list args)
	__attribute__((format(printf, 2, 0)));
void slctl_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
void slctl_warning(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Usage error: message plus a hint to --help; returns EXIT_USAGE. */
int slctl_usage_error(const char *cmd, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * After getopt_long() returned '?': "unknown option '--x'.", "option '-t'
 * needs an argument." and the like, as a usage error; returns EXIT_USAGE.
 */
struct option;
int slctl_option_error(const char *cmd, char *const argv[], const char *optstring,
		       const struct option *opts);
/* Exit status for a negative errno from the library. */
/* -ETIMEDOUT of a lookup under /proc/sys or /sys: the sentence (exit 1). */
void slctl_lookup_stalled(void);
bool slctl_stalled(struct splitlock_ctx *ctx);
int slctl_exit_for(int err);
/*
 * --persist and --dry-run, which mode and mitigate take alike: both plan a
 * change, which may be kept across reboots or only shown. --dry-run has no
 * short option: -n is --noheadings (slctl offenders), as in util-linux,
 * and a short option means one thing in every subcommand.
 */
enum { SLCTL_OPT_DRY_RUN = 0x100 };
#define SLCTL_PLAN_OPTIONS                                   \
	{ "persist", no_argument, NULL, 'p' },               \
	{ "dry-run", no_argument, NULL, SLCTL_OPT_DRY_RUN }
struct slctl_plan_options {
	bool persist, dry_run;
};
/* Takes -p/--persist or --dry-run into @plan; false when @c is neither. */
bool slctl_plan_option(int c, struct slctl_plan_options *plan);
/* @text on lines of at most 80 columns, each indented by @indent. */
void slctl_print_wrapped(FILE *out, size_t indent, const char *text);
/* The bootloader backends the library knows, as text for a sentence. */
const char *slctl_backend_names(void);
/* The saved-log forms the library reads ("auto" first), as text for a
 * sentence. */
const char *slctl_input_format_names(void);
/* "off, warn, seq, fatal, ratelimit:N": the library's modes as typed. */
const char *slctl_mode_names(void);
/* Exit EXIT_PRIVILEGE with a sentence when @cap is missing; 0 when present. */
int slctl_require_capability(enum splitlock_cap cap, const char *action);

/* `slctl __helper` as root: reset before it parses or writes anything. */
void slctl_helper_prepare(void);

/*
 * helper-sanitize.c: the root helper's process, reset from what its caller
 * gave it (interval timers, umask, signals, descriptors 3 and up, session
 * and terminal, scheduling, rlimits, environment, oom_score_adj -1000); in
 * the root cgroup of every hierarchy, out of the reach of its user.
 * 0, or a negative errno with a sentence in *@why (malloc'ed).
 */
int helper_sanitize(char **why);
int helper_leave_cgroups(char **why);

/*
 * helper-relay.c: descriptors 1 and 2 become pipes of the helper's own,
 * passed on to the caller's by a process, so that no lock the caller can
 * hold on its pipe or file stops the helper. 0 or a negative errno.
 * helper_caller_fstat(): what the caller's own descriptor behind 1 or 2
 * was (the helper keeps no copy of it), to check.
 */
int helper_relay_start(void);
int helper_caller_fstat(int std_fd, struct stat *st);

/* Point each closed descriptor 0-2 at /dev/null; call first in main(). */
void slctl_ensure_std_fds(void);
/* Exit with EXIT_FAIL and a sentence when standard output was not written. */
void slctl_close_stdout_at_exit(void);
/* The root helper's standard output is the relay's: the check is not its. */
void slctl_close_stdout_leave_to_helper(void);

/*
 * Minimal streaming JSON writer: exactly one document on stdout. Bytes
 * gather in its own buffer and reach @out in blocks, at the latest at
 * json_finish(): nothing else may write to @out in between.
 */
#define JSON_BUF (64 * 1024)
struct json {
	FILE *out;
	int depth;
	bool first[32];
	bool pretty;
	size_t len;
	char buf[JSON_BUF];
};

void json_init(struct json *j, FILE *out);
void json_finish(struct json *j);
/*
 * Every document slctl prints is an object whose first key is "version",
 * the schema of that document: raised when a key changes meaning.
 */
void json_document_begin(struct json *j, FILE *out, unsigned version);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *value);
void json_string_len(struct json *j, const char *key, const char *value, size_t len);
void json_int(struct json *j, const char *key, long long value);
void json_uint(struct json *j, const char *key, unsigned long long value);
void json_bool(struct json *j, const char *key, bool value);
void json_null(struct json *j, const char *key);
void json_kernel_traps(struct json *j, const struct splitlock_offender *o);
/*
 * The patched kernel's counters as read at one moment, indexed by enum
 * splitlock_counter: -1 where the kernel does not report one. The library
 * may know more counters than this program has room for (it asks for each
 * by name); those are left out.
 */
struct kernel_counters {
	size_t count;
	int64_t values[16];
};
/*
 * Fills @c; -ENOENT on a kernel without the stats, or the error of
 * reading them (then all are -1).
 */
int read_kernel_counters(struct splitlock_ctx *ctx, struct kernel_counters *c);
/* A counter, or -1 when the kernel does not report it. */
int64_t kernel_counter(const struct kernel_counters *c, enum splitlock_counter counter);
void json_kernel_counters(struct json *j, const char *key, const struct kernel_counters *c);
void json_number(struct json *j, const char *key, const char *text);

#endif
