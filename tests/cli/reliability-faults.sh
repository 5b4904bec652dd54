# Persisted changes under injected faults: ENOSPC and EIO at every write,
# fsync, rename and file creation; SIGKILL between any two steps; 20
# concurrent writers. The drop-in is always the old file or the new one.
source "$(dirname "$0")/../lib.sh"

SHIM=$TOP/$BUILD_DIR/tests/faultinject.so
DROPIN=etc/sysctl.d/zz-slctl.conf
FAULT_LOG=${FAULT_LOG:-/dev/null}

preload() {
	# An ASan build wants its runtime first in the preload list.
	local asan
	asan=$(ldd "$TOP/$BUILD_DIR/slctl" 2>/dev/null | awk '/libasan/ {print $3}')
	echo "${asan:+$asan }$SHIM"
}

# A root whose drop-in says 1; the change under test writes 0.
prepare() {
	copy_fixture stock-ac
	"$SLCTL" --root "$T/root" mitigate on --persist >/dev/null 2>&1 || fail "setup failed"
	OLD=$(cat "$T/root/$DROPIN")
	cp -a "$T/root" "$T/probe"
	"$SLCTL" --root "$T/probe" mitigate off --persist >/dev/null 2>&1 || fail "probe failed"
	NEW=$(cat "$T/probe/$DROPIN")
	rm -rf "$T/probe"
	[ "$OLD" != "$NEW" ] || fail "old and new drop-ins are the same"
}

old_or_new() {
	[ -f "$T/root/$DROPIN" ] || fail "drop-in vanished ($1)"
	local now
	now=$(cat "$T/root/$DROPIN")
	[ "$now" = "$OLD" ] || [ "$now" = "$NEW" ] || fail "partial drop-in after $1: $now"
}

no_temporaries() {
	local left
	left=$(find "$T/root/etc/sysctl.d" -name '.#*')
	[ -z "$left" ] || fail "temporary files left after $1: $left"
}

test_enospc_and_eio_at_every_step_leave_old_or_new() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	local op nth e struck=0
	for op in creat write fsync rename; do
		for e in ENOSPC EIO; do
			for nth in 1 2 3 4; do
				prepare
				run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root" FAULT_OP=$op \
					FAULT_NTH=$nth FAULT_ERRNO=$e FAULT_LOG="$FAULT_LOG" \
					"$SLCTL" --root "$T/root" mitigate off --persist
				old_or_new "$op#$nth $e"
				no_temporaries "$op#$nth $e"
				if [ "$rc" -ne 0 ]; then
					struck=$((struck + 1))
					[ "$rc" -eq 1 ] || fail "$op#$nth $e: exit $rc, expected 1"
					[ -n "$err" ] || fail "$op#$nth $e: failed silently"
					[ "$(cat "$T/root/$DROPIN")" = "$OLD" ] || \
						[ "$op" = fsync ] || fail "$op#$nth $e: failure reported but file replaced"
				else
					[ "$(cat "$T/root/$DROPIN")" = "$NEW" ] || fail "$op#$nth $e: success but old file"
				fi
			done
		done
	done
	# Every kind of step must have been hit at least once.
	[ $struck -ge 8 ] || fail "only $struck faults struck"
}

test_persist_failing_after_the_running_value_changed_says_so() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	prepare
	# Only the drop-in's directory fails: the running value is already 0.
	run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root/etc" FAULT_OP=rename \
		FAULT_NTH=1 FAULT_ERRNO=ENOSPC FAULT_LOG="$FAULT_LOG" \
		"$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 0 ] || fail "runtime value not changed"
	expect_err "the running system is changed: kernel.split_lock_mitigate is 0 now (it was 1)"
	expect_err "could not be written (No space left on device)"
	[ "$(cat "$T/root/$DROPIN")" = "$OLD" ] || fail "drop-in changed"
	no_temporaries "failed persist"
}

test_runtime_write_failing_changes_nothing_and_says_so() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	prepare
	# Root's mitigate writes the sysctl in place (pwrite through the
	# descriptor the lease code keeps), as /proc/sys is written.
	run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root/proc" FAULT_OP=write \
		FAULT_NTH=1 FAULT_ERRNO=EIO FAULT_LOG="$FAULT_LOG" \
		"$SLCTL" --root "$T/root" mitigate off --persist
	expect_rc 1
	expect_err "cannot set kernel.split_lock_mitigate to 0"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 1 ] || fail "runtime value changed"
	[ "$(cat "$T/root/$DROPIN")" = "$OLD" ] || fail "drop-in changed"
}

test_sigkill_between_any_two_steps_leaves_old_or_new() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	local op nth
	for op in creat write fsync rename; do
		for nth in 1 2 3; do
			prepare
			run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root" FAULT_OP=$op \
				FAULT_NTH=$nth FAULT_ACTION=kill FAULT_LOG="$FAULT_LOG" \
				"$SLCTL" --root "$T/root" mitigate off --persist
			old_or_new "kill at $op#$nth"
			# The next run finishes the job and sweeps what the killed one left.
			run "$SLCTL" --root "$T/root" mitigate off --persist
			expect_rc 0
			[ "$(cat "$T/root/$DROPIN")" = "$NEW" ] || fail "rerun after kill at $op#$nth did not write"
			no_temporaries "rerun after kill at $op#$nth"
		done
	done
}

test_twenty_concurrent_writers() {
	require_root "CAP_SYS_ADMIN to change kernel.split_lock_mitigate"
	prepare
	local i pids=() bad=0
	for i in $(seq 1 20); do
		if [ $((i % 2)) -eq 0 ]; then v=on; else v=off; fi
		"$SLCTL" --root "$T/root" mitigate $v --persist >/dev/null 2>"$T/err.$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || bad=$((bad + 1))
	done
	[ $bad -eq 0 ] || fail "$bad writers failed: $(cat "$T"/err.*)"
	old_or_new "20 concurrent writers"
	no_temporaries "20 concurrent writers"
}

# slctl mode on Debian GRUB edits two files: /etc/default/grub in place and
# the grub.d drop-in. A failure anywhere must leave both as they were.
GRUB_FILES="etc/default/grub etc/default/grub.d/zz-slctl.cfg"

grub_state() { # ROOT -> the two files (or "absent") in one string
	local f
	for f in $GRUB_FILES; do
		if [ -f "$1/$f" ]; then echo "== $f"; cat "$1/$f"; else echo "== $f absent"; fi
	done
}

prepare_grub() {
	copy_fixture mode/debian-grub
	GOLD=$(grub_state "$T/root")
	cp -a "$T/root" "$T/probe"
	"$SLCTL" --root "$T/probe" mode fatal --persist >/dev/null 2>&1 || fail "probe failed"
	GNEW=$(grub_state "$T/probe")
	rm -rf "$T/probe"
	[ "$GOLD" != "$GNEW" ] || fail "mode change changes nothing"
}

test_mode_persist_faults_restore_every_file() {
	local op nth e struck=0 now
	for op in creat write fsync rename; do
		for e in ENOSPC EIO; do
			for nth in 1 2 3 4 5; do
				prepare_grub
				run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root" FAULT_OP=$op \
					FAULT_NTH=$nth FAULT_ERRNO=$e FAULT_LOG="$FAULT_LOG" \
					"$SLCTL" --root "$T/root" mode fatal --persist
				now=$(grub_state "$T/root")
				if [ "$rc" -ne 0 ]; then
					struck=$((struck + 1))
					[ "$rc" -eq 1 ] || fail "$op#$nth $e: exit $rc, expected 1"
					[ -n "$err" ] || fail "$op#$nth $e: failed silently"
					[ "$now" = "$GOLD" ] || fail "$op#$nth $e: failed but files changed: $now"
				else
					[ "$now" = "$GNEW" ] || fail "$op#$nth $e: success but not the new files: $now"
				fi
				[ -z "$(find "$T/root/etc/default" -name '.#*')" ] ||
					fail "$op#$nth $e: temporary files left"
			done
		done
	done
	[ $struck -ge 8 ] || fail "only $struck faults struck"
}

test_twenty_concurrent_mode_writers() {
	local i pids=() won=0 lost=0 v now fatal_state off_state
	for v in fatal off; do
		copy_fixture mode/debian-grub
		"$SLCTL" --root "$T/root" mode $v --persist >/dev/null 2>&1 || fail "probe $v failed"
		eval "${v}_state=\$(grub_state \"\$T/root\")"
	done
	copy_fixture mode/debian-grub
	for i in $(seq 1 20); do
		if [ $((i % 2)) -eq 0 ]; then v=fatal; else v=off; fi
		"$SLCTL" --root "$T/root" mode $v --persist >/dev/null 2>"$T/err.$i" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		if wait "${pids[$i]}"; then
			won=$((won + 1))
		else
			lost=$((lost + 1))
			# A loser says why, in one sentence, and changes nothing itself:
			# it found the lock taken, or the files changed since it read them.
			grep -qxE "slctl: (another process is changing the boot configuration \(it holds /run/slctl/lock\)|/etc/default/grub(\.d/zz-slctl\.cfg)? changed while the change was being planned); run the command again\." \
				"$T/err.$((i + 1))" || fail "writer $((i + 1)): $(cat "$T/err.$((i + 1))")"
			[ "$(wc -l <"$T/err.$((i + 1))")" -eq 1 ] || fail "writer $((i + 1)): more than one line"
		fi
	done
	[ $won -ge 1 ] || fail "no writer succeeded"
	now=$(grub_state "$T/root")
	[ "$now" = "$fatal_state" ] || [ "$now" = "$off_state" ] || fail "mixed state after $won winners: $now"
	[ -z "$(find "$T/root/etc/default" -name '.#*')" ] || fail "temporary files left"
}

test_mode_persist_killed_then_rerun() {
	local op nth now
	for op in creat write fsync rename; do
		for nth in 1 2 3; do
			prepare_grub
			run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root" FAULT_OP=$op \
				FAULT_NTH=$nth FAULT_ACTION=kill FAULT_LOG="$FAULT_LOG" \
				"$SLCTL" --root "$T/root" mode fatal --persist
			# Each file is whole; the next run brings the pair to the new state.
			run "$SLCTL" --root "$T/root" mode fatal --persist
			expect_rc 0
			now=$(grub_state "$T/root")
			[ "$now" = "$GNEW" ] || fail "rerun after kill at $op#$nth: $now"
		done
	done
}

# The disk fills up halfway: the restore must not need space. Backups are
# second names of the old files, put back by rename.
test_mode_persist_restores_on_a_disk_that_stays_full() {
	local nth now struck=0
	for nth in 1 2 3; do
		prepare_grub
		run env LD_PRELOAD="$(preload)" FAULT_PREFIX="$T/root" FAULT_OP=write \
			FAULT_NTH=$nth FAULT_REPEAT=1 FAULT_ERRNO=ENOSPC FAULT_LOG="$FAULT_LOG" \
			"$SLCTL" --root "$T/root" mode fatal --persist
		now=$(grub_state "$T/root")
		[ "$rc" -eq 0 ] && { [ "$now" = "$GNEW" ] || fail "write#$nth+: success but $now"; continue; }
		struck=$((struck + 1))
		expect_rc 1
		expect_err "the previous configuration was restored."
		[ "$now" = "$GOLD" ] || fail "write#$nth+ ENOSPC: not restored: $now"
		[ -z "$(find "$T/root/etc/default" -name '*.slctl-backup' -o -name '.#*')" ] ||
			fail "write#$nth+: backup or temporary left: $(find "$T/root/etc/default")"
	done
	[ $struck -ge 1 ] || fail "no fault struck"
}

# A tool that wrote its output and then failed: slctl restores its own files
# and names what the tool left changed, with the command that fixes it.
test_tool_that_rewrote_grub_cfg_then_failed_is_reported() {
	prepare_grub
	stub_env
	# The root's own update-grub regenerates grub.cfg, then fails (a user's
	# 40_custom script exiting 1, say); it runs inside the root.
	local sbin=$T/root/usr/local/sbin
	mkdir -p "$T/root/usr/local/lib/real"
	mv "$sbin/update-grub" "$T/root/usr/local/lib/real/update-grub"
	printf '#!/bin/sh\n/usr/local/lib/real/update-grub "$@"\necho "update-grub: 40_custom failed" >&2\nexit 1\n' >"$sbin/update-grub"
	chmod +x "$sbin/update-grub"
	local cfg_before
	cfg_before=$(cat "$T/root/boot/grub/grub.cfg" 2>/dev/null || echo absent)
	run "$SLCTL" --root "$T/root" mode fatal --persist --run-tools
	expect_rc 1
	expect_err "'update-grub' failed with exit status 1; the previous configuration could not be fully restored."
	expect_err "/boot/grub/grub.cfg: $([ "$cfg_before" = absent ] && echo created || echo rewritten) by the failed command"
	[ "$(grub_state "$T/root")" = "$GOLD" ] || fail "slctl's own files not restored"
	grep -q split_lock_detect=fatal "$T/root/boot/grub/grub.cfg" || fail "test setup: the tool wrote nothing: $(cat "$T/root/boot/grub/grub.cfg"; echo; echo "$err")"
	grep -qF "fix: " <<<"$err" || fail "no fix command: $err"
	! grep -q "configuration was restored" <<<"$err" || fail "claims restored: $err"
}

# kernel-install with /etc/kernel/tries leaving a new entry behind when a
# later plugin fails: tests/boot/systemd-boot.sh, with the real
# kernel-install inside a Debian image (a busybox fake root has none).

run_tests
