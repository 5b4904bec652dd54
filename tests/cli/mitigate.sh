# slctl mitigate: runtime value, the sysctl.d drop-in, precedence, refusals.
source "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

DROPIN=etc/sysctl.d/zz-slctl.conf

persisted() { # ROOT -> "value file"
	"$SLCTL" --root "$1" --json status | jq -r '"\(.mitigate.persisted) \(.mitigate.persisted_in)"'
}

test_off_persist_changes_runtime_and_writes_a_winning_dropin() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 0
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 0 ] || fail "runtime value not 0"
	grep -qx 'kernel.split_lock_mitigate = 0' "$T/root/$DROPIN" || fail "drop-in lacks the key"
	[ "$(persisted "$T/root")" = "0 /etc/sysctl.d/zz-slctl.conf" ] || fail "winner: $(persisted "$T/root")"
	[ "$(stat -c %a "$T/root/$DROPIN")" = 644 ] || fail "drop-in mode $(stat -c %a "$T/root/$DROPIN")"
	ls -a "$T/root/etc/sysctl.d" | grep -q '^\.#' && fail "temporary file left behind"
	run "$SLCTL" --root "$T/root" mitigate on --persist
	expect_rc 0
	[ "$(persisted "$T/root")" = "1 /etc/sysctl.d/zz-slctl.conf" ] || fail "not switched back"
	[ "$(grep -c split_lock_mitigate "$T/root/$DROPIN")" = 1 ] || fail "key written twice"
}

test_later_sorting_file_is_reported_as_the_winner() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 1\n' >"$T/root/etc/sysctl.d/zzz-local.conf"
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "/etc/sysctl.d/zzz-local.conf (line 1)"
	expect_err "ln -s /dev/null /etc/sysctl.d/zzz-local.conf"
	run "$SLCTL" --root "$T/root" --json status
	expect_json '.mitigate.persisted' 1
	expect_json '.mitigate.persisted_in' /etc/sysctl.d/zzz-local.conf
	expect_json '.mitigate.overrides_slctl' /etc/sysctl.d/zzz-local.conf
}

test_later_file_with_the_same_value_is_no_conflict() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate=0\n' >"$T/root/etc/sysctl.d/zzz-gaming.conf"
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 0
}

test_slash_separated_key_is_the_same_key() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	mkdir -p "$T/root/usr/lib/sysctl.d"
	printf 'kernel/split_lock_mitigate = 1\n' >"$T/root/usr/lib/sysctl.d/zzzz-vendor.conf"
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "/usr/lib/sysctl.d/zzzz-vendor.conf"
}

test_same_name_in_etc_hides_usr_lib() {
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 0\n' >"$T/root/usr/lib/sysctl.d/60-games.conf"
	printf 'kernel.split_lock_mitigate = 1\n' >"$T/root/etc/sysctl.d/60-games.conf"
	[ "$(persisted "$T/root")" = "1 /etc/sysctl.d/60-games.conf" ] || fail "got $(persisted "$T/root")"
}

test_dev_null_symlink_masks_a_vendor_file() {
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 0\n' >"$T/root/usr/lib/sysctl.d/60-games.conf"
	ln -s /dev/null "$T/root/etc/sysctl.d/60-games.conf"
	[ "$(persisted "$T/root")" = "null null" ] || fail "mask ignored: $(persisted "$T/root")"
}

test_run_directory_sits_between_etc_and_usr_lib() {
	copy_fixture stock-ac
	mkdir -p "$T/root/run/sysctl.d"
	printf 'kernel.split_lock_mitigate = 0\n' >"$T/root/usr/lib/sysctl.d/60-a.conf"
	printf 'kernel.split_lock_mitigate = 1\n' >"$T/root/run/sysctl.d/60-a.conf"
	[ "$(persisted "$T/root")" = "1 /run/sysctl.d/60-a.conf" ] || fail "got $(persisted "$T/root")"
}

test_sysctl_conf_linked_as_99_sysctl_competes_by_that_name() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 0\n' >>"$T/root/etc/sysctl.conf"
	printf 'kernel.split_lock_mitigate = 1\n' >"$T/root/usr/lib/sysctl.d/50-a.conf"
	[ "$(persisted "$T/root")" = "0 /etc/sysctl.d/99-sysctl.conf" ] || fail "got $(persisted "$T/root")"
	# Our drop-in sorts after 99-sysctl.conf and wins.
	run "$SLCTL" --root "$T/root" mitigate on --persist
	expect_rc 0
	[ "$(persisted "$T/root")" = "1 /etc/sysctl.d/zz-slctl.conf" ] || fail "got $(persisted "$T/root")"
}

# 99-sysctl.conf -> ../sysctl.conf: its open under a --root walks "..",
# which openat2(RESOLVE_IN_ROOT) answers with EAGAIN whenever anything on
# the system was renamed meanwhile. The file was then skipped now and
# then (a CI run's ASan pass; 2 in 100 here with renames running).
test_sysctl_conf_link_is_read_while_the_system_renames_files() {
	require_cmd python3 "it renames files fast"
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 0\n' >>"$T/root/etc/sysctl.conf"
	printf 'kernel.split_lock_mitigate = 1\n' >"$T/root/usr/lib/sysctl.d/50-a.conf"
	mkdir "$T/ren" && touch "$T/ren/a"
	python3 -c 'import os, sys
d = sys.argv[1]
while True:
    os.rename(d + "/a", d + "/b"); os.rename(d + "/b", d + "/a")' "$T/ren" &
	renamer=$!
	local i got missed=0
	trap 'kill $renamer 2>/dev/null; true' EXIT
	for ((i = 0; i < 100; i++)); do
		got=$(persisted "$T/root")
		[ "$got" = "0 /etc/sysctl.d/99-sysctl.conf" ] || missed=$((missed + 1))
	done
	kill "$renamer"
	[ "$missed" = 0 ] || fail "99-sysctl.conf was missed in $missed of 100 reads (last: $got)"
}

test_dash_prefixed_assignment_counts() {
	copy_fixture stock-ac
	printf -- '-kernel.split_lock_mitigate = 0\n' >"$T/root/usr/lib/sysctl.d/50-a.conf"
	[ "$(persisted "$T/root")" = "0 /usr/lib/sysctl.d/50-a.conf" ] || fail "got $(persisted "$T/root")"
}

test_later_assignment_in_the_same_file_wins() {
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 0\n# comment\n; other\nkernel.split_lock_mitigate=1\n' \
		>"$T/root/usr/lib/sysctl.d/50-a.conf"
	[ "$(persisted "$T/root")" = "1 /usr/lib/sysctl.d/50-a.conf" ] || fail "got $(persisted "$T/root")"
}

test_dry_run_changes_nothing() {
	copy_fixture stock-ac
	local before
	before=$(tree_hash "$T/root")
	run "$SLCTL" --root "$T/root" mitigate off --persist --dry-run
	expect_rc 0
	expect_out "Would set kernel.split_lock_mitigate = 0 (now 1)"
	expect_out "kernel.split_lock_mitigate = 0"
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "dry run changed the tree"
}

test_preplanted_symlink_is_never_followed() {
	copy_fixture stock-ac
	echo precious >"$T/target"
	ln -s "$T/target" "$T/root/$DROPIN"
	local before
	before=$(tree_hash "$T/root")
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "is a symlink"
	[ "$(cat "$T/target")" = precious ] || fail "symlink target was written"
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "tree changed"
}

test_foreign_file_at_our_path_is_left_alone() {
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 1\n' >"$T/root/$DROPIN"
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "was not written by libsplitlock"
	grep -qx 'kernel.split_lock_mitigate = 1' "$T/root/$DROPIN" || fail "foreign file edited"
}

test_other_lines_of_our_dropin_are_kept() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	"$SLCTL" --root "$T/root" mitigate off --persist >/dev/null || fail "first write failed"
	echo 'kernel.sysrq = 1' >>"$T/root/$DROPIN"
	run "$SLCTL" --root "$T/root" mitigate on --persist
	expect_rc 0
	grep -qx 'kernel.sysrq = 1' "$T/root/$DROPIN" || fail "other key lost"
	grep -qx 'kernel.split_lock_mitigate = 1' "$T/root/$DROPIN" || fail "key not updated"
}

test_missing_sysctl_directory_is_created() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture old-5.10
	copy_fixture stock-ac
	rm -rf "$T/root/etc/sysctl.d"
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 0
	[ -f "$T/root/$DROPIN" ] || fail "drop-in not written"
}

test_kernel_without_the_sysctl_exits_4() {
	copy_fixture old-5.10
	local before
	before=$(tree_hash "$T/root")
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 4
	expect_err "Linux 6.2"
	run "$SLCTL" --root "$T/root" mitigate
	expect_rc 4
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "tree changed"
}

test_unprivileged_user_gets_exit_3_and_nothing_changes() {
	require_root "setpriv to become another user"
	copy_fixture stock-ac
	chmod 755 "$T"
	chmod -R a+rX "$T/root"
	local before
	before=$(tree_hash "$T/root")
	run setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 3
	expect_err "CAP_SYS_ADMIN"
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "tree changed"
	# Reading stays possible.
	run setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all \
		"$SLCTL" --root "$T/root" --json status
	expect_rc 0
	expect_json '.privileges.missing | join(",")' CAP_SYS_ADMIN,CAP_SYSLOG
}

test_seq_mode_refuses_to_switch_misery_off() {
	copy_fixture patched-seq
	run "$SLCTL" --root "$T/root" mitigate off
	expect_rc 1
	expect_err "seq mode"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 1 ] || fail "value changed"
}

test_show_reports_now_and_after_reboot() {
	copy_fixture stock-ac
	run "$SLCTL" --root "$T/root" mitigate
	expect_rc 0
	expect_out "Now:          on"
	expect_out "After reboot: on (kernel default"
	run "$SLCTL" --root "$T/root" mitigate --json
	expect_json '.current' 1
	expect_json '.persisted' null
}

test_json_result_of_a_change() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	run "$SLCTL" --root "$T/root" --json mitigate off
	expect_rc 0
	expect_json '.previous' 1
	expect_json '.current' 0
	expect_json '.dry_run' false
}

test_persisted_value_other_than_0_or_1_is_null_not_a_string() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 2\n' >"$T/root/usr/lib/sysctl.d/50-odd.conf"
	run "$SLCTL" --root "$T/root" --json status
	expect_rc 0
	expect_json '.mitigate.persisted' null
	expect_json '.mitigate.persisted_valid' false
	expect_json '.mitigate.persisted_in' /usr/lib/sysctl.d/50-odd.conf
	run "$SLCTL" --root "$T/root" --json mitigate
	expect_rc 0
	expect_json '.persisted' null
	expect_json '.persisted_valid' false
	run "$SLCTL" --root "$T/root" mitigate
	expect_out "/usr/lib/sysctl.d/50-odd.conf sets a value other than 0 or 1"
	run "$SLCTL" --root "$T/root" --json mitigate on --persist
	expect_rc 0
	run "$SLCTL" --root "$T/root" --json mitigate
	expect_json '.persisted' 1
	expect_json '.persisted_valid' true
}

test_dry_run_names_the_file_that_would_still_override() {
	copy_fixture stock-ac
	printf '# x\nkernel.split_lock_mitigate = 1\n' >"$T/root/etc/sysctl.d/zzz-local.conf"
	local before
	before=$(tree_hash "$T/root")
	run "$SLCTL" --root "$T/root" mitigate off --persist --dry-run
	expect_rc 1
	expect_err "/etc/sysctl.d/zzz-local.conf (line 2) would still set kernel.split_lock_mitigate = 1"
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "dry run changed the tree"
}

test_seq_refusal_exits_1_with_and_without_json() {
	copy_fixture patched-seq
	run "$SLCTL" --root "$T/root" --json mitigate off --persist
	expect_rc 1
	expect_err "seq mode"
	[ -z "$out" ] || fail "refusal printed a document: $out"
	[ ! -e "$T/root/$DROPIN" ] || fail "drop-in written despite the refusal"
}

run_tests
