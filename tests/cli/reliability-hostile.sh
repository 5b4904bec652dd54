# Hostile input: random bytes, NULs, invalid UTF-8, huge lines, symlinks out
# of the root, insecure directories. slctl ends with exit 0 or 1, never a
# signal, within a memory and time bound, and keeps its JSON valid.
source "$(dirname "$0")/../lib.sh"

HOSTILE_LOG=${HOSTILE_LOG:-/dev/null}

# bounded CMD...: run with 30 s and (outside ASan) 256 MiB of address space.
bounded() {
	local limit=262144
	ldd "$TOP/$BUILD_DIR/slctl" 2>/dev/null | grep -q libasan && limit=unlimited
	[ "${SLCTL##*/}" = slctl-valgrind ] && limit=unlimited
	run bash -c 'ulimit -v '"$limit"'; exec timeout 30 "$@"' bounded "$@"
	echo "$*" >>"$HOSTILE_LOG"
	[ "$rc" -lt 124 ] || fail "ended by a signal or timeout ($rc): $*"
	[ "$rc" -le 1 ] || fail "exit $rc, expected 0 or 1: $*"
}

valid_json() {
	jq -e . <<<"$out" >/dev/null 2>&1 || fail "invalid JSON from $1: $(head -c 300 <<<"$out")"
}

test_fifty_megabytes_of_random_bytes_everywhere() {
	copy_fixture stock-ac
	head -c 50M /dev/urandom >"$T/random"
	local f
	for f in dev/kmsg proc/cpuinfo proc/cmdline proc/sys/kernel/osrelease \
		etc/sysctl.d/50-random.conf; do
		copy_fixture stock-ac
		cp "$T/random" "$T/root/$f"
		bounded "$SLCTL" --root "$T/root" --json status
		valid_json "random $f"
	done
	copy_fixture stock-ac
	cp "$T/random" "$T/root/etc/sysctl.d/50-random.conf"
	bounded "$SLCTL" --root "$T/root" mitigate off --persist
}

test_nul_bytes_and_invalid_utf8_in_the_log() {
	copy_fixture stock-ac
	{
		printf '6,1,0,-;x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks\n'
		printf '4,2,1,-;x86/split lock detection: #AC: \xff\xfe\x80bad/12 took a split_lock trap at address: 0x1\n'
		printf '4,3,2,-;x86/split lock detection: #AC: nul\\x00x/13 took a split_lock trap at address: 0x1\n'
		printf '4,4,3,-;\0\0\0\n'
		printf '\0\0\0\0\n'
	} >"$T/root/dev/kmsg"
	bounded "$SLCTL" --root "$T/root" --json status
	expect_rc 0
	valid_json "NULs and invalid UTF-8"
	expect_json '.mode.current' warn
	expect_json '.offenders.events' 2
	# Evidence printed as JSON stays valid even with raw bytes in it.
	printf '6,1,0,-;x86/split lock detection: disabled\xff\n' >"$T/root/dev/kmsg"
	bounded "$SLCTL" --root "$T/root" --json status
	valid_json "invalid UTF-8 boot line"
}

test_four_megabyte_lines() {
	copy_fixture stock-ac
	{
		printf '4,1,0,-;'
		head -c 4M /dev/zero | tr '\0' 'A'
		printf '\n6,2,1,-;x86/split lock detection: disabled\n'
	} >"$T/root/dev/kmsg"
	# systemd-sysctl reads a file up to its first line over 1 MiB.
	{ printf 'kernel.split_lock_mitigate = 0\n'; head -c 4M /dev/zero | tr '\0' 'k';
	  printf ' = 0\nkernel.split_lock_mitigate = 1\n'; } >"$T/root/etc/sysctl.d/50-long.conf"
	bounded "$SLCTL" --root "$T/root" --json status
	expect_rc 0
	# The record after the long one is still read.
	expect_json '.mode.current' off
	expect_json '.mitigate.persisted' 0
}

test_record_without_final_newline() {
	copy_fixture stock-ac
	printf '6,1,0,-;x86/split lock detection: #DB: warning on user-space bus_locks' >"$T/root/dev/kmsg"
	bounded "$SLCTL" --root "$T/root" --json status
	expect_json '.mode.current' warn
	expect_json '.mode.source' boot-log
}

test_symlinks_pointing_out_of_the_root_stay_inside() {
	copy_fixture stock-ac
	# On this machine /proc/cpuinfo exists and says "hypervisor"; the root's
	# link must resolve inside the root, where nothing is.
	rm "$T/root/proc/cpuinfo" "$T/root/dev/kmsg"
	ln -s /proc/cpuinfo "$T/root/proc/cpuinfo"
	ln -s ../../../../../../../dev/kmsg "$T/root/dev/kmsg"
	ln -s /etc/passwd "$T/root/etc/sysctl.d/10-passwd.conf"
	bounded "$SLCTL" --root "$T/root" --json status
	expect_rc 0
	expect_json '.cpu.known' false
	expect_json '.offenders.events' null
	expect_json '.mode.source' default
	expect_json '.mode.guess' true
	# Writing through a link that leaves the root is refused too.
	rm -rf "$T/root/etc/sysctl.d"
	mkdir -p "$T/outside"
	ln -s "$T/outside" "$T/root/etc/sysctl.d"
	bounded "$SLCTL" --root "$T/root" mitigate off --persist
	[ -z "$(ls -A "$T/outside")" ] || fail "wrote outside the root: $(ls -A "$T/outside")"
}

# The same where openat2 is filtered and paths are resolved by hand.
test_symlinks_stay_inside_without_openat2() {
	SPLITLOCK_NO_OPENAT2=1 test_symlinks_pointing_out_of_the_root_stay_inside
}

test_world_writable_sysctl_directory_is_refused() {
	copy_fixture stock-ac
	chmod 777 "$T/root/etc/sysctl.d"
	local before
	before=$(tree_hash "$T/root")
	bounded "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "every user can write there"
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "tree changed"
}

run_tests
