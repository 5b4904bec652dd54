#!/usr/bin/env bash
# Output that holds up: whatever a process put in its name reaches the
# terminal the same way through every output, and no two series or groups
# that are different things come out as one.
. "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

P="x86/split lock detection: "

# Names as the kernel's log escapes them (\xNN); the record decoder turns
# them back into the bytes the process chose.
HOSTILE=(
	'csi\x1b[31mred'            # colour escape
	'osc\x1b]0;pwned\x07'       # sets the terminal's title
	'bad\xff\xfeutf8'           # not UTF-8
	'e\xc3\xa9'                 # UTF-8, escaped as in the table (C locale)
	'fake\x5cx1besc'            # a literal "\x1b" typed by the process
	'back\x5cslash'             # a backslash before no "x"
	'cr\x0dline\x7fdel'         # carriage return, DEL
)

hostile_root() {
	local i=0 c
	mkdir -p "$T/root/dev" "$T/root/proc"
	for c in "${HOSTILE[@]}"; do
		printf '4,%d,%d,-;%s#AC: %s/%d took a split_lock trap at address: 0x1\n' \
			$i $((5000000 + i)) "$P" "$c" $((100 + i))
		i=$((i + 1))
	done >"$T/root/dev/kmsg"
}

test_follow_escapes_names_exactly_as_the_table() {
	hostile_root
	# PID and COMM of each task, as the table prints them.
	run "$SLCTL" --root "$T/root" offenders -o PID,COMM -n
	expect_rc 0
	grep -E '^ *10[0-9] ' <<<"$out" | sed -E 's/^ *([0-9]+) (.*[^ ]) *$/\1 \2/' | sort >"$T/table"
	[ "$(wc -l <"$T/table")" -eq ${#HOSTILE[@]} ] || fail "table: $out"
	run timeout -s INT 3 "$SLCTL" --root "$T/root" offenders --follow --since boot
	expect_rc 124
	sed -E 's/^\[[^]]*\] (.*)\/([0-9]+) split_lock warn at .*/\2 \1/' <<<"$out" | sort >"$T/follow"
	diff "$T/table" "$T/follow" >&2 || fail "--follow names differ from the table's"
	# Nothing a terminal would act on, and the two look-alikes stay apart.
	! LC_ALL=C grep -q '[^ -~]' "$T/follow" || fail "raw control or non-ASCII bytes: $(cat -v "$T/follow")"
	grep -qxF '104 fake\x5cx1besc' "$T/follow" || fail "typed \\x1b: $(cat "$T/follow")"
	grep -qxF '100 csi\x1b[31mred' "$T/follow" || fail "escape byte: $(cat "$T/follow")"
	grep -qxF '105 back\slash' "$T/follow" || fail "backslash: $(cat "$T/follow")"
}

test_prometheus_never_prints_two_identical_series() {
	# Each pair escaped to one label before: a byte and the same text typed
	# by the process, a newline and a typed "\n", a quote and its escape.
	local c i=0
	for c in 'p\xff' 'p\x5cxff' 'n\x0a' 'n\x5cn' 'q"' 'q\x5c"' 'z\x00' 'z?'; do
		printf '4,%d,%d,-;%s#AC: %s/%d took a split_lock trap at address: 0x1\n' \
			$i $((5000000 + i)) "$P" "$c" $((100 + i))
		i=$((i + 1))
	done >"$T/log"
	# A second event of the same name (another task) joins its series.
	printf '4,9,6000000,-;%s#AC: %s/200 took a split_lock trap at address: 0x1\n' "$P" 'p\xff' >>"$T/log"
	run "$SLCTL" offenders --input "$T/log" --format prometheus
	expect_rc 0
	grep '^splitlock_events_total{' <<<"$out" >"$T/series"
	[ "$(wc -l <"$T/series")" -eq 8 ] || fail "expected 8 series: $(cat "$T/series")"
	[ -z "$(sed 's/}.*//' "$T/series" | sort | uniq -d)" ] || fail "duplicate series: $(cat "$T/series")"
	grep -qxF 'splitlock_events_total{comm="p\\xff",kind="split_lock"} 2' "$T/series" ||
		fail "the byte: $(cat "$T/series")"
	grep -qxF 'splitlock_events_total{comm="p\\x5cxff",kind="split_lock"} 1' "$T/series" ||
		fail "the typed text: $(cat "$T/series")"
	grep -qxF 'splitlock_events_total{comm="q\"",kind="split_lock"} 1' "$T/series" ||
		fail "the quote: $(cat "$T/series")"
	! LC_ALL=C grep -q '[^ -~]' "$T/series" || fail "raw bytes in a label: $(cat -v "$T/series")"
}

# A NUL in a name is \x00 in the table, as every byte that is not
# printable is, and as JSON and Prometheus show it: it was '?', which a
# task really named "b?x" prints too (third new-user review of issue 26, M5).
test_table_writes_a_nul_in_a_name_as_x00() {
	local form
	printf '4,1,2000000,-;%s#AC: %s/2 took a split_lock trap at address: 0x11\n4,2,2000001,-;%s#AC: %s/3 took a split_lock trap at address: 0x12\n' \
		"$P" 'b\x00x' "$P" 'b?x' >"$T/log"
	for form in "" -r -n --full; do
		run "$SLCTL" offenders --input "$T/log" -o PID,COMM $form
		expect_rc 0
		grep -Eq '^ *2 b\\x00x$' <<<"$out" || fail "${form:-table}: $out"
		grep -Eq '^ *3 b\?x$' <<<"$out" || fail "${form:-table}: $out"
	done
	# Streamed (more rows than one table chunk) and on a terminal.
	for ((i = 10; i < 4200; i++)); do
		printf '4,%d,3000000,-;%s#AC: t/%d took a split_lock trap at address: 0x1\n' $i "$P" $i
	done >>"$T/log"
	run "$SLCTL" offenders --input "$T/log" -o PID,COMM
	grep -Eq '^ +2 b\\x00x$' <<<"$out" || fail "streamed: $(head -3 <<<"$out")"
	if command -v script >/dev/null; then
		out=$(script -qec "stty cols 80; '$SLCTL' offenders --input '$T/log' -o PID,COMM" /dev/null | tr -d '\r')
		grep -Eq '^ +2 b\\x00x$' <<<"$out" || fail "terminal: $(head -3 <<<"$out")"
	fi
}

test_group_by_unit_and_exe_never_wear_one_tasks_labels() {
	# Once-per-task warnings of three tasks, two of them named alike.
	{
		printf '4,1,5000000,-;%s#AC: game/100 took a split_lock trap at address: 0x1\n' "$P"
		printf '4,2,5000001,-;%s#AC: game/101 took a split_lock trap at address: 0x2\n' "$P"
		printf '4,3,5000002,-;%s#AC: tool/102 took a split_lock trap at address: 0x3\n' "$P"
	} >"$T/log"
	# A saved log names no unit and no executable: tasks are grouped by
	# name for both, each name's group without one pid. -g unit made one
	# anonymous "- -" group of every task (third new-user review of
	# issue 26, M4), and the table says why its rows are names.
	local key
	for key in unit exe; do
		run "$SLCTL" offenders --input "$T/log" --group-by $key --json
		expect_rc 0
		expect_json '[.offenders[] | [.comm, .pid, .events, .unit, .exe]] | @json' \
			'[["game",null,2,null,null],["tool",102,1,null,null]]'
		run "$SLCTL" offenders --input "$T/log" --group-by $key -o COMM,PID,EVENTS
		grep -Eq '^game +- +2$' <<<"$out" || fail "-g $key merged row: $out"
		grep -Eq '^tool +102 +1$' <<<"$out" || fail "-g $key single row: $out"
	done
	expect_out "A saved log names no executable: tasks are grouped by name."
	run "$SLCTL" offenders --input "$T/log" --group-by unit
	expect_out "A saved log names no unit: tasks are grouped by name."
	run "$SLCTL" offenders --input "$T/log" --group-by comm -o COMM,PID,EVENTS
	grep -Eq '^game +- +2$' <<<"$out" || fail "merged row: $out"
	grep -Eq '^tool +102 +1$' <<<"$out" || fail "single row: $out"
	! grep -q 'grouped by name' <<<"$out" || fail "-g comm needs no note: $out"
}

test_huge_table_lines_up_as_one_table() {
	# More tasks than one table chunk, the longest name last: every row's
	# columns stay where the header puts them.
	local i
	for ((i = 0; i < 9000; i++)); do
		printf '4,%d,%d,-;%s#AC: %s/%d took a split_lock trap at address: 0x%x\n' \
			$i $((1000000 + i)) "$P" "${HOSTILE[i % ${#HOSTILE[@]}]}" $((100 + i)) $i
	done >"$T/log"
	printf '4,9000,2000000,-;%s#AC: %s/99999 took a split_lock trap at address: 0x1\n' \
		"$P" 'a-much-longer\x1bname' >>"$T/log"
	run "$SLCTL" offenders --input "$T/log" -o COMM,PID,EVENTS
	expect_rc 0
	grep -q '^COMM ' <<<"$out" || fail "no header: $(head -2 <<<"$out")"
	[ "$(grep -c '^COMM ' <<<"$out")" -eq 1 ] || fail "the header is repeated"
	# The end of the PID column: the header's, on every one of 9001 rows.
	awk -v want=9001 'NR == 1 { end = index($0, "PID") + 2; next }
		/^$/ { exit } { n++; if (substr($0, end, 1) !~ /[0-9]/ || substr($0, end + 1, 1) != " ") bad++ }
		END { if (n != want || bad) { print n " rows, " bad " misaligned"; exit 1 } }' <<<"$out" ||
		fail "rows do not line up"
	grep -qF 'a-much-longer\x1bname' <<<"$out" || fail "the long name"
}

lines_at_least() { [ "$(wc -l <"$1")" -ge "$2" ]; }

test_follow_memory_is_bounded_and_says_what_it_forgot() {
	# 70 000 tasks warn once each, then the first and the last again: the
	# follower keeps 65 536 offenders, so the first was forgotten (its
	# count starts again) and the last was not.
	local pid
	mkdir -p "$T/root/dev" "$T/root/proc"
	awk -v p="$P" 'BEGIN {
		for (i = 0; i < 70000; i++)
			printf "4,%d,%d,-;%s#AC: t%d/%d took a split_lock trap at address: 0x1\n", i, 1000000 + i, p, i, 100 + i
		printf "4,70000,3000000,-;%s#AC: t0/100 took a split_lock trap at address: 0x1\n", p
		printf "4,70001,3000001,-;%s#AC: t69999/70099 took a split_lock trap at address: 0x1\n", p
	}' >"$T/root/dev/kmsg"
	("$SLCTL" --root "$T/root" offenders --follow --since boot --format json >"$T/out" 2>"$T/err" &
	 pid=$!
	 for ((i = 0; i < 1200; i++)); do lines_at_least "$T/out" 70002 && break; sleep 0.1; done
	 kill -INT $pid; wait $pid)
	[ "$(wc -l <"$T/out")" -eq 70002 ] || fail "expected 70002 events, got $(wc -l <"$T/out")"
	grep -q 'following more than 65536 offenders: forgot the 32768 seen first (32768 events' "$T/err" ||
		fail "no word of what was forgotten: $(cat "$T/err")"
	[ "$(tail -2 "$T/out" | jq -r '"\(.comm) \(.events)"' | tr '\n' ' ')" = "t0 1 t69999 2 " ] ||
		fail "counts after forgetting: $(tail -2 "$T/out")"
}

F=$FIXTURES/offenders/formats

# Every line of @out at most COLS columns wide ("…" is one), none ending
# in a space.
lines_fit() { # COLS LABEL
	local line
	while IFS= read -r line; do
		line=${line//$'\xe2\x80\xa6'/.}
		[ ${#line} -le "$1" ] || fail "$2: ${#line} columns at $1: $line"
		[[ $line == *' ' ]] && fail "$2: a trailing space: '$line'"
	done <<<"$out"
}

# On a terminal the table is cut to fit, as lsblk and systemctl do; a pipe
# or a file gets every byte, and --full keeps them on a terminal too.
test_table_fits_the_terminal() {
	local cols
	for cols in 80 120; do
		out=$(script -qec "stty cols $cols; '$SLCTL' offenders --input '$F/events.kmsg'" /dev/null | tr -d '\r')
		grep -q '^COMM' <<<"$out" || fail "no table at $cols columns: $out"
		# The table and the sentences after it.
		lines_fit "$cols" events.kmsg
	done
	out=$(script -qec "stty cols 80; '$SLCTL' offenders --input '$F/events.kmsg' --full" /dev/null | tr -d '\r')
	grep -q 'CJobMgr::m_Work .*0x140aa2cf3' <<<"$out" || fail "--full cut: $out"
	run "$SLCTL" offenders --input "$F/events.kmsg"
	grep -q 'CJobMgr::m_Work .*0x140aa2cf3' <<<"$out" || fail "a pipe got a cut table: $out"
}

# A cell cut to fit the terminal ends in a marker ("…" where the locale is
# UTF-8, "..." elsewhere), and an address is never shown cut: "0xffffffff810"
# passed for another address, and "0xffffff…" still gave a part of one where
# slctl(8) promises whole addresses. A list keeps its whole addresses and
# marks the rest; one that does not fit at all is the marker alone.
ips_words_are_whole() { # LABEL MARKER WHOLE-ADDRESSES LINE...
	local label=$1 marker=$2 whole=$3 line word
	shift 3
	for line; do
		for word in $line; do
			grep -qxF -- "$word" <<<"$whole" && continue
			[ "$word" = "$marker" ] || fail "$label: '$word' is no whole address: $line"
			cut=$((cut + 1))
		done
	done
}

test_cut_cells_are_marked_and_never_pass_for_whole_ones() {
	local R=$FIXTURES/offenders/root loc marker cols line whole cut head
	# Every address of the report, uncut (a pipe).
	whole=$("$SLCTL" --root "$R" offenders -o IPS -n 2>/dev/null | tr ' ' '\n' | grep .)
	grep -qxF 0xffffffff81000000 <<<"$whole" || fail "addresses: $whole"
	for loc in C.UTF-8 C; do
		marker=...
		[ $loc = C ] || marker=$'\xe2\x80\xa6'
		cut=0
		for cols in 30 40 60; do
			out=$(LC_ALL=$loc script -qec "stty cols $cols; '$SLCTL' --root '$R' offenders -o COMM,PID,IPS" /dev/null | tr -d '\r')
			# Where not even one address fits, the column is left out
			# and the note says so.
			if ! grep -q '^COMM .* IPS$' <<<"$out"; then
				[[ $(tr '\n' ' ' <<<"$out") == *"To fit $cols columns: IPS left out"* ]] ||
					fail "$loc, $cols columns: IPS gone unsaid: $out"
				continue
			fi
			while IFS= read -r line; do
				[ -n "$line" ] || break
				[[ $line == COMM* ]] && continue
				# The IPS cell: whole addresses, then the marker alone.
				ips_words_are_whole "$loc, $cols columns" "$marker" "$whole" \
					"$(sed -E 's/^.* +[0-9]+ //' <<<"$line")"
			done <<<"$out"
		done
		[ $cut -gt 0 ] || fail "$loc: nothing was cut"
		# Every column at 120 and 80 columns (the review's "0xffffff…"),
		# IPS first so that its cell is the line's start.
		for cols in 120 80; do
			out=$(LC_ALL=$loc script -qec "stty cols $cols; '$SLCTL' --root '$R' offenders -o IPS,COMM,PID,KIND,ACTION,EVENTS,FIRST,LAST,EXE,CMDLINE,UNIT" /dev/null | tr -d '\r')
			head=$(head -1 <<<"$out")
			[[ $head == IPS* ]] || fail "$loc, $cols columns: no table: $out"
			head=${head%%COMM*}
			while IFS= read -r line; do
				[ -n "$line" ] || break
				[[ $line == IPS* ]] && continue
				# Characters, not bytes: "…" is three.
				ips_words_are_whole "$loc, $cols columns" "$marker" "$whole" \
					"$(LC_ALL=C.UTF-8 bash -c 'printf %s "${1:0:$2}"' - "$line" ${#head})"
			done <<<"$out"
		done
		# The name column is marked too: this one is 17 columns escaped.
		out=$(LC_ALL=$loc script -qec "stty cols 80; '$SLCTL' --root '$R' offenders" /dev/null | tr -d '\r')
		grep -qF "w\x5cx\x0ay " <<<"$out" || fail "$loc: the name: $out"
		grep -q "^w.*$marker  *7100 " <<<"$out" || fail "$loc: the name: $out"
	done
	# A list keeps the addresses that fit whole.
	out=$(LC_ALL=C.UTF-8 script -qec "stty cols 40; '$SLCTL' --root '$R' offenders -o COMM,PID,IPS" /dev/null | tr -d '\r')
	grep -qF $'GoW.exe+0x3d2d1 \xe2\x80\xa6' <<<"$out" || fail "the list of two: $out"
	# A pipe gets every byte, unmarked.
	run "$SLCTL" --root "$R" offenders -o COMM,PID,IPS
	grep -qF "GoW.exe+0x3d2d1 GoW.exe+0xaa2cf3" <<<"$out" || fail "a pipe got a cut table: $out"
}

# At 80 columns the names and addresses stay whole: the times get shorter
# and the columns that matter least go first. "CPU 0/KVM" and "CPU 1/KVM"
# were both "CPU…", every address "0x…", two dates took 34 columns and
# the summary wrapped at 87.
test_table_at_80_columns_keeps_names_and_addresses() {
	local R=$FIXTURES/offenders/root loc cols name
	for loc in C.UTF-8 C; do
		out=$(LC_ALL=$loc script -qec "stty cols 80; '$SLCTL' --root '$R' offenders" /dev/null | tr -d '\r')
		lines_fit 80 "$loc, the default columns"
		for name in 'CPU 0/KVM ' 'CPU 1/KVM ' 'stress-ng ' 'GoW.exe ' ' 0xffffffff81000000' \
			' GoW.exe+0x3d2d1 ' ' libfoo.so+0x1234' ' libgame.so+0x11000'; do
			grep -qF -- "$name" <<<"$out" || fail "$loc: '$name' is not whole: $out"
		done
		grep -qE '^COMM +PID KIND +ACTION EVENTS LAST +IPS$' <<<"$out" || fail "$loc: columns: $out"
		# A time without its year still has its seconds here.
		grep -qE ' 12-01 00:00:05 ' <<<"$out" || fail "$loc: the time: $out"
		# What was left out and what a cut looks like, within the width.
		[[ $(tr '\n' ' ' <<<"$out") == *'To fit 80 columns: FIRST, EXE and UNIT left out; times shortened;'*'--full shows everything.'* ]] ||
			fail "$loc: no word of what was left out: $out"
		# Every column asked for: still within the terminal.
		for cols in 80 120; do
			out=$(LC_ALL=$loc script -qec "stty cols $cols; '$SLCTL' --root '$R' offenders -o COMM,PID,TGID,KIND,ACTION,EVENTS,FIRST,LAST,IPS,EXE,CMDLINE,UNIT" /dev/null | tr -d '\r')
			lines_fit "$cols" "$loc, every column"
			grep -qF 'CPU 0/KVM ' <<<"$out" || fail "$loc, $cols columns: the name: $out"
		done
	done
	# A pipe: every column, every byte, and rows without trailing spaces.
	run "$SLCTL" --root "$R" offenders
	grep -qE '^COMM +PID .* FIRST +LAST +IPS +EXE +UNIT$' <<<"$out" || fail "a pipe: $out"
	grep -q ' $' <<<"$out" && fail "a pipe's rows end in spaces: $(cat -A <<<"$out")"
	true
}

# -n and -r are for scripts: rows on stdout, the summary on stderr.
test_noheadings_and_raw_print_rows_only() {
	local opt lines
	# -r keeps its heading line, as lsblk -r does.
	for opt in -n -r; do
		run "$SLCTL" offenders --input "$F/events.kmsg" "$opt"
		expect_rc 0
		lines=6
		[ "$opt" = -r ] && lines=7
		[ "$(wc -l <<<"$out")" -eq $lines ] || fail "$opt: $out"
		grep -q 'event' <<<"$out" && fail "$opt: summary on stdout: $out"
		expect_err "7 events; 17 more suppressed"
	done
	run "$SLCTL" offenders --input "$F/events.kmsg"
	expect_out "7 events; 17 more suppressed"
}

test_json_has_a_version_and_honours_output() {
	run "$SLCTL" offenders --input "$F/events.kmsg" --json
	expect_json .version 1
	run "$SLCTL" offenders --input "$F/events.kmsg" --json -o COMM,PID
	expect_rc 0
	expect_json '[.offenders[] | keys | join(",")] | unique | join(";")' comm,pid
	run "$SLCTL" offenders --input "$F/events.kmsg" -o first,ips --format json
	expect_json '.offenders[0] | keys | join(",")' first_seen,first_seen_wall,ips
}

test_conflicting_output_options_are_usage_errors() {
	local args
	while IFS= read -r args; do
		eval "run \"\$SLCTL\" offenders --input \"\$F/events.kmsg\" $args"
		expect_rc 2
	done <<-'EOF'
	--json -F table
	-F prometheus --json
	-F json -F table
	--json -n
	-F prometheus -r
	--json --full
	-F prometheus -o COMM
	EOF
	run "$SLCTL" --json offenders --input "$F/events.kmsg" -F json
	expect_rc 0
}

# lsblk's and findmnt's "-o +COLS" adds columns to the defaults; lsblk's
# --json=pretty is told that --json takes no argument (rev45 L3).
test_output_plus_adds_to_the_default_columns() {
	run "$SLCTL" offenders --input "$F/events.kmsg" -o +EXE,comm
	expect_rc 0
	[ "$(head -n 1 <<<"$out" | tr -s ' ')" = "COMM PID KIND ACTION EVENTS FIRST LAST IPS EXE" ] ||
		fail "header: $(head -n 1 <<<"$out")"
	run "$SLCTL" offenders --input "$F/events.kmsg" -o +EXE --json
	expect_json '.offenders[0] | has("first_seen") and has("exe")' true
	run "$SLCTL" offenders --input "$F/events.kmsg" -o +BOGUS
	expect_rc 2
	expect_err "unknown column 'BOGUS'"
	run "$SLCTL" offenders --input "$F/events.kmsg" -o +
	expect_rc 2
	run "$SLCTL" offenders --help
	expect_out "+COLS adds them to the default ones"
	run "$SLCTL" offenders --input "$F/events.kmsg" --json=pretty
	expect_rc 2
	[ "$(head -n 1 <<<"$err")" = "slctl: option '--json' takes no argument." ] || fail "stderr: $err"
}

# The forms journalctl's --since takes.
test_since_takes_journalctl_forms() {
	local t
	for t in today yesterday tomorrow now -1h '1h ago' '1h 30min ago' '2 days ago' \
		+5m -30min '12:00' '12:00:30' @0 boot '2026-12-01 00:00'; do
		run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 0
	done
	for t in 'tomorow' '1x ago' 'ago' '-' '25:00' '1h agoo'; do
		run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 2
	done
	# The journal's events are at 2026-12-01 00:00:05..14 UTC.
	TZ=UTC run "$SLCTL" offenders --input "$F/events.json" --since '2026-12-01 00:00:09' --json
	expect_json '[.offenders[].pid] | sort | @csv' '7000,7200'
}

# What journalctl 252 takes for an absolute time and slctl refused (exit
# 2): a fraction of a second, a weekday before the date, a zone after it
# (what another machine's journalctl or date prints). The journal's events
# are at 2026-12-01 00:00:05, 05.118315, 05.2, 07, 08, 09 and 10 UTC;
# 2026-12-01 is a Tuesday. Berlin is an hour ahead: a zone that is left out
# shows.
test_since_takes_journalctls_absolute_forms() {
	local t
	# The zones below are the tz database's (tzdata); without it every
	# name is refused, as journalctl refuses it.
	[ -e /usr/share/zoneinfo/Europe/Berlin ] || skip "no tz database (tzdata) here"
	while IFS='|' read -r t want; do
		TZ=Europe/Berlin run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 0
		expect_json '[.offenders[].pid] | sort | @csv' "$want"
	done <<-'EOF'
	2026-12-01 01:00:05.15|4250,5001,6000,7000,7200
	2026-12-01 01:00:08.5 CET|7000,7200
	Tue 2026-12-01 01:00:09|7000,7200
	tue 2026-12-01 01:00:09.000001|7200
	2026-12-01 00:00:09 UTC|7000,7200
	Tue 2026-12-01 00:00:09.5 UTC|7200
	2026-12-01T00:00:09Z|7000,7200
	2026-12-01T01:00:09+01:00|7000,7200
	2026-12-01 00:00:09 +00:00|7000,7200
	2026-11-30 23:00:09 -0100|7000,7200
	26-12-01 01:00:09|7000,7200
	Dec 01 00:00:09 UTC|7000,7200
	EOF
	# A zone of the tz database, as journalctl takes it.
	while IFS='|' read -r t want; do
		TZ=UTC run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 0
		expect_json '[.offenders[].pid] | sort | @csv' "$want"
	done <<-'EOF'
	2026-12-01 01:00:09 Europe/Berlin|7000,7200
	Tue 2026-12-01 01:00:09.5 Europe/Berlin|7200
	2026-11-30 19:00:09 America/New_York|7000,7200
	EOF
	TZ=UTC run "$SLCTL" offenders --input "$F/events.json" --since '2026-12-01 00:00:06' \
		--until '2026-12-01 00:00:08.5 UTC' --json
	expect_json '[.offenders[].pid] | sort | @csv' '5001,6000'
	# A wrong weekday, a zone that is none, a broken fraction:
	# one sentence that says what is taken.
	for t in 'Mon 2026-12-01 00:00' '2026-12-01 00:00 Mars/Olympus' '2026-12-01 00:00:05.' \
		'2026-12-01 00:00 +25:00' '2026-12-01 00:00 ../../../etc/passwd' 'Mon 2026-12-01 Europe/Berlin'; do
		run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 2
		expect_err "cannot understand --since '$t': give a time as journalctl takes it"
		[ "$(wc -l <<<"$err")" -le 2 ] || fail "more than a sentence and the hint: $err"
	done
}

# An offset welded to a T time as +HH or +HHMM (what date +%FT%T%z
# prints) was refused, though slctl(8) lists them; only +HH:MM and Z were
# taken (fourth new-user review of issue 26, M2).
test_since_takes_offsets_welded_to_a_t_time() {
	local t
	while IFS='|' read -r t want; do
		TZ=UTC run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 0
		expect_json '[.offenders[].pid] | sort | @csv' "$want"
	done <<-'EOF'
	2026-12-01T01:00:09+01|7000,7200
	2026-12-01T01:00:09+0100|7000,7200
	2026-12-01T01:00:09+01:00|7000,7200
	2026-11-30T23:00:09-01|7000,7200
	2026-11-30T18:30:09-0530|7000,7200
	2026-12-01T01:00:09.5+0100|7200
	2026-12-01T01:00+01|4242,4250,5001,6000,7000,7200
	2026-12-01T00:00:09Z|7000,7200
	EOF
	# A date alone still is one: its "-01" is the day, no offset.
	TZ=UTC run "$SLCTL" offenders --input "$F/events.json" --since 2026-12-01 --json
	expect_rc 0
	for t in '2026-12-01T00:00:09+1' '2026-12-01T00:00:09+010' '2026-12-01T00:00:09+2500'; do
		run "$SLCTL" offenders --input "$F/events.json" --since "$t" --json
		expect_rc 2
	done
}

run_tests
