/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Persisting the split_lock_detect= boot parameter through the system's own
 * bootloader tool. Each backend (lib/boot-*.c) fills one struct sl_boot_backend;
 * lib/boot/ detects, plans, applies and verifies with them.
 */
#ifndef SPLITLOCK_BOOTLOADER_H
#define SPLITLOCK_BOOTLOADER_H

#include "core/internal.h"

#define SL_PARAM "split_lock_detect"

/* A file the plan writes: @new == NULL deletes a file we created earlier. */
struct sl_file_change {
	char *path;      /* under the root */
	char *old;       /* NULL: the file does not exist yet */
	size_t old_len;
	char *new;
	bool in_place;   /* an existing file we edit: keep a backup */
	bool backed_up;  /* this run moved or linked the old file to its backup */
	bool touched;    /* this run changed the file: restore it on failure */
};

/* A regeneration command, never a shell string; it runs inside the root. */
struct sl_command {
	char **argv;
	char **env;       /* extra NAME=VALUE for the tool */
	size_t argc, envc;
};

/* A file a tool rewrites (BLS entries): restored from memory on failure. */
struct sl_snapshot {
	char *path;
	char *data;      /* NULL: did not exist */
	size_t len;
	bool backed_up;  /* a copy waits at PATH.slctl-backup */
};

/* What a failed apply left changed. */
struct sl_leftover {
	char *path;
	enum splitlock_boot_leftover kind;
	char *fix;       /* NULL: regenerate with the previous setting */
};

struct splitlock_boot_plan {
	struct splitlock_ctx *ctx;
	const struct sl_boot_backend *backend;
	enum splitlock_mode mode;  /* UNKNOWN: remove the parameter */
	unsigned ratelimit;
	char token[64];            /* "split_lock_detect=V", "" when removing */
	bool run_tools;            /* apply runs the commands (inside the root) */
	bool tools_ran;
	struct sl_file_change *files;
	size_t n_files;
	struct sl_command *cmds;
	size_t n_cmds;
	struct sl_snapshot *snaps;
	size_t n_snaps;
	char *diff;
	char *error;               /* one sentence about the last failure */
	int refusal;               /* why no backend was chosen; 0 when one was */
	enum splitlock_boot_outcome outcome;
	struct sl_leftover *leftovers;
	size_t n_leftovers;
	char previous[48];         /* mode before apply, "" when unknown */
	void *data;                /* backend state */
	void (*free_data)(void *data);
};

enum {
	SL_DETECT_NO = 0,
	SL_DETECT_PLAUSIBLE = 1, /* configured, but another may be too */
	SL_DETECT_DECISIVE = 2,  /* this system is managed this way */
};

struct sl_boot_backend {
	const char *name;
	/* Other names users know it by, NULL-terminated (may be NULL). */
	const char *const *aliases;
	/* SL_DETECT_*, or a negative errno. */
	int (*detect)(struct splitlock_ctx *ctx);
	/*
	 * The kernel command line (or the part of it this backend controls) the
	 * next boot will use, and where it comes from (both malloc'ed).
	 * -ENOENT: nothing configured; -EBADMSG: a format we refuse, with a
	 * sentence in *source.
	 */
	int (*read)(struct splitlock_ctx *ctx, char **cmdline, char **source);
	/* Fill plan->files and plan->cmds; sl_plan_fail() explains a refusal. */
	int (*plan)(struct splitlock_boot_plan *plan);
	/* Run the commands (NULL: sl_boot_run_commands). */
	int (*regenerate)(struct splitlock_boot_plan *plan);
	/* After regeneration: check what the tool produced (may be NULL). */
	int (*verify)(struct splitlock_boot_plan *plan);
};

extern const struct sl_boot_backend sl_boot_grub;
extern const struct sl_boot_backend sl_boot_grubby;
extern const struct sl_boot_backend sl_boot_kernel_install;
extern const struct sl_boot_backend sl_boot_rpm_ostree;
extern const struct sl_boot_backend sl_boot_kernelstub;
extern const struct sl_boot_backend sl_boot_mkinitcpio;
extern const struct sl_boot_backend sl_boot_refind;

/* boot.c: helpers for backends */
int sl_plan_fail(struct splitlock_boot_plan *plan, int err, const char *format, ...)
	_printf_(3, 4);
/* Plan to replace @path's content (read now) with @new (taken over). */
int sl_plan_file(struct splitlock_boot_plan *plan, const char *path, char *new);
/* Plan to delete @path (a file slctl created). */
int sl_plan_delete(struct splitlock_boot_plan *plan, const char *path);
struct sl_command *sl_plan_command(struct splitlock_boot_plan *plan);
int sl_cmd_arg(struct sl_command *cmd, const char *arg);
int sl_cmd_argf(struct sl_command *cmd, const char *format, ...) _printf_(2, 3);
/* NAME=VALUE in the command's environment. */
int sl_cmd_env(struct sl_command *cmd, const char *name, const char *value);
int sl_plan_snapshot(struct splitlock_boot_plan *plan, const char *path);
/* Run a command (first of plan-independent tools), output captured. */
int sl_boot_run_commands(struct splitlock_boot_plan *plan);
/* Check one command line: exactly the plan's token, or none when removing. */
bool sl_plan_cmdline_ok(const struct splitlock_boot_plan *plan, const char *cmdline);

/* An executable named @name in /usr/sbin, /usr/bin, /sbin or /bin under the root. */
bool sl_have_tool(struct splitlock_ctx *ctx, const char *name);
bool sl_exists(struct splitlock_ctx *ctx, const char *path);
bool sl_is_symlink(struct splitlock_ctx *ctx, const char *path);
/*
 * Sorted names in @dir ending in @suffix, not hidden (NULL-terminated,
 * malloc'ed; none when @dir is missing). On error *@names is NULL.
 */
int sl_list_dir(struct splitlock_ctx *ctx, const char *dir, const char *suffix,
		char ***names);
void sl_strv_free(char **v);

/* cmdline-edit.c */
/*
 * Remove every split_lock_detect token of the command line @in (@len bytes)
 * and append @token unless it is NULL or empty; every other token keeps its
 * place and the white space around it. Double quotes group words;
 * -EBADMSG when they are unbalanced.
 */
int sl_cmdline_set(const char *in, size_t len, const char *token, char **out);
/* Number of split_lock_detect tokens; *@last (may be NULL) the last one. */
unsigned sl_cmdline_count(const char *in, size_t len, char **last);
/*
 * Command line files whose lines starting with "#" are comments
 * (mkinitcpio's): the other lines joined by spaces, as the tool reads
 * them; and the file with every token removed from those lines and @token
 * (unless NULL or empty) appended to the last of them, comments untouched.
 */
int sl_cmdline_file_join(const char *text, char **out);
int sl_cmdline_file_set(const char *text, const char *token, char **out);

/* grub-defaults.c */
struct sl_sh_file {
	const char *path;
	const char *text;
};

/* An assignment to GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT. */
struct sl_grub_assign {
	size_t file;         /* index into the files */
	unsigned line;
	bool is_default;     /* GRUB_CMDLINE_LINUX_DEFAULT */
	size_t value_start;  /* byte range of the value word in the text */
	size_t value_end;
	char quote;          /* '"' or '\'' when the value is one quoted string,
				0 when it is empty, 'x' otherwise */
};

struct sl_grub_result {
	char *linux_;        /* GRUB_CMDLINE_LINUX */
	char *linux_default; /* GRUB_CMDLINE_LINUX_DEFAULT */
	struct sl_grub_assign *assigns;
	size_t n_assigns;
	char *error;         /* set when evaluation failed */
};

/*
 * Evaluate @files in order as sh would source them, for the two command
 * line variables. -EBADMSG with result->error for what we refuse.
 */
int sl_grub_eval(const struct sl_sh_file *files, size_t n,
		 struct sl_grub_result *result);
void sl_grub_result_free(struct sl_grub_result *result);

/* diff.c: unified diff of two texts, appended to *@out. */
int sl_diff(const char *path, const char *old, const char *new, char **out);

#define SL_BACKUP_SUFFIX ".slctl-backup"

/* tree-scan.c: identities of everything under @dirs (NULL-terminated). */
struct sl_tree_scan;
int sl_tree_scan(struct splitlock_ctx *ctx, const char *const *dirs,
		 struct sl_tree_scan **out);
void sl_tree_scan_free(struct sl_tree_scan *scan);
/* @fn for each path created, removed or rewritten between the two scans. */
int sl_tree_scan_diff(const struct sl_tree_scan *before, const struct sl_tree_scan *after,
		      int (*fn)(void *data, const char *path, enum splitlock_boot_leftover kind),
		      void *data);

/*
 * spawn.c: run @argv (PATH lookup) with @env added, inside the context's
 * root (chroot when it is not "/", with that root's standard PATH); stdout
 * to *@output when not NULL, to our stderr otherwise. Returns the exit
 * status (>= 0), or a negative errno when it could not run.
 */
int sl_spawn(struct splitlock_ctx *ctx, char *const *argv, char *const *env,
	     char **output);

#endif
