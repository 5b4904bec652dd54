# Shared by tests/cli/run.sh and tests/cli/run-attacks.sh (sourced after
# tests/lib.sh, with FAKE_PKEXEC and MITIGATE set): the fake root a user may
# read but not write, pkexec's stand-in installed setuid first on PATH,
# and the waits on the fake kernel's state.

# A root a user may read but not write (slctl's own directories stay 0700),
# and pkexec's stand-in first on PATH.
unprivileged_env() {
	chmod 755 "$T"
	chmod -R a+rX "$T/root"
	[ -d "$T/root/run/slctl" ] && chmod 700 "$T/root/run/slctl"
	mkdir -p "$T/bin"
	install -m 4755 -o root "$FAKE_PKEXEC" "$T/bin/pkexec"
	chmod 755 "$T/bin"
	export PATH="$T/bin:$PATH" FAKE_PKEXEC_LOG=$T/pkexec.log FAKE_PKEXEC_PROC=$T/root/proc
	: >"$FAKE_PKEXEC_LOG"
	chmod 666 "$FAKE_PKEXEC_LOG"
	mkdir -p -m 1777 "$T/flags"
}

value() {
	cat "$T/root/$MITIGATE"
}

wait_for() { # FILE: until it exists (10 s at most)
	local i
	for ((i = 0; i < 200; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "timed out waiting for $1"
}
