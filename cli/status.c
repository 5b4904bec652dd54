/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl status: everything about the detector on one screen. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "slctl.h"

/* The "version" of the JSON document(s) below: 1 since it was added. */
#define STATUS_JSON_VERSION 1

/* Offenders named by status; `slctl offenders` has them all. */
#define STATUS_TOP 3

struct status {
	int cpu_r;
	unsigned cpu;
	char release[128];
	unsigned ifaces;
	struct splitlock_mode_info *mode;
	int next_found;
	char *next_source;
	enum splitlock_mode next_mode;
	unsigned next_rate;
	int mitigate_r, mitigate;
	int persisted_r, persisted; /* splitlock_mitigate_get_persisted() */
	char *persisted_in;
	char *override; /* a file that beats our drop-in */
	int offenders_r;
	uint64_t events, suppressed;
	struct splitlock_offenders *offenders; /* for the top offenders */
	/* /sys/kernel/split_lock/stats of the patched kernel; -1 if absent. */
	struct kernel_counters counters;
	const char *missing[4];
	size_t n_missing;
	int leases_r;
	struct splitlock_leases *leases; /* runs holding misery off (slctl run) */
};

static void usage(FILE *out)
{
	fputs("Usage: slctl status [--json] [--root DIR]\n\n"
	      "Show what the CPU can detect, the kernel's mode and where it was\n"
	      "learned, the mode after reboot, the misery setting now and after\n"
	      "reboot, and how many split locks the kernel has logged since boot.\n", out);
}

static void gather(struct splitlock_ctx *ctx, struct status *s)
{
	static const enum splitlock_cap wanted[] = {
		SPLITLOCK_CAP_SYS_ADMIN, SPLITLOCK_CAP_SYSLOG,
	};

	/* The patched kernel's counters count every trap, logged or not. */
	read_kernel_counters(ctx, &s->counters);
	s->cpu_r = splitlock_cpu_features(ctx, &s->cpu);
	if (splitlock_kernel_release(ctx, s->release, sizeof(s->release)) < 0)
		s->release[0] = '\0';
	splitlock_kernel_interfaces(ctx, &s->ifaces);
	if (splitlock_mode_info_read(ctx, &s->mode) < 0)
		s->mode = NULL;
	s->next_found = splitlock_mode_next_boot(ctx, &s->next_mode, &s->next_rate,
						  &s->next_source);
	s->mitigate_r = splitlock_mitigate_get(ctx, &s->mitigate);
	s->persisted_r = splitlock_mitigate_get_persisted(ctx, &s->persisted,
							  &s->persisted_in, &s->override);
	s->offenders_r = splitlock_offenders_new(ctx, SPLITLOCK_GROUP_PROCESS,
						 SPLITLOCK_OFFENDERS_RESOLVE, &s->offenders);
	if (s->offenders_r == 0)
		s->offenders_r = splitlock_offenders_read_kmsg(s->offenders);
	if (s->offenders_r == 0) {
		s->events = splitlock_offenders_get_events(s->offenders);
		s->suppressed = splitlock_offenders_get_suppressed(s->offenders);
	}
	for (size_t i = 0; i < ARRAY_SIZE(wanted); i++)
		if (splitlock_have_capability(wanted[i]) <= 0)
			s->missing[s->n_missing++] = splitlock_capability_name(wanted[i]);
	s->leases_r = splitlock_leases_read(ctx, &s->leases);
	if (s->leases_r == -ETIMEDOUT && !slctl_stalled(ctx))
		slctl_warning("the leases are not shown: another process has held "
			      "/run/slctl/leases.lock for 10 seconds.");
}

static void format_since(int64_t usec, char *buf, size_t size, bool iso)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (usec == SPLITLOCK_TIME_UNKNOWN) {
		snprintf(buf, size, "?");
		return;
	}
	if (iso) {
		gmtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
	} else {
		localtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	}
}

/* One lease of `slctl run`, as the library lists it. */
struct lease {
	uint32_t holder, run, uid;
	int64_t since;
	bool live;
};

static struct lease get_lease(const struct status *s, size_t i)
{
	struct lease l = { 0 };

	splitlock_leases_get(s->leases, i, &l.holder, &l.run, &l.uid, &l.since, &l.live);
	return l;
}

static void json_leases(struct json *j, const struct status *s)
{
	size_t n;
	int saved;

	if (s->leases_r < 0) {
		json_null(j, "leases");
		return;
	}
	n = splitlock_leases_get_count(s->leases);
	json_object_begin(j, "leases");
	if (splitlock_leases_get_saved(s->leases, &saved) == 0)
		json_int(j, "saved", saved);
	else
		json_null(j, "saved");
	json_array_begin(j, "runs");
	for (size_t i = 0; i < n; i++) {
		struct lease l = get_lease(s, i);
		char when[32];

		json_object_begin(j, NULL);
		json_uint(j, "run_pid", l.run);
		json_uint(j, "holder_pid", l.holder);
		if (l.uid == UINT32_MAX)
			json_null(j, "uid");
		else
			json_uint(j, "uid", l.uid);
		if (l.since == SPLITLOCK_TIME_UNKNOWN) {
			json_null(j, "since");
		} else {
			format_since(l.since, when, sizeof(when), true);
			json_string(j, "since", when);
		}
		json_bool(j, "live", l.live);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

/* Only where there are leases: most machines never have one. */
static void print_leases(const struct status *s)
{
	size_t n, live = 0;
	int saved;

	if (s->leases_r < 0 || !(n = splitlock_leases_get_count(s->leases)))
		return;
	for (size_t i = 0; i < n; i++)
		live += get_lease(s, i).live;
	if (splitlock_leases_get_saved(s->leases, &saved) == 0)
		printf("Leases:     %zu run%s of slctl run hold%s kernel.split_lock_mitigate at 0; "
		       "%d comes back after the last\n", live, live == 1 ? "" : "s",
		       live == 1 ? "s" : "", saved);
	else
		printf("Leases:     %zu run%s of slctl run, with kernel.split_lock_mitigate as "
		       "it was\n", live, live == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		struct lease l = get_lease(s, i);
		char when[32];

		format_since(l.since, when, sizeof(when), false);
		if (l.uid == UINT32_MAX)
			printf("            run %" PRIu32 " since %s", l.run, when);
		else
			printf("            run %" PRIu32 " (uid %" PRIu32 ") since %s", l.run, l.uid, when);
		if (!l.live)
			printf(": its holder %" PRIu32 " ended without dropping it; the next slctl "
			       "run clears it", l.holder);
		putchar('\n');
	}
}

static const char *mode_text(enum splitlock_mode mode, unsigned rate, char *buf,
			     size_t size)
{
	if (splitlock_mode_format(mode, rate, buf, size) < 0)
		return "unknown";
	return buf;
}

static void print_json(const struct status *s)
{
	struct json j;
	char buf[32];

	json_document_begin(&j, stdout, STATUS_JSON_VERSION);

	json_object_begin(&j, "cpu");
	json_bool(&j, "split_lock_detect", s->cpu & SPLITLOCK_CPU_SPLIT_LOCK_DETECT);
	json_bool(&j, "bus_lock_detect", s->cpu & SPLITLOCK_CPU_BUS_LOCK_DETECT);
	json_bool(&j, "hypervisor", s->cpu & SPLITLOCK_CPU_HYPERVISOR);
	json_bool(&j, "known", s->cpu_r == 0);
	json_object_end(&j);

	json_object_begin(&j, "kernel");
	json_string(&j, "release", s->release[0] ? s->release : NULL);
	json_bool(&j, "patched", s->ifaces & SPLITLOCK_KERNEL_SYSFS);
	json_object_begin(&j, "interfaces");
	json_bool(&j, "split_lock_mitigate", s->ifaces & SPLITLOCK_KERNEL_MITIGATE_SYSCTL);
	json_bool(&j, "sysfs", s->ifaces & SPLITLOCK_KERNEL_SYSFS);
	json_bool(&j, "proc_counters", s->ifaces & SPLITLOCK_KERNEL_PROC_COUNTERS);
	json_bool(&j, "inject", s->ifaces & SPLITLOCK_KERNEL_INJECT);
	json_bool(&j, "kmsg", s->ifaces & SPLITLOCK_KERNEL_KMSG);
	json_bool(&j, "mode_writable", s->ifaces & SPLITLOCK_KERNEL_MODE_WRITABLE);
	json_bool(&j, "misery_exempt", s->ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT);
	json_object_end(&j);
	json_kernel_counters(&j, "counters",
			     s->ifaces & SPLITLOCK_KERNEL_SYSFS ? &s->counters : NULL);
	json_object_end(&j);

	json_object_begin(&j, "mode");
	if (s->mode) {
		json_string(&j, "current",
			    mode_text(splitlock_mode_info_get_mode(s->mode),
				      splitlock_mode_info_get_ratelimit(s->mode),
				      buf, sizeof(buf)));
		json_string(&j, "source", splitlock_mode_source_name(
					splitlock_mode_info_get_source(s->mode)));
		json_bool(&j, "guess", splitlock_mode_info_is_guess(s->mode));
		json_string(&j, "evidence", splitlock_mode_info_get_evidence(s->mode));
	} else {
		json_null(&j, "current");
		json_null(&j, "source");
	}
	if (s->next_found > 0)
		json_string(&j, "next_boot",
			    mode_text(s->next_mode, s->next_rate, buf, sizeof(buf)));
	else if (s->next_found < 0)
		json_null(&j, "next_boot");
	else
		json_string(&j, "next_boot", "default");
	json_string(&j, "next_boot_source", s->next_source);
	json_object_end(&j);

	json_object_begin(&j, "mitigate");
	if (s->mitigate_r == 0)
		json_int(&j, "current", s->mitigate);
	else
		json_null(&j, "current");
	/* A number or null, never another type: a bad value is null + valid. */
	if (s->persisted_r > 0)
		json_int(&j, "persisted", s->persisted);
	else
		json_null(&j, "persisted");
	json_bool(&j, "persisted_valid", s->persisted_r >= 0);
	json_string(&j, "persisted_in", s->persisted_in);
	json_string(&j, "overrides_slctl", s->override);
	json_object_end(&j);

	json_object_begin(&j, "offenders");
	if (s->offenders_r == 0) {
		json_uint(&j, "events", s->events);
		json_uint(&j, "suppressed", s->suppressed);
		json_array_begin(&j, "top");
		for (size_t i = 0; i < STATUS_TOP && i < splitlock_offenders_get_count(s->offenders); i++) {
			const struct splitlock_offender *o = splitlock_offenders_get(s->offenders, i);
			size_t len;
			const char *comm = splitlock_offender_get_comm(o, &len);

			json_object_begin(&j, NULL);
			json_string_len(&j, "comm", comm, len);
			json_uint(&j, "pid", splitlock_offender_get_pid(o));
			json_string(&j, "kind", splitlock_kind_name(splitlock_offender_get_kind(o)));
			json_string(&j, "action", splitlock_action_name(splitlock_offender_get_action(o)));
			json_uint(&j, "events", splitlock_offender_get_events(o));
			json_kernel_traps(&j, o);
			json_string(&j, "exe", splitlock_offender_get_exe(o));
			json_object_end(&j);
		}
		json_array_end(&j);
	} else {
		json_null(&j, "events");
		json_null(&j, "suppressed");
	}
	json_object_end(&j);

	json_leases(&j, s);

	json_object_begin(&j, "privileges");
	json_array_begin(&j, "missing");
	for (size_t i = 0; i < s->n_missing; i++)
		json_string(&j, NULL, s->missing[i]);
	json_array_end(&j);
	json_object_end(&j);

	json_object_end(&j);
	json_finish(&j);
}

/* A counter for the text view: one the kernel does not report reads 0. */
static int64_t counter(const struct status *s, enum splitlock_counter c)
{
	int64_t v = kernel_counter(&s->counters, c);

	return v < 0 ? 0 : v;
}

static void print_text(const struct status *s)
{
	char buf[32];
	bool ac = s->cpu & SPLITLOCK_CPU_SPLIT_LOCK_DETECT;
	bool db = s->cpu & SPLITLOCK_CPU_BUS_LOCK_DETECT;

	if (s->cpu_r < 0)
		printf("CPU:        unknown (/proc/cpuinfo: %s)\n", errno_text(s->cpu_r));
	else if (!ac && !db)
		printf("CPU:        no split-lock detection (neither split_lock_detect nor bus_lock_detect)%s\n",
		       s->cpu & SPLITLOCK_CPU_HYPERVISOR ? "; virtual machine" : "");
	else
		printf("CPU:        %s%s%s%s\n", ac ? "split_lock_detect (#AC)" : "",
		       ac && db ? ", " : "", db ? "bus_lock_detect (#DB)" : "",
		       s->cpu & SPLITLOCK_CPU_HYPERVISOR ? "; virtual machine" : "");

	printf("Kernel:     %s, %s%s%s%s\n", s->release[0] ? s->release : "unknown release",
	       s->ifaces & SPLITLOCK_KERNEL_SYSFS ? "patched (/sys/kernel/split_lock)" : "stock",
	       s->ifaces & SPLITLOCK_KERNEL_MODE_WRITABLE ? ", switches modes at run time" : "",
	       s->ifaces & SPLITLOCK_KERNEL_MISERY_EXEMPT ? ", exempts processes from misery" : "",
	       s->ifaces & SPLITLOCK_KERNEL_MITIGATE_SYSCTL ? ", has kernel.split_lock_mitigate"
							    : ", no kernel.split_lock_mitigate (needs 6.2+)");

	if (s->mode) {
		const char *evidence = splitlock_mode_info_get_evidence(s->mode);
		enum splitlock_mode_source src = splitlock_mode_info_get_source(s->mode);

		printf("Mode:       %s (from %s%s)%s%s\n",
		       mode_text(splitlock_mode_info_get_mode(s->mode),
				 splitlock_mode_info_get_ratelimit(s->mode), buf, sizeof(buf)),
		       splitlock_mode_source_name(src),
		       splitlock_mode_info_is_guess(s->mode) ? ", a guess: the boot log line is gone" : "",
		       evidence && src != SPLITLOCK_SOURCE_CMDLINE ? ": " : "",
		       evidence && src != SPLITLOCK_SOURCE_CMDLINE ? evidence : "");
	} else {
		printf("Mode:       unknown\n");
	}
	if (s->next_found < 0)
		printf("Next boot:  unknown (%s)\n", s->next_source ? s->next_source : errno_text(s->next_found));
	else if (s->next_found > 0)
		printf("Next boot:  %s, from %s\n",
		       mode_text(s->next_mode, s->next_rate, buf, sizeof(buf)),
		       s->next_source ? s->next_source : "the boot configuration");
	else
		printf("Next boot:  default: no split_lock_detect= in %s\n",
		       s->next_source ? s->next_source : "the boot configuration");

	if (s->mitigate_r == -ENOENT)
		printf("Misery:     not switchable: this kernel has no kernel.split_lock_mitigate\n");
	else if (s->mitigate_r < 0)
		printf("Misery:     unknown (%s)\n", errno_text(s->mitigate_r));
	else
		printf("Misery:     %s now (kernel.split_lock_mitigate = %d)\n",
		       s->mitigate ? "on" : "off", s->mitigate);
	if (s->persisted_r > 0)
		printf("            %s after reboot (set in %s)\n", s->persisted ? "on" : "off",
		       s->persisted_in);
	else if (s->persisted_r == -EBADMSG)
		printf("            unknown after reboot: %s sets a value other than 0 or 1\n",
		       s->persisted_in);
	else if (s->persisted_r < 0)
		printf("            unknown after reboot (%s)\n", errno_text(s->persisted_r));
	else
		printf("            kernel default after reboot (no sysctl.d file sets it)\n");
	if (s->override)
		printf("            %s overrides slctl's %s\n", s->override,
		       SPLITLOCK_SYSCTLD_DROPIN);

	if (s->offenders_r < 0)
		printf("Offenders:  unknown: the kernel log is not readable (%s)\n",
		       errno_text(s->offenders_r));
	else
		printf("Offenders:  %" PRIu64 " event%s since boot, %" PRIu64
		       " more suppressed by the kernel's rate limit\n",
		       s->events, s->events == 1 ? "" : "s", s->suppressed);
	if (kernel_counter(&s->counters, SPLITLOCK_COUNTER_AC_TRAPS) >= 0)
		printf("Counted:    %" PRId64 " #AC and %" PRId64 " #DB traps, %" PRId64
		       " penalized, %" PRId64 " SIGBUS, %" PRId64 " warnings suppressed"
		       " (patched kernel: every trap, logged or not)\n",
		       counter(s, SPLITLOCK_COUNTER_AC_TRAPS), counter(s, SPLITLOCK_COUNTER_DB_TRAPS),
		       counter(s, SPLITLOCK_COUNTER_MISERY_DELAYS), counter(s, SPLITLOCK_COUNTER_SIGBUS),
		       counter(s, SPLITLOCK_COUNTER_WARNINGS_SUPPRESSED));
	for (size_t i = 0; s->offenders_r == 0 && i < STATUS_TOP &&
			   i < splitlock_offenders_get_count(s->offenders); i++) {
		const struct splitlock_offender *o = splitlock_offenders_get(s->offenders, i);
		const char *exe = splitlock_offender_get_exe(o);
		size_t len;
		const char *comm = splitlock_offender_get_comm(o, &len);

		fputs(i == 0 ? "Top:        " : "            ", stdout);
		/* The name as the kernel's log shows it: unprintable bytes as \xNN. */
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)comm[k];

			if (c < 0x20 || c >= 0x7f || c == '\\')
				printf("\\x%02x", c);
			else
				putchar(c);
		}
		printf("/%" PRIu32 ": %" PRIu64 " %s (%s)%s%s\n",
		       splitlock_offender_get_pid(o), splitlock_offender_get_events(o),
		       splitlock_kind_name(splitlock_offender_get_kind(o)),
		       splitlock_action_name(splitlock_offender_get_action(o)),
		       exe ? ", " : "", exe ? exe : "");
	}
	print_leases(s);
	if (s->n_missing) {
		printf("Privileges: missing");
		for (size_t i = 0; i < s->n_missing; i++)
			printf(" %s", s->missing[i]);
		printf(" (needed to change settings and to read a restricted kernel log)\n");
	}
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "+h";
	struct status s = { 0 };
	int c;
	while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return slctl_option_error("status", argv, shorts, options);
		}
	}
	if (optind < argc)
		return slctl_usage_error("status", "unexpected argument '%s'.", argv[optind]);

	gather(ctx, &s);
	/*
	 * A lookup under /proc/sys or /sys that waited on a directory's lock
	 * a user holds: the library made it in a child and stopped waiting,
	 * and answers -ETIMEDOUT to every later one of this context, the
	 * read of the sysctl below included. Half a report would mislead.
	 */
	if (s.mitigate_r == -ETIMEDOUT || slctl_stalled(ctx)) {
		slctl_lookup_stalled();
		s.mitigate_r = -ETIMEDOUT;
	} else if (g->json) {
		print_json(&s);
	} else {
		print_text(&s);
	}
	splitlock_mode_info_free(s.mode);
	free(s.persisted_in);
	free(s.override);
	free(s.next_source);
	splitlock_offenders_unref(s.offenders);
	splitlock_leases_free(s.leases);
	return s.mitigate_r == -ETIMEDOUT ? EXIT_FAIL : EXIT_OK;
}

const struct slctl_command slctl_cmd_status = {
	.name = "status",
	.run = run,
	.usage = usage,
	.summary = "show the detector's state now and after reboot",
};
