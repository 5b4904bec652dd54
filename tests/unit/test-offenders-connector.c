/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proc connector decoder on canned netlink bytes: no socket. */
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <errno.h>

#include "test.h"
#include "libsplitlock.h"

/* What the getters tell of an event, kept past the callback. */
struct got {
	enum splitlock_proc_event_type type;
	uint32_t pid, tgid, parent_pid, parent_tgid;
	uint64_t timestamp_ns;
	const char *comm;
	size_t comm_len;
};

struct seen {
	struct got ev[8];
	char comm[8][32]; /* the event's comm is the decoder's, until it returns */
	int n;
};

static int collect(const struct splitlock_proc_event *ev, void *data)
{
	struct seen *s = data;

	if (s->n < 8) {
		struct got *g = &s->ev[s->n];
		const char *comm = splitlock_proc_event_get_comm(ev, &g->comm_len);

		CHECK_INT(strlen(comm), g->comm_len);
		snprintf(s->comm[s->n], sizeof(s->comm[s->n]), "%s", comm);
		g->comm = s->comm[s->n];
		g->type = splitlock_proc_event_get_type(ev);
		g->pid = splitlock_proc_event_get_pid(ev);
		g->tgid = splitlock_proc_event_get_tgid(ev);
		g->parent_pid = splitlock_proc_event_get_parent_pid(ev);
		g->parent_tgid = splitlock_proc_event_get_parent_tgid(ev);
		g->timestamp_ns = splitlock_proc_event_get_timestamp_ns(ev);
		s->n++;
	}
	return 0;
}

/*
 * An exec event of pid 4242 as the kernel sends it (x86-64, little endian):
 * nlmsghdr (len 76, type NLMSG_DONE), cn_msg (idx 1, val 1, len 40),
 * proc_event (what 2, cpu 3, timestamp 5000000000 ns, pid 4242, tgid 4242).
 */
static const unsigned char exec_event[76] __attribute__((aligned(4))) = {
	0x4c, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, /* len, type, flags */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, pid */
	0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, /* idx, val */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, ack */
	0x28, 0x00, 0x00, 0x00,                         /* len, flags */
	0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, /* what, cpu */
	0x00, 0xf2, 0x05, 0x2a, 0x01, 0x00, 0x00, 0x00, /* timestamp_ns */
	0x92, 0x10, 0x00, 0x00, 0x92, 0x10, 0x00, 0x00, /* pid, tgid */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

TEST(decodes_canned_exec_bytes)
{
	struct seen s = { 0 };

	CHECK_INT(splitlock_proc_connector_decode(exec_event, sizeof(exec_event), collect, &s), 1);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.ev[0].type, SPLITLOCK_PROC_EXEC);
	CHECK_INT(s.ev[0].pid, 4242);
	CHECK_INT(s.ev[0].tgid, 4242);
	CHECK(s.ev[0].timestamp_ns == 5000000000ull);
}

/* Several messages in one datagram, built from the kernel's structs. */
static size_t put(unsigned char *buf, size_t off, const struct proc_event *pe)
{
	struct nlmsghdr nlh = { .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(*pe) };

	nlh.nlmsg_len = NLMSG_LENGTH(sizeof(cn) + sizeof(*pe));
	memcpy(buf + off, &nlh, sizeof(nlh));
	memcpy(buf + off + sizeof(nlh), &cn, sizeof(cn));
	memcpy(buf + off + sizeof(nlh) + sizeof(cn), pe, sizeof(*pe));
	return off + NLMSG_ALIGN(nlh.nlmsg_len);
}

TEST(decodes_fork_comm_exit_in_one_datagram)
{
	static unsigned char buf[1024] __attribute__((aligned(4)));
	struct proc_event fork = { .what = PROC_EVENT_FORK };
	struct proc_event comm = { .what = PROC_EVENT_COMM };
	struct proc_event uid = { .what = PROC_EVENT_UID };
	struct proc_event exit_ = { .what = PROC_EVENT_EXIT };
	struct seen s = { 0 };
	size_t len = 0;

	fork.event_data.fork.parent_pid = 10;
	fork.event_data.fork.parent_tgid = 10;
	fork.event_data.fork.child_pid = 11;
	fork.event_data.fork.child_tgid = 10;
	comm.event_data.comm.process_pid = 11;
	comm.event_data.comm.process_tgid = 10;
	memcpy(comm.event_data.comm.comm, "CPU 0/KVM", 10);
	exit_.event_data.exit.process_pid = 11;
	exit_.event_data.exit.process_tgid = 10;
	len = put(buf, len, &fork);
	len = put(buf, len, &uid); /* skipped */
	len = put(buf, len, &comm);
	len = put(buf, len, &exit_);
	CHECK_INT(splitlock_proc_connector_decode(buf, len, collect, &s), 3);
	CHECK_INT(s.n, 3);
	CHECK_INT(s.ev[0].type, SPLITLOCK_PROC_FORK);
	CHECK_INT(s.ev[0].pid, 11);
	CHECK_INT(s.ev[0].tgid, 10);
	CHECK_INT(s.ev[0].parent_pid, 10);
	CHECK_INT(s.ev[0].parent_tgid, 10);
	CHECK_INT(s.ev[1].type, SPLITLOCK_PROC_COMM);
	CHECK_STR(s.ev[1].comm, "CPU 0/KVM");
	CHECK_INT(s.ev[1].comm_len, 9);
	CHECK_STR(s.ev[0].comm, "");
	CHECK_INT(s.ev[0].comm_len, 0);
	CHECK_INT(s.ev[2].type, SPLITLOCK_PROC_EXIT);
	CHECK_INT(s.ev[2].pid, 11);
}

/* The kernel's 16 bytes of comm, none of them NUL: all kept, terminated. */
TEST(decodes_a_comm_that_fills_its_field)
{
	static unsigned char buf[256] __attribute__((aligned(4)));
	struct proc_event comm = { .what = PROC_EVENT_COMM };
	struct seen s = { 0 };
	size_t len;

	memcpy(comm.event_data.comm.comm, "0123456789abcdef", 16);
	len = put(buf, 0, &comm);
	CHECK_INT(splitlock_proc_connector_decode(buf, len, collect, &s), 1);
	CHECK_INT(s.ev[0].comm_len, 16);
	CHECK_STR(s.ev[0].comm, "0123456789abcdef");
}

TEST(rejects_truncated_and_foreign_bytes)
{
	unsigned char buf[76] __attribute__((aligned(4)));
	struct seen s = { 0 };

	/* Cut short anywhere: an error or nothing, never a read past the end. */
	for (size_t n = 1; n < sizeof(exec_event); n++)
		CHECK(splitlock_proc_connector_decode(exec_event, n, collect, &s) <= 0);
	CHECK_INT(s.n, 0);
	/* cn_msg claims more data than the message has. */
	memcpy(buf, exec_event, sizeof(buf));
	buf[32] = 0xff;
	CHECK_INT(splitlock_proc_connector_decode(buf, sizeof(buf), collect, &s), -EBADMSG);
	/* Another connector's message is not ours. */
	memcpy(buf, exec_event, sizeof(buf));
	buf[16] = 0x07;
	CHECK_INT(splitlock_proc_connector_decode(buf, sizeof(buf), collect, &s), 0);
	CHECK_INT(s.n, 0);
}

TEST(rejects_an_event_shorter_than_its_data)
{
	unsigned char buf[76] __attribute__((aligned(4)));
	struct seen s = { 0 };

	/* An exec event whose cn_msg ends halfway through pid and tgid. */
	memcpy(buf, exec_event, sizeof(buf));
	buf[32] = offsetof(struct proc_event, event_data) + 4;
	CHECK_INT(splitlock_proc_connector_decode(buf, sizeof(buf), collect, &s), -EBADMSG);
	CHECK_INT(s.n, 0);
}

TEST(rejects_a_length_libmnl_would_trust)
{
	unsigned char buf[76] __attribute__((aligned(4)));
	struct seen s = { 0 };

	/* nlmsg_len 0xffffff78: negative as an int, which mnl_nlmsg_ok() takes. */
	memcpy(buf, exec_event, sizeof(buf));
	buf[0] = 0x78;
	buf[1] = buf[2] = buf[3] = 0xff;
	CHECK_INT(splitlock_proc_connector_decode(buf, sizeof(buf), collect, &s), -EBADMSG);
	CHECK_INT(s.n, 0);
}
