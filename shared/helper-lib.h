/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libsplitlock offers slctl's root helper (cli/helper.c) beyond its
 * public API. slctl links the library statically, so it reaches these;
 * libsplitlock.so does not export them (they are not in
 * lib/libsplitlock.sym, nor in the packaging's symbols files). A program
 * of its own that needs the same (a GUI's helper) is the reason to make
 * them public one day.
 */
#ifndef SLCTL_HELPER_LIB_H
#define SLCTL_HELPER_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include "libsplitlock.h"

/*
 * splitlock_exempt_set() for a process that must be, from the check to
 * the write, a live process of @uid alone (real, effective, saved and
 * filesystem uid) whose parent is @ppid: what a privileged helper acting
 * for a user checks before it marks that user's child. The process is
 * pinned (a pidfd, then its /proc/PID directory, through which everything
 * is read and written), so that it cannot end and its PID be reused by
 * another process between the check and the write. Errors as
 * splitlock_exempt_set(), and -ESRCH: gone or ended (a zombie); -ECHILD:
 * not @ppid's child of @uid; -ENOTUNIQ: its uids differ; -EBADMSG: a
 * status file not understood.
 */
int sl_exempt_set_checked(struct splitlock_ctx *ctx, uint32_t pid, uint32_t uid,
			  uint32_t ppid, bool exempt);

#endif
