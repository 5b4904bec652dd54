/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report fed record by record, times, cgroups. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "libsplitlock.h"
#include "log/format.h"
#include "offenders/offenders.h"

static struct splitlock_kmsg_record rec(int facility, uint64_t usec, const char *msg)
{
	return (struct splitlock_kmsg_record){ .facility = facility, .level = 4,
					       .usec = usec, .message = msg,
					       .message_len = strlen(msg) };
}

TEST(report_counts_only_kernel_records)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	struct splitlock_kmsg_record a = rec(0, 1000, "#AC: a b/12 took a split_lock trap at address: 0x10");
	struct splitlock_kmsg_record b = rec(1, 2000, "#AC: evil/13 took a split_lock trap at address: 0x10");
	struct splitlock_kmsg_record c = rec(0, 3000, "#AC: a b/12 took a split_lock trap at address: 0x20");
	struct splitlock_kmsg_record d = rec(0, 4000, "split_lock_warn: 9 callbacks suppressed");
	const struct splitlock_offender *o = NULL;
	size_t len;

	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	CHECK_INT(splitlock_offenders_add_record(r, &a, &o), 1);
	CHECK(o != NULL);
	CHECK_INT(splitlock_offenders_add_record(r, &b, NULL), 0);
	CHECK_INT(splitlock_offenders_add_record(r, &c, NULL), 1);
	CHECK_INT(splitlock_offenders_add_record(r, &d, NULL), 0);
	CHECK_INT(splitlock_offenders_get_events(r), 2);
	CHECK_INT(splitlock_offenders_get_forged(r), 1);
	CHECK_INT(splitlock_offenders_get_forged_by(r, SPLITLOCK_FORGED_USER_SPACE), 1);
	CHECK_INT(splitlock_offenders_get_forged_by(r, SPLITLOCK_FORGED_FURTHER_LINE), 0);
	CHECK_INT(splitlock_offenders_get_forged_by(r, SPLITLOCK_FORGED_LEVEL), 0);
	CHECK_INT(splitlock_offenders_get_forged_by(r, (enum splitlock_forged)99), 0);
	CHECK_STR(splitlock_forged_name(SPLITLOCK_FORGED_LEVEL), "level");
	CHECK(splitlock_forged_name((enum splitlock_forged)3) == NULL);
	CHECK_INT(splitlock_offenders_get_suppressed(r), 9);
	CHECK_INT(splitlock_offenders_get_count(r), 1);
	o = splitlock_offenders_get(r, 0);
	CHECK_STR(splitlock_offender_get_comm(o, &len), "a b");
	CHECK_INT(splitlock_offender_get_pid(o), 12);
	CHECK_INT(splitlock_offender_get_first_seen(o), 1000);
	CHECK_INT(splitlock_offender_get_last_seen(o), 3000);
	CHECK_INT(splitlock_offender_get_ip_count(o), 2);
	CHECK_STR(splitlock_offender_get_ip(o, 1), "0x20");
	CHECK(splitlock_offenders_unref(r) == NULL);
	splitlock_unref(ctx);
}

static void append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	CHECK(fd >= 0);
	CHECK_INT(write(fd, text, strlen(text)), strlen(text));
	close(fd);
}

struct followed {
	int calls;
	uint64_t events;
};

static int count_followed(const struct splitlock_offender *o,
			  const struct splitlock_kmsg_record *r, const char *ip, void *data)
{
	struct followed *seen = data;
	size_t len;

	(void)r;
	(void)ip;
	seen->calls++;
	seen->events = splitlock_offender_get_events(o);
	CHECK_STR(splitlock_offender_get_comm(o, &len), "game");
	return 0;
}

/* The follower holds the report: its owner may let go of it first. */
TEST(follower_outlives_the_callers_report)
{
	char root[] = "/tmp/slctl-follow-XXXXXX", dir[64], kmsg[128];
	struct splitlock_ctx *ctx;
	struct splitlock_offenders *r;
	struct splitlock_follow *f = NULL;
	struct followed seen = { 0 };

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/dev", root);
	CHECK_INT(mkdir(dir, 0755), 0);
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", dir);
	append(kmsg, "4,1,1000000,-;#AC: game/500 took a split_lock trap at address: 0x10\n");
	ctx = splitlock_new(root);
	CHECK(ctx != NULL);
	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	CHECK_INT(splitlock_follow_new(r, true, &f), 0);
	CHECK_INT(splitlock_follow_process(f, count_followed, &seen), 0);
	CHECK_INT(seen.calls, 1);
	/* The follower's reference keeps the report, the report's the context. */
	CHECK(splitlock_offenders_unref(r) == r);
	CHECK(splitlock_unref(ctx) == ctx);

	append(kmsg, "4,2,2000000,-;#AC: game/500 took a split_lock trap at address: 0x20\n");
	CHECK_INT(splitlock_follow_process(f, count_followed, &seen), 0);
	CHECK_INT(seen.calls, 2);
	CHECK_INT(seen.events, 2);
	CHECK(splitlock_follow_free(f) == NULL);

	CHECK_INT(unlink(kmsg), 0);
	CHECK_INT(rmdir(dir), 0);
	CHECK_INT(rmdir(root), 0);
}

static void add_event(struct splitlock_offenders *r, const char *comm, uint32_t pid,
		      uint64_t usec)
{
	char msg[128];
	struct splitlock_kmsg_record k;

	snprintf(msg, sizeof(msg), "#AC: %s/%u took a split_lock trap at address: 0x10",
		 comm, pid);
	k = rec(0, usec, msg);
	CHECK_INT(splitlock_offenders_add_record(r, &k, NULL), 1);
}

static const char *comm_at(const struct splitlock_offenders *r, size_t i)
{
	const struct splitlock_offender *o = splitlock_offenders_get(r, i);
	size_t len;

	return o ? splitlock_offender_get_comm(o, &len) : NULL;
}

/* Most events first, ties earliest first, after every record added. */
TEST(added_records_reorder_offenders)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	const struct splitlock_offenders *report;

	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	report = r;
	add_event(r, "a", 1, 1000);
	add_event(r, "b", 2, 2000);
	add_event(r, "c", 3, 3000);
	CHECK_STR(comm_at(report, 0), "a");
	CHECK_STR(comm_at(report, 2), "c");
	/* c passes a and b... */
	add_event(r, "c", 3, 4000);
	CHECK_STR(comm_at(report, 0), "c");
	CHECK_STR(comm_at(report, 1), "a");
	CHECK_STR(comm_at(report, 2), "b");
	/* ...b ties with c and, seen earlier, goes before it... */
	add_event(r, "b", 2, 5000);
	CHECK_STR(comm_at(report, 0), "b");
	CHECK_STR(comm_at(report, 1), "c");
	CHECK_STR(comm_at(report, 2), "a");
	/* ...and a, last, passes both. */
	add_event(r, "a", 1, 6000);
	add_event(r, "a", 1, 7000);
	CHECK_STR(comm_at(report, 0), "a");
	CHECK_STR(comm_at(report, 1), "b");
	CHECK_STR(comm_at(report, 2), "c");
	CHECK(splitlock_offenders_get(report, 3) == NULL);
	splitlock_offenders_unref(r);
	splitlock_unref(ctx);
}

/* The same order however the events come: many offenders, a known sequence. */
TEST(order_holds_over_many_records)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	uint32_t x = 12345;
	bool ordered = true;

	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	for (uint64_t i = 1; i <= 3000 && ordered; i++) {
		char comm[16];

		x = x * 1103515245u + 12345u;
		/* Skewed: low numbers come more often, so counts differ and tie. */
		snprintf(comm, sizeof(comm), "t%u", (x >> 16) % 64 % ((x >> 8) % 64 + 1));
		add_event(r, comm, 7, i * 1000);
		for (size_t j = 1; j < splitlock_offenders_get_count(r); j++) {
			const struct splitlock_offender *a = splitlock_offenders_get(r, j - 1);
			const struct splitlock_offender *b = splitlock_offenders_get(r, j);
			uint64_t ea = splitlock_offender_get_events(a);
			uint64_t eb = splitlock_offender_get_events(b);

			if (ea < eb || (ea == eb && splitlock_offender_get_first_seen(a) >
						   splitlock_offender_get_first_seen(b)))
				ordered = false;
		}
	}
	CHECK(ordered);
	CHECK(splitlock_offenders_get_count(r) > 20);
	splitlock_offenders_unref(r);
	splitlock_unref(ctx);
}

/* Reading sorts what it read: also nothing at all. */
TEST(an_empty_log_gives_an_empty_report)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	int fd = open("/dev/null", O_RDONLY);

	CHECK(fd >= 0);
	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	CHECK_INT(splitlock_offenders_read_input(r, fd, SPLITLOCK_INPUT_KMSG, NULL, NULL), 0);
	CHECK_INT(splitlock_offenders_get_count(r), 0);
	CHECK(splitlock_offenders_get(r, 0) == NULL);
	close(fd);
	splitlock_offenders_unref(r);
	splitlock_unref(ctx);
}

/* @len bytes of @data read as a saved log in @format: the result. */
static int read_bytes(const void *data, size_t len, enum splitlock_input_format format,
		      uint64_t *events)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	int fd = memfd_create("log", MFD_CLOEXEC), ret;

	CHECK(fd >= 0);
	CHECK_INT(write(fd, data, len), len);
	lseek(fd, 0, SEEK_SET);
	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	ret = splitlock_offenders_read_input(r, fd, format, NULL, NULL);
	*events = splitlock_offenders_get_events(r);
	close(fd);
	splitlock_offenders_unref(r);
	splitlock_unref(ctx);
	return ret;
}

/*
 * A compressed log, a journal file or a program read as text gave a
 * report of no events that said nothing of it: refused, in any format.
 */
TEST(input_that_is_no_text_is_refused)
{
	static const char line[] = "4,1,5000000,-;x86/split lock detection: #AC: "
				   "a/1 took a split_lock trap at address: 0x1\n";
	static const char dmesg_line[] = "[    4.000000] usb 1-1: new device\n"
					 "[    5.000000] x86/split lock detection: #AC: "
					 "a/1 took a split_lock trap at address: 0x1\n";
	static const char *const magics[] = {
		"\x1f\x8b\x08", "\x28\xb5\x2f\xfd", "\xfd" "7zXZ", "BZh91AY&SY",
		"\x04\x22\x4d\x18", "LPKSHHRH", "\xff\xfe",
	};
	char buf[8192];
	uint64_t events;

	CHECK_INT(read_bytes(line, strlen(line), SPLITLOCK_INPUT_AUTO, &events), 0);
	CHECK_INT(events, 1);
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		size_t n = strlen(magics[i]) + (i == 2); /* xz's magic ends in a NUL */

		memcpy(buf, magics[i], n);
		memcpy(buf + n, line, sizeof(line));
		CHECK_INT(read_bytes(buf, n + strlen(line), SPLITLOCK_INPUT_AUTO, &events),
			  -EMEDIUMTYPE);
		CHECK_INT(read_bytes(buf, n + strlen(line), SPLITLOCK_INPUT_KMSG, &events),
			  -EMEDIUMTYPE);
		CHECK_INT(events, 0);
	}
	/* Binary bytes: one in ten a control byte, as in a program. */
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i % 10 ? 'a' + (char)(i % 26) : '\0';
	memcpy(buf + 100, line, strlen(line));
	CHECK_INT(read_bytes(buf, sizeof(buf), SPLITLOCK_INPUT_AUTO, &events), -EMEDIUMTYPE);
	CHECK_INT(read_bytes(buf, sizeof(buf), SPLITLOCK_INPUT_DMESG, &events), -EMEDIUMTYPE);
	/* A stray NUL in a text log is a text log... */
	memcpy(buf, line, strlen(line));
	memcpy(buf + strlen(line), "cut\0off\n", 8);
	memcpy(buf + strlen(line) + 8, line, strlen(line));
	buf[strlen(line) + 8 + 2] = '2'; /* another record: a repeat is read once */
	CHECK_INT(read_bytes(buf, 8 + 2 * strlen(line), SPLITLOCK_INPUT_AUTO, &events), 0);
	CHECK_INT(events, 2);
	/* ... and so is one after the hole of NULs that copytruncate leaves. */
	memset(buf, 0, 3000);
	memcpy(buf + 3000, dmesg_line, strlen(dmesg_line));
	CHECK_INT(read_bytes(buf, 3000 + strlen(dmesg_line), SPLITLOCK_INPUT_AUTO, &events), 0);
	CHECK_INT(events, 1);
	/* NUL-separated records are no binary data. */
	for (size_t i = 0; i < 40; i++) {
		memcpy(buf + i * strlen(line), line, strlen(line));
		/* 40 records, not one repeated (each SEQ and stamp its own). */
		buf[i * strlen(line) + 2] = (char)('0' + i % 10);
		buf[i * strlen(line) + 5] = (char)('0' + i / 10);
		buf[(i + 1) * strlen(line) - 1] = '\0';
	}
	CHECK_INT(read_bytes(buf, 40 * strlen(line), SPLITLOCK_INPUT_AUTO, &events), 0);
	CHECK_INT(events, 40);
}

/*
 * A saved log's report is sorted once, the offenders of one event set
 * apart from the others: the same order, also for a second log read into
 * the same report.
 */
TEST(reading_a_log_sorts_as_record_by_record)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	char path[] = "/tmp/test-offenders-sort.XXXXXX";
	uint32_t x = 777;
	bool ordered = true;
	size_t ones = 0;

	for (int pass = 0; pass < 2; pass++) {
		int fd = mkstemp(path);
		FILE *f = fdopen(fd, "w");

		CHECK(f != NULL);
		for (uint64_t i = 1; i <= 4000; i++) {
			x = x * 1103515245u + 12345u;
			/* Half the tasks once, the rest a few of 50 many times. */
			fprintf(f, "4,%" PRIu64 ",%" PRIu64 ",-;#AC: t/%u took a split_lock trap "
				"at address: 0x10\n", i, pass * 10000000 + i * 1000,
				(x >> 16) % 2 ? 100000 + pass * 10000 + (unsigned)i : (x >> 8) % 50);
		}
		fclose(f);
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0);
		if (pass == 0)
			CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
		CHECK_INT(splitlock_offenders_read_input(r, fd, SPLITLOCK_INPUT_KMSG, NULL, NULL), 0);
		close(fd);
		unlink(path);
		strcpy(path + strlen(path) - 6, "XXXXXX");
	}
	for (size_t j = 1; j < splitlock_offenders_get_count(r); j++) {
		const struct splitlock_offender *a = splitlock_offenders_get(r, j - 1);
		const struct splitlock_offender *b = splitlock_offenders_get(r, j);
		uint64_t ea = splitlock_offender_get_events(a);
		uint64_t eb = splitlock_offender_get_events(b);

		ones += eb == 1;
		if (ea < eb || (ea == eb && splitlock_offender_get_first_seen(a) >=
					   splitlock_offender_get_first_seen(b)))
			ordered = false;
	}
	CHECK(ordered);
	CHECK(ones > 3000);
	CHECK(splitlock_offenders_get_events(r) == 8000);
	CHECK(splitlock_offender_get_events(splitlock_offenders_get(r, 0)) > 50);
	splitlock_offenders_unref(r);
	splitlock_unref(ctx);
}

/* A follower at its limit forgets the offenders seen first, and only those. */
TEST(forgetting_keeps_the_newest_and_their_order)
{
	struct splitlock_ctx *ctx = splitlock_new("/");
	struct splitlock_offenders *r;
	const char *comms[] = { "a", "b", "c", "d", "e", "f", "g" };

	CHECK_INT(splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r), 0);
	sl_offenders_set_limit(r, 4);
	/* a..d fill it; e makes it forget a and b; f fills it; g forgets c, d. */
	for (uint32_t i = 0; i < 7; i++)
		add_event(r, comms[i], 100 + i, 1000 * (i + 1));
	CHECK_INT(splitlock_offenders_get_count(r), 3);
	CHECK_STR(comm_at(r, 0), "e");
	CHECK_STR(comm_at(r, 1), "f");
	CHECK_STR(comm_at(r, 2), "g");
	splitlock_offenders_unref(r);
	splitlock_unref(ctx);
}

TEST(time_parse_forms)
{
	int64_t now = 1796083200LL * 1000000, boot = now - 3600LL * 1000000, t;

	setenv("TZ", "UTC", 1);
	CHECK_INT(splitlock_time_parse("boot", now, boot, &t), 0);
	CHECK(t == boot);
	CHECK_INT(splitlock_time_parse("-2h", now, boot, &t), 0);
	CHECK(t == now - 7200LL * 1000000);
	CHECK_INT(splitlock_time_parse("-30m", now, boot, &t), 0);
	CHECK(t == now - 1800LL * 1000000);
	CHECK_INT(splitlock_time_parse("@1796083200", now, boot, &t), 0);
	CHECK(t == now);
	/* A fraction, as systemd's parse_sec() takes it (second review of
	 * issue 26's fixes, L1); digits past the microsecond are dropped. */
	CHECK_INT(splitlock_time_parse("@1796083200.5", now, boot, &t), 0);
	CHECK(t == now + 500000);
	CHECK_INT(splitlock_time_parse("@1796083200.1234567", now, boot, &t), 0);
	CHECK(t == now + 123456);
	CHECK_INT(splitlock_time_parse("@1796083200.", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("@1796083200.5x", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("2026-12-01 10:00", now, boot, &t), 0);
	CHECK(t == now + 36000LL * 1000000);
	CHECK_INT(splitlock_time_parse("2026-12-01 10:00:30", now, boot, &t), 0);
	CHECK(t == now + 36030LL * 1000000);
	/* journalctl's forms (systemd's parse_timestamp()). */
	CHECK_INT(splitlock_time_parse("tomorrow", now, boot, &t), 0);
	CHECK(t == now + 86400LL * 1000000);
	CHECK_INT(splitlock_time_parse("today", now + 5000000, boot, &t), 0);
	CHECK(t == now);
	CHECK_INT(splitlock_time_parse("yesterday", now, boot, &t), 0);
	CHECK(t == now - 86400LL * 1000000);
	CHECK_INT(splitlock_time_parse("1h 30min ago", now, boot, &t), 0);
	CHECK(t == now - 5400LL * 1000000);
	CHECK_INT(splitlock_time_parse("2 days left", now, boot, &t), 0);
	CHECK(t == now + 2 * 86400LL * 1000000);
	CHECK_INT(splitlock_time_parse("+1h30min", now, boot, &t), 0);
	CHECK(t == now + 5400LL * 1000000);
	CHECK_INT(splitlock_time_parse("-1M", now, boot, &t), 0);
	CHECK(t == now - 2629800LL * 1000000);
	CHECK_INT(splitlock_time_parse("-500ms", now, boot, &t), 0);
	CHECK(t == now - 500000);
	CHECK_INT(splitlock_time_parse("10:00", now, boot, &t), 0);
	CHECK(t == now + 36000LL * 1000000);
	CHECK_INT(splitlock_time_parse("tomorow", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("1h agoo", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse(" ago", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("-2x", now, boot, &t), -EINVAL);
	CHECK_INT(splitlock_time_parse("@12abc", now, boot, &t), -EINVAL);
}

/* What journalctl 252 takes and slctl refused: fractions, weekdays, zones. */
TEST(time_parse_absolute_forms_of_journalctl)
{
	int64_t now = 1796083200LL * 1000000, boot = now - 3600LL * 1000000, t;
	static const struct {
		const char *text;
		int64_t at; /* microseconds after now (2026-12-01 00:00 UTC, a Tuesday) */
	} ok[] = {
		{ "2026-12-01 00:02:05.5", 125500000 },
		{ "2026-12-01 00:02:05.1234567", 125123457 },
		{ "2026-12-01T00:02:05.000001", 125000001 },
		{ "Tue 2026-12-01 00:02", 120000000 },
		{ "tuesday 2026-12-01", 0 },
		{ "2026-12-01 00:02 UTC", 120000000 },
		{ "2026-12-01 00:02:05.5 utc", 125500000 },
		{ "2026-12-01T00:02:05Z", 125000000 },
		{ "2026-12-01T01:02:05+01:00", 125000000 },
		{ "2026-11-30T23:02:05-01:00", 125000000 },
		{ "2026-12-01 05:32 +05:30", 120000000 },
		{ "2026-12-01 01:02 +0100", 120000000 },
		{ "2026-12-01 01:02 +01", 120000000 },
		{ "26-12-01 00:02", 120000000 },
		{ "26-12-01", 0 },
		{ "Dec 01 00:02:05", 125000000 },
		{ "Dec 01 00:02:05.25", 125250000 },
		{ "00:02:05.5", 125500000 },
		{ "Tue 2026-12-01 00:02:05.5 UTC", 125500000 },
		{ "today UTC", 0 },
	};
	static const char *const refused[] = {
		"Mon 2026-12-01 00:02",       /* the wrong weekday */
		"2026-12-01 00:02:05.",       /* no digit after the point */
		"2026-12-01 00:02:05.5x",
		"2026-12-01 00:02.5",         /* a fraction without seconds */
		"2026-12-01 00:02 +25:00",    /* past a day */
		"2026-12-01 00:02 +01:60",
		"2026-12-01 00:02 Mars/Olympus",
		"2026-02-30 00:02 UTC",
		"Tuesday2026-12-01",
		"UTC",
	};

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		t = 0;
		if (splitlock_time_parse(ok[i].text, now, boot, &t) != 0 || t != now + ok[i].at) {
			fprintf(stderr, "'%s': %" PRId64 " after now\n", ok[i].text, t - now);
			CHECK(false);
		}
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (splitlock_time_parse(refused[i], now, boot, &t) != -EINVAL) {
			fprintf(stderr, "'%s' was taken\n", refused[i]);
			CHECK(false);
		}
	/* The local zone's own names say summer or standard time. */
	setenv("TZ", "Europe/Berlin", 1);
	tzset();
	CHECK_INT(splitlock_time_parse("2026-12-01 01:02 CET", now, boot, &t), 0);
	CHECK(t == now + 120000000);
	CHECK_INT(splitlock_time_parse("2026-12-01 01:02", now, boot, &t), 0);
	CHECK(t == now + 120000000);
	CHECK_INT(splitlock_time_parse("2026-07-01 02:00 CEST", now, boot, &t), 0);
	CHECK(t == 1782864000LL * 1000000);
	CHECK_INT(splitlock_time_parse("2026-12-01 00:02 UTC", now, boot, &t), 0);
	CHECK(t == now + 120000000);
	setenv("TZ", "UTC", 1);
	tzset();
}

TEST(cgroup_unit_and_container)
{
	char *unit, *container;

	sl_cgroup_parse("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-steam-1.scope\n",
			&unit, &container);
	CHECK_STR(unit, "app-steam-1.scope");
	CHECK(container == NULL);
	free(unit);
	sl_cgroup_parse("0::/system.slice/libpod-0123456789abcdef0123.scope/container\n", &unit, &container);
	CHECK_STR(container, "podman:0123456789ab");
	free(unit);
	free(container);
	sl_cgroup_parse("12:pids:/docker/fedcba9876543210fedc\n1:name=systemd:/docker/fedcba9876543210fedc\n",
			&unit, &container);
	CHECK_STR(container, "docker:fedcba987654");
	free(unit);
	free(container);
	sl_cgroup_parse("0::/\n", &unit, &container);
	CHECK(unit == NULL && container == NULL);
}

/*
 * The forms' table: each entry stands at its member, every name parses
 * back to it and is its own (non-empty, no other form's), the list ends
 * with a NULL (callers walk it so) after every member the header names
 * and with no form past it, and each form has a parser. No count: a form
 * added is walked as the others.
 */
TEST(format_table_walks_every_form)
{
	enum splitlock_input_format f, g, back;
	const char *name;
	unsigned n = 0;

	for (f = 0; (name = splitlock_input_format_name(f)); f++) {
		CHECK(name[0] != '\0');
		CHECK_INT(splitlock_input_format_parse(name, &back), 0);
		CHECK_INT((int)back, (int)f);
		for (g = 0; g < f; g++)
			CHECK(strcmp(splitlock_input_format_name(g), name) != 0);
		if (f == SPLITLOCK_INPUT_AUTO) {
			CHECK(sl_log_format_of(f) == NULL);
		} else {
			CHECK(sl_log_format_of(f) != NULL);
			CHECK_INT((int)sl_log_format_of(f)->id, (int)f);
			CHECK(sl_log_format_of(f)->line != NULL);
		}
		n++;
	}
	/* The walk did not stop early: the header's last member is in it. */
	CHECK(n > (unsigned)SPLITLOCK_INPUT_JOURNAL_VERBOSE);
	/* It stopped at the table's end: nothing named or parsed past it. */
	for (g = f; g < f + 4; g++) {
		CHECK(splitlock_input_format_name(g) == NULL);
		CHECK(sl_log_format_of(g) == NULL);
	}
}

TEST(names_round_trip)
{
	enum splitlock_group g;
	enum splitlock_input_format f;

	CHECK_INT(splitlock_group_parse("unit", &g), 0);
	CHECK_STR(splitlock_group_name(g), "unit");
	CHECK_INT(splitlock_group_parse("units", &g), -EINVAL);
	CHECK_INT(splitlock_input_format_parse("kmsg-nul", &f), 0);
	CHECK_STR(splitlock_input_format_name(f), "kmsg-nul");
	CHECK_INT(splitlock_input_format_parse("unknown", &f), -EINVAL);
	CHECK_STR(splitlock_kind_name(SPLITLOCK_KIND_BUS_LOCK), "bus_lock");
	CHECK_STR(splitlock_action_name(SPLITLOCK_ACTION_SIGBUS), "sigbus");
}
