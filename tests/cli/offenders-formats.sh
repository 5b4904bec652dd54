#!/usr/bin/env bash
# slctl offenders on every form a saved kernel log takes: the same records
# written by the real tools (tests/fixtures/offenders/formats/generate.sh)
# give one report, and detector text that is not read is never silent.
. "$(dirname "$0")/../lib.sh"

F=$FIXTURES/offenders/formats
export TZ=UTC

# The report minus what only some forms carry (times, the format's name).
report() {
	"$SLCTL" offenders --input "$1" --json "${@:2}" |
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
	EOF
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
		expect_out "1 line with detector text could not be read (the first is line 4), so this report is incomplete."
	done
	# The whole report is complete only when nothing was missed.
	run "$SLCTL" offenders --input "$F/events.kmsg" --json
	expect_json .unrecognized 0
	expect_json .first_unrecognized_line null
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

test_logs_from_a_real_kvm_guest_give_one_report() {
	# Captured on an Emerald Rapids host's KVM guest (see its README): the
	# #DB path warns for every trap, 3 per probe, among 360 boot lines.
	local R=$FIXTURES/offenders/real-emr-kvm-6.18 want f
	want='{"events":9,"suppressed":0,"complete":true,"unrecognized":0,"alignment_checks":0,"offenders":[{"comm":"slctl-probe","pid":455,"kind":"bus_lock","action":"warn","events":3,"ips":["0x5624ad358d14"]},{"comm":"slctl-probe","pid":505,"kind":"bus_lock","action":"warn","events":3,"ips":["0x561e39ec5d14"]},{"comm":"slctl-probe","pid":508,"kind":"bus_lock","action":"warn","events":3,"ips":["0x56310dd6ad14"]}]}'
	for f in "$R"/log.*; do
		[ "$(report "$f")" = "$want" ] || fail "${f##*/}: $(report "$f")"
	done
	# The wall-clock form dates the first event at the time dmesg -T said.
	run "$SLCTL" offenders --input "$R/log.dmesg-T" --json
	expect_json '.offenders[0].first_seen_wall | startswith("2026-12-04T18:04:58")' true
}

run_tests
