/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probe's own events in an offenders report. */
#include "core/internal.h"

_public_ bool splitlock_offender_is_probe(const struct splitlock_offender *o)
{
	size_t len;
	const char *comm = splitlock_offender_get_comm(o, &len);

	/* The kernel prints the comm as the probe set it (prctl). */
	return comm && len == strlen(SPLITLOCK_PROBE_COMM) &&
	       memcmp(comm, SPLITLOCK_PROBE_COMM, len) == 0;
}
