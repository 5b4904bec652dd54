/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SPLITLOCK_ARENA_H
#define SPLITLOCK_ARENA_H

#include <stddef.h>

/*
 * Memory for many small objects that live as long as their owner: carved
 * from chunks that are all freed at once. See arena.c.
 */
struct sl_arena_chunk;

struct sl_arena {
	struct sl_arena_chunk *head;
	size_t next_size;
};

/* @size zeroed bytes, aligned for any object; NULL when out of memory. */
void *sl_arena_alloc(struct sl_arena *a, size_t size);
/* Frees every chunk; the arena can be used again. */
void sl_arena_release(struct sl_arena *a);

#endif
