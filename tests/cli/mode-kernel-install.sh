#!/usr/bin/env bash
# slctl mode --persist with the kernel-install backend on a fake root: the
# plan, /etc/kernel/cmdline and the command it prints. The real
# kernel-install of systemd 252 (with systemd-boot, Debian's zz-systemd-boot
# hook and bootctl) runs in make check-boot (tests/boot/systemd-boot.sh).
. "$(dirname "$0")/../lib.sh"

M=0123456789abcdef0123456789abcdef
ENTRY=boot/loader/entries/$M-6.1.0-18-amd64.conf

setup() {
	copy_fixture mode/kernel-install
}

test_other_root_writes_cmdline_and_prints_kernel_install() {
	setup
	entry=$(sha256sum <"$T/root/$ENTRY")
	run "$SLCTL" --root "$T/root" mode fatal --persist
	expect_rc 0
	[ "$(cat "$T/root/etc/kernel/cmdline")" = 'root=UUID=1234 rw quiet "acpi_osi=!Windows 2012" loglevel=3 split_lock_detect=fatal' ] ||
		fail "cmdline: $(cat "$T/root/etc/kernel/cmdline")"
	expect_out "Run inside $T/root to regenerate the boot configuration:"
	expect_out "  kernel-install add 6.1.0-18-amd64 /boot/vmlinuz-6.1.0-18-amd64 /boot/initrd.img-6.1.0-18-amd64"
	[ "$(sha256sum <"$T/root/$ENTRY")" = "$entry" ] || fail "the entry changed without kernel-install"
}

test_dry_run_lists_kernel_install_with_initrd() {
	setup
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" mode warn --persist --dry-run --backend systemd-boot
	expect_rc 0
	expect_out "kernel-install add 6.1.0-18-amd64 /boot/vmlinuz-6.1.0-18-amd64 /boot/initrd.img-6.1.0-18-amd64"
	expect_unchanged "$T/before"
}

test_fallback_to_usr_lib_cmdline() {
	setup
	mkdir -p "$T/root/usr/lib/kernel"
	mv "$T/root/etc/kernel/cmdline" "$T/root/usr/lib/kernel/cmdline"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot_source "kernel-install: /usr/lib/kernel/cmdline"
	run "$SLCTL" --root "$T/root" mode fatal --persist --dry-run
	expect_out "--- /dev/null"
	expect_out '+root=UUID=1234 rw quiet "acpi_osi=!Windows 2012" loglevel=3 split_lock_detect=fatal'
}

run_tests
