/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lines of the syslog(2) buffer, the live log's fallback (lib/kmsg.c). */
#include "log-format.h"
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
