# slctl status against fake roots: every key of the DESIGN.md contract.
source "$(dirname "$0")/../lib.sh"

test_stock_kernel_with_ac_reports_every_design_key() {
	run "$SLCTL" --root "$FIXTURES/stock-ac" --json status
	expect_rc 0
	expect_json '.cpu.split_lock_detect' true
	expect_json '.cpu.bus_lock_detect' true
	expect_json '.cpu.hypervisor' false
	expect_json '.kernel.release' 6.5.0-28-generic
	expect_json '.kernel.patched' false
	expect_json '.mode.current' warn
	expect_json '.mode.source' boot-log
	expect_json '.mode.guess' false
	expect_json '.mode.next_boot' default
	expect_json '.mitigate.current' 1
	expect_json '.mitigate.persisted' null
	expect_json '.mitigate.persisted_in' null
	# The user-space (facility 1) "#AC:" record is a forgery and not counted.
	expect_json '.offenders.events' 2
	expect_json '.offenders.suppressed' 3
}

test_global_options_may_follow_the_subcommand() {
	run "$SLCTL" --json --root "$FIXTURES/stock-ac" status
	local before=$out
	run "$SLCTL" status --root="$FIXTURES/stock-ac" --json
	expect_rc 0
	[ "$out" = "$before" ] || fail "output differs with options after the subcommand"
}

test_vm_without_detection_is_off_whatever_the_cmdline_says() {
	run "$SLCTL" --root "$FIXTURES/vm-no-detect" --json status
	expect_rc 0
	expect_json '.cpu.hypervisor' true
	expect_json '.cpu.split_lock_detect' false
	expect_json '.mode.current' off
	expect_json '.mode.source' default
	expect_json '.mode.guess' false
	run "$SLCTL" --root "$FIXTURES/vm-no-detect" status
	expect_rc 0
	expect_out "no split-lock detection"
	expect_out "virtual machine"
}

test_old_kernel_without_the_sysctl() {
	run "$SLCTL" --root "$FIXTURES/old-5.10" --json status
	expect_rc 0
	expect_json '.kernel.release' 5.10.0-21-amd64
	expect_json '.kernel.interfaces.split_lock_mitigate' false
	expect_json '.mode.current' warn
	expect_json '.mode.source' boot-log
	expect_json '.mitigate.current' null
	run "$SLCTL" --root "$FIXTURES/old-5.10" status
	expect_out "no kernel.split_lock_mitigate"
}

test_patched_kernel_mode_comes_from_sysfs() {
	run "$SLCTL" --root "$FIXTURES/patched-seq" --json status
	expect_rc 0
	expect_json '.kernel.patched' true
	expect_json '.mode.current' seq
	expect_json '.mode.source' sysfs
	expect_json '.mode.guess' false
	expect_json '.kernel.counters.ac_traps' 30
	expect_json '.kernel.counters.misery_delays' 30
	expect_json '.kernel.counters.sigbus' 0
	run "$SLCTL" --root "$FIXTURES/patched-seq" status
	expect_out "Counted:    30 #AC and 0 #DB traps, 30 penalized"
	run "$SLCTL" --root "$FIXTURES/stock-ac" --json status
	expect_json '.kernel.counters' null
}

# The v2 series gives one value per file in a stats/ directory; the v1
# layout (one file of "name value" lines) is still read above.
test_v2_stats_directory_one_value_per_file() {
	copy_fixture patched-seq
	local d="$T/root/sys/kernel/split_lock/stats"
	rm "$d" && mkdir "$d"
	echo 7 >"$d/ac_traps"
	echo 2 >"$d/db_traps"
	echo 5 >"$d/misery_delays"
	echo 1 >"$d/sigbus"
	echo "3 4" >"$d/warnings_suppressed" # not one number: unknown, not 3
	run "$SLCTL" --root "$T/root" --json status
	expect_rc 0
	expect_json '.kernel.counters.ac_traps' 7
	expect_json '.kernel.counters.db_traps' 2
	expect_json '.kernel.counters.misery_delays' 5
	expect_json '.kernel.counters.sigbus' 1
	expect_json '.kernel.counters.warnings_suppressed' null
}

# Every boot line since 5.7, as the only detector record of the log.
test_every_boot_line_variant_gives_its_mode() {
	local line want
	while IFS='|' read -r want line; do
		copy_fixture stock-ac
		printf '6,1,0,-;x86/split lock detection: %s\n' "$line" >"$T/root/dev/kmsg"
		run "$SLCTL" --root "$T/root" --json status
		expect_rc 0
		expect_json '.mode.current' "$want"
		expect_json '.mode.source' boot-log
	done <<-'EOF'
	warn|warning about user-space split_locks
	fatal|sending SIGBUS on user-space split_locks
	off|disabled
	warn|#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks
	fatal|#AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks
	warn|#DB: warning on user-space bus_locks
	fatal|#DB: sending SIGBUS on user-space bus_locks
	ratelimit:64|#DB: setting system wide bus lock rate limit to 64/sec
	seq|#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks with an unconditional penalty
	EOF
}

test_forged_boot_line_from_user_space_is_ignored() {
	copy_fixture stock-ac
	# facility 1 (user): what any process can write to /dev/kmsg.
	printf '14,1,0,-;x86/split lock detection: disabled\n' >"$T/root/dev/kmsg"
	echo 'ro quiet' >"$T/root/proc/cmdline"
	run "$SLCTL" --root "$T/root" --json status
	expect_json '.mode.current' warn
	expect_json '.mode.source' default
}

test_lost_boot_line_falls_back_to_the_last_cmdline_parameter() {
	copy_fixture stock-ac
	: >"$T/root/dev/kmsg"
	echo 'ro split_lock_detect=fatal quiet split_lock_detect=ratelimit:20' >"$T/root/proc/cmdline"
	run "$SLCTL" --root "$T/root" --json status
	expect_rc 0
	expect_json '.mode.current' ratelimit:20
	expect_json '.mode.source' cmdline
	expect_json '.mode.guess' true
	expect_json '.mode.next_boot' ratelimit:20
	run "$SLCTL" --root "$T/root" status
	expect_out "a guess"
}

test_cmdline_values_the_kernel_rejects_mean_warn() {
	local v
	for v in ratelimit:0 ratelimit:1001 fatl seq; do
		copy_fixture stock-ac
		: >"$T/root/dev/kmsg"
		echo "split_lock_detect=$v" >"$T/root/proc/cmdline"
		run "$SLCTL" --root "$T/root" --json status
		expect_json '.mode.current' warn
		expect_json '.mode.source' cmdline
	done
}

test_nothing_known_means_the_default_warn_as_a_guess() {
	copy_fixture stock-ac
	: >"$T/root/dev/kmsg"
	echo 'ro quiet' >"$T/root/proc/cmdline"
	run "$SLCTL" --root "$T/root" --json status
	expect_json '.mode.current' warn
	expect_json '.mode.source' default
	expect_json '.mode.guess' true
}

test_text_output_names_each_part() {
	run "$SLCTL" --root "$FIXTURES/stock-ac" status
	expect_rc 0
	expect_out "CPU:        split_lock_detect (#AC), bus_lock_detect (#DB)"
	expect_out "Mode:       warn (from boot-log)"
	expect_out "Misery:     on now"
	expect_out "2 events since boot, 3 more suppressed"
}

test_unreadable_pieces_do_not_fail_status() {
	mkdir -p "$T/empty"
	run "$SLCTL" --root "$T/empty" --json status
	expect_rc 0
	expect_json '.cpu.known' false
	expect_json '.kernel.release' null
	expect_json '.mitigate.current' null
	expect_json '.offenders.events' null
}

run_tests
