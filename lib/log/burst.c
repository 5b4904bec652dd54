/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Has a rate limit used up its burst where the log never says what it
 * dropped? lib/ratelimit.c lets 10 lines through in an interval of 5 s
 * and says how many it dropped ("NAME: N callbacks suppressed") only at
 * its next call after the interval, which may never come: the task is
 * warned once, the boot ends. Kept per machine (boot and host, as the log
 * shows them) and per limit, whatever the file's order (journalctl -r)
 * and the stamps' grain: 10 lines of one limit in one of its intervals
 * are a used-up burst, and each wants the "callbacks suppressed" line
 * that the limit's next call printed, the first of its lines after the
 * burst. A burst the limit had room for after all (exactly 10) is taken
 * for used up too: the log cannot tell.
 *
 * The report's window: what a burst dropped lies anywhere between its
 * 10th line and the interval's end, so a burst is the report's when any
 * of its lines is, or when its interval reaches into the window; its
 * "callbacks suppressed" line may lie outside the window, and tells of it
 * all the same, but of no other burst.
 */
#include <stdlib.h>

#include "log/reader.h"

#define BURST_LINES SL_BURST_LINES
/*
 * The interval: 5 s from the jiffy of its first call, and the reset only
 * once jiffies have passed begin + 5 * HZ (time_is_before_jiffies()), so
 * up to one tick more: 10 ms at HZ=100.
 */
#define BURST_EXACT_USEC (INT64_C(5) * 1000000)
#define BURST_USEC (BURST_EXACT_USEC + INT64_C(10) * 1000)

void sl_bursts_init(struct sl_bursts *b, int64_t since, int64_t until)
{
	*b = (struct sl_bursts){ .since = since, .until = until };
}

/* |a - b| <= span, for any stamps a log may claim (no overflow). */
static bool within(int64_t a, int64_t b, int64_t span)
{
	int64_t step;

	if (__builtin_sub_overflow(a, b, &step) || step == INT64_MIN)
		return false;
	return (step < 0 ? -step : step) <= span;
}

/* Does the interval that began at wall-clock @wall reach into the window? */
static bool reaches_window(const struct sl_bursts *b, int64_t wall, int64_t grain)
{
	if (wall == SPLITLOCK_TIME_UNKNOWN)
		return false;
	if (b->until != SPLITLOCK_TIME_UNKNOWN && wall >= b->until)
		return false;
	return b->since == SPLITLOCK_TIME_UNKNOWN || wall >= b->since - BURST_USEC - grain;
}

/* Did an interval that began at @begin (@grain late at most) end before @t? */
static bool began_before(int64_t begin, int64_t grain, int64_t t)
{
	int64_t limit;

	if (__builtin_sub_overflow(t, BURST_EXACT_USEC, &limit) ||
	    __builtin_add_overflow(limit, grain, &limit))
		return begin <= t;
	return begin <= limit;
}

static int compare_used(const void *x, const void *y)
{
	const struct sl_burst_used *a = x, *b = y;

	return (a->begin > b->begin) - (a->begin < b->begin);
}

static int compare_stamps(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

static bool grow(void **list, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return true;
	p = reallocarray(*list, want, size);
	if (!p)
		return false;
	*list = p;
	*cap = want;
	return true;
}

/* The open interval, if used up, joins the limit's list. */
static void close_interval(struct sl_bursts *b, struct sl_burst_limit *l)
{
	if (l->n < BURST_LINES)
		return;
	if (!grow((void **)&l->used, &l->cap_used, l->n_used, sizeof(*l->used))) {
		/* Not matched with its line, so counted as untold. */
		b->untold++;
		if (!b->untold_line || l->tenth < b->untold_line)
			b->untold_line = l->tenth;
		return;
	}
	l->used[l->n_used++] = (struct sl_burst_used){
		.begin = l->begin, .wall = l->wall, .grain = l->grain,
		.tenth = l->tenth, .counts = l->counts,
	};
}

/*
 * Each "callbacks suppressed" line tells of the burst before it: the
 * latest used-up one that began at least 5 s before it (the call that
 * prints it begins the next interval, maybe in the same second) and is
 * not told yet. A line
 * without a stamp tells of the earliest one left. Then every burst of the
 * window left untold is counted.
 */
static void settle(struct sl_bursts *b, struct sl_burst_limit *l)
{
	size_t i, j;

	close_interval(b, l);
	l->n = 0;
	if (l->n_used > 1)
		qsort(l->used, l->n_used, sizeof(*l->used), compare_used);
	if (l->n_told > 1)
		qsort(l->told, l->n_told, sizeof(*l->told), compare_stamps);
	for (i = 0; i < l->n_told; i++) {
		int64_t t = l->told[i];

		if (t == SPLITLOCK_TIME_UNKNOWN) {
			for (j = 0; j < l->n_used && l->used[j].told; j++)
				;
		} else {
			for (j = l->n_used; j > 0; j--)
				if (!l->used[j - 1].told && (l->used[j - 1].begin == SPLITLOCK_TIME_UNKNOWN ||
							    began_before(l->used[j - 1].begin,
									 l->used[j - 1].grain, t)))
					break;
			j = j ? j - 1 : l->n_used;
		}
		if (j < l->n_used)
			l->used[j].told = true;
	}
	for (j = 0; j < l->n_used; j++) {
		const struct sl_burst_used *u = &l->used[j];

		if (u->told || (!u->counts && !reaches_window(b, u->wall, u->grain)))
			continue;
		b->untold++;
		if (!b->untold_line || u->tenth < b->untold_line)
			b->untold_line = u->tenth;
	}
	free(l->used);
	free(l->told);
	*l = (struct sl_burst_limit){ 0 };
}

static struct sl_burst_limit *limit_of(struct sl_bursts *b, uint64_t machine, unsigned limit)
{
	uint64_t key = machine * 4 + limit + 1; /* 0: a free slot */
	struct sl_burst_limit *l;

	for (l = b->limits; l < b->limits + SL_BURST_SLOTS && l->key; l++)
		if (l->key == key)
			return l;
	/* More than the slots: one forgotten, what it owed said now. */
	if (l == b->limits + SL_BURST_SLOTS) {
		l = &b->limits[b->next_evict++ % SL_BURST_SLOTS];
		settle(b, l);
	}
	*l = (struct sl_burst_limit){ .key = key };
	return l;
}

static void note_line(struct sl_bursts *b, struct sl_burst_limit *l, int64_t wall,
		      int64_t grain, bool counts, uint64_t line)
{
	if (wall != SPLITLOCK_TIME_UNKNOWN && (l->wall == SPLITLOCK_TIME_UNKNOWN || wall < l->wall))
		l->wall = wall;
	if (grain > l->grain)
		l->grain = grain;
	l->counts |= counts;
	/* Used up: what it drops may fall in the window if its lines do or
	 * its interval reaches into it, as settle() asks of a report's. */
	if (++l->n == BURST_LINES) {
		l->tenth = line;
		b->used_up += l->counts || reaches_window(b, l->wall, l->grain);
	}
}

void sl_bursts_line(struct sl_bursts *b, uint64_t machine, unsigned limit, int64_t t,
		    int64_t grain, int64_t wall, bool counts, uint64_t line)
{
	struct sl_burst_limit *l = limit_of(b, machine, limit);

	/*
	 * The kernel's intervals: the first line after one's end begins the
	 * next (either way in time: journalctl -r; the stamps' grain makes
	 * them longer, so that a burst is not missed). Without stamps, the
	 * whole log is one interval: nothing shows more room.
	 */
	/*
	 * A line about 5 s after the interval's first (within the tick and
	 * either way the stamps' grain) may be the old interval's last or the
	 * next one's first (the kernel's jiffy and HZ decide): it counts for
	 * both, so that neither burst is missed.
	 */
	if (l->n && t != SPLITLOCK_TIME_UNKNOWN && l->begin != SPLITLOCK_TIME_UNKNOWN &&
	    within(t, l->begin, BURST_USEC + grain) &&
	    !within(t, l->begin, grain < BURST_EXACT_USEC ? BURST_EXACT_USEC - grain : 0)) {
		note_line(b, l, wall, grain, counts, line);
		close_interval(b, l);
		l->n = 0;
	}
	if (!l->n || (t != SPLITLOCK_TIME_UNKNOWN && l->begin != SPLITLOCK_TIME_UNKNOWN &&
		      !within(t, l->begin, BURST_USEC + grain))) {
		close_interval(b, l);
		l->begin = t;
		l->wall = SPLITLOCK_TIME_UNKNOWN;
		l->grain = 0;
		l->n = 0;
		l->counts = false;
	} else if (l->begin == SPLITLOCK_TIME_UNKNOWN) {
		/* Lines without stamps join whichever interval is open; the
		 * first stamp dates it. */
		l->begin = t;
	}
	note_line(b, l, wall, grain, counts, line);
}

void sl_bursts_told(struct sl_bursts *b, uint64_t machine, unsigned limit, int64_t t)
{
	struct sl_burst_limit *l = limit_of(b, machine, limit);

	if (!grow((void **)&l->told, &l->cap_told, l->n_told, sizeof(*l->told))) {
		/* Its burst stays untold rather than the wrong one told. */
		return;
	}
	l->told[l->n_told++] = t;
}

uint64_t sl_bursts_untold(struct sl_bursts *b, uint64_t *first_line)
{
	for (struct sl_burst_limit *l = b->limits; l < b->limits + SL_BURST_SLOTS; l++)
		if (l->key)
			settle(b, l);
	*first_line = b->untold_line;
	return b->untold;
}

void sl_bursts_forget_closed(struct sl_bursts *b)
{
	for (struct sl_burst_limit *l = b->limits; l < b->limits + SL_BURST_SLOTS; l++)
		l->n_used = l->n_told = 0;
}

void sl_bursts_free(struct sl_bursts *b)
{
	for (struct sl_burst_limit *l = b->limits; l < b->limits + SL_BURST_SLOTS; l++) {
		free(l->used);
		free(l->told);
	}
	sl_bursts_init(b, b->since, b->until);
}
