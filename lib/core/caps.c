/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Capabilities checked before acting, so a user learns what is missing. */
#include <errno.h>
#include <sys/capability.h>

#include "core/internal.h"

static const struct {
	cap_value_t value;
	const char *name;
} caps[] = {
	[SPLITLOCK_CAP_SYS_ADMIN] = { CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	[SPLITLOCK_CAP_SYSLOG] = { CAP_SYSLOG, "CAP_SYSLOG" },
	[SPLITLOCK_CAP_SYS_RAWIO] = { CAP_SYS_RAWIO, "CAP_SYS_RAWIO" },
	[SPLITLOCK_CAP_SYS_MODULE] = { CAP_SYS_MODULE, "CAP_SYS_MODULE" },
	[SPLITLOCK_CAP_DAC_OVERRIDE] = { CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE" },
};

_public_ int splitlock_have_capability(enum splitlock_cap cap)
{
	cap_flag_value_t on = CAP_CLEAR;
	cap_t state;

	if ((size_t)cap >= ARRAY_SIZE(caps))
		return -EINVAL;
	state = cap_get_proc();
	if (!state)
		return -errno;
	if (cap_get_flag(state, caps[cap].value, CAP_EFFECTIVE, &on) < 0) {
		int r = -errno;

		cap_free(state);
		return r;
	}
	cap_free(state);
	return on == CAP_SET;
}

_public_ const char *splitlock_capability_name(enum splitlock_cap cap)
{
	if ((size_t)cap >= ARRAY_SIZE(caps))
		return NULL;
	return caps[cap].name;
}
