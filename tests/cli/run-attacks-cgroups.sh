#!/usr/bin/env bash
# slctl run's root helper against a user who has it killed through a
# cgroup that is not the user's own (eighth hostile review, issue 24):
# a root-owned session cgroup (systemd's session-N.scope) with a memory
# limit, whose OOM killer picks the largest process there, and logind's
# KillSession, which a session's owner may call without authorization.
# Either ended the helper in the middle of a lease and left the penalty
# off after the run. The helper now moves to the root cgroup of every
# hierarchy and sets oom_score_adj -1000.
#
# The setting is run-attacks.sh's (tests/attack-helper.sh), with a
# root-owned cgroup of the test's own standing for the session's scope.
# Nothing here reads or writes the real /proc/sys.
source "$(dirname "$0")/../lib.sh"
source "$TOP/tests/attack-helper.sh"

# The cgroup of this shell in the v1 hierarchy of CONTROLLER (else v2).
cgroup_of() { # CONTROLLER
	local mnt path
	mnt=$(awk -v c="$1" '$9 == "cgroup" && $NF ~ "(^|,)" c "(,|$)" {print $5; exit}' /proc/self/mountinfo)
	if [ -n "$mnt" ]; then
		path=$(awk -F: -v c="$1" '$2 ~ "(^|,)" c "(,|$)" {print $3}' /proc/self/cgroup)
	else
		mnt=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
		path=$(awk -F: '$1 == 0 {print $3}' /proc/self/cgroup)
	fi
	[ -n "$mnt" ] || return 1
	echo "$mnt$path"
}

end_scope() { # DIR
	local p
	end_helpers
	for p in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -KILL "$p"; done
	for ((p = 0; p < 50; p++)); do
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	true
}

# The user's session in a root-owned memory cgroup with a 64 MiB limit.
# The caller takes a lease, then fills a memfd, charged to the cgroup and
# mapped by nobody (no process's RSS): the cgroup's OOM killer picked the
# helper, the largest process there, and the penalty stayed off.
test_the_session_cgroups_oom_killer_does_not_end_the_lease_early() {
	require_root "the setuid pkexec stand-in and a memory cgroup"
	copy_fixture stock-ac
	unprivileged_env
	local cg
	cg=$(cgroup_of memory)/slctl-test-oom-$$ || skip "no memory hierarchy"
	mkdir "$cg" 2>/dev/null || skip "cannot make a memory cgroup"
	trap "end_scope '$cg'" EXIT
	if [ -e "$cg/memory.limit_in_bytes" ]; then
		echo $((64 << 20)) >"$cg/memory.limit_in_bytes"
	else
		echo $((64 << 20)) >"$cg/memory.max" || skip "no memory limit to set"
	fi
	cc -O2 -static -o "$T/oom-caller" "$TOP/tests/fake/oom-caller.c" 2>/dev/null || skip "no static libc"
	chmod 755 "$T" "$T/oom-caller"
	(
		echo "$BASHPID" >"$cg/cgroup.procs"
		exec "$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" "$T/oom-caller" "$SLCTL" "$T/root"
	) 2>"$T/caller.err" &
	caller=$!
	# The helper's "ready" (the caller says so) is the take: once the
	# helper survives the OOM kill, the caller dies and the lease ends at
	# once, so 0 may be too short-lived to be polled on a loaded machine.
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "holds the lease" "$T/caller.err" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "holds the lease" "$T/caller.err" ||
		fail "no lease taken: $(value); $(cat "$T/caller.err")"
	for ((i = 0; i < 600; i++)); do
		kill -0 "$caller" 2>/dev/null || break
		sleep 0.1
	done
	wait "$caller" 2>/dev/null
	proc_gone "$caller"
	grep -q "oom-kill\|oom_kill [1-9]" "$cg/memory.oom_control" "$cg/memory.events" 2>/dev/null ||
		echo "# no OOM kill recorded: $(cat "$T/caller.err")" >&2
	value_becomes 1 10 || fail "the run is over and the penalty is still off (value $(value), $(leases_left) lease(s) left): the OOM killer ended the helper"
	[ "$(leases_left)" = 0 ] || fail "leases left: $(ls "$T/root/run/slctl/leases")"
}

# logind's KillSession of the user's own session (loginctl kill-session
# --signal=KILL, no authorization for the session's owner): systemd, as
# root, SIGKILLs every process of session-N.scope, a root-owned cgroup.
# The helper stayed there and died with the caller's session, the lease
# left behind. systemd's step is done here by the test, as root.
test_a_kill_of_the_users_session_scope_does_not_reach_the_helper() {
	require_root "the setuid pkexec stand-in and a cgroup"
	copy_fixture stock-ac
	unprivileged_env
	local scope hp p
	scope=$(cgroup_of pids)/slctl-test-session-$$.scope || skip "no pids hierarchy"
	mkdir "$scope" 2>/dev/null || skip "cannot make a cgroup"
	trap "end_scope '$scope'" EXIT
	export SLCTL ROOT=$T/root T
	(
		echo "$BASHPID" >"$scope/cgroup.procs"
		exec "$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" "$BASH" -c \
			'sleep 600 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	) >/dev/null 2>>"$T/caller.err" &
	caller=$!
	value_becomes 0 30 || fail "no lease taken: $(value); $(cat "$T/caller.err")"
	hp=$(helper_pid)
	for p in $(cat "$scope/cgroup.procs"); do kill -KILL "$p"; done
	proc_gone "$caller"
	value_becomes 1 10 || fail "the session's kill took the root helper with it (value $(value), $(leases_left) lease(s) left)"
	[ "$(leases_left)" = 0 ] || fail "leases left: $(ls "$T/root/run/slctl/leases")"
	helper_ends "$hp" || fail "the helper $hp outlived its run by 10 s"
}

# In the root cgroup of every hierarchy, and out of the OOM killer's choice.
test_the_helper_leaves_every_cgroup_and_the_oom_killers_choice() {
	require_root "the setuid pkexec stand-in and a cgroup"
	copy_fixture stock-ac
	unprivileged_env
	trap 'kill -KILL "${caller:-}" 2>/dev/null; end_helpers' EXIT
	# A chroot without /sys/fs/cgroup (a package build's testbed) shows
	# no hierarchy to leave, to the helper as to the user.
	grep -q ' - cgroup2\? ' /proc/self/mountinfo || skip "no cgroup hierarchy is mounted here"
	start_caller 'sleep 600 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	value_becomes 0 30 || fail "no lease taken: $(value); $(cat "$T/caller.err")"
	local hp
	hp=$(helper_pid)
	awk -F: '$3 != "/"' "/proc/$hp/cgroup" | grep . && fail "the helper is still in a cgroup below a root (above)"
	# -1000 needs CAP_SYS_RESOURCE, which a container may lack: 0 then.
	local want=-1000
	(( 0x$(awk '/^CapEff:/ {print $2}' "/proc/$hp/status") & (1 << 24) )) || want=0
	[ "$(cat "/proc/$hp/oom_score_adj")" = "$want" ] || fail "oom_score_adj $(cat "/proc/$hp/oom_score_adj"), not $want"
	kill_caller_and_expect_the_penalty_back
}

run_tests
