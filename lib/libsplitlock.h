/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsplitlock: read and steer the x86 split-lock detector of Linux.
 *
 * Every function taking a context resolves system paths (/proc, /sys,
 * /dev/kmsg, /etc, /boot, /run, /usr/lib) under the root the context was
 * created with, so the same code serves the running system and fake roots.
 *
 * Unless said otherwise, functions return 0 on success and a negative errno
 * on failure; constructors return NULL. The library never prints: messages
 * go to the log function (see splitlock_set_log_fn()).
 */
#ifndef LIBSPLITLOCK_H
#define LIBSPLITLOCK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- context ------------------------------------------------------------ */

struct splitlock_ctx;

/*
 * Create a context whose system paths resolve under @root (NULL or "/" for
 * the running system). Starts with a reference count of 1. The environment
 * variable SPLITLOCK_LOG (err, warning, info, debug or a number) raises the
 * log priority. Returns NULL with errno set on failure.
 */
struct splitlock_ctx *splitlock_new(const char *root);
struct splitlock_ctx *splitlock_ref(struct splitlock_ctx *ctx);
/* Drops a reference; returns NULL when the context was freed. Accepts NULL. */
struct splitlock_ctx *splitlock_unref(struct splitlock_ctx *ctx);

typedef void (*splitlock_log_fn)(void *data, int priority, const char *file,
				 int line, const char *fn, const char *format,
				 va_list args);
/* Replace the default log function (errors to stderr). */
void splitlock_set_log_fn(struct splitlock_ctx *ctx, splitlock_log_fn fn,
			  void *data);
/* Syslog priorities: LOG_ERR (default) ... LOG_DEBUG. */
int splitlock_get_log_priority(const struct splitlock_ctx *ctx);
void splitlock_set_log_priority(struct splitlock_ctx *ctx, int priority);
/* The root given to splitlock_new(), normalized ("/" for the real system). */
const char *splitlock_get_root(const struct splitlock_ctx *ctx);

/* ---- CPU and kernel ----------------------------------------------------- */

enum {
	SPLITLOCK_CPU_SPLIT_LOCK_DETECT = 1u << 0, /* #AC on split locks */
	SPLITLOCK_CPU_BUS_LOCK_DETECT   = 1u << 1, /* #DB after bus locks */
	SPLITLOCK_CPU_HYPERVISOR        = 1u << 2, /* running in a VM */
};

/* Flags of the first CPU in /proc/cpuinfo, as SPLITLOCK_CPU_* bits. */
int splitlock_cpu_features(struct splitlock_ctx *ctx, unsigned *features);

/* Kernel release from /proc/sys/kernel/osrelease, without the newline. */
int splitlock_kernel_release(struct splitlock_ctx *ctx, char *buf, size_t size);

enum {
	/* kernel.split_lock_mitigate exists (6.2+, some stable backports) */
	SPLITLOCK_KERNEL_MITIGATE_SYSCTL = 1u << 0,
	/* /sys/kernel/split_lock/ from the kernel-patch/ series */
	SPLITLOCK_KERNEL_SYSFS           = 1u << 1,
	/* /dev/kmsg can be opened for reading */
	SPLITLOCK_KERNEL_KMSG            = 1u << 2,
	/* /proc/PID/split_lock per-process counters (patched kernel) */
	SPLITLOCK_KERNEL_PROC_COUNTERS   = 1u << 3,
	/* /sys/kernel/debug/split_lock/inject (patched, test-only) */
	SPLITLOCK_KERNEL_INJECT          = 1u << 4,
};

/* Which of the interfaces above this kernel offers, as bits. */
int splitlock_kernel_interfaces(struct splitlock_ctx *ctx, unsigned *ifaces);

/*
 * Counters of the patched kernel (/sys/kernel/split_lock/stats): the value
 * of @name (e.g. "ac_traps"). -ENOENT when the kernel or counter is absent.
 */
int splitlock_kernel_stat(struct splitlock_ctx *ctx, const char *name,
			  uint64_t *value);

/* ---- detection mode ----------------------------------------------------- */

enum splitlock_mode {
	SPLITLOCK_MODE_UNKNOWN = 0,
	SPLITLOCK_MODE_OFF,
	SPLITLOCK_MODE_WARN,
	SPLITLOCK_MODE_SEQ,       /* needs the patched kernel */
	SPLITLOCK_MODE_FATAL,
	SPLITLOCK_MODE_RATELIMIT, /* with a rate of 1..1000 bus locks/s */
};

enum splitlock_mode_source {
	SPLITLOCK_SOURCE_NONE = 0,
	SPLITLOCK_SOURCE_SYSFS,    /* /sys/kernel/split_lock/mode */
	SPLITLOCK_SOURCE_BOOT_LOG, /* the detector's line at boot */
	SPLITLOCK_SOURCE_CMDLINE,  /* split_lock_detect= on /proc/cmdline */
	SPLITLOCK_SOURCE_DEFAULT,  /* nothing said: the kernel's default */
};

/*
 * Parse a mode as a user writes it: off, warn, seq, fatal, ratelimit:N with
 * 1 <= N <= 1000. Strict: anything else is -EINVAL. @ratelimit may be NULL.
 */
int splitlock_mode_parse(const char *text, enum splitlock_mode *mode,
			 unsigned *ratelimit);
/* "off", "warn", "seq", "fatal", "ratelimit:N"; -ENOSPC if @size is small. */
int splitlock_mode_format(enum splitlock_mode mode, unsigned ratelimit,
			  char *buf, size_t size);
/* Short static name of a source: "sysfs", "boot-log", "cmdline", "default". */
const char *splitlock_mode_source_name(enum splitlock_mode_source source);

/*
 * Interpret one split_lock_detect= value exactly as the kernel does: unknown
 * words and ratelimit outside 1..1000 mean warn. Never fails.
 */
void splitlock_mode_from_param(const char *value, size_t len,
			       enum splitlock_mode *mode, unsigned *ratelimit);
/*
 * Find the split_lock_detect= parameter in a kernel command line; the last
 * one counts, as in the kernel. Returns 1 and the mode when found, 0 when the
 * command line does not set it.
 */
int splitlock_mode_from_cmdline(const char *cmdline, enum splitlock_mode *mode,
				unsigned *ratelimit);
/*
 * Interpret a kernel log message (without the record prefix) as the
 * detector's boot line of any kernel since 5.7. Returns 1 and the mode when
 * it is one, 0 otherwise.
 */
int splitlock_mode_from_boot_line(const char *message,
				  enum splitlock_mode *mode,
				  unsigned *ratelimit);

/* What the running kernel does with split locks, and how we know. */
struct splitlock_mode_info;

int splitlock_mode_info_read(struct splitlock_ctx *ctx,
			     struct splitlock_mode_info **info);
struct splitlock_mode_info *
splitlock_mode_info_unref(struct splitlock_mode_info *info);
enum splitlock_mode
splitlock_mode_info_get_mode(const struct splitlock_mode_info *info);
unsigned splitlock_mode_info_get_ratelimit(const struct splitlock_mode_info *info);
enum splitlock_mode_source
splitlock_mode_info_get_source(const struct splitlock_mode_info *info);
/* True when the answer is inferred (cmdline, default), not read. */
bool splitlock_mode_info_is_guess(const struct splitlock_mode_info *info);
/* The text the answer came from (log line, cmdline token), or NULL. */
const char *splitlock_mode_info_get_evidence(const struct splitlock_mode_info *info);

/*
 * The mode the next boot will use, from the boot configuration of the
 * detected bootloader backend (see splitlock_boot_detect()); without one,
 * or with several, from /proc/cmdline. *@source names where it was found
 * ("grub: /etc/default/grub, /etc/default/grub.d/ *.cfg"); it belongs to the
 * context and stays valid until the next call. Returns 1 when a
 * split_lock_detect= parameter is configured, 0 when none is (the kernel's
 * default applies), -EBADMSG when the configuration is in a form slctl
 * refuses (the reason is in *@source).
 */
int splitlock_mode_next_boot(struct splitlock_ctx *ctx, enum splitlock_mode *mode,
			     unsigned *ratelimit, const char **source);

/* ---- the boot parameter, through the bootloader's own tool -------------- */

/*
 * Backends: "rpm-ostree", "kernelstub", "grubby", "kernel-install" (also
 * "systemd-boot"), "mkinitcpio", "grub", "refind". The list is NULL-terminated
 * and in detection order.
 */
const char *const *splitlock_boot_backends(void);

/*
 * The backends that manage this system's boot, in detection order: ostree
 * booted, kernelstub, grubby with BLS entries, kernel-install/systemd-boot,
 * a mkinitcpio UKI preset, update-grub/grub-mkconfig, rEFInd. A backend that
 * decides alone (the first three; mkinitcpio without BLS entries) is
 * returned alone. Fills up to @size names and returns how many apply: 0 none,
 * more than 1 ambiguous (ask the user).
 */
int splitlock_boot_detect(struct splitlock_ctx *ctx, const char **names,
			  size_t size);

/*
 * The next-boot mode as @backend has it configured: 1 and the mode when the
 * parameter is set, 0 when not. *@source (malloc'ed) says where; for
 * -EBADMSG (a configuration slctl refuses) it is the reason instead.
 * -EINVAL: unknown backend.
 */
int splitlock_boot_read(struct splitlock_ctx *ctx, const char *backend,
			enum splitlock_mode *mode, unsigned *ratelimit,
			char **source);

/*
 * A planned change of the boot parameter: the files it writes (with a
 * unified diff) and the regeneration commands, which can be printed and then
 * applied. Planning reads only; applying takes /run/lock/slctl.lock, writes
 * atomically with a backup (PATH.slctl-backup) of every file edited in
 * place, runs the commands, re-reads the result, and restores everything
 * when a command or the check fails.
 */
struct splitlock_boot_plan;

enum {
	/*
	 * Run the regeneration commands even though the root is not "/" (they
	 * get the paths under the root). Without it they are only listed.
	 */
	SPLITLOCK_BOOT_RUN_TOOLS = 1u << 0,
};

/*
 * A plan for @backend (NULL or "auto": detect). -ENOENT: no backend
 * detected; -ENOTUNIQ: several; -EINVAL: unknown name. In those cases a
 * plan is still returned so that splitlock_boot_plan_get_error() explains.
 */
int splitlock_boot_plan_new(struct splitlock_ctx *ctx, const char *backend,
			    unsigned flags, struct splitlock_boot_plan **plan);
/*
 * Plan setting @mode (SPLITLOCK_MODE_UNKNOWN: remove the parameter so the
 * kernel's default applies). Changes nothing on disk. A refusal (symlink,
 * unbalanced quotes, $variables, ...) returns a negative errno with a
 * sentence in splitlock_boot_plan_get_error().
 */
int splitlock_boot_plan_mode(struct splitlock_boot_plan *plan,
			     enum splitlock_mode mode, unsigned ratelimit);
struct splitlock_boot_plan *
splitlock_boot_plan_unref(struct splitlock_boot_plan *plan);
const char *splitlock_boot_plan_get_backend(const struct splitlock_boot_plan *plan);
/* Unified diff of every file the plan writes; NULL when none. */
const char *splitlock_boot_plan_get_diff(const struct splitlock_boot_plan *plan);
unsigned splitlock_boot_plan_get_file_count(const struct splitlock_boot_plan *plan);
/* Path (under the root) of file @index, NULL past the end. */
const char *splitlock_boot_plan_get_file(const struct splitlock_boot_plan *plan,
					 unsigned index);
unsigned splitlock_boot_plan_get_command_count(const struct splitlock_boot_plan *plan);
/* argv of command @index as it runs inside the root, NULL past the end. */
const char *const *
splitlock_boot_plan_get_command(const struct splitlock_boot_plan *plan,
				unsigned index);
/* Whether splitlock_boot_plan_apply() runs the commands (else prints them). */
bool splitlock_boot_plan_runs_commands(const struct splitlock_boot_plan *plan);
/*
 * Carry the plan out. -EBUSY: another slctl holds the lock; -ESTALE: a file
 * changed since planning; -ECHILD: a command failed (files restored);
 * -EBADMSG: the result does not hold the parameter (files restored).
 */
int splitlock_boot_plan_apply(struct splitlock_boot_plan *plan);
/* One sentence about the last failure, or NULL. */
const char *splitlock_boot_plan_get_error(const struct splitlock_boot_plan *plan);

/* ---- kernel.split_lock_mitigate ------------------------------------------ */

/* Runtime value (0 or 1); -ENOENT when the kernel has no such sysctl. */
int splitlock_mitigate_get(struct splitlock_ctx *ctx, int *value);
/*
 * Set the runtime value. -ENOENT: no sysctl; -EPERM/-EACCES: not allowed
 * (the patched kernel's seq mode also refuses 0 with -EPERM).
 */
int splitlock_mitigate_set(struct splitlock_ctx *ctx, int value);

/* ---- sysctl.d ------------------------------------------------------------ */

/*
 * Where systemd-sysctl will take a key from at the next boot: the sysctl.d
 * directories (/etc, /run, /usr/local/lib, /usr/lib), same-name shadowing,
 * /dev/null masks, file-name order, the last assignment wins, '.' and '/'
 * equivalent in keys.
 */
struct splitlock_sysctld;

int splitlock_sysctld_resolve(struct splitlock_ctx *ctx, const char *key,
			      struct splitlock_sysctld **result);
struct splitlock_sysctld *splitlock_sysctld_unref(struct splitlock_sysctld *r);
/* Number of assignments of the key, in the order they are applied. */
unsigned splitlock_sysctld_get_count(const struct splitlock_sysctld *r);
/*
 * Assignment @index: file (path under the root, e.g. /etc/sysctl.d/x.conf),
 * line number, value. The last index is the winner. Any out pointer may be
 * NULL. -ERANGE for a bad index.
 */
int splitlock_sysctld_get_entry(const struct splitlock_sysctld *r,
				unsigned index, const char **file,
				unsigned *line, const char **value);
/* The winning value and its file, or NULL when no file sets the key. */
const char *splitlock_sysctld_get_value(const struct splitlock_sysctld *r);
const char *splitlock_sysctld_get_file(const struct splitlock_sysctld *r);

/*
 * The file that would still decide the key if @path (a sysctl.d file in
 * /etc/sysctl.d) assigned it: the last assignment in a file whose name sorts
 * after @path's. NULL when @path would win.
 */
const char *splitlock_sysctld_get_override(const struct splitlock_sysctld *r,
					   const char *path);

/* The sysctl.d drop-in that slctl owns, named to sort after the others. */
#define SPLITLOCK_SYSCTLD_DROPIN "/etc/sysctl.d/zz-slctl.conf"

enum {
	SPLITLOCK_WRITE_DRY_RUN = 1u << 0, /* plan only, change nothing */
};

/*
 * Write (atomically) our drop-in so that @key = @value after reboot, keeping
 * any other key in it. *@content (may be NULL) receives the new file text,
 * to be freed by the caller. -ELOOP: the drop-in path is a symlink;
 * -EEXIST: a file we do not own sits there; -EUCLEAN: /etc/sysctl.d is
 * writable by every user, so nothing written there can be trusted.
 */
int splitlock_sysctld_persist(struct splitlock_ctx *ctx, const char *key,
			      const char *value, unsigned flags,
			      char **content);

/* ---- privileges ----------------------------------------------------------- */

enum splitlock_cap {
	SPLITLOCK_CAP_SYS_ADMIN,
	SPLITLOCK_CAP_SYSLOG,
	SPLITLOCK_CAP_SYS_RAWIO,
	SPLITLOCK_CAP_SYS_MODULE,
	SPLITLOCK_CAP_DAC_OVERRIDE,
};

/* 1 when this process has the capability effective, 0 when not. */
int splitlock_have_capability(enum splitlock_cap cap);
/* "CAP_SYS_ADMIN" etc. */
const char *splitlock_capability_name(enum splitlock_cap cap);

/* ---- kernel log ----------------------------------------------------------- */

/* One record of the kernel log. Strings belong to the reader. */
struct splitlock_kmsg_record {
	int facility;          /* 0 = kernel; user-space writes are >= 1 */
	int level;             /* syslog level 0..7 */
	uint64_t seq;          /* record sequence number */
	uint64_t usec;         /* CLOCK_MONOTONIC (boot-time) microseconds */
	const char *message;   /* \xNN escapes decoded; may contain NULs */
	size_t message_len;
};

/*
 * Call @fn for each record of the running boot's kernel log
 * (/dev/kmsg under the root; a regular file there is read as a saved log).
 * Stops at the end without blocking. @fn returns 0 to go on, > 0 to stop,
 * < 0 to fail with that error.
 */
typedef int (*splitlock_kmsg_fn)(const struct splitlock_kmsg_record *rec,
				 void *data);
int splitlock_kmsg_foreach(struct splitlock_ctx *ctx, splitlock_kmsg_fn fn,
			   void *data);

/*
 * Parse one /dev/kmsg record ("PRI,SEQ,USEC,FLAGS;MESSAGE", optional
 * " KEY=VALUE" continuation lines) of @len bytes. Decodes \xNN in place into
 * @buf (same length as the input at least) and fills @rec. -EINVAL when it
 * is not a record.
 */
int splitlock_kmsg_parse_record(const char *text, size_t len, char *buf,
				struct splitlock_kmsg_record *rec);

/* ---- offenders ------------------------------------------------------------ */

/*
 * Totals of the running boot's kernel log: detector events (split-lock and
 * bus-lock traps, fatal-mode kills) and the sum of the kernel's "callbacks
 * suppressed" counts for the detector's rate limits.
 */
int splitlock_offenders_count(struct splitlock_ctx *ctx, uint64_t *events,
			      uint64_t *suppressed);

#ifdef __cplusplus
}
#endif
#endif
