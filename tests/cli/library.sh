# The library as a distribution ships it: exports, install tree, pkg-config.
source "$(dirname "$0")/../lib.sh"

test_shared_library_exports_only_splitlock_symbols() {
	local so=$TOP/$BUILD_DIR/libsplitlock.so.1
	[ -f "$so" ] || fail "no $so"
	readelf -d "$so" | grep -q 'SONAME.*\[libsplitlock.so.1\]' || fail "wrong soname"
	local foreign
	foreign=$(nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | grep -v '^splitlock_' || true)
	[ -z "$foreign" ] || fail "exports beyond splitlock_*: $foreign"
	nm -D --defined-only "$so" | grep -q 'splitlock_new@@LIBSPLITLOCK_1' || fail "no versioned splitlock_new"
}

# make on a copy of the shared build, with the flags it was built with
# (under make check-asan a plain-flags rebuild would link sanitized
# objects without the runtime). An install to another BINDIR rebuilds the
# helper: in the copy (cp -a keeps the times, so nothing else is rebuilt),
# never in the build the other tests run and a package build installs
# (packager review F6).
build_make() {
	[ -d "$T/b" ] || cp -a "$TOP/$BUILD_DIR" "$T/b" || fail "cannot copy $BUILD_DIR"
	if [ -n "${TEST_CFLAGS:-}" ]; then
		make -s -C "$TOP" B="$T/b" CFLAGS="$TEST_CFLAGS" LDFLAGS="$TEST_CFLAGS" "$@"
	else
		make -s -C "$TOP" B="$T/b" "$@"
	fi
}

installed_path_in() { # PROGRAM: the path the helper compiled in
	grep -ao 'Installed as [^ ]*' "$1" | head -n1 | cut -d' ' -f3
}

# What the shared build was made for: BINDIR/slctl (the Makefile's stamp).
built_for() {
	cat "$TOP/$BUILD_DIR/cli/installed-path"
}

# The build under test knows the path it was built for; `make && sudo make
# install PREFIX=/usr` installed a program compiled for BINDIR=/usr/local/bin:
# as /usr/bin/slctl it did not know itself as the program of polkit's
# action, and its helper took a --root there.
test_install_with_another_prefix_rebuilds_the_compiled_in_path() {
	local built other
	built=$(built_for)
	[ "$(installed_path_in "$TOP/$BUILD_DIR/slctl")" = "$built" ] ||
		fail "built for $built, the program names $(installed_path_in "$TOP/$BUILD_DIR/slctl")"
	other=/usr
	[ "$built" != /usr/bin/slctl ] || other=/usr/local
	build_make install PREFIX=$other DESTDIR="$T/dest" >/dev/null || fail "make install failed"
	[ "$(installed_path_in "$T/dest$other/bin/slctl")" = $other/bin/slctl ] ||
		fail "installed as $other/bin/slctl, it was compiled for $(installed_path_in "$T/dest$other/bin/slctl")"
	! strings "$T/dest$other/bin/slctl" | grep -qx "$built" ||
		fail "the installed program still names $built"
	[ "$(installed_path_in "$TOP/$BUILD_DIR/slctl")" = "$built" ] ||
		fail "the install rebuilt the shared build"
}

# An install with the build's own directories compiles and links nothing:
# the package ships the program its tests ran (packager review F6).
test_install_with_the_builds_directories_compiles_nothing() {
	local built
	built=$(built_for)
	run build_make -n install BINDIR="${built%/slctl}" DESTDIR="$T/dest"
	expect_rc 0
	! grep -E '(^| )(cc|gcc|\$\(CC\))( |$)| -o [^ ]*\.o( |$)' <<<"$out" ||
		fail "make install BINDIR=${built%/slctl} would compile: $(grep -E ' -o ' <<<"$out")"
}

test_install_puts_every_piece_in_place() {
	build_make install PREFIX=/usr DESTDIR="$T/dest" >/dev/null || fail "make install failed"
	local f
	for f in usr/bin/slctl usr/lib/libsplitlock.so.1 usr/lib/libsplitlock.so usr/lib/libsplitlock.a \
		usr/include/libsplitlock.h usr/lib/pkgconfig/libsplitlock.pc \
		usr/share/man/man8/slctl.8 usr/share/man/man3/libsplitlock.3 \
		usr/share/man/man3/libsplitlock-context.3 usr/share/man/man3/libsplitlock-status.3 \
		usr/share/man/man3/libsplitlock-mitigate.3 usr/share/man/man3/libsplitlock-boot.3 \
		usr/share/man/man3/libsplitlock-offenders.3 usr/share/man/man3/libsplitlock-follow.3 \
		usr/share/man/man3/libsplitlock-run.3 \
		usr/share/bash-completion/completions/slctl \
		usr/share/fish/vendor_completions.d/slctl.fish usr/share/polkit-1/actions/org.slctl.run.policy \
		usr/lib/tmpfiles.d/slctl.conf; do
		[ -e "$T/dest/$f" ] || fail "missing $f"
	done
	# The zsh completion lands in a directory this machine's zsh reads.
	local zfile
	zfile=$(cd "$T/dest" && find . -name _slctl | sed 's|^\.||')
	[ -n "$zfile" ] || fail "no zsh completion installed"
	if command -v zsh >/dev/null; then
		zsh -fc 'print -l $fpath' | grep -qx "${zfile%/_slctl}" ||
			fail "zsh does not read ${zfile%/_slctl} (fpath: $(zsh -fc 'print $fpath'))"
	fi
	# pkexec picks the action by the installed program's path.
	grep -q '<annotate key="org.freedesktop.policykit.exec.path">/usr/bin/slctl</annotate>' \
		"$T/dest/usr/share/polkit-1/actions/org.slctl.run.policy" || fail "the polkit action names another program"
	if command -v xmllint >/dev/null; then
		xmllint --noout "$T/dest/usr/share/polkit-1/actions/org.slctl.run.policy" || fail "the polkit action is not XML"
	fi
}

test_install_honours_prefix_for_every_file_and_uninstall_removes_them() {
	build_make install PREFIX=/opt/slctl DESTDIR="$T/dest" >/dev/null ||
		fail "make install failed"
	local outside
	outside=$(cd "$T/dest" && find . ! -type d ! -path './opt/slctl/*')
	[ -z "$outside" ] || fail "installed outside PREFIX: $outside"
	[ -e "$T/dest/opt/slctl/share/bash-completion/completions/slctl" ] || fail "no bash completion under PREFIX"
	[ -e "$T/dest/opt/slctl/share/zsh/site-functions/_slctl" ] || fail "no zsh completion under PREFIX"
	[ "$(cd "$T/dest" && find . ! -type d | wc -l)" -gt 10 ] || fail "too few files installed"
	build_make uninstall PREFIX=/opt/slctl DESTDIR="$T/dest" >/dev/null ||
		fail "make uninstall failed"
	outside=$(cd "$T/dest" && find . ! -type d)
	[ -z "$outside" ] || fail "make uninstall left: $outside"
}

# One program, written only against the installed header and .pc, uses
# every area that runs without the hardware: context, status reads, the
# mode's parsers, the run-time mode switch (refused on a stock kernel,
# applied to a patched one's file), process identity, the misery exemption,
# a lift plan, a lease (the sysctl 0 while held, back after the drop),
# mitigate plans, the boot parameter (detect, read, plan, apply with the
# commands listed), offenders and follow, records, counters, the proc
# connector's decoder and receiver, the open sets walked (forms, reasons,
# backends), sysctl.d, time, the probe (refusals, a simulated trap on a
# hook file), the MSRs (fake /dev/cpu/N/msr files) and the cleanup
# helpers. It is built as C and, the same source, as C++ (the header's
# extern "C" and casts a C++ compiler takes). Its output is checked
# against the fixtures it runs on, line by line.
installed_program() { # writes $T/prog.c and installs into $T/dest
	build_make install PREFIX=/usr DESTDIR="$T/dest" >/dev/null || fail "make install failed"
	cat >"$T/prog.c" <<-'C'
	#include <errno.h>
	#include <fcntl.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <sys/socket.h>
	#include <sys/stat.h>
	#include <unistd.h>
	#include <libsplitlock.h>

	/* Valid C and C++: no implicit conversions from void * or int to an enum. */
	static int logged;
	static void count_log(void *data, int prio, const char *file, int line,
			      const char *fn, const char *format, va_list args)
	{
		(void)data; (void)prio; (void)file; (void)line; (void)fn; (void)format; (void)args;
		logged++;
	}

	static int on_event(const struct splitlock_offender *o,
			    const struct splitlock_kmsg_record *rec, const char *ip, void *data)
	{
		size_t len;
		const char *comm = splitlock_offender_get_comm(o, &len);
		printf("follow: %.*s %s level %d\n", (int)len, comm, ip ? ip : "-",
		       splitlock_kmsg_record_get_level(rec));
		++*(int *)data;
		return 0;
	}

	/* The file under a root, as a program sees it without the library. */
	static void read_in(const char *root, const char *path, char *buf, size_t size)
	{
		char full[512];
		FILE *f;
		size_t n = 0;

		snprintf(full, sizeof(full), "%s%s", root, path);
		f = fopen(full, "r");
		if (f) {
			n = fread(buf, 1, size - 1, f);
			fclose(f);
		}
		buf[n] = '\0';
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
	}

	static int write_in(const char *root, const char *path, const char *text)
	{
		char full[512];
		FILE *f;

		snprintf(full, sizeof(full), "%s%s", root, path);
		f = fopen(full, "w");
		if (!f)
			return -1;
		fputs(text, f);
		return fclose(f);
	}

	static int records;
	static int count_record(const struct splitlock_kmsg_record *rec, void *data)
	{
		(void)rec; (void)data;
		records++;
		return 0;
	}

	/* Stops (> 0) or fails (< 0) with *data at the first record. */
	static int stop_at_first(const struct splitlock_kmsg_record *rec, void *data)
	{
		(void)rec;
		records++;
		return *(int *)data;
	}

	static int on_proc_event(const struct splitlock_proc_event *ev, void *data)
	{
		size_t len = 99;
		const char *comm = splitlock_proc_event_get_comm(ev, &len);
		printf("proc event: type %d pid %u tgid %u parent %u/%u at %llu comm '%s' %zu, kept %d\n",
		       (int)splitlock_proc_event_get_type(ev), (unsigned)splitlock_proc_event_get_pid(ev),
		       (unsigned)splitlock_proc_event_get_tgid(ev),
		       (unsigned)splitlock_proc_event_get_parent_pid(ev),
		       (unsigned)splitlock_proc_event_get_parent_tgid(ev),
		       (unsigned long long)splitlock_proc_event_get_timestamp_ns(ev), comm, len,
		       splitlock_offenders_proc_event((struct splitlock_offenders *)data, ev));
		return 0;
	}

	/* One EXEC event of process 4242 at 5 s, as the kernel sends it. */
	static const unsigned char exec_event[76] __attribute__((aligned(4))) = {
		0x4c, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, /* len, type, flags */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, pid */
		0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, /* idx, val */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, ack */
		0x28, 0x00, 0x00, 0x00,                         /* len, flags */
		0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, /* what, cpu */
		0x00, 0xf2, 0x05, 0x2a, 0x01, 0x00, 0x00, 0x00, /* timestamp_ns */
		0x92, 0x10, 0x00, 0x00, 0x92, 0x10, 0x00, 0x00, /* pid, tgid */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	static const char *str(const char *s)
	{
		return s ? s : "NULL";
	}

	int main(int argc, char **argv)
	{
		/* context: argv[1] a stock kernel with grub, argv[3] a patched one,
		 * argv[4] a machine with fake MSRs */
		struct splitlock_ctx *ctx = splitlock_new(argv[1]);
		struct splitlock_ctx *patched = splitlock_new(argv[3]);
		struct splitlock_ctx *msrs = splitlock_new(argv[4]);
		struct splitlock_mode_info *info;
		struct splitlock_mitigate_plan *mp;
		struct splitlock_boot_plan *bp;
		struct splitlock_offenders *rep;
		struct splitlock_follow *fol;
		enum splitlock_mode next, m;
		unsigned cpu, ifaces, rate;
		char mode[32], rel[64], text[256], *source = NULL, *file = NULL;
		int value, n, events = 0;
		if (argc != 5 || !ctx || !patched || !msrs)
			return 10;
		splitlock_set_log_fn(ctx, count_log, NULL);
		splitlock_set_log_fn(patched, count_log, NULL);
		splitlock_set_log_fn(msrs, count_log, NULL);
		printf("root: %s\n", strcmp(splitlock_get_root(ctx), argv[1]) == 0 ? "given" : "other");
		n = splitlock_get_log_priority(ctx);
		splitlock_set_log_priority(ctx, 7);
		printf("log priority: %d, then %d\n", n, splitlock_get_log_priority(ctx));
		splitlock_set_log_priority(ctx, n);
		n = splitlock_ref(ctx) == ctx;
		printf("ref: %s, unref keeps it: %s\n", n ? "same" : "other", splitlock_unref(ctx) == ctx ? "yes" : "no");
		printf("capabilities: admin %d rawio %d module %d\n",
		       splitlock_have_capability(SPLITLOCK_CAP_SYS_ADMIN),
		       splitlock_have_capability(SPLITLOCK_CAP_SYS_RAWIO),
		       splitlock_have_capability(SPLITLOCK_CAP_SYS_MODULE));

		/* status reads */
		if (splitlock_cpu_features(ctx, &cpu) < 0 || splitlock_kernel_release(ctx, rel, sizeof(rel)) < 0 ||
		    splitlock_kernel_interfaces(ctx, &ifaces) < 0 || splitlock_mode_info_read(ctx, &info) < 0)
			return 11;
		splitlock_mode_format(splitlock_mode_info_get_mode(info),
				      splitlock_mode_info_get_ratelimit(info), mode, sizeof(mode));
		printf("status: ac=%d %s mode=%s from %s\n", !!(cpu & SPLITLOCK_CPU_SPLIT_LOCK_DETECT), rel, mode,
		       splitlock_mode_source_name(splitlock_mode_info_get_source(info)));
		printf("evidence: guess %d, %s\n", splitlock_mode_info_is_guess(info),
		       str(splitlock_mode_info_get_evidence(info)));
		splitlock_mode_info_free(info);
		n = splitlock_mode_next_boot(ctx, &next, &rate, &source);
		printf("next boot: %d %s\n", n, source ? source : "-");
		free(source);
		source = NULL;
		if (splitlock_mitigate_get(ctx, &value) < 0)
			return 12;
		printf("mitigate: %d, persisted %d\n", value, splitlock_mitigate_get_persisted(ctx, &value, &file, NULL));

		/* modes as users and the kernel write them */
		n = splitlock_mode_parse("ratelimit:5", &m, &rate);
		printf("parse: %d %d %u", n, (int)m, rate);
		n = splitlock_mode_parse("ratelimit:0", &m, &rate);
		printf(", ratelimit:0 %d, Warn %d\n", n, splitlock_mode_parse("Warn", &m, NULL));
		splitlock_mode_from_param("bogus", 5, &m, &rate);
		n = splitlock_mode_format(m, rate, mode, sizeof(mode));
		printf("param bogus: %s (%d)", mode, n);
		n = splitlock_mode_format(SPLITLOCK_MODE_UNKNOWN, 0, mode, sizeof(mode));
		printf("; format unknown %d '%s'\n", n, mode);
		n = splitlock_mode_from_cmdline("quiet split_lock_detect=off split_lock_detect=ratelimit:7", &m, &rate);
		printf("cmdline: %d %d %u", n, (int)m, rate);
		printf(", none %d\n", splitlock_mode_from_cmdline("quiet", &m, &rate));
		n = splitlock_mode_from_boot_line("x86/split lock detection: #AC: crashing the kernel on kernel "
						  "split_locks and sending SIGBUS on user-space split_locks", &m, &rate);
		printf("boot line: %d %d", n, (int)m);
		printf(", other %d\n", splitlock_mode_from_boot_line("usb 1-1: new device", &m, &rate));

		/* switching the mode at run time: a stock kernel has no mode file */
		{
			__attribute__((cleanup(splitlock_mode_switch_freep))) struct splitlock_mode_switch *sw = NULL;

			if (splitlock_mode_switch_new(ctx, SPLITLOCK_MODE_UNKNOWN, 0, &sw) != -EINVAL || sw)
				return 30;
			if (splitlock_mode_switch_new(ctx, SPLITLOCK_MODE_OFF, 0, &sw) < 0)
				return 31;
			printf("switch stock: refusal %d, error %s, needs %s, previous %d\n",
			       splitlock_mode_switch_get_refusal(sw),
			       splitlock_mode_switch_get_error(sw) ? "given" : "none",
			       splitlock_capability_name(splitlock_mode_switch_get_capability(sw)),
			       (int)splitlock_mode_switch_get_previous(sw, NULL));
			n = splitlock_mode_switch_apply(sw);
			printf("switch stock applied: %d, current %d\n", n,
			       (int)splitlock_mode_switch_get_current(sw, NULL));
		}
		/* ... a patched one has, writable: the fake root's file takes the word */
		{
			__attribute__((cleanup(splitlock_mode_switch_freep))) struct splitlock_mode_switch *sw = NULL;

			if (splitlock_mode_switch_new(patched, SPLITLOCK_MODE_RATELIMIT, 20, &sw) < 0)
				return 32;
			printf("switch patched: refusal %d, error %s, previous %d\n",
			       splitlock_mode_switch_get_refusal(sw), str(splitlock_mode_switch_get_error(sw)),
			       (int)splitlock_mode_switch_get_previous(sw, NULL));
			n = splitlock_mode_switch_apply(sw);
			rate = 0;
			m = splitlock_mode_switch_get_current(sw, &rate);
			read_in(argv[3], "/sys/kernel/split_lock/mode", text, sizeof(text));
			printf("switch patched applied: %d, current %d %u, file '%s'\n", n, (int)m, rate, text);
		}

		/* process identity, from /proc/PID/status under the root */
		{
			uint32_t uid = 0, ppid = 0;

			n = splitlock_process_identity(ctx, 4242, &uid, &ppid);
			printf("identity: %d uid %u ppid %u; changing %d; none %d; broken %d\n", n, (unsigned)uid,
			       (unsigned)ppid, splitlock_process_identity(ctx, 4343, NULL, NULL),
			       splitlock_process_identity(ctx, 4444, NULL, NULL),
			       splitlock_process_identity(ctx, 4545, NULL, NULL));
		}

		/* the misery exemption: none on a stock kernel, a mark on a patched one */
		printf("exempt stock: %d\n", splitlock_exempt_get(ctx, 4242));
		n = splitlock_exempt_get(patched, 4242);
		value = splitlock_exempt_set(patched, 4242, true);
		read_in(argv[3], "/proc/4242/split_lock", text, sizeof(text));
		printf("exempt patched: %d, set %d, now %d, file has '%s'; gone %d\n", n, value,
		       splitlock_exempt_get(patched, 4242), strstr(text, "misery_exempt 1") ? "misery_exempt 1" : text,
		       splitlock_exempt_get(patched, 4343));

		/* lift: the way and its sentence on the plan */
		{
			__attribute__((cleanup(splitlock_lift_plan_freep))) struct splitlock_lift_plan *lp = NULL;

			if (splitlock_lift_plan_new(ctx, &lp) < 0)
				return 25;
			printf("lift: %s, refusal %d, reason %s\n",
			       splitlock_lift_plan_get_way(lp) == SPLITLOCK_LIFT_LEASE ? "lease" : "other",
			       splitlock_lift_plan_get_refusal(lp),
			       splitlock_lift_plan_get_reason(lp) ? "given" : "none");
			lp = splitlock_lift_plan_free(lp);
			if (splitlock_lift_plan_new(patched, &lp) < 0)
				return 26;
			printf("lift patched: %s, refusal %d\n",
			       splitlock_lift_plan_get_way(lp) == SPLITLOCK_LIFT_EXEMPT ? "exempt" : "other",
			       splitlock_lift_plan_get_refusal(lp));
		}

		/* a lease: the sysctl is 0 while it is held, and comes back after */
		{
			struct splitlock_lease *lease = NULL;
			struct splitlock_leases *ls = NULL;
			uint32_t holder = 0, run = 0, uid = 0;
			int64_t since = SPLITLOCK_TIME_UNKNOWN;
			bool live = false;
			char self[64], stat[1024];

			read_in("", "/proc/self/stat", stat, sizeof(stat));
			snprintf(self, sizeof(self), "/proc/%d", (int)getpid());
			snprintf(text, sizeof(text), "%s%s", argv[1], self);
			mkdir(text, 0755);
			strcat(self, "/stat");
			strcat(stat, "\n");
			if (write_in(argv[1], self, stat) != 0)
				return 27;
			if (splitlock_lease_take(ctx, 1000, 4242, &lease) < 0)
				return 28;
			read_in(argv[1], "/proc/sys/kernel/split_lock_mitigate", text, sizeof(text));
			printf("lease taken: sysctl %s\n", text);
			if (splitlock_leases_read(ctx, &ls) < 0)
				return 29;
			n = splitlock_leases_get(ls, 0, &holder, &run, &uid, &since, &live);
			value = -1;
			printf("leases: %zu; %d holder %s run %u uid %u dated %s live %d", splitlock_leases_get_count(ls),
			       n, holder == (uint32_t)getpid() ? "me" : "other", (unsigned)run, (unsigned)uid,
			       since != SPLITLOCK_TIME_UNKNOWN ? "yes" : "no", live);
			n = splitlock_leases_get_saved(ls, &value);
			printf("; saved %d (%d); past %d\n", n, value, splitlock_leases_get(ls, 1, NULL, NULL, NULL, NULL, NULL));
			ls = splitlock_leases_free(ls);
			n = splitlock_lease_drop(lease);
			read_in(argv[1], "/proc/sys/kernel/split_lock_mitigate", text, sizeof(text));
			if (splitlock_leases_read(ctx, &ls) < 0)
				return 29;
			printf("lease dropped: %d, sysctl %s, leases %zu, saved %d\n", n, text,
			       splitlock_leases_get_count(ls), splitlock_leases_get_saved(ls, &value));
			splitlock_leases_free(ls);
			printf("drop NULL: %d\n", splitlock_lease_drop(NULL));
		}

		/* mitigate plan: off now and after reboot, read back */
		if (splitlock_mitigate_plan_new(ctx, 0, SPLITLOCK_MITIGATE_PERSIST, &mp) < 0 ||
		    splitlock_mitigate_plan_get_refusal(mp) != 0)
			return 13;
		printf("plan: %d -> %d, needs %s\n", splitlock_mitigate_plan_get_previous(mp),
		       splitlock_mitigate_plan_get_value(mp),
		       splitlock_capability_name(splitlock_mitigate_plan_get_capability(mp)));
		if (splitlock_mitigate_plan_apply(mp) < 0)
			return 14;
		printf("applied: running %d, persisted %d\n", splitlock_mitigate_plan_get_running(mp),
		       splitlock_mitigate_plan_is_persisted(mp));
		printf("drop-in: %s; override %s; error %s\n",
		       strstr(str(splitlock_mitigate_plan_get_dropin(mp)), "kernel.split_lock_mitigate = 0") ? "sets 0" : "?",
		       str(splitlock_mitigate_plan_get_override(mp, NULL, NULL)),
		       str(splitlock_mitigate_plan_get_error(mp)));
		splitlock_mitigate_plan_free(mp);
		free(file);
		if (splitlock_mitigate_get_persisted(ctx, &value, &file, NULL) != 1)
			return 15;
		printf("persisted: %d in %s\n", value, file);
		free(file);
		n = splitlock_mitigate_set(ctx, 1);
		read_in(argv[1], "/proc/sys/kernel/split_lock_mitigate", text, sizeof(text));
		printf("set 1: %d, sysctl %s", n, text);
		n = splitlock_mitigate_set(ctx, 0);
		read_in(argv[1], "/proc/sys/kernel/split_lock_mitigate", text, sizeof(text));
		printf("; set 0: %d, sysctl %s\n", n, text);

		/* the boot parameter: detect, read, plan, apply (commands only listed) */
		{
			const char *names[4] = { NULL, NULL, NULL, NULL };

			n = splitlock_boot_detect(ctx, names, 4);
			printf("boot detect: %d %s\n", n, str(names[0]));
			n = splitlock_boot_read(ctx, "grub", &m, &rate, &source);
			splitlock_mode_format(m, rate, mode, sizeof(mode));
			printf("boot read: %d %s from %s", n, mode, str(source));
			free(source);
			n = splitlock_boot_read(ctx, "lilo", &m, &rate, &source);
			printf("; lilo %d %s\n", n, str(source));
			free(source);
			source = NULL;
		}
		if (splitlock_boot_plan_new(ctx, "grub", 0x80, &bp) != -EINVAL || bp)
			return 33;
		if (splitlock_boot_plan_new(ctx, "lilo", 0, &bp) < 0)
			return 34;
		printf("boot plan lilo: refusal %d, backend %s, error %s", splitlock_boot_plan_get_refusal(bp),
		       str(splitlock_boot_plan_get_backend(bp)), splitlock_boot_plan_get_error(bp) ? "given" : "none");
		printf(", mode %d\n", splitlock_boot_plan_mode(bp, SPLITLOCK_MODE_OFF, 0));
		splitlock_boot_plan_free(bp);
		if (splitlock_boot_plan_new(ctx, "grub", 0, &bp) < 0 ||
		    splitlock_boot_plan_mode(bp, SPLITLOCK_MODE_FATAL, 0) < 0)
			return 16;
		printf("boot plan: %s, %zu files, diff %s\n", splitlock_boot_plan_get_backend(bp),
		       splitlock_boot_plan_get_file_count(bp),
		       strstr(splitlock_boot_plan_get_diff(bp), "split_lock_detect=fatal") ? "sets fatal" : "?");
		splitlock_boot_plan_free(bp);
		if (splitlock_boot_plan_new(ctx, NULL, 0, &bp) < 0 || splitlock_boot_plan_get_refusal(bp) != 0 ||
		    splitlock_boot_plan_mode(bp, SPLITLOCK_MODE_OFF, 0) < 0)
			return 35;
		{
			const char *const *cmd = splitlock_boot_plan_get_command(bp, 0);
			const char *path = NULL, *fix = NULL;
			enum splitlock_boot_leftover kind;

			printf("boot plan off: %s, files %s, %s, past %s; %zu commands, first %s, runs %d\n",
			       splitlock_boot_plan_get_backend(bp), str(splitlock_boot_plan_get_file(bp, 0)),
			       str(splitlock_boot_plan_get_file(bp, 1)),
			       str(splitlock_boot_plan_get_file(bp, splitlock_boot_plan_get_file_count(bp))),
			       splitlock_boot_plan_get_command_count(bp), cmd ? str(cmd[0]) : "NULL",
			       splitlock_boot_plan_runs_commands(bp));
			n = splitlock_boot_plan_apply(bp);
			printf("boot applied: %d, outcome %d, previous %s, error %s, leftovers %zu (%d)\n", n,
			       (int)splitlock_boot_plan_get_outcome(bp), str(splitlock_boot_plan_get_previous(bp)),
			       str(splitlock_boot_plan_get_error(bp)), splitlock_boot_plan_get_leftover_count(bp),
			       splitlock_boot_plan_get_leftover(bp, 0, &path, &kind, &fix));
		}
		splitlock_boot_plan_free(bp);
		n = splitlock_boot_read(ctx, "grub", &m, &rate, &source);
		splitlock_mode_format(m, rate, mode, sizeof(mode));
		printf("boot read after: %d %s\n", n, n == 1 ? mode : "-");
		free(source);
		source = NULL;

		/* offenders from a saved log */
		if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &rep) < 0)
			return 17;
		int fd = open(argv[2], O_RDONLY);
		if (fd < 0 || splitlock_offenders_read_input(rep, fd, SPLITLOCK_INPUT_AUTO, NULL, NULL) < 0)
			return 18;
		close(fd);
		printf("offenders: %s, %llu events, top %s\n",
		       splitlock_input_format_name(splitlock_offenders_get_input_format(rep)),
		       (unsigned long long)splitlock_offenders_get_events(rep),
		       splitlock_offender_get_comm(splitlock_offenders_get(rep, 0), NULL));
		{
			const struct splitlock_offender *o = splitlock_offenders_get(rep, 0);
			uint64_t first = 0, traps = 0, unrec = splitlock_offenders_get_unrecognized(rep, &first);

			printf("report: %zu offenders, past %s; suppressed %llu malformed %llu unrecognized %llu "
			       "(line %llu, unparsed %llu) alignment %llu forged %llu (user %llu) undated %llu "
			       "repeated %llu\n", splitlock_offenders_get_count(rep),
			       splitlock_offenders_get(rep, splitlock_offenders_get_count(rep)) ? "some" : "NULL",
			       (unsigned long long)splitlock_offenders_get_suppressed(rep),
			       (unsigned long long)splitlock_offenders_get_malformed(rep),
			       (unsigned long long)unrec, (unsigned long long)first,
			       (unsigned long long)splitlock_offenders_get_unrecognized_by(rep, SPLITLOCK_UNREAD_UNPARSED),
			       (unsigned long long)splitlock_offenders_get_alignment_checks(rep),
			       (unsigned long long)splitlock_offenders_get_forged(rep),
			       (unsigned long long)splitlock_offenders_get_forged_by(rep, SPLITLOCK_FORGED_USER_SPACE),
			       (unsigned long long)splitlock_offenders_get_undated(rep),
			       (unsigned long long)splitlock_offenders_get_maybe_repeated(rep));
			printf("top: pid %u tgid %u %s %s, %llu events, seen %lld..%lld us, wall %s, %zu ips, first %s, "
			       "kernel traps %d, exe %s cmdline %s unit %s container %s, probe %d\n",
			       (unsigned)splitlock_offender_get_pid(o), (unsigned)splitlock_offender_get_tgid(o),
			       splitlock_kind_name(splitlock_offender_get_kind(o)),
			       splitlock_action_name(splitlock_offender_get_action(o)),
			       (unsigned long long)splitlock_offender_get_events(o),
			       (long long)splitlock_offender_get_first_seen(o), (long long)splitlock_offender_get_last_seen(o),
			       splitlock_offender_get_first_wall(o) == SPLITLOCK_TIME_UNKNOWN &&
			       splitlock_offender_get_last_wall(o) == SPLITLOCK_TIME_UNKNOWN ? "unknown" : "known",
			       splitlock_offender_get_ip_count(o), str(splitlock_offender_get_ip(o, 0)),
			       splitlock_offender_get_kernel_traps(o, &traps), str(splitlock_offender_get_exe(o)),
			       str(splitlock_offender_get_cmdline(o)), str(splitlock_offender_get_unit(o)),
			       str(splitlock_offender_get_container(o)), splitlock_offender_is_probe(o));
		}
		n = splitlock_offenders_ref(rep) == rep;
		printf("report ref: %s, still held %s\n", n ? "same" : "other",
		       splitlock_offenders_unref(rep) == rep ? "yes" : "no");
		splitlock_offenders_unref(rep);

		/* the live log of the root, in a window */
		if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_COMM, 0, &rep) < 0)
			return 36;
		splitlock_offenders_set_boot_time(rep, 1700000000000000LL);
		splitlock_offenders_set_window(rep, 1700000004000000LL, SPLITLOCK_TIME_UNKNOWN);
		n = splitlock_offenders_read_kmsg(rep);
		printf("live log: %d, %llu events, %zu offenders, first at %lld\n", n,
		       (unsigned long long)splitlock_offenders_get_events(rep), splitlock_offenders_get_count(rep),
		       splitlock_offenders_get_count(rep) ?
		       (long long)splitlock_offender_get_first_wall(splitlock_offenders_get(rep, 0)) : -1LL);
		splitlock_offenders_unref(rep);

		/* follow the root's kernel log from its start */
		if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &rep) < 0 ||
		    splitlock_follow_new(rep, true, &fol) < 0)
			return 19;
		printf("follow fds: log %d, connector %d (%d)\n", splitlock_follow_get_log_fd(fol),
		       splitlock_follow_get_connector_fd(fol), splitlock_follow_get_connector_error(fol));
		if (splitlock_follow_process(fol, on_event, &events) < 0)
			return 20;
		printf("followed: %d events\n", events);
		splitlock_follow_free(fol);
		splitlock_offenders_unref(rep);

		/* records and parsed lines: opaque, one object reused for each */
		static const char raw[] = "4,7,5000000,-;x86/split lock detection: "
			"#AC: game/42 took a split_lock trap at address: 0x10";
		char decoded[sizeof(raw)];
		struct splitlock_kmsg_record *krec;
		struct splitlock_event *ev;
		const char *msg;
		size_t mlen;
		uint64_t addr = 0;
		int64_t traps;
		if (splitlock_kmsg_record_new(&krec) < 0 || splitlock_event_new(&ev) < 0)
			return 22;
		printf("empty record: facility %d level %d message '%s'\n", splitlock_kmsg_record_get_facility(krec),
		       splitlock_kmsg_record_get_level(krec), splitlock_kmsg_record_get_message(krec, NULL));
		if (splitlock_kmsg_parse_record("not a record", 12, decoded, krec) != -EINVAL ||
		    splitlock_kmsg_parse_record(raw, sizeof(raw) - 1, decoded, krec) < 0)
			return 22;
		msg = splitlock_kmsg_record_get_message(krec, &mlen);
		n = splitlock_detector_line_parse(msg, mlen, ev);
		splitlock_event_get_ip(ev, &addr);
		printf("record: seq %llu level %d, line %d, pid %u ip 0x%llx\n",
		       (unsigned long long)splitlock_kmsg_record_get_seq(krec),
		       splitlock_kmsg_record_get_level(krec), n, (unsigned)splitlock_event_get_pid(ev),
		       (unsigned long long)addr);
		{
			size_t clen = 0;
			const char *comm = splitlock_event_get_comm(ev, &clen);

			printf("event: facility %d usec %llu, %.*s %s %s, object %s\n",
			       splitlock_kmsg_record_get_facility(krec),
			       (unsigned long long)splitlock_kmsg_record_get_usec(krec), (int)clen, comm,
			       splitlock_kind_name(splitlock_event_get_kind(ev)),
			       splitlock_action_name(splitlock_event_get_action(ev)),
			       str(splitlock_event_get_object(ev, NULL)));
		}
		if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &rep) < 0)
			return 37;
		{
			const struct splitlock_offender *o = NULL;

			n = splitlock_offenders_add_record(rep, krec, &o);
			printf("added: %d, %s\n", n, o ? splitlock_offender_get_comm(o, NULL) : "none");
		}
		{
			static const char kill[] = "traps: game[42] trap alignment check ip:401136 sp:7ffd error:0 "
						   "in game[401000+1000]";
			static const char supp[] = "split_lock_warn: 3 callbacks suppressed";
			size_t olen = 0;
			const char *obj;
			uint64_t off = 0;

			n = splitlock_detector_line_parse(kill, sizeof(kill) - 1, ev);
			obj = splitlock_event_get_object(ev, &olen);
			printf("kill line: %d %s, object %.*s", n, splitlock_action_name(splitlock_event_get_action(ev)),
			       (int)olen, obj ? obj : "");
			n = splitlock_event_get_object_offset(ev, &off);
			printf(" offset %d 0x%llx\n", n, (unsigned long long)off);
			n = splitlock_detector_line_parse(supp, sizeof(supp) - 1, ev);
			printf("suppressed line: %d, %llu\n", n, (unsigned long long)splitlock_event_get_suppressed(ev));
		}
		splitlock_event_free(ev);
		splitlock_kmsg_record_free(krec);
		n = splitlock_kmsg_foreach(ctx, count_record, NULL);
		printf("kmsg: %d, %d records", n, records);
		records = 0;
		value = 5;
		n = splitlock_kmsg_foreach(ctx, stop_at_first, &value);
		printf("; stopped %d after %d", n, records);
		records = 0;
		value = -EIO;
		n = splitlock_kmsg_foreach(ctx, stop_at_first, &value);
		printf("; failed %d after %d\n", n, records);

		/* the proc connector: decoded from bytes, received from a socket */
		{
			int sv[2];

			printf("connector open: %d; close -1\n", splitlock_proc_connector_open(ctx));
			splitlock_proc_connector_close(-1);
			n = splitlock_proc_connector_decode(exec_event, sizeof(exec_event), on_proc_event, rep);
			printf("decoded: %d; garbage %d\n", n, splitlock_proc_connector_decode(exec_event, 3, on_proc_event, rep));
			if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) < 0)
				return 38;
			n = splitlock_proc_connector_receive(sv[0], on_proc_event, rep);
			if (send(sv[1], exec_event, sizeof(exec_event), 0) != (ssize_t)sizeof(exec_event))
				return 39;
			printf("received: nothing %d, then %d\n", n, splitlock_proc_connector_receive(sv[0], on_proc_event, rep));
			splitlock_proc_connector_close(sv[0]);
			close(sv[1]);
		}
		splitlock_offenders_unref(rep);

		/* counters, one at a time: a stock kernel has none, a patched one some */
		for (int c = 0; splitlock_counter_name((enum splitlock_counter)c); c++)
			if (splitlock_kernel_counter(ctx, (enum splitlock_counter)c, &traps) != -ENOENT)
				return 23;
		printf("counters: none here\n");
		printf("patched counters:");
		for (int c = 0; splitlock_counter_name((enum splitlock_counter)c); c++) {
			traps = -1;
			n = splitlock_kernel_counter(patched, (enum splitlock_counter)c, &traps);
			printf(" %s %d %lld,", splitlock_counter_name((enum splitlock_counter)c), n, (long long)traps);
		}
		printf(" unknown %d\n", splitlock_kernel_counter(patched, (enum splitlock_counter)99, &traps));

		/* the open sets, walked by name: forms, reasons, backends */
		printf("forms:");
		for (int f = 0; splitlock_input_format_name((enum splitlock_input_format)f); f++) {
			enum splitlock_input_format back = SPLITLOCK_INPUT_AUTO;
			const char *name = splitlock_input_format_name((enum splitlock_input_format)f);

			printf(" %s%s", name, splitlock_input_format_parse(name, &back) == 0 && (int)back == f ? "" : "(!)");
		}
		printf("\nreasons:");
		for (int u = 0; splitlock_unread_name((enum splitlock_unread)u); u++)
			printf(" %s", splitlock_unread_name((enum splitlock_unread)u));
		printf("\nforged:");
		for (int u = 0; splitlock_forged_name((enum splitlock_forged)u); u++)
			printf(" %s", splitlock_forged_name((enum splitlock_forged)u));
		printf("\nmodes:");
		for (int m = SPLITLOCK_MODE_OFF; splitlock_mode_name((enum splitlock_mode)m); m++)
			printf(" %s", splitlock_mode_name((enum splitlock_mode)m));
		printf("%s", splitlock_mode_name(SPLITLOCK_MODE_UNKNOWN) ? " (!)" : "");
		printf("\nbackends:");
		for (const char *const *b = splitlock_boot_backends(); *b; b++) {
			const char *alias, *of = splitlock_boot_backend_name(*b);

			/* each name its own backend, each alias its backend's */
			printf(" %s%s", *b, of && strcmp(of, *b) == 0 ? "" : "(!)");
			for (size_t a = 0; (alias = splitlock_boot_backend_alias(*b, a)); a++) {
				of = splitlock_boot_backend_name(alias);
				printf(" %s%s", alias, of && strcmp(of, *b) == 0 ? "" : "(!)");
			}
		}
		printf("%s\n", splitlock_boot_backend_name("lilo") || splitlock_boot_backend_alias("systemd-boot", 0) ? " (!)" : "");
		{
			enum splitlock_group g = SPLITLOCK_GROUP_TASK;
			enum splitlock_input_format f = SPLITLOCK_INPUT_AUTO;

			n = splitlock_group_parse("exe", &g);
			printf("names: group %d %s", n, splitlock_group_name(g));
			n = splitlock_input_format_parse("journal", &f);
			printf(", units %d; format %d %s, unknown %d\n", splitlock_group_parse("units", &g), n,
			       splitlock_input_format_name(f), splitlock_input_format_parse("unknown", &f));
		}

		/* sysctl.d, leases, time: read-only, with cleanup helpers */
		{
			__attribute__((cleanup(splitlock_sysctld_freep))) struct splitlock_sysctld *sd = NULL;
			__attribute__((cleanup(splitlock_leases_freep))) struct splitlock_leases *ls = NULL;
			const char *efile = NULL, *evalue = NULL;
			unsigned eline = 0;
			char *content = NULL;
			int64_t t, boot = 0;

			if (splitlock_sysctld_resolve(ctx, "kernel.split_lock_mitigate", &sd) < 0 ||
			    splitlock_leases_read(ctx, &ls) < 0 ||
			    splitlock_time_parse("2026-12-03 10:00:00 UTC", 0, 0, &t) < 0)
				return 24;
			printf("sysctl.d: %zu assignments, winner %s; leases: %zu; time: %lld\n",
			       splitlock_sysctld_get_count(sd), splitlock_sysctld_get_value(sd),
			       splitlock_leases_get_count(ls), (long long)(t / 1000000));
			n = splitlock_sysctld_get_entry(sd, 0, &efile, &eline, &evalue);
			printf("entry: %d %s:%u = %s; past %d; file %s; over aa %s, over zzz %s\n", n, str(efile), eline,
			       str(evalue), splitlock_sysctld_get_entry(sd, 1, NULL, NULL, NULL),
			       str(splitlock_sysctld_get_file(sd)),
			       str(splitlock_sysctld_get_override(sd, "/etc/sysctl.d/aa.conf")),
			       str(splitlock_sysctld_get_override(sd, "/etc/sysctl.d/zzz.conf")));
			n = splitlock_sysctld_persist(ctx, "kernel.split_lock_mitigate", "1", SPLITLOCK_WRITE_DRY_RUN,
						      &content);
			read_in(argv[1], SPLITLOCK_SYSCTLD_DROPIN, text, sizeof(text));
			printf("persist dry run: %d, would write %s, file still %s; empty key %d\n", n,
			       content && strstr(content, "kernel.split_lock_mitigate = 1") ? "1" : "?",
			       strstr(text, "kernel.split_lock_mitigate = 0") ? "0" : "?",
			       splitlock_sysctld_persist(ctx, "", "1", SPLITLOCK_WRITE_DRY_RUN, NULL));
			free(content);
			n = splitlock_time_boot(ctx, &boot);
			printf("boot time: %d %lld\n", n, (long long)boot);
		}

		/* the probe: refusals on a stock root, a simulated trap on a hook file */
		{
			__attribute__((cleanup(splitlock_probe_freep))) struct splitlock_probe *pr = NULL;
			enum splitlock_kind trap = SPLITLOCK_KIND_SPLIT_LOCK;
			double x = 0;

			n = splitlock_probe_run(ctx, SPLITLOCK_PROBE_SIMULATE_AC | SPLITLOCK_PROBE_SIMULATE_DB, &pr);
			printf("probe both: %d; no hook %d\n", n,
			       splitlock_probe_run(ctx, SPLITLOCK_PROBE_SIMULATE_AC, &pr));
			if (pr || splitlock_probe_run(patched, SPLITLOCK_PROBE_SIMULATE_DB, &pr) < 0)
				return 40;
			read_in(argv[3], "/sys/kernel/debug/split_lock/inject", text, sizeof(text));
			printf("probe simulated: %s %d detected %d complete %d, trap %d, delay %d, delayer %s, "
			       "costs %d %d, stall %d, cpu %s, hook '%s'\n",
			       splitlock_probe_action_name(splitlock_probe_get_action(pr)),
			       splitlock_probe_is_simulated(pr), splitlock_probe_is_detected(pr),
			       splitlock_probe_is_complete(pr), splitlock_probe_get_trap(pr, &trap),
			       splitlock_probe_get_delay_ms(pr, &x),
			       splitlock_probe_delayer_name(splitlock_probe_get_delayer(pr)),
			       splitlock_probe_get_split_lock_ns(pr, &x), splitlock_probe_get_aligned_lock_ns(pr, &x),
			       splitlock_probe_get_stall_percent(pr, &x),
			       splitlock_probe_get_cpu(pr) < 4096 ? "one" : "?", text);
		}
		printf("probe names: %s, %s, %s, %s\n", splitlock_probe_action_name(SPLITLOCK_PROBE_SIGBUS),
		       splitlock_probe_trap_name(SPLITLOCK_KIND_SPLIT_LOCK),
		       splitlock_probe_delayer_name(SPLITLOCK_PROBE_DELAYER_HYPERVISOR),
		       str(splitlock_probe_delayer_name((enum splitlock_probe_delayer)9)));

		/* the MSRs through the root's /dev/cpu/N/msr files */
		{
			__attribute__((cleanup(splitlock_msr_freep))) struct splitlock_msr *msr = NULL;
			enum splitlock_msr_module state = SPLITLOCK_MSR_MODULE_LOADABLE;
			enum splitlock_cap missing = SPLITLOCK_CAP_SYS_ADMIN;
			char *path = NULL;

			n = splitlock_msr_module_find(msrs, &state, &path);
			printf("msr module: %d state %d path %s\n", n, (int)state, str(path));
			free(path);
			n = splitlock_msr_check_capabilities(msrs, &missing);
			printf("msr capabilities: %d%s%s\n", n, n == -EPERM ? " missing " : "",
			       n == -EPERM ? splitlock_capability_name(missing) : "");
			n = splitlock_msr_read(msrs, &msr);
			printf("msr read: %d\n", n);
			if (n == 0) {
				unsigned c = 99;
				bool bit = false;
				char *summary = NULL;

				for (size_t i = 0; i < splitlock_msr_get_count(msr); i++) {
					int r = splitlock_msr_get_cpu(msr, i, &c);
					printf("msr cpu %d %u:", r, c);
					for (int b = 0; b < 3; b++) {
						r = splitlock_msr_get_bit(msr, i, (enum splitlock_msr_bit)b, &bit);
						printf(" %d", r < 0 ? r : bit);
					}
					printf("\n");
				}
				printf("msr past: %d %d, bit %d\n", splitlock_msr_get_cpu(msr, 4, &c),
				       splitlock_msr_get_bit(msr, 4, SPLITLOCK_MSR_SPLIT_LOCK_ARMED, &bit),
				       splitlock_msr_get_bit(msr, 0, (enum splitlock_msr_bit)3, &bit));
				if (splitlock_msr_summary(msr, &summary) < 0)
					return 41;
				printf("msr summary: %s\n", summary);
				free(summary);
			}
		}

		printf("logged: %s\n", logged ? "yes" : "no");
		splitlock_unref(patched);
		splitlock_unref(msrs);
		return splitlock_unref(ctx) == NULL ? 0 : 21;
	}
	C
}

installed_flags() {
	PKG_CONFIG_SYSROOT_DIR="$T/dest" PKG_CONFIG_PATH="$T/dest/usr/lib/pkgconfig" \
		pkg-config --cflags --libs libsplitlock || fail "pkg-config cannot find libsplitlock"
}

# The C++ flags of a test run: TEST_CXXFLAGS, else TEST_CFLAGS less what is
# C's alone (make check-asan's -fsanitize=... are g++'s too).
test_cxxflags() {
	if [ -n "${TEST_CXXFLAGS+set}" ]; then
		echo "$TEST_CXXFLAGS"
		return
	fi
	local f out=()
	for f in ${TEST_CFLAGS:-}; do
		case $f in
		-std=*|-Wstrict-prototypes|-Wmissing-prototypes|-Wold-style-definition|-Wnested-externs|\
		-Wdeclaration-after-statement|-Wbad-function-cast|-Wmissing-parameter-type|-Wimplicit*|\
		-Wjump-misses-init|-Wold-style-declaration|-Wpointer-sign) ;;
		*) out+=("$f") ;;
		esac
	done
	echo "${out[*]}"
}

# The roots the program runs on: a stock kernel with grub, its processes,
# btime; a patched kernel with a writable mode file, a process whose
# split_lock file has the exemption, a file for the injection hook; four
# CPUs whose MSR files hold the detector's bits (CPU 3 disarmed, its bus
# lock detection armed).
installed_program_roots() {
	copy_fixture stock-ac
	cp -a "$FIXTURES/mode/debian-grub/." "$T/root/"
	mkdir -p "$T/root/proc/4242" "$T/root/proc/4343" "$T/root/proc/4545"
	printf 'Name:\tgame\nState:\tS (sleeping)\nPPid:\t1\nUid:\t1000\t1000\t1000\t1000\n' >"$T/root/proc/4242/status"
	printf 'Name:\tsu\nState:\tS (sleeping)\nPPid:\t1\nUid:\t1000\t0\t0\t0\n' >"$T/root/proc/4343/status"
	printf 'Name:\tbroken\nPPid:\t1\n' >"$T/root/proc/4545/status"
	printf 'cpu 1 2 3\nbtime 1700000000\n' >"$T/root/proc/stat"
	rm -rf "$T/patched" "$T/msr"
	cp -a "$FIXTURES/patched-runctl" "$T/patched"
	install -d -m 0700 "$T/patched/run/slctl"
	mkdir -p "$T/patched/proc/4242" "$T/patched/sys/kernel/debug/split_lock"
	cp "$T/patched/proc/self/split_lock" "$T/patched/proc/4242/split_lock"
	: >"$T/patched/sys/kernel/debug/split_lock/inject"
	cp -a "$FIXTURES/probe-msr" "$T/msr"
	local c
	for c in 0 1 2 3; do
		mkdir -p "$T/msr/dev/cpu/$c"
		: >"$T/msr/dev/cpu/$c/msr"
		put_msr_bit "$c" 0xcf 5 1
		put_msr_bit "$c" 0x33 29 $((c != 3))
		put_msr_bit "$c" 0x1d9 2 $((c == 3))
	done
}

put_msr_bit() { # CPU MSR BIT VALUE: the register's 8 bytes at its offset
	local v=$(($4 << $3)) i bytes=""
	for i in 0 1 2 3 4 5 6 7; do
		bytes+=$(printf '\\%03o' $(((v >> (8 * i)) & 255)))
	done
	# shellcheck disable=SC2059
	printf "$bytes" | dd of="$T/msr/dev/cpu/$1/msr" bs=1 seek=$(($2)) conv=notrunc status=none
}

has_cap() { # BIT: whether this shell has the capability effective, as the kernel says
	local eff
	eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
	(((16#$eff >> $1) & 1))
}

expect_line() {
	grep -qxF -- "$1" <<<"$out" || fail "stdout lacks the line '$1': $out"
}

# Runs PROGRAM on fresh roots and checks every line it prints.
check_installed_program() {
	installed_program_roots
	run env -u SPLITLOCK_LOG LD_LIBRARY_PATH="$T/dest/usr/lib" "$1" "$T/root" \
		"$FIXTURES/offenders/log.dmesg" "$T/patched" "$T/msr"
	expect_rc 0
	local line
	for line in \
		"root: given" \
		"log priority: 3, then 7" \
		"ref: same, unref keeps it: yes" \
		"status: ac=1 6.1.0-18-amd64 mode=warn from boot-log" \
		"evidence: guess 0, x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks" \
		"next boot: 1 grub: /etc/default/grub, /etc/default/grub.d/*.cfg" \
		"mitigate: 1, persisted 0" \
		"parse: 0 5 5, ratelimit:0 -22, Warn -22" \
		"param bogus: warn (0); format unknown -22 ''" \
		"cmdline: 1 5 7, none 0" \
		"boot line: 1 4, other 0" \
		"switch stock: refusal -95, error given, needs CAP_SYS_ADMIN, previous 0" \
		"switch stock applied: -95, current 0" \
		"switch patched: refusal 0, error NULL, previous 2" \
		"switch patched applied: 0, current 5 20, file 'ratelimit:20'" \
		"identity: 0 uid 1000 ppid 1; changing -76; none -3; broken -74" \
		"exempt stock: -95" \
		"exempt patched: 0, set 0, now 1, file has 'misery_exempt 1'; gone -3" \
		"lift: lease, refusal 0, reason none" \
		"lift patched: exempt, refusal 0" \
		"lease taken: sysctl 0" \
		"leases: 1; 0 holder me run 4242 uid 1000 dated yes live 1; saved 0 (1); past -34" \
		"lease dropped: 0, sysctl 1, leases 0, saved -61" \
		"drop NULL: 0" \
		"plan: 1 -> 0, needs CAP_SYS_ADMIN" \
		"applied: running 0, persisted 1" \
		"drop-in: sets 0; override NULL; error NULL" \
		"persisted: 0 in /etc/sysctl.d/zz-slctl.conf" \
		"set 1: 0, sysctl 1; set 0: 0, sysctl 0" \
		"boot detect: 1 grub" \
		"boot read: 1 fatal from /etc/default/grub, /etc/default/grub.d/*.cfg; lilo -22 NULL" \
		"boot plan lilo: refusal -22, backend NULL, error given, mode -22" \
		"boot plan: grub, 2 files, diff sets fatal" \
		"boot plan off: grub, files /etc/default/grub, /etc/default/grub.d/zz-slctl.cfg, past NULL; 1 commands, first update-grub, runs 0" \
		"boot applied: 0, outcome 3, previous fatal, error NULL, leftovers 0 (-34)" \
		"boot read after: 1 off" \
		"offenders: dmesg, 11 events, top GoW.exe" \
		"report: 9 offenders, past NULL; suppressed 25 malformed 2 unrecognized 2 (line 15, unparsed 2) alignment 0 forged 0 (user 0) undated 0 repeated 0" \
		"top: pid 4242 tgid 0 split_lock warn, 2 events, seen 5000000..5100000 us, wall unknown, 1 ips, first 0x1403c2d1, kernel traps -61, exe NULL cmdline NULL unit NULL container NULL, probe 0" \
		"report ref: same, still held yes" \
		"live log: 0, 2 events, 2 offenders, first at 1700000005000000" \
		"follow fds: log -1, connector -1 (-18)" \
		"follow: GoW.exe 0x14003c2d1 level 4" \
		"follow: CJobMgr::m_Work 0x14003c2d1 level 4" \
		"followed: 2 events" \
		"empty record: facility 0 level 0 message ''" \
		"record: seq 7 level 4, line 1, pid 42 ip 0x10" \
		"event: facility 0 usec 5000000, game split_lock warn, object NULL" \
		"added: 1, game" \
		"kill line: 1 fatal, object game offset 0 0x136" \
		"suppressed line: 2, 3" \
		"kmsg: 0, 8 records; stopped 0 after 1; failed -5 after 1" \
		"connector open: -18; close -1" \
		"proc event: type 2 pid 4242 tgid 4242 parent 0/0 at 5000000000 comm '' 0, kept 0" \
		"decoded: 1; garbage -74" \
		"proc event: type 2 pid 4242 tgid 4242 parent 0/0 at 5000000000 comm '' 0, kept 0" \
		"received: nothing 0, then 1" \
		"counters: none here" \
		"patched counters: ac_traps 0 30, db_traps 0 0, misery_delays 0 30, sigbus 0 0, warnings_suppressed 0 0, unknown -22" \
		"forged: user_space further_line level" \
		"names: group 0 exe, units -22; format 0 journal, unknown -22" \
		"sysctl.d: 1 assignments, winner 0; leases: 0; time: 1796292000" \
		"entry: 0 /etc/sysctl.d/zz-slctl.conf:2 = 0; past -34; file /etc/sysctl.d/zz-slctl.conf; over aa /etc/sysctl.d/zz-slctl.conf, over zzz NULL" \
		"persist dry run: 0, would write 1, file still 0; empty key -22" \
		"boot time: 0 1700000000000000" \
		"probe both: -22; no hook -95" \
		"probe simulated: none 1 detected 0 complete 1, trap -61, delay -61, delayer none, costs -61 -61, stall -61, cpu one, hook 'dbdbdb'" \
		"probe names: sigbus, ac, hypervisor, NULL"; do
		expect_out "$line"
	done
	# The open sets as the built slctl lists them: a form or a backend
	# added is in both, and each name is the library's own.
	expect_line "forms: $("$SLCTL" offenders --input-format help | tr '\n' ' ' | sed 's/ $//')"
	expect_line "backends: $("$SLCTL" mode --backend help | grep -vx auto | tr '\n' ' ' | sed 's/ $//')"
	# Modes: those slctl names when it refuses an unknown one.
	expect_line "modes: $("$SLCTL" mode bogus --persist 2>&1 >/dev/null |
		sed -n "s/^.*is not a mode; use \(.*\) (1 <= N <= 1000), or default\.\$/\1/p" |
		sed 's/, / /g; s/:N$//')"
	# Reasons: the installed header's members, in order, by their names.
	local header=$T/dest/usr/include/libsplitlock.h
	expect_line "reasons: $(sed -n '/^enum splitlock_unread {/,/^};/p' "$header" | grep -o '^	SPLITLOCK_UNREAD_[A-Z_]*' |
		sed 's/^	SPLITLOCK_UNREAD_//' | tr 'A-Z\n' 'a-z ' | sed 's/ $//')"
	expect_line "forged: $(sed -n '/^enum splitlock_forged {/,/^};/p' "$header" | grep -o '^	SPLITLOCK_FORGED_[A-Z_]*' |
		sed 's/^	SPLITLOCK_FORGED_//' | tr 'A-Z\n' 'a-z ' | sed 's/ $//')"
	# What needs a capability, as this process has it (CAP_SYS_ADMIN 21,
	# CAP_SYS_RAWIO 17, CAP_SYS_MODULE 16).
	local admin=0 rawio=0 module=0
	has_cap 21 && admin=1
	has_cap 17 && rawio=1
	has_cap 16 && module=1
	expect_out "capabilities: admin $admin rawio $rawio module $module"
	expect_out "msr module: 0 state 0 path NULL"
	if [ $rawio = 1 ]; then
		expect_out "msr capabilities: 0"
		expect_out "msr read: 0"
		for line in "msr cpu 0 0: 1 1 0" "msr cpu 0 1: 1 1 0" "msr cpu 0 2: 1 1 0" "msr cpu 0 3: 1 0 1" \
			"msr past: -34 -34, bit -22" \
			"msr summary: Split lock detection armed on CPUs 0-2; CPU 3 disarmed (a penalty in progress?); bus lock detection armed on CPU 3."; do
			expect_out "$line"
		done
	else
		expect_out "msr capabilities: -1 missing CAP_SYS_RAWIO"
		expect_out "msr read: -1"
	fi
	expect_out "logged: no"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 0 ] || fail "running value not written"
	[ "$(cat "$T/patched/sys/kernel/split_lock/mode")" = ratelimit:20 ] || fail "mode not switched"
	grep -q 'split_lock_detect=off' "$T/root/etc/default/grub.d/zz-slctl.cfg" || fail "boot plan not applied"
	[ "$(ls "$T/root/run/slctl/leases")" = saved ] || [ -z "$(ls "$T/root/run/slctl/leases")" ] ||
		fail "a lease was left: $(ls "$T/root/run/slctl/leases")"
}

test_a_program_builds_against_the_installed_library() {
	installed_program
	local flags
	flags=$(installed_flags)
	# Under check-asan the library is instrumented, so the program must be too.
	cc ${TEST_CFLAGS:-} -std=gnu11 -Wall -Werror -o "$T/prog" "$T/prog.c" $flags || fail "does not compile: $flags"
	check_installed_program "$T/prog"
}

test_the_same_program_builds_as_cxx_against_the_installed_library() {
	require_cmd g++ "it compiles the program as C++"
	installed_program
	local flags
	flags=$(installed_flags)
	# shellcheck disable=SC2046
	g++ $(test_cxxflags) -x c++ -std=c++17 -Wall -Werror -o "$T/prog++" "$T/prog.c" $flags ||
		fail "does not compile as C++: $flags"
	check_installed_program "$T/prog++"
}

test_plain_make_names_a_missing_build_dependency_and_installs_nothing() {
	run make -C "$TOP" B="$T/b" SCDOC=/nonexistent/scdoc all
	[ "$rc" -ne 0 ] || fail "make succeeded without scdoc"
	expect_err "/nonexistent/scdoc (it builds the man pages) is missing; 'make deps' installs it as root, or prints the command that does."
	[ "$(grep -c . <<<"$err")" -eq 1 ] || fail "more than one line: $err"
	[[ $out != *deps.sh* && $out != *apt-get* ]] || fail "plain make ran the installer: $out"
	[ ! -e "$T/b/lib" ] || fail "make built something before refusing"
	run make -C "$TOP" B="$T/b" PKG_CONFIG=/nonexistent/pkg-config all
	expect_err "/nonexistent/pkg-config is missing"
}

# tools/deps.sh where every tool is missing and apt-get and id are stand-ins:
# `id -u` says root, apt-get only logs that it was asked.
deps_without_tools() { # [VAR=VALUE...] -- ARGS...
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho 0\n' >"$T/bin/id"
	printf '#!/bin/sh\necho "$*" >>"%s/apt.log"\n' "$T" >"$T/bin/apt-get"
	chmod +x "$T/bin/id" "$T/bin/apt-get"
	ln -sf "$(command -v sort)" "$T/bin/sort"
	ln -sf "$(command -v tr)" "$T/bin/tr"
	: >"$T/apt.log"
	run env -i PATH="$T/bin" "${vars[@]}" /bin/sh "$TOP/tools/deps.sh" "$@"
}

# A package build changes nothing on its machine (packager review F2): as
# root, make check's deps.sh in debian/rules (INSTALL_DEPS=no), under
# dpkg-buildpackage or in rpmbuild's %check installs nothing; a missing
# test tool is named and its tests skip, a missing build dependency fails.
test_deps_installs_nothing_in_a_package_build() {
	deps_without_tools -- --tools test
	expect_rc 0
	grep -q 'install' "$T/apt.log" || fail "the stand-in saw no install: the test is wrong"
	local env
	for env in "" DEB_RULES_REQUIRES_ROOT=no RPM_BUILD_ROOT=/tmp/buildroot; do
		deps_without_tools $env -- --no-install --tools test
		[ -z "$env" ] || deps_without_tools $env -- --tools test
		expect_rc 0
		[ ! -s "$T/apt.log" ] || fail "${env:---no-install}: apt-get ran: $(cat "$T/apt.log")"
		expect_err "the tests that need jq"
		expect_err "skip"
	done
	deps_without_tools RPM_BUILD_ROOT=/tmp/buildroot -- test
	expect_rc 1
	[ ! -s "$T/apt.log" ] || fail "apt-get ran for the build dependencies: $(cat "$T/apt.log")"
	expect_err "not installing anything here"
}

# A user missing build and test dependencies hears of all of them at
# once, as the packages to install, in one sentence (packager review F11).
test_deps_names_every_missing_package_at_once_to_a_user() {
	deps_without_tools -- test
	printf '#!/bin/sh\necho 1000\n' >"$T/bin/id"
	: >"$T/apt.log"
	run env -i PATH="$T/bin" /bin/sh "$TOP/tools/deps.sh" test
	expect_rc 1
	[ ! -s "$T/apt.log" ] || fail "apt-get ran for a user"
	[ "$(grep -c . <<<"$err")" = 1 ] || fail "not one line: $err"
	expect_err "deps: packages are missing; install them as root with: apt-get install -y "
	local p
	for p in libcap-dev libsmartcols-dev jq zsh; do
		grep -qw -- "$p" <<<"$err" || fail "$p not named: $err"
	done
}

# make rpm on a system whose package database is not rpm's (Debian's rpm)
# runs rpmbuild --nodeps: tools/rpm.sh checks every BuildRequires itself
# first, and fails on those missing (packager review F7). Here all but
# rpmspec, pkg-config and what lives in sbin are missing.
test_rpm_build_checks_every_buildrequires_where_rpm_cannot() {
	require_cmd rpmspec "Debian: rpm"
	mkdir -p "$T/bin"
	local c
	for c in rpmspec pkg-config dirname; do
		ln -s "$(command -v $c)" "$T/bin/$c"
	done
	run env -i PATH="$T/bin" /bin/sh "$TOP/tools/rpm.sh" --buildrequires
	expect_rc 1
	expect_err "BuildRequires missing here: "
	for c in gcc gcc-c++ jq zsh fish strace perl-interpreter python3 scdoc busybox; do
		grep -qw -- "$c" <<<"$err" || fail "$c is not named missing: $err"
	done
	! grep -q 'pkgconfig(' <<<"$err" || fail "pkg-config modules named missing: $err"
	run "$TOP/tools/rpm.sh" --buildrequires
	[ "$rc" = 0 ] || [ -n "$err" ] || fail "exit $rc without a word"
}

# make dist is reproducible across clones: a clone made under umask 002
# gave group-writable members and another tarball (packager review F13).
test_the_release_tarball_does_not_depend_on_the_umask() {
	# The tree's own checkout: rpmbuild unpacks the tarball inside the
	# clone that ran make rpm, where git finds the clone's repository.
	[ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$TOP" && pwd -P)" ] &&
		git -C "$TOP" rev-parse -q --verify HEAD >/dev/null 2>&1 || skip "not a git checkout with a commit"
	(umask 022 && git clone -q "$TOP" "$T/a") || fail "git clone failed"
	(umask 002 && git clone -q "$TOP" "$T/b") || fail "git clone failed"
	[ "$(stat -c %a "$T/b/Makefile")" = 664 ] || fail "umask 002 made $(stat -c %a "$T/b/Makefile"): the test is wrong"
	make -s -C "$T/a" dist >/dev/null && make -s -C "$T/b" dist >/dev/null || fail "make dist failed"
	cmp -s "$T/a/slctl-$(cat "$TOP/VERSION").tar.gz" "$T/b/slctl-$(cat "$TOP/VERSION").tar.gz" ||
		fail "two tarballs: $(tar -tvzf "$T/b/slctl-$(cat "$TOP/VERSION").tar.gz" | grep -m3 rw-rw)"
}

test_header_dependencies_come_from_the_compiler() {
	# -W: as if the header had just changed. Only its includers rebuild.
	# BINDIR as built: the Makefile rewrites its installed-path stamp as it
	# reads itself, -n or not, and the next make would rebuild the helper.
	local built
	built=$(built_for)
	run make -C "$TOP" -n B="$BUILD_DIR" BINDIR="${built%/slctl}" -W lib/core/linereader.h all
	expect_rc 0
	local includer
	includer=$(grep -l '#include "core/linereader.h"' "$TOP"/lib/*/*.c | head -n 1)
	[ -n "$includer" ] || fail "no library source includes linereader.h"
	includer=${includer#"$TOP"/lib/}
	expect_out "-o $BUILD_DIR/lib/${includer%.c}.o"
	[[ $out != *"-o $BUILD_DIR/lib/mode/mode.o"* ]] || fail "mode.o rebuilt for a header it does not include"
	[[ $out != *"-o $BUILD_DIR/cli/"* ]] || fail "the CLI rebuilt for a library-internal header"
}

test_the_cli_sees_only_the_public_header() {
	local f
	for f in "$TOP"/cli/*.c "$TOP"/cli/*.h; do
		! grep -E '#include "(internal|bootloader|linereader|offenders-internal)\.h"' "$f" ||
			fail "$f includes a library-internal header"
	done
	! grep -q -- '-Ilib ' <<<"$(make -C "$TOP" -n B="$T/b2" "$T/b2/cli/util.o" 2>&1)" ||
		fail "the CLI is compiled with -Ilib"
}

test_the_manual_names_every_exported_function() {
	local pages names prefixes sym missing=""
	pages=$(cat "$TOP"/man/libsplitlock*.3.scd)
	names=$(grep -o 'splitlock_[a-z0-9_]*' <<<"$pages" | sort -u)
	# "splitlock_mode_\*" in a page covers every name with that prefix.
	prefixes=$(grep -o 'splitlock_[a-z0-9_]*\\\*' <<<"$pages" | sed 's/\\\*$//' | sort -u)
	for sym in $(awk '/^\tsplitlock_/ { sub(";", ""); print $1 }' "$TOP/lib/libsplitlock.sym"); do
		grep -qx "$sym" <<<"$names" && continue
		local p covered=""
		for p in $prefixes; do [[ $sym == "$p"* ]] && covered=1; done
		[ -n "$covered" ] || missing="$missing $sym"
	done
	[ -z "$missing" ] || fail "not in any libsplitlock*(3) page:$missing"
}

complete_words() { # WORDS... : what completion offers for the last word
	local words=("$@")
	# The completion asks slctl for the backends: the one tested.
	PATH="$(dirname "$SLCTL"):$PATH" bash -c 'source /usr/share/bash-completion/bash_completion 2>/dev/null
		source "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_slctl; echo "${COMPREPLY[*]}"' "$TOP/completions/slctl.bash" "${words[@]}"
}

test_bash_completion_offers_commands_and_values() {
	[ "$(complete_words slctl '')" = "status mitigate mode run offenders probe --root --json --verbose --help --version" ] ||
		fail "commands: $(complete_words slctl '')"
	[ "$(complete_words slctl mitigate '')" = "on off" ] || fail "mitigate: $(complete_words slctl mitigate '')"
	complete_words slctl mitigate -- | grep -q -- "--persist --dry-run" || fail "mitigate options"
	# The modes as slctl names them when it refuses an unknown one.
	local modes
	modes=$("$SLCTL" mode bogus --persist 2>&1 >/dev/null |
		sed -n "s/^.*is not a mode; use \(.*\) (1 <= N <= 1000), or default\.\$/\1 default/p" |
		sed 's/, / /g; s/:N / : /; s/ : /: /')
	[ -n "$modes" ] && [ "$(complete_words slctl mode '')" = "$modes" ] ||
		fail "mode values: $(complete_words slctl mode ''), slctl names: $modes"
	complete_words slctl mode fatal --backend '' | grep -qw grubby || fail "backends"
	# After run's '--', the words are the command's: commands first.
	complete_words slctl run -- slee 2>/dev/null | grep -qw sleep || fail "run: $(complete_words slctl run -- slee 2>&1)"
}

test_completion_offers_exactly_the_library_backends() {
	# The library's list, names and aliases, as --backend help prints it.
	local lib comp
	lib=$("$SLCTL" mode --backend help | grep -vx auto | sort | tr '\n' ' ')
	comp=$(complete_words slctl mode fatal --backend '' | tr ' ' '\n' | grep -vx auto | sort | tr '\n' ' ')
	[ -n "$lib" ] || fail "no backend list in slctl mode --help"
	[ "$lib" = "$comp" ] || fail "completion offers '$comp', the library has '$lib'"
}

run_tests
