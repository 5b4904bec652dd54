/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The root helper never writes to a descriptor its caller gave it: a
 * thread of its own does, and the helper writes into pipes it made.
 *
 * Non-blocking descriptors are not enough. A write to a pipe takes the
 * pipe's mutex, and a write to a regular file the file's inode lock, both
 * before O_NONBLOCK is looked at and without a bound; the caller can hold
 * either for ever by writing into the same pipe or file from a buffer
 * mmap()ed from a FUSE file system of its own that never answers (the
 * write faults the page in while holding the lock). A root helper waiting
 * there, uninterruptibly, holding /run/slctl/leases.lock or a lease, kept
 * the penalty off after the caller had gone (third hostile review).
 *
 * So descriptors 1 and 2 become the write ends of two pipes of ours,
 * non-blocking (a full pipe drops a message rather than wait), and a relay
 * copies what comes out of them to the caller's descriptors. If the
 * caller wedges those, only the relay waits: the helper goes on, watches
 * its caller and gives the lease back. At exit the relay gets a bounded
 * time to pass on the last messages (an error, a refusal).
 *
 * The relay is a process, forked before any lease is taken, not a thread:
 * a thread parked in such a write cannot end, SIGKILL or not, and the
 * process with it, whose descriptors, the lease file and its lock among
 * them, then stayed open. Root's SIGKILL of a helper left its lease live
 * for as long as the user kept the relay wedged (ninth review). A relay
 * process shares no descriptor table: it holds nothing of the lease, and
 * dies with the helper (PR_SET_PDEATHSIG) once the user lets go.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slctl.h"

/* How long exit waits for the relay to pass the last messages on. */
#define RELAY_EXIT_WAIT_SECONDS 1
/* How long one write to the caller may wait for room before it is
 * dropped; once the helper is ending, less. */
#define RELAY_WRITE_WAIT_MS 1000
#define RELAY_FINISH_WAIT_MS 100

/* In the relay: the helper has closed its ends (it is ending). */
static bool finishing;

struct relay {
	int from[2]; /* read ends of our pipes, for fd 1 and fd 2 */
	int to[2];   /* the caller's descriptors 1 and 2 (in the relay only) */
	struct stat caller[2]; /* what they were, for the helper's checks */
	pid_t pid;
	bool running;
};

static struct relay relay = { .from = { -1, -1 }, .to = { -1, -1 } };

/*
 * All of @buf to @fd, a page at a time and only once poll() says there is
 * room: the caller's descriptor may be a blocking one (we do not reopen
 * it: an open of a FIFO takes its mutex too), and a write of one page into
 * a pipe with a free slot does not wait for room. Room that does not come
 * within the wait drops the rest.
 */
static void pass_on(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int wait_ms = finishing ? RELAY_FINISH_WAIT_MS : RELAY_WRITE_WAIT_MS;
		ssize_t n;

		if (poll(&p, 1, wait_ms) <= 0 || (p.revents & (POLLERR | POLLNVAL | POLLHUP)))
			return; /* no room in time, gone, or an error: dropped */
		n = write(fd, buf, len < 4096 ? len : 4096);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EINTR && errno != EAGAIN) {
			return;
		}
	}
}

static void relay_main(void)
{
	struct pollfd fds[2];
	char buf[4096];
	int open_ends = 2;

	for (int i = 0; i < 2; i++)
		fds[i] = (struct pollfd){ .fd = relay.from[i], .events = POLLIN };
	while (open_ends > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!fds[i].revents)
				continue;
			/* Every write end closed: the helper ends; what is left
			 * is its last words, passed on without long waits. */
			if (fds[i].revents & POLLHUP)
				finishing = true;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0) {
				pass_on(relay.to[i], buf, (size_t)n);
			} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				fds[i].fd = -1;
				open_ends--;
			}
		}
	}
}

/*
 * At exit (after the lease is given back): flush stdio into our pipes,
 * close their write ends and let the relay drain them, for a bounded time.
 * A relay wedged by its caller is killed and left behind; it ends when
 * the caller lets it (SIGKILL is pending), and holds nothing meanwhile.
 */
static void relay_finish(void)
{
	struct pollfd p;
	int null, pidfd, n;

	if (!relay.running)
		return;
	relay.running = false;
	fflush(NULL);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		/* The last write ends: the relay sees end of file. */
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	pidfd = (int)syscall(SYS_pidfd_open, relay.pid, 0);
	if (pidfd < 0) {
		kill(relay.pid, SIGKILL);
		return;
	}
	p = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	do
		n = poll(&p, 1, RELAY_EXIT_WAIT_SECONDS * 1000);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		waitpid(relay.pid, NULL, WNOHANG);
	else
		kill(relay.pid, SIGKILL);
	close(pidfd);
}

int helper_caller_fstat(int std_fd, struct stat *st)
{
	if (relay.running && (std_fd == STDOUT_FILENO || std_fd == STDERR_FILENO)) {
		*st = relay.caller[std_fd - STDOUT_FILENO];
		return 0;
	}
	return fstat(std_fd, st) < 0 ? -errno : 0;
}

int helper_relay_start(void)
{
	pid_t helper = getpid();
	int fd[2][2] = { { -1, -1 }, { -1, -1 } };
	int r = 0;

	for (int i = 0; i < 2 && r == 0; i++)
		if (pipe2(fd[i], O_CLOEXEC) < 0)
			r = -errno;
	for (int i = 0; i < 2 && r == 0; i++) {
		/* Ours to write without waiting; the caller's kept for the relay. */
		relay.to[i] = fcntl(STDOUT_FILENO + i, F_DUPFD_CLOEXEC, 3);
		if (relay.to[i] < 0 || fcntl(fd[i][1], F_SETFL, O_NONBLOCK) < 0)
			r = -errno;
		/* Only looked at, never required: a FUSE mount without
		 * allow_other answers root's fstat() with EACCES. */
		else if (fstat(relay.to[i], &relay.caller[i]) < 0)
			relay.caller[i].st_mode = 0;
	}
	if (r < 0)
		goto fail;
	for (int i = 0; i < 2; i++)
		relay.from[i] = fd[i][0];
	fflush(NULL); /* nothing buffered is written twice */
	relay.pid = fork();
	if (relay.pid < 0) {
		r = -errno;
		goto fail;
	}
	if (relay.pid == 0) {
		/*
		 * Only what it relays: the pipes' read ends and the caller's
		 * descriptors. SIGTERM, SIGINT and SIGHUP are the lease's (the
		 * helper's, read from its signalfd): a relay that root's
		 * SIGTERM of the process group ended would lose the helper's
		 * last words. It dies with the helper.
		 */
		sigset_t stops;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != helper)
			_exit(0);
		signal(SIGPIPE, SIG_IGN);
		sigemptyset(&stops);
		sigaddset(&stops, SIGTERM);
		sigaddset(&stops, SIGINT);
		sigaddset(&stops, SIGHUP);
		sigprocmask(SIG_BLOCK, &stops, NULL);
		for (int i = 0; i < 2; i++)
			close(fd[i][1]);
		for (int i = 0; i < 2; i++)
			relay.from[i] = fd[i][0];
		close(STDIN_FILENO);
		relay_main();
		_exit(0);
	}
	/*
	 * The caller's descriptors are the relay's alone. Kept here too, they
	 * would be closed at the helper's exit before the lease file, and a
	 * close flushes: a file on the user's FUSE file system that never
	 * answers the flush held a SIGKILLed helper, and its lease file's
	 * lock, for as long as the user liked (tenth review, attack 4).
	 */
	for (int i = 0; i < 2; i++) {
		close(fd[i][0]);
		fd[i][0] = -1;
		close(relay.to[i]);
		relay.to[i] = -1;
	}
	if (dup2(fd[0][1], STDOUT_FILENO) < 0 || dup2(fd[1][1], STDERR_FILENO) < 0) {
		/* The relay runs, with nothing to pass on yet: stop it the usual way. */
		r = -errno;
		close(fd[0][1]);
		close(fd[1][1]);
		relay.running = true;
		relay_finish();
		return r;
	}
	close(fd[0][1]);
	close(fd[1][1]);
	relay.running = true;
	atexit(relay_finish);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < 2; j++)
			if (fd[i][j] >= 0)
				close(fd[i][j]);
		if (relay.to[i] >= 0)
			close(relay.to[i]);
		relay.to[i] = relay.from[i] = -1;
	}
	return r;
}
