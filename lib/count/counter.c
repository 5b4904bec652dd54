/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exact counts of split locks and bus locks of one process tree.
 *
 * Every source here is a perf event opened on the tree's first process
 * before it execs, with inherit set, so that the kernel itself counts each
 * task the program starts and folds a task's count into its parent's when
 * it exits: nothing is sampled, nothing is polled, and a task that lives
 * for a microsecond is counted like any other.
 *
 *  - PMU: the core event that counts split locks or bus locks on this CPU
 *    (pmu-events.c), user space only, pinned: an event the kernel could not
 *    keep on a counter reads as an error rather than as a scaled estimate.
 *    It counts whether or not anything traps: detection off, AMD without
 *    #AC, misery on or off.
 *  - Trace: the patched kernel's split_lock:split_lock_trap tracepoint
 *    (kernel-patch/), one event per trap kind through a filter on its
 *    "kind" field; every trap the kernel handles, rate limited warning or
 *    not. A guest's #AC (kind guest_ac) is the guest's, not the tree's.
 *
 * A stock kernel's trap handlers through eBPF and the kernel log (a lower
 * bound) are the remaining sources of the design; this version names them
 * in its reason and does not use them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"
#include "message.h"
#include "pmu-events.h"
#include "tasks.h"

struct splitlock_count {
	enum splitlock_count_source source;
	int refusal;
	char *reason;
	const struct sl_pmu_event *event;  /* SPLITLOCK_COUNT_PMU */
	uint64_t tracepoint;                /* SPLITLOCK_COUNT_TRACE: its id */
	int fd[2];                          /* by enum splitlock_kind; -1 */
	bool exact;                         /* every event, not every trap */
	bool attached;
	unsigned flags;
	struct sl_count_tasks *tasks;       /* SPLITLOCK_COUNT_TASKS, once attached */
	int tasks_error;                    /* why there are none */
};

static const char *const source_names[] = {
	[SPLITLOCK_COUNT_PMU] = "pmu",
	[SPLITLOCK_COUNT_KERNEL] = "kernel",
	[SPLITLOCK_COUNT_TRACE] = "trace",
	[SPLITLOCK_COUNT_BPF] = "bpf",
	[SPLITLOCK_COUNT_LOG] = "log",
};

_public_ const char *splitlock_count_source_name(enum splitlock_count_source source)
{
	if ((unsigned)source >= ARRAY_SIZE(source_names))
		return NULL;
	return source_names[source];
}

static int perf_event_open(struct perf_event_attr *attr, pid_t pid)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* The attributes of @counter's event for @kind, counting from exec on. */
static void event_attr(const struct splitlock_count *counter, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->enable_on_exec = 1;
	attr->inherit = 1;
	/* Enabled 0: never exec'd; running < enabled: not counted throughout
	 * (a pinned event of a task the PMU had no counter for). Summed over
	 * the inherited events, the children's too. */
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (counter->source == SPLITLOCK_COUNT_PMU) {
		attr->type = PERF_TYPE_RAW;
		attr->config = counter->event->config;
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		/* A KVM guest's locks are the guest's, as the tracepoint's
		 * guest_ac traps are (not counted either). */
		attr->exclude_guest = 1;
		attr->pinned = 1;
	} else {
		/* A tracepoint fires in the kernel: excluding it counts nothing. */
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = counter->tracepoint;
	}
}

/* The filter that keeps one kind of trap (the tracepoint's enum). */
static const char *const trace_filters[] = {
	[SPLITLOCK_KIND_SPLIT_LOCK] = "kind == 0",
	[SPLITLOCK_KIND_BUS_LOCK] = "kind == 1",
};

/* Open @counter's events on @pid (0: this process, a trial); fd[] set. */
static int open_events(struct splitlock_count *counter, pid_t pid)
{
	struct perf_event_attr attr;
	int fd;

	event_attr(counter, &attr);
	if (counter->source == SPLITLOCK_COUNT_PMU) {
		fd = perf_event_open(&attr, pid);
		if (fd < 0)
			return fd;
		counter->fd[counter->event->kind] = fd;
		return 0;
	}
	for (size_t k = 0; k < ARRAY_SIZE(trace_filters); k++) {
		fd = perf_event_open(&attr, pid);
		if (fd < 0)
			return fd;
		counter->fd[k] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, trace_filters[k]) < 0)
			return -errno;
	}
	return 0;
}

static void close_events(struct splitlock_count *counter)
{
	for (size_t k = 0; k < ARRAY_SIZE(counter->fd); k++) {
		if (counter->fd[k] >= 0)
			close(counter->fd[k]);
		counter->fd[k] = -1;
	}
}

static const char *paranoid_text(struct splitlock_ctx *ctx, char *buf, size_t size)
{
	if (sl_read_line(ctx, "/proc/sys/kernel/perf_event_paranoid", buf, size) < 0)
		return "unknown";
	return buf;
}

/* Why the kernel refused a trial event, as a clause. */
static int refusal_clause(struct splitlock_ctx *ctx, int err, char **why, const char *what)
{
	char paranoid[16];

	if (err == -EACCES)
		return message_set(why, "%s needs CAP_PERFMON or a lower "
				   "kernel.perf_event_paranoid (it is %s)", what,
				   paranoid_text(ctx, paranoid, sizeof(paranoid)));
	/* EPERM is also what a container's seccomp filter answers. */
	if (err == -EPERM)
		return message_set(why, "%s was refused (EPERM: CAP_PERFMON or a lower "
				   "kernel.perf_event_paranoid, it is %s, or a container's "
				   "seccomp filter)", what,
				   paranoid_text(ctx, paranoid, sizeof(paranoid)));
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		return message_set(why, "%s cannot be counted here (%s)", what,
				   strerror(-err));
	return message_set(why, "the kernel refused %s: %s", what, strerror(-err));
}

/* Try @counter's source on this process; 0 when it opens. */
static int trial(struct splitlock_ctx *ctx, struct splitlock_count *counter,
		 const char *what, char **why, int *worst)
{
	int r = open_events(counter, 0);

	close_events(counter);
	if (r == 0)
		return 0;
	if (r == -EACCES || r == -EPERM)
		*worst = -EACCES;
	if (refusal_clause(ctx, r, why, what) < 0)
		return -ENOMEM;
	return r;
}

/*
 * The first 64 KiB of @path, NUL-terminated: the first processor's block
 * of /proc/cpuinfo, whatever the number of CPUs after it.
 */
static int read_head(struct splitlock_ctx *ctx, const char *path, char **out)
{
	enum { HEAD = 64 * 1024 };
	_cleanup_close_ int fd = sl_open_regular(ctx, path, false);
	_cleanup_free_ char *buf = NULL;
	size_t used = 0;

	if (fd < 0)
		return fd;
	buf = malloc(HEAD + 1);
	if (!buf)
		return -ENOMEM;
	while (used < HEAD) {
		ssize_t n = read(fd, buf + used, HEAD - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	*out = buf;
	buf = NULL;
	return 0;
}

static int pmu_choose(struct splitlock_ctx *ctx, struct splitlock_count *counter,
		      char **why, int *worst)
{
	_cleanup_free_ char *text = NULL, *what = NULL;
	struct sl_cpu_id cpu;
	int r;

	r = read_head(ctx, "/proc/cpuinfo", &text);
	if (r < 0)
		return message_set(why, "/proc/cpuinfo cannot be read (%s)", strerror(-r)) < 0 ?
			-ENOMEM : r;
	sl_cpu_id_parse(text, &cpu);
	if (!cpu.known)
		return message_set(why, "/proc/cpuinfo names no vendor, family and model") < 0 ?
			-ENOMEM : -ENODATA;
	counter->event = sl_pmu_event_for(&cpu);
	if (!counter->event)
		return message_set(why, "no PMU event of this table counts split locks on %s "
				   "family 0x%x model 0x%x", cpu.vendor, cpu.family,
				   cpu.model) < 0 ? -ENOMEM : -ENOENT;
	counter->source = SPLITLOCK_COUNT_PMU;
	if (asprintf(&what, "the PMU event %s", counter->event->name) < 0)
		return -ENOMEM;
	r = trial(ctx, counter, what, why, worst);
	if (r < 0)
		counter->source = 0;
	return r;
}

/* Is @word one of the space-separated words of @list? */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
			return true;
	return false;
}

static int trace_choose(struct splitlock_ctx *ctx, struct splitlock_count *counter,
			char **why, int *worst)
{
	static const char *const ids[] = {
		"/sys/kernel/tracing/events/split_lock/split_lock_trap/id",
		"/sys/kernel/debug/tracing/events/split_lock/split_lock_trap/id",
	};
	char line[32], mode[32], features[64], *end;
	unsigned long long id;
	int r = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(ids) && r < 0; i++)
		r = sl_read_line(ctx, ids[i], line, sizeof(line));
	if (r < 0) {
		bool patched = sl_read_line(ctx, "/sys/kernel/split_lock/mode", line,
					    sizeof(line)) >= 0;

		return message_set(why, patched ?
				   "the tracepoint split_lock:split_lock_trap cannot be read: "
				   "tracefs is not mounted at /sys/kernel/tracing" :
				   "this kernel has no split_lock:split_lock_trap tracepoint "
				   "(the patched kernel's)") < 0 ? -ENOMEM : -ENOENT;
	}
	errno = 0;
	id = strtoull(line, &end, 10);
	if (errno || end == line || *end)
		return message_set(why, "the tracepoint's id is not a number") < 0 ?
			-ENOMEM : -EBADMSG;
	/*
	 * The tracepoint counts traps: nothing where detection is off, and in
	 * warn mode fewer traps than split locks (#AC rests on a core after
	 * each one). seq, ratelimit (#DB) and fatal trap every one, and so
	 * does warn where the kernel uses #DB alone.
	 */
	if (sl_read_line(ctx, "/sys/kernel/split_lock/mode", mode, sizeof(mode)) < 0)
		mode[0] = '\0';
	if (sl_read_line(ctx, "/sys/kernel/split_lock/features", features, sizeof(features)) < 0)
		features[0] = '\0';
	if (streq(mode, "off"))
		return message_set(why, "the kernel's detection is off, so nothing traps and its "
				   "tracepoint split_lock:split_lock_trap would count nothing") < 0 ?
			-ENOMEM : -EOPNOTSUPP;
	counter->exact = streq(mode, "seq") || streq(mode, "fatal") ||
			 strncmp(mode, "ratelimit:", 10) == 0 ||
			 (streq(mode, "warn") && has_word(features, "db") && !has_word(features, "ac"));
	counter->tracepoint = id;
	counter->source = SPLITLOCK_COUNT_TRACE;
	r = trial(ctx, counter, "the tracepoint split_lock:split_lock_trap", why, worst);
	if (r < 0)
		counter->source = 0;
	return r;
}

_public_ int splitlock_count_new(struct splitlock_ctx *ctx, unsigned flags,
				   struct splitlock_count **out)
{
	_cleanup_(splitlock_count_freep) struct splitlock_count *counter = NULL;
	_cleanup_free_ char *pmu = NULL, *trace = NULL;
	int worst = -EOPNOTSUPP;

	*out = NULL;
	if (flags & ~SPLITLOCK_COUNT_TASKS)
		return -EINVAL;
	counter = calloc(1, sizeof(*counter));
	if (!counter)
		return -ENOMEM;
	counter->fd[0] = counter->fd[1] = -1;
	counter->flags = flags;
	counter->tasks_error = -ENOTCONN;

	if (pmu_choose(ctx, counter, &pmu, &worst) == 0) {
		counter->exact = true;
		if (message_set(&counter->reason, "counted by the PMU event %s, whether or "
				"not anything traps", counter->event->name) < 0)
			return -ENOMEM;
	} else if (trace_choose(ctx, counter, &trace, &worst) == 0) {
		if (message_set(&counter->reason, counter->exact ?
				"counted by the kernel's tracepoint split_lock:split_lock_trap, "
				"which this mode fires for every split lock and bus lock" :
				"counted by the kernel's tracepoint split_lock:split_lock_trap, a "
				"lower bound: in warn mode a core rests from #AC after each trap") < 0)
			return -ENOMEM;
	} else {
		if (!pmu || !trace)
			return -ENOMEM;
		counter->refusal = worst;
		if (message_set(&counter->reason, "nothing here can count split locks: %s; %s; "
				"and this version does not count through eBPF or the kernel "
				"log", pmu, trace) < 0)
			return -ENOMEM;
	}
	*out = counter;
	counter = NULL;
	return 0;
}

_public_ struct splitlock_count *splitlock_count_free(struct splitlock_count *counter)
{
	if (!counter)
		return NULL;
	close_events(counter);
	sl_count_tasks_free(counter->tasks);
	free(counter->reason);
	free(counter);
	return NULL;
}

_public_ enum splitlock_count_source
splitlock_count_get_source(const struct splitlock_count *counter)
{
	return counter->source;
}

_public_ int splitlock_count_get_refusal(const struct splitlock_count *counter)
{
	return counter->refusal;
}

_public_ const char *splitlock_count_get_reason(const struct splitlock_count *counter)
{
	return counter->reason;
}

_public_ bool splitlock_count_is_exact(const struct splitlock_count *counter)
{
	return counter->source && counter->exact;
}

_public_ int splitlock_count_attach(struct splitlock_count *counter, uint32_t pid)
{
	int r;

	if (!counter->source)
		return -EOPNOTSUPP;
	if (counter->attached)
		return -EBUSY;
	if (pid == 0 || pid > INT32_MAX)
		return -EINVAL;
	r = open_events(counter, (pid_t)pid);
	if (r < 0) {
		close_events(counter);
		return r;
	}
	counter->attached = true;
	if (!(counter->flags & SPLITLOCK_COUNT_TASKS)) {
		counter->tasks_error = -ENODATA;
	} else if (counter->source != SPLITLOCK_COUNT_TRACE) {
		/* A PMU sample per split lock is an interrupt per split lock. */
		counter->tasks_error = -EOPNOTSUPP;
	} else {
		struct perf_event_attr attr;

		event_attr(counter, &attr);
		/* Sampling a tracepoint's user registers is allowed wherever
		 * counting it is; a kernel that says no leaves the totals. */
		counter->tasks_error = sl_count_tasks_open(&attr, trace_filters, (pid_t)pid,
							   &counter->tasks);
	}
	return 0;
}

_public_ int splitlock_count_get_fd(const struct splitlock_count *counter)
{
	return counter->tasks ? sl_count_tasks_fd(counter->tasks) : -ENODATA;
}

_public_ int splitlock_count_drain(struct splitlock_count *counter)
{
	return counter->tasks ? sl_count_tasks_drain(counter->tasks) : 0;
}

_public_ int splitlock_count_get_tasks(const struct splitlock_count *counter, size_t *n,
				       uint64_t *lost)
{
	*n = 0;
	if (lost)
		*lost = 0;
	if (!counter->tasks)
		return counter->tasks_error;
	*n = sl_count_tasks_count(counter->tasks);
	if (lost)
		*lost = sl_count_tasks_lost(counter->tasks);
	return 0;
}

_public_ int splitlock_count_get_task(const struct splitlock_count *counter, size_t index,
				      uint32_t *pid, const char **comm, uint64_t *split_locks,
				      uint64_t *bus_locks)
{
	const struct sl_count_task *task;

	task = counter->tasks ? sl_count_tasks_get(counter->tasks, index) : NULL;
	if (!task)
		return -ERANGE;
	if (pid)
		*pid = task->tid;
	if (comm)
		*comm = task->comm[0] ? task->comm : NULL;
	if (split_locks)
		*split_locks = task->n[SPLITLOCK_KIND_SPLIT_LOCK];
	if (bus_locks)
		*bus_locks = task->n[SPLITLOCK_KIND_BUS_LOCK];
	return 0;
}

_public_ int splitlock_count_get_task_ips(const struct splitlock_count *counter, size_t index,
					  const uint64_t **ips, size_t *n, bool *all)
{
	const struct sl_count_task *task;

	*ips = NULL;
	*n = 0;
	task = counter->tasks ? sl_count_tasks_get(counter->tasks, index) : NULL;
	if (!task)
		return -ERANGE;
	*ips = task->ips;
	*n = task->nips;
	if (all)
		*all = !task->ips_dropped;
	return 0;
}

_public_ int splitlock_count_read(const struct splitlock_count *counter,
				    enum splitlock_kind kind, uint64_t *count)
{
	struct { uint64_t value, enabled, running; } v;
	ssize_t n;

	*count = 0;
	if ((unsigned)kind >= ARRAY_SIZE(counter->fd))
		return -EINVAL;
	if (!counter->attached)
		return -ENOTCONN;
	if (counter->fd[kind] < 0)
		return -ENODATA;
	/* A pinned event the kernel could not keep scheduled reads as EOF. */
	n = read(counter->fd[kind], &v, sizeof(v));
	if (n < 0)
		return -errno;
	if (n != sizeof(v))
		return -EIO;
	/* Never enabled: the process never exec'd after the attach (or had
	 * before it), and 0 would pass for a count. */
	if (v.enabled == 0)
		return -ENOEXEC;
	/* Off its counter for a while, in this task or a child: short. */
	if (v.running < v.enabled)
		return -EIO;
	*count = v.value;
	return 0;
}
