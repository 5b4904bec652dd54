/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Switching the detection mode of the running kernel, through the patched
 * kernel's writable /sys/kernel/split_lock/mode (see SL_SYSFS_MODE). The
 * kernel ABI this is written against: root writes one mode word ("off",
 * "warn", "seq", "fatal", "ratelimit:N"); the kernel applies it on every
 * CPU and the file then reads back the new mode; leaving seq is refused
 * with EPERM. A kernel whose file is read-only (0444: the observability
 * patches without run-time control) or absent (a stock kernel) cannot
 * switch: the boot parameter is the only way there.
 *
 * A plan, like the mitigate plan: the refusal and its sentence are known
 * before anything is written, and applying reads the file back.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <sys/vfs.h>

#include "core/internal.h"
#include "message.h"

struct splitlock_mode_switch {
	struct splitlock_ctx *ctx;
	enum splitlock_mode mode;       /* requested */
	unsigned ratelimit;
	enum splitlock_mode previous;   /* read from the file when planned */
	unsigned previous_ratelimit;
	enum splitlock_mode current;    /* read back after applying */
	unsigned current_ratelimit;
	int refusal;
	char *error;
};

static int set_error(struct splitlock_mode_switch *sw, const char *format, ...)
	_printf_(2, 3);
static int set_error(struct splitlock_mode_switch *sw, const char *format, ...)
{
	va_list args;
	int r;

	va_start(args, format);
	r = message_vset(&sw->error, format, args);
	va_end(args);
	if (r == 0)
		sl_dbg(sw->ctx, "%s", sw->error);
	return r;
}

static int read_mode(struct splitlock_ctx *ctx, enum splitlock_mode *mode,
		     unsigned *ratelimit)
{
	char buf[64];
	int r = sl_read_line(ctx, SL_SYSFS_MODE, buf, sizeof(buf));

	if (r < 0)
		return r;
	*ratelimit = 0;
	if (splitlock_mode_parse(buf, mode, ratelimit) < 0)
		return -EBADMSG;
	return 0;
}

static const char *mode_word(enum splitlock_mode mode, unsigned rate, char *buf,
			     size_t size)
{
	return splitlock_mode_format(mode, rate, buf, size) < 0 ? "an unknown mode" : buf;
}

_public_ int splitlock_mode_switch_new(struct splitlock_ctx *ctx, enum splitlock_mode mode,
				       unsigned ratelimit,
				       struct splitlock_mode_switch **out)
{
	struct splitlock_mode_switch *sw;
	char word[32];
	int r;

	*out = NULL;
	/* Only what splitlock_mode_format() can print is a mode word. */
	if (mode == SPLITLOCK_MODE_UNKNOWN ||
	    splitlock_mode_format(mode, ratelimit, word, sizeof(word)) < 0)
		return -EINVAL;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->ctx = splitlock_ref(ctx);
	sw->mode = mode;
	sw->ratelimit = mode == SPLITLOCK_MODE_RATELIMIT ? ratelimit : 0;

	r = read_mode(ctx, &sw->previous, &sw->previous_ratelimit);
	if (r == -ENOENT) {
		sw->refusal = -EOPNOTSUPP;
		r = set_error(sw, "this kernel cannot switch the split-lock detection mode at "
			      "run time: it has no " SL_SYSFS_MODE);
	} else if (r < 0) {
		goto fail;
	} else if (!sl_mode_file_writable(ctx)) {
		sw->refusal = -EOPNOTSUPP;
		r = set_error(sw, "this kernel cannot switch the split-lock detection mode at "
			      "run time: its " SL_SYSFS_MODE " is read-only (a patched kernel "
			      "without run-time control)");
	} else if (sw->previous == SPLITLOCK_MODE_SEQ && mode != SPLITLOCK_MODE_SEQ) {
		/* The kernel refuses it too; saying so first keeps its EPERM apart
		 * from a missing privilege. */
		sw->refusal = -EPERM;
		r = set_error(sw, "the kernel runs in seq mode, which cannot be left at run time; "
			      "boot with another split_lock_detect= mode to leave it");
	}
	if (r < 0)
		goto fail;
	*out = sw;
	return 0;
fail:
	splitlock_mode_switch_free(sw);
	return r;
}

_public_ struct splitlock_mode_switch *
splitlock_mode_switch_free(struct splitlock_mode_switch *sw)
{
	if (sw) {
		splitlock_unref(sw->ctx);
		free(sw->error);
		free(sw);
	}
	return NULL;
}

_public_ int splitlock_mode_switch_get_refusal(const struct splitlock_mode_switch *sw)
{
	return sw->refusal;
}

_public_ const char *splitlock_mode_switch_get_error(const struct splitlock_mode_switch *sw)
{
	return sw->error;
}

_public_ enum splitlock_cap
splitlock_mode_switch_get_capability(const struct splitlock_mode_switch *sw)
{
	(void)sw;
	/* The store method asks for CAP_SYS_ADMIN, as the sysctl does. */
	return SPLITLOCK_CAP_SYS_ADMIN;
}

_public_ enum splitlock_mode
splitlock_mode_switch_get_previous(const struct splitlock_mode_switch *sw, unsigned *ratelimit)
{
	if (ratelimit)
		*ratelimit = sw->previous_ratelimit;
	return sw->previous;
}

_public_ enum splitlock_mode
splitlock_mode_switch_get_current(const struct splitlock_mode_switch *sw, unsigned *ratelimit)
{
	if (ratelimit)
		*ratelimit = sw->current_ratelimit;
	return sw->current;
}

static int write_word(struct splitlock_ctx *ctx, const char *line)
{
	_cleanup_close_ int fd = sl_open(ctx, SL_SYSFS_MODE, O_WRONLY | O_NOFOLLOW, 0);
	size_t len = strlen(line);
	struct statfs fs;
	ssize_t n;

	if (fd < 0)
		return fd;
	if (fstatfs(fd, &fs) < 0)
		return -errno;
	/* A saved or fake root: replace the file, as the kernel would show it. */
	if (fs.f_type != SYSFS_MAGIC)
		return sl_write_atomic(ctx, SL_SYSFS_MODE, line, len, 0644);
	/* sysfs takes one write; a short one would be a different word. */
	n = write(fd, line, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

_public_ int splitlock_mode_switch_apply(struct splitlock_mode_switch *sw)
{
	char want[32], got[32], line[34];
	int r;

	if (sw->refusal)
		return sw->refusal;
	splitlock_mode_format(sw->mode, sw->ratelimit, want, sizeof(want));
	snprintf(line, sizeof(line), "%s\n", want);
	r = write_word(sw->ctx, line);
	if (r == -EPERM) {
		bool arms_ac = sw->mode == SPLITLOCK_MODE_WARN || sw->mode == SPLITLOCK_MODE_SEQ ||
			       sw->mode == SPLITLOCK_MODE_FATAL;
		bool ac_off = sw->previous == SPLITLOCK_MODE_OFF ||
			      sw->previous == SPLITLOCK_MODE_RATELIMIT;

		/*
		 * Series v3 arms split lock #AC at run time only where the boot
		 * mode armed it; otherwise: planned before another writer put
		 * the kernel into seq, or no CAP_SYS_ADMIN.
		 */
		if (arms_ac && ac_off) {
			if (set_error(sw, "the kernel refused to switch to %s: it does not arm "
				      "split lock detection at run time where the boot mode did "
				      "not; boot with split_lock_detect=%s instead", want, want) < 0)
				return -ENOMEM;
		} else if (set_error(sw, "the kernel refused to switch to %s: it runs in seq mode "
				     "now, or this process lacks CAP_SYS_ADMIN", want) < 0) {
			return -ENOMEM;
		}
		return r;
	}
	if (r < 0) {
		if (set_error(sw, "cannot write %s to " SL_SYSFS_MODE ": %s", want,
			      errno_text(r)) < 0)
			return -ENOMEM;
		return r;
	}
	sl_info(sw->ctx, SL_SYSFS_MODE " set to %s", want);

	r = read_mode(sw->ctx, &sw->current, &sw->current_ratelimit);
	if (r < 0) {
		sw->current = SPLITLOCK_MODE_UNKNOWN;
		if (set_error(sw, "%s was written to " SL_SYSFS_MODE " but the file cannot be "
			      "read back: %s", want, errno_text(r)) < 0)
			return -ENOMEM;
		return -EIO;
	}
	if (sw->current != sw->mode || sw->current_ratelimit != sw->ratelimit) {
		if (set_error(sw, "%s was written to " SL_SYSFS_MODE " but it reads back as %s",
			      want, mode_word(sw->current, sw->current_ratelimit, got,
					      sizeof(got))) < 0)
			return -ENOMEM;
		return -EIO;
	}
	return 0;
}
