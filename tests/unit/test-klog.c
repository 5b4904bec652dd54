/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lines of the syslog(2) buffer, the live log's fallback (lib/log/kmsg.c). */
#include "log/format.h"
#include "test.h"

static bool parse(const char *line, struct splitlock_kmsg_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	return sl_klog_line_parse(line, strlen(line), rec);
}

TEST(stamp_and_caller_id_are_not_the_message)
{
	struct splitlock_kmsg_record rec;

	CHECK(parse("<4>[    5.118315][ T4242] x86/split lock detection: #AC: a/1 took", &rec));
	CHECK_INT(rec.facility, 0);
	CHECK_INT(rec.level, 4);
	CHECK_INT(rec.usec, 5118315);
	CHECK_STR(rec.message, "x86/split lock detection: #AC: a/1 took");
	CHECK(parse("<6>[    0.000000][    C0] Linux version", &rec));
	CHECK_STR(rec.message, "Linux version");
	CHECK(parse("<4>[    5.000000] plain", &rec));
	CHECK_STR(rec.message, "plain");
	CHECK_INT(rec.usec, 5000000);
}

TEST(user_space_keeps_its_facility)
{
	struct splitlock_kmsg_record rec;

	CHECK(parse("<12>[    5.000000] evil", &rec));
	CHECK_INT(rec.facility, 1);
}

TEST(not_a_syslog2_line)
{
	struct splitlock_kmsg_record rec;

	CHECK(!parse("[    5.000000] no priority", &rec));
	CHECK(!parse("<4 no close", &rec));
	CHECK(!parse("<99999999>x", &rec));
}

TEST(syslog_pri_is_bounded)
{
	const char *text;
	int pri = -1;

	text = "<4>x";
	CHECK(sl_syslog_pri(text, text + 4, &pri) == text + 3);
	CHECK_INT(pri, 4);
	text = "<524287>";
	CHECK(sl_syslog_pri(text, text + strlen(text), &pri) == text + strlen(text));
	CHECK_INT(pri, 0x7ffff);
	text = "<524288>";
	CHECK(!sl_syslog_pri(text, text + strlen(text), &pri));
	text = "<00000004>";
	CHECK(!sl_syslog_pri(text, text + strlen(text), &pri));
	text = "<>";
	CHECK(!sl_syslog_pri(text, text + 2, &pri));
	text = "<4";
	CHECK(!sl_syslog_pri(text, text + 2, &pri));
}

struct dmesg_seen {
	bool called, facility_known;
	struct splitlock_kmsg_record rec;
	char message[256];
};

static int dmesg_record(const struct sl_log_record *r, void *data)
{
	struct dmesg_seen *s = data;

	s->called = true;
	s->facility_known = r->facility_known;
	s->rec = r->rec;
	snprintf(s->message, sizeof(s->message), "%.*s", (int)r->rec.message_len, r->rec.message);
	return 0;
}

/* One line of dmesg -r read by the dmesg format's parser. */
static void dmesg_raw(const char *line, struct dmesg_seen *s)
{
	static char decoded[SL_INPUT_BUF + 1], scratch[SL_INPUT_BUF];
	struct sl_unread unread = { 0 };
	struct sl_reader rd = { .form = &sl_log_format_dmesg, .sep = '\n',
				.decoded = decoded, .scratch = scratch,
				.fn = dmesg_record, .data = s, .unread = &unread };

	memset(s, 0, sizeof(*s));
	sl_dmesg_line(&rd, line, strlen(line));
}

/* dmesg -r prints the live fallback's lines: both read them alike. */
TEST(dmesg_raw_reads_as_the_syslog2_buffer)
{
	static const char *const lines[] = {
		"<4>[    5.118315][ T4242] x86/split lock detection: #AC: a/1 took",
		"<12>[    5.000000] evil",
		"<6>[    0.000000] Linux version",
		"<4>no stamp",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct splitlock_kmsg_record klog;
		struct dmesg_seen s;

		CHECK(parse(lines[i], &klog));
		dmesg_raw(lines[i], &s);
		CHECK(s.called && s.facility_known);
		CHECK_INT(s.rec.facility, klog.facility);
		CHECK_INT(s.rec.level, klog.level);
		CHECK_INT(s.rec.usec, klog.usec);
		CHECK(klog.message_len == strlen(s.message) &&
		      memcmp(klog.message, s.message, klog.message_len) == 0);
	}
}

/* Once read as facility 75000: a PRI out of range is no prefix to either. */
TEST(dmesg_raw_out_of_range_pri_is_text)
{
	struct splitlock_kmsg_record klog;
	struct dmesg_seen s;

	CHECK(!parse("<600000>[    5.000000] x", &klog));
	dmesg_raw("<600000>[    5.000000] x", &s);
	CHECK(s.called && !s.facility_known);
	CHECK_INT(s.rec.facility, 0);
	CHECK_STR(s.message, "<600000>[    5.000000] x");
}
