/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a boot backend (boot-*.c) builds its plan with: the files it
 * rewrites, the commands it runs, failures in one sentence, and the
 * lookups under the context's root it needs for that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "boot/boot.h"
#include "dir-list.h"
#include "message.h"
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
