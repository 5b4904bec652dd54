#!/usr/bin/env bash
# slctl mode --persist through grubby, rpm-ostree, kernelstub, mkinitcpio
# and rEFInd on fake roots. grubby, rpm-ostree, kernelstub and mkinitcpio are
# STUBS (tests/stubs/): they record their arguments and edit the fake root the
# way the real tools edit theirs. rEFInd needs no tool.
. "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

test_grubby_fedora() {
	copy_fixture mode/fedora-bls
	stub_env
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	grep -qx 'grubby --update-kernel=ALL --args=split_lock_detect=warn' "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	# The result is confirmed with grubby's own view of the entries.
	grep -qx 'grubby --info=ALL' "$STUB_LOG" || fail "not verified with --info=ALL: $(cat "$STUB_LOG")"
	for f in "$T/root"/boot/loader/entries/*.conf; do
		grep -qx 'options root=UUID=abcd ro rootflags=subvol=root rhgb quiet split_lock_detect=warn' "$f" ||
			fail "$f: $(grep options "$f")"
	done
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 0
	grep -qx 'grubby --update-kernel=ALL --remove-args=split_lock_detect' "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot fatal
	run "$SLCTL" --root "$T/root" mode default --persist --run-tools
	expect_rc 0
	! grep -q split_lock_detect "$T/root"/boot/loader/entries/*.conf || fail "token left"
}

test_grubby_failure_restores_entries() {
	copy_fixture mode/fedora-bls
	stub_env
	tree_hash "$T/root" >"$T/before"
	STUB_FAIL=grubby run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_unchanged "$T/before"
}

test_grubby_info_disagreeing_restores_entries() {
	copy_fixture mode/fedora-bls
	stub_env
	tree_hash "$T/root" >"$T/before"
	STUB_INFO_STALE=1 run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_err "grubby --info=ALL shows a kernel without split_lock_detect=warn"
	expect_unchanged "$T/before"
}

# A quoted option with a space inside: grubby --info=ALL prints it as
# written (args="... "acpi_osi=!Windows 2012" ..."), and grubby also edits
# /etc/default/grub and /etc/kernel/cmdline.
test_grubby_quoted_option() {
	copy_fixture mode/fedora-bls
	stub_env
	sed -i 's/^options .*/& "acpi_osi=!Windows 2012"/' "$T/root"/boot/loader/entries/*.conf
	mkdir -p "$T/root/etc/kernel"
	echo 'root=UUID=abcd ro quiet' >"$T/root/etc/kernel/cmdline"
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	grep -q '"acpi_osi=!Windows 2012" split_lock_detect=warn$' \
		"$T/root/boot/loader/entries/0123456789abcdef0123456789abcdef-6.8.9-300.fc40.x86_64.conf" ||
		fail "entry: $(grep options "$T"/root/boot/loader/entries/*.conf)"
	grep -qx 'GRUB_CMDLINE_LINUX="rhgb quiet split_lock_detect=warn"' "$T/root/etc/default/grub" ||
		fail "grub: $(cat "$T/root/etc/default/grub")"
}

# grubby's view disagrees after it edited every file it edits: all of
# them are put back, not only the entries.
test_grubby_failure_restores_every_file_it_edits() {
	copy_fixture mode/fedora-bls
	stub_env
	mkdir -p "$T/root/etc/kernel" "$T/root/boot/grub2"
	echo 'root=UUID=abcd ro quiet' >"$T/root/etc/kernel/cmdline"
	printf '# GRUB Environment Block\nkernelopts=root=UUID=abcd ro quiet\n' >"$T/root/boot/grub2/grubenv"
	tree_hash "$T/root" >"$T/before"
	STUB_INFO_STALE=1 run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 1
	expect_err "the previous configuration was restored"
	expect_unchanged "$T/before"
}

test_rpm_ostree_waits_for_idle() {
	copy_fixture mode/silverblue
	stub_env
	export STUB_BUSY=/run/busy
	echo 1 >"$T/root/run/busy"
	run "$SLCTL" --root "$T/root" mode ratelimit:100 --persist --run-tools
	expect_rc 0
	[ "$(grep -c '^rpm-ostree status' "$STUB_LOG")" -eq 2 ] || fail "did not wait: $(cat "$STUB_LOG")"
	grep -qx 'rpm-ostree kargs --append-if-missing=split_lock_detect=ratelimit:100' "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	run "$SLCTL" --root "$T/root" mode off --persist --run-tools
	expect_rc 0
	grep -qx 'rpm-ostree kargs --replace=split_lock_detect=off' "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot off
	run "$SLCTL" --root "$T/root" mode default --persist --run-tools
	expect_rc 0
	grep -qx 'rpm-ostree kargs --delete-if-present=split_lock_detect=off' "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	grep -q '^options rhgb quiet root=UUID=abcd rootflags=subvol=root rw ostree=/ostree/boot.1/fedora/abc/0$' \
		"$T/root/boot/loader/entries/ostree-2-fedora.conf" || fail "other arguments changed"
}

# Two words, one of them the new one: with --delete-if-present for both and
# --append-if-missing in one call, the daemon appends first (a no-op) and
# then deletes both, leaving none.
test_rpm_ostree_deletes_before_it_appends() {
	copy_fixture mode/silverblue
	stub_env
	sed -i 's/^options .*/& split_lock_detect=off split_lock_detect=warn/' \
		"$T/root/boot/loader/entries/ostree-2-fedora.conf"
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	[ "$(sld_tokens "$(sed -n 's/^options //p' "$T/root/boot/loader/entries/ostree-2-fedora.conf")")" = \
	  split_lock_detect=warn ] || fail "entry: $(grep options "$T/root/boot/loader/entries/ostree-2-fedora.conf")"
}

test_kernelstub_popos() {
	copy_fixture mode/popos-kernelstub
	stub_env
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 0
	grep -qx 'kernelstub -o quiet loglevel=0 systemd.show_status=false splash split_lock_detect=fatal' "$STUB_LOG" ||
		fail "$(cat "$STUB_LOG")"
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	# The order of the user's options is kept (kernelstub -d would sort them).
	[ "$(jq -r '.user.kernel_options | join(" ")' "$T/root/etc/kernelstub/configuration")" = \
	  "quiet loglevel=0 systemd.show_status=false splash split_lock_detect=warn" ] ||
		fail "options: $(jq -c .user.kernel_options "$T/root/etc/kernelstub/configuration")"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mode.next_boot warn
	run "$SLCTL" --root "$T/root" mode default --persist --run-tools
	expect_rc 0
	[ "$(jq -r '.user.kernel_options | join(" ")' "$T/root/etc/kernelstub/configuration")" = \
	  "quiet loglevel=0 systemd.show_status=false splash" ] || fail "options after removal"
}

test_mkinitcpio_uki() {
	copy_fixture mode/arch-uki
	stub_env
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	grep -qx 'mkinitcpio -P' "$STUB_LOG" || fail "$(cat "$STUB_LOG")"
	[ "$(cat "$T/root/etc/cmdline.d/slctl.conf")" = split_lock_detect=warn ] || fail "slctl.conf"
	[ "$(cat "$T/root/etc/cmdline.d/zz-tuning.conf")" = "quiet bgrt_disable" ] || fail "old token kept"
	[ "$(cat "$T/root/efi/EFI/Linux/arch-linux.efi")" = "cmdline: root=UUID=abcd rw split_lock_detect=warn quiet bgrt_disable" ] ||
		fail "UKI: $(cat "$T/root/efi/EFI/Linux/arch-linux.efi")"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot warn
	run "$SLCTL" --root "$T/root" mode default --persist --run-tools
	expect_rc 0
	[ ! -e "$T/root/etc/cmdline.d/slctl.conf" ] || fail "slctl.conf left"
}

# mkinitcpio >= 37.3 appends every /etc/cmdline.d/*.conf to
# /etc/kernel/cmdline, and comment lines do not count: before, slctl edited
# /etc/kernel/cmdline alone and the UKI ended in split_lock_detect=off.
test_mkinitcpio_reads_every_source_and_skips_comments() {
	copy_fixture mode/arch-uki
	stub_env
	mkdir -p "$T/root/etc/kernel"
	printf '%s\n' 'root=UUID=abcd rw' '# split_lock_detect=off was for the old game' >"$T/root/etc/kernel/cmdline"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot off
	run "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	expect_rc 0
	[ "$(cat "$T/root/efi/EFI/Linux/arch-linux.efi")" = "cmdline: root=UUID=abcd rw split_lock_detect=warn root=UUID=abcd rw quiet bgrt_disable" ] ||
		fail "UKI: $(cat "$T/root/efi/EFI/Linux/arch-linux.efi")"
	grep -qx '# split_lock_detect=off was for the old game' "$T/root/etc/kernel/cmdline" || fail "the comment changed"
	[ ! -e "$T/root/etc/cmdline.d/slctl.conf" ] || fail "slctl.conf written beside /etc/kernel/cmdline"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot warn
}

# A preset's PRESET_cmdline= file is that image's whole command line.
test_mkinitcpio_preset_cmdline_file() {
	copy_fixture mode/arch-uki
	stub_env
	mkdir -p "$T/root/etc/kernel"
	echo 'root=UUID=abcd rw split_lock_detect=off' >"$T/root/etc/kernel/cmdline-fallback"
	echo 'fallback_cmdline="/etc/kernel/cmdline-fallback"' >>"$T/root/etc/mkinitcpio.d/linux.preset"
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 0
	[ "$(cat "$T/root/efi/EFI/Linux/arch-linux-fallback.efi")" = "cmdline: root=UUID=abcd rw split_lock_detect=fatal" ] ||
		fail "fallback UKI: $(cat "$T/root/efi/EFI/Linux/arch-linux-fallback.efi")"
}

test_refind() {
	copy_fixture mode/refind
	run "$SLCTL" --root "$T/root" mode seq --persist
	expect_rc 0
	grep -qx '"Boot with standard options"  "root=UUID=abcd rw quiet splash split_lock_detect=seq"' \
		"$T/root/boot/refind_linux.conf" || fail "$(cat "$T/root/boot/refind_linux.conf")"
	run "$SLCTL" --root "$T/root" mode default --persist
	expect_rc 0
	diff -u "$FIXTURES/mode/refind/boot/refind_linux.conf" "$T/root/boot/refind_linux.conf" >&2 || fail "not restored"
}

run_tests
