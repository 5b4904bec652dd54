/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The leases as status shows them: who holds one, for which run, since
 * when, whether it lives, and what slctl owes back. Read under the lease
 * directory's lock, changing nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include "dir-list.h"
#include "run/lease.h"

_public_ int splitlock_leases_read(struct splitlock_ctx *ctx, struct splitlock_leases **out)
{
	struct splitlock_leases *l;
	struct lease_dir ld;
	char **names = NULL, boot[BOOT_ID_SIZE];
	int n, r;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->saved = -1;
	r = sl_boot_id(ctx, boot, sizeof(boot));
	if (r == 0)
		r = sl_lease_dir_open(ctx, false, &ld);
	if (r == -ENOENT) {
		*out = l;
		return 0;
	}
	if (r < 0) {
		free(l);
		return r;
	}
	n = sl_lease_list(ld.dir, &names);
	if (n > 0) {
		l->entries = calloc((size_t)n, sizeof(*l->entries));
		if (!l->entries)
			n = -ENOMEM;
	}
	for (int i = 0; n > 0 && i < n; i++) {
		struct lease_entry *e = &l->entries[l->count];

		sl_lease_parse_name(names[i], &e->holder, &e->start);
		e->run = e->holder;
		e->uid = UINT32_MAX;
		e->since = SPLITLOCK_TIME_UNKNOWN;
		if (sl_lease_read_entry(ld.dir, names[i], e) < 0)
			continue; /* gone since the listing: dropped */
		e->live = sl_lease_alive(ctx, ld.dir, names[i], e, boot);
		l->count++;
	}
	if (n >= 0 && sl_lease_read_saved(ld.dir, boot, &l->saved) < 0)
		l->saved = -1;
	sl_lease_dir_close(&ld);
	if (n > 0)
		dir_list_free(names, (size_t)n);
	if (n < 0) {
		splitlock_leases_free(l);
		return n;
	}
	*out = l;
	return 0;
}

_public_ struct splitlock_leases *splitlock_leases_free(struct splitlock_leases *leases)
{
	if (leases) {
		free(leases->entries);
		free(leases);
	}
	return NULL;
}

_public_ size_t splitlock_leases_get_count(const struct splitlock_leases *leases)
{
	return leases->count;
}

_public_ int splitlock_leases_get(const struct splitlock_leases *leases, size_t index,
				  uint32_t *holder_pid, uint32_t *run_pid, uint32_t *uid,
				  int64_t *since, bool *live)
{
	const struct lease_entry *e;

	if (index >= leases->count)
		return -ERANGE;
	e = &leases->entries[index];
	if (holder_pid)
		*holder_pid = e->holder;
	if (run_pid)
		*run_pid = e->run;
	if (uid)
		*uid = e->uid;
	if (since)
		*since = e->since;
	if (live)
		*live = e->live;
	return 0;
}

_public_ int splitlock_leases_get_saved(const struct splitlock_leases *leases, int *value)
{
	if (leases->saved < 0)
		return -ENODATA;
	*value = leases->saved;
	return 0;
}
