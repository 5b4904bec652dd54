/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bounded child (core/bounded.c): the machinery that core/path.c's
 * lookups, core/bounded-list.c's listings and core/bounded-run.c's scans
 * share.
 */
#ifndef SPLITLOCK_CORE_BOUNDED_H
#define SPLITLOCK_CORE_BOUNDED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct splitlock_ctx;

/* The most descriptors a child's work may be given. */
#define BOUNDED_MAX_FDS 8

struct bounded {
	pid_t pid;
	int sock;
	const char *action; /* "lookup", "listing", ... for messages: the caller's */
	/* The caller does the work itself where no child can start: no error
	 * is said (the lookup of slctl's own state). */
	bool fallback;
	unsigned timeout_s; /* the bound, for messages */
	struct timespec deadline;
};

/*
 * /run/slctl or a path under it, slctl's own state: found without a lock
 * where it exists, and looked up even after a stall.
 */
bool sl_state_path(const char *path);

/*
 * A child that does @work(@ctx, @arg, its end of a socket pair) with only
 * @fds (negative ones skipped) and the root open: 0, or -ETIMEDOUT (a
 * stall before), -EAGAIN (no child or socket: said, and later lookups
 * answer -ETIMEDOUT), -EAFNOSUPPORT (a kernel without UNIX sockets: do
 * the work in this process).
 */
int sl_bounded_start(const struct splitlock_ctx *ctx, const char *what,
		     void (*work)(const struct splitlock_ctx *ctx, void *arg, int sock),
		     void *arg, const int *fds, size_t n_fds, struct bounded *b);
/* Until the child's next message is there: 0, or -ETIMEDOUT after a stall. */
int sl_bounded_wait(const struct splitlock_ctx *ctx, const char *what, struct bounded *b);
/* The child answered: reaped once it has closed its end (or killed, left). */
void sl_bounded_end(const struct splitlock_ctx *ctx, const char *what, struct bounded *b);
/* One descriptor (or error) from the child, then its end. */
int sl_bounded_fd(const struct splitlock_ctx *ctx, const char *what, struct bounded *b);
/* In the child: @fd, or the negative errno, to the parent. */
int sl_send_fd(int sock, int fd);

#endif
