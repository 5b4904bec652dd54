/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lease directory /run/slctl/leases (run/lease.c takes and drops
 * leases; run/leases-read.c reads them for status): its files, how a lease
 * is named and read, and whether it lives (run/lease-dir.c).
 */
#ifndef SPLITLOCK_RUN_LEASE_H
#define SPLITLOCK_RUN_LEASE_H

#include "core/internal.h"

#define LEASE_DIR "leases"
#define LEASE_LOCK "leases.lock"
#define SAVED "saved"
/* A launcher may start a few runs at once; every lease of a user is a
 * root helper process that the user's own process limit does not count. */
#define SL_LEASES_PER_UID 8
#define BOOT_ID_SIZE 40
#define MITIGATE_PATH "/proc/sys/kernel/split_lock_mitigate"

/*
 * What a take and its drop need, opened before leases.lock is taken and
 * kept until the drop: the drop looks nothing up outside /run/slctl.
 */
struct lease_files {
	int mitigate;    /* kernel.split_lock_mitigate, O_RDWR */
	bool in_place;   /* a fake root's file, written in place as procfs's */
	char boot[BOOT_ID_SIZE];
};


struct lease_entry {
	uint32_t holder, run, uid;
	uint64_t start, run_start;  /* run_start 0: not recorded */
	int64_t since;
	char boot[BOOT_ID_SIZE];    /* "": not recorded */
	bool live;
};

struct splitlock_leases {
	struct lease_entry *entries;
	size_t count;
	int saved;       /* -1: slctl owes nothing */
};

struct lease_dir {
	int dir;         /* /run/slctl/leases */
	int lock;        /* /run/slctl/leases.lock, flocked */
};

/*
 * Open and lock the lease directory. Without @create a missing one is
 * -ENOENT, and nothing is created: readers and the mitigate plan must not
 * leave directories behind.
 */
int sl_lease_dir_open(struct splitlock_ctx *ctx, bool create, struct lease_dir *ld);
void sl_lease_dir_close(struct lease_dir *ld);
/* "PID-START-TAG": the holder's PID and start time. */
bool sl_lease_parse_name(const char *name, uint32_t *pid, uint64_t *start);
/* The lease files of @dir, sorted; their count or a negative errno. */
int sl_lease_list(int dir, char ***names);
/* Does the lease @name (@e read from it) live, in boot @boot? */
bool sl_lease_alive(struct splitlock_ctx *ctx, int dir, const char *name,
		    const struct lease_entry *e, const char *boot);
/* A small file of @dir, NUL-terminated, in @buf. */
int sl_lease_read_small(int dir, const char *name, char *buf, size_t size);
/* The value saved in boot @boot; -ENOENT where none is owed. */
int sl_lease_read_saved(int dir, const char *boot, int *value);
/* The key=value lines of the lease file @name into @e. */
int sl_lease_read_entry(int dir, const char *name, struct lease_entry *e);

#endif
