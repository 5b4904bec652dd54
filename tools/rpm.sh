#!/bin/sh
# tools/rpm.sh TARBALL OUTDIR: the RPMs of slctl.spec, built by rpmbuild -bb
# from the release tarball, everything under OUTDIR. On a distribution whose
# package database is not rpm's (Debian's rpm package), rpm cannot see the
# BuildRequires, so they are not checked there (--nodeps); make check in
# %check installs nothing (a package build): the test tools must be here
# already (.ci/run installs them first), or their tests skip. %check runs
# (the test runner's summary must be in the log, $OUTDIR/build.log).
set -eu
tarball=$1 out=$(mkdir -p "$2" && cd "$2" && pwd)
spec=$(dirname "$0")/../slctl.spec

if ! command -v rpmbuild >/dev/null; then
	[ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null ||
		{ echo "rpm.sh: rpmbuild is missing; install rpm-build (Debian: rpm)." >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends rpm ||
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends rpm; }
fi
nodeps=
rpm -q rpm >/dev/null 2>&1 || nodeps=--nodeps

rm -rf "$out/rpmbuild"
mkdir -p "$out/rpmbuild/SOURCES"
cp "$tarball" "$out/rpmbuild/SOURCES/"
{
	rc=0
	rpmbuild -bb $nodeps --define "_topdir $out/rpmbuild" "$spec" 2>&1 || rc=$?
	echo $rc >"$out/build.rc"
} | tee "$out/build.log"
[ "$(cat "$out/build.rc")" = 0 ] ||
	{ echo "rpm.sh: rpmbuild failed (exit $(cat "$out/build.rc")), see $out/build.log." >&2; exit 1; }
# The tests ran the program the package ships: helper.o, which carries the
# installed path, was compiled once, for /usr/bin/slctl; neither make check
# nor %install rebuilt it (packager review F6).
[ "$(grep -c -- ' -o build/cli/helper\.o' "$out/build.log")" = 1 ] &&
	grep -- ' -o build/cli/helper\.o' "$out/build.log" | grep -qF '"/usr/bin/slctl"' ||
	{ echo "rpm.sh: helper.o was not compiled exactly once, for /usr/bin/slctl: the tests did not run the shipped program; see $out/build.log." >&2; exit 1; }
# %check ran the suite: its runner's summary is in the log.
grep -Eq '^[0-9]+ passed, 0 failed' "$out/build.log" ||
	{ echo "rpm.sh: no test summary in $out/build.log: %check did not run make check." >&2; exit 1; }
find "$out/rpmbuild/RPMS" -name '*.rpm' | sort
