/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which sysctl.d file decides a key at the next boot, by systemd-sysctl's
 * rules (systemd src/sysctl/sysctl.c, src/shared/conf-files.c):
 *  - directories in falling priority: /etc, /run, /usr/local/lib, /usr/lib;
 *  - a file name in a higher directory hides the same name below, and a
 *    symlink to /dev/null (or an empty file) masks it;
 *  - the survivors are applied in file-name order across directories, and a
 *    later assignment of a key replaces an earlier one;
 *  - '.' and '/' are equivalent separators in keys, a leading '-' only
 *    silences errors, and keys may be shell globs.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include "dir-list.h"
#include "core/internal.h"
#include "core/linereader.h"

static const char *const sysctld_dirs[] = {
	"/etc/sysctl.d",
	"/run/sysctl.d",
	"/usr/local/lib/sysctl.d",
	"/usr/lib/sysctl.d",
};

struct entry {
	char *file;
	unsigned line;
	char *value;
};

struct splitlock_sysctld {
	struct entry *entries;
	size_t count;
};

struct conf_file {
	char *name; /* base name, the sort key */
	char *path; /* under the root */
	bool masked;
};

static void conf_files_free(struct conf_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].name);
		free(files[i].path);
	}
	free(files);
}

static int cmp_conf(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->name,
		      ((const struct conf_file *)b)->name);
}

static bool is_masked(struct splitlock_ctx *ctx, const char *path)
{
	char target[64];
	struct stat st;

	if (sl_readlink(ctx, path, target, sizeof(target)) > 0 &&
	    streq(target, "/dev/null"))
		return true;
	if (sl_lstat(ctx, path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		return true;
	return false;
}

static bool is_conf_name(const char *name, void *data)
{
	size_t len = strlen(name);

	(void)data;
	return name[0] != '.' && len >= 6 && streq(name + len - 5, ".conf");
}

/* All *.conf names, each from the highest-priority directory holding it. */
static int list_conf_files(struct splitlock_ctx *ctx, struct conf_file **out,
			   size_t *count)
{
	int dirs[ARRAY_SIZE(sysctld_dirs)], counts[ARRAY_SIZE(sysctld_dirs)];
	char **listed[ARRAY_SIZE(sysctld_dirs)];
	struct conf_file *files = NULL;
	size_t n = 0, cap = 0;
	int r;

	/* All listed at once, in one bounded child where it takes one. */
	for (size_t d = 0; d < ARRAY_SIZE(sysctld_dirs); d++)
		dirs[d] = sl_open_dir(ctx, sysctld_dirs[d]);
	r = sl_dir_lists_bounded(ctx, sysctld_dirs, dirs, ARRAY_SIZE(sysctld_dirs), is_conf_name,
				 NULL, listed, counts);
	if (r < 0)
		return r;
	for (size_t d = 0; d < ARRAY_SIZE(sysctld_dirs); d++) {
		char **names = listed[d];
		int m = counts[d];

		/* An unreadable directory is skipped, as systemd-sysctl does. */
		if (m == -ENOMEM)
			r = m;
		if (r < 0 || m < 0) {
			dir_list_free(names, m > 0 ? (size_t)m : 0);
			continue;
		}
		for (int k = 0; k < m && r >= 0; k++) {
			bool seen = false;
			char *path;

			for (size_t i = 0; i < n && !seen; i++)
				seen = streq(files[i].name, names[k]);
			if (seen)
				continue;
			if (n == cap) {
				struct conf_file *bigger;

				cap = cap ? cap * 2 : 16;
				bigger = realloc(files, cap * sizeof(*files));
				if (!bigger) {
					r = -ENOMEM;
					break;
				}
				files = bigger;
			}
			if (asprintf(&path, "%s/%s", sysctld_dirs[d], names[k]) < 0) {
				r = -ENOMEM;
				break;
			}
			files[n].path = path;
			files[n].name = names[k];
			names[k] = NULL; /* moved into files[n] */
			files[n].masked = is_masked(ctx, path);
			n++;
		}
		dir_list_free(names, m > 0 ? (size_t)m : 0);
	}
	if (r < 0) {
		conf_files_free(files, n);
		return r;
	}
	if (n)
		qsort(files, n, sizeof(*files), cmp_conf);
	*out = files;
	*count = n;
	return 0;
}

/* systemd's sysctl_normalize(): '/'-separated form, so both spellings match. */
void sl_sysctl_normalize_key(char *key)
{
	char *sep = strpbrk(key, "./");

	if (!sep || *sep == '/')
		return;
	for (char *p = key; *p; p++) {
		if (*p == '.')
			*p = '/';
		else if (*p == '/')
			*p = '.';
	}
}

static char *strip(char *s)
{
	char *end;

	s += strspn(s, " \t\r");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static int add_entry(struct splitlock_sysctld *r, const char *file,
		     unsigned line, const char *value)
{
	struct entry *bigger = realloc(r->entries, (r->count + 1) * sizeof(*bigger));

	if (!bigger)
		return -ENOMEM;
	r->entries = bigger;
	bigger[r->count].file = strdup(file);
	bigger[r->count].value = strdup(value);
	bigger[r->count].line = line;
	r->count++;
	if (!bigger[r->count - 1].file || !bigger[r->count - 1].value)
		return -ENOMEM;
	return 0;
}

/*
 * One line of a sysctl.d file, modified in place: 1 and *@value when it
 * assigns @want (normalized), 0 otherwise.
 */
int sl_sysctld_parse_line(char *line, const char *want, const char **value)
{
	char *key = strip(line), *eq;

	if (!*key || *key == '#' || *key == ';')
		return 0;
	eq = strchr(key, '=');
	if (!eq)
		return 0;
	*eq = '\0';
	*value = strip(eq + 1);
	key = strip(key);
	if (*key == '-')
		key = strip(key + 1);
	sl_sysctl_normalize_key(key);
	if (strpbrk(key, "*?[") ? fnmatch(key, want, 0) != 0 : !streq(key, want))
		return 0;
	return 1;
}

/* systemd-sysctl gives up on a file at a line longer than this. */
#define SYSCTL_LINE_MAX (1024 * 1024)

static int parse_file(struct splitlock_ctx *ctx, const char *path,
		      const char *want, struct splitlock_sysctld *result)
{
	/*
	 * systemd-sysctl follows a symlink here (Debian's 99-sysctl.conf points
	 * to ../sysctl.conf), so we do, inside the root; but a FIFO or device
	 * is refused rather than waited on.
	 */
	_cleanup_close_ int fd = sl_open_regular(ctx, path, true);
	struct sl_linereader lr;
	unsigned lineno = 0;
	bool truncated;
	char *line;
	size_t len;
	int r;

	if (fd < 0) {
		if (fd != -EBADFD) /* already explained */
			sl_warn(ctx, "cannot read %s: %s", path, strerror(-fd));
		return 0;
	}
	r = sl_linereader_init(&lr, fd, SYSCTL_LINE_MAX);
	if (r < 0)
		return r;
	while ((r = sl_linereader_next(&lr, &line, &len, &truncated)) > 0) {
		const char *value;

		lineno++;
		if (truncated) {
			sl_warn(ctx, "%s:%u: line too long; the rest of the file is ignored, "
				"as systemd-sysctl does", path, lineno);
			break;
		}
		/* A NUL ends the line for systemd-sysctl too. */
		if (sl_sysctld_parse_line(line, want, &value) > 0) {
			r = add_entry(result, path, lineno, value);
			if (r < 0)
				break;
		}
	}
	sl_linereader_done(&lr);
	if (r < 0 && r != -ENOMEM) {
		sl_warn(ctx, "cannot read %s: %s", path, strerror(-r));
		return 0;
	}
	return r < 0 ? r : 0;
}

_public_ int splitlock_sysctld_resolve(struct splitlock_ctx *ctx,
				       const char *key,
				       struct splitlock_sysctld **out)
{
	struct splitlock_sysctld *result;
	struct conf_file *files = NULL;
	char want[256];
	size_t n = 0;
	int r;

	*out = NULL;
	if (strlen(key) >= sizeof(want))
		return -EINVAL;
	strcpy(want, key);
	sl_sysctl_normalize_key(want);

	result = calloc(1, sizeof(*result));
	if (!result)
		return -ENOMEM;
	r = list_conf_files(ctx, &files, &n);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (!files[i].masked)
			r = parse_file(ctx, files[i].path, want, result);
	conf_files_free(files, n);
	if (r < 0) {
		splitlock_sysctld_free(result);
		return r;
	}
	*out = result;
	return 0;
}

_public_ struct splitlock_sysctld *splitlock_sysctld_free(struct splitlock_sysctld *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->count; i++) {
		free(r->entries[i].file);
		free(r->entries[i].value);
	}
	free(r->entries);
	free(r);
	return NULL;
}

_public_ size_t splitlock_sysctld_get_count(const struct splitlock_sysctld *r)
{
	return r->count;
}

_public_ int splitlock_sysctld_get_entry(const struct splitlock_sysctld *r,
					 size_t index, const char **file,
					 unsigned *line, const char **value)
{
	if (index >= r->count)
		return -ERANGE;
	if (file)
		*file = r->entries[index].file;
	if (line)
		*line = r->entries[index].line;
	if (value)
		*value = r->entries[index].value;
	return 0;
}

_public_ const char *splitlock_sysctld_get_value(const struct splitlock_sysctld *r)
{
	return r->count ? r->entries[r->count - 1].value : NULL;
}

_public_ const char *splitlock_sysctld_get_file(const struct splitlock_sysctld *r)
{
	return r->count ? r->entries[r->count - 1].file : NULL;
}

_public_ const char *splitlock_sysctld_get_override(const struct splitlock_sysctld *r,
						   const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = r->count; i-- > 0;) {
		const char *fbase = strrchr(r->entries[i].file, '/');

		fbase = fbase ? fbase + 1 : r->entries[i].file;
		if (strcmp(fbase, base) > 0)
			return r->entries[i].file;
	}
	return NULL;
}
