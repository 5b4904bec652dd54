/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between the report, the follower and process resolution. */
#ifndef SPLITLOCK_OFFENDERS_INTERNAL_H
#define SPLITLOCK_OFFENDERS_INTERNAL_H

#include "core/internal.h"
#include "log/reader.h"

/* offenders/resolve.c: what the live system says about a task. */
struct sl_procinfo {
	uint32_t tid, tgid;
	int64_t start_usec; /* since boot; SPLITLOCK_TIME_UNKNOWN if unknown */
	char *exe, *cmdline, *unit, *container;
	/* /proc/PID/split_lock of the patched kernel; -1 when absent. */
	int64_t kernel_ac_traps, kernel_db_traps;
	bool from_connector; /* learned from the proc connector */
	/* An exec seen whose new image could not be read (the process was
	 * gone): events after it belong to no image we know. */
	bool unresolved;
};

struct sl_proccache;

struct sl_proccache *sl_proccache_new(void);
void sl_proccache_free(struct sl_proccache *c);
/*
 * The live process that printed a line at @event_usec (monotonic) as
 * thread @tid; NULL when it is gone or when @tid now belongs to a process
 * that started after the event (pid reuse).
 */
const struct sl_procinfo *sl_proccache_lookup(struct splitlock_ctx *ctx,
					      struct sl_proccache *c,
					      uint32_t tid, int64_t event_usec);
/* "object+0xOFFSET" for @ip in /proc/@pid/maps; -ENOENT if not mapped. */
int sl_maps_lookup(char *maps, uint64_t ip, char *buf, size_t size);
int sl_procinfo_map_ip(struct splitlock_ctx *ctx, uint32_t pid, uint64_t ip,
		       char *buf, size_t size);
/* Remember a process from a proc connector event. */
int sl_proccache_event(struct splitlock_ctx *ctx, struct sl_proccache *c,
		       const struct splitlock_proc_event *ev);
/*
 * offenders/time.c: the wall-clock time of monotonic 0 for records of the running
 * boot's log (see there for the suspend caveat).
 */
int sl_log_epoch(struct splitlock_ctx *ctx, int64_t *usec);

/* offenders.c: the context a report reads with. */
struct splitlock_ctx *sl_offenders_ctx(const struct splitlock_offenders *r);
/*
 * splitlock_offenders_add_record() that also gives the address text of the
 * event (NULL when it has none), valid until the next record; the follower
 * passes it to its callback, so the report needs no "last" getter.
 */
int sl_offenders_add_record(struct splitlock_offenders *r,
			    const struct splitlock_kmsg_record *rec,
			    const struct splitlock_offender **offender,
			    const char **ip);
/* At most @limit offenders (0: any number); the older half goes first. */
void sl_offenders_set_limit(struct splitlock_offenders *r, size_t limit);

/* Unit and container from /proc/PID/cgroup text. */
void sl_cgroup_parse(const char *text, char **unit, char **container);

#endif
