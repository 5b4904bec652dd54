#!/usr/bin/env bash
# Hostile saved logs: a record counts only when its form shows the kernel
# wrote it, and an alignment-check kill is a split-lock kill only where that
# boot's detector ran in fatal mode.
. "$(dirname "$0")/../lib.sh"

F=$FIXTURES/offenders/formats
P="x86/split lock detection: "
AC="${P}#AC: evil/666 took a split_lock trap at address: 0x1"
FATAL="${P}#AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks"
WARN="${P}#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks"
LINUX="Linux version 6.12.6-amd64 (debian-kernel@lists.debian.org) (gcc-14 (Debian 14.2.0-8) 14.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.12.6-1 (2024-12-21)"
TRAPS="traps: acprog[800] trap alignment check ip:401000 sp:7ffd1000 error:0 in acprog[400000+2000]"

expect_nothing_counted() {
	expect_rc 0
	expect_json .events 0
	expect_json '.offenders | length' 0
}

test_user_space_kmsg_records_never_count() {
	# /dev/kmsg forces facility user on what user space writes.
	printf '12,1,5000000,-;%s\n14,2,5000001,-;%s\n' "$AC" "$AC" >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_nothing_counted
	expect_json .forged 2
}

test_dmesg_r_and_x_prefixes_name_the_writer() {
	printf '<12>[    5.000000] %s\n' "$AC" >"$T/r"
	run "$SLCTL" offenders --input "$T/r" --json
	expect_nothing_counted
	expect_json .forged 1
	printf 'user  :warn  : [    5.000000] %s\ndaemon:warn  : [    5.000000] %s\n' "$AC" "$AC" >"$T/x"
	run "$SLCTL" offenders --input "$T/x" --json
	expect_nothing_counted
	expect_json .forged 2
}

# dmesg -x and -r print a record's further lines (user space may write a
# newline to /dev/kmsg) without the prefix, indented to the message
# (util-linux sys-utils/dmesg.c, safe_fwrite()): never a record of their own.
test_dmesg_r_and_x_further_lines_never_count() {
	{
		echo "kern  :info  : [    1.000000] $LINUX"
		echo "user  :warn  : [    5.000000] hello"
		echo "                              $AC"
		echo "                              kern  :warn  : [    5.000000] $AC"
		echo "$AC"
	} >"$T/x"
	run "$SLCTL" offenders --input "$T/x" --json
	expect_nothing_counted
	expect_json .forged 3
	{
		echo "<6>[    1.000000] $LINUX"
		echo "<14>[    5.000000] hello"
		echo "                 $AC"
		echo "                 <4>[    5.000000] $AC"
		echo "$AC"
	} >"$T/r"
	run "$SLCTL" offenders --input "$T/r" --json
	expect_nothing_counted
	expect_json .forged 3
	# A kern.log cat'ed after it: its lines are further lines of -r's
	# form, the detector's words inside them; they were dropped unsaid
	# (fifth review of issue 26's fixes, H2).
	{
		echo "<6>[    1.000000] $LINUX"
		echo "<6>[    1.100000] $WARN"
		echo "<4>[    5.000000] $AC"
		echo "<6>[    6.000000] usb 1-1: new device"
		echo "Dec  6 14:01:10 host kernel: ${AC/evil\/666/other\/777}"
	} >"$T/r-then-syslog"
	run "$SLCTL" offenders --input "$T/r-then-syslog" --json
	expect_json '[.offenders[].comm] | join(",")' evil
	expect_json .forged_by.further_line 1
	# The same further lines in plain dmesg text cannot be told apart:
	# slctl(8) says so; this is why -x is the form to keep.
	# journalctl's short forms indent a message's further lines as
	# formats/newline.journal-short shows (journalctl 252): one that user
	# space wrote is said, not counted and not unread (fourth review of
	# issue 26's fixes, M2), however many there are.
	{
		echo "Dec 03 09:18:33 host evil[42]: hello"
		for i in 1 2 3 4; do echo "                                $AC"; done
		echo "Dec 03 09:18:34 host kernel: $LINUX"
	} >"$T/short"
	for fmt in auto journal-text syslog; do
		run "$SLCTL" offenders --input "$T/short" --input-format "$fmt" --json
		expect_nothing_counted
		expect_json .forged_by.further_line 4
		expect_json .complete true
	done
	# A whole log pasted with an indent is no further line.
	sed 's/^/    /' "$F/events.journal-short" >"$T/pasted"
	run "$SLCTL" offenders --input "$T/pasted" --json
	expect_json .events "$("$SLCTL" offenders --input "$F/events.journal-short" --json | jq .events)"
}

# Each line ignored is said for what it is: "4 detector-like lines from
# user space ignored" was printed where one was user space's, two were
# the kernel's at another level and one continued a kernel record.
test_ignored_lines_are_told_apart_by_reason() {
	{
		echo "kern  :warn  : [    2.000000] ${P}#AC: good/2 took a split_lock trap at address: 0x2"
		echo "user  :info  : [    3.000000] $AC"
		echo "kern  :emerg : [    4.000000] $AC"
		echo "kern  :err   : [    5.000000] $AC"
		echo "kern  :warn  : [    6.000000] a record of two lines"
		echo "                              $AC"
	} >"$T/x"
	run "$SLCTL" offenders --input "$T/x" --json
	expect_json .events 1
	expect_json .forged 4
	expect_json '.forged_by | "\(.user_space) \(.further_line) \(.level)"' '1 1 2'
	run "$SLCTL" offenders --input "$T/x"
	expect_rc 0
	expect_out "4 detector-like lines ignored: 1 from user space, 1 continuing a record and 2 of the kernel at another level than the detector's."
	grep -q '4 detector-like lines from user space' <<<"$out" && fail "all blamed on user space: $out"
	# One reason alone: one short sentence.
	printf 'user  :warn  : [    5.000000] %s\n' "$AC" >"$T/x"
	run "$SLCTL" offenders --input "$T/x"
	expect_out "1 detector-like line from user space ignored."
	printf 'kern  :err   : [    5.000000] %s\nkern  :crit  : [    5.000000] %s\n' "$AC" "$AC" >"$T/x"
	run "$SLCTL" offenders --input "$T/x"
	expect_out "2 detector-like lines of the kernel at another level than the detector's ignored."
}

# The detector writes its events at warning level; -r and -x show it.
# A task may name itself with an escape sequence (prctl(PR_SET_NAME) takes
# any byte), and busybox's dmesg or a syslog(2) buffer saved as it is keep
# the byte raw: dmesg --color's sequences are left out only where dmesg
# puts them, so "sshd\e[0m" is not passed off as sshd.
test_an_escape_in_a_task_name_is_no_colour() {
	local p="x86/split lock detection: " form line
	for form in "" "<4>"; do
		{
			printf '%s[   12.000000] %s#AC: sshd\033[0m/2 took a split_lock trap at address: 0x1\n' "$form" "$p"
			printf '%s[   13.000000] %s#AC: sshd/3 took a split_lock trap at address: 0x2\n' "$form" "$p"
			printf '%s[   14.000000] %s#AC: \033[2Kb/4 took a split_lock trap at address: 0x2\n' "$form" "$p"
			# dmesg's own colours around the stamp, the subsystem and the message
			printf '%s\033[32m[   15.000000] \033[0m\033[33m%s\033[0m\033[1m#AC: game/5 took a split_lock trap at address: 0x3\033[0m\n' "$form" "$p"
		} >"$T/esc.txt"
		run "$SLCTL" offenders --input "$T/esc.txt" -g comm --json
		expect_json .events 4
		expect_json .complete true
		expect_json '[.offenders[] | .comm] | sort | join(",")' $'\x1b[2Kb,game,sshd,sshd\x1b[0m'
	done
}

test_dmesg_r_kern_records_count_only_at_warning_level() {
	printf '<6>[    1.000000] %s\n<6>[    5.000000] %s\n<0>[    5.000000] %s\n<4>[    6.000000] %s\n' \
		"$LINUX" "$AC" "$AC" "${P}#AC: real/7 took a split_lock trap at address: 0x2" >"$T/r"
	run "$SLCTL" offenders --input "$T/r" --json
	expect_json .events 1
	expect_json '.offenders[0].comm' real
	expect_json .forged 2
	printf 'kern  :info  : [    5.000000] %s\nkern  :warn  : [    6.000000] %s\n' \
		"$AC" "${P}#AC: real/7 took a split_lock trap at address: 0x2" >"$T/x"
	run "$SLCTL" offenders --input "$T/x" --json
	expect_json .events 1
	expect_json .forged 1
}

# The same records give the same report in every form that shows their
# level: a kern.info detector line counted from /dev/kmsg records and
# journal JSON but was ignored under dmesg -r, -x and --json (7 events
# against 6; third new-user review of issue 26, M2).
test_every_form_with_a_level_holds_events_to_the_detectors_level() {
	local info="${P}#AC: info/3 took a split_lock trap at address: 0x12"
	local warn="${P}#AC: real/7 took a split_lock trap at address: 0x2"
	local f
	printf '6,3,1200000,-;%s\n4,4,1300000,-;%s\n' "$info" "$warn" >"$T/kmsg"
	printf '6,3,1200000,-;%s\0004,4,1300000,-;%s\000' "$info" "$warn" >"$T/kmsg-nul"
	printf '<6>[    1.200000] %s\n<4>[    1.300000] %s\n' "$info" "$warn" >"$T/r"
	printf 'kern  :info  : [    1.200000] %s\nkern  :warn  : [    1.300000] %s\n' "$info" "$warn" >"$T/x"
	printf '{\n   "dmesg": [\n      {\n         "pri": 6,\n         "time":     1.200000,\n         "msg": "%s"\n      },{\n         "pri": 4,\n         "time":     1.300000,\n         "msg": "%s"\n      }\n   ]\n}\n' \
		"$info" "$warn" >"$T/dmesg-json"
	for f in 6 4; do
		printf '{"__REALTIME_TIMESTAMP":"1796083201000000","__MONOTONIC_TIMESTAMP":"1200000","_BOOT_ID":"%s","_TRANSPORT":"kernel","PRIORITY":"%s","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' \
			"$(printf '0%.0s' {1..32})" "$f" "$([ "$f" = 6 ] && echo "$info" || echo "$warn")"
	done >"$T/json"
	for f in kmsg kmsg-nul r x dmesg-json json; do
		run "$SLCTL" offenders --input "$T/$f" --json
		expect_rc 0
		[ "$(jq -c '[.events, .forged_by.level, [.offenders[].comm]]' <<<"$out")" = '[1,1,["real"]]' ] ||
			fail "$f: $out"
	done
}

# The live log's records are /dev/kmsg's, held to the same rule.
test_live_kmsg_records_count_only_at_the_detectors_level() {
	mkdir -p "$T/root/dev" "$T/root/proc"
	printf '6,3,1200000,-;%s\n4,4,1300000,-;%s\n' \
		"${P}#AC: info/3 took a split_lock trap at address: 0x12" \
		"${P}#AC: real/7 took a split_lock trap at address: 0x2" >"$T/root/dev/kmsg"
	run "$SLCTL" --root "$T/root" offenders --json
	expect_json .events 1
	expect_json '.forged_by.level' 1
}

test_syslog_lines_count_only_under_the_kernel_tag() {
	{
		echo "Dec  3 09:18:33 host evil: $AC"
		echo "Dec  3 09:18:33 host kernel[999]: $AC"
		echo "Dec  3 09:18:33 host systemd[1]: $AC"
		echo "2026-12-03T09:18:33.1+00:00 host kernelx: $AC"
	} >"$T/syslog"
	run "$SLCTL" offenders --input "$T/syslog" --json
	expect_nothing_counted
	expect_json .input_format syslog
	expect_json .forged 4
}

test_journal_json_counts_only_kernel_transport_and_facility() {
	# Made by journald's own tools: see formats/generate.sh.
	run "$SLCTL" offenders --input "$F/hostile.json" --json
	expect_nothing_counted
	expect_json .forged 3
	# The user-written fatal boot line does not make acprog's trap ours:
	# the boot's mode is not shown, and the report says it cannot tell.
	expect_json .alignment_checks 0
	expect_json .unrecognized_by.mode_unknown 1
	expect_json .complete false
}

test_journal_text_shows_a_processes_pid_and_that_does_not_count() {
	run "$SLCTL" offenders --input "$F/hostile.journal-short" --json
	expect_json '[.offenders[] | select(.comm == "evil")] | .[0].events' 1
	expect_json .forged 2
}

test_alignment_checks_outside_fatal_mode_are_not_split_locks() {
	# No boot line: nothing says whether the boot was in fatal mode (its
	# boot line lost, or after the kill: journalctl -r). Not counted, and
	# not called a program's own either: the report cannot be complete
	# (second review of issue 26's fixes, H4: dropped, "complete").
	printf '6,1,9000000,-;%s\n' "$TRAPS" >"$T/none"
	run "$SLCTL" offenders --input "$T/none" --json
	expect_nothing_counted
	expect_json .alignment_checks 0
	expect_json .unrecognized_by.mode_unknown 1
	expect_json .complete false
	run "$SLCTL" offenders --input "$T/none"
	expect_out "1 is an alignment-check kill in a boot whose detector mode the log does not show"
	# journalctl -r: the fatal boot's mode line after its kill.
	printf '{"_BOOT_ID":"a","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "$TRAPS" "$FATAL" >"$T/reversed"
	run "$SLCTL" offenders --input "$T/reversed" --json
	expect_json .unrecognized_by.mode_unknown 1
	expect_json .complete false
	printf '6,0,120000,-;%s\n6,1,9000000,-;%s\n' "$WARN" "$TRAPS" >"$T/warn"
	run "$SLCTL" offenders --input "$T/warn"
	expect_out "1 alignment-check kill outside fatal mode left out"
	# Warn mode.
	printf '6,0,120000,-;%s\n6,1,9000000,-;%s\n' "$WARN" "$TRAPS" >"$T/warn"
	run "$SLCTL" offenders --input "$T/warn" --json
	expect_nothing_counted
	expect_json .alignment_checks 1
	# Fatal mode: the kill is a split-lock kill.
	printf '6,0,120000,-;%s\n6,1,9000000,-;%s\n' "$FATAL" "$TRAPS" >"$T/fatal"
	run "$SLCTL" offenders --input "$T/fatal" --json
	expect_json .events 1
	expect_json '.offenders[0] | [.comm, .action] | @csv' '"acprog","fatal"'
	expect_json .alignment_checks 0
	# Bus-lock detection only: fatal mode sends SIGBUS for bus locks, no #AC.
	printf '6,0,120000,-;%s#DB: sending SIGBUS on user-space bus_locks\n6,1,9000000,-;%s\n' "$P" "$TRAPS" >"$T/db"
	run "$SLCTL" offenders --input "$T/db" --json
	expect_nothing_counted
}

test_a_forged_fatal_boot_line_changes_nothing() {
	printf '14,0,120000,-;%s\n6,1,9000000,-;%s\n' "$FATAL" "$TRAPS" >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_nothing_counted
	printf 'Dec  3 09:18:33 host evil: %s\nDec  3 09:18:34 host kernel: %s\n' "$FATAL" "$TRAPS" >"$T/syslog"
	run "$SLCTL" offenders --input "$T/syslog" --json
	expect_nothing_counted
	expect_json .unrecognized_by.mode_unknown 1
}

test_each_boot_of_a_log_has_its_own_mode() {
	# A syslog file of two boots: each starts with the kernel's banner.
	{
		echo "Dec  1 00:00:00 host kernel: [    0.000000] $LINUX"
		echo "Dec  1 00:00:00 host kernel: [    0.120000] $FATAL"
		echo "Dec  1 00:00:09 host kernel: [    9.000000] traps: one[801] trap alignment check ip:401000 sp:7ffd1000 error:0"
		echo "Dec  1 01:00:00 host kernel: [    0.000000] $LINUX"
		echo "Dec  1 01:00:09 host kernel: [    9.500000] traps: two[802] trap alignment check ip:401000 sp:7ffd1000 error:0"
	} >"$T/syslog"
	run "$SLCTL" offenders --input "$T/syslog" --json
	expect_json '[.offenders[].comm] | join(",")' one
	# The second boot shows no mode: its kill is neither.
	expect_json .alignment_checks 0
	expect_json .unrecognized_by.mode_unknown 1
	# Without the banner, kernel stamps that start again mark the reboot.
	sed '/Linux version/d; s/9.500000/8.500000/' "$T/syslog" >"$T/stamps"
	run "$SLCTL" offenders --input "$T/stamps" --json
	expect_json '[.offenders[].comm] | join(",")' one
	# The journal names its boots.
	{
		printf '{"_BOOT_ID":"a","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "$FATAL"
		printf '{"_BOOT_ID":"a","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "${TRAPS/acprog\[800\]/one[801]}"
		printf '{"_BOOT_ID":"b","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "${TRAPS/acprog\[800\]/two[802]}"
	} >"$T/json"
	run "$SLCTL" offenders --input "$T/json" --json
	expect_json '[.offenders[].comm] | join(",")' one
	# journalctl text: "-- Boot ID --" between boots.
	{
		echo "Dec 01 00:00:00 host kernel: $FATAL"
		echo "Dec 01 00:00:09 host kernel: ${TRAPS/acprog\[800\]/one[801]}"
		echo "-- Boot 0123456789abcdef0123456789abcdef --"
		echo "Dec 01 00:10:09 host kernel: ${TRAPS/acprog\[800\]/two[802]}"
	} >"$T/short"
	run "$SLCTL" offenders --input "$T/short" --input-format journal-text --json
	expect_json '[.offenders[].comm] | join(",")' one
	# Boots interleaved: each keeps its own mode, the first's fatal kill
	# after the second's warn banner is still a kill, and the warn boot's
	# alignment check after the fatal banner is none (fourth review of
	# issue 26's fixes, H3).
	{
		printf '{"_BOOT_ID":"a","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "$FATAL"
		printf '{"_BOOT_ID":"b","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "$WARN"
		printf '{"_BOOT_ID":"a","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "${TRAPS/acprog\[800\]/one[801]}"
		printf '{"_BOOT_ID":"c","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "$FATAL"
		printf '{"_BOOT_ID":"b","_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"%s"}\n' "${TRAPS/acprog\[800\]/two[802]}"
	} >"$T/interleaved.json"
	run "$SLCTL" offenders --input "$T/interleaved.json" --json
	expect_json '[.offenders[].comm] | join(",")' one
	expect_json .alignment_checks 1
	expect_json .complete true
	# Remote syslog: one file, two hosts' kernels.
	{
		echo "Dec  1 00:00:00 alpha kernel: [    0.120000] $FATAL"
		echo "Dec  1 00:00:01 beta kernel: [    0.130000] $WARN"
		echo "Dec  1 00:00:09 alpha kernel: [    9.000000] traps: one[801] trap alignment check ip:401000 sp:7ffd1000 error:0"
		echo "Dec  1 00:00:09 beta kernel: [    8.000000] traps: two[802] trap alignment check ip:401000 sp:7ffd1000 error:0"
	} >"$T/hosts"
	run "$SLCTL" offenders --input "$T/hosts" --json
	expect_json '[.offenders[].comm] | join(",")' one
	expect_json .alignment_checks 1
	expect_json .complete true
	# journalctl -o short of two hosts' journal: a "-- Boot ID --" marker
	# at every switch, and none before the first boot's lines. alpha's
	# kills after its id's first marker took no mode (sixth review of the
	# fixes, M2); a single host's next boot without boot lines still has
	# none.
	{
		echo "Dec 01 00:00:00 alpha kernel: $FATAL"
		echo "-- Boot bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb --"
		echo "Dec 01 00:00:01 beta kernel: $WARN"
		echo "-- Boot aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa --"
		echo "Dec 01 00:00:09 alpha kernel: traps: one[801] trap alignment check ip:401000 sp:7ffd1000 error:0"
		echo "-- Boot bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb --"
		echo "Dec 01 00:00:10 beta kernel: traps: two[802] trap alignment check ip:401000 sp:7ffd1000 error:0"
		echo "-- Boot aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa --"
		echo "Dec 01 00:00:11 alpha kernel: traps: three[803] trap alignment check ip:401000 sp:7ffd1000 error:0"
	} >"$T/hosts.short"
	run "$SLCTL" offenders --input "$T/hosts.short" --input-format journal-text --json
	expect_json '[.offenders[].comm] | join(",")' one,three
	expect_json .alignment_checks 1
	expect_json .complete true
	{
		echo "Dec 01 00:00:00 alpha kernel: $FATAL"
		echo "-- Boot cccccccccccccccccccccccccccccccc --"
		echo "Dec 01 00:00:09 alpha kernel: traps: one[801] trap alignment check ip:401000 sp:7ffd1000 error:0"
	} >"$T/reboot.short"
	run "$SLCTL" offenders --input "$T/reboot.short" --input-format journal-text --json
	expect_nothing_counted
	expect_json .unrecognized_by.mode_unknown 1
	# One PID on two hosts is two tasks: they were one row of 2 events.
	{
		echo "Dec  1 00:00:05 alpha kernel: [    5.000000] $AC"
		echo "Dec  1 00:00:06 beta kernel: [    6.000000] $AC"
	} >"$T/pid-hosts"
	run "$SLCTL" offenders --input "$T/pid-hosts" --json
	expect_json '[.offenders[].events] | @csv' '1,1'
	run "$SLCTL" offenders --input "$T/pid-hosts" --group-by comm --json
	expect_json '[.offenders[].events] | @csv' '2'
	# journalctl -o short without a year is read as syslog: its "-- Boot"
	# lines were dropped, and a boot whose banner was lost took the boot
	# before's fatal mode (eighth review of the fixes, H4).
	sed 's/^Dec 01 /Dec  1 /' "$T/reboot.short" >"$T/reboot.syslog-form"
	run "$SLCTL" offenders --input "$T/reboot.syslog-form" --json
	expect_json .input_format syslog
	expect_nothing_counted
	expect_json .unrecognized_by.mode_unknown 1
	run "$SLCTL" offenders --input "$T/hosts.short" --json
	expect_json .input_format syslog
	expect_json '[.offenders[].comm] | join(",")' one,three
	expect_json .complete true
	# journalctl -o cat of two hosts' journals: no stamp, host or boot
	# id. A kill after two boot lines that disagree took the last one's
	# mode, whichever machine printed it (sixth review of the fixes, H3):
	# nobody can tell.
	{
		echo "$LINUX"; echo "$WARN"; echo "$LINUX"; echo "$FATAL"
		echo "traps: one[801] trap alignment check ip:401000 sp:7ffd1000 error:0"
	} >"$T/cat"
	run "$SLCTL" offenders --input "$T/cat" --json
	expect_nothing_counted
	expect_json .unrecognized_by.mode_unknown 1
	# Boot lines that agree still decide.
	sed 's/warning on user-space/sending SIGBUS on user-space/' "$T/cat" >"$T/cat-fatal"
	grep -c 'sending SIGBUS' "$T/cat-fatal" | grep -qx 2 || fail "fixture"
	run "$SLCTL" offenders --input "$T/cat-fatal" --json
	expect_json '[.offenders[].comm] | join(",")' one
	# Two CPUs' records a few microseconds out of order are no reboot.
	{
		echo "Dec  1 00:00:00 host kernel: [    0.120000] $FATAL"
		echo "Dec  1 00:00:09 host kernel: [    9.000100] usb 1-1: new device #1"
		echo "Dec  1 00:00:09 host kernel: [    9.000000] traps: one[801] trap alignment check ip:401000 sp:7ffd1000 error:0"
	} >"$T/reorder"
	run "$SLCTL" offenders --input "$T/reorder" --json
	expect_json '[.offenders[].comm] | join(",")' one
	expect_json .complete true
}

# show_signal() prints the kill line of every trap under one rate limit; in
# a fatal boot the kills it dropped may be split locks, so a report that
# counted only the logged ones was "complete" (fourth review of issue 26's
# fixes, H4).
test_dropped_kill_lines_of_a_fatal_boot_make_the_report_incomplete() {
	local sup="show_signal: 7 callbacks suppressed"

	printf '6,0,120000,-;%s\n6,1,9000000,-;%s\n4,2,9100000,-;%s\n' "$FATAL" "$TRAPS" "$sup" >"$T/fatal"
	run "$SLCTL" offenders --input "$T/fatal" --json
	expect_rc 0
	expect_json .events 1
	expect_json .unrecognized_by.kills_suppressed 1
	expect_json .complete false
	run "$SLCTL" offenders --input "$T/fatal"
	expect_out "rate limit on kill messages dropped some in a boot in fatal mode"
	# The limit is printk_ratelimit()'s, shared: its line names whichever
	# caller came next (seventh review of the fixes, H1).
	printf '6,0,120000,-;%s\n6,1,9000000,-;%s\n4,2,9100000,-;%s\n' "$FATAL" "$TRAPS" \
		"show_signal_msg: 25 callbacks suppressed" >"$T/other-name"
	run "$SLCTL" offenders --input "$T/other-name" --json
	expect_json .unrecognized_by.kills_suppressed 1
	expect_json .complete false
	# A boot whose mode the log does not show: the same.
	printf '4,2,9100000,-;%s\n' "$sup" >"$T/none"
	run "$SLCTL" offenders --input "$T/none" --json
	expect_json .unrecognized_by.kills_suppressed 1
	expect_json .complete false
	# Warn mode: kill lines are no split-lock events there.
	printf '6,0,120000,-;%s\n4,1,9100000,-;%s\n' "$WARN" "$sup" >"$T/warn"
	run "$SLCTL" offenders --input "$T/warn" --json
	expect_json .unrecognized 0
	expect_json .complete true
	# Written by user space, or at another level: not the kernel's limit.
	printf '6,0,120000,-;%s\n12,1,9100000,-;%s\n6,2,9200000,-;%s\n' "$FATAL" "$sup" "$sup" >"$T/forged"
	run "$SLCTL" offenders --input "$T/forged" --json
	expect_json .unrecognized 0
	expect_json .complete true
	# The same through syslog, where only the line's text shows.
	printf 'Dec  1 00:00:00 host kernel: [    0.120000] %s\nDec  1 00:00:09 host kernel: [    9.100000] %s\n' "$FATAL" "$sup" >"$T/syslog"
	run "$SLCTL" offenders --input "$T/syslog" --json
	expect_json .unrecognized_by.kills_suppressed 1
}

# kernel-patch/'s run-time switch changes the boot's mode from its line on
# (eighth review of the fixes, H3: a switch to fatal left kills out as
# alignment checks, one to warn counted a program's own AC flag).
test_the_run_time_mode_switch_changes_what_a_kill_is() {
	local to_fatal="${P}mode changed from warn to fatal by slctl/123"
	local to_warn="${P}mode changed from fatal to warn by slctl/123"

	printf '6,0,120000,-;%s\n6,1,5000000,-;%s\n6,2,9000000,-;%s\n' "$WARN" "$to_fatal" "$TRAPS" >"$T/to-fatal"
	run "$SLCTL" offenders --input "$T/to-fatal" --json
	expect_json '[.events, .alignment_checks, .complete] | @csv' '1,0,true'
	expect_json '.offenders[0].comm' acprog
	printf '6,0,120000,-;%s\n6,1,5000000,-;%s\n6,2,9000000,-;%s\n' "$FATAL" "$to_warn" "$TRAPS" >"$T/to-warn"
	run "$SLCTL" offenders --input "$T/to-warn" --json
	expect_json '[.events, .alignment_checks, .complete] | @csv' '0,1,true'
	# Written by user space: the mode stays.
	printf '6,0,120000,-;%s\n14,1,5000000,-;%s\n6,2,9000000,-;%s\n' "$WARN" "$to_fatal" "$TRAPS" >"$T/forged"
	run "$SLCTL" offenders --input "$T/forged" --json
	expect_json '[.events, .alignment_checks] | @csv' '0,1'
	# A CPU with bus-lock detection only traps no #AC in fatal mode either.
	printf '6,0,120000,-;%s#DB: warning on user-space bus_locks\n6,1,5000000,-;%s\n6,2,9000000,-;%s\n' "$P" "$to_fatal" "$TRAPS" >"$T/db"
	run "$SLCTL" offenders --input "$T/db" --json
	expect_json '[.events, .alignment_checks] | @csv' '0,1'
}

# kernel-patch/ rate-limits with __ratelimit() in the warning functions:
# its lines are named after them (eighth review of the fixes, H1).
test_the_patched_kernels_rate_limit_lines_count() {
	printf '6,0,120000,-;%s\n4,1,5000000,-;%s\n4,2,9000000,-;%s\n4,3,9100000,-;%s\n4,4,9200000,-;%s\n' "$WARN" "$AC" \
		"sld_warn_split_lock: 5 callbacks suppressed" "sld_warn_bus_lock: 7 callbacks suppressed" \
		"handle_guest_split_lock: 2 callbacks suppressed" >"$T/patched"
	run "$SLCTL" offenders --input "$T/patched" --json
	expect_json '[.events, .suppressed, .complete] | @csv' '1,14,false'
}

# The kernel says what a rate limit dropped only at its next call after
# the interval: 10 tasks warned in a burst and nothing after, and the
# report was complete though more may have been dropped (eighth review of
# the fixes, H2).
test_a_used_up_burst_with_nothing_after_is_incomplete() {
	local i
	for i in 0 1 2 3 4 5 6 7 8 9; do
		printf '4,%d,%d,-;%s#AC: t%d/%d took a split_lock trap at address: 0x1\n' $i $((5000000 + i * 1000)) "$P" $i $((100 + i))
	done >"$T/burst"
	run "$SLCTL" offenders --input "$T/burst" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '10,1,false'
	run "$SLCTL" offenders --input "$T/burst"
	expect_out "used up its burst"
	# A line of the limit after the interval would have been told of
	# any drops, but only if it is that boot's and that machine's, which
	# a log without boot ids cannot show (the next boot's first warning,
	# journalctl -r): only a count says.
	printf '4,10,12000000,-;%s#AC: late/200 took a split_lock trap at address: 0x1\n' "$P" >>"$T/burst"
	run "$SLCTL" offenders --input "$T/burst" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '11,1,false'
	# In reverse order, the same.
	tac "$T/burst" >"$T/reversed"
	run "$SLCTL" offenders --input "$T/reversed" --json
	expect_json '[.events, .unrecognized_by.burst_used_up] | @csv' '11,1'
	# Or its count.
	head -n 10 "$T/burst" >"$T/counted"
	printf '4,10,12000000,-;split_lock_warn: 4 callbacks suppressed\n' >>"$T/counted"
	run "$SLCTL" offenders --input "$T/counted" --json
	expect_json '[.events, .suppressed, .unrecognized] | @csv' '10,4,0'
	# Nine: the burst was not used up.
	head -n 9 "$T/burst" >"$T/nine"
	run "$SLCTL" offenders --input "$T/nine" --json
	expect_json '[.events, .complete] | @csv' '9,true'
}

# The live log: the running kernel's mode decides (here /proc/cmdline).
test_live_alignment_checks_follow_the_running_mode() {
	local mode
	for mode in fatal warn; do
		rm -rf "$T/root"
		mkdir -p "$T/root/dev" "$T/root/proc"
		printf '6,1,9000000,-;%s\n' "$TRAPS" >"$T/root/dev/kmsg"
		echo "BOOT_IMAGE=/vmlinuz split_lock_detect=$mode" >"$T/root/proc/cmdline"
		printf 'cpu  1 0 0 0 0 0 0 0 0 0\nbtime 1796083200\n' >"$T/root/proc/stat"
		run "$SLCTL" --root "$T/root" offenders --group-by task --json
		expect_rc 0
		if [ $mode = fatal ]; then
			expect_json '.offenders[0].comm' acprog
		else
			expect_nothing_counted
			expect_json .alignment_checks 1
		fi
	done
}

# A wall-clock --since on a log without wall-clock stamps added an
# alignment check of a warn boot to "undated" (events), and took it out of
# alignment_checks (fourth new-user review of issue 26, M4).
test_undated_alignment_checks_stay_alignment_checks() {
	printf '6,0,120000,-;%s\n4,1,5000000,-;%s\n6,2,9000000,-;%s\n' "$WARN" "$AC" "$TRAPS" >"$T/warn"
	run "$SLCTL" offenders --input "$T/warn" --since -1h --json
	expect_rc 0
	expect_json '[.events, .undated, .alignment_checks] | @csv' '0,1,1'
	# In a fatal boot the kill is an event, and undated like the others.
	printf '6,0,120000,-;%s\n4,1,5000000,-;%s\n6,2,9000000,-;%s\n' "$FATAL" "$AC" "$TRAPS" >"$T/fatal"
	run "$SLCTL" offenders --input "$T/fatal" --since -1h --json
	expect_rc 0
	expect_json '[.events, .undated, .alignment_checks] | @csv' '0,2,0'
}

# rfc3339_warnings FIRST STEP N NAME: N warnings of an rsyslog file with
# exact stamps (2026-12-05 19:48 UTC + FIRST s, STEP ms apart).
rfc3339_warnings() {
	local i ms
	for ((i = 0; i < $3; i++)); do
		ms=$((i * $2))
		printf '%s host kernel: %s#AC: %s%d/%d took a split_lock trap at address: 0x1\n' \
			"$(date -u -d @$((1796500000 + $1 + ms / 1000)).$(printf '%03d' $((ms % 1000))) +%Y-%m-%dT%H:%M:%S.%6N+00:00)" \
			"$P" "$4" $i $((1000 + $1 + i))
	done
}

at() { date -u -d @$((1796500000 + $1)).$2 +%Y-%m-%dT%H:%M:%S.%6NZ; }

# What a used-up burst dropped lies between its 10th line and the end of
# the rate limit's interval: a --since inside that span, after the
# burst's own lines or among them, leaves it the report's (eleventh review
# of the fixes, H1). Only a burst whose interval ended before the window is
# not.
test_a_window_that_starts_inside_a_used_up_burst_keeps_it() {
	rfc3339_warnings 100 500 10 w >"$T/burst"
	run "$SLCTL" offenders --input "$T/burst" --since "$(at 102 200000)" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '5,1,false'
	run "$SLCTL" offenders --input "$T/burst" --since "$(at 104 900000)" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '0,1,false'
	run "$SLCTL" offenders --input "$T/burst" --since "$(at 106 0)" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '0,0,true'
	# --until before the burst: not the report's either.
	run "$SLCTL" offenders --input "$T/burst" --until "$(at 99 0)" --json
	expect_json '[.events, .complete] | @csv' '0,true'
}

# A "callbacks suppressed" line tells of the burst before it, not of any
# (eleventh review, H2): burst B told at 210 s, burst A two hours later
# never told; a window of A alone was complete. The report names A's
# 10th line (L2).
test_a_told_line_tells_only_of_the_burst_before_it() {
	{
		rfc3339_warnings 200 100 10 b
		printf '%s host kernel: split_lock_warn: 3 callbacks suppressed\n' "$(date -u -d @1796500210 +%Y-%m-%dT%H:%M:%S.%6N+00:00)"
		rfc3339_warnings 7200 100 10 a
	} >"$T/two"
	run "$SLCTL" offenders --input "$T/two" --json
	expect_json '[.events, .suppressed, .unrecognized_by.burst_used_up, .first_unrecognized_line] | @csv' '20,3,1,21'
	run "$SLCTL" offenders --input "$T/two" --since "$(at 3600 0)" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '10,1,false'
	# Told after A too: no burst left untold, whichever window (the
	# suppressed events themselves leave it incomplete).
	{
		rfc3339_warnings 200 100 10 b
		printf '%s host kernel: split_lock_warn: 3 callbacks suppressed\n' "$(date -u -d @1796500210 +%Y-%m-%dT%H:%M:%S.%6N+00:00)"
		rfc3339_warnings 7200 100 10 a
		printf '%s host kernel: split_lock_warn: 2 callbacks suppressed\n' "$(date -u -d @1796507300 +%Y-%m-%dT%H:%M:%S.%6N+00:00)"
	} >"$T/both"
	run "$SLCTL" offenders --input "$T/both" --since "$(at 3600 0)" --json
	expect_json '[.events, .suppressed, .unrecognized] | @csv' '10,2,0'
	tac "$T/both" >"$T/reversed"
	run "$SLCTL" offenders --input "$T/reversed" --json
	expect_json '[.events, .suppressed, .unrecognized] | @csv' '20,5,0'
}

# The kernel's interval lasts up to a tick past 5 s (time_is_before_jiffies):
# a 10th line 2 ms past the mark is still the burst's (eleventh review, H4).
test_the_interval_ends_a_tick_after_five_seconds() {
	local i
	for i in 0 1 2 3 4 5 6 7 8; do
		printf '4,%d,%d,-;%s#AC: t%d/%d took a split_lock trap at address: 0x1\n' $i $((20000000 + i * 1000)) "$P" $i $((100 + i))
	done >"$T/jiffy"
	printf '4,9,25002000,-;%s#AC: t9/109 took a split_lock trap at address: 0x1\n' "$P" >>"$T/jiffy"
	run "$SLCTL" offenders --input "$T/jiffy" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '10,1,false'
}

# dmesg | grep 'split lock' >> saved.log at each boot: the mode line, or
# the stamps since boot going back, starts a boot, and each boot has its
# own rate limit: 6 warnings in each are no burst (eleventh review, M1).
test_boots_shown_by_the_mode_line_or_the_stamps_have_their_own_bursts() {
	local boot i
	for boot in 1 2; do
		printf '[    0.100000] %s\n' "$WARN"
		for i in 0 1 2 3 4 5; do
			printf '[   20.%06d] %s#AC: b%d/%d took a split_lock trap at address: 0x1\n' $((100000 + i * 100000)) "$P" "$boot" $((100 * boot + i))
		done
	done >"$T/grepped"
	run "$SLCTL" offenders --input "$T/grepped" --json
	expect_json '[.events, .complete] | @csv' '12,true'
	# Without the boot lines, the stamps going back do not part them
	# (journalctl -r goes back at every line): a burst is said, never
	# missed (twelfth review, H3).
	grep -v crashing "$T/grepped" >"$T/stamps"
	run "$SLCTL" offenders --input "$T/stamps" --json
	expect_json '[.events, .unrecognized_by.burst_used_up] | @csv' '12,1'
}

# Twelfth review: a line just past 5 s may begin the kernel's next interval
# (H1: split 1 + 9 before); a "callbacks suppressed" line printed in the
# same second as the next burst's first tells of the burst before (H2); in
# journalctl -r order bursts are found (H3); another host's banner does not
# split this host's burst (H4).
test_bursts_at_the_edges_of_intervals_hosts_and_order() {
	local i
	{
		printf '4,0,30000000,-;%s#AC: w0/100 took a split_lock trap at address: 0x1\n' "$P"
		for i in 1 2 3 4 5 6 7 8 9 10; do
			printf '4,%d,%d,-;%s#AC: w%d/%d took a split_lock trap at address: 0x1\n' $i $((35005000 + (i - 1) * 400000)) "$P" $i $((100 + i))
		done
	} >"$T/drift"
	run "$SLCTL" offenders --input "$T/drift" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '11,1,false'
	tac "$T/drift" >"$T/reversed"
	run "$SLCTL" offenders --input "$T/reversed" --json
	expect_json '[.events, .unrecognized_by.burst_used_up, .complete] | @csv' '11,1,false'
	# Whole seconds: the line 5 s after the first may begin the next
	# interval too.
	{
		printf '2026-12-05T19:48:20+00:00 host kernel: %s#AC: w0/100 took a split_lock trap at address: 0x1\n' "$P"
		for i in 1 2 3 4 5 6 7 8 9 10; do
			printf '2026-12-05T19:48:%02d+00:00 host kernel: %s#AC: w%d/%d took a split_lock trap at address: 0x1\n' $((25 + (i - 1) / 3)) "$P" $i $((100 + i))
		done
	} >"$T/drift-seconds"
	run "$SLCTL" offenders --input "$T/drift-seconds" --json
	expect_json '[.events, .unrecognized_by.burst_used_up] | @csv' '11,1'
	# Whole seconds: B at 100 s, its count printed at 110 s by the call
	# that begins C, C used up in that second and never told.
	{
		for i in 0 1 2 3 4 5 6 7 8 9; do
			printf '2026-12-05T19:48:%02d+00:00 host kernel: %s#AC: b%d/%d took a split_lock trap at address: 0x1\n' 20 "$P" $i $((200 + i))
		done
		printf '2026-12-05T19:48:30+00:00 host kernel: split_lock_warn: 4 callbacks suppressed\n'
		for i in 0 1 2 3 4 5 6 7 8 9; do
			printf '2026-12-05T19:48:30+00:00 host kernel: %s#AC: c%d/%d took a split_lock trap at address: 0x1\n' "$P" $i $((300 + i))
		done
	} >"$T/seconds"
	run "$SLCTL" offenders --input "$T/seconds" --json
	expect_json '[.events, .suppressed, .unrecognized_by.burst_used_up] | @csv' '20,4,1'
	# Two hosts: beta's banner among alpha's burst.
	{
		for i in 0 1 2 3 4; do
			printf '2026-12-05T19:48:2%d.000000+00:00 alpha kernel: %s#AC: a%d/%d took a split_lock trap at address: 0x1\n' $i "$P" $i $((400 + i))
		done
		printf '2026-12-05T19:48:24.500000+00:00 beta kernel: Linux version 6.12.0 (root@beta) #1 SMP\n'
		for i in 5 6 7 8 9; do
			printf '2026-12-05T19:48:24.%d00000+00:00 alpha kernel: %s#AC: a%d/%d took a split_lock trap at address: 0x1\n' $i "$P" $i $((400 + i))
		done
	} >"$T/hosts"
	run "$SLCTL" offenders --input "$T/hosts" --json
	expect_json '[.events, .unrecognized_by.burst_used_up] | @csv' '10,1'
}

# A dmesg -x line cut after its prefix or inside its stamp is cut; a last
# line that is a whole other trap, or a dmesg -t line, is not (twelfth
# review, H5, M2).
test_cuts_of_prefixed_and_stampless_lines() {
	printf 'kern  :warn  : [   30.000000] %s#AC: a/1 took a split_lock trap at address: 0x1\nkern  :warn  : [   30.00' "$P" >"$T/x"
	run "$SLCTL" offenders --input "$T/x" --input-format dmesg --json
	expect_json '[.events, .unrecognized_by.cut] | @csv' '1,1'
	printf 'kern  :warn  : [   30.000000] %s#AC: a/1 took a split_lock trap at address: 0x1\nkern  :warn  : 2026-12-06T13:35:47,002000+00:00 ' "$P" >"$T/iso"
	run "$SLCTL" offenders --input "$T/iso" --input-format dmesg --json
	expect_json '[.events, .unrecognized_by.cut] | @csv' '1,1'
	printf '[   30.000000] %s#AC: a/1 took a split_lock trap at address: 0x1\n[   31.000000] traps: svc[812] general protection fault ip:401136 sp:7ffd5bf0e6a0 error:0 in svc[401000+1000]' "$P" >"$T/gp"
	run "$SLCTL" offenders --input "$T/gp" --input-format dmesg --json
	expect_json '[.events, .complete] | @csv' '1,true'
	printf '%s#AC: a/1 took a split_lock trap at address: 0x1\nRun /sbin/init as init process' "$P" >"$T/t"
	run "$SLCTL" offenders --input "$T/t" --input-format dmesg --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# util-linux 2.38's dmesg --json writes "pri" without -x as facility |
# level: what it cannot tell (kern.warning from auth.warning, 4 both) is
# taken as the kernel's, as plain dmesg text is; what it can tell is still
# refused: a "pri" above 7 (user space in either writing) and one that no
# kern.warning record has (rev45 H1; unit test test-klog).
test_dmesg_json_pri_without_fac_refuses_what_it_can() {
	local pri ev='x86/split lock detection: #AC: %s took a split_lock trap at address: 0x1'
	for pri in 4 5 12 36; do
		printf '{\n   "dmesg": [\n      {\n         "pri": %d,\n         "time":   10.000000,\n         "msg": "'"$ev"'"\n      }\n   ]\n}\n' \
			"$pri" t/1 >"$T/p$pri.json"
	done
	run "$SLCTL" offenders --input "$T/p4.json" --json
	expect_json '[.events, .complete, .forged] | @csv' '1,true,0'
	run "$SLCTL" offenders --input "$T/p5.json" --json
	expect_json '[.events, .forged_by.level] | @csv' '0,1'
	for pri in 12 36; do
		run "$SLCTL" offenders --input "$T/p$pri.json" --json
		expect_json '[.events, .forged_by.user_space] | @csv' '0,1'
	done
}

run_tests
