/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SPLITLOCK_COUNT_TASKS_H
#define SPLITLOCK_COUNT_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libsplitlock.h"

#define SL_TASK_MAX_IPS 8

/* One task (thread) of the tree that trapped, as the kernel log names it. */
struct sl_count_task {
	uint32_t tid;
	char comm[16];           /* "" until a COMM or FORK record names it */
	uint64_t n[2];           /* by enum splitlock_kind */
	uint64_t ips[SL_TASK_MAX_IPS];
	unsigned nips;
	bool ips_dropped;        /* more addresses than SL_TASK_MAX_IPS */
};

/*
 * Per-task counts and trap addresses of a tracepoint source: one sampling
 * event per kind and CPU, inherited, into one ring buffer per CPU.
 */
struct sl_count_tasks;

/* Open the sampling events of @attr (the counting event's) with @filters
 * (by kind) on @pid; -errno (-EACCES, -ENOMEM, ...) and *out NULL when the
 * kernel will not sample. */
int sl_count_tasks_open(const struct perf_event_attr *attr, const char *const filters[2],
			pid_t pid, struct sl_count_tasks **out);
void sl_count_tasks_free(struct sl_count_tasks *t);
/* An fd that polls readable when a ring buffer has records. */
int sl_count_tasks_fd(const struct sl_count_tasks *t);
/* Read every ring buffer's records; how many, or -ENOMEM. */
int sl_count_tasks_drain(struct sl_count_tasks *t);
size_t sl_count_tasks_count(const struct sl_count_tasks *t);
const struct sl_count_task *sl_count_tasks_get(const struct sl_count_tasks *t, size_t i);
/* Samples the kernel could not write (full buffers): the per-task counts
 * are then short of the totals. */
uint64_t sl_count_tasks_lost(const struct sl_count_tasks *t);

#endif
