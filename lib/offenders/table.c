/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A report's offenders: a hash table by key (what --group-by joins), a
 * list in first-seen order, each offender's bounded set of trap addresses;
 * a live report's bound on their number, the least recently seen half
 * forgotten first.
 */
#include <errno.h>
#include <inttypes.h>

#include "offenders/offenders.h"

void sl_offender_free(struct splitlock_offender *o)
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

static void key_add(struct sl_offender_key *k, const void *data, size_t size)
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

static void key_add_str(struct sl_offender_key *k, const char *s)
{
	key_add(k, s ? s : "", s ? strlen(s) : 0);
}

void sl_offenders_build_key(const struct splitlock_offenders *r, const struct sl_log_record *lr,
			    const struct splitlock_event *ev,
			    const struct sl_procinfo *pi, struct sl_offender_key *k)
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
void sl_offenders_sort(struct splitlock_offenders *r)
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
size_t sl_offenders_position(const struct splitlock_offenders *r,
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
void sl_offenders_move_forward(struct splitlock_offenders *r, size_t i)
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
		sl_offender_free(r->list[i]);
	}
	memmove(r->list, r->list + half, (r->n - half) * sizeof(*r->list));
	r->n -= half;
	memset(r->buckets, 0, r->n_buckets * sizeof(*r->buckets));
	for (size_t i = 0; i < r->n; i++) {
		struct splitlock_offender *o = r->list[i];

		o->next = r->buckets[o->hash & (r->n_buckets - 1)];
		r->buckets[o->hash & (r->n_buckets - 1)] = o;
	}
	sl_offenders_sort(r);
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

int sl_offenders_find_or_add(struct splitlock_offenders *r, const struct sl_offender_key *k,
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
			sl_offender_free(o);
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
void sl_offenders_merge_labels(struct splitlock_offenders *r, struct splitlock_offender *o,
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

int sl_offenders_add_ip(struct splitlock_offenders *r, struct splitlock_offender *o,
			const char *text)
{
	size_t len = strlen(text);
	char *b;

	for (size_t i = 0, at = 0; i < o->n_ips; i++) {
		if (streq(o->ipbuf + at, text))
			return 0;
		at += strlen(o->ipbuf + at) + 1;
	}
	if (o->n_ips >= SL_OFFENDER_MAX_IPS)
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
