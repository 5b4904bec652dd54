/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the log readers hand the report: records with what their form could
 * tell, the lines left unread and why, and the rules that span records
 * (alignment-check kills, rate-limit bursts).
 */
#ifndef SPLITLOCK_LOG_READER_H
#define SPLITLOCK_LOG_READER_H

#include "core/internal.h"

/* A record of any log format, with what that format could tell. */
struct sl_log_record {
	struct splitlock_kmsg_record rec;
	bool facility_known; /* false: plain dmesg text, trusted as kernel's */
	/* rec.level is the record's own (dmesg -r, -x, --json): the detector
	 * writes its events at LOG_WARNING only. */
	bool level_known;
	/* A record's further line (dmesg -r, -x, --json): never the kernel's. */
	bool further;
	/* A later boot of the file holds the text of an earlier boot's record
	 * in a form whose stamps cannot tell a repeat (log-repeat.c). */
	bool maybe_repeat;
	/* One of the repeats a syslog daemon folded into a "repeated N times"
	 * line: that line was checked for a dump saved twice, not each. */
	bool folded;
	/* A line of a syslog daemon's file or of journalctl's short text
	 * (sl_syslog_tail()): journalctl may have shortened it (--no-full),
	 * and rsyslog's own lines there say what it lost. */
	bool short_text;
	int64_t mono_usec;   /* since boot, or SPLITLOCK_TIME_UNKNOWN */
	int64_t wall_usec;   /* since the epoch, or SPLITLOCK_TIME_UNKNOWN */
	/*
	 * How well wall_usec places the event: it was in [wall_usec -
	 * wall_before, wall_usec + wall_grain]. A stamp that shows whole
	 * seconds has a grain of a second less a microsecond (0: exact); an
	 * event a syslog daemon folded into a later "repeated N times" line
	 * happened at or before that line's time, after the line it repeats.
	 */
	int64_t wall_grain, wall_before;
	uint64_t line;       /* line number in a saved log; 0: unknown */
	uint64_t boot;       /* which boot (journal boot id); 0: unknown */
	uint64_t host;       /* which host (syslog's HOST); 0: unknown */
};

/*
 * The kernel numbers a boot's records from 0, one after the other
 * (/dev/kmsg's SEQ): a number skipped is a record lost before it was read
 * (the buffer wrapped, dmesg -c, a read overrun: EPIPE).
 */
struct sl_kmsg_seq {
	bool from_start; /* the first record read is the buffer's first */
	bool any;
	uint64_t last;
};
/*
 * log/live.c: splitlock_kmsg_foreach(), and where a file stands in for
 * /dev/kmsg (a fake root), its lines that hold detector text but are no
 * record noted in @unread: the report says so.
 */
struct sl_unread;
int sl_kmsg_foreach(struct splitlock_ctx *ctx, splitlock_kmsg_fn fn, void *data,
		    struct sl_unread *unread);

/* log/kmsg.c: the records lost before @seq, every record handed here.
 * Going back (another boot, or a dump appended again) loses none: which,
 * the numbers cannot tell. */
uint64_t sl_kmsg_seq_lost(struct sl_kmsg_seq *s, uint64_t seq);

/*
 * Lines holding detector text that were not read: the report is then
 * incomplete, and says where the first one is.
 */
struct sl_unread {
	uint64_t lines;
	uint64_t first_line; /* 0: unknown */
	uint64_t by[SPLITLOCK_UNREAD_LOST + 1]; /* enum splitlock_unread */
};

static inline void sl_unread_note_why(struct sl_unread *u, uint64_t line,
				      enum splitlock_unread why)
{
	/* The lowest line named: bursts and cuts are noted at the end. */
	if (u->lines++ == 0 || (line && (!u->first_line || line < u->first_line)))
		u->first_line = line;
	u->by[why]++;
}

static inline void sl_unread_note(struct sl_unread *u, uint64_t line)
{
	sl_unread_note_why(u, line, SPLITLOCK_UNREAD_UNPARSED);
}

/*
 * log-alignment.c: "traps: ... trap alignment check" is a split-lock kill
 * only where that boot's detector runs in fatal mode; any program may set
 * EFLAGS.AC itself and get the same line. Saved logs decide by the boot
 * line in the same log, the live log by the running kernel's mode.
 */
/*
 * The mode of each boot a saved log interleaves (journal entries of several
 * boots, remote syslog of several hosts), as its boot line said.
 */
#define SL_ALIGNMENT_BOOTS 16
struct sl_alignment_rule {
	bool live, live_read;
	int live_fatal;
	struct sl_alignment_boot {
		uint64_t key;       /* boot ^ host; 0: a free slot */
		int fatal;          /* 1 fatal, 0 not, -1 not known */
		int ac;             /* #AC detection: 1 shown, 0 #DB only, -1 not known */
		/* Modes its lines have shown, and whether two that differ
		 * came where no stamp since boot, boot id or host tells a
		 * reboot from another machine's lines (journalctl -o cat of
		 * several hosts, dmesg -t). */
		bool seen_fatal, seen_other, mixed;
		int64_t last_mono;
		uint64_t epoch; /* boots within it seen so far (see above) */
	} boots[SL_ALIGNMENT_BOOTS];
	unsigned next_evict;
	/*
	 * journalctl -o short*: the boot before the first "-- Boot ID --"
	 * marker has no id (SL_BOOT_UNMARKED) until its host's lines come
	 * back under an id after another host's (interleaved journals print
	 * a marker at every switch).
	 */
	uint64_t unmarked_boot, unmarked_host, unmarked_id, last_boot, last_host;
	uint64_t banners; /* the kernel's banners seen */
	bool unmarked_seen, unmarked_named;
};

void sl_alignment_rule_init(struct sl_alignment_rule *a, bool live);
/* Learn from a kernel record that is not an event (boot lines, boundaries). */
void sl_alignment_rule_see(struct sl_alignment_rule *a,
			   const struct sl_log_record *lr);
/* The boot of the lines before journalctl's first "-- Boot ID --". */
#define SL_BOOT_UNMARKED 1
/* Does the alignment-check kill in @lr count as a split-lock kill? 1 yes,
 * 0 no, -1 the log has not shown that boot's mode (saved logs only). */
int sl_alignment_rule_counts(struct splitlock_ctx *ctx,
			      struct sl_alignment_rule *a,
			      const struct sl_log_record *lr);
/* The boot and host of @lr, as one number: the first boot of journalctl
 * text under the id it turned out to have. */
uint64_t sl_alignment_rule_machine(const struct sl_alignment_rule *a,
				   const struct sl_log_record *lr);
/* The boot and host of @lr, with the boots that only its banner or the
 * detector's boot line shows (dmesg dumps cat'ed): a rate limit's state
 * is one boot's. */
uint64_t sl_alignment_rule_burst_machine(struct sl_alignment_rule *a,
					 const struct sl_log_record *lr);
bool sl_is_alignment_check(const char *message, size_t len);
/* "show_signal: N callbacks suppressed": kill messages the kernel dropped. */
bool sl_is_kill_suppressed(const char *message, size_t len);

/* log/burst.c: rate limits whose burst was used up with no line saying
 * what they dropped. Limits: SL_BURST_SPLIT_LOCK, _BUS_LOCK, _KILLS. */
#define SL_BURST_LINES 10
#define SL_BURST_SLOTS 48
enum { SL_BURST_SPLIT_LOCK, SL_BURST_BUS_LOCK, SL_BURST_KILLS };
struct sl_bursts {
	struct sl_burst_limit {
		uint64_t key;     /* machine and limit; 0: a free slot */
		/* The interval open: its first line's stamp (as the lines
		 * give it), the earliest wall-clock time of its lines, how
		 * many, the 10th's line number, whether one was the report's. */
		int64_t begin, wall, grain;
		unsigned n;
		uint64_t tenth;
		bool counts;
		/* Its used-up intervals and the stamps of its "callbacks
		 * suppressed" lines, matched when the log is read. */
		struct sl_burst_used {
			int64_t begin, wall, grain;
			uint64_t tenth;
			bool counts, told;
		} *used;
		size_t n_used, cap_used;
		int64_t *told;
		size_t n_told, cap_told;
	} limits[SL_BURST_SLOTS];
	unsigned next_evict;
	int64_t since, until; /* the report's window (wall clock) */
	uint64_t untold, untold_line;
	/* Bursts used up so far, told or not: a follower, which prints no
	 * report, says each as it happens. */
	uint64_t used_up;
};
void sl_bursts_init(struct sl_bursts *b, int64_t since, int64_t until);
/*
 * A follower, which settles nothing (it says a burst when it is used up),
 * forgets the closed intervals and the lines that told of them, so that
 * its memory does not grow with every burst: the open ones stay.
 */
void sl_bursts_forget_closed(struct sl_bursts *b);
void sl_bursts_free(struct sl_bursts *b);
/*
 * A line of @limit let through at @t (the stamp since boot, else the wall
 * clock's, which may be up to @grain later) on @machine; @wall its
 * wall-clock time where known, @counts whether it is inside the report's
 * window (or cannot be placed).
 */
void sl_bursts_line(struct sl_bursts *b, uint64_t machine, unsigned limit, int64_t t,
		    int64_t grain, int64_t wall, bool counts, uint64_t line);
/* A "callbacks suppressed" line of @limit on @machine at @t (as above). */
void sl_bursts_told(struct sl_bursts *b, uint64_t machine, unsigned limit, int64_t t);
/* The used-up bursts of the window no line told of, and the 10th line of
 * the first of them. */
uint64_t sl_bursts_untold(struct sl_bursts *b, uint64_t *first_line);

typedef int (*sl_log_record_fn)(const struct sl_log_record *rec, void *data);

/* Could this message be the detector's? Cheap; false means surely not. */
bool sl_maybe_detector(const char *s, size_t len);
/*
 * detector-line.c: does a message that did not parse as the detector's
 * event still hold its words (its prefix, "#AC:"/"#DB:", a trap phrase, a
 * rate limit's name) without being one of its known other lines (boot
 * lines)? Then it is detector text that went unread.
 */
bool sl_detector_text_unread(const char *s, size_t len);
/* Is the message [@s, @s + @len) the detector's prefix cut short ("x86/split
 * lo")? sl_detector_text_unread() says so too. */
bool sl_detector_prefix_cut(const char *s, size_t len);
/* Is [@s, @s + @len) the start of a detector line, or of a kill line,
 * cut short ("x86/spl", "traps: ")? */
bool sl_detector_start_prefix(const char *s, size_t len);
/* [@traps, @end), from "traps: " on, cut short: may it have been an
 * alignment-check kill ("traps: game[700] trap alignm")? One whose words
 * say another trap (general protection) is not. */
bool sl_kill_line_start(const char *traps, const char *end);
/* A message journalctl shortened with "…" that may have been the
 * detector's ("x86/split loc…4"). */
bool sl_detector_line_ellipsized(const char *s, size_t len);
/* A logger's own line saying it lost kernel messages: journald's "Missed
 * N kernel messages"; in a syslog daemon's file (@syslog_file), rsyslog's
 * "imjournal: N messages lost due to rate-limiting" or "begin to drop". */
enum { SL_LOST_BEFORE = 1, /* the line tells of records lost before it */
       SL_LOST_AFTER = 2 };   /* records are lost from it on (rsyslog's "begin to drop") */
int sl_logger_lost_line(const char *s, size_t len, bool syslog_file);

/*
 * log-input.c: stream records of a saved log from @fd. *@format AUTO is
 * replaced by the detected one. Records that surely are not the detector's
 * are skipped unparsed, unless @every_record (a file standing in for
 * /dev/kmsg, whose reader hands on every record). @unread counts
 * detector-like lines that no parser of the format read (framing broken, a
 * form not understood, overlong); while it is empty, records carry their
 * line number.
 */
int sl_log_input_foreach(struct splitlock_ctx *ctx, int fd,
			 enum splitlock_input_format *format, bool every_record,
			 sl_log_record_fn fn, void *data,
			 splitlock_progress_fn progress, void *progress_data,
			 struct sl_unread *unread);

#endif
