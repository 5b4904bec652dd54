# The library as a distribution ships it: exports, install tree, pkg-config.
source "$(dirname "$0")/../lib.sh"

test_shared_library_exports_only_splitlock_symbols() {
	local so=$TOP/$BUILD_DIR/libsplitlock.so.1
	[ -f "$so" ] || fail "no $so"
	readelf -d "$so" | grep -q 'SONAME.*\[libsplitlock.so.1\]' || fail "wrong soname"
	local foreign
	foreign=$(nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | grep -v '^splitlock_' || true)
	[ -z "$foreign" ] || fail "exports beyond splitlock_*: $foreign"
	nm -D --defined-only "$so" | grep -q 'splitlock_new@@LIBSPLITLOCK_1' || fail "no versioned splitlock_new"
}

test_install_puts_every_piece_in_place() {
	make -s -C "$TOP" B="$BUILD_DIR" install PREFIX=/usr DESTDIR="$T/dest" >/dev/null || fail "make install failed"
	local f
	for f in usr/bin/slctl usr/lib/libsplitlock.so.1 usr/lib/libsplitlock.so usr/lib/libsplitlock.a \
		usr/include/libsplitlock.h usr/lib/pkgconfig/libsplitlock.pc \
		usr/share/man/man8/slctl.8 usr/share/man/man3/libsplitlock.3 \
		usr/share/bash-completion/completions/slctl usr/share/zsh/site-functions/_slctl \
		usr/share/fish/vendor_completions.d/slctl.fish; do
		[ -e "$T/dest/$f" ] || fail "missing $f"
	done
}

test_a_program_builds_against_the_installed_library() {
	make -s -C "$TOP" B="$BUILD_DIR" install PREFIX=/usr DESTDIR="$T/dest" >/dev/null || fail "make install failed"
	cat >"$T/prog.c" <<-'C'
	#include <stdio.h>
	#include <libsplitlock.h>
	int main(int argc, char **argv)
	{
		struct splitlock_ctx *ctx = splitlock_new(argv[1]);
		struct splitlock_mode_info *info;
		char mode[32];
		(void)argc;
		if (!ctx || splitlock_mode_info_read(ctx, &info) < 0)
			return 1;
		splitlock_mode_format(splitlock_mode_info_get_mode(info),
				      splitlock_mode_info_get_ratelimit(info), mode, sizeof(mode));
		printf("%s %s\n", mode, splitlock_mode_source_name(splitlock_mode_info_get_source(info)));
		splitlock_mode_info_unref(info);
		return splitlock_unref(ctx) == NULL ? 0 : 1;
	}
	C
	local flags
	flags=$(PKG_CONFIG_SYSROOT_DIR="$T/dest" PKG_CONFIG_PATH="$T/dest/usr/lib/pkgconfig" \
		pkg-config --cflags --libs libsplitlock) || fail "pkg-config cannot find libsplitlock"
	# Under check-asan the library is instrumented, so the program must be too.
	cc ${TEST_CFLAGS:-} -o "$T/prog" "$T/prog.c" $flags || fail "does not compile: $flags"
	run env LD_LIBRARY_PATH="$T/dest/usr/lib" "$T/prog" "$FIXTURES/old-5.10"
	expect_rc 0
	[ "$out" = "warn boot-log" ] || fail "got '$out'"
}

complete_words() { # WORDS... : what completion offers for the last word
	local words=("$@")
	bash -c 'source /usr/share/bash-completion/bash_completion 2>/dev/null
		source "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_slctl; echo "${COMPREPLY[*]}"' "$TOP/completions/slctl.bash" "${words[@]}"
}

test_bash_completion_offers_commands_and_values() {
	[ "$(complete_words slctl '')" = "status mitigate mode offenders --root --json --verbose --help --version" ] ||
		fail "commands: $(complete_words slctl '')"
	[ "$(complete_words slctl mitigate '')" = "on off" ] || fail "mitigate: $(complete_words slctl mitigate '')"
	complete_words slctl mitigate -- | grep -q -- "--persist --dry-run" || fail "mitigate options"
	[ "$(complete_words slctl mode '')" = "off warn seq fatal ratelimit: default" ] ||
		fail "mode values: $(complete_words slctl mode '')"
	complete_words slctl mode fatal --backend '' | grep -qw grubby || fail "backends"
}

run_tests
