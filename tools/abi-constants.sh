#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The value of every constant of the public header, one "NAME VALUE" a
# line, sorted: enumerators (named enums and the anonymous flag sets) and
# object-like macros. abidw describes functions and types, not a flag's
# bit or a macro's value, which a program compiles in just the same: a
# change there breaks it as surely (make check-abi compares this list).
#
# Usage: tools/abi-constants.sh HEADER CC
set -eu
header=$1
cc=${2:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Enumerators begin a line inside an enum; object-like macros are those
# with a value (not the attribute macros, which expand to attributes).
{
	sed -n '/^\(typedef \)\{0,1\}enum[^;]*{/,/}/p' "$header" |
		sed -n 's/^[[:space:]]*\(SPLITLOCK_[A-Z0-9_]*\)[[:space:]]*[=,].*/\1/p; s/^[[:space:]]*\(SPLITLOCK_[A-Z0-9_]*\)[[:space:]]*$/\1/p'
	sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}\(SPLITLOCK_[A-Z0-9_]*\)[[:space:]]\{1,\}\([-0-9("A-Z]\).*/\1 \2/p' "$header" |
		grep -v ' _' | cut -d' ' -f1
} | sort -u >"$tmp/names"

{
	printf '#include <stdio.h>\n#include "%s"\n' "$(cd "$(dirname "$header")" && pwd)/$(basename "$header")"
	printf 'static void s(const char *n, const char *v) { printf("%%s \\"%%s\\"\\n", n, v); }\n'
	printf 'static void i(const char *n, long long v) { printf("%%s %%lld\\n", n, v); }\n'
	printf '#define P(x) _Generic((x), char *: s, const char *: s, default: i)(#x, x)\n'
	printf 'int main(void)\n{\n'
	sed 's/.*/\tP(&);/' "$tmp/names"
	printf '\treturn 0;\n}\n'
} >"$tmp/constants.c"
"$cc" -std=c11 -Wall -Werror -o "$tmp/constants" "$tmp/constants.c"
"$tmp/constants" | sort
