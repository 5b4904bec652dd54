/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A parsed detector line as programs see it (detector-line.c parses):
 * opaque, with a getter per member, so that a member added later breaks
 * no program (public-types.h).
 */
#include <errno.h>

#include "core/internal.h"

_public_ int splitlock_event_new(struct splitlock_event **ev)
{
	*ev = calloc(1, sizeof(**ev));
	return *ev ? 0 : -ENOMEM;
}

_public_ struct splitlock_event *splitlock_event_free(struct splitlock_event *ev)
{
	free(ev);
	return NULL;
}

_public_ enum splitlock_kind splitlock_event_get_kind(const struct splitlock_event *ev)
{
	return ev->kind;
}

_public_ enum splitlock_action splitlock_event_get_action(const struct splitlock_event *ev)
{
	return ev->action;
}

_public_ const char *splitlock_event_get_comm(const struct splitlock_event *ev, size_t *len)
{
	if (len)
		*len = ev->comm_len;
	return ev->comm;
}

_public_ uint32_t splitlock_event_get_pid(const struct splitlock_event *ev)
{
	return ev->pid;
}

_public_ int splitlock_event_get_ip(const struct splitlock_event *ev, uint64_t *ip)
{
	if (!ev->has_ip)
		return -ENODATA;
	*ip = ev->ip;
	return 0;
}

_public_ const char *splitlock_event_get_object(const struct splitlock_event *ev,
						size_t *len)
{
	if (len)
		*len = ev->object ? ev->object_len : 0;
	return ev->object;
}

_public_ int splitlock_event_get_object_offset(const struct splitlock_event *ev,
					       uint64_t *offset)
{
	if (!ev->has_object_offset)
		return -ENODATA;
	*offset = ev->object_offset;
	return 0;
}

_public_ uint64_t splitlock_event_get_suppressed(const struct splitlock_event *ev)
{
	return ev->suppressed;
}
