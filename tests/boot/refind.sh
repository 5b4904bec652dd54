#!/usr/bin/env bash
# slctl mode --persist on Debian 12 with rEFInd: refind_linux.conf written
# by Debian's refind package's own mkrlconf from /proc/cmdline, as on an
# installed system. Asserts on refind_linux.conf.
. "$(dirname "$0")/lib.sh"

CONF=

# mkrlconf copies the running kernel's command line; $1 is that line.
setup() {
	boot_root refind refind
	boot_cmdline "$1"
	boot_kernel 6.1.0-28-amd64
	in_root mkrlconf
	expect_rc 0
	CONF=$T/root/boot/refind_linux.conf
	[ -f "$CONF" ] || fail "mkrlconf wrote nothing: $out $err"
}

# The options field of the menu line titled $1.
options_of() {
	sed -n "s/^\"$1\" *\"\(.*\)\"\$/\1/p" "$CONF"
}

test_every_menu_line_gets_the_word() {
	setup "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=5d2f4e7a ro quiet"
	[ "$(options_of 'Boot with standard options')" = "root=UUID=5d2f4e7a ro quiet" ] ||
		fail "mkrlconf wrote: $(cat "$CONF")"
	in_root slctl mode warn --persist
	expect_rc 0
	[ "$(options_of 'Boot with standard options')" = "root=UUID=5d2f4e7a ro quiet split_lock_detect=warn" ] ||
		fail "refind_linux.conf: $(cat "$CONF")"
	[ "$(options_of 'Boot to single-user mode')" = "root=UUID=5d2f4e7a ro quiet single split_lock_detect=warn" ] ||
		fail "refind_linux.conf: $(cat "$CONF")"
	in_root slctl --json mode
	expect_json .next_boot warn
	in_root slctl mode default --persist
	expect_rc 0
	! grep -q split_lock_detect "$CONF" || fail "the word stayed: $(cat "$CONF")"
}

# A command line with "--": what follows is init's (here systemd's), and a
# word appended after it would never reach the kernel.
test_the_word_goes_before_double_dash() {
	setup "BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=5d2f4e7a ro quiet -- systemd.unit=rescue.target"
	in_root slctl mode fatal --persist
	expect_rc 0
	[ "$(options_of 'Boot with standard options')" = "root=UUID=5d2f4e7a ro quiet split_lock_detect=fatal -- systemd.unit=rescue.target" ] ||
		fail "refind_linux.conf: $(cat "$CONF")"
	in_root slctl --json mode
	expect_json .next_boot fatal
}

boot_run_tests
