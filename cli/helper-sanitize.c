/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `slctl __helper` takes from its caller, and how it gives it back.
 *
 * pkexec makes the helper root, but the process is the caller's in every
 * other way: its umask, signal mask and ignored signals, session, process
 * group and terminal, rlimits, scheduling, cgroups and the descriptors it
 * was given all pass through exec. Each is a lever on a root process that
 * holds the penalty off for everyone (the "local attacker" of
 * shared/REVIEW-BRIEFS.md): umask 0777 made /run/slctl unusable, a
 * terminal's ^Z stopped the helper, a delegated cgroup's cgroup.kill or
 * cgroup.freeze killed or froze it, an RLIMIT_CPU or RLIMIT_FSIZE signal
 * ended it half-way. So the helper starts by setting each of them to what
 * a service of root's would have, as polkit's and systemd's helpers do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "slctl.h"

/* @err, with a sentence in *@why. */

/* The kernel's default timer slack (INIT_TASK's), in nanoseconds. */
#define HELPER_TIMER_SLACK_NS 50000UL
static int say(char **why, int err, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int say(char **why, int err, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	if (message_vset(why, format, args) < 0)
		*why = NULL;
	va_end(args);
	return err;
}

/*
 * Interval timers (ITIMER_REAL, which alarm() sets too, ITIMER_VIRTUAL,
 * ITIMER_PROF) pass through exec, and reset_signals() makes their signals
 * kill: the caller could end us at a moment of its choosing, holding the
 * lease. POSIX timers (timer_create) do not survive exec. Disarmed first,
 * before a signal can come.
 */
static void disarm_timers(void)
{
	static const int which[] = { ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	for (size_t i = 0; i < ARRAY_SIZE(which); i++)
		setitimer(which[i], &off, NULL);
	/*
	 * The caller's timer slack survives the setuid exec too: a slack of
	 * minutes would stretch every short sleep of the bounded lock wait
	 * and keep the lease past its caller. Set, not reset: 0 restores the
	 * task's default slack, which fork() takes from the parent's current
	 * one, so a caller that set its own before forking pkexec (or before
	 * running slctl run, which forks it) made that the default (twelfth
	 * review: a drop behind a held leases.lock slept for minutes with the
	 * penalty off). 50 us is the kernel's own default (init's).
	 */
	prctl(PR_SET_TIMERSLACK, HELPER_TIMER_SLACK_NS, 0UL, 0UL, 0UL);
}

static void reset_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	sigset_t none;

	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	/* A terminal we may still have stops nobody's root helper; a closed
	 * pipe is an error to handle, not a death. */
	sigaction(SIGTSTP, &ign, NULL);
	sigaction(SIGTTIN, &ign, NULL);
	sigaction(SIGTTOU, &ign, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * A session of our own: no controlling terminal, so no ^Z, ^C, ^\ or
 * hangup from the caller's terminal, and no process group the caller can
 * signal as a whole. setsid() fails for a process-group leader, which the
 * caller may make us (a shell's job of one command, setpgid() before
 * pkexec), and then we stay in the caller's session and process group:
 * a terminal still sends its signals to that group whatever our own
 * controlling terminal is, so TIOCNOTTY alone would not do.
 *
 * Forking a child that can call setsid() would not do either: the parent
 * must stay, for the caller waits on it and reads its exit status, and so
 * stays in the caller's group, open to the same signals; the lease would
 * be the child's, a process pkexec did not start (and a fake root's /proc
 * does not show). What a terminal can send is known, so the group
 * leader ignores it instead: SIGTSTP, SIGTTIN, SIGTTOU (for everyone, in
 * reset_signals()), SIGINT, SIGQUIT and SIGHUP here. The lease blocks
 * SIGINT and SIGHUP to read them from a signalfd, as root's requests to
 * drop it; blocked, a signal is queued even while ignored, so that a ^C
 * there drops the lease cleanly, as its end does, and kills nothing.
 * SIGWINCH and SIGCONT do nothing; SIGIO from a terminal goes only to an
 * owner the caller may signal, never to root's process.
 */
static void leave_terminal(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int tty;

	if (setsid() >= 0)
		return;
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	/* Not the terminal's reader or writer any more, if we were. */
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (tty >= 0) {
		ioctl(tty, TIOCNOTTY);
		close(tty);
	}
}

/* Descriptors 3 and up are the caller's business, never ours. */
static void close_inherited(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++)
		close(fd);
}

struct limit {
	int resource;
	rlim_t soft, hard;
};

/*
 * Generous where a limit can only make the helper fail or die half-way
 * (CPU time, file size, memory, stack), none for core dumps of a root
 * process, the usual count of descriptors, no raised nice or real-time
 * priority. RLIMIT_NPROC does not bind root, and the helper makes no
 * message queues (RLIMIT_MSGQUEUE).
 */
static const struct limit limits[] = {
	{ RLIMIT_CPU, RLIM_INFINITY, RLIM_INFINITY },
	{ RLIMIT_FSIZE, RLIM_INFINITY, RLIM_INFINITY },
	{ RLIMIT_DATA, RLIM_INFINITY, RLIM_INFINITY },
	{ RLIMIT_AS, RLIM_INFINITY, RLIM_INFINITY },
	{ RLIMIT_STACK, 8 << 20, RLIM_INFINITY },
	{ RLIMIT_CORE, 0, 0 },
	{ RLIMIT_NOFILE, 1024, 4096 },
	{ RLIMIT_MEMLOCK, 8 << 20, 8 << 20 },
	{ RLIMIT_LOCKS, RLIM_INFINITY, RLIM_INFINITY },
	{ RLIMIT_SIGPENDING, 1024, 1024 },
	{ RLIMIT_RTTIME, RLIM_INFINITY, RLIM_INFINITY },
	{ RLIMIT_NICE, 0, 0 },
	{ RLIMIT_RTPRIO, 0, 0 },
};

static int reset_limits(char **why)
{
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		struct rlimit rl = { limits[i].soft, limits[i].hard };

		if (setrlimit(limits[i].resource, &rl) < 0) {
			int e = errno;

			return say(why, -e, "cannot reset resource limit %d: %s",
				   limits[i].resource, strerror(e));
		}
	}
	return 0;
}

/* struct sched_attr of <linux/sched/types.h>, its first version with the
 * utilization clamps (SCHED_ATTR_SIZE_VER1). */
struct helper_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

static void reset_util_clamp(void)
{
	struct helper_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_OTHER,
		/* SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MIN | _MAX */
		.sched_flags = 0x18 | 0x20 | 0x40,
		.sched_util_min = 0,
		.sched_util_max = 1024,
	};

	syscall(SYS_sched_setattr, 0, &attr, 0U);
}

/*
 * A nice of 19, SCHED_IDLE, the idle I/O class or one busy CPU would make
 * others wait on our locks. The OOM killer must never end us in the
 * middle of a lease: the caller can fill its memory cgroup with pages
 * that count in no process's RSS (a memfd), and the killer then picks
 * the largest process, which is us (eighth review). -1000 exempts us; we
 * are small, and what we hold back is the whole machine's protection.
 * Best effort: each is a default.
 */
static void reset_scheduling(void)
{
	struct sched_param param = { 0 };
	cpu_set_t all;
	int fd;

	sched_setscheduler(0, SCHED_OTHER, &param);
	setpriority(PRIO_PROCESS, 0, 0);
	/* IOPRIO_WHO_PROCESS, IOPRIO_CLASS_BE level 4: the default. */
	syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 4);
	CPU_ZERO(&all);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	sched_setaffinity(0, sizeof(all), &all);
	/*
	 * A NUMA policy binding us to a node with little free memory would
	 * make our allocations fail or the OOM killer pick us; utilization
	 * clamps (uclampset -M 0) would keep us on the slowest CPU at the
	 * lowest frequency. Both pass through exec. Kernels without NUMA or
	 * uclamp refuse, and then there is nothing to reset.
	 */
	syscall(SYS_set_mempolicy, 0 /* MPOL_DEFAULT */, NULL, 0UL);
	reset_util_clamp();
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		/*
		 * Without CAP_SYS_RESOURCE (a container's bounding set) the
		 * kernel refuses to lower it: then at least the default. A
		 * kernel that refuses both keeps the caller's value.
		 */
		if (write(fd, "-1000\n", 6) != 6) {
			ssize_t n = write(fd, "0\n", 2);

			(void)n;
		}
		close(fd);
	}
}

/*
 * Only PATH, fixed; pkexec passes a short list, but nothing of it is
 * needed, and a library reads variables (locale, debug switches) that
 * should not be the caller's to set.
 */
static int reset_environment(void)
{
	if (clearenv() != 0)
		return -ENOMEM;
	if (setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1) < 0)
		return -errno;
	return 0;
}

int helper_sanitize(char **why)
{
	int r;

	*why = NULL;
	disarm_timers();
	umask(0022);
	reset_signals();
	close_inherited();
	leave_terminal();
	if (chdir("/") < 0) {
		int e = errno;

		return say(why, -e, "cannot change to /: %s", strerror(e));
	}
	/*
	 * Limits first: with RLIMIT_NOFILE at 3 the open of oom_score_adj
	 * in reset_scheduling() failed and the caller's value stayed
	 * (twelfth review).
	 */
	r = reset_limits(why);
	if (r < 0)
		return r;
	reset_scheduling();
	r = reset_environment();
	if (r < 0)
		return say(why, r, "cannot reset the environment: %s", strerror(-r));
	return 0;
}

/* ---- cgroups ------------------------------------------------------------ */

/*
 * Where the cgroup hierarchy @id:@controllers is mounted, from
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - TYPE
 * SOURCE SUPEROPTS". The root of the mount must be "/": a mount of a
 * subtree does not show our path.
 */
static bool find_mount(const char *controllers, char *mnt, size_t size)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool v2 = !*controllers;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], point[PATH_MAX], type[64], super[1024];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    sscanf(dash, " - %63s %*s %1023s", type, super) != 2 || !streq(root, "/"))
			continue;
		if (v2 ? !streq(type, "cgroup2") : !streq(type, "cgroup"))
			continue;
		if (!v2) {
			/* Every controller of ours is among the super options. */
			_cleanup_free_ char *want = strdup(controllers);
			char *save = NULL, *c;
			bool all = want != NULL;

			char opts[1100];

			snprintf(opts, sizeof(opts), ",%s,", super);
			for (c = want ? strtok_r(want, ",", &save) : NULL; c;
			     c = strtok_r(NULL, ",", &save)) {
				char opt[128];

				snprintf(opt, sizeof(opt), ",%s,", c);
				if (!strstr(opts, opt))
					all = false;
			}
			if (!all)
				continue;
		}
		/* Octal escapes (\040) in a mount point: not a place we use. */
		if (strchr(point, '\\'))
			continue;
		snprintf(mnt, size, "%s", point);
		return true;
	}
	return false;
}

/*
 * Into the root cgroup of every hierarchy, v2 and each v1: the helper
 * serves the whole machine, and any cgroup below the root is one a user
 * can act on. A delegated one (systemd chowns a user's subtree to the
 * user) the user kills or freezes itself; a root-owned session scope
 * (session-N.scope) through logind, whose KillSession lets a session's
 * owner signal every process of its scope without authorization, or
 * through its memory limit, whose OOM killer picks the largest process
 * there (eighth review). The caller's end still ends the lease (the
 * caller's pidfd).
 */
int helper_leave_cgroups(char **why)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 256];

	*why = NULL;
	if (!f)
		return 0; /* a kernel without cgroups */
	while (fgets(line, sizeof(line), f)) {
		char *controllers, *path, *nl, mnt[PATH_MAX], procs[PATH_MAX + 32];
		_cleanup_close_ int fd = -1;

		controllers = strchr(line, ':');
		path = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!path)
			continue;
		*controllers++ = '\0';
		*path++ = '\0';
		nl = strchr(path, '\n');
		if (nl)
			*nl = '\0';
		/* A hierarchy mounted nowhere can be written by nobody. */
		if (streq(path, "/") || !find_mount(controllers, mnt, sizeof(mnt)))
			continue;
		/*
		 * The hierarchy's root is root's and takes any process (cgroup
		 * v2's rule against processes in inner cgroups exempts it).
		 * Writing 0 moves the writer.
		 */
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", mnt);
		fd = open(procs, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || write(fd, "0\n", 2) != 2) {
			int e = errno;

			return say(why, -e, "cannot leave the cgroup %s%s, where its user may have "
				   "it killed or frozen: %s", mnt, path, strerror(e));
		}
	}
	return 0;
}
