/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The context: its root, its references, its log. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>

#include "core/internal.h"

static void log_stderr(void *data, int priority, const char *file, int line,
		       const char *fn, const char *format, va_list args)
{
	(void)data;
	(void)priority;
	(void)file;
	(void)line;
	(void)fn;
	fprintf(stderr, "libsplitlock: ");
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

static int priority_from_string(const char *s)
{
	static const struct { const char *name; int prio; } names[] = {
		{ "err", LOG_ERR }, { "warning", LOG_WARNING },
		{ "info", LOG_INFO }, { "debug", LOG_DEBUG },
	};
	char *end;
	long prio = strtol(s, &end, 10);

	if (end != s && *end == '\0' && prio >= 0 && prio <= LOG_DEBUG)
		return (int)prio;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (streq(s, names[i].name))
			return names[i].prio;
	return -1;
}

void sl_log(const struct splitlock_ctx *ctx, int priority, const char *file,
	    int line, const char *fn, const char *format, ...)
{
	va_list args;

	if (!ctx->log_fn)
		return;
	va_start(args, format);
	ctx->log_fn(ctx->log_data, priority, file, line, fn, format, args);
	va_end(args);
}

_public_ struct splitlock_ctx *splitlock_new(const char *root)
{
	struct splitlock_ctx *ctx;
	const char *env;
	char normalized[PATH_MAX];

	if (!root || !*root)
		root = "/";
	if (root[0] != '/') {
		/* A relative --root is relative to where the user stands. */
		if (!realpath(root, normalized))
			return NULL;
	} else {
		size_t len = strlen(root);

		if (len >= sizeof(normalized)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		memcpy(normalized, root, len + 1);
		while (len > 1 && normalized[len - 1] == '/')
			normalized[--len] = '\0';
	}

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->refcount = 1;
	ctx->log_fn = log_stderr;
	ctx->log_priority = LOG_ERR;
	ctx->root = strdup(normalized);
	if (!ctx->root)
		goto fail;
	ctx->root_fd = open(ctx->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ctx->root_fd < 0)
		goto fail;

	env = secure_getenv("SPLITLOCK_NO_OPENAT2");
	ctx->no_openat2 = env && streq(env, "1");

	env = secure_getenv("SPLITLOCK_LOG");
	if (env && *env) {
		int prio = priority_from_string(env);

		if (prio >= 0)
			ctx->log_priority = prio;
	}
	sl_dbg(ctx, "context %p created with root %s", (void *)ctx, ctx->root);
	return ctx;

fail: {
	int saved = errno;

	free(ctx->root);
	free(ctx);
	errno = saved;
	return NULL;
}
}

_public_ struct splitlock_ctx *splitlock_ref(struct splitlock_ctx *ctx)
{
	if (ctx)
		ctx->refcount++;
	return ctx;
}

_public_ struct splitlock_ctx *splitlock_unref(struct splitlock_ctx *ctx)
{
	if (!ctx)
		return NULL;
	if (--ctx->refcount > 0)
		return ctx;
	close(ctx->root_fd);
	free(ctx->root);
	free(ctx);
	return NULL;
}

_public_ void splitlock_set_log_fn(struct splitlock_ctx *ctx,
				   splitlock_log_fn fn, void *data)
{
	ctx->log_fn = fn;
	ctx->log_data = data;
}

_public_ int splitlock_get_log_priority(const struct splitlock_ctx *ctx)
{
	return ctx->log_priority;
}

_public_ void splitlock_set_log_priority(struct splitlock_ctx *ctx,
					 int priority)
{
	ctx->log_priority = priority;
}

_public_ const char *splitlock_get_root(const struct splitlock_ctx *ctx)
{
	return ctx->root;
}
