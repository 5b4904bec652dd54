/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Applying a boot plan: every file it names backed up first and checked
 * after, the commands run with the tools' own directories watched, and on
 * any failure the files put back and what could not be said (leftovers).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "boot/boot.h"
#include "dir-list.h"
#include "message.h"
/*
 * Where regeneration tools write besides the files the plan names: GRUB's
 * grub.cfg and grubenv, BLS entries and the ESP, grubby's and kernelstub's
 * edits of /etc. Compared before and after a tool that failed.
 */
static const char *const tool_dirs[] = {
	"/boot", "/efi", "/etc/default", "/etc/kernel", "/etc/cmdline.d", NULL,
};

static int unlink_in_root(struct splitlock_ctx *ctx, const char *path)
{
	const char *base;
	_cleanup_close_ int dfd = sl_open_parent(ctx, path, &base);

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		return -errno;
	return fsync(dfd) < 0 ? -errno : 0;
}

static char *backup_path(const char *path)
{
	char *p = NULL;

	return asprintf(&p, "%s" SL_BACKUP_SUFFIX, path) < 0 ? NULL : p;
}

/* The path as this process names it, for a command the user can paste. */
static char *host_path(const struct splitlock_ctx *ctx, const char *path)
{
	char *p = NULL;

	return asprintf(&p, "%s%s", streq(ctx->root, "/") ? "" : ctx->root, path) < 0 ? NULL : p;
}

/*
 * The backup of an existing file: a second name for the same inode, so it
 * keeps every byte and attribute and costs no space; where the file system
 * has no hard links (vfat ESP), a copy with the same metadata.
 */
static int make_backup(struct splitlock_ctx *ctx, const char *path, const char *data,
		       size_t len)
{
	_cleanup_free_ char *b = backup_path(path);
	const char *base;
	_cleanup_close_ int dfd = sl_open_parent(ctx, path, &base);
	_cleanup_free_ char *bbase = NULL;

	if (!b)
		return -ENOMEM;
	if (dfd < 0)
		return dfd;
	bbase = backup_path(base);
	if (!bbase)
		return -ENOMEM;
	if (unlinkat(dfd, bbase, 0) < 0 && errno != ENOENT)
		return -errno;
	if (linkat(dfd, base, dfd, bbase, 0) == 0)
		return fsync(dfd) < 0 ? -errno : 0;
	return sl_write_atomic_like(ctx, b, data, len, path);
}

/*
 * Put the backup back under the file's name: a rename, which needs no free
 * space. When both names are one inode (the write never happened), rename
 * does nothing, so the extra name is removed.
 */
static int rename_back(struct splitlock_ctx *ctx, const char *path)
{
	const char *base;
	_cleanup_close_ int dfd = sl_open_parent(ctx, path, &base);
	_cleanup_free_ char *bbase = NULL;
	struct stat a, b;

	if (dfd < 0)
		return dfd;
	bbase = backup_path(base);
	if (!bbase)
		return -ENOMEM;
	if (renameat(dfd, bbase, dfd, base) < 0)
		return -errno;
	if (fstatat(dfd, bbase, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstatat(dfd, base, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		unlinkat(dfd, bbase, 0);
	return fsync(dfd) < 0 ? -errno : 0;
}

/* The current bytes of @path equal @data (NULL: absent). */
static bool unchanged(struct splitlock_ctx *ctx, const char *path,
		      const char *data, size_t len)
{
	_cleanup_free_ char *now = NULL;
	size_t now_len = 0;
	int r = sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &now, &now_len);

	if (r == -ENOENT)
		return !data;
	return r == 0 && data && now_len == len && memcmp(now, data, len) == 0;
}

static int add_leftover(struct splitlock_boot_plan *plan, const char *path,
			enum splitlock_boot_leftover kind, char *fix)
{
	struct sl_leftover *l = realloc(plan->leftovers,
					(plan->n_leftovers + 1) * sizeof(*l));

	if (!l) {
		free(fix);
		return -ENOMEM;
	}
	plan->leftovers = l;
	l[plan->n_leftovers] = (struct sl_leftover){ .path = strdup(path), .kind = kind,
						     .fix = fix };
	if (!l[plan->n_leftovers].path) {
		free(fix);
		return -ENOMEM;
	}
	plan->n_leftovers++;
	return 0;
}

/* A file the plan wrote that does not read back as before. */
static void not_restored(struct splitlock_boot_plan *plan, const char *path, bool existed)
{
	_cleanup_free_ char *b = backup_path(path), *hp = host_path(plan->ctx, path);
	_cleanup_free_ char *hb = b ? host_path(plan->ctx, b) : NULL;
	char *fix = NULL;

	if (hp && hb && sl_exists(plan->ctx, b)) {
		if (asprintf(&fix, "mv -- %s %s", hb, hp) < 0)
			fix = NULL;
	} else if (hp && !existed) {
		if (asprintf(&fix, "rm -- %s", hp) < 0)
			fix = NULL;
	}
	add_leftover(plan, path, SPLITLOCK_LEFTOVER_NOT_RESTORED, fix);
}

/* Restore every file this run changed, then read each one back. */
static void restore(struct splitlock_boot_plan *plan)
{
	for (size_t i = plan->n_files; i-- > 0;) {
		struct sl_file_change *f = &plan->files[i];
		int r = 0;

		if (!f->touched)
			continue;
		if (f->backed_up)
			r = rename_back(plan->ctx, f->path);
		else if (!f->old)
			r = unlink_in_root(plan->ctx, f->path);
		if (r < 0)
			sl_err(plan->ctx, "cannot restore %s: %s", f->path, strerror(-r));
	}
	for (size_t i = 0; i < plan->n_snaps; i++) {
		struct sl_snapshot *s = &plan->snaps[i];
		int r;

		if (s->backed_up)
			r = rename_back(plan->ctx, s->path);
		else if (s->data)
			r = unchanged(plan->ctx, s->path, s->data, s->len) ? 0 :
			    sl_write_atomic(plan->ctx, s->path, s->data, s->len, 0644);
		else
			r = unlink_in_root(plan->ctx, s->path);
		if (r < 0)
			sl_err(plan->ctx, "cannot restore %s: %s", s->path, strerror(-r));
	}
	/* "Restored" is what reads back, not what the calls returned. */
	for (size_t i = 0; i < plan->n_files; i++) {
		struct sl_file_change *f = &plan->files[i];

		if (f->touched && !unchanged(plan->ctx, f->path, f->old, f->old_len))
			not_restored(plan, f->path, f->old != NULL);
	}
	for (size_t i = 0; i < plan->n_snaps; i++) {
		struct sl_snapshot *s = &plan->snaps[i];

		if (!unchanged(plan->ctx, s->path, s->data, s->len))
			not_restored(plan, s->path, s->data != NULL);
	}
}

static bool planned(const struct splitlock_boot_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_files; i++)
		if (streq(plan->files[i].path, path))
			return true;
	for (size_t i = 0; i < plan->n_snaps; i++)
		if (streq(plan->snaps[i].path, path))
			return true;
	return false;
}

/* @s with one shell word per argument, for a command the user can paste. */
static int append_word(char **s, const char *word)
{
	const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789-_=./:,+@%";
	size_t len = (*s ? strlen(*s) : 0), wlen = strlen(word);
	char *bigger = realloc(*s, len + 4 * wlen + 4), *p;

	if (!bigger)
		return -ENOMEM;
	*s = bigger;
	p = bigger + len;
	if (len)
		*p++ = ' ';
	if (*word && strspn(word, safe) == wlen) {
		strcpy(p, word);
		return 0;
	}
	*p++ = '\'';
	for (; *word; word++)
		if (*word == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *word;
		}
	*p++ = '\'';
	*p = '\0';
	return 0;
}

/*
 * The commands that regenerate from the configuration on disk (update-grub,
 * kernel-install add) also repair what they wrote from the restored one. A
 * command carrying the parameter itself (grubby --args, rpm-ostree kargs)
 * would repeat the change: no fix is offered then.
 */
static char *regenerate_fix(const struct splitlock_boot_plan *plan)
{
	char *s = NULL;

	for (size_t i = 0; i < plan->n_cmds; i++)
		for (size_t k = 0; plan->cmds[i].argv[k]; k++)
			if (strstr(plan->cmds[i].argv[k], SL_PARAM))
				return NULL;
	for (size_t i = 0; i < plan->n_cmds; i++) {
		if (i && append_word(&s, "&&") < 0)
			goto oom;
		if (!streq(plan->ctx->root, "/") &&
		    (append_word(&s, "chroot") < 0 || append_word(&s, plan->ctx->root) < 0))
			goto oom;
		for (size_t k = 0; plan->cmds[i].argv[k]; k++)
			if (append_word(&s, plan->cmds[i].argv[k]) < 0)
				goto oom;
	}
	return s;
oom:
	free(s);
	return NULL;
}

static int tool_leftover(void *data, const char *path, enum splitlock_boot_leftover kind)
{
	struct splitlock_boot_plan *plan = data;
	_cleanup_free_ char *hp = NULL;
	char *fix = NULL;
	struct stat st;

	if (planned(plan, path))
		return 0;
	if (kind != SPLITLOCK_LEFTOVER_CREATED) {
		fix = regenerate_fix(plan);
	} else {
		hp = host_path(plan->ctx, path);
		if (!hp || asprintf(&fix, "rm %s-- %s",
				    sl_lstat(plan->ctx, path, &st) == 0 && S_ISDIR(st.st_mode) ?
				    "-r " : "", hp) < 0)
			return -ENOMEM;
	}
	return add_leftover(plan, path, kind, fix);
}

/*
 * Undo after a failure: restore, read back, and list what a tool changed
 * since @before (NULL: no tool ran). The sentence says "restored" only
 * when nothing is left.
 */
static int undo(struct splitlock_boot_plan *plan, int err, const struct sl_tree_scan *before)
{
	_cleanup_free_ char *first = plan->error ? strdup(plan->error) : NULL;

	restore(plan);
	if (before) {
		struct sl_tree_scan *after = NULL;
		int r = sl_tree_scan(plan->ctx, tool_dirs, &after);

		if (r == 0)
			r = sl_tree_scan_diff(before, after, tool_leftover, plan);
		sl_tree_scan_free(after);
		if (r < 0)
			sl_err(plan->ctx, "cannot tell what the tool changed: %s", strerror(-r));
	}
	plan->outcome = plan->n_leftovers ? SPLITLOCK_BOOT_LEFT_CHANGED : SPLITLOCK_BOOT_RESTORED;
	if (plan->n_leftovers)
		return sl_plan_fail(plan, err, "%s; the previous configuration could not be "
				    "fully restored", first ? first : strerror(-err));
	return sl_plan_fail(plan, err, "%s; the previous configuration was restored",
			    first ? first : strerror(-err));
}

static int apply_files(struct splitlock_boot_plan *plan)
{
	for (size_t i = 0; i < plan->n_files; i++) {
		struct sl_file_change *f = &plan->files[i];
		int r;

		if (f->old) {
			r = make_backup(plan->ctx, f->path, f->old, f->old_len);
			if (r < 0)
				return sl_plan_fail(plan, r, "cannot write the backup of %s: %s",
						    f->path, strerror(-r));
			f->backed_up = true;
		}
		f->touched = true;
		if (f->new) {
			_cleanup_free_ char *dir = strndup(f->path, (size_t)(strrchr(f->path, '/') - f->path));

			r = dir ? sl_mkdir_p(plan->ctx, dir, 0755) : -ENOMEM;
			if (r == 0)
				r = sl_write_atomic(plan->ctx, f->path, f->new, strlen(f->new), 0644);
		} else {
			/* The file was linked to its backup above: only the name goes. */
			r = unlink_in_root(plan->ctx, f->path);
		}
		if (r < 0)
			return sl_plan_fail(plan, r, "cannot write %s: %s", f->path, strerror(-r));
	}
	return 0;
}

static char *join_argv(char *const *argv)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	for (size_t i = 0; argv[i]; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	*p = '\0';
	return s;
}

int sl_boot_run_commands(struct splitlock_boot_plan *plan)
{
	for (size_t i = 0; i < plan->n_cmds; i++) {
		struct sl_command *c = &plan->cmds[i];
		_cleanup_free_ char *text = join_argv(c->argv);
		int r;

		sl_info(plan->ctx, "running %s", text ? text : c->argv[0]);
		r = sl_spawn(plan->ctx, c->argv, c->env, NULL);
		plan->tools_ran = true;
		if (r < 0)
			return sl_plan_fail(plan, -ECHILD, "cannot run '%s': %s", c->argv[0],
					    strerror(-r));
		if (r > 0)
			return sl_plan_fail(plan, -ECHILD, "'%s' failed with exit status %d",
					    text ? text : c->argv[0], r);
	}
	return 0;
}

/* What the next boot uses now, to name the way back after a failure. */
static void remember_previous(struct splitlock_boot_plan *plan)
{
	_cleanup_free_ char *cmdline = NULL, *where = NULL;
	enum splitlock_mode mode;
	unsigned rate = 0;
	int r = plan->backend->read(plan->ctx, &cmdline, &where);

	plan->previous[0] = '\0';
	if (r == -ENOENT)
		snprintf(plan->previous, sizeof(plan->previous), "default");
	else if (r == 0 && (r = splitlock_mode_from_cmdline(cmdline, &mode, &rate)) == 0)
		snprintf(plan->previous, sizeof(plan->previous), "default");
	else if (r > 0 && splitlock_mode_format(mode, rate, plan->previous,
						 sizeof(plan->previous)) < 0)
		plan->previous[0] = '\0';
}

/* Copies of the files a tool rewrites, made while there is still space. */
static int backup_snapshots(struct splitlock_boot_plan *plan)
{
	for (size_t i = 0; i < plan->n_snaps; i++) {
		struct sl_snapshot *s = &plan->snaps[i];
		_cleanup_free_ char *b = backup_path(s->path);
		int r;

		if (!s->data)
			continue;
		r = b ? sl_write_atomic_like(plan->ctx, b, s->data, s->len, s->path) : -ENOMEM;
		if (r < 0)
			return sl_plan_fail(plan, r, "cannot write the backup of %s: %s",
					    s->path, strerror(-r));
		s->backed_up = true;
	}
	return 0;
}

/* After success: drop the backups that only served this run. */
static void drop_run_backups(struct splitlock_boot_plan *plan)
{
	for (size_t i = 0; i < plan->n_snaps; i++) {
		_cleanup_free_ char *b = NULL;

		if (!plan->snaps[i].backed_up || !(b = backup_path(plan->snaps[i].path)))
			continue;
		unlink_in_root(plan->ctx, b);
		plan->snaps[i].backed_up = false;
	}
	for (size_t i = 0; i < plan->n_files; i++) {
		_cleanup_free_ char *b = NULL;

		/* A deleted file was slctl's own; the edited ones keep theirs. */
		if (plan->files[i].new || !plan->files[i].backed_up ||
		    !(b = backup_path(plan->files[i].path)))
			continue;
		unlink_in_root(plan->ctx, b);
	}
}

_public_ int splitlock_boot_plan_apply(struct splitlock_boot_plan *plan)
{
	_cleanup_close_ int lock = -1;
	_cleanup_free_ char *cmdline = NULL, *where = NULL, *why = NULL;
	struct sl_tree_scan *before = NULL;
	int r;

	if (plan->refusal)
		return plan->refusal;
	plan->outcome = SPLITLOCK_BOOT_UNCHANGED;
	if (plan->n_files == 0 && plan->n_cmds == 0) {
		plan->outcome = SPLITLOCK_BOOT_APPLIED;
		return 0;
	}
	lock = sl_lock(plan->ctx, &why);
	if (lock < 0)
		return sl_plan_fail(plan, lock, "%s", why ? why : strerror(-lock));
	for (size_t i = 0; i < plan->n_files; i++)
		if (!unchanged(plan->ctx, plan->files[i].path, plan->files[i].old,
			       plan->files[i].old_len))
			return sl_plan_fail(plan, -ESTALE, "%s changed while the change "
					    "was being planned",
					    plan->files[i].path);
	remember_previous(plan);
	for (size_t i = 0; i < plan->n_snaps; i++) {
		struct sl_snapshot *s = &plan->snaps[i];

		free(s->data);
		s->data = NULL;
		r = sl_read_file(plan->ctx, s->path, SL_MAX_CONFIG_SIZE, &s->data, &s->len);
		if (r < 0 && r != -ENOENT)
			return sl_plan_fail(plan, r, "cannot read %s: %s", s->path, strerror(-r));
	}

	r = apply_files(plan);
	if (r < 0)
		return undo(plan, r, NULL);
	if (plan->run_tools) {
		r = backup_snapshots(plan);
		if (r < 0)
			return undo(plan, r, NULL);
		r = sl_tree_scan(plan->ctx, tool_dirs, &before);
		if (r < 0) {
			sl_plan_fail(plan, r, "cannot list what the tools may change: %s",
				     strerror(-r));
			return undo(plan, r, NULL);
		}
		r = (plan->backend->regenerate ?: sl_boot_run_commands)(plan);
		if (r < 0) {
			if (!plan->error)
				sl_plan_fail(plan, r, "regeneration failed");
			r = undo(plan, r, before);
			sl_tree_scan_free(before);
			return r;
		}
	}

	/*
	 * Read back what the next boot will see: our files, or what the tool
	 * wrote. A tool that did not run (--root) has written nothing yet.
	 */
	if (!plan->tools_ran && plan->n_files == 0) {
		sl_tree_scan_free(before);
		plan->outcome = SPLITLOCK_BOOT_APPLIED;
		return 0;
	}
	r = plan->backend->read(plan->ctx, &cmdline, &where);
	if (r == -ENOENT && !plan->token[0])
		r = 0;
	else if (r == 0 && !sl_plan_cmdline_ok(plan, cmdline))
		r = sl_plan_fail(plan, -EBADMSG, "after the change %s does not hold "
				 "exactly %s", where ? where : plan->backend->name,
				 plan->token[0] ? plan->token : "no " SL_PARAM "= parameter");
	else if (r < 0)
		r = sl_plan_fail(plan, r == -ENOENT ? -EBADMSG : r,
				 "cannot read back the configuration: %s",
				 where ? where : strerror(-r));
	if (r == 0 && plan->tools_ran && plan->backend->verify)
		r = plan->backend->verify(plan);
	if (r < 0) {
		r = undo(plan, r, plan->tools_ran ? before : NULL);
		sl_tree_scan_free(before);
		return r;
	}
	sl_tree_scan_free(before);
	drop_run_backups(plan);
	plan->outcome = SPLITLOCK_BOOT_APPLIED;
	return 0;
}

_public_ enum splitlock_boot_outcome
splitlock_boot_plan_get_outcome(const struct splitlock_boot_plan *plan)
{
	return plan->outcome;
}

_public_ size_t
splitlock_boot_plan_get_leftover_count(const struct splitlock_boot_plan *plan)
{
	return plan->n_leftovers;
}

_public_ int splitlock_boot_plan_get_leftover(const struct splitlock_boot_plan *plan,
					      size_t index, const char **path,
					      enum splitlock_boot_leftover *kind,
					      const char **fix)
{
	if (index >= plan->n_leftovers)
		return -ERANGE;
	if (path)
		*path = plan->leftovers[index].path;
	if (kind)
		*kind = plan->leftovers[index].kind;
	if (fix)
		*fix = plan->leftovers[index].fix;
	return 0;
}

_public_ const char *splitlock_boot_plan_get_previous(const struct splitlock_boot_plan *plan)
{
	return plan->previous[0] ? plan->previous : NULL;
}
