/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The offenders report: detector events aggregated by task, process,
 * comm, executable or unit. Memory grows with the number of offenders, not
 * with the log: a hash table of offenders, each with a bounded set of trap
 * addresses.
 */
#include <errno.h>
#include <inttypes.h>
#include <syslog.h>
#include <sys/stat.h>
#include <time.h>

#include "core/arena.h"
#include "name-table.h"
#include "offenders/offenders.h"

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

/* enum splitlock_forged: the JSON keys of a report's "forged_by". */
static const char *const forged_names[] = {
	[SPLITLOCK_FORGED_USER_SPACE] = "user_space",
	[SPLITLOCK_FORGED_FURTHER_LINE] = "further_line",
	[SPLITLOCK_FORGED_LEVEL] = "level",
};
#define SL_FORGED_REASONS ARRAY_SIZE(forged_names)

struct splitlock_offenders {
	/* The caller and its follower may both hold the report. */
	int refcount;
	struct splitlock_ctx *ctx;
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

_public_ int splitlock_offenders_new(struct splitlock_ctx *ctx,
				     enum splitlock_group group, unsigned flags,
				     struct splitlock_offenders **report)
{
	struct splitlock_offenders *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->n_buckets = 64;
	r->buckets = calloc(r->n_buckets, sizeof(*r->buckets));
	r->procs = sl_proccache_new();
	if (!r->buckets || !r->procs) {
		free(r->buckets);
		sl_proccache_free(r->procs);
		free(r);
		return -ENOMEM;
	}
	r->refcount = 1;
	r->ctx = splitlock_ref(ctx);
	r->group = group;
	r->flags = flags;
	r->since = r->until = r->boot_wall = r->saved_at = SPLITLOCK_TIME_UNKNOWN;
	r->last_limited[0] = r->last_limited[1] = SPLITLOCK_TIME_UNKNOWN;
	sl_bursts_init(&r->bursts);
	sl_alignment_rule_init(&r->alignment, true);
	*report = r;
	return 0;
}

static void offender_free(struct splitlock_offender *o)
{
	if (!o->ipbuf_in_arena)
		free(o->ipbuf);
	free(o->exe);
	free(o->cmdline);
	free(o->unit);
	free(o->container);
	if (!o->in_arena) {
		free(o->key);
		free(o);
	}
}

_public_ struct splitlock_offenders *
splitlock_offenders_ref(struct splitlock_offenders *r)
{
	if (r)
		r->refcount++;
	return r;
}

_public_ struct splitlock_offenders *
splitlock_offenders_unref(struct splitlock_offenders *r)
{
	if (!r)
		return NULL;
	if (--r->refcount > 0)
		return r;
	for (size_t i = 0; i < r->n; i++)
		offender_free(r->list[i]);
	free(r->list);
	free(r->buckets);
	sl_arena_release(&r->arena);
	sl_proccache_free(r->procs);
	splitlock_unref(r->ctx);
	free(r);
	return NULL;
}

_public_ void splitlock_offenders_set_window(struct splitlock_offenders *r,
					     int64_t since, int64_t until)
{
	r->since = since;
	r->until = until;
}

_public_ void splitlock_offenders_set_boot_time(struct splitlock_offenders *r,
						int64_t boot_wall_usec)
{
	r->boot_wall = boot_wall_usec;
}

/* FNV-1a: keys are short. */
static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int grow(struct splitlock_offenders *r)
{
	size_t n = r->n_buckets * 2;
	struct splitlock_offender **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct splitlock_offender *o = r->list[i];

		o->next = b[o->hash & (n - 1)];
		b[o->hash & (n - 1)] = o;
	}
	free(r->buckets);
	r->buckets = b;
	r->n_buckets = n;
	return 0;
}

struct key {
	char buf[8192];
	size_t len;
};

static void key_add(struct key *k, const void *data, size_t size)
{
	uint16_t n = (uint16_t)(size < sizeof(k->buf) ? size : sizeof(k->buf));

	/* Length-prefixed parts: no separator can be forged by a comm. */
	if (k->len + sizeof(n) > sizeof(k->buf))
		return;
	if (k->len + sizeof(n) + n > sizeof(k->buf))
		n = (uint16_t)(sizeof(k->buf) - k->len - sizeof(n));
	memcpy(k->buf + k->len, &n, sizeof(n));
	k->len += sizeof(n);
	memcpy(k->buf + k->len, data, n);
	k->len += n;
}

static void key_add_str(struct key *k, const char *s)
{
	key_add(k, s ? s : "", s ? strlen(s) : 0);
}

static void build_key(const struct splitlock_offenders *r, const struct sl_log_record *lr,
		      const struct splitlock_event *ev,
		      const struct sl_procinfo *pi, struct key *k)
{
	/* A pid names a task within one boot of one machine (a journal's
	 * boot id, a remote syslog file's HOST), where the log shows them;
	 * a log that shows neither keeps its keys short. */
	uint64_t machine = sl_alignment_rule_machine(&r->alignment, lr);
	uint32_t id;

	k->len = 0;
	key_add(k, &ev->kind, sizeof(ev->kind));
	key_add(k, &ev->action, sizeof(ev->action));
	switch (r->group) {
	case SPLITLOCK_GROUP_TASK:
		key_add(k, &ev->pid, sizeof(ev->pid));
		key_add(k, ev->comm, ev->comm_len);
		if (machine)
			key_add(k, &machine, sizeof(machine));
		break;
	case SPLITLOCK_GROUP_PROCESS:
		id = pi ? pi->tgid : ev->pid;
		key_add(k, &id, sizeof(id));
		if (machine) /* a part more or less: keys of length-prefixed parts differ */
			key_add(k, &machine, sizeof(machine));
		/* Unresolved: the thread stands for itself. */
		if (!pi)
			key_add(k, ev->comm, ev->comm_len);
		break;
	case SPLITLOCK_GROUP_COMM:
		key_add(k, ev->comm, ev->comm_len);
		break;
	case SPLITLOCK_GROUP_EXE:
		if (pi && pi->exe) {
			key_add_str(k, pi->exe);
		} else {
			key_add_str(k, "\001comm");
			key_add(k, ev->comm, ev->comm_len);
		}
		break;
	case SPLITLOCK_GROUP_UNIT:
		/* As for exe: tasks of no known unit (a saved log's) stay
		 * apart by name, not one anonymous group of everyone. */
		if (pi && (pi->container || pi->unit)) {
			key_add_str(k, pi->container ? pi->container : pi->unit);
		} else {
			key_add_str(k, "\001comm");
			key_add(k, ev->comm, ev->comm_len);
		}
		break;
	}
}

static char *strdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The report's order: most events first, ties earliest first. */
static int compare(const void *a, const void *b)
{
	const struct splitlock_offender *x = *(const struct splitlock_offender *const *)a;
	const struct splitlock_offender *y = *(const struct splitlock_offender *const *)b;

	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int compare_order(const void *a, const void *b);

/*
 * The kernel warns once per task: in a log's report most offenders have
 * one event, and they come last, in the order they were seen. Those are
 * set apart (in order already, as the list is filled, or sorted by order
 * alone) and only the others sorted in full: the same order as one
 * qsort() of all by compare(), without its n log n calls.
 */
static void sort(struct splitlock_offenders *r)
{
	struct splitlock_offender **many;
	size_t n_many = 0, n_one = 0;
	bool ordered = true;

	/* An empty report has no list yet, and qsort() takes no NULL. */
	if (r->n <= 1)
		return;
	many = malloc(r->n * sizeof(*many));
	if (!many) {
		qsort(r->list, r->n, sizeof(*r->list), compare);
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct splitlock_offender *o = r->list[i];

		/* An offender exists for its first event: none has fewer. */
		if (o->events == 0) {
			free(many);
			qsort(r->list, r->n, sizeof(*r->list), compare);
			return;
		}
		if (o->events != 1) {
			many[n_many++] = o;
			continue;
		}
		if (n_one && o->order < r->list[n_one - 1]->order)
			ordered = false;
		/* In place: n_one <= i, and list[i] has been read. */
		r->list[n_one++] = o;
	}
	if (!ordered)
		qsort(r->list, n_one, sizeof(*r->list), compare_order);
	if (n_many > 1)
		qsort(many, n_many, sizeof(*many), compare);
	/* More events first: the many, then the ones. */
	memmove(r->list + n_many, r->list, n_one * sizeof(*r->list));
	memcpy(r->list, many, n_many * sizeof(*many));
	free(many);
}

/* Where @o stands in the list, which is in the report's order. */
static size_t position(const struct splitlock_offenders *r,
		       const struct splitlock_offender *o)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (compare(&r->list[mid], &o) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The offender at @i gained an event: an insertion step moves it forward
 * past those it now outranks, which keeps the list in order at
 * O(distance) per event.
 */
static void move_forward(struct splitlock_offenders *r, size_t i)
{
	struct splitlock_offender *o = r->list[i];

	for (; i > 0 && compare(&o, &r->list[i - 1]) < 0; i--)
		r->list[i] = r->list[i - 1];
	r->list[i] = o;
}

static int compare_order(const void *a, const void *b)
{
	const struct splitlock_offender *x = *(const struct splitlock_offender *const *)a;
	const struct splitlock_offender *y = *(const struct splitlock_offender *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * A follower runs for months on a machine where every task may warn once:
 * at the limit, the older half of the offenders is forgotten (their event
 * counts start again if they come back), and the log callback says so.
 */
static void forget_oldest(struct splitlock_offenders *r)
{
	size_t half = r->n / 2;
	uint64_t events = 0;

	qsort(r->list, r->n, sizeof(*r->list), compare_order);
	for (size_t i = 0; i < half; i++) {
		events += r->list[i]->events;
		offender_free(r->list[i]);
	}
	memmove(r->list, r->list + half, (r->n - half) * sizeof(*r->list));
	r->n -= half;
	memset(r->buckets, 0, r->n_buckets * sizeof(*r->buckets));
	for (size_t i = 0; i < r->n; i++) {
		struct splitlock_offender *o = r->list[i];

		o->next = r->buckets[o->hash & (r->n_buckets - 1)];
		r->buckets[o->hash & (r->n_buckets - 1)] = o;
	}
	sort(r);
	r->dropped += half;
	r->dropped_events += events;
	sl_warn(r->ctx, "following more than %zu offenders: forgot the %zu seen first "
		"(%" PRIu64 " events; %" PRIu64 " offenders forgotten so far), whose "
		"event counts start again if they return", r->limit, half, events, r->dropped);
}

void sl_offenders_set_limit(struct splitlock_offenders *r, size_t limit)
{
	r->limit = limit;
}

static int find_or_add(struct splitlock_offenders *r, const struct key *k,
		       const struct splitlock_event *ev,
		       const struct sl_procinfo *pi, struct splitlock_offender **out)
{
	uint32_t h = hash_bytes(k->buf, k->len);
	struct splitlock_offender *o;

	for (o = r->buckets[h & (r->n_buckets - 1)]; o; o = o->next)
		if (o->hash == h && o->key_len == k->len &&
		    memcmp(o->key, k->buf, k->len) == 0) {
			*out = o;
			return 0;
		}
	if (r->limit && r->n >= r->limit)
		forget_oldest(r);
	if (r->n == r->allocated) {
		size_t n = r->allocated ? r->allocated * 2 : 16;
		struct splitlock_offender **l = realloc(r->list, n * sizeof(*l));

		if (!l)
			return -ENOMEM;
		r->list = l;
		r->allocated = n;
	}
	if (r->n >= r->n_buckets && grow(r) < 0)
		return -ENOMEM;
	/*
	 * A follower forgets offenders one by one to stay bounded: those come
	 * from malloc. A whole log's stay until the report goes: the arena.
	 */
	if (!r->limit) {
		o = sl_arena_alloc(&r->arena, sizeof(*o) + k->len + ev->comm_len + 1);
		if (!o)
			return -ENOMEM;
		o->in_arena = true;
		o->key = (char *)(o + 1);
	} else {
		o = calloc(1, sizeof(*o));
		if (!o)
			return -ENOMEM;
		o->key = malloc(k->len + ev->comm_len + 1);
		if (!o->key) {
			offender_free(o);
			return -ENOMEM;
		}
	}
	o->hash = h;
	memcpy(o->key, k->buf, k->len);
	o->key_len = (uint32_t)k->len;
	memcpy(o->key + k->len, ev->comm, ev->comm_len);
	o->key[k->len + ev->comm_len] = '\0';
	o->comm_len = (uint32_t)ev->comm_len;
	o->pid = pi && r->group == SPLITLOCK_GROUP_PROCESS ? pi->tgid : ev->pid;
	o->tgid = pi ? pi->tgid : 0;
	o->kind = (uint8_t)ev->kind;
	o->action = (uint8_t)ev->action;
	o->first_seen = o->last_seen = SPLITLOCK_TIME_UNKNOWN;
	o->first_wall = o->last_wall = SPLITLOCK_TIME_UNKNOWN;
	o->kernel_traps = -1;
	if (pi) {
		o->kernel_traps = ev->kind == SPLITLOCK_KIND_BUS_LOCK ? pi->kernel_db_traps
								     : pi->kernel_ac_traps;
		o->exe = strdup_or_null(pi->exe);
		o->cmdline = strdup_or_null(pi->cmdline);
		o->unit = strdup_or_null(pi->unit);
		o->container = strdup_or_null(pi->container);
	}
	o->order = r->next_order++;
	o->next = r->buckets[h & (r->n_buckets - 1)];
	r->buckets[h & (r->n_buckets - 1)] = o;
	r->list[r->n++] = o;
	*out = o;
	return 0;
}

static void merge_str(char **have, const char *s)
{
	if (*have && (!s || !streq(*have, s))) {
		free(*have);
		*have = NULL;
	}
}

/*
 * A group of several tasks (by comm, exe or unit, or unresolved ones
 * merged) must not wear one task's labels: what its tasks do not share
 * becomes unknown (no comm, pid 0, no exe...).
 */
static void merge_labels(struct splitlock_offenders *r, struct splitlock_offender *o,
			 const struct splitlock_event *ev, const struct sl_procinfo *pi)
{
	uint32_t pid = pi && r->group == SPLITLOCK_GROUP_PROCESS ? pi->tgid : ev->pid;

	if (o->pid != pid) {
		o->pid = 0;
		o->kernel_traps = -1;
	}
	if (o->tgid != (pi ? pi->tgid : 0))
		o->tgid = 0;
	/* A process's threads may name themselves apart; it keeps its first. */
	if (r->group != SPLITLOCK_GROUP_PROCESS && !o->comm_mixed &&
	    (o->comm_len != ev->comm_len ||
	     memcmp(o->key + o->key_len, ev->comm, ev->comm_len) != 0))
		o->comm_mixed = true;
	merge_str(&o->exe, pi ? pi->exe : NULL);
	merge_str(&o->cmdline, pi ? pi->cmdline : NULL);
	merge_str(&o->unit, pi ? pi->unit : NULL);
	merge_str(&o->container, pi ? pi->container : NULL);
}

static int add_ip(struct splitlock_offenders *r, struct splitlock_offender *o,
		  const char *text)
{
	size_t len = strlen(text);
	char *b;

	for (size_t i = 0, at = 0; i < o->n_ips; i++) {
		if (streq(o->ipbuf + at, text))
			return 0;
		at += strlen(o->ipbuf + at) + 1;
	}
	if (o->n_ips >= SPLITLOCK_OFFENDER_MAX_IPS)
		return 0;
	/* Most offenders of a log warn once: their one address in the arena. */
	if (o->in_arena && !o->n_ips) {
		o->ipbuf = sl_arena_alloc(&r->arena, len + 1);
		if (!o->ipbuf)
			return -ENOMEM;
		memcpy(o->ipbuf, text, len + 1);
		o->ipbuf_len = (uint32_t)(len + 1);
		o->ipbuf_in_arena = true;
		o->n_ips++;
		return 0;
	}
	if (o->ipbuf_in_arena) {
		b = malloc(o->ipbuf_len + len + 1);
		if (b) {
			memcpy(b, o->ipbuf, o->ipbuf_len);
			o->ipbuf_in_arena = false;
		}
	} else {
		b = realloc(o->ipbuf, o->ipbuf_len + len + 1);
	}
	if (!b)
		return -ENOMEM;
	memcpy(b + o->ipbuf_len, text, len + 1);
	o->ipbuf = b;
	o->ipbuf_len += (uint32_t)(len + 1);
	o->n_ips++;
	return 0;
}

static const char *basename_n(const char *s, size_t n, size_t *len)
{
	const char *b = s;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			b = s + i + 1;
	*len = n - (size_t)(b - s);
	return b;
}

/* "0x%" PRIx64 without snprintf(): once for every event of a log. */
static void hex_text(uint64_t v, char *buf, size_t size)
{
	char d[2 + 16 + 1];
	size_t at = sizeof(d);

	d[--at] = '\0';
	do {
		d[--at] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	d[--at] = 'x';
	d[--at] = '0';
	if (size >= sizeof(d) - at)
		memcpy(buf, d + at, sizeof(d) - at);
	else
		snprintf(buf, size, "%s", d + at);
}

static void ip_text(struct splitlock_offenders *r, const struct splitlock_event *ev,
		    const struct sl_procinfo *pi, char *buf, size_t size)
{
	if (ev->object && ev->has_object_offset) {
		size_t n;
		const char *b = basename_n(ev->object, ev->object_len, &n);

		snprintf(buf, size, "%.*s+0x%" PRIx64, (int)n, b, ev->object_offset);
		return;
	}
	if (pi && sl_procinfo_map_ip(r->ctx, pi->tgid, ev->ip, buf, size) == 0)
		return;
	hex_text(ev->ip, buf, size);
}

/*
 * Is the event of @lr in [since, until)? Its time may be known only to a
 * span (a stamp that shows whole seconds, a syslog daemon's repeat line:
 * see struct sl_log_record): a bound inside the span cannot place it,
 * and it is undated rather than silently in or out.
 */
static bool in_window(struct splitlock_offenders *r, const struct sl_log_record *lr,
		      int64_t wall, int64_t earliest, bool *undated)
{
	int64_t lo = wall, hi = wall;

	*undated = false;
	if (r->since == SPLITLOCK_TIME_UNKNOWN && r->until == SPLITLOCK_TIME_UNKNOWN)
		return true;
	if (wall == SPLITLOCK_TIME_UNKNOWN) {
		/* A saved file's records were all logged before it was last
		 * written: an --until after that keeps them, a --since after
		 * that leaves them out. */
		if (r->saved_at != SPLITLOCK_TIME_UNKNOWN && r->since != SPLITLOCK_TIME_UNKNOWN &&
		    r->saved_at < r->since)
			return false;
		if (r->saved_at != SPLITLOCK_TIME_UNKNOWN && r->since == SPLITLOCK_TIME_UNKNOWN &&
		    r->saved_at < r->until)
			return true;
		*undated = true;
		return false;
	}
	if (wall == lr->wall_usec) {
		lo = lr->wall_before > wall - INT64_MIN / 2 ? INT64_MIN / 2 : wall - lr->wall_before;
		hi = wall + lr->wall_grain;
	}
	if (earliest != SPLITLOCK_TIME_UNKNOWN && earliest < lo)
		lo = earliest;
	if ((r->since != SPLITLOCK_TIME_UNKNOWN && hi < r->since) ||
	    (r->until != SPLITLOCK_TIME_UNKNOWN && lo >= r->until))
		return false;
	if ((r->since != SPLITLOCK_TIME_UNKNOWN && lo < r->since) ||
	    (r->until != SPLITLOCK_TIME_UNKNOWN && hi >= r->until)) {
		*undated = true;
		return false;
	}
	return true;
}

/* Used-up bursts the log never told of: unread, the report incomplete. */
static void note_untold_bursts(struct splitlock_offenders *r)
{
	uint64_t line, n = sl_bursts_untold(&r->bursts, &line);

	for (uint64_t i = 0; i < n; i++)
		sl_unread_note_why(&r->unread, line, SPLITLOCK_UNREAD_BURST_USED_UP);
	sl_bursts_init(&r->bursts);
}

/*
 * @keep_sorted: keep the list in the report's order as the record is
 * added. Reading a whole log leaves that out and sorts once at the end:
 * among many offenders of equal counts, each event would move one past
 * all the others again.
 */
static int add_log_record(struct splitlock_offenders *r,
			  const struct sl_log_record *lr, bool keep_sorted,
			  const struct splitlock_offender **result)
{
	const struct splitlock_kmsg_record *rec = &lr->rec;
	const struct sl_procinfo *pi = NULL;
	struct splitlock_offender *o;
	struct splitlock_event ev;
	struct key k;
	int64_t wall = lr->wall_usec, earliest = SPLITLOCK_TIME_UNKNOWN;
	bool undated, in, kill;
	size_t at = 0;
	int type, ret;

	if (!sl_maybe_detector(rec->message, rec->message_len))
		return 0;
	if (wall == SPLITLOCK_TIME_UNKNOWN && lr->mono_usec != SPLITLOCK_TIME_UNKNOWN &&
	    r->boot_wall != SPLITLOCK_TIME_UNKNOWN)
		wall = r->boot_wall + lr->mono_usec;
	type = splitlock_detector_line_parse(rec->message, rec->message_len, &ev);
	if (type == SPLITLOCK_LINE_OTHER) {
		if (lr->facility_known && rec->facility != 0) {
			/*
			 * A record's further line with the detector's words
			 * inside: text a record carried, or another form's
			 * line (a kern.log cat'ed after dmesg -r output). It
			 * never counts, and is said.
			 */
			if (lr->further && sl_detector_text_unread(rec->message, rec->message_len)) {
				r->forged++;
				r->forged_by[SPLITLOCK_FORGED_FURTHER_LINE]++;
			}
			return 0;
		}
		sl_alignment_rule_see(&r->alignment, lr);
		if (sl_is_kill_suppressed(rec->message, rec->message_len)) {
			sl_bursts_told(&r->bursts, sl_alignment_rule_machine(&r->alignment, lr),
				       SL_BURST_KILLS);
			/* At the rate limit's level, in a boot whose kills may
			 * be split locks: some of those it dropped may be. */
			if ((!lr->level_known || rec->level == LOG_WARNING) &&
			    sl_alignment_rule_counts(r->ctx, &r->alignment, lr) != 0 &&
			    (in_window(r, lr, wall, INT64_MIN / 2, &undated) || undated))
				sl_unread_note_why(&r->unread, lr->line,
						   SPLITLOCK_UNREAD_KILLS_SUPPRESSED);
			return 0;
		}
		/* The detector's words in a form the parser does not know: say so. */
		if (sl_detector_text_unread(rec->message, rec->message_len))
			sl_unread_note(&r->unread, lr->line);
		return 0;
	}
	/* fatal mode's "traps: ... trap alignment check": another level and
	 * rate limit than the detector's warnings, and a split lock only in
	 * a fatal boot. */
	kill = sl_is_alignment_check(rec->message, rec->message_len);
	/* User space can write to /dev/kmsg: it must not forge an offender. */
	if (lr->facility_known && rec->facility != 0) {
		sl_dbg(r->ctx, "ignoring a detector-like line %s",
		       lr->further ? "that continues a record" : "from user space");
		r->forged++;
		r->forged_by[lr->further ? SPLITLOCK_FORGED_FURTHER_LINE : SPLITLOCK_FORGED_USER_SPACE]++;
		return 0;
	}
	/*
	 * The detector warns at LOG_WARNING, its rate limits too; the kernel's
	 * "traps:" line is LOG_INFO. Every form that shows the level (/dev/kmsg
	 * records, dmesg -r, -x, --json, the journal's PRIORITY) holds it to
	 * that, so that the same records give the same report in each.
	 */
	if (lr->level_known && type != SPLITLOCK_LINE_MALFORMED &&
	    rec->level != (kill ?
			   LOG_INFO : LOG_WARNING)) {
		sl_dbg(r->ctx, "ignoring a detector-like line at another level");
		r->forged++;
		r->forged_by[SPLITLOCK_FORGED_LEVEL]++;
		return 0;
	}
	if (type == SPLITLOCK_LINE_MALFORMED) {
		sl_unread_note(&r->unread, lr->line);
		return 0;
	}
	/*
	 * An alignment check outside a fatal boot is no event: one that the
	 * window cannot place is still one, never an undated event. Where
	 * the log does not show the boot's mode before it (its boot line
	 * lost to a wrapped buffer, or after it: journalctl -r), nobody can
	 * tell, and the report is not complete.
	 */
	if (type == SPLITLOCK_LINE_EVENT && kill) {
		int counts = sl_alignment_rule_counts(r->ctx, &r->alignment, lr);

		if (counts <= 0) {
			if (!in_window(r, lr, wall, SPLITLOCK_TIME_UNKNOWN, &undated) && !undated)
				return 0;
			if (counts == 0)
				r->alignment_checks++;
			else
				sl_unread_note_why(&r->unread, lr->line, SPLITLOCK_UNREAD_MODE_UNKNOWN);
			return 0;
		}
	}
	/*
	 * The kernel's rate limit says what it dropped at its next call after
	 * the interval, which may be hours later: the dropped events lie
	 * between the last one it let through and this line.
	 */
	if (type == SPLITLOCK_LINE_SUPPRESSED) {
		earliest = (unsigned)ev.kind < ARRAY_SIZE(r->last_limited) &&
				   r->last_limited[ev.kind] != SPLITLOCK_TIME_UNKNOWN ?
			   r->last_limited[ev.kind] : INT64_MIN / 2;
		/* It tells of a burst whatever the window. */
		sl_bursts_told(&r->bursts, sl_alignment_rule_machine(&r->alignment, lr),
			       ev.kind == SPLITLOCK_KIND_BUS_LOCK ? SL_BURST_BUS_LOCK : SL_BURST_SPLIT_LOCK);
	} else if (!kill &&
		 (unsigned)ev.kind < ARRAY_SIZE(r->last_limited) && wall != SPLITLOCK_TIME_UNKNOWN)
		r->last_limited[ev.kind] = wall;
	in = in_window(r, lr, wall, earliest, &undated);
	/* Bursts the window leaves out are not this report's. */
	if (type == SPLITLOCK_LINE_EVENT && (in || undated)) {
		bool mono = lr->mono_usec != SPLITLOCK_TIME_UNKNOWN;

		sl_bursts_line(&r->bursts, sl_alignment_rule_machine(&r->alignment, lr),
			       kill ? SL_BURST_KILLS :
			       ev.kind == SPLITLOCK_KIND_BUS_LOCK ? SL_BURST_BUS_LOCK : SL_BURST_SPLIT_LOCK,
			       mono ? lr->mono_usec : wall, mono || wall != lr->wall_usec ? 0 : lr->wall_grain,
			       lr->line);
	}
	if (!in) {
		/* The window cannot say whether the kernel's suppressed events
		 * were in it either: they are as undated as the logged ones. */
		if (undated && type == SPLITLOCK_LINE_EVENT)
			r->undated++;
		else if (undated && type == SPLITLOCK_LINE_SUPPRESSED)
			r->undated += ev.suppressed;
		return 0;
	}
	if (type == SPLITLOCK_LINE_SUPPRESSED) {
		r->suppressed += ev.suppressed;
		if (lr->maybe_repeat)
			r->maybe_repeated += ev.suppressed;
		return 0;
	}
	r->events++;
	if (lr->maybe_repeat)
		r->maybe_repeated++;
	r->last_ip[0] = '\0';
	if (r->flags & SPLITLOCK_OFFENDERS_RESOLVE)
		pi = sl_proccache_lookup(r->ctx, r->procs, ev.pid, lr->mono_usec);
	build_key(r, lr, &ev, pi, &k);
	ret = find_or_add(r, &k, &ev, pi, &o);
	if (ret < 0)
		return ret;
	if (keep_sorted)
		at = position(r, o);
	if (o->events)
		merge_labels(r, o, &ev, pi);
	o->events++;
	if (keep_sorted)
		move_forward(r, at);
	if (lr->mono_usec != SPLITLOCK_TIME_UNKNOWN) {
		if (o->first_seen == SPLITLOCK_TIME_UNKNOWN || lr->mono_usec < o->first_seen)
			o->first_seen = lr->mono_usec;
		if (o->last_seen == SPLITLOCK_TIME_UNKNOWN || lr->mono_usec > o->last_seen)
			o->last_seen = lr->mono_usec;
	}
	if (wall != SPLITLOCK_TIME_UNKNOWN) {
		if (o->first_wall == SPLITLOCK_TIME_UNKNOWN || wall < o->first_wall)
			o->first_wall = wall;
		if (o->last_wall == SPLITLOCK_TIME_UNKNOWN || wall > o->last_wall)
			o->last_wall = wall;
	}
	if (ev.has_ip) {
		ip_text(r, &ev, pi, r->last_ip, sizeof(r->last_ip));
		ret = add_ip(r, o, r->last_ip);
		if (ret < 0)
			return ret;
	}
	if (result)
		*result = o;
	return 1;
}

static int add_kmsg_record(struct splitlock_offenders *r,
			   const struct splitlock_kmsg_record *rec, bool keep_sorted,
			   const struct splitlock_offender **offender, const char **ip)
{
	struct sl_log_record lr = {
		.rec = *rec,
		.facility_known = true,
		.level_known = true,
		.mono_usec = rec->usec > INT64_MAX ? SPLITLOCK_TIME_UNKNOWN : (int64_t)rec->usec,
		.wall_usec = SPLITLOCK_TIME_UNKNOWN,
	};
	int ret;

	r->last_ip[0] = '\0';
	ret = add_log_record(r, &lr, keep_sorted, offender);
	if (ip)
		*ip = ret > 0 && r->last_ip[0] ? r->last_ip : NULL;
	return ret;
}

int sl_offenders_add_record(struct splitlock_offenders *r,
			    const struct splitlock_kmsg_record *rec,
			    const struct splitlock_offender **offender, const char **ip)
{
	return add_kmsg_record(r, rec, true, offender, ip);
}

_public_ int splitlock_offenders_add_record(struct splitlock_offenders *r,
					    const struct splitlock_kmsg_record *rec,
					    const struct splitlock_offender **offender)
{
	return sl_offenders_add_record(r, rec, offender, NULL);
}

static int kmsg_cb(const struct splitlock_kmsg_record *rec, void *data)
{
	int r = add_kmsg_record(data, rec, false, NULL, NULL);

	return r < 0 ? r : 0;
}

_public_ int splitlock_offenders_read_kmsg(struct splitlock_offenders *r)
{
	int64_t boot;
	int ret;

	if (r->boot_wall == SPLITLOCK_TIME_UNKNOWN && sl_log_epoch(r->ctx, &boot) == 0)
		r->boot_wall = boot;
	ret = splitlock_kmsg_foreach(r->ctx, kmsg_cb, r);
	/* The buffer as it stands: a burst used up lately may still be told
	 * by a later line, but this report cannot know it yet. */
	note_untold_bursts(r);
	/* Also after an error: what was read before it is in the report. */
	sort(r);
	return ret;
}

static int input_cb(const struct sl_log_record *lr, void *data)
{
	int r = add_log_record(data, lr, false, NULL);

	return r < 0 ? r : 0;
}

_public_ int splitlock_offenders_read_input(struct splitlock_offenders *r, int fd,
					    enum splitlock_input_format format,
					    splitlock_progress_fn progress, void *data)
{
	unsigned flags = r->flags;
	struct stat st;
	int ret;

	/* A saved log may come from another boot or machine. */
	r->flags &= ~SPLITLOCK_OFFENDERS_RESOLVE;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		r->saved_at = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
	sl_alignment_rule_init(&r->alignment, false);
	ret = sl_log_input_foreach(r->ctx, fd, &format, false, input_cb, r,
				   progress, data, &r->unread);
	note_untold_bursts(r);
	sl_alignment_rule_init(&r->alignment, true);
	r->flags = flags;
	r->format = format;
	sort(r);
	return ret;
}

_public_ enum splitlock_input_format
splitlock_offenders_get_input_format(const struct splitlock_offenders *r)
{
	return r->format;
}

_public_ int splitlock_offenders_proc_event(struct splitlock_offenders *r,
					    const struct splitlock_proc_event *ev)
{
	return sl_proccache_event(r->ctx, r->procs, ev);
}

_public_ uint64_t splitlock_offenders_get_events(const struct splitlock_offenders *r)
{
	return r->events;
}

_public_ uint64_t splitlock_offenders_get_suppressed(const struct splitlock_offenders *r)
{
	return r->suppressed;
}

_public_ uint64_t splitlock_offenders_get_malformed(const struct splitlock_offenders *r)
{
	return r->unread.lines;
}

_public_ uint64_t splitlock_offenders_get_unrecognized(const struct splitlock_offenders *r,
						       uint64_t *first_line)
{
	if (first_line)
		*first_line = r->unread.first_line;
	return r->unread.lines;
}

_public_ uint64_t splitlock_offenders_get_alignment_checks(const struct splitlock_offenders *r)
{
	return r->alignment_checks;
}

_public_ uint64_t splitlock_offenders_get_forged(const struct splitlock_offenders *r)
{
	return r->forged;
}

_public_ uint64_t splitlock_offenders_get_forged_by(const struct splitlock_offenders *r,
						     enum splitlock_forged reason)
{
	return (unsigned)reason < SL_FORGED_REASONS ? r->forged_by[reason] : 0;
}

/* enum splitlock_unread: the JSON keys of a report's "unrecognized_by". */
static const char *const unread_names[] = {
	[SPLITLOCK_UNREAD_UNPARSED] = "unparsed",
	[SPLITLOCK_UNREAD_HIDDEN] = "hidden",
	[SPLITLOCK_UNREAD_WRITER_UNKNOWN] = "writer_unknown",
	[SPLITLOCK_UNREAD_MODE_UNKNOWN] = "mode_unknown",
	[SPLITLOCK_UNREAD_KILLS_SUPPRESSED] = "kills_suppressed",
	[SPLITLOCK_UNREAD_BURST_USED_UP] = "burst_used_up",
};
/* A reason added to the enum needs its name and its counter. */
_Static_assert(ARRAY_SIZE(unread_names) == ARRAY_SIZE(((struct sl_unread *)0)->by),
	       "every unread reason has a name and a count");

_public_ uint64_t splitlock_offenders_get_unrecognized_by(const struct splitlock_offenders *r,
							  enum splitlock_unread reason)
{
	return (unsigned)reason < ARRAY_SIZE(r->unread.by) ? r->unread.by[reason] : 0;
}

_public_ const char *splitlock_unread_name(enum splitlock_unread reason)
{
	return (unsigned)reason < ARRAY_SIZE(unread_names) ? unread_names[reason] : NULL;
}

_public_ const char *splitlock_forged_name(enum splitlock_forged reason)
{
	return (unsigned)reason < ARRAY_SIZE(forged_names) ? forged_names[reason] : NULL;
}

_public_ uint64_t splitlock_offenders_get_undated(const struct splitlock_offenders *r)
{
	return r->undated;
}

_public_ uint64_t splitlock_offenders_get_maybe_repeated(const struct splitlock_offenders *r)
{
	return r->maybe_repeated;
}

_public_ size_t splitlock_offenders_get_count(const struct splitlock_offenders *r)
{
	return r->n;
}

_public_ const struct splitlock_offender *
splitlock_offenders_get(const struct splitlock_offenders *r, size_t index)
{
	return index < r->n ? r->list[index] : NULL;
}

_public_ const char *splitlock_offender_get_comm(const struct splitlock_offender *o,
						 size_t *len)
{
	if (len)
		*len = o->comm_mixed ? 0 : o->comm_len;
	return o->comm_mixed ? NULL : o->key + o->key_len;
}

_public_ uint32_t splitlock_offender_get_pid(const struct splitlock_offender *o) { return o->pid; }
_public_ uint32_t splitlock_offender_get_tgid(const struct splitlock_offender *o) { return o->tgid; }
_public_ enum splitlock_kind splitlock_offender_get_kind(const struct splitlock_offender *o) { return (enum splitlock_kind)o->kind; }
_public_ enum splitlock_action splitlock_offender_get_action(const struct splitlock_offender *o) { return (enum splitlock_action)o->action; }
_public_ uint64_t splitlock_offender_get_events(const struct splitlock_offender *o) { return o->events; }
_public_ int64_t splitlock_offender_get_first_seen(const struct splitlock_offender *o) { return o->first_seen; }
_public_ int64_t splitlock_offender_get_last_seen(const struct splitlock_offender *o) { return o->last_seen; }
_public_ int64_t splitlock_offender_get_first_wall(const struct splitlock_offender *o) { return o->first_wall; }
_public_ int64_t splitlock_offender_get_last_wall(const struct splitlock_offender *o) { return o->last_wall; }
_public_ size_t splitlock_offender_get_ip_count(const struct splitlock_offender *o) { return o->n_ips; }

_public_ const char *splitlock_offender_get_ip(const struct splitlock_offender *o,
					       size_t index)
{
	const char *p = o->ipbuf;

	if (index >= o->n_ips)
		return NULL;
	while (index--)
		p += strlen(p) + 1;
	return p;
}

_public_ int splitlock_offender_get_kernel_traps(const struct splitlock_offender *o,
						 uint64_t *traps)
{
	if (o->kernel_traps < 0)
		return -ENODATA;
	*traps = (uint64_t)o->kernel_traps;
	return 0;
}

_public_ const char *splitlock_offender_get_exe(const struct splitlock_offender *o) { return o->exe; }
_public_ const char *splitlock_offender_get_cmdline(const struct splitlock_offender *o) { return o->cmdline; }
_public_ const char *splitlock_offender_get_unit(const struct splitlock_offender *o) { return o->unit; }
_public_ const char *splitlock_offender_get_container(const struct splitlock_offender *o) { return o->container; }

static const struct name_table group_names[] = {
	{ SPLITLOCK_GROUP_TASK, "task" },
	{ SPLITLOCK_GROUP_PROCESS, "process" },
	{ SPLITLOCK_GROUP_COMM, "comm" },
	{ SPLITLOCK_GROUP_EXE, "exe" },
	{ SPLITLOCK_GROUP_UNIT, "unit" },
};

_public_ DEFINE_NAME_TABLE_PARSE(splitlock_group_parse, group_names, enum splitlock_group)

_public_ const char *splitlock_group_name(enum splitlock_group group)
{
	return NAME_TABLE_NAME_OR(group_names, group, "unknown");
}

struct splitlock_ctx *sl_offenders_ctx(const struct splitlock_offenders *r)
{
	return r->ctx;
}
