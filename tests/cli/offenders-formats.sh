#!/usr/bin/env bash
# slctl offenders on every form a saved kernel log takes: the same records
# written by the real tools (tests/fixtures/offenders/formats/generate.sh)
# give one report, and detector text that is not read is never silent.
. "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

F=$FIXTURES/offenders/formats
export TZ=UTC

# The report minus what only some forms carry (times, the format's name).
# Its warnings are not compared: in the forms without stamps of their own
# the fixture's second GoW.exe/4242 warning is said to be maybe repeated.
report() {
	"$SLCTL" offenders --input "$1" --json "${@:2}" 2>/dev/null |
		jq -c '{events, suppressed, complete, unrecognized, alignment_checks,
			offenders: [.offenders[] | {comm, pid, kind, action, events, ips}] |
			sort_by(.pid, .kind)}'
}

test_every_form_gives_the_report_of_the_raw_records() {
	local want got f n=0
	want=$(report "$F/events.kmsg")
	[ "$(jq '.offenders | length' <<<"$want")" -eq 6 ] || fail "raw records: $want"
	for f in "$F"/events.*; do
		[ "$f" = "$F/events.kmsg" ] && continue
		got=$(report "$f")
		[ "$got" = "$want" ] || fail "${f##*/} differs: $got"
		n=$((n + 1))
	done
	[ $n -ge 28 ] || fail "only $n forms"
}

test_each_form_is_detected() {
	local f want
	while read -r f want; do
		run "$SLCTL" offenders --input "$F/$f" --json
		expect_json .input_format "$want"
	done <<-EOF
	events.kmsg kmsg
	events.dmesg dmesg
	events.dmesg-T.ja dmesg
	events.dmesg-e.de dmesg
	events.dmesg-iso dmesg
	events.dmesg-r dmesg
	events.kern.log syslog
	events.kern.log-rfc3339 syslog
	events.journal-short.ja syslog
	events.journal-short-full journal-text
	events.journal-short-monotonic journal-text
	events.journal-short-unix journal-text
	events.json journal
	events.json-pretty journal
	events.json-seq journal
	events.json-sse journal
	events.dmesg-json dmesg-json
	events.dmesg-json-x dmesg-json
	events.dmesg-color dmesg
	events.dmesg-x-color dmesg
	events.dmesg-H dmesg
	events.journal-export journal-export
	events.journal-verbose journal-verbose
	events.journal-with-unit journal-text
	EOF
}

# util-linux's own JSON was once taken for the journal's: complete, 0 events.
test_dmesg_json_is_read_exactly() {
	local f
	for f in events.dmesg-json events.dmesg-json-x; do
		run "$SLCTL" offenders --input "$F/$f" --json
		expect_json .events 7
		expect_json .unrecognized 0
		expect_json '.offenders[] | select(.pid == 4242) | .last_seen' 5.118315
	done
	# dmesg 2.38 -F runs each msg on to the end of the buffer: only a
	# record's first line is its own, the rest is nobody's event.
	grep -q 'address: 0x1403c2d1\\n<4>' "$F/events.dmesg-json" || fail "fixture lacks the -F run-on"
	# A record of user space (facility user) does not count.
	printf '{\n   "dmesg": [\n      {\n         "pri": 12,\n         "time":     5.000000,\n         "msg": "x86/split lock detection: #AC: evil/1 took a split_lock trap at address: 0x1"\n      }\n   ]\n}\n' >"$T/user.json"
	run "$SLCTL" offenders --input "$T/user.json" --json
	expect_json .input_format dmesg-json
	expect_json .events 0
	expect_json .forged 1
	# A cut detector message is unread, never silently complete.
	printf '{\n   "dmesg": [\n      {\n         "fac": "kern",\n         "pri": "warn",\n         "time":     5.000000,\n         "msg": "x86/split lock detection: #AC: GoW.exe/4242"\n      }\n   ]\n}\n' >"$T/cut.json"
	run "$SLCTL" offenders --input "$T/cut.json" --json
	expect_json .complete false
	expect_json .unrecognized 1
	# dmesg writes no member but fac, pri, time, caller and msg: detector
	# text under another key (a journal's json-pretty cat'ed after the
	# log, whose "MESSAGE" line goes on with a ",") is unread, not skipped.
	printf '{\n   "dmesg": [\n      {\n         "pri": 4,\n         "time":   101.500000,\n         "MESSAGE" : "x86/split lock detection: #AC: hidden/300 took a split_lock trap at address: 0x1234",\n         "x": 1\n      },{\n         "pri": 4,\n         "time":   102.500000,\n         "caller": "T301",\n         "msg": "x86/split lock detection: #AC: seen/301 took a split_lock trap at address: 0x1234"\n      }\n   ]\n}\n' >"$T/other.json"
	run "$SLCTL" offenders --input "$T/other.json" --json
	expect_json .events 1
	expect_json .complete false
	expect_json .unrecognized_by.unparsed 1
	# A document cut right after a record's "}" is cut: it ends before
	# the array's "]" and its own "}" (so is jq -s's array before "]").
	sed -n '1,/^      },{$/p' "$F/events.dmesg-json" | sed '$s/},{$/}/' >"$T/cut-at-brace.json"
	run "$SLCTL" offenders --input "$T/cut-at-brace.json" --json
	expect_json .input_format dmesg-json
	expect_json .complete false
	expect_json .unrecognized_by.cut 1
	jq -s . "$F/events.json" | sed -n '1,/^  },$/p' | sed '$s/},$/}/' >"$T/cut-at-brace.jq"
	run "$SLCTL" offenders --input "$T/cut-at-brace.jq" --json
	expect_json .input_format journal
	expect_json .complete false
	expect_json .unrecognized_by.cut 1
	# json-pretty journal lines after a dmesg --json log
	cat "$F/events.dmesg-json" "$F/events.json-pretty" >"$T/cat.txt"
	run "$SLCTL" offenders --input "$T/cat.txt" --json
	expect_json .input_format dmesg-json
	expect_json .events 7
	expect_json .complete false
}

# -H stamps the first line of each minute "[Dec 5 11:54]" ("%b%e %H:%M":
# "[Feb13 14:43]" once the day has two digits); that line's event counts.
test_dmesg_H_minute_lines_are_read() {
	local f
	grep -q '^\[Dec  *[0-9]* [0-9:]*\] .*GoW.exe' "$F/events.dmesg-H" || fail "fixture has no minute-stamped event"
	for f in events.dmesg-H events.dmesg-H-color events.dmesg-H.feb13 events.dmesg-H.space; do
		run "$SLCTL" offenders --input "$F/$f" --json
		expect_json .events 7
		expect_json .unrecognized 0
	done
}

# A comm may hold a newline: the forms that keep a record whole read it
# exactly, those that print it over two lines say they could not.
test_comm_with_a_newline() {
	local f
	for f in newline.kmsg newline.journal-json newline.journal-json-pretty \
		newline.journal-export newline.journal-verbose; do
		run "$SLCTL" offenders --input "$F/$f" --json
		expect_json .complete true
		expect_json '[.offenders[].comm] | sort | @json' '["fo\no","plain"]'
	done
	for f in newline.journal-short newline.journal-cat; do
		run "$SLCTL" offenders --input "$F/$f" --json
		expect_json .complete false
		expect_json .events 1
	done
}

# A blob the journal would not print, or a cut export record: unread.
test_journal_records_that_cannot_be_seen_are_unread() {
	printf 'Tue 2026-12-01 00:00:05.000000 UTC [s=1]\n    _TRANSPORT=kernel\n    SYSLOG_FACILITY=0\n    MESSAGE=[1.2K blob data]\n' >"$T/verbose"
	run "$SLCTL" offenders --input "$T/verbose" --json
	expect_json .input_format journal-verbose
	expect_json .complete false
	# The binary MESSAGE cut in the middle (at the end of the input).
	head -c "$(grep -a -b -o 'o/12 took' "$F/newline.journal-export" | cut -d: -f1)" \
		"$F/newline.journal-export" >"$T/export"
	run "$SLCTL" offenders --input "$T/export" --input-format journal-export --json
	expect_json .complete false
}

# Every line that holds the detector's words is read or counted unread.
test_lines_cut_before_the_trap_are_unread() {
	local l
	for l in "x86/split lock detection: #AC: GoW.exe/4242" \
		"x86/split lock detection: #DB: stress-ng/6000 took a" \
		"x86/split lock detection: " "split_lock_warn: 17" "handle_bus_lock: 3 callbacks" \
		"#AC: GoW.exe/4242 took a split_lock"; do
		printf '[    5.000000] usb 1-1: new device\n[    5.100000] %s\n' "$l" >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json .complete false
		expect_json .unrecognized 1
	done
	# The detector's boot lines are read, not unread.
	printf '[    0.100000] x86/split lock detection: #DB: warning on user-space bus_locks\n' >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json .unrecognized 0
}

# A record cut before the detector's words, then a newline, then more
# (a dump cut there and another appended, a line cut by hand): the
# message is the detector's prefix cut short, and unread in every form
# (twenty-ninth review, H1). The kernel's own x86 lines are read.
test_a_record_cut_inside_the_detectors_prefix_mid_log_is_unread() {
	local cut head tail
	for cut in "x86/" "x86/s" "x86/split lo" "x86/split lock detectio"; do
		for head in '[    5.100000] ' 'Dec  5 10:00:01 host kernel: ' '4,2,5100000,-;' \
			'kern  :warn  : [    5.100000] ' '2026-12-05T10:00:01+0000 host kernel: '; do
			case $head in
			4,*) tail='6,3,5200000,-;usb 1-1: new device' head=4,${head#4,} ;;
			'['*) tail='[    5.200000] usb 1-1: new device' ;;
			kern*) tail='kern  :info  : [    5.200000] usb 1-1: new device' ;;
			Dec*) tail='Dec  5 10:00:02 host kernel: usb 1-1: new device' ;;
			*) tail='2026-12-05T10:00:02+0000 host kernel: usb 1-1: new device' ;;
			esac
			printf '%s\n%s%s\n%s\n' "${tail/new device/old device}" "$head" "$cut" "$tail" |
				sed '1s/,3,5200000/,1,5000000/;1s/5.200000/5.000000/;1s/10:00:02/10:00:00/' >"$T/log"
			[ "${head%%,*}" != 4 ] || sed -i '1s/^6,1,/6,0,/;2s/^4,2,/4,1,/;3s/^6,3,/6,2,/' "$T/log"
			run "$SLCTL" offenders --input "$T/log" --json
			expect_json '[.complete, .unrecognized, .unrecognized_by.cut] | @csv' 'false,1,1'
		done
	done
	# The kernel's other x86 lines, and x86/ in a message's middle.
	printf '[    0.000000] x86/fpu: Supporting XSAVE feature 0x001\n[    0.000000] x86/split lock detection: #DB: warning on user-space bus_locks\n[    0.100000] x86/mm: Memory block size: 128MB\n[    1.000000] pci 0000:00:00.0: x86/PAT\n' >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.complete, .unrecognized] | @csv' 'true,0'
}

# A kernel line cut in or right after its head, or in the detector's first
# words, with the next dump's first line a program's ("systemd[1]:", whose
# tag has another shape than "kernel:") run on into it; hosts of up to 253
# bytes (thirtieth review, H1, M1).
test_a_cut_kernel_line_with_a_programs_line_run_on_into_it_is_cut() {
	local cut next host
	for cut in '' '[    6.000000] ' '[    6.0' 'x86/' '[    6.000000] x86/split lock d'; do
		for next in 'host systemd[1]: Started apt.' 'host sshd[812]: Accepted key' 'host CRON[812]: (root) CMD'; do
			printf 'Dec  5 10:00:00 host kernel: [    1.000000] Linux version 6.12\nDec  5 10:00:02 host kernel: %sDec  5 10:00:03 %s\nDec  5 10:00:04 host kernel: [    8.000000] usb 1-1: new device\n' \
				"$cut" "$next" >"$T/log"
			run "$SLCTL" offenders --input "$T/log" --json
			expect_json '[.input_format, .complete, .unrecognized_by.cut] | @csv' '"syslog",false,1'
		done
		printf '[    1.000000] host kernel: Linux version 6.12\n[    6.000000] host kernel: %s[    7.000000] host systemd[1]: Started apt.\n' \
			"${cut#\[    6.0*\] }" >"$T/mono"
		run "$SLCTL" offenders --input "$T/mono" --input-format journal-text --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
	# A whole program's line before another program's: no cut.
	printf 'Dec  5 10:00:00 host kernel: usb 1-1: x\nDec  5 10:00:02 host app[9]: Dec  5 10:00:03 host systemd[1]: Started apt.\n' >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'true,0'
	for host in 80 253; do
		host=$(printf 'n%.0s' $(seq $host))
		printf '2026-12-05T10:00:00.000000+01:00 %s kernel: [    1.000000] Linux version\n2026-12-05T10:00:02.000000+01:00 %s kernel: [    6.000000] x86/split lock detection: #2026-12-05T10:00:03.000000+01:00 %s kernel: [    7.000000] eth0: up\n' \
			"$host" "$host" "$host" >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
}

# Thirty-first review: a cut kernel line with the next dump's first line
# after it where that line is journalctl's header (F1), dmesg -x's banner
# at notice, its level unpadded (F2), or a program's line stamped in
# another style (F3); the text before a hole of NULs (a crash) is a line
# cut short (F4).
test_a_cut_line_before_a_header_banner_other_stamp_or_hole_is_cut() {
	local d='Dec  3 10:42:34 host kernel: Linux version 6.1.0' cut head
	for cut in 'x86/split lock det' 'x86/' '' '[    6.0'; do
		for head in '-- Logs begin at Mon 2024-12-02 10:00:00 CET, end at Wed 2024-12-04 09:00:01 CET. --' \
			'-- Journal begins at Mon 2024-12-02 10:00:00 CET, ends at Wed 2024-12-04 09:00:01 CET. --' \
			'-- Boot 0123456789abcdef0123456789abcdef --' \
			'2024-12-04T09:00:00.123456+01:00 host systemd[1]: Started x.'; do
			printf '%s\nDec  3 10:42:36 host kernel: %s%s\nDec  4 09:00:01 host kernel: usb 1-1: new device\n' "$d" "$cut" "$head" >"$T/log"
			run "$SLCTL" offenders --input "$T/log" --json
			expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		done
	done
	# journalctl's header after a whole line of a program's: no cut.
	printf '%s\nDec  3 10:42:36 host app[9]: done-- Logs begin at Mon 2024-12-02 10:00:00 CET, end at Wed 2024-12-04 09:00:01 CET. --\n' "$d" >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'true,0'
	for cut in 'kern  :wa' 'kern  :warn  : [    5.0' 'kern  :warn  : [    5.000000] x86/split lock det'; do
		printf 'kern  :notice: [    0.000000] Linux version 6.1.0\n%skern  :notice: [    0.000000] Linux version 6.1.0\nkern  :info  : [    1.000000] usb 1-1: new device\n' "$cut" >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
	for cut in 'x86/' 'x86/split ' 'x86/split lock ' 'x86/split lock detection: #AC: a/3 took a split_lo'; do
		{ printf '%s\nDec  3 10:42:36 host kernel: %s' "$d" "$cut"
		  head -c 4096 /dev/zero
		  printf 'Dec  4 09:00:00 host rsyslogd: [origin software="rsyslogd"] start\nDec  4 09:00:01 host kernel: usb 1-1: new device\n'; } >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
	# Thirty-second review: a program that logs journalctl's output is
	# no seam (F1); a head cut short before a dump stamped in another
	# style (F2), or a few NULs after the cut (F3), is.
	for f in '-- No entries --' '-- Reboot --' '-- Boot 0123456789abcdef0123456789abcdef --' \
		'-- Logs begin at Mon 2024-12-02 10:00:00 CET, end at Wed 2024-12-04 09:00:01 CET. --'; do
		printf '%s\nDec  3 10:42:35 host root: %s\nDec  3 10:42:36 host backup.sh[812]: %s\n' "$d" "$f" "$f" >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'true,0'
	done
	for cut in 'D' 'Dec  3 10:4' 'Dec  3 10:42:35 ho' 'Dec  3 10:42:35 host kern' 'Dec  3 10:42:35 host kernel: [    6.000000] x'; do
		printf '%s\n%s\n%s2024-12-04T09:00:00.000000+01:00 host kernel: [    0.000000] Linux version 6.1\n2024-12-04T09:00:01.000000+01:00 host systemd[1]: Started x.\n' \
			"$d" "$d" "$cut" >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		{ printf '%s\n%s\n%s' "$d" "$d" "$cut"; printf '\0\0\0\0\0'; printf 'Dec  3 10:50:00 host kernel: Linux version 6.1\n'; } >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
	# Thirty-third review: a program's message that begins with its own
	# stamp (PostgreSQL, fluentd) and a relay's double head without a
	# tag are whole lines (F1, F2); a short-monotonic stamp cut short
	# before another style (F3) and a cut head before a 4096-byte hole
	# (F4) are cut.
	printf '%s\n' '[    0.000000] host kernel: Linux version 6.1.0-27-amd64' \
		'[  100.123456] host postgres[1700]: 2024-12-04 09:00:01.123 UTC [1700] LOG:  database system is ready' \
		'[  101.000000] host td-agent[1]: 2026-12-01 00:00:01 +0000 [info]: #0 fluentd worker is now running' >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.input_format, .complete, .unrecognized_by.cut] | @csv' '"journal-text",true,0'
	# Short-full weekdays of every locale are read (thirty-fourth review,
	# F1): he_IL, ln_CD, vi_VN, tig_ER, sa_IN, de_DE.
	local wd
	for wd in "ג'" "m3." "T3" "ሰ/ቅ" "सोम:" "Di."; do
		printf '%s 2026-12-01 10:00:00 UTC host kernel: x86/split lock detection: #AC: g/42 took a split_lock trap at address: 0x401000\n%s 2026-12-01 10:00:01 UTC host systemd[1]: Started foo.\n' \
			"$wd" "$wd" >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --json
		expect_json '[.input_format, .events, .complete] | @csv' '"journal-text",1,true'
	done
	printf '%s\n' "$d" "$d" 'Dec  4 09:00:01 10.0.0.1 Dec  4 09:00:01 fw01 sshd[12]: Accepted publickey for root' \
		'Dec  4 09:00:01 esxi1 2024-12-04T09:00:01.123Z esxi1 Hostd: info' >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'true,0'
	printf '%s\n' '[   98.000000] host app[1]: msg' '[   99.000000] host app[1]: msg' \
		'[  100.12Dec 03 10:42:35 host kernel: Linux version 6.1.0' 'Dec 03 10:42:36 host app[1]: x' >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	{ printf '%s\n%s\nDec  4 09:00:01 host kern' "$d" "$d"; head -c 4096 /dev/zero
	  printf 'Dec  4 09:05:00 host kernel: usb 1-1: x\n'; } >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	# A hole after a whole line, or after a program's cut line: no cut;
	# the line behind the hole is read.
	{ printf '%s\nDec  3 10:42:36 host app[9]: cut' "$d"; head -c 4096 /dev/zero
	  printf 'Dec  4 09:00:01 host kernel: x86/split lock detection: #AC: b/4 took a split_lock trap at address: 0x4\n'; } >"$T/log"
	run "$SLCTL" offenders --input "$T/log" --json
	expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,true,0'
}

# A log saved on Windows ends its lines with \r\n: every text form reads
# it as it reads the original (the fatal-mode boot line, which decides
# whether alignment-check kills count, ends in "...split_locks\r").
test_crlf_lines_read_as_the_original() {
	local f want got n=0
	for f in "$F"/events.* "$F"/hostile.journal-short \
		"$FIXTURES"/offenders/log.kmsg "$FIXTURES"/offenders/log.dmesg-x; do
		want=$(report "$f")
		sed 's/$/\r/' "$f" >"$T/crlf"
		got=$(report "$T/crlf")
		[ "$got" = "$want" ] || fail "${f##*/} with CRLF: $got; without: $want"
		n=$((n + 1))
	done
	[ $n -ge 30 ] || fail "only $n forms"
	# An export binary field's size counts its bytes: a CR added inside
	# it breaks the field, which is then unread, not lost.
	sed 's/$/\r/' "$F/newline.journal-export" >"$T/crlf"
	run "$SLCTL" offenders --input "$T/crlf" --json
	expect_json '[.events, .unrecognized, .complete] | @csv' '1,1,false'
	printf '[    0.100000] x86/split lock detection: #AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks\r\n[    9.000000] traps: legacy[7000] trap alignment check ip:7f12a0001234 sp:7ffd1000 error:0 in libfoo.so[7f12a0000000+5000]\r\n' >"$T/fatal"
	run "$SLCTL" offenders --input "$T/fatal" --json
	expect_json '[.events, .alignment_checks, .complete, .offenders[0].action] | @csv' '1,0,true,"fatal"'
}

# A file saved by a Windows editor starts with a UTF-8 byte order mark:
# journal JSON behind one was read as dmesg text, every event unread.
test_a_byte_order_mark_changes_nothing() {
	local f want got n=0
	for f in "$F"/events.* "$FIXTURES"/offenders/log.kmsg "$FIXTURES"/offenders/log.dmesg-x; do
		want=$(report "$f")
		printf '\xef\xbb\xbf' | cat - "$f" >"$T/bom"
		got=$(report "$T/bom")
		[ "$got" = "$want" ] || fail "${f##*/} after a BOM: $got; without: $want"
		[ "$("$SLCTL" offenders --input "$T/bom" --json 2>/dev/null | jq -r .input_format)" = \
		  "$("$SLCTL" offenders --input "$f" --json 2>/dev/null | jq -r .input_format)" ] ||
			fail "${f##*/} after a BOM is another form"
		n=$((n + 1))
	done
	[ $n -ge 30 ] || fail "only $n forms"
}

test_forced_format_reads_the_same() {
	local want
	want=$(report "$F/events.kmsg")
	[ "$(report "$F/events.journal-short" --input-format journal-text)" = "$want" ] || fail "journal-text"
	[ "$(report "$F/events.kern.log" --input-format syslog)" = "$want" ] || fail "syslog"
	[ "$(report "$F/events.json-pretty" --input-format journal)" = "$want" ] || fail "json-pretty"
	run "$SLCTL" offenders --input "$F/events.kmsg" --input-format syslog --json
	expect_json .events 0
	expect_json .complete false
}

test_stamps_give_the_times_they_hold() {
	run "$SLCTL" offenders --input "$F/events.journal-short-full" --json
	expect_json '.offenders[] | select(.pid == 4242) | [.first_seen_wall, .last_seen_wall] | @csv' \
		'"2026-12-01T00:00:05.000000Z","2026-12-01T00:00:05.000000Z"'
	run "$SLCTL" offenders --input "$F/events.journal-short-unix" --json
	expect_json '.offenders[] | select(.pid == 4242) | .last_seen_wall' 2026-12-01T00:00:05.118315Z
	run "$SLCTL" offenders --input "$F/events.journal-short-monotonic" --json
	expect_json '.offenders[] | select(.pid == 4242) | [.first_seen, .last_seen] | @csv' '5,5.118315'
	run "$SLCTL" offenders --input "$F/events.dmesg-r" --json
	expect_json '.offenders[] | select(.pid == 4242) | .last_seen' 5.118315
	run "$SLCTL" offenders --input "$F/events.kern.log" --json
	expect_json '.offenders[] | select(.pid == 4242) | .last_seen' 5.118315
	# -T stamps are local time, with the month in the locale that wrote it.
	run "$SLCTL" offenders --input "$F/events.dmesg-T.ja" --json
	local ja=$out
	run "$SLCTL" offenders --input "$F/events.dmesg-T" --json
	[ "$(jq -c '[.offenders[].first_seen_wall]' <<<"$ja")" = "$(jq -c '[.offenders[].first_seen_wall]' <<<"$out")" ] ||
		fail "ja and C -T stamps differ"
	expect_json '.offenders[0].first_seen_wall | test("^20[0-9][0-9]-")' true
	# Month names of a locale slctl does not know: read, but undated.
	run "$SLCTL" offenders --input "$F/events.dmesg-T.lt" --json
	expect_json '[.offenders[].first_seen_wall] | unique | @csv' ''
	run "$SLCTL" offenders --input "$F/events.journal-short.lt" --json
	expect_json '[.offenders[].first_seen_wall] | unique | @csv' ''
	# Relative stamps (-e, delta) date nothing.
	run "$SLCTL" offenders --input "$F/events.dmesg-e.de" --json
	expect_json '[.offenders[] | .first_seen, .first_seen_wall] | unique | @csv' ''
}

# A line of a known form that holds detector text nobody could read.
test_unread_detector_text_makes_the_report_incomplete() {
	local f
	for f in events.kern.log events.journal-short-full events.dmesg events.json; do
		{
			head -3 "$F/$f"
			echo 'garbled x86/split lock detection: #AC: lost/1 took a split_lock trap at address: 0x1'
			tail -n +4 "$F/$f"
		} >"$T/log"
		run "$SLCTL" offenders --input "$T/log" --input-format "$(
			"$SLCTL" offenders --input "$F/$f" --json | jq -r .input_format)" --json
		expect_rc 0
		expect_json .complete false
		expect_json .unrecognized 1
		expect_json .first_unrecognized_line 4
		run "$SLCTL" offenders --input "$T/log" --input-format "$(
			"$SLCTL" offenders --input "$F/$f" --json | jq -r .input_format)"
		expect_out "1 line that may hold detector text could not be read (the first is line 4), so this report is incomplete."
	done
	# The whole report is complete only when nothing was missed.
	run "$SLCTL" offenders --input "$F/events.kmsg" --json
	expect_json .unrecognized 0
	expect_json .first_unrecognized_line null
}

# A form given with --input-format that reads no record of the input said
# "0 events, complete" (fourth review of issue 26's fixes, L3): the
# detector's words it passed by are unread.
test_wrong_input_format_is_never_complete() {
	local src fmt
	for src in events.dmesg-json:kmsg events.dmesg-json:syslog events.dmesg-json:journal \
		events.journal-verbose:kmsg events.journal-verbose:journal-text events.kmsg:kmsg-nul \
		events.kern.log:journal-export events.json:dmesg-json; do
		fmt=${src#*:} src=${src%%:*}
		run "$SLCTL" offenders --input "$F/$src" --input-format "$fmt" --json
		expect_rc 0
		[ "$(jq .complete <<<"$out")" = false ] || fail "$src read as $fmt: $(jq -c '[.events, .complete]' <<<"$out")"
	done
}

# A task may name itself "GoW\x2eexe": dmesg prints the backslash as it
# is and writes \xNN only for bytes that are not printable. It was read as
# GoW.exe and merged with the game (fifth review of issue 26's fixes, M2).
test_dmesg_text_keeps_a_literal_backslash_escape() {
	printf '<4>[    5.000000] %s#AC: GoW.exe/4242 took a split_lock trap at address: 0x1\n<4>[    6.000000] %s#AC: GoW\\x2eexe/6666 took a split_lock trap at address: 0x1\n' \
		"$SL_P" "$SL_P" >"$T/raw"
	local f
	for f in "" -x -r -T; do
		dmesg -F "$T/raw" $f | cat >"$T/text"
		run "$SLCTL" offenders --input "$T/text" -g comm --json
		expect_json '[.offenders[].comm] | sort | join(",")' 'GoW.exe,GoW\x2eexe'
	done
}

test_caller_ids_and_indentation_are_not_part_of_the_message() {
	run "$SLCTL" offenders --input "$F/events.dmesg-indented" --json
	expect_json '.offenders[] | select(.pid == 7200) | .comm' 'Steam Web Helper'
	grep -q '\[ T4242\]' "$F/events.dmesg" || fail "fixture lacks caller ids"
	printf '<4>[    5.000000][    C3] x86/split lock detection: #AC: irq/3 took a split_lock trap at address: 0x1\n' >"$T/klog"
	run "$SLCTL" offenders --input "$T/klog" --json
	expect_json '.offenders[0].comm' irq
	expect_json .complete true
}

test_json_pretty_records_span_lines() {
	run "$SLCTL" offenders --input "$F/events.json-pretty" --json
	expect_json .events 7
	# A byte-array MESSAGE over several lines of json-pretty.
	printf '{\n\t"_TRANSPORT" : "kernel",\n\t"SYSLOG_FACILITY" : "0",\n\t"MESSAGE" : [\n\t\t35, 65, 67, 58, 32, 120, 255, 47, 57, 32, 116, 111, 111, 107, 32, 97, 32, 115, 112, 108, 105, 116, 95, 108, 111, 99, 107, 32, 116, 114, 97, 112, 32, 97, 116, 32, 97, 100, 100, 114, 101, 115, 115, 58, 32, 48, 120, 49\n\t]\n}\n' >"$T/pretty"
	run "$SLCTL" offenders --input "$T/pretty" --json
	expect_json .events 1
	expect_json '.offenders[0].pid' 9
}

# journalctl -o json writes "MESSAGE":[...] for a name with a control
# byte; a script that rewrites the journal (Python's json.dumps) writes
# "MESSAGE": [...]: every spacing around the colon is read, none is lost.
test_byte_array_message_in_every_spacing() {
	local sep bytes
	bytes=$(printf 'x86/split lock detection: #AC: \033X/201 took a split_lock trap at address: 0x10' |
		od -An -tu1 -v | tr -s ' \n' ' ' | sed 's/^ //; s/ $//; s/ /, /g')
	for sep in ':' ': ' ' :' ' : '; do
		printf '{"_TRANSPORT": "kernel", "SYSLOG_FACILITY": "0", "PRIORITY": "4", "MESSAGE"%s[%s]}\n' "$sep" "$bytes" >"$T/a.json"
		run "$SLCTL" offenders --input "$T/a.json" --input-format journal --json
		expect_json .events 1
		expect_json '.offenders[0].pid' 201
	done
}

test_logs_from_a_real_kvm_guest_give_one_report() {
	# Captured on an Emerald Rapids host's KVM guest (see its README): the
	# #DB path warns for every trap, 3 per probe, among 360 boot lines.
	local R=$FIXTURES/offenders/real-emr-kvm-6.18 want f
	want='{"events":9,"suppressed":0,"complete":true,"unrecognized":0,"alignment_checks":0,"offenders":[{"comm":"slctl-probe","pid":455,"kind":"bus_lock","action":"warn","events":3,"ips":["0x5624ad358d14"]},{"comm":"slctl-probe","pid":505,"kind":"bus_lock","action":"warn","events":3,"ips":["0x561e39ec5d14"]},{"comm":"slctl-probe","pid":508,"kind":"bus_lock","action":"warn","events":3,"ips":["0x56310dd6ad14"]}]}'
	for f in "$R"/log.*; do
		[ "$(report "$f")" = "$want" ] || fail "${f##*/}: $(report "$f")"
	done
	# The whole boot in dmesg's iso stamps, whose other lines ("pci
	# 0000:00:00.0: ...") looked like syslog's host and tag: it was read
	# as syslog, 0 events (fourth review of the fixes, H1). util-linux's
	# dmesg reads the raw dump back with -F.
	TZ=UTC dmesg --color=never -F "$R/log.dmesg-r" --time-format iso >"$T/iso"
	[ "$(report "$T/iso")" = "$want" ] || fail "dmesg --time-format iso: $(report "$T/iso")"
	# The wall-clock form dates the first event at the time dmesg -T said.
	run "$SLCTL" offenders --input "$R/log.dmesg-T" --json
	expect_json '.offenders[0].first_seen_wall | startswith("2026-12-04T18:04:58")' true
}

# Two overlapping dumps of /dev/kmsg appended to one file (dd from a timer)
# hold the same records twice: each is read once. Two boots' dumps, whose
# SEQs start again at 0, are both read in full (third new-user review of
# issue 26, M1).
kmsg_boot() { # BOOT FIRST LAST: records FIRST..LAST of a boot, stamps by boot
	local i
	for ((i = $2; i <= $3; i++)); do
		case $i in
		0) printf '5,0,0,-;Linux version 6.12.6-amd64 (gcc-14) #1 SMP PREEMPT_DYNAMIC\n' ;;
		*) printf '4,%d,%d,-;x86/split lock detection: #AC: t%d.%d/%d took a split_lock trap at address: 0x%x\n' \
			$i $((i * 1000000 + $1)) $1 $i $((100 * $1 + i)) $i ;;
		esac
	done
}

test_kmsg_records_saved_twice_count_once() {
	local want got sep
	kmsg_boot 1 0 5 >"$T/once"
	{ kmsg_boot 1 0 3; kmsg_boot 1 0 5; kmsg_boot 1 2 5; } >"$T/twice"
	want=$(report "$T/once")
	[ "$(jq .events <<<"$want")" -eq 5 ] || fail "one dump: $want"
	got=$(report "$T/twice")
	[ "$got" = "$want" ] || fail "overlapping dumps: $got"
	# NUL-separated, the same.
	tr '\n' '\0' <"$T/twice" >"$T/twice-nul"
	got=$(report "$T/twice-nul")
	[ "$got" = "$want" ] || fail "overlapping kmsg-nul dumps: $got"
	# Two boots: the same SEQs and the same first record, other records.
	{ kmsg_boot 1 0 5; kmsg_boot 2 0 5; } >"$T/boots"
	run "$SLCTL" offenders --input "$T/boots" --json
	expect_json .events 10
	# A later boot's dump that holds fewer records than the first's.
	{ kmsg_boot 1 0 5; kmsg_boot 2 0 2; kmsg_boot 2 0 3; } >"$T/boots"
	run "$SLCTL" offenders --input "$T/boots" --json
	expect_json .events 8
	expect_json '[.offenders[] | .events] | max' 1
}

# RFC 3164 stamps have no year. Each line's year was guessed alone ("the
# latest not in the future"): a file of last year that runs past today's
# date gave its first lines this year, out of file order, and --since
# counted them as recent (third new-user review of issue 26, M3). The
# years follow file order now. The dates are relative to today, so the
# test holds on any day.
test_syslog_years_follow_file_order() {
	local a b c
	export LC_ALL=C
	a=$(date -d '1 year ago 10 days ago' '+%s') b=$(date -d '1 year ago 10 days' '+%s')
	c=$(date -d '1 year ago 40 days' '+%s')
	{
		for t in "a/1 $a" "b/2 $b" "c/3 $c"; do
			printf '%s host kernel: %s#AC: %s took a split_lock trap at address: 0x10\n' \
				"$(date -d "@${t#* }" '+%b %e %H:%M:%S')" "x86/split lock detection: " "${t% *}"
		done
		# A line that is no event still dates the file.
		printf '%s host kernel: usb 1-1: new device\n' "$(date -d '1 year ago 41 days' '+%b %e %H:%M:%S')"
	} >"$T/kern.log"
	run "$SLCTL" offenders --input "$T/kern.log" --json
	expect_rc 0
	expect_json '[.offenders[] | .first_seen_wall] | @csv' \
		"$(date -ud "@$a" '+"%Y-%m-%dT%H:%M:%S.000000Z"'),$(date -ud "@$b" '+"%Y-%m-%dT%H:%M:%S.000000Z"'),$(date -ud "@$c" '+"%Y-%m-%dT%H:%M:%S.000000Z"')"
	run "$SLCTL" offenders --input "$T/kern.log" --since -30d --json
	expect_json .events 0
	# Across a new year: the month going back is the year going on.
	printf 'Dec 30 10:00:00 host kernel: %s#AC: a/1 took a split_lock trap at address: 0x10\nJan  2 10:00:00 host kernel: %s#AC: b/2 took a split_lock trap at address: 0x11\n' \
		"x86/split lock detection: " "x86/split lock detection: " >"$T/new-year.log"
	run "$SLCTL" offenders --input "$T/new-year.log" --json
	expect_json '[.offenders[] | .first_seen_wall[:4] | tonumber] | .[1] - .[0]' 1
	# Newest first (journalctl -r, cat kern.log kern.log.1), as the
	# file's shorter steps back show: January going back to December is
	# the year before, not December of the same year, 11 months later
	# (fourth review of the fixes, H2).
	printf 'Jan  2 10:00:00 host kernel: %s#AC: b/2 took a split_lock trap at address: 0x11\nJan  1 10:00:00 host kernel: usb 1-1: new device #1\nDec 31 10:00:00 host kernel: usb 1-1: new device #2\nDec 30 10:00:00 host kernel: %s#AC: a/1 took a split_lock trap at address: 0x10\n' \
		"x86/split lock detection: " "x86/split lock detection: " >"$T/new-year-reversed.log"
	run "$SLCTL" offenders --input "$T/new-year-reversed.log" --json
	expect_json '[.offenders[] | {(.comm): (.first_seen_wall[:4] | tonumber)}] | add | .b - .a' 1
	# A year and more, a line every ten days, newest first (tac, journalctl
	# -r): the newest line, the first, gets the latest year; every event
	# was a year late (sixth review of the fixes, H1). The same in order
	# behind journalctl's "-- Logs begin at" header or a few NULs: the
	# order was not used at all (H2).
	local d want
	for ((d = 400; d >= 10; d -= 10)); do
		printf '%s host kernel: %s\n' "$(date -d "$d days ago" '+%b %e %H:%M:%S')" \
			"$([ $((d % 100)) = 0 ] && echo "x86/split lock detection: #AC: t$d/$d took a split_lock trap at address: 0x1" || echo "usb 1-1: new device")"
	done >"$T/year.log"
	want=$("$SLCTL" offenders --input "$T/year.log" --json | jq -c '[.offenders[] | [.comm, .first_seen_wall]] | sort')
	[ "$(jq -r '.[] | select(.[0] == "t400") | .[1][:10]' <<<"$want")" = "$(date -ud '400 days ago' '+%Y-%m-%d')" ] ||
		fail "in order: $want"
	tac "$T/year.log" >"$T/year-reversed.log"
	{ echo "-- Logs begin at Mon 2025-01-01 00:00:00 UTC, end at Mon 2026-01-01 00:00:00 UTC. --"; cat "$T/year.log"; } >"$T/year-header.log"
	{ printf '\0\0\0'; cat "$T/year.log"; } >"$T/year-nul.log"
	for f in year-reversed year-header year-nul; do
		run "$SLCTL" offenders --input "$T/$f.log" --json
		[ "$(jq -c '[.offenders[] | [.comm, .first_seen_wall]] | sort' <<<"$out")" = "$want" ] ||
			fail "$f: $(jq -c '[.offenders[] | [.comm, .first_seen_wall]] | sort' <<<"$out"), in order: $want"
	done
	# In order, a step ahead of over half a year is a gap: a machine off
	# for months. Both lines are of one year, the earlier one a year or
	# more earlier perhaps: it was put a year ahead, in the future, and
	# counted by --since (fifth review of the fixes, H5). A window that
	# the gap leaves open cannot place it: undated.
	printf 'Feb  1 12:00:05 pc kernel: %s#AC: early/1 took a split_lock trap at address: 0x10\nFeb  2 12:00:05 pc kernel: usb 1-1: new device #1\nNov 20 12:00:05 pc kernel: %s#AC: late/2 took a split_lock trap at address: 0x11\n' \
		"x86/split lock detection: " "x86/split lock detection: " >"$T/gap.log"
	run "$SLCTL" offenders --input "$T/gap.log" --json
	expect_json '[.offenders[] | {(.comm): (.first_seen_wall[:4] | tonumber)}] | add | .late - .early' 0
	expect_json '[.offenders[].first_seen_wall < (now | todate)] | all' true
	local early
	early=$(jq -r '.offenders[] | select(.comm == "early") | .first_seen_wall' <<<"$out")
	run "$SLCTL" offenders --input "$T/gap.log" --since "$(date -d "$early - 3 days" '+%Y-%m-%d')" --json
	expect_json '[.events, .undated] | @csv' '1,1'
	# After the early line's date: it was before, whatever its year.
	run "$SLCTL" offenders --input "$T/gap.log" --since "$(date -d "$early + 3 days" '+%Y-%m-%d')" --json
	expect_json '[.events, .undated] | @csv' '1,0'
}

# Rotated yearless files cat'ed newest first go forward in each piece and
# back at each seam: read as one file in order, their years could be a
# year or two off, and --since counted the wrong events, "complete"
# (seventh review of the fixes, H2). Every line the scan passes by counts
# for the order now, and such a file's years are a guess: a bound inside
# its span leaves its events undated.
test_rotated_pieces_cat_ed_newest_first_have_no_sure_year() {
	local d P="x86/split lock detection: "
	piece() { # FIRST-DAYS-AGO LAST-DAYS-AGO EVENT-DAYS-AGO COMM
		for d in $(seq "$1" -1 "$2"); do
			if [ "$d" = "$3" ]; then
				echo "$(LC_ALL=C date -d "-$d days" '+%b %e') 09:00:00 pc kernel: $P#AC: $4/$d took a split_lock trap at address: 0x$d"
			else
				echo "$(LC_ALL=C date -d "-$d days" '+%b %e') 09:00:00 pc kernel: usb 1-1: new device #$d"
			fi
		done
	}
	piece 7 1 3 new >"$T/kern.log"
	piece 400 393 396 old >"$T/kern.log.1"
	cat "$T/kern.log.1" "$T/kern.log" >"$T/in-order.log"
	cat "$T/kern.log" "$T/kern.log.1" >"$T/newest-first.log"
	run "$SLCTL" offenders --input "$T/in-order.log" --since -30d --json
	expect_json '[.events, .undated, .complete] | @csv' '1,0,true'
	expect_json '.offenders[0].comm' new
	run "$SLCTL" offenders --input "$T/newest-first.log" --since -30d --json
	expect_rc 0
	expect_json '[.events, .undated, .complete] | @csv' '0,2,false'
	# Without a bound the count needs no year.
	run "$SLCTL" offenders --input "$T/newest-first.log" --json
	expect_json '[.events, .complete] | @csv' '2,true'
}

# A step back of seconds across a new year (a second host's clock behind,
# a rotated piece cat'ed before its successor) is no gap of a year less
# them: it moved every line before it a year back (eighth review of the
# fixes, H5).
test_a_step_back_of_seconds_across_a_new_year_is_no_gap() {
	local P="x86/split lock detection: #AC:"
	{
		echo "Dec 31 23:59:50 alpha kernel: $P a1/1 took a split_lock trap at address: 0x1"
		echo "Jan  1 00:00:05 alpha kernel: $P a2/2 took a split_lock trap at address: 0x2"
		echo "Dec 31 23:59:59 beta kernel: $P b1/3 took a split_lock trap at address: 0x3"
		echo "Jan  1 00:00:10 alpha kernel: $P a3/4 took a split_lock trap at address: 0x4"
	} >"$T/skew.log"
	run "$SLCTL" offenders --input "$T/skew.log" --json
	expect_rc 0
	expect_json '[.offenders[] | {(.comm): (.first_seen_wall[:4] | tonumber)}] | add | [.a2 - .a1, .b1 - .a1, .a3 - .a2] | @csv' '1,0,0'
	expect_json '[.undated, .complete] | @csv' '0,true'
}

# The hour a fall back repeats: a local stamp in it is either reading, and
# a bound between them cannot place it; it was read as summer time and
# left out, "complete" (eighth review of the fixes, H6).
test_a_local_time_in_the_repeated_hour_is_either_reading() {
	local P="x86/split lock detection: #AC:"
	# dmesg -T (it writes the year: the test holds in any year).
	{
		echo "[Sun Oct 25 01:50:00 2026] $P early/1 took a split_lock trap at address: 0x1"
		echo "[Sun Oct 25 02:10:00 2026] $P fold/2 took a split_lock trap at address: 0x2"
		echo "[Sun Oct 25 03:10:00 2026] $P late/3 took a split_lock trap at address: 0x3"
	} >"$T/fold.log"
	# 01:10Z and 00:10Z are 02:10 in CET and in CEST.
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/fold.log" --since 2026-10-25T00:30Z --until 2026-10-26T00:00Z --json
	expect_rc 0
	expect_json '[.events, .undated, .complete] | @csv' '1,1,false'
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/fold.log" --since 2026-10-25T00:00Z --until 2026-10-26T00:00Z --json
	expect_json '[.events, .undated, .complete] | @csv' '2,0,true'
	TZ=UTC run "$SLCTL" offenders --input "$T/fold.log" --since 2026-10-25T00:30Z --until 2026-10-26T00:00Z --json
	expect_json '[.events, .undated, .complete] | @csv' '3,0,true'
	# The same in RFC 3164 syslog, whose year is a guess: only the fold's
	# width is asserted, in the year the file gets.
	sed -E 's/^\[Sun (Oct 25 [0-9:]+) 2026\] /\1 pc kernel: /' "$T/fold.log" >"$T/fold.syslog"
	grep -q '^Oct 25 02:10:00 pc kernel: ' "$T/fold.syslog" || fail "fixture"
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/fold.syslog" --json
	local y
	y=$(jq -r '.offenders[0].first_seen_wall[:4]' <<<"$out")
	if [ "$(TZ=Europe/Berlin date -d "$y-10-25 02:10" +%Z 2>/dev/null)" = CEST ] &&
	   [ "$(TZ=Europe/Berlin date -d "$y-10-25 03:10" +%Z)" = CET ]; then
		TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/fold.syslog" --since "${y}-10-25T00:30Z" --until "${y}-10-26T00:00Z" --json
		expect_json '[.events, .undated, .complete] | @csv' '1,1,false'
	fi
}

# The last yearless line was given this year up to the end of tomorrow,
# up to 48 hours ahead: a rotated log of last year whose last line is on
# tomorrow's date passed --since as this year's (fourth new-user review of
# issue 26, M1). A date may be up to 26 hours ahead (the writer's zone
# ahead of the reader's), no more.
test_syslog_year_allows_a_zone_ahead_not_more() {
	local soon late now
	export LC_ALL=C TZ=UTC
	now=$(date '+%s') soon=$((now + 2 * 3600)) late=$(date -d 'tomorrow 23:59:59' '+%s')
	for t in $soon $late; do
		printf '%s host kernel: %s#AC: a/1 took a split_lock trap at address: 0x10\n' \
			"$(date -d "@$t" '+%b %e %H:%M:%S')" "x86/split lock detection: " >"$T/kern.log"
		run "$SLCTL" offenders --input "$T/kern.log" --json
		expect_rc 0
		if [ "$t" = "$soon" ]; then
			# Two hours ahead: a writer east of the reader, this year.
			expect_json '.offenders[0].first_seen_wall' "$(date -d "@$t" '+%Y-%m-%dT%H:%M:%S.000000Z')"
		elif [ $((late - now)) -gt $((26 * 3600)) ]; then
			# More than any zone is ahead: last year's.
			expect_json '.offenders[0].first_seen_wall' \
				"$(($(date -d "@$t" '+%Y') - 1))$(date -d "@$t" '+-%m-%dT%H:%M:%S.000000Z')"
		fi
	done
}

# Overlapping journal dumps appended to one file (journalctl -k -o export
# --since -2d >> kern.export, daily) counted every entry twice, with a
# report that said it was complete (fourth new-user review of issue 26,
# H1). __CURSOR names one entry: a repeat is read once, as journalctl
# reads an entry of several files once.
test_journal_entries_saved_twice_are_read_once() {
	local f want got
	for f in events.journal-export events.json events.json-pretty events.json-seq; do
		want=$(report "$F/$f")
		[ -n "$want" ] || fail "$f: no report"
		cat "$F/$f" "$F/$f" >"$T/twice"
		got=$(report "$T/twice")
		[ "$got" = "$want" ] || fail "$f twice: $got, once: $want"
	done
	# Entries without a cursor (written by hand) all count.
	grep -v '^__CURSOR=' "$F/events.journal-export" >"$T/nocursor"
	cat "$T/nocursor" "$T/nocursor" >"$T/twice"
	run "$SLCTL" offenders --input "$T/twice" --json
	expect_json .events "$((2 * $("$SLCTL" offenders --input "$T/nocursor" --json | jq .events)))"
}

# A dmesg dump appended to a file twice (dmesg -r >> saved.log, run again
# later), and kmsg dumps appended out of boot order (boot 1, boot 2, boot 1
# again), counted every event of the repeat again: the stamps since boot
# starting over read as a new boot (fourth new-user review of issue 26, M6).
# A record of an earlier boot in the file with the same stamp and the same
# text is that record again, read once; the fixtures are the real tools'
# output, so each file twice is what ">> saved.log" run twice writes.
test_text_dumps_saved_twice_are_read_once() {
	local f want got
	for f in events.dmesg events.dmesg-r events.dmesg-x events.dmesg-d \
		events.dmesg-color events.dmesg-x-color events.dmesg-T events.dmesg-iso \
		events.dmesg-indented events.journal-short-precise events.journal-short-monotonic \
		events.journal-short-unix events.kern.log events.kern.log-rfc3339; do
		want=$(report "$F/$f")
		cat "$F/$f" "$F/$f" >"$T/twice"
		got=$(report "$T/twice")
		[ "$got" = "$want" ] || fail "$f twice: $got, once: $want"
		# The second dump taken later holds more: those count.
		{ head -n 6 "$F/$f"; cat "$F/$f"; } >"$T/twice"
		got=$(report "$T/twice")
		[ "$got" = "$want" ] || fail "$f, a part then all: $got, once: $want"
	done
	# Two boots' dumps of other stamps both count.
	sed -E 's/^\[ *([0-9]+\.)/[1000\1/' "$F/events.dmesg" | cat "$F/events.dmesg" - >"$T/boots"
	run "$SLCTL" offenders --input "$T/boots" --json
	expect_json .events "$((2 * $(report "$F/events.dmesg" | jq .events)))"
	expect_json .maybe_repeated 0
}

test_kmsg_dumps_out_of_boot_order_are_read_once() {
	{ kmsg_boot 1 0 5; kmsg_boot 2 0 5; kmsg_boot 1 0 5; } >"$T/boots"
	run "$SLCTL" offenders --input "$T/boots" --json
	expect_json .events 10
	expect_json '[.offenders[] | .events] | max' 1
	{ kmsg_boot 1 0 5; kmsg_boot 2 0 5; kmsg_boot 1 2 4; kmsg_boot 2 3 5; } >"$T/boots"
	run "$SLCTL" offenders --input "$T/boots" --json
	expect_json .events 10
	# Read once, none maybe repeated. (The two boots' ten warnings in
	# their first 5 s are one rate limit's burst to a log that shows no
	# boot id: burst_used_up, as log/burst.c says.)
	expect_json '[.maybe_repeated, .unrecognized - .unrecognized_by.burst_used_up] | @csv' '0,0'
}

# journalctl -o verbose prints each entry's cursor after its time: a
# repeat is read once, as in export and JSON.
test_journal_verbose_saved_twice_is_read_once() {
	local want got
	want=$(report "$F/events.journal-verbose")
	cat "$F/events.journal-verbose" "$F/events.journal-verbose" >"$T/twice"
	got=$(report "$T/twice")
	[ "$got" = "$want" ] || fail "verbose twice: $got, once: $want"
}

# Forms whose stamps do not tell a repeat (none, -H/-e's minutes, and
# dmesg's own wall-clock times -T and iso, which it reckons anew at each
# dump and a suspend shifts): a later boot's event with an earlier boot's
# text is counted, and the report says it may be counted twice.
test_unprovable_repeats_make_the_report_incomplete() {
	local f once
	# Whole seconds of the writer's clock (journalctl's short forms,
	# syslog): a clock stepped back (NTP, summer time's end) or another
	# host's gives real events the second and text of earlier ones; they
	# were dropped, complete (fifth review of issue 26's fixes, H3, H4).
	for f in events.dmesg-notime events.dmesg-H events.dmesg-e events.journal-short \
		events.journal-short-iso events.journal-short-full events.journal-with-unit; do
		# Logged and suppressed, as the report counts them, and the one
		# dump's own mark: the fixture warns of GoW.exe/4242 at one
		# address twice, which the kernel does once a task.
		once=$("$SLCTL" offenders --input "$F/$f" --json 2>/dev/null |
			jq '.events + .suppressed + .maybe_repeated')
		cat "$F/$f" "$F/$f" >"$T/twice"
		run "$SLCTL" offenders --input "$T/twice" --json
		expect_rc 0
		expect_json .complete false
		expect_json .maybe_repeated "$once"
		run "$SLCTL" offenders --input "$T/twice"
		expect_out "may be counted twice"
	done
	# One log, no dump in it: the clock stepped back a second between
	# bus locks (journalctl -o short-iso), and two hosts' clocks apart in
	# one syslog file. Every event counts; those that share an earlier
	# one's second and text are said.
	local db="${SL_P}#DB: CPU 0/KVM/7001 took a bus_lock trap at address: 0x7f00a1"
	printf '%s\n' "2026-12-05T10:00:05+0000 kvmhost kernel: $db" "2026-12-05T10:00:05+0000 kvmhost kernel: $db" \
		"2026-12-05T10:00:04+0000 kvmhost kernel: $db" "2026-12-05T10:00:05+0000 kvmhost kernel: $db" >"$T/ntp"
	run "$SLCTL" offenders --input "$T/ntp" --json
	expect_json '[.events, .maybe_repeated, .complete] | @csv' '4,1,false'
	printf '%s\n' "Dec  5 10:00:05 hostA kernel: $db" "Dec  5 10:00:03 hostB kernel: ${db/7001/7002}" \
		"Dec  5 10:00:05 hostA kernel: $db" "Dec  5 10:00:03 hostB kernel: ${db/7001/7002}" >"$T/skew"
	run "$SLCTL" offenders --input "$T/skew" --json
	expect_json '[.events, .complete] | @csv' '4,false'
	# A kernel that logs without stamps (printk.time=0): util-linux dmesg
	# prints [0.000000] on every record of its syslog(2) text. Those are
	# no stamps: 4 bus locks were 1 event, complete (fifth review of
	# issue 26's fixes, H6).
	{ echo "<6>${SL_P}#DB: warning on user-space bus_locks"
	  for i in 1 2 3 4; do echo "<4>${db/CPU 0\/KVM\/7001/stress-ng/6000}"; done; } >"$T/nostamps.raw"
	for f in "" -x -r --json; do
		dmesg -F "$T/nostamps.raw" $f | cat >"$T/nostamps"
		run "$SLCTL" offenders --input "$T/nostamps" --json
		expect_json '[.events, .maybe_repeated, .complete] | @csv' '4,3,false'
	done
	# -T reckoned after a suspend: other stamps, the same text.
	sed 's/09:18:33/09:19:40/' "$F/events.dmesg-T" | cat "$F/events.dmesg-T" - >"$T/twice"
	run "$SLCTL" offenders --input "$T/twice" --json
	expect_json .complete false
	expect_json '.maybe_repeated > 0' true
	# One dump: no boot's text repeats; only that second GoW.exe/4242
	# warning is marked (see test_stampless_dump_saved_twice_is_incomplete).
	run "$SLCTL" offenders --input "$F/events.dmesg-notime" --json
	expect_json .maybe_repeated 1
}

# dmesg -t has no stamps and, cut to the detector's lines (or after the
# ring buffer wrapped), no boot line: a dump appended twice held no sign
# of its repeat, and was counted twice in a report that said complete.
# The kernel warns of a task's split lock once (#AC, took, fatal or
# bogus): where the stamps are not the record's own, an #AC event of the
# task and address of an earlier one is the dump again or a reused PID,
# counted and marked.
SL_P="x86/split lock detection: "
test_stampless_dump_saved_twice_is_incomplete() {
	printf '%s\n' "${SL_P}#AC: GoW.exe/4242 took a split_lock trap at address: 0x1403c2d1" \
		"${SL_P}#AC: CPU 0/KVM/5001 fatal split_lock trap at address: 0xffffffff81000000" >"$T/once"
	cat "$T/once" "$T/once" >"$T/twice"
	run "$SLCTL" offenders --input "$T/twice" --json
	expect_rc 0
	expect_json .input_format dmesg
	expect_json .events 4
	expect_json .maybe_repeated 2
	expect_json .complete false
	run "$SLCTL" offenders --input "$T/twice"
	expect_out "may be counted twice"
}

# Bus locks warn at every trap: in a form without stamps the same task and
# address again is a new trap or the dump saved twice, and nothing tells
# (fifth new-user review, F6: a #DB-only dmesg -t dump appended twice was
# "complete"). Counted, and said. Where a stamp shows, traps in one second
# are the kernel's: a real guest's dmesg -T holds three a second.
test_stampless_bus_locks_of_one_task_are_said_to_maybe_repeat() {
	printf '%s\n' "${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c" \
		"${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c" >"$T/db"
	run "$SLCTL" offenders --input "$T/db" --json
	expect_json .input_format dmesg
	expect_json .events 2
	expect_json .maybe_repeated 1
	expect_json .complete false
	# Two tasks, or one task at two addresses: nothing repeats.
	printf '%s\n' "${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c" \
		"${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a30" \
		"${SL_P}#DB: stress-ng/6001 took a bus_lock trap at address: 0x401a2c" >"$T/db3"
	run "$SLCTL" offenders --input "$T/db3" --json
	expect_json .maybe_repeated 0
	expect_json .complete true
	# The same two traps in one second of dmesg -T: the kernel's.
	printf '%s\n' "[Sat Dec  5 19:14:45 2026] ${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c" \
		"[Sat Dec  5 19:14:45 2026] ${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c" >"$T/dbT"
	run "$SLCTL" offenders --input "$T/dbT" --json
	expect_json .events 2
	expect_json .maybe_repeated 0
}

test_stampless_dump_of_two_tasks_is_complete() {
	printf '%s\n' "${SL_P}#AC: GoW.exe/4242 took a split_lock trap at address: 0x1403c2d1" \
		"${SL_P}#AC: CJobMgr::m_Work/4250 took a split_lock trap at address: 0x1403c2d1" >"$T/once"
	run "$SLCTL" offenders --input "$T/once" --json
	expect_json .input_format dmesg
	expect_json .events 2
	expect_json .maybe_repeated 0
	expect_json .complete true
}


# journalctl's short forms without -a print a message that is not
# printable UTF-8 as "[81B blob data]"; a task may name itself with an ESC
# byte. Such a kernel line was skipped and the report "complete" (fifth
# new-user review, F1). Fixtures: generate-tools.sh, journalctl 252.
test_journalctl_blob_data_is_never_complete() {
	local f
	for f in blob.journal-short blob.journal-short-monotonic; do
		grep -q 'kernel: \[81B blob data\]' "$F/$f" || fail "$f lacks the blob line"
		run "$SLCTL" offenders --input "$F/$f" --json
		expect_json .events 1
		expect_json .complete false
		expect_json .unrecognized 1
		expect_json .unrecognized_by.hidden 1
		expect_json .first_unrecognized_line 2
		run "$SLCTL" offenders --input "$F/$f"
		expect_out "unless run with -a"
		# The same journal printed with -a: every event, exactly.
		run "$SLCTL" offenders --input "$F/$f-a" --json
		expect_json .events 2
		expect_json .complete true
		expect_json '[.offenders[].comm] | sort | tojson' '["bad\u001bname","plain"]'
	done
	# A user's message shown so is nobody's event and no reason to doubt.
	printf 'Dec 01 00:00:06 host sshd[12]: [81B blob data]\n' >"$T/user-blob"
	run "$SLCTL" offenders --input "$T/user-blob" --input-format journal-text --json
	expect_json .complete true
}

# journalctl --output-fields leaves out _TRANSPORT unless named: the
# entries were taken for user space's, "0 events, complete" (F3).
test_journal_entries_without_transport_are_unread_not_forged() {
	local o want
	want=$(report "$F/events.kmsg")
	for o in json export verbose; do
		run "$SLCTL" offenders --input "$F/fields.journal-$o" --json
		expect_json .events 0
		expect_json .complete false
		expect_json .forged 0
		expect_json '.unrecognized_by.writer_unknown == .unrecognized and .unrecognized > 0' true
		run "$SLCTL" offenders --input "$F/fields.journal-$o"
		expect_out "without _TRANSPORT"
		# Named, the field is there and the report is the raw records'.
		[ "$(report "$F/fields-transport.journal-$o")" = "$want" ] ||
			fail "fields-transport.journal-$o: $(report "$F/fields-transport.journal-$o")"
	done
	# _TRANSPORT without SYSLOG_FACILITY (--output-fields=MESSAGE,_TRANSPORT):
	# a root write to /dev/kmsg is kernel transport too, facility user.
	jq -c 'del(.SYSLOG_FACILITY)' "$F/fields-transport.journal-json" >"$T/nofac"
	run "$SLCTL" offenders --input "$T/nofac" --json
	expect_json .events 0
	expect_json .complete false
	expect_json '.unrecognized_by.writer_unknown > 0' true
	grep -v '^SYSLOG_FACILITY=' "$F/fields-transport.journal-export" >"$T/nofac.export"
	run "$SLCTL" offenders --input "$T/nofac.export" --json
	expect_json .events 0
	expect_json '.unrecognized_by.writer_unknown > 0' true
}

# dmesg --json carries each record's stamp since boot, as -r does: a dump
# appended twice is read once (F2: every event was counted twice).
# -o verbose written in another zone: its header's name is not the
# reader's, but the cursor's t= is the entry's time in UTC microseconds.
test_journal_verbose_is_dated_by_its_cursor() {
	local p="x86/split lock detection: "
	printf '%s\n' \
		'Tue 2026-12-01 09:01:00.000000 CST [s=1f87;i=1;b=0123;m=5f5e100;t=661880f46ab00;x=2a]' \
		'    _TRANSPORT=kernel' '    PRIORITY=4' '    SYSLOG_FACILITY=0' \
		"    MESSAGE=${p}#AC: g/77 took a split_lock trap at address: 0x1" >"$T/cst.verbose"
	# 0x661880f46ab00 us is 2026-12-01T01:01:00Z (09:01 in Shanghai)
	run env TZ=America/Chicago "$SLCTL" offenders --input "$T/cst.verbose" --input-format journal-verbose \
		--since 2026-12-01T01:00:30Z --until 2026-12-01T01:01:30Z --json
	expect_json .events 1
	expect_json .complete true
	run env TZ=America/Chicago "$SLCTL" offenders --input "$T/cst.verbose" --input-format journal-verbose \
		--since 2026-12-01T01:01:30Z --json
	expect_json .events 0
	expect_json .complete true
}

test_dmesg_json_saved_twice_counts_once() {
	local f
	for f in events.dmesg-json events.dmesg-json-x; do
		cat "$F/$f" "$F/$f" >"$T/twice"
		[ "$(report "$T/twice")" = "$(report "$F/$f")" ] || fail "$f twice: $(report "$T/twice")"
	done
}

# Syslog daemons fold a repeated message into one line (rsyslog's default
# $RepeatedMsgReduction on Ubuntu; sysklogd): the events it stands for are
# counted (F4 ignored them, "complete"; F8 said 1 unread line). Forms as
# rsyslog's ratelimit.c and sysklogd's syslogd.c print them.
test_syslog_repeat_lines_are_counted() {
	local boot="Dec  3 10:42:34 host kernel: ${SL_P}#AC: crashing the kernel on kernel split_locks and warning on user-space split_locks"
	local db="${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c"
	# rsyslog: the message again in brackets, with the tag's space.
	printf '%s\n' "$boot" "Dec  3 10:42:35 host kernel: $db" \
		"Dec  3 10:42:36 host kernel: message repeated 4 times: [ $db]" >"$T/rsyslog"
	run "$SLCTL" offenders --input "$T/rsyslog" --json
	expect_json .input_format syslog
	expect_json .events 5
	expect_json .complete true
	# ... saved twice: whole seconds, marked as maybe repeated as one.
	cat "$T/rsyslog" "$T/rsyslog" >"$T/rsyslog2"
	run "$SLCTL" offenders --input "$T/rsyslog2" --json
	expect_json .events 10
	expect_json .maybe_repeated 5
	# RSYSLOG_FileFormat's microseconds: the repeats share the repeat
	# line's stamp, and each was taken for the one before it again: 1001
	# events were 2, complete (fifth review of the fixes, H1). Saved twice,
	# still read once.
	printf '%s\n' "2026-12-03T10:42:35.003487+00:00 host kernel: $db" \
		"2026-12-03T10:42:36.938431+00:00 host kernel: message repeated 1000 times: [ $db]" \
		"2026-12-03T10:42:37.000001+00:00 host kernel: $db" \
		"2026-12-03T10:42:38.000002+00:00 host last message repeated 3 times" >"$T/rsyslog3339"
	run "$SLCTL" offenders --input "$T/rsyslog3339" --json
	expect_json .events 1005
	# 1000 lines of one limit in one of its 5 s intervals used up its
	# burst of 10, and no line says what it dropped: nothing else is unread.
	expect_json '[.unrecognized, .unrecognized_by.burst_used_up] | @csv' '1,1'
	cat "$T/rsyslog3339" "$T/rsyslog3339" >"$T/rsyslog3339-2"
	run "$SLCTL" offenders --input "$T/rsyslog3339-2" --json
	expect_json .events 1005
	# sysklogd: "last message repeated N times" after the line, no tag;
	# rsyslog's old form keeps the tag.
	printf '%s\n' "$boot" "Dec  3 10:42:36 host kernel: $db" \
		"Dec  3 10:42:38 host last message repeated 3 times" >"$T/sysklogd"
	run "$SLCTL" offenders --input "$T/sysklogd" --json
	expect_json .events 4
	expect_json .complete true
	sed 's/host last/host kernel: last/' "$T/sysklogd" >"$T/oldform"
	run "$SLCTL" offenders --input "$T/oldform" --json
	expect_json .events 4
	# It repeats the line just before: not an event the scan passed by,
	# nor a line of user space.
	printf '%s\n' "$boot" "Dec  3 10:42:36 host kernel: $db" "Dec  3 10:42:37 host sshd[5]: hello" \
		"Dec  3 10:42:38 host last message repeated 3 times" \
		"Dec  3 10:42:39 host logger: $db" "Dec  3 10:42:40 host last message repeated 2 times" >"$T/other"
	run "$SLCTL" offenders --input "$T/other" --json
	expect_json .events 1
	expect_json .forged 1
	# syslog-ng's suppress(): the message's first 20 bytes, quoted, must
	# be the line's before (lib/logwriter.c).
	printf '%s\n' "$boot" "Dec  3 10:42:36 host kernel: $db" \
		"Dec  3 10:42:46 host kernel: Last message 'x86/split lock detec' repeated 3 times, suppressed by syslog-ng on host" >"$T/syslog-ng"
	run "$SLCTL" offenders --input "$T/syslog-ng" --json
	expect_json .events 4
	expect_json .complete true
	printf '%s\n' "$boot" "Dec  3 10:42:36 host kernel: usb 1-1: new device #2" \
		"Dec  3 10:42:46 host kernel: Last message 'usb 1-1: new device' repeated 3 times, suppressed by syslog-ng on host" >"$T/syslog-ng-other"
	run "$SLCTL" offenders --input "$T/syslog-ng-other" --json
	expect_json .events 0
	expect_json .complete true
	# The file's first line (rotated): what it repeats is not here.
	tail -n 1 "$T/sysklogd" >"$T/rotated"
	run "$SLCTL" offenders --input "$T/rotated" --input-format syslog --json
	expect_json .complete false
	expect_json .first_unrecognized_line 1
	# A count no daemon reaches is not spent time on: unread, said.
	printf '%s\n' "$boot" "Dec  3 10:42:36 host kernel: message repeated 99999999 times: [ $db]" >"$T/huge"
	run "$SLCTL" offenders --input "$T/huge" --json
	expect_json .events 0
	expect_json .complete false
	expect_json .unrecognized 1
}

# A bound with a fraction of a second inside a stamp that shows none
# cannot place the event: undated, never silently left out (F7: 4 events
# where the journal's exact times gave 6).
test_subsecond_bounds_on_whole_second_stamps_are_undated() {
	local f
	for f in events.journal-short events.journal-short-full; do
		run "$SLCTL" offenders --input "$F/$f" --json --since '2026-12-01 00:00:05.1 UTC'
		expect_json .complete false
		expect_json '.undated >= 3' true
		expect_json '.events + .undated >= 6' true
		# A bound on the second places them all.
		run "$SLCTL" offenders --input "$F/$f" --json --since '2026-12-01 00:00:05 UTC'
		expect_json .undated 0
		expect_json .events 7
	done
	# The exact times of the journal, .000000 ones too: nothing undated.
	run "$SLCTL" offenders --input "$F/events.json" --json --since '2026-12-01 00:00:05.1 UTC'
	expect_json .events 6
	expect_json .undated 0
	# Milliseconds (syslog-ng frac-digits(3)): the event is in [.118, .119).
	printf '%s\n' "2026-12-01T00:00:05.118+00:00 host kernel: ${SL_P}#AC: GoW.exe/4242 took a split_lock trap at address: 0x1" >"$T/ms"
	while read -r since events undated; do
		run "$SLCTL" offenders --input "$T/ms" --json --since "2026-12-01T00:00:$since"Z
		expect_json .events "$events"
		expect_json .undated "$undated"
	done <<-EOF
	05.118 1 0
	05.1185 0 1
	05.119 0 0
	EOF
	# Repeats a syslog daemon folded into a later line happened between
	# the line repeated and that one (fifth review's second pass, H7).
	printf '%s\n' "2026-12-01T00:00:08+00:00 host kernel: ${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c" \
		"2026-12-01T00:00:20+00:00 host kernel: message repeated 3 times: [ ${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c]" >"$T/rep"
	sed 's/kernel: message repeated 3 times: .*/last message repeated 3 times/' "$T/rep" >"$T/rep-old"
	for f in rep rep-old; do
		while read -r bound events undated; do
			run "$SLCTL" offenders --input "$T/$f" --json $bound
			expect_json .events "$events"
			expect_json .undated "$undated"
		done <<-EOF
		--until=2026-12-01T00:00:15Z 1 3
		--since=2026-12-01T00:00:15Z 0 3
		--since=2026-12-01T00:00:21Z 0 0
		--until=2026-12-01T00:00:21Z 4 0
		--since=2026-12-01T00:00:08Z 4 0
		EOF
	done
}

# A timer's unit throws stderr away: completeness has series of its own
# (F13).
test_prometheus_says_whether_the_report_is_complete() {
	cat "$F/events.dmesg-notime" "$F/events.dmesg-notime" >"$T/twice"
	run "$SLCTL" offenders --input "$T/twice" --format prometheus
	expect_out 'splitlock_maybe_repeated_total 25'
	expect_out 'splitlock_report_complete 0'
	expect_out 'splitlock_unrecognized_total{reason="unparsed"} 0'
	run "$SLCTL" offenders --input "$F/blob.journal-short-a" --format prometheus
	expect_out 'splitlock_report_complete 1'
	run "$SLCTL" offenders --input "$F/fields.journal-json" --format prometheus
	expect_out 'splitlock_unrecognized_total{reason="writer_unknown"} 9'
	expect_out 'splitlock_report_complete 0'
}

# -T with -d: "[Sat Dec  5 19:14:45 2026 <    4.880000>]" (F5: every line
# unread). Its report is the raw records' (test above); detected as dmesg.
test_dmesg_T_with_delta_is_read() {
	run "$SLCTL" offenders --input "$F/events.dmesg-T-d" --json
	expect_json .input_format dmesg
	expect_json .unrecognized 0
	expect_json .events 7
}


# A dump that starts with the record the last one ended with goes back by
# nothing: with exact stamps (SEQ, microseconds) that record is the same
# one, read once (second review of the fixes, H1: "grep 'took a' >>
# saved.log" run twice counted it twice, "complete").
test_dumps_sharing_one_record_count_it_once() {
	local f want
	for f in events.kmsg events.dmesg events.dmesg-r events.dmesg-x events.dmesg-d \
		events.journal-short-monotonic events.journal-short-precise \
		events.journal-short-unix events.journal-short-delta; do
		grep 'took a' "$F/$f" >"$T/once"
		{ head -n 1 "$T/once"; cat "$T/once"; } >"$T/overlap"
		want=$(report "$T/once")
		[ "$(report "$T/overlap")" = "$want" ] || fail "$f: $(report "$T/overlap")"
	done
	# Two records of one boot in one microsecond are both the kernel's.
	printf '%s\n' "[    5.000000] ${SL_P}#AC: a/1 took a split_lock trap at address: 0x1" \
		"[    5.000000] ${SL_P}#AC: b/2 took a split_lock trap at address: 0x1" \
		"[    6.000000] ${SL_P}#AC: c/3 took a split_lock trap at address: 0x1" >"$T/same-usec"
	run "$SLCTL" offenders --input "$T/same-usec" --json
	expect_json .events 3
	expect_json .complete true
}


# short-full and -o verbose print the zone (strftime's %Z): it was read as
# the reader's local time, hours off with "complete" (second review of the
# fixes, H5). UTC, offsets and the reader's own zone names are read; a
# name that tells nothing certain leaves the time unknown: undated.
test_short_full_zone_is_read() {
	local tz
	for tz in UTC Europe/Berlin Asia/Tokyo; do
		TZ=$tz run "$SLCTL" offenders --input "$F/events.journal-short-full" --json --since 2026-12-01T00:00:07Z
		expect_json .events 4
		expect_json .undated 0
	done
	[ -e /usr/share/zoneinfo/Asia/Tokyo ] || skip "no tz database (tzdata) here"
	sed 's/ UTC / JST /; s/ 00:00:/ 09:00:/' "$F/events.journal-short-full" >"$T/jst"
	TZ=Asia/Tokyo run "$SLCTL" offenders --input "$T/jst" --json --since 2026-12-01T00:00:07Z
	expect_json .events 4
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/jst" --json --since 2026-12-01T00:00:07Z
	expect_json .events 0
	expect_json .complete false
	expect_json '.undated > 0' true
	sed 's/ UTC / +09 /; s/ 00:00:/ 09:00:/' "$F/events.journal-short-full" >"$T/plus9"
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/plus9" --json --since 2026-12-01T00:00:07Z
	expect_json .events 4
}


# Third review of issue 26's fixes. H1: a month back by less than half a
# year is a file out of order (cat kern.log*, newest first; dumps appended
# across a month's end), not a new year: the lines were dated a year off.
test_syslog_months_out_of_order_stay_in_their_year() {
	local a="${SL_P}#AC: a/1 took a split_lock trap at address: 0x1"
	local b="${SL_P}#AC: b/2 took a split_lock trap at address: 0x2"
	printf '%s\n' "Dec  1 00:00:01 host kernel: $b" "Nov 28 10:00:00 host kernel: $a" >"$T/newest-first"
	run "$SLCTL" offenders --input "$T/newest-first" --json
	expect_json '[.offenders[].first_seen_wall[0:4]] | unique | length' 1
	# Two dumps across Nov 30 / Dec 1, appended: the second's lines are
	# the first's, in their year (whole seconds: marked, not dropped).
	printf '%s\n' "Nov 30 23:59:59 host kernel: $a" "Dec  1 00:00:01 host kernel: $b" >"$T/dump"
	cat "$T/dump" "$T/dump" >"$T/twice"
	run "$SLCTL" offenders --input "$T/twice" --json
	expect_json .maybe_repeated 2
	# A real new year still is one.
	printf '%s\n' "Dec 31 23:59:59 host kernel: $a" "Jan  1 00:00:01 host kernel: $b" >"$T/newyear"
	run "$SLCTL" offenders --input "$T/newyear" --json
	expect_json '[.offenders[].first_seen_wall[0:4] | tonumber] | max - min' 1
}

# H2: a daemon's line may show an earlier time than the kernel line before
# it (journald prints its own send time); it started a "boot" of the file,
# and the next #DB line equal to one in the same second was dropped.
test_user_lines_going_back_start_no_boot() {
	local db="${SL_P}#DB: stress-ng/6000 took a bus_lock trap at address: 0x401a2c"
	printf '%s\n' "Dec 01 00:00:09 host kernel: $db" "Dec 01 00:00:09 host kernel: $db" \
		"Dec 01 00:00:08 host systemd-logind[812]: New session #5 of user root." \
		"Dec 01 00:00:09 host kernel: $db" >"$T/short"
	run "$SLCTL" offenders --input "$T/short" --json
	expect_json .events 3
}

# H3: short-full names standard or summer time: in the hour a fall-back
# repeats, each line is one instant.
test_short_full_dst_names_place_the_repeated_hour() {
	[ -e /usr/share/zoneinfo/Europe/Berlin ] || skip "no tz database (tzdata) here"
	printf '%s\n' "Sun 2026-10-25 02:40:00 CEST host kernel: ${SL_P}#AC: a/1 took a split_lock trap at address: 0x1" \
		"Sun 2026-10-25 02:20:00 CET host kernel: ${SL_P}#AC: b/2 took a split_lock trap at address: 0x2" >"$T/dst"
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/dst" --input-format journal-text --json --since 2026-10-25T01:00Z
	expect_json '[.offenders[].comm] | join(",")' b
	TZ=Europe/Berlin run "$SLCTL" offenders --input "$T/dst" --input-format journal-text --json --until 2026-10-25T01:00Z
	expect_json '[.offenders[].comm] | join(",")' a
}

# M2: an export dump cut inside an entry, the next dump appended: the cut
# entry ends at the next cursor; its event is read from the whole copy, or
# the report says it is incomplete.
test_export_cut_inside_an_entry() {
	local want cut
	want=$(report "$F/events.journal-export")
	cut=$(grep -n '^MESSAGE=.*GoW' "$F/events.journal-export" | head -n 1 | cut -d: -f1)
	head -n $((cut - 2)) "$F/events.journal-export" >"$T/cut"
	cat "$T/cut" "$F/events.journal-export" >"$T/cut-then-whole"
	[ "$(report "$T/cut-then-whole")" = "$want" ] || fail "cut, then whole: $(report "$T/cut-then-whole")"
	# The rest of the cut entry never comes: incomplete, said.
	sed -n "$((cut - 1)),\$p" "$F/events.journal-export" | sed '1,/^$/d' >"$T/rest"
	cat "$T/cut" "$T/rest" >"$T/cut-only"
	head -c 0 /dev/null
	run "$SLCTL" offenders --input "$T/cut-only" --json
	expect_json .complete false
	# Counted as what it is, cut (rev45 H2), not as a form not understood.
	expect_json '.unrecognized_by.cut > 0' true
}

# A dmesg of mostly other lines that pass for a host and a tag
# ("svc[600]: segfault at ..."), as a crash loop leaves it: its detector
# lines decide the form (it was read as journal text, 0 events).
test_dmesg_of_segfault_lines_is_dmesg() {
	local i
	: >"$T/loop"
	for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
		printf '[ %d.000000] svc[%d]: segfault at 0 ip 000055d0a0001234 sp 00007ffd10000000 error 4 in svc[55d0a0000000+1000]\n' \
			$((1000 + i * 60)) $((600 + i)) >>"$T/loop"
		[ $((i % 4)) -eq 3 ] && printf '[ %d.500000] x86/split lock detection: #AC: game/%d took a split_lock trap at address: 0x1234\n' \
			$((1000 + i * 60)) $((7000 + i)) >>"$T/loop"
	done
	run "$SLCTL" offenders --input "$T/loop" --json
	expect_json .input_format dmesg
	expect_json .events 3
	expect_json .complete true
	# A guessed form that leaves lines unparsed says how to name another.
	sed 's/#AC: game/#AC game/' "$T/loop" >"$T/bad"
	run "$SLCTL" offenders --input "$T/bad"
	expect_out "do not parse as dmesg, the form guessed from the log's lines: if it is another, --input-format names it."
	run "$SLCTL" offenders --input "$T/bad" --input-format dmesg
	! grep -qF -- '--input-format names' <<<"$out" || fail "a named form is no guess: $out"
}

# The detector's lines decide the form past the first thousand lines too: a
# wrapped buffer full of "systemd[1]: ..." lines (eleventh review, M2).
test_detector_lines_past_the_first_thousand_decide_the_form() {
	local i
	for ((i = 0; i < 1100; i++)); do
		printf '[ %d.%06d] systemd[1]: Started session %d of user games.\n' $((10 + i / 1000)) $((i % 1000 * 1000)) "$i"
	done >"$T/late"
	printf '[   30.000000] x86/split lock detection: #AC: game/7005 took a split_lock trap at address: 0x1234\n' >>"$T/late"
	run "$SLCTL" offenders --input "$T/late" --json
	expect_json '[.input_format, .events, .complete] | @csv' '"dmesg",1,true'
}

# A copy stopped mid-write (head -c, a full disk): a last line cut inside
# the detector's words or its address, or before its message began, a
# JSON entry or document never closed, an export entry without its blank
# line: "cut", never a complete report nor a wrong address (eleventh
# review, H3). A last line whole but for its newline, not the detector's,
# is no cut.
test_a_log_cut_inside_its_last_record_is_said() {
	local f size n
	for f in events.dmesg events.kern.log events.journal-short-precise events.json \
		events.json-pretty events.dmesg-json events.journal-export events.journal-verbose; do
		size=$(stat -c %s "$F/$f")
		# Inside the last detector record's text.
		n=$(grep -bo 'took a split_lock trap at address: 0x' "$F/$f" | tail -n 1 | cut -d: -f1)
		head -c $((n + 38)) "$F/$f" >"$T/cut"
		run "$SLCTL" offenders --input "$T/cut" --json
		expect_json "[.complete, .unrecognized_by.cut > 0] | @csv" 'false,true'
	done
	# dmesg, cut right after the stamp or inside a kill's words.
	printf '[    0.100000] %s\n[  100.000000] ' "$(grep -m1 'crashing' "$F/events.dmesg" | sed 's/^\[[^]]*\] //')" >"$T/stamp"
	run "$SLCTL" offenders --input "$T/stamp" --input-format dmesg --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	printf '[  100.000000] traps: game[700] trap alignm' >"$T/kill"
	run "$SLCTL" offenders --input "$T/kill" --input-format dmesg --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	# Not the detector's, newline or not: complete.
	printf '[    5.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd' >"$T/usb"
	run "$SLCTL" offenders --input "$T/usb" --input-format dmesg --json
	expect_json '[.events, .complete] | @csv' '0,true'
	run "$SLCTL" offenders --input "$F/events.json-pretty" --json
	expect_json .unrecognized_by.cut 0
}

# dmesg --color=always cut inside a colour or before its text, and
# dmesg -x cut inside its facility ("kern  "), before the colon that
# rd_form_stamped() knew it by (thirteenth review, H4). A coloured
# journalctl's last reset is no cut.
test_coloured_and_facility_cuts_are_said() {
	local line cut
	line=$'\e[32m[   30.002000] \e[0m\e[33mx86/split lock detection: \e[0m\e[1m#AC: game/7002 took a split_lock trap at address: 0x1234\e[0m'
	for cut in $'\e[32m' $'\e[3' $'\e[32m[   30.0' $'\e[32m[   30.002000] \e[0m\e[33mx86/split lo'; do
		{ printf '%s\n' "$line"; printf '%s' "$cut"; } >"$T/c"
		run "$SLCTL" offenders --input "$T/c" --input-format dmesg --json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,false,1'
	done
	for cut in k kern 'kern  '; do
		{ printf 'kern  :warn  : [   30.002000] x86/split lock detection: #AC: game/7002 took a split_lock trap at address: 0x1234\n'
		  printf '%s' "$cut"; } >"$T/x"
		run "$SLCTL" offenders --input "$T/x" --json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,false,1'
	done
	{ printf '%s\n' "$line"; printf '\e[0m'; } >"$T/reset"
	run "$SLCTL" offenders --input "$T/reset" --input-format dmesg --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# A logger's own note that it lost kernel messages makes the report
# incomplete (reason lost): journald's "Missed N kernel messages" in every
# form it reaches, rsyslog's imjournal in its files; a --since after the
# note leaves it out (thirteenth review, H2).
test_a_logger_that_lost_kernel_messages_is_said() {
	local dmdb='x86/split lock detection: #DB: vm/900 took a bus_lock trap at address: 0x1234'
	printf 'Dec  5 10:00:00 host kernel: %s\nDec  5 10:00:01 host systemd-journald[312]: Missed 240 kernel messages\n' \
		"$dmdb" >"$T/journald.log"
	printf 'Dec  5 10:00:00 host kernel: %s\nDec  5 10:00:02 host rsyslogd[1041]: imjournal: 3114 messages lost due to rate-limiting (20000 allowed within 600 seconds)\n' \
		"$dmdb" >"$T/rsyslog.log"
	{ cat "$F/events.json"
	  printf '{"MESSAGE":"Missed 240 kernel messages","SYSLOG_IDENTIFIER":"systemd-journald","PRIORITY":"4","_TRANSPORT":"driver","__REALTIME_TIMESTAMP":"1796083300000000","_BOOT_ID":"0123456789abcdef0123456789abcdef"}\n'
	} >"$T/journal.json"
	for f in journald.log rsyslog.log journal.json; do
		run "$SLCTL" offenders --input "$T/$f" --json
		expect_json '[.complete, .unrecognized_by.lost] | @csv' 'false,1'
	done
	run "$SLCTL" offenders --input "$T/journald.log" --since '2026-12-05 10:00:30' --json
	expect_json '[.complete, .unrecognized_by.lost] | @csv' 'true,0'
	run "$SLCTL" offenders --input "$T/rsyslog.log"
	expect_out "lost before the log held them"
	# rsyslog's "begin to drop" (its count comes later, or never), in the
	# newer wording too (fourteenth review, H2); its line in a journal,
	# which kept everything, is no loss (M2); journald's line in -o cat
	# (read as dmesg text: H3).
	printf 'Dec  5 10:00:00 host kernel: %s\nDec  5 10:00:02 host rsyslogd[1041]: imjournal from <host:kernel>: begin to drop messages due to rate-limiting\n' \
		"$dmdb" >"$T/begin.log"
	run "$SLCTL" offenders --input "$T/begin.log" --json
	expect_json '[.complete, .unrecognized_by.lost] | @csv' 'false,1'
	# It drops from its line on: a window after it misses some, one that
	# ends before it does not (fifteenth review, H2).
	run "$SLCTL" offenders --input "$T/begin.log" --since '2026-12-05 10:00:30' --json
	expect_json '[.complete, .unrecognized_by.lost] | @csv' 'false,1'
	run "$SLCTL" offenders --input "$T/begin.log" --until '2026-12-05 10:00:01' --json
	expect_json '[.complete, .unrecognized_by.lost] | @csv' 'true,0'
	{ cat "$F/events.json"
	  printf '{"MESSAGE":"imjournal: 3114 messages lost due to rate-limiting (20000 allowed within 600 seconds)","SYSLOG_IDENTIFIER":"rsyslogd","PRIORITY":"4","_TRANSPORT":"syslog","__REALTIME_TIMESTAMP":"1796083300000000"}\n'
	} >"$T/rsyslog-in-journal.json"
	run "$SLCTL" offenders --input "$T/rsyslog-in-journal.json" --input-format journal --json
	expect_json .unrecognized_by.lost 0
	printf '%s\nMissed 240 kernel messages\n%s\n' "$dmdb" "$dmdb" >"$T/cat"
	run "$SLCTL" offenders --input "$T/cat" --json
	expect_json '[.complete, .unrecognized_by.lost] | @csv' 'false,1'
	# Another program's words about messages are no loss.
	printf 'Dec  5 10:00:00 host kernel: %s\nDec  5 10:00:01 host app[5]: 3 messages in queue\n' "$dmdb" >"$T/app.log"
	run "$SLCTL" offenders --input "$T/app.log" --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# journalctl --no-full shortens a line with "…" ("..." where the locale is
# not UTF-8), keeping its start and end: a kernel line whose start kept is
# the detector's, or nothing, is cut (thirteenth review, H3).
test_lines_journalctl_shortened_are_cut() {
	local m
	for m in $'x86/split loc\xe2\x80\xa6 4' 'x86/split loc...4' $'\xe2\x80\xa6' '...' $'traps: ga\xe2\x80\xa6ck' $'\xe2\x80\xa64' \
		$'traps: \xe2\x80\xa6]'; do
		printf 'Dec 05 19:48:20 ip-10-0-12-34.eu-west-1.compute.internal kernel: %s\n' "$m" >"$T/nf"
		run "$SLCTL" offenders --input "$T/nf" --input-format syslog --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		# journal-text (short-monotonic, -unix, -full): "…" only
		# (slctl(8): "..." where the locale is not UTF-8 is not seen).
		[[ $m == *...* ]] && continue
		printf '1796083200.000000 host kernel: %s\n' "$m" >"$T/nfu"
		run "$SLCTL" offenders --input "$T/nfu" --input-format journal-text --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
	# lockdep's boot lines begin with "..." (debug kernels); no form
	# journalctl never shortens has a cut (fourteenth review, M1).
	printf 'Dec 05 19:48:20 host kernel: ... MAX_LOCK_DEPTH:          48\n' >"$T/lockdep"
	run "$SLCTL" offenders --input "$T/lockdep" --input-format syslog --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'true,0'
	printf '6,0,100000,-;x86/split loc\xe2\x80\xa6 4\n' >"$T/kmsg-dots"
	run "$SLCTL" offenders --input "$T/kmsg-dots" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'true,0'
	# Another kernel line shortened, or a program's: complete.
	printf 'Dec 05 19:48:20 host kernel: usb 1-1: new high-speed USB dev\xe2\x80\xa6ci_hcd\nDec 05 19:48:21 host app[9]: x86/split loc\xe2\x80\xa6 4\nDec 05 19:48:22 host kernel: traps: svc[9] general prot\xe2\x80\xa6\n' >"$T/usb"
	run "$SLCTL" offenders --input "$T/usb" --input-format syslog --json
	expect_json '[.events, .complete] | @csv' '0,true'
}

# journalctl -o json | jq -s . (an array of the entries, jq's layout) is
# journal JSON: the same report as the lines, no cut at its "]"
# (thirteenth review, M1). One line of an array (jq -s -c) is unread.
test_a_jq_array_of_journal_entries_is_read() {
	local want
	want=$("$SLCTL" offenders --input "$F/events.json" --json | jq -c '[.events, .complete, [.offenders[].comm]]')
	jq -s . "$F/events.json" >"$T/array"
	run "$SLCTL" offenders --input "$T/array" --json
	expect_json .input_format journal
	[ "$(jq -c '[.events, .complete, [.offenders[].comm]]' <<<"$out")" = "$want" ] || fail "array: $out, lines: $want"
	head -c -1 "$T/array" >"$T/array-nonl"
	run "$SLCTL" offenders --input "$T/array-nonl" --input-format journal --json
	expect_json .unrecognized_by.cut 0
	jq -s -c . "$F/events.json" >"$T/compact"
	run "$SLCTL" offenders --input "$T/compact" --json
	expect_json '[.events, .complete] | @csv' '0,false'
}

# export_dump TAG BOOT N: a journalctl -o export dump of one boot, N
# split lock warnings of tasks TAG0/1000..., each entry with its cursor.
export_dump() {
	local i
	for ((i = 0; i < $3; i++)); do
		printf '__CURSOR=s=%s;i=%x;b=%s\n__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=%s\n_TRANSPORT=kernel\nSYSLOG_FACILITY=0\nPRIORITY=4\n_HOSTNAME=h\nMESSAGE=x86/split lock detection: #AC: %s%d/%d took a split_lock trap at address: 0x401000\n\n' \
			"$2" "$i" "$2" $((1796083200000000 + i * 1000000)) $(((i + 100) * 1000000)) "$2" "$1" "$i" $((1000 + i))
	done
}

# verbose_dump TAG BOOT N: the same entries as journalctl -o verbose.
verbose_dump() {
	local i
	for ((i = 0; i < $3; i++)); do
		printf 'Thu 2026-12-03 09:%02d:00.000000 UTC [s=%s;i=%x;b=%s;m=%x;t=%x;x=1]\n    _TRANSPORT=kernel\n    SYSLOG_FACILITY=0\n    PRIORITY=4\n    _BOOT_ID=%s\n    MESSAGE=x86/split lock detection: #AC: %s%d/%d took a split_lock trap at address: 0x401000\n' \
			"$i" "$2" "$i" "$2" $(((i + 100) * 1000000)) $((1796290740000000 + i * 60000000)) "$2" "$1" "$i" $((1000 + i))
	done
}

# A dump cut inside an entry with another dump appended after it ("cat cut
# whole"): the next dump's first line runs on into the cut line. The cut
# entry is counted as cut, never completed with the next entry's fields,
# and every whole entry of both is read (rev45 H2).
test_a_cut_dump_with_another_appended_is_cut() {
	local a=fedcba9876543210fedcba9876543210 b=0123456789abcdef0123456789abcdef form
	export_dump a $a 3 >"$T/a.export"
	export_dump b $b 5 >"$T/b.export"
	verbose_dump a $a 3 >"$T/a.verbose"
	verbose_dump b $b 5 >"$T/b.verbose"
	for form in export verbose; do
		# Inside a1/1001's message, before the trap's words.
		grep -bo 'a1/1001 ' "$T/a.$form" | cut -d: -f1 | { read -r n; head -c $((n + 8)) "$T/a.$form"; } >"$T/cut.$form"
		cat "$T/cut.$form" "$T/b.$form" >"$T/joined.$form"
		run "$SLCTL" offenders --input "$T/joined.$form" --json
		expect_json .input_format "journal-$form"
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '6,false,1'
		expect_json '[.offenders[].comm] | sort | join(" ")' 'a0 b0 b1 b2 b3 b4'
		# Cut inside the cursor or header line of a2's entry: a1 whole.
		if [ $form = export ]; then
			grep -bo '__CURSOR=s=fedcba9876543210fedcba9876543210;i=2' "$T/a.$form" | cut -d: -f1
		else
			grep -bo 'Thu 2026-12-03 09:02' "$T/a.$form" | cut -d: -f1
		fi | { read -r n; head -c $((n + 14)) "$T/a.$form"; } >"$T/cut2.$form"
		cat "$T/cut2.$form" "$T/b.$form" >"$T/joined2.$form"
		run "$SLCTL" offenders --input "$T/joined2.$form" --json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '7,false,1'
		# The same dump appended after its own cut: the cut entry is
		# read whole there, and nothing is missing.
		cat "$T/cut.$form" "$T/a.$form" >"$T/again.$form"
		run "$SLCTL" offenders --input "$T/again.$form" --json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '3,true,0'
	done
	# A field journald writes once an entry, seen again within one: the
	# next dump's entry ran on into it (here after a cut binary field).
	{ export_dump a $a 1
	  printf '__CURSOR=s=x;i=9\n__REALTIME_TIMESTAMP=1796083300000000\n_BOOT_ID=%s\n_TRANSPORT=kernel\n' $a
	  export_dump b $b 2 | tail -n +5; } >"$T/repeat.export"
	run "$SLCTL" offenders --input "$T/repeat.export" --input-format journal-export --json
	expect_json '[.complete, .unrecognized_by.cut > 0] | @csv' 'false,true'
}

# dmesg --json: a document that opens before the one before it closed;
# jq -s: an array that opens before the one before it closed, or an entry
# that one opens inside. The first was cut: counted, its records read
# whole so far kept, the next document read whole (rev45 H2).
test_a_cut_json_document_with_another_appended_is_cut() {
	local doc='{\n   "dmesg": [\n      {\n         "pri": 4,\n         "time":   %d.000000,\n         "msg": "x86/split lock detection: #AC: %s took a split_lock trap at address: 0x1"\n      },{\n         "pri": 4,\n         "time":   %d.000000,\n         "msg": "x86/split lock detection: #AC: %s took a split_lock trap at address: 0x1"\n      }\n   ]\n}\n'
	# shellcheck disable=SC2059
	printf "$doc" 501 a1/81 502 a2/82 | head -n 7 >"$T/cut.json"
	# shellcheck disable=SC2059
	printf "$doc" 101 b1/71 102 b2/72 >"$T/b.json"
	cat "$T/cut.json" "$T/b.json" >"$T/joined.json"
	run "$SLCTL" offenders --input "$T/joined.json" --json
	expect_json .input_format dmesg-json
	expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '3,false,1'
	# Cut inside a record, before its message.
	# shellcheck disable=SC2059
	printf "$doc" 501 a1/81 502 a2/82 | head -n 9 >"$T/cut2.json"
	cat "$T/cut2.json" "$T/b.json" >"$T/joined2.json"
	run "$SLCTL" offenders --input "$T/joined2.json" --json
	expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '3,false,1'
	jq -s . "$F/events.json" >"$T/array"
	sed -n '1,/^  },$/p' "$T/array" | sed '$s/},$/}/' >"$T/cut.array"
	cat "$T/cut.array" "$T/array" >"$T/joined.array"
	run "$SLCTL" offenders --input "$T/joined.array" --json
	expect_json .input_format journal
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	# Cut inside an entry, at a line's end and inside a line.
	sed -n '1,/"MESSAGE"/p' "$T/array" >"$T/cut2.array"
	cat "$T/cut2.array" "$T/array" >"$T/joined2.array"
	run "$SLCTL" offenders --input "$T/joined2.array" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	head -c -20 "$T/cut2.array" | cat - "$T/array" >"$T/joined3.array"
	run "$SLCTL" offenders --input "$T/joined3.array" --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	[ "$(jq '.events' <<<"$out")" = "$("$SLCTL" offenders --input "$T/array" --json | jq .events)" ] ||
		fail "the whole array's events are not all read: $out"
}

# dmesg -x, -r and /dev/kmsg records cut before a record's message, with
# another dump appended: that record's message is the next dump's first
# record. Counted as cut, wherever the line stands (rev45 M1).
test_a_text_record_joined_to_another_dumps_is_cut() {
	local ev='x86/split lock detection: #DB: %s took a bus_lock trap at address: 0x401001'
	{ printf 'kern  :info  : [    0.000000] Linux version 6.1.0\n'
	  printf "kern  :warn  : [  501.000000] $ev\n" a1/81
	  printf 'kern  :warn  : [  502.000000] kern  :info  : [    0.000000] Linux version 6.1.0\n'
	  printf "kern  :warn  : [  101.000000] $ev\n" b1/71; } >"$T/x"
	{ printf '<6>[    0.000000] Linux version 6.1.0\n'
	  printf "<4>[  501.000000] $ev\n" a1/81
	  printf '<4>[  502.0<6>[    0.000000] Linux version 6.1.0\n'
	  printf "<4>[  101.000000] $ev\n" b1/71; } >"$T/r"
	{ printf '6,0,0,-;Linux version 6.1.0\n'
	  printf "4,1,501000000,-;$ev\n" a1/81
	  printf '4,2,502000000,-;6,0,0,-;Linux version 6.1.0\n'
	  printf "4,1,101000000,-;$ev\n" b1/71; } >"$T/k"
	# The next dump's first record holds the detector's words too.
	{ printf 'kern  :info  : [    0.000000] Linux version 6.1.0\n'
	  printf "kern  :warn  : [  501.000000] $ev\n" a1/81
	  printf "kern  :warn  : [  502.000000] kern  :warn  : [  101.000000] $ev\n" b1/71; } >"$T/x2"
	for f in x r k x2; do
		run "$SLCTL" offenders --input "$T/$f" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		expect_json '.offenders[0].comm' a1
	done
	# A message of its own that begins with brackets is none.
	printf 'kern  :info  : [    1.000000] [drm] Initialized\nkern  :warn  : [    2.000000] <4>x\n' >"$T/drm"
	printf "kern  :warn  : [  501.000000] $ev\n" a1/81 >>"$T/drm"
	run "$SLCTL" offenders --input "$T/drm" --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# jq -s's array cut before its first entry ("[" alone) is cut, as journal
# JSON; entries wrapped in another value (jq -s '{entries: .}') are no
# layout slctl reads, and the report says so (rev45 L1).
test_an_open_array_and_a_wrapped_one_are_never_complete() {
	printf '[\n  ' >"$T/open"
	run "$SLCTL" offenders --input "$T/open" --json
	expect_json '[.input_format, .complete, .unrecognized_by.cut] | @csv' '"journal",false,1'
	jq -s '{entries: .}' "$F/events.json" >"$T/wrapped"
	run "$SLCTL" offenders --input "$T/wrapped" --json
	expect_json '[.events, .complete, .unrecognized_by.unparsed > 0] | @csv' '0,false,true'
}

# dmesg 2.38 --json runs each msg on to the end of the saved buffer: a
# record's further line is counted once, as a further line, as -r and -x
# count it, not once per earlier record as user space's (rev45 L2).
test_dmesg_json_run_on_further_lines_count_once() {
	local ev='x86/split lock detection: #DB: %s took a bus_lock trap at address: 0x1'
	{ printf '{\n   "dmesg": [\n      {\n'
	  for i in 1 2 3; do
		printf '         "fac": "kern",\n         "pri": "warn",\n         "time":   10%d.000000,\n' $i
		printf "         \"msg\": \"$ev" g$i/7$i
		for j in $(seq $((i + 1)) 3); do printf "\\\\n<4>[  10%d.000000] $ev" $j g$j/7$j; done
		printf '\\n<6>[  121.000000] line one\\n'"$ev"'\\n"\n      },{\n' nl/67
	  done
	  printf '         "fac": "kern",\n         "pri": "info",\n         "time":   121.000000,\n'
	  printf "         \"msg\": \"line one\\\\n$ev\\\\n\"\n      }\n   ]\n}\n" nl/67; } >"$T/runon.json"
	jq -e . "$T/runon.json" >/dev/null || fail "not JSON: $(cat "$T/runon.json")"
	run "$SLCTL" offenders --input "$T/runon.json" --json
	expect_json '[.events, .complete, .forged_by.further_line, .forged_by.user_space] | @csv' '3,true,1,0'
}


# A dump cut inside a record's head (its prefix, its stamp, the start of
# the detector's line: "x86/split lock dete"), another dump appended: the
# next dump's first record runs on into the cut line. Counted as cut in
# every text form, the line read by the scan or passed by (rev47 H1).
test_a_record_cut_in_its_head_joined_to_another_dump_is_cut() {
	local ev='x86/split lock detection: #DB: %s took a bus_lock trap at address: 0x401001'
	local f cut b1
	for cut in 'x86/split lock dete' 'x86/spl' 'x' '#D'; do
		{ printf '6,0,0,-;Linux version 6.1.0\n'
		  printf "4,1,501000000,-;$ev\n" a1/81
		  printf '4,2,502000000,-;%s6,0,0,-;Linux version 6.1.0\n' "$cut"
		  printf "4,1,101000000,-;$ev\n" b1/71; } >"$T/k"
		{ printf 'kern  :info  : [    0.000000] Linux version 6.1.0\n'
		  printf "kern  :warn  : [  501.000000] $ev\n" a1/81
		  printf 'kern  :warn  : [  502.000000] %skern  :info  : [    0.000000] Linux version 6.1.0\n' "$cut"
		  printf "kern  :warn  : [  101.000000] $ev\n" b1/71; } >"$T/x"
		{ printf '<6>[    0.000000] Linux version 6.1.0\n'
		  printf "<4>[  501.000000] $ev\n" a1/81
		  printf '<4>[  502.000000] %s<6>[    0.000000] Linux version 6.1.0\n' "$cut"
		  printf "<4>[  101.000000] $ev\n" b1/71; } >"$T/r"
		{ printf '[    0.000000] Linux version 6.1.0\n'
		  printf "[  501.000000] $ev\n" a1/81
		  printf '[  502.000000] %s[    0.000000] Linux version 6.1.0\n' "$cut"
		  printf "[  101.000000] $ev\n" b1/71; } >"$T/plain"
		{ printf '2026-11-30T00:50:00+0000 h kernel: Linux version 6.1.0\n'
		  printf "2026-11-30T00:51:00+0000 h kernel: $ev\n" a1/81
		  printf '2026-11-30T00:52:00+0000 h kernel: %s2026-11-30T00:40:00+0000 h kernel: Linux version 6.1.0\n' "$cut"
		  printf "2026-11-30T00:41:00+0000 h kernel: $ev\n" b1/71; } >"$T/iso"
		{ printf 'Mon 2026-11-30 00:50:00 UTC h kernel: Linux version 6.1.0\n'
		  printf "Mon 2026-11-30 00:51:00 UTC h kernel: $ev\n" a1/81
		  printf 'Mon 2026-11-30 00:52:00 UTC h kernel: %sMon 2026-11-30 00:40:00 UTC h kernel: Linux version 6.1.0\n' "$cut"
		  printf "Mon 2026-11-30 00:41:00 UTC h kernel: $ev\n" b1/71; } >"$T/full"
		for f in k x r plain iso full; do
			run "$SLCTL" offenders --input "$T/$f" --json
			expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
			expect_json '[.offenders[].comm] | sort | join(" ")' 'a1 b1'
		done
	done
	# Cut inside the record's prefix or stamp, or the syslog line's HOST.
	# shellcheck disable=SC2059
	b1=$(printf "$ev" b1/71)
	printf '6,0,0,-;Linux version 6.1.0\n4,2,50206,0,0,-;Linux version 6.1.0\n4,1,101000000,-;%s\n' "$b1" >"$T/k2"
	printf 'kern  :info  : [    0.000000] Linux version 6.1.0\nkern  :wakern  :info  : [    0.000000] Linux version 6.1.0\nkern  :warn  : [  101.000000] %s\n' "$b1" >"$T/x2"
	printf 'kern  :info  : [    0.000000] Linux version 6.1.0\nkern  :warn  : [  50kern  :info  : [    0.000000] Linux version 6.1.0\nkern  :warn  : [  101.000000] %s\n' "$b1" >"$T/x3"
	printf '[    0.000000] Linux version 6.1.0\n[  50[    0.000000] Linux version 6.1.0\n[  101.000000] %s\n' "$b1" >"$T/plain2"
	printf '2026-11-30T00:50:00+0000 h kernel: Linux version 6.1.0\n2026-11-30T00:52026-11-30T00:40:00+0000 h kernel: Linux version 6.1.0\n2026-11-30T00:41:00+0000 h kernel: %s\n' "$b1" >"$T/iso2"
	printf '2026-11-30T00:50:00+0000 h kernel: Linux version 6.1.0\n2026-11-30T00:52:00+0000 h kern2026-11-30T00:40:00+0000 h kernel: Linux version 6.1.0\n2026-11-30T00:41:00+0000 h kernel: %s\n' "$b1" >"$T/iso3"
	for f in k2 x2 x3 plain2 iso2 iso3; do
		run "$SLCTL" offenders --input "$T/$f" --json
		expect_json '[.complete, .unrecognized_by.cut, .offenders[0].comm] | @csv' 'false,1,"b1"'
	done
	# Messages of their own that begin so are none.
	{ printf '[    1.000000] [drm] Initialized\n[    2.000000] x[drm] y\n'
	  printf "[  501.000000] $ev\n" a1/81; } >"$T/own"
	run "$SLCTL" offenders --input "$T/own" --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# dmesg -x with any stamp (-T, -t, --time-format delta, iso, ctime, -e):
# a record cut before its message, another dump appended: its message is
# the next dump's record prefix. Cut (rev47 H2).
test_a_dmesg_x_record_joined_with_any_stamp_is_cut() {
	local ev='x86/split lock detection: #DB: %s took a bus_lock trap at address: 0x401001'
	local s1 s2
	while IFS='|' read -r s1 s2; do
		# "_": the blank after a stamp.
		s1=${s1/%_/ } s2=${s2/%_/ }
		{ printf 'kern  :info  : %sLinux version 6.1.0\n' "$s2"
		  printf "kern  :warn  : %s$ev\n" "$s1" a1/81
		  printf 'kern  :warn  : %skern  :info  : %sLinux version 6.1.0\n' "$s1" "$s2"
		  printf "kern  :warn  : %s$ev\n" "$s2" b1/71; } >"$T/x"
		run "$SLCTL" offenders --input "$T/x" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		expect_json '[.offenders[].comm] | sort | join(" ")' 'a1 b1'
	done <<'STAMPS'
[Sun Dec  6 13:43:39 2026]_|[Sun Dec  6 13:35:17 2026]_
|
[<    1.000000>]_|[<    0.000000>]_
[  +1.000000]_|[Dec 6 13:35]_
[Dec 6 13:43]_|[  +0.000000]_
2026-12-06T13:43:39,000000+00:00_|2026-12-06T13:35:17,000000+00:00_
[Sun Dec  6 13:43:39 2026 <    1.000000>]_|[Sun Dec  6 13:35:17 2026 <    0.000000>]_
STAMPS
}

# journalctl -o short-monotonic and short-delta: a log that ends after a
# line's tag, before its message, is cut, as short's and short-iso's are
# (rev47 M1).
test_short_monotonic_cut_before_the_message_is_cut() {
	local ev='x86/split lock detection: #AC: %s took a split_lock trap at address: 0x401000'
	local end
	for end in 'h kernel: ' 'h kernel:'; do
		printf "[  101.000000] h kernel: $ev\n[  102.000000] %s" a0/1000 "$end" >"$T/mono"
		run "$SLCTL" offenders --input "$T/mono" --json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,false,1'
		printf "[  101.000000 <    1.000000>] h kernel: $ev\n[  102.000000 <    1.000000>] %s" a0/1000 "$end" >"$T/delta"
		run "$SLCTL" offenders --input "$T/delta" --json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,false,1'
	done
}

# dmesg --json: a document cut inside its head ("{\n   \"dmesg\": ["),
# another appended: cut, the next read whole (rev47 L1).
test_a_dmesg_json_document_cut_in_its_head_is_cut() {
	local n
	printf '{\n   "dmesg": [\n      {\n         "pri": 4,\n         "time":   101.000000,\n         "msg": "x86/split lock detection: #AC: b1/71 took a split_lock trap at address: 0x1"\n      }\n   ]\n}\n' >"$T/b.json"
	for n in 12 13 14 15; do
		head -c "$n" "$T/b.json" | cat - "$T/b.json" >"$T/joined.json"
		run "$SLCTL" offenders --input "$T/joined.json" --json
		expect_json .input_format dmesg-json
		expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,false,1'
	done
	run "$SLCTL" offenders --input "$T/b.json" --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# A dump cut inside a record's head (any stamp: ISO, -H's deltas, a printk
# caller id, rsyslog's kernel stamp, journalctl's short-delta; colours, a
# pasted log's indent) or in the detector's first words, and the next
# dump appended, its first line the kernel's banner in the same head: the
# seam is read in every form by one rule (the head's shape, log/join.c),
# never the cut record's words (twenty-second review: H1-H5, M1).
test_a_record_cut_anywhere_in_its_head_before_the_next_dumps_banner_is_cut() {
	local f first banner ln off line c n cuts
	for f in events.dmesg events.dmesg-iso events.dmesg-x events.dmesg-x-color \
		 events.dmesg-H events.dmesg-T-d events.dmesg-indented events.dmesg-notime \
		 events.dmesg-r events.kmsg events.kern.log events.kern.log-rfc3339 \
		 events.journal-short-delta events.journal-short-iso events.journal-short-monotonic; do
		first=$(grep -a -m1 'x86/split lock detection: ' "$F/$f")
		banner="${first%%x86/split lock detection: *}Linux version 6.1.0"
		ln=$(grep -a -n -m1 'took a' "$F/$f" | cut -d: -f1)
		off=$(head -n $((ln - 1)) "$F/$f" | wc -c)
		line=$(sed -n "${ln}p" "$F/$f")
		# Cuts from the line's second byte to the detector's "#AC: ".
		cuts=0
		n=${line%%#AC: *}
		for ((c = 2; c < ${#n}; c += 3)); do
			{ head -c $((off + c)) "$F/$f"; printf '%s\n' "$banner"; } >"$T/joined"
			run "$SLCTL" offenders --input "$T/joined" --json
			[ "$(jq -r '.complete' <<<"$out")" = false ] &&
				[ "$(jq -r '.unrecognized_by.cut + .unrecognized_by.unparsed' <<<"$out")" -ge 1 ] ||
				fail "$f cut after ${line:0:c}: $(jq -c '[.events, .complete, .unrecognized_by]' <<<"$out")"
			cuts=$((cuts + 1))
		done
		[ "$cuts" -ge 5 ] || fail "$f: only $cuts cuts"
	done
	# dmesg -t: the detector's first words, then the banner.
	printf 'x86/split lock detection: #AC: crashing\nx86/split lock deteLinux version 6.1.0\n' >"$T/t"
	run "$SLCTL" offenders --input "$T/t" --input-format dmesg --json
	expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	# A pasted log cut in its indent, the next dump's detector line after
	# it (twenty-third review, H2).
	{ printf '    [    5.000000] x86/split lock detection: #AC: a/1 took a split_lock trap at address: 0x1\n'
	  printf '      [    0.000000] x86/split lock detection: #AC: b/2 took a split_lock trap at address: 0x2\n'; } >"$T/indent"
	run "$SLCTL" offenders --input "$T/indent" --json
	expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '1,false,1'
	# journalctl -o verbose cut between an entry's fields, before its
	# MESSAGE, the next dump's entry after it (twenty-third review, H1).
	{ printf 'Tue 2026-12-01 00:00:05.000000 UTC [s=a;i=2;b=0123456789abcdef0123456789abcdef;m=1;t=1;x=1]\n'
	  printf '    _TRANSPORT=kernel\n    PRIORITY=4\n'
	  printf 'Tue 2026-12-01 00:00:00.120000 UTC [s=a;i=1;b=0123456789abcdef0123456789abcdef;m=1;t=1;x=1]\n'
	  printf '    _TRANSPORT=kernel\n    MESSAGE=Linux version 6.8\n'; } >"$T/verbose"
	run "$SLCTL" offenders --input "$T/verbose" --json
	expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '0,false,1'
	# A name that holds the next dump's trap line: no name, unread.
	{ printf '4,0,5000000,-;x86/split lock detection: #AC: fo'
	  printf '4,0,5000000,-;x86/split lock detection: #AC: foo/12 took a split_lock trap at address: 0x1\n'; } >"$T/comm"
	run "$SLCTL" offenders --input "$T/comm" --json
	expect_json '[.events, .complete, .unrecognized_by.unparsed] | @csv' '0,false,1'
}

# A record cut anywhere (here a user space one, which may be longer than
# the 160 bytes where a seam is looked for at a line's start), the next
# dump's kernel line after it: cut, in every syslog and journalctl short
# form; it was read as sshd's line and the event lost with complete: true
# (twenty-fourth review, H3; twenty-fifth, H2, H3; twenty-sixth, H1, H2).
test_a_record_cut_anywhere_with_the_next_dumps_kernel_line_after_it_is_cut() {
	local f L U glue
	for f in events.kern.log events.kern.log-rfc3339 events.journal-short events.journal-short-iso \
		 events.journal-short-iso-precise events.journal-short-precise events.journal-short-full \
		 events.journal-short-unix events.journal-short-monotonic events.journal-short-nohostname \
		 events.journal-short-delta events.journal-with-unit events.journal-short.ja \
		 events.journal-short.de; do
		L=$(grep -a -m1 'took a' "$F/$f")
		# Glued to a letter, a number, a sign (a line that lost only
		# its newline); twenty-fifth review, H2, H3.
		for glue in 'Accepted publickey for ro' 'Connection from 10.0.0.1 port 22' \
			    'Started foo.service.' 'exited (status=1)' 'Accepted password for ' \
			    'error: ' 'St'; do
			U="${L%%kernel: *}sshd[812]: $glue"
			{ grep -a -m1 -v 'took a' "$F/$f"; printf '%s%s\n' "$U" "$L"; } >"$T/glued"
			run "$SLCTL" offenders --input "$T/glued" --json
			[ "$(jq -c '[.events, .complete, .unrecognized_by.cut]' <<<"$out")" = '[0,false,1]' ] ||
				fail "$f after '$glue': $(jq -c '[.input_format, .events, .complete, .unrecognized_by]' <<<"$out")"
		done
		# A relay's copy after its tag is no cut (short-full reads any
		# word as a weekday: a head inside its first word is taken for
		# a cut there, a stated limit; twenty-fifth review, M1).
		U="${L%%kernel: *}kernlog[5]: "
		{ grep -a -m1 -v 'took a' "$F/$f"; printf '%s%s\n' "$U" "$L"; } >"$T/relayed"
		run "$SLCTL" offenders --input "$T/relayed" --json
		case $f in events.journal-short-full | events.journal-with-unit) continue ;; esac
		[ "$(jq -c '[.events, .unrecognized_by.cut, .forged_by.user_space]' <<<"$out")" = '[0,0,1]' ] ||
			fail "$f relayed: $(jq -c '[.input_format, .events, .complete, .unrecognized_by, .forged_by]' <<<"$out")"
	done
	# The next dump's head whose time does not read here (another zone's
	# name, a month of another locale), behind a long host, or of another
	# short form: cut all the same (twenty-seventh review, H1-H3).
	local D='x86/split lock detection: #AC: LOST/2 took a split_lock trap at address: 0x2'
	local H; H=$(printf 'h%.0s' $(seq 200)).example.org
	for U in "Tue 2026-12-01 00:00:03 CET host sshd[9]: Accepted for Tue 2026-12-01 00:00:05 CET host kernel: $D" \
		 "gruod. 01 00:00:03 host sshd[9]: Accepted for gruod. 01 00:00:05 host kernel: $D" \
		 "gruod. 01 00:00:03 host sshd[9]: port 22gruod. 01 00:00:05 host kernel: $D" \
		 "2026-12-01T00:00:03+00:00 $H sshd[9]: Accepted for ro2026-12-01T00:00:05+00:00 $H kernel: $D" \
		 "Dec 01 00:00:03 host sshd[9]: Accepted for ro1796083205.120000 host kernel: $D" \
		 "Dec 01 00:00:03 host sshd[9]: Accepted for ro[    5.120000] host kernel: $D" \
		 "12월 01 00:00:03 host sshd[9]: port 2212월 01 00:00:05 host kernel: $D"; do
		{ printf '%s\n' "${U%%sshd*}kernel: usb 1-1: new device"; printf '%s\n' "$U"; } >"$T/inner"
		TZ=UTC run "$SLCTL" offenders --input "$T/inner" --json
		[ "$(jq -c '[.events, .complete, .unrecognized_by.cut]' <<<"$out")" = '[0,false,1]' ] ||
			fail "${U:0:40}: $(jq -c '[.input_format, .events, .complete, .unrecognized_by]' <<<"$out")"
	done
	# A task name that reads as a stamp is no inner head (twenty-fifth
	# review, M2).
	printf '[    5.000000] host kernel: x86/split lock detection: #AC: UE4.27 Worker/4300 took a split_lock trap at address: 0x1403c2d1\n' >"$T/comm"
	run "$SLCTL" offenders --input "$T/comm" --input-format journal-text --json
	expect_json '[.events, .complete] | @csv' '1,true'
	# A message that quotes a whole kernel line cannot be told from a
	# cut after a blank (twenty-sixth review, H1): cut, not complete.
	printf 'Dec  5 10:00:01 host sshd[812]: replay of Dec  5 10:00:00 host kernel: x86/split lock detection: #AC: a/1 took a split_lock trap at address: 0x1\n' >"$T/quoted"
	run "$SLCTL" offenders --input "$T/quoted" --input-format syslog --json
	expect_json '[.events, .complete, .unrecognized_by.cut] | @csv' '0,false,1'
}

# A relay that logs what it forwards with a head of its own (rsyslog's
# imfile or a template with %rawmsg%: "HOST TAG: Dec  5 ... kernel: ...")
# writes two heads on each line: no cut, as the first head's tag is whole
# and not the kernel's. A record of the kernel's cut right before its
# message, the next dump's after it, stays cut (twenty-third review, M6).
test_a_relays_double_head_is_no_cut_but_the_kernels_record_cut_before_its_message_is() {
	local P="x86/split lock detection: #AC: a/1 took a split_lock trap at address: 0x1"
	{ printf 'Dec  5 10:00:01 relay kernlog: Dec  5 10:00:00 host kernel: usb 1-1: new device\n'
	  printf 'Dec  5 10:00:03 relay kernlog: Dec  5 10:00:02 host kernel: %s\n' "$P"
	  printf 'Dec  5 10:00:04 relay sshd[81]: Dec  5 10:00:04 host sshd[80]: Accepted publickey\n'; } >"$T/relay"
	run "$SLCTL" offenders --input "$T/relay" --json
	expect_rc 0
	# Not the kernel's by its tag: said, as any user space line is.
	expect_json '[.events, .unrecognized_by.cut, .forged_by.user_space] | @csv' '0,0,1'
	for h in 'Dec  5 10:00:01 host kernel: ' 'Dec  5 10:00:01 host ' 'Dec  5 10:00:01 host ker'; do
		{ printf 'Dec  5 10:00:00 host kernel: usb 1-1: new device\n'
		  printf '%sDec  5 10:00:02 host kernel: Linux version 6.1.0\n' "$h"
		  printf 'Dec  5 10:00:03 host kernel: %s\n' "$P"; } >"$T/cut"
		run "$SLCTL" offenders --input "$T/cut" --json
		expect_json '[.events, .complete, .unrecognized_by.cut, .input_format] | @csv' '1,false,1,"syslog"'
	done
}

# journalctl -o json: an entry cut before its MESSAGE (no detector words
# on its line), the next dump's first entry run on into it, is cut
# (twenty-second review, H5).
test_a_json_entry_cut_before_its_message_joined_to_another_is_cut() {
	local l2 banner c
	l2=$(sed -n 2p "$F/events.json")
	banner=$(sed -n 1p "$F/events.json" | sed 's/"MESSAGE":"[^"]*"/"MESSAGE":"Linux version 6.1.0"/; s/i=1;/i=99;/')
	for c in 1 20 100 200; do
		{ sed -n 1p "$F/events.json"; printf '%s' "${l2:0:c}"; printf '%s\n' "$banner"; } >"$T/joined.json"
		run "$SLCTL" offenders --input "$T/joined.json" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		# Ended by a newline (awk 1, an editor), the next dump after it
		# (thirtieth review, H2); in CRLF too.
		{ sed -n 1p "$F/events.json"; printf '%s\n' "${l2:0:c}" "$banner"; } >"$T/newline.json"
		run "$SLCTL" offenders --input "$T/newline.json" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
		sed 's/$/\r/' "$T/newline.json" >"$T/crlf.json"
		run "$SLCTL" offenders --input "$T/crlf.json" --json
		expect_json '[.complete, .unrecognized_by.cut] | @csv' 'false,1'
	done
	# Whole entries, CRLF or not: nothing cut.
	run "$SLCTL" offenders --input "$F/events.json" --json
	expect_json '[.events, .unrecognized_by.cut] | @csv' '7,0'
	sed 's/$/\r/' "$F/events.json" >"$T/crlf.json"
	run "$SLCTL" offenders --input "$T/crlf.json" --json
	expect_json '[.events, .unrecognized_by.cut] | @csv' '7,0'
	# A brace in a message is no entry's.
	sed -n 1p "$F/events.json" | sed 's/"MESSAGE":"[^"]*"/"MESSAGE":"struct { int x; }"/' >"$T/brace.json"
	sed -n 2p "$F/events.json" >>"$T/brace.json"
	run "$SLCTL" offenders --input "$T/brace.json" --json
	expect_json '[.events, .complete] | @csv' '1,true'
}

# -o with more names than columns fit: said so, not "unknown column"
# (rev47 L4).
test_too_many_output_columns_are_said_so() {
	run "$SLCTL" offenders --input "$F/events.kmsg" -o "$(printf 'COMM,%.0s' $(seq 32))COMM"
	expect_rc 2
	expect_err "too many columns in --output (at most 32)"
	run "$SLCTL" offenders --input "$F/events.kmsg" -o "$(printf 'COMM,%.0s' $(seq 31))COMM"
	expect_rc 0
}

run_tests
