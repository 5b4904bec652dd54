/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector's lines, every form since 5.7, and what is not one. */
#include <errno.h>

#include "test.h"
#include "libsplitlock.h"

/*
 * An event for one test, from splitlock_event_new(), as a program gets
 * one: the previous one is freed, the last stays reachable until exit.
 */
static struct splitlock_event *event(void)
{
	static struct splitlock_event *ev;

	splitlock_event_free(ev);
	if (splitlock_event_new(&ev) < 0)
		abort();
	return ev;
}

static int parse(const char *msg, struct splitlock_event *ev)
{
	return splitlock_detector_line_parse(msg, strlen(msg), ev);
}

static bool comm_is(const struct splitlock_event *ev, const char *comm)
{
	size_t len;
	const char *got = splitlock_event_get_comm(ev, &len);

	return len == strlen(comm) && memcmp(got, comm, len) == 0;
}

/* The address, or 0 when the line has none. */
static uint64_t ip(const struct splitlock_event *ev)
{
	uint64_t v = 0;

	return splitlock_event_get_ip(ev, &v) == 0 ? v : 0;
}

static uint64_t object_offset(const struct splitlock_event *ev)
{
	uint64_t v = 0;

	return splitlock_event_get_object_offset(ev, &v) == 0 ? v : 0;
}

TEST(ac_warn_with_prefix)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("x86/split lock detection: #AC: GoW.exe/4242 took a split_lock trap at address: 0x1403c2d1", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "GoW.exe"));
	CHECK_INT(splitlock_event_get_pid(ev), 4242);
	CHECK_INT(splitlock_event_get_kind(ev), SPLITLOCK_KIND_SPLIT_LOCK);
	CHECK_INT(splitlock_event_get_action(ev), SPLITLOCK_ACTION_WARN);
	CHECK_INT(splitlock_event_get_ip(ev, &(uint64_t){ 0 }), 0);
	CHECK(ip(ev) == 0x1403c2d1);
}

TEST(ac_without_prefix)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("#AC: a/1 took a split_lock trap at address: 0xabc", ev), SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "a"));
}

TEST(comm_with_space_slash_digits)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("#AC: CPU 0/KVM/1234 took a split_lock trap at address: 0x1", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "CPU 0/KVM"));
	CHECK_INT(splitlock_event_get_pid(ev), 1234);
	CHECK_INT(parse("#AC: w/7/88 took a split_lock trap at address: 0x1", ev), SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "w/7"));
	CHECK_INT(splitlock_event_get_pid(ev), 88);
}

TEST(comm_with_colons_and_verbs)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("#AC: CJobMgr::m_Work/8442 took a split_lock trap at address: 0x140aa2cf3", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "CJobMgr::m_Work"));
	/* A comm that holds the verb itself. */
	CHECK_INT(parse("#AC: x/1 took a/9 took a split_lock trap at address: 0x5", ev), SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "x/1 took a"));
	CHECK_INT(splitlock_event_get_pid(ev), 9);
}

TEST(comm_with_decoded_bytes)
{
	size_t len;
	struct splitlock_event *ev = event();
	const char msg[] = "#AC: a\nb\0c\xff/5 took a split_lock trap at address: 0x10";

	CHECK_INT(splitlock_detector_line_parse(msg, sizeof(msg) - 1, ev), SPLITLOCK_LINE_EVENT);
	CHECK(splitlock_event_get_comm(ev, &len) != NULL);
	CHECK_INT(len, 6);
	CHECK(memcmp(splitlock_event_get_comm(ev, NULL), "a\nb\0c\xff", 6) == 0);
}

TEST(user_and_guest_words)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("#AC: game/3 (user) took a split_lock trap at address: 0x10", ev), SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "game"));
	CHECK_INT(splitlock_event_get_pid(ev), 3);
	CHECK_INT(parse("#AC: qemu/3 (guest) took a split_lock trap at address: 0x10", ev), SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "qemu"));
}

TEST(guest_fatal_and_bogus)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("x86/split lock detection: #AC: CPU 1/KVM/77 fatal split_lock trap at address: 0xffff", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "CPU 1/KVM"));
	CHECK_INT(splitlock_event_get_action(ev), SPLITLOCK_ACTION_FATAL);
	CHECK_INT(parse("#AC: CPU 1/KVM/77 bogus split_lock trap at address: 0xffff", ev), SPLITLOCK_LINE_EVENT);
	CHECK_INT(splitlock_event_get_action(ev), SPLITLOCK_ACTION_SIGBUS);
}

TEST(bus_lock)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("x86/split lock detection: #DB: stress/99 took a bus_lock trap at address: 0x401000", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK_INT(splitlock_event_get_kind(ev), SPLITLOCK_KIND_BUS_LOCK);
	CHECK_INT(splitlock_event_get_action(ev), SPLITLOCK_ACTION_WARN);
	CHECK(ip(ev) == 0x401000);
	/* Mixed-up tags are not the kernel's. */
	CHECK_INT(parse("#DB: s/1 took a split_lock trap at address: 0x1", ev), SPLITLOCK_LINE_MALFORMED);
	CHECK_INT(parse("#AC: s/1 took a bus_lock trap at address: 0x1", ev), SPLITLOCK_LINE_MALFORMED);
}

TEST(alignment_check)
{
	struct splitlock_event *ev = event();
	size_t len;

	CHECK_INT(parse("traps: game[812] trap alignment check ip:7f12a0001234 sp:7ffd00 error:0 in libfoo.so[7f12a0000000+5000]", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "game"));
	CHECK_INT(splitlock_event_get_pid(ev), 812);
	CHECK_INT(splitlock_event_get_action(ev), SPLITLOCK_ACTION_FATAL);
	CHECK(ip(ev) == 0x7f12a0001234);
	CHECK(splitlock_event_get_object(ev, &len) != NULL);
	CHECK(len == strlen("libfoo.so") &&
	      memcmp(splitlock_event_get_object(ev, NULL), "libfoo.so", 9) == 0);
	CHECK(object_offset(ev) == 0x1234);
	/* Newer kernels print the offset first. */
	CHECK_INT(parse("traps: a b[9] trap alignment check ip:401234 sp:1 error:0 in x[1234,400000+2000]", ev),
		  SPLITLOCK_LINE_EVENT);
	CHECK(comm_is(ev, "a b"));
	CHECK(object_offset(ev) == 0x1234);
	CHECK_INT(parse("traps: a[9] trap alignment check ip:401234 sp:1 error:0", ev), SPLITLOCK_LINE_EVENT);
	CHECK(splitlock_event_get_object(ev, NULL) == NULL);
	/* Other traps are not the detector's. */
	CHECK_INT(parse("traps: a[9] trap divide error ip:401234 sp:1 error:0", ev), SPLITLOCK_LINE_OTHER);
	CHECK_INT(parse("traps: a[x] trap alignment check ip:1 sp:1 error:0", ev), SPLITLOCK_LINE_MALFORMED);
}

TEST(suppressed)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("split_lock_warn: 17 callbacks suppressed", ev), SPLITLOCK_LINE_SUPPRESSED);
	CHECK_INT(splitlock_event_get_suppressed(ev), 17);
	CHECK_INT(parse("handle_user_split_lock: 3 callbacks suppressed", ev), SPLITLOCK_LINE_SUPPRESSED);
	CHECK_INT(splitlock_event_get_suppressed(ev), 3);
	CHECK_INT(parse("handle_bus_lock: 5 callbacks suppressed", ev), SPLITLOCK_LINE_SUPPRESSED);
	CHECK_INT(splitlock_event_get_kind(ev), SPLITLOCK_KIND_BUS_LOCK);
	CHECK_INT(parse("split_lock_warn: many callbacks suppressed", ev), SPLITLOCK_LINE_MALFORMED);
	CHECK_INT(parse("other_func: 5 callbacks suppressed", ev), SPLITLOCK_LINE_OTHER);
}

TEST(boot_lines_are_not_events)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks", ev),
		  SPLITLOCK_LINE_OTHER);
	CHECK_INT(parse("x86/split lock detection: #DB: warning on user-space bus_locks", ev), SPLITLOCK_LINE_OTHER);
	CHECK_INT(parse("usb 1-1: new high-speed USB device", ev), SPLITLOCK_LINE_OTHER);
}

TEST(malformed_lines)
{
	struct splitlock_event *ev = event();
	static const char *const bad[] = {
		"#AC: nopid took a split_lock trap at address: 0x1",
		"#AC: a/ took a split_lock trap at address: 0x1",
		"#AC: a/1 took a split_lock trap at address: 0x",
		"#AC: a/1 took a split_lock trap at address: 0xzz",
		"#AC: a/1 took a split_lock trap at address: 0x11111111111111111",
		"#AC: a/1 kicked a split_lock trap at address: 0x1",
		"#AC: a/99999999999 took a split_lock trap at address: 0x1",
		"#AC: 0123456789012345678901234567890123456789012345678901234567890123456789/1 took a split_lock trap at address: 0x1",
		"#AC: a/1 took a split_lock trap at address: 0x1 trailing",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i], ev);

		if (r != SPLITLOCK_LINE_MALFORMED)
			fprintf(stderr, "  not malformed (%d): %s\n", r, bad[i]);
		CHECK_INT(r, SPLITLOCK_LINE_MALFORMED);
	}
}

TEST(trailing_newline_tolerated)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("#AC: a/1 took a split_lock trap at address: 0x1\n", ev), SPLITLOCK_LINE_EVENT);
}

TEST(any_prefix_of_a_line_is_safe)
{
	const char *line = "traps: a b[9] trap alignment check ip:401234 sp:1 error:0 in x[1234,400000+2000]";
	const char *line2 = "x86/split lock detection: #AC: CPU 0/KVM/1234 took a split_lock trap at address: 0x1";
	struct splitlock_event *ev = event();

	/* Cut anywhere: never a crash, and never an event with a wrong tail. */
	for (size_t n = 0; n <= strlen(line); n++) {
		char *copy = malloc(n ? n : 1);

		memcpy(copy, line, n);
		splitlock_detector_line_parse(copy, n, ev);
		free(copy);
	}
	for (size_t n = 0; n < strlen(line2); n++) {
		char *copy = malloc(n ? n : 1);

		memcpy(copy, line2, n);
		CHECK(splitlock_detector_line_parse(copy, n, ev) != SPLITLOCK_LINE_EVENT);
		free(copy);
	}
}

TEST(cut_short_event_is_malformed)
{
	struct splitlock_event *ev = event();

	CHECK_INT(parse("x86/split lock detection: #AC: trunc/1 took a split_lo", ev), SPLITLOCK_LINE_MALFORMED);
	CHECK_INT(parse("#DB: x/12 took a bus", ev), SPLITLOCK_LINE_MALFORMED);
	CHECK_INT(parse("#DB: setting system wide bus lock rate limit to 10", ev), SPLITLOCK_LINE_OTHER);
}

TEST(missing_parts_read_as_no_data)
{
	struct splitlock_event *ev = event();
	uint64_t v = 7;
	size_t len = 7;

	/* A suppressed-count line has no address, no object. */
	CHECK_INT(parse("split_lock_warn: 3 callbacks suppressed", ev), SPLITLOCK_LINE_SUPPRESSED);
	CHECK_INT(splitlock_event_get_suppressed(ev), 3);
	CHECK_INT(splitlock_event_get_ip(ev, &v), -ENODATA);
	CHECK_INT(splitlock_event_get_object_offset(ev, &v), -ENODATA);
	CHECK(v == 7);
	CHECK(splitlock_event_get_object(ev, &len) == NULL);
	CHECK_INT(len, 0);
	CHECK(splitlock_event_free(NULL) == NULL);
}
