# Hostile input: random bytes, NULs, invalid UTF-8, huge lines, symlinks out
# of the root, insecure directories. slctl ends with exit 0 or 1, never a
# signal, within a memory and time bound, and keeps its JSON valid.
source "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

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
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
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

test_fifos_in_sysctl_d_and_grub_d_do_not_hang_status() {
	copy_fixture mode/debian-grub
	mkdir -p "$T/root/etc/sysctl.d"
	mkfifo "$T/root/etc/sysctl.d/50-fifo.conf" "$T/root/etc/default/grub.d/50-fifo.cfg"
	bounded "$SLCTL" --root "$T/root" --json status
	valid_json "FIFOs in sysctl.d and grub.d"
	expect_err "/etc/sysctl.d/50-fifo.conf is a FIFO; it was not read"
	expect_err "/etc/default/grub.d/50-fifo.cfg is a FIFO; it was not read"
	# Everything else is still answered.
	expect_json '.kernel.release' "$(cat "$T/root/proc/sys/kernel/osrelease")"
}

test_symlinked_files_are_not_followed_when_read() {
	copy_fixture stock-ac
	echo "6.1.0-evil" >"$T/root/elsewhere"
	rm "$T/root/proc/sys/kernel/osrelease"
	ln -s /elsewhere "$T/root/proc/sys/kernel/osrelease"
	bounded "$SLCTL" --root "$T/root" --json status
	valid_json "symlinked osrelease"
	[ "$(jq -r .kernel.release <<<"$out")" != 6.1.0-evil ] || fail "followed a symlink at osrelease"
}

test_lock_directory_is_private_to_root() {
	require_root "a lock directory owned by root"
	copy_fixture mode/debian-grub
	rm -rf "$T/root/run"
	run "$SLCTL" --root "$T/root" mode fatal --persist
	expect_rc 0
	[ "$(stat -c '%a %u %F' "$T/root/run/slctl")" = "700 0 directory" ] ||
		fail "lock directory: $(stat -c '%a %u %F' "$T/root/run/slctl")"
	[ ! -e "$T/root/run/lock/slctl.lock" ] || fail "lock still in world-writable /run/lock"
}

test_lock_directory_others_can_write_is_refused() {
	require_root "chown of the lock directory to root"
	local how before
	for how in mode777 owner symlink; do
		copy_fixture mode/debian-grub
		rm -rf "$T/root/run/slctl"
		case $how in
		mode777) install -d -m 0777 "$T/root/run/slctl" ;;
		owner) install -d -m 0700 -o nobody "$T/root/run/slctl" ;;
		symlink) mkdir -m 0700 "$T/root/run/elsewhere"
			ln -s elsewhere "$T/root/run/slctl" ;;
		esac
		before=$(tree_hash "$T/root")
		bounded "$SLCTL" --root "$T/root" mode fatal --persist
		expect_rc 1
		expect_one_sentence
		case $how in
		symlink) expect_err "/run/slctl is a symbolic link" ;;
		*) expect_err "the lock is taken only in a directory of root's with mode 0700, remove it, then run the command again." ;;
		esac
		[ "$(tree_hash "$T/root")" = "$before" ] || fail "$how: tree changed"
	done
}

# Started with 0, 1 and 2 closed, slctl's own files must not take their
# numbers: the lock file would become stderr and the tools' output broken.
test_closed_standard_descriptors() {
	copy_fixture mode/debian-grub
	stub_env
	# Under check-valgrind, slctl itself: valgrind needs the descriptors
	# that this test takes away from slctl.
	"${SLCTL_UNWRAPPED:-$SLCTL}" -v --root "$T/root" mode fatal --persist --run-tools <&- >&- 2>&-
	rc=$?
	expect_rc 0
	grep -q 'split_lock_detect=fatal' "$T/root/boot/grub/grub.cfg" || fail "grub.cfg not regenerated"
	[ ! -s "$T/root/run/slctl/lock" ] || fail "the lock file received: $(cat "$T/root/run/slctl/lock")"
}

# metadata FILE: owner, group, mode and every extended attribute, ACLs and
# security.selinux included, in one comparable text.
metadata() {
	stat -c '%U:%G %a' "$1"
	getfattr --absolute-names -d -m - -e hex "$1" | sed 1d
}

test_replaced_file_keeps_mode_owner_acl_and_xattrs() {
	require_cmd setfacl acl
	require_cmd setfattr attr
	require_root "chown to another user, security.* xattrs"
	copy_fixture mode/debian-grub
	local f=$T/root/etc/default/grub before
	chown nobody:adm "$f"
	chmod 0640 "$f"
	if ! setfacl -m u:daemon:r "$f" 2>/dev/null || ! setfattr -n user.origin -v admin "$f" 2>/dev/null; then
		skip "no ACL or user xattr support on $(stat -f -c %T "$T")"
	fi
	setfattr -n security.selinux -v "system_u:object_r:bootloader_etc_t:s0" "$f" 2>/dev/null ||
		fail "cannot set security.selinux on $(stat -f -c %T "$T")"
	before=$(metadata "$f")
	run "$SLCTL" --root "$T/root" mode fatal --persist
	expect_rc 0
	grep -q split_lock_detect=fatal "$f" "$T/root/etc/default/grub.d/zz-slctl.cfg" ||
		fail "the change was not written"
	[ "$(metadata "$f")" = "$before" ] || fail "metadata changed: $before -> $(metadata "$f")"
}

test_symlinked_sysctl_directory_gets_a_true_message() {
	copy_fixture stock-ac
	rm -rf "$T/root/etc/sysctl.d"
	mkdir "$T/root/etc/real.d"
	ln -s real.d "$T/root/etc/sysctl.d"
	bounded "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "/etc/sysctl.d is a symbolic link (to real.d)"
	! grep -q "every user" <<<"$err" || fail "untrue message: $err"
	[ -z "$(ls -A "$T/root/etc/real.d")" ] || fail "wrote through the link"
}

# systemd-sysctl treats kernel/split_lock_mitigate as kernel.split_lock_mitigate:
# a second line in the slash form in our own drop-in would win over ours.
test_slash_form_line_in_our_dropin_is_replaced_too() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	copy_fixture stock-ac
	"$SLCTL" --root "$T/root" mitigate on --persist >/dev/null 2>&1 || fail "setup failed"
	echo "kernel/split_lock_mitigate = 1" >>"$T/root/etc/sysctl.d/zz-slctl.conf"
	run "$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 0
	[ "$(grep -c 'split_lock_mitigate' "$T/root/etc/sysctl.d/zz-slctl.conf")" = 1 ] ||
		fail "drop-in: $(cat "$T/root/etc/sysctl.d/zz-slctl.conf")"
	run "$SLCTL" --root "$T/root" --json status
	expect_json .mitigate.persisted 0
}

run_tests
