/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl offenders --format prometheus: the report as the text exposition format. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "offenders.h"

/*
 * A label value is the name as the table shows it (offenders_printable(), which can
 * be decoded back, so two names never share a value), then with Prometheus'
 * own escapes for \\ and ". A NUL is \x00, as in the table.
 */
static void prom_label(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || (c == '\\' && i + 1 < len && s[i + 1] == 'x'))
			printf("\\\\x%02x", c);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '"')
			fputs("\\\"", stdout);
		else
			putchar(c);
	}
}

/* By comm bytes, then kind: a series' groups (one per action) side by side. */
static int compare_series(const void *a, const void *b)
{
	const struct splitlock_offender *x = *(const struct splitlock_offender *const *)a;
	const struct splitlock_offender *y = *(const struct splitlock_offender *const *)b;
	size_t xl, yl;
	const char *xc = splitlock_offender_get_comm(x, &xl);
	const char *yc = splitlock_offender_get_comm(y, &yl);
	int c = memcmp(xc, yc, xl < yl ? xl : yl);

	if (c)
		return c;
	if (xl != yl)
		return xl < yl ? -1 : 1;
	return (int)splitlock_offender_get_kind(x) - (int)splitlock_offender_get_kind(y);
}

static bool same_series(const struct splitlock_offender *x, const struct splitlock_offender *y)
{
	return compare_series(&x, &y) == 0;
}

int offenders_print_prometheus(struct splitlock_ctx *ctx, const struct options *o,
			    const struct splitlock_offenders *r)
{
	size_t n = splitlock_offenders_get_count(r);
	const struct splitlock_offender **by = malloc((n ? n : 1) * sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		by[k] = splitlock_offenders_get(r, k);
	/* One series per (comm, kind): sort once and sum neighbours, so that
	 * the cost stays n log n however many offenders the log names. */
	qsort(by, n, sizeof(*by), compare_series);
	puts("# HELP splitlock_events_total Split-lock and bus-lock events in the kernel log, by command and kind.");
	puts("# TYPE splitlock_events_total counter");
	for (size_t k = 0; k < n;) {
		const struct splitlock_offender *a = by[k];
		size_t len;
		const char *comm = splitlock_offender_get_comm(a, &len);
		uint64_t sum = 0;

		for (; k < n && same_series(a, by[k]); k++)
			sum += splitlock_offender_get_events(by[k]);
		fputs("splitlock_events_total{comm=\"", stdout);
		prom_label(comm, len);
		printf("\",kind=\"%s\"} %" PRIu64 "\n",
		       splitlock_kind_name(splitlock_offender_get_kind(a)), sum);
	}
	free(by);
	puts("# HELP splitlock_suppressed_total Events the kernel's rate limit kept out of the log.");
	puts("# TYPE splitlock_suppressed_total counter");
	printf("splitlock_suppressed_total %" PRIu64 "\n", splitlock_offenders_get_suppressed(r));
	puts("# HELP splitlock_malformed_total Detector-like log lines that did not parse.");
	puts("# TYPE splitlock_malformed_total counter");
	printf("splitlock_malformed_total %" PRIu64 "\n", splitlock_offenders_get_malformed(r));
	/* Forged lines are the sign of someone forging: monitoring sees them. */
	puts("# HELP splitlock_forged_total Detector-like log lines ignored as not the "
	     "detector's, by reason.");
	puts("# TYPE splitlock_forged_total counter");
	for (int i = 0; splitlock_forged_name((enum splitlock_forged)i); i++)
		printf("splitlock_forged_total{reason=\"%s\"} %" PRIu64 "\n",
		       splitlock_forged_name((enum splitlock_forged)i),
		       splitlock_offenders_get_forged_by(r, (enum splitlock_forged)i));
	/* Always: a series that comes and goes with the options is no series. */
	puts("# HELP splitlock_undated_total Events a --since/--until window left out "
	     "because the log gives them no wall-clock time.");
	puts("# TYPE splitlock_undated_total counter");
	printf("splitlock_undated_total %" PRIu64 "\n", splitlock_offenders_get_undated(r));
	/* What makes a report incomplete, so that an alert need not parse
	 * stderr, which a timer's unit throws away. */
	puts("# HELP splitlock_unrecognized_total Log lines holding detector text that were "
	     "not read, by reason.");
	puts("# TYPE splitlock_unrecognized_total counter");
	for (int i = 0; splitlock_unread_name((enum splitlock_unread)i); i++)
		printf("splitlock_unrecognized_total{reason=\"%s\"} %" PRIu64 "\n",
		       splitlock_unread_name((enum splitlock_unread)i),
		       splitlock_offenders_get_unrecognized_by(r, (enum splitlock_unread)i));
	puts("# HELP splitlock_maybe_repeated_total Events counted that may be a saved "
	     "dump's repeat.");
	puts("# TYPE splitlock_maybe_repeated_total counter");
	printf("splitlock_maybe_repeated_total %" PRIu64 "\n",
	       splitlock_offenders_get_maybe_repeated(r));
	puts("# HELP splitlock_report_complete 1 when the report holds every event of the "
	     "log exactly (the \"complete\" of --json).");
	puts("# TYPE splitlock_report_complete gauge");
	printf("splitlock_report_complete %d\n", offenders_report_complete(r));
	if (o->input)
		return 0; /* a saved log says nothing about this machine's settings */

	{
		struct splitlock_mode_info *info = NULL;
		int mitigate;

		if (splitlock_mode_info_read(ctx, &info) == 0) {
			enum splitlock_mode mode = splitlock_mode_info_get_mode(info);
			const char *name;

			puts("# HELP splitlock_mode Detection mode of the running kernel (1: the current one).");
			puts("# TYPE splitlock_mode gauge");
			/* The library's modes, in its order. */
			for (int m = SPLITLOCK_MODE_OFF; (name = splitlock_mode_name((enum splitlock_mode)m)); m++)
				printf("splitlock_mode{mode=\"%s\"} %d\n", name, (int)mode == m);
			if (mode == SPLITLOCK_MODE_RATELIMIT) {
				puts("# HELP splitlock_ratelimit Bus locks per second allowed in ratelimit mode.");
				puts("# TYPE splitlock_ratelimit gauge");
				printf("splitlock_ratelimit %u\n", splitlock_mode_info_get_ratelimit(info));
			}
			splitlock_mode_info_free(info);
		}
		if (splitlock_mitigate_get(ctx, &mitigate) == 0) {
			puts("# HELP splitlock_mitigate Whether kernel.split_lock_mitigate (misery) is on.");
			puts("# TYPE splitlock_mitigate gauge");
			printf("splitlock_mitigate %d\n", mitigate);
		}
	}
	return 0;
}
