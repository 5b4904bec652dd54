/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who a TID of the log is on the live system: its thread group, executable,
 * command line, systemd unit or container, and which mapped object a trap
 * address falls in. Everything under the context's root (/proc/PID/...).
 *
 * Pid reuse: a TID from the log may name another process by now. A process
 * that started after the event cannot have caused it, so /proc/PID/stat's
 * start time is compared with the event's time. The start time counts
 * suspended time and log stamps do not, so after a suspend a process may
 * look younger than it is: the guard then refuses to name it, never names
 * the wrong one.
 *
 * Processes learned from the proc connector (exec events) stay known after
 * they exit, for --follow.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>

#include "offenders/offenders.h"

#define CACHE_MAX 4096

struct sl_proccache {
	struct sl_procinfo *live;  /* looked up in /proc, by tid */
	size_t n_live, alloc_live;
	struct sl_procinfo *seen;  /* from the connector: ring of CACHE_MAX */
	size_t n_seen, next_seen;
	uint32_t *forks;           /* tid -> tgid pairs from fork events */
	size_t n_forks, next_fork;
};

struct sl_proccache *sl_proccache_new(void)
{
	return calloc(1, sizeof(struct sl_proccache));
}

static void info_clear(struct sl_procinfo *p)
{
	free(p->exe);
	free(p->cmdline);
	free(p->unit);
	free(p->container);
	memset(p, 0, sizeof(*p));
}

void sl_proccache_free(struct sl_proccache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_live; i++)
		info_clear(&c->live[i]);
	for (size_t i = 0; i < c->n_seen; i++)
		info_clear(&c->seen[i]);
	free(c->live);
	free(c->seen);
	free(c->forks);
	free(c);
}

/*
 * Every user can read /proc and /proc/PID, and so hold their locks with a
 * mkdir queued behind: a lookup there that the dentry cache does not
 * answer (a TID that is gone, an entry not read since) waited in root's
 * offenders, unkillably, for as long as the user liked (eleventh review).
 * The entries are opened from the cache or in a bounded child.
 */
static int open_proc_entry(struct splitlock_ctx *ctx, uint32_t pid, const char *what, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/%s", pid, what);
	return sl_open_bounded(ctx, path, flags | O_NOFOLLOW | O_CLOEXEC);
}

static int read_small(struct splitlock_ctx *ctx, uint32_t pid, const char *what,
		      char **out, size_t *len)
{
	_cleanup_close_ int fd = open_proc_entry(ctx, pid, what, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fd;
	return sl_read_fd(fd, 1u << 20, out, len);
}

/* /proc/PID/exe's target: the link itself opened, then read through it. */
static int read_exe(struct splitlock_ctx *ctx, uint32_t pid, char *buf, size_t size)
{
	_cleanup_close_ int fd = open_proc_entry(ctx, pid, "exe", O_PATH);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = readlinkat(fd, "", buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static uint32_t status_tgid(struct splitlock_ctx *ctx, uint32_t tid)
{
	_cleanup_free_ char *s = NULL;
	const char *t;
	unsigned long v;

	if (read_small(ctx, tid, "status", &s, NULL) < 0)
		return 0;
	t = strstr(s, "\nTgid:");
	if (!t || sscanf(t + 6, "%lu", &v) != 1 || v == 0 || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

/* Start time (field 22 of /proc/PID/stat) in microseconds since boot. */
static int64_t stat_start(struct splitlock_ctx *ctx, uint32_t pid)
{
	_cleanup_free_ char *s = NULL;
	const char *p;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);

	if (read_small(ctx, pid, "stat", &s, NULL) < 0 || hz <= 0)
		return SPLITLOCK_TIME_UNKNOWN;
	/* comm may hold ") ", so the last ')' ends it. */
	p = strrchr(s, ')');
	if (!p)
		return SPLITLOCK_TIME_UNKNOWN;
	p++;
	/* Fields 3..21, then starttime. */
	for (int field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return SPLITLOCK_TIME_UNKNOWN;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (sscanf(p, "%llu", &ticks) != 1)
		return SPLITLOCK_TIME_UNKNOWN;
	return (int64_t)(ticks * 1000000ull / (unsigned long long)hz);
}

void sl_cgroup_parse(const char *text, char **unit, char **container)
{
	static const struct {
		const char *prefix, *engine;
	} engines[] = {
		{ "docker-", "docker" }, { "libpod-", "podman" },
		{ "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
	};
	const char *line = text;

	*unit = *container = NULL;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *path = memchr(line, ':', len);

		/* Unified hierarchy "0::/path" decides; v1 "name=systemd" too. */
		if (path)
			path = memchr(path + 1, ':', len - (size_t)(path + 1 - line));
		if (path && (startswith(line, "0::") || strstr(line, "name=systemd:"))) {
			const char *p = path + 1, *end = line + len;
			const char *prev = NULL;
			size_t prev_n = 0;

			while (p < end) {
				const char *slash = memchr(p, '/', (size_t)(end - p));
				const char *ce = slash ? slash : end;
				size_t n = (size_t)(ce - p);

				if ((n > 8 && memcmp(ce - 8, ".service", 8) == 0) ||
				    (n > 6 && memcmp(ce - 6, ".scope", 6) == 0)) {
					free(*unit);
					*unit = strndup(p, n);
					for (size_t i = 0; i < ARRAY_SIZE(engines); i++) {
						size_t pl = strlen(engines[i].prefix);

						if (n > pl + 6 && memcmp(p, engines[i].prefix, pl) == 0 &&
						    !*container &&
						    asprintf(container, "%s:%.12s", engines[i].engine,
							     p + pl) < 0)
							*container = NULL;
					}
				} else if (n >= 12 && prev_n == 6 && memcmp(prev, "docker", 6) == 0 &&
					   !*container) {
					/* cgroup v1 style "/docker/<id>" */
					if (asprintf(container, "docker:%.12s", p) < 0)
						*container = NULL;
				}
				prev = p;
				prev_n = n;
				p = ce + 1;
			}
			if (startswith(line, "0::"))
				break;
		}
		line = nl ? nl + 1 : NULL;
	}
}

/*
 * The patched kernel counts every trap of a process in /proc/PID/split_lock,
 * also those whose log line was rate-limited away.
 */
static void read_kernel_counters(struct splitlock_ctx *ctx, struct sl_procinfo *p)
{
	_cleanup_free_ char *text = NULL;
	unsigned long long ac, db;
	char *line;

	if (read_small(ctx, p->tgid, "split_lock", &text, NULL) < 0)
		return;
	line = strstr(text, "ac_traps ");
	if (line && sscanf(line, "ac_traps %llu", &ac) == 1)
		p->kernel_ac_traps = (int64_t)ac;
	line = strstr(text, "db_traps ");
	if (line && sscanf(line, "db_traps %llu", &db) == 1)
		p->kernel_db_traps = (int64_t)db;
}

static int lookup_live(struct splitlock_ctx *ctx, uint32_t tid, struct sl_procinfo *p)
{
	_cleanup_free_ char *cmdline = NULL, *cgroup = NULL;
	char exe[4096];
	size_t len;

	memset(p, 0, sizeof(*p));
	p->kernel_ac_traps = p->kernel_db_traps = -1;
	p->tid = tid;
	/* Most TIDs of a log are gone: those the kernel says so of are not
	 * looked up (a missing name is never in the dentry cache). */
	if (sl_proc_is_procfs(ctx) && sl_pid_reaped(tid))
		return -ESRCH;
	p->tgid = status_tgid(ctx, tid);
	if (!p->tgid)
		return -ESRCH;
	/* A thread's own start time: the TID is what was reused, if anything. */
	p->start_usec = stat_start(ctx, tid);
	if (read_exe(ctx, p->tgid, exe, sizeof(exe)) > 0)
		p->exe = strdup(exe);
	if (read_small(ctx, p->tgid, "cmdline", &cmdline, &len) == 0 && len > 0) {
		while (len > 0 && cmdline[len - 1] == '\0')
			len--;
		for (size_t i = 0; i < len; i++)
			if (cmdline[i] == '\0')
				cmdline[i] = ' ';
		cmdline[len] = '\0';
		p->cmdline = strdup(cmdline);
	}
	if (read_small(ctx, p->tgid, "cgroup", &cgroup, NULL) == 0)
		sl_cgroup_parse(cgroup, &p->unit, &p->container);
	read_kernel_counters(ctx, p);
	return 0;
}

static uint32_t fork_tgid(const struct sl_proccache *c, uint32_t tid)
{
	for (size_t i = 0; i < c->n_forks; i++)
		if (c->forks[2 * i] == tid)
			return c->forks[2 * i + 1];
	return 0;
}

static const struct sl_procinfo *lookup_seen(const struct sl_proccache *c,
					     uint32_t tid, int64_t event_usec)
{
	uint32_t tgid = fork_tgid(c, tid);
	const struct sl_procinfo *best = NULL;

	if (!tgid)
		tgid = tid;
	for (size_t i = 0; i < c->n_seen; i++) {
		const struct sl_procinfo *p = &c->seen[i];

		if (p->tgid != tgid)
			continue;
		if (event_usec != SPLITLOCK_TIME_UNKNOWN && p->start_usec > event_usec)
			continue;
		if (!best || p->start_usec > best->start_usec)
			best = p;
	}
	return best && !best->unresolved ? best : NULL;
}

const struct sl_procinfo *sl_proccache_lookup(struct splitlock_ctx *ctx,
					      struct sl_proccache *c,
					      uint32_t tid, int64_t event_usec)
{
	struct sl_procinfo p;

	for (size_t i = 0; i < c->n_live; i++) {
		struct sl_procinfo *q = &c->live[i];

		if (q->tid != tid)
			continue;
		if (event_usec != SPLITLOCK_TIME_UNKNOWN &&
		    q->start_usec != SPLITLOCK_TIME_UNKNOWN && q->start_usec > event_usec)
			return lookup_seen(c, tid, event_usec);
		return q;
	}
	if (lookup_live(ctx, tid, &p) < 0) {
		/* Gone: not cached, the TID may come back as a new process. */
		info_clear(&p);
		return lookup_seen(c, tid, event_usec);
	}
	/* Bounded: a follower looks up every task that ever warns. The
	 * older half goes (a later event of one re-reads /proc). */
	if (c->n_live >= CACHE_MAX) {
		for (size_t i = 0; i < CACHE_MAX / 2; i++)
			info_clear(&c->live[i]);
		memmove(c->live, c->live + CACHE_MAX / 2,
			(c->n_live - CACHE_MAX / 2) * sizeof(*c->live));
		c->n_live -= CACHE_MAX / 2;
	}
	if (c->n_live == c->alloc_live) {
		size_t n = c->alloc_live ? c->alloc_live * 2 : 16;
		struct sl_procinfo *l = realloc(c->live, n * sizeof(*l));

		if (!l) {
			info_clear(&p);
			return NULL;
		}
		c->live = l;
		c->alloc_live = n;
	}
	c->live[c->n_live++] = p;
	if (p.tgid && p.start_usec != SPLITLOCK_TIME_UNKNOWN &&
	    event_usec != SPLITLOCK_TIME_UNKNOWN && p.start_usec > event_usec) {
		sl_dbg(ctx, "pid %" PRIu32 " started after its event: reused, not resolved", tid);
		return lookup_seen(c, tid, event_usec);
	}
	return &c->live[c->n_live - 1];
}

/*
 * The mapping of /proc/PID/maps text @maps (modified) that holds @ip, as
 * "object+0xOFFSET" (file offset for files, offset in the region for
 * [heap], [stack], ...). -ENOENT when no named mapping holds it.
 */
int sl_maps_lookup(char *maps, uint64_t ip, char *buf, size_t size)
{
	for (char *line = maps; line && *line;) {
		char *nl = strchr(line, '\n');
		unsigned long long start, end, off;
		int used = 0;

		if (nl)
			*nl = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &off,
			   &used) == 3 && used > 0 && ip >= start && ip < end) {
			char *path = line + used, *base, *del;

			if (*path != '/' && *path != '[')
				return -ENOENT;
			del = strstr(path, " (deleted)");
			if (del)
				*del = '\0';
			base = strrchr(path, '/');
			base = base ? base + 1 : path;
			snprintf(buf, size, "%s+0x%llx", base,
				 *path == '/' ? ip - start + off : ip - start);
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int sl_procinfo_map_ip(struct splitlock_ctx *ctx, uint32_t pid, uint64_t ip,
		       char *buf, size_t size)
{
	_cleanup_free_ char *maps = NULL;

	if (read_small(ctx, pid, "maps", &maps, NULL) < 0)
		return -ENOENT;
	return sl_maps_lookup(maps, ip, buf, size);
}

int sl_proccache_event(struct splitlock_ctx *ctx, struct sl_proccache *c,
		       const struct splitlock_proc_event *ev)
{
	struct sl_procinfo p;
	struct sl_procinfo *slot;

	if (ev->type == SPLITLOCK_PROC_FORK && ev->pid != ev->tgid) {
		if (!c->forks) {
			c->forks = calloc(2 * CACHE_MAX, sizeof(*c->forks));
			if (!c->forks)
				return -ENOMEM;
		}
		c->forks[2 * c->next_fork] = ev->pid;
		c->forks[2 * c->next_fork + 1] = ev->tgid;
		c->next_fork = (c->next_fork + 1) % CACHE_MAX;
		if (c->n_forks < CACHE_MAX)
			c->n_forks++;
		return 0;
	}
	if (ev->type != SPLITLOCK_PROC_EXEC)
		return 0;
	/*
	 * Read it now, while it is alive: it may be gone when its line comes.
	 * Gone already: remember that this image is unknown, or the events
	 * after this exec would be reported under the one before it.
	 */
	if (lookup_live(ctx, ev->tgid, &p) < 0) {
		info_clear(&p);
		p.tid = ev->pid;
		p.tgid = ev->tgid;
		p.kernel_ac_traps = p.kernel_db_traps = -1;
		p.unresolved = true;
	}
	p.start_usec = (int64_t)(ev->timestamp_ns / 1000);
	p.from_connector = true;
	if (!c->seen) {
		c->seen = calloc(CACHE_MAX, sizeof(*c->seen));
		if (!c->seen) {
			info_clear(&p);
			return -ENOMEM;
		}
	}
	slot = &c->seen[c->next_seen];
	info_clear(slot);
	*slot = p;
	c->next_seen = (c->next_seen + 1) % CACHE_MAX;
	if (c->n_seen < CACHE_MAX)
		c->n_seen++;
	/* A live entry for this tgid may be stale now (exec changes exe). */
	for (size_t i = 0; i < c->n_live; i++)
		if (c->live[i].tid == ev->tgid || c->live[i].tgid == ev->tgid)
			c->live[i].tid = 0;
	return 0;
}
