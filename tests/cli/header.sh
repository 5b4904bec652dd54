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
	# -Wpadded only reports layout; -Wdeclaration-after-statement is C90's.
	run clang -std=c11 -Weverything -Wno-padded -Wno-declaration-after-statement \
		-Wno-unsafe-buffer-usage -Wno-unknown-warning-option -Werror \
		-I"$HEADER_DIR" -c -o "$T/prog.o" "$T/prog.c"
	expect_rc 0
}

# The extern "C" block is what lets a C++ program link: build and run one
# against the shared library.
test_header_compiles_and_links_as_cxx() {
	command -v g++ >/dev/null || skip "no g++"
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

run_tests
