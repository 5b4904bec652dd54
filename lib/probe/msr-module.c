/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding and loading the msr driver with libkmod, as modprobe does.
 *
 * libkmod reads the module directory itself, so it gets the root's
 * /lib/modules/RELEASE and the root's modprobe.d directories spelled out.
 * modules.builtin is read first, through the root like every other file:
 * libkmod only knows built-in modules from the indexes depmod made of it.
 * A module is inserted only into the kernel that runs the root: one found
 * under another root is for another kernel.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <libkmod.h>

#include "core/internal.h"
#include "probe/probe.h"

#define MSR_DEVICE "/dev/cpu/0/msr"

static void kmod_free_ctx(struct kmod_ctx **k) { if (*k) kmod_unref(*k); }
static void kmod_free_list(struct kmod_list **l) { if (*l) kmod_module_unref_list(*l); }
#define _cleanup_kmod_ _cleanup_(kmod_free_ctx)
#define _cleanup_kmod_list_ _cleanup_(kmod_free_list)

/* "kernel/arch/x86/kernel/msr.ko" in modules.builtin: one path a line. */
static int builtin_listed(struct splitlock_ctx *ctx, const char *release)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	size_t len;
	int r;

	if (asprintf(&path, "/lib/modules/%s/modules.builtin", release) < 0)
		return -ENOMEM;
	r = sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, &len);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	for (char *line = text, *next; line && *line; line = next) {
		const char *base;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (streq(base, "msr.ko"))
			return 1;
	}
	return 0;
}

static int kmod_open(struct splitlock_ctx *ctx, const char *release,
		     struct kmod_ctx **out)
{
	static const char *const conf[] = { "/etc/modprobe.d", "/run/modprobe.d",
					    "/usr/local/lib/modprobe.d",
					    "/lib/modprobe.d" };
	const char *root = streq(ctx->root, "/") ? "" : ctx->root;
	_cleanup_free_ char *dir = NULL;
	char *paths[ARRAY_SIZE(conf) + 1] = { NULL };
	int r = 0;

	if (asprintf(&dir, "%s/lib/modules/%s", root, release) < 0)
		return -ENOMEM;
	for (size_t i = 0, n = 0; i < ARRAY_SIZE(conf); i++) {
		struct stat st;

		/*
		 * Only the directories that exist: libkmod looks each up with
		 * a plain stat(), and a lookup of a name /run lacks waits,
		 * unkillably, behind a user's mkdir queued on /run's lock
		 * (sixth review); sl_lstat() asks the dentry cache there.
		 */
		if (sl_lstat(ctx, conf[i], &st) < 0)
			continue;
		if (asprintf(&paths[n], "%s%s", root, conf[i]) < 0) {
			paths[n] = NULL;
			r = -ENOMEM;
			goto out;
		}
		n++;
	}
	*out = kmod_new(dir, (const char *const *)paths);
	if (!*out)
		r = -ENOMEM;
out:
	for (size_t i = 0; i < ARRAY_SIZE(conf); i++)
		free(paths[i]);
	return r;
}

/* libkmod's answer for "msr": built in, a file, or nothing. */
static int kmod_lookup(struct kmod_ctx *k, struct kmod_list **list,
		       enum splitlock_msr_module *state, char **path)
{
	struct kmod_module *mod;
	const char *file;
	int r = kmod_module_new_from_lookup(k, "msr", list);

	if (r < 0)
		return r;
	if (!*list) {
		*state = SPLITLOCK_MSR_MODULE_MISSING;
		return 0;
	}
	mod = kmod_module_get_module(*list);
	/* Built-in modules have no file in modules.dep. */
	file = kmod_module_get_path(mod);
	*state = file ? SPLITLOCK_MSR_MODULE_LOADABLE : SPLITLOCK_MSR_MODULE_BUILTIN;
	if (path && file) {
		*path = strdup(file);
		if (!*path)
			r = -ENOMEM;
	}
	kmod_module_unref(mod);
	return r;
}

static int find(struct splitlock_ctx *ctx, enum splitlock_msr_module *state,
		char **path, struct kmod_ctx **kout, struct kmod_list **lout)
{
	_cleanup_kmod_ struct kmod_ctx *k = NULL;
	_cleanup_kmod_list_ struct kmod_list *list = NULL;
	char release[256];
	int r;

	if (sl_access(ctx, MSR_DEVICE, F_OK) == 0) {
		*state = SPLITLOCK_MSR_MODULE_LOADED;
		return 0;
	}
	r = splitlock_kernel_release(ctx, release, sizeof(release));
	if (r < 0)
		return r;
	if (strchr(release, '/'))
		return -EINVAL;
	r = builtin_listed(ctx, release);
	if (r < 0)
		return r;
	if (r > 0) {
		*state = SPLITLOCK_MSR_MODULE_BUILTIN;
		return 0;
	}
	r = kmod_open(ctx, release, &k);
	if (r < 0)
		return r;
	r = kmod_lookup(k, &list, state, path);
	if (r < 0)
		return r;
	if (kout) {
		*kout = k;
		*lout = list;
		k = NULL;
		list = NULL;
	}
	return 0;
}

/*
 * find() looks up /dev/cpu/0/msr, reads modules.builtin and has libkmod
 * list every modprobe.d directory and read the module indexes: all in
 * directories every user can read, and so can hold, with a mkdir queued
 * behind (tenth review: root's probe --msr waited in libkmod's listing
 * of /etc/modprobe.d until ^C). So it runs in a bounded child, whose
 * answer is the state and the module's path.
 */
struct found {
	bool got;
	int32_t state;
	char *path;
};

static int find_work(struct splitlock_ctx *ctx, void *arg, struct sl_emitter *e)
{
	bool want_path = *(const bool *)arg;
	enum splitlock_msr_module state;
	_cleanup_free_ char *path = NULL;
	char msg[sizeof(int32_t) + PATH_MAX];
	size_t len = sizeof(int32_t);
	int32_t st;
	int r = find(ctx, &state, want_path ? &path : NULL, NULL, NULL);

	if (r < 0)
		return r;
	st = (int32_t)state;
	memcpy(msg, &st, sizeof(st));
	if (path) {
		size_t n = strlen(path);

		if (n >= PATH_MAX)
			return -ENAMETOOLONG;
		memcpy(msg + len, path, n);
		len += n;
	}
	return sl_emit(e, msg, len);
}

static int take_found(void *data, const void *msg, size_t len)
{
	struct found *f = data;

	if (f->got || len < sizeof(f->state))
		return -EIO;
	memcpy(&f->state, msg, sizeof(f->state));
	if (len > sizeof(f->state)) {
		f->path = strndup((const char *)msg + sizeof(f->state), len - sizeof(f->state));
		if (!f->path)
			return -ENOMEM;
	}
	f->got = true;
	return 0;
}

static int find_bounded(struct splitlock_ctx *ctx, enum splitlock_msr_module *state,
			char **path)
{
	bool want_path = path != NULL;
	struct found f = { 0 };
	int r = sl_run_bounded(ctx, "the msr driver", "lookup", find_work, &want_path,
			       take_found, &f);

	if (r == 0 && !f.got)
		r = -EIO;
	if (r < 0) {
		free(f.path);
		return r;
	}
	*state = (enum splitlock_msr_module)f.state;
	if (path)
		*path = f.path;
	else
		free(f.path);
	return 0;
}

_public_ int splitlock_msr_module_find(struct splitlock_ctx *ctx,
				       enum splitlock_msr_module *state,
				       char **path)
{
	if (path)
		*path = NULL;
	return find_bounded(ctx, state, path);
}

/* The insertion, in a bounded child too: libkmod looks up the module's
 * dependencies and the file again. -EAGAIN where the module is no longer
 * a loadable one (it was loaded, or removed, in between). */
static int insert_work(struct splitlock_ctx *ctx, void *arg, struct sl_emitter *e)
{
	_cleanup_kmod_ struct kmod_ctx *k = NULL;
	_cleanup_kmod_list_ struct kmod_list *list = NULL;
	enum splitlock_msr_module state;
	struct kmod_module *mod;
	int r = find(ctx, &state, NULL, &k, &list);

	(void)arg;
	(void)e;
	if (r < 0)
		return r;
	if (state == SPLITLOCK_MSR_MODULE_LOADED)
		return 0;
	if (state != SPLITLOCK_MSR_MODULE_LOADABLE)
		return -EAGAIN;
	mod = kmod_module_get_module(list);
	r = kmod_module_probe_insert_module(mod, 0, NULL, NULL, NULL, NULL);
	kmod_module_unref(mod);
	return r;
}

static int take_nothing(void *data, const void *msg, size_t len)
{
	(void)data;
	(void)msg;
	(void)len;
	return -EIO;
}

int sl_msr_module_load(struct splitlock_ctx *ctx)
{
	enum splitlock_msr_module state;
	int r = find_bounded(ctx, &state, NULL);

	if (r < 0)
		return r;
	switch (state) {
	case SPLITLOCK_MSR_MODULE_LOADED:
		return 0;
	case SPLITLOCK_MSR_MODULE_BUILTIN:
		sl_info(ctx, "the msr driver is built into the kernel, but %s is missing (is devtmpfs mounted on /dev?)",
		       MSR_DEVICE);
		return -EOPNOTSUPP;
	case SPLITLOCK_MSR_MODULE_MISSING:
		sl_info(ctx, "this kernel has no msr driver (CONFIG_X86_MSR): neither built in nor a module under /lib/modules");
		return -EOPNOTSUPP;
	case SPLITLOCK_MSR_MODULE_LOADABLE:
		break;
	}
	if (!streq(ctx->root, "/")) {
		sl_info(ctx, "the msr module under %s is for the kernel of that tree, not for the running one: load it there",
		       ctx->root);
		return -EOPNOTSUPP;
	}
	if (splitlock_have_capability(SPLITLOCK_CAP_SYS_MODULE) <= 0) {
		sl_info(ctx, "loading the msr module needs CAP_SYS_MODULE");
		return -EPERM;
	}
	r = sl_run_bounded(ctx, "the msr module", "loading", insert_work, NULL, take_nothing,
			   NULL);
	if (r < 0) {
		if (r != -ETIMEDOUT)
			sl_info(ctx, "cannot load the msr module: %s", strerror(-r));
		return r;
	}
	/* devtmpfs creates the node before the module's init returns. */
	r = sl_access(ctx, MSR_DEVICE, F_OK);
	if (r < 0) {
		sl_info(ctx, "the msr module was loaded, but %s did not appear", MSR_DEVICE);
		return -ENODEV;
	}
	sl_info(ctx, "loaded the msr module");
	return 0;
}
