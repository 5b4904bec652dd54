#!/usr/bin/env bash
# slctl mode MODE --now: the patched kernel's writable
# /sys/kernel/split_lock/mode (tests/fixtures/patched-runctl), a patched
# kernel without run-time control (the same file read-only), a stock kernel
# and seq mode. The fake roots' mode file stands for the kernel's: written,
# then read back.
. "$(dirname "$0")/../lib.sh"

# test_not_root_... runs slctl as nobody on a tree in $T: a package build's
# TMPDIR may be private (libpam-tmpdir's /tmp/user/0 is 0700), /tmp is not.
for d in "${TMPDIR:-/tmp}" /tmp; do
	setpriv --reuid=nobody --regid=65534 --clear-groups test -x "$d" 2>/dev/null && { export TMPDIR=$d; break; }
done

MODE_FILE=sys/kernel/split_lock/mode

test_patched_kernel_switches_and_reads_back() {
	require_root "CAP_SYS_ADMIN to switch the mode"
	copy_fixture patched-runctl
	run "$SLCTL" --root "$T/root" mode fatal --now
	expect_rc 0
	expect_out "Split-lock detection runs in fatal mode now (it was warn)."
	[ "$(cat "$T/root/$MODE_FILE")" = fatal ] || fail "mode file: $(cat "$T/root/$MODE_FILE")"
	[ "$(stat -c %a "$T/root/$MODE_FILE")" = 644 ] || fail "mode file lost its mode"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mode.current fatal
	expect_json .mode.source sysfs
	expect_json .kernel.interfaces.mode_writable true
	expect_json .kernel.interfaces.misery_exempt true
}

test_json_reports_before_and_after() {
	require_root "CAP_SYS_ADMIN to switch the mode"
	copy_fixture patched-runctl
	run "$SLCTL" --root "$T/root" --json mode ratelimit:20 --now
	expect_rc 0
	expect_json .before warn
	expect_json .after ratelimit:20
	expect_json .requested ratelimit:20
	expect_json .dry_run false
	expect_json .persist null
	[ "$(cat "$T/root/$MODE_FILE")" = ratelimit:20 ] || fail "mode file: $(cat "$T/root/$MODE_FILE")"
}

test_dry_run_changes_nothing() {
	copy_fixture patched-runctl
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" mode off --now --dry-run
	expect_rc 0
	expect_out "Would switch the running kernel from warn to off."
	run "$SLCTL" --root "$T/root" --json mode off --now --dry-run
	expect_json .after warn
	expect_unchanged "$T/before"
}

test_stock_kernel_exits_4_with_the_way_that_works() {
	copy_fixture stock-ac
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" mode fatal --now
	expect_rc 4
	expect_one_sentence
	expect_err "cannot switch the split-lock detection mode at run time"
	expect_err "'slctl mode fatal --persist', then reboot."
	run "$SLCTL" --root "$T/root" --json mode fatal --now --persist
	expect_rc 4
	[ -z "$out" ] || fail "a refusal printed a document: $out"
	expect_err "leave out --now"
	expect_unchanged "$T/before"
}

test_read_only_mode_file_is_a_kernel_without_run_time_control() {
	copy_fixture patched-runctl
	chmod 0444 "$T/root/$MODE_FILE"
	tree_hash "$T/root" >"$T/before"
	# Root could write the file anyway: the mode bits decide, as sysfs sets them.
	run "$SLCTL" --root "$T/root" mode fatal --now
	expect_rc 4
	expect_one_sentence
	expect_err "is read-only"
	expect_unchanged "$T/before"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .kernel.interfaces.mode_writable false
}

test_seq_mode_is_never_left() {
	require_root "CAP_SYS_ADMIN to switch the mode"
	copy_fixture patched-seq
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" mode warn --now
	expect_rc 1
	expect_one_sentence
	expect_err "seq mode, which cannot be left at run time"
	run "$SLCTL" --root "$T/root" --json mode off --now --dry-run
	expect_rc 1
	[ -z "$out" ] || fail "a refusal printed a document: $out"
	expect_unchanged "$T/before"
	# Staying in seq is no refusal.
	run "$SLCTL" --root "$T/root" mode seq --now
	expect_rc 0
}

test_not_root_exits_3_and_changes_nothing() {
	require_root "setpriv to become another user"
	copy_fixture patched-runctl
	chmod 755 "$T"
	chmod -R a+rX "$T/root"
	tree_hash "$T/root" >"$T/before"
	run setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$SLCTL" --root "$T/root" mode fatal --now
	expect_rc 3
	expect_one_sentence
	expect_err "CAP_SYS_ADMIN"
	expect_unchanged "$T/before"
	# A dry run needs no privilege.
	run setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all \
		"$SLCTL" --root "$T/root" mode fatal --now --dry-run
	expect_rc 0
}

test_now_and_persist_switch_both() {
	require_root "CAP_SYS_ADMIN to switch the mode"
	copy_fixture mode/debian-grub
	mkdir -p "$T/root/sys/kernel/split_lock"
	echo warn >"$T/root/$MODE_FILE"
	chmod 0644 "$T/root/$MODE_FILE"
	run "$SLCTL" --root "$T/root" --json mode fatal --now --persist
	expect_rc 0
	expect_json .before warn
	expect_json .after fatal
	expect_json .persist.backend grub
	expect_json .persist.next_boot fatal
	expect_json .persist.commands_run false
	[ "$(cat "$T/root/$MODE_FILE")" = fatal ] || fail "running mode not switched"
	grep -q 'split_lock_detect=fatal' "$T/root/etc/default/grub.d/zz-slctl.cfg" ||
		fail "boot parameter not written"
}

test_usage_errors() {
	copy_fixture patched-runctl
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" mode default --now
	expect_rc 2
	run "$SLCTL" --root "$T/root" mode bogus --now
	expect_rc 2
	expect_err "is not a mode"
	run "$SLCTL" --root "$T/root" mode --now
	expect_rc 2
	run "$SLCTL" --root "$T/root" mode warn --now --backend grub
	expect_rc 2
	expect_err "add --persist"
	run "$SLCTL" --root "$T/root" mode warn
	expect_rc 2
	expect_err "--now"
	expect_unchanged "$T/before"
}

run_tests
