/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel log record as programs see it: opaque, with a getter per
 * member, so that a member added later breaks no program (public-types.h).
 */
#include <errno.h>

#include "core/internal.h"

_public_ int splitlock_kmsg_record_new(struct splitlock_kmsg_record **rec)
{
	*rec = calloc(1, sizeof(**rec));
	if (!*rec)
		return -ENOMEM;
	(*rec)->message = "";
	return 0;
}

_public_ struct splitlock_kmsg_record *
splitlock_kmsg_record_free(struct splitlock_kmsg_record *rec)
{
	free(rec);
	return NULL;
}

_public_ int splitlock_kmsg_record_get_facility(const struct splitlock_kmsg_record *rec)
{
	return rec->facility;
}

_public_ int splitlock_kmsg_record_get_level(const struct splitlock_kmsg_record *rec)
{
	return rec->level;
}

_public_ uint64_t splitlock_kmsg_record_get_seq(const struct splitlock_kmsg_record *rec)
{
	return rec->seq;
}

_public_ uint64_t splitlock_kmsg_record_get_usec(const struct splitlock_kmsg_record *rec)
{
	return rec->usec;
}

_public_ const char *
splitlock_kmsg_record_get_message(const struct splitlock_kmsg_record *rec, size_t *len)
{
	if (len)
		*len = rec->message_len;
	return rec->message;
}
