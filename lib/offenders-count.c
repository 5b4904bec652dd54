/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boot-wide totals of the detector's log lines, for status views. */
#include <errno.h>

#include "internal.h"

_public_ int splitlock_offenders_count(struct splitlock_ctx *ctx,
				       uint64_t *events, uint64_t *suppressed)
{
	struct splitlock_offenders *report;
	int r = splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &report);

	if (r < 0)
		return r;
	r = splitlock_offenders_read_kmsg(report);
	if (r == 0) {
		*events = splitlock_offenders_get_events(report);
		*suppressed = splitlock_offenders_get_suppressed(report);
	}
	splitlock_offenders_unref(report);
	return r;
}
