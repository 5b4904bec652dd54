#!/usr/bin/env bash
# slctl run --check on this machine and on fake roots: a gate that cannot
# count never passes (exit 4, CMD not started, every source's reason), its
# options' errors, and its reports written whole. The counting itself runs
# in qemu on the patched kernels (tests/kernel/run, scenario "count"),
# where the tracepoint exists.
source "$(dirname "$0")/../lib.sh"

# A root whose CPU is Intel family 6 model MODEL (decimal), no tracepoint.
cpu_root() {
	mkdir -p "$T/root/proc/sys/kernel"
	printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: %s\n' \
		"$1" >"$T/root/proc/cpuinfo"
	echo 2 >"$T/root/proc/sys/kernel/perf_event_paranoid"
}

test_a_cpu_nothing_can_count_on_is_exit_4_and_cmd_never_runs() {
	cpu_root 151 # Alder Lake: hybrid, not in the table
	run "$SLCTL" --root "$T/root" run --check -- touch "$T/ran"
	expect_rc 4
	[ ! -e "$T/ran" ] || fail "CMD ran though nothing could count it"
	expect_err 'nothing here can count split locks'
	expect_err 'GenuineIntel family 0x6 model 0x97'
	expect_err 'no split_lock:split_lock_trap tracepoint'
	expect_err 'touch was not started'
}

test_the_refusal_is_a_report_too_json_and_junit() {
	cpu_root 151
	run "$SLCTL" --root "$T/root" run --check --report "$T/r.json" -- true
	expect_rc 4
	jq -e '.version == 1 and .source == null and .passed == false and .exact == false
	       and .split_locks == null and .total == null and .exit_status == null
	       and (.reason | test("nothing here can count")) and .command == ["true"]' \
		"$T/r.json" >/dev/null || fail "JSON report: $(cat "$T/r.json")"
	run "$SLCTL" --root "$T/root" run --check --report "$T/r.xml" --report-format junit -- true 'a<b&"c"'
	expect_rc 4
	python3 - "$T/r.xml" <<'PY' || fail "JUnit report: $(cat "$T/r.xml")"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
case = root.find('testsuite/testcase')
assert root.get('errors') == '1' and root.get('failures') == '0'
assert case.get('name') == 'true a<b&"c"', case.get('name')
assert 'nothing here can count' in case.find('error').get('message')
PY
	# Nothing left beside it: the report is renamed into place whole.
	[ "$(ls -A "$T" | grep -c '^\.r\.')" = 0 ] || fail "temporary files left: $(ls -A "$T")"
}

test_a_report_that_cannot_be_written_fails_before_cmd_runs() {
	cpu_root 151
	run "$SLCTL" --root "$T/root" run --check --report "$T/no/such/dir/r.json" -- touch "$T/ran"
	expect_rc 1
	expect_err "cannot write the report $T/no/such/dir/r.json: No such file or directory; touch was not started."
	[ ! -e "$T/ran" ] || fail "CMD ran though its report could not be written"
	mkdir "$T/dir"
	run "$SLCTL" --root "$T/root" run --check --report "$T/dir" -- touch "$T/ran"
	expect_rc 1
	expect_err "cannot write the report $T/dir: Is a directory"
	[ -z "$(ls -A "$T/dir")" ] || fail "something was left in $T/dir: $(ls -A "$T/dir")"
}

test_a_junit_report_is_well_formed_xml_whatever_the_arguments() {
	cpu_root 151
	run "$SLCTL" --root "$T/root" run --check --report "$T/r.xml" --report-format junit -- \
		true "$(printf 'caf\xe9 \x01 <&>')" "$(printf 'd\xc3\xa9j\xc3\xa0')"
	expect_rc 4
	python3 - "$T/r.xml" <<'PY' || fail "JUnit report not well-formed: $(cat -v "$T/r.xml")"
import sys, xml.etree.ElementTree as ET
case = ET.parse(sys.argv[1]).getroot().find('testsuite/testcase')
assert case.get('name') == 'true caf\\xe9 \\x01 <&> d\u00e9j\u00e0', repr(case.get('name'))
PY
}

test_a_pmu_event_the_kernel_refuses_is_named() {
	if [ -e /sys/bus/event_source/devices/cpu/type ] ||
	   [ -e /sys/bus/event_source/devices/cpu_core/type ]; then
		skip "this machine has a core PMU"
	fi
	cpu_root 85 # Skylake-SP: SQ_MISC.SPLIT_LOCK
	run "$SLCTL" --root "$T/root" run --check -- true
	expect_rc 4
	expect_err 'the PMU event SQ_MISC.SPLIT_LOCK cannot be counted here'
}

test_bad_options_are_usage_errors() {
	local args
	for args in "--max 3 -- true" "--report f -- true" "--check --max -1 -- true" \
		    "--check --max x -- true" "--check --max 18446744073709551616 -- true" \
		    "--check --max +1 -- true" "--check --max= -- true" \
		    "--check --report-format xml --report f -- true" \
		    "--check --report-format junit -- true" "--check --report= -- true" \
		    "--check true"; do
		# shellcheck disable=SC2086
		run "$SLCTL" run $args
		[ "$rc" = 2 ] || fail "run $args: exit $rc, want 2 ($err)"
		[ "$(wc -l <<<"$err")" -le 2 ] || fail "run $args: more than a sentence: $err"
	done
	run "$SLCTL" --json run -- true
	expect_rc 2
	expect_err 'with --check it prints the report'
}

test_help_and_man_page_name_every_option() {
	local opt
	run "$SLCTL" run --help
	expect_rc 0
	for opt in --check --max --report --report-format --no-misery; do
		grep -q -- "$opt" <<<"$out" || fail "--help lacks $opt"
		# The page's source: the installed package's tests have no build.
		grep -q -- "$opt" "$TOP/man/slctl.8.scd" || fail "slctl(8) lacks $opt"
	done
}

run_tests
