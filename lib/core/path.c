/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolving system paths under the context's root.
 *
 * openat2(RESOLVE_IN_ROOT) treats the root as "/" for every component,
 * symlinks included, so a fake root (or a hostile one) can never lead us to
 * a file outside it. Where openat2 is missing (seccomp filters of some
 * container runtimes, valgrind) the same walk is done here, one component at
 * a time, with O_NOFOLLOW at each step. SPLITLOCK_NO_OPENAT2=1 forces that
 * path, for the tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>

#include "dir-list.h"
#include "core/internal.h"

static bool real_root(const struct splitlock_ctx *ctx)
{
	return streq(ctx->root, "/");
}

#define MAX_SYMLINKS 40

static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* RESOLVE_IN_ROOT by hand: "/" and ".." never leave @root_fd. */
static int open_in_root_by_hand(int root_fd, const char *path, int flags,
				mode_t mode)
{
	char work[PATH_MAX * 2];
	size_t pos = 0;
	int dir, links = 0;

	if (strlen(path) >= sizeof(work))
		return -ENAMETOOLONG;
	strcpy(work, path);
	dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
	if (dir < 0)
		return -errno;
	for (;;) {
		char comp[NAME_MAX + 1], target[PATH_MAX];
		size_t len;
		bool last;
		struct stat st;
		int next;

		while (work[pos] == '/')
			pos++;
		len = strcspn(work + pos, "/");
		if (len == 0) {
			/* The path named a directory itself ("/", "a/."). */
			next = openat(dir, ".", flags | O_NOFOLLOW | O_CLOEXEC, mode);
			close(dir);
			return next < 0 ? -errno : next;
		}
		if (len > NAME_MAX) {
			close(dir);
			return -ENAMETOOLONG;
		}
		memcpy(comp, work + pos, len);
		comp[len] = '\0';
		pos += len;
		last = work[pos + strspn(work + pos, "/")] == '\0';

		if (streq(comp, ".") && !last)
			continue;
		if (streq(comp, "..")) {
			if (!same_inode(dir, root_fd)) {
				next = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (next < 0) {
					close(dir);
					return -errno;
				}
				close(dir);
				dir = next;
			}
			if (last)
				strcpy(work + pos, "/.");
			continue;
		}
		if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
		    (!last || !(flags & O_NOFOLLOW))) {
			ssize_t n = readlinkat(dir, comp, target, sizeof(target) - 1);
			size_t rest = strlen(work + pos);

			if (n <= 0 || ++links > MAX_SYMLINKS ||
			    (size_t)n + rest + 2 > sizeof(work)) {
				close(dir);
				return n < 0 ? -errno : -ELOOP;
			}
			target[n] = '\0';
			/* The link's text replaces the component: [target][rest]. */
			memmove(work + n, work + pos, rest + 1);
			memcpy(work, target, (size_t)n);
			pos = 0;
			if (target[0] == '/') {
				close(dir);
				dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
				if (dir < 0)
					return -errno;
			}
			continue;
		}
		if (last) {
			/* "name/" must be a directory, as the kernel insists. */
			int dironly = work[pos] == '/' ? O_DIRECTORY : 0;

			next = openat(dir, comp, flags | dironly | O_NOFOLLOW | O_CLOEXEC, mode);
			close(dir);
			return next < 0 ? -errno : next;
		}
		next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0)
			return -errno;
		dir = next;
	}
}

/*
 * /run/slctl or a path under it. Where it exists, it is in the dentry
 * cache (tmpfs) and found without a lock; where it is missing (a boot
 * without tmpfiles.d, an install that did not run systemd-tmpfiles, an
 * admin who removed it) its lookup takes /run's lock, which any user can
 * hold with a mkdir() queued behind it: root's status, mitigate and
 * mode --persist waited there unkillably (ninth review). So it is looked
 * up from the cache where that answers, else in a bounded child; a
 * missing answer is never guessed (seventh review, lockable_top()).
 */
static bool state_path(const char *path)
{
	while (*path == '/')
		path++;
	return strncmp(path, "run/slctl", 9) == 0 && (path[9] == '/' || path[9] == '\0');
}

/* "run" or "proc" for a path under /run or /proc, else NULL. */
static const char *lockable_top(const char *path)
{
	while (*path == '/')
		path++;
	/*
	 * Not slctl's own state: RESOLVE_CACHED also fails, with EAGAIN, for
	 * a name that is cached whenever the mount table changes during the
	 * walk (any user can change it in a namespace of its own, in a
	 * loop), so "missing" from it is a guess. A drop that guessed its
	 * lease directory missing left the penalty off (seventh review).
	 * /run/slctl exists (tmpfiles.d) and only root can hold its lock; an
	 * ordinary lookup of a name that exists takes no lock of /run's.
	 * What is guessed here is read for display or configuration only.
	 */
	if (state_path(path))
		return NULL;
	if (strncmp(path, "run/", 4) == 0)
		return "run";
	if (strncmp(path, "proc/", 5) == 0)
		return "proc";
	return NULL;
}

/*
 * /run is a tmpfs that every user can read, and so a directory whose lock
 * any user can hold, shared, for as long as it likes (a getdents64() into
 * a buffer of its own FUSE file system that never answers); a mkdir() of
 * the user's then queues behind it for the lock exclusively, and every
 * lookup of a name that /run does not have (tmpfs keeps no negative
 * entries) queues behind that, unkillably: root's status and mitigate
 * waited there (fifth review). /proc is readable by everyone too, and the
 * name of a reaped process is missing there (sixth review; the lease
 * checks look up other runs' PIDs). A name that exists on a tmpfs is
 * always in the dentry cache, so a lookup that RESOLVE_CACHED cannot
 * finish there is of a missing name: -ENOENT without taking any lock.
 * -EAGAIN where that cannot be told (procfs, another file system, a
 * kernel before 5.12, a create), and the caller looks up the usual way.
 */
static int open_run_cached(const struct splitlock_ctx *ctx, const char *path, int flags)
{
	const char *top = lockable_top(path);
	char top_path[8];

	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_CACHED | (real_root(ctx) ? 0 : RESOLVE_IN_ROOT),
	};
	struct open_how run_how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = how.resolve,
	};
	int dir = real_root(ctx) ? AT_FDCWD : ctx->root_fd;
	struct statfs fs;
	int fd, run;

	/* O_TMPFILE includes O_DIRECTORY's bit: compared whole. */
	if ((flags & (O_CREAT | O_TRUNC)) || (flags & O_TMPFILE) == O_TMPFILE ||
	    ctx->no_openat2 || !top)
		return -EAGAIN;
	snprintf(top_path, sizeof(top_path), "%s%s", real_root(ctx) ? "/" : "", top);
	if (!real_root(ctx))
		while (*path == '/')
			path++;
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != EAGAIN)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EACCES ?
			-errno : -EAGAIN;
	run = (int)syscall(SYS_openat2, dir, top_path, &run_how, sizeof(run_how));
	if (run < 0)
		return -EAGAIN;
	fd = fstatfs(run, &fs) == 0 && fs.f_type == TMPFS_MAGIC ? -ENOENT : -EAGAIN;
	close(run);
	return fd;
}

/* The ordinary walk, which may wait on any directory's lock. */
#define OPENAT2_RETRIES 16

static int open_walk(const struct splitlock_ctx *ctx, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT,
	};
	int fd;

	if (real_root(ctx)) {
		fd = open(path, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	if (!ctx->no_openat2) {
		/*
		 * A walk that took ".." (a symlink such as 99-sysctl.conf ->
		 * ../sysctl.conf) while anything on the system was renamed or
		 * mounted fails with EAGAIN: the kernel cannot vouch that it
		 * stayed in the root and asks for a retry (openat2(2)). On a
		 * busy system that dropped a drop-in from status now and then
		 * (seen in the CI's ASan run). Retried, then walked by hand.
		 */
		for (int tries = 0;; tries++) {
			fd = (int)syscall(SYS_openat2, ctx->root_fd, path, &how, sizeof(how));
			if (fd >= 0)
				return fd;
			if (errno != EAGAIN || tries == OPENAT2_RETRIES)
				break;
		}
		if (errno == EAGAIN)
			return open_in_root_by_hand(ctx->root_fd, path, flags, mode);
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		/* Seccomp filters answer ENOSYS or EPERM; remember it. */
		((struct splitlock_ctx *)ctx)->no_openat2 = true;
	}
	return open_in_root_by_hand(ctx->root_fd, path, flags, mode);
}

/*
 * /proc/sys and /sys: directories every user can read, and so whose lock
 * any user can hold, shared, for as long as it likes (a getdents64() into
 * a FUSE-backed buffer), with a mkdir() queued behind it. A lookup of a
 * name that is not in the dentry cache then waits, unkillably: on
 * /proc/sys always (procfs answers RESOLVE_CACHED with -ECHILD, and on
 * 5.7-6.1 keeps no entry for a missing name such as
 * split_lock_mitigate), under /sys once an entry was evicted. Root's
 * status and mitigate waited there (eighth review).
 *
 * /run/slctl too, slctl's own state (see state_path()).
 */
static bool user_lockable(const char *path)
{
	while (*path == '/')
		path++;
	return strncmp(path, "proc/sys/", 9) == 0 || strncmp(path, "sys/", 4) == 0 ||
	       state_path(path);
}

static int send_fd(int sock, int fd)
{
	int err = fd < 0 ? -fd : 0;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int recv_fd(int sock)
{
	int err = 0, fd = -1;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(err))
		return -EIO;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd >= 0)
		return fd;
	return err > 0 ? -err : -EIO;
}

/* Milliseconds left until @deadline (CLOCK_MONOTONIC), 0 once past. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	int64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > INT32_MAX ? INT32_MAX : (int)ms;
}

/*
 * A child that does @work (a lookup, a mkdir, a listing) and answers on
 * its end of a socket pair: the child may wait for ever, we wait
 * SL_LOOKUP_TIMEOUT_MS in all (bounded_wait()). A stalled child is
 * killed and left: unkillable until the user lets go, it then ends by
 * itself (SIGKILL is pending). After a stall every later bounded lookup
 * of this context but those of slctl's own state answers -ETIMEDOUT at
 * once (the same directory is still held).
 *
 * Where no child can be started (PIDs or tasks used up, which a user may
 * do on purpose) the work is not done in-process, where it would wait
 * without a bound: -ETIMEDOUT too, not answered within the bound (ninth
 * review, attack 23), and every later one of this context answers so at
 * once, as after a stall: the commands then say that nothing was shown
 * or changed, once, instead of half a report. One exception, the lookup
 * of slctl's own state: where it exists it takes no lock, and a drop
 * that failed there would leave the penalty off.
 */
static void open_work(const struct splitlock_ctx *ctx, void *arg, int sock);
static void list_work(const struct splitlock_ctx *ctx, void *arg, int sock);
static void run_work(const struct splitlock_ctx *ctx, void *arg, int sock);

struct bounded {
	pid_t pid;
	int sock;
	const char *action; /* "lookup", "listing", ... for messages */
	unsigned timeout_s; /* the bound, for messages */
	struct timespec deadline;
};

/*
 * In the child: every descriptor closed but 0-2 and @keep. A child that
 * waits for ever must not keep what the caller holds: a flock is the
 * open file's, and a child that inherited leases.lock (a reconcile's
 * lookup under /proc) or a lease file would hold the lock, or keep the
 * lease live, for as long as the user holds the directory.
 */
static void close_all_but(int *keep, size_t n)
{
	unsigned lo = 3;

	/* Few of them: sorted by insertion. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < lo)
			continue;
		if ((unsigned)keep[i] > lo)
			syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0U);
		lo = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0U, 0U);
}

/* After a stall: every later lookup of @ctx answers -ETIMEDOUT at once. */
static void stalled(const struct splitlock_ctx *ctx, pid_t child)
{
	struct splitlock_ctx *c = (struct splitlock_ctx *)ctx;

	c->lookup_stalled = true;
	c->stalled_child = child;
}

/*
 * A follower that forgot nothing would name no offender again after one
 * stall, long after the user let go (thirteenth review). The stalled
 * child, killed, ends once the directory is let go; it is reaped here, and
 * the context trusts lookups again. Where no child could start, the next
 * event tries again.
 */
void sl_lookup_stall_recover(struct splitlock_ctx *ctx)
{
	if (!ctx->lookup_stalled)
		return;
	if (ctx->stalled_child > 0) {
		pid_t r = waitpid(ctx->stalled_child, NULL, WNOHANG);

		/* ECHILD: reaped already (SIGCHLD ignored, or another wait). */
		if (r == 0 || (r < 0 && errno != ECHILD))
			return;
	}
	sl_dbg(ctx, "a stalled lookup has ended: lookups are made again");
	ctx->stalled_child = 0;
	ctx->lookup_stalled = false;
}

#define BOUNDED_MAX_FDS 8

/*
 * A kernel built without AF_UNIX (CONFIG_UNIX=n, or no networking at all:
 * the test VMs' tinyconfig) cannot hand a descriptor back from a child,
 * so bounded_start() answers -EAFNOSUPPORT and its callers do the work
 * in this process, unbounded, as before the ninth review. That is a
 * choice of the kernel's build, not something a user can bring about,
 * and no unprivileged user reaches the helper there: pkexec asks polkitd
 * over D-Bus, a UNIX socket. Running out of descriptors is not this case
 * (EMFILE, ENFILE): those stay errors.
 */
static bool no_unix_sockets(int err)
{
	return err == EAFNOSUPPORT || err == ENOSYS || err == EPROTONOSUPPORT ||
	       err == ESOCKTNOSUPPORT;
}

/* @fds: the descriptors @work uses (negative ones are skipped). */
static int bounded_start(const struct splitlock_ctx *ctx, const char *what,
			 void (*work)(const struct splitlock_ctx *ctx, void *arg, int sock),
			 void *arg, const int *fds, size_t n_fds, struct bounded *b)
{
	int sv[2];

	if (ctx->lookup_stalled && !state_path(what))
		return -ETIMEDOUT;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		if (no_unix_sockets(errno)) {
			sl_dbg(ctx, "%s: this kernel has no UNIX sockets, so no bounded "
			       "lookup (%m): done in this process", what);
			return -EAFNOSUPPORT;
		}
		sl_err(ctx, "cannot look up %s: no socket for a bounded lookup (%m)", what);
		stalled(ctx, -1);
		return -EAGAIN;
	}
	clock_gettime(CLOCK_MONOTONIC, &b->deadline);
	b->deadline.tv_sec += SL_LOOKUP_TIMEOUT_MS / 1000;
	b->timeout_s = SL_LOOKUP_TIMEOUT_MS / 1000;
	b->action = work == list_work ? "listing" : work == run_work ? b->action : "lookup";
	b->pid = fork();
	if (b->pid < 0) {
		if (!state_path(what) || work != open_work)
			sl_err(ctx, "cannot look up %s: no process can be started to look it "
			       "up with a bound (%m)", what);
		close(sv[0]);
		close(sv[1]);
		stalled(ctx, -1);
		return -EAGAIN;
	}
	if (b->pid == 0) {
		/* Only system calls here: the parent may have threads. */
		int keep[BOUNDED_MAX_FDS + 2];
		size_t n = 0;

		keep[n++] = sv[1];
		keep[n++] = ctx->root_fd;
		for (size_t i = 0; i < n_fds && i < BOUNDED_MAX_FDS; i++)
			keep[n++] = fds[i];
		close_all_but(keep, n);
		work(ctx, arg, sv[1]);
		_exit(0);
	}
	close(sv[1]);
	b->sock = sv[0];
	return 0;
}

/* Until the child's next message is there: 0, or -ETIMEDOUT after a stall. */
static int bounded_wait(const struct splitlock_ctx *ctx, const char *what, struct bounded *b)
{
	struct pollfd p = { .fd = b->sock, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms_left(&b->deadline));
	while (n < 0 && errno == EINTR);
	if (n > 0)
		return 0;
	kill(b->pid, SIGKILL);
	close(b->sock);
	b->sock = -1;
	stalled(ctx, b->pid);
	sl_err(ctx, "the %s of %s has waited %u seconds on a directory's lock "
	       "that another process holds", b->action, what, b->timeout_s);
	return -ETIMEDOUT;
}

/*
 * The child answered: reaped once it has closed its end. One that stops
 * answering half-way (a listing the user held between two buffers) is
 * killed and left, as at a stall: waitpid() would wait with it.
 */
static void bounded_end(const struct splitlock_ctx *ctx, const char *what, struct bounded *b)
{
	struct pollfd p = { .fd = b->sock, .events = 0 };
	int n;

	if (b->sock < 0)
		return;
	do
		n = poll(&p, 1, ms_left(&b->deadline));
	while ((n < 0 && errno == EINTR) || (n > 0 && !(p.revents & (POLLHUP | POLLERR))));
	close(b->sock);
	b->sock = -1;
	if (n <= 0) {
		kill(b->pid, SIGKILL);
		stalled(ctx, b->pid);
		sl_dbg(ctx, "the child that looked up %s has not ended", what);
		return;
	}
	while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* One descriptor (or error) from the child, then its end. */
static int bounded_fd(const struct splitlock_ctx *ctx, const char *what, struct bounded *b)
{
	int fd = bounded_wait(ctx, what, b);

	if (fd < 0)
		return fd;
	fd = recv_fd(b->sock);
	bounded_end(ctx, what, b);
	return fd;
}

struct open_args {
	const char *path;
	int flags;
	mode_t mode;
};

static void open_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	struct open_args *a = arg;

	send_fd(sock, open_walk(ctx, a->path, a->flags, a->mode));
}

/* The walk in a child, which hands the descriptor back. */
static int open_bounded(const struct splitlock_ctx *ctx, const char *path, int flags,
			mode_t mode)
{
	struct open_args a = { path, flags, mode };
	struct bounded b;
	int r = bounded_start(ctx, path, open_work, &a, NULL, 0, &b);

	if ((r == -EAGAIN && state_path(path)) || r == -EAFNOSUPPORT)
		return open_walk(ctx, path, flags, mode);
	if (r == -EAGAIN)
		return -ETIMEDOUT;
	return r < 0 ? r : bounded_fd(ctx, path, &b);
}

struct mkdir_args {
	int dir;
	const char *name;
	mode_t mode;
};

/* The new directory, opened, with exactly @a->mode, or a negative errno. */
static int mkdir_open(const struct mkdir_args *a)
{
	int fd;

	if (mkdirat(a->dir, a->name, a->mode) < 0)
		return -errno;
	fd = openat(a->dir, a->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, a->mode) < 0) {
		close(fd);
		fd = -1;
	}
	return fd < 0 ? -errno : fd;
}

static void mkdir_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	(void)ctx;
	send_fd(sock, mkdir_open(arg));
}

int sl_mkdirat_bounded(const struct splitlock_ctx *ctx, int dir, const char *name,
		       mode_t mode, const char *path)
{
	struct mkdir_args a = { dir, name, mode };
	struct bounded b;
	int r = bounded_start(ctx, path, mkdir_work, &a, &dir, 1, &b);

	if (r == -EAFNOSUPPORT)
		return mkdir_open(&a);
	if (r == -EAGAIN)
		return -ETIMEDOUT;
	return r < 0 ? r : bounded_fd(ctx, path, &b);
}

/*
 * A listing: getdents64() in the child, whose records come back as they
 * are, a buffer a message, each after a header: 0 (more to come), 1 (the
 * end) or a negative errno.
 */
#define LIST_HEADER 8
#define LIST_BUFFER (32 * 1024)

struct list_args {
	const int *dirs;
	size_t n;
};

/*
 * The listings: getdents64() of each directory in the child, whose
 * records come back as they are, a buffer a message, each after a
 * header: the directory's index, and 0 (more to come), 1 (its end) or a
 * negative errno. One child for all: a child is most of the cost.
 */
static void list_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	char buf[LIST_BUFFER] __attribute__((aligned(8)));
	const struct list_args *a = arg;

	(void)ctx;
	for (size_t i = 0; i < a->n; i++) {
		int32_t index = (int32_t)i;

		if (a->dirs[i] < 0)
			continue;
		memcpy(buf + 4, &index, sizeof(index));
		for (;;) {
			long n = syscall(SYS_getdents64, a->dirs[i], buf + LIST_HEADER,
					 sizeof(buf) - LIST_HEADER);
			int32_t status = n < 0 ? -errno : n == 0 ? 1 : 0;

			memcpy(buf, &status, sizeof(status));
			if (send(sock, buf, LIST_HEADER + (size_t)(n > 0 ? n : 0), MSG_NOSIGNAL) < 0)
				return;
			if (status)
				break;
		}
	}
}

static int add_name(char ***list, size_t *n, size_t *cap, const char *name)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		char **grown = realloc(*list, ncap * sizeof(**list));

		if (!grown)
			return -ENOMEM;
		*list = grown;
		*cap = ncap;
	}
	(*list)[*n] = strdup(name);
	if (!(*list)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The names of one buffer of linux_dirent64 records that @keep accepts. */
static int add_records(const char *buf, ssize_t len, bool (*keep)(const char *name, void *data),
		       void *data, char ***list, size_t *n, size_t *cap)
{
	int r = 0;

	for (ssize_t off = 0; r == 0 && off + 19 < len;) {
		unsigned short reclen;
		const char *name = buf + off + 19;

		memcpy(&reclen, buf + off + 16, sizeof(reclen));
		if (reclen < 20 || off + reclen > len || !memchr(name, '\0', reclen - 19U))
			return -EIO;
		off += reclen;
		if (streq(name, ".") || streq(name, "..") || (keep && !keep(name, data)))
			continue;
		r = add_name(list, n, cap, name);
	}
	return r;
}

struct listing {
	char **list;
	size_t n, cap;
	int r;           /* 0, or a negative errno */
	bool done;
};

/*
 * getdents64() takes the directory's lock shared, always (no cache), and
 * any user who can read the directory can hold it, with a mkdir() queued
 * behind it: root's status, mitigate and mode waited in the listings of
 * /etc/sysctl.d, /usr/lib/sysctl.d, /etc/default/grub.d and
 * /boot/loader/entries (ninth review). A directory that only its owner,
 * we, can read is listed here; the others in one bounded child.
 */
int sl_dir_lists_bounded(const struct splitlock_ctx *ctx, const char *const *paths, int *dirs,
			 size_t n_dirs, bool (*keep)(const char *name, void *data), void *data,
			 char ***names, int *counts)
{
	struct listing *l = calloc(n_dirs ? n_dirs : 1, sizeof(*l));
	struct list_args a = { dirs, n_dirs };
	struct bounded b;
	size_t left = 0;
	char *buf = NULL;
	bool started = false;
	int r = 0;

	if (!l)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n_dirs; i++) {
		struct stat st;

		names[i] = NULL;
		if (dirs[i] < 0) {
			l[i].done = true;
			l[i].r = dirs[i];
		} else if (fstat(dirs[i], &st) == 0 && st.st_uid == geteuid() &&
			   !(st.st_mode & (S_IRGRP | S_IROTH))) {
			int m = dir_list(dirs[i], keep, data, &l[i].list);

			dirs[i] = -1;
			l[i].done = true;
			l[i].r = m < 0 ? m : 0;
			l[i].n = m < 0 ? 0 : (size_t)m;
		} else {
			left++;
		}
	}
	if (r == 0 && left) {
		buf = malloc(LIST_BUFFER);
		r = !buf ? -ENOMEM : n_dirs > BOUNDED_MAX_FDS ? -E2BIG :
		    bounded_start(ctx, paths[0], list_work, &a, dirs, n_dirs, &b);
		started = r == 0;
		if (r == -EAGAIN)
			r = -ETIMEDOUT;
	}
	for (size_t i = 0; r == -EAFNOSUPPORT && i < n_dirs; i++) {
		int m;

		if (l[i].done)
			continue;
		m = dir_list(dirs[i], keep, data, &l[i].list);
		dirs[i] = -1;
		l[i].done = true;
		l[i].r = m < 0 ? m : 0;
		l[i].n = m < 0 ? 0 : (size_t)m;
		if (--left == 0)
			r = 0;
	}
	while (r == 0 && left) {
		int32_t status, index;
		size_t cur = 0;
		ssize_t len;

		while (l[cur].done)
			cur++;
		r = bounded_wait(ctx, paths[cur], &b);
		if (r < 0)
			break;
		len = recv(b.sock, buf, LIST_BUFFER, 0);
		if (len < LIST_HEADER) {
			r = len < 0 ? -errno : -EIO;
			break;
		}
		memcpy(&status, buf, sizeof(status));
		memcpy(&index, buf + 4, sizeof(index));
		if (index < 0 || (size_t)index >= n_dirs || l[index].done) {
			r = -EIO;
			break;
		}
		if (status < 0) {
			l[index].r = status;
		} else {
			int e = add_records(buf + LIST_HEADER, len - LIST_HEADER, keep, data,
					    &l[index].list, &l[index].n, &l[index].cap);

			if (e == -ENOMEM) {
				r = e;
				break;
			}
			if (e < 0)
				l[index].r = e;
		}
		if (status != 0) {
			l[index].done = true;
			left--;
		}
	}
	if (started)
		bounded_end(ctx, paths[0], &b);
	free(buf);
	for (size_t i = 0; i < n_dirs; i++) {
		if (dirs[i] >= 0)
			close(dirs[i]);
		dirs[i] = -1;
	}
	for (size_t i = 0; l && i < n_dirs; i++) {
		if (r < 0 || l[i].r < 0 || l[i].n > (size_t)INT32_MAX) {
			dir_list_free(l[i].list, l[i].n);
			counts[i] = r < 0 ? r : l[i].r < 0 ? l[i].r : -EOVERFLOW;
			continue;
		}
		if (l[i].n)
			qsort(l[i].list, l[i].n, sizeof(*l[i].list), dir_list_cmp);
		names[i] = l[i].list;
		counts[i] = (int)l[i].n;
	}
	free(l);
	return r;
}

int sl_dir_list_bounded(const struct splitlock_ctx *ctx, const char *path, int dir,
			bool (*keep)(const char *name, void *data), void *data, char ***names)
{
	int count, r = sl_dir_lists_bounded(ctx, &path, &dir, 1, keep, data, names, &count);

	return r < 0 ? r : count;
}

/* From the dentry cache where it answers; else in a bounded child. */
static int open_cached_or_bounded(const struct splitlock_ctx *ctx, const char *path, int flags,
				  mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_CACHED | (real_root(ctx) ? 0 : RESOLVE_IN_ROOT),
	};
	const char *rel = path;
	int fd;

	if (!real_root(ctx))
		while (*rel == '/')
			rel++;
	if (!ctx->no_openat2 && *rel) {
		fd = (int)syscall(SYS_openat2, real_root(ctx) ? AT_FDCWD : ctx->root_fd, rel,
				  &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EACCES)
			return -errno;
	}
	return open_bounded(ctx, path, flags, mode);
}

/*
 * Any work that reads directories every user can read, in a bounded
 * child: libkmod's modprobe.d listings, the scan of /boot (tenth review).
 * The child's messages come back one by one, each after a type byte:
 * RUN_DATA for @take, RUN_END with the work's int32 result. The bound is
 * for the whole work, RUN_TIMEOUT_MS: one reset at each message let a
 * user who held one directory after another, each for a little less than
 * the bound, stretch root's scan of /boot without end (fourteenth
 * review). Twice a lookup's, for a large /boot and ESP on a cold cache.
 */
#define RUN_TIMEOUT_MS (2 * SL_LOOKUP_TIMEOUT_MS)
enum { RUN_DATA = 'd', RUN_END = 'e' };
#define RUN_MESSAGE_MAX (64 * 1024)

struct sl_emitter {
	int sock; /* the child's end, or -1: in this process */
	int (*take)(void *data, const void *msg, size_t len);
	void *data;
};

int sl_emit(struct sl_emitter *e, const void *msg, size_t len)
{
	char type = RUN_DATA;
	struct iovec iov[2] = { { &type, 1 }, { (void *)msg, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (len > RUN_MESSAGE_MAX - 1)
		return -EMSGSIZE;
	if (e->sock < 0)
		return e->take(e->data, msg, len);
	return sendmsg(e->sock, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

struct run_args {
	int (*fn)(struct splitlock_ctx *ctx, void *arg, struct sl_emitter *e);
	void *arg;
};

static void run_work(const struct splitlock_ctx *ctx, void *arg, int sock)
{
	struct run_args *a = arg;
	struct sl_emitter e = { .sock = sock };
	char end[1 + sizeof(int32_t)] = { RUN_END };
	int32_t r = a->fn((struct splitlock_ctx *)ctx, a->arg, &e);

	memcpy(end + 1, &r, sizeof(r));
	send(sock, end, sizeof(end), MSG_NOSIGNAL);
}

int sl_run_bounded(struct splitlock_ctx *ctx, const char *what, const char *action,
		   int (*fn)(struct splitlock_ctx *ctx, void *arg, struct sl_emitter *e),
		   void *arg, int (*take)(void *data, const void *msg, size_t len), void *data)
{
	struct run_args a = { fn, arg };
	_cleanup_free_ char *buf = NULL;
	struct bounded b = { .action = action };
	int r;

	r = bounded_start(ctx, what, run_work, &a, NULL, 0, &b);
	if (r == 0) {
		b.deadline.tv_sec += (RUN_TIMEOUT_MS - SL_LOOKUP_TIMEOUT_MS) / 1000;
		b.timeout_s = RUN_TIMEOUT_MS / 1000;
	}
	if (r == -EAFNOSUPPORT) {
		struct sl_emitter e = { .sock = -1, .take = take, .data = data };

		return fn(ctx, arg, &e);
	}
	if (r == -EAGAIN)
		r = -ETIMEDOUT;
	if (r < 0)
		return r;
	buf = malloc(RUN_MESSAGE_MAX);
	if (!buf) {
		kill(b.pid, SIGKILL);
		bounded_end(ctx, what, &b);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t len;

		r = bounded_wait(ctx, what, &b);
		if (r < 0)
			return r;
		len = recv(b.sock, buf, RUN_MESSAGE_MAX, 0);
		if (len <= 0) {
			/* The child ended without its answer: it crashed. */
			r = len < 0 ? -errno : -EIO;
			break;
		}
		if (buf[0] == RUN_END && len == 1 + (ssize_t)sizeof(int32_t)) {
			int32_t v;

			memcpy(&v, buf + 1, sizeof(v));
			r = v;
			break;
		}
		if (buf[0] != RUN_DATA) {
			r = -EIO;
			break;
		}
		r = take(data, buf + 1, (size_t)len - 1);
		if (r < 0)
			break;
	}
	if (r < 0 && r != -ETIMEDOUT)
		kill(b.pid, SIGKILL);
	bounded_end(ctx, what, &b);
	return r;
}

int sl_open_bounded(const struct splitlock_ctx *ctx, const char *path, int flags)
{
	if (ctx->lookup_stalled)
		return -ETIMEDOUT;
	return open_cached_or_bounded(ctx, path, flags, 0);
}

int sl_open(const struct splitlock_ctx *ctx, const char *path, int flags,
	    mode_t mode)
{
	int fd;

	if (ctx->lookup_stalled && user_lockable(path) && !state_path(path))
		return -ETIMEDOUT;
	fd = open_run_cached(ctx, path, flags);
	if (fd != -EAGAIN)
		return fd;
	if (user_lockable(path) && !(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
		return open_cached_or_bounded(ctx, path, flags, mode);
	return open_walk(ctx, path, flags, mode);
}

int sl_open_dir(const struct splitlock_ctx *ctx, const char *path)
{
	return sl_open(ctx, path, O_RDONLY | O_DIRECTORY, 0);
}

/* Open the parent directory of @path; *base points into @path. */
int sl_open_parent(const struct splitlock_ctx *ctx, const char *path,
		       const char **base)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len;

	if (!slash) {
		*base = path;
		return sl_open_dir(ctx, ".");
	}
	len = (size_t)(slash - path);
	if (len >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, len);
	parent[len] = '\0';
	*base = slash + 1;
	return sl_open_dir(ctx, len ? parent : "/");
}

int sl_lstat(const struct splitlock_ctx *ctx, const char *path,
	     struct stat *st)
{
	const char *base;
	_cleanup_close_ int dfd = -1;
	int fd, r;

	/* Under /run or /proc, without waiting on its lock (open_run_cached()). */
	fd = open_run_cached(ctx, path, O_PATH | O_NOFOLLOW);
	if (fd >= 0) {
		r = fstat(fd, st) < 0 ? -errno : 0;
		close(fd);
		return r;
	}
	if (fd != -EAGAIN)
		return fd;
	if (user_lockable(path)) {
		/* No fstatat() on the parent: that lookup would not be bounded. */
		fd = sl_open(ctx, path, O_PATH | O_NOFOLLOW, 0);
		if (fd < 0)
			return fd;
		r = fstat(fd, st) < 0 ? -errno : 0;
		close(fd);
		return r;
	}
	dfd = sl_open_parent(ctx, path, &base);
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, *base ? base : ".", st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

int sl_readlink(const struct splitlock_ctx *ctx, const char *path, char *buf,
		size_t size)
{
	const char *base;
	_cleanup_close_ int dfd = sl_open_parent(ctx, path, &base);
	ssize_t n;

	if (dfd < 0)
		return dfd;
	n = readlinkat(dfd, base, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

int sl_access(const struct splitlock_ctx *ctx, const char *path, int mode)
{
	_cleanup_close_ int fd = sl_open(ctx, path, O_PATH, 0);

	if (fd < 0)
		return fd;
	if (mode == F_OK)
		return 0;
	if (faccessat(fd, "", mode, AT_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}
