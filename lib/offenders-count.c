/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boot-wide totals of the detector's log lines, for status views. */
#include <errno.h>
#include <inttypes.h>

#include "internal.h"

struct totals {
	uint64_t events, suppressed;
};

static bool contains(const char *msg, size_t len, const char *needle)
{
	return memmem(msg, len, needle, strlen(needle)) != NULL;
}

static int count_record(const struct splitlock_kmsg_record *rec, void *data)
{
	static const char *const event_markers[] = {
		" took a split_lock trap at address",
		" took a bus_lock trap at address",
		" fatal split_lock trap at address",
		" bogus split_lock trap at address",
		" trap alignment check ",
	};
	static const char *const suppress_prefixes[] = {
		"split_lock_warn: ", "handle_user_split_lock: ", "handle_bus_lock: ",
	};
	struct totals *t = data;

	if (rec->facility != 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(event_markers); i++)
		if (contains(rec->message, rec->message_len, event_markers[i])) {
			t->events++;
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(suppress_prefixes); i++) {
		unsigned long long n;
		int used = 0;

		if (!startswith(rec->message, suppress_prefixes[i]))
			continue;
		if (sscanf(rec->message + strlen(suppress_prefixes[i]),
			   "%llu callbacks suppressed%n", &n, &used) == 1 && used > 0)
			t->suppressed += n;
		return 0;
	}
	return 0;
}

_public_ int splitlock_offenders_count(struct splitlock_ctx *ctx,
				       uint64_t *events, uint64_t *suppressed)
{
	struct totals t = { 0 };
	int r = splitlock_kmsg_foreach(ctx, count_record, &t);

	if (r < 0)
		return r;
	*events = t.events;
	*suppressed = t.suppressed;
	return 0;
}
