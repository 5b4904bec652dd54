/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-task sampling of lib/count/tasks.c on the real kernel of the
 * machine running the tests: any tracepoint samples the way the patched
 * kernel's split_lock:split_lock_trap does, so syscalls:sys_enter_write
 * stands in for it, with filters on its "count" field for the two kinds
 * (1-byte writes as "split locks", 2-byte writes as "bus locks"). A tree
 * of dd processes writes 3 single bytes in one task and 2 pairs in
 * another: each task must be found, named after its exec, and counted.
 *
 * Needs root (tracepoints fire in the kernel: CAP_PERFMON) and tracefs,
 * mounted in a mount namespace of the test's own, so the machine's mounts
 * stay as they are. Skipped where either is missing.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "count/tasks.h"
#include "test.h"

static long tracepoint_id(const char *name)
{
	char path[256], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* tracefs in a mount namespace of this process's own; false: cannot. */
static bool private_tracefs(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0)
		return false;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return false;
	if (tracepoint_id("syscalls/sys_enter_write") > 0)
		return true;
	return mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0;
}

TEST(every_task_of_a_tree_is_counted_named_and_placed)
{
	static const char *const filters[2] = { "count == 1", "count == 2" };
	struct perf_event_attr attr = { 0 };
	struct sl_count_tasks *t = NULL;
	int go[2], status, r;
	bool found[2] = { false, false };
	long id;
	pid_t pid;

	if (!private_tracefs() || (id = tracepoint_id("syscalls/sys_enter_write")) <= 0) {
		SKIP("needs root and tracefs with syscall events");
		return;
	}
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;

	CHECK(pipe2(go, O_CLOEXEC) == 0);
	pid = fork();
	if (pid == 0) {
		char byte;

		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		execl("/bin/sh", "sh", "-c",
		      "dd if=/dev/zero of=/dev/null bs=1 count=3 status=none; "
		      /* sh, then env, then dd in one task: the last exec names it. */
		      "exec env dd if=/dev/zero of=/dev/null bs=2 count=2 status=none", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	r = sl_count_tasks_open(&attr, filters, pid, &t);
	if (r == -EACCES || r == -EPERM) {
		SKIP("the kernel does not let this process sample tracepoints");
		close(go[1]);
		waitpid(pid, NULL, 0);
		return;
	}
	CHECK_INT(r, 0);
	CHECK(write(go[1], "g", 1) == 1);
	close(go[1]);
	/* Read while it runs, as slctl does, then once more at the end. */
	for (;;) {
		struct pollfd p = { .fd = sl_count_tasks_fd(t), .events = POLLIN };

		poll(&p, 1, 20);
		CHECK(sl_count_tasks_drain(t) >= 0);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	CHECK(sl_count_tasks_drain(t) >= 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(sl_count_tasks_lost(t) == 0);

	for (size_t i = 0; i < sl_count_tasks_count(t); i++) {
		const struct sl_count_task *task = sl_count_tasks_get(t, i);

		/* Both dd's, named after their exec, and only they. */
		CHECK_STR(task->comm, "dd");
		CHECK(task->nips >= 1 && task->ips[0] != 0);
		if (task->n[0] == 3 && task->n[1] == 0)
			found[0] = true;
		else if (task->n[0] == 0 && task->n[1] == 2)
			found[1] = true;
		else
			CHECK(!"a task with other counts");
	}
	CHECK(found[0]);
	CHECK(found[1]);
	CHECK_INT((int)sl_count_tasks_count(t), 2);
	sl_count_tasks_free(t);
}
