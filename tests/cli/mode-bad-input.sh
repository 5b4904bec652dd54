#!/usr/bin/env bash
# Bad input for slctl mode: each case exits non-zero with one sentence and
# leaves every file under the root byte-identical. update-grub is a STUB
# (tests/stubs/); kernel-install is the real one.
. "$(dirname "$0")/../lib.sh"

snapshot() {
	tree_hash "$T/root" >"$T/before"
}

test_every_invalid_mode() {
	copy_fixture mode/debian-grub
	stub_env
	snapshot
	for m in "" bogus WARN " warn" "warn " ratelimit ratelimit: ratelimit:0 ratelimit:1001 \
		 ratelimit:-5 ratelimit:5x ratelimit:05a "ratelimit: 5" fatal,warn off=1 \
		 split_lock_detect=warn seq2 defaults; do
		run "$SLCTL" --root "$T/root" mode "$m" --persist --run-tools
		expect_rc 2
		expect_err "is not a mode"
		expect_unchanged "$T/before"
	done
	[ ! -s "$STUB_LOG" ] || fail "a tool ran: $(cat "$STUB_LOG")"
}

test_mode_without_persist_is_usage_error() {
	copy_fixture mode/debian-grub
	snapshot
	run "$SLCTL" --root "$T/root" mode warn
	expect_rc 2
	expect_err "only at boot"
	expect_err "--persist"
	expect_unchanged "$T/before"
}

test_unknown_backend_is_usage_error() {
	copy_fixture mode/debian-grub
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist --backend lilo
	expect_rc 2
	expect_unchanged "$T/before"
}

test_grub_unbalanced_quotes() {
	copy_fixture mode/debian-grub
	stub_env
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash' >"$T/root/etc/default/grub.d/60-broken.cfg"
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_err "60-broken.cfg line 1: unbalanced \" quote"
	expect_one_sentence
	expect_unchanged "$T/before"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mode.next_boot null
}

test_grub_multi_line_value() {
	copy_fixture mode/debian-grub
	stub_env
	printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet\n  splash"\n' >"$T/root/etc/default/grub.d/60-multi.cfg"
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_err "spans several lines"
	expect_one_sentence
	expect_unchanged "$T/before"
}

test_grub_variable_it_cannot_evaluate() {
	copy_fixture mode/debian-grub
	stub_env
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT $EXTRA_ARGS"' >"$T/root/etc/default/grub.d/60-var.cfg"
	snapshot
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 1
	expect_err 'uses $EXTRA_ARGS, which this library cannot evaluate'
	expect_one_sentence
	expect_unchanged "$T/before"
}

test_grub_later_dropin_overrides() {
	copy_fixture mode/debian-grub
	stub_env
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$T/root/etc/default/grub.d/zzz-late.cfg"
	snapshot
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 1
	expect_err "a file sourced later assigns"
	expect_one_sentence
	expect_unchanged "$T/before"
}

test_grub_failing_regeneration_restores() {
	copy_fixture mode/debian-grub
	stub_env
	snapshot
	STUB_FAIL=update-grub run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_err "'update-grub' failed with exit status 1; the previous configuration was restored."
	grep -q 'simulated failure' <<<"$err" || fail "the tool's own message is missing"
	expect_unchanged "$T/before"
}

test_symlinked_kernel_cmdline() {
	copy_fixture mode/kernel-install
	mv "$T/root/etc/kernel/cmdline" "$T/root/etc/kernel/cmdline.real"
	ln -s cmdline.real "$T/root/etc/kernel/cmdline"
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist
	expect_rc 1
	expect_err "/etc/kernel/cmdline is a symbolic link"
	expect_one_sentence
	expect_unchanged "$T/before"
}

# Found by fuzz-cmdline-edit: the new word landed inside the open quote.
test_unbalanced_quote_in_kernel_cmdline() {
	copy_fixture mode/kernel-install
	printf 'root=/dev/sda1 rw quiet acpi_osi="Windows 2020\n' >"$T/root/etc/kernel/cmdline"
	snapshot
	run "$SLCTL" --root "$T/root" mode fatal --persist
	expect_rc 1
	expect_err "unbalanced double quote"
	expect_one_sentence
	expect_unchanged "$T/before"
}

test_refind_line_without_options_field() {
	copy_fixture mode/refind
	printf '"Boot only title"\n' >>"$T/root/boot/refind_linux.conf"
	snapshot
	run "$SLCTL" --root "$T/root" mode fatal --persist --backend refind
	expect_rc 1
	expect_err 'line 4 is not a "TITLE" "OPTIONS" line'
	expect_one_sentence
	expect_unchanged "$T/before"
}

# The root has no kernel-install of its own: --run-tools fails rather than
# run the running system's, and everything is put back.
test_kernel_install_missing_in_the_root_restores() {
	copy_fixture mode/kernel-install
	stub_env
	snapshot
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 1
	expect_err "cannot run 'kernel-install': No such file or directory"
	expect_err "the previous configuration was restored."
	expect_unchanged "$T/before"
}

test_bls_kernelopts() {
	copy_fixture mode/fedora-bls
	stub_env
	sed -i 's/^options .*/options $kernelopts/' "$T/root"/boot/loader/entries/*.conf
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_err 'takes its options from a variable ($kernelopts)'
	expect_one_sentence
	expect_unchanged "$T/before"
	[ ! -s "$STUB_LOG" ] || fail "grubby ran: $(cat "$STUB_LOG")"
	copy_fixture mode/kernel-install
	sed -i 's/^options .*/options $kernelopts/' "$T/root/boot/loader/entries/$(ls "$T/root/boot/loader/entries" | head -1)"
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools --backend kernel-install
	expect_rc 1
	expect_err '$kernelopts'
	expect_unchanged "$T/before"
}

test_ambiguous_backends_refused() {
	copy_fixture mode/debian-grub
	cp "$FIXTURES/mode/refind/boot/refind_linux.conf" "$T/root/boot/" 2>/dev/null ||
		{ mkdir -p "$T/root/boot" && cp "$FIXTURES/mode/refind/boot/refind_linux.conf" "$T/root/boot/"; }
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist
	expect_rc 4
	expect_err "grub and refind"
	expect_err "cannot tell which one boots it; choose one with --backend."
	expect_unchanged "$T/before"
}

test_no_backend_prints_manual_steps() {
	copy_fixture mode/refind
	rm "$T/root/boot/refind_linux.conf"
	snapshot
	run "$SLCTL" --root "$T/root" mode warn --persist
	expect_rc 4
	expect_err "no supported bootloader configuration was found"
	expect_err "To set the parameter by hand"
	expect_unchanged "$T/before"
}

test_missing_privilege_on_real_root() {
	require_root "capsh to drop one capability"
	require_cmd capsh "libcap2-bin"
	# Dropped from the bounding set: slctl must stop before reading or
	# writing anything of the real system.
	run capsh --drop=cap_sys_admin -- -c "\"$SLCTL\" mode warn --persist"
	expect_rc 3
	expect_err "needs CAP_SYS_ADMIN"
}

run_tests
