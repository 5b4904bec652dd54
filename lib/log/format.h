/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The saved-log readers: log/input.c finds the lines that may matter and
 * hands each to the line parser of its format (log-format-*.c), which
 * decodes what the format tells (stamp, who wrote it, the message) and
 * passes a record on. Shared time-stamp and prefix parsers: log/stamp.c.
 */
#ifndef SPLITLOCK_LOG_FORMAT_H
#define SPLITLOCK_LOG_FORMAT_H

#include "log/needle-scan.h"
#include "log/reader.h"

#define SL_INPUT_BUF (256u * 1024)
#define SL_RECORD_INIT { .mono_usec = SPLITLOCK_TIME_UNKNOWN, \
			 .wall_usec = SPLITLOCK_TIME_UNKNOWN }

/*
 * A record whose fields stand on several lines (journalctl -o export and
 * -o verbose, dmesg --json), gathered until its end; the message is kept
 * in the reader's decoded buffer.
 */
struct sl_pending {
	bool open, has_message, message_lost;
	bool broken;           /* framing broken: unparsed, not hidden */
	bool journal;          /* journal fields: _TRANSPORT decides trust */
	bool has_transport, kernel_transport;
	int facility, level;   /* -1: not given */
	int64_t mono, wall;
	uint64_t boot, line;
	uint64_t cursor;       /* hash of __CURSOR; 0: none */
	size_t message_len;
	/* export: a binary field being gathered in the scratch buffer */
	bool in_binary, binary_message;
	size_t binary_len;
	/* verbose: indented lines continue the message */
	bool continues_message;
	/* export: the fields written once an entry (SL_ENTRY_ONCE_*) seen so
	 * far; one again means another dump's entry ran on into this one */
	unsigned once_fields;
	/* The entry's first lines went into an entry cut before it (a dump
	 * cut, another appended): what is left of it is no whole entry. */
	bool headless;
};

/* dmesg text: what the first lines say about who wrote a line. */
enum sl_dmesg_form {
	SL_DMESG_PLAIN,   /* no facility: taken as the kernel's (slctl(8)) */
	SL_DMESG_RAW,     /* -r: "<PRI>" on a record's first line */
	SL_DMESG_DECODED, /* -x: "kern  :warn  : " on a record's first line */
};

/*
 * Records saved twice (log/repeat.c): /dev/kmsg records, dmesg text and
 * --json, syslog and journalctl's text forms. Every record that may be the
 * detector's, by a hash of its stamp and text, with the boot of the file
 * that first held it and how often; and each split lock #AC event's task
 * and address (sl_repeat_event_again()).
 */
struct sl_repeat_seen {
	struct sl_repeat_slot {
		uint64_t key;                      /* 0: empty */
		uint32_t first_boot, first_count;  /* the boot that held it first */
		uint32_t boot, count;              /* a later boot: read again there */
	} *slots;
	size_t n, allocated;
	/* The first boot's keys, in file order, until a second boot begins:
	 * most logs hold one, where nothing can repeat an earlier boot and a
	 * hash table would only cost (log/repeat.c). */
	uint64_t *first;
	size_t n_first, allocated_first;
	uint32_t boot;          /* the boot being read, counted in file order */
	int64_t last_stamp;
	bool has_stamp;
	uint64_t repeats;       /* records read before and skipped */
};

/*
 * Journal entries read, by a hash of their __CURSOR, which names one
 * entry of one journal: an entry saved twice (overlapping journalctl -o
 * export or -o json dumps appended to one file) is read once, as
 * journalctl itself reads an entry of several files once.
 */
struct sl_journal_seen {
	uint64_t *slots; /* open addressing; 0: empty */
	size_t n, allocated;
	uint64_t repeats;
	/* Entries cut short (sl_pending_cut()): their cursors and lines. */
	struct sl_journal_cut {
		uint64_t cursor, line;
	} *cut;
	size_t n_cut, allocated_cut;
};

/*
 * RFC 3164 syslog stamps have no year. A file's lines are in time order,
 * so its years are too: the last line's year is the latest that is not in
 * the future, and each time the month goes back between lines a year
 * began. The lines that may matter are kept until the end of the input,
 * when their years are known, and read then (sl_syslog_years_replay()).
 */
struct sl_syslog_years {
	char *bytes;             /* the lines kept, one after the other */
	size_t len, allocated;
	struct sl_syslog_kept {
		uint64_t line;
		size_t at, len;
		int back, ahead; /* steps of over half a year before it in the file */
		int back_near, ahead_near; /* of those, a few hours across a new year */
		bool follows;    /* right after the line kept before it */
	} *lines;
	size_t n, lines_allocated;
	int month, mday;         /* of the last line seen; month -1: none */
	int h, m, s;             /* its time */
	int first_month, first_mday, first_h, first_m, first_s; /* the first line's */
	int back, ahead;         /* steps of over half a year back, ahead so far */
	int back_near, ahead_near; /* of those, a year less a few hours */
	uint64_t steps_back, steps_ahead; /* shorter ones: the file's order */
	uint64_t seams_back, seams_ahead; /* over two hours each way */
	char minute[12];                  /* "Mmm dd hh:mm" of the last line seen */
};

/*
 * Syslog daemons write a message that repeats as one line: rsyslog "TAG:
 * message repeated N times: [MSG]", sysklogd (and rsyslog's old form)
 * "last message repeated N times" after the line it repeats. The kernel's
 * record of the line just before, for the second (log/format-syslog.c).
 */
#define SL_SYSLOG_LAST_MAX 1024
struct sl_syslog_last {
	bool valid;     /* the line before was the kernel's, kept here */
	bool overlong;  /* the line before was the kernel's, too long to keep */
	uint64_t repeats; /* read so far from repeat lines, of the file */
	struct sl_log_record r;
	size_t len;
	char msg[SL_SYSLOG_LAST_MAX];
};

struct sl_reader {
	struct splitlock_ctx *ctx;
	const struct sl_log_format *form;
	char sep;
	char *decoded; /* SL_INPUT_BUF + 1 */
	sl_log_record_fn fn;
	void *data;
	struct sl_unread *unread;
	/*
	 * Records the form parsed (a first line each), and before the first,
	 * the lines that may hold the detector's text: a form that reads no
	 * record of such an input (the wrong --input-format) says so.
	 */
	uint64_t records;
	uint64_t lines_before_record, first_line_before_record;
	uint64_t line;   /* number of the line being handled; 0: not counted */
	uint64_t lines;  /* lines before `counted` */
	const char *counted;
	uint64_t boot;   /* the boot the lines belong to (journal text) */
	bool every_line; /* no prefilter: every line is parsed */
	bool stand_in; /* a file in place of /dev/kmsg: its last record may lack a newline */
	/* journalctl -o json-pretty: one object over many lines */
	char *object;
	size_t object_len;
	bool in_object, object_overflow;
	uint64_t object_line;
	/* A JSON document or array begun and not closed yet (dmesg --json's
	 * {"dmesg": [ ... ]}, jq -s's [ ... ]): a log that ends there was cut,
	 * whichever record's "}" it ends at. */
	bool json_open, json_array_closed;
	/* dmesg --json: a document's "{" read, its "dmesg": [ not yet */
	bool json_head;
	/* jq's layout with the entries inside another value ({"entries":
	 * [...]}): no form slctl reads; its lines are counted unread. */
	bool json_nested;
	/* SL_INPUT_BUF: a line without its colours, an export binary field */
	char *scratch;
	enum sl_dmesg_form dmesg_form;
	size_t indent; /* of a record's first line (pasted logs): dmesg, syslog, journal text */
	struct sl_pending pending;
	struct sl_repeat_seen *repeat_seen; /* kmsg, dmesg, syslog, journal text */
	struct sl_journal_seen *journal_seen; /* journal export and JSON */
	struct sl_syslog_years *years; /* RFC 3164 syslog: NULL for other forms */
	/* Whether the line being handled comes right after the one handled
	 * before it: the scan passes lines by. */
	const char *after_handled; /* one past the last line handled; NULL: none */
	bool follows;
	struct sl_syslog_last *last; /* syslog: NULL for other forms */
	/* The whole lines [@p, @end) the scan passes by, where the form must
	 * see every line (a yearless syslog's dates, /dev/kmsg records'
	 * numbers); NULL: none. */
	void (*passed)(struct sl_reader *rd, const char *p, const char *end);
	/* kmsg: the records' numbers, and whether they skipped some among
	 * the records passed by since the last one read */
	struct sl_kmsg_seq kmsg_seq;
	bool kmsg_lost;
};

/*
 * log/input.c: is @r (its message decoded) a record an earlier dump in the
 * file held (log/repeat.c)? 1: skip it; 0: read it, r->maybe_repeat set
 * when its form cannot tell; -ENOMEM.
 */
int sl_text_repeat(struct sl_reader *rd, struct sl_log_record *r);
/* The same for a record that may be the kernel's and is no further or
 * folded line, where the form checks repeats; 0 for any other. */
int sl_reader_repeat(struct sl_reader *rd, struct sl_log_record *r);
/* A line holding detector text that no parser read. */
void sl_reader_unrecognized(struct sl_reader *rd, const char *line, size_t len);
/* The line number of @p, a line the scan passed by: counted only until
 * the first unread line, as log/input.c does (0 after it). */
uint64_t sl_passed_line(const struct sl_reader *rd, const char *p);
/* Decode \xNN of @msg into rd->decoded, fill @r's message and pass it on. */
int sl_reader_emit(struct sl_reader *rd, struct sl_log_record *r,
		   const char *msg, size_t len);

/*
 * One form of saved log. Its file (log/format-*.c) defines the entry;
 * log/formats.c lists it. The reader (log/input.c) knows no form by name:
 * what differs between forms is here.
 */
enum sl_log_format_flags {
	/* NULs are data, not a hole (copytruncate) nor binary: NUL-separated
	 * records, export's binary fields. */
	SL_FORMAT_HOLDS_NULS = 1 << 0,
	/* Records are separated by NULs, not newlines. */
	SL_FORMAT_NUL_SEPARATED = 1 << 1,
	/* A record spans lines that hold none of the needles: every line is
	 * handed to the parser. */
	SL_FORMAT_EVERY_LINE = 1 << 2,
	/* The same record saved twice (a dump appended again) is found by its
	 * stamp and text (log/repeat.c). */
	SL_FORMAT_REPEATS = 1 << 3,
	/* Journal entries, found twice by their __CURSOR. */
	SL_FORMAT_JOURNAL_ENTRIES = 1 << 4,
	/* journalctl colours it on a terminal: raw ESC sequences go. */
	SL_FORMAT_COLOURED = 1 << 5,
	/* Its wall-clock stamps are computed from the boot-relative ones
	 * (dmesg -T), not the record's own. */
	SL_FORMAT_DERIVED_WALL = 1 << 6,
};

struct sl_log_format {
	enum splitlock_input_format id;
	const char *name; /* as --input-format and the JSON report spell it */
	unsigned flags;   /* enum sl_log_format_flags */
	/*
	 * Text a line that may matter holds (SL_DETECTOR_NEEDLES and the
	 * form's own: boot markers, repeat lines): lines without any are
	 * passed by. NULL: the detector's alone.
	 */
	const struct sl_needle *needles;
	size_t n_needles;
	/*
	 * Is the start of a log, past blank lines, in this form by its shape
	 * alone (JSON, export fields, /dev/kmsg records)? NULL: a text form,
	 * decided by log/detect.c's vote over the lines.
	 */
	bool (*sniff)(const char *p, const char *end);
	/* Before the first line, the first buffer: what the form takes from
	 * it (dmesg's flavour, an indent, a yearless syslog). NULL: nothing. */
	int (*start)(struct sl_reader *rd, const char *p, const char *end);
	int (*line)(struct sl_reader *rd, const char *line, size_t len);
	/* The end of the input ends the record being gathered. NULL: none. */
	int (*finish)(struct sl_reader *rd);
	/*
	 * The input ends inside its last line, [@line, @end) without its
	 * newline and trailing blanks: was a record cut? NULL: the text
	 * forms' rule (log/input.c).
	 */
	bool (*line_cut)(const char *line, const char *end);
	/* The input ends after a whole line: is a record still open? NULL: no. */
	bool (*open_at_end)(const struct sl_reader *rd, const char *buf, size_t end);
	/* What start() took, given back. NULL: nothing. */
	void (*release)(struct sl_reader *rd);
};

/* log/formats.c: the entry of @id; NULL for SPLITLOCK_INPUT_AUTO and past the last. */
const struct sl_log_format *sl_log_format_of(enum splitlock_input_format id);

extern const struct sl_log_format sl_log_format_kmsg;
extern const struct sl_log_format sl_log_format_kmsg_nul;
extern const struct sl_log_format sl_log_format_dmesg;
extern const struct sl_log_format sl_log_format_dmesg_json;
extern const struct sl_log_format sl_log_format_syslog;
extern const struct sl_log_format sl_log_format_journal_text;
extern const struct sl_log_format sl_log_format_journal_json;
extern const struct sl_log_format sl_log_format_journal_export;
extern const struct sl_log_format sl_log_format_journal_verbose;

/* The line parsers that a test calls alone. */
int sl_dmesg_line(struct sl_reader *rd, const char *line, size_t len);
/* log/format-dmesg-json.c: does dmesg --json's {"dmesg": start at @p? */
bool sl_dmesg_json_at(const char *p, const char *end);
/* log/reader.c: a form whose writer ends every line (export, verbose):
 * a last line without its newline was cut. */
bool sl_entry_line_cut(const char *line, const char *end);
/* A JSON form's last line is whole when it closes its value. */
bool sl_json_line_cut(const char *line, const char *end);
/* JSON entries (journal, dmesg --json): the input ended inside one. */
bool sl_json_open_at_end(const struct sl_reader *rd, const char *buf, size_t end);
/* log/reader.c: the text forms' rule for a last line [@line, @end)
 * without its newline: may it have been the detector's, cut? */
bool sl_text_line_cut(const char *line, const char *end);
/* @end back past blanks, line ends and colour resets. */
const char *sl_trim_end(const char *p, const char *end);
/* "\e[...m" colour sequences of dmesg --color=always left out, into @out. */
size_t sl_strip_colors(const char *p, size_t len, char *out);

/* log/format-journal-record.c: a record of several lines (struct sl_pending). */
void sl_pending_begin(struct sl_reader *rd, bool journal);
/* A journal field; the ones that do not matter are passed over. */
void sl_pending_field(struct sl_reader *rd, const char *name, size_t name_len,
		      const char *value, size_t len);
/* The record is complete: hand it on (when it has a message). */
int sl_pending_end(struct sl_reader *rd);
/*
 * The record was cut short (export: the next entry's cursor came before
 * its end): it is not read, but if its entry is not read whole later in
 * the file (an overlapping dump), the report is incomplete.
 */
int sl_pending_cut(struct sl_reader *rd);
/* At the end of the input: the cut entries never read whole (cut). */
void sl_pending_cut_finish(struct sl_reader *rd);
/*
 * A line of @len bytes that another dump's first line ran on into (a dump
 * cut inside it, another appended: "cat cut whole"): the record being
 * gathered was cut there. Its piece [@line, @line + @at) is no whole
 * field and is left out; the rest is handed to the form's line parser as
 * the line it is.
 */
int sl_pending_joined(struct sl_reader *rd, const char *line, size_t len, size_t at);
/* 1 when the entry of this __CURSOR hash was read before, 0 when not (it
 * is now), -ENOMEM. */
int sl_journal_seen_before(struct sl_reader *rd, uint64_t cursor);
/*
 * log/repeat.c: a record with @stamp (SPLITLOCK_TIME_UNKNOWN: none; where
 * it goes back, or stays where it was when it is @exact: SEQ or
 * microseconds, or at a @boot_line, a boot of the file begins). 1 when an
 * earlier boot of the file held the record of @exact_key (its stamp and
 * text): a repeat, to be skipped. Otherwise 0, and *@maybe set when an
 * earlier boot held a record of @text_key (its text alone: the form's
 * stamps cannot tell). -ENOMEM. A key of 0 is not looked up.
 */
int sl_repeat_check(struct sl_repeat_seen *s, int64_t stamp, bool exact, bool boot_line,
		    uint64_t exact_key, uint64_t text_key, bool *maybe);
/* A boot's first lines, the kernel's banner and the detector's mode (@msg
 * ends in a NUL): a boot of the file begins; never dropped as a repeat. */
bool sl_boot_line(const char *msg, size_t len);
uint64_t sl_repeat_key(int64_t stamp, uint64_t host, int facility, int level,
		       const char *text, size_t len);
/* 1 when @msg is a split lock #AC event of the task (COMM/PID) and address
 * of an earlier one in the file (the kernel warns of a task's once), or,
 * in a form without stamps (@stamp unknown), a bus lock #DB event of
 * those; 0 when not (it is now kept), -ENOMEM. */
int sl_repeat_event_again(struct sl_repeat_seen *s, const char *msg, size_t len, int64_t stamp);
/* A record whose message could not be seen ("[1.2K blob data]"). */
void sl_pending_message_lost(struct sl_reader *rd);
/*
 * journalctl's stand-in for a value that is not printable UTF-8 ("[84B
 * blob data]", "[1.2K blob data]": systemd logs-show.c) at @v, the whole
 * value: the message is not in the log.
 */
bool sl_blob_data(const char *v, size_t len);
/*
 * The lines of a message after its first: a record's first line is all
 * the kernel's detector ever writes, so they are passed on as user
 * space's (never counted, detector-like ones counted as forged).
 */
int sl_reader_emit_untrusted(struct sl_reader *rd, const struct sl_log_record *base,
			     const char *msg, size_t len);
/* journalctl short-full and verbose: "Thu 2026-12-03 09:18:33[.123456] UTC " */
const char *sl_journal_full_stamp(const char *p, const char *end, int64_t *wall);

/*
 * log/format-syslog.c, shared with journalctl text: an RFC 3164
 * ("Dec  3 09:18:33", any locale's month) or RFC 3339 stamp at @p; the
 * bytes after it and its space, or NULL. *@wall: usec since the epoch.
 */
const char *sl_syslog_stamp(const char *p, const char *end, int64_t *wall);
/* The same with the year of an RFC 3164 stamp given (0: guessed alone). */
const char *sl_syslog_stamp_in(const char *p, const char *end, int year, int64_t *wall);
/* ---- log/join.c ---------------------------------------------------------- */

/*
 * A form's record head, for the seam of a dump cut and another appended
 * (log/join.c): @head gives where the message of a record whose head
 * begins at @p starts, or NULL where none begins there; where @strict,
 * only a head that no message of a record's own could begin with (dmesg
 * -r's "<4>" with a stamp after it). No @head: the form has none (dmesg -t, journalctl -o cat).
 * @indent: the blanks the log's records begin with (a pasted log).
 */
struct sl_head_form {
	const char *(*head)(const char *p, const char *end, bool strict, const void *ctx);
	const void *ctx;
	size_t indent; /* blanks a record's first line begins with */
	size_t reach;  /* how far into a line a seam may be; 0: 160 bytes */
	/*
	 * Optional: false where the line's own head, at [line, hend), is
	 * whole enough to say its record was not the kernel's (a syslog tag
	 * other than "kernel"): no detector line was lost there, whatever
	 * follows (a relay's double head, "HOST TAG: Dec  5 ... kernel:").
	 */
	bool (*maybe_kernel)(const char *line, const char *hend, const void *ctx);
	/*
	 * A whole head of the line's own with nothing or a detector line's
	 * first words after it is a seam before any head of the form, of
	 * whatever shape: tags differ ("kernel:", "systemd[1]:"). Not where
	 * a head's parts vary within one record (dmesg's caller id).
	 */
	bool any_next_head;
	/*
	 * Optional: [line, hend) is a head of the form cut short, whatever
	 * comes after it (its stamp whole and its host or tag not, or its
	 * stamp cut): a seam before a head of another style, read strictly.
	 */
	bool (*cut_short)(const char *line, const char *hend, const void *ctx);
};

/*
 * A line (a record's first) that is a record cut in its head or in a
 * detector line's first words, with the next dump's first record run
 * on into it: another head of the form on the line, and before it the
 * shape of a head cut short, or of a whole head and such words.
 */
bool sl_joined_line(const char *line, const char *end, const struct sl_head_form *form);

typedef const char *(*sl_text_stamp_fn)(const char *p, const char *end, int64_t *t);
/*
 * A syslog or journalctl short line [@line, @end) whose head (its stamp,
 * HOST, the kernel's tag, the start of a detector line) was cut short and
 * another record's start, read by @stamp, follows where it should have
 * gone on: a dump cut there and another appended ("cat cut whole").
 */
bool sl_text_joined(const struct sl_reader *rd, const char *line, const char *end,
		    sl_text_stamp_fn stamp);
/*
 * A line [@line, @end) that holds, past its own head and not at its
 * message's start, a kernel record's head (a stamp read by @stamp with its
 * time known, the tag "kernel"): a record cut anywhere, the next dump's
 * kernel line after it ("...for roDec  5 10:00:02 host kernel: ...",
 * "...password for Dec  5 ...", "...port 222026-12-05T10:00:02..."; digits
 * run on into a stamp only as an ISO year or a Unix time's ten digits).
 * At the message's start it is a relay's copy of the line under its own
 * tag; elsewhere a quote of a whole kernel line is taken for a cut.
 */
bool sl_text_inner_head(const char *line, const char *end, sl_text_stamp_fn stamp);
/* log/journal-stamp.c: a stamp of journalctl's short forms at @p
 * (short-full, -unix, -monotonic, -delta...); where it ends, or NULL. */
const char *sl_journal_text_stamp(const char *p, const char *end, int64_t *t);
/* A line run on into a journalctl dump's first line ("-- Logs begin at
 * ... --", "-- Journal begins at", "-- Boot"): where what stands before
 * it, cut short, may have been the detector's (sl_text_line_cut()) and
 * its head, stamped as @stamp reads, holds no whole tag but the kernel's
 * (a program that logs journalctl's output is no seam). */
bool sl_text_marker_joined(const char *line, const char *end, sl_text_stamp_fn stamp);
/* log/journal-stamp.c: the same, into @r (wall clock or monotonic time). */
const char *sl_journal_record_stamp(const char *p, const char *end, struct sl_log_record *r);
/* The same, for the line [@p, @le) the scan passed by: noted cut. */
void sl_text_passed_joined(struct sl_reader *rd, const char *p, const char *le, sl_text_stamp_fn stamp);
/* Does the line at @p start with an RFC 3164 stamp? Its month and day. */
bool sl_syslog_yearless(const char *p, const char *end, int *month, int *mday);
/* log/format-syslog.c: keep a line of a yearless file; read them all at the end. */
int sl_syslog_years_keep(struct sl_reader *rd, const char *line, size_t len);
void sl_syslog_years_see(struct sl_syslog_years *y, const char *line, size_t len);
/* A kept line read with its year; @earlier, @later: a gap or pieces out
 * of order leave the year uncertain either way. */
typedef int (*sl_syslog_line_fn)(struct sl_reader *rd, const char *line, size_t len, int year,
				 bool earlier, bool later);
int sl_syslog_years_replay(struct sl_reader *rd, sl_syslog_line_fn line_in);
/* log/syslog-stamp.c: the latest year that puts a yearless date no further
 * ahead of now than a time zone may be; an RFC 3164 stamp's fields. */
int sl_syslog_guess_year(int month, int mday, int h, int m, int s);
bool sl_syslog_yearless_time(const char *p, const char *end, int *month, int *mday, int *h,
			     int *m, int *s);
/* "HOST TAG: MSG" (HOST may be absent): who wrote it, then the message. */
int sl_syslog_tail(struct sl_reader *rd, struct sl_log_record *r,
		   const char *p, const char *end);

/* Is "HOST TAG: " at @p? @strict: only the "kernel" tag or one with a PID. */
bool sl_syslog_tail_matches(const char *p, const char *end, bool strict);

/* Format guesses from a line; log/input.c's detection adds them up. */
bool sl_syslog_line_matches(const char *line, size_t len);
bool sl_journal_text_line_matches(const char *line, size_t len);

/*
 * kmsg.c: one line of the syslog(2) buffer of the live fallback,
 * "<PRI>[    5.000000][ T1234] MSG" (stamp and caller id optional); false
 * when it is not one. The message is not copied.
 */
bool sl_klog_line_parse(const char *line, size_t len,
			struct splitlock_kmsg_record *rec);

/*
 * Text that every detector line holds, even one cut short: '#' of "#AC:"
 * and "#DB:" (rare in kernel logs), the detector's prefix ("x86/split lock
 * detection: "), the rate limits' names (split_lock_warn,
 * handle_user_split_lock, handle_bus_lock: "_lock" in each), fatal
 * mode's "alignment check" and what a rate limit dropped ("N callbacks
 * suppressed": fatal mode's kill lines share one with others), and
 * "x86/", with which a detector line cut before its words begins
 * ("x86/split lo", then a newline: a dump cut there and another appended).
 * A line holding one that no parser reads makes the report incomplete
 * (sl_detector_text_unread()). Needles whose first and last bytes seldom
 * stand at that distance keep the candidates few; the third number is
 * where a pair of bytes rare in logs begins in each ("ct", "_l", "nm",
 * "lb", "6/"; '#' alone), which most blocks lack (needle-scan.h). The
 * kernel's own "x86/" lines (x86/fpu, x86/mm) are a few a boot; a
 * message holding "x86/" is the detector's only as its prefix cut short
 * (sl_maybe_detector() looks for SL_DETECTOR_WORDS and such a prefix).
 */
#define SL_DETECTOR_WORDS \
	{ "#", 1, 0 }, \
	{ "lock detection", 14, 9 }, \
	{ "_lock", 5, 0 }, \
	{ "alignment check", 15, 4 }, \
	{ "callbacks suppressed", 20, 3 }
#define SL_DETECTOR_NEEDLES \
	SL_DETECTOR_WORDS, \
	{ "x86/", 4, 2 }

/* ---- log/detect.c -------------------------------------------------------- */

/* log/formats.c: the form of the log that starts at @buf (its first lines). */
enum splitlock_input_format sl_log_detect(const char *buf, size_t len);
/* The text form (dmesg, syslog, journal text) of [@p, @end), by vote. */
enum splitlock_input_format sl_log_detect_text(const char *p, const char *end);
/* log/stamp.c: blanks before the first line's text (a log pasted into a
 * forum or mail). */
size_t sl_first_line_indent(const char *p, const char *end);
/* log/format-syslog.c: does the first stamped line have an RFC 3164
 * stamp, without a year? */
bool sl_first_line_yearless(const char *p, const char *end);
/* log/format-journal-record.c: "NAME=" or "NAME" alone at @p, a journal
 * field as -o export writes it. */
bool sl_journal_field_at(const char *p, const char *end);
/* A run of NULs this long is a hole (logrotate's copytruncate), no text. */
#define SL_NUL_HOLE 16
/* Control bytes on every line: a program, a database, UTF-16 text. */
bool sl_looks_binary(const char *p, const char *end);

/* ---- log/stamp.c ---------------------------------------------------------- */

/* "[  12.345678]" inside the brackets → microseconds since boot. */
bool sl_stamp_mono(const char *p, const char *end, int64_t *usec);
/*
 * A month name or number as strftime's %b writes it in the locales people
 * run: "Dec", "Dez", "déc.", "12月", "12월"... Returns its length and sets
 * *month (0..11), or -1 for a word of another locale (sl_stamp_local()
 * then gives SPLITLOCK_TIME_UNKNOWN); 0 when it is neither.
 */
size_t sl_stamp_month(const char *p, const char *end, int *month);
/* Digits at *pp (at most @max of them); false when none. */
bool sl_stamp_num(const char **pp, const char *end, int max, int64_t *v);
/* "HH:MM:SS" at *pp, with an optional fraction after '.' or ','. */
bool sl_stamp_clock(const char **pp, const char *end, int *h, int *m, int *s,
		    int64_t *usec_frac, bool *has_frac);
/* Broken-down local time (or UTC with a known offset) → usec since epoch. */
int64_t sl_stamp_local(int year, int mon, int mday, int h, int m, int s);
/* A local time in the hour a fall back repeats may be either: *@wall
 * becomes the earlier, *@grain grows by the hour between them. */
void sl_stamp_local_fold(int64_t *wall, int64_t *grain);
/* The same where the stamp names standard (@isdst 0) or summer time (1):
 * the hour a fall-back repeats is then one instant, not a guess. */
int64_t sl_stamp_local_dst(int year, int mon, int mday, int h, int m, int s, int isdst);
int64_t sl_stamp_utc(int year, int mon, int mday, int h, int m, int s);
/*
 * RFC 3339 ("2026-12-03T09:18:33.604335+00:00", also with a decimal comma
 * as dmesg --time-format iso writes it, or "+0000" as journalctl does) and
 * the space after it; the bytes after, or NULL. *@wall: usec since epoch.
 */
const char *sl_stamp_rfc3339(const char *p, const char *end, int64_t *wall);
const char *sl_skip_blanks(const char *p, const char *end);
/* Past a run of NULs at @p (a hole a crash or copytruncate left). */
const char *sl_skip_nuls(const char *p, const char *end);
/* ASCII digits and letters, whatever the locale. */
static inline bool sl_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool sl_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
/*
 * A kernel that logs without stamps (printk.time=0, or built without
 * CONFIG_PRINTK_TIME) leaves syslog(2)'s text without them, and util-
 * linux dmesg prints [0.000000] (--json: "time": 0) on every record. No
 * task runs at 0: such a stamp is none, not one the records share.
 */
static inline int64_t sl_dmesg_mono(int64_t usec)
{
	return usec == 0 ? SPLITLOCK_TIME_UNKNOWN : usec;
}

/* A record to the reader's caller, counted. */
static inline int sl_reader_deliver(struct sl_reader *rd, const struct sl_log_record *r)
{
	if (!r->further)
		rd->records++;
	return rd->fn(r, rd->data);
}

/*
 * syslog, journal text: a line indented past the file's first line
 * continues a record whose message held a newline (journalctl prints its
 * further lines so); sl_reader_emit_further() emits it as such a line,
 * never the kernel's.
 */
bool sl_continuation_line(const struct sl_reader *rd, const char *line, size_t len);
int sl_reader_emit_further(struct sl_reader *rd, const char *msg, size_t len);
/*
 * The wall-clock stamp at [@p, @end) shows its second to how many digits
 * of a fraction: how much later than the time it gives the event may be
 * (999999 for whole seconds, 999 for milliseconds, 0 for microseconds).
 */
int64_t sl_stamp_grain(const char *p, const char *end);
/* "+01:00", "+0100", "Z" at *pp → seconds east of UTC. */
bool sl_stamp_offset(const char **pp, const char *end, int *seconds);
/*
 * "<PRI>" at @p, as syslog(2) and dmesg -r write it before each line: the
 * bytes after it, *@pri its value (facility << 3 | level); NULL when @p
 * holds none. The one reader of that prefix (sl_klog_line_parse(), dmesg).
 */
const char *sl_syslog_pri(const char *p, const char *end, int *pri);
/* "[ T1234]", "[C3]", with or without a space before: skipped. */
const char *sl_skip_caller_id(const char *p, const char *end);
/* "[  12.345678] " at p (a kernel stamp kept in a syslog message). */
const char *sl_skip_kernel_stamp(const char *p, const char *end, int64_t *usec);
/* The boot a journal's 128-bit id names, as a nonzero number. */
uint64_t sl_boot_hash(const char *s, size_t len);

#endif
