/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one sysctl.d drop-in slctl owns. It is recognised by its first line;
 * any other file at that path, or a symlink, is left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "core/internal.h"

#define DROPIN_HEADER "# Managed by slctl(8): edit with 'slctl mitigate'.\n"

/*
 * Whether @line (@len bytes) assigns @key the way systemd-sysctl reads it:
 * "kernel/split_lock_mitigate", a leading '-', or a glob all count, or a
 * second line in another spelling would silently win over ours.
 */
static bool key_matches(const char *line, size_t len, const char *key)
{
	_cleanup_free_ char *copy = strndup(line, len);
	char want[256];
	const char *value;

	if (!copy || strlen(key) >= sizeof(want))
		return false;
	strcpy(want, key);
	sl_sysctl_normalize_key(want);
	return sl_sysctld_parse_line(copy, want, &value) > 0;
}

/* Whether two stats are one version of a file: a rename brings a new inode. */
static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec && a->st_size == b->st_size;
}

int sl_dropin_read_back(struct splitlock_ctx *ctx, const char *key,
			const char *written, char **value, bool *still_ours)
{
	/* Each round is a few reads; writers that keep replacing it win. */
	for (int round = 0; round < 8; round++) {
		struct splitlock_sysctld *res = NULL;
		_cleanup_free_ char *now = NULL;
		const char *got = NULL;
		struct stat before, after;
		int r;

		if (sl_lstat(ctx, SPLITLOCK_SYSCTLD_DROPIN, &before) < 0)
			return -errno;
		r = splitlock_sysctld_resolve(ctx, key, &res);
		if (r < 0)
			return r;
		for (size_t i = 0; i < splitlock_sysctld_get_count(res); i++) {
			const char *file, *v;

			if (splitlock_sysctld_get_entry(res, i, &file, NULL, &v) == 0 &&
			    streq(file, SPLITLOCK_SYSCTLD_DROPIN))
				got = v;
		}
		r = sl_read_file(ctx, SPLITLOCK_SYSCTLD_DROPIN, SL_MAX_CONFIG_SIZE, &now, NULL);
		if (r == 0 && sl_lstat(ctx, SPLITLOCK_SYSCTLD_DROPIN, &after) < 0)
			r = -errno;
		if (r < 0) {
			splitlock_sysctld_free(res);
			return r;
		}
		if (!same_version(&before, &after)) {
			splitlock_sysctld_free(res);
			continue;
		}
		*still_ours = streq(now, written);
		*value = got ? strdup(got) : NULL;
		splitlock_sysctld_free(res);
		return got && !*value ? -ENOMEM : 0;
	}
	*still_ours = false;
	*value = NULL;
	return 0;
}

/*
 * Read the drop-in back through the same resolver as status, which follows
 * systemd-sysctl: the last assignment of @key in our file must be @value.
 * Whether a later file overrides ours is the caller's to report.
 */
static int read_back(struct splitlock_ctx *ctx, const char *key, const char *value,
		     const char *text)
{
	_cleanup_free_ char *got = NULL;
	bool ours;
	int r = sl_dropin_read_back(ctx, key, text, &got, &ours);

	if (r < 0)
		return r;
	/* Another writer replaced our file since: the last one wins. */
	if (!ours || (got && streq(got, value)))
		return 0;
	sl_err(ctx, "after writing, %s %s %s", SPLITLOCK_SYSCTLD_DROPIN,
	       got ? "assigns" : "does not assign", key);
	return -EBADMSG;
}

/* Our previous file with @key's lines replaced by one assignment. */
static int render(const char *old, const char *key, const char *value,
		  char **out)
{
	size_t cap = (old ? strlen(old) : 0) + strlen(DROPIN_HEADER) +
		     strlen(key) + strlen(value) + 8;
	char *buf = malloc(cap), *p = buf;
	bool replaced = false;

	if (!buf)
		return -ENOMEM;
	p += sprintf(p, "%s", DROPIN_HEADER);
	if (old) {
		const char *line = old + strlen(DROPIN_HEADER);

		while (*line) {
			size_t len = strcspn(line, "\n");

			if (key_matches(line, len, key)) {
				if (!replaced)
					p += sprintf(p, "%s = %s\n", key, value);
				replaced = true;
			} else {
				memcpy(p, line, len);
				p += len;
				*p++ = '\n';
			}
			line += len;
			if (*line == '\n')
				line++;
		}
	}
	if (!replaced)
		p += sprintf(p, "%s = %s\n", key, value);
	*p = '\0';
	*out = buf;
	return 0;
}

_public_ int splitlock_sysctld_persist(struct splitlock_ctx *ctx,
				       const char *key, const char *value,
				       unsigned flags, char **content)
{
	_cleanup_free_ char *old = NULL, *text = NULL;
	struct stat st;
	int r;

	if (content)
		*content = NULL;
	if (!key || !*key || strpbrk(key, " \t\n=") || !value ||
	    strpbrk(value, "\n") || (flags & ~SPLITLOCK_WRITE_DRY_RUN))
		return -EINVAL;

	r = sl_lstat(ctx, SPLITLOCK_SYSCTLD_DROPIN, &st);
	if (r == 0) {
		if (S_ISLNK(st.st_mode)) {
			sl_dbg(ctx, "%s is a symlink, which is never written through",
			       SPLITLOCK_SYSCTLD_DROPIN);
			return -ELOOP;
		}
		r = sl_read_file(ctx, SPLITLOCK_SYSCTLD_DROPIN,
				 SL_MAX_CONFIG_SIZE, &old, NULL);
		if (r < 0)
			return r;
		if (!startswith(old, DROPIN_HEADER)) {
			sl_dbg(ctx, "%s was not written by this library",
			       SPLITLOCK_SYSCTLD_DROPIN);
			return -EEXIST;
		}
	} else if (r != -ENOENT) {
		return r;
	}

	r = render(old, key, value, &text);
	if (r < 0)
		return r;
	r = sl_lstat(ctx, "/etc/sysctl.d", &st);
	if (r == 0 && S_ISLNK(st.st_mode)) {
		/* A link's own mode is always 0777: say what it is instead. */
		char target[256] = "";

		sl_readlink(ctx, "/etc/sysctl.d", target, sizeof(target));
		sl_err(ctx, "/etc/sysctl.d is a symbolic link (to %s); the drop-in is "
		       "written only into a real directory", target);
		return -ENOTDIR;
	}
	if (r == 0 && (st.st_mode & S_IWOTH)) {
		/* Anyone could plant a file there that overrides ours. */
		sl_err(ctx, "/etc/sysctl.d is writable by every user");
		return -EUCLEAN;
	}
	if (!(flags & SPLITLOCK_WRITE_DRY_RUN)) {
		r = sl_mkdir_p(ctx, "/etc/sysctl.d", 0755);
		if (r < 0)
			return r;
		r = sl_write_atomic(ctx, SPLITLOCK_SYSCTLD_DROPIN, text,
				    strlen(text), 0644);
		if (r < 0)
			return r;
		r = read_back(ctx, key, value, text);
		if (r < 0)
			return r;
	}
	if (content) {
		*content = text;
		text = NULL;
	}
	return 0;
}
