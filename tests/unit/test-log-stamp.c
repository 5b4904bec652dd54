/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stamps and prefixes saved-log formats share (lib/log/stamp.c). */
#include "log/format.h"
#include "test.h"

static int month(const char *s)
{
	int m = -1;

	return sl_stamp_month(s, s + strlen(s), &m) ? m : -2;
}

TEST(month_names_in_the_locales_people_run)
{
	CHECK_INT(month("Dec"), 11);
	CHECK_INT(month("dec"), 11);
	CHECK_INT(month("Dez 3"), 11);
	CHECK_INT(month("déc."), 11);
	CHECK_INT(month("Mär"), 2);
	CHECK_INT(month("12月 03"), 11);
	CHECK_INT(month("7월"), 6);
	CHECK_INT(month("янв"), 0);
	/* A word of a locale we do not know: a month, but not which. */
	CHECK_INT(month("gruod. 3"), -1);
	/* Not a month: a number without the CJK sign, 13月, nothing. */
	CHECK_INT(month("12 "), -2);
	CHECK_INT(month("13月"), -2);
	CHECK_INT(month(" Dec"), -2);
}

static const char *skip_caller(const char *s)
{
	return sl_skip_caller_id(s, s + strlen(s));
}

TEST(caller_ids_are_skipped_and_nothing_else)
{
	CHECK_STR(skip_caller("[ T4242] msg"), "msg");
	CHECK_STR(skip_caller(" [    C3] msg"), "msg");
	CHECK_STR(skip_caller("[T1]msg"), "msg");
	CHECK_STR(skip_caller("[drm] msg"), "[drm] msg");
	CHECK_STR(skip_caller("[ T] msg"), "[ T] msg");
	CHECK_STR(skip_caller("[ T12 msg"), "[ T12 msg");
}

TEST(kernel_stamps)
{
	const char *s = "[    5.118315] msg";
	int64_t usec = 0;

	CHECK_STR(sl_skip_kernel_stamp(s, s + strlen(s), &usec), "msg");
	CHECK_INT(usec, 5118315);
	s = "[5.1] x";
	CHECK_STR(sl_skip_kernel_stamp(s, s + strlen(s), &usec), "x");
	CHECK_INT(usec, 5100000);
	s = "[5] x";
	CHECK_STR(sl_skip_kernel_stamp(s, s + strlen(s), &usec), "[5] x");
}

static int64_t syslog_stamp(const char *s, const char **rest)
{
	int64_t wall = 0;

	*rest = sl_syslog_stamp(s, s + strlen(s), &wall);
	return wall;
}

TEST(rfc3339_stamps_with_offsets_and_fractions)
{
	const char *rest;

	/* 2026-12-03T09:18:33Z = 1796289513 */
	CHECK_INT(syslog_stamp("2026-12-03T09:18:33.5+00:00 host", &rest), 1796289513500000);
	CHECK_STR(rest, "host");
	CHECK_INT(syslog_stamp("2026-12-03T10:18:33.000001+01:00 h", &rest), 1796289513000001);
	CHECK_INT(syslog_stamp("2026-12-03T09:18:33+0000 h", &rest), 1796289513000000);
	CHECK_INT(syslog_stamp("2026-12-03T09:18:33Z h", &rest), 1796289513000000);
	syslog_stamp("2026-13-03T09:18:33Z h", &rest);
	CHECK(rest == NULL);
	syslog_stamp("2026-12-03T25:18:33Z h", &rest);
	CHECK(rest == NULL);
}

TEST(rfc3164_stamps)
{
	const char *rest;

	syslog_stamp("Dec  3 09:18:33 host kernel: x", &rest);
	CHECK_STR(rest, "host kernel: x");
	syslog_stamp("12月 03 09:18:33.123456 host kernel: x", &rest);
	CHECK_STR(rest, "host kernel: x");
	syslog_stamp("Dec 32 09:18:33 host", &rest);
	CHECK(rest == NULL);
	syslog_stamp("Dec  3 9:18:33 host", &rest);
	CHECK(rest == NULL);
}

TEST(tags_say_who_wrote_a_line)
{
	const char *s;

	s = "host kernel: x";
	CHECK(sl_syslog_tail_matches(s, s + strlen(s), true));
	s = "kernel: x"; /* journalctl --no-hostname */
	CHECK(sl_syslog_tail_matches(s, s + strlen(s), true));
	s = "host sshd[12]: x";
	CHECK(sl_syslog_tail_matches(s, s + strlen(s), true));
	s = "usb 1-1: new device";
	CHECK(sl_syslog_tail_matches(s, s + strlen(s), false));
	CHECK(!sl_syslog_tail_matches(s, s + strlen(s), true));
	s = "x86/split lock detection: #AC";
	CHECK(!sl_syslog_tail_matches(s, s + strlen(s), false));
}
