#!/usr/bin/env bash
# slctl mode --persist with the kernel-install backend, running the REAL
# kernel-install of systemd (252 on Debian 12) inside the fake root: it
# honours KERNEL_INSTALL_CONF_ROOT, BOOT_ROOT and MACHINE_ID (set by slctl
# for a --root), and KERNEL_INSTALL_PLUGINS limits it to the BLS entry
# plugin. No stubs.
. "$(dirname "$0")/../lib.sh"

M=0123456789abcdef0123456789abcdef
ENTRY=boot/loader/entries/$M-6.1.0-18-amd64.conf
OTHER=boot/loader/entries/fedcba9876543210fedcba9876543210-6.6.0-1-amd64.conf

setup() {
	command -v kernel-install >/dev/null || fail "kernel-install (systemd) is not installed"
	copy_fixture mode/kernel-install
	export SLCTL_RUN_TOOLS=1
	export KERNEL_INSTALL_PLUGINS=/usr/lib/kernel/install.d/90-loaderentry.install
}

options() {
	sed -n 's/^options *//p' "$T/root/$ENTRY"
}

test_set_change_remove_with_real_kernel_install() {
	setup
	other=$(sha256sum <"$T/root/$OTHER")
	run "$SLCTL" --root "$T/root" mode fatal --persist
	expect_rc 0
	[ "$(options)" = "root=UUID=1234 rw quiet \"acpi_osi=!Windows 2012\" loglevel=3 split_lock_detect=fatal systemd.machine_id=$M" ] ||
		fail "entry options: $(options)"
	grep -q '^initrd .*initrd.img-6.1.0-18-amd64' "$T/root/$ENTRY" || fail "entry lost its initrd"
	[ "$(cat "$T/root/etc/kernel/cmdline")" = 'root=UUID=1234 rw quiet "acpi_osi=!Windows 2012" loglevel=3 split_lock_detect=fatal' ] ||
		fail "cmdline: $(cat "$T/root/etc/kernel/cmdline")"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mode.next_boot fatal
	expect_json .mode.next_boot_source "kernel-install: /etc/kernel/cmdline"

	run "$SLCTL" --root "$T/root" mode off --persist
	expect_rc 0
	[ "$(sld_tokens "$(options)")" = "split_lock_detect=off" ] || fail "entry options: $(options)"

	run "$SLCTL" --root "$T/root" mode default --persist
	expect_rc 0
	[ "$(options)" = "root=UUID=1234 rw quiet \"acpi_osi=!Windows 2012\" loglevel=3 systemd.machine_id=$M" ] ||
		fail "entry options: $(options)"
	run "$SLCTL" --root "$T/root" --json mode
	expect_json .next_boot default
	[ "$(sha256sum <"$T/root/$OTHER")" = "$other" ] || fail "another machine's entry was touched"
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
