#!/bin/sh
# tools/rpm.sh TARBALL OUTDIR: the RPMs of slctl.spec, built by rpmbuild -bb
# from the release tarball, everything under OUTDIR. On a distribution whose
# package database is not rpm's (Debian's rpm package), rpm cannot see the
# BuildRequires, so they are not checked there (--nodeps); make check in
# %check still needs the tools, which tools/deps.sh provides.
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
rpmbuild -bb $nodeps --define "_topdir $out/rpmbuild" "$spec"
find "$out/rpmbuild/RPMS" -name '*.rpm' | sort
