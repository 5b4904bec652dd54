/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a report holds, for programs: counts, reasons, its offenders. */
#include "name-table.h"
#include "offenders/offenders.h"

/* enum splitlock_forged: the JSON keys of a report's "forged_by". */
static const char *const forged_names[] = {
	[SPLITLOCK_FORGED_USER_SPACE] = "user_space",
	[SPLITLOCK_FORGED_FURTHER_LINE] = "further_line",
	[SPLITLOCK_FORGED_LEVEL] = "level",
};
_Static_assert(ARRAY_SIZE(forged_names) == SL_FORGED_REASONS, "a name for every reason");

_public_ enum splitlock_input_format
splitlock_offenders_get_input_format(const struct splitlock_offenders *r)
{
	return r->format;
}

_public_ uint64_t splitlock_offenders_get_events(const struct splitlock_offenders *r)
{
	return r->events;
}

_public_ uint64_t splitlock_offenders_get_suppressed(const struct splitlock_offenders *r)
{
	return r->suppressed;
}

_public_ uint64_t splitlock_offenders_get_malformed(const struct splitlock_offenders *r)
{
	return r->unread.lines;
}

_public_ uint64_t splitlock_offenders_get_unrecognized(const struct splitlock_offenders *r,
						       uint64_t *first_line)
{
	if (first_line)
		*first_line = r->unread.first_line;
	return r->unread.lines;
}

_public_ uint64_t splitlock_offenders_get_alignment_checks(const struct splitlock_offenders *r)
{
	return r->alignment_checks;
}

_public_ uint64_t splitlock_offenders_get_forged(const struct splitlock_offenders *r)
{
	return r->forged;
}

_public_ uint64_t splitlock_offenders_get_forged_by(const struct splitlock_offenders *r,
						     enum splitlock_forged reason)
{
	return (unsigned)reason < SL_FORGED_REASONS ? r->forged_by[reason] : 0;
}

/* enum splitlock_unread: the JSON keys of a report's "unrecognized_by". */
static const char *const unread_names[] = {
	[SPLITLOCK_UNREAD_UNPARSED] = "unparsed",
	[SPLITLOCK_UNREAD_HIDDEN] = "hidden",
	[SPLITLOCK_UNREAD_WRITER_UNKNOWN] = "writer_unknown",
	[SPLITLOCK_UNREAD_MODE_UNKNOWN] = "mode_unknown",
	[SPLITLOCK_UNREAD_KILLS_SUPPRESSED] = "kills_suppressed",
	[SPLITLOCK_UNREAD_BURST_USED_UP] = "burst_used_up",
	[SPLITLOCK_UNREAD_CUT] = "cut",
	[SPLITLOCK_UNREAD_LOST] = "lost",
};
/* A reason added to the enum needs its name and its counter. */
_Static_assert(ARRAY_SIZE(unread_names) == ARRAY_SIZE(((struct sl_unread *)0)->by),
	       "every unread reason has a name and a count");

_public_ uint64_t splitlock_offenders_get_unrecognized_by(const struct splitlock_offenders *r,
							  enum splitlock_unread reason)
{
	return (unsigned)reason < ARRAY_SIZE(r->unread.by) ? r->unread.by[reason] : 0;
}

_public_ const char *splitlock_unread_name(enum splitlock_unread reason)
{
	return (unsigned)reason < ARRAY_SIZE(unread_names) ? unread_names[reason] : NULL;
}

_public_ const char *splitlock_forged_name(enum splitlock_forged reason)
{
	return (unsigned)reason < ARRAY_SIZE(forged_names) ? forged_names[reason] : NULL;
}

_public_ uint64_t splitlock_offenders_get_undated(const struct splitlock_offenders *r)
{
	return r->undated;
}

_public_ uint64_t splitlock_offenders_get_maybe_repeated(const struct splitlock_offenders *r)
{
	return r->maybe_repeated;
}

_public_ size_t splitlock_offenders_get_count(const struct splitlock_offenders *r)
{
	return r->n;
}

_public_ const struct splitlock_offender *
splitlock_offenders_get(const struct splitlock_offenders *r, size_t index)
{
	return index < r->n ? r->list[index] : NULL;
}

_public_ const char *splitlock_offender_get_comm(const struct splitlock_offender *o,
						 size_t *len)
{
	if (len)
		*len = o->comm_mixed ? 0 : o->comm_len;
	return o->comm_mixed ? NULL : o->key + o->key_len;
}

_public_ uint32_t splitlock_offender_get_pid(const struct splitlock_offender *o) { return o->pid; }
_public_ uint32_t splitlock_offender_get_tgid(const struct splitlock_offender *o) { return o->tgid; }
_public_ enum splitlock_kind splitlock_offender_get_kind(const struct splitlock_offender *o) { return (enum splitlock_kind)o->kind; }
_public_ enum splitlock_action splitlock_offender_get_action(const struct splitlock_offender *o) { return (enum splitlock_action)o->action; }
_public_ uint64_t splitlock_offender_get_events(const struct splitlock_offender *o) { return o->events; }
_public_ int64_t splitlock_offender_get_first_seen(const struct splitlock_offender *o) { return o->first_seen; }
_public_ int64_t splitlock_offender_get_last_seen(const struct splitlock_offender *o) { return o->last_seen; }
_public_ int64_t splitlock_offender_get_first_wall(const struct splitlock_offender *o) { return o->first_wall; }
_public_ int64_t splitlock_offender_get_last_wall(const struct splitlock_offender *o) { return o->last_wall; }
_public_ size_t splitlock_offender_get_ip_count(const struct splitlock_offender *o) { return o->n_ips; }

_public_ const char *splitlock_offender_get_ip(const struct splitlock_offender *o,
					       size_t index)
{
	const char *p = o->ipbuf;

	if (index >= o->n_ips)
		return NULL;
	while (index--)
		p += strlen(p) + 1;
	return p;
}

_public_ int splitlock_offender_get_kernel_traps(const struct splitlock_offender *o,
						 uint64_t *traps)
{
	if (o->kernel_traps < 0)
		return -ENODATA;
	*traps = (uint64_t)o->kernel_traps;
	return 0;
}

_public_ const char *splitlock_offender_get_exe(const struct splitlock_offender *o) { return o->exe; }
_public_ const char *splitlock_offender_get_cmdline(const struct splitlock_offender *o) { return o->cmdline; }
_public_ const char *splitlock_offender_get_unit(const struct splitlock_offender *o) { return o->unit; }
_public_ const char *splitlock_offender_get_container(const struct splitlock_offender *o) { return o->container; }

static const struct name_table group_names[] = {
	{ SPLITLOCK_GROUP_TASK, "task" },
	{ SPLITLOCK_GROUP_PROCESS, "process" },
	{ SPLITLOCK_GROUP_COMM, "comm" },
	{ SPLITLOCK_GROUP_EXE, "exe" },
	{ SPLITLOCK_GROUP_UNIT, "unit" },
};

_public_ DEFINE_NAME_TABLE_PARSE(splitlock_group_parse, group_names, enum splitlock_group)

_public_ const char *splitlock_group_name(enum splitlock_group group)
{
	return NAME_TABLE_NAME(group_names, group);
}

struct splitlock_ctx *sl_offenders_ctx(const struct splitlock_offenders *r)
{
	return r->ctx;
}
