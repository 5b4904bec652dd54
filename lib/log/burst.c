/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Has a rate limit used up its burst where the log never says what it
 * dropped? lib/ratelimit.c lets 10 lines through in 5 s and says how many
 * it dropped ("NAME: N callbacks suppressed") only at its next call after
 * the interval, which may never come: the task is warned once, the boot
 * ends. Kept per machine (boot and host, as the log shows them) and per
 * limit, whatever the file's order (journalctl -r) and the stamps' grain:
 * 10 lines of one limit in one of its intervals are a used-up burst, and
 * each wants a "callbacks suppressed" line of that limit and machine
 * somewhere in the log. A burst the limit had room for after all (exactly 10) is taken
 * for used up too: the log cannot tell.
 */
#include "log/reader.h"

#define BURST_LINES SL_BURST_LINES
#define BURST_USEC (INT64_C(5) * 1000000)

void sl_bursts_init(struct sl_bursts *b)
{
	*b = (struct sl_bursts){ 0 };
}

static void untold(struct sl_bursts *b, const struct sl_burst_limit *l)
{
	if (l->used_up > l->told) {
		b->untold += l->used_up - l->told;
		if (!b->untold_line)
			b->untold_line = l->first_line;
	}
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
		untold(b, l);
	}
	*l = (struct sl_burst_limit){ .key = key };
	return l;
}

/* |a - b| <= span, for any stamps a log may claim (no overflow). */
static bool within(int64_t a, int64_t b, int64_t span)
{
	int64_t step;

	if (__builtin_sub_overflow(a, b, &step) || step == INT64_MIN)
		return false;
	return (step < 0 ? -step : step) <= span;
}

void sl_bursts_line(struct sl_bursts *b, uint64_t machine, unsigned limit, int64_t t,
		    int64_t grain, uint64_t line)
{
	struct sl_burst_limit *l = limit_of(b, machine, limit);

	/*
	 * The kernel's intervals: the first line after one's 5 s begins the
	 * next (either way in time: journalctl -r; the stamps' grain makes
	 * them longer, so that a burst is not missed). Without stamps, the
	 * whole log is one interval: nothing shows more room.
	 */
	if (!l->n || (t != SPLITLOCK_TIME_UNKNOWN && l->begin != SPLITLOCK_TIME_UNKNOWN &&
		      !within(t, l->begin, BURST_USEC + grain))) {
		l->begin = t;
		l->n = 0;
	} else if (l->begin == SPLITLOCK_TIME_UNKNOWN) {
		/* Lines without stamps join whichever interval is open; the
		 * first stamp dates it. */
		l->begin = t;
	}
	if (++l->n == BURST_LINES) {
		l->used_up++;
		if (!l->first_line)
			l->first_line = line;
	}
}

void sl_bursts_told(struct sl_bursts *b, uint64_t machine, unsigned limit)
{
	limit_of(b, machine, limit)->told++;
}

uint64_t sl_bursts_untold(struct sl_bursts *b, uint64_t *first_line)
{
	for (struct sl_burst_limit *l = b->limits; l < b->limits + SL_BURST_SLOTS && l->key; l++)
		untold(b, l);
	*first_line = b->untold_line;
	return b->untold;
}
