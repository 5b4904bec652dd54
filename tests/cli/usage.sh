# Command-line contract: usage errors exit 2, help and version exit 0.
source "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

test_no_command_is_a_usage_error() {
	run "$SLCTL"
	expect_rc 2
	expect_err "Usage: slctl"
}

test_unknown_command_and_option() {
	run "$SLCTL" frobnicate
	expect_rc 2
	expect_err "unknown command 'frobnicate'"
	run "$SLCTL" --frobnicate status
	expect_rc 2
	run "$SLCTL" --root "$FIXTURES/stock-ac" status --frobnicate
	expect_rc 2
	expect_err "slctl status --help"
}

# An option error is one sentence, then the hint, as a global option's:
# getopt's own line and a second "bad option." are gone.
test_option_errors_are_one_sentence_like_the_global_ones() {
	local cmd args want
	run "$SLCTL" --frobnicate
	expect_rc 2
	[ "$err" = "slctl: unknown option '--frobnicate'.
Try 'slctl --help' for more information." ] || fail "global: $err"
	while IFS='|' read -r cmd args want; do
		# shellcheck disable=SC2086
		run "$SLCTL" --root "$FIXTURES/stock-ac" $cmd $args
		expect_rc 2
		[ "$err" = "slctl: $want
Try 'slctl $cmd --help' for more information." ] || fail "$cmd $args: $err"
	done <<-'EOF'
	status|--frobnicate|unknown option '--frobnicate'.
	status|-x|unknown option '-x'.
	mitigate|--persist=yes|option '--persist' takes no argument.
	mode|--backend|option '--backend' needs an argument.
	mode|-b|option '-b' needs an argument.
	offenders|--bogus|unknown option '--bogus'.
	offenders|-nz|unknown option '-z'.
	offenders|--top|option '--top' needs an argument.
	offenders|-t|option '-t' needs an argument.
	offenders|--in x|option '--in' is ambiguous.
	offenders|--follow=yes|option '--follow' takes no argument.
	probe|--frobnicate|unknown option '--frobnicate'.
	run|--frobnicate -- true|unknown option '--frobnicate'.
	EOF
}

test_bad_mitigate_arguments() {
	copy_fixture stock-ac
	local before arg
	before=$(tree_hash "$T/root")
	for arg in maybe ON 2 -1 ""; do
		run "$SLCTL" --root "$T/root" mitigate "$arg"
		expect_rc 2
	done
	run "$SLCTL" --root "$T/root" mitigate --persist
	expect_rc 2
	expect_err "need 'on' or 'off'"
	run "$SLCTL" --root "$T/root" mitigate on off
	expect_rc 2
	[ "$(tree_hash "$T/root")" = "$before" ] || fail "a usage error changed the tree"
}

test_status_takes_no_arguments() {
	run "$SLCTL" --root "$FIXTURES/stock-ac" status now
	expect_rc 2
	expect_err "unexpected argument 'now'"
}

test_root_must_exist() {
	run "$SLCTL" --root "$T/nonexistent" status
	expect_rc 2
	expect_err "cannot use root directory"
	run "$SLCTL" status --root
	expect_rc 2
}

test_help_everywhere() {
	local cmd
	run "$SLCTL" --help
	expect_rc 0
	expect_out "Commands:"
	for cmd in status mitigate; do
		run "$SLCTL" "$cmd" --help
		expect_rc 0
		expect_out "Usage: slctl $cmd"
		run "$SLCTL" --help "$cmd"
		expect_rc 0
		expect_out "Usage: slctl $cmd"
	done
}

# Every help fits an 80-column terminal, as util-linux's do.
test_help_lines_fit_80_columns() {
	local cmd
	for cmd in "" status mitigate mode run offenders probe; do
		# shellcheck disable=SC2086
		run "$SLCTL" $cmd --help
		expect_rc 0
		awk 'length > 80 { print length ": " $0; bad = 1 } END { exit bad }' <<<"$out" >"$T/long" ||
			fail "slctl $cmd --help: $(cat "$T/long")"
	done
}

test_version() {
	run "$SLCTL" --version
	expect_rc 0
	expect_out "slctl "
}

# Output that never reached its file is a failure, however slctl exits:
# the help and --version paths exit() early, the lists print and exit,
# a report returns from main (util-linux's close_stdout()).
test_output_that_cannot_be_written_fails() {
	local args
	for args in "--help" "--version" "offenders --help" "offenders --input-format help" \
		    "mode --backend help" "--root $FIXTURES/stock-ac --json status"; do
		# shellcheck disable=SC2086 # the words are the arguments
		"$SLCTL" $args >/dev/full 2>"$T/err"
		rc=$?
		[ "$rc" = 1 ] || fail "slctl $args >/dev/full: exit $rc, expected 1"
		grep -qx "slctl: cannot write output: No space left on device." "$T/err" ||
			fail "slctl $args >/dev/full said: $(cat "$T/err")"
		[ "$(wc -l <"$T/err")" = 1 ] || fail "slctl $args >/dev/full: more than one line: $(cat "$T/err")"
	done
}

test_json_is_one_document_and_messages_go_to_stderr() {
	copy_fixture old-5.10
	run "$SLCTL" --root "$T/root" --json mitigate off
	expect_rc 4
	[ -z "$out" ] || fail "stdout not empty on error: $out"
	run "$SLCTL" --root "$FIXTURES/stock-ac" --json status
	[ "$(jq -s length <<<"$out")" = 1 ] || fail "not exactly one JSON document"
}

test_real_system_status_answers() {
	# Read-only on the real machine: status must work wherever it runs.
	run "$SLCTL" --json status
	expect_rc 0
	jq -e '.cpu and .kernel.release and .mode.current' <<<"$out" >/dev/null || fail "incomplete: $out"
}

# "--input-format help" and "--backend help" list what the library knows,
# one a line (the completions ask them); slctl(8) names each of them, so a
# form or backend added to the library without its words there fails here.
test_value_lists_come_from_the_library_and_the_man_page_names_them() {
	local man=$TOP/man/slctl.8.scd listed name
	run "$SLCTL" offenders --input-format help
	expect_rc 0
	[ "$(wc -l <<<"$out")" -ge 10 ] || fail "too few forms: $out"
	listed=$(grep -m1 '^\*--input-format\*' "$man") || fail "no --input-format in slctl(8)"
	for name in $out; do
		grep -q -- "\*$name\*" <<<"$listed" || fail "slctl(8) does not list the form $name"
	done
	[ "$(grep -o '\*[a-z-]*\*' <<<"$listed" | sort -u | wc -l)" -eq "$(($(wc -l <<<"$out") + 1))" ] ||
		fail "slctl(8) lists forms the build does not know: $listed"
	run "$SLCTL" mode --backend help
	expect_rc 0
	listed=$(sed -n '/^\*-b, --backend\* _NAME_/,/^$/p' "$man")
	[ -n "$listed" ] || fail "no --backend in slctl(8)"
	for name in $out; do
		grep -q -- "\*$name\*" <<<"$listed" || fail "slctl(8) does not list the backend $name"
	done
}

run_tests
