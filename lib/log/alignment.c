/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When is "traps: COMM[PID] trap alignment check ..." a split-lock kill?
 * The kernel prints it for every #AC that user space does not handle: in
 * fatal mode for a split lock (arch/x86/kernel/traps.c, do_alignment_check
 * after handle_user_split_lock() refused), but on any CPU and in any mode
 * for a program that set EFLAGS.AC itself, which any user may do. Only the
 * detector's mode tells them apart: fatal with #AC split-lock detection.
 */
#include "log/reader.h"

void sl_alignment_rule_init(struct sl_alignment_rule *a, bool live)
{
	*a = (struct sl_alignment_rule){ .live = live, .live_fatal = -1 };
}

/*
 * Records of one CPU's are stamped in order, those of two may be a few
 * microseconds out of order in the buffer; the clock since boot going
 * back by more is a reboot.
 */
#define REBOOT_STEP_USEC 10000

static struct sl_alignment_boot *find(struct sl_alignment_rule *a, uint64_t key)
{
	for (struct sl_alignment_boot *b = a->boots; b < a->boots + SL_ALIGNMENT_BOOTS && b->key; b++)
		if (b->key == key)
			return b;
	return NULL;
}

/*
 * journalctl names a boot in the marker before its lines, so the first
 * boot's lines have no id (SL_BOOT_UNMARKED in journal text, 0 in the
 * yearless short forms read as syslog); in a journal of several hosts its host's lines
 * come back after another host's under the id they had all along. A new
 * id whose first line is that host's, right after another host's line,
 * is taken for it; a reboot of that host while another logged would need
 * its own boot lines lost as well to be taken for it.
 */
static uint64_t boot_id(struct sl_alignment_rule *a, const struct sl_log_record *lr)
{
	uint64_t boot = lr->boot;

	if (boot == SL_BOOT_UNMARKED || boot == 0) {
		a->unmarked_seen = true;
		a->unmarked_boot = boot;
		a->unmarked_host = lr->host;
	} else if (a->unmarked_named && boot == a->unmarked_id) {
		boot = a->unmarked_boot;
	} else if (a->unmarked_seen && !a->unmarked_named && lr->host &&
		   lr->host == a->unmarked_host && boot != a->last_boot &&
		   a->last_host != lr->host && !find(a, (boot ^ lr->host) | 1)) {
		a->unmarked_named = true;
		a->unmarked_id = boot;
		boot = a->unmarked_boot;
	}
	a->last_boot = lr->boot;
	a->last_host = lr->host;
	return boot;
}

uint64_t sl_alignment_rule_machine(const struct sl_alignment_rule *a,
				   const struct sl_log_record *lr)
{
	/* Boots a log shows only by the kernel's banner (kern.log, dmesg
	 * dumps cat'ed) are told apart by it too. */
	uint64_t banners = a->banners * UINT64_C(0x9e3779b97f4a7c15);

	if (a->unmarked_named && lr->boot == a->unmarked_id)
		return (a->unmarked_boot ^ lr->host) + banners;
	return (lr->boot ^ lr->host) + banners;
}

/* The boot @lr belongs to: its journal boot id and its host, as known. */
static struct sl_alignment_boot *boot_of(struct sl_alignment_rule *a,
					 const struct sl_log_record *lr)
{
	uint64_t key = (boot_id(a, lr) ^ lr->host) | 1; /* nonzero: slots in use */
	struct sl_alignment_boot *b;

	for (b = a->boots; b < a->boots + SL_ALIGNMENT_BOOTS && b->key; b++)
		if (b->key == key)
			return b;
	/* More boots than slots: one forgotten, its mode not known again. */
	if (b == a->boots + SL_ALIGNMENT_BOOTS)
		b = &a->boots[a->next_evict++ % SL_ALIGNMENT_BOOTS];
	*b = (struct sl_alignment_boot){ .key = key, .fatal = -1, .ac = -1,
					 .last_mono = SPLITLOCK_TIME_UNKNOWN };
	return b;
}

/* A saved log may hold many boots: each one's own boot line decides. */
static struct sl_alignment_boot *boundary(struct sl_alignment_rule *a,
					  const struct sl_log_record *lr)
{
	struct sl_alignment_boot *b = boot_of(a, lr);

	/* Every boot starts with it; its "#1 SMP ..." gets it past the scan. */
	if (lr->rec.message_len > 14 && memcmp(lr->rec.message, "Linux version ", 14) == 0) {
		b->fatal = b->ac = -1;
		b->epoch++;
		a->banners++; /* a banner is no alignment check: seen once */
	}
	if (lr->mono_usec != SPLITLOCK_TIME_UNKNOWN) {
		if (b->last_mono != SPLITLOCK_TIME_UNKNOWN &&
		    lr->mono_usec < b->last_mono - REBOOT_STEP_USEC)
			b->fatal = b->ac = -1;
		b->last_mono = lr->mono_usec;
	}
	return b;
}

uint64_t sl_alignment_rule_burst_machine(struct sl_alignment_rule *a,
					 const struct sl_log_record *lr)
{
	/* The record's boot and host, and the boots within them that a
	 * banner or the detector's boot line began: not every host's banners
	 * (a collector's log), nor the stamps going back (journalctl -r
	 * goes back at every line). */
	const struct sl_alignment_boot *b = boundary(a, lr);

	return b->key + b->epoch * UINT64_C(0xc2b2ae3d27d4eb4f);
}

/*
 * kernel-patch/'s run-time switch: "mode changed from warn to fatal by
 * slctl/123". 1 when @message is one, *@to_fatal whether it went fatal.
 */
static bool mode_switch(const char *message, size_t len, bool *to_fatal)
{
	static const char head[] = "x86/split lock detection: mode changed from ";
	const char *end = message + len, *to, *by;

	if (len < sizeof(head) - 1 || memcmp(message, head, sizeof(head) - 1) != 0)
		return false;
	to = memmem(message, len, " to ", 4);
	if (!to)
		return false;
	to += 4;
	by = memmem(to, (size_t)(end - to), " by ", 4);
	if (!by)
		return false;
	*to_fatal = by - to == 5 && memcmp(to, "fatal", 5) == 0;
	return true;
}

void sl_alignment_rule_see(struct sl_alignment_rule *a, const struct sl_log_record *lr)
{
	struct sl_alignment_boot *b;
	enum splitlock_mode mode;
	unsigned rate;
	bool to_fatal;

	b = boundary(a, lr);
	/* From this record on, the boot runs in the new mode; fatal traps #AC
	 * only where the boot line showed #AC detection. */
	if (mode_switch(lr->rec.message, lr->rec.message_len, &to_fatal)) {
		b->fatal = !to_fatal ? 0 : b->ac;
		return;
	}
	if (!splitlock_mode_from_boot_line(lr->rec.message, &mode, &rate))
		return;
	/* Printed once a boot: a boot begins here, or ends (journalctl -r). */
	b->epoch++;
	/*
	 * "#DB: sending SIGBUS on user-space bus_locks" (fatal), "#DB: warning
	 * on user-space bus_locks" (warn): the kernel prints them only where
	 * the CPU has no #AC detection. Its ratelimit line is "#DB:" on any.
	 */
	b->ac = memmem(lr->rec.message, lr->rec.message_len, "#AC:", 4) ? 1 :
		(mode == SPLITLOCK_MODE_FATAL || mode == SPLITLOCK_MODE_WARN) &&
				memmem(lr->rec.message, lr->rec.message_len, "#DB:", 4) ? 0 : -1;
	b->fatal = mode == SPLITLOCK_MODE_FATAL && b->ac != 0;
	if (b->fatal)
		b->seen_fatal = true;
	else
		b->seen_other = true;
	if (b->seen_fatal && b->seen_other && lr->mono_usec == SPLITLOCK_TIME_UNKNOWN &&
	    !lr->boot && !lr->host)
		b->mixed = true;
}

static int read_live_fatal(struct splitlock_ctx *ctx)
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
	struct sl_alignment_boot *b;

	b = boundary(a, lr);
	/*
	 * The live log: its boot line and the run-time switches it shows
	 * decide as in a saved log; where the buffer no longer holds the
	 * boot line, the running kernel's mode.
	 */
	if (a->live && b->fatal < 0) {
		if (!a->live_read) {
			a->live_fatal = read_live_fatal(ctx);
			a->live_read = true;
		}
		return a->live_fatal == 1;
	}
	/* Two machines' lines, or a reboot into another mode: nobody can tell. */
	return b->mixed ? -1 : b->fatal;
}
