/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lines of the syslog(2) buffer, the live log's fallback (lib/log/kmsg.c). */
#include <sys/mman.h>
#include <unistd.h>

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

/* The first record of dmesg --json document @doc, as the reader hands it on. */
static void dmesg_json_record(const char *doc, struct dmesg_seen *s)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	enum splitlock_input_format format = SPLITLOCK_INPUT_AUTO;
	struct sl_unread unread = { 0 };
	int fd = memfd_create("log", MFD_CLOEXEC);

	memset(s, 0, sizeof(*s));
	CHECK(ctx && fd >= 0);
	CHECK_INT(write(fd, doc, strlen(doc)), strlen(doc));
	lseek(fd, 0, SEEK_SET);
	CHECK_INT(sl_log_input_foreach(ctx, fd, &format, false, dmesg_record, s, NULL, NULL,
				       &unread), 0);
	CHECK_INT(format, SPLITLOCK_INPUT_DMESG_JSON);
	close(fd);
	splitlock_unref(ctx);
}

/*
 * util-linux 2.38's dmesg --json writes "pri" without -x as facility |
 * level: auth.warning reads 4, as kern.warning does. A "pri" of 7 or less
 * does not prove the kernel wrote the record (taken as the kernel's, as
 * plain dmesg text is); one above 7, and -x's "fac", do (rev45 H1).
 */
TEST(dmesg_json_pri_without_fac_does_not_prove_the_kernel)
{
	static const char head[] = "{\n   \"dmesg\": [\n      {\n";
	static const char tail[] = "         \"msg\": \"x86/split lock detection: #AC: a/1 took "
				   "a split_lock trap at address: 0x1\"\n      }\n   ]\n}\n";
	struct dmesg_seen s;
	char doc[512];

	snprintf(doc, sizeof(doc), "%s         \"pri\": 4,\n%s", head, tail);
	dmesg_json_record(doc, &s);
	CHECK(s.called && !s.facility_known);
	CHECK_INT(s.rec.level, 4);
	snprintf(doc, sizeof(doc), "%s         \"pri\": 36,\n%s", head, tail);
	dmesg_json_record(doc, &s);
	CHECK(s.called && s.facility_known);
	CHECK_INT(s.rec.facility, 4);
	snprintf(doc, sizeof(doc), "%s         \"fac\": \"kern\",\n         \"pri\": \"warn\",\n%s",
		 head, tail);
	dmesg_json_record(doc, &s);
	CHECK(s.called && s.facility_known);
	CHECK_INT(s.rec.facility, 0);
	CHECK_INT(s.rec.level, 4);
}
