/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel.split_lock_mitigate (Linux 6.2+): the running value, the value the
 * next boot applies, and the plan that changes one or both. The plan is the
 * twin of the boot plan: everything a front end shows before acting (the
 * refusal, the capability, the drop-in's new text, the file that would
 * still override it) is decided while planning, and applying reads back
 * what it did, so that a failure half way says what is changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <sys/vfs.h>

#include "core/internal.h"
#include "message.h"

#define MITIGATE_PATH "/proc/sys/kernel/split_lock_mitigate"
#define MITIGATE_KEY "kernel.split_lock_mitigate"

struct splitlock_mitigate_plan {
	struct splitlock_ctx *ctx;
	unsigned flags;
	int value;          /* requested */
	int previous;       /* running value when planned */
	int running;        /* read back after applying; -1 before */
	int refusal;        /* why applying is refused, or 0 */
	bool persisted;     /* the drop-in was written and read back */
	char *error;        /* sentence for the refusal or the failure */
	char *dropin;       /* the drop-in's text after applying (PERSIST) */
	char *override_file;
	unsigned override_line;
	char *override_value;
};

_public_ int splitlock_mitigate_get(struct splitlock_ctx *ctx, int *value)
{
	char buf[32];
	int r = sl_read_line(ctx, MITIGATE_PATH, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (streq(buf, "0"))
		*value = 0;
	else if (streq(buf, "1"))
		*value = 1;
	else
		return -EBADMSG;
	return 0;
}

_public_ int splitlock_mitigate_set(struct splitlock_ctx *ctx, int value)
{
	const char *text = value ? "1\n" : "0\n";
	_cleanup_close_ int fd = -1;
	struct statfs fs;
	ssize_t n;

	if (value != 0 && value != 1)
		return -EINVAL;
	fd = sl_open(ctx, MITIGATE_PATH, O_WRONLY | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	if (fstatfs(fd, &fs) < 0)
		return -errno;
	if (fs.f_type != PROC_SUPER_MAGIC) {
		/* A saved or fake root: replace the file like any other. */
		int r = sl_write_atomic(ctx, MITIGATE_PATH, text, 2, 0644);

		if (r == 0)
			sl_info(ctx, "%s set to %d", MITIGATE_PATH, value);
		return r;
	}
	n = write(fd, text, 2);
	if (n < 0)
		return -errno;
	if (n != 2)
		return -EIO;
	sl_info(ctx, MITIGATE_KEY " set to %d", value);
	return 0;
}

static int dup_or_null(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

/* The one reader of the persisted value, for every front end. */
_public_ int splitlock_mitigate_get_persisted(struct splitlock_ctx *ctx,
					      int *value, char **file,
					      char **override)
{
	struct splitlock_sysctld *res = NULL;
	_cleanup_free_ char *f = NULL, *o = NULL;
	const char *v;
	int r = splitlock_sysctld_resolve(ctx, MITIGATE_KEY, &res);

	if (file)
		*file = NULL;
	if (override)
		*override = NULL;
	if (r < 0)
		return r;
	v = splitlock_sysctld_get_value(res);
	r = dup_or_null(splitlock_sysctld_get_file(res), &f);
	if (r == 0)
		r = dup_or_null(splitlock_sysctld_get_override(res, SPLITLOCK_SYSCTLD_DROPIN), &o);
	if (r == 0 && !v) {
		r = 0;
	} else if (r == 0 && (streq(v, "0") || streq(v, "1"))) {
		*value = v[0] - '0';
		r = 1;
	} else if (r == 0) {
		r = -EBADMSG;
	}
	splitlock_sysctld_free(res); /* @v was borrowed from it */
	if (r == -ENOMEM)
		return r;
	if (file) {
		*file = f;
		f = NULL;
	}
	if (override) {
		*override = o;
		o = NULL;
	}
	return r;
}

static int set_error(struct splitlock_mitigate_plan *plan, const char *format, ...)
	_printf_(2, 3);
static int set_error(struct splitlock_mitigate_plan *plan, const char *format, ...)
{
	va_list args;
	int r;

	va_start(args, format);
	r = message_vset(&plan->error, format, args);
	va_end(args);
	if (r == 0)
		sl_dbg(plan->ctx, "%s", plan->error);
	return r;
}

/* Sentence for a refusal of the drop-in; no front end is named. */
static int persist_refusal(struct splitlock_mitigate_plan *plan, int r)
{
	switch (r) {
	case -ELOOP:
		return set_error(plan, "%s is a symlink, which is never written through; "
				 "remove it and try again", SPLITLOCK_SYSCTLD_DROPIN);
	case -EEXIST:
		return set_error(plan, "%s exists but was not written by libsplitlock "
				 "(its first line is not the managed-file header); move it "
				 "away and try again", SPLITLOCK_SYSCTLD_DROPIN);
	case -EUCLEAN:
		return set_error(plan, "refusing to write into /etc/sysctl.d: every user "
				 "can write there; fix it with 'chmod o-w /etc/sysctl.d' and "
				 "check its files");
	default:
		return set_error(plan, "cannot write %s: %s", SPLITLOCK_SYSCTLD_DROPIN,
				 errno_text(r));
	}
}

/*
 * The assignment that decides the key after reboot although our drop-in
 * says @want: the last one in a file sorting after ours, if it differs.
 */
static int find_override(struct splitlock_mitigate_plan *plan, const char *want)
{
	struct splitlock_sysctld *res = NULL;
	const char *file, *value = NULL;
	unsigned line = 0;
	size_t n;
	int r = splitlock_sysctld_resolve(plan->ctx, MITIGATE_KEY, &res);

	free(plan->override_file);
	free(plan->override_value);
	plan->override_file = plan->override_value = NULL;
	if (r < 0)
		return r;
	file = splitlock_sysctld_get_override(res, SPLITLOCK_SYSCTLD_DROPIN);
	n = splitlock_sysctld_get_count(res);
	for (size_t i = n; file && i-- > 0;) {
		const char *f;

		splitlock_sysctld_get_entry(res, i, &f, &line, &value);
		if (streq(f, file))
			break;
	}
	if (file && value && !streq(value, want)) {
		plan->override_line = line;
		if (dup_or_null(file, &plan->override_file) < 0 ||
		    dup_or_null(value, &plan->override_value) < 0)
			r = -ENOMEM;
	}
	splitlock_sysctld_free(res);
	return r;
}

_public_ int splitlock_mitigate_plan_new(struct splitlock_ctx *ctx, int value,
					 unsigned flags,
					 struct splitlock_mitigate_plan **out)
{
	struct splitlock_mitigate_plan *plan;
	struct splitlock_mode_info *mode = NULL;
	const char *text = value ? "1" : "0";
	int r;

	*out = NULL;
	if ((value != 0 && value != 1) || (flags & ~SPLITLOCK_MITIGATE_PERSIST))
		return -EINVAL;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	plan->ctx = splitlock_ref(ctx);
	plan->flags = flags;
	plan->value = value;
	plan->running = -1;

	r = splitlock_mitigate_get(ctx, &plan->previous);
	if (r < 0)
		goto fail;
	/* The patched kernel's seq mode refuses 0 itself; say so before trying. */
	if (value == 0 && splitlock_mode_info_read(ctx, &mode) == 0 &&
	    splitlock_mode_info_get_mode(mode) == SPLITLOCK_MODE_SEQ) {
		plan->refusal = -EPERM;
		r = set_error(plan, "the kernel runs in seq mode, whose penalty cannot be "
			      "switched off; boot with another split_lock_detect= mode");
		if (r < 0)
			goto fail;
	}
	splitlock_mode_info_free(mode);

	if (flags & SPLITLOCK_MITIGATE_PERSIST) {
		/* A dry run of the write finds every refusal of the drop-in. */
		r = splitlock_sysctld_persist(ctx, MITIGATE_KEY, text,
					      SPLITLOCK_WRITE_DRY_RUN, &plan->dropin);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0 && !plan->refusal) {
			plan->refusal = r;
			r = persist_refusal(plan, r);
			if (r < 0)
				goto fail;
		}
		r = find_override(plan, text);
		if (r < 0)
			goto fail;
	}
	*out = plan;
	return 0;
fail:
	splitlock_mitigate_plan_free(plan);
	return r;
}

_public_ struct splitlock_mitigate_plan *
splitlock_mitigate_plan_free(struct splitlock_mitigate_plan *plan)
{
	if (plan) {
		splitlock_unref(plan->ctx);
		free(plan->error);
		free(plan->dropin);
		free(plan->override_file);
		free(plan->override_value);
		free(plan);
	}
	return NULL;
}

_public_ int splitlock_mitigate_plan_get_value(const struct splitlock_mitigate_plan *plan)
{
	return plan->value;
}

_public_ int
splitlock_mitigate_plan_get_previous(const struct splitlock_mitigate_plan *plan)
{
	return plan->previous;
}

_public_ int
splitlock_mitigate_plan_get_running(const struct splitlock_mitigate_plan *plan)
{
	return plan->running;
}

_public_ bool
splitlock_mitigate_plan_is_persisted(const struct splitlock_mitigate_plan *plan)
{
	return plan->persisted;
}

_public_ int
splitlock_mitigate_plan_get_refusal(const struct splitlock_mitigate_plan *plan)
{
	return plan->refusal;
}

_public_ enum splitlock_cap
splitlock_mitigate_plan_get_capability(const struct splitlock_mitigate_plan *plan)
{
	(void)plan;
	/* proc_dointvec_minmax behind the sysctl asks for CAP_SYS_ADMIN. */
	return SPLITLOCK_CAP_SYS_ADMIN;
}

_public_ const char *
splitlock_mitigate_plan_get_dropin(const struct splitlock_mitigate_plan *plan)
{
	return plan->dropin;
}

_public_ const char *
splitlock_mitigate_plan_get_override(const struct splitlock_mitigate_plan *plan,
				     unsigned *line, const char **value)
{
	if (line)
		*line = plan->override_line;
	if (value)
		*value = plan->override_value;
	return plan->override_file;
}

_public_ const char *
splitlock_mitigate_plan_get_error(const struct splitlock_mitigate_plan *plan)
{
	return plan->error;
}

/* After a failed write of the drop-in: what the running system now holds. */
static int report_half_done(struct splitlock_mitigate_plan *plan, int err)
{
	int now = -1;
	int r = splitlock_mitigate_get(plan->ctx, &now);

	plan->running = r < 0 ? -1 : now;
	if (r < 0)
		return set_error(plan, "cannot write %s (%s), and " MITIGATE_KEY
				 " cannot be read back (%s): the running system may hold %d "
				 "while the next boot keeps the old setting",
				 SPLITLOCK_SYSCTLD_DROPIN, errno_text(err), errno_text(r),
				 plan->value);
	if (now != plan->previous)
		return set_error(plan, "the running system is changed: " MITIGATE_KEY
				 " is %d now (it was %d), but %s could not be written (%s), "
				 "so the next boot keeps the old setting",
				 now, plan->previous, SPLITLOCK_SYSCTLD_DROPIN, errno_text(err));
	return set_error(plan, "cannot write %s: %s; nothing is changed (" MITIGATE_KEY
			 " is still %d)", SPLITLOCK_SYSCTLD_DROPIN, errno_text(err), now);
}

/*
 * Our drop-in, as systemd-sysctl reads it, must assign @want last. When it
 * does not, the text tells whether our own file is wrong (an error) or
 * another writer replaced it since (the last writer wins: a warning).
 */
static int check_dropin(struct splitlock_mitigate_plan *plan, const char *want)
{
	_cleanup_free_ char *ours = NULL;
	bool still_ours;
	int r = sl_dropin_read_back(plan->ctx, MITIGATE_KEY, plan->dropin, &ours,
				    &still_ours);

	if (r < 0)
		return r;
	if (!still_ours) {
		sl_warn(plan->ctx, "%s was replaced by another writer and now sets %s",
			SPLITLOCK_SYSCTLD_DROPIN, ours ? ours : "nothing");
		return 0;
	}
	return ours && streq(ours, want) ? 0 : -EBADMSG;
}

_public_ int splitlock_mitigate_plan_apply(struct splitlock_mitigate_plan *plan)
{
	const char *text = plan->value ? "1" : "0";
	int r;

	if (plan->refusal)
		return plan->refusal;
	/* A value set by hand outlives the runs that hold leases (lease.c). */
	r = sl_leases_set_by_hand(plan->ctx, plan->value);
	if (r < 0) {
		if (set_error(plan, "cannot set " MITIGATE_KEY " to %d: %s", plan->value,
			      errno_text(r)) < 0)
			return -ENOMEM;
		return r;
	}
	if (plan->flags & SPLITLOCK_MITIGATE_PERSIST) {
		r = splitlock_sysctld_persist(plan->ctx, MITIGATE_KEY, text, 0, NULL);
		if (r < 0) {
			if (report_half_done(plan, r) < 0)
				return -ENOMEM;
			return r;
		}
	}

	r = splitlock_mitigate_get(plan->ctx, &plan->running);
	if (r < 0) {
		plan->running = -1;
		if (set_error(plan, MITIGATE_KEY " was set to %d but cannot be read back: %s",
			      plan->value, errno_text(r)) < 0)
			return -ENOMEM;
		return -EIO;
	}
	/* Another writer came after us; theirs is the value that holds now. */
	if (plan->running != plan->value)
		sl_warn(plan->ctx, MITIGATE_KEY " was set to %d, and another writer has set "
			"it to %d since", plan->value, plan->running);
	if (!(plan->flags & SPLITLOCK_MITIGATE_PERSIST))
		return 0;
	r = check_dropin(plan, text);
	if (r < 0) {
		if (set_error(plan, "%s was written but does not read back as "
			      MITIGATE_KEY " = %s; the running system holds %d",
			      SPLITLOCK_SYSCTLD_DROPIN, text, plan->running) < 0)
			return -ENOMEM;
		return r;
	}
	plan->persisted = true;
	/* A file may have appeared since planning: report what decides now. */
	return find_override(plan, text);
}
