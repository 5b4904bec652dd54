#!/usr/bin/env bash
# Root's status, mitigate and mode against a user who holds the lock of a
# directory they list (ninth hostile review, issue 24).
#
# getdents64() takes the directory's lock shared, always: no cache spares
# it. Every directory of the configuration slctl reads (/etc/sysctl.d,
# /usr/lib/sysctl.d, /etc/default/grub.d, /boot/loader/entries, ...) is
# readable by every user, who can hold that lock shared (a getdents64()
# into a buffer of its own FUSE file system that never answers) and queue
# a mkdir there, which takes it exclusively before it checks permissions.
# Root's plain `slctl status` then waited behind it until the user let go.
# No authorization is needed and no penalty is lifted: the commands must
# end, within the bound of a lookup, with one sentence and exit 1.
#
# Nothing here reads or writes the real /proc/sys.
source "$(dirname "$0")/../lib.sh"
source "$TOP/tests/attack-helper.sh"
source "$TOP/tests/attack-hold.sh"
source "$TOP/tests/run-helper.sh"

set_up_a_fake_root() { # FIXTURE
	require_root "a FUSE mount"
	copy_fixture "$1"
	unprivileged_env
	trap cleanup EXIT
	hangfs_up
	install -d -m 0700 "$T/root/run/slctl/leases"
}

# Root's `ARGS` with DIR held and a mkdir queued: ends with exit 1 and
# the sentence, within the lookup's bound, and prints no half report.
expect_roots_command_to_end() { # DIR ARGS...
	local dir=$1 pid rc
	shift
	run timeout 20 "$SLCTL" --root "$T/root" "$@"
	[ "$rc" = 0 ] || fail "root's $* fails without the hold: exit $rc: $err"
	hold_run_with_a_queued_writer "$T/root/$dir"
	"$SLCTL" --root "$T/root" "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	expect_it_ends "$pid" 12 "root's $* with $dir held"
	wait "$pid"
	rc=$?
	[ "$rc" = 1 ] || fail "root's $*: exit $rc, not 1: $(cat "$T/err")"
	grep -q "has waited 5 seconds on a directory's lock" "$T/err" || fail "stderr: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "half a report: $(cat "$T/out")"
}

test_roots_status_does_not_wait_on_a_held_etc_sysctl_d() {
	set_up_a_fake_root stock-ac
	expect_roots_command_to_end etc/sysctl.d status
}

test_roots_status_does_not_wait_on_a_held_usr_lib_sysctl_d() {
	set_up_a_fake_root stock-ac
	expect_roots_command_to_end usr/lib/sysctl.d status
}

test_roots_json_status_does_not_wait_on_a_held_etc_sysctl_d() {
	set_up_a_fake_root stock-ac
	expect_roots_command_to_end etc/sysctl.d --json status
}

test_roots_mitigate_does_not_wait_on_a_held_etc_sysctl_d() {
	set_up_a_fake_root stock-ac
	expect_roots_command_to_end etc/sysctl.d mitigate
}

test_roots_mitigate_does_not_wait_on_a_held_usr_lib_sysctl_d() {
	set_up_a_fake_root stock-ac
	expect_roots_command_to_end usr/lib/sysctl.d mitigate
}

test_roots_mode_does_not_wait_on_a_held_grub_d() {
	set_up_a_fake_root mode/debian-grub
	expect_roots_command_to_end etc/default/grub.d mode
}

test_roots_mode_does_not_wait_on_a_held_loader_entries() {
	set_up_a_fake_root mode/fedora-bls
	expect_roots_command_to_end boot/loader/entries mode
}

# `mitigate on` lists nothing: it sets the value, and ends at once.
test_roots_mitigate_on_with_etc_sysctl_d_held_sets_the_value() {
	set_up_a_fake_root stock-ac
	echo 0 >"$T/root/proc/sys/kernel/split_lock_mitigate"
	hold_run_with_a_queued_writer "$T/root/etc/sysctl.d"
	run timeout 20 "$SLCTL" --root "$T/root" mitigate on
	[ "$rc" = 0 ] || fail "mitigate on: exit $rc: $err"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 1 ] || fail "the value was not set"
}

# Without a hold, a listing made in a child reads what is there: the
# drop-in that decides is still found.
test_a_bounded_listing_finds_the_deciding_file() {
	set_up_a_fake_root stock-ac
	printf 'kernel.split_lock_mitigate = 0\n' >"$T/root/etc/sysctl.d/zz-games.conf"
	run "$SLCTL" --root "$T/root" --json status
	[ "$rc" = 0 ] || fail "status: exit $rc: $err"
	grep -q '"persisted_in": *"/etc/sysctl.d/zz-games.conf"' <<<"$out" || fail "not found: $out"
}

# Root's probe --msr with the msr driver not loaded: libkmod lists every
# modprobe.d directory and reads the module indexes, in a bounded child
# (tenth review: it waited in root's process until ^C).
expect_roots_probe_msr_to_end() { # DIR
	local pid
	require_root "a FUSE mount"
	copy_fixture probe-msr
	rm -rf "$T/root/dev/cpu"
	mkdir -p "$T/root/lib/modules/6.1.0-probe-test"
	echo 6.1.0-probe-test >"$T/root/proc/sys/kernel/osrelease"
	install -d -m 0755 "$T/root/$1"
	echo "# a distribution's file" >"$T/root/$1/a.conf"
	unprivileged_env
	trap cleanup EXIT
	hangfs_up
	run timeout 20 "$SLCTL" --root "$T/root" probe --msr
	[ "$rc" != 124 ] || fail "probe --msr hangs even without the hold"
	grep -q "has waited" <<<"$err" && fail "probe --msr stalls without the hold: $err"
	hold_run_with_a_queued_writer "$T/root/$1"
	"$SLCTL" --root "$T/root" probe --msr >"$T/out" 2>"$T/err" &
	pid=$!
	expect_it_ends "$pid" 15 "root's probe --msr with $1 held"
	wait "$pid"
	rc=$?
	[ "$rc" != 0 ] || fail "root's probe --msr with $1 held succeeded: $(cat "$T/out")"
	grep -q "the lookup of the msr driver has waited 10 seconds on a directory's lock" "$T/err" ||
		fail "stderr: $(cat "$T/err")"
}

test_roots_probe_msr_does_not_wait_on_a_held_etc_modprobe_d() {
	expect_roots_probe_msr_to_end etc/modprobe.d
}

test_roots_probe_msr_does_not_wait_on_a_held_lib_modprobe_d() {
	expect_roots_probe_msr_to_end lib/modprobe.d
}

# Root's mode --persist scans /boot, the ESP, /etc/default and /etc/kernel
# after writing its files and before the tool runs, to tell what the tool
# changed. A held /boot/grub (which slctl never writes) stopped it there,
# half-applied (tenth review); the scan is bounded now, and a stalled one
# is undone: exit 1, /etc/default as it was, the tool not run.
test_roots_mode_persist_with_a_held_boot_dir_ends_and_undoes() {
	local pid
	require_root "a FUSE mount, mknod and chroot"
	copy_fixture mode/debian-grub
	stub_env
	install -d -m 0755 "$T/root/boot/grub"
	echo "# grub.cfg" >"$T/root/boot/grub/grub.cfg"
	unprivileged_env
	trap cleanup EXIT
	hangfs_up
	run timeout 30 "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	[ "$rc" = 0 ] || fail "root's mode --persist fails without the hold: exit $rc: $err"
	: >"$STUB_LOG"
	cp -a "$T/root/etc/default" "$T/default.before"
	hold_run_with_a_queued_writer "$T/root/boot/grub"
	"$SLCTL" --root "$T/root" mode default --persist --run-tools >"$T/out" 2>"$T/err" &
	pid=$!
	expect_it_ends "$pid" 20 "root's mode default --persist with /boot/grub held"
	wait "$pid"
	rc=$?
	[ "$rc" = 1 ] || fail "exit $rc, not 1: $(cat "$T/err")"
	grep -q "the scan of .* has waited 10 seconds on a directory's lock" "$T/err" || fail "stderr: $(cat "$T/err")"
	diff -r "$T/default.before" "$T/root/etc/default" >/dev/null ||
		fail "/etc/default was left changed: $(diff -r "$T/default.before" "$T/root/etc/default")"
	! grep -q update-grub "$STUB_LOG" || fail "update-grub ran: $(cat "$STUB_LOG")"
}

# Root's offenders looks up the live process behind each TID of the log.
# A TID that is gone (most of a log's) is a missing name in /proc, which
# the dentry cache never answers: with /proc held and a mkdir queued the
# lookup waited, unkillably (eleventh review). The kernel is asked first
# (pidfd_open()), and /proc/PID's entries are opened from the cache or in
# a bounded child. The report is the log's, complete.
test_roots_offenders_does_not_wait_on_a_gone_tid_with_proc_held() {
	local tid=31000 pid
	require_root "a FUSE mount and a procfs mount"
	copy_fixture stock-ac
	while [ -e "/proc/$tid" ]; do tid=$((tid + 1)); done
	printf '4,40,2000000,-;x86/split lock detection: #AC: gone/%s took a split_lock trap at address: 0x401136\n' \
		"$tid" >>"$T/root/dev/kmsg"
	unprivileged_env
	trap 'cleanup; umount -l "$T/root/proc" 2>/dev/null; true' EXIT
	hangfs_up
	install -d -m 0700 "$T/root/run/slctl/leases"
	mount -t proc -o nosuid,nodev,noexec slctl-attack "$T/root/proc" || skip "cannot mount a procfs"
	run timeout 20 "$SLCTL" --root "$T/root" offenders
	[ "$rc" = 0 ] || fail "root's offenders fails without the hold: exit $rc: $err"
	hold_run_with_a_queued_writer "$T/root/proc"
	"$SLCTL" --root "$T/root" offenders >"$T/out" 2>"$T/err" &
	pid=$!
	expect_it_ends "$pid" 12 "root's offenders with /proc held and a TID of the log gone"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || fail "exit $rc: $(cat "$T/err")"
	grep -q "^gone .*$tid" "$T/out" || fail "the gone task is not in the report: $(cat "$T/out")"
}

# Root's offenders --follow, its /proc lookups stalled once by a user
# holding /proc with a mkdir queued: it named no offender again, long
# after the user let go (thirteenth review). The stall is forgotten once
# the stalled child has ended.
uptime_usec() { local u; u=$(cut -d' ' -f1 /proc/uptime); echo $(( ${u%.*} * 1000000 + 10#${u#*.} * 10000 )); }

trap_line() { # PID: a kernel record of a split lock by sleep/PID, now
	printf '4,%d,%s,-;x86/split lock detection: #AC: sleep/%s took a split_lock trap at address: 0x401136\n' \
		"$RANDOM" "$(uptime_usec)" "$1" >>"$T/root/dev/kmsg"
}

test_a_follower_names_offenders_again_after_a_released_proc_hold() {
	local i
	follower= v1= v2= v3=
	require_root "a FUSE mount and a procfs mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'umount -l "$T/root/proc" 2>/dev/null; kill $follower $v1 $v2 $v3 2>/dev/null; cleanup; true' EXIT
	hangfs_up
	mount -t proc -o nosuid,nodev,noexec slctl-attack "$T/root/proc" || skip "cannot mount a procfs"
	"$SLCTL" --root "$T/root" offenders --follow >"$T/out" 2>"$T/err" &
	follower=$!
	sleep 1
	"${AS_NOBODY[@]}" sleep 1000 & v1=$!
	sleep 0.3
	trap_line "$v1"
	for ((i = 0; i < 40; i++)); do grep -q "/$v1 " "$T/out" && break; sleep 0.1; done
	grep -q "sleep/$v1 .*exe .*sleep" "$T/out" || fail "not named even without a hold: $(cat "$T/out" "$T/err")"

	# The user's move: /proc held 7 s while an offender is looked up.
	hold_run_with_a_queued_writer "$T/root/proc"
	"${AS_NOBODY[@]}" sleep 1000 & v2=$!
	trap_line "$v2"
	sleep 7
	# The user lets go: the READ its FUSE file system never answered is
	# aborted with the server (a SIGKILL of the holder alone is not enough:
	# it waits in the kernel for that answer).
	hangfs_down
	sleep 1

	# Long after the user let go: a new offender.
	"${AS_NOBODY[@]}" sleep 1000 & v3=$!
	sleep 0.3
	trap_line "$v3"
	for ((i = 0; i < 40; i++)); do grep -q "/$v3 " "$T/out" && break; sleep 0.1; done
	grep -q "sleep/$v3 .*exe .*sleep" "$T/out" ||
		fail "root's follower no longer names offenders after the hold ended: $(grep "/$v3 " "$T/out") $(tail -5 "$T/err")"
}

# The same scan, bounded in all and not per entry: a user who held four
# directories of /boot/grub in turn, each for 4 s, stretched it by 4 s
# each (fourteenth review: 16 s, then exit 0). The whole scan has 10 s.
servers=() holders=() writers=()
finish_all() {
	kill -KILL "${holders[@]}" "${writers[@]}" "${servers[@]}" $pid 2>/dev/null
	for m in "$T"/mnt?; do umount -l "$m" 2>/dev/null; done
	cleanup; true
}

test_roots_mode_persist_scan_is_bounded_in_all_not_per_entry() {
	local pid= d k start end
	require_root "a FUSE mount, mknod and chroot"
	copy_fixture mode/debian-grub
	stub_env
	install -d -m 0755 "$T/root/boot/grub"
	echo "# grub.cfg" >"$T/root/boot/grub/grub.cfg"
	for d in a b c d; do install -d -m 0755 "$T/root/boot/grub/$d"; : >"$T/root/boot/grub/$d/x"; done
	unprivileged_env
	trap finish_all EXIT
	run timeout 30 "$SLCTL" --root "$T/root" mode warn --persist --run-tools
	[ "$rc" = 0 ] || fail "root's mode --persist fails without the hold: exit $rc: $err"
	: >"$STUB_LOG"
	chmod 755 "$T"
	k=0
	# readdir order of the kernel: the walk meets them in this order
	for d in $(ls -f "$T/root/boot/grub" | grep -x '[a-d]'); do
		k=$((k + 1))
		mkdir -p "$T/mnt$k"; chmod 755 "$T/mnt$k"
		"$HANGFS" serve "$T/mnt$k" "$NOBODY" "$(id -g nobody)" 2>>"$T/hangfs.log" &
		servers+=($!)
		for ((i = 0; i < 100; i++)); do grep -q " $T/mnt$k " /proc/self/mountinfo && break; sleep 0.05; done
		"${AS_NOBODY[@]}" "$HANGFS" holddir "$T/root/boot/grub/$d" "$T/mnt$k/f" 2>>"$T/hangfs.log" &
		holders+=($!)
		wait_for_the_holder $!
		"${AS_NOBODY[@]}" mkdir "$T/root/boot/grub/$d/queued-writer" 2>/dev/null &
		writers+=($!)
	done
	sleep 0.5
	start=$(date +%s)
	( "$SLCTL" --root "$T/root" mode default --persist --run-tools >"$T/out" 2>"$T/err"
	  echo $? >"$T/rc"; date +%s >"$T/ended" ) &
	pid=$!
	for ((k = 0; k < ${#servers[@]}; k++)); do
		sleep 4
		kill -KILL "${servers[k]}"; umount -l "$T/mnt$((k + 1))" 2>/dev/null
	done
	wait "$pid"
	rc=$(cat "$T/rc") end=$(cat "$T/ended")
	[ "$rc" = 1 ] || fail "exit $rc, not 1 (the scan was not bounded in all): $(cat "$T/err")"
	[ $((end - start)) -le 14 ] ||
		fail "root's mode --persist waited $((end - start)) s on the scan (exit $rc; update-grub $(grep -c update-grub "$STUB_LOG") times): $(cat "$T/err")"
}

test_zz_the_machines_own_sysctl_is_untouched() {
	[ "$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo none)" = "$REAL_MITIGATE" ] ||
		fail "the real kernel.split_lock_mitigate changed"
}

run_tests
