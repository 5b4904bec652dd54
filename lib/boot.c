/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Persisting the boot parameter: detection, plans, applying them with
 * backups and checks. The backends (boot-*.c) only know their files and
 * tools; everything about safety lives here once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "bootloader.h"
#include "dir-list.h"
#include "message.h"

static const struct sl_boot_backend *const backends[] = {
	&sl_boot_rpm_ostree,
	&sl_boot_kernelstub,
	&sl_boot_grubby,
	&sl_boot_kernel_install,
	&sl_boot_mkinitcpio,
	&sl_boot_grub,
	&sl_boot_refind,
};

static const char *const backend_names[] = {
	"rpm-ostree", "kernelstub", "grubby", "kernel-install", "mkinitcpio",
	"grub", "refind", NULL,
};

_public_ const char *const *splitlock_boot_backends(void)
{
	return backend_names;
}

static const struct sl_boot_backend *find_backend(const char *name)
{
	if (streq(name, "systemd-boot"))
		name = "kernel-install";
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		if (streq(backends[i]->name, name))
			return backends[i];
	return NULL;
}

_public_ int splitlock_boot_detect(struct splitlock_ctx *ctx, const char **names,
				   size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		int r = backends[i]->detect(ctx);

		if (r < 0) {
			sl_dbg(ctx, "detecting %s: %s", backends[i]->name, strerror(-r));
			continue;
		}
		sl_dbg(ctx, "backend %s: %s", backends[i]->name,
		       r == SL_DETECT_DECISIVE ? "in charge" : r ? "plausible" : "no");
		if (r == SL_DETECT_DECISIVE) {
			if (size > 0)
				names[0] = backends[i]->name;
			return 1;
		}
		if (r == SL_DETECT_PLAUSIBLE) {
			if (n < size)
				names[n] = backends[i]->name;
			n++;
		}
	}
	return (int)n;
}

_public_ int splitlock_boot_read(struct splitlock_ctx *ctx, const char *backend,
				 enum splitlock_mode *mode, unsigned *ratelimit,
				 char **source)
{
	const struct sl_boot_backend *b = find_backend(backend);
	char *cmdline = NULL, *where = NULL;
	int r;

	*source = NULL;
	if (!b)
		return -EINVAL;
	r = b->read(ctx, &cmdline, &where);
	if (r == -ENOENT) {
		*source = where;
		return 0;
	}
	if (r < 0) {
		*source = where;
		return r;
	}
	r = splitlock_mode_from_cmdline(cmdline, mode, ratelimit);
	free(cmdline);
	*source = where;
	return r;
}

/* ---- helpers for the backends ------------------------------------------- */

int sl_plan_fail(struct splitlock_boot_plan *plan, int err, const char *format, ...)
{
	va_list ap;

	/* message_vset() formats first: the arguments may include the previous message. */
	va_start(ap, format);
	message_vset(&plan->error, format, ap);
	va_end(ap);
	return err;
}

bool sl_exists(struct splitlock_ctx *ctx, const char *path)
{
	struct stat st;

	return sl_lstat(ctx, path, &st) == 0;
}

bool sl_is_symlink(struct splitlock_ctx *ctx, const char *path)
{
	struct stat st;

	return sl_lstat(ctx, path, &st) == 0 && S_ISLNK(st.st_mode);
}

bool sl_have_tool(struct splitlock_ctx *ctx, const char *name)
{
	static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };
	char path[256];

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (sl_access(ctx, path, X_OK) == 0)
			return true;
	}
	return false;
}

void sl_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Hidden names are editors' and package managers' leftovers, never read. */
static bool has_suffix(const char *name, void *data)
{
	const char *suffix = data;
	size_t len = strlen(name), slen = strlen(suffix);

	return name[0] != '.' && len > slen && streq(name + len - slen, suffix);
}

int sl_list_dir(struct splitlock_ctx *ctx, const char *dir, const char *suffix,
		char ***names)
{
	int fd = sl_open_dir(ctx, dir), n = 0;
	char **v = NULL, **terminated;

	*names = NULL;
	if (fd >= 0)
		n = sl_dir_list_bounded(ctx, dir, fd, has_suffix, (void *)(suffix ? suffix : ""), &v);
	else if (fd != -ENOENT && fd != -ENOTDIR)
		return fd;
	if (n < 0)
		return n;
	terminated = realloc(v, ((size_t)n + 1) * sizeof(*v));
	if (!terminated) {
		dir_list_free(v, (size_t)n);
		return -ENOMEM;
	}
	terminated[n] = NULL;
	*names = terminated;
	return 0;
}

const char *sl_plan_value(const struct splitlock_boot_plan *plan)
{
	return plan->token[0] ? plan->token + sizeof(SL_PARAM) : "";
}

bool sl_plan_cmdline_ok(const struct splitlock_boot_plan *plan, const char *cmdline)
{
	_cleanup_free_ char *last = NULL;
	unsigned n = sl_cmdline_count(cmdline, strlen(cmdline), &last);

	if (!plan->token[0])
		return n == 0;
	return n == 1 && streq(last, plan->token);
}

int sl_plan_file(struct splitlock_boot_plan *plan, const char *path, char *new)
{
	struct sl_file_change *f;
	char *old = NULL;
	size_t old_len = 0;
	int r;

	if (!new)
		return -ENOMEM;
	if (sl_is_symlink(plan->ctx, path)) {
		free(new);
		return sl_plan_fail(plan, -ELOOP,
				    "%s is a symbolic link; symlinks are not written "
				    "through, edit its target or replace it with a file", path);
	}
	r = sl_read_file(plan->ctx, path, SL_MAX_CONFIG_SIZE, &old, &old_len);
	if (r < 0 && r != -ENOENT) {
		free(new);
		return sl_plan_fail(plan, r, "cannot read %s: %s", path, strerror(-r));
	}
	if (old && streq(old, new)) {
		free(old);
		free(new);
		return 0;
	}
	f = realloc(plan->files, (plan->n_files + 1) * sizeof(*f));
	if (!f) {
		free(old);
		free(new);
		return -ENOMEM;
	}
	plan->files = f;
	f = &plan->files[plan->n_files++];
	*f = (struct sl_file_change){
		.path = strdup(path), .old = old, .old_len = old_len, .new = new,
		.in_place = old != NULL,
	};
	if (!f->path)
		return -ENOMEM;
	return sl_diff(path, old, new, &plan->diff);
}

int sl_plan_delete(struct splitlock_boot_plan *plan, const char *path)
{
	struct sl_file_change *f;
	char *old = NULL;
	size_t old_len = 0;
	int r;

	if (sl_is_symlink(plan->ctx, path))
		return sl_plan_fail(plan, -ELOOP, "%s is a symbolic link; symlinks are not "
				    "removed, remove it yourself", path);
	r = sl_read_file(plan->ctx, path, SL_MAX_CONFIG_SIZE, &old, &old_len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return sl_plan_fail(plan, r, "cannot read %s: %s", path, strerror(-r));
	f = realloc(plan->files, (plan->n_files + 1) * sizeof(*f));
	if (!f) {
		free(old);
		return -ENOMEM;
	}
	plan->files = f;
	f = &plan->files[plan->n_files++];
	*f = (struct sl_file_change){ .path = strdup(path), .old = old,
				      .old_len = old_len };
	if (!f->path)
		return -ENOMEM;
	return sl_diff(path, old, NULL, &plan->diff);
}

static int strv_push(char ***v, size_t *n, char *s)
{
	char **bigger;

	if (!s)
		return -ENOMEM;
	bigger = realloc(*v, (*n + 2) * sizeof(**v));
	if (!bigger) {
		free(s);
		return -ENOMEM;
	}
	*v = bigger;
	bigger[(*n)++] = s;
	bigger[*n] = NULL;
	return 0;
}

struct sl_command *sl_plan_command(struct splitlock_boot_plan *plan)
{
	struct sl_command *c = realloc(plan->cmds, (plan->n_cmds + 1) * sizeof(*c));

	if (!c)
		return NULL;
	plan->cmds = c;
	c = &plan->cmds[plan->n_cmds++];
	*c = (struct sl_command){ 0 };
	c->argv = calloc(1, sizeof(char *));
	c->env = calloc(1, sizeof(char *));
	if (!c->argv || !c->env)
		return NULL;
	return c;
}

int sl_cmd_arg(struct sl_command *cmd, const char *arg)
{
	return strv_push(&cmd->argv, &cmd->argc, strdup(arg));
}

int sl_cmd_argf(struct sl_command *cmd, const char *format, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, format);
	r = vasprintf(&s, format, ap);
	va_end(ap);
	return strv_push(&cmd->argv, &cmd->argc, r < 0 ? NULL : s);
}

int sl_cmd_env(struct sl_command *cmd, const char *name, const char *value)
{
	char *s;

	return strv_push(&cmd->env, &cmd->envc,
			 asprintf(&s, "%s=%s", name, value) < 0 ? NULL : s);
}

int sl_plan_snapshot(struct splitlock_boot_plan *plan, const char *path)
{
	struct sl_snapshot *s = realloc(plan->snaps, (plan->n_snaps + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	plan->snaps = s;
	s[plan->n_snaps] = (struct sl_snapshot){ .path = strdup(path) };
	if (!s[plan->n_snaps].path)
		return -ENOMEM;
	plan->n_snaps++;
	return 0;
}

/* ---- plans -------------------------------------------------------------- */

_public_ int splitlock_boot_plan_new(struct splitlock_ctx *ctx, const char *backend,
				     unsigned flags, struct splitlock_boot_plan **out)
{
	struct splitlock_boot_plan *plan = calloc(1, sizeof(*plan));
	const char *names[ARRAY_SIZE(backends)];
	int n;

	if (!plan)
		return -ENOMEM;
	plan->ctx = splitlock_ref(ctx);
	plan->flags = flags;
	plan->run_tools = streq(ctx->root, "/") || (flags & SPLITLOCK_BOOT_RUN_TOOLS);
	*out = plan;
	if (backend && !streq(backend, "auto")) {
		plan->backend = find_backend(backend);
		if (!plan->backend)
			plan->refusal = sl_plan_fail(plan, -EINVAL, "'%s' is not a backend "
						     "this library knows", backend);
		return 0;
	}
	/* A refusal is kept in the plan, as the mitigate plan does, so that
	 * no object comes back together with an error. */
	n = splitlock_boot_detect(ctx, names, ARRAY_SIZE(names));
	if (n < 0)
		plan->refusal = sl_plan_fail(plan, n, "cannot detect the bootloader: %s",
					     strerror(-n));
	else if (n == 0)
		plan->refusal = sl_plan_fail(plan, -ENOENT, "no supported bootloader "
					     "configuration was found (grub, grubby, "
					     "kernel-install, rpm-ostree, kernelstub, "
					     "mkinitcpio, refind)");
	if (n <= 0)
		return 0;
	if (n > 1) {
		char list[256] = "";

		for (int i = 0; i < n && i < (int)ARRAY_SIZE(names); i++) {
			strncat(list, i ? (i == n - 1 ? " and " : ", ") : "",
				sizeof(list) - strlen(list) - 1);
			strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		}
		plan->refusal = sl_plan_fail(plan, -ENOTUNIQ, "this system is configured "
					     "for %s, and this library cannot tell which "
					     "one boots it", list);
		return 0;
	}
	plan->backend = find_backend(names[0]);
	return 0;
}

_public_ int splitlock_boot_plan_mode(struct splitlock_boot_plan *plan,
				      enum splitlock_mode mode, unsigned ratelimit)
{
	char value[32];
	int r;

	if (plan->refusal)
		return plan->refusal;
	if (mode != SPLITLOCK_MODE_UNKNOWN) {
		r = splitlock_mode_format(mode, ratelimit, value, sizeof(value));
		if (r < 0 || streq(value, "unknown"))
			return sl_plan_fail(plan, -EINVAL, "invalid mode");
		snprintf(plan->token, sizeof(plan->token), SL_PARAM "=%s", value);
	}
	plan->mode = mode;
	plan->ratelimit = ratelimit;
	r = plan->backend->plan(plan);
	if (r == -EBADMSG && !plan->error)
		return sl_plan_fail(plan, r, "a kernel command line in the %s configuration "
				    "has an unbalanced double quote; what cannot be "
				    "split into words is not edited", plan->backend->name);
	return r;
}

static void free_command(struct sl_command *c)
{
	sl_strv_free(c->argv);
	sl_strv_free(c->env);
}

_public_ struct splitlock_boot_plan *
splitlock_boot_plan_free(struct splitlock_boot_plan *plan)
{
	if (!plan)
		return NULL;
	for (size_t i = 0; i < plan->n_files; i++) {
		free(plan->files[i].path);
		free(plan->files[i].old);
		free(plan->files[i].new);
	}
	free(plan->files);
	for (size_t i = 0; i < plan->n_cmds; i++)
		free_command(&plan->cmds[i]);
	free(plan->cmds);
	for (size_t i = 0; i < plan->n_snaps; i++) {
		free(plan->snaps[i].path);
		free(plan->snaps[i].data);
	}
	free(plan->snaps);
	for (size_t i = 0; i < plan->n_leftovers; i++) {
		free(plan->leftovers[i].path);
		free(plan->leftovers[i].fix);
	}
	free(plan->leftovers);
	if (plan->free_data)
		plan->free_data(plan->data);
	free(plan->diff);
	free(plan->error);
	splitlock_unref(plan->ctx);
	free(plan);
	return NULL;
}

_public_ const char *splitlock_boot_plan_get_backend(const struct splitlock_boot_plan *plan)
{
	return plan->backend ? plan->backend->name : NULL;
}

_public_ const char *splitlock_boot_plan_get_diff(const struct splitlock_boot_plan *plan)
{
	return plan->diff;
}

_public_ size_t splitlock_boot_plan_get_file_count(const struct splitlock_boot_plan *plan)
{
	return plan->n_files;
}

_public_ const char *splitlock_boot_plan_get_file(const struct splitlock_boot_plan *plan,
						  size_t index)
{
	return index < plan->n_files ? plan->files[index].path : NULL;
}

_public_ size_t
splitlock_boot_plan_get_command_count(const struct splitlock_boot_plan *plan)
{
	return plan->n_cmds;
}

_public_ const char *const *
splitlock_boot_plan_get_command(const struct splitlock_boot_plan *plan, size_t index)
{
	return index < plan->n_cmds ? (const char *const *)plan->cmds[index].argv : NULL;
}

_public_ bool splitlock_boot_plan_runs_commands(const struct splitlock_boot_plan *plan)
{
	return plan->run_tools;
}

_public_ int splitlock_boot_plan_get_refusal(const struct splitlock_boot_plan *plan)
{
	return plan->refusal;
}

_public_ const char *splitlock_boot_plan_get_error(const struct splitlock_boot_plan *plan)
{
	return plan->error;
}

/* ---- applying ----------------------------------------------------------- */

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

int sl_boot_apply_files(struct splitlock_boot_plan *plan)
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

	r = (plan->backend->apply ?: sl_boot_apply_files)(plan);
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

_public_ unsigned
splitlock_boot_plan_get_leftover_count(const struct splitlock_boot_plan *plan)
{
	return (unsigned)plan->n_leftovers;
}

_public_ int splitlock_boot_plan_get_leftover(const struct splitlock_boot_plan *plan,
					      unsigned index, const char **path,
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
