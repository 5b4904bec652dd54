/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Any work that reads directories every user can read (libkmod's
 * listings, the scan of /boot), in a bounded child (core/bounded.c) that
 * hands its results back as messages.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "core/bounded.h"
#include "core/internal.h"

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

	r = sl_bounded_start(ctx, what, run_work, &a, NULL, 0, &b);
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
		sl_bounded_end(ctx, what, &b);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t len;

		r = sl_bounded_wait(ctx, what, &b);
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
	sl_bounded_end(ctx, what, &b);
	return r;
}
