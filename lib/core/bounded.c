/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Work that may wait on a lock another user holds (a lookup, a mkdir, a
 * listing, a scan), done in a child that this process waits for with a
 * bound.
 *
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
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "core/bounded.h"
#include "core/internal.h"

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
bool sl_state_path(const char *path)
{
	while (*path == '/')
		path++;
	return strncmp(path, "run/slctl", 9) == 0 && (path[9] == '/' || path[9] == '\0');
}

int sl_send_fd(int sock, int fd)
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
int sl_bounded_start(const struct splitlock_ctx *ctx, const char *what,
			 void (*work)(const struct splitlock_ctx *ctx, void *arg, int sock),
			 void *arg, const int *fds, size_t n_fds, struct bounded *b)
{
	int sv[2];

	if (ctx->lookup_stalled && !sl_state_path(what))
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
	b->pid = fork();
	if (b->pid < 0) {
		if (!b->fallback)
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
int sl_bounded_wait(const struct splitlock_ctx *ctx, const char *what, struct bounded *b)
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
void sl_bounded_end(const struct splitlock_ctx *ctx, const char *what, struct bounded *b)
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
int sl_bounded_fd(const struct splitlock_ctx *ctx, const char *what, struct bounded *b)
{
	int fd = sl_bounded_wait(ctx, what, b);

	if (fd < 0)
		return fd;
	fd = recv_fd(b->sock);
	sl_bounded_end(ctx, what, b);
	return fd;
}
