/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slctl probe: what this kernel and CPU do with a split lock, and its cost. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "slctl.h"

/* The "version" of the JSON document(s) below: 1 since it was added. */
#define PROBE_JSON_VERSION 1

#define INJECT "/sys/kernel/debug/split_lock/inject"

static const char *const msr_names[] = {
	[SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED] = "IA32_CORE_CAPABILITIES",
	[SPLITLOCK_MSR_SPLIT_LOCK_ARMED] = "MSR_TEST_CTRL",
	[SPLITLOCK_MSR_BUS_LOCK_ARMED] = "IA32_DEBUGCTL",
};

static void usage(FILE *out)
{
	fputs("Usage: slctl probe [--simulate[=ac|db]] [--msr]\n\n"
	      "Split-lock a few times in a child process named slctl-probe and\n"
	      "report what this kernel and CPU did: not detected, warned,\n"
	      "penalized (the measured delay) or killed (SIGBUS). Where split\n"
	      "locks are not trapped, also measure what one costs next to an\n"
	      "aligned locked instruction, and how much a thread on another CPU\n"
	      "slows down meanwhile. The split locks last well under a second.\n\n"
	      "Options:\n"
	      "      --simulate[=ac|db]  ask the kernel's injection hook for an #AC\n"
	      "                          (default) or #DB trap instead:\n"
	      "                          " INJECT "\n"
	      "      --msr               also read the detector's MSRs on every CPU\n"
	      "                          (loads the msr module if needed)\n"
	      "  -h, --help              show this help\n\n"
	      "Exit status 0 whatever the outcome: it is a report.\n", out);
}

/* Numbers in JSON with a fixed precision, or null. */
static void json_double(struct json *j, const char *key, int r, double value,
			int decimals)
{
	char text[64];

	if (r < 0) {
		json_null(j, key);
		return;
	}
	snprintf(text, sizeof(text), "%.*f", decimals, value);
	json_number(j, key, text);
}

static void json_msr_bit(struct json *j, const char *key,
			 const struct splitlock_msr *m, size_t i,
			 enum splitlock_msr_bit bit)
{
	bool value;

	if (splitlock_msr_get_bit(m, i, bit, &value) < 0)
		json_null(j, key);
	else
		json_bool(j, key, value);
}

/* What went wrong on one CPU, or NULL: "MSR_TEST_CTRL unavailable". */
static char *msr_error(const struct splitlock_msr *m, size_t i)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *sep = "";
	bool value;

	if (!f)
		return NULL;
	for (int b = 0; b < (int)ARRAY_SIZE(msr_names); b++) {
		int r = splitlock_msr_get_bit(m, i, (enum splitlock_msr_bit)b, &value);

		if (r == 0)
			continue;
		fprintf(f, "%s%s %s", sep, msr_names[b],
			r == -ENODATA ? "unavailable" : strerror(-r));
		sep = ", ";
	}
	fclose(f);
	if (text && !*text) {
		free(text);
		text = NULL;
	}
	return text;
}

static void json_msr(struct json *j, const struct splitlock_msr *m,
		     const char *summary)
{
	if (!m) {
		json_null(j, "msr");
		json_null(j, "msr_summary");
		return;
	}
	json_array_begin(j, "msr");
	for (size_t i = 0; i < splitlock_msr_get_count(m); i++) {
		_cleanup_free_ char *error = msr_error(m, i);
		unsigned cpu = 0;

		splitlock_msr_get_cpu(m, i, &cpu);
		json_object_begin(j, NULL);
		json_uint(j, "cpu", cpu);
		json_msr_bit(j, "split_lock_supported", m, i, SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED);
		json_msr_bit(j, "split_lock_armed", m, i, SPLITLOCK_MSR_SPLIT_LOCK_ARMED);
		json_msr_bit(j, "bus_lock_armed", m, i, SPLITLOCK_MSR_BUS_LOCK_ARMED);
		json_string(j, "error", error);
		json_object_end(j);
	}
	json_array_end(j);
	json_string(j, "msr_summary", summary);
}

static void print_json(const struct splitlock_probe *p,
		       const struct splitlock_msr *m, const char *summary)
{
	enum splitlock_kind trap;
	struct json j;
	double v;
	int r;

	json_document_begin(&j, stdout, PROBE_JSON_VERSION);
	json_bool(&j, "detected", splitlock_probe_is_detected(p));
	r = splitlock_probe_get_trap(p, &trap);
	json_string(&j, "trap", r < 0 ? NULL : splitlock_probe_trap_name(trap));
	json_string(&j, "action", splitlock_probe_action_name(splitlock_probe_get_action(p)));
	r = splitlock_probe_get_delay_ms(p, &v);
	json_double(&j, "delay_ms", r, v, 3);
	json_string(&j, "delayed_by", splitlock_probe_get_action(p) == SPLITLOCK_PROBE_MISERY ?
		    splitlock_probe_delayer_name(splitlock_probe_get_delayer(p)) : NULL);
	r = splitlock_probe_get_split_lock_ns(p, &v);
	json_double(&j, "split_lock_ns", r, v, 1);
	r = splitlock_probe_get_aligned_lock_ns(p, &v);
	json_double(&j, "aligned_lock_ns", r, v, 1);
	r = splitlock_probe_get_stall_percent(p, &v);
	json_double(&j, "stall_percent", r, v, 1);
	json_bool(&j, "simulated", splitlock_probe_is_simulated(p));
	json_bool(&j, "complete", splitlock_probe_is_complete(p));
	json_uint(&j, "cpu", splitlock_probe_get_cpu(p));
	json_msr(&j, m, summary);
	json_object_end(&j);
	json_finish(&j);
}

/* Who to turn to: this kernel's settings cannot lift someone else's delay. */
static void print_delayer(enum splitlock_probe_delayer delayer)
{
	switch (delayer) {
	case SPLITLOCK_PROBE_DELAYER_HYPERVISOR:
		puts("Delayed by the hypervisor: this kernel does not penalize this trap in its mode,\n"
		     "so the host penalizes split locks on this virtual CPU; kernel.split_lock_mitigate\n"
		     "and slctl run here cannot lift it, only the host's settings can.");
		break;
	case SPLITLOCK_PROBE_DELAYER_UNKNOWN:
		puts("Delayed, but not by this kernel, which does not penalize this trap in its mode;\n"
		     "the cause is unknown.");
		break;
	default:
		break;
	}
}

static void print_verdict(const struct splitlock_probe *p)
{
	enum splitlock_kind trap;
	const char *by = "";
	double delay = 0;

	if (splitlock_probe_get_trap(p, &trap) == 0)
		by = trap == SPLITLOCK_KIND_BUS_LOCK ? " by #DB" : " by #AC";
	splitlock_probe_get_delay_ms(p, &delay);
	printf("%s (CPU %u): ", splitlock_probe_is_simulated(p) ?
	       "Injected trap" : "Split lock", splitlock_probe_get_cpu(p));
	switch (splitlock_probe_get_action(p)) {
	case SPLITLOCK_PROBE_NONE:
		puts("not detected (nothing logged, no delay).");
		break;
	case SPLITLOCK_PROBE_WARN:
		printf("detected%s and warned (logged, %.3f ms delay).\n", by, delay);
		break;
	case SPLITLOCK_PROBE_MISERY:
		printf("detected%s and penalized: %.1f ms per trap (misery).\n", by, delay);
		print_delayer(splitlock_probe_get_delayer(p));
		break;
	case SPLITLOCK_PROBE_SIGBUS:
		printf("detected%s and killed with SIGBUS.\n", by);
		break;
	}
}

static void print_text(const struct splitlock_probe *p,
		       const struct splitlock_msr *m, const char *summary)
{
	double split, aligned, stall;

	print_verdict(p);
	if (splitlock_probe_get_split_lock_ns(p, &split) == 0 &&
	    splitlock_probe_get_aligned_lock_ns(p, &aligned) == 0)
		printf("Cost: %.1f ns a split-locked add, %.1f ns an aligned locked add (%.0fx).\n",
		       split, aligned, aligned > 0 ? split / aligned : 0);
	else
		puts("Cost: not measured (split locks are trapped here).");
	if (splitlock_probe_get_stall_percent(p, &stall) == 0)
		printf("Stall: a thread reading memory on another CPU ran %.1f%% slower meanwhile.\n",
		       stall);
	if (!m)
		return;
	printf("MSRs: %s\n", summary);
	for (size_t i = 0; i < splitlock_msr_get_count(m); i++) {
		_cleanup_free_ char *error = msr_error(m, i);
		static const char *const words[] = { "no", "yes" };
		const char *w[ARRAY_SIZE(msr_names)];
		unsigned cpu = 0;
		bool v;

		for (int b = 0; b < (int)ARRAY_SIZE(msr_names); b++)
			w[b] = splitlock_msr_get_bit(m, i, (enum splitlock_msr_bit)b, &v) < 0 ?
			       "-" : words[v];
		splitlock_msr_get_cpu(m, i, &cpu);
		printf("  CPU %-4u supported %-3s armed %-3s bus lock armed %-3s%s%s\n", cpu,
		       w[SPLITLOCK_MSR_SPLIT_LOCK_SUPPORTED], w[SPLITLOCK_MSR_SPLIT_LOCK_ARMED],
		       w[SPLITLOCK_MSR_BUS_LOCK_ARMED], error ? " " : "", error ? error : "");
	}
}

/* The sentence for a driver that cannot be used; EXIT_OK when it can. */
static int msr_unusable(struct splitlock_ctx *ctx)
{
	_cleanup_free_ char *path = NULL;
	enum splitlock_msr_module state;
	const char *root = splitlock_get_root(ctx);
	int r = splitlock_msr_module_find(ctx, &state, &path);

	if (r < 0) {
		slctl_error("cannot look for the msr driver: %s.", strerror(-r));
		return slctl_exit_for(r);
	}
	switch (state) {
	case SPLITLOCK_MSR_MODULE_LOADED:
		return EXIT_OK;
	case SPLITLOCK_MSR_MODULE_BUILTIN:
		slctl_error("the msr driver is built into this kernel, but /dev/cpu/0/msr "
			    "is missing; mount devtmpfs on /dev.");
		return EXIT_UNSUPPORTED;
	case SPLITLOCK_MSR_MODULE_MISSING:
		slctl_error("this kernel has no msr driver, neither built in nor as a module "
			    "under /lib/modules; it needs CONFIG_X86_MSR.");
		return EXIT_UNSUPPORTED;
	case SPLITLOCK_MSR_MODULE_LOADABLE:
		break;
	}
	if (!streq(root, "/")) {
		slctl_error("the msr module %s is for the kernel of the tree under %s, "
			    "not for the running one; load it there with 'modprobe msr'.",
			    path, root);
		return EXIT_UNSUPPORTED;
	}
	return EXIT_OK;
}

static int read_msrs(struct splitlock_ctx *ctx, struct splitlock_msr **m,
		     char **summary)
{
	enum splitlock_cap missing;
	int r = splitlock_msr_check_capabilities(ctx, &missing);

	if (r == -EPERM) {
		slctl_error("%s needs %s; run it as root (e.g. with sudo).",
			    missing == SPLITLOCK_CAP_SYS_MODULE ?
			    "loading the msr module" : "reading the MSRs",
			    splitlock_capability_name(missing));
		return EXIT_PRIVILEGE;
	}
	r = msr_unusable(ctx);
	if (r != EXIT_OK)
		return r;
	r = splitlock_msr_read(ctx, m);
	if (r < 0) {
		slctl_error("cannot read the MSRs: %s.", strerror(-r));
		return slctl_exit_for(r);
	}
	r = splitlock_msr_summary(*m, summary);
	if (r < 0) {
		slctl_error("cannot summarize the MSRs: %s.", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int probe_error(int r)
{
	switch (-r) {
	case EOPNOTSUPP:
		slctl_error("this kernel has no split lock injection hook (" INJECT "); "
			    "--simulate needs a kernel built with CONFIG_X86_SPLIT_LOCK_INJECT "
			    "and debugfs mounted.");
		return EXIT_UNSUPPORTED;
	case EACCES:
	case EPERM:
		slctl_error("writing to the injection hook (" INJECT ") needs root.");
		return EXIT_PRIVILEGE;
	case ETIME:
		slctl_error("the probe's child did not finish in time and was killed.");
		return EXIT_FAIL;
	default:
		slctl_error("the probe failed: %s.", strerror(-r));
		return EXIT_FAIL;
	}
}

static int run(struct splitlock_ctx *ctx, const struct slctl_globals *g,
	       int argc, char **argv)
{
	static const struct option options[] = {
		{ "simulate", optional_argument, NULL, 's' },
		{ "msr", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char shorts[] = "h";
	struct splitlock_probe *p = NULL;
	struct splitlock_msr *m = NULL;
	_cleanup_free_ char *summary = NULL;
	unsigned flags = 0;
	bool msr = false;
	int c, r;
	while ((c = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!optarg || streq(optarg, "ac"))
				flags = SPLITLOCK_PROBE_SIMULATE_AC;
			else if (streq(optarg, "db"))
				flags = SPLITLOCK_PROBE_SIMULATE_DB;
			else
				return slctl_usage_error("probe", "'%s' is not 'ac' or 'db'.", optarg);
			break;
		case 'm':
			msr = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return slctl_option_error("probe", argv, shorts, options);
		}
	}
	if (optind < argc)
		return slctl_usage_error("probe", "unexpected argument '%s'.", argv[optind]);

	/* The MSRs first: a refusal there should not cost a split lock. */
	if (msr) {
		r = read_msrs(ctx, &m, &summary);
		if (r != EXIT_OK)
			return r;
	}
	r = splitlock_probe_run(ctx, flags, &p);
	if (r < 0) {
		splitlock_msr_free(m);
		return probe_error(r);
	}
	if (!splitlock_probe_is_complete(p))
		slctl_warning("the kernel log could not be read, so a warning for the probe "
			      "would go unseen; reading it needs CAP_SYSLOG.");
	if (g->json)
		print_json(p, m, summary);
	else
		print_text(p, m, summary);
	splitlock_probe_free(p);
	splitlock_msr_free(m);
	return EXIT_OK;
}

const struct slctl_command slctl_cmd_probe = {
	.name = "probe",
	.run = run,
	.usage = usage,
	.summary = "split-lock once in a child and report what the kernel does",
};
