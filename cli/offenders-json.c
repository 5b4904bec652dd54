/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl offenders --json: the report as one JSON document. */
#include <inttypes.h>
#include <stdio.h>

#include "offenders.h"

/* The "version" of the JSON report: raised when a key changes meaning. */
#define OFFENDERS_JSON_VERSION 1

static void json_time(struct json *j, const char *key, int64_t usec, bool wall)
{
	char buf[64];

	if (usec == SPLITLOCK_TIME_UNKNOWN) {
		json_null(j, key);
		return;
	}
	if (wall) {
		offenders_format_wall(usec, true, buf, sizeof(buf));
		json_string(j, key, buf);
	} else {
		offenders_format_mono(usec, buf, sizeof(buf));
		json_number(j, key, buf);
	}
}

/* 0: the group holds several tasks, so no one pid. */
static void json_pid(struct json *j, const char *key, uint32_t pid)
{
	if (pid)
		json_uint(j, key, pid);
	else
		json_null(j, key);
}

/* --output chooses JSON keys too: those of the columns named, as lsblk -J -o. */
static bool wanted(const struct options *o, int col)
{
	if (!o->cols_set)
		return true;
	for (size_t i = 0; i < o->n_cols; i++)
		if (o->cols[i] == col)
			return true;
	return false;
}

static void json_offender(struct json *j, const struct options *o,
			  const struct splitlock_offender *of)
{
	size_t len;
	const char *comm = splitlock_offender_get_comm(of, &len);

	json_object_begin(j, NULL);
	if (wanted(o, COL_COMM)) {
		if (comm)
			json_string_len(j, "comm", comm, len);
		else
			json_null(j, "comm");
	}
	if (wanted(o, COL_PID))
		json_pid(j, "pid", splitlock_offender_get_pid(of));
	if (wanted(o, COL_TGID)) {
		if (splitlock_offender_get_tgid(of))
			json_uint(j, "tgid", splitlock_offender_get_tgid(of));
		else
			json_null(j, "tgid");
	}
	if (wanted(o, COL_KIND))
		json_string(j, "kind", splitlock_kind_name(splitlock_offender_get_kind(of)));
	if (wanted(o, COL_ACTION)) {
		json_string(j, "action", splitlock_action_name(splitlock_offender_get_action(of)));
		json_bool(j, "probe", splitlock_offender_is_probe(of));
	}
	if (wanted(o, COL_EVENTS)) {
		json_uint(j, "events", splitlock_offender_get_events(of));
		json_kernel_traps(j, of);
	}
	if (wanted(o, COL_FIRST)) {
		json_time(j, "first_seen", splitlock_offender_get_first_seen(of), false);
		json_time(j, "first_seen_wall", splitlock_offender_get_first_wall(of), true);
	}
	if (wanted(o, COL_LAST)) {
		json_time(j, "last_seen", splitlock_offender_get_last_seen(of), false);
		json_time(j, "last_seen_wall", splitlock_offender_get_last_wall(of), true);
	}
	if (wanted(o, COL_IPS)) {
		json_array_begin(j, "ips");
		for (size_t i = 0; i < splitlock_offender_get_ip_count(of); i++)
			json_string(j, NULL, splitlock_offender_get_ip(of, i));
		json_array_end(j);
	}
	if (wanted(o, COL_EXE))
		json_string(j, "exe", splitlock_offender_get_exe(of));
	if (wanted(o, COL_CMDLINE))
		json_string(j, "cmdline", splitlock_offender_get_cmdline(of));
	if (wanted(o, COL_UNIT)) {
		json_string(j, "unit", splitlock_offender_get_unit(of));
		json_string(j, "container", splitlock_offender_get_container(of));
	}
	json_object_end(j);
}

void offenders_print_json(struct splitlock_ctx *ctx, const struct options *o,
		       const struct splitlock_offenders *r)
{
	struct kernel_counters counters;
	uint64_t first_line;
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	/* The document's schema: 1 since keys were first documented in full. */
	json_uint(&j, "version", OFFENDERS_JSON_VERSION);
	json_uint(&j, "events", splitlock_offenders_get_events(r));
	json_uint(&j, "suppressed", splitlock_offenders_get_suppressed(r));
	json_bool(&j, "complete", offenders_report_complete(r));
	json_uint(&j, "unrecognized", splitlock_offenders_get_unrecognized(r, &first_line));
	json_object_begin(&j, "unrecognized_by");
	for (int i = 0; splitlock_unread_name((enum splitlock_unread)i); i++)
		json_uint(&j, splitlock_unread_name((enum splitlock_unread)i),
			  splitlock_offenders_get_unrecognized_by(r, (enum splitlock_unread)i));
	json_object_end(&j);
	if (first_line)
		json_uint(&j, "first_unrecognized_line", first_line);
	else
		json_null(&j, "first_unrecognized_line");
	json_uint(&j, "alignment_checks", splitlock_offenders_get_alignment_checks(r));
	json_uint(&j, "malformed", splitlock_offenders_get_malformed(r));
	json_uint(&j, "forged", splitlock_offenders_get_forged(r));
	json_object_begin(&j, "forged_by");
	for (int i = 0; splitlock_forged_name((enum splitlock_forged)i); i++)
		json_uint(&j, splitlock_forged_name((enum splitlock_forged)i),
			  splitlock_offenders_get_forged_by(r, (enum splitlock_forged)i));
	json_object_end(&j);
	json_uint(&j, "undated", splitlock_offenders_get_undated(r));
	json_uint(&j, "maybe_repeated", splitlock_offenders_get_maybe_repeated(r));
	json_string(&j, "source", o->input ? "input" : "kmsg");
	json_string(&j, "input_format", o->input ? splitlock_input_format_name(
				    splitlock_offenders_get_input_format(r)) : NULL);
	json_string(&j, "group_by", splitlock_group_name(o->group));
	/* The patched kernel's own counts of the running boot: exact where the
	 * log lost lines to the rate limit. null for saved logs, stock kernels. */
	json_kernel_counters(&j, "kernel_counters",
			     !o->input && read_kernel_counters(ctx, &counters) == 0 ?
			     &counters : NULL);
	json_array_begin(&j, "offenders");
	for (size_t k = 0; k < offenders_shown(o, r); k++)
		json_offender(&j, o, splitlock_offenders_get(r, k));
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/* One line of --follow --json: a document of its own, with its version. */
void offenders_print_json_event(const struct splitlock_offender *of,
				const struct splitlock_kmsg_record *rec, const char *ip)
{
	size_t len;
	const char *comm = splitlock_offender_get_comm(of, &len);
	struct json j;
	char buf[64];

	json_init(&j, stdout);
	j.pretty = false;
	json_object_begin(&j, NULL);
	/* Each line is a document: it says its schema, as the report does. */
	json_uint(&j, "version", OFFENDERS_JSON_VERSION);
	offenders_format_mono((int64_t)splitlock_kmsg_record_get_usec(rec), buf, sizeof(buf));
	json_number(&j, "time", buf);
	if (comm)
		json_string_len(&j, "comm", comm, len);
	else
		json_null(&j, "comm");
	json_pid(&j, "pid", splitlock_offender_get_pid(of));
	json_string(&j, "kind", splitlock_kind_name(splitlock_offender_get_kind(of)));
	json_string(&j, "action", splitlock_action_name(splitlock_offender_get_action(of)));
	json_bool(&j, "probe", splitlock_offender_is_probe(of));
	json_string(&j, "ip", ip);
	json_string(&j, "exe", splitlock_offender_get_exe(of));
	json_string(&j, "cmdline", splitlock_offender_get_cmdline(of));
	json_string(&j, "unit", splitlock_offender_get_unit(of));
	json_uint(&j, "events", splitlock_offender_get_events(of));
	json_object_end(&j);
	json_finish(&j);
}
