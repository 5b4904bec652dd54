/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /dev/kmsg records: prefix fields, escapes, continuation lines. */
#include <errno.h>

#include "libsplitlock.h"
#include "test.h"

static int parse(const char *text, struct splitlock_kmsg_record *rec, char *buf)
{
	return splitlock_kmsg_parse_record(text, strlen(text), buf, rec);
}

TEST(record_fields)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	CHECK_INT(parse("4,1234,5678901,-;x86/split lock detection: disabled\n", &rec, buf), 0);
	CHECK_INT(rec.facility, 0);
	CHECK_INT(rec.level, 4);
	CHECK_INT(rec.seq, 1234);
	CHECK_INT(rec.usec, 5678901);
	CHECK_STR(rec.message, "x86/split lock detection: disabled");
}

TEST(user_space_records_carry_their_facility)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	/* <14> = user.info: what `echo ... > /dev/kmsg` produces. */
	CHECK_INT(parse("14,7,100,-;#AC: evil/1 took a split_lock trap at address: 0x1", &rec, buf), 0);
	CHECK_INT(rec.facility, 1);
	CHECK_INT(rec.level, 6);
}

TEST(escapes_are_decoded)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	CHECK_INT(parse("6,1,1,-;#AC: a\\x20b\\x5cc/12 took\\x0a", &rec, buf), 0);
	CHECK_STR(rec.message, "#AC: a b\\c/12 took\n");
	CHECK_INT(rec.message_len, strlen("#AC: a b\\c/12 took\n"));
	/* A backslash not followed by xNN stays as it is. */
	CHECK_INT(parse("6,2,1,-;a\\xZZ b\\x4", &rec, buf), 0);
	CHECK_STR(rec.message, "a\\xZZ b\\x4");
}

TEST(nul_bytes_survive_decoding)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	CHECK_INT(parse("6,1,1,-;a\\x00b", &rec, buf), 0);
	CHECK_INT(rec.message_len, 3);
	CHECK(memcmp(rec.message, "a\0b", 3) == 0);
}

TEST(continuation_lines_are_not_message)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	CHECK_INT(parse("6,3,9,c;usb 1-1: new device\n SUBSYSTEM=usb\n DEVICE=c189:1\n", &rec, buf), 0);
	CHECK_STR(rec.message, "usb 1-1: new device");
}

TEST(extra_prefix_fields_are_ignored)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	CHECK_INT(parse("6,3,9,-,caller=T1;hello", &rec, buf), 0);
	CHECK_STR(rec.message, "hello");
}

TEST(malformed_records)
{
	struct splitlock_kmsg_record rec;
	char buf[256];

	CHECK_INT(parse("", &rec, buf), -EINVAL);
	CHECK_INT(parse("no semicolon here", &rec, buf), -EINVAL);
	CHECK_INT(parse("6,1;short", &rec, buf), -EINVAL);
	CHECK_INT(parse("x,1,2,-;bad pri", &rec, buf), -EINVAL);
	CHECK_INT(parse("6,1,2x,-;bad usec", &rec, buf), -EINVAL);
	CHECK_INT(parse("6,99999999999999999999999,2,-;overflow", &rec, buf), -EINVAL);
	CHECK_INT(parse("[    0.000000] dmesg text", &rec, buf), -EINVAL);
}
