# tests/run itself: it trusts exit statuses and plans, not printed lines
# alone. Each broken program here must make it fail, and every test a
# program planned but never reached must show in the count.
source "$(dirname "$0")/../lib.sh"

RUNNER=$TOP/tests/run
CRASH=$TOP/$BUILD_DIR/tests/selftest-crash

# script NAME BODY: a test script in $T that tests/run can be pointed at.
script() {
	printf '%s\n' "$2" >"$T/$1.sh"
}

test_a_unit_binary_that_crashes_after_one_ok_fails_the_run() {
	[ -x "$CRASH" ] || fail "$CRASH is not built ('make tests' builds it)"
	run "$RUNNER" "$CRASH"
	expect_rc 1
	expect_out "ok - passes_before_the_crash"
	expect_out "not ok - selftest-crash: killed by signal 11 (SEGV); planned 3 tests, reported 1"
	[ "$(tail -n1 <<<"$out")" = "1 passed, 1 failed, 0 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
}

# Re-running one test by name: a typo ran nothing and passed (1..0, exit
# 0), in a CLI script as in a unit binary (packager review F12).
test_a_test_name_that_matches_nothing_fails() {
	run bash "$TOP/tests/cli/usage.sh" nosuchname
	expect_rc 1
	expect_err "no test named 'nosuchname'"
	run "$TOP/$BUILD_DIR/tests/test-path" nosuchname
	expect_rc 1
	expect_err "no test named 'nosuchname'"
}

test_make_check_fails_on_a_crashing_test_binary() {
	# The whole chain a developer runs: make check's runner over a build
	# directory whose test binaries include one that crashes.
	local bd=$T/build
	mkdir -p "$bd/tests"
	cp "$CRASH" "$bd/tests/test-zz-crash"
	cp "$TOP/$BUILD_DIR"/tests/test-path "$bd/tests/"
	run env BUILD_DIR="$bd" bash -c "cd '$TOP' && tests/run '$bd'/tests/test-*"
	expect_rc 1
	expect_out "not ok - test-zz-crash: killed by signal 11"
}

test_a_script_killed_part_way_fails_the_run() {
	script killed 'echo 1..2; echo "ok - first"; kill -KILL $$; echo "ok - second"'
	run "$RUNNER" "$T/killed.sh"
	expect_rc 1
	expect_out "not ok - killed.sh: killed by signal 9 (KILL); planned 2 tests, reported 1"
}

test_a_nonzero_exit_without_a_failed_test_fails_the_run() {
	script exits 'echo 1..1; echo "ok - only"; exit 3'
	run "$RUNNER" "$T/exits.sh"
	expect_rc 1
	expect_out "not ok - exits.sh: exited with status 3 but reported no failed test"
}

test_a_program_without_a_plan_fails_the_run() {
	script noplan 'echo "ok - lonely"'
	run "$RUNNER" "$T/noplan.sh"
	expect_rc 1
	expect_out "not ok - noplan.sh: printed no plan (1..N)"
}

test_a_missing_program_fails_the_run() {
	run "$RUNNER" "$T/nonexistent.sh"
	expect_rc 1
	expect_out "not ok - nonexistent.sh: does not exist"
}

test_two_plans_fail_the_run() {
	script twoplans 'echo 1..1; echo "ok - a"; echo 1..7'
	run "$RUNNER" "$T/twoplans.sh"
	expect_rc 1
	expect_out "not ok - twoplans.sh: printed 2 plans"
}

test_bail_out_fails_the_run() {
	script bails 'echo 1..1; echo "ok - a"; echo "Bail out! the fixture is gone"'
	run "$RUNNER" "$T/bails.sh"
	expect_rc 1
	expect_out "not ok - bails.sh: bailed out: Bail out! the fixture is gone"
}

test_a_lower_case_skip_is_a_skip() {
	script lower 'echo 1..2; echo "ok - a # skip no device"; echo "ok - b"'
	run "$RUNNER" "$T/lower.sh"
	expect_rc 0
	[ "$(tail -n1 <<<"$out")" = "1 passed, 0 failed, 1 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
}

test_an_exit_status_above_128_is_not_taken_for_a_signal() {
	script twohundred 'echo 1..1; echo "ok - a"; exit 200'
	run "$RUNNER" "$T/twohundred.sh"
	expect_rc 1
	expect_out "not ok - twohundred.sh: exited with status 200 but reported no failed test"
}

test_a_skip_all_plan_is_one_skip() {
	script skipall 'echo "1..0 # SKIP no hardware here"'
	run "$RUNNER" "$T/skipall.sh"
	expect_rc 1
	[ "$(tail -n1 <<<"$out")" = "0 passed, 0 failed, 1 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
}

test_skips_are_counted_apart_and_pass() {
	script skips "source '$TOP/tests/lib.sh'
test_runs() { :; }
test_needs_root() { skip 'needs root (mknod)'; }
test_fails() { false; }
run_tests"
	run "$RUNNER" "$T/skips.sh"
	expect_rc 1
	expect_out "ok - skips.sh: needs_root # SKIP needs root (mknod)"
	expect_out "not ok - skips.sh: fails"
	[ "$(tail -n1 <<<"$out")" = "1 passed, 1 failed, 1 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
	expect_err "1 tests need root and were skipped"
}

test_a_clean_run_passes() {
	script clean "source '$TOP/tests/lib.sh'
test_one() { :; }
test_two() { :; }
run_tests"
	run "$RUNNER" "$T/clean.sh"
	expect_rc 0
	[ "$(tail -n1 <<<"$out")" = "2 passed, 0 failed, 0 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
}

test_unit_harness_has_no_cap_on_the_number_of_tests() {
	# 600 TEST()s: the old registry silently dropped every one past 512.
	local src=$T/many.c i
	{
		echo '#include "test.h"'
		for i in $(seq 600); do echo "TEST(t$i) { CHECK($i > 0); }"; done
	} >"$src"
	cc -std=gnu11 -I"$TOP/tests/unit" -o "$T/many" "$src" || fail "cannot build the 600-test binary"
	run "$RUNNER" "$T/many"
	expect_rc 0
	[ "$(tail -n1 <<<"$out")" = "600 passed, 0 failed, 0 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
}

test_unit_skip_is_reported_as_a_skip() {
	local src=$T/skip.c
	printf '%s\n' '#include "test.h"' 'TEST(skipped) { SKIP("no such thing here"); }' \
		'TEST(runs) { CHECK(1); }' >"$src"
	cc -std=gnu11 -I"$TOP/tests/unit" -o "$T/skip" "$src" || fail "cannot build"
	run "$RUNNER" "$T/skip"
	expect_rc 0
	expect_out "ok - skipped # SKIP no such thing here"
	[ "$(tail -n1 <<<"$out")" = "1 passed, 0 failed, 1 skipped" ] ||
		fail "last line: $(tail -n1 <<<"$out")"
}

run_tests
