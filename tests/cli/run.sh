#!/usr/bin/env bash
# slctl run: leases on a stock kernel (tests/fixtures/stock-ac), the
# exemption on a patched one (tests/fixtures/patched-runctl), the pkexec
# path for a user without privileges, and the helper's refusals.
#
# The fake roots stand for the kernel, and the tests play its part in them
# honestly: a process is in ROOT/proc/PID while it lives, with its real
# stat line (the start time leases are checked against) and a status with
# the uid it runs as and its parent (tests/fake/as-process); a test that kills one
# removes its entry, as the kernel would (proc_gone). The exemption's child
# gets its PID from a PID namespace of its own (unshare), where slctl is
# PID 1 and the child it forks PID 2, so that ROOT/proc/2 can be prepared
# before it exists. pkexec is tests/fake/fake-pkexec.c, installed setuid
# root in $T/bin: it does what pkexec does around the helper (root,
# PKEXEC_UID, a minimal environment, descriptors 0-2) without asking.
# Nothing here reads or writes the real /proc/sys.
source "$(dirname "$0")/../lib.sh"

# The scratch directories must be ones the user nobody can enter and that
# honour setuid (pkexec's stand-in): a package build's TMPDIR may be
# private (libpam-tmpdir's /tmp/user/0 is 0700) or on a nosuid mount
# (systemd's tmp.mount), then /tmp or /var/tmp serve.
for d in "${TMPDIR:-/tmp}" /tmp /var/tmp; do
	setpriv --reuid=nobody --regid=65534 --clear-groups test -x "$d" 2>/dev/null &&
		! findmnt -no OPTIONS -T "$d" | tr , '\n' | grep -qx nosuid && { export TMPDIR=$d; break; }
done

FAKE_PKEXEC=$TOP/$BUILD_DIR/tests/fake-pkexec
# The machine's own value, compared at the end (test_zz_...).
REAL_MITIGATE=$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo none)
MITIGATE=proc/sys/kernel/split_lock_mitigate
NOBODY=$(id -u nobody)

# $AS_PROCESS ROOT UID CMD...: CMD as a process ROOT's /proc knows, with
# the same PID.
AS_PROCESS=$TOP/tests/fake/as-process

proc_gone() { # PID: the process died; the fake kernel forgets it
	rm -rf "$T/root/proc/$1"
}

# No --bounding-set=-all: pkexec, setuid root, needs root's capabilities.
AS_NOBODY=(/usr/bin/setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all)

# helper_call UID ARGS...: pkexec slctl __helper ARGS, from a process of
# UID that the root's /proc knows (the helper checks its caller), with
# stdin from /dev/null; helper_call_piped the same with pipes on stdin
# and stdout, as slctl run gives them.
helper_call() {
	local uid=$1
	shift
	"$AS_PROCESS" "${HELPER_ROOT:-$T/root}" "$uid" "${AS_NOBODY[@]}" "$BASH" -c \
		'"$0" "$@" </dev/null; exit $?' pkexec "$SLCTL" __helper "$@"
}

helper_call_piped() {
	local uid=$1
	shift
	"$AS_PROCESS" "${HELPER_ROOT:-$T/root}" "$uid" "${AS_NOBODY[@]}" "$BASH" -c \
		'sleep 1 | "$0" "$@" | cat; exit ${PIPESTATUS[1]}' pkexec "$SLCTL" __helper "$@"
}

source "$TOP/tests/run-helper.sh"

wait_value() { # VALUE: until the sysctl holds it (10 s at most)
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(value)" = "$1" ] && return 0
		sleep 0.05
	done
	fail "kernel.split_lock_mitigate is $(value), not $1"
}

# A command that says it started and waits for its go file, in a directory
# every user may write; it gives up when the test's directory is gone, so
# that a failed test leaves no process behind.
waiter() { # NAME
	mkdir -p -m 1777 "$T/flags"
	echo "touch '$T/flags/$1.started'; while [ ! -e '$T/flags/$1.go' ] && [ -d '$T/flags' ]; do sleep 0.05; done"
}

started() { # NAME
	wait_for "$T/flags/$1.started"
}

go() { # NAME
	touch "$T/flags/$1.go"
}

leases_left() {
	ls "$T/root/run/slctl/leases" 2>/dev/null | grep -c . || true
}

expect_clean() { # VALUE: the sysctl holds it and slctl owes nothing
	[ "$(value)" = "$1" ] || fail "kernel.split_lock_mitigate is $(value), expected $1"
	[ "$(leases_left)" = 0 ] || fail "left in leases/: $(ls "$T/root/run/slctl/leases")"
}

# A patched root in which PID 2 will be slctl's child, owned by UID.
patched_child() { # UID
	copy_fixture patched-runctl
	# The child is PID 2 of the new PID namespace, or a few more where
	# slctl made a lookup in a child of its own first (lib/core/path.c).
	local p
	for p in 2 3 4 5 6 7 8 9; do
		mkdir -p "$T/root/proc/$p"
		printf 'ac_traps 0\ndb_traps 0\nmisery_delays 0\nsigbus 0\nmisery_exempt 0\n' >"$T/root/proc/$p/split_lock"
		printf 'Name:\tslctl\nPPid:\t1\nUid:\t%s\t%s\t%s\t%s\n' "$1" "$1" "$1" "$1" >"$T/root/proc/$p/status"
	done
	mkdir -p "$T/root/proc/1"
	printf 'Name:\tslctl\nPPid:\t0\nUid:\t%s\t%s\t%s\t%s\n' "$1" "$1" "$1" "$1" >"$T/root/proc/1/status"
}

in_pid_namespace() {
	unshare --pid --fork --kill-child "$@"
}

# ---- stock kernel: leases ---------------------------------------------------

test_lease_holds_misery_off_for_the_run_and_gives_it_back() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "cat '$T/root/$MITIGATE'"
	expect_rc 0
	[ "$out" = 0 ] || fail "CMD saw kernel.split_lock_mitigate = $out"
	expect_clean 1
}

test_exit_status_is_cmds() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c 'exit 7'
	expect_rc 7
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c 'kill -TERM $$'
	expect_rc 143
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- slctl-no-such-command
	expect_rc 127
	expect_err "slctl-no-such-command: command not found."
	printf 'echo hi\n' >"$T/script"
	chmod 644 "$T/script"
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- "$T/script"
	expect_rc 126
	expect_err "Permission denied"
	expect_clean 1
}

test_overlapping_runs_restore_after_the_last() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "$(waiter a)" &
	local a=$!
	started a
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "$(waiter b)" &
	local b=$!
	started b
	[ "$(value)" = 0 ] || fail "not 0 during the runs"
	go a
	wait $a || fail "run a failed"
	[ "$(value)" = 0 ] || fail "run a ended, run b still runs: $(value)"
	[ "$(leases_left)" = 2 ] || fail "leases: $(ls "$T/root/run/slctl/leases")"
	go b
	wait $b || fail "run b failed"
	expect_clean 1
}

test_sigkill_of_a_run_is_undone_by_the_next_slctl() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "$(waiter a)" &
	local a=$!
	started a
	kill -KILL $a
	wait $a 2>/dev/null
	proc_gone $a
	go a
	[ "$(value)" = 0 ] || fail "who restored it?"
	run "$SLCTL" --root "$T/root" --json status
	expect_json '.leases.runs | length' 1
	expect_json '.leases.runs[0].live' false
	expect_json '.leases.runs[0].run_pid' "$a"
	expect_json '.leases.saved' 1
	run "$SLCTL" --root "$T/root" status
	expect_out "ended without dropping it"
	# The next run finds the dead lease, gives 1 back, and takes its own.
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- cat "$T/root/$MITIGATE"
	expect_rc 0
	[ "$out" = 0 ] || fail "the next run saw $out"
	expect_clean 1
}

test_a_value_set_by_hand_meanwhile_is_kept() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "$(waiter a)" &
	local a=$!
	started a
	echo 1 >"$T/root/$MITIGATE"
	go a
	wait $a || fail "run failed"
	expect_clean 1

	# An admin's 'slctl mitigate off' during a run stays after it.
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "$(waiter b)" &
	local b=$!
	started b
	run "$SLCTL" --root "$T/root" mitigate off
	expect_rc 0
	go b
	wait $b || fail "run failed"
	expect_clean 0
}

test_twenty_concurrent_runs_end_with_the_original_value() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	local pids=() i failed=0
	for ((i = 0; i < 20; i++)); do
		# Each run fails unless misery is off all through it.
		"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c \
			"[ \$(cat '$T/root/$MITIGATE') = 0 ] || exit 9; sleep 0.$((i % 4)); [ \$(cat '$T/root/$MITIGATE') = 0 ] || exit 9" \
			2>>"$T/errors" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || failed=$((failed + 1))
	done
	[ $failed = 0 ] || fail "$failed of 20 runs failed: $(cat "$T/errors")"
	expect_clean 1
	[ ! -e "$T/root/run/slctl/leases/saved" ] || fail "saved left behind"
}

test_status_lists_live_leases() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c "$(waiter a)" &
	local a=$!
	started a
	run "$SLCTL" --root "$T/root" status
	expect_out "Leases:     1 run of slctl run holds kernel.split_lock_mitigate at 0; 1 comes back after the last"
	expect_out "run $a (uid 0) since"
	run "$SLCTL" --root "$T/root" --json status
	expect_json '.leases.runs[0].run_pid' "$a"
	expect_json '.leases.runs[0].holder_pid' "$a"
	expect_json '.leases.runs[0].uid' 0
	expect_json '.leases.runs[0].live' true
	go a
	wait $a
	run "$SLCTL" --root "$T/root" --json status
	expect_json '.leases.runs | length' 0
	expect_json '.leases.saved' null
	run "$SLCTL" --root "$T/root" status
	[[ $out != *Leases:* ]] || fail "a Leases line without leases: $out"
}

# ---- patched kernel: the exemption -------------------------------------------

test_patched_kernel_exempts_the_child_before_it_runs_cmd() {
	require_root "the setuid pkexec stand-in and the root helper"
	patched_child 0
	# CMD reads its own file: the mark is there before it starts.
	run in_pid_namespace "$SLCTL" --root "$T/root" run -- sh -c "echo \$\$; tail -n1 '$T/root/proc/'\$\$/split_lock"
	expect_rc 0
	[[ "$out" == [2-9]"
misery_exempt 1" ]] || fail "CMD saw: $out"
	# The global switch is left alone.
	[ "$(value)" = 1 ] || fail "kernel.split_lock_mitigate changed"
	[ ! -e "$T/root/run/slctl/leases" ] || fail "a lease directory on a patched kernel"
}

test_cmd_is_not_started_when_the_exemption_fails() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture patched-runctl
	# No ROOT/proc/2: the child is unknown to the (fake) kernel.
	run in_pid_namespace "$SLCTL" --root "$T/root" run -- touch "$T/started"
	expect_rc 1
	expect_err "cannot exempt touch from misery"
	[ ! -e "$T/started" ] || fail "CMD started without its exemption"
}

# ---- without privileges: pkexec ----------------------------------------------

test_user_lease_through_pkexec_runs_cmd_as_the_user() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	unprivileged_env
	SLCTL_TEST_VAR=kept run "$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" "$SLCTL" --root "$T/root" \
		run --no-misery -- sh -c "cat '$T/root/$MITIGATE'; id -u; echo \$SLCTL_TEST_VAR; exit 5"
	expect_rc 5
	[ "$out" = "0
$NOBODY
kept" ] || fail "CMD saw: $out"
	expect_clean 1
	[ "$(grep -c __helper "$FAKE_PKEXEC_LOG")" = 1 ] || fail "not one pkexec call: $(cat "$FAKE_PKEXEC_LOG")"
	grep -q "__helper lease --root $T/root\$" "$FAKE_PKEXEC_LOG" || fail "pkexec called as: $(cat "$FAKE_PKEXEC_LOG")"
}

test_user_exemption_through_pkexec() {
	require_root "the setuid pkexec stand-in and the root helper"
	patched_child "$NOBODY"
	unprivileged_env
	run in_pid_namespace "${AS_NOBODY[@]}" "$SLCTL" --root "$T/root" run -- sh -c "id -u; tail -n1 '$T/root/proc/'\$\$/split_lock"
	expect_rc 0
	[ "$out" = "$NOBODY
misery_exempt 1" ] || fail "CMD saw: $out"
	grep -q "__helper exempt [2-9] --root $T/root\$" "$FAKE_PKEXEC_LOG" || fail "pkexec called as: $(cat "$FAKE_PKEXEC_LOG")"
}

test_sigkill_of_a_users_run_drops_the_lease_at_once() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	unprivileged_env
	"$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" "$SLCTL" --root "$T/root" run -- sh -c "$(waiter a)" &
	local a=$!
	started a
	[ "$(value)" = 0 ] || fail "not 0 during the run"
	kill -KILL $a
	wait $a 2>/dev/null
	# The helper reads EOF on its stdin and drops the lease itself.
	wait_value 1
	go a
	expect_clean 1
}

test_sigkill_of_the_helper_is_undone_by_the_next_slctl() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	unprivileged_env
	"$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" "$SLCTL" --root "$T/root" run -- sh -c "$(waiter a)" \
		2>"$T/a.err" &
	local a=$! helper
	started a
	helper=$(awk '/__helper lease/ {print $1}' "$FAKE_PKEXEC_LOG")
	[ -n "$helper" ] || fail "no helper in $(cat "$FAKE_PKEXEC_LOG")"
	kill -KILL "$helper"
	proc_gone "$helper"
	go a
	wait $a || fail "the run's status is CMD's, 0, not $?"
	grep -q "the helper holding the lease ended with status 137" "$T/a.err" || fail "no warning: $(cat "$T/a.err")"
	[ "$(value)" = 0 ] || fail "who restored it?"
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- true
	expect_rc 0
	expect_clean 1
}

test_a_refused_authorization_starts_nothing() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	unprivileged_env
	local answer
	for answer in 126 127; do
		FAKE_PKEXEC_ANSWER=$answer run "$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" \
			"$SLCTL" --root "$T/root" run -- /bin/touch "$T/flags/started"
		expect_rc 3
		expect_err "polkit did not authorize"
		[ ! -e "$T/flags/started" ] || fail "CMD started"
		expect_clean 1
	done
}

test_without_pkexec_a_user_gets_exit_3() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	chmod 755 "$T"
	chmod -R a+rX "$T/root"
	chmod 700 "$T/root/run/slctl"
	mkdir -p -m 1777 "$T/flags"
	run "$AS_PROCESS" "$T/root" "$NOBODY" /usr/bin/env PATH=/nonexistent "${AS_NOBODY[@]}" \
		"$SLCTL" --root "$T/root" run -- /bin/touch "$T/flags/started"
	expect_rc 3
	expect_err "pkexec"
	[ ! -e "$T/flags/started" ] || fail "CMD started"
}

# ---- the helper refuses every other use ------------------------------------

test_helper_refuses_every_other_use() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	unprivileged_env
	tree_hash "$T/root" >"$T/before"
	local args
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		run helper_call "$NOBODY" $args --root "$T/root"
		expect_rc 2
		expect_err "__helper refuses"
	done <<-'EOF'

		frobnicate
		exempt
		exempt 0
		exempt 1
		exempt 01
		exempt -5
		exempt +5
		exempt 5x
		exempt 99999999999
		exempt 5 6
		lease extra
		lease --json
		status
	EOF
	# Not through pkexec: no PKEXEC_UID.
	run "$SLCTL" --root "$T/root" __helper lease </dev/null
	expect_rc 2
	expect_err "through pkexec only"
	# PKEXEC_UID set by hand, without root.
	PKEXEC_UID=$NOBODY run "${AS_NOBODY[@]}" "$SLCTL" --root "$T/root" __helper lease </dev/null
	expect_rc 3
	# A lease needs pipes from slctl run, not a terminal or a file.
	run helper_call "$NOBODY" lease --root "$T/root"
	expect_rc 2
	expect_err "must be pipes"
	# The calling process must be the user's; this one is root's.
	run helper_call_piped 0 lease --root "$T/root"
	expect_rc 2
	expect_err "does not belong to uid $NOBODY"
	# A process that is not the caller's child: the test's shell.
	mkdir -p "$T/root/proc/$$"
	printf 'Name:\tbash\nPPid:\t1\nUid:\t%s\t%s\t%s\t%s\n' "$NOBODY" "$NOBODY" "$NOBODY" "$NOBODY" \
		>"$T/root/proc/$$/status"
	run helper_call "$NOBODY" exempt $$ --root "$T/root"
	expect_rc 2
	expect_err "not the calling process's child"
	rm -rf "$T/root/proc/$$"
	# A root the user could have prepared.
	cp -a "$T/root" "$T/mine"
	chown -R nobody "$T/mine"
	HELPER_ROOT=$T/mine run helper_call_piped "$NOBODY" lease --root "$T/mine"
	expect_rc 2
	expect_err "not a directory of root's"
	[ ! -e "$T/mine/run/slctl/leases" ] || fail "a lease in the user's tree"
	# Every refusal above left the root as it was.
	rm -rf "$T"/root/proc/[0-9]*
	expect_unchanged "$T/before"
}

test_helper_does_only_the_way_of_this_kernel() {
	require_root "the setuid pkexec stand-in and the root helper"
	patched_child "$NOBODY"
	unprivileged_env
	tree_hash "$T/root" >"$T/before"
	# A lease on a kernel with the exemption is not the helper's job.
	run helper_call_piped "$NOBODY" lease --root "$T/root"
	expect_rc 2
	expect_err "with an exemption, not a lease"
	[ "$(value)" = 1 ] || fail "kernel.split_lock_mitigate changed"
	[ ! -e "$T/root/run/slctl/leases" ] || fail "a lease directory"
}

# ---- where there is nothing to lift, or no way --------------------------------

test_bus_lock_only_cpu_runs_cmd_unchanged_and_says_so() {
	copy_fixture stock-ac
	sed -i 's/ split_lock_detect / /' "$T/root/proc/cpuinfo"
	grep -q ' bus_lock_detect ' "$T/root/proc/cpuinfo" || fail "fixture changed"
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c 'echo ran; exit 4'
	expect_rc 4
	[ "$out" = ran ] || fail "CMD output: $out"
	expect_err "bus locks only"
	expect_err "governs nothing here; running sh unchanged."
	[ ! -e "$T/root/run/slctl/leases" ] || fail "a lease for nothing"
	[ "$(value)" = 1 ] || fail "the sysctl was touched"
}

test_seq_mode_starts_nothing() {
	copy_fixture patched-seq
	run "$SLCTL" --root "$T/root" run -- touch "$T/started"
	expect_rc 1
	expect_err "seq mode"
	[ ! -e "$T/started" ] || fail "CMD started"
}

test_old_kernel_runs_cmd_unchanged_quietly() {
	copy_fixture old-5.10
	run "$SLCTL" --root "$T/root" run -- sh -c 'echo ran'
	expect_rc 0
	[ "$out" = ran ] || fail "CMD output: $out"
	[ -z "$err" ] || fail "said: $err"
}

test_usage_errors() {
	require_root "the setuid pkexec stand-in and the root helper"
	copy_fixture stock-ac
	tree_hash "$T/root" >"$T/before"
	run "$SLCTL" --root "$T/root" run touch "$T/started"
	expect_rc 2
	expect_err "after '--'"
	run "$SLCTL" --root "$T/root" run --
	expect_rc 2
	run "$SLCTL" --root "$T/root" run --frobnicate -- true
	expect_rc 2
	run "$SLCTL" --root "$T/root" --json run -- true
	expect_rc 2
	[ ! -e "$T/started" ] || fail "CMD started"
	expect_unchanged "$T/before"
	# CMD's own options are CMD's, the global ones included.
	run "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sh -c 'echo "$@"' sh --json -v --root x
	expect_out "--json -v --root x"
}

# Named to run last: every test above used fake roots only.
test_zz_the_machines_own_sysctl_is_untouched() {
	[ "$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo none)" = "$REAL_MITIGATE" ] ||
		fail "the real kernel.split_lock_mitigate changed"
	[ ! -e /run/slctl/leases ] || [ -z "$(ls /run/slctl/leases)" ] || fail "leases in the real /run/slctl"
}

run_tests
