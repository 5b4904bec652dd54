/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The probe: a child named slctl-probe split-locks (or asks the injection
 * hook to act as if it had), the parent watches how it fares.
 *
 * The child reports every step on a pipe, so that the parent knows how far
 * it got when the kernel kills it; a SIGBUS handler tells the signal's code,
 * which waitid() does not. The costs and the stall are measured only where
 * split locks are not trapped: elsewhere they would measure the penalty and
 * the kernel log would fill with the probe. Everything the child does with
 * split locks is bounded in time (see the budgets below), because each one
 * stalls the whole machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "core/internal.h"
#include "probe/probe.h"

#define INJECT_PATH "/sys/kernel/debug/split_lock/inject"
/* The child's own limit (alarm), and the parent's, a little longer. */
#define CHILD_TIMEOUT_S 10
#define PARENT_TIMEOUT_NS (12 * 1000000000ull)
/* Room for the misery penalty's re-enable work (2 jiffies) between traps. */
#define ATTEMPT_GAP_NS (30 * 1000000ull)
/* Time spent in locked adds for each cost. */
#define COST_BUDGET_NS (40 * 1000000ull)
/* The stall: rounds of a window alone and a window under split locks. */
#define STALL_ROUNDS 5
#define STALL_WINDOW_NS (20 * 1000000ull)
#define STALL_BUFFER (8u << 20)
/* Records of the probe's child older than its start, within clock skew. */
#define LOG_SLACK_USEC (10 * 1000000ull)


enum msg_type {
	MSG_BASELINE = 1, /* a: ns of an aligned locked add timed alone */
	MSG_ATTEMPT,      /* index, a: ns the attempt took */
	MSG_ATTEMPTS_DONE,
	MSG_SIGBUS,       /* index: the signal's si_code */
	MSG_COSTS,        /* a: split-locked ns, b: aligned ns */
	MSG_LOCKING,      /* split-locking for the stall now */
	MSG_STALL_DONE,
	MSG_ERROR,        /* index: errno */
};

struct msg {
	int type;
	int index;
	double a, b;
};

/* Shared with the child: the stall window's end. */
struct shared {
	int stop;
};

static int sigbus_fd = -1;

/* ---- the child ------------------------------------------------------------ */

static void send_msg(int fd, int type, int index, double a, double b)
{
	struct msg m = { .type = type, .index = index, .a = a, .b = b };

	/* Pipe writes of this size are atomic; a failure means no reader. */
	if (write(fd, &m, sizeof(m)) != sizeof(m))
		_exit(1);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct msg m = { .type = MSG_SIGBUS, .index = si->si_code };

	(void)uc;
	if (write(sigbus_fd, &m, sizeof(m)) < 0) {
		/* Dying of the signal below says enough. */
	}
	/* SA_RESETHAND restored the default: die of it, for waitid(). */
	raise(sig);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t time_one_aligned(void *addr)
{
	uint64_t best = UINT64_MAX;

	/* The fastest of a few: the clock's own cost, as an attempt sees it. */
	for (int i = 0; i < 9; i++) {
		uint64_t t = sl_now_ns();

		sl_locked_add(addr);
		t = sl_now_ns() - t;
		if (t < best)
			best = t;
	}
	return best;
}

static void stall_round(int res_fd, char *split, struct shared *sh)
{
	uint64_t start = sl_now_ns();

	send_msg(res_fd, MSG_LOCKING, 0, 0, 0);
	/* Bounded even if the parent never says stop. */
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE) &&
	       sl_now_ns() - start < 3 * STALL_WINDOW_NS)
		for (int i = 0; i < 16; i++)
			sl_locked_add(split);
	send_msg(res_fd, MSG_STALL_DONE, 0, 0, 0);
}

/* Only async-signal-safe calls: the caller may have threads. */
static _Noreturn void child_main(int cmd_fd, int res_fd, int inject_fd,
				 const char *kind, unsigned cpu,
				 struct shared *sh)
{
	_Alignas(128) static char area[256];
	char *split = area + 62, *aligned = area + 128;
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER };
	cpu_set_t set;
	char cmd;

	prctl(PR_SET_NAME, SPLITLOCK_PROBE_COMM);
	/* Never outlive the parent, never run past the timeout. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(CHILD_TIMEOUT_S);
	sigbus_fd = res_fd;
	sigaction(SIGBUS, &sa, NULL);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		send_msg(res_fd, MSG_ERROR, errno, 0, 0);
		_exit(1);
	}

	send_msg(res_fd, MSG_BASELINE, 0, (double)time_one_aligned(aligned), 0);
	for (int i = 0; i < SL_PROBE_ATTEMPTS; i++) {
		uint64_t t;

		if (i)
			sleep_ns(ATTEMPT_GAP_NS);
		t = sl_now_ns();
		if (inject_fd >= 0) {
			if (write(inject_fd, kind, strlen(kind)) < 0) {
				send_msg(res_fd, MSG_ERROR, errno, 0, 0);
				_exit(1);
			}
		} else {
			sl_locked_add(split);
		}
		t = sl_now_ns() - t;
		send_msg(res_fd, MSG_ATTEMPT, i, (double)t, 0);
	}
	send_msg(res_fd, MSG_ATTEMPTS_DONE, 0, 0, 0);

	while (read(cmd_fd, &cmd, 1) == 1) {
		if (cmd == 'c') {
			double a = sl_lock_cost_ns(aligned, COST_BUDGET_NS);
			double s = sl_lock_cost_ns(split, COST_BUDGET_NS);

			send_msg(res_fd, MSG_COSTS, 0, s, a);
		} else if (cmd == 's') {
			stall_round(res_fd, split, sh);
		} else {
			break;
		}
	}
	_exit(0);
}

/* ---- the parent ----------------------------------------------------------- */

struct run {
	struct splitlock_ctx *ctx;
	pid_t pid;
	int cmd_fd, res_fd;
	uint64_t deadline;
	struct shared *sh;
	struct sl_probe_obs obs;
	bool attempts_done;
	int sigbus_code;
	uint64_t start_usec;
};

/* The next message; 0 at end of file, -ETIME past the deadline. */
static int read_msg(struct run *run, struct msg *m)
{
	for (;;) {
		uint64_t now = sl_now_ns();
		struct pollfd p = { .fd = run->res_fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (now >= run->deadline)
			return -ETIME;
		r = poll(&p, 1, (int)((run->deadline - now) / 1000000 + 1));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			continue;
		n = read(run->res_fd, m, sizeof(*m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (n != sizeof(*m))
			return -EIO;
		if (m->type == MSG_SIGBUS) {
			run->sigbus_code = m->index;
			continue;
		}
		if (m->type == MSG_ERROR)
			return m->index > 0 ? -m->index : -EIO;
		return 1;
	}
}

/* Read until a message of @type; 0 when the child ended before it. */
static int expect_msg(struct run *run, int type, struct msg *m)
{
	int r;

	while ((r = read_msg(run, m)) > 0 && m->type != type)
		;
	return r;
}

static int read_attempts(struct run *run)
{
	struct msg m;
	int r;

	while ((r = read_msg(run, &m)) > 0) {
		if (m.type == MSG_BASELINE) {
			run->obs.baseline_ns = (uint64_t)m.a;
		} else if (m.type == MSG_ATTEMPT && m.index >= 0 &&
			   m.index < SL_PROBE_ATTEMPTS) {
			run->obs.attempt_ns[m.index] = (uint64_t)m.a;
			run->obs.attempts = (unsigned)m.index + 1;
		} else if (m.type == MSG_ATTEMPTS_DONE) {
			run->attempts_done = true;
			return 0;
		}
	}
	return r;
}

static int count_log_line(const struct splitlock_kmsg_record *rec, void *data)
{
	struct run *run = data;
	struct splitlock_event ev;

	if (rec->facility != 0 || rec->usec + LOG_SLACK_USEC < run->start_usec)
		return 0;
	if (splitlock_detector_line_parse(rec->message, rec->message_len, &ev) !=
	    SPLITLOCK_LINE_EVENT)
		return 0;
	if (ev.pid != (uint32_t)run->pid ||
	    ev.comm_len != strlen(SPLITLOCK_PROBE_COMM) ||
	    memcmp(ev.comm, SPLITLOCK_PROBE_COMM, ev.comm_len) != 0)
		return 0;
	run->obs.logged++;
	run->obs.logged_kind = ev.kind;
	return 0;
}

/* Reap the child; -ETIME/-EIO when it died of something else than the probe. */
static int reap(struct run *run, bool kill_it)
{
	siginfo_t si = { 0 };

	if (kill_it)
		kill(run->pid, SIGKILL);
	while (waitid(P_PID, (id_t)run->pid, &si, WEXITED) < 0)
		if (errno != EINTR)
			return -errno;
	run->pid = 0;
	if (si.si_code == CLD_EXITED)
		return si.si_status == 0 ? 0 : -EIO;
	if (si.si_status == SIGBUS && run->sigbus_code == BUS_ADRALN &&
	    !run->attempts_done) {
		run->obs.sigbus = true;
		return 0;
	}
	if (si.si_status == SIGALRM)
		return -ETIME;
	return kill_it ? -ETIME : -EIO;
}

struct stall_job {
	struct run *run;
	unsigned cpu;
	int r;
	double percent;
};

static void *stall_main(void *arg)
{
	struct stall_job *job = arg;
	struct run *run = job->run;
	double alone[STALL_ROUNDS], locked[STALL_ROUNDS];
	_cleanup_free_ char *buf = malloc(STALL_BUFFER);
	cpu_set_t set;
	struct msg m;

	CPU_ZERO(&set);
	CPU_SET(job->cpu, &set);
	job->r = -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (job->r < 0)
		return NULL;
	if (!buf) {
		job->r = -ENOMEM;
		return NULL;
	}
	memset(buf, 1, STALL_BUFFER);
	for (int i = 0; i < STALL_ROUNDS; i++) {
		alone[i] = sl_memory_throughput(buf, STALL_BUFFER, STALL_WINDOW_NS);
		__atomic_store_n(&run->sh->stop, 0, __ATOMIC_RELEASE);
		if (write(run->cmd_fd, "s", 1) != 1) {
			job->r = -EPIPE;
			return NULL;
		}
		if ((job->r = expect_msg(run, MSG_LOCKING, &m)) <= 0)
			goto ended;
		locked[i] = sl_memory_throughput(buf, STALL_BUFFER, STALL_WINDOW_NS);
		__atomic_store_n(&run->sh->stop, 1, __ATOMIC_RELEASE);
		if ((job->r = expect_msg(run, MSG_STALL_DONE, &m)) <= 0)
			goto ended;
	}
	job->r = 0;
	job->percent = 100.0 * (1.0 - sl_median(locked, STALL_ROUNDS) /
				      sl_median(alone, STALL_ROUNDS));
	return NULL;
ended:
	if (job->r == 0)
		job->r = -EIO;
	return NULL;
}

static int measure(struct run *run, struct splitlock_probe *p, int other_cpu)
{
	struct stall_job job = { .run = run, .cpu = (unsigned)other_cpu };
	pthread_t thread;
	struct msg m;
	int r;

	if (write(run->cmd_fd, "c", 1) != 1)
		return -EPIPE;
	r = expect_msg(run, MSG_COSTS, &m);
	if (r <= 0)
		return r ? r : -EIO;
	p->split_ns = m.a;
	p->aligned_ns = m.b;
	p->has_split_ns = p->has_aligned_ns = true;
	if (other_cpu < 0)
		return 0;
	r = -pthread_create(&thread, NULL, stall_main, &job);
	if (r < 0)
		return r;
	pthread_join(thread, NULL);
	if (job.r < 0)
		return job.r;
	p->stall_percent = job.percent;
	p->has_stall = true;
	return 0;
}

/* The first CPU we may run on for the child, another for the neighbour. */
static int pick_cpus(unsigned *child, int *other)
{
	cpu_set_t set;
	bool found = false;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	*other = -1;
	for (unsigned c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (!found) {
			*child = c;
			found = true;
		} else {
			*other = (int)c;
			break;
		}
	}
	return found ? 0 : -ENODEV;
}

static int open_inject(struct splitlock_ctx *ctx, unsigned flags,
		       const char **kind)
{
	int fd;

	if (!flags)
		return -1;
	*kind = flags & SPLITLOCK_PROBE_SIMULATE_DB ? "db" : "ac";
	fd = sl_open(ctx, INJECT_PATH, O_WRONLY, 0);
	if (fd == -ENOENT || fd == -ENOTDIR) {
		sl_info(ctx, "%s does not exist: the kernel has no split lock injection hook",
			INJECT_PATH);
		return -EOPNOTSUPP;
	}
	return fd;
}

static int run_child(struct run *run, struct splitlock_probe *p,
		     int inject_fd, const char *kind, int other_cpu)
{
	int cmd[2] = { -1, -1 }, res[2] = { -1, -1 };
	struct sl_probe_verdict *v = &p->verdict;
	int r, kmsg;
	bool measurable;

	if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(res, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	run->start_usec = sl_now_ns() / 1000;
	run->deadline = sl_now_ns() + PARENT_TIMEOUT_NS;
	run->pid = fork();
	if (run->pid < 0) {
		r = -errno;
		run->pid = 0;
		goto out;
	}
	if (run->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		child_main(cmd[0], res[1], inject_fd, kind, p->cpu, run->sh);
	}
	close(cmd[0]);
	close(res[1]);
	cmd[0] = res[1] = -1;
	run->cmd_fd = cmd[1];
	run->res_fd = res[0];

	r = read_attempts(run);
	if (r < 0)
		goto out;
	if (!run->attempts_done) {
		r = reap(run, false);
		if (r < 0)
			goto out;
	}

	kmsg = splitlock_kmsg_foreach(run->ctx, count_log_line, run);
	p->complete = kmsg >= 0;
	if (kmsg < 0)
		sl_info(run->ctx, "cannot read the kernel log (%s): a warning for the probe would go unseen",
			strerror(-kmsg));
	sl_probe_classify(&run->obs, v);

	/* Real split locks must not trap, or the costs would be the penalty. */
	measurable = run->attempts_done && v->action == SPLITLOCK_PROBE_NONE &&
		     (!p->simulated ||
		      !(run->obs.cpu_features & (SPLITLOCK_CPU_SPLIT_LOCK_DETECT |
						 SPLITLOCK_CPU_BUS_LOCK_DETECT)));
	if (measurable) {
		r = measure(run, p, other_cpu);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	if (cmd[1] >= 0 && write(cmd[1], "q", 1) < 0) {
		/* The child is gone already; reap() says how. */
	}
	if (run->pid > 0) {
		int k = reap(run, r < 0);

		if (r >= 0)
			r = k;
	}
	for (int i = 0; i < 2; i++) {
		if (cmd[i] >= 0)
			close(cmd[i]);
		if (res[i] >= 0)
			close(res[i]);
	}
	return r;
}

/* What decides whether this kernel delays a trap, read before the child runs. */
static void kernel_policy(struct splitlock_ctx *ctx, struct sl_probe_obs *obs)
{
	struct splitlock_mode_info *info = NULL;

	obs->mode = SPLITLOCK_MODE_UNKNOWN;
	if (splitlock_mode_info_read(ctx, &info) == 0) {
		obs->mode = splitlock_mode_info_get_mode(info);
		splitlock_mode_info_free(info);
	}
	if (splitlock_mitigate_get(ctx, &obs->mitigate) < 0)
		obs->mitigate = -1;
	obs->before_misery = sl_release_before(ctx, 5, 19);
	/* The child inherits the caller's mark (slctl run -- slctl probe). */
	obs->exempt = splitlock_exempt_get(ctx, (uint32_t)getpid()) == 1;
}

_public_ int splitlock_probe_run(struct splitlock_ctx *ctx, unsigned flags,
				 struct splitlock_probe **out)
{
	const unsigned simulate = SPLITLOCK_PROBE_SIMULATE_AC |
				  SPLITLOCK_PROBE_SIMULATE_DB;
	_cleanup_close_ int inject_fd = -1;
	struct run run = { .ctx = ctx, .cmd_fd = -1, .res_fd = -1 };
	/* On the stack until the child is gone: it must not inherit our heap. */
	struct splitlock_probe report = { .simulated = flags != 0 }, *p;
	const char *kind = NULL;
	int other_cpu = -1, r;

	*out = NULL;
	if ((flags & ~simulate) || (flags & simulate) == simulate)
		return -EINVAL;
	inject_fd = open_inject(ctx, flags, &kind);
	if (flags && inject_fd < 0)
		return inject_fd;

	run.obs.simulated = report.simulated;
	run.obs.simulated_kind = flags & SPLITLOCK_PROBE_SIMULATE_DB ?
				 SPLITLOCK_KIND_BUS_LOCK : SPLITLOCK_KIND_SPLIT_LOCK;
	if (splitlock_cpu_features(ctx, &run.obs.cpu_features) < 0)
		run.obs.cpu_features = 0;
	kernel_policy(ctx, &run.obs);
	r = pick_cpus(&report.cpu, &other_cpu);
	if (r < 0)
		return r;
	run.sh = mmap(NULL, sizeof(*run.sh), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run.sh == MAP_FAILED)
		return -errno;
	r = run_child(&run, &report, inject_fd, kind, other_cpu);
	munmap(run.sh, sizeof(*run.sh));
	if (r < 0)
		return r;
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = report;
	*out = p;
	return 0;
}
