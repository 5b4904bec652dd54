/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl __helper: the one privileged step of `slctl run` for a user without
 * privileges, run as root by pkexec (polkit action org.slctl.run, which
 * matches this program with "__helper" as its first argument). Not listed
 * in the help: nobody types it.
 *
 *   slctl __helper exempt PID   exempt PID from misery, read it back, exit 0
 *   slctl __helper lease        take a lease, write "ready\n" to stdout,
 *                               hold it until stdin reaches EOF, drop it
 *
 * It trusts the kernel and pkexec, not its caller: PKEXEC_UID (set by
 * pkexec, which a caller cannot forge through it) names the user; the
 * caller (our parent: pkexec execs us in its place) must be that user's;
 * the PID to exempt must be that user's and the caller's child, so that it
 * cannot be reaped and its PID reused while we act; the way must be the
 * one the library chooses here for itself. Everything else is refused
 * with exit status 2. A root other than / is accepted only when it is a
 * directory of root's that no one else may write: a tree the user cannot
 * have prepared (the test suite's fake roots).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slctl.h"

static void usage(FILE *out)
{
	fputs("Usage: pkexec slctl __helper exempt PID\n"
	      "       pkexec slctl __helper lease\n\n"
	      "The privileged step of 'slctl run' for a user without privileges,\n"
	      "run by 'slctl run' through pkexec only. See slctl(8).\n", out);
}

static int refuse(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *format, ...)
{
	va_list args;

	fprintf(stderr, "%s: __helper refuses: ", program_invocation_short_name);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputs(".\n", stderr);
	return EXIT_USAGE;
}

/* A decimal number without sign, blanks or leading zeros, up to @max. */
static bool parse_id(const char *text, uint32_t max, uint32_t *value)
{
	uint64_t v = 0;

	if (!text || !*text || (text[0] == '0' && text[1]) || strlen(text) > 10)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > max)
		return false;
	*value = (uint32_t)v;
	return true;
}

/*
 * The context to act in: the caller's for "/", else a new one on a root
 * checked through the very descriptor it is then made from.
 */
static int trusted_context(struct splitlock_ctx *ctx, struct splitlock_ctx **out)
{
	const char *root = splitlock_get_root(ctx);
	char path[64];
	struct stat st;
	int fd;

	if (streq(root, "/")) {
		*out = splitlock_ref(ctx);
		return EXIT_OK;
	}
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return refuse("cannot open the root %s", root);
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return refuse("the root %s is not a directory of root's that only root may "
			      "write", root);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	*out = splitlock_new(path);
	close(fd);
	if (!*out)
		return refuse("cannot use the root %s: %s", root, strerror(errno));
	splitlock_set_log_fn(*out, slctl_log, NULL);
	splitlock_set_log_priority(*out, splitlock_get_log_priority(ctx));
	return EXIT_OK;
}

/* The job must be the way the library chooses here, not the caller's idea. */
static int check_way(struct splitlock_ctx *ctx, enum splitlock_lift want)
{
	_cleanup_free_ char *why = NULL;
	enum splitlock_lift lift = 0;
	int r = splitlock_lift_choose(ctx, &lift, &why);

	if (r < 0) {
		slctl_error("%s.", why ? why : errno_text(r));
		return r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_FAIL;
	}
	if (lift != want)
		return refuse(want == SPLITLOCK_LIFT_EXEMPT ?
			      "this kernel lifts misery with a lease, not an exemption" :
			      "this kernel lifts misery with an exemption, not a lease");
	return EXIT_OK;
}

static int exempt(struct splitlock_ctx *ctx, uint32_t user, uint32_t caller, uint32_t pid)
{
	uint32_t uid, ppid;
	int r;

	r = splitlock_process_identity(ctx, pid, &uid, &ppid);
	if (r < 0)
		return refuse("process %" PRIu32 " is not a plain process of one user (%s)", pid,
			      errno_text(r));
	if (uid != user || ppid != caller)
		return refuse("process %" PRIu32 " is not the calling process's child of uid %"
			      PRIu32, pid, user);
	r = check_way(ctx, SPLITLOCK_LIFT_EXEMPT);
	if (r)
		return r;
	r = splitlock_exempt_set(ctx, pid, true);
	if (r < 0) {
		slctl_error("cannot exempt process %" PRIu32 " from misery: %s.", pid, errno_text(r));
		return r == -EACCES ? EXIT_PRIVILEGE : EXIT_FAIL;
	}
	return EXIT_OK;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int lease(struct splitlock_ctx *ctx, uint32_t user, uint32_t caller)
{
	struct splitlock_lease *l = NULL;
	struct sigaction sa = { .sa_handler = on_stop };
	struct stat in, out;
	char buf[256];
	ssize_t n;
	int r;

	/* EOF on a pipe is how the run's end reaches us; a terminal never ends. */
	if (fstat(STDIN_FILENO, &in) < 0 || !S_ISFIFO(in.st_mode) ||
	    fstat(STDOUT_FILENO, &out) < 0 || !S_ISFIFO(out.st_mode))
		return refuse("standard input and output must be pipes from 'slctl run'");
	r = check_way(ctx, SPLITLOCK_LIFT_LEASE);
	if (r)
		return r;
	/* Asked to stop (not killed): drop the lease like at EOF. No
	 * SA_RESTART, so that the read below returns. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = splitlock_lease_take(ctx, user, caller, &l);
	if (r < 0) {
		slctl_error("cannot take a lease on kernel.split_lock_mitigate: %s.", errno_text(r));
		return r == -EACCES ? EXIT_PRIVILEGE : r == -ENOENT ? EXIT_UNSUPPORTED : EXIT_FAIL;
	}
	if (write(STDOUT_FILENO, "ready\n", 6) == 6) {
		while (!stop) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
	}
	r = splitlock_lease_drop(l);
	if (r < 0) {
		slctl_error("cannot drop the lease on kernel.split_lock_mitigate: %s.",
			    errno_text(r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	struct splitlock_ctx *act = NULL;
	uint32_t user, caller_uid, caller, pid = 0;
	const char *job = argc > 1 ? argv[1] : "";
	int r;

	if (g->json)
		return refuse("--json is not one of its arguments");
	if (streq(job, "exempt")) {
		if (argc != 3 || !parse_id(argv[2], INT32_MAX, &pid) || pid < 2)
			return refuse("'exempt' takes one process ID");
	} else if (streq(job, "lease")) {
		if (argc != 2)
			return refuse("'lease' takes no arguments");
	} else {
		return refuse("it does one of 'exempt PID' and 'lease', for 'slctl run' only");
	}
	if (!parse_id(getenv("PKEXEC_UID"), UINT32_MAX - 1, &user))
		return refuse("it runs through pkexec only (PKEXEC_UID is not set)");
	if (geteuid() != 0 || splitlock_have_capability(SPLITLOCK_CAP_SYS_ADMIN) <= 0) {
		slctl_error("__helper runs as root, through pkexec.");
		return EXIT_PRIVILEGE;
	}
	r = trusted_context(ctx, &act);
	if (r)
		return r;
	/* Our parent is whoever ran pkexec: pkexec became us in place. */
	caller = (uint32_t)getppid();
	r = splitlock_process_identity(act, caller, &caller_uid, NULL);
	if (r < 0 || caller_uid != user)
		r = refuse("the calling process %" PRIu32 " does not belong to uid %" PRIu32,
			   caller, user);
	else if (pid && pid == caller)
		r = refuse("the calling process cannot exempt itself, only its waiting child");
	else if (pid)
		r = exempt(act, user, caller, pid);
	else
		r = lease(act, user, caller);
	splitlock_unref(act);
	return r;
}

const struct slctl_command slctl_cmd_helper = {
	.name = "__helper",
	.run = run,
	.usage = usage,
	.summary = "the privileged step of 'slctl run', through pkexec",
	.hidden = true,
};
