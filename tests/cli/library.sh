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
# every area: context, status reads, mitigate plans, boot plans, offenders
# and follow, records, counters, the open sets walked (forms, unread
# reasons, backends), sysctl.d, leases, time, a lift plan, the probe's names and the
# cleanup helpers. Its output is checked against the fixtures it runs on.
test_a_program_builds_against_the_installed_library() {
	build_make install PREFIX=/usr DESTDIR="$T/dest" >/dev/null || fail "make install failed"
	cat >"$T/prog.c" <<-'C'
	#include <errno.h>
	#include <fcntl.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <unistd.h>
	#include <libsplitlock.h>

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

	int main(int argc, char **argv)
	{
		/* context */
		struct splitlock_ctx *ctx = splitlock_new(argv[1]);
		struct splitlock_mode_info *info;
		struct splitlock_mitigate_plan *mp;
		struct splitlock_boot_plan *bp;
		struct splitlock_offenders *rep;
		struct splitlock_follow *fol;
		enum splitlock_mode next;
		unsigned cpu, ifaces, rate;
		char mode[32], rel[64], *source = NULL, *file = NULL;
		int value, n, events = 0;
		(void)argc;
		if (!ctx)
			return 10;
		splitlock_set_log_fn(ctx, count_log, NULL);
		printf("root: %s\n", strcmp(splitlock_get_root(ctx), argv[1]) == 0 ? "given" : "other");

		/* status reads */
		if (splitlock_cpu_features(ctx, &cpu) < 0 || splitlock_kernel_release(ctx, rel, sizeof(rel)) < 0 ||
		    splitlock_kernel_interfaces(ctx, &ifaces) < 0 || splitlock_mode_info_read(ctx, &info) < 0)
			return 11;
		splitlock_mode_format(splitlock_mode_info_get_mode(info),
				      splitlock_mode_info_get_ratelimit(info), mode, sizeof(mode));
		printf("status: ac=%d %s mode=%s from %s\n", !!(cpu & SPLITLOCK_CPU_SPLIT_LOCK_DETECT), rel, mode,
		       splitlock_mode_source_name(splitlock_mode_info_get_source(info)));
		splitlock_mode_info_free(info);
		n = splitlock_mode_next_boot(ctx, &next, &rate, &source);
		printf("next boot: %d %s\n", n, source ? source : "-");
		free(source);
		if (splitlock_mitigate_get(ctx, &value) < 0)
			return 12;
		printf("mitigate: %d, persisted %d\n", value, splitlock_mitigate_get_persisted(ctx, &value, &file, NULL));

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
		splitlock_mitigate_plan_free(mp);
		free(file);
		if (splitlock_mitigate_get_persisted(ctx, &value, &file, NULL) != 1)
			return 15;
		printf("persisted: %d in %s\n", value, file);
		free(file);

		/* boot plan: planning only reads */
		if (splitlock_boot_plan_new(ctx, "grub", 0, &bp) < 0 ||
		    splitlock_boot_plan_mode(bp, SPLITLOCK_MODE_FATAL, 0) < 0)
			return 16;
		printf("boot plan: %s, %zu files, diff %s\n", splitlock_boot_plan_get_backend(bp),
		       splitlock_boot_plan_get_file_count(bp),
		       strstr(splitlock_boot_plan_get_diff(bp), "split_lock_detect=fatal") ? "sets fatal" : "?");
		splitlock_boot_plan_free(bp);

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
		splitlock_offenders_unref(rep);

		/* follow the root's kernel log from its start */
		if (splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &rep) < 0 ||
		    splitlock_follow_new(rep, true, &fol) < 0)
			return 19;
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
		if (splitlock_kmsg_record_new(&krec) < 0 || splitlock_event_new(&ev) < 0 ||
		    splitlock_kmsg_parse_record(raw, sizeof(raw) - 1, decoded, krec) < 0)
			return 22;
		msg = splitlock_kmsg_record_get_message(krec, &mlen);
		n = splitlock_detector_line_parse(msg, mlen, ev);
		splitlock_event_get_ip(ev, &addr);
		printf("record: seq %llu level %d, line %d, pid %u ip 0x%llx\n",
		       (unsigned long long)splitlock_kmsg_record_get_seq(krec),
		       splitlock_kmsg_record_get_level(krec), n, (unsigned)splitlock_event_get_pid(ev),
		       (unsigned long long)addr);
		splitlock_event_free(ev);
		splitlock_kmsg_record_free(krec);
		/* counters, one at a time: a stock kernel has none */
		for (int c = 0; splitlock_counter_name((enum splitlock_counter)c); c++)
			if (splitlock_kernel_counter(ctx, (enum splitlock_counter)c, &traps) != -ENOENT)
				return 23;
		printf("counters: none here\n");

		/* the open sets, walked: forms, reasons, backends */
		int forms = 0, reasons = 0, backends = 0;
		for (enum splitlock_input_format f = 0; splitlock_input_format_name(f); f++)
			forms++;
		for (enum splitlock_unread u = 0; splitlock_unread_name(u); u++)
			reasons++;
		for (const char *const *b = splitlock_boot_backends(); *b; b++)
			backends++;
		printf("sets: %d forms, %d reasons (last %s), %d backends\n", forms, reasons,
		       splitlock_unread_name((enum splitlock_unread)(reasons - 1)), backends);

		/* sysctl.d, leases, time: read-only, with cleanup helpers */
		{
			__attribute__((cleanup(splitlock_sysctld_freep))) struct splitlock_sysctld *sd = NULL;
			__attribute__((cleanup(splitlock_leases_freep))) struct splitlock_leases *ls = NULL;
			int64_t t;

			if (splitlock_sysctld_resolve(ctx, "kernel.split_lock_mitigate", &sd) < 0 ||
			    splitlock_leases_read(ctx, &ls) < 0 ||
			    splitlock_time_parse("2026-12-03 10:00:00 UTC", 0, 0, &t) < 0)
				return 24;
			printf("sysctl.d: %zu assignments, winner %s; leases: %zu; time: %lld\n",
			       splitlock_sysctld_get_count(sd), splitlock_sysctld_get_value(sd),
			       splitlock_leases_get_count(ls), (long long)(t / 1000000));
		}
		/* lifting misery: the way and its sentence on the plan */
		{
			__attribute__((cleanup(splitlock_lift_plan_freep))) struct splitlock_lift_plan *lp = NULL;

			if (splitlock_lift_plan_new(ctx, &lp) < 0)
				return 25;
			printf("lift: %s, refusal %d, reason %s\n",
			       splitlock_lift_plan_get_way(lp) == SPLITLOCK_LIFT_LEASE ? "lease" : "other",
			       splitlock_lift_plan_get_refusal(lp),
			       splitlock_lift_plan_get_reason(lp) ? "given" : "none");
		}
		printf("probe names: %s, %s\n", splitlock_probe_action_name(SPLITLOCK_PROBE_SIGBUS),
		       splitlock_probe_trap_name(SPLITLOCK_KIND_SPLIT_LOCK));

		printf("logged: %s\n", logged ? "yes" : "no");
		return splitlock_unref(ctx) == NULL ? 0 : 21;
	}
	C
	local flags
	flags=$(PKG_CONFIG_SYSROOT_DIR="$T/dest" PKG_CONFIG_PATH="$T/dest/usr/lib/pkgconfig" \
		pkg-config --cflags --libs libsplitlock) || fail "pkg-config cannot find libsplitlock"
	# Under check-asan the library is instrumented, so the program must be too.
	cc ${TEST_CFLAGS:-} -std=gnu11 -Wall -Werror -o "$T/prog" "$T/prog.c" $flags || fail "does not compile: $flags"
	copy_fixture stock-ac
	cp -a "$FIXTURES/mode/debian-grub/." "$T/root/"
	run env LD_LIBRARY_PATH="$T/dest/usr/lib" "$T/prog" "$T/root" "$FIXTURES/offenders/log.dmesg"
	expect_rc 0
	expect_out "root: given"
	expect_out "status: ac=1 6.1.0-18-amd64 mode=warn from boot-log"
	expect_out "next boot: 1 grub: /etc/default/grub, /etc/default/grub.d/*.cfg"
	expect_out "mitigate: 1, persisted 0"
	expect_out "plan: 1 -> 0, needs CAP_SYS_ADMIN"
	expect_out "applied: running 0, persisted 1"
	expect_out "persisted: 0 in /etc/sysctl.d/zz-slctl.conf"
	expect_out "boot plan: grub, 2 files, diff sets fatal"
	expect_out "offenders: dmesg, 11 events, top GoW.exe"
	expect_out "follow: GoW.exe 0x14003c2d1"
	expect_out "follow: CJobMgr::m_Work"
	expect_out "followed: 2 events"
	expect_out "follow: GoW.exe 0x14003c2d1 level 4"
	expect_out "record: seq 7 level 4, line 1, pid 42 ip 0x10"
	expect_out "counters: none here"
	expect_out "sets: 10 forms, 8 reasons (last lost), 7 backends"
	expect_out "sysctl.d: 1 assignments, winner 0; leases: 0; time: 1796292000"
	expect_out "lift: lease, refusal 0, reason none"
	expect_out "probe names: sigbus, ac"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 0 ] || fail "running value not written"
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
	[ "$(complete_words slctl mode '')" = "off warn seq fatal ratelimit: default" ] ||
		fail "mode values: $(complete_words slctl mode '')"
	complete_words slctl mode fatal --backend '' | grep -qw grubby || fail "backends"
	# After run's '--', the words are the command's: commands first.
	complete_words slctl run -- slee 2>/dev/null | grep -qw sleep || fail "run: $(complete_words slctl run -- slee 2>&1)"
}

test_completion_offers_exactly_the_library_backends() {
	# The library's list, as slctl mode --help prints it: the lines
	# between --backend's and the next option's, wrapped to 80 columns.
	local lib comp
	lib=$("$SLCTL" mode --help | sed -n '/-b, --backend NAME/,/^  *-/p' | sed '1d;$d' | tr -s ' \n' '  ' |
		sed 's/^ //; s/ (also systemd-boot)/, systemd-boot/; s/ or /, /' | tr -d ',' | tr ' ' '\n' |
		grep . | sort | tr '\n' ' ')
	comp=$(complete_words slctl mode fatal --backend '' | tr ' ' '\n' | grep -vx auto | sort | tr '\n' ' ')
	[ -n "$lib" ] || fail "no backend list in slctl mode --help"
	[ "$lib" = "$comp" ] || fail "completion offers '$comp', the library has '$lib'"
}

run_tests
