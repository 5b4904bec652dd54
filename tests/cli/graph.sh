# tools/graph.sh: the include-and-call graph of lib/ has no circle between
# files or folders, and the tool finds one where there is one (a tree of
# its own, two folders whose files call each other).
source "$(dirname "$0")/../lib.sh"

test_the_library_has_no_circle() {
	run "$TOP/tools/graph.sh" "$TOP/$BUILD_DIR"
	expect_rc 0
	expect_out "Folders and the folders they use"
	expect_out "lib/log/"
	expect_out "No circles between files or folders."
}

# small_tree A_CALLS_B B_CALLS_A: lib/a/a.c and lib/b/b.c under $T/tree,
# compiled into $T/tree/build; each calls the other when told to.
small_tree() {
	mkdir -p "$T/tree/lib/a" "$T/tree/lib/b" "$T/tree/build/lib/a" "$T/tree/build/lib/b"
	printf 'int b(void);\nint a(void) { return %s; }\n' "$([ "$1" = yes ] && echo 'b()' || echo 0)" \
		>"$T/tree/lib/a/a.c"
	printf 'int a(void);\nint b(void) { return %s; }\n' "$([ "$2" = yes ] && echo 'a()' || echo 0)" \
		>"$T/tree/lib/b/b.c"
	cc -c -o "$T/tree/build/lib/a/a.o" "$T/tree/lib/a/a.c" || fail "cc a.c"
	cc -c -o "$T/tree/build/lib/b/b.o" "$T/tree/lib/b/b.c" || fail "cc b.c"
}

test_a_call_one_way_is_no_circle() {
	small_tree yes no
	run env GRAPH_TOP="$T/tree" "$TOP/tools/graph.sh" build
	expect_rc 0
	expect_out "lib/a/       -> lib/b"
	expect_out "No circles between files or folders."
	grep -q '"lib/a/a.c" -> "lib/b/b.c"' "$T/tree/build/graph.dot" || fail "no edge in the drawing"
}

test_files_that_call_each_other_are_a_circle() {
	small_tree yes yes
	run env GRAPH_TOP="$T/tree" "$TOP/tools/graph.sh" build
	expect_rc 1
	expect_err "graph: circles between files"
	expect_err "graph: circles between folders"
	expect_err "lib/a/a.c"
}

run_tests
