/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proc connector: fork, exec, comm and exit events of every process,
 * over NETLINK_CONNECTOR. It lets --follow name an offender that exited
 * before its log line was read.
 *
 * Its events arrive as NLMSG_DONE messages, which mnl_cb_run() treats as
 * the end of a dump and never hands to a data callback; so the buffer is
 * walked with mnl_nlmsg_ok()/mnl_nlmsg_next(). The decoding is a pure
 * function of the bytes, tested on canned messages.
 *
 * The kernel ignores subscriptions from a non-initial user or PID namespace
 * without an error, so those are detected beforehand.
 */
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <sys/socket.h>

#include "core/internal.h"

/* Inode numbers of the initial namespaces (include/linux/proc_ns.h). */
#define PROC_USER_INIT_INO 0xEFFFFFFDU
#define PROC_PID_INIT_INO 0xEFFFFFFCU

/* Every event names the task it is about: the child of a fork. */
static void set_task(struct splitlock_proc_event *ev, enum splitlock_proc_event_type type,
		     __kernel_pid_t pid, __kernel_pid_t tgid)
{
	ev->type = type;
	ev->pid = (uint32_t)pid;
	ev->tgid = (uint32_t)tgid;
}

static int decode_one(const struct cn_msg *cn, size_t avail,
		      splitlock_proc_event_fn fn, void *data)
{
	struct proc_event pe;
	/* The kernel's comm may fill its 16 bytes: one more for the NUL. */
	char comm[17] = "";
	struct splitlock_proc_event ev = { .comm = comm };
	size_t len;

	_Static_assert(sizeof(comm) > sizeof(pe.event_data.comm.comm),
		       "room for the kernel's comm and a NUL");

	if (avail < sizeof(*cn))
		return -EBADMSG;
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
		return 0;
	len = cn->len;
	if (len > avail - sizeof(*cn) || len < offsetof(struct proc_event, event_data))
		return -EBADMSG;
	memset(&pe, 0, sizeof(pe));
	memcpy(&pe, cn->data, len < sizeof(pe) ? len : sizeof(pe));
	ev.timestamp_ns = pe.timestamp_ns;
	/* How much of event_data the event must carry; checked once below. */
	size_t need;
	switch (pe.what) {
	case PROC_EVENT_FORK:
		need = sizeof(pe.event_data.fork);
		set_task(&ev, SPLITLOCK_PROC_FORK, pe.event_data.fork.child_pid,
			 pe.event_data.fork.child_tgid);
		ev.parent_pid = (uint32_t)pe.event_data.fork.parent_pid;
		ev.parent_tgid = (uint32_t)pe.event_data.fork.parent_tgid;
		break;
	case PROC_EVENT_EXEC:
		need = sizeof(pe.event_data.exec);
		set_task(&ev, SPLITLOCK_PROC_EXEC, pe.event_data.exec.process_pid,
			 pe.event_data.exec.process_tgid);
		break;
	case PROC_EVENT_COMM:
		need = sizeof(pe.event_data.comm);
		set_task(&ev, SPLITLOCK_PROC_COMM, pe.event_data.comm.process_pid,
			 pe.event_data.comm.process_tgid);
		ev.comm_len = strnlen(pe.event_data.comm.comm, sizeof(pe.event_data.comm.comm));
		memcpy(comm, pe.event_data.comm.comm, ev.comm_len);
		comm[ev.comm_len] = '\0';
		break;
	case PROC_EVENT_EXIT:
		/* Older kernels lack parent_pid/tgid at the end: not needed. */
		need = offsetof(struct exit_proc_event, exit_signal) + sizeof(__u32);
		set_task(&ev, SPLITLOCK_PROC_EXIT, pe.event_data.exit.process_pid,
			 pe.event_data.exit.process_tgid);
		break;
	default:
		return 0;
	}
	/* What a short event lacks reads as zero above; it is refused here. */
	if (len < offsetof(struct proc_event, event_data) + need)
		return -EBADMSG;
	return fn(&ev, data) < 0 ? -ECANCELED : 1;
}

_public_ int splitlock_proc_connector_decode(const void *buf, size_t len,
					     splitlock_proc_event_fn fn, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int remaining = len > INT32_MAX ? INT32_MAX : (int)len;
	int count = 0;

	for (;;) {
		/*
		 * mnl_nlmsg_ok() compares nlmsg_len as a signed int: a length
		 * above 2 GiB passes it and sends mnl_nlmsg_next() far beyond
		 * the buffer. Check it unsigned first (found by fuzzing).
		 */
		if (remaining >= (int)sizeof(*nlh) && nlh->nlmsg_len > (uint32_t)remaining)
			return -EBADMSG;
		if (!mnl_nlmsg_ok(nlh, remaining))
			break;
		if (nlh->nlmsg_type == NLMSG_DONE) {
			int r = decode_one(mnl_nlmsg_get_payload(nlh),
					   mnl_nlmsg_get_payload_len(nlh), fn, data);

			if (r < 0)
				return r == -ECANCELED ? count : r;
			count += r;
		} else if (nlh->nlmsg_type == NLMSG_ERROR) {
			return -EBADMSG;
		}
		nlh = mnl_nlmsg_next(nlh, &remaining);
	}
	/* Bytes left that do not make a message: a truncated datagram. */
	if (remaining != 0)
		return -EBADMSG;
	return count;
}

static bool initial_namespace(const char *link, unsigned long init)
{
	char buf[64];
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	unsigned long ino;

	if (n < 0)
		return true; /* cannot tell: try */
	buf[n] = '\0';
	return sscanf(strchr(buf, '[') ? strchr(buf, '[') + 1 : buf, "%lu", &ino) != 1 ||
	       ino == init;
}

_public_ int splitlock_proc_connector_open(struct splitlock_ctx *ctx)
{
	char buf[256];
	struct nlmsghdr *nlh;
	struct cn_msg *cn;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int fd;

	/* Only the running system has processes to follow. */
	if (!streq(ctx->root, "/"))
		return -EXDEV;
	if (!initial_namespace("/proc/self/ns/user", PROC_USER_INIT_INO) ||
	    !initial_namespace("/proc/self/ns/pid", PROC_PID_INIT_INO))
		return -EOPNOTSUPP;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	sa.nl_pid = 0;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	cn = mnl_nlmsg_put_extra_header(nlh, sizeof(*cn) + sizeof(op));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, nlh, nlh->nlmsg_len, 0) < 0)
		goto fail;
	sl_dbg(ctx, "subscribed to the proc connector");
	return fd;
fail: {
	int err = -errno;

	close(fd);
	return err;
}
}

_public_ int splitlock_proc_connector_receive(int fd, splitlock_proc_event_fn fn,
					      void *data)
{
	/* Aligned for struct nlmsghdr. */
	union {
		struct nlmsghdr h;
		char bytes[16384];
	} buf;
	int total = 0;

	for (;;) {
		ssize_t n = recv(fd, buf.bytes, sizeof(buf.bytes), MSG_DONTWAIT);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS: events were lost; go on with the next. */
			if (errno == ENOBUFS)
				continue;
			if (errno == EAGAIN)
				return total;
			return -errno;
		}
		if (n == 0)
			return total;
		r = splitlock_proc_connector_decode(buf.bytes, (size_t)n, fn, data);
		if (r > 0)
			total += r;
	}
}

_public_ void splitlock_proc_connector_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* The event's members for programs (public-types.h): one getter each. */
_public_ enum splitlock_proc_event_type
splitlock_proc_event_get_type(const struct splitlock_proc_event *ev)
{
	return ev->type;
}

_public_ uint32_t splitlock_proc_event_get_pid(const struct splitlock_proc_event *ev)
{
	return ev->pid;
}

_public_ uint32_t splitlock_proc_event_get_tgid(const struct splitlock_proc_event *ev)
{
	return ev->tgid;
}

_public_ uint32_t splitlock_proc_event_get_parent_pid(const struct splitlock_proc_event *ev)
{
	return ev->parent_pid;
}

_public_ uint32_t splitlock_proc_event_get_parent_tgid(const struct splitlock_proc_event *ev)
{
	return ev->parent_tgid;
}

_public_ uint64_t splitlock_proc_event_get_timestamp_ns(const struct splitlock_proc_event *ev)
{
	return ev->timestamp_ns;
}

_public_ const char *splitlock_proc_event_get_comm(const struct splitlock_proc_event *ev,
						   size_t *len)
{
	if (len)
		*len = ev->comm_len;
	return ev->comm ? ev->comm : "";
}
