/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A report of a large log holds one small offender per task: tens of
 * thousands of objects of a hundred-odd bytes. Allocated one by one, each
 * new page of them is a page fault, and on a virtual machine a fault costs
 * microseconds: a tenth of the report's time. Chunks mapped with
 * MAP_POPULATE get their pages in one system call instead, and doubling
 * sizes keep a small report small.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "core/arena.h"

#define FIRST_CHUNK (64u * 1024)
#define LARGEST_CHUNK (4u * 1024 * 1024)
#define ALIGN 16

struct sl_arena_chunk {
	struct sl_arena_chunk *next;
	size_t size, used;
	_Alignas(ALIGN) char data[];
};

void *sl_arena_alloc(struct sl_arena *a, size_t size)
{
	struct sl_arena_chunk *c = a->head;
	void *p;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (!c || c->size - c->used < size) {
		size_t bytes = a->next_size ? a->next_size : FIRST_CHUNK;

		while (bytes - sizeof(*c) < size)
			bytes *= 2;
		c = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		c->size = bytes - sizeof(*c);
		c->used = 0;
		c->next = a->head;
		a->head = c;
		if (bytes < LARGEST_CHUNK)
			a->next_size = bytes * 2;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

void sl_arena_release(struct sl_arena *a)
{
	while (a->head) {
		struct sl_arena_chunk *next = a->head->next;

		munmap(a->head, a->head->size + sizeof(*a->head));
		a->head = next;
	}
	a->next_size = 0;
}
