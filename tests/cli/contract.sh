# The CLI contract every subcommand keeps: the exit status does not depend on
# --json, JSON keys keep one type, global options anywhere and repeatable,
# bad values are usage errors with one sentence.
source "$(dirname "$0")/../lib.sh"

test_mode_exit_status_is_the_same_with_and_without_json() {
	copy_fixture mode/debian-grub
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash' >"$T/root/etc/default/grub.d/60-broken.cfg"
	run "$SLCTL" --root "$T/root" mode
	expect_rc 1
	expect_out "Next boot: unknown"
	run "$SLCTL" --root "$T/root" --json mode
	expect_rc 1
	expect_json .next_boot null
	rm "$T/root/etc/default/grub.d/60-broken.cfg"
	run "$SLCTL" --root "$T/root" mode
	expect_rc 0
	run "$SLCTL" --root "$T/root" mode --json
	expect_rc 0
}

test_unknown_backend_lists_the_library_backends() {
	copy_fixture mode/debian-grub
	run "$SLCTL" --root "$T/root" mode warn --persist --backend lilo
	expect_rc 2
	expect_err "'lilo' is not a backend; use auto, rpm-ostree, kernelstub, grubby, kernel-install (also systemd-boot), mkinitcpio, grub or refind."
}

test_empty_column_list_is_a_usage_error() {
	local o
	for o in "" "," "COMM,," ",PID"; do
		run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" -o "$o"
		expect_rc 2
		expect_err "column"
	done
}

test_impossible_dates_are_refused() {
	local d
	for d in "2026-02-30" "2026-02-29" "2026-13-01" "2026-04-31 10:00" "2026-01-01 23:59:61" \
		 "2026-01-01 24:00" "2026-01-01 23:60"; do
		run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" --since "$d"
		expect_rc 2
		expect_err "cannot understand --since '$d'"
	done
	for d in "2028-02-29" "2026-01-01 23:59:59" "2026-12-31"; do
		run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" --since "$d"
		expect_rc 0
	done
}

test_until_boot_with_a_saved_log_is_refused_with_a_reason() {
	run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" --until boot
	expect_rc 2
	expect_err "saved log"
}

test_verbose_may_be_repeated_and_stand_anywhere() {
	run "$SLCTL" --root "$FIXTURES/stock-ac" status
	expect_rc 0
	[ -z "$err" ] || fail "quiet run wrote to stderr: $err"
	local form
	for form in "-vv status" "-vvv status" "status -vvv" "-v -v status" "--verbose status -v"; do
		# shellcheck disable=SC2086
		run "$SLCTL" --root "$FIXTURES/stock-ac" $form
		expect_rc 0
		expect_err "backend grub: no"
	done
	run "$SLCTL" --root "$FIXTURES/stock-ac" status -v
	expect_rc 0
	[[ $err != *"backend grub: no"* ]] || fail "one -v gave debug output"
}

test_help_after_the_command_is_the_command_help() {
	local c
	for c in status mitigate mode offenders; do
		run "$SLCTL" "$c" -h
		expect_rc 0
		expect_out "Usage: slctl $c"
		run "$SLCTL" "$c" --help
		expect_rc 0
		expect_out "Usage: slctl $c"
		run "$SLCTL" --help "$c"
		expect_rc 0
		expect_out "Usage: slctl $c"
	done
}

run_tests
