/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SPLITLOCK_INTERNAL_H
#define SPLITLOCK_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "libsplitlock.h"
#include "macro.h"
#include "core/public-types.h"

#define _public_ __attribute__((visibility("default")))

struct splitlock_ctx {
	int refcount;
	char *root;          /* "/" or an absolute path without trailing '/' */
	int root_fd;         /* O_PATH descriptor of the root */
	splitlock_log_fn log_fn;
	void *log_data;
	int log_priority;
	bool no_openat2;     /* resolve paths by hand (see core/path.c) */
	bool lookup_stalled; /* a bounded lookup timed out (see core/bounded.c) */
	pid_t stalled_child; /* its child, left: -1 where none could start */
};

void sl_log(const struct splitlock_ctx *ctx, int priority, const char *file,
	    int line, const char *fn, const char *format, ...) _printf_(6, 7);

#define sl_log_cond(ctx, prio, ...)                                          \
	do {                                                                 \
		if ((ctx)->log_priority >= (prio))                           \
			sl_log(ctx, prio, __FILE__, __LINE__, __func__,      \
			       __VA_ARGS__);                                 \
	} while (0)
#define sl_err(ctx, ...) sl_log_cond(ctx, LOG_ERR, __VA_ARGS__)
#define sl_warn(ctx, ...) sl_log_cond(ctx, LOG_WARNING, __VA_ARGS__)
#define sl_info(ctx, ...) sl_log_cond(ctx, LOG_INFO, __VA_ARGS__)
#define sl_dbg(ctx, ...) sl_log_cond(ctx, LOG_DEBUG, __VA_ARGS__)

/* path.c: every system path goes through these */
int sl_open(const struct splitlock_ctx *ctx, const char *path, int flags,
	    mode_t mode);
int sl_open_dir(const struct splitlock_ctx *ctx, const char *path);
/* The directory holding @path; *@base points to the last component. */
int sl_open_parent(const struct splitlock_ctx *ctx, const char *path,
		   const char **base);
int sl_access(const struct splitlock_ctx *ctx, const char *path, int mode);
int sl_lstat(const struct splitlock_ctx *ctx, const char *path,
	     struct stat *st);
int sl_readlink(const struct splitlock_ctx *ctx, const char *path, char *buf,
		size_t size);
/* sl_open() of @path from the dentry cache where it answers, else in a
 * child waited for SL_LOOKUP_TIMEOUT_MS (-ETIMEDOUT), whatever the path. */
int sl_open_bounded(const struct splitlock_ctx *ctx, const char *path, int flags);
/*
 * For a long-lived context (a follower): forget a stall once the child that
 * stalled has ended, which it does when the user lets go of the directory.
 * One-shot commands keep it: their report would be half made.
 */
void sl_lookup_stall_recover(struct splitlock_ctx *ctx);
/*
 * mkdirat(@dir, @name) with @mode whatever the umask, in a child waited
 * for SL_LOOKUP_TIMEOUT_MS: the new directory's descriptor, or a negative
 * errno (-EEXIST; -ETIMEDOUT after the bound, or where no child can be
 * started).
 * @path names it in messages.
 */
int sl_mkdirat_bounded(const struct splitlock_ctx *ctx, int dir, const char *name,
		       mode_t mode, const char *path);
/*
 * dir_list() of the directory open at @dir (consumed), @path, made in a
 * child waited for SL_LOOKUP_TIMEOUT_MS where another user could hold its
 * lock: the count, or a negative errno (-ETIMEDOUT as for a lookup).
 */
int sl_dir_list_bounded(const struct splitlock_ctx *ctx, const char *path, int dir,
			bool (*keep)(const char *name, void *data), void *data, char ***names);
/*
 * The same for @n_dirs directories at once (one child): @dirs (negative
 * errnos for those that could not be opened) are consumed; names[i] and
 * counts[i] (a count or a negative errno) for each. 0, or a negative
 * errno for all (-ETIMEDOUT, -ENOMEM).
 */
int sl_dir_lists_bounded(const struct splitlock_ctx *ctx, const char *const *paths, int *dirs,
			 size_t n_dirs, bool (*keep)(const char *name, void *data), void *data,
			 char ***names, int *counts);

/*
 * @fn in a child waited for 2 * SL_LOOKUP_TIMEOUT_MS in all, for
 * work that lists or looks up in directories other users can read and
 * hold (libkmod, a tree scan). What @fn gives sl_emit() reaches @take in
 * this process, in order; the result is @fn's (an int), or -ETIMEDOUT
 * with a sentence naming @action and @what after a stall, or where no
 * child can be started. Without UNIX sockets @fn runs in this process.
 * @fn may not print through the context's log function (the child's
 * messages do not come back), only return errnos.
 */
struct sl_emitter;
int sl_emit(struct sl_emitter *e, const void *msg, size_t len);
int sl_run_bounded(struct splitlock_ctx *ctx, const char *what, const char *action,
		   int (*fn)(struct splitlock_ctx *ctx, void *arg, struct sl_emitter *e),
		   void *arg, int (*take)(void *data, const void *msg, size_t len), void *data);

/* fileio.c */
/* A regular file opened to read (no symlink unless @follow, never blocking):
 * -ELOOP, -EISDIR, or -EBADFD with a logged sentence for FIFOs and devices. */
int sl_open_regular(const struct splitlock_ctx *ctx, const char *path, bool follow);
int sl_read_fd(int fd, size_t max, char **out, size_t *len);
int sl_read_file(const struct splitlock_ctx *ctx, const char *path,
		 size_t max, char **out, size_t *len);
int sl_read_line(const struct splitlock_ctx *ctx, const char *path,
		 char *buf, size_t size);
int sl_write_file_atomic_at(int dirfd, const char *name, const char *data,
			    size_t len, mode_t mode);
int sl_write_atomic(const struct splitlock_ctx *ctx, const char *path,
		    const char *data, size_t len, mode_t mode);
/* Like sl_write_atomic(), the result taking owner, mode and xattrs of
 * @like, a file in the same directory (a faithful backup copy). */
int sl_write_atomic_like(const struct splitlock_ctx *ctx, const char *path,
			 const char *data, size_t len, const char *like);
/* Remove the temporary file @entry of @dirfd ('.#NAME.XXXXXXXX') if it is
 * stale: no writer holds its flock. */
void sl_remove_stale_temporary(int dirfd, const char *entry);
int sl_mkdir_p(const struct splitlock_ctx *ctx, const char *path, mode_t mode);

/* A hex digit's value, or -1: the JSON reader's \uXXXX and the logs'
 * \xNN escapes. */
static inline int sl_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* kmsg.c: \xNN escapes as /dev/kmsg writes them; every log reader shares them. */
size_t sl_unescape(const char *in, size_t len, char *out);
/* Only the \\xNN of bytes that are not printable, as dmesg writes them. */
size_t sl_unescape_unprintable(const char *in, size_t len, char *out);

/* Pure parsers, shared with the fuzz targets. */
unsigned sl_cpu_parse_flags(const char *value);
int sl_sysctld_parse_line(char *line, const char *want, const char **value);
/* A sysctl key in the '/'-separated form systemd compares (in place). */
void sl_sysctl_normalize_key(char *key);

/*
 * sysctl/dropin.c: what our drop-in assigns to @key now (*@value, NULL
 * when nothing; the caller frees it), and whether the file is still the
 * text @written (*@still_ours) or another writer has replaced it since.
 * The value and the text come from one version of the file: concurrent
 * writers replace it by rename, so it is read until its identity is the
 * same before and after; writers that keep replacing it count as a
 * replacement.
 */
int sl_dropin_read_back(struct splitlock_ctx *ctx, const char *key,
			const char *written, char **value, bool *still_ours);

/*
 * core/config-lock.c: slctl's own directory, /run/slctl under the root, created mode
 * 0700 and checked to be root's (or the caller's) and no one else's. The
 * descriptor, or a negative errno with a sentence in *@why (malloc'ed).
 */
#define SL_STATE_DIR "/run/slctl"
int sl_open_state_dir(struct splitlock_ctx *ctx, char **why);
/*
 * The lock file @name of the state directory @dirfd, created mode 0600
 * whatever the umask: a regular file with one link, owned by the
 * directory's owner, or -EBADFD.
 */
int sl_open_lock_file(int dirfd, const char *name);
/* mkdirat() whose new directory gets @mode whatever the umask; an existing
 * one is left as it is (0). */
int sl_mkdirat_mode(int dirfd, const char *name, mode_t mode);
/*
 * An exclusive flock on @fd, waited for @timeout_ms at most: a holder that
 * is stopped, frozen or hung makes the waiter fail with -ETIMEDOUT, never
 * hang with it.
 */
int sl_flock_wait(int fd, unsigned timeout_ms);
/* How long a lock of slctl's may be waited for: its holders keep it for a
 * few file operations. */
#define SL_LOCK_TIMEOUT_MS 10000
/* config-lock.c: /run/slctl/lock under the root, held while the boot
 * configuration changes; returns the fd, or a negative errno with a
 * sentence in *@why (malloc'ed): -EBUSY when another holds it. */
#define SL_LOCK_FILE SL_STATE_DIR "/lock"
int sl_lock(struct splitlock_ctx *ctx, char **why);
/* A lookup under /proc/sys, /sys or /run/slctl, or a listing, made in a
 * child (path.c). */
#define SL_LOOKUP_TIMEOUT_MS 5000

/* kernel/interfaces.c: the interfaces of the patched kernel's run-time control. */
#define SL_SYSFS_MODE "/sys/kernel/split_lock/mode"
bool sl_mode_file_writable(struct splitlock_ctx *ctx);
bool sl_has_misery_exempt(struct splitlock_ctx *ctx);
/* /proc/self/split_lock has per-process counts (v1, v2; not v3). */
bool sl_has_proc_counters(struct splitlock_ctx *ctx);
bool sl_release_before(struct splitlock_ctx *ctx, unsigned major, unsigned minor);
/*
 * The value of the "KEY VALUE" line of @text (the part after the blanks,
 * up to the end of the line), or NULL when no line has @key.
 */
const char *sl_find_key(const char *text, const char *key);

/* run/process-state.c: field 22 of /proc/PID/stat; -ESRCH when there is no PID. */
int sl_proc_start_time(struct splitlock_ctx *ctx, uint32_t pid, uint64_t *start);
/* The same and field 3, the state: 'Z' (zombie) and 'X' (dead) have ended. */
int sl_proc_stat(struct splitlock_ctx *ctx, uint32_t pid, uint64_t *start, char *state);
/* The start time, with /proc/PID looked up in a bounded child where the
 * cache does not answer (-ETIMEDOUT; -ESRCH: no such process). */
int sl_proc_start_time_bounded(struct splitlock_ctx *ctx, uint32_t pid, uint64_t *start);
/* This boot's id (/proc/sys/kernel/random/boot_id; "" where the root has
 * none): a PID and start time name a process within one boot only. */
int sl_boot_id(struct splitlock_ctx *ctx, char *id, size_t size);
/* Whether the root's /proc is the kernel's (not a fake root's files). */
bool sl_proc_is_procfs(struct splitlock_ctx *ctx);
/* Whether no process has @pid (pidfd_open()'s ESRCH): no /proc lookup. */
bool sl_pid_reaped(uint32_t pid);

/*
 * lease.c: set kernel.split_lock_mitigate by hand (the mitigate plan):
 * while runs hold leases that value is the one to keep, so the saved one
 * is forgotten, under the same hold of leases.lock as the write. Nothing
 * is created when there are no leases. 0 or a negative errno.
 */
int sl_leases_set_by_hand(struct splitlock_ctx *ctx, int value);

/* Largest file we read whole: configuration files are small. */
#define SL_MAX_CONFIG_SIZE (4u << 20)

#endif
