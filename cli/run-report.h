/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLCTL_RUN_REPORT_H
#define SLCTL_RUN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libsplitlock.h"

enum run_report_format { RUN_REPORT_JSON, RUN_REPORT_JUNIT };

/* What `slctl run --check` found, for its report. */
struct run_check {
	char **cmd;                         /* CMD and its arguments */
	enum splitlock_count_source source; /* 0: nothing could count */
	bool exact;
	const char *reason;                 /* the count's sentence */
	bool counted[2];                    /* by enum splitlock_kind */
	uint64_t count[2];
	uint64_t max;
	int cmd_status;                     /* CMD's exit status; -1: not run */
	const struct splitlock_count *count_obj; /* its tasks; NULL: not run */
	bool leftovers;                     /* processes outlived CMD, waited for */
};

/* A report file made before CMD runs (a path that cannot take it fails
 * first), renamed into place whole once written. */
struct run_report_file {
	int fd;
	char *tmp;
	const char *path;
};

int run_report_file_open(struct run_report_file *f, const char *path);
int run_report_file_commit(struct run_report_file *f, const struct run_check *c,
			   enum run_report_format format);
void run_report_file_abandon(struct run_report_file *f);

uint64_t run_check_total(const struct run_check *c);
bool run_check_passed(const struct run_check *c);
/* The report in @format on @out. */
void run_check_report(const struct run_check *c, enum run_report_format format, FILE *out);
/* The sentence on stderr. */
void run_check_say(const struct run_check *c);

#endif
