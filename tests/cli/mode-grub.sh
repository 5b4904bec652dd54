#!/usr/bin/env bash
# slctl mode --persist with the grub backend on fake Debian and Arch roots.
# update-grub and grub-mkconfig are STUBS (tests/stubs/) that source the
# defaults as grub-mkconfig does and write grub.cfg; nothing else is faked.
. "$(dirname "$0")/../lib.sh"

# The normal entry's kernel command line in the generated grub.cfg.
normal_linux() {
	grep -m1 '^	linux' "$T/root/boot/grub/grub.cfg" | sed 's/^	linux //'
}

# What grub-mkconfig would get: the files sourced by sh, as it does.
sh_cmdline() {
	sh -c '. "$1/etc/default/grub"; for x in "$1"/etc/default/grub.d/*.cfg; do
		if [ -e "$x" ]; then . "$x"; fi; done
		echo "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT"' sh "$T/root"
}

test_debian_set_change_remove() {
	copy_fixture mode/debian-grub
	stub_env
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	expect_out "Next boot: warn (set through grub)"
	[ -f "$T/root/etc/default/grub.d/zz-slctl.cfg" ] || fail "no drop-in"
	[ "$(normal_linux)" = "/vmlinuz root=UUID=1234 ro console=ttyS0,115200n8 net.ifnames=0 console=tty1 console=ttyS0 crashkernel=384M-:128M split_lock_detect=warn" ] ||
		fail "grub.cfg: $(normal_linux)"
	cmp -s "$T/root/etc/default/grub.slctl-backup" "$FIXTURES/mode/debian-grub/etc/default/grub" ||
		fail "no backup of the edited /etc/default/grub"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mode.next_boot warn

	run "$SLCTL" --root "$T/root" mode ratelimit:10 --persist --run-tools
	expect_rc 0
	[ "$(sld_tokens "$(normal_linux)")" = "split_lock_detect=ratelimit:10" ] || fail "$(normal_linux)"
	[ "$(sld_tokens "$(sh_cmdline)")" = "split_lock_detect=ratelimit:10" ] || fail "sh: $(sh_cmdline)"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot ratelimit:10

	run "$SLCTL" --root "$T/root" mode default --persist --run-tools
	expect_rc 0
	[ ! -e "$T/root/etc/default/grub.d/zz-slctl.cfg" ] || fail "drop-in left behind"
	[ -z "$(sld_tokens "$(normal_linux)")" ] || fail "token left: $(normal_linux)"
	[ "$(normal_linux)" = "/vmlinuz root=UUID=1234 ro console=ttyS0,115200n8 net.ifnames=0 console=tty1 console=ttyS0 crashkernel=384M-:128M" ] ||
		fail "grub.cfg: $(normal_linux)"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mode.next_boot default
	[ "$(grep -c '^update-grub' "$STUB_LOG")" -eq 3 ] || fail "update-grub runs: $(cat "$STUB_LOG")"
}

test_debian_reader_agrees_with_sh() {
	copy_fixture mode/debian-grub
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot fatal
	[ "$(sld_tokens "$(sh_cmdline)")" = "split_lock_detect=fatal" ] || fail "sh: $(sh_cmdline)"
	run "$SLCTL" --root "$T/root" mode seq --persist
	expect_rc 0
	expect_err "needs the patched kernel"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot seq
	[ "$(sld_tokens "$(sh_cmdline)")" = "split_lock_detect=seq" ] || fail "sh: $(sh_cmdline)"
}

test_arch_in_place() {
	copy_fixture mode/arch-grub
	stub_env
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 0
	grep -qx 'GRUB_CMDLINE_LINUX="split_lock_detect=fatal"' "$T/root/etc/default/grub" ||
		fail "$(cat "$T/root/etc/default/grub")"
	grep -qx "grub-mkconfig -o /boot/grub/grub.cfg" "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	[ "$(normal_linux)" = "/vmlinuz root=UUID=1234 ro split_lock_detect=fatal loglevel=3 quiet" ] ||
		fail "grub.cfg: $(normal_linux)"
	run "$SLCTL" --root "$T/root" mode off --persist --run-tools
	expect_rc 0
	grep -qx 'GRUB_CMDLINE_LINUX="split_lock_detect=off"' "$T/root/etc/default/grub" ||
		fail "$(cat "$T/root/etc/default/grub")"
	run "$SLCTL" --root "$T/root" mode default --persist --run-tools
	expect_rc 0
	grep -qx 'GRUB_CMDLINE_LINUX=""' "$T/root/etc/default/grub" || fail "$(cat "$T/root/etc/default/grub")"
	diff -u "$FIXTURES/mode/arch-grub/etc/default/grub" "$T/root/etc/default/grub" >&2 ||
		fail "removing did not give the original file back"
}

test_dry_run_changes_nothing() {
	copy_fixture mode/debian-grub
	stub_env
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools --dry-run
	expect_rc 0
	expect_out "+++ b/etc/default/grub.d/zz-slctl.cfg"
	expect_out '-GRUB_CMDLINE_LINUX="console=ttyS0,115200n8 split_lock_detect=fatal net.ifnames=0"'
	expect_out "Would run:"
	expect_out "  update-grub"
	expect_unchanged "$T/before"
	[ ! -s "$STUB_LOG" ] || fail "a tool ran: $(cat "$STUB_LOG")"
	run "$SLCTL" --root "$T/root" --json mode warn --persist --run-tools --dry-run
	expect_json '.commands[0][0]' update-grub
	expect_json '.files | length' 2
	expect_unchanged "$T/before"
}

# Upstream grub-mkconfig (Arch; Fedora's grub2-mkconfig too) sources only
# /etc/default/grub: a drop-in in grub.d decides nothing there, so slctl
# neither reads it as the next boot nor edits it.
test_grub_d_is_read_only_where_grub_mkconfig_sources_it() {
	copy_fixture mode/arch-grub
	stub_env
	mkdir -p "$T/root/etc/default/grub.d"
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT split_lock_detect=off"' \
		>"$T/root/etc/default/grub.d/50-oldgame.cfg"
	cp "$T/root/etc/default/grub.d/50-oldgame.cfg" "$T/dropin"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot default
	expect_json .next_boot_source "grub: /etc/default/grub"
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	cmp -s "$T/dropin" "$T/root/etc/default/grub.d/50-oldgame.cfg" || fail "a drop-in grub ignores was edited"
	[ "$(sld_tokens "$(normal_linux)")" = split_lock_detect=warn ] || fail "grub.cfg: $(normal_linux)"
}

# canary_path: a directory first on PATH whose update-grub, grub-mkconfig
# and kernel-install only leave $T/ran-on-host behind: any of them running
# means a --root run reached the running system's tools.
canary_path() {
	mkdir -p "$T/host-bin"
	for t in update-grub grub-mkconfig kernel-install; do
		printf '#!/bin/sh\necho "$0 $*" >>"%s"\n' "$T/ran-on-host" >"$T/host-bin/$t"
		chmod +x "$T/host-bin/$t"
	done
	export PATH="$T/host-bin:$PATH"
}

# Before: SLCTL_RUN_TOOLS=1 ran the update-grub found on this machine's
# PATH with --root; no variable may do that.
test_no_environment_variable_runs_the_running_systems_tools() {
	copy_fixture mode/debian-grub
	stub_env
	canary_path
	SLCTL_RUN_TOOLS=1 run "$SLCTL" --root "$T/root" mode warn --persist
	expect_rc 0
	[ ! -e "$T/ran-on-host" ] || fail "ran on the running system: $(cat "$T/ran-on-host")"
	[ ! -s "$STUB_LOG" ] || fail "a tool ran: $(cat "$STUB_LOG")"
	expect_out "Run inside $T/root to regenerate the boot configuration:"
}

test_run_tools_runs_the_roots_own_tool_inside_it() {
	copy_fixture mode/debian-grub
	stub_env
	canary_path
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	[ ! -e "$T/ran-on-host" ] || fail "ran on the running system: $(cat "$T/ran-on-host")"
	grep -qx 'update-grub ' "$STUB_LOG" || fail "the root's update-grub did not run: $(cat "$STUB_LOG")"
	grep -q 'split_lock_detect=warn' "$T/root/boot/grub/grub.cfg" || fail "grub.cfg not generated inside the root"
}

test_other_root_prints_commands() {
	copy_fixture mode/debian-grub
	stub_env
	run "$SLCTL" --root "$T/root" mode warn --persist
	expect_rc 0
	expect_out "Run inside $T/root to regenerate the boot configuration:"
	expect_out "  update-grub"
	[ ! -s "$STUB_LOG" ] || fail "a tool ran: $(cat "$STUB_LOG")"
	grep -q 'split_lock_detect=warn' "$T/root/etc/default/grub.d/zz-slctl.cfg" || fail "drop-in not written"
}

run_tests
