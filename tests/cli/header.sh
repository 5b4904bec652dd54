# The public header as a program sees it once installed: only
# <libsplitlock.h> on the include path (the copy the build installs and the
# CLI compiles against), strict ISO C and C++ with every warning an error.
source "$(dirname "$0")/../lib.sh"

HEADER_DIR=$TOP/$BUILD_DIR/include

program() { # the same source for C and C++: includes the header, calls it
	cat <<-'C'
	#include <libsplitlock.h>
	#include <stdio.h>

	int main(void)
	{
		struct splitlock_ctx *ctx = splitlock_new(NULL);

		if (!ctx)
			return 1;
		printf("%s %s\n", splitlock_get_root(ctx),
		       splitlock_capability_name(SPLITLOCK_CAP_SYS_ADMIN));
		return splitlock_unref(ctx) == NULL ? 0 : 1;
	}
	C
}

test_header_compiles_as_c99_pedantic() {
	[ -f "$HEADER_DIR/libsplitlock.h" ] || fail "no $HEADER_DIR/libsplitlock.h (make all first)"
	program >"$T/prog.c"
	run gcc -std=c99 -Wall -Wextra -pedantic -Werror -I"$HEADER_DIR" -c -o "$T/prog.o" "$T/prog.c"
	expect_rc 0
	[ -z "$err" ] || fail "warnings: $err"
}

test_header_compiles_as_c11_with_clang_everything() {
	command -v clang >/dev/null || skip "no clang"
	program >"$T/prog.c"
	# -Wpadded only reports layout; -Wdeclaration-after-statement is C90's;
	# -Wdocumentation reads /** blocks as Doxygen, whose commands gtk-doc's
	# "@name" (a parameter) is not.
	run clang -std=c11 -Weverything -Wno-padded -Wno-declaration-after-statement \
		-Wno-documentation-unknown-command -Wno-documentation \
		-Wno-unsafe-buffer-usage -Wno-unknown-warning-option -Werror \
		-I"$HEADER_DIR" -c -o "$T/prog.o" "$T/prog.c"
	expect_rc 0
}

# The extern "C" block is what lets a C++ program link: build and run one
# against the shared library.
test_header_compiles_and_links_as_cxx() {
	require_cmd g++ "it compiles the header as C++"
	local so=$TOP/$BUILD_DIR/libsplitlock.so
	[ -e "$so" ] || fail "no $so (make all first)"
	program >"$T/prog.cc"
	run g++ -std=c++11 -Wall -Wextra -pedantic -Werror ${TEST_CFLAGS:-} -I"$HEADER_DIR" \
		-o "$T/prog" "$T/prog.cc" -L"$TOP/$BUILD_DIR" -lsplitlock
	expect_rc 0
	[ -z "$err" ] || fail "warnings: $err"
	run env LD_LIBRARY_PATH="$TOP/$BUILD_DIR" "$T/prog"
	expect_rc 0
	expect_out "/ CAP_SYS_ADMIN"
}

# Every object a program owns has its cleanup helper: a program that
# releases all of them on scope exit runs clean (under check-asan, leak
# free), and one whose helpers meet NULL does nothing.
test_cleanup_helpers_release_every_object() {
	local so=$TOP/$BUILD_DIR/libsplitlock.so
	[ -e "$so" ] || fail "no $so (make all first)"
	cat >"$T/prog.c" <<-'C'
	#include <libsplitlock.h>
	#include <stdio.h>
	#define _cleanup_(f) __attribute__((cleanup(f)))

	int main(int argc, char **argv)
	{
		_cleanup_(splitlock_unrefp) struct splitlock_ctx *ctx = splitlock_new(argv[1]);
		_cleanup_(splitlock_offenders_unrefp) struct splitlock_offenders *report = NULL;
		_cleanup_(splitlock_mode_info_freep) struct splitlock_mode_info *info = NULL;
		_cleanup_(splitlock_kmsg_record_freep) struct splitlock_kmsg_record *rec = NULL;
		_cleanup_(splitlock_event_freep) struct splitlock_event *ev = NULL;
		_cleanup_(splitlock_sysctld_freep) struct splitlock_sysctld *sd = NULL;
		_cleanup_(splitlock_boot_plan_freep) struct splitlock_boot_plan *bp = NULL;
		_cleanup_(splitlock_mitigate_plan_freep) struct splitlock_mitigate_plan *mp = NULL;
		_cleanup_(splitlock_mode_switch_freep) struct splitlock_mode_switch *sw = NULL;
		_cleanup_(splitlock_leases_freep) struct splitlock_leases *leases = NULL;
		_cleanup_(splitlock_lease_dropp) struct splitlock_lease *lease = NULL;
		_cleanup_(splitlock_follow_freep) struct splitlock_follow *follow = NULL;
		_cleanup_(splitlock_probe_freep) struct splitlock_probe *probe = NULL;
		_cleanup_(splitlock_msr_freep) struct splitlock_msr *msr = NULL;
		(void)argc;
		if (!ctx || splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &report) < 0 ||
		    splitlock_mode_info_read(ctx, &info) < 0 || splitlock_kmsg_record_new(&rec) < 0 ||
		    splitlock_event_new(&ev) < 0 ||
		    splitlock_sysctld_resolve(ctx, "kernel.split_lock_mitigate", &sd) < 0 ||
		    splitlock_boot_plan_new(ctx, NULL, 0, &bp) < 0 ||
		    splitlock_follow_new(report, true, &follow) < 0)
			return 1;
		puts("done");
		return 0;
	}
	C
	run cc -std=gnu11 -Wall -Wextra -Werror ${TEST_CFLAGS:-} -I"$HEADER_DIR" -o "$T/prog" "$T/prog.c" \
		-L"$TOP/$BUILD_DIR" -lsplitlock
	expect_rc 0
	copy_fixture stock-ac
	run env LD_LIBRARY_PATH="$TOP/$BUILD_DIR" "$T/prog" "$T/root"
	expect_rc 0
	expect_out done
}

# Ignoring what a constructor returns is a warning with GCC and clang; with
# another compiler the attributes compile away.
test_must_check_warns_and_compiles_away_elsewhere() {
	cat >"$T/prog.c" <<-'C'
	#include <libsplitlock.h>
	int main(void)
	{
		struct splitlock_offenders *r;
		struct splitlock_ctx *ctx = splitlock_new(NULL);
		splitlock_offenders_new(ctx, SPLITLOCK_GROUP_TASK, 0, &r);
		return 0;
	}
	C
	run env LC_ALL=C gcc -std=c99 -Wall -I"$HEADER_DIR" -c -o "$T/prog.o" "$T/prog.c"
	expect_rc 0
	expect_err "-Wunused-result"
	expect_err splitlock_offenders_new
	# No __GNUC__: the header must not use an attribute.
	run gcc -std=c99 -pedantic -Werror -U__GNUC__ -U__clang__ -I"$HEADER_DIR" -c -o "$T/prog.o" "$T/prog.c"
	expect_rc 0
}

# One documentation block per exported function, naming the map's node
# (tests/check-header-docs.sh), and the check finds what it must find.
test_every_exported_symbol_is_documented_with_its_node() {
	run "$TOP/tests/check-header-docs.sh"
	expect_rc 0
	[ -z "$out" ] || fail "$out"
	sed 's/^ \* splitlock_mode_parse:$/ * splitlock_mode_parse_x:/' "$TOP/lib/libsplitlock.h" >"$T/h"
	printf 'int splitlock_undocumented(void);\n' >>"$T/h"
	sed '/^\tsplitlock_msr_summary;/d' "$TOP/lib/libsplitlock.sym" >"$T/sym"
	run "$TOP/tests/check-header-docs.sh" "$T/h" "$T/sym"
	expect_rc 1
	expect_out "splitlock_mode_parse (exported in LIBSPLITLOCK_1) has no /** splitlock_mode_parse: block"
	expect_out "splitlock_mode_parse_x is documented but not exported"
	expect_out "splitlock_undocumented() is declared but not exported"
	expect_out "splitlock_msr_summary is documented but not exported"
}

run_tests
