/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report of `slctl run --check`: a sentence, JSON (schema in slctl(8))
 * or JUnit XML, the format CI systems (GitLab, Jenkins, GitHub Actions'
 * test reporters) show as a test result.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run-report.h"
#include "slctl.h"

#define RUN_CHECK_JSON_VERSION 1

uint64_t run_check_total(const struct run_check *c)
{
	return c->count[SPLITLOCK_KIND_SPLIT_LOCK] + c->count[SPLITLOCK_KIND_BUS_LOCK];
}

/* Passed: counted (a count read, not left at 0), CMD succeeded, and no
 * more locks than allowed. */
bool run_check_passed(const struct run_check *c)
{
	return c->source && c->cmd_status == 0 &&
	       (c->counted[SPLITLOCK_KIND_SPLIT_LOCK] || c->counted[SPLITLOCK_KIND_BUS_LOCK]) &&
	       run_check_total(c) <= c->max;
}

static void json_count(struct json *j, const struct run_check *c, const char *key,
		       enum splitlock_kind kind)
{
	if (c->counted[kind])
		json_uint(j, key, c->count[kind]);
	else
		json_null(j, key);
}

/* The tasks that trapped; null where the source cannot tell (the PMU's
 * totals) or nothing ran, with tasks_complete saying whether their counts
 * add up to the totals. */
static void json_tasks(struct json *j, const struct run_check *c)
{
	size_t n;
	uint64_t lost;
	char text[32];

	if (!c->count_obj || splitlock_count_get_tasks(c->count_obj, &n, &lost) < 0) {
		json_null(j, "tasks");
		json_null(j, "tasks_complete");
		return;
	}
	json_array_begin(j, "tasks");
	for (size_t i = 0; i < n; i++) {
		const uint64_t *ips;
		const char *comm;
		uint64_t counts[2];
		uint32_t pid;
		size_t nips;
		bool all;

		if (splitlock_count_get_task(c->count_obj, i, &pid, &comm, &counts[0], &counts[1]) < 0 ||
		    splitlock_count_get_task_ips(c->count_obj, i, &ips, &nips, &all) < 0)
			continue;
		json_object_begin(j, NULL);
		if (comm)
			json_string(j, "comm", comm);
		else
			json_null(j, "comm");
		json_uint(j, "pid", pid);
		json_uint(j, "split_locks", counts[0]);
		json_uint(j, "bus_locks", counts[1]);
		json_array_begin(j, "ips");
		for (size_t k = 0; k < nips; k++) {
			snprintf(text, sizeof(text), "0x%" PRIx64, ips[k]);
			json_string(j, NULL, text);
		}
		json_array_end(j);
		json_bool(j, "ips_complete", all);
		json_object_end(j);
	}
	json_array_end(j);
	json_bool(j, "tasks_complete", lost == 0);
}

static void report_json(const struct run_check *c, FILE *out)
{
	struct json j;

	json_document_begin(&j, out, RUN_CHECK_JSON_VERSION);
	json_array_begin(&j, "command");
	for (char **a = c->cmd; *a; a++)
		json_string(&j, NULL, *a);
	json_array_end(&j);
	if (c->source)
		json_string(&j, "source", splitlock_count_source_name(c->source));
	else
		json_null(&j, "source");
	json_bool(&j, "exact", c->exact);
	json_string(&j, "reason", c->reason);
	json_count(&j, c, "split_locks", SPLITLOCK_KIND_SPLIT_LOCK);
	json_count(&j, c, "bus_locks", SPLITLOCK_KIND_BUS_LOCK);
	if (c->source)
		json_uint(&j, "total", run_check_total(c));
	else
		json_null(&j, "total");
	json_uint(&j, "max", c->max);
	json_bool(&j, "started", c->cmd_status >= 0);
	if (c->cmd_status >= 0)
		json_int(&j, "exit_status", c->cmd_status);
	else
		json_null(&j, "exit_status");
	json_bool(&j, "outlived", c->leftovers);
	json_bool(&j, "passed", run_check_passed(c));
	json_tasks(&j, c);
	json_object_end(&j);
	json_finish(&j);
}

/* The length of the valid UTF-8 sequence at @s (1-4), or 0. */
static size_t utf8_length(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		   (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (n == 2 && s[0] < 0xc2)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		/* XML is UTF-8 here: a byte that is not is written as \xNN. */
		if (ch >= 0x80) {
			size_t n = utf8_length((const unsigned char *)s);

			if (n == 0) {
				fprintf(out, "\\x%02x", ch);
			} else {
				fwrite(s, 1, n, out);
				s += n - 1;
			}
			continue;
		}

		switch (ch) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* XML 1.0 allows no control characters but tab and newlines. */
			if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
				fprintf(out, "\\x%02x", ch);
			else
				fputc(ch, out);
		}
	}
}

/* A task name in a sentence (plain, control bytes escaped as the kernel
 * log does) or in XML text. */
static void xml_text_or_plain(FILE *out, const char *s, bool xml)
{
	if (xml) {
		xml_text(out, s);
		return;
	}
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
}

static void xml_command(FILE *out, char **cmd)
{
	for (char **a = cmd; *a; a++) {
		if (a != cmd)
			fputc(' ', out);
		xml_text(out, *a);
	}
}

static void xml_property(FILE *out, const char *name, const char *value)
{
	fprintf(out, "      <property name=\"%s\" value=\"", name);
	xml_text(out, value);
	fputs("\"/>\n", out);
}

static void say_tasks(const struct run_check *c, FILE *out, const char *indent);

static void report_junit(const struct run_check *c, FILE *out)
{
	bool error = !c->source || c->cmd_status != 0;
	bool failure = !error && !run_check_passed(c);
	char n[32];

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<testsuites name=\"slctl run --check\" tests=\"1\" failures=\"%d\" "
		"errors=\"%d\">\n", failure, error);
	fprintf(out, "  <testsuite name=\"split locks\" tests=\"1\" failures=\"%d\" "
		"errors=\"%d\">\n", failure, error);
	fputs("    <properties>\n", out);
	xml_property(out, "source", c->source ? splitlock_count_source_name(c->source) : "none");
	xml_property(out, "exact", c->exact ? "true" : "false");
	for (int k = 0; k < 2; k++) {
		snprintf(n, sizeof(n), "%llu", (unsigned long long)c->count[k]);
		xml_property(out, k == SPLITLOCK_KIND_SPLIT_LOCK ? "split_locks" : "bus_locks",
			     c->counted[k] ? n : "not counted");
	}
	snprintf(n, sizeof(n), "%llu", (unsigned long long)c->max);
	xml_property(out, "max", n);
	fputs("    </properties>\n", out);
	fputs("    <testcase classname=\"slctl.run.check\" name=\"", out);
	xml_command(out, c->cmd);
	fputs("\">\n", out);
	if (!c->source) {
		fputs("      <error type=\"not_counted\" message=\"", out);
		xml_text(out, c->reason);
		fputs("\"/>\n", out);
	} else if (c->cmd_status < 0) {
		fputs("      <error type=\"not_started\" message=\"the command was not "
		      "started\"/>\n", out);
	} else if (c->cmd_status != 0) {
		fprintf(out, "      <error type=\"exit_status\" message=\"the command "
			"ended with status %d\"/>\n", c->cmd_status);
	} else if (failure) {
		fprintf(out, "      <failure type=\"split_lock\" message=\"%llu split locks "
			"and bus locks, more than the %llu allowed\">",
			(unsigned long long)run_check_total(c), (unsigned long long)c->max);
		say_tasks(c, out, "");
		fputs("</failure>\n", out);
	}
	fputs("    </testcase>\n  </testsuite>\n</testsuites>\n", out);
}

void run_check_report(const struct run_check *c, enum run_report_format format, FILE *out)
{
	if (format == RUN_REPORT_JUNIT)
		report_junit(c, out);
	else
		report_json(c, out);
}

int run_report_file_open(struct run_report_file *f, const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	const char *base;
	mode_t mask;
	struct stat st;
	int r;

	*f = (struct run_report_file){ .fd = -1 };
	if (!copy)
		return -ENOMEM;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return -EISDIR;
	if (asprintf(&f->tmp, "%s/.%s.XXXXXX", dirname(copy), base) < 0) {
		f->tmp = NULL;
		return -ENOMEM;
	}
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0) {
		r = -errno;
		free(f->tmp);
		f->tmp = NULL;
		return r;
	}
	/* mkostemp() makes 0600; a report is as readable as any new file. */
	mask = umask(0);
	umask(mask);
	if (fchmod(f->fd, 0666 & ~mask) < 0) {
		r = -errno;
		run_report_file_abandon(f);
		return r;
	}
	f->path = path;
	return 0;
}

void run_report_file_abandon(struct run_report_file *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		unlink(f->tmp);
	}
	free(f->tmp);
	*f = (struct run_report_file){ .fd = -1 };
}

int run_report_file_commit(struct run_report_file *f, const struct run_check *c,
			   enum run_report_format format)
{
	FILE *out = fdopen(f->fd, "w");
	int r = 0;

	if (!out) {
		r = -errno;
		run_report_file_abandon(f);
		return r;
	}
	f->fd = -1;
	run_check_report(c, format, out);
	if (fflush(out) != 0 || ferror(out) || fsync(fileno(out)) < 0)
		r = errno ? -errno : -EIO;
	if (fclose(out) != 0 && !r)
		r = -errno;
	if (!r && rename(f->tmp, f->path) < 0)
		r = -errno;
	if (r)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
	return r;
}

/* "comm/pid: N split locks, M bus locks at 0x..." a line each, as many as
 * a log should hold; "and N more tasks" after. */
static void say_tasks(const struct run_check *c, FILE *out, const char *indent)
{
	enum { SHOWN = 10 };
	uint64_t lost;
	size_t n;

	if (!c->count_obj || splitlock_count_get_tasks(c->count_obj, &n, &lost) < 0)
		return;
	for (size_t i = 0; i < n && i < SHOWN; i++) {
		const uint64_t *ips;
		const char *comm;
		uint64_t split, bus;
		uint32_t pid;
		size_t nips;

		if (splitlock_count_get_task(c->count_obj, i, &pid, &comm, &split, &bus) < 0 ||
		    splitlock_count_get_task_ips(c->count_obj, i, &ips, &nips, NULL) < 0)
			continue;
		fprintf(out, "%s", indent);
		xml_text_or_plain(out, comm ? comm : "?", out != stderr);
		fprintf(out, "/%" PRIu32 ": %" PRIu64 " split locks, %" PRIu64 " bus locks at",
			pid, split, bus);
		for (size_t k = 0; k < nips; k++)
			fprintf(out, "%s 0x%" PRIx64, k ? "," : "", ips[k]);
		fputc('\n', out);
	}
	if (n > SHOWN)
		fprintf(out, "%sand %zu more tasks\n", indent, n - SHOWN);
	if (lost)
		fprintf(out, "%s(the kernel's buffer lost %llu records of tasks: their counts "
			"fall short of the totals)\n", indent, (unsigned long long)lost);
}

void run_check_say(const struct run_check *c)
{
	const char *what = c->exact ? "" : "at least ";

	if (!c->source || c->cmd_status < 0)
		return;
	if (c->cmd_status != 0)
		fprintf(stderr, "%s: %s ended with status %d; ", program_invocation_short_name,
			c->cmd[0], c->cmd_status);
	else
		fprintf(stderr, "%s: %s: ", program_invocation_short_name,
			run_check_passed(c) ? "passed" : "FAILED");
	/* CMD never started (it could not be executed): no count at all. */
	if (!c->counted[SPLITLOCK_KIND_SPLIT_LOCK] && !c->counted[SPLITLOCK_KIND_BUS_LOCK]) {
		fputs("nothing was counted.\n", stderr);
		return;
	}
	fprintf(stderr, "%s%llu split locks and bus locks (", what,
		(unsigned long long)run_check_total(c));
	if (c->counted[SPLITLOCK_KIND_SPLIT_LOCK])
		fprintf(stderr, "%llu split locks", (unsigned long long)c->count[0]);
	if (c->counted[0] && c->counted[1])
		fputs(", ", stderr);
	if (c->counted[SPLITLOCK_KIND_BUS_LOCK])
		fprintf(stderr, "%llu bus locks", (unsigned long long)c->count[1]);
	fprintf(stderr, "), %llu allowed; %s.\n", (unsigned long long)c->max, c->reason);
	if (c->leftovers)
		fprintf(stderr, "%s: processes %s started outlived it; slctl waited for them, "
			"and their split locks are in the count.\n", program_invocation_short_name,
			c->cmd[0]);
	if (run_check_total(c) > 0)
		say_tasks(c, stderr, "  ");
}
