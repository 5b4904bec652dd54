/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/kmsg records saved to a file: one a line with " KEY=VALUE"
 * continuation lines, or NUL-separated (kmsg-nul; log-input.c splits the
 * lines either way). A record is parsed by splitlock_kmsg_parse_record()
 * (kmsg.c), the one reader of that form, which the live reader uses too.
 */
#include "log-format.h"

int sl_kmsg_line(struct sl_reader *rd, const char *line, size_t len)
{
	/* The record shows its level: held to the detector's, as in every
	 * form that shows it (offenders.c). */
	struct sl_log_record r = { .facility_known = true, .level_known = true,
				   .wall_usec = SPLITLOCK_TIME_UNKNOWN };

	/* Continuation lines carry the record's dictionary. */
	if (len == 0 || line[0] == ' ')
		return 0;
	if (splitlock_kmsg_parse_record(line, len, rd->decoded, &r.rec) < 0) {
		sl_reader_unrecognized(rd, line, len);
		return 0;
	}
	r.line = rd->line;
	r.mono_usec = r.rec.usec > INT64_MAX ? SPLITLOCK_TIME_UNKNOWN
					     : (int64_t)r.rec.usec;
	return rd->fn(&r, rd->data);
}
