#!/usr/bin/env bash
# slctl mode --persist on Debian 12 with GRUB: Debian's grub2-common and
# grub-pc-bin (update-grub, grub-mkconfig, /etc/grub.d), only grub-probe
# answered by tests/boot/fake/grub-probe. Asserts on the generated grub.cfg.
. "$(dirname "$0")/lib.sh"

CFG=

# As grub-pc's postinst leaves an installed system: /etc/default/grub from
# the packaged template, a kernel, and a grub.cfg update-grub generated.
setup() {
	boot_root grub grub2-common grub-pc-bin
	install -m755 "$BOOT_DIR/fake/grub-probe" "$T/root/usr/sbin/grub-probe"
	cp "$T/root/usr/share/grub/default/grub" "$T/root/etc/default/grub"
	mkdir -p "$T/root/boot/grub"
	boot_kernel 6.1.0-28-amd64
	in_root update-grub
	expect_rc 0
	CFG=$T/root/boot/grub/grub.cfg
}

# The linux lines 10_linux generated (the menu entries slctl's change
# controls), without the recovery entry.
normal_linux_lines() {
	sed -n '/^### BEGIN \/etc\/grub.d\/10_linux ###/,/^### END \/etc\/grub.d\/10_linux ###/p' "$CFG" |
		grep -E '^[[:space:]]*linux[[:space:]]' | grep -v ' single'
}

test_update_grub_puts_the_word_on_every_normal_entry() {
	setup
	in_root slctl mode fatal --persist
	expect_rc 0
	[ "$(normal_linux_lines | wc -l)" -eq 2 ] || fail "expected 2 normal entries: $(normal_linux_lines)"
	normal_linux_lines | while read -r line; do
		[ "$(sld_tokens "$line")" = split_lock_detect=fatal ] || fail "entry without the word: $line"
	done
	in_root slctl --json mode
	expect_json .next_boot fatal

	in_root slctl mode off --persist
	expect_rc 0
	[ "$(normal_linux_lines | grep -c 'split_lock_detect=off$')" -eq 2 ] || fail "grub.cfg: $(normal_linux_lines)"
	! grep -q split_lock_detect=fatal "$CFG" || fail "the old word stayed in grub.cfg"

	in_root slctl mode default --persist
	expect_rc 0
	! grep -q split_lock_detect "$CFG" || fail "the word stayed in grub.cfg: $(grep split_lock "$CFG")"
	[ ! -e "$T/root/etc/default/grub.d/zz-slctl.cfg" ] || fail "the drop-in stayed"
	in_root slctl --json mode
	expect_json .next_boot default
}

test_a_users_own_custom_entry_is_not_slctls_business() {
	setup
	cat >>"$T/root/etc/grub.d/40_custom" <<'CUSTOM'
menuentry 'Old game kernel' {
	linux /boot/vmlinuz-6.1.0-28-amd64 root=/dev/vda1 ro split_lock_detect=off
}
CUSTOM
	in_root slctl mode warn --persist
	expect_rc 0
	[ "$(normal_linux_lines | grep -c 'split_lock_detect=warn$')" -eq 2 ] || fail "grub.cfg: $(normal_linux_lines)"
	grep -q 'ro split_lock_detect=off$' "$CFG" || fail "the custom entry changed"
}

test_dry_run_changes_nothing() {
	setup
	tree_hash "$T/root/etc" >"$T/before"
	cp "$CFG" "$T/cfg.before"
	in_root slctl mode warn --persist --dry-run
	expect_rc 0
	expect_out update-grub
	tree_hash "$T/root/etc" | diff -u "$T/before" - >&2 || fail "/etc changed"
	cmp -s "$CFG" "$T/cfg.before" || fail "grub.cfg changed"
}

boot_run_tests
