# Shared by tests/cli/run-attacks.sh and tests/cli/run-attacks-locks.sh
# (sourced after tests/lib.sh): the setting of an attack on the root
# helper, run.sh's fake root with the setuid pkexec stand-in and nobody as
# the user, and the checks every attack ends with.

FAKE_PKEXEC=$TOP/$BUILD_DIR/tests/fake-pkexec
AS_PROCESS=$TOP/tests/fake/as-process
REAL_MITIGATE=$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo none)
MITIGATE=proc/sys/kernel/split_lock_mitigate
NOBODY=$(id -u nobody)
AS_NOBODY=(/usr/bin/setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all)

proc_gone() { # PID: the process died; the fake kernel forgets it
	rm -rf "$T/root/proc/$1"
}

# The kernel's view of PID in the fake root, refreshed: its real stat
# line (state, start time) and status with UID and parent.
proc_show() { # PID UID
	local d=$T/root/proc/$1 ppid
	mkdir -p "$d"
	cp "/proc/$1/stat" "$d/stat"
	ppid=$(awk '/^PPid:/ {print $2}' "/proc/$1/status")
	printf 'Name:\tx\nState:\t%s\nPPid:\t%s\nUid:\t%s\t%s\t%s\t%s\n' \
		"$(awk '/^State:/ {print $2}' "/proc/$1/status")" "$ppid" "$2" "$2" "$2" "$2" >"$d/status"
	chmod -R a+rX "$d"
}

source "$TOP/tests/run-helper.sh"

# Until the sysctl holds VALUE, SECONDS at most (10); false after that.
value_becomes() { # VALUE [SECONDS]
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		[ "$(value)" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

helper_pid() { # the PID of the last helper pkexec ran (30 s at most: a loaded machine)
	local i pid
	for ((i = 0; i < 600; i++)); do
		pid=$(awk '/__helper/ {p = $1} END {print p}' "$FAKE_PKEXEC_LOG")
		[ -n "$pid" ] && { echo "$pid"; return 0; }
		sleep 0.05
	done
	fail "no helper in $(cat "$FAKE_PKEXEC_LOG")"
}

# Until the helper PID has exited (gone or a zombie), SECONDS at most
# (10): a helper ends right after its drop, but under ASan its exit (the
# leak check) takes a while on a loaded machine.
helper_ends() { # PID [SECONDS]
	local i
	for ((i = 0; i < ${2:-10} * 10; i++)); do
		[ ! -d "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

# Every helper this test started is gone at its end, whatever happened:
# an attack that worked leaves one behind.
end_helpers() {
	local pid
	[ -f "${FAKE_PKEXEC_LOG:-/nonexistent}" ] || return 0
	for pid in $(awk '/__helper/ {print $1}' "$FAKE_PKEXEC_LOG"); do
		kill -CONT "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
}

# A caller of the user's that the fake /proc knows: bash running SCRIPT
# as nobody, with $SLCTL, $ROOT, $T exported to it. Sets $caller.
start_caller() { # SCRIPT
	export SLCTL ROOT=$T/root T
	"$AS_PROCESS" "$T/root" "$NOBODY" "${AS_NOBODY[@]}" "$BASH" -c "$1" >/dev/null 2>>"$T/caller.err" &
	caller=$!
	# Killing it is the test's doing: no "Killed" notice from bash.
	disown "$caller"
}

# The caller dies (SIGKILL; the fake kernel forgets it): the lease must go
# with it, the sysctl back to 1 within 5 s.
kill_caller_and_expect_the_penalty_back() {
	kill -KILL "$caller"
	proc_gone "$caller"
	value_becomes 1 5 || fail "the caller is gone, the penalty is still off"
}

leases_left() {
	ls "$T/root/run/slctl/leases" 2>/dev/null | grep -c -- '-' || true
}
