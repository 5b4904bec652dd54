/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slctl run: CMD with the misery penalty lifted for it and what it starts.
 *
 * The library chooses how (splitlock_lift_plan_new()): the patched kernel's
 * per-process exemption, or on a stock kernel a lease on the global
 * kernel.split_lock_mitigate. CMD runs as the user who ran slctl, with the
 * environment, descriptors and signal dispositions slctl was given, and
 * never before its exemption or lease is in place:
 *
 *  - exemption: a child forks, waits on a pipe until the parent has marked
 *    it (inherited across exec, so CMD and its children are exempt), then
 *    execs CMD;
 *  - lease: the lease is taken first; its holder is slctl itself, or the
 *    pkexec'd helper, which holds it until its standard input reaches EOF:
 *    when this process ends in any way, the kernel closes the pipe and the
 *    helper drops the lease at once.
 *
 * Without CAP_SYS_ADMIN the one privileged step goes through pkexec to
 * `slctl __helper` (helper.c), which checks everything again itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run-report.h"
#include "slctl.h"

static void usage(FILE *out)
{
	fputs("Usage: slctl run [--no-misery] -- CMD [ARG...]\n"
	      "       slctl run --check [--max N] [--report FILE] [--report-format json|junit]\n"
	      "                 [--no-misery] -- CMD [ARG...]\n\n"
	      "Run CMD with the split-lock misery penalty lifted for it and what it\n"
	      "starts. The patched kernel exempts CMD alone; a stock kernel switches\n"
	      "kernel.split_lock_mitigate off while any run lasts and back after the\n"
	      "last. CMD runs as you, with your environment. Without root, the one\n"
	      "privileged step asks polkit (pkexec).\n\n"
	      "With --check, count the split locks and bus locks of CMD and what it\n"
	      "starts, from the most exact source here (PMU, the patched kernel's\n"
	      "tracepoint), and fail when there are more than allowed; the penalty\n"
	      "is lifted only with --no-misery.\n\n"
	      "Options:\n"
	      "      --no-misery   lift the misery penalty: what run does, spelled out\n"
	      "                    so that launch options keep their meaning\n"
	      "      --check       count, and fail the run above --max\n"
	      "      --max N       split locks and bus locks allowed (default 0)\n"
	      "      --report FILE write the report to FILE as well\n"
	      "      --report-format json|junit\n"
	      "                    the report's format (default json)\n"
	      "      --json        the JSON report on stdout, after CMD's output\n"
	      "  -h, --help        show this help\n\n"
	      "The exit status is CMD's: 128+N when signal N ended it, 127 when it\n"
	      "cannot be found, 126 when it cannot be executed. When CMD was not\n"
	      "started, slctl's own: 1 failure, 2 usage, 3 privileges, 4 not supported.\n"
	      "With --check and CMD's status 0: 5 when it took more than N split locks\n"
	      "and bus locks; 4 (CMD not started) when nothing here can count them.\n\n"
	      "Steam launch options: slctl run --no-misery -- %command%\n", out);
}

/* run --check: the count, attached to CMD before it starts; NULL without. */
static struct splitlock_count *check_count;

/* The dispositions slctl changes while it waits, given back to CMD. */
static const int relayed[] = { SIGTERM, SIGHUP };
static const int ignored[] = { SIGINT, SIGQUIT, SIGPIPE };
static struct sigaction original[_NSIG];
static volatile sig_atomic_t child_pid;

static void relay(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static void save_dispositions(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		sigaction(relayed[i], NULL, &original[relayed[i]]);
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		sigaction(ignored[i], NULL, &original[ignored[i]]);
}

static void restore_dispositions(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		sigaction(relayed[i], &original[relayed[i]], NULL);
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		sigaction(ignored[i], &original[ignored[i]], NULL);
}

/*
 * While CMD runs: the terminal sends ^C and ^\ to CMD as well (one process
 * group), so slctl ignores them and lives to clean up and report, as a
 * shell does with its foreground job; SIGTERM and SIGHUP, which a session
 * or a launcher sends to slctl alone, are passed on to CMD.
 */
static void supervise_signals(pid_t pid)
{
	struct sigaction sa = { .sa_handler = relay };

	child_pid = pid;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < ARRAY_SIZE(relayed); i++)
		sigaction(relayed[i], &sa, NULL);
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		sigaction(ignored[i], &sa, NULL);
}

/* The shell's statuses for a command that could not be run. */
static int exec_failed(const char *cmd, int err)
{
	if (err == ENOENT && !strchr(cmd, '/')) {
		slctl_error("%s: command not found.", cmd);
		return 127;
	}
	slctl_error("cannot run %s: %s.", cmd, strerror(err));
	return err == ENOENT ? 127 : 126;
}

static int status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAIL;
}

/* Nothing to lift: CMD replaces slctl, so everything about it is native. */
static int exec_unchanged(char **cmd)
{
	execvp(cmd[0], cmd);
	return exec_failed(cmd[0], errno);
}

struct child {
	pid_t pid;
	int go;    /* write end: one byte starts CMD, EOF ends the child */
	int err;   /* read end: the errno of a failed exec, EOF on success */
};

/*
 * Fork the child that will become CMD. It waits for the go byte: until
 * then it is slctl, exempt or not, and if slctl dies it exits.
 */
static int start_child(char **cmd, struct child *c)
{
	int go[2], err[2];
	char byte;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int r = -errno;

		close(go[0]);
		close(go[1]);
		return r;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int r = -errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return r;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		if (read(go[0], &byte, 1) != 1)
			_exit(EXIT_FAIL);
		restore_dispositions();
		/*
		 * run --check: the kernel stops counting a task whose exec
		 * crosses a security domain (setuid, file capabilities), and
		 * all it starts after, which would pass the gate unseen. With
		 * no_new_privs no exec of the tree gains privileges.
		 */
		if (check_count && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
			int e = errno;

			if (write(err[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		execvp(cmd[0], cmd);
		{
			int e = errno;

			if (write(err[1], &e, sizeof(e)) < 0)
				_exit(127);
		}
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go = go[1];
	c->err = err[0];
	return 0;
}

/* Setting up failed: the child never becomes CMD. */
static void abandon_child(struct child *c)
{
	close(c->go);
	close(c->err);
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int wait_counted(pid_t pid);

/* Count CMD from its exec on; a sentence and EXIT_* on failure, else 0. */
static int attach_count(struct child *c, const char *cmd)
{
	int r;

	if (!check_count)
		return 0;
	r = splitlock_count_attach(check_count, (uint32_t)c->pid);
	if (r >= 0)
		return 0;
	slctl_error("cannot count the split locks of %s (%s); it was not started.", cmd,
		    errno_text(r));
	abandon_child(c);
	return r == -EACCES || r == -EPERM ? EXIT_PRIVILEGE : EXIT_FAIL;
}

/* Let CMD start; 0, or the errno of its failed exec. */
static int release_child(struct child *c)
{
	int e = 0;
	ssize_t n;

	supervise_signals(c->pid);
	n = write(c->go, "g", 1);
	close(c->go);
	if (n != 1) {
		close(c->err);
		return EPIPE;
	}
	do
		n = read(c->err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err);
	return n == sizeof(e) ? e : 0;
}

/*
 * CMD's end, waited for without reaping it first: SIGTERM and SIGHUP are
 * passed on to child_pid, and once reaped that PID is free for any
 * process of any user (tenth review, attack 5: root's run relayed a
 * SIGTERM during the lease's drop to a PID it had reaped). While CMD is
 * a zombie the PID is still its own; it is forgotten, then reaped.
 */
static int wait_for(pid_t pid)
{
	siginfo_t info;
	int status;

	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			break;
	if (child_pid == pid)
		child_pid = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_FAIL;
	return status_of(status);
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * run --check: CMD's end, reading the records of its traps meanwhile, so
 * that the kernel's buffers do not fill while it runs. A pidfd says when
 * CMD has ended (Linux 5.3); without one, a look every 50 ms.
 */
static int wait_counted(pid_t pid)
{
	int fd = check_count ? splitlock_count_get_fd(check_count) : -1;
	int pidfd = -1, idle = 0, status;
	siginfo_t info;

	if (fd >= 0)
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	while (fd >= 0) {
		struct pollfd p[2] = {
			{ .fd = pidfd, .events = POLLIN },
			/* A perf buffer whose task ended polls readable for good:
			 * after a few wakeups with nothing to read, a 50 ms clock
			 * paces us until a wakeup brings records again. */
			{ .fd = idle < 3 ? fd : -1, .events = POLLIN },
		};

		int records;

		if (poll(p, 2, pidfd >= 0 && idle < 3 ? -1 : 50) < 0 && errno != EINTR)
			break;
		records = splitlock_count_drain(check_count);
		if (records < 0)
			break;
		if (records > 0)
			idle = 0;
		else if (p[1].revents && !p[0].revents)
			idle++;
		if (pidfd >= 0 ? p[0].revents != 0 :
		    (info.si_pid = 0, waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		     info.si_pid != 0))
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	status = wait_for(pid);
	if (check_count)
		(void)splitlock_count_drain(check_count);
	return status;
}

/* ---- pkexec ------------------------------------------------------------- */

struct helper {
	pid_t pid;
	int in;    /* the helper's stdin (lease): EOF drops the lease */
	int out;   /* the helper's stdout (lease): "ready" */
};

/*
 * `pkexec SLCTL __helper JOB [PID] [--root DIR] [-v...]`: __helper first,
 * since the polkit action matches the program's first argument.
 */
static int spawn_helper(struct splitlock_ctx *ctx, const struct slctl_globals *g,
			const char *job, pid_t target, struct helper *h)
{
	char self[PATH_MAX], pid_text[16];
	const char *argv[12];
	size_t n = 0;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	int errpipe[2] = { -1, -1 };
	ssize_t len;
	int e = 0, r;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		slctl_error("cannot find slctl's own program (/proc/self/exe): %s.", strerror(errno));
		return -errno;
	}
	self[len] = '\0';
	argv[n++] = "pkexec";
	argv[n++] = self;
	argv[n++] = "__helper";
	argv[n++] = job;
	if (target > 0) {
		snprintf(pid_text, sizeof(pid_text), "%d", (int)target);
		argv[n++] = pid_text;
	}
	if (!streq(splitlock_get_root(ctx), "/")) {
		argv[n++] = "--root";
		argv[n++] = splitlock_get_root(ctx);
	}
	for (int v = 0; v < g->verbose && v < 2; v++)
		argv[n++] = "-v";
	argv[n] = NULL;

	if ((streq(job, "lease") && (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)) ||
	    pipe2(errpipe, O_CLOEXEC) < 0) {
		r = -errno;
		goto fail;
	}
	fflush(NULL);
	h->pid = fork();
	if (h->pid < 0) {
		r = -errno;
		goto fail;
	}
	if (h->pid == 0) {
		/* Only stdin, stdout and stderr reach the helper: pkexec closes
		 * the others. The exemption's helper writes nothing to stdout,
		 * which belongs to CMD: it gets our stderr. */
		if ((in[0] >= 0 && dup2(in[0], STDIN_FILENO) < 0) ||
		    dup2(out[1] >= 0 ? out[1] : STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], (char **)argv);
		e = errno;
		if (write(errpipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(errpipe[1]);
	errpipe[1] = -1;
	if (read(errpipe[0], &e, sizeof(e)) == sizeof(e)) {
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
		r = -e;
		goto fail;
	}
	close(errpipe[0]);
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	h->in = in[1];
	h->out = out[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (errpipe[i] >= 0)
			close(errpipe[i]);
	}
	if (r == -ENOENT)
		slctl_error("lifting the misery penalty needs root, or polkit's pkexec, which is "
			    "not installed; run slctl as root or install polkit.");
	else
		slctl_error("cannot run pkexec: %s.", errno_text(r));
	return r;
}

/* The exit status for a helper that did not do its job; it said why. */
static int helper_failed(int status, const char *cmd)
{
	int code = status_of(status);

	/* pkexec's own: 126 the dialog was dismissed, 127 not authorized. */
	if (code == 126 || code == 127) {
		slctl_error("polkit did not authorize lifting the misery penalty (pkexec exit "
			    "status %d); %s was not started.", code, cmd);
		return EXIT_PRIVILEGE;
	}
	slctl_error("%s was not started.", cmd);
	return code >= EXIT_FAIL && code <= EXIT_UNSUPPORTED ? code : EXIT_FAIL;
}

/* ---- the two ways ------------------------------------------------------- */

/* As every command maps errors, except EPERM: seq's refusal, not privileges. */
static int exit_for_setup(int r)
{
	return r == -EPERM ? EXIT_FAIL : slctl_exit_for(r);
}

/* CMD's child, set up: counted (run --check), let go, waited for. */
static int release_and_wait(struct child *c, char **cmd)
{
	int r, e;

	r = attach_count(c, cmd[0]);
	if (r)
		return r;
	e = release_child(c);
	if (e) {
		wait_for(c->pid);
		return exec_failed(cmd[0], e);
	}
	return wait_counted(c->pid);
}

static int run_exempt(struct splitlock_ctx *ctx, const struct slctl_globals *g, char **cmd,
		      bool privileged)
{
	struct child c;
	int r;

	r = start_child(cmd, &c);
	if (r < 0) {
		slctl_error("cannot start %s: %s.", cmd[0], errno_text(r));
		return EXIT_FAIL;
	}
	if (privileged) {
		r = splitlock_exempt_set(ctx, (uint32_t)c.pid, true);
		if (r < 0) {
			abandon_child(&c);
			slctl_error("cannot exempt %s from misery: %s; it was not started.", cmd[0],
				    errno_text(r));
			return exit_for_setup(r);
		}
	} else {
		struct helper h = { .pid = -1, .in = -1, .out = -1 };
		int status;

		r = spawn_helper(ctx, g, "exempt", c.pid, &h);
		if (r < 0) {
			abandon_child(&c);
			return r == -ENOENT ? EXIT_PRIVILEGE : EXIT_FAIL;
		}
		while (waitpid(h.pid, &status, 0) < 0)
			if (errno != EINTR) {
				status = EXIT_FAIL << 8;
				break;
			}
		if (status_of(status) != 0) {
			abandon_child(&c);
			return helper_failed(status, cmd[0]);
		}
	}
	return release_and_wait(&c, cmd);
}

/* run --check without lifting anything: CMD as a counted child. */
static int run_counted(char **cmd)
{
	struct child c;
	int r;

	save_dispositions();
	r = start_child(cmd, &c);
	if (r < 0) {
		slctl_error("cannot start %s: %s.", cmd[0], errno_text(r));
		return EXIT_FAIL;
	}
	return release_and_wait(&c, cmd);
}

/* Read the helper's "ready" line: the lease is in place. */
static bool helper_ready(int fd)
{
	char buf[16];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		len += (size_t)n;
		buf[len] = '\0';
		if (strchr(buf, '\n'))
			return streq(buf, "ready\n");
	}
	return false;
}

static int run_lease(struct splitlock_ctx *ctx, const struct slctl_globals *g, char **cmd,
		     bool privileged)
{
	struct splitlock_lease *lease = NULL;
	struct helper h = { .pid = -1, .in = -1, .out = -1 };
	struct child c;
	int r, e, ret, status;

	if (privileged) {
		r = splitlock_lease_take(ctx, (uint32_t)getuid(), (uint32_t)getpid(), &lease);
		if (r < 0) {
			if (r == -ETIMEDOUT) {
				slctl_error("another process has held /run/slctl/leases.lock for "
					    "10 seconds; %s was not started.", cmd[0]);
				return EXIT_FAIL;
			}
			slctl_error("cannot take a lease on kernel.split_lock_mitigate: %s; %s was "
				    "not started.", errno_text(r), cmd[0]);
			return exit_for_setup(r);
		}
	} else {
		r = spawn_helper(ctx, g, "lease", 0, &h);
		if (r < 0)
			return r == -ENOENT ? EXIT_PRIVILEGE : EXIT_FAIL;
		if (!helper_ready(h.out)) {
			close(h.in);
			close(h.out);
			while (waitpid(h.pid, &status, 0) < 0)
				if (errno != EINTR) {
					status = EXIT_FAIL << 8;
					break;
				}
			return helper_failed(status, cmd[0]);
		}
	}

	r = start_child(cmd, &c);
	if (r < 0) {
		slctl_error("cannot start %s: %s.", cmd[0], errno_text(r));
		ret = EXIT_FAIL;
	} else if ((ret = attach_count(&c, cmd[0])) == 0) {
		e = release_child(&c);
		ret = wait_counted(c.pid);
		if (e)
			ret = exec_failed(cmd[0], e);
	}

	if (lease) {
		r = splitlock_lease_drop(lease);
		if (r < 0)
			slctl_warning("the lease on kernel.split_lock_mitigate could not be dropped "
				      "cleanly (%s); the next slctl run retries.", errno_text(r));
	} else {
		close(h.in);
		close(h.out);
		while (waitpid(h.pid, &status, 0) < 0)
			if (errno != EINTR) {
				status = 0;
				break;
			}
		if (status_of(status) != 0)
			slctl_warning("the helper holding the lease ended with status %d; the next "
				      "slctl run clears what it left.", status_of(status));
	}
	return ret;
}

static int run_lifted(struct splitlock_ctx *ctx, const struct slctl_globals *g, char **cmd);

/*
 * After CMD: wait for what it left running (slctl is their subreaper),
 * reading the count's records meanwhile: their split locks are CMD's, and
 * a gate that stopped looking at them would pass them unseen. A daemon
 * that never ends keeps the gate open, as it would keep a CI job. True
 * when there were any.
 */
static bool wait_leftovers(void)
{
	bool any = false, said = false;
	int fd = splitlock_count_get_fd(check_count);

	/* While slctl waits for no child of its own, signals end it. */
	restore_dispositions();
	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		if (pid > 0) {
			any = true;
			continue;
		}
		any = true;
		if (!said)
			fprintf(stderr, "%s: waiting for the processes the command left running.\n",
				program_invocation_short_name);
		said = true;
		{
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, 50);
		}
		(void)splitlock_count_drain(check_count);
	}
	(void)splitlock_count_drain(check_count);
	return any;
}

/* The totals from the samples of each trap, where none was lost. */
static bool count_from_samples(const struct splitlock_count *count, struct run_check *c)
{
	uint64_t lost, n[2] = { 0, 0 }, split, bus;
	size_t tasks;

	if (splitlock_count_get_tasks(count, &tasks, &lost) < 0 || lost)
		return false;
	for (size_t i = 0; i < tasks; i++) {
		if (splitlock_count_get_task(count, i, NULL, NULL, &split, &bus) < 0)
			return false;
		n[SPLITLOCK_KIND_SPLIT_LOCK] += split;
		n[SPLITLOCK_KIND_BUS_LOCK] += bus;
	}
	for (int k = 0; k < 2; k++) {
		c->count[k] = n[k];
		c->counted[k] = true;
	}
	return true;
}

/* Count CMD; report; the exit status of run --check (slctl(8)). */
static int run_check(struct splitlock_ctx *ctx, const struct slctl_globals *g, char **cmd,
		     bool lift, uint64_t max, const char *report,
		     enum run_report_format format)
{
	_cleanup_(splitlock_count_freep) struct splitlock_count *count = NULL;
	struct run_check c = { .cmd = cmd, .max = max, .cmd_status = -1 };
	struct run_report_file file = { .fd = -1 };
	int r, status, refusal;

	/* A report that cannot be written fails before CMD runs. */
	if (report) {
		r = run_report_file_open(&file, report);
		if (r < 0) {
			slctl_error("cannot write the report %s: %s; %s was not started.", report,
				    errno_text(r), cmd[0]);
			return EXIT_FAIL;
		}
	}
	r = splitlock_count_new(ctx, SPLITLOCK_COUNT_TASKS, &count);
	if (r < 0) {
		slctl_error("cannot choose what counts split locks here: %s; %s was not "
			    "started.", errno_text(r), cmd[0]);
		run_report_file_abandon(&file);
		return EXIT_FAIL;
	}
	c.reason = splitlock_count_get_reason(count);
	refusal = splitlock_count_get_refusal(count);
	if (refusal < 0) {
		/* A gate that cannot look never passes. */
		slctl_error("%s; %s was not started.", c.reason, cmd[0]);
		status = refusal == -EACCES ? EXIT_PRIVILEGE : EXIT_UNSUPPORTED;
	} else {
		c.source = splitlock_count_get_source(count);
		c.exact = splitlock_count_is_exact(count);
		/* Orphans of CMD's tree become slctl's children, to wait for. */
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		check_count = count;
		status = lift ? run_lifted(ctx, g, cmd) : run_counted(cmd);
		c.leftovers = wait_leftovers();
		check_count = NULL;
		for (int k = 0; k < 2; k++) {
			r = splitlock_count_read(count, (enum splitlock_kind)k, &c.count[k]);
			/* Not attached: CMD never started, and slctl said why;
			 * never enabled: it could not be executed. */
			if (r == -ENOTCONN || r == -ENOEXEC)
				break;
			if (r == -EIO) {
				slctl_error("the count of %s is short: the PMU took its counter "
					    "away for a while (another user of the PMU).", cmd[0]);
				c.source = 0;
				c.reason = "the PMU took the counter away for a while";
				break;
			}
			if (r < 0 && r != -ENODATA) {
				slctl_error("cannot read the count of %s: %s.", cmd[0],
					    errno_text(r));
				c.source = 0;
				c.reason = "the count could not be read";
				break;
			}
			c.counted[k] = r == 0;
		}
		/*
		 * Never enabled although CMD ran and exited 0: the kernel did
		 * not start the count at its exec (seen on 6.1 under qemu, now
		 * and then: time enabled 0, while the samples of each trap came).
		 * A count not read never passes: the samples make it where none
		 * was lost, else nothing counted.
		 */
		if (r == -ENOEXEC && status == 0) {
			r = 0;
			if (!count_from_samples(count, &c)) {
				slctl_error("the kernel never started the count of %s.", cmd[0]);
				c.source = 0;
				c.reason = "the kernel never started the count";
			}
		}
		if (r == -ENOTCONN) {
			status = status ? status : EXIT_FAIL;
		} else {
			c.count_obj = count;
			c.cmd_status = status;
			if (!c.source && status == 0)
				status = EXIT_FAIL;
			else if (status == 0 && !run_check_passed(&c))
				status = EXIT_CHECK_FAILED;
			run_check_say(&c);
		}
	}
	if (report) {
		r = run_report_file_commit(&file, &c, format);
		if (r < 0) {
			slctl_error("cannot write the report %s: %s.", report, errno_text(r));
			if (status == 0)
				status = EXIT_FAIL;
		}
	}
	if (g->json)
		run_check_report(&c, RUN_REPORT_JSON, stdout);
	return status;
}

/* What `slctl run` does without --check: lift the penalty, run CMD. */
static int run_lifted(struct splitlock_ctx *ctx, const struct slctl_globals *g, char **cmd)
{
	_cleanup_(splitlock_lift_plan_freep) struct splitlock_lift_plan *plan = NULL;
	enum splitlock_lift lift;
	const char *why;
	bool privileged;
	int r;

	r = splitlock_lift_plan_new(ctx, &plan);
	if (r < 0) {
		slctl_error("%s; %s was not started.", errno_text(r), cmd[0]);
		return EXIT_FAIL;
	}
	why = splitlock_lift_plan_get_reason(plan);
	r = splitlock_lift_plan_get_refusal(plan);
	if (r < 0) {
		slctl_error("%s; %s was not started.", why, cmd[0]);
		return r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_FAIL;
	}
	lift = splitlock_lift_plan_get_way(plan);
	save_dispositions();
	switch (lift) {
	case SPLITLOCK_LIFT_UNNEEDED:
		if (g->verbose)
			fprintf(stderr, "%s: %s; running %s unchanged.\n",
				program_invocation_short_name, why, cmd[0]);
		return check_count ? run_counted(cmd) : exec_unchanged(cmd);
	case SPLITLOCK_LIFT_UNCHANGED:
		slctl_warning("%s; running %s unchanged.", why, cmd[0]);
		return check_count ? run_counted(cmd) : exec_unchanged(cmd);
	default:
		break;
	}
	privileged = splitlock_have_capability(SPLITLOCK_CAP_SYS_ADMIN) > 0;
	if (lift == SPLITLOCK_LIFT_EXEMPT)
		return run_exempt(ctx, g, cmd, privileged);
	return run_lease(ctx, g, cmd, privileged);
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	enum { OPT_NO_MISERY = 0x100, OPT_CHECK, OPT_MAX, OPT_REPORT, OPT_REPORT_FORMAT };
	static const struct option options[] = {
		{ "no-misery", no_argument, NULL, OPT_NO_MISERY },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "report-format", required_argument, NULL, OPT_REPORT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "+h";
	enum run_report_format format = RUN_REPORT_JSON;
	const char *report = NULL, *max_text = NULL, *format_text = NULL;
	bool check = false, no_misery = false;
	unsigned long long max = 0;
	char **cmd, *end;
	int c;

	while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
		switch (c) {
		case OPT_NO_MISERY:
			no_misery = true;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_MAX:
			max_text = optarg;
			break;
		case OPT_REPORT:
			report = optarg;
			break;
		case OPT_REPORT_FORMAT:
			format_text = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return slctl_option_error("run", argv, shorts, options);
		}
	}
	if (!check && (max_text || report || format_text))
		return slctl_usage_error("run", "--max, --report and --report-format go with "
					 "--check.");
	if (max_text) {
		errno = 0;
		max = strtoull(max_text, &end, 10);
		if (errno || end == max_text || *end || max_text[0] < '0' || max_text[0] > '9')
			return slctl_usage_error("run", "--max takes a count: 0 or more split "
						 "locks and bus locks, not '%s'.", max_text);
	}
	if (format_text) {
		if (streq(format_text, "junit"))
			format = RUN_REPORT_JUNIT;
		else if (!streq(format_text, "json"))
			return slctl_usage_error("run", "--report-format is json or junit, not "
						 "'%s'.", format_text);
		if (!report)
			return slctl_usage_error("run", "--report-format says how to write "
						 "--report FILE; give the file.");
	}
	if (report && !*report)
		return slctl_usage_error("run", "--report needs a file name.");
	if (g->json && !check)
		return slctl_usage_error("run", "--json is not available: standard output "
					 "belongs to CMD; with --check it prints the report "
					 "after CMD's output.");
	/* Without '--' slctl would take CMD's -v or --json for its own. */
	if (optind < 1 || !streq(argv[optind - 1], "--"))
		return slctl_usage_error("run", "give the command after '--', as in "
					 "'slctl run -- CMD [ARG...]'.");
	if (optind >= argc)
		return slctl_usage_error("run", "no command after '--'.");
	cmd = argv + optind;

	if (check)
		return run_check(ctx, g, cmd, no_misery, max, report, format);
	return run_lifted(ctx, g, cmd);
}

const struct slctl_command slctl_cmd_run = {
	.name = "run",
	.run = run,
	.usage = usage,
	.summary = "run a command with the split-lock penalty lifted for it",
};
