/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lease directory's files (see run/lease.c for the whole design): the
 * directory opened and locked, a lease's name and lines, whether its
 * holder and its run live, the value slctl owes back.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>

#include "dir-list.h"
#include "run/lease.h"

void sl_lease_dir_close(struct lease_dir *ld)
{
	if (ld->dir >= 0)
		close(ld->dir);
	if (ld->lock >= 0)
		close(ld->lock); /* and with it the flock */
	ld->dir = ld->lock = -1;
}

/*
 * Open and lock the lease directory. Without @create a missing one is
 * -ENOENT, and nothing is created: readers and the mitigate plan must not
 * leave directories behind.
 */
int sl_lease_dir_open(struct splitlock_ctx *ctx, bool create, struct lease_dir *ld)
{
	_cleanup_free_ char *why = NULL;
	_cleanup_close_ int state = -1;
	struct stat st, sst;
	int r;

	ld->dir = ld->lock = -1;
	if (!create) {
		r = sl_lstat(ctx, SL_STATE_DIR "/" LEASE_DIR, &st);
		if (r < 0)
			return r;
	}
	state = sl_open_state_dir(ctx, &why);
	if (state < 0) {
		sl_err(ctx, "%s", why ? why : strerror(-state));
		return state;
	}
	r = create ? sl_mkdirat_mode(state, LEASE_DIR, 0700) : 0;
	if (r < 0) {
		sl_err(ctx, "cannot create " SL_STATE_DIR "/" LEASE_DIR ": %s", strerror(-r));
		return r;
	}
	ld->dir = openat(state, LEASE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ld->dir < 0) {
		r = -errno;
		if (r != -ENOENT)
			sl_err(ctx, "cannot open " SL_STATE_DIR "/" LEASE_DIR ": %s", strerror(-r));
		return r;
	}
	/* The same rule as for /run/slctl itself: its owner's, nobody else's. */
	if (fstat(ld->dir, &st) < 0 || fstat(state, &sst) < 0 || st.st_uid != sst.st_uid ||
	    (st.st_mode & 07777) != 0700) {
		sl_err(ctx, SL_STATE_DIR "/" LEASE_DIR " is not a directory of %u's with mode "
		       "0700; remove it", (unsigned)sst.st_uid);
		sl_lease_dir_close(ld);
		return -EUCLEAN;
	}
	ld->lock = sl_open_lock_file(state, LEASE_LOCK);
	if (ld->lock < 0) {
		r = ld->lock;
		if (r == -EBADFD)
			sl_err(ctx, SL_STATE_DIR "/" LEASE_LOCK " is not a regular file of %u's; "
			       "remove it", (unsigned)sst.st_uid);
		else
			sl_err(ctx, "cannot open " SL_STATE_DIR "/" LEASE_LOCK ": %s",
			       strerror(-r));
		ld->lock = -1;
		sl_lease_dir_close(ld);
		return r;
	}
	/* Holders keep it for a few file operations; one that is stopped or
	 * hung must not hang everyone else with it. */
	r = sl_flock_wait(ld->lock, SL_LOCK_TIMEOUT_MS);
	if (r < 0) {
		/* The caller says it in its own sentence: -ETIMEDOUT is documented. */
		if (r == -ETIMEDOUT)
			sl_dbg(ctx, "another process has held " SL_STATE_DIR "/" LEASE_LOCK
			       " for %u seconds", SL_LOCK_TIMEOUT_MS / 1000);
		sl_lease_dir_close(ld);
		return r;
	}
	return 0;
}

/* "PID-START-TAG" of a lease file, or false for any other name. */
bool sl_lease_parse_name(const char *name, uint32_t *pid, uint64_t *start)
{
	unsigned long long p, s;
	unsigned tag;
	char check[48];
	int n = -1;

	if (sscanf(name, "%llu-%llu-%8x%n", &p, &s, &tag, &n) != 3 || n < 0 || name[n] ||
	    p == 0 || p > UINT32_MAX)
		return false;
	/* Canonical digits only: "01-2-…" and "+1-2-…" are not ours. */
	snprintf(check, sizeof(check), "%llu-%llu-%08x", p, s, tag);
	if (!streq(check, name))
		return false;
	*pid = (uint32_t)p;
	*start = s;
	return true;
}

static bool keep_lease_name(const char *name, void *data)
{
	uint32_t pid;
	uint64_t start;

	(void)data;
	return sl_lease_parse_name(name, &pid, &start);
}

/*
 * The lease files of @dir, sorted. A descriptor of its own: one shared
 * with @dir would share its reading position too.
 */
int sl_lease_list(int dir, char ***names)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*names = NULL;
	if (fd < 0)
		return -errno;
	return dir_list(fd, keep_lease_name, NULL, names);
}

static bool holder_alive(int dir, const char *name)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno != ENOENT;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return false; /* and unlocked at the close */
	return true;
}

/*
 * Whether the run, the process @e->run started at @e->run_start, has
 * ended: reaped (pidfd_open() answers ESRCH), exited and not reaped (a
 * zombie: its pidfd polls readable), or its PID now another process's
 * (another start time). The first two without a lookup; the start time
 * from /proc/PID/stat, read while the pidfd pins the process, from the
 * cache or in a bounded child (a user may hold /proc's lock: sixth
 * review). What cannot be judged is not ended. A run left a zombie, or
 * whose PID was reused, kept its lease live while its holder lingered
 * (ninth review, attack 26).
 */
static bool run_ended(struct splitlock_ctx *ctx, const struct lease_entry *e)
{
	_cleanup_close_ int fd = (int)syscall(SYS_pidfd_open, (pid_t)e->run, 0U);
	struct pollfd p;
	uint64_t start;
	int r;

	if (fd < 0)
		return errno == ESRCH;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 0) > 0)
		return true;
	r = sl_proc_start_time_bounded(ctx, e->run, &start);
	return r == -ESRCH || (r == 0 && start != e->run_start);
}

/*
 * A lease lives in its own boot, while its holder keeps its file locked
 * and its run has not ended. The run's end is its holder's to see (the
 * helper polls a pidfd); this is for a holder that lingers.
 */
bool sl_lease_alive(struct splitlock_ctx *ctx, int dir, const char *name,
			const struct lease_entry *e, const char *boot)
{
	if (*e->boot && *boot && !streq(e->boot, boot))
		return false;
	if (!holder_alive(dir, name))
		return false;
	return e->run_start == 0 || e->run == e->holder || !sl_proc_is_procfs(ctx) ||
	       !run_ended(ctx, e);
}

/* A small file of the lease directory, terminated; links are not followed. */
int sl_lease_read_small(int dir, const char *name, char *buf, size_t size)
{
	ssize_t n;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The saved value; -ESTALE when it was saved in another boot. */
int sl_lease_read_saved(int dir, const char *boot, int *value)
{
	char buf[96];
	const char *b;
	int r = sl_lease_read_small(dir, SAVED, buf, sizeof(buf));

	if (r < 0)
		return r;
	if ((buf[0] != '0' && buf[0] != '1') || buf[1] != '\n')
		return -EBADMSG;
	b = buf + 2;
	if (*b) {
		size_t len;

		if (!startswith(b, "boot="))
			return -EBADMSG;
		b += 5;
		len = strcspn(b, "\n");
		if (b[len] != '\n' || b[len + 1])
			return -EBADMSG;
		if (*boot && (strlen(boot) != len || strncmp(b, boot, len) != 0))
			return -ESTALE;
	}
	*value = buf[0] - '0';
	return 0;
}

/* The key=value lines of a lease file; unknown fields stay as they were. */
static void parse_lease(const char *text, struct lease_entry *e)
{
	const char *v;
	unsigned long long n;

	if ((v = strstr(text, "uid=")) && sscanf(v + 4, "%llu", &n) == 1 && n <= UINT32_MAX)
		e->uid = (uint32_t)n;
	if ((v = strstr(text, "run=")) && sscanf(v + 4, "%llu", &n) == 1 && n <= UINT32_MAX)
		e->run = (uint32_t)n;
	if ((v = strstr(text, "since=")) && sscanf(v + 6, "%llu", &n) == 1 && n <= INT64_MAX)
		e->since = (int64_t)n;
	if ((v = strstr(text, "run_start=")) && sscanf(v + 10, "%llu", &n) == 1)
		e->run_start = n;
	if ((v = strstr(text, "\nboot=")) && sscanf(v + 6, "%39[0-9a-f-]", e->boot) != 1)
		e->boot[0] = '\0';
}

int sl_lease_read_entry(int dir, const char *name, struct lease_entry *e)
{
	char text[512];
	int r = sl_lease_read_small(dir, name, text, sizeof(text));

	if (r < 0)
		return r;
	parse_lease(text, e);
	return 0;
}
