/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When is "traps: COMM[PID] trap alignment check ..." a split-lock kill?
 * The kernel prints it for every #AC that user space does not handle: in
 * fatal mode for a split lock (arch/x86/kernel/traps.c, do_alignment_check
 * after handle_user_split_lock() refused), but on any CPU and in any mode
 * for a program that set EFLAGS.AC itself, which any user may do. Only the
 * detector's mode tells them apart: fatal with #AC split-lock detection.
 */
#include "offenders-internal.h"

void sl_alignment_rule_init(struct sl_alignment_rule *a, bool live)
{
	*a = (struct sl_alignment_rule){ .live = live, .fatal = -1,
					 .last_mono = SPLITLOCK_TIME_UNKNOWN };
}

bool sl_is_alignment_check(const char *message, size_t len)
{
	return len > 7 && memcmp(message, "traps: ", 7) == 0 &&
	       memmem(message, len, "] trap alignment check ", 23);
}

/* A saved log may hold many boots: each one's own boot line decides. */
static void boundary(struct sl_alignment_rule *a, const struct sl_log_record *lr)
{
	bool new_boot = false;

	if (lr->boot && a->boot && lr->boot != a->boot)
		new_boot = true;
	/* Every boot starts with it; its "#1 SMP ..." gets it past the scan. */
	if (lr->rec.message_len > 14 && memcmp(lr->rec.message, "Linux version ", 14) == 0)
		new_boot = true;
	if (lr->mono_usec != SPLITLOCK_TIME_UNKNOWN &&
	    a->last_mono != SPLITLOCK_TIME_UNKNOWN && lr->mono_usec < a->last_mono)
		new_boot = true; /* the clock since boot went back: a reboot */
	if (new_boot)
		a->fatal = -1;
	if (lr->boot)
		a->boot = lr->boot;
	if (lr->mono_usec != SPLITLOCK_TIME_UNKNOWN)
		a->last_mono = lr->mono_usec;
}

void sl_alignment_rule_see(struct sl_alignment_rule *a, const struct sl_log_record *lr)
{
	enum splitlock_mode mode;
	unsigned rate;

	if (a->live)
		return;
	boundary(a, lr);
	if (!splitlock_mode_from_boot_line(lr->rec.message, &mode, &rate))
		return;
	/* "#DB: sending SIGBUS on user-space bus_locks": no #AC detection. */
	a->fatal = mode == SPLITLOCK_MODE_FATAL &&
		   !memmem(lr->rec.message, lr->rec.message_len, "#DB:", 4);
}

static int live_fatal(struct splitlock_ctx *ctx)
{
	struct splitlock_mode_info *info = NULL;
	unsigned features;
	int fatal;

	if (splitlock_mode_info_read(ctx, &info) < 0)
		return 0;
	fatal = splitlock_mode_info_get_mode(info) == SPLITLOCK_MODE_FATAL;
	splitlock_mode_info_free(info);
	/* Fatal mode on a CPU with bus-lock detection only does not trap #AC. */
	if (fatal && splitlock_cpu_features(ctx, &features) == 0 &&
	    !(features & SPLITLOCK_CPU_SPLIT_LOCK_DETECT))
		fatal = 0;
	sl_dbg(ctx, "alignment-check kills are %ssplit-lock kills here",
	       fatal ? "" : "not ");
	return fatal;
}

int sl_alignment_rule_counts(struct splitlock_ctx *ctx, struct sl_alignment_rule *a,
			     const struct sl_log_record *lr)
{
	if (a->live) {
		if (!a->live_read) {
			a->fatal = live_fatal(ctx);
			a->live_read = true;
		}
		return a->fatal == 1;
	}
	boundary(a, lr);
	return a->fatal;
}
