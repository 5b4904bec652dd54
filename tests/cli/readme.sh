# The README's examples that it says run on a fixture root name that root
# (--root), so that a reader can run them from the source tree, and print
# what the README shows ("..." stands for lines it leaves out).
source "$(dirname "$0")/../lib.sh"

README=$TOP/README.md

# Each example on a fixture root: "ROOT<TAB>COMMAND LINE", the command
# being the first of the code block after the paragraph that names
# "`tests/fixtures/ROOT` root".
fixture_examples() {
	awk '
	/`tests\/fixtures\/[^`]*` root/ { match($0, /`tests\/fixtures\/[^`]*`/)
		root = substr($0, RSTART + 1, RLENGTH - 2); next }
	/^```/ { inblock = !inblock; next }
	inblock && root != "" && /^\$ / { print root "\t" substr($0, 3); root = "" }
	' "$README"
}

# The lines of the block that follow COMMAND LINE, up to the next command.
shown_output() {
	awk -v cmd="$ $1" '
	/^```/ { if (found) exit; next }
	found && /^\$ / { exit }
	found { print }
	$0 == cmd { found = 1 }
	' "$README"
}

test_examples_on_fixture_roots_name_the_root() {
	local root cmd n=0
	while IFS=$'\t' read -r root cmd; do
		[[ $cmd == "slctl --root $root "* ]] || fail "README runs '$cmd' on $root without --root $root"
		n=$((n + 1))
	done < <(fixture_examples)
	[ $n -ge 3 ] || fail "only $n examples on fixture roots"
}

test_examples_on_fixture_roots_print_what_the_readme_shows() {
	local root cmd want got line at
	while IFS=$'\t' read -r root cmd; do
		[[ $cmd == "slctl --root $root "* ]] || continue
		# On a copy: an example that changed its root must not change the tree.
		copy_fixture "${root#tests/fixtures/}"
		got=$(cd "$TOP" && eval "\"\$SLCTL\" --root \"\$T/root\" ${cmd#"slctl --root $root "}" 2>&1 |
			sed 's/ *$//')
		want=$(shown_output "$cmd" | sed 's/ *$//')
		[ -n "$want" ] || fail "no output shown for '$cmd'"
		# The README's lines, in order, each a line of the output.
		at=0
		while IFS= read -r line; do
			[ "$line" = "..." ] && continue
			at=$(awk -v from="$at" -v want="$line" 'NR > from && $0 == want { print NR; exit }' <<<"$got")
			[ -n "$at" ] || fail "'$cmd' does not print, in this order: '$line'; it prints:
$got"
		done <<<"$want"
	done < <(fixture_examples)
}

run_tests
