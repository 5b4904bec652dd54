/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Persisting the boot parameter: the backends' registry, detection and
 * plans. What a backend (boot-*.c) may call to build its plan is in
 * boot/plan-build.c, applying a plan with backups and rollback in
 * boot/apply.c: the backends only know their files and tools, and
 * everything about safety lives once, below them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "boot/boot.h"
#include "dir-list.h"
#include "message.h"

/* The backends, in detection order: a new one is its file and a line here. */
static const struct sl_boot_backend *const backends[] = {
	&sl_boot_rpm_ostree,
	&sl_boot_kernelstub,
	&sl_boot_grubby,
	&sl_boot_kernel_install,
	&sl_boot_mkinitcpio,
	&sl_boot_grub,
	&sl_boot_refind,
};

/* Their names, as the list splitlock_boot_backends() gives: filled once,
 * when the library is loaded, before any thread of the program can ask. */
static const char *backend_names[ARRAY_SIZE(backends) + 1];

static void __attribute__((constructor)) backend_names_fill(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		backend_names[i] = backends[i]->name;
}

_public_ const char *const *splitlock_boot_backends(void)
{
	return backend_names;
}

static const struct sl_boot_backend *find_backend(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		if (streq(backends[i]->name, name))
			return backends[i];
		for (size_t a = 0; backends[i]->aliases && backends[i]->aliases[a]; a++)
			if (streq(backends[i]->aliases[a], name))
				return backends[i];
	}
	return NULL;
}

_public_ const char *splitlock_boot_backend_name(const char *name)
{
	const struct sl_boot_backend *b = name ? find_backend(name) : NULL;

	return b ? b->name : NULL;
}

_public_ const char *splitlock_boot_backend_alias(const char *backend, size_t index)
{
	const struct sl_boot_backend *b = backend ? find_backend(backend) : NULL;

	if (!b || !streq(b->name, backend) || !b->aliases)
		return NULL;
	for (size_t a = 0; b->aliases[a]; a++)
		if (a == index)
			return b->aliases[a];
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
	const struct sl_boot_backend *b = backend ? find_backend(backend) : NULL;
	char *cmdline = NULL, *where = NULL;
	int r;

	if (source)
		*source = NULL;
	if (!b)
		return -EINVAL;
	r = b->read(ctx, &cmdline, &where);
	if (r == -ENOENT)
		r = 0;
	else if (r >= 0)
		r = splitlock_mode_from_cmdline(cmdline, mode, ratelimit);
	free(cmdline);
	/* @source may be NULL, as splitlock_mode_next_boot()'s may. */
	if (source)
		*source = where;
	else
		free(where);
	return r;
}

/* ---- plans -------------------------------------------------------------- */

_public_ int splitlock_boot_plan_new(struct splitlock_ctx *ctx, const char *backend,
				     unsigned flags, struct splitlock_boot_plan **out)
{
	struct splitlock_boot_plan *plan;
	const char *names[ARRAY_SIZE(backends)];
	int n;

	/* A flag of a later library is refused, not ignored. */
	*out = NULL;
	if (flags & ~SPLITLOCK_BOOT_RUN_TOOLS)
		return -EINVAL;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	plan->ctx = splitlock_ref(ctx);
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
