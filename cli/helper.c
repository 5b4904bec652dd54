/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl __helper: the one privileged step of `slctl run` for a user without
 * privileges, run as root by pkexec (polkit action org.slctl.run, which
 * matches this program with "__helper" as its first argument). Not listed
 * in the help: nobody types it.
 *
 *   slctl __helper exempt PID   exempt PID from misery, read it back, exit 0
 *   slctl __helper lease        take a lease, write "ready\n" to stdout,
 *                               hold it until stdin reaches EOF or the
 *                               calling process ends, drop it
 *
 * One authorization buys one run, and nothing more. It trusts the kernel
 * and pkexec, not its caller: PKEXEC_UID (set by pkexec, which a caller
 * cannot forge through it) names the user; the caller (our parent: pkexec
 * execs us in its place) must be that user's, and is pinned with a pidfd;
 * the PID to exempt must be that user's and the caller's child, pinned
 * from the check to the write (sl_exempt_set_checked()); the way
 * must be the one the library chooses here for itself. Everything else is
 * refused with exit status 2.
 *
 * What the process inherits from the caller is reset first
 * (helper-sanitize.c). A lease ends when the caller ends, whatever the
 * caller did with our descriptors: the end of a pipe the caller controls
 * is a hint, the caller's pidfd is the rule.
 *
 * A root other than / (--root) is never accepted by the installed helper,
 * the program polkit's action names (BINDIR/slctl, compiled in as
 * SLCTL_INSTALLED_PATH, or the path an installed policy file names): a
 * user authorized for that action would otherwise choose the files it
 * acts on. Another copy (the build tree's, which the
 * test suite runs through a stand-in pkexec; real pkexec asks an
 * administrator's password for it, as for any program) accepts a root that
 * is a canonical path in our own mount namespace to a directory of root's
 * that no one else may write: a tree the user cannot have prepared, and
 * not a view into a namespace of the user's (/proc/PID/root).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper-lib.h"
#include "slctl.h"

#ifndef SLCTL_INSTALLED_PATH
#define SLCTL_INSTALLED_PATH "/usr/local/bin/slctl"
#endif

static void usage(FILE *out)
{
	fputs("Usage: pkexec slctl __helper exempt PID\n"
	      "       pkexec slctl __helper lease\n\n"
	      "The privileged step of 'slctl run' for a user without privileges,\n"
	      "run by 'slctl run' through pkexec only. See slctl(8).\n"
	      "Installed as " SLCTL_INSTALLED_PATH " it acts on the running system only\n"
	      "(no --root).\n", out);
}

static int refuse(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *format, ...)
{
	va_list args;

	_cleanup_free_ char *text = NULL;
	int n;

	va_start(args, format);
	n = vasprintf(&text, format, args);
	va_end(args);
	/* Escaped: the root (--root) in it is the caller's text. */
	slctl_error("__helper refuses: %s.", n < 0 ? "(out of memory)" : text);
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
static bool same_file(const struct stat *self, const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == self->st_dev && st.st_ino == self->st_ino;
}

/*
 * The program org.slctl.run names in an installed policy file
 * (org.freedesktop.policykit.exec.path), in *@path; polkit reads its own
 * prefix's actions directory, which a build with another PREFIX may not
 * know.
 */
static bool policy_exec_path(const char *file, char *path, size_t size)
{
	static const char key[] = "org.freedesktop.policykit.exec.path\">";
	_cleanup_free_ char *text = NULL;
	_cleanup_fclose_ FILE *f = fopen(file, "re");
	const char *start, *end;
	size_t len = 0;

	if (!f)
		return false;
	text = calloc(1, 64 * 1024);
	if (!text)
		return false;
	len = fread(text, 1, 64 * 1024 - 1, f);
	text[len] = '\0';
	start = strstr(text, key);
	if (!start)
		return false;
	start += strlen(key);
	end = strchr(start, '<');
	if (!end || (size_t)(end - start) >= size || *start != '/')
		return false;
	memcpy(path, start, (size_t)(end - start));
	path[end - start] = '\0';
	return true;
}

/*
 * Whether this program is the one polkit's action names: the path this
 * build was made for (BINDIR/slctl), or the one an installed policy file
 * names. Only that program gets the action's authorization (auth_admin,
 * or a group's rules.d rule); pkexec asks an administrator for any other.
 */
static bool installed_helper(void)
{
	static const char *const policies[] = {
		"/usr/share/polkit-1/actions/org.slctl.run.policy",
		"/usr/local/share/polkit-1/actions/org.slctl.run.policy",
		"/etc/polkit-1/actions/org.slctl.run.policy",
	};
	struct stat self;
	char path[PATH_MAX];

	if (stat("/proc/self/exe", &self) < 0)
		return true; /* what cannot be told is the strict case */
	if (same_file(&self, SLCTL_INSTALLED_PATH))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
		if (policy_exec_path(policies[i], path, sizeof(path)) && same_file(&self, path))
			return true;
	return false;
}

/*
 * Whether the /proc we read shows our PIDs: a user may put the caller in a
 * PID namespace of its own (it owns one through its user namespace) while
 * pkexec still makes us root, and /proc/N would then be another process
 * than the N of getppid() or of the argument. A fake root's /proc is the
 * test's to keep consistent.
 */
static bool same_pid_namespace_as_proc(struct splitlock_ctx *ctx)
{
	char link[32];
	ssize_t n;

	if (!streq(splitlock_get_root(ctx), "/"))
		return true;
	n = readlink("/proc/self", link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return strtol(link, NULL, 10) == (long)getpid();
}

/* Whether the mount @fd is on is one of our mount namespace. */
static bool in_our_mount_namespace(int fd)
{
	_cleanup_fclose_ FILE *info = NULL, *mounts = NULL;
	char path[64], line[4096];
	long id = -1, m;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = fopen(path, "re");
	while (info && fgets(line, sizeof(line), info))
		if (sscanf(line, "mnt_id: %ld", &m) == 1)
			id = m;
	if (id < 0)
		return false;
	mounts = fopen("/proc/self/mountinfo", "re");
	while (mounts && fgets(line, sizeof(line), mounts))
		if (sscanf(line, "%ld ", &m) == 1 && m == id)
			return true;
	return false;
}

static int trusted_context(struct splitlock_ctx *ctx, struct splitlock_ctx **out)
{
	const char *root = splitlock_get_root(ctx);
	char path[64], real[PATH_MAX];
	struct stat st;
	int fd;

	if (streq(root, "/")) {
		*out = splitlock_ref(ctx);
		return EXIT_OK;
	}
	if (installed_helper())
		return refuse("installed as " SLCTL_INSTALLED_PATH ", it acts on the running "
			      "system only, not on --root %s", root);
	if (!realpath(root, real) || !streq(real, root))
		return refuse("the root %s is not a canonical path (no symbolic link, no "
			      "/proc/PID/root)", root);
	fd = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
	if (!in_our_mount_namespace(fd)) {
		close(fd);
		return refuse("the root %s is not in this mount namespace", root);
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
	_cleanup_(splitlock_lift_plan_freep) struct splitlock_lift_plan *plan = NULL;
	int r = splitlock_lift_plan_new(ctx, &plan);

	if (r < 0) {
		slctl_error("%s.", errno_text(r));
		return EXIT_FAIL;
	}
	r = splitlock_lift_plan_get_refusal(plan);
	if (r < 0) {
		slctl_error("%s.", splitlock_lift_plan_get_reason(plan));
		return r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_FAIL;
	}
	if (splitlock_lift_plan_get_way(plan) != want)
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
	/* Checked again, and pinned from that check to the write. */
	r = sl_exempt_set_checked(ctx, pid, user, caller, true);
	if (r == -ECHILD || r == -ENOTUNIQ)
		return refuse("process %" PRIu32 " is not the calling process's child of uid %"
			      PRIu32, pid, user);
	if (r == -ESRCH)
		return refuse("process %" PRIu32 " has ended", pid);
	if (r < 0) {
		slctl_error("cannot exempt process %" PRIu32 " from misery: %s.", pid, errno_text(r));
		return r == -EACCES ? EXIT_PRIVILEGE : EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Whether the process of @pidfd has ended (a zombie has). */
static bool ended(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

static int lease_error(int r)
{
	if (r == -ETIMEDOUT) {
		slctl_error("another process has held /run/slctl/leases.lock for 10 seconds; "
			    "no lease was taken.");
		return EXIT_FAIL;
	}
	if (r == -EDQUOT) {
		slctl_error("this user holds as many leases as one user may (8); end a run "
			    "first.");
		return EXIT_FAIL;
	}
	slctl_error("cannot take a lease on kernel.split_lock_mitigate: %s.", errno_text(r));
	return r == -EACCES ? EXIT_PRIVILEGE : r == -ENOENT ? EXIT_UNSUPPORTED : EXIT_FAIL;
}

/*
 * Hold the lease until the run ends: EOF on stdin (slctl run closed its
 * end), the caller's end (its pidfd: whatever the caller did with the
 * pipe, a FIFO opened for writing too, our stderr on the same pipe), or
 * SIGTERM, SIGINT or SIGHUP from root. Nothing here blocks: stdin is
 * only polled, never read (a read, or a reopen, takes the pipe's mutex,
 * which the caller can hold), and what we write goes to the relay.
 */
static void hold(int caller_fd, int signal_fd)
{
	/* stdin's data is never read: only its end (POLLHUP) counts, and a
	 * caller that writes without end fills its own pipe, not our time. */
	struct pollfd fds[3] = {
		{ .fd = STDIN_FILENO, .events = 0 },
		{ .fd = caller_fd, .events = POLLIN },
		{ .fd = signal_fd, .events = POLLIN },
	};
	for (;;) {
		if (poll(fds, ARRAY_SIZE(fds), -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (fds[1].revents || fds[2].revents)
			return;
		if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
	}
}

static int lease(struct splitlock_ctx *ctx, uint32_t user, uint32_t caller, int caller_fd)
{
	struct splitlock_lease *l = NULL;
	_cleanup_close_ int signal_fd = -1;
	struct stat in, out;
	sigset_t stops;
	int r;

	/* EOF on a pipe is how the run's end reaches us; a terminal never ends. */
	if (fstat(STDIN_FILENO, &in) < 0 || !S_ISFIFO(in.st_mode) ||
	    helper_caller_fstat(STDOUT_FILENO, &out) < 0 || !S_ISFIFO(out.st_mode))
		return refuse("standard input and output must be pipes from 'slctl run'");
	r = check_way(ctx, SPLITLOCK_LIFT_LEASE);
	if (r)
		return r;
	/* Asked to stop (not killed): drop the lease like at EOF. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, NULL);
	signal_fd = signalfd(-1, &stops, SFD_CLOEXEC | SFD_NONBLOCK);
	if (signal_fd < 0) {
		slctl_error("cannot watch for signals: %s.", strerror(errno));
		return EXIT_FAIL;
	}

	r = splitlock_lease_take(ctx, user, caller, &l);
	if (r < 0)
		return lease_error(r);
	/* A caller that is gone already, or a pipe kept full: no run to hold for. */
	if (!ended(caller_fd) && write(STDOUT_FILENO, "ready\n", 6) == 6)
		hold(caller_fd, signal_fd);
	r = splitlock_lease_drop(l);
	if (r < 0) {
		slctl_error("cannot drop the lease on kernel.split_lock_mitigate: %s.",
			    errno_text(r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/*
 * Before anything else, main() calls this for `slctl __helper` run as
 * root (pkexec's form, __helper first; for another order, such as
 * `slctl --root DIR __helper`, once the command is known): the process is
 * reset (helper-sanitize.c) and its standard output and error made pipes
 * of its own that never block, relayed to the caller's by a thread
 * (helper-relay.c), before the first message, an option's error or a
 * refusal, is written. A caller that keeps our stderr pipe full, or holds
 * its pipe's or file's lock, would otherwise hold any number of root
 * processes in write(), and they are not the caller's to kill.
 */
static char *pkexec_uid; /* PKEXEC_UID, kept from the environment we clear */

void slctl_helper_prepare(void)
{
	_cleanup_free_ char *why = NULL;
	static bool done;
	const char *uid = getenv("PKEXEC_UID");
	int r;

	if (done)
		return;
	done = true;
	if (uid)
		pkexec_uid = strdup(uid);
	if (geteuid() != 0)
		return; /* a user's own process: run() says it needs pkexec */
	r = helper_sanitize(&why);
	if (r == 0)
		r = helper_leave_cgroups(&why);
	/*
	 * Started even after a failure, to say so without blocking; if it
	 * cannot start, nothing is said: a write of ours to the caller's
	 * descriptors could wait for ever.
	 */
	if (helper_relay_start() < 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		_exit(EXIT_FAIL);
	}
	if (r < 0) {
		slctl_error("%s.", why ? why : "cannot set up the helper's process");
		exit(EXIT_FAIL);
	}
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	struct splitlock_ctx *act = NULL;
	_cleanup_close_ int caller_fd = -1;
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
	if (!parse_id(pkexec_uid, UINT32_MAX - 1, &user))
		return refuse("it runs through pkexec only (PKEXEC_UID is not set)");
	if (geteuid() != 0 || splitlock_have_capability(SPLITLOCK_CAP_SYS_ADMIN) <= 0) {
		slctl_error("__helper runs as root, through pkexec.");
		return EXIT_PRIVILEGE;
	}
	if (!same_pid_namespace_as_proc(ctx))
		return refuse("it runs in a PID namespace other than that of /proc, where "
			      "process IDs name other processes");
	r = trusted_context(ctx, &act);
	if (r)
		return r;
	/*
	 * Our parent is whoever ran pkexec: pkexec became us in place. Pinned
	 * before anything is checked; still our parent after the pidfd was
	 * taken means the pidfd is that parent's (not a reaper's we were
	 * handed to).
	 */
	caller = (uint32_t)getppid();
	caller_fd = (int)syscall(SYS_pidfd_open, (pid_t)caller, 0);
	if (caller_fd < 0 || (uint32_t)getppid() != caller) {
		splitlock_unref(act);
		return refuse("the calling process has ended");
	}
	r = splitlock_process_identity(act, caller, &caller_uid, NULL);
	if (r < 0 || caller_uid != user || ended(caller_fd))
		r = refuse("the calling process %" PRIu32 " does not belong to uid %" PRIu32,
			   caller, user);
	else if (pid && pid == caller)
		r = refuse("the calling process cannot exempt itself, only its waiting child");
	else if (pid)
		r = exempt(act, user, caller, pid);
	else
		r = lease(act, user, caller, caller_fd);
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
