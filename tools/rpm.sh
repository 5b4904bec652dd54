#!/bin/sh
# tools/rpm.sh TARBALL OUTDIR: the RPMs of slctl.spec, built by rpmbuild -bb
# from the release tarball, everything under OUTDIR. On a distribution whose
# package database is not rpm's (Debian's rpm package), rpm cannot see the
# BuildRequires: they are checked here instead (check_buildrequires), and
# rpmbuild then runs with --nodeps. make check in %check installs nothing
# (a package build): the test tools must be here already (.ci/run installs
# them first). %check runs (the test runner's summary must be in the log,
# $OUTDIR/build.log). It runs as the caller: as root (CI), the root-only
# tests run too, which a mock build (%check as mockbuild) skips.
#
# tools/rpm.sh --buildrequires: only check the BuildRequires.
set -eu
spec=$(cd "$(dirname "$0")/.." && pwd)/slctl.spec

# rpm's own distributions check the BuildRequires in rpmbuild (and mock
# installs them into its chroot). Where rpm's database is not the
# system's (Debian's rpm package) rpmbuild could only call them all
# missing, so each is checked here by what it provides, and the build
# fails on any that is missing; only then --nodeps. A name this table does
# not know fails too: a new BuildRequires must say how it is checked.
have() { PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin command -v "$1" >/dev/null 2>&1; }
check_buildrequires() {
	missing=""
	reqs=$(rpmspec -q --buildrequires "$spec") ||
		{ echo "rpm.sh: rpmspec cannot read the BuildRequires of $spec." >&2; exit 1; }
	for r in $reqs; do
		case $r in
		'pkgconfig('*')') p=${r#pkgconfig(}; have pkg-config && pkg-config --exists "${p%)}" ;;
		/*) [ -e "$r" ] ;;
		gcc) have gcc ;;
		gcc-c++) have g++ ;;
		make) have make ;;
		binutils) have readelf && have nm ;;
		acl) have setfacl ;;
		attr) have setfattr ;;
		busybox) have busybox ;;
		fish) have fish ;;
		jq) have jq ;;
		kmod) have depmod ;;
		libcap) have capsh ;;
		perl-interpreter) have perl ;;
		python3) have python3 ;;
		scdoc) have scdoc ;;
		strace) have strace ;;
		# Macros only: rpm.sh defines %_tmpfilesdir where it is missing.
		systemd-rpm-macros) true ;;
		zsh) have zsh ;;
		*) echo "rpm.sh: tools/rpm.sh cannot check the BuildRequires '$r' here." >&2; false ;;
		esac || missing="$missing $r"
	done
	[ -z "$missing" ] || {
		echo "rpm.sh: BuildRequires missing here:$missing; as root, tools/deps.sh test installs them." >&2
		exit 1
	}
}

if [ "${1:-}" = --buildrequires ]; then
	check_buildrequires
	exit 0
fi
tarball=$1 out=$(mkdir -p "$2" && cd "$2" && pwd)

if ! command -v rpmbuild >/dev/null; then
	[ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null ||
		{ echo "rpm.sh: rpmbuild is missing; install rpm-build (Debian: rpm)." >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends rpm ||
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends rpm; }
fi

# systemd-rpm-macros' %_tmpfilesdir, where that package is not rpm's
# (the positional parameters are rpmbuild's extra options from here on).
set --
[ -n "$(rpm --eval '%{?_tmpfilesdir}')" ] || set -- --define "_tmpfilesdir /usr/lib/tmpfiles.d"
nodeps=
if ! rpm -q rpm >/dev/null 2>&1; then
	check_buildrequires
	nodeps=--nodeps
fi

rm -rf "$out/rpmbuild"
mkdir -p "$out/rpmbuild/SOURCES"
cp "$tarball" "$out/rpmbuild/SOURCES/"
{
	rc=0
	rpmbuild -bb $nodeps --define "_topdir $out/rpmbuild" "$@" "$spec" 2>&1 || rc=$?
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
