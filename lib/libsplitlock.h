/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsplitlock: read and steer the x86 split-lock detector of Linux.
 *
 * Every function taking a context resolves system paths (/proc, /sys,
 * /dev/kmsg, /etc, /boot, /run, /usr/lib) under the root the context was
 * created with, so the same code serves the running system and fake roots.
 *
 * Conventions, for every function below unless its comment says otherwise:
 *
 *  - Errors: 0 on success (or the documented count, or 1/0 for a yes/no
 *    answer), a negative errno on failure, and nothing else. A function that
 *    fails returns no object: its out pointer is left NULL. -ENOMEM is
 *    possible wherever memory is allocated, and the errors of opening and
 *    reading files under the root (-ENOENT, -EACCES, -ELOOP, ...) wherever
 *    files are read. splitlock_new() alone returns NULL and sets errno.
 *  - Ownership: a "const char *" (or a const object) returned by a getter
 *    is borrowed from the object asked and lives as long as it does; a
 *    "char **" out parameter receives malloc'ed memory the caller frees.
 *    Objects with _free() have one owner. Objects with _ref()/_unref() are
 *    counted: the context and the offenders report. Every object holds a
 *    reference on the context it was made with, and a follower on its
 *    report, so the caller may drop its own at any time. _free() and
 *    _unref() accept NULL; _free() returns NULL, _unref() returns NULL
 *    when it freed the object.
 *  - Messages: the library prints only through its log function, whose
 *    default (as kmod's) writes errors to stderr: replace it with
 *    splitlock_set_log_fn(). Sentences for users come on the object a
 *    call concerns (a plan's ..._get_error(), the lift plan's reason) or,
 *    for a call with no object, through the log function, and name no
 *    program and no option. The bootloader tools a boot plan runs write
 *    to the caller's standard output and error, as they do when an admin
 *    runs them.
 *  - Versions: every function has one documentation block in gtk-doc
 *    form ("/" "**", " * name:", the text, " * Since: NODE"), where NODE is
 *    the symbol version node of lib/libsplitlock.sym that exports it.
 *    LIBSPLITLOCK_1 is the 1.0 ABI, frozen once 1.0 is tagged; a later
 *    release adds LIBSPLITLOCK_1.1 and so on, and never changes an old
 *    node. "History:" tells what changed since 0.1, where it did.
 *    tests/check-header-docs.sh checks that the blocks and the map agree.
 *  - Soname: libsplitlock.so.1 for as long as LIBSPLITLOCK_1 holds. A
 *    release only adds (functions in a new node, enum members at the end,
 *    getters); removing or changing anything exported raises the soname
 *    and renames the node. The objects are opaque and nothing public is
 *    sized by the library's own counts, so adding never breaks a program.
 */
#ifndef LIBSPLITLOCK_H
#define LIBSPLITLOCK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * SPLITLOCK_MUST_CHECK: ignoring the result is a bug (a constructor whose
 * object may not exist, a change that may not have been made).
 * SPLITLOCK_NONNULL(N, ...): the Nth arguments must not be NULL. Both
 * compile away for compilers other than GCC and clang.
 */
#if defined(__GNUC__) || defined(__clang__)
#define SPLITLOCK_MUST_CHECK __attribute__((__warn_unused_result__))
#define SPLITLOCK_NONNULL(...) __attribute__((__nonnull__(__VA_ARGS__)))
#else
#define SPLITLOCK_MUST_CHECK
#define SPLITLOCK_NONNULL(...)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- context ------------------------------------------------------------ */

struct splitlock_ctx;

/**
 * splitlock_new:
 *
 * Create a context whose system paths resolve under @root (NULL or "/" for
 * the running system). Starts with a reference count of 1. The environment
 * variable SPLITLOCK_LOG (err, warning, info, debug or a number) raises the
 * log priority. Returns NULL with errno set on failure.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK
struct splitlock_ctx *splitlock_new(const char *root);
/**
 * splitlock_ref:
 *
 * Takes a reference on @ctx; returns @ctx. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_ctx *splitlock_ref(struct splitlock_ctx *ctx);
/**
 * splitlock_unref:
 *
 * Drops a reference; returns NULL when the context was freed. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_ctx *splitlock_unref(struct splitlock_ctx *ctx);

typedef void (*splitlock_log_fn)(void *data, int priority, const char *file,
				 int line, const char *fn, const char *format,
				 va_list args);
/**
 * splitlock_set_log_fn:
 *
 * Replace the default log function (errors to stderr).
 *
 * Since: LIBSPLITLOCK_1
 */
void splitlock_set_log_fn(struct splitlock_ctx *ctx, splitlock_log_fn fn,
			  void *data);
/**
 * splitlock_get_log_priority:
 *
 * Syslog priorities: LOG_ERR (default) ... LOG_DEBUG.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_get_log_priority(const struct splitlock_ctx *ctx);
/**
 * splitlock_set_log_priority:
 *
 * Sets the priority up to which messages reach the log function (syslog
 * priorities, LOG_ERR by default).
 *
 * Since: LIBSPLITLOCK_1
 */
void splitlock_set_log_priority(struct splitlock_ctx *ctx, int priority);
/**
 * splitlock_get_root:
 *
 * The root given to splitlock_new(), normalized ("/" for the real system).
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_get_root(const struct splitlock_ctx *ctx);

/* ---- CPU and kernel ----------------------------------------------------- */

enum {
	SPLITLOCK_CPU_SPLIT_LOCK_DETECT = 1u << 0, /* #AC on split locks */
	SPLITLOCK_CPU_BUS_LOCK_DETECT   = 1u << 1, /* #DB after bus locks */
	SPLITLOCK_CPU_HYPERVISOR        = 1u << 2, /* running in a VM */
};

/**
 * splitlock_cpu_features:
 *
 * Flags of the first CPU in /proc/cpuinfo, as SPLITLOCK_CPU_* bits.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_cpu_features(struct splitlock_ctx *ctx, unsigned *features);

/**
 * splitlock_kernel_release:
 *
 * Kernel release from /proc/sys/kernel/osrelease, without the newline.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_kernel_release(struct splitlock_ctx *ctx, char *buf, size_t size);

enum {
	/* kernel.split_lock_mitigate exists (6.2+, some stable backports) */
	SPLITLOCK_KERNEL_MITIGATE_SYSCTL = 1u << 0,
	/* /sys/kernel/split_lock/ from the kernel-patch/ series */
	SPLITLOCK_KERNEL_SYSFS           = 1u << 1,
	/* /dev/kmsg can be opened for reading */
	SPLITLOCK_KERNEL_KMSG            = 1u << 2,
	/* /proc/PID/split_lock has per-process counters (series v1, v2) */
	SPLITLOCK_KERNEL_PROC_COUNTERS   = 1u << 3,
	/* /sys/kernel/debug/split_lock/inject (patched, test-only) */
	SPLITLOCK_KERNEL_INJECT          = 1u << 4,
	/*
	 * Run-time mode switching (patched kernel): /sys/kernel/split_lock/mode
	 * has its owner's write bit (mode 0644). The bit, not access(2),
	 * decides: root may open a read-only sysfs file for writing, and
	 * the write then fails. Added in 1.0.
	 */
	SPLITLOCK_KERNEL_MODE_WRITABLE   = 1u << 5,
	/*
	 * The per-process misery exemption (patched kernel):
	 * /proc/self/split_lock has a "misery_exempt" line. Added in 1.0.
	 */
	SPLITLOCK_KERNEL_MISERY_EXEMPT   = 1u << 6,
};

/**
 * splitlock_kernel_interfaces:
 *
 * Which of the interfaces above this kernel offers, as bits.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_kernel_interfaces(struct splitlock_ctx *ctx, unsigned *ifaces);

/* The counters every patched kernel reports in /sys/kernel/split_lock/stats. */
enum splitlock_counter {
	SPLITLOCK_COUNTER_AC_TRAPS,
	SPLITLOCK_COUNTER_DB_TRAPS,
	SPLITLOCK_COUNTER_MISERY_DELAYS,
	SPLITLOCK_COUNTER_SIGBUS,
	SPLITLOCK_COUNTER_WARNINGS_SUPPRESSED,
	/*
	 * No _MAX: a later release may add counters. Walk them with
	 * splitlock_counter_name(), which is NULL past the last one.
	 */
};

/**
 * splitlock_counter_name:
 *
 * "ac_traps", ...; NULL for a value the library does not know, so that
 * for (c = 0; splitlock_counter_name(c); c++) visits every counter.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_counter_name(enum splitlock_counter counter);
/**
 * splitlock_kernel_counter:
 *
 * One counter of the patched kernel (/sys/kernel/split_lock/stats) into
 * *@value. -ENOENT on a kernel without the stats; -ENODATA when the kernel
 * does not report this counter; -EINVAL for a counter the library does not
 * know; -EBADMSG when its value is not a number.
 *
 * History: replaces splitlock_kernel_counters(), whose array was sized by
 * the number of counters.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_NONNULL(1, 3)
int splitlock_kernel_counter(struct splitlock_ctx *ctx,
			     enum splitlock_counter counter, int64_t *value);

/* ---- privileges ----------------------------------------------------------- */

enum splitlock_cap {
	SPLITLOCK_CAP_SYS_ADMIN,
	SPLITLOCK_CAP_SYSLOG,
	SPLITLOCK_CAP_SYS_RAWIO,
	SPLITLOCK_CAP_SYS_MODULE,
	SPLITLOCK_CAP_DAC_OVERRIDE,
};

/**
 * splitlock_have_capability:
 *
 * 1 when this process has the capability effective, 0 when not.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_have_capability(enum splitlock_cap cap);
/**
 * splitlock_capability_name:
 *
 * "CAP_SYS_ADMIN" etc.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_capability_name(enum splitlock_cap cap);

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

/**
 * splitlock_mode_parse:
 *
 * Parse a mode as a user writes it: off, warn, seq, fatal, ratelimit:N with
 * 1 <= N <= 1000. Strict: anything else is -EINVAL. @ratelimit may be NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mode_parse(const char *text, enum splitlock_mode *mode,
			 unsigned *ratelimit);
/**
 * splitlock_mode_format:
 *
 * "off", "warn", "seq", "fatal", "ratelimit:N" into @buf. -EINVAL for
 * SPLITLOCK_MODE_UNKNOWN, a value outside the enum or a rate outside
 * 1..1000 (@buf is then ""); -ENOSPC if @size is small.
 *
 * History: -EINVAL for a mode it cannot print since 1.0.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mode_format(enum splitlock_mode mode, unsigned ratelimit,
			  char *buf, size_t size);
/**
 * splitlock_mode_name:
 *
 * The word of @mode: "off", "warn", "seq", "fatal", "ratelimit" (which a
 * user writes with its rate, "ratelimit:N"); NULL for
 * SPLITLOCK_MODE_UNKNOWN and past the last mode. The modes are the members
 * from SPLITLOCK_MODE_OFF on: `for (int m = SPLITLOCK_MODE_OFF;
 * splitlock_mode_name((enum splitlock_mode)m); m++)` walks those this
 * library knows, so that a mode added later is in a program's list.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mode_name(enum splitlock_mode mode);
/**
 * splitlock_mode_source_name:
 *
 * Short static name of a source: "none", "sysfs", "boot-log", "cmdline",
 * "default"; NULL for a value outside the enum.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mode_source_name(enum splitlock_mode_source source);

/**
 * splitlock_mode_from_param:
 *
 * Interpret one split_lock_detect= value exactly as the kernel does: unknown
 * words and ratelimit outside 1..1000 mean warn. Never fails.
 *
 * Since: LIBSPLITLOCK_1
 */
void splitlock_mode_from_param(const char *value, size_t len,
			       enum splitlock_mode *mode, unsigned *ratelimit);
/**
 * splitlock_mode_from_cmdline:
 *
 * Find the split_lock_detect= parameter in a kernel command line; the last
 * one counts, as in the kernel. Returns 1 and the mode when found, 0 when the
 * command line does not set it, -EINVAL for a NULL @cmdline.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mode_from_cmdline(const char *cmdline, enum splitlock_mode *mode,
				unsigned *ratelimit);
/**
 * splitlock_mode_from_boot_line:
 *
 * Interpret a kernel log message (without the record prefix) as the
 * detector's boot line of any kernel since 5.7. Returns 1 and the mode when
 * it is one, 0 otherwise.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mode_from_boot_line(const char *message,
				  enum splitlock_mode *mode,
				  unsigned *ratelimit);

/* What the running kernel does with split locks, and how we know. */
struct splitlock_mode_info;

/**
 * splitlock_mode_info_read:
 *
 * Learn the running kernel's mode into *@info (free it with
 * splitlock_mode_info_free()). Always finds an answer, the kernel's default
 * at worst; fails only with -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 2)
int splitlock_mode_info_read(struct splitlock_ctx *ctx,
			     struct splitlock_mode_info **info);
/**
 * splitlock_mode_info_free:
 *
 * Frees @info (one owner: not reference counted); returns NULL. Accepts NULL.
 *
 * History: was splitlock_mode_info_unref.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_mode_info *
splitlock_mode_info_free(struct splitlock_mode_info *info);
/**
 * splitlock_mode_info_get_mode:
 *
 * The running kernel's mode.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_mode
splitlock_mode_info_get_mode(const struct splitlock_mode_info *info);
/**
 * splitlock_mode_info_get_ratelimit:
 *
 * The rate of SPLITLOCK_MODE_RATELIMIT (bus locks per second), 0 for the
 * other modes.
 *
 * Since: LIBSPLITLOCK_1
 */
unsigned splitlock_mode_info_get_ratelimit(const struct splitlock_mode_info *info);
/**
 * splitlock_mode_info_get_source:
 *
 * Where the mode was learned.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_mode_source
splitlock_mode_info_get_source(const struct splitlock_mode_info *info);
/**
 * splitlock_mode_info_is_guess:
 *
 * True when the answer is inferred (cmdline, default), not read.
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_mode_info_is_guess(const struct splitlock_mode_info *info);
/**
 * splitlock_mode_info_get_evidence:
 *
 * The text the answer came from (log line, cmdline token), or NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mode_info_get_evidence(const struct splitlock_mode_info *info);

/**
 * splitlock_mode_next_boot:
 *
 * The mode the next boot will use, from the boot configuration of the
 * detected bootloader backend (see splitlock_boot_detect()); without one,
 * or with several, from /proc/cmdline. *@source (may be NULL; malloc'ed,
 * the caller frees it) names where it was found ("grub: /etc/default/grub,
 * /etc/default/grub.d/ *.cfg"). Returns 1 when a split_lock_detect=
 * parameter is configured, 0 when none is (the kernel's default applies),
 * -EBADMSG when the configuration is in a form that is refused (the reason
 * is in *@source), -ENOMEM. On -ENOMEM *@source is NULL.
 *
 * History: *@source owned by the caller since 1.0.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mode_next_boot(struct splitlock_ctx *ctx, enum splitlock_mode *mode,
			     unsigned *ratelimit, char **source);

/* ---- switching the mode at run time (patched kernel) ---------------------- */

/*
 * A planned switch of the running kernel's mode through the patched
 * kernel's /sys/kernel/split_lock/mode, which root may write where the
 * kernel offers run-time control (SPLITLOCK_KERNEL_MODE_WRITABLE): the
 * kernel applies the new mode on every CPU, refuses to leave seq (EPERM),
 * and the file then reads back the new mode. Planning reads only; applying
 * writes the mode word and reads it back. The boot parameter is not
 * touched (see the boot plan). One owner: splitlock_mode_switch_free().
 */
struct splitlock_mode_switch;

/**
 * splitlock_mode_switch_new:
 *
 * Plan switching to @mode (not SPLITLOCK_MODE_UNKNOWN; @ratelimit counts
 * for SPLITLOCK_MODE_RATELIMIT only). Returns 0 and *@sw, or a negative
 * errno and no plan: -EINVAL (a mode that cannot be written), -ENOMEM, or
 * the error of reading the mode file. A refused switch is still a plan:
 * see splitlock_mode_switch_get_refusal().
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 4)
int splitlock_mode_switch_new(struct splitlock_ctx *ctx, enum splitlock_mode mode,
			      unsigned ratelimit, struct splitlock_mode_switch **sw);
/**
 * splitlock_mode_switch_free:
 *
 * Frees @sw; returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_mode_switch *
splitlock_mode_switch_free(struct splitlock_mode_switch *sw);
/**
 * splitlock_mode_switch_get_refusal:
 *
 * 0 when the switch can be applied, else why not, with a sentence in
 * splitlock_mode_switch_get_error(): -EOPNOTSUPP (the kernel has no mode
 * file, or a read-only one: only the boot parameter changes the mode
 * there), -EPERM (the kernel runs in seq mode, which it never leaves at
 * run time).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mode_switch_get_refusal(const struct splitlock_mode_switch *sw);
/**
 * splitlock_mode_switch_get_error:
 *
 * One sentence about the refusal or the last failure, or NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mode_switch_get_error(const struct splitlock_mode_switch *sw);
/**
 * splitlock_mode_switch_get_capability:
 *
 * The capability applying needs (checked by the caller).
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_cap
splitlock_mode_switch_get_capability(const struct splitlock_mode_switch *sw);
/**
 * splitlock_mode_switch_get_previous:
 *
 * The mode the kernel ran in when planned; SPLITLOCK_MODE_UNKNOWN when the
 * kernel has no mode file. @ratelimit may be NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_mode
splitlock_mode_switch_get_previous(const struct splitlock_mode_switch *sw,
				   unsigned *ratelimit);
/**
 * splitlock_mode_switch_apply:
 *
 * Write the mode and read it back: the refusal if there is one; the
 * error of writing (-EPERM: the kernel refused, e.g. it entered seq mode
 * since planning; -EACCES: not privileged); -EIO when the file does not
 * read back as the requested mode. The sentence is in
 * splitlock_mode_switch_get_error().
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_mode_switch_apply(struct splitlock_mode_switch *sw);
/**
 * splitlock_mode_switch_get_current:
 *
 * After applying: the mode read back; SPLITLOCK_MODE_UNKNOWN before, or
 * when it could not be read. @ratelimit may be NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_mode
splitlock_mode_switch_get_current(const struct splitlock_mode_switch *sw,
				  unsigned *ratelimit);

/* ---- the boot parameter, through the bootloader's own tool -------------- */

/**
 * splitlock_boot_backends:
 *
 * The backends' names ("grub", "kernel-install", ...), NULL-terminated
 * and in detection order; the other names a backend is known by are
 * splitlock_boot_backend_alias()'s.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *const *splitlock_boot_backends(void);
/**
 * splitlock_boot_backend_name:
 *
 * The backend @name stands for: a backend's own name, or the backend of
 * an alias ("systemd-boot": "kernel-install"); NULL for another name
 * (NULL included). Static.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_backend_name(const char *name);
/**
 * splitlock_boot_backend_alias:
 *
 * Alias @index of @backend (one of splitlock_boot_backends()'s names):
 * "systemd-boot" is kernel-install's first; NULL past the last and for a
 * name that is no backend's own. Static.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_backend_alias(const char *backend, size_t index);

/**
 * splitlock_boot_detect:
 *
 * The backends that manage this system's boot, in detection order: ostree
 * booted, kernelstub, grubby with BLS entries, kernel-install/systemd-boot,
 * a mkinitcpio UKI preset, update-grub/grub-mkconfig, rEFInd. A backend that
 * decides alone (the first three; mkinitcpio without BLS entries) is
 * returned alone. Fills up to @size names and returns how many apply: 0 none,
 * more than 1 ambiguous (ask the user).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_boot_detect(struct splitlock_ctx *ctx, const char **names,
			  size_t size);

/**
 * splitlock_boot_read:
 *
 * The next-boot mode as @backend has it configured: 1 and the mode when the
 * parameter is set, 0 when not. *@source (may be NULL; malloc'ed, the
 * caller frees it) says where; for -EBADMSG (a configuration slctl
 * refuses) it is the reason instead. -EINVAL: unknown backend (an alias
 * names its backend).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_boot_read(struct splitlock_ctx *ctx, const char *backend,
			enum splitlock_mode *mode, unsigned *ratelimit,
			char **source);

/*
 * A planned change of the boot parameter: the files it writes (with a
 * unified diff) and the regeneration commands, which can be printed and then
 * applied. Planning reads only; applying takes /run/slctl/lock, writes
 * atomically with a backup (PATH.slctl-backup) of every file edited in
 * place, runs the commands, re-reads the result, and restores everything
 * when a command or the check fails.
 */
struct splitlock_boot_plan;

enum {
	/*
	 * Run the regeneration commands even though the root is not "/": inside
	 * the root (chroot(2), needs CAP_SYS_CHROOT), with the root's own tools
	 * and standard PATH, never the running system's. Without it they are
	 * only listed.
	 */
	SPLITLOCK_BOOT_RUN_TOOLS = 1u << 0,
};

/**
 * splitlock_boot_plan_new:
 *
 * A plan for @backend (NULL or "auto": detect). Returns 0 and a plan
 * whenever memory allows; a plan without a backend carries its refusal
 * (see splitlock_boot_plan_get_refusal()). -EINVAL, and no plan: a flag
 * other than SPLITLOCK_BOOT_RUN_TOOLS (one of a later library).
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 4)
int splitlock_boot_plan_new(struct splitlock_ctx *ctx, const char *backend,
			    unsigned flags, struct splitlock_boot_plan **plan);
/**
 * splitlock_boot_plan_get_refusal:
 *
 * Why splitlock_boot_plan_new() chose no backend, 0 when it chose one:
 * -ENOENT none detected, -ENOTUNIQ several, -EINVAL unknown name, or the
 * error of reading the configuration; the sentence is in
 * splitlock_boot_plan_get_error(). splitlock_boot_plan_mode() and
 * splitlock_boot_plan_apply() return it.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_boot_plan_get_refusal(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_mode:
 *
 * Plan setting @mode (SPLITLOCK_MODE_UNKNOWN: remove the parameter so the
 * kernel's default applies). Changes nothing on disk. A refusal (symlink,
 * unbalanced quotes, $variables, ...) returns a negative errno with a
 * sentence in splitlock_boot_plan_get_error().
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_boot_plan_mode(struct splitlock_boot_plan *plan,
			     enum splitlock_mode mode, unsigned ratelimit);
/**
 * splitlock_boot_plan_free:
 *
 * Frees @plan; returns NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_boot_plan *
splitlock_boot_plan_free(struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_backend:
 *
 * The backend the plan uses, or NULL when it has none (see
 * splitlock_boot_plan_get_refusal()).
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_plan_get_backend(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_diff:
 *
 * Unified diff of every file the plan writes; NULL when none.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_plan_get_diff(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_file_count:
 *
 * How many files the plan writes.
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_boot_plan_get_file_count(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_file:
 *
 * Path (under the root) of file @index, NULL past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_plan_get_file(const struct splitlock_boot_plan *plan,
					 size_t index);
/**
 * splitlock_boot_plan_get_command_count:
 *
 * How many regeneration commands the plan runs (or lists).
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_boot_plan_get_command_count(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_command:
 *
 * argv of command @index as it runs inside the root, NULL past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *const *
splitlock_boot_plan_get_command(const struct splitlock_boot_plan *plan,
				size_t index);
/**
 * splitlock_boot_plan_runs_commands:
 *
 * Whether splitlock_boot_plan_apply() runs the commands (else prints them).
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_boot_plan_runs_commands(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_apply:
 *
 * Carry the plan out. The commands (update-grub, kernel-install, ...) run
 * with the caller's standard output and error, where their own messages
 * go. -EBUSY: another slctl holds the lock; -ESTALE: a file
 * changed since planning; -ECHILD: a command failed (files restored);
 * -EBADMSG: the result does not hold the parameter (files restored).
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_boot_plan_apply(struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_error:
 *
 * One sentence about the last failure, or NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_plan_get_error(const struct splitlock_boot_plan *plan);

/*
 * After a failed splitlock_boot_plan_apply(): what is still changed. Every
 * file the plan wrote was restored (by renaming its backup back, which needs
 * no free space) and read back; what did not come back, and what a
 * regeneration tool changed that slctl did not write, is a leftover.
 */
enum splitlock_boot_leftover {
	/* A file the plan wrote, not restored; the fix renames its backup back. */
	SPLITLOCK_LEFTOVER_NOT_RESTORED,
	/* A tool rewrote it (grub.cfg): regenerate from the restored configuration. */
	SPLITLOCK_LEFTOVER_REWRITTEN,
	/* A tool created it (a boot entry): the fix removes it. */
	SPLITLOCK_LEFTOVER_CREATED,
	/* A tool removed it: regenerate from the restored configuration. */
	SPLITLOCK_LEFTOVER_REMOVED,
};

enum splitlock_boot_outcome {
	SPLITLOCK_BOOT_UNCHANGED,  /* failed before anything was written */
	SPLITLOCK_BOOT_RESTORED,   /* everything was restored and read back */
	SPLITLOCK_BOOT_LEFT_CHANGED, /* leftovers remain, see below */
	SPLITLOCK_BOOT_APPLIED,    /* success */
};

/**
 * splitlock_boot_plan_get_outcome:
 *
 * After splitlock_boot_plan_apply(): whether it applied, restored
 * everything, or left changes behind (see
 * splitlock_boot_plan_get_leftover()).
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_boot_outcome
splitlock_boot_plan_get_outcome(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_leftover_count:
 *
 * After a failed splitlock_boot_plan_apply(): how many leftovers there are.
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_boot_plan_get_leftover_count(const struct splitlock_boot_plan *plan);
/**
 * splitlock_boot_plan_get_leftover:
 *
 * Leftover @index: its path under the root, what happened to it, and a
 * shell command that fixes it once the cause of the failure is fixed
 * (renaming a backup back, removing a created entry, rerunning the
 * regeneration from the restored configuration), or NULL when no command
 * is known. -ERANGE past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_boot_plan_get_leftover(const struct splitlock_boot_plan *plan,
				     size_t index, const char **path,
				     enum splitlock_boot_leftover *kind,
				     const char **fix);
/**
 * splitlock_boot_plan_get_previous:
 *
 * The mode the next boot used before apply, as a mode name or "default"
 * (no parameter); NULL when it could not be read.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_boot_plan_get_previous(const struct splitlock_boot_plan *plan);

/* ---- kernel.split_lock_mitigate ------------------------------------------ */

/**
 * splitlock_mitigate_get:
 *
 * Runtime value (0 or 1); -ENOENT when the kernel has no such sysctl.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mitigate_get(struct splitlock_ctx *ctx, int *value);
/**
 * splitlock_mitigate_set:
 *
 * Set the runtime value, with no checks and no read-back (the plan below
 * does both). -ENOENT: no sysctl; -EPERM/-EACCES: not allowed (the
 * patched kernel's seq mode also refuses 0 with -EPERM).
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_mitigate_set(struct splitlock_ctx *ctx, int value);
/**
 * splitlock_mitigate_get_persisted:
 *
 * The value the next boot applies, read from the sysctl.d files as
 * systemd-sysctl reads them. Returns 1 with *@value (0 or 1) when a file
 * sets the key, 0 when none does (the kernel's default, 1, applies),
 * -EBADMSG when the winning assignment is not 0 or 1. *@file (may be NULL)
 * receives the winning file and *@override (may be NULL) a file that sorts
 * after SPLITLOCK_SYSCTLD_DROPIN and so beats it; both malloc'ed (the
 * caller frees them), NULL when there is none, set also for -EBADMSG.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mitigate_get_persisted(struct splitlock_ctx *ctx, int *value,
				     char **file, char **override);

/*
 * A planned change of kernel.split_lock_mitigate, now and (with
 * SPLITLOCK_MITIGATE_PERSIST) after reboot through SPLITLOCK_SYSCTLD_DROPIN.
 * Planning reads only; it decides whether the change is refused, the
 * drop-in's new text and any sysctl.d file that would still override it.
 * Applying sets the running value, writes the drop-in, and reads both back.
 * One owner: free it with splitlock_mitigate_plan_free().
 */
struct splitlock_mitigate_plan;

enum {
	SPLITLOCK_MITIGATE_PERSIST = 1u << 0, /* also write the sysctl.d drop-in */
};

/**
 * splitlock_mitigate_plan_new:
 *
 * Plan @value (0 or 1). Returns 0 and *@plan, or a negative errno and no
 * plan: -EINVAL (bad value or flags), -ENOENT (the kernel has no sysctl),
 * -ENOMEM, or the error of reading the running value. A refused change
 * is still a plan: see splitlock_mitigate_plan_get_refusal().
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 4)
int splitlock_mitigate_plan_new(struct splitlock_ctx *ctx, int value,
				unsigned flags,
				struct splitlock_mitigate_plan **plan);
/**
 * splitlock_mitigate_plan_free:
 *
 * Frees @plan; returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_mitigate_plan *
splitlock_mitigate_plan_free(struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_value:
 *
 * The requested value, and the running value when planned.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mitigate_plan_get_value(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_previous:
 *
 * The running value (0 or 1) when the plan was made.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mitigate_plan_get_previous(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_refusal:
 *
 * 0 when the plan can be applied, else why not, with a sentence in
 * splitlock_mitigate_plan_get_error(): -EPERM (seq mode keeps the penalty),
 * -ELOOP (the drop-in is a symlink), -EEXIST (a foreign file at the
 * drop-in's path), -EUCLEAN (/etc/sysctl.d is writable by every user), or
 * the error of reading the drop-in.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mitigate_plan_get_refusal(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_capability:
 *
 * The capability applying needs (checked by the caller, who can explain).
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_cap
splitlock_mitigate_plan_get_capability(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_dropin:
 *
 * The drop-in's whole text after applying; NULL without PERSIST. Borrowed.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mitigate_plan_get_dropin(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_override:
 *
 * The assignment that decides the key after reboot instead of the drop-in
 * (a later-sorting file with another value): its file, with *@line and
 * *@value (either may be NULL). NULL when the drop-in wins. Computed when
 * planning and again after a successful apply. Borrowed from the plan.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mitigate_plan_get_override(const struct splitlock_mitigate_plan *plan,
						 unsigned *line, const char **value);
/**
 * splitlock_mitigate_plan_apply:
 *
 * Carry the plan out: the refusal if there is one; the error of setting
 * the running value; the error of writing the drop-in (the running value
 * is then read back and the sentence says whether the running system is
 * changed); -EIO when the running value cannot be read back; -EBADMSG
 * when the drop-in does not read back with the value. A value another
 * writer set since (read back from the kernel or the drop-in) is no error:
 * it is logged as a warning and splitlock_mitigate_plan_get_running() has it.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_mitigate_plan_apply(struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_running:
 *
 * After applying: the running value read back (0 or 1), -1 when unknown.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_mitigate_plan_get_running(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_is_persisted:
 *
 * After applying: true when the drop-in was written and read back.
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_mitigate_plan_is_persisted(const struct splitlock_mitigate_plan *plan);
/**
 * splitlock_mitigate_plan_get_error:
 *
 * One sentence about the refusal or the last failure, or NULL. Borrowed.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_mitigate_plan_get_error(const struct splitlock_mitigate_plan *plan);

/* ---- lifting misery for one run ------------------------------------------ */

/*
 * How the misery penalty can be lifted for one process and what it starts,
 * chosen by splitlock_lift_plan_new() from the running kernel's mode, the
 * CPU's detection features and the kernel's interfaces.
 */
enum splitlock_lift {
	/* The patched kernel's per-process exemption (splitlock_exempt_set()). */
	SPLITLOCK_LIFT_EXEMPT = 1,
	/* kernel.split_lock_mitigate = 0 while a lease is held (leases below). */
	SPLITLOCK_LIFT_LEASE,
	/*
	 * Nothing penalizes split locks here (detection off, a CPU without
	 * detection, a kernel before 5.19): run unchanged.
	 */
	SPLITLOCK_LIFT_UNNEEDED,
	/*
	 * What applies here is no misery and no run can change it (fatal or
	 * ratelimit mode; a CPU with bus lock detection only, where the sysctl
	 * governs nothing): run unchanged, and tell the user why.
	 */
	SPLITLOCK_LIFT_UNCHANGED,
};

struct splitlock_lift_plan;

/**
 * splitlock_lift_plan_new:
 *
 * Choose how the misery penalty can be lifted for one process here, into
 * a new *@plan (free it with splitlock_lift_plan_free()). A machine where
 * nothing lifts it still gets a plan, refused
 * (splitlock_lift_plan_get_refusal()), with its sentence. Errors, with
 * *@plan NULL: -ENOMEM, the error of reading the mode.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 2)
int splitlock_lift_plan_new(struct splitlock_ctx *ctx, struct splitlock_lift_plan **plan);
/**
 * splitlock_lift_plan_free:
 *
 * Frees @plan; returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_lift_plan *splitlock_lift_plan_free(struct splitlock_lift_plan *plan);
/**
 * splitlock_lift_plan_get_way:
 *
 * The way chosen; 0 when the plan is refused.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_lift splitlock_lift_plan_get_way(const struct splitlock_lift_plan *plan);
/**
 * splitlock_lift_plan_get_refusal:
 *
 * 0 when the penalty can be lifted or needs no lifting, else why not, with
 * a sentence in splitlock_lift_plan_get_reason(): -EPERM (seq mode, whose
 * penalty nothing lifts), -EOPNOTSUPP (a kernel that penalizes and offers
 * neither the sysctl nor the exemption).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_lift_plan_get_refusal(const struct splitlock_lift_plan *plan);
/**
 * splitlock_lift_plan_get_reason:
 *
 * One sentence: why the plan is refused, or why a run goes unchanged
 * (SPLITLOCK_LIFT_UNNEEDED, SPLITLOCK_LIFT_UNCHANGED); NULL for the ways
 * that lift the penalty. Borrowed from the plan.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_lift_plan_get_reason(const struct splitlock_lift_plan *plan);

/**
 * splitlock_exempt_get:
 *
 * The patched kernel's misery exemption of process @pid: 1 when exempt,
 * 0 when not. -EOPNOTSUPP: the kernel has no exemption (no misery_exempt
 * line in /proc/PID/split_lock); -ESRCH: no such process; -EACCES: the
 * file is not readable (it is its owner's and ptrace-checked).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_exempt_get(struct splitlock_ctx *ctx, uint32_t pid);
/**
 * splitlock_exempt_set:
 *
 * Exempt @pid from misery (or subject it again), for it and every process
 * it starts from then on (the mark is inherited across fork and exec), by
 * writing "misery_exempt 1" to /proc/PID/split_lock, then read it back.
 * Errors as splitlock_exempt_get(), and the kernel's: -EPERM (seq mode,
 * or no CAP_SYS_ADMIN), -EACCES (no ptrace access to @pid); -EIO when
 * the file does not show the new mark.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_exempt_set(struct splitlock_ctx *ctx, uint32_t pid, bool exempt);

/**
 * splitlock_process_identity:
 *
 * Who process @pid is, from /proc/PID/status: *@uid (may be NULL) when its
 * real, effective, saved and filesystem uids are one, and its parent in
 * *@ppid (may be NULL). -ESRCH: no such process; -ENOTUNIQ: the uids
 * differ (a process changing identity); -EBADMSG: a status file not
 * understood.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_process_identity(struct splitlock_ctx *ctx, uint32_t pid,
			       uint32_t *uid, uint32_t *ppid);

/*
 * A lease on kernel.split_lock_mitigate = 0, for kernels without the
 * exemption. The calling process is its holder: the lease lasts until
 * splitlock_lease_drop() or the holder's end, whichever comes first.
 * State lives in /run/slctl/leases (root's, mode 0700), changed under a
 * lock: the first lease saves the sysctl's value and sets 0; the last to
 * go restores the saved value, but only over the 0 slctl wrote, never
 * over a value someone set meanwhile (one set through the mitigate plan
 * is kept too), nor a value saved in another boot. A lease lasts while
 * its holder keeps it (a flock on its lease file, taken by
 * splitlock_lease_take() on a close-on-exec descriptor: a child forked
 * without exec keeps it too), in the boot it was taken in, until the run
 * it was taken for is reaped; one whose holder ended without dropping it
 * (crash, SIGKILL) is removed by the next take or drop, which then
 * restores if it was the last. The holder watches its run itself (slctl's
 * helper polls a pidfd). The lock is waited for 10 seconds at
 * most (-ETIMEDOUT). One owner.
 */
struct splitlock_lease;

/**
 * splitlock_lease_take:
 *
 * Take a lease for the calling process. @uid and @run_pid say for whom
 * (shown by splitlock_leases_get()); the lease also ends once process
 * @run_pid is reaped, if it is another process and the root's /proc is
 * the kernel's. The sysctl is opened before the lease is taken and kept
 * open until the drop, which looks nothing up outside /run/slctl. A uid
 * other than 0 holds 8 leases at most.
 * Errors: -ENOENT (no sysctl), the errors of setting it (-EPERM in seq
 * mode or without CAP_SYS_ADMIN: check the capability first to tell
 * them apart), -EUCLEAN/-ELOOP for a /run/slctl that is not root's alone,
 * -EACCES, -ETIMEDOUT (another process held the lock for 10 seconds),
 * -EDQUOT (@uid holds 8 leases already); sentences go to the log function. Nothing is left behind on
 * failure.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 4)
int splitlock_lease_take(struct splitlock_ctx *ctx, uint32_t uid, uint32_t run_pid,
			 struct splitlock_lease **lease);
/**
 * splitlock_lease_drop:
 *
 * Drop @lease and free it, in every case (accepts NULL): the lease file
 * goes, dead holders' leases go, and when no lease is left the saved value
 * comes back as above. Returns 0, or the error of restoring (the saved
 * value is then kept for the next try).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_lease_drop(struct splitlock_lease *lease);

/* The leases as they are now, for a report. One owner. */
struct splitlock_leases;

/**
 * splitlock_leases_read:
 *
 * Read the leases (none when the directory does not exist). Nothing is
 * changed: dead holders' leases are listed, marked not live. -EACCES when
 * the caller may not read /run/slctl (it is root's); -ETIMEDOUT when
 * another process held the lock for 10 seconds.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 2)
int splitlock_leases_read(struct splitlock_ctx *ctx, struct splitlock_leases **leases);
/**
 * splitlock_leases_free:
 *
 * Frees @leases (one owner); returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_leases *splitlock_leases_free(struct splitlock_leases *leases);
/**
 * splitlock_leases_get_count:
 *
 * How many leases there are.
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_leases_get_count(const struct splitlock_leases *leases);
/**
 * splitlock_leases_get:
 *
 * Lease @index (sorted by the holder's PID as text): its holder, the run
 * it was taken for, the uid it was taken for (UINT32_MAX when unknown),
 * when it was taken (microseconds since the epoch, or
 * SPLITLOCK_TIME_UNKNOWN), and whether its holder still lives.
 * Any out pointer may be NULL. -ERANGE past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_leases_get(const struct splitlock_leases *leases, size_t index,
			 uint32_t *holder_pid, uint32_t *run_pid, uint32_t *uid,
			 int64_t *since, bool *live);
/**
 * splitlock_leases_get_saved:
 *
 * The value the last lease gives back (the sysctl's value before slctl
 * set 0); -ENODATA when slctl owes none.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_leases_get_saved(const struct splitlock_leases *leases, int *value);

/* ---- sysctl.d ------------------------------------------------------------ */

/*
 * Where systemd-sysctl will take a key from at the next boot: the sysctl.d
 * directories (/etc, /run, /usr/local/lib, /usr/lib), same-name shadowing,
 * /dev/null masks, file-name order, the last assignment wins, '.' and '/'
 * equivalent in keys.
 */
struct splitlock_sysctld;

/**
 * splitlock_sysctld_resolve:
 *
 * Every assignment of @key in the sysctl.d files, into *@result (one owner,
 * freed with splitlock_sysctld_free()). A directory that cannot be read is
 * skipped.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 2, 3)
int splitlock_sysctld_resolve(struct splitlock_ctx *ctx, const char *key,
			      struct splitlock_sysctld **result);
/**
 * splitlock_sysctld_free:
 *
 * Frees @r; returns NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_sysctld *splitlock_sysctld_free(struct splitlock_sysctld *r);
/**
 * splitlock_sysctld_get_count:
 *
 * Number of assignments of the key, in the order they are applied.
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_sysctld_get_count(const struct splitlock_sysctld *r);
/**
 * splitlock_sysctld_get_entry:
 *
 * Assignment @index: file (path under the root, e.g. /etc/sysctl.d/x.conf),
 * line number, value. The last index is the winner. Any out pointer may be
 * NULL. -ERANGE for a bad index.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_sysctld_get_entry(const struct splitlock_sysctld *r,
				size_t index, const char **file,
				unsigned *line, const char **value);
/**
 * splitlock_sysctld_get_value:
 *
 * The winning value, or NULL when no file sets the key.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_sysctld_get_value(const struct splitlock_sysctld *r);
/**
 * splitlock_sysctld_get_file:
 *
 * The file of the winning assignment (a path under the root), or NULL when
 * no file sets the key.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_sysctld_get_file(const struct splitlock_sysctld *r);

/**
 * splitlock_sysctld_get_override:
 *
 * The file that would still decide the key if @path (a sysctl.d file in
 * /etc/sysctl.d) assigned it: the last assignment in a file whose name sorts
 * after @path's. NULL when @path would win.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_sysctld_get_override(const struct splitlock_sysctld *r,
					   const char *path);

/* The sysctl.d drop-in that slctl owns, named to sort after the others. */
#define SPLITLOCK_SYSCTLD_DROPIN "/etc/sysctl.d/zz-slctl.conf"

enum {
	SPLITLOCK_WRITE_DRY_RUN = 1u << 0, /* plan only, change nothing */
};

/**
 * splitlock_sysctld_persist:
 *
 * Write (atomically) our drop-in so that @key = @value after reboot, keeping
 * any other key in it. *@content (may be NULL) receives the new file text,
 * to be freed by the caller. -ELOOP: the drop-in path is a symlink;
 * -EEXIST: a file we do not own sits there; -EUCLEAN: /etc/sysctl.d is
 * writable by every user, so nothing written there can be trusted;
 * -EINVAL: an empty or malformed @key, a @value with a newline, a flag
 * other than SPLITLOCK_WRITE_DRY_RUN.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_sysctld_persist(struct splitlock_ctx *ctx, const char *key,
			      const char *value, unsigned flags,
			      char **content);

/* ---- kernel log ----------------------------------------------------------- */

/*
 * One record of the kernel log, opaque so that a later release can tell
 * more about a record without breaking programs built against this one.
 * The records the library hands to callbacks are its own, valid during
 * the callback. A program that parses records itself makes one with
 * splitlock_kmsg_record_new() and fills it with
 * splitlock_kmsg_parse_record(). Its message lives in the buffer given to
 * the parser.
 * Opaque since 1.0 (was a struct with public members).
 */
struct splitlock_kmsg_record;

/**
 * splitlock_kmsg_record_new:
 *
 * An empty record (facility 0, level 0, message ""); -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_kmsg_record_new(struct splitlock_kmsg_record **rec);
/**
 * splitlock_kmsg_record_free:
 *
 * Frees @rec (one owner); returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_kmsg_record *
splitlock_kmsg_record_free(struct splitlock_kmsg_record *rec);
/**
 * splitlock_kmsg_record_get_facility:
 *
 * 0 = kernel; user-space writes are >= 1.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_kmsg_record_get_facility(const struct splitlock_kmsg_record *rec);
/**
 * splitlock_kmsg_record_get_level:
 *
 * Syslog level 0..7.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_kmsg_record_get_level(const struct splitlock_kmsg_record *rec);
/**
 * splitlock_kmsg_record_get_seq:
 *
 * The record's sequence number.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_kmsg_record_get_seq(const struct splitlock_kmsg_record *rec);
/**
 * splitlock_kmsg_record_get_usec:
 *
 * CLOCK_MONOTONIC (boot-time) microseconds.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_kmsg_record_get_usec(const struct splitlock_kmsg_record *rec);
/**
 * splitlock_kmsg_record_get_message:
 *
 * The message, \xNN escapes decoded, and its length in *@len (may be
 * NULL): it may hold NULs, and only the parser's records are terminated,
 * so use the length.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_kmsg_record_get_message(const struct splitlock_kmsg_record *rec,
					      size_t *len);

/*
 * Call @fn for each record of the running boot's kernel log
 * (/dev/kmsg under the root; a regular file there is read as a saved log).
 * Stops at the end without blocking. @fn returns 0 to go on, > 0 to stop,
 * < 0 to fail with that error.
 */
typedef int (*splitlock_kmsg_fn)(const struct splitlock_kmsg_record *rec,
				 void *data);
/**
 * splitlock_kmsg_foreach:
 *
 * Calls @fn for each record of the running boot's kernel log (/dev/kmsg
 * under the root; a regular file there is read as a saved log), without
 * blocking; see splitlock_kmsg_fn. Returns 0 at the end, or what @fn or
 * reading failed with.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_kmsg_foreach(struct splitlock_ctx *ctx, splitlock_kmsg_fn fn,
			   void *data);

/**
 * splitlock_kmsg_parse_record:
 *
 * Parse one /dev/kmsg record ("PRI,SEQ,USEC,FLAGS;MESSAGE", optional
 * " KEY=VALUE" continuation lines) of @len bytes. Decodes \xNN into @buf
 * (@len bytes at least), terminates it, and fills @rec (from
 * splitlock_kmsg_record_new()), whose message then points into @buf.
 * -EINVAL when it is not a record (@rec is then unchanged).
 *
 * History: @rec opaque since 1.0.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_NONNULL(1, 3, 4)
int splitlock_kmsg_parse_record(const char *text, size_t len, char *buf,
				struct splitlock_kmsg_record *rec);

/* ---- offenders ------------------------------------------------------------ */

/*
 * One line of the detector, parsed. Every form printed since 5.7:
 *   #AC: COMM/TID took a split_lock trap at address: 0xIP      (warn)
 *   #AC: COMM/TID fatal split_lock trap at address: 0xIP       (guest, fatal)
 *   #AC: COMM/TID bogus split_lock trap at address: 0xIP       (guest, SIGBUS)
 *   #DB: COMM/TID took a bus_lock trap at address: 0xIP        (warn)
 *   traps: COMM[PID] trap alignment check ip:IP sp:SP error:E [in OBJ[..]]
 *   split_lock_warn: N callbacks suppressed  (also handle_user_split_lock:,
 *   handle_bus_lock:)
 * optionally behind the "x86/split lock detection: " prefix. COMM is taken
 * up to the last "/DIGITS" before the verb, so it may hold spaces, '/' and
 * any byte. An optional "(user)" or "(guest)" word before "took" is allowed.
 */
enum splitlock_line_type {
	SPLITLOCK_LINE_OTHER = 0,  /* not the detector's */
	SPLITLOCK_LINE_EVENT,      /* a trap */
	SPLITLOCK_LINE_SUPPRESSED, /* a rate limit's "N callbacks suppressed" */
	SPLITLOCK_LINE_MALFORMED,  /* looks like the detector's but does not parse */
};

enum splitlock_kind {
	SPLITLOCK_KIND_SPLIT_LOCK = 0, /* #AC, or fatal mode's alignment check */
	SPLITLOCK_KIND_BUS_LOCK,       /* #DB, after the locked instruction */
};

enum splitlock_action {
	SPLITLOCK_ACTION_WARN = 0, /* warned (and maybe slowed down); it runs on */
	SPLITLOCK_ACTION_FATAL,    /* killed by fatal mode */
	SPLITLOCK_ACTION_SIGBUS,   /* SIGBUS outside fatal mode (bogus guest #AC) */
};

/*
 * A parsed detector line, opaque so that a later release can tell more
 * about a line without breaking programs built against this one. One
 * object may be reused for every line: each parse replaces what it held.
 * Its strings point into the message last parsed and live as long as it.
 * Opaque since 1.0 (was a struct with public members).
 */
struct splitlock_event;

/**
 * splitlock_event_new:
 *
 * An empty event; -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_event_new(struct splitlock_event **ev);
/**
 * splitlock_event_free:
 *
 * Frees @ev (one owner); returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_event *splitlock_event_free(struct splitlock_event *ev);
/**
 * splitlock_event_get_kind:
 *
 * The trap: SPLITLOCK_KIND_SPLIT_LOCK or SPLITLOCK_KIND_BUS_LOCK.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_kind splitlock_event_get_kind(const struct splitlock_event *ev);
/**
 * splitlock_event_get_action:
 *
 * What the kernel did: warned, killed in fatal mode, or sent SIGBUS.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_action splitlock_event_get_action(const struct splitlock_event *ev);
/**
 * splitlock_event_get_comm:
 *
 * The task's name as the kernel printed it, not terminated: its length is
 * in *@len (may be NULL).
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_event_get_comm(const struct splitlock_event *ev, size_t *len);
/**
 * splitlock_event_get_pid:
 *
 * The TID the kernel printed.
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_event_get_pid(const struct splitlock_event *ev);
/**
 * splitlock_event_get_ip:
 *
 * The trap's address; -ENODATA when the line has none.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_event_get_ip(const struct splitlock_event *ev, uint64_t *ip);
/**
 * splitlock_event_get_object:
 *
 * "traps:" lines: the object of " in OBJ[...]", not terminated, its length
 * in *@len (may be NULL); NULL when the line names none.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_event_get_object(const struct splitlock_event *ev, size_t *len);
/**
 * splitlock_event_get_object_offset:
 *
 * The address's offset in the object; -ENODATA when unknown.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_event_get_object_offset(const struct splitlock_event *ev,
				      uint64_t *offset);
/**
 * splitlock_event_get_suppressed:
 *
 * SPLITLOCK_LINE_SUPPRESSED: the count of callbacks suppressed.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_event_get_suppressed(const struct splitlock_event *ev);

/**
 * splitlock_detector_line_parse:
 *
 * Parse one decoded log message (no record prefix). Never fails: returns a
 * SPLITLOCK_LINE_* value and fills @ev (from splitlock_event_new()) for
 * EVENT and SUPPRESSED. Safe on any bytes (fuzzed).
 *
 * History: @ev opaque since 1.0.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_NONNULL(3)
int splitlock_detector_line_parse(const char *message, size_t len,
				  struct splitlock_event *ev);
/**
 * splitlock_kind_name:
 *
 * "split_lock", "bus_lock"; NULL for a value outside the enum.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_kind_name(enum splitlock_kind kind);
/**
 * splitlock_action_name:
 *
 * "warn", "fatal", "sigbus"; NULL for a value outside the enum.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_action_name(enum splitlock_action action);

/* Saved kernel logs. */
enum splitlock_input_format {
	SPLITLOCK_INPUT_AUTO = 0,
	SPLITLOCK_INPUT_KMSG,      /* /dev/kmsg records, one a line */
	SPLITLOCK_INPUT_KMSG_NUL,  /* /dev/kmsg records, NUL-separated */
	SPLITLOCK_INPUT_DMESG,     /* dmesg text: every stamp form, -r, -x, caller ids */
	SPLITLOCK_INPUT_JOURNAL,   /* journalctl -o json, json-seq, json-sse, json-pretty */
	SPLITLOCK_INPUT_SYSLOG,    /* rsyslog, syslog-ng: RFC 3164 or RFC 3339 stamps */
	SPLITLOCK_INPUT_JOURNAL_TEXT, /* journalctl -o short* */
	SPLITLOCK_INPUT_DMESG_JSON,   /* dmesg --json, with or without -x */
	SPLITLOCK_INPUT_JOURNAL_EXPORT, /* journalctl -o export */
	SPLITLOCK_INPUT_JOURNAL_VERBOSE, /* journalctl -o verbose */
};
/**
 * splitlock_input_format_parse:
 *
 * The form named @name (one of splitlock_input_format_name()'s names,
 * "auto" included) into *@format; -EINVAL for an unknown name.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_input_format_parse(const char *name,
				 enum splitlock_input_format *format);
/**
 * splitlock_input_format_name:
 *
 * The name splitlock_input_format_parse() takes for @format; NULL past
 * the last form. The forms are the members from 0 on, so a program lists
 * what this library reads with `for (int f = 0;
 * splitlock_input_format_name((enum splitlock_input_format)f); f++)` (an
 * int, so that C++ takes it too), and a form added in a later release is
 * in the list without a change to the program.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_input_format_name(enum splitlock_input_format format);

/* How offenders are grouped. */
enum splitlock_group {
	SPLITLOCK_GROUP_TASK = 0, /* (comm, pid, kind, action) as printed */
	SPLITLOCK_GROUP_PROCESS,  /* thread group (resolved), kind, action */
	SPLITLOCK_GROUP_COMM,     /* comm, kind, action */
	SPLITLOCK_GROUP_EXE,      /* executable (resolved; else comm) */
	SPLITLOCK_GROUP_UNIT,     /* systemd unit or container (resolved) */
};
/**
 * splitlock_group_parse:
 *
 * "task", "process", "comm", "exe" or "unit" into *@group; -EINVAL for
 * another name or NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_group_parse(const char *name, enum splitlock_group *group);
/**
 * splitlock_group_name:
 *
 * The name splitlock_group_parse() takes for @group; NULL for a value
 * outside the enum.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_group_name(enum splitlock_group group);

enum {
	/* Resolve live processes (TGID, exe, cmdline, unit, ip -> object). */
	SPLITLOCK_OFFENDERS_RESOLVE = 1u << 0,
};

/* Time stamps are microseconds; this marks "unknown". */
#define SPLITLOCK_TIME_UNKNOWN INT64_MIN

/* A report: events of the kernel log aggregated into offenders. */
struct splitlock_offenders;
struct splitlock_offender;

/**
 * splitlock_offenders_new:
 *
 * An empty report grouping by @group, with SPLITLOCK_OFFENDERS_* @flags,
 * into *@report; -ENOMEM; -EINVAL for a group or a flag this library does
 * not know (one of a later library), with *@report NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 4)
int splitlock_offenders_new(struct splitlock_ctx *ctx, enum splitlock_group group,
			    unsigned flags, struct splitlock_offenders **report);
/**
 * splitlock_offenders_ref:
 *
 * Takes a reference on @report (a follower holds one on the report it adds
 * to); returns @report. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_offenders *
splitlock_offenders_ref(struct splitlock_offenders *report);
/**
 * splitlock_offenders_unref:
 *
 * Drops a reference; at the last one, frees @report and the offenders it
 * handed out and returns NULL, else returns @report. Accepts NULL.
 *
 * History: reference counted since 1.0.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_offenders *
splitlock_offenders_unref(struct splitlock_offenders *report);
/**
 * splitlock_offenders_set_window:
 *
 * Keep only events whose wall-clock time (microseconds since the epoch) is
 * in [since, until); SPLITLOCK_TIME_UNKNOWN leaves a side open. Events
 * whose wall-clock time is unknown, suppressed ones included, are left out
 * and counted as undated (splitlock_offenders_get_undated()), and so are
 * those stamped on a whole second (a form that shows no fraction) when a
 * bound falls inside that second.
 *
 * Since: LIBSPLITLOCK_1
 */
void splitlock_offenders_set_window(struct splitlock_offenders *report,
				    int64_t since, int64_t until);
/**
 * splitlock_offenders_set_boot_time:
 *
 * Wall-clock time of boot (microseconds since the epoch) used to date
 * records that carry only a monotonic time stamp. Caveat: the monotonic
 * clock stops during suspend, so a record logged before a suspend is dated
 * too early by the time spent suspended afterwards.
 *
 * Since: LIBSPLITLOCK_1
 */
void splitlock_offenders_set_boot_time(struct splitlock_offenders *report,
				       int64_t boot_wall_usec);
/**
 * splitlock_offenders_read_kmsg:
 *
 * Read the running boot's log (/dev/kmsg under the root, syslog(2) as a
 * fallback), resolving processes if asked. Unless set, records are dated
 * as dmesg -T does on the running system (exact since the last resume,
 * too late by the time suspended for records before a suspend), and with
 * /proc/stat's btime under another root.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_offenders_read_kmsg(struct splitlock_offenders *report);
/*
 * Read a saved log from @fd in @format (AUTO: detect). Never resolves
 * against the live system. @progress (may be NULL) is called now and then
 * with the bytes read so far.
 */
typedef void (*splitlock_progress_fn)(uint64_t bytes, void *data);
/**
 * splitlock_offenders_read_input:
 *
 * Reads a saved log from @fd in @format (SPLITLOCK_INPUT_AUTO: detect it)
 * into the report; never resolves against the live system. @progress (may be
 * NULL) is called now and then with the bytes read so far.
 *
 * Returns 0, -EMEDIUMTYPE when @fd holds no text log (compressed data, a
 * journal file, UTF-16 text, binary data: known from its first bytes,
 * before anything is counted), -ENOMEM, or the errno of read(2).
 *
 * History: -EMEDIUMTYPE since 1.0 (such input was read as text: no
 * events, and nothing said the report was incomplete).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_offenders_read_input(struct splitlock_offenders *report, int fd,
				   enum splitlock_input_format format,
				   splitlock_progress_fn progress, void *data);
/**
 * splitlock_offenders_get_input_format:
 *
 * The format read last (after detection).
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_input_format
splitlock_offenders_get_input_format(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_add_record:
 *
 * Add one record. Returns 1 when it was a detector event and fills
 * *@offender (may be NULL) with the offender it counted for, 0 otherwise.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_offenders_add_record(struct splitlock_offenders *report,
				   const struct splitlock_kmsg_record *rec,
				   const struct splitlock_offender **offender);

/**
 * splitlock_offenders_get_events:
 *
 * The detector events the report counted.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_events(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get_suppressed:
 *
 * Sum of the kernel's "callbacks suppressed": events missing from the log.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_suppressed(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get_malformed:
 *
 * Detector-like lines that did not parse (skipped).
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_malformed(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get_unrecognized:
 *
 * Lines holding detector text (its prefix, a split_lock/bus_lock trap
 * phrase, its "callbacks suppressed") that were not read: a record form
 * not understood, a broken detector line, an overlong line. Nonzero means
 * the report is incomplete. *@first_line (may be NULL) is the line number
 * of the first in a saved log, 0 when unknown (the live log).
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_unrecognized(const struct splitlock_offenders *report,
					      uint64_t *first_line);
/* Why detector text went unread (splitlock_offenders_get_unrecognized_by()). */
enum splitlock_unread {
	/* Detector text in a line no parser of the log's form reads: a line
	 * cut or broken, a form not understood, an overlong line. */
	SPLITLOCK_UNREAD_UNPARSED,
	/* A kernel record whose message the log does not show: journalctl
	 * prints "[84B blob data]" for a message that is not printable UTF-8
	 * unless run with -a (a task may name itself with any byte). */
	SPLITLOCK_UNREAD_HIDDEN,
	/* A journal entry holding detector text without the _TRANSPORT field
	 * that tells the kernel's entries from user space's (journalctl
	 * --output-fields left it out): whose it is cannot be told. */
	SPLITLOCK_UNREAD_WRITER_UNKNOWN,
	/* An alignment-check kill in a boot whose detector mode the log does
	 * not show before it (its boot line lost, or after it: journalctl
	 * -r): a split lock kill in fatal mode, or a program's own AC flag. */
	SPLITLOCK_UNREAD_MODE_UNKNOWN,
	/* "NAME: N callbacks suppressed" of a rate limit not the
	 * detector's, in a boot in fatal mode or of a mode the log does not
	 * show: the kill lines of every trap share printk_ratelimit() with
	 * others, whose line names any of them; split-lock kills may be
	 * among the N. */
	SPLITLOCK_UNREAD_KILLS_SUPPRESSED,
	/* A rate limit's burst used up (10 lines of the detector's warnings,
	 * or of kills in fatal mode, within its 5 s) with no line after it
	 * to say whether it dropped any: the kernel tells only at the
	 * limit's next call after the interval, which never came. */
	SPLITLOCK_UNREAD_BURST_USED_UP,
	/* The log ends inside a record that may have been the detector's (a
	 * copy stopped mid-write, head -c): its last line unterminated, a
	 * JSON entry or document never closed, an export entry without its
	 * blank line. */
	SPLITLOCK_UNREAD_CUT,
	/* Records lost before the log held them, where the log shows it: the
	 * kernel's numbering (/dev/kmsg's SEQ) skips some, or starts past
	 * the boot's first (the buffer wrapped, dmesg -c), a read of the
	 * live log was overrun (EPIPE), or a logger says it lost kernel
	 * messages (journald's "Missed N kernel messages", rsyslog's
	 * "imjournal: N messages lost due to rate-limiting"). */
	SPLITLOCK_UNREAD_LOST,
	/*
	 * No _MAX: a later release may add reasons. Walk them with
	 * splitlock_unread_name(), which is NULL past the last one.
	 */
};
/**
 * splitlock_unread_name:
 *
 * "unparsed", "hidden", "writer_unknown", "mode_unknown",
 * "kills_suppressed", "burst_used_up", "cut", "lost"; NULL for a
 * reason the library does not know.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_unread_name(enum splitlock_unread reason);
/**
 * splitlock_offenders_get_unrecognized_by:
 *
 * The lines of splitlock_offenders_get_unrecognized() left unread for
 * @reason; 0 for a reason this library does not know.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_unrecognized_by(const struct splitlock_offenders *report,
						 enum splitlock_unread reason);
/**
 * splitlock_offenders_get_alignment_checks:
 *
 * "traps: ... trap alignment check" kills left out because that boot's
 * detector was not in fatal mode (saved logs: the boot line in the same
 * log; the live log: the running kernel's mode): a program that sets
 * EFLAGS.AC itself gets the same line on any CPU.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_alignment_checks(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get_forged:
 *
 * Detector-like lines ignored because the log's form shows they are not
 * the detector's: written by user space, a record's further line, or the
 * kernel's at another level than the detector's (see
 * splitlock_offenders_get_forged_by() for each).
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_forged(const struct splitlock_offenders *report);
/* Why a detector-like line was ignored (splitlock_offenders_get_forged_by()). */
enum splitlock_forged {
	/* A facility other than kern: a process wrote to /dev/kmsg, logger,
	 * a journal entry not of the kernel. */
	SPLITLOCK_FORGED_USER_SPACE,
	/* A line after a record's first (dmesg -r, -x, --json show where a
	 * record goes on): any record's, the kernel's included, since its text
	 * is whatever was logged. */
	SPLITLOCK_FORGED_FURTHER_LINE,
	/* A record of the kernel at another level than the detector's
	 * (warning; info for alignment-check kills). */
	SPLITLOCK_FORGED_LEVEL,
	/*
	 * No _MAX: a later release may add reasons. Walk them with
	 * splitlock_forged_name(), which is NULL past the last one.
	 */
};
/**
 * splitlock_forged_name:
 *
 * "user_space", "further_line", "level"; NULL for a reason the library
 * does not know.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_forged_name(enum splitlock_forged reason);
/**
 * splitlock_offenders_get_forged_by:
 *
 * The lines of splitlock_offenders_get_forged() ignored for @reason; 0 for
 * a reason this library does not know.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_forged_by(const struct splitlock_offenders *report,
					   enum splitlock_forged reason);
/**
 * splitlock_offenders_get_undated:
 *
 * Events left out by the time window because their time is unknown, or
 * known to the second only where a bound falls inside it: those logged
 * and those the kernel's rate limit suppressed ("callbacks suppressed"
 * lines without a time). Nonzero means the report is
 * incomplete: its form (raw records, dmesg's stamps since boot without a
 * boot time) cannot say which of them fell in the window.
 *
 * History: suppressed events counted since 1.0 (they were dropped).
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_undated(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get_maybe_repeated:
 *
 * Events of a saved log (logged or suppressed) that may be counted twice:
 * a later boot of the file holds an earlier boot's event text in a form
 * whose stamps cannot tell a dump saved twice from a new event (dmesg
 * without stamps, with -H/-e minutes, -T or iso times), or, in those
 * forms, a split lock #AC event repeats the task (COMM/PID) and address
 * of an earlier one, which the kernel warns of once a task (a dump saved
 * twice without a boot line, or a reused PID), or, in a form without
 * any stamp (dmesg -t), a bus lock #DB event repeats the task and
 * address of an earlier one (a new trap or the dump again: nothing
 * tells). They are counted;
 * nonzero means the report may be too high. A record that an earlier boot
 * holds with the same stamp since boot or journal time and text is read
 * once and not counted here.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offenders_get_maybe_repeated(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get_count:
 *
 * Offenders, most events first (ties: earliest first).
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_offenders_get_count(const struct splitlock_offenders *report);
/**
 * splitlock_offenders_get:
 *
 * Offender @index, borrowed from the report (it lives as long as the
 * report), or NULL past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
const struct splitlock_offender *
splitlock_offenders_get(const struct splitlock_offenders *report, size_t index);

/**
 * splitlock_offender_get_comm:
 *
 * The offender's name exactly as the kernel printed it (may hold NULs).
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_offender_get_comm(const struct splitlock_offender *o,
					size_t *len);
/**
 * splitlock_offender_get_pid:
 *
 * The pid (the TID) the kernel printed; 0 for a group of several tasks.
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_offender_get_pid(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_tgid:
 *
 * Thread group id, 0 when not resolved.
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_offender_get_tgid(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_kind:
 *
 * The trap: SPLITLOCK_KIND_SPLIT_LOCK or SPLITLOCK_KIND_BUS_LOCK.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_kind splitlock_offender_get_kind(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_action:
 *
 * What the kernel did: warned, killed in fatal mode, or sent SIGBUS.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_action splitlock_offender_get_action(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_events:
 *
 * The offender's events.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_offender_get_events(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_first_seen:
 *
 * Monotonic microseconds (since boot) of the first event, or
 * SPLITLOCK_TIME_UNKNOWN.
 *
 * Since: LIBSPLITLOCK_1
 */
int64_t splitlock_offender_get_first_seen(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_last_seen:
 *
 * Monotonic microseconds (since boot) of the last event, or
 * SPLITLOCK_TIME_UNKNOWN.
 *
 * Since: LIBSPLITLOCK_1
 */
int64_t splitlock_offender_get_last_seen(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_first_wall:
 *
 * Wall-clock microseconds (since the epoch) of the first event, or
 * SPLITLOCK_TIME_UNKNOWN.
 *
 * Since: LIBSPLITLOCK_1
 */
int64_t splitlock_offender_get_first_wall(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_last_wall:
 *
 * Wall-clock microseconds (since the epoch) of the last event, or
 * SPLITLOCK_TIME_UNKNOWN.
 *
 * Since: LIBSPLITLOCK_1
 */
int64_t splitlock_offender_get_last_wall(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_ip_count:
 *
 * How many distinct trap addresses were kept: the first 16 of each
 * offender, a number a later library may raise (walk the addresses with
 * this count or until splitlock_offender_get_ip() gives NULL; size
 * nothing by it).
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_offender_get_ip_count(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_ip:
 *
 * Trap address @index as text, in order of first appearance: the mapped
 * object and offset ("libfoo.so+0x1234") when known, else "0x7f..."; NULL
 * past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_offender_get_ip(const struct splitlock_offender *o,
				      size_t index);
/**
 * splitlock_offender_get_kernel_traps:
 *
 * Traps of this kind the patched kernel counted for the live process
 * (/proc/PID/split_lock), rate-limited ones included; -ENODATA when the
 * kernel does not count them or the process was not resolved.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_offender_get_kernel_traps(const struct splitlock_offender *o,
					uint64_t *traps);
/**
 * splitlock_offender_get_exe:
 *
 * The live process's executable, or NULL when not resolved.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_offender_get_exe(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_cmdline:
 *
 * The live process's command line, or NULL when not resolved.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_offender_get_cmdline(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_unit:
 *
 * The live process's systemd unit, or NULL when not resolved.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_offender_get_unit(const struct splitlock_offender *o);
/**
 * splitlock_offender_get_container:
 *
 * The live process's container, or NULL when not resolved.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_offender_get_container(const struct splitlock_offender *o);

/**
 * splitlock_time_parse:
 *
 * Parse a --since/--until time in the forms journalctl takes: "boot",
 * "now", "today", "yesterday", "tomorrow" (local midnight),
 * "[WEEKDAY ]YYYY-MM-DD[ HH:MM[:SS[.FRACTION]]]" (also YY-MM-DD, "T" for
 * the space, "Dec 01 10:00:05") and "HH:MM[:SS[.FRACTION]]" (today), in
 * local time unless a zone follows ("UTC", "+01:00", "-0530", "Z" or
 * "+01:00" welded to the time, the local zone's tzname[] "CET"/"CEST"),
 * "-2h", "+30min", "1h 30min ago", "2 days left" (spans as systemd writes
 * them, from @now), "@EPOCH". Gives microseconds since the epoch; "boot"
 * gives @boot. -EINVAL otherwise, for a weekday that is not the date's,
 * and for a date or time that does not exist (2026-02-30, 23:59:61, a
 * local time skipped by a DST change). A zone of the tz database
 * ("Europe/Berlin", which journalctl takes) is -EINVAL too: only the
 * process's TZ names one to the C library, and this function leaves TZ
 * alone; a caller that owns its process may set TZ and parse the rest.
 *
 * History: impossible dates refused, and journalctl's forms, since 1.0;
 * fractions, weekdays and zones since 1.0.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_time_parse(const char *text, int64_t now, int64_t boot,
			 int64_t *usec);
/**
 * splitlock_time_boot:
 *
 * Wall-clock boot time from /proc/stat's btime under the root.
 *
 * History: was splitlock_boot_time.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_time_boot(struct splitlock_ctx *ctx, int64_t *usec);

/* ---- proc connector --------------------------------------------------------- */

enum splitlock_proc_event_type {
	SPLITLOCK_PROC_FORK = 1,
	SPLITLOCK_PROC_EXEC,
	SPLITLOCK_PROC_COMM,
	SPLITLOCK_PROC_EXIT,
};

/*
 * An event as the decoder hands it to its callback: the library's, valid
 * only during the callback, its comm included (copy what is kept). Opaque
 * so that a later release can tell more about an event without breaking
 * programs built against this one.
 * Opaque since 1.0 (was a struct with public members).
 */
struct splitlock_proc_event;

/**
 * splitlock_proc_event_get_type:
 *
 * FORK, EXEC, COMM or EXIT.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_proc_event_type
splitlock_proc_event_get_type(const struct splitlock_proc_event *ev);
/**
 * splitlock_proc_event_get_pid:
 *
 * The task (the child for FORK).
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_proc_event_get_pid(const struct splitlock_proc_event *ev);
/**
 * splitlock_proc_event_get_tgid:
 *
 * The task's thread group (the child's for FORK).
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_proc_event_get_tgid(const struct splitlock_proc_event *ev);
/**
 * splitlock_proc_event_get_parent_pid:
 *
 * FORK: the parent; 0 for the other events.
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_proc_event_get_parent_pid(const struct splitlock_proc_event *ev);
/**
 * splitlock_proc_event_get_parent_tgid:
 *
 * FORK: the parent's thread group; 0 for the other events.
 *
 * Since: LIBSPLITLOCK_1
 */
uint32_t splitlock_proc_event_get_parent_tgid(const struct splitlock_proc_event *ev);
/**
 * splitlock_proc_event_get_timestamp_ns:
 *
 * CLOCK_MONOTONIC of the event, in nanoseconds.
 *
 * Since: LIBSPLITLOCK_1
 */
uint64_t splitlock_proc_event_get_timestamp_ns(const struct splitlock_proc_event *ev);
/**
 * splitlock_proc_event_get_comm:
 *
 * COMM: the new name, terminated, its length in *@len (may be NULL); ""
 * for the other events.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_proc_event_get_comm(const struct splitlock_proc_event *ev,
					  size_t *len);

/*
 * Decode the proc connector's netlink messages in @buf (what recv() gave):
 * calls @fn for every FORK, EXEC, COMM and EXIT event; others are skipped.
 * Pure: no socket. Returns the number of events, or -EBADMSG when the bytes
 * are not well-formed netlink/connector messages.
 */
typedef int (*splitlock_proc_event_fn)(const struct splitlock_proc_event *ev,
				       void *data);
/**
 * splitlock_proc_connector_decode:
 *
 * Decodes the proc connector's netlink messages in @buf (what recv() gave)
 * and calls @fn for every FORK, EXEC, COMM and EXIT event; others are
 * skipped. Pure: no socket. Returns the number of events, or -EBADMSG when
 * the bytes are not well-formed netlink/connector messages.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_proc_connector_decode(const void *buf, size_t len,
				    splitlock_proc_event_fn fn, void *data);
/**
 * splitlock_proc_connector_open:
 *
 * Subscribe to process events (needs CAP_NET_ADMIN, the initial user and
 * PID namespaces). Returns a non-blocking descriptor; -EPERM without
 * privilege, -EOPNOTSUPP in a non-initial namespace, -EXDEV when the
 * context's root is not the running system.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1)
int splitlock_proc_connector_open(struct splitlock_ctx *ctx);
/**
 * splitlock_proc_connector_receive:
 *
 * Read what is pending on @fd and decode it; 0 when nothing is pending.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_proc_connector_receive(int fd, splitlock_proc_event_fn fn,
				     void *data);
/**
 * splitlock_proc_connector_close:
 *
 * Closes a descriptor from splitlock_proc_connector_open(). Accepts -1.
 *
 * Since: LIBSPLITLOCK_1
 */
void splitlock_proc_connector_close(int fd);

/**
 * splitlock_offenders_proc_event:
 *
 * Remember exe and cmdline of processes as they exec, so that a follow-mode
 * report can still name an offender that exited before its log line was
 * read. Feed it the connector's events.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_offenders_proc_event(struct splitlock_offenders *report,
				   const struct splitlock_proc_event *ev);

/*
 * Follow the running boot's log as it grows (--follow): records already
 * there are skipped unless @from_start. The proc connector is used when it
 * can be (see splitlock_follow_get_connector_error()).
 */
struct splitlock_follow;

/**
 * splitlock_follow_new:
 *
 * A follower adding to @report, into *@follow. It takes a reference on
 * @report. The log's open errors; -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 3)
int splitlock_follow_new(struct splitlock_offenders *report, bool from_start,
			 struct splitlock_follow **follow);
/**
 * splitlock_follow_free:
 *
 * Frees @f and closes its descriptors; returns NULL.
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_follow *splitlock_follow_free(struct splitlock_follow *f);
/**
 * splitlock_follow_get_log_fd:
 *
 * Descriptors to poll() for POLLIN: the log (-1 when it is a regular file,
 * which cannot be polled: call splitlock_follow_process() now and then)
 * and the proc connector (-1 when unavailable).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_follow_get_log_fd(const struct splitlock_follow *f);
/**
 * splitlock_follow_get_connector_fd:
 *
 * The proc connector's descriptor to poll() for POLLIN, -1 when unavailable
 * (see splitlock_follow_get_connector_error()).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_follow_get_connector_fd(const struct splitlock_follow *f);
/**
 * splitlock_follow_get_connector_error:
 *
 * Why the connector is unavailable (negative errno), or 0.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_follow_get_connector_error(const struct splitlock_follow *f);
/*
 * Handle what is pending without blocking; @fn is called for each new
 * event with the offender it counted for and the event's address as text.
 */
typedef int (*splitlock_follow_fn)(const struct splitlock_offender *o,
				   const struct splitlock_kmsg_record *rec,
				   const char *ip, void *data);
/**
 * splitlock_follow_process:
 *
 * Handles what is pending without blocking: @fn is called for each new event
 * with the offender it counted for, its record and the event's address as
 * text (see splitlock_follow_fn).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_follow_process(struct splitlock_follow *f, splitlock_follow_fn fn,
			     void *data);


/* ---- probe: what this kernel and CPU do with a split lock ----------------- */

/* The outcome of a split lock in the probe's child. */
enum splitlock_probe_action {
	SPLITLOCK_PROBE_NONE = 0, /* not detected: nothing logged, no delay */
	SPLITLOCK_PROBE_WARN,     /* logged, not delayed */
	SPLITLOCK_PROBE_MISERY,   /* logged and delayed (the misery penalty) */
	SPLITLOCK_PROBE_SIGBUS,   /* killed with SIGBUS (BUS_ADRALN) */
};

/*
 * Who delayed the probe's split locks, for SPLITLOCK_PROBE_MISERY. A guest's
 * split lock can be penalized twice: by the guest's kernel, and by the
 * host's, which applies its own misery to the virtual CPU's thread (KVM's
 * handle_guest_split_lock()) whatever the guest's mode and sysctl say.
 */
enum splitlock_probe_delayer {
	SPLITLOCK_PROBE_DELAYER_NONE = 0,   /* not delayed */
	/* this kernel: its mode, sysctl and exemption make it delay this trap */
	SPLITLOCK_PROBE_DELAYER_KERNEL,
	/*
	 * not this kernel, which would not have delayed this trap, and it runs
	 * in a virtual machine: the host's penalty, which only the host's
	 * settings change
	 */
	SPLITLOCK_PROBE_DELAYER_HYPERVISOR,
	/* not this kernel, and not in a virtual machine: cause unknown */
	SPLITLOCK_PROBE_DELAYER_UNKNOWN,
};

/* The command name the probe's child runs under, as the kernel log shows it. */
#define SPLITLOCK_PROBE_COMM "slctl-probe"

enum {
	/*
	 * Write "ac" to the kernel's injection hook
	 * (/sys/kernel/debug/split_lock/inject) instead of split-locking.
	 */
	SPLITLOCK_PROBE_SIMULATE_AC = 1u << 0,
	/* The same with "db": a bus lock trap. */
	SPLITLOCK_PROBE_SIMULATE_DB = 1u << 1,
};

struct splitlock_probe;

/**
 * splitlock_probe_run:
 *
 * Fork a child named SPLITLOCK_PROBE_COMM, pinned to one CPU, that performs
 * a few split locks (a locked instruction on an operand that crosses a
 * cache line), each timed, under a timeout; classify what the kernel did
 * from the child's fate and the kernel log (/dev/kmsg under the root).
 * Where split locks are not trapped, it also measures the cost of a
 * split-locked and of an aligned locked instruction and how much a thread
 * on another CPU slows down while the child split-locks. The split locks
 * last well under a second in all.
 *
 * @flags: 0 or one SPLITLOCK_PROBE_SIMULATE_* bit.
 * On success *@probe is a new report the caller frees with
 * splitlock_probe_free(); on failure it is left NULL.
 * Errors: -EINVAL (both simulate bits), -EOPNOTSUPP (simulate: no injection
 * hook), -EACCES/-EPERM (the hook cannot be written), -ETIME (the child
 * did not finish within its timeout), -EIO (the child died of something
 * else than a split lock), -ENOMEM, or what fork(2) and pipe(2) return.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 3)
int splitlock_probe_run(struct splitlock_ctx *ctx, unsigned flags,
			struct splitlock_probe **probe);
/**
 * splitlock_probe_free:
 *
 * Frees a report (one owner); returns NULL. Accepts NULL.
 *
 * History: returns NULL, as every _free() does, since 1.0 (was void).
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_probe *splitlock_probe_free(struct splitlock_probe *probe);

/**
 * splitlock_probe_get_action:
 *
 * What happened to the split lock.
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_probe_action
splitlock_probe_get_action(const struct splitlock_probe *probe);
/**
 * splitlock_probe_is_detected:
 *
 * true unless the action is SPLITLOCK_PROBE_NONE.
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_probe_is_detected(const struct splitlock_probe *probe);
/**
 * splitlock_probe_is_simulated:
 *
 * true when the injection hook was used.
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_probe_is_simulated(const struct splitlock_probe *probe);
/**
 * splitlock_probe_is_complete:
 *
 * false when the kernel log could not be read (a warning would go unseen:
 * reading it needs CAP_SYSLOG where dmesg_restrict is set).
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_probe_is_complete(const struct splitlock_probe *probe);
/**
 * splitlock_probe_get_trap:
 *
 * The trap that caught it: SPLITLOCK_KIND_SPLIT_LOCK (#AC) or
 * SPLITLOCK_KIND_BUS_LOCK (#DB). -ENODATA when not detected or not known.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_probe_get_trap(const struct splitlock_probe *probe,
			     enum splitlock_kind *trap);
/**
 * splitlock_probe_get_delay_ms:
 *
 * The delay a trap added, in milliseconds: the median over the delayed
 * split locks for MISERY, over all of them for WARN. -ENODATA otherwise.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_probe_get_delay_ms(const struct splitlock_probe *probe,
				 double *ms);
/**
 * splitlock_probe_get_delayer:
 *
 * Who added the delay: SPLITLOCK_PROBE_DELAYER_NONE unless the action is
 * SPLITLOCK_PROBE_MISERY. The kernel's part is judged from its mode, the
 * trap, kernel.split_lock_mitigate, the release and the caller's own
 * misery exemption (which the child inherits).
 *
 * Since: LIBSPLITLOCK_1
 */
enum splitlock_probe_delayer
splitlock_probe_get_delayer(const struct splitlock_probe *probe);
/**
 * splitlock_probe_delayer_name:
 *
 * "none", "kernel", "hypervisor", "unknown"; NULL for an unknown value.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_probe_delayer_name(enum splitlock_probe_delayer delayer);
/**
 * splitlock_probe_get_split_lock_ns:
 *
 * Median cost of one split-locked instruction in nanoseconds. -ENODATA
 * when not measured (split locks are trapped here).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_probe_get_split_lock_ns(const struct splitlock_probe *probe,
				      double *ns);
/**
 * splitlock_probe_get_aligned_lock_ns:
 *
 * Median cost of one aligned locked instruction in nanoseconds. -ENODATA
 * when not measured (split locks are trapped here).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_probe_get_aligned_lock_ns(const struct splitlock_probe *probe,
					double *ns);
/**
 * splitlock_probe_get_stall_percent:
 *
 * How much slower, in percent of its throughput alone, a thread reading
 * memory on another CPU runs while the child split-locks (negative values
 * are noise). -ENODATA when not measured (one CPU, or split locks trapped).
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_probe_get_stall_percent(const struct splitlock_probe *probe,
				      double *percent);
/**
 * splitlock_probe_get_cpu:
 *
 * The CPU the child ran on.
 *
 * Since: LIBSPLITLOCK_1
 */
unsigned splitlock_probe_get_cpu(const struct splitlock_probe *probe);
/**
 * splitlock_probe_action_name:
 *
 * "none", "warn", "misery", "sigbus"; NULL for an unknown value.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_probe_action_name(enum splitlock_probe_action action);
/**
 * splitlock_probe_trap_name:
 *
 * A trap as the injection hook and the report name it: "ac" for
 * SPLITLOCK_KIND_SPLIT_LOCK, "db" for SPLITLOCK_KIND_BUS_LOCK; NULL for an
 * unknown value.
 *
 * Since: LIBSPLITLOCK_1
 */
const char *splitlock_probe_trap_name(enum splitlock_kind trap);
/**
 * splitlock_offender_is_probe:
 *
 * true when @o is one of the probe's own events (its comm is
 * SPLITLOCK_PROBE_COMM), so that a report can tell them apart.
 *
 * Since: LIBSPLITLOCK_1
 */
bool splitlock_offender_is_probe(const struct splitlock_offender *o);

/* ---- model-specific registers of the detector -------------------------------- */

/* The detector's bits, one per MSR read on every CPU. */
enum splitlock_msr_bit {
	/* IA32_CORE_CAPABILITIES (0xcf) bit 5: split lock detect supported */
	SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED = 0,
	/* MSR_TEST_CTRL (0x33) bit 29: split lock detect armed now */
	SPLITLOCK_MSR_SPLIT_LOCK_ARMED,
	/* IA32_DEBUGCTL (0x1d9) bit 2: bus lock detect armed now */
	SPLITLOCK_MSR_BUS_LOCK_ARMED,
	/*
	 * No _MAX: a later release may read more bits; splitlock_msr_get_bit()
	 * returns -EINVAL past the last it knows.
	 */
};

/* How the msr driver is present for the kernel under the root. */
enum splitlock_msr_module {
	SPLITLOCK_MSR_MODULE_LOADED = 0, /* /dev/cpu/0/msr exists */
	SPLITLOCK_MSR_MODULE_BUILTIN,    /* in modules.builtin */
	SPLITLOCK_MSR_MODULE_LOADABLE,   /* a module file modprobe would load */
	SPLITLOCK_MSR_MODULE_MISSING,    /* none of the above */
};

/**
 * splitlock_msr_module_find:
 *
 * Where the msr driver is, for the kernel release under the root
 * (/lib/modules/RELEASE, looked up with libkmod as modprobe does; built-in
 * modules from modules.builtin first). For LOADABLE, *@path (may be NULL)
 * is the module file, which the caller frees; NULL otherwise. The lookup
 * is made in a child process (fork()) waited for 10 seconds: the
 * directories it lists are readable, and so lockable, by every user.
 * Errors: -ENOMEM, -ETIMEDOUT (the child stalled, or none could be
 * started), or what reading the release returns.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_msr_module_find(struct splitlock_ctx *ctx,
			      enum splitlock_msr_module *state, char **path);

struct splitlock_msr;

/**
 * splitlock_msr_read:
 *
 * Read the detector's MSRs on every online CPU through /dev/cpu/N/msr,
 * loading the msr module with libkmod when it is loadable and not loaded.
 * An MSR a CPU does not have (EIO: VMs, AMD) is recorded for that CPU, not
 * an error. On success *@msr is a new report the caller frees with
 * splitlock_msr_free(); on failure it is left NULL.
 * Errors: -EPERM when CAP_SYS_RAWIO is missing, or CAP_SYS_MODULE when the
 * module must be loaded (the log says which); -EOPNOTSUPP when the driver
 * is missing, or loadable only for another root than "/"; what loading
 * the module returns; -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 2)
int splitlock_msr_read(struct splitlock_ctx *ctx, struct splitlock_msr **msr);
/**
 * splitlock_msr_check_capabilities:
 *
 * The capability reading the MSRs lacks: CAP_SYS_RAWIO, or CAP_SYS_MODULE
 * when the msr module must be loaded first. 0 when none is missing;
 * -EPERM with *@missing set when one is; other errors as
 * splitlock_msr_module_find().
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_msr_check_capabilities(struct splitlock_ctx *ctx,
				     enum splitlock_cap *missing);
/**
 * splitlock_msr_free:
 *
 * Frees a report (one owner); returns NULL. Accepts NULL.
 *
 * History: returns NULL, as every _free() does, since 1.0 (was void).
 *
 * Since: LIBSPLITLOCK_1
 */
struct splitlock_msr *splitlock_msr_free(struct splitlock_msr *msr);
/**
 * splitlock_msr_get_count:
 *
 * Number of CPUs read.
 *
 * Since: LIBSPLITLOCK_1
 */
size_t splitlock_msr_get_count(const struct splitlock_msr *msr);
/**
 * splitlock_msr_get_cpu:
 *
 * The number of the @index-th CPU read; -ERANGE past the end.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_msr_get_cpu(const struct splitlock_msr *msr, size_t index,
			  unsigned *cpu);
/**
 * splitlock_msr_get_bit:
 *
 * One bit on the @index-th CPU. -ENODATA when that CPU does not have the
 * MSR, another negative errno when reading it failed, -ERANGE or -EINVAL
 * for a bad @index or @bit.
 *
 * Since: LIBSPLITLOCK_1
 */
int splitlock_msr_get_bit(const struct splitlock_msr *msr, size_t index,
			  enum splitlock_msr_bit bit, bool *value);
/* ---- Exact counts of one process tree (slctl run --check) -------------- */

/*
 * Where a count comes from, most exact first. The PMU counts every split
 * lock and bus lock whether or not anything traps; the patched kernel's
 * counters and its tracepoint count every trap it handles; an eBPF program
 * on a stock kernel's trap handlers does the same; the kernel log, rate
 * limited and warned once per task, gives a lower bound only.
 */
enum splitlock_count_source {
	SPLITLOCK_COUNT_PMU = 1,
	SPLITLOCK_COUNT_KERNEL,
	SPLITLOCK_COUNT_TRACE,
	SPLITLOCK_COUNT_BPF,
	SPLITLOCK_COUNT_LOG,
};

struct splitlock_count;

/*
 * A count object is used by one thread at a time. It holds two perf
 * events (close-on-exec), and with SPLITLOCK_COUNT_TASKS two more and a
 * 68 KiB ring buffer for each possible CPU, counted against the user's
 * locked memory for perf (kernel.perf_event_mlock_kb).
 */

/* Flags of splitlock_count_new(). */
enum {
	/* Also learn which task took each trap, and where, where the source
	 * can tell (splitlock_count_get_tasks()). */
	SPLITLOCK_COUNT_TASKS = 1u << 0,
};

/**
 * splitlock_count_new:
 *
 * Choose the most exact source that can count here, into a new *@counter
 * (free it with splitlock_count_free()). A source is chosen only once an
 * event of it has been opened on this process, so a choice is one that
 * works. A machine where nothing can count still gets a counter, refused
 * (splitlock_count_get_refusal()), whose reason names why each source
 * cannot. @flags: 0 or SPLITLOCK_COUNT_TASKS. Errors, with *@counter NULL:
 * -EINVAL (unknown flags), -ENOMEM.
 *
 * The counter acts on the running kernel; the context's root is where it
 * reads /proc/cpuinfo and tracefs, so that tests can pose as another CPU.
 *
 * Since: LIBSPLITLOCK_1.1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 3)
int splitlock_count_new(struct splitlock_ctx *ctx, unsigned flags,
			  struct splitlock_count **counter);
/**
 * splitlock_count_free:
 *
 * Closes what @counter opened and frees it; returns NULL. Accepts NULL.
 *
 * Since: LIBSPLITLOCK_1.1
 */
struct splitlock_count *splitlock_count_free(struct splitlock_count *counter);
/**
 * splitlock_count_get_source:
 *
 * The source chosen; 0 when the counter is refused.
 *
 * Since: LIBSPLITLOCK_1.1
 */
enum splitlock_count_source splitlock_count_get_source(const struct splitlock_count *counter);
/**
 * splitlock_count_get_refusal:
 *
 * 0 when a source can count, else why none can, with the sentence in
 * splitlock_count_get_reason(): -EACCES (a source exists but this
 * process may not use it: CAP_PERFMON or kernel.perf_event_paranoid),
 * -EOPNOTSUPP (none exists here).
 *
 * Since: LIBSPLITLOCK_1.1
 */
int splitlock_count_get_refusal(const struct splitlock_count *counter);
/**
 * splitlock_count_get_reason:
 *
 * One sentence: what the chosen source counts with (the PMU event's name,
 * the tracepoint), or why no source can count. Borrowed from @counter.
 *
 * Since: LIBSPLITLOCK_1.1
 */
const char *splitlock_count_get_reason(const struct splitlock_count *counter);
/**
 * splitlock_count_is_exact:
 *
 * Whether the chosen source counts every event, not a lower bound: the PMU
 * does; the tracepoint does where the mode traps every split lock and bus
 * lock (seq, ratelimit, fatal, or warn with #DB alone), not in warn mode
 * with #AC, where a core rests from detection after each trap.
 *
 * Since: LIBSPLITLOCK_1.1
 */
bool splitlock_count_is_exact(const struct splitlock_count *counter);
/**
 * splitlock_count_attach:
 *
 * Start counting process @pid and every task it starts from then on, from
 * its next execve() (the counts begin with the program, not with the
 * caller's code between fork() and exec). @pid must be a child of the
 * caller that has not exec'd yet and that runs with the caller's
 * credentials. One process per counter. The kernel stops counting a task
 * whose exec crosses a security domain (a setuid or file-capability
 * program leaves it undumpable) and everything it starts after: run the
 * child with no_new_privs (prctl(2) PR_SET_NO_NEW_PRIVS) so that no exec
 * does. Errors: -EBUSY (already attached),
 * -EOPNOTSUPP (the counter is refused), the error of perf_event_open()
 * (-EACCES, -ESRCH, ...).
 *
 * Since: LIBSPLITLOCK_1.1
 */
SPLITLOCK_MUST_CHECK
int splitlock_count_attach(struct splitlock_count *counter, uint32_t pid);
/**
 * splitlock_count_read:
 *
 * The count of events of @kind so far, over the tree attached, in *@count:
 * the tasks that have exited and those still running, up to this call.
 * Read once the whole tree has ended, or what comes after is not in it.
 * -ENODATA: the source does not tell this kind apart (a PMU event that
 * counts bus locks, which include split locks, has no split lock count);
 * -ENOEXEC: never enabled (the process did not exec after the attach, or
 * had before it; a count of 0 would be a lie); -EIO: a PMU event was off
 * its counter for a while, taken by another user of the PMU (the count is
 * short); -ENOTCONN: nothing attached; -EINVAL: unknown @kind.
 *
 * Since: LIBSPLITLOCK_1.1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(3)
int splitlock_count_read(const struct splitlock_count *counter, enum splitlock_kind kind,
			   uint64_t *count);
/**
 * splitlock_count_get_fd:
 *
 * With SPLITLOCK_COUNT_TASKS, once attached: a descriptor that polls
 * readable (POLLIN) when records of the tree's traps wait to be read with
 * splitlock_count_drain(), which the caller should do while the tree
 * runs, lest they be lost; -ENODATA when there is nothing to read.
 *
 * Since: LIBSPLITLOCK_1.1
 */
int splitlock_count_get_fd(const struct splitlock_count *count);
/**
 * splitlock_count_drain:
 *
 * Reads the records waiting (any number of times; again once the tree has
 * ended): how many there were (0 when none), or -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1.1
 */
int splitlock_count_drain(struct splitlock_count *count);
/**
 * splitlock_count_get_tasks:
 *
 * The number of tasks (threads, as the kernel log names them) that
 * trapped, in *@n, and in *@lost (may be NULL) the traps whose records the
 * kernel could not keep (its buffer was full): the tasks' counts then fall
 * short of the totals, which stay exact. Errors, with *@n 0: -ENODATA (not
 * asked for), -EOPNOTSUPP (the source cannot tell: the PMU's totals),
 * -ENOTCONN (not attached), or the kernel's refusal to sample (-EACCES).
 *
 * Since: LIBSPLITLOCK_1.1
 */
SPLITLOCK_NONNULL(2)
int splitlock_count_get_tasks(const struct splitlock_count *count, size_t *n, uint64_t *lost);
/**
 * splitlock_count_get_task:
 *
 * Task @index (below the count of splitlock_count_get_tasks()): its PID
 * (the thread's, as the kernel log prints it), its name (*@comm borrowed,
 * NULL when no record named it: the name of its last exec), and its traps
 * of each kind. Any out pointer may be NULL; what they point to is valid
 * until the next splitlock_count_drain() or splitlock_count_free().
 * -ERANGE past the end.
 *
 * Since: LIBSPLITLOCK_1.1
 */
int splitlock_count_get_task(const struct splitlock_count *count, size_t index, uint32_t *pid,
			     const char **comm, uint64_t *split_locks, uint64_t *bus_locks);
/**
 * splitlock_count_get_task_ips:
 *
 * The distinct user-space addresses task @index trapped at (the split lock
 * instruction for an #AC, the one after the locked instruction for a #DB,
 * as the kernel's warning prints them), at most 8, borrowed in *@ips
 * until the next splitlock_count_drain() or splitlock_count_free(), *@n of
 * them; *@all (may be NULL) false when it trapped at more. -ERANGE past
 * the end.
 *
 * Since: LIBSPLITLOCK_1.1
 */
SPLITLOCK_NONNULL(3, 4)
int splitlock_count_get_task_ips(const struct splitlock_count *count, size_t index,
				 const uint64_t **ips, size_t *n, bool *all);
/**
 * splitlock_count_source_name:
 *
 * "pmu", "kernel", "trace", "bpf", "log"; NULL for any other value.
 *
 * Since: LIBSPLITLOCK_1.1
 */
const char *splitlock_count_source_name(enum splitlock_count_source source);

/**
 * splitlock_msr_summary:
 *
 * One sentence on the whole machine for a user, e.g. "armed on CPUs 0-7;
 * CPU 3 disarmed (a penalty in progress?)", in new memory the caller frees.
 * Errors: -ENOMEM.
 *
 * Since: LIBSPLITLOCK_1
 */
SPLITLOCK_MUST_CHECK SPLITLOCK_NONNULL(1, 2)
int splitlock_msr_summary(const struct splitlock_msr *msr, char **text);

/* ---- cleanup helpers ------------------------------------------------------- */

/*
 * For __attribute__((cleanup)), as systemd ships sd_*_unrefp(): for every
 * object a program owns, a helper that releases *@p (which may be NULL)
 * with the object's _free(), _unref() or _drop(), e.g.
 *
 *   __attribute__((cleanup(splitlock_offenders_unrefp)))
 *   struct splitlock_offenders *report = NULL;
 *
 * Static inline, in the header only: they are no exported symbol.
 * tests/check-header-docs.sh checks that every _free(), _unref() and
 * _drop() of LIBSPLITLOCK_1 has its helper here. The objects handed out
 * borrowed (struct splitlock_offender, the records and events given to
 * callbacks) have none: their owner releases them. A helper discards
 * what the function returns: splitlock_lease_dropp() cannot say that
 * restoring kernel.split_lock_mitigate failed, so a program that must
 * know calls splitlock_lease_drop() itself.
 * Since: LIBSPLITLOCK_1 (header only)
 */
#define SPLITLOCK_DEFINE_CLEANUP(type, func)                                 \
	static inline void func##p(struct type **p)                          \
	{                                                                    \
		if (*p)                                                      \
			(void)func(*p);                                      \
	}

SPLITLOCK_DEFINE_CLEANUP(splitlock_ctx, splitlock_unref)
SPLITLOCK_DEFINE_CLEANUP(splitlock_mode_info, splitlock_mode_info_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_mode_switch, splitlock_mode_switch_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_boot_plan, splitlock_boot_plan_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_mitigate_plan, splitlock_mitigate_plan_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_lift_plan, splitlock_lift_plan_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_lease, splitlock_lease_drop)
SPLITLOCK_DEFINE_CLEANUP(splitlock_leases, splitlock_leases_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_sysctld, splitlock_sysctld_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_kmsg_record, splitlock_kmsg_record_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_event, splitlock_event_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_offenders, splitlock_offenders_unref)
SPLITLOCK_DEFINE_CLEANUP(splitlock_follow, splitlock_follow_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_probe, splitlock_probe_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_msr, splitlock_msr_free)
SPLITLOCK_DEFINE_CLEANUP(splitlock_count, splitlock_count_free)

#ifdef __cplusplus
}
#endif
#endif
