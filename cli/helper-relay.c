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
 * thread copies what comes out of them to the caller's descriptors. If the
 * caller wedges those, only the relay waits: the helper goes on, watches
 * its caller and gives the lease back. At exit the relay gets a bounded
 * time to pass on the last messages (an error, a refusal).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "slctl.h"

/* How long exit waits for the relay to pass the last messages on. */
#define RELAY_EXIT_WAIT_SECONDS 1
/* How long one write to the caller may wait for room before it is
 * dropped; once the helper is ending, less. */
#define RELAY_WRITE_WAIT_MS 1000
#define RELAY_FINISH_WAIT_MS 100

static atomic_bool finishing;

struct relay {
	int from[2]; /* read ends of our pipes, for fd 1 and fd 2 */
	int to[2];   /* the caller's descriptors 1 and 2 */
	pthread_t thread;
	bool running;
};

static struct relay relay = { { -1, -1 }, { -1, -1 }, 0, false };

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
		int wait_ms = atomic_load(&finishing) ? RELAY_FINISH_WAIT_MS : RELAY_WRITE_WAIT_MS;
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

static void *relay_main(void *unused)
{
	struct pollfd fds[2];
	char buf[4096];
	int open_ends = 2;

	(void)unused;
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
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0) {
				pass_on(relay.to[i], buf, (size_t)n);
			} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				/* Every write end closed: nothing more to pass on. */
				fds[i].fd = -1;
				open_ends--;
			}
		}
	}
	return NULL;
}

/*
 * At exit (after the lease is given back): flush stdio into our pipes,
 * close their write ends and let the relay drain them, for a bounded time.
 * A relay wedged by its caller is left behind; the process then ends when
 * the caller lets it.
 */
static void relay_finish(void)
{
	struct timespec until;
	int null;

	if (!relay.running)
		return;
	relay.running = false;
	atomic_store(&finishing, true);
	fflush(NULL);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		/* The last write ends: the relay sees end of file. */
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RELAY_EXIT_WAIT_SECONDS;
	pthread_timedjoin_np(relay.thread, NULL, &until);
}

int helper_caller_fd(int std_fd)
{
	if (relay.running && (std_fd == STDOUT_FILENO || std_fd == STDERR_FILENO))
		return relay.to[std_fd - STDOUT_FILENO];
	return std_fd;
}

int helper_relay_start(void)
{
	sigset_t all, old;
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
	}
	if (r < 0)
		goto fail;
	for (int i = 0; i < 2; i++)
		relay.from[i] = fd[i][0];
	/*
	 * The relay takes no signal: SIGTERM, SIGINT and SIGHUP are the
	 * lease's to read from its signalfd, and a signal the relay thread
	 * took would act on the whole process.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&relay.thread, NULL, relay_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		goto fail;
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
