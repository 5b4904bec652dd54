# A kernel built without UNIX sockets (the kernel job's tinyconfig VMs;
# CONFIG_UNIX=n): lookups that are bounded by a child cannot hand a
# descriptor back, so they are done in the process, as before the bound
# (lib/core/bounded.c, no_unix_sockets()). Running out of descriptors is not that
# case: it stays an error, never an unbounded wait.
#
# socketpair() fails through tests/fault/faultinject.c; only fake roots.
source "$(dirname "$0")/../lib.sh"

SHIM=$TOP/$BUILD_DIR/tests/faultinject.so

preload() {
	# An ASan build wants its runtime first in the preload list.
	local asan
	asan=$(ldd "$TOP/$BUILD_DIR/slctl" 2>/dev/null | awk '/libasan/ {print $3}')
	echo "${asan:+$asan }$SHIM"
}

without_sockets() { # ERRNO ARGS...
	local e=$1
	shift
	run env LD_PRELOAD="$(preload)" FAULT_OP=socketpair FAULT_NTH=1 FAULT_REPEAT=1 \
		FAULT_ERRNO="$e" FAULT_LOG="$T/faults" timeout 20 "$SLCTL" --root "$T/root" "$@"
}

set_up() {
	copy_fixture stock-ac
	printf 'kernel.split_lock_mitigate = 0\n' >"$T/root/etc/sysctl.d/zz-games.conf"
}

# The listing of /etc/sysctl.d still finds the drop-in that decides.
expect_status_reads_the_drop_in() { # ERRNO
	set_up
	without_sockets "$1" --json status
	[ "$rc" = 0 ] || fail "status without UNIX sockets ($1): exit $rc: $err"
	[ -s "$T/faults" ] || fail "socketpair() was never called: the test proves nothing"
	grep -q '"persisted_in": *"/etc/sysctl.d/zz-games.conf"' <<<"$out" ||
		fail "the deciding drop-in was not found: $out"
}

test_status_without_unix_sockets_enosys() { expect_status_reads_the_drop_in ENOSYS; }
test_status_without_unix_sockets_eafnosupport() { expect_status_reads_the_drop_in EAFNOSUPPORT; }

test_mitigate_persist_without_unix_sockets_writes_the_drop_in() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	set_up
	rm -f "$T/root/etc/sysctl.d/zz-games.conf"
	without_sockets ENOSYS mitigate off --persist
	[ "$rc" = 0 ] || fail "mitigate off --persist: exit $rc: $err"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 0 ] || fail "runtime value not set"
	grep -qx 'kernel.split_lock_mitigate *= *0' "$T/root/etc/sysctl.d/zz-slctl.conf" ||
		fail "drop-in: $(cat "$T/root/etc/sysctl.d/zz-slctl.conf" 2>&1)"
}

# Out of descriptors is not a kernel without sockets: no unbounded walk,
# one sentence and exit 1.
test_status_out_of_descriptors_fails_and_says_why() {
	set_up
	without_sockets EMFILE status
	[ -s "$T/faults" ] || fail "socketpair() was never called: the test proves nothing"
	expect_rc 1
	expect_err "no socket for a bounded lookup"
}

test_mitigate_out_of_descriptors_changes_nothing() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	set_up
	rm -f "$T/root/etc/sysctl.d/zz-games.conf"
	without_sockets EMFILE mitigate off --persist
	[ -s "$T/faults" ] || fail "socketpair() was never called: the test proves nothing"
	expect_rc 1
	expect_err "nothing was changed"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 1 ] || fail "runtime value changed"
	[ ! -e "$T/root/etc/sysctl.d/zz-slctl.conf" ] || fail "a drop-in was written"
}

run_tests
