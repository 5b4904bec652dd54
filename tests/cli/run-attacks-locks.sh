#!/usr/bin/env bash
# slctl run's root helper against a caller that holds the kernel's locks
# of the descriptors it hands down (third hostile review, issue 24).
#
# A write to a pipe takes the pipe's mutex and a write to a regular file
# the file's inode lock, before O_NONBLOCK is looked at, and waits for them
# without a bound and without a signal ending the wait. The user holds
# either for as long as it likes by writing into the same pipe or file
# from a buffer mmap()ed from a FUSE file system of its own that never
# answers: the write faults the page in while holding the lock. A root
# helper writing there waited for ever, with the penalty off, sometimes
# holding /run/slctl/leases.lock. tests/fake/hangfs.c is that FUSE server
# and that thread; the test mounts it as root for nobody, which is what
# setuid fusermount3 does for any user of a desktop distribution.
#
# The setting is run-attacks.sh's (tests/attack-helper.sh). Nothing here
# reads or writes the real /proc/sys.
source "$(dirname "$0")/../lib.sh"
source "$TOP/tests/attack-helper.sh"
source "$TOP/tests/attack-hold.sh"

# The caller dies; the penalty must come back, and root's status must not
# wait on a lock.
expect_the_penalty_back_and_the_lock_free() {
	kill -KILL "$caller"
	proc_gone "$caller"
	value_becomes 1 5 || fail "the caller is gone, the penalty is still off"
	run timeout 30 "$SLCTL" --root "$T/root" status
	[ "$rc" = 0 ] || fail "root's status after the run: exit $rc: $err"
}

# The attack's setting, and $T/flags/err, a file of nobody's whose inode
# lock a thread of nobody's holds.
set_up_a_held_stderr_file() {
	require_root "the setuid pkexec stand-in, the root helper and a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; hangfs_down' EXIT
	hangfs_up
	"${AS_NOBODY[@]}" sh -c ': >"$1"' sh "$T/flags/err"
	hold_lock_of "$T/flags/err"
}

# stderr a regular file of the user's whose inode lock the user holds; -v
# (which the caller may pass) makes the helper say "set to 0" with the
# lease taken.
test_a_held_stderr_file_does_not_keep_the_lease() {
	set_up_a_held_stderr_file
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease -v --root "$ROOT" 2>>"$T/flags/err" | cat'
	value_becomes 0 || fail "no lease taken: $(value)"
	sleep 0.5
	expect_the_penalty_back_and_the_lock_free
}

# The same the plain way: `slctl -v run -- CMD 2>>FILE` hands the helper
# its -v and its stderr.
test_slctl_v_run_with_a_held_stderr_file_does_not_keep_the_lease() {
	set_up_a_held_stderr_file
	start_caller 'exec "$SLCTL" -v --root "$ROOT" run -- sleep 60 2>>"$T/flags/err"'
	value_becomes 0 || fail "no lease taken: $(value)"
	sleep 0.5
	expect_the_penalty_back_and_the_lock_free
}

# Root ends a run the hard way (SIGKILL of the helper) while the user
# keeps the relay's write wedged: the relay was a thread, which SIGKILL
# cannot end there, and the process's descriptors, the lease file and its
# lock, stayed open: the lease stayed live, and every later run's
# reconcile kept the penalty off (ninth review, attack 12).
test_sigkill_of_a_helper_with_a_wedged_relay_leaves_a_dead_lease() {
	set_up_a_held_stderr_file
	start_caller 'sleep 600 | pkexec "$SLCTL" __helper lease -v --root "$ROOT" 2>>"$T/flags/err" | cat'
	value_becomes 0 || fail "no lease taken: $(value)"
	local pid
	pid=$(helper_pid)
	sleep 0.5
	kill -KILL "$pid"
	sleep 1
	kill -KILL "$caller"
	proc_gone "$caller"
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- true >/dev/null 2>&1
	value_becomes 1 3 || fail "helper $pid SIGKILLed (threads: $(ls "/proc/$pid/task" 2>/dev/null | tr '\n' ' ')), its caller gone, another run taken and dropped: the penalty is still off; leases: $(ls "$T/root/run/slctl/leases")"
}

# stderr a file on the user's FUSE file system that answers the FLUSH of
# the helper's start and then no more: the helper kept copies of the
# caller's descriptors, closed at its exit before the lease file, and a
# root SIGKILL left it in the flush, the lease file's lock held, the lease
# live after the caller and another run (tenth review, attack 4). The
# relay keeps them alone now.
test_sigkill_of_a_helper_whose_stderr_flush_is_withheld_ends_the_lease() {
	require_root "the setuid pkexec stand-in, the root helper and a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; hangfs_down; kill -KILL $caller 2>/dev/null' EXIT
	hangfs_up "$T/flags/noflush"
	start_caller 'sleep 600 | pkexec "$SLCTL" __helper lease --root "$ROOT" 2>>"$T/mnt/f" | cat'
	value_becomes 0 || fail "no lease taken: $(value) $(cat "$T/caller.err")"
	local pid
	pid=$(helper_pid)
	touch "$T/flags/noflush"
	kill -KILL "$pid"
	sleep 1
	kill -KILL "$caller"
	proc_gone "$caller"
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- true >/dev/null 2>&1
	value_becomes 1 3 || fail "helper $pid SIGKILLed (state $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) in $(cat "/proc/$pid/wchan" 2>/dev/null)), its caller gone, another run taken and dropped: the penalty is still off; leases: $(ls "$T/root/run/slctl/leases"); $(tail -1 "$T/hangfs.log")"
}

# Root's own `run` passes SIGTERM and SIGHUP on to CMD. A SIGTERM during
# the drop (here: leases.lock held for 4 s by another run) was passed to
# the PID of CMD after it had been reaped, free for any process of any
# user (tenth review, attack 5). strace shows every kill() and wait4().
test_roots_run_signals_no_reaped_pid() {
	require_root "root's own lease"
	require_cmd strace "it shows the kill()"
	copy_fixture stock-ac
	install -d -m 0700 "$T/root/run/slctl" "$T/root/run/slctl/leases"
	local bad
	holder= pid=
	trap 'kill -KILL $holder $pid 2>/dev/null; true' EXIT
	( sleep 1; exec flock -x "$T/root/run/slctl/leases.lock" sleep 4 ) &
	holder=$!
	strace -f -o "$T/trace" -e trace=kill,wait4,waitid \
		"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sleep 1.5 >/dev/null 2>&1 &
	pid=$!
	sleep 2.5
	pkill -TERM -f "^$SLCTL --root $T/root run" || true
	wait "$pid" 2>/dev/null
	grep -q 'SIGTERM' "$T/trace" ||
		fail "no SIGTERM reached slctl: the test proves nothing"
	# A kill() of a PID that an earlier wait4() returned: a reaped PID.
	bad=$(awk '/wait4/ && / = [0-9]+$/ {reaped[$NF] = 1}
		/ kill\([0-9]+, SIG(TERM|HUP)\)/ {p = $2; sub(/^kill\(/, "", p); sub(/,$/, "", p); if (p in reaped) print}' "$T/trace")
	[ -z "$bad" ] || fail "root's slctl signalled a PID it had reaped: $bad"
}

# stdout, the pipe the helper writes "ready" to, whose mutex another
# process of the user's holds: the helper's write waited uninterruptibly
# with the lease taken.
test_a_held_stdout_pipe_does_not_keep_the_lease() {
	require_root "the setuid pkexec stand-in, the root helper and a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; hangfs_down; kill $(cat "$T/flags/holder" 2>/dev/null) 2>/dev/null' EXIT
	hangfs_up
	export HANGFS
	start_caller 'exec > >(cat >/dev/null)
		"$HANGFS" hold /dev/stdout "$T/mnt/f" 2>>"$T/flags/holder.log" & echo $! >"$T/flags/holder"
		sleep 1
		sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT"'
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$T/flags/holder" ] && break
		sleep 0.05
	done
	wait_for_the_holder "$(cat "$T/flags/holder")"
	value_becomes 0 || fail "no lease taken: $(value)"
	sleep 0.5
	expect_the_penalty_back_and_the_lock_free
}

# A user with 8 leases asks for a 9th, stderr a held file: the refusal
# was written holding leases.lock, and the 8 could never be given back.
test_a_refusal_to_a_held_stderr_file_does_not_hold_the_lease_lock() {
	require_root "the setuid pkexec stand-in, the root helper and a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; hangfs_down' EXIT
	hangfs_up
	"${AS_NOBODY[@]}" sh -c ': >"$1"' sh "$T/flags/err"
	start_caller 'for i in 1 2 3 4 5 6 7 8; do sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat & done; wait'
	local i first=$caller
	for ((i = 0; i < 200; i++)); do
		[ "$(leases_left)" = 8 ] && break
		sleep 0.05
	done
	[ "$(leases_left)" = 8 ] || fail "not 8 leases: $(leases_left)"
	hold_lock_of "$T/flags/err"
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" 2>>"$T/flags/err" | cat'
	trap 'end_helpers; kill -KILL '"$caller"' 2>/dev/null; hangfs_down' EXIT
	sleep 1
	caller=$first
	expect_the_penalty_back_and_the_lock_free
	[ "$(leases_left)" = 0 ] || fail "$(leases_left) leases left after their runs"
}

# ---- /run's lock (fourth review) ---------------------------------------------
#
# /run is readable by every user, who can hold its lock shared with a
# getdents64() into a FUSE-backed buffer. slctl called mkdirat(/run,
# "slctl") on every take, drop and status, and mkdir takes the parent's
# lock exclusively even where the name exists: the drop of a lease waited
# there, unkillably, with the penalty off.

# Held after the take: the caller is gone, and the helper's drop must
# still give the penalty back.
test_a_held_run_directory_does_not_keep_the_lease_after_the_run() {
	require_root "the setuid pkexec stand-in, the root helper and a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; hangfs_down' EXIT
	hangfs_up
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	value_becomes 0 || fail "no lease taken: $(value)"
	hold_dir "$T/root/run"
	kill -KILL "$caller"
	proc_gone "$caller"
	if ! value_becomes 1 5; then
		local pid
		pid=$(helper_pid)
		fail "the caller is gone, the penalty is still off; the helper $pid: state $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null), wchan $(cat "/proc/$pid/wchan" 2>/dev/null), stack: $(tr '\n' ' ' <"/proc/$pid/stack" 2>/dev/null | cut -c1-200)"
	fi
}

# The same through the plain `slctl run`: what a user does.
test_slctl_run_with_a_held_run_directory_gives_the_penalty_back() {
	require_root "the setuid pkexec stand-in, the root helper and a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; hangfs_down' EXIT
	hangfs_up
	start_caller 'exec "$SLCTL" --root "$ROOT" run -- sleep 3'
	value_becomes 0 || fail "no lease taken: $(value)"
	hold_dir "$T/root/run"
	# The run ends by itself after 3 s.
	value_becomes 1 8 || fail "the run ended 5 s ago, the penalty is still off"
}

# Root's own `slctl status` (and any slctl command that opens the lease
# directory) waits unkillably on the same lock: bounded waits are promised
# for slctl's locks.
test_a_held_run_directory_does_not_hang_roots_status() {
	require_root "a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'hangfs_down' EXIT
	hangfs_up
	# What any run leaves: the lease directory.
	install -d -m 0700 "$T/root/run/slctl/leases"
	hold_dir "$T/root/run"
	"$SLCTL" --root "$T/root" status >/dev/null 2>&1 &
	local pid=$! i
	for ((i = 0; i < 150; i++)); do
		[ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat")" != Z ] || return 0
		sleep 0.1
	done
	kill -KILL "$pid"
	sleep 0.5
	fail "root's status still waits after 15 s, now in state $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) (SIGKILL sent), in $(cat "/proc/$pid/wchan" 2>/dev/null)"
}

# No authorization at all: root's own `slctl run` (the lease taken in
# process, no helper) while a user who was never authorized holds /run:
# root's run cannot drop its lease when CMD ends, and waits unkillably.
test_an_unauthorized_user_holding_run_does_not_keep_roots_lease() {
	require_root "a FUSE mount"
	copy_fixture stock-ac
	unprivileged_env
	trap 'hangfs_down' EXIT
	hangfs_up
	"$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- sleep 3 >/dev/null 2>&1 &
	value_becomes 0 || fail "root's run took no lease: $(value)"
	hold_dir "$T/root/run"
	value_becomes 1 8 || fail "root's CMD ended 5 s ago, the penalty is still off"
}

# ---- /run's lock with a writer queued (fifth review) ------------------------
#
# Held shared, /run's lock still lets lookups through; a mkdir of the
# user's queued behind the holder for the lock exclusively stops every
# later one (a rw semaphore lets no reader pass a waiting writer). On a
# tmpfs, a lookup of a name /run lacks needs that lock (no negative
# entries are kept): root's status (/run/sysctl.d) and mitigate (/run/slctl
# on a fresh boot) waited there, unkillably. slctl now looks up names
# under /run from the dentry cache alone (RESOLVE_CACHED).

# Root's `slctl status` looks up /run/sysctl.d (missing on most systems):
# a lookup of a missing name on tmpfs takes /run's lock shared, and waits
# behind the user's queued mkdir. No authorization at all.
test_roots_status_does_not_wait_on_run_with_a_queued_writer() {
	set_up_a_tmpfs_run "a FUSE mount and a tmpfs"
	hold_run_with_a_queued_writer
	"$SLCTL" --root "$T/root" status >/dev/null 2>&1 &
	expect_it_ends $! 12 "root's status"
}

# A boot where slctl has not run yet (tmpfiles.d made /run/slctl, no run
# has made leases/): root's `mitigate on` (the value and the saved one
# under leases.lock) looks up /run/slctl/leases, which is missing.
test_roots_first_mitigate_on_of_a_boot_does_not_wait_on_run() {
	set_up_a_tmpfs_run "a FUSE mount and a tmpfs"
	rmdir "$T/root/run/slctl/leases"
	hold_run_with_a_queued_writer
	"$SLCTL" --root "$T/root" mitigate on >/dev/null 2>&1 &
	expect_it_ends $! 12 "root's mitigate on"
}

# The same against root's `mitigate off --persist` (the sysctl.d dirs).
test_roots_mitigate_persist_does_not_wait_on_run() {
	set_up_a_tmpfs_run "a FUSE mount and a tmpfs"
	hold_run_with_a_queued_writer
	"$SLCTL" --root "$T/root" mitigate on --persist >/dev/null 2>&1 &
	expect_it_ends $! 12 "root's mitigate on --persist"
}

# ---- /run/slctl missing (ninth review; attack 42 again) ------------------------
#
# A boot without tmpfiles.d's /run/slctl: `make install` runs no
# systemd-tmpfiles, a system may have none, an admin may have removed it.
# The lookup of the missing name takes /run's lock, held by the user with
# a mkdir queued: root's status, mitigate and mode --persist waited there
# unkillably. slctl now looks /run/slctl up, and creates it, in a bounded
# child: each ends with one sentence and exit 1.

# Root's `ARGS` on a fresh /run with a user's hold: exit 1 and a sentence.
expect_a_sentence_without_run_slctl() { # ARGS...
	local pid rc
	hold_run_with_a_queued_writer
	"$SLCTL" --root "$T/root" "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	expect_it_ends "$pid" 12 "root's $*"
	wait "$pid"
	rc=$?
	[ "$rc" = 1 ] || fail "root's $*: exit $rc, not 1: $(cat "$T/err")"
	grep -q "has waited 5 seconds on" "$T/err" || fail "root's $*: stderr: $(cat "$T/err")"
}

test_roots_status_of_a_boot_without_run_slctl_does_not_wait_on_run() {
	set_up_a_tmpfs_run "a FUSE mount and a tmpfs"
	umount "$T/root/run"
	tmpfs_run fresh
	expect_a_sentence_without_run_slctl status
}

# SECURITY.md's attack 42.
test_roots_mitigate_on_of_a_fresh_boot_does_not_wait_on_run() {
	set_up_a_tmpfs_run "a FUSE mount and a tmpfs"
	umount "$T/root/run"
	tmpfs_run fresh
	expect_a_sentence_without_run_slctl mitigate on
}

test_roots_mitigate_persist_of_a_fresh_boot_does_not_wait_on_run() {
	set_up_a_tmpfs_run "a FUSE mount and a tmpfs"
	umount "$T/root/run"
	tmpfs_run fresh
	expect_a_sentence_without_run_slctl mitigate on --persist
}

# mode --persist takes /run/slctl/lock, and creates /run/slctl for it.
test_roots_mode_persist_of_a_fresh_boot_does_not_wait_on_run() {
	require_root "a FUSE mount and a tmpfs"
	copy_fixture mode/debian-grub
	unprivileged_env
	trap cleanup EXIT
	hangfs_up
	tmpfs_run fresh
	expect_a_sentence_without_run_slctl mode ratelimit:10 --persist
}

# Without the hold the same commands make /run/slctl, root's and 0700,
# whatever the umask.
test_a_fresh_boots_first_take_makes_run_slctl_mode_0700() {
	set_up_a_tmpfs_run "the setuid pkexec stand-in and a tmpfs"
	umount "$T/root/run"
	tmpfs_run fresh
	(umask 0777 && "$AS_PROCESS" "$T/root" 0 "$SLCTL" --root "$T/root" run -- true) ||
		fail "root's run: exit $?"
	[ "$(stat -c %a:%u "$T/root/run/slctl")" = 700:0 ] ||
		fail "/run/slctl: $(stat -c %a:%u "$T/root/run/slctl")"
	value_becomes 1 3 || fail "the penalty is off after the run"
}

# The helper's drop of a lease (the penalty is off) with /run held and a
# writer queued: must give the penalty back.
test_a_drop_gives_the_penalty_back_with_run_held_and_a_writer_queued() {
	set_up_a_tmpfs_run "the setuid pkexec stand-in, a FUSE mount and a tmpfs"
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	value_becomes 0 || fail "no lease taken: $(value)"
	hold_run_with_a_queued_writer
	kill -KILL "$caller"
	proc_gone "$caller"
	value_becomes 1 5 || fail "the caller is gone, the penalty is still off"
}

# The first run of a boot where systemd-tmpfiles made /run/slctl
# (tmpfiles.d/slctl.conf): the take creates nothing in /run, and so takes
# no lock of /run's. (Without tmpfiles.d the first take's lookup and
# mkdir are made in a bounded child: with /run held it fails after 5 s,
# before any lease.)
test_the_first_take_of_a_boot_does_not_wait_on_run() {
	set_up_a_tmpfs_run "the setuid pkexec stand-in, a FUSE mount and a tmpfs"
	rmdir "$T/root/run/slctl/leases"
	hold_run_with_a_queued_writer
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	value_becomes 0 || fail "no lease taken with /run held: $(value)"
	kill -KILL "$caller"
	proc_gone "$caller"
	value_becomes 1 5 || fail "the caller is gone, the penalty is still off"
}

# Root's `slctl probe --msr` where the msr driver is not loaded: libkmod
# looked up each configuration directory it was given, /run/modprobe.d
# among them, with a plain stat(); the name is missing on most systems,
# and the lookup waited behind the user's queued mkdir (sixth review).
# slctl now gives libkmod only the directories that exist.
test_roots_probe_msr_does_not_wait_on_run_with_a_queued_writer() {
	require_root "a FUSE mount and a tmpfs"
	copy_fixture probe-msr
	rm -rf "$T/root/dev/cpu"
	mkdir -p "$T/root/lib/modules/6.1.0-probe-test"
	echo 6.1.0-probe-test >"$T/root/proc/sys/kernel/osrelease"
	unprivileged_env
	trap cleanup EXIT
	hangfs_up
	tmpfs_run
	run timeout 20 "$SLCTL" --root "$T/root" probe --msr
	[ "$rc" != 124 ] || fail "probe --msr hangs even without the hold"
	hold_run_with_a_queued_writer
	"$SLCTL" --root "$T/root" probe --msr >/dev/null 2>&1 &
	expect_it_ends $! 12 "root's probe --msr"
}

# ---- /proc's lock (sixth review) -----------------------------------------------
#
# The same two moves on /proc, which every user can read too. Each take
# and drop checks the other leases' processes under leases.lock, and the
# name of a reaped process is missing from /proc: its lookup waited
# behind the queued mkdir holding leases.lock, so that no drop could give
# the penalty back. On the kernel's /proc a reaped PID is now found dead
# by pidfd_open() without a lookup; the fake root's /proc, files on a
# tmpfs here (which, like procfs, keeps no entry for a missing name), is
# read from the dentry cache.

# ROOT/proc on a tmpfs, with the fixture's files.
tmpfs_proc() {
	cp -a "$T/root/proc" "$T/proc.fixture"
	mount -t tmpfs -o mode=755 slctlproc "$T/root/proc" || skip "cannot mount a tmpfs"
	cp -a "$T/proc.fixture/." "$T/root/proc/"
}

# Two runs of the user (two authorizations, a group's rules.d rule, a
# launcher of two games), /proc held with a mkdir queued, both callers
# killed at once: the penalty must come back.
test_two_runs_ended_with_proc_held_give_the_penalty_back() {
	require_root "the setuid pkexec stand-in, a FUSE mount and a tmpfs"
	copy_fixture stock-ac
	tmpfs_proc
	unprivileged_env
	trap 'end_helpers; [ -z "${writer:-}" ] || kill -KILL "$writer" 2>/dev/null; hangfs_down; kill -KILL $callers 2>/dev/null; sleep 0.5; umount -l "$T/root/proc" 2>/dev/null; true' EXIT
	hangfs_up
	local c1 c2 i
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	c1=$caller
	start_caller 'sleep 60 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	c2=$caller
	callers="$c1 $c2"
	for ((i = 0; i < 200; i++)); do
		[ "$(leases_left)" = 2 ] && break
		sleep 0.05
	done
	[ "$(leases_left)" = 2 ] || fail "not 2 leases: $(leases_left)"
	[ "$(value)" = 0 ] || fail "no lease took effect: $(value)"
	# The fake kernel forgets both callers first, as reaping does.
	proc_gone "$c1"
	proc_gone "$c2"
	hold_run_with_a_queued_writer "$T/root/proc"
	kill -KILL "$c1" "$c2"
	value_becomes 1 25 || fail "both runs ended 25 s ago, the penalty is still off ($(leases_left) leases left)"
}

# ---- mount churn (seventh review) ----------------------------------------------

# A user changing mounts in a namespace of its own, in a loop (no
# authorization): RESOLVE_CACHED walks then fail with EAGAIN for names
# that exist.
churn_up() {
	cat >"$T/churn.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
static void wr(const char *p, const char *s)
{
	int fd = open(p, O_WRONLY);
	if (fd >= 0) { if (write(fd, s, strlen(s)) < 0) perror(p); close(fd); }
}
int main(void)
{
	char m[64];
	unsigned u = getuid(), g = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) { perror("unshare"); return 1; }
	wr("/proc/self/setgroups", "deny");
	snprintf(m, sizeof m, "0 %u 1", u); wr("/proc/self/uid_map", m);
	snprintf(m, sizeof m, "0 %u 1", g); wr("/proc/self/gid_map", m);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) { perror("private"); return 1; }
	if (mount("x", "/mnt", "tmpfs", 0, NULL) < 0) { perror("mount"); return 1; }
	for (;;) {
		if (mount("/mnt", "/mnt", NULL, MS_BIND, NULL) < 0) { perror("bind"); return 1; }
		if (umount2("/mnt", MNT_DETACH) < 0) { perror("umount"); return 1; }
	}
}
C
	cc -O2 -o "$T/churn" "$T/churn.c" || skip "no C compiler"
	chmod 755 "$T" "$T/churn"
	"${AS_NOBODY[@]}" "$T/churn" 2>>"$T/churn.log" &
	churner=$!
	disown "$churner"
	sleep 0.3
	kill -0 "$churner" 2>/dev/null || skip "no unprivileged user+mount namespace: $(cat "$T/churn.log")"
}

churn_down() {
	[ -z "${churner:-}" ] || kill -KILL "$churner" 2>/dev/null
	true
}

# Runs one after another, each ended before the next starts, while any
# user churns mounts: after every run the penalty must be back (no other
# run holds a lease). A drop whose RESOLVE_CACHED walk of
# /run/slctl/leases lost the race took the lease directory for missing,
# returned 0 and left the lease and the penalty off.
test_mount_churn_does_not_make_a_drop_leave_the_penalty_off() {
	require_root "the setuid pkexec stand-in and a tmpfs"
	copy_fixture stock-ac
	unprivileged_env
	trap 'kill -KILL "${caller:-}" 2>/dev/null; end_helpers; churn_down; sleep 0.2; umount -l "$T/root/run" 2>/dev/null; true' EXIT
	tmpfs_run
	churn_up
	start_caller 'for ((i = 1; i <= ${RUNS:-200}; i++)); do
		: | pkexec "$SLCTL" __helper lease --root "$ROOT" 2>>"$T/flags/helper.err" | cat >"$T/flags/out"
		[ "$(cat "$T/flags/out")" = ready ] || { echo "no ready at $i" >"$T/flags/hit"; exit 0; }
		v=$(cat "$ROOT/proc/sys/kernel/split_lock_mitigate")
		if [ "$v" != 1 ]; then echo "$i $v" >"$T/flags/hit"; exit 0; fi
	done; echo none >"$T/flags/hit"'
	local i
	for ((i = 0; i < 1800; i++)); do
		[ -s "$T/flags/hit" ] && break
		sleep 0.1
	done
	churn_down
	local hit
	hit=$(cat "$T/flags/hit" 2>/dev/null)
	echo "# result: ${hit:-timeout}; leases left: $(leases_left); value: $(value)" >&2
	echo "# leases: $(ls "$T/root/run/slctl/leases")" >&2
	echo "# helper said: $(tail -3 "$T/flags/helper.err" 2>/dev/null; tail -3 "$T/caller.err")" >&2
	[ "${hit:-none}" = none ] || fail "run ${hit% *} ended, no run holds the penalty off, and it is still off (value $(value), $(leases_left) dead lease(s) left)"
}

# ---- /proc/sys's directory lock (eighth review) ------------------------------------

# ROOT/proc/sys/kernel on a tmpfs, as procfs is there: a name that is
# not cached (procfs: every /proc/sys name, to RESOLVE_CACHED; a missing
# one on 5.7-6.1 kernels) is looked up under the directory's lock. No
# random/boot_id, so that a lookup of it takes that lock. WITHOUT: no
# split_lock_mitigate either (a 5.7-6.1 kernel).
tmpfs_proc_sys_kernel() { # [without]
	local v
	v=$(cat "$T/root/$MITIGATE")
	mount -t tmpfs -o mode=755 slctlsys "$T/root/proc/sys/kernel" || skip "cannot mount a tmpfs"
	[ "${1:-}" = without ] || echo "$v" >"$T/root/$MITIGATE"
}

set_up_a_held_proc_sys() { # [without]
	require_root "the setuid pkexec stand-in, a FUSE mount and a tmpfs"
	copy_fixture stock-ac
	unprivileged_env
	trap 'end_helpers; [ -z "${writer:-}" ] || kill -KILL "$writer" 2>/dev/null; hangfs_down; sleep 0.3; umount -l "$T/root/proc/sys/kernel" 2>/dev/null; true' EXIT
	hangfs_up
	tmpfs_proc_sys_kernel "$@"
}

# A run holds a lease; the user holds proc/sys/kernel with a mkdir
# queued, and ends its caller: the drop looked up the boot id and the
# sysctl under leases.lock, and waited there unkillably, the penalty off
# and every other take, drop and root's mitigate waiting on leases.lock.
test_a_drop_with_proc_sys_held_gives_the_penalty_back() {
	set_up_a_held_proc_sys
	start_caller 'sleep 600 | pkexec "$SLCTL" __helper lease --root "$ROOT" | cat'
	value_becomes 0 30 || fail "no lease taken: $(value); $(cat "$T/caller.err")"
	hold_run_with_a_queued_writer "$T/root/proc/sys/kernel"
	kill -KILL "$caller"
	value_becomes 1 10 || fail "the run ended 10 s ago with proc/sys/kernel held, and the penalty is still off ($(leases_left) lease(s) left)"
	[ "$(leases_left)" = 0 ] || fail "leases left: $(ls "$T/root/run/slctl/leases")"
}

# A 5.7-6.1 kernel (no split_lock_mitigate, and procfs keeps no entry for
# a missing name): every root `status` looks it up under the lock of
# proc/sys/kernel, which the user holds. No authorization at all.
test_roots_status_does_not_wait_on_proc_sys_held() {
	set_up_a_held_proc_sys without
	hold_run_with_a_queued_writer "$T/root/proc/sys/kernel"
	"$SLCTL" --root "$T/root" status >"$T/out" 2>"$T/err" &
	local pid=$!
	expect_it_ends "$pid" 15 "root's status"
	wait "$pid"
	local rc=$?
	[ "$rc" = 1 ] || fail "status: exit $rc, not 1: $(cat "$T/err")"
	grep -q "has waited 5 seconds on a directory's lock" "$T/err" || fail "stderr: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "half a report: $(cat "$T/out")"
}

# The same against root's `mitigate` (show) and `mitigate on` (the set
# path: the sysctl is opened, bounded, before leases.lock).
test_roots_mitigate_does_not_wait_on_proc_sys_held() {
	set_up_a_held_proc_sys without
	hold_run_with_a_queued_writer "$T/root/proc/sys/kernel"
	local pid rc args
	for args in "mitigate" "mitigate on"; do
		# shellcheck disable=SC2086
		"$SLCTL" --root "$T/root" $args >/dev/null 2>"$T/err" &
		pid=$!
		expect_it_ends "$pid" 15 "root's $args"
		wait "$pid"
		rc=$?
		[ "$rc" = 1 ] || fail "$args: exit $rc, not 1: $(cat "$T/err")"
		grep -q "has waited 5 seconds" "$T/err" || fail "$args: stderr: $(cat "$T/err")"
	done
}

# No process can be started for the bounded lookup (a user used up the
# PIDs or the tasks; here a pids cgroup of one): the lookup was made
# in-process then, without a bound, and waited unkillably (ninth review,
# attack 23). It fails now, with a sentence.
test_roots_status_without_a_free_pid_does_not_wait_on_proc_sys_held() {
	set_up_a_held_proc_sys without
	local base cg pid rc
	if [ -f /sys/fs/cgroup/pids/cgroup.procs ]; then
		base=/sys/fs/cgroup/pids
	elif grep -qw pids /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		base=/sys/fs/cgroup
	else
		skip "no pids cgroup controller"
	fi
	cg=$base/slctl-attack-$$-nopid
	mkdir "$cg" || skip "cannot make a pids cgroup"
	trap 'end_helpers; [ -z "${writer:-}" ] || kill -KILL "$writer" 2>/dev/null; hangfs_down; sleep 0.3; umount -l "$T/root/proc/sys/kernel" 2>/dev/null; rmdir "'"$cg"'" 2>/dev/null; true' EXIT
	echo 1 >"$cg/pids.max"
	hold_run_with_a_queued_writer "$T/root/proc/sys/kernel"
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --root "$3" status' sh "$cg" "$SLCTL" \
		"$T/root" >"$T/out" 2>"$T/err" &
	pid=$!
	expect_it_ends "$pid" 15 "root's status without a free PID"
	wait "$pid"
	rc=$?
	[ "$rc" = 1 ] || fail "status: exit $rc, not 1: $(cat "$T/err")"
	grep -q "no process can be started" "$T/err" || fail "stderr: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "half a report: $(cat "$T/out")"
}

test_zz_the_machines_own_sysctl_is_untouched() {
	[ "$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo none)" = "$REAL_MITIGATE" ] ||
		fail "the real kernel.split_lock_mitigate changed"
}

run_tests
