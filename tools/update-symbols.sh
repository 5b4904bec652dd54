#!/bin/sh
# Rewrites debian/libsplitlockN.symbols from lib/libsplitlock.sym: every
# exported name at the version that is being released. Run after adding a
# symbol (tests/cli/version.sh fails until the two agree). A symbol added
# after a release must then keep the version that first had it: edit that
# line by hand instead of rerunning this for an older name.
set -eu
cd "$(dirname "$0")/.."
major=$(sed -n 's/^SONAME_MAJOR := //p' Makefile)
version=$(cat VERSION)
out=debian/libsplitlock$major.symbols
node=$(sed -n 's/^\(LIBSPLITLOCK_[0-9_]*\) {.*/\1/p' lib/libsplitlock.sym | head -n 1)
{
	echo "libsplitlock.so.$major libsplitlock$major #MINVER#"
	echo "* Build-Depends-Package: libsplitlock-dev"
	echo " $node@$node $version"
	grep -oE '^[[:space:]]+splitlock_[a-z0-9_]+;' lib/libsplitlock.sym | tr -d ' \t;' |
		LC_ALL=C sort | sed "s/.*/ &@$node $version/"
} >"$out.tmp"
mv "$out.tmp" "$out"
