/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The effective detection mode of the running kernel, from the best source
 * available: the patched kernel's sysfs file; the detector's boot line; the
 * boot parameter; the kernel's default. Only the first two are read from the
 * kernel itself; the others are inferences and flagged as guesses.
 */
#include <errno.h>

#include "core/internal.h"
#include "message.h"

struct splitlock_mode_info {
	enum splitlock_mode mode;
	unsigned ratelimit;
	enum splitlock_mode_source source;
	bool guess;
	char *evidence;
};

struct boot_line_search {
	enum splitlock_mode mode;
	unsigned ratelimit;
	char *line;
};

static int find_boot_line(const struct splitlock_kmsg_record *rec, void *data)
{
	struct boot_line_search *s = data;
	enum splitlock_mode mode;
	unsigned rate;

	/* User space can write to /dev/kmsg: only the kernel's word counts. */
	if (rec->facility != 0)
		return 0;
	if (!splitlock_mode_from_boot_line(rec->message, &mode, &rate))
		return 0;
	free(s->line);
	s->line = strdup(rec->message);
	if (!s->line)
		return -ENOMEM;
	s->mode = mode;
	s->ratelimit = rate;
	/* Printed once at boot; a later one would mean a log from elsewhere. */
	return 1;
}

static int from_sysfs(struct splitlock_ctx *ctx, struct splitlock_mode_info *info)
{
	char buf[64];
	int r = sl_read_line(ctx, SL_SYSFS_MODE, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (splitlock_mode_parse(buf, &info->mode, &info->ratelimit) < 0) {
		sl_warn(ctx, SL_SYSFS_MODE " holds an unknown mode '%s'", buf);
		return -EBADMSG;
	}
	info->source = SPLITLOCK_SOURCE_SYSFS;
	info->evidence = strdup(buf);
	return info->evidence ? 0 : -ENOMEM;
}

static int from_boot_log(struct splitlock_ctx *ctx,
			 struct splitlock_mode_info *info)
{
	struct boot_line_search s = { 0 };
	int r = splitlock_kmsg_foreach(ctx, find_boot_line, &s);

	if (r < 0) {
		free(s.line);
		sl_dbg(ctx, "kernel log not readable: %s", errno_text(r));
		return r;
	}
	if (!s.line)
		return -ENOENT;
	info->mode = s.mode;
	info->ratelimit = s.ratelimit;
	info->source = SPLITLOCK_SOURCE_BOOT_LOG;
	info->evidence = s.line;
	return 0;
}

static int from_cmdline(struct splitlock_ctx *ctx,
			struct splitlock_mode_info *info, bool patched)
{
	_cleanup_free_ char *cmdline = NULL;
	int r = sl_read_file(ctx, "/proc/cmdline", 64 * 1024, &cmdline, NULL);

	if (r < 0)
		return r;
	if (!splitlock_mode_from_cmdline(cmdline, &info->mode, &info->ratelimit))
		return -ENOENT;
	/* Only the patched kernel knows seq; a stock one reads it as warn. */
	if (info->mode == SPLITLOCK_MODE_SEQ && !patched)
		info->mode = SPLITLOCK_MODE_WARN;
	info->source = SPLITLOCK_SOURCE_CMDLINE;
	info->guess = true;
	info->evidence = strdup(cmdline);
	if (info->evidence)
		info->evidence[strcspn(info->evidence, "\n")] = '\0';
	return info->evidence ? 0 : -ENOMEM;
}

_public_ int splitlock_mode_info_read(struct splitlock_ctx *ctx,
				      struct splitlock_mode_info **out)
{
	struct splitlock_mode_info *info;
	unsigned cpu = 0, ifaces = 0;
	bool can_detect;
	int r;

	*out = NULL;
	info = calloc(1, sizeof(*info));

	if (!info)
		return -ENOMEM;
	r = from_sysfs(ctx, info);
	if (r == 0)
		goto done;
	r = from_boot_log(ctx, info);
	if (r == 0)
		goto done;

	splitlock_kernel_interfaces(ctx, &ifaces);
	r = splitlock_cpu_features(ctx, &cpu);
	can_detect = cpu & (SPLITLOCK_CPU_SPLIT_LOCK_DETECT |
			    SPLITLOCK_CPU_BUS_LOCK_DETECT);
	if (r == 0 && !can_detect) {
		/* The kernel ignores the parameter when the CPU cannot trap. */
		info->mode = SPLITLOCK_MODE_OFF;
		info->source = SPLITLOCK_SOURCE_DEFAULT;
		info->evidence = strdup(cpu & SPLITLOCK_CPU_HYPERVISOR ?
			"the virtual CPU offers neither split_lock_detect nor bus_lock_detect" :
			"the CPU offers neither split_lock_detect nor bus_lock_detect");
		r = info->evidence ? 0 : -ENOMEM;
		goto done;
	}
	r = from_cmdline(ctx, info, ifaces & SPLITLOCK_KERNEL_SYSFS);
	if (r == 0 || r == -ENOMEM)
		goto done;
	/* No log line and no parameter: the built-in default, warn. */
	info->mode = SPLITLOCK_MODE_WARN;
	info->source = SPLITLOCK_SOURCE_DEFAULT;
	info->guess = true;
	info->evidence = NULL;
	r = 0;
done:
	if (r < 0) {
		splitlock_mode_info_free(info);
		return r;
	}
	*out = info;
	return 0;
}

_public_ struct splitlock_mode_info *
splitlock_mode_info_free(struct splitlock_mode_info *info)
{
	if (info) {
		free(info->evidence);
		free(info);
	}
	return NULL;
}

_public_ enum splitlock_mode
splitlock_mode_info_get_mode(const struct splitlock_mode_info *info)
{
	return info->mode;
}

_public_ unsigned
splitlock_mode_info_get_ratelimit(const struct splitlock_mode_info *info)
{
	return info->ratelimit;
}

_public_ enum splitlock_mode_source
splitlock_mode_info_get_source(const struct splitlock_mode_info *info)
{
	return info->source;
}

_public_ bool splitlock_mode_info_is_guess(const struct splitlock_mode_info *info)
{
	return info->guess;
}

_public_ const char *
splitlock_mode_info_get_evidence(const struct splitlock_mode_info *info)
{
	return info->evidence;
}
