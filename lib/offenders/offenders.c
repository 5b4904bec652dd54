/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The offenders report: detector events aggregated by task, process,
 * comm, executable or unit. This file takes records in (the live log, a
 * saved one, one at a time) and decides what each counts for; table.c
 * holds the offenders (memory grows with their number, not with the
 * log), report-get.c answers programs.
 */
#include <errno.h>
#include <inttypes.h>
#include <syslog.h>
#include <sys/stat.h>
#include <time.h>

#include "offenders/offenders.h"

_public_ int splitlock_offenders_new(struct splitlock_ctx *ctx,
				     enum splitlock_group group, unsigned flags,
				     struct splitlock_offenders **report)
{
	struct splitlock_offenders *r;

	/* A flag or grouping of a later library is refused, not ignored. */
	*report = NULL;
	if ((flags & ~SPLITLOCK_OFFENDERS_RESOLVE) || !splitlock_group_name(group))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
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
	sl_bursts_init(&r->bursts, SPLITLOCK_TIME_UNKNOWN, SPLITLOCK_TIME_UNKNOWN);
	sl_alignment_rule_init(&r->alignment, true);
	*report = r;
	return 0;
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
		sl_offender_free(r->list[i]);
	free(r->list);
	free(r->buckets);
	sl_arena_release(&r->arena);
	sl_proccache_free(r->procs);
	sl_bursts_free(&r->bursts);
	splitlock_unref(r->ctx);
	free(r);
	return NULL;
}

_public_ void splitlock_offenders_set_window(struct splitlock_offenders *r,
					     int64_t since, int64_t until)
{
	r->since = since;
	r->until = until;
	r->bursts.since = since;
	r->bursts.until = until;
}

_public_ void splitlock_offenders_set_boot_time(struct splitlock_offenders *r,
						int64_t boot_wall_usec)
{
	r->boot_wall = boot_wall_usec;
}

/* FNV-1a: keys are short. */
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

/* A line's time for its rate limit's intervals: since boot where the log
 * shows it (the kernel's own clock), else the wall clock's. */
static int64_t burst_stamp(const struct sl_log_record *lr, int64_t wall)
{
	return lr->mono_usec != SPLITLOCK_TIME_UNKNOWN ? lr->mono_usec : wall;
}

/* Used-up bursts the log never told of: unread, the report incomplete. */
static void note_untold_bursts(struct splitlock_offenders *r)
{
	uint64_t line, n = sl_bursts_untold(&r->bursts, &line);

	for (uint64_t i = 0; i < n; i++)
		sl_unread_note_why(&r->unread, line, SPLITLOCK_UNREAD_BURST_USED_UP);
	sl_bursts_free(&r->bursts);
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
	struct sl_offender_key k;
	int64_t wall = lr->wall_usec, earliest = SPLITLOCK_TIME_UNKNOWN;
	bool undated, in, kill;
	size_t at = 0;
	int type, ret;

	if (wall == SPLITLOCK_TIME_UNKNOWN && lr->mono_usec != SPLITLOCK_TIME_UNKNOWN &&
	    r->boot_wall != SPLITLOCK_TIME_UNKNOWN)
		wall = r->boot_wall + lr->mono_usec;
	if (!sl_maybe_detector(rec->message, rec->message_len)) {
		/*
		 * A logger that says it lost kernel messages (journald, rsyslog's
		 * imjournal) may have lost the detector's: lost before its line,
		 * a window that begins before the line may miss them; lost from
		 * the line on (rsyslog's "begin to drop"), one that ends after
		 * it. Anyone may write such a line; it can only make a report
		 * incomplete.
		 */
		int lost = sl_logger_lost_line(rec->message, rec->message_len, lr->short_text);

		if (lost == SL_LOST_BEFORE) {
			if (in_window(r, lr, wall, INT64_MIN / 2, &undated) || undated)
				sl_unread_note_why(&r->unread, lr->line, SPLITLOCK_UNREAD_LOST);
			return 0;
		}
		if (lost == SL_LOST_AFTER) {
			if (r->until == SPLITLOCK_TIME_UNKNOWN || wall == SPLITLOCK_TIME_UNKNOWN ||
			    wall < r->until)
				sl_unread_note_why(&r->unread, lr->line, SPLITLOCK_UNREAD_LOST);
			return 0;
		}
		/* journalctl --no-full shortened a kernel line past its words. */
		if (lr->short_text && !(lr->facility_known && rec->facility != 0) &&
		    sl_detector_line_ellipsized(rec->message, rec->message_len))
			sl_unread_note_why(&r->unread, lr->line, SPLITLOCK_UNREAD_CUT);
		return 0;
	}
	type = splitlock_detector_line_parse(rec->message, rec->message_len, &ev);
	if (type == SPLITLOCK_LINE_OTHER) {
		if (lr->facility_known && rec->facility != 0) {
			/*
			 * The detector's words inside user space's text, or
			 * inside a record's further line: text a record
			 * carried, another form's line (a kern.log cat'ed
			 * after dmesg -r output), a relay's copy of a kernel
			 * line under its own tag ("relay kernlog: Dec  5 ...
			 * host kernel: x86/split lock ..."). It never counts,
			 * and is said.
			 */
			if (sl_detector_text_unread(rec->message, rec->message_len)) {
				r->forged++;
				r->forged_by[lr->further ? SPLITLOCK_FORGED_FURTHER_LINE
							 : SPLITLOCK_FORGED_USER_SPACE]++;
			}
			return 0;
		}
		sl_alignment_rule_see(&r->alignment, lr);
		if (sl_is_kill_suppressed(rec->message, rec->message_len)) {
			sl_bursts_told(&r->bursts, sl_alignment_rule_burst_machine(&r->alignment, lr),
				       SL_BURST_KILLS, burst_stamp(lr, wall));
			/* At the rate limit's level, in a boot whose kills may
			 * be split locks: some of those it dropped may be. */
			if ((!lr->level_known || rec->level == LOG_WARNING) &&
			    sl_alignment_rule_counts(r->ctx, &r->alignment, lr) != 0 &&
			    (in_window(r, lr, wall, INT64_MIN / 2, &undated) || undated))
				sl_unread_note_why(&r->unread, lr->line,
						   SPLITLOCK_UNREAD_KILLS_SUPPRESSED);
			return 0;
		}
		/* A record cut inside the detector's prefix, more after it. */
		if (sl_detector_prefix_cut(rec->message, rec->message_len))
			sl_unread_note_why(&r->unread, lr->line, SPLITLOCK_UNREAD_CUT);
		/* The detector's words in a form the parser does not know: say so. */
		else if (sl_detector_text_unread(rec->message, rec->message_len))
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
		sl_bursts_told(&r->bursts, sl_alignment_rule_burst_machine(&r->alignment, lr),
			       ev.kind == SPLITLOCK_KIND_BUS_LOCK ? SL_BURST_BUS_LOCK : SL_BURST_SPLIT_LOCK,
			       burst_stamp(lr, wall));
	} else if (!kill &&
		 (unsigned)ev.kind < ARRAY_SIZE(r->last_limited) && wall != SPLITLOCK_TIME_UNKNOWN)
		r->last_limited[ev.kind] = wall;
	in = in_window(r, lr, wall, earliest, &undated);
	/* Every line: a burst whose lines the window leaves out may still
	 * have dropped events inside it (log/burst.c). */
	if (type == SPLITLOCK_LINE_EVENT) {
		bool mono = lr->mono_usec != SPLITLOCK_TIME_UNKNOWN;

		sl_bursts_line(&r->bursts, sl_alignment_rule_burst_machine(&r->alignment, lr),
			       kill ? SL_BURST_KILLS :
			       ev.kind == SPLITLOCK_KIND_BUS_LOCK ? SL_BURST_BUS_LOCK : SL_BURST_SPLIT_LOCK,
			       burst_stamp(lr, wall), mono || wall != lr->wall_usec ? 0 : lr->wall_grain,
			       wall, in || undated, lr->line);
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
	sl_offenders_build_key(r, lr, &ev, pi, &k);
	ret = sl_offenders_find_or_add(r, &k, &ev, pi, &o);
	if (ret < 0)
		return ret;
	if (keep_sorted)
		at = sl_offenders_position(r, o);
	if (o->events)
		sl_offenders_merge_labels(r, o, &ev, pi);
	o->events++;
	if (keep_sorted)
		sl_offenders_move_forward(r, at);
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
		ret = sl_offenders_add_ip(r, o, r->last_ip);
		if (ret < 0)
			return ret;
	}
	if (result)
		*result = o;
	return 1;
}

/*
 * The live log hands every record: where the kernel's numbers skip some,
 * they were lost before they were read (its buffer wrapped, dmesg -c, a
 * read overrun). They were logged between the record before and this
 * one: a window that reaches into that span may miss them.
 */
static void check_seq(struct splitlock_offenders *r, const struct sl_log_record *lr)
{
	int64_t wall = SPLITLOCK_TIME_UNKNOWN, before = r->kmsg_seq_wall;
	bool first = !r->kmsg_seq.any, undated;

	if (lr->mono_usec != SPLITLOCK_TIME_UNKNOWN && r->boot_wall != SPLITLOCK_TIME_UNKNOWN)
		wall = r->boot_wall + lr->mono_usec;
	if (sl_kmsg_seq_lost(&r->kmsg_seq, lr->rec.seq) &&
	    (in_window(r, lr, wall, first || before == SPLITLOCK_TIME_UNKNOWN ? INT64_MIN / 2 : before,
		       &undated) || undated))
		sl_unread_note_why(&r->unread, 0, SPLITLOCK_UNREAD_LOST);
	r->kmsg_seq_wall = wall;
}

static int add_kmsg_record(struct splitlock_offenders *r,
			   const struct splitlock_kmsg_record *rec, bool keep_sorted,
			   bool live, const struct splitlock_offender **offender, const char **ip)
{
	struct sl_log_record lr = {
		.rec = *rec,
		.facility_known = true,
		.level_known = true,
		.mono_usec = rec->usec > INT64_MAX ? SPLITLOCK_TIME_UNKNOWN : (int64_t)rec->usec,
		.wall_usec = SPLITLOCK_TIME_UNKNOWN,
	};
	int ret;

	if (live)
		check_seq(r, &lr);

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
	return add_kmsg_record(r, rec, true, true, offender, ip);
}

_public_ int splitlock_offenders_add_record(struct splitlock_offenders *r,
					    const struct splitlock_kmsg_record *rec,
					    const struct splitlock_offender **offender)
{
	/* A program's records, which it may have chosen: no numbers checked. */
	return add_kmsg_record(r, rec, true, false, offender, NULL);
}

static int kmsg_cb(const struct splitlock_kmsg_record *rec, void *data)
{
	int r = add_kmsg_record(data, rec, false, true, NULL, NULL);

	return r < 0 ? r : 0;
}

_public_ int splitlock_offenders_read_kmsg(struct splitlock_offenders *r)
{
	int64_t boot;
	int ret;

	if (r->boot_wall == SPLITLOCK_TIME_UNKNOWN && sl_log_epoch(r->ctx, &boot) == 0)
		r->boot_wall = boot;
	/* The buffer from its first record: the boot's first, unless some
	 * were lost. */
	r->kmsg_seq = (struct sl_kmsg_seq){ .from_start = true };
	r->kmsg_seq_wall = SPLITLOCK_TIME_UNKNOWN;
	ret = sl_kmsg_foreach(r->ctx, kmsg_cb, r, &r->unread);
	/* The buffer as it stands: a burst used up lately may still be told
	 * by a later line, but this report cannot know it yet. */
	note_untold_bursts(r);
	/* Also after an error: what was read before it is in the report. */
	sl_offenders_sort(r);
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
	sl_offenders_sort(r);
	return ret;
}

_public_ int splitlock_offenders_proc_event(struct splitlock_offenders *r,
					    const struct splitlock_proc_event *ev)
{
	return sl_proccache_event(r->ctx, r->procs, ev);
}
