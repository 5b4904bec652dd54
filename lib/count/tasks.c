/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which task of the tree took each trap, and where.
 *
 * The totals come from counting events (counter.c), which are exact and
 * need no buffer. Per-task counts need a record per trap: a sampling event
 * (period 1) per kind that records the task (PERF_SAMPLE_TID), the
 * original event it was inherited from (PERF_SAMPLE_ID, which names the
 * first parent of an inherited event, where STREAM_ID names the event
 * itself: which kind)
 * and the user-space instruction pointer at the trap (PERF_SAMPLE_REGS_USER,
 * IP only): the split lock instruction for an #AC, the one after it for a
 * #DB, as the kernel's warning prints them. The kernel refuses mmap() of an
 * inherited event that follows a task on every CPU ("all children writing
 * to the same rb"), so, as perf record does, there is one event per CPU,
 * each kind's records routed into one ring buffer per CPU
 * (PERF_EVENT_IOC_SET_OUTPUT). COMM and FORK records (on the split lock
 * event only, lest they come twice) name each thread as the kernel log
 * does: the name of its last exec, or its parent's.
 *
 * Records are read while the tree runs (the caller polls
 * sl_count_tasks_fd()); what a full buffer could not take is counted as
 * lost (PERF_RECORD_LOST) and makes the per-task view incomplete, never
 * the totals.
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"
#include "tasks.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define DATA_PAGES 16 /* a power of two: 64 KiB, ~1600 samples a CPU */
#define PERF_REG_X86_IP_BIT 8 /* arch/x86/include/uapi/asm/perf_regs.h */
/* sample_id_all's trailer of a non-sample record: TID, TIME, ID. */
#define SAMPLE_ID_SIZE 24

struct cpu_buffer {
	int fd[2];            /* by kind; fd[0] owns the mapping */
	uint64_t id[2];       /* PERF_EVENT_IOC_ID of each */
	void *base;           /* metadata page, then the data */
	size_t data_size;
};

struct sl_count_tasks {
	struct cpu_buffer *cpus;
	size_t ncpus;
	int epfd;
	struct sl_count_task *tasks;
	size_t ntasks, alloc;
	/* Every thread a COMM or FORK record told of: its own name, or its
	 * parent's thread, looked up once all buffers are read (records of
	 * different CPUs come in no order). */
	struct name { uint32_t tid, ptid; char comm[16]; bool named; uint64_t time; } *names;
	size_t nnames, names_alloc;
	uint64_t lost;
	char scratch[512];
};

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* The CPUs perf may put a task on: every possible one. */
static int possible_cpus(size_t *n)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	if (cpus < 1)
		return -EINVAL;
	*n = (size_t)cpus;
	return 0;
}

static int open_cpu(struct cpu_buffer *b, const struct perf_event_attr *count_attr,
		    const char *const filters[2], pid_t pid, int cpu)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int k = 0; k < 2; k++) {
		struct perf_event_attr attr = *count_attr;

		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				   PERF_SAMPLE_REGS_USER;
		/* COMM records carry the time too: the last exec names a
		 * task, whichever CPU's buffer is read first. */
		attr.sample_id_all = 1;
		attr.sample_regs_user = UINT64_C(1) << PERF_REG_X86_IP_BIT;
		attr.wakeup_events = 1;
		/* Names on one of the two events, or they come twice. */
		attr.comm = k == 0;
		attr.comm_exec = k == 0;
		attr.task = k == 0;
		b->fd[k] = perf_open(&attr, pid, cpu);
		if (b->fd[k] < 0)
			return b->fd[k];
		if (ioctl(b->fd[k], PERF_EVENT_IOC_SET_FILTER, filters[k]) < 0 ||
		    ioctl(b->fd[k], PERF_EVENT_IOC_ID, &b->id[k]) < 0)
			return -errno;
	}
	b->data_size = (size_t)page * DATA_PAGES;
	b->base = mmap(NULL, (size_t)page + b->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       b->fd[0], 0);
	if (b->base == MAP_FAILED) {
		b->base = NULL;
		return -errno;
	}
	if (ioctl(b->fd[1], PERF_EVENT_IOC_SET_OUTPUT, b->fd[0]) < 0)
		return -errno;
	return 0;
}

int sl_count_tasks_open(const struct perf_event_attr *attr, const char *const filters[2],
			pid_t pid, struct sl_count_tasks **out)
{
	struct sl_count_tasks *t;
	int r;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->epfd = -1;
	r = possible_cpus(&t->ncpus);
	if (r < 0)
		goto fail;
	t->cpus = calloc(t->ncpus, sizeof(*t->cpus));
	if (!t->cpus) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t c = 0; c < t->ncpus; c++)
		t->cpus[c].fd[0] = t->cpus[c].fd[1] = -1;
	/* A kernel without epoll (CONFIG_EPOLL=n) still samples; its buffers
	 * are read once the tree has ended, and what they could not hold is
	 * counted as lost. */
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	for (size_t c = 0; c < t->ncpus; c++) {
		struct epoll_event ev = { .events = EPOLLIN };

		r = open_cpu(&t->cpus[c], attr, filters, pid, (int)c);
		/* A possible CPU that is not present: no event there. */
		if (r == -ENODEV || r == -EINVAL) {
			if (t->cpus[c].fd[0] >= 0 && r == -EINVAL)
				goto fail;
			continue;
		}
		if (r < 0)
			goto fail;
		if (t->epfd >= 0 && epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->cpus[c].fd[0], &ev) < 0) {
			r = -errno;
			goto fail;
		}
	}
	*out = t;
	return 0;
fail:
	sl_count_tasks_free(t);
	return r;
}

void sl_count_tasks_free(struct sl_count_tasks *t)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!t)
		return;
	for (size_t c = 0; t->cpus && c < t->ncpus; c++) {
		struct cpu_buffer *b = &t->cpus[c];

		if (b->base)
			munmap(b->base, (size_t)page + b->data_size);
		for (int k = 0; k < 2; k++)
			if (b->fd[k] >= 0)
				close(b->fd[k]);
	}
	if (t->epfd >= 0)
		close(t->epfd);
	free(t->cpus);
	free(t->tasks);
	free(t->names);
	free(t);
}

int sl_count_tasks_fd(const struct sl_count_tasks *t)
{
	return t->epfd >= 0 ? t->epfd : -ENODATA;
}

/* The name table: a thread's comm, from COMM and FORK records. */
static struct name *name_entry(struct sl_count_tasks *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nnames; i++)
		if (t->names[i].tid == tid)
			return &t->names[i];
	if (t->nnames == t->names_alloc) {
		size_t n = t->names_alloc ? t->names_alloc * 2 : 16;
		void *p = reallocarray(t->names, n, sizeof(*t->names));

		if (!p)
			return NULL;
		t->names = p;
		t->names_alloc = n;
	}
	memset(&t->names[t->nnames], 0, sizeof(t->names[0]));
	t->names[t->nnames].tid = tid;
	return &t->names[t->nnames++];
}

/* @tid's name: its own, else its nearest named ancestor's; NULL. */
static const char *name_of(struct sl_count_tasks *t, uint32_t tid)
{
	/* Bounded: a loop of parent links cannot hold us. */
	for (size_t depth = 0; depth <= t->nnames; depth++) {
		struct name *n = NULL;

		for (size_t i = 0; i < t->nnames && !n; i++)
			if (t->names[i].tid == tid)
				n = &t->names[i];
		if (!n)
			return NULL;
		if (n->named)
			return n->comm;
		if (!n->ptid || n->ptid == tid)
			return NULL;
		tid = n->ptid;
	}
	return NULL;
}

static int set_name(struct sl_count_tasks *t, uint32_t tid, const char *comm, size_t len,
		    uint64_t time)
{
	struct name *n = name_entry(t, tid);

	if (!n)
		return -ENOMEM;
	/* An older exec's name, read after a newer one from another CPU. */
	if (n->named && time < n->time)
		return 0;
	n->time = time;
	memset(n->comm, 0, sizeof(n->comm));
	memcpy(n->comm, comm, MIN(len, sizeof(n->comm) - 1));
	n->named = true;
	return 0;
}

static int set_parent(struct sl_count_tasks *t, uint32_t tid, uint32_t ptid)
{
	struct name *n = name_entry(t, tid);

	if (!n)
		return -ENOMEM;
	n->ptid = ptid;
	return 0;
}

static struct sl_count_task *task_of(struct sl_count_tasks *t, uint32_t tid)
{
	for (size_t i = 0; i < t->ntasks; i++)
		if (t->tasks[i].tid == tid)
			return &t->tasks[i];
	if (t->ntasks == t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 16;
		void *p = reallocarray(t->tasks, n, sizeof(*t->tasks));

		if (!p)
			return NULL;
		t->tasks = p;
		t->alloc = n;
	}
	memset(&t->tasks[t->ntasks], 0, sizeof(t->tasks[0]));
	t->tasks[t->ntasks].tid = tid;
	return &t->tasks[t->ntasks++];
}

static int kind_of(const struct sl_count_tasks *t, uint64_t id)
{
	for (size_t c = 0; c < t->ncpus; c++)
		for (int k = 0; k < 2; k++)
			if (t->cpus[c].fd[k] >= 0 && t->cpus[c].id[k] == id)
				return k;
	return -1;
}

static int sample(struct sl_count_tasks *t, const unsigned char *p, size_t len)
{
	struct { uint32_t pid, tid; uint64_t time, id, abi; } s;
	struct sl_count_task *task;
	uint64_t ip = 0;
	int kind;

	if (len < sizeof(s))
		return 0;
	memcpy(&s, p, sizeof(s));
	if (s.abi != PERF_SAMPLE_REGS_ABI_NONE && len >= sizeof(s) + sizeof(ip))
		memcpy(&ip, p + sizeof(s), sizeof(ip));
	kind = kind_of(t, s.id);
	if (kind < 0)
		return 0;
	task = task_of(t, s.tid);
	if (!task)
		return -ENOMEM;
	task->n[kind]++;
	for (unsigned i = 0; i < task->nips; i++)
		if (task->ips[i] == ip)
			return 0;
	if (task->nips < SL_TASK_MAX_IPS)
		task->ips[task->nips++] = ip;
	else
		task->ips_dropped = true;
	return 0;
}

static int record(struct sl_count_tasks *t, const struct perf_event_header *h,
		  const unsigned char *p, size_t len)
{
	uint32_t ids[4];
	uint64_t lost[2], time;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return sample(t, p, len);
	case PERF_RECORD_COMM:
		/* pid, tid, comm (NUL-padded to 8 bytes), then sample_id_all's
		 * pid, tid, time, id: the time is 16 bytes from the end. */
		if (len <= 8 + SAMPLE_ID_SIZE)
			return 0;
		memcpy(ids, p, 8);
		memcpy(&time, p + len - 16, sizeof(time));
		return set_name(t, ids[1], (const char *)p + 8,
				strnlen((const char *)p + 8, len - 8 - SAMPLE_ID_SIZE), time);
	case PERF_RECORD_FORK:
		if (len < 16)
			return 0;
		memcpy(ids, p, 16); /* pid, ppid, tid, ptid */
		return set_parent(t, ids[2], ids[3]);
	case PERF_RECORD_LOST:
		if (len >= sizeof(lost)) {
			memcpy(lost, p, sizeof(lost));
			t->lost += lost[1];
		}
		return 0;
	default:
		return 0;
	}
}

static int drain_cpu(struct sl_count_tasks *t, struct cpu_buffer *b)
{
	struct perf_event_mmap_page *meta = b->base;
	const unsigned char *data;
	uint64_t head, tail;
	int r = 0, records = 0;

	if (!meta)
		return 0;
	data = (const unsigned char *)b->base + meta->data_offset;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head && r == 0) {
		struct perf_event_header h;
		size_t off = (size_t)(tail % b->data_size), first;

		first = MIN(sizeof(h), b->data_size - off);
		memcpy(&h, data + off, first);
		memcpy((char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.size - sizeof(h) <= sizeof(t->scratch)) {
			size_t body = h.size - sizeof(h), at = (off + sizeof(h)) % b->data_size;

			first = MIN(body, b->data_size - at);
			memcpy(t->scratch, data + at, first);
			memcpy(t->scratch + first, data, body - first);
			r = record(t, &h, (const unsigned char *)t->scratch, body);
		}
		tail += h.size;
		records++;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return r < 0 ? r : records;
}

int sl_count_tasks_drain(struct sl_count_tasks *t)
{
	int r, records = 0;

	for (size_t c = 0; c < t->ncpus; c++) {
		r = drain_cpu(t, &t->cpus[c]);
		if (r < 0)
			return r;
		records = records > INT_MAX - r ? INT_MAX : records + r;
	}
	/* Names come in COMM and FORK records, maybe after the samples. */
	for (size_t i = 0; i < t->ntasks; i++) {
		const char *name = name_of(t, t->tasks[i].tid);

		if (name)
			snprintf(t->tasks[i].comm, sizeof(t->tasks[i].comm), "%s", name);
	}
	return records;
}

size_t sl_count_tasks_count(const struct sl_count_tasks *t)
{
	return t->ntasks;
}

const struct sl_count_task *sl_count_tasks_get(const struct sl_count_tasks *t, size_t i)
{
	return i < t->ntasks ? &t->tasks[i] : NULL;
}

uint64_t sl_count_tasks_lost(const struct sl_count_tasks *t)
{
	return t->lost;
}
