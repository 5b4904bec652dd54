/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records saved twice. People keep the kernel log by appending dumps to
 * one file (dmesg >> saved.log, dd of /dev/kmsg from a timer), so a file
 * may hold a boot's records twice, after other boots' too. A boot begins
 * where the stamps go back (the clock since boot starts over, the SEQ of
 * /dev/kmsg too) or at a boot line. A record that an earlier boot of the
 * file holds with the same stamp and the same text is that record again:
 * a later boot never has them both. It is read once, as often as that
 * earlier boot held it (two equal lines of one second in -T are two).
 *
 * Where the stamps are not the record's own (none, minutes, dmesg's
 * wall-clock times, which it reckons anew at each dump and a suspend
 * shifts), a repeat cannot be told from a later boot's event of the same
 * text: such a record is counted and marked as maybe a repeat. With no
 * boot line and no stamps that go back (dmesg -t cut to the detector's
 * lines) no boot is seen at all; but the kernel warns of a task's split
 * lock once (#AC: COMM/PID took, fatal or bogus), so in these forms an #AC
 * event of the task and address of an earlier one in the file is the dump
 * again or a reused PID: it is marked too. Bus locks (#DB) warn at each
 * trap: in a form with no stamps at all (dmesg -t, journalctl -o cat) a
 * #DB event of the task and address of an earlier one may be a new trap
 * or the dump again, which nothing tells: it is marked as well. Where a
 * stamp shows (dmesg -T, iso), traps in one second are common (a real
 * guest's log: three a second), so those are not; nor rate limits' lines.
 */
#include <errno.h>
#include <string.h>

#include "log/format.h"

/*
 * FNV-1a over 8 bytes at a time, the tail byte by byte: every detector
 * line of a log is hashed once, and a byte at a time was a tenth of the
 * whole report's time on the once-per-task shape (bench/offenders).
 */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, sizeof(w));
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

bool sl_boot_line(const char *msg, size_t len)
{
	enum splitlock_mode mode;
	unsigned rate;

	return (len > 14 && memcmp(msg, "Linux version ", 14) == 0) ||
	       splitlock_mode_from_boot_line(msg, &mode, &rate) == 1;
}

uint64_t sl_repeat_key(int64_t stamp, uint64_t host, int facility, int level,
		       const char *text, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int32_t who[2] = { facility, level };

	h = hash_bytes(h, &stamp, sizeof(stamp));
	h = hash_bytes(h, &host, sizeof(host));
	h = hash_bytes(h, who, sizeof(who));
	h = hash_bytes(h, text, len);
	return h ? h : 1;
}

static struct sl_repeat_slot *find(struct sl_repeat_seen *s, uint64_t key, bool *found)
{
	size_t i, mask;

	if ((s->n + 1) * 2 > s->allocated) {
		/* Sized for the detector lines of a typical log at once:
		 * growing from small rehashed every entry several times. */
		size_t n = s->allocated ? s->allocated * 2 : 16384;
		struct sl_repeat_slot *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return NULL;
		for (size_t k = 0; k < s->allocated; k++) {
			if (!s->slots[k].key)
				continue;
			for (i = s->slots[k].key & (n - 1); slots[i].key; i = (i + 1) & (n - 1))
				;
			slots[i] = s->slots[k];
		}
		free(s->slots);
		s->slots = slots;
		s->allocated = n;
	}
	mask = s->allocated - 1;
	for (i = key & mask; s->slots[i].key; i = (i + 1) & mask) {
		if (s->slots[i].key == key) {
			*found = true;
			return &s->slots[i];
		}
	}
	*found = false;
	s->slots[i].key = key;
	s->n++;
	return &s->slots[i];
}

/* A key of the first boot: where it began, and how often it was held. */
static int note_first(struct sl_repeat_seen *s, uint64_t key)
{
	struct sl_repeat_slot *slot;
	bool found;

	slot = find(s, key, &found);
	if (!slot)
		return -ENOMEM;
	if (found) {
		slot->first_count++;
	} else {
		slot->first_boot = 0;
		slot->first_count = 1;
	}
	return 0;
}

/*
 * While the file's first boot is read, nothing can repeat an earlier one:
 * its keys are only listed (8 bytes each, written in order), and the table
 * is built from the list when a second boot begins, or when a lookup
 * needs it. One dump, the common case, never builds it: on the
 * once-per-task shape the table's lookups were most of the report's cost
 * over grep's (bench/offenders), and on 1.8 million tasks 110 MiB.
 */
static int flush_first(struct sl_repeat_seen *s)
{
	for (size_t i = 0; i < s->n_first; i++)
		if (note_first(s, s->first[i]) < 0)
			return -ENOMEM;
	free(s->first);
	s->first = NULL;
	s->n_first = s->allocated_first = 0;
	return 0;
}

static int list_first(struct sl_repeat_seen *s, uint64_t key)
{
	if (s->n_first == s->allocated_first) {
		size_t n = s->allocated_first ? s->allocated_first * 2 : 4096;
		uint64_t *keys = realloc(s->first, n * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		s->first = keys;
		s->allocated_first = n;
	}
	s->first[s->n_first++] = key;
	return 0;
}

int sl_repeat_check(struct sl_repeat_seen *s, int64_t stamp, bool exact, bool boot_line,
		    uint64_t exact_key, uint64_t text_key, bool *maybe)
{
	struct sl_repeat_slot *slot;
	bool found;

	/*
	 * An exact stamp (SEQ, microseconds) that the record before had too
	 * is that record again: a dump that starts where the last one ended
	 * (one record in both) goes back by nothing. Two records of a boot
	 * that share a microsecond are cut apart harmlessly: a later boot's
	 * record is skipped only where stamp and text are both an earlier's.
	 */
	if (boot_line || (stamp != SPLITLOCK_TIME_UNKNOWN && s->has_stamp &&
			  (stamp < s->last_stamp || (exact && stamp == s->last_stamp))))
		s->boot++;
	if (stamp != SPLITLOCK_TIME_UNKNOWN) {
		s->last_stamp = stamp;
		s->has_stamp = true;
	}
	if (s->boot == 0) {
		if (exact_key && list_first(s, exact_key) < 0)
			return -ENOMEM;
		if (text_key && maybe && list_first(s, text_key) < 0)
			return -ENOMEM;
		return 0;
	}
	if (s->first && flush_first(s) < 0)
		return -ENOMEM;
	if (exact_key) {
		slot = find(s, exact_key, &found);
		if (!slot)
			return -ENOMEM;
		if (!found) {
			slot->first_boot = s->boot;
			slot->first_count = 1;
		} else if (slot->first_boot == s->boot) {
			slot->first_count++;
		} else {
			if (slot->boot != s->boot) {
				slot->boot = s->boot;
				slot->count = 0;
			}
			if (++slot->count <= slot->first_count) {
				s->repeats++;
				return 1;
			}
		}
	}
	if (text_key && maybe) {
		slot = find(s, text_key, &found);
		if (!slot)
			return -ENOMEM;
		if (!found)
			slot->first_boot = s->boot;
		else if (slot->first_boot != s->boot)
			*maybe = true;
	}
	return 0;
}

/*
 * An event of @msg that an earlier one of the file matches: 1 (and 0 for
 * the first, or any other line). A split lock #AC event by its COMM, PID
 * and IP; a bus lock #DB event by those where the form has no stamp
 * (@stamp SPLITLOCK_TIME_UNKNOWN). One slot an event line, as each is
 * read. -ENOMEM.
 */
int sl_repeat_event_again(struct sl_repeat_seen *s, const char *msg, size_t len, int64_t stamp)
{
	static const char ac[] = "#AC task", db[] = "#DB task";
	struct splitlock_event ev;
	struct sl_repeat_slot *slot;
	uint64_t h = 0xcbf29ce484222325ull;
	bool found;

	if (splitlock_detector_line_parse(msg, len, &ev) != SPLITLOCK_LINE_EVENT ||
	    !ev.has_ip || sl_is_alignment_check(msg, len))
		return 0;
	if (ev.kind == SPLITLOCK_KIND_SPLIT_LOCK) {
		h = hash_bytes(h, ac, sizeof(ac));
	} else if (ev.kind == SPLITLOCK_KIND_BUS_LOCK && stamp == SPLITLOCK_TIME_UNKNOWN) {
		h = hash_bytes(h, db, sizeof(db));
	} else {
		return 0;
	}
	h = hash_bytes(h, &ev.pid, sizeof(ev.pid));
	h = hash_bytes(h, &ev.ip, sizeof(ev.ip));
	h = hash_bytes(h, ev.comm, ev.comm_len);
	if (s->first && flush_first(s) < 0)
		return -ENOMEM;
	slot = find(s, h ? h : 1, &found);
	if (!slot)
		return -ENOMEM;
	return found;
}
