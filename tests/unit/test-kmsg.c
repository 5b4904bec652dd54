/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/kmsg records: prefix fields, escapes, continuation lines; and a
 * saved copy in /dev/kmsg's place, read by the same line reader as a saved
 * log in the kmsg format.
 */
#include <errno.h>

#include "libsplitlock.h"
#include "fake-root.h"
#include "test.h"

/*
 * A record for one test, from splitlock_kmsg_record_new(): the previous
 * one is freed, the last stays reachable until exit.
 */
static struct splitlock_kmsg_record *record(void)
{
	static struct splitlock_kmsg_record *rec;

	splitlock_kmsg_record_free(rec);
	if (splitlock_kmsg_record_new(&rec) < 0)
		abort();
	return rec;
}

static size_t message_len(const struct splitlock_kmsg_record *rec)
{
	size_t len;

	splitlock_kmsg_record_get_message(rec, &len);
	return len;
}

static int parse(const char *text, struct splitlock_kmsg_record *rec, char *buf)
{
	return splitlock_kmsg_parse_record(text, strlen(text), buf, rec);
}

TEST(record_fields)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	CHECK_INT(parse("4,1234,5678901,-;x86/split lock detection: disabled\n", rec, buf), 0);
	CHECK_INT(splitlock_kmsg_record_get_facility(rec), 0);
	CHECK_INT(splitlock_kmsg_record_get_level(rec), 4);
	CHECK_INT(splitlock_kmsg_record_get_seq(rec), 1234);
	CHECK_INT(splitlock_kmsg_record_get_usec(rec), 5678901);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "x86/split lock detection: disabled");
}

TEST(user_space_records_carry_their_facility)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	/* <14> = user.info: what `echo ... > /dev/kmsg` produces. */
	CHECK_INT(parse("14,7,100,-;#AC: evil/1 took a split_lock trap at address: 0x1", rec, buf), 0);
	CHECK_INT(splitlock_kmsg_record_get_facility(rec), 1);
	CHECK_INT(splitlock_kmsg_record_get_level(rec), 6);
}

TEST(escapes_are_decoded)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	CHECK_INT(parse("6,1,1,-;#AC: a\\x20b\\x5cc/12 took\\x0a", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "#AC: a b\\c/12 took\n");
	CHECK_INT(message_len(rec), strlen("#AC: a b\\c/12 took\n"));
	/* A backslash not followed by xNN stays as it is. */
	CHECK_INT(parse("6,2,1,-;a\\xZZ b\\x4", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "a\\xZZ b\\x4");
	/* Backslashes at the ends, in a row, and before an escape. */
	CHECK_INT(parse("6,3,1,-;\\\\\\x41\\x4\\x42\\", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "\\\\A\\x4B\\");
	CHECK_INT(parse("6,4,1,-;\\x41", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "A");
	CHECK_INT(parse("6,5,1,-;x\\x4", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "x\\x4");
}

TEST(nul_bytes_survive_decoding)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	CHECK_INT(parse("6,1,1,-;a\\x00b", rec, buf), 0);
	CHECK_INT(message_len(rec), 3);
	CHECK(memcmp(splitlock_kmsg_record_get_message(rec, NULL), "a\0b", 3) == 0);
}

TEST(continuation_lines_are_not_message)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	CHECK_INT(parse("6,3,9,c;usb 1-1: new device\n SUBSYSTEM=usb\n DEVICE=c189:1\n", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "usb 1-1: new device");
}

TEST(extra_prefix_fields_are_ignored)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	CHECK_INT(parse("6,3,9,-,caller=T1;hello", rec, buf), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "hello");
}

TEST(malformed_records)
{
	struct splitlock_kmsg_record *rec = record();
	char buf[256];

	CHECK_INT(parse("", rec, buf), -EINVAL);
	CHECK_INT(parse("no semicolon here", rec, buf), -EINVAL);
	CHECK_INT(parse("6,1;short", rec, buf), -EINVAL);
	CHECK_INT(parse("x,1,2,-;bad pri", rec, buf), -EINVAL);
	CHECK_INT(parse("6,1,2x,-;bad usec", rec, buf), -EINVAL);
	CHECK_INT(parse("6,99999999999999999999999,2,-;overflow", rec, buf), -EINVAL);
	CHECK_INT(parse("[    0.000000] dmesg text", rec, buf), -EINVAL);
}

TEST(a_new_record_is_empty_and_a_failed_parse_leaves_it_unchanged)
{
	struct splitlock_kmsg_record *rec = NULL;
	char buf[256];

	CHECK_INT(splitlock_kmsg_record_new(&rec), 0);
	CHECK_INT(splitlock_kmsg_record_get_facility(rec), 0);
	CHECK_INT(splitlock_kmsg_record_get_level(rec), 0);
	CHECK_INT(message_len(rec), 0);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "");
	CHECK_INT(parse("4,5,6,-;kept", rec, buf), 0);
	CHECK_INT(parse("4,5;broken", rec, buf), -EINVAL);
	CHECK_STR(splitlock_kmsg_record_get_message(rec, NULL), "kept");
	CHECK_INT(splitlock_kmsg_record_get_seq(rec), 5);
	CHECK(splitlock_kmsg_record_free(rec) == NULL);
	CHECK(splitlock_kmsg_record_free(NULL) == NULL);
}

/* ---- a regular file in /dev/kmsg's place ---------------------------------- */

struct seen {
	char text[512];
	unsigned records, stop_after;
};

static int collect(const struct splitlock_kmsg_record *rec, void *data)
{
	struct seen *s = data;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s%d.%d/%llu/%llu:%.*s",
		 n ? "|" : "", splitlock_kmsg_record_get_facility(rec),
		 splitlock_kmsg_record_get_level(rec),
		 (unsigned long long)splitlock_kmsg_record_get_seq(rec),
		 (unsigned long long)splitlock_kmsg_record_get_usec(rec),
		 (int)message_len(rec), splitlock_kmsg_record_get_message(rec, NULL));
	return ++s->records == s->stop_after;
}

/* The records of @kmsg as splitlock_kmsg_foreach() hands them out. */
static int foreach_file(const char *kmsg, struct seen *s)
{
	struct splitlock_ctx *ctx;
	int r;

	fake_root_make("kmsg");
	put("/dev/kmsg", kmsg);
	ctx = fake_root_ctx();
	r = splitlock_kmsg_foreach(ctx, collect, s);
	splitlock_unref(ctx);
	fake_root_remove();
	return r;
}

TEST(saved_kmsg_file_gives_every_record_in_order)
{
	struct seen s = { 0 };

	CHECK_INT(foreach_file("6,1,100,-;Linux version\n"
			       " SUBSYSTEM=cpu\n"
			       "\n"
			       "4,2,5000000,-;x86/split lock detection: #AC: a\\x20b/12 took\n"
			       "14,3,6000000,-;from user space\n", &s), 0);
	CHECK_STR(s.text, "0.6/1/100:Linux version|0.4/2/5000000:x86/split lock detection: #AC: a b/12 took|1.6/3/6000000:from user space");
}

TEST(saved_kmsg_file_skips_what_is_not_a_record)
{
	struct seen s = { 0 };

	CHECK_INT(foreach_file("[    5.000000] dmesg text\n"
			       "6,1;short\n"
			       "4,2,7,-;kept\n"
			       "#AC: a/1 took a split_lock trap, but no prefix\n", &s), 0);
	CHECK_STR(s.text, "0.4/2/7:kept");
}

TEST(saved_kmsg_file_stops_when_the_callback_says_so)
{
	struct seen s = { .stop_after = 1 };

	CHECK_INT(foreach_file("6,1,1,-;first\n6,2,2,-;second\n", &s), 0);
	CHECK_STR(s.text, "0.6/1/1:first");
}

TEST(saved_kmsg_file_last_record_needs_no_newline)
{
	struct seen s = { 0 };

	CHECK_INT(foreach_file("6,1,1,-;first\n6,2,2,-;last", &s), 0);
	CHECK_STR(s.text, "0.6/1/1:first|0.6/2/2:last");
}
