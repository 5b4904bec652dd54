/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between the report, the follower and process resolution. */
#ifndef SPLITLOCK_OFFENDERS_INTERNAL_H
#define SPLITLOCK_OFFENDERS_INTERNAL_H

#include "core/internal.h"
#include "core/arena.h"
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
/* A record of the live log, whose numbers are checked (follow.c). */
int sl_offenders_add_record(struct splitlock_offenders *r,
			    const struct splitlock_kmsg_record *rec,
			    const struct splitlock_offender **offender,
			    const char **ip);
/* At most @limit offenders (0: any number); the older half goes first. */
void sl_offenders_set_limit(struct splitlock_offenders *r, size_t limit);

/* Unit and container from /proc/PID/cgroup text. */
void sl_cgroup_parse(const char *text, char **unit, char **container);

/* ---- The report's members (offenders.c, table.c, report-get.c) ---- */

/*
 * Kept small: a log names one offender per task (the kernel warns once per
 * task), so a report of a big log holds millions of these. The key and the
 * comm share one allocation, the addresses another.
 */
struct splitlock_offender {
	struct splitlock_offender *next; /* hash chain */
	char *key;                       /* key, then the comm and a NUL */
	char *ipbuf;                     /* n_ips NUL-terminated strings */
	char *exe, *cmdline, *unit, *container;
	size_t order;                    /* creation, for stable sorting */
	uint64_t events;
	int64_t first_seen, last_seen, first_wall, last_wall;
	int64_t kernel_traps; /* -1: the kernel does not count per process */
	uint32_t hash, key_len, comm_len, ipbuf_len;
	uint32_t pid, tgid;
	uint8_t kind, action, n_ips;
	bool comm_mixed;      /* tasks of several names: no comm */
	/* Carved from the report's arena (with its key), not malloc'd. */
	bool in_arena, ipbuf_in_arena;
};

/* enum splitlock_forged's reasons. */
#define SL_FORGED_REASONS (SPLITLOCK_FORGED_LEVEL + 1)
/* Distinct trap addresses kept per offender (not in the header: a caller
 * walks them with splitlock_offender_get_ip_count(), sizing nothing). */
#define SL_OFFENDER_MAX_IPS 16

struct splitlock_offenders {
	/* The caller and its follower may both hold the report. */
	int refcount;
	struct splitlock_ctx *ctx;
	/* The live log's record numbers: a skip is records lost (read_kmsg,
	 * follow), and when the record before it was logged. */
	struct sl_kmsg_seq kmsg_seq;
	int64_t kmsg_seq_wall;
	enum splitlock_group group;
	unsigned flags;
	int64_t since, until, boot_wall;
	int64_t saved_at; /* a saved log's mtime: no record is later */
	/* The last event each kind's rate limit let through (wall clock). */
	int64_t last_limited[2];
	struct sl_bursts bursts; /* log/burst.c */
	enum splitlock_input_format format;
	uint64_t events, suppressed, forged, undated, alignment_checks;
	uint64_t maybe_repeated; /* counted events that may be a dump's repeat */
	uint64_t forged_by[SL_FORGED_REASONS]; /* forged, by reason */
	struct sl_unread unread;
	struct sl_alignment_rule alignment;

	struct splitlock_offender **buckets;
	size_t n_buckets;
	struct splitlock_offender **list;
	size_t n, allocated;
	/* Not r->n: that shrinks when offenders are forgotten. */
	size_t next_order;
	struct sl_proccache *procs;
	/* Offenders of a whole log, freed with the report (see arena.c). */
	struct sl_arena arena;
	char last_ip[512];
	/* Following: at most this many offenders (0: no limit), and what
	 * was forgotten to stay there. */
	size_t limit;
	uint64_t dropped, dropped_events;
};

struct sl_offender_key {
	char buf[8192];
	size_t len;
};

/* table.c: the offenders of a report, found by key, kept in order. */
void sl_offender_free(struct splitlock_offender *o);
void sl_offenders_build_key(const struct splitlock_offenders *r, const struct sl_log_record *lr,
			    const struct splitlock_event *ev,
			    const struct sl_procinfo *pi, struct sl_offender_key *k);
void sl_offenders_sort(struct splitlock_offenders *r);
size_t sl_offenders_position(const struct splitlock_offenders *r,
			     const struct splitlock_offender *o);
void sl_offenders_move_forward(struct splitlock_offenders *r, size_t i);
int sl_offenders_find_or_add(struct splitlock_offenders *r, const struct sl_offender_key *k,
			     const struct splitlock_event *ev,
			     const struct sl_procinfo *pi, struct splitlock_offender **out);
void sl_offenders_merge_labels(struct splitlock_offenders *r, struct splitlock_offender *o,
			       const struct splitlock_event *ev, const struct sl_procinfo *pi);
int sl_offenders_add_ip(struct splitlock_offenders *r, struct splitlock_offender *o,
			const char *text);

#endif
