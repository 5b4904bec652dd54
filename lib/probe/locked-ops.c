/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The locked instructions the probe times, and the neighbour's workload.
 *
 * A locked add whose 4-byte operand crosses a 64-byte line cannot be done
 * in one cache line: the CPU locks the bus (or, with detection armed,
 * raises #AC before, or #DB after, the instruction). The operand's address
 * is passed in a register so the compiler never sees a misaligned object.
 */
#include <time.h>

#include "core/internal.h"
#include "probe/probe.h"

/* Batches of ops timed together, for a median that one hiccup cannot move. */
#define COST_BATCHES 31
/* A batch lasts at least this long so the clock's overhead is noise. */
#define BATCH_MIN_NS 100000ull
#define BATCH_MAX_OPS 4096u

uint64_t sl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sl_locked_add(void *addr)
{
	__asm__ volatile("lock addl $1, (%0)" : : "r"(addr) : "memory", "cc");
}

static uint64_t time_batch(void *addr, unsigned ops)
{
	uint64_t start = sl_now_ns();

	for (unsigned i = 0; i < ops; i++)
		sl_locked_add(addr);
	return sl_now_ns() - start;
}

double sl_lock_cost_ns(void *addr, uint64_t budget_ns)
{
	double per_op[COST_BATCHES];
	uint64_t spent = 0, t;
	unsigned ops = 1;
	size_t n = 0;

	/* Grow the batch until it is long enough to time, within the budget. */
	while ((t = time_batch(addr, ops)) < BATCH_MIN_NS && ops < BATCH_MAX_OPS &&
	       spent < budget_ns / 4) {
		spent += t;
		ops *= 2;
	}
	spent += t;
	while (n < COST_BATCHES && (spent < budget_ns || n < 5)) {
		t = time_batch(addr, ops);
		spent += t;
		per_op[n++] = (double)t / ops;
	}
	return sl_median(per_op, n);
}

double sl_memory_throughput(const char *buf, size_t size, uint64_t window_ns)
{
	/* A stride past one page defeats the prefetchers: every load misses. */
	const size_t stride = 4096 + 64;
	volatile char sink = 0;
	uint64_t start = sl_now_ns(), elapsed, loads = 0;
	size_t at = 0;

	do {
		for (int i = 0; i < 256; i++) {
			sink += buf[at];
			at += stride;
			if (at >= size)
				at -= size;
		}
		loads += 256;
		elapsed = sl_now_ns() - start;
	} while (elapsed < window_ns);
	(void)sink;
	return (double)loads * 1000.0 / (double)elapsed;
}
