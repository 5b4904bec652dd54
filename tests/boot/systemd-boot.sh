#!/usr/bin/env bash
# slctl mode --persist on Debian 12 with systemd-boot: systemd 252's
# kernel-install and bootctl, Debian's zz-systemd-boot kernel hook, an ESP
# on tmpfs at /boot/efi (SYSTEMD_RELAX_ESP_CHECKS=1: tmpfs is not vfat).
# Asserts on the loader entries kernel-install wrote.
. "$(dirname "$0")/lib.sh"

M=0123456789abcdef0123456789abcdef
V=6.1.0-28-amd64
ENTRY=

# An installed system: systemd-boot in the ESP (bootctl install), a kernel
# whose entry the zz-systemd-boot hook made, as apt installing
# linux-image-$V runs it, from the /etc/kernel/cmdline the admin wrote.
setup() {
	boot_root sdboot systemd systemd-boot
	ROOT_ENV="SYSTEMD_RELAX_ESP_CHECKS=1"
	mkdir -p "$T/root/boot/efi"
	mount -t tmpfs -o size=64m esp "$T/root/boot/efi" || fail "cannot mount the ESP"
	in_root bootctl install --no-variables --esp-path=/boot/efi
	expect_rc 0
	boot_kernel "$V"
	printf '%s\n' 'root=UUID=5d2f4e7a ro quiet "acpi_osi=!Windows 2012"' >"$T/root/etc/kernel/cmdline"
	in_root /etc/kernel/postinst.d/zz-systemd-boot "$V" "/boot/vmlinuz-$V"
	expect_rc 0
	ENTRY=$T/root/boot/efi/loader/entries/$M-$V.conf
	[ -f "$ENTRY" ] || fail "zz-systemd-boot wrote no entry: $(find "$T/root/boot/efi" -name '*.conf')"
}

options() {
	sed -n 's/^options *//p' "$ENTRY"
}

test_kernel_install_rewrites_the_entry() {
	setup
	in_root slctl mode fatal --persist
	expect_rc 0
	[ "$(options)" = "root=UUID=5d2f4e7a ro quiet \"acpi_osi=!Windows 2012\" split_lock_detect=fatal systemd.machine_id=$M" ] ||
		fail "entry options: $(options)"
	grep -q "^initrd .*/initrd.img-$V$" "$ENTRY" || fail "the entry lost its initrd: $(cat "$ENTRY")"
	in_root slctl --json status
	expect_json .mode.next_boot fatal

	in_root slctl mode off --persist
	expect_rc 0
	[ "$(sld_tokens "$(options)")" = split_lock_detect=off ] || fail "entry options: $(options)"

	in_root slctl mode default --persist
	expect_rc 0
	[ "$(options)" = "root=UUID=5d2f4e7a ro quiet \"acpi_osi=!Windows 2012\" systemd.machine_id=$M" ] ||
		fail "entry options: $(options)"
	[ "$(cat "$T/root/etc/kernel/cmdline")" = 'root=UUID=5d2f4e7a ro quiet "acpi_osi=!Windows 2012"' ] ||
		fail "cmdline: $(cat "$T/root/etc/kernel/cmdline")"
	in_root slctl --json mode
	expect_json .next_boot default
}

# The next kernel the distribution installs gets the word too: the hook
# builds its entry from /etc/kernel/cmdline, which slctl changed.
test_a_kernel_installed_later_gets_the_word() {
	setup
	in_root slctl mode warn --persist
	expect_rc 0
	boot_kernel 6.1.0-29-amd64
	in_root /etc/kernel/postinst.d/zz-systemd-boot 6.1.0-29-amd64 /boot/vmlinuz-6.1.0-29-amd64
	expect_rc 0
	newer=$T/root/boot/efi/loader/entries/$M-6.1.0-29-amd64.conf
	[ "$(sld_tokens "$(sed -n 's/^options *//p' "$newer")")" = split_lock_detect=warn ] ||
		fail "new entry: $(cat "$newer")"
}

# kernel-install with /etc/kernel/tries writes a new entry NAME+3.conf;
# when a later plugin fails, that entry stays and must be named with the
# command that removes it, and /etc/kernel/cmdline is restored.
test_a_failed_kernel_install_names_the_entry_it_left() {
	setup
	echo 3 >"$T/root/etc/kernel/tries"
	printf '#!/bin/sh\necho "99-fail: no space in the ESP" >&2\nexit 1\n' >"$T/root/etc/kernel/install.d/99-fail.install"
	chmod +x "$T/root/etc/kernel/install.d/99-fail.install"
	local cmdline_before left
	cmdline_before=$(cat "$T/root/etc/kernel/cmdline")
	in_root slctl mode fatal --persist
	expect_rc 1
	[ "$(cat "$T/root/etc/kernel/cmdline")" = "$cmdline_before" ] || fail "/etc/kernel/cmdline not restored"
	left=$(cd "$T/root" && ls boot/efi/loader/entries/*+3.conf 2>/dev/null | head -n 1)
	[ -n "$left" ] || fail "test setup: kernel-install wrote no +3 entry: $err"
	expect_err "/$left: created by the failed command"
	expect_err "fix: rm -- /$left"
	! grep -q "configuration was restored" <<<"$err" || fail "claims restored: $err"
}

boot_run_tests
