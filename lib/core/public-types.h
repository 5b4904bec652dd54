/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The members of the types that libsplitlock.h declares opaque. Only the
 * library and its white-box tests see them: a program sees getters, so
 * that a member added here breaks no program built against an older
 * header (issue 27). Add members at the end; a getter goes with each.
 */
#ifndef SPLITLOCK_PUBLIC_TYPES_H
#define SPLITLOCK_PUBLIC_TYPES_H

#include "libsplitlock.h"

/* One record of the kernel log. Strings belong to the reader. */
struct splitlock_kmsg_record {
	int facility;          /* 0 = kernel; user-space writes are >= 1 */
	int level;             /* syslog level 0..7 */
	uint64_t seq;          /* record sequence number */
	uint64_t usec;         /* CLOCK_MONOTONIC (boot-time) microseconds */
	const char *message;   /* \xNN escapes decoded; may contain NULs */
	size_t message_len;
};

/* A detector line, parsed (detector-line.c). */
struct splitlock_event {
	enum splitlock_kind kind;
	enum splitlock_action action;
	const char *comm;     /* points into the message, not terminated */
	size_t comm_len;
	uint32_t pid;         /* the TID the kernel printed */
	bool has_ip;
	uint64_t ip;
	const char *object;   /* traps lines: " in OBJ[...]", or NULL */
	size_t object_len;
	bool has_object_offset;
	uint64_t object_offset;
	uint64_t suppressed;  /* SPLITLOCK_LINE_SUPPRESSED: the count */
};

/* A proc connector event, as the decoder hands it to its callback. */
struct splitlock_proc_event {
	enum splitlock_proc_event_type type;
	uint32_t pid, tgid;            /* the task (child for FORK) */
	uint32_t parent_pid, parent_tgid; /* FORK */
	uint64_t timestamp_ns;         /* CLOCK_MONOTONIC of the event */
	const char *comm;   /* COMM, terminated; points into the decoded buffer */
	size_t comm_len;    /* 0, comm "", for the other events */
};

/* The MSR bits msr.c reads (enum splitlock_msr_bit has no _MAX). */
#define SL_MSR_BIT_COUNT 3

#endif
