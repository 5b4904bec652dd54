/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel-install (systemd-boot, BLS entries, UKIs built by its plugins):
 * the command line lives in /etc/kernel/cmdline, falling back to
 * /usr/lib/kernel/cmdline and then /proc/cmdline exactly as
 * 90-loaderentry.install does. We token-edit /etc/kernel/cmdline, then run
 * "kernel-install add VERSION IMAGE INITRD" for each kernel that has an
 * entry of this machine, always with its initrd: without one the new entry
 * would boot without it.
 */
#include <errno.h>

#include "boot/boot.h"

#define CMDLINE "/etc/kernel/cmdline"

static const char *const sources[] = {
	CMDLINE, "/usr/lib/kernel/cmdline", "/proc/cmdline",
};

/* The machine's entry token: /etc/kernel/entry-token, else the machine ID. */
static int entry_token(struct splitlock_ctx *ctx, char *buf, size_t size)
{
	int r = sl_read_line(ctx, "/etc/kernel/entry-token", buf, size);

	if (r < 0 || !*buf)
		r = sl_read_line(ctx, "/etc/machine-id", buf, size);
	if (r == 0 && !*buf)
		r = -ENOENT;
	return r;
}

/* Where kernel-install puts entries: the first of its candidates that has them. */
static const char *boot_root(struct splitlock_ctx *ctx)
{
	static const char *const roots[] = { "/efi", "/boot", "/boot/efi" };

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/loader/entries", roots[i]);
		if (sl_access(ctx, path, F_OK) == 0)
			return roots[i];
	}
	return "/boot";
}

/* This machine's entry files, as paths under the root. */
static int machine_entries(struct splitlock_ctx *ctx, char ***out)
{
	char token[128], dir[64], **names = NULL, **paths;
	size_t n = 0;
	int r;

	*out = NULL;
	if (entry_token(ctx, token, sizeof(token)) < 0)
		token[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/loader/entries", boot_root(ctx));
	r = sl_list_dir(ctx, dir, ".conf", &names);
	if (r < 0)
		return r;
	paths = calloc(1, sizeof(*paths));
	for (size_t i = 0; paths && names[i]; i++) {
		char **bigger;

		if (!*token || !startswith(names[i], token) || names[i][strlen(token)] != '-')
			continue;
		bigger = realloc(paths, (n + 2) * sizeof(*paths));
		if (!bigger)
			break;
		paths = bigger;
		if (asprintf(&paths[n], "%s/%s", dir, names[i]) >= 0)
			n++;
		paths[n] = NULL;
	}
	sl_strv_free(names);
	if (!paths)
		return -ENOMEM;
	*out = paths;
	return (int)n;
}

/* Value of the first "KEY value" line of a BLS entry (malloc'ed), or NULL. */
static char *entry_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, klen) == 0 && (l[klen] == ' ' || l[klen] == '\t')) {
			const char *v = l + klen + strspn(l + klen, " \t");

			return strndup(v, strcspn(v, "\n"));
		}
	}
	return NULL;
}

/* @key's value in the entry file @path, or NULL when it has no such line. */
static int read_entry_field(struct splitlock_ctx *ctx, const char *path,
			    const char *key, char **value)
{
	_cleanup_free_ char *text = NULL;
	int r = sl_read_file(ctx, path, SL_MAX_CONFIG_SIZE, &text, NULL);

	*value = r < 0 ? NULL : entry_field(text, key);
	return r;
}

static int ki_detect(struct splitlock_ctx *ctx)
{
	char **entries = NULL;
	int n;

	if (sl_exists(ctx, CMDLINE))
		return SL_DETECT_PLAUSIBLE;
	n = machine_entries(ctx, &entries);
	sl_strv_free(entries);
	return n > 0 ? SL_DETECT_PLAUSIBLE : SL_DETECT_NO;
}

/* The base command line and its file; /proc/cmdline loses BOOT_IMAGE= and initrd=. */
static int base_cmdline(struct splitlock_ctx *ctx, char **cmdline, const char **from)
{
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		int r = sl_read_file(ctx, sources[i], 64 * 1024, cmdline, NULL);

		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		*from = sources[i];
		if (i == ARRAY_SIZE(sources) - 1) {
			/* Keep every token except the boot loader's own. */
			char *out = malloc(strlen(*cmdline) + 2), *p = out;

			if (!out)
				return -ENOMEM;
			*p = '\0';
			for (char *w = strtok(*cmdline, " \t\n"); w; w = strtok(NULL, " \t\n"))
				if (!startswith(w, "BOOT_IMAGE=") && !startswith(w, "initrd="))
					p += sprintf(p, "%s%s", p == out ? "" : " ", w);
			strcpy(p, "\n");
			free(*cmdline);
			*cmdline = out;
		}
		return 0;
	}
	return -ENOENT;
}

static int ki_read(struct splitlock_ctx *ctx, char **cmdline, char **source)
{
	const char *from = NULL;
	int r = base_cmdline(ctx, cmdline, &from);

	*source = from ? strdup(from) : NULL;
	return r;
}

static bool have_file(struct splitlock_ctx *ctx, char *buf, size_t size,
		      const char *format, const char *version)
{
	snprintf(buf, size, format, version);
	return sl_access(ctx, buf, F_OK) == 0;
}

/* kernel-install add for the kernel of @entry, with its image and initrd. */
static int add_command(struct splitlock_boot_plan *plan, const char *entry)
{
	struct splitlock_ctx *ctx = plan->ctx;
	char image[512], initrd[512], token[128];
	_cleanup_free_ char *version = NULL;
	struct sl_command *cmd;
	int r = read_entry_field(ctx, entry, "version", &version);

	if (r < 0)
		return r;
	if (!version)
		return sl_plan_fail(plan, -EBADMSG, "%s has no version line; nothing was changed",
				    entry);
	if (!have_file(ctx, image, sizeof(image), "/boot/vmlinuz-%s", version) &&
	    !have_file(ctx, image, sizeof(image), "/usr/lib/modules/%s/vmlinuz", version))
		return sl_plan_fail(plan, -ENOENT, "the kernel image of %s (entry %s) "
				    "is not in /boot or /usr/lib/modules; nothing was changed",
				    version, entry);
	if (!have_file(ctx, initrd, sizeof(initrd), "/boot/initrd.img-%s", version) &&
	    !have_file(ctx, initrd, sizeof(initrd), "/boot/initramfs-%s.img", version) &&
	    !have_file(ctx, initrd, sizeof(initrd), "/usr/lib/modules/%s/initrd", version))
		return sl_plan_fail(plan, -ENOENT, "no initrd found for kernel %s; "
				    "kernel-install would write an entry without one, "
				    "so nothing was changed", version);
	cmd = sl_plan_command(plan);
	if (!cmd)
		return -ENOMEM;
	r = sl_cmd_arg(cmd, "kernel-install");
	if (r == 0)
		r = sl_cmd_arg(cmd, "add");
	if (r == 0)
		r = sl_cmd_arg(cmd, version);
	if (r == 0)
		r = sl_cmd_arg(cmd, image);
	if (r == 0)
		r = sl_cmd_arg(cmd, initrd);
	/*
	 * The entry directory and machine id slctl read, so that kernel-install
	 * rewrites the very entry that was checked (it runs inside the root).
	 */
	if (r == 0)
		r = sl_cmd_env(cmd, "BOOT_ROOT", boot_root(ctx));
	if (r == 0 && sl_read_line(ctx, "/etc/machine-id", token, sizeof(token)) == 0 && *token)
		r = sl_cmd_env(cmd, "MACHINE_ID", token);
	return r;
}

static int ki_plan(struct splitlock_boot_plan *plan)
{
	struct splitlock_ctx *ctx = plan->ctx;
	_cleanup_free_ char *base = NULL;
	char *new = NULL, **entries = NULL;
	const char *from = NULL;
	int n, r;

	if (sl_is_symlink(ctx, CMDLINE))
		return sl_plan_fail(plan, -ELOOP, CMDLINE " is a symbolic link; symlinks are not "
				    "written through, replace it with a file");
	n = machine_entries(ctx, &entries);
	if (n < 0)
		return sl_plan_fail(plan, n, "cannot list the boot entries: %s", strerror(-n));
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *options = NULL;

		r = read_entry_field(ctx, entries[i], "options", &options);
		if (r == 0 && options && strchr(options, '$'))
			r = sl_plan_fail(plan, -EBADMSG, "%s takes its options from a "
					 "variable (%s), which is not edited; nothing was changed",
					 entries[i], options);
		if (r < 0)
			goto fail;
	}
	r = base_cmdline(ctx, &base, &from);
	if (r == -ENOENT) {
		base = strdup("");
		r = base ? 0 : -ENOMEM;
	}
	if (r < 0) {
		r = sl_plan_fail(plan, r, "cannot read the kernel command line: %s", strerror(-r));
		goto fail;
	}
	if (!*base || base[strlen(base) - 1] != '\n') {
		char *with_nl = NULL;

		if (asprintf(&with_nl, "%s\n", base) < 0) {
			r = -ENOMEM;
			goto fail;
		}
		free(base);
		base = with_nl;
	}
	r = sl_cmdline_set(base, strlen(base), plan->token, &new);
	if (r == 0)
		r = sl_plan_file(plan, CMDLINE, new);
	if (r < 0 || plan->n_files == 0)
		goto fail;
	for (int i = 0; i < n && r == 0; i++) {
		r = add_command(plan, entries[i]);
		if (r == 0)
			r = sl_plan_snapshot(plan, entries[i]);
	}
fail:
	sl_strv_free(entries);
	return r;
}

/* Every entry of this machine now carries the token (or none). */
static int ki_verify(struct splitlock_boot_plan *plan)
{
	char **entries = NULL;
	int n = machine_entries(plan->ctx, &entries), r = 0;

	for (int i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *options = NULL;

		r = read_entry_field(plan->ctx, entries[i], "options", &options);
		if (r < 0 || !sl_plan_cmdline_ok(plan, options ? options : ""))
			r = sl_plan_fail(plan, -EBADMSG, "%s does not carry %s after "
					 "kernel-install ran", entries[i],
					 plan->token[0] ? plan->token : "the removal");
	}
	sl_strv_free(entries);
	return n < 0 ? n : r;
}

/* systemd-boot's own name: what users think they run. */
static const char *const ki_aliases[] = { "systemd-boot", NULL };

const struct sl_boot_backend sl_boot_kernel_install = {
	.name = "kernel-install",
	.aliases = ki_aliases,
	.detect = ki_detect,
	.read = ki_read,
	.plan = ki_plan,
	.verify = ki_verify,
};
