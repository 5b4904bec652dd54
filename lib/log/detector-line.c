/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parsing one message of the split-lock detector.
 *
 * COMM is whatever the task called itself: up to 15 bytes (more on future
 * kernels) that may hold spaces, '/', "::" or any byte. So the fixed text is
 * matched from the right end of the line, and COMM is what remains between
 * the tag and the last "/DIGITS" (or "[DIGITS]" in the traps line). The
 * parser is pure and takes any bytes: it is a fuzzing target.
 */
#include <errno.h>

#include "name-table.h"
#include "log/reader.h"

#define PR_FMT "x86/split lock detection: "
/* Generous: TASK_COMM_LEN is 16 today, proposals raise it to 64. */
#define COMM_MAX 64

struct span {
	const char *p, *end;
};

static bool eat_prefix(struct span *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, prefix, n) != 0)
		return false;
	s->p += n;
	return true;
}

static bool eat_suffix(struct span *s, const char *suffix)
{
	size_t n = strlen(suffix);

	if ((size_t)(s->end - s->p) < n || memcmp(s->end - n, suffix, n) != 0)
		return false;
	s->end -= n;
	return true;
}

/* Hex number at s->p (no prefix); advances. At most 16 digits. */
static bool eat_hex(struct span *s, uint64_t *v)
{
	uint64_t n = 0;
	int digits = 0;

	while (s->p < s->end && sl_hexval(*s->p) >= 0) {
		if (++digits > 16)
			return false;
		n = n << 4 | (uint64_t)sl_hexval(*s->p++);
	}
	*v = n;
	return digits > 0;
}

static bool eat_dec(struct span *s, uint64_t *v, uint64_t max)
{
	uint64_t n = 0;
	int digits = 0;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
		n = n * 10 + (uint64_t)(*s->p++ - '0');
		if (++digits > 19 || n > max)
			return false;
	}
	*v = n;
	return digits > 0;
}

/* Decimal digits ending at s->end, preceded by @sep; shrinks s->end. */
static bool eat_dec_suffix(struct span *s, char sep, uint32_t *v)
{
	const char *d = s->end;
	struct span num;
	uint64_t n;

	while (d > s->p && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d == s->end || s->end - d > 10 || d == s->p || d[-1] != sep)
		return false;
	num = (struct span){ d, s->end };
	if (!eat_dec(&num, &n, UINT32_MAX))
		return false;
	*v = (uint32_t)n;
	s->end = d - 1;
	return true;
}

static void trim_end(struct span *s)
{
	while (s->end > s->p && (s->end[-1] == '\n' || s->end[-1] == '\r' ||
				 s->end[-1] == ' ' || s->end[-1] == '\0'))
		s->end--;
}

static const char *memrmem_(const char *hay, size_t n, const char *needle)
{
	size_t m = strlen(needle);

	if (m > n)
		return NULL;
	for (const char *p = hay + n - m;; p--) {
		if (*p == *needle && memcmp(p, needle, m) == 0)
			return p;
		if (p == hay)
			return NULL;
	}
}

/* "N callbacks suppressed" after a rate-limited function's name. */
static int parse_suppressed(struct span s, struct splitlock_event *ev)
{
	static const struct {
		const char *prefix;
		enum splitlock_kind kind;
	} limits[] = {
		{ "split_lock_warn: ", SPLITLOCK_KIND_SPLIT_LOCK },        /* 5.19+ */
		{ "handle_user_split_lock: ", SPLITLOCK_KIND_SPLIT_LOCK }, /* 5.7 */
		{ "handle_bus_lock: ", SPLITLOCK_KIND_BUS_LOCK },
		/* kernel-patch/: __ratelimit() of the warning functions. */
		{ "sld_warn_split_lock: ", SPLITLOCK_KIND_SPLIT_LOCK },
		{ "sld_warn_bus_lock: ", SPLITLOCK_KIND_BUS_LOCK },
		{ "handle_guest_split_lock: ", SPLITLOCK_KIND_SPLIT_LOCK },
	};

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		uint64_t n;

		if (!eat_prefix(&s, limits[i].prefix))
			continue;
		if (!eat_dec(&s, &n, UINT32_MAX) ||
		    !eat_prefix(&s, " callbacks suppressed") || s.p != s.end)
			return SPLITLOCK_LINE_MALFORMED;
		ev->kind = limits[i].kind;
		ev->suppressed = n;
		return SPLITLOCK_LINE_SUPPRESSED;
	}
	return SPLITLOCK_LINE_OTHER;
}

/* "traps: COMM[PID] trap alignment check ...": log/alignment.c says
 * whether it is a split-lock kill. */
bool sl_is_alignment_check(const char *message, size_t len)
{
	return len > 7 && memcmp(message, "traps: ", 7) == 0 &&
	       memmem(message, len, "] trap alignment check ", 23);
}

/*
 * show_signal() prints the kill line of every trap that ends in a signal
 * (alignment check, general protection, invalid opcode, ...) under
 * printk_ratelimit(), one limit that segfault lines, signal_fault() and
 * drivers share: lib/ratelimit.c says what it dropped as "NAME: N
 * callbacks suppressed" named after whichever caller came next. So any
 * such line but the detector's own (parse_suppressed()) may be one.
 */
bool sl_is_kill_suppressed(const char *message, size_t len)
{
	struct span s = { message, message + len };
	const char *name = s.p;
	uint64_t n;

	while (s.end > s.p && (s.end[-1] == '\n' || s.end[-1] == ' '))
		s.end--;
	while (s.p < s.end && (*s.p == '_' || *s.p == '.' || (*s.p >= '0' && *s.p <= '9') ||
			       (*s.p >= 'a' && *s.p <= 'z') || (*s.p >= 'A' && *s.p <= 'Z')))
		s.p++;
	return s.p > name && eat_prefix(&s, ": ") && eat_dec(&s, &n, UINT64_MAX) &&
	       eat_prefix(&s, " callbacks suppressed") && s.p == s.end;
}

/* "/DIGITS took", "/DIGITS fatal", ... somewhere: an event's start. */
static bool looks_like_trap(struct span s)
{
	static const char *const verbs[] = { " took", " fatal", " bogus", " (user)", " (guest)" };

	for (const char *p = s.p; p < s.end; p++) {
		const char *d = p + 1;

		if (*p != '/')
			continue;
		while (d < s.end && *d >= '0' && *d <= '9')
			d++;
		if (d == p + 1)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
			size_t n = strlen(verbs[i]);

			if ((size_t)(s.end - d) >= n && memcmp(d, verbs[i], n) == 0)
				return true;
		}
	}
	return false;
}

/* "#AC: COMM/TID took a split_lock trap at address: 0xIP" and friends. */
static int parse_trap(struct span s, bool db, struct splitlock_event *ev)
{
	const char *at = memrmem_(s.p, (size_t)(s.end - s.p),
				  " trap at address: ");
	struct span ip;

	/*
	 * The boot lines ("#AC: crashing the kernel on ...") are not events;
	 * a line cut short after "COMM/TID took" is a broken one.
	 */
	if (!at)
		return looks_like_trap(s) ? SPLITLOCK_LINE_MALFORMED : SPLITLOCK_LINE_OTHER;
	ip = (struct span){ at + strlen(" trap at address: "), s.end };
	if (!eat_prefix(&ip, "0x") || !eat_hex(&ip, &ev->ip) || ip.p != ip.end)
		return SPLITLOCK_LINE_MALFORMED;
	ev->has_ip = true;
	s.end = at;

	if (eat_suffix(&s, "bus_lock")) {
		if (!db || !eat_suffix(&s, " took a "))
			return SPLITLOCK_LINE_MALFORMED;
		ev->kind = SPLITLOCK_KIND_BUS_LOCK;
		ev->action = SPLITLOCK_ACTION_WARN;
	} else if (eat_suffix(&s, "split_lock")) {
		if (db)
			return SPLITLOCK_LINE_MALFORMED;
		ev->kind = SPLITLOCK_KIND_SPLIT_LOCK;
		if (eat_suffix(&s, " took a "))
			ev->action = SPLITLOCK_ACTION_WARN;
		else if (eat_suffix(&s, " fatal "))
			ev->action = SPLITLOCK_ACTION_FATAL;
		else if (eat_suffix(&s, " bogus "))
			ev->action = SPLITLOCK_ACTION_SIGBUS;
		else
			return SPLITLOCK_LINE_MALFORMED;
	} else {
		return SPLITLOCK_LINE_MALFORMED;
	}
	if (ev->action == SPLITLOCK_ACTION_WARN &&
	    !eat_suffix(&s, " (user)"))
		eat_suffix(&s, " (guest)");
	if (!eat_dec_suffix(&s, '/', &ev->pid))
		return SPLITLOCK_LINE_MALFORMED;
	if (s.end - s.p > COMM_MAX)
		return SPLITLOCK_LINE_MALFORMED;
	/*
	 * A name that holds another trap line's marker is a line cut inside
	 * its name with another dump's trap line run on into it ("cat cut
	 * whole": "#AC: fo" then "4,0,5000000,-;x86/split lock detection:
	 * #AC: foo/12 took ..."), in every form: the cut record's event and
	 * the other's are one line, and neither name is the name.
	 */
	if (memmem(s.p, (size_t)(s.end - s.p), "#AC: ", 5) ||
	    memmem(s.p, (size_t)(s.end - s.p), "#DB: ", 5))
		return SPLITLOCK_LINE_MALFORMED;
	ev->comm = s.p;
	ev->comm_len = (size_t)(s.end - s.p);
	return SPLITLOCK_LINE_EVENT;
}

/*
 * Fatal mode: "COMM[PID] trap alignment check ip:IP sp:SP error:E" with
 * " in OBJ[START+SIZE]" (or "[OFFSET,START+SIZE]" on newer kernels) when
 * the address is in a file mapping. Other traps are not ours.
 */
static int parse_alignment_check(struct span s, struct splitlock_event *ev)
{
	static const char verb[] = "] trap alignment check ip:";
	const char *v = memmem(s.p, (size_t)(s.end - s.p), verb, strlen(verb));
	struct span head, tail;
	uint64_t sp, err;

	if (!v)
		return SPLITLOCK_LINE_OTHER;
	head = (struct span){ s.p, v + 1 };
	tail = (struct span){ v + strlen(verb), s.end };
	if (!eat_suffix(&head, "]") || !eat_dec_suffix(&head, '[', &ev->pid) ||
	    head.end - head.p > COMM_MAX)
		return SPLITLOCK_LINE_MALFORMED;
	ev->comm = head.p;
	ev->comm_len = (size_t)(head.end - head.p);
	if (!eat_hex(&tail, &ev->ip) || !eat_prefix(&tail, " sp:") ||
	    !eat_hex(&tail, &sp) || !eat_prefix(&tail, " error:") ||
	    !eat_hex(&tail, &err))
		return SPLITLOCK_LINE_MALFORMED;
	ev->has_ip = true;
	ev->kind = SPLITLOCK_KIND_SPLIT_LOCK;
	ev->action = SPLITLOCK_ACTION_FATAL;
	if (eat_prefix(&tail, " in ")) {
		/* The object name may hold '['; its bracket is the last one. */
		const char *open = memrmem_(tail.p, (size_t)(tail.end - tail.p), "[");
		struct span nums;
		uint64_t a, b, c;

		if (!open || open == tail.p)
			return SPLITLOCK_LINE_MALFORMED;
		nums = (struct span){ open + 1, tail.end };
		if (!eat_hex(&nums, &a))
			return SPLITLOCK_LINE_MALFORMED;
		if (eat_prefix(&nums, ",")) {
			if (!eat_hex(&nums, &b) || !eat_prefix(&nums, "+") ||
			    !eat_hex(&nums, &c))
				return SPLITLOCK_LINE_MALFORMED;
			ev->object_offset = a;
		} else {
			if (!eat_prefix(&nums, "+") || !eat_hex(&nums, &b))
				return SPLITLOCK_LINE_MALFORMED;
			if (ev->ip < a)
				return SPLITLOCK_LINE_MALFORMED;
			ev->object_offset = ev->ip - a;
		}
		if (!eat_prefix(&nums, "]"))
			return SPLITLOCK_LINE_MALFORMED;
		ev->has_object_offset = true;
		ev->object = tail.p;
		ev->object_len = (size_t)(open - tail.p);
		tail.p = nums.p;
	}
	/* Anything after (e.g. "likely on CPU n") is not ours to judge. */
	return SPLITLOCK_LINE_EVENT;
}

_public_ int splitlock_detector_line_parse(const char *message, size_t len,
					   struct splitlock_event *ev)
{
	struct span s = { message, message + len };
	int r;

	memset(ev, 0, sizeof(*ev));
	trim_end(&s);
	r = parse_suppressed(s, ev);
	if (r != SPLITLOCK_LINE_OTHER)
		return r;
	if (eat_prefix(&s, "traps: "))
		return parse_alignment_check(s, ev);
	eat_prefix(&s, PR_FMT);
	if (eat_prefix(&s, "#AC: "))
		return parse_trap(s, false, ev);
	if (eat_prefix(&s, "#DB: "))
		return parse_trap(s, true, ev);
	return SPLITLOCK_LINE_OTHER;
}

/*
 * A message that is the detector's prefix cut short ("x86/split lo"): a
 * record cut before the detector's words, then a newline (a dump cut there
 * and another appended). Four bytes at least: "x86/" begins the kernel's
 * other x86 lines, never a whole one.
 */
bool sl_detector_prefix_cut(const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
		len--;
	return len >= 4 && len < strlen(PR_FMT) - 1 && memcmp(s, PR_FMT, len) == 0;
}

/*
 * What only the detector writes: its prefix, the trap markers and the
 * names of its rate limits. Of its lines that are no event, only those
 * known are read (the boot lines, a patched kernel's notes); any other
 * holding these words is one the report could not read.
 */
bool sl_detector_text_unread(const char *s, size_t len)
{
	static const char *const words[] = {
		"lock detection", "#AC:", "#DB:", "split_lock trap", "bus_lock trap",
		"trap alignment check", "split_lock_warn", "handle_user_split_lock",
		"handle_bus_lock", "sld_warn_split_lock", "sld_warn_bus_lock",
		"handle_guest_split_lock",
	};
	static const char *const known[] = {
		/* kernel-patch/: the run-time switch and the hotplug warning */
		PR_FMT "mode changed from ", PR_FMT "No splitlock CPU offline handler",
		/* its exemption's grants, revocations and exec drops, the test
		 * hook's boot warning, a mode it could not parse */
		PR_FMT "misery exemption of ", PR_FMT "split_lock_inject: ",
		PR_FMT "unknown split_lock_detect=",
	};
	enum splitlock_mode mode;
	unsigned rate;
	bool found = false;
	char buf[512];

	if (sl_detector_prefix_cut(s, len))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(words) && !found; i++)
		if (memmem(s, len, words[i], strlen(words[i])))
			found = true;
	if (!found)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (len >= strlen(known[i]) && memcmp(s, known[i], strlen(known[i])) == 0)
			return false;
	/* Boot lines: splitlock_mode_from_boot_line() reads a C string. */
	if (len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (splitlock_mode_from_boot_line(buf, &mode, &rate))
			return false;
	}
	return true;
}

static const struct name_table kind_names[] = {
	{ SPLITLOCK_KIND_SPLIT_LOCK, "split_lock" },
	{ SPLITLOCK_KIND_BUS_LOCK, "bus_lock" },
};

static const struct name_table action_names[] = {
	{ SPLITLOCK_ACTION_WARN, "warn" },
	{ SPLITLOCK_ACTION_FATAL, "fatal" },
	{ SPLITLOCK_ACTION_SIGBUS, "sigbus" },
};

/* NULL for a value outside the enum, as every name function of the library. */
_public_ const char *splitlock_kind_name(enum splitlock_kind kind)
{
	return NAME_TABLE_NAME(kind_names, kind);
}

_public_ const char *splitlock_action_name(enum splitlock_action action)
{
	return NAME_TABLE_NAME(action_names, action);
}

bool sl_kill_line_start(const char *traps, const char *end)
{
	static const char kill[] = "] trap alignment check ";
	const char *close = memchr(traps, ']', (size_t)(end - traps));
	size_t n = close ? (size_t)(end - close) : 0;

	return !close || memcmp(close, kill, n < sizeof(kill) - 1 ? n : sizeof(kill) - 1) == 0;
}

/* How the detector's lines and its kill lines begin. */
static const char *const detector_starts[] = {
	"x86/split lock detection: ", "traps: ", "#AC: ", "#DB: ",
	"split_lock_warn: ", "handle_user_split_lock: ", "handle_bus_lock: ",
	"sld_warn_split_lock: ", "sld_warn_bus_lock: ", "handle_guest_split_lock: ",
};

bool sl_detector_start_prefix(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t k = 0; k < ARRAY_SIZE(detector_starts); k++)
		if (len < strlen(detector_starts[k]) && memcmp(s, detector_starts[k], len) == 0)
			return true;
	return false;
}

/*
 * journalctl --no-full (and a terminal's width) shortens a message to fit
 * with an ellipsis inside, "…" (U+2026), keeping its start and end
 * (systemd's ellipsize_mem()): "x86/split loc…4", "x86/split loc...4"
 * where the locale is not UTF-8, or "..." alone. Where the start kept is
 * the beginning of a detector line, or nothing, the line may have been
 * one.
 */
bool sl_detector_line_ellipsized(const char *s, size_t len)
{
	const char *dots = memmem(s, len, "\xe2\x80\xa6", 3);
	const char *ascii = memmem(s, len, "...", 3);

	/* "..." where the locale is not UTF-8; nothing left but the
	 * ellipsis: any line it was, the detector's too. */
	if (!dots || (ascii && ascii < dots))
		dots = ascii;
	if (!dots)
		return false;
	/* Nothing kept before it: "…" begins no kernel line of its own;
	 * "..." does (lockdep's "... MAX_LOCK_DEPTH: 48"), unless it is all. */
	if (dots == s)
		return dots != ascii || len == 3;
	/* A kill line's start: "traps: game[700] trap alignm…". One whose
	 * words say another trap (general protection) is not. */
	if ((size_t)(dots - s) >= 7 && memcmp(s, "traps: ", 7) == 0)
		return sl_kill_line_start(s, dots);
	/* A start that holds the detector's words is read as unparsed
	 * already (sl_detector_text_unread()). */
	return sl_detector_start_prefix(s, (size_t)(dots - s));
}

/* "N" at *@pp, digits only: past it, true where there was one. */
static bool digits(const char **pp, const char *end)
{
	const char *p = *pp;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == *pp)
		return false;
	*pp = p;
	return true;
}

int sl_logger_lost_line(const char *s, size_t len, bool syslog_file)
{
	const char *p = s, *end = s + len;

	while (end > p && (end[-1] == ' ' || end[-1] == '.'))
		end--;
	/* systemd src/journal/journald-kmsg.c: "Missed %llu kernel messages" */
	if (end - p > 7 && memcmp(p, "Missed ", 7) == 0) {
		p += 7;
		return digits(&p, end) && (size_t)(end - p) == 16 &&
		       memcmp(p, " kernel messages", 16) == 0 ? SL_LOST_BEFORE : 0;
	}
	/*
	 * rsyslog plugins/imjournal: "imjournal: %d messages lost due to
	 * rate-limiting (...)", or only "imjournal: begin to drop messages
	 * due to rate-limiting" where no message came after its interval (or
	 * it restarted); newer ones say "imjournal from <HOST:APP>: ...".
	 * What rsyslog took from the journal, the kernel's records included,
	 * and lost from its own files: a journal that holds the line kept
	 * them all.
	 */
	if (syslog_file && end - p > 9 && memcmp(p, "imjournal", 9) == 0) {
		/* the ": " that ends the tag, not one inside <HOST:APP> */
		const char *colon = memmem(p, (size_t)(end - p), ": ", 2);

		if (!colon)
			return 0;
		p = colon + 2;
		if (end - p >= 43 && memcmp(p, "begin to drop messages due to rate-limiting", 43) == 0)
			return SL_LOST_AFTER;
		return digits(&p, end) && end - p >= 35 &&
		       memcmp(p, " messages lost due to rate-limiting", 35) == 0 ? SL_LOST_BEFORE : 0;
	}
	return 0;
}
