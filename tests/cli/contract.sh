# The CLI contract every subcommand keeps: the exit status does not depend on
# --json, JSON keys keep one type, global options anywhere and repeatable,
# bad values are usage errors with one sentence.
source "$(dirname "$0")/../lib.sh"

test_mode_exit_status_is_the_same_with_and_without_json() {
	copy_fixture mode/debian-grub
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash' >"$T/root/etc/default/grub.d/60-broken.cfg"
	run "$SLCTL" --root "$T/root" mode
	expect_rc 1
	expect_out "Next boot: unknown"
	run "$SLCTL" --root "$T/root" --json mode
	expect_rc 1
	expect_json .next_boot null
	rm "$T/root/etc/default/grub.d/60-broken.cfg"
	run "$SLCTL" --root "$T/root" mode
	expect_rc 0
	run "$SLCTL" --root "$T/root" mode --json
	expect_rc 0
}

# The refusal names every backend the build knows, in its order, as one
# sentence: "use auto, A, B (also C), ... or Z." No fixed list: a backend
# added is named in the sentence as in --backend help.
test_unknown_backend_lists_the_library_backends() {
	local known named
	known=$("$SLCTL" mode --backend help)
	[ "$(head -n1 <<<"$known")" = auto ] || fail "--backend help does not start with auto: $known"
	[ "$(grep -c . <<<"$known")" -ge 3 ] || fail "--backend help lists too few: $known"
	[ -z "$(sort <<<"$known" | uniq -d)" ] || fail "--backend help repeats a name: $known"
	copy_fixture mode/debian-grub
	run "$SLCTL" --root "$T/root" mode warn --persist --backend lilo
	expect_rc 2
	[ "$(grep -c 'is not a backend' <<<"$err")" -eq 1 ] || fail "not one sentence: $err"
	expect_err "'lilo' is not a backend; use auto, "
	# The list between "use " and the final ".", one name a line.
	named=$(sed -n "s/^.*'lilo' is not a backend; use \(.*\)\.\$/\1/p" <<<"$err" |
		sed 's/ or /, /; s/ (also \([^)]*\))/, \1/g' | sed 's/, /\n/g')
	[ "$named" = "$known" ] || fail "the refusal names '$(tr '\n' ' ' <<<"$named")', the build knows '$(tr '\n' ' ' <<<"$known")'"
}

test_empty_column_list_is_a_usage_error() {
	local o
	for o in "" "," "COMM,," ",PID"; do
		run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" -o "$o"
		expect_rc 2
		expect_err "column"
	done
}

test_impossible_dates_are_refused() {
	local d
	for d in "2026-02-30" "2026-02-29" "2026-13-01" "2026-04-31 10:00" "2026-01-01 23:59:61" \
		 "2026-01-01 24:00" "2026-01-01 23:60"; do
		run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" --since "$d"
		expect_rc 2
		expect_err "cannot understand --since '$d'"
	done
	for d in "2028-02-29" "2026-01-01 23:59:59" "2026-12-31"; do
		run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" --since "$d"
		expect_rc 0
	done
}

test_until_boot_with_a_saved_log_is_refused_with_a_reason() {
	run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" --until boot
	expect_rc 2
	expect_err "saved log"
}

test_verbose_may_be_repeated_and_stand_anywhere() {
	run "$SLCTL" --root "$FIXTURES/stock-ac" status
	expect_rc 0
	[ -z "$err" ] || fail "quiet run wrote to stderr: $err"
	local form
	for form in "-vv status" "-vvv status" "status -vvv" "-v -v status" "--verbose status -v"; do
		# shellcheck disable=SC2086
		run "$SLCTL" --root "$FIXTURES/stock-ac" $form
		expect_rc 0
		expect_err "backend grub: no"
	done
	run "$SLCTL" --root "$FIXTURES/stock-ac" status -v
	expect_rc 0
	[[ $err != *"backend grub: no"* ]] || fail "one -v gave debug output"
}

test_help_after_the_command_is_the_command_help() {
	local c
	for c in status mitigate mode offenders; do
		run "$SLCTL" "$c" -h
		expect_rc 0
		expect_out "Usage: slctl $c"
		run "$SLCTL" "$c" --help
		expect_rc 0
		expect_out "Usage: slctl $c"
		run "$SLCTL" --help "$c"
		expect_rc 0
		expect_out "Usage: slctl $c"
	done
}

# A short option means one thing in every subcommand: -n is --noheadings
# (slctl offenders), as in util-linux; --dry-run has no short form (it was
# -n in mitigate and mode until 1.0).
test_n_is_noheadings_only() {
	copy_fixture stock-ac
	local before
	before=$(tree_hash "$T/root")
	run "$SLCTL" --root "$T/root" mitigate off -n
	expect_rc 2
	expect_err "slctl mitigate --help"
	cp -a "$FIXTURES/mode/debian-grub/." "$T/root/"
	before=$(tree_hash "$T/root")
	run "$SLCTL" --root "$T/root" mode fatal --persist -n
	expect_rc 2
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "a refused -n changed the root"
	run "$SLCTL" --root "$T/root" mode fatal --persist --dry-run
	expect_rc 0
	run "$SLCTL" offenders --input "$FIXTURES/offenders/log.dmesg" -n
	expect_rc 0
	[[ $out != *COMM* ]] || fail "-n printed headings: $out"
	# The help texts and the completions agree.
	run "$SLCTL" mitigate --help
	[[ $out != *"-n, --dry-run"* ]] || fail "mitigate --help still offers -n"
	run "$SLCTL" mode --help
	[[ $out != *"-n, --dry-run"* ]] || fail "mode --help still offers -n"
	! grep -q -- '-s n -l dry-run' "$TOP/completions/slctl.fish" || fail "fish completes -n for --dry-run"
	! grep -q -- '{-n,--dry-run}' "$TOP/completions/_slctl" || fail "zsh completes -n for --dry-run"
}

# No undocumented aliases: "slctl mitigate 0" changed the live sysctl.
test_mitigate_takes_on_or_off_only() {
	copy_fixture stock-ac
	local before v
	before=$(tree_hash "$T/root")
	for v in 0 1 true false yes no ON; do
		run "$SLCTL" --root "$T/root" mitigate "$v"
		expect_rc 2
		expect_err "'$v' is not 'on' or 'off'."
	done
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "a refused value changed the root"
	[ "$(cat "$T/root/proc/sys/kernel/split_lock_mitigate")" = 1 ] || fail "the sysctl changed"
}

# Every JSON document slctl prints carries its schema's "version" first.
test_every_json_document_has_a_version() {
	copy_fixture stock-ac
	cp -a "$FIXTURES/mode/debian-grub/." "$T/root/"
	local args
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		run "$SLCTL" --root "$T/root" --json $args
		[ "$rc" -eq 0 ] || fail "slctl --json $args: exit status $rc ($err)"
		expect_json '.version' 1
		expect_json 'keys_unsorted[0]' version
	done <<-EOF
	status
	mitigate
	mitigate off --dry-run
	mitigate off --persist --dry-run
	mode
	mode fatal --persist --dry-run
	offenders --input $FIXTURES/offenders/log.dmesg
	EOF
	copy_fixture patched-runctl
	run "$SLCTL" --root "$T/root" --json mode off --now --dry-run
	expect_rc 0
	expect_json '.version' 1
}

run_tests
