#!/bin/sh
# Make sure what slctl needs to build and test is installed. As root, install
# what is missing with the distribution's package manager; otherwise print the
# exact command and fail, so that `make run` / `make check` work on a fresh
# machine.
#
# A package build installs nothing: the build dependencies of debian/control
# and the spec are the package tool's business, and a build must not change
# the machine it runs on (pbuilder without BUILDUSERID, rpmbuild as root).
# --no-install (make INSTALL_DEPS=no, which debian/rules and the spec pass),
# or the environment of dpkg-buildpackage (DEB_RULES_REQUIRES_ROOT) or
# rpmbuild (RPM_BUILD_ROOT), turns it into a check: a missing build
# dependency fails, a missing test tool is named and the tests that need it
# skip (they say so on their SKIP lines).
set -u

missing=""
need() { missing="$missing $1"; }
# The test tools missing, apart: without installing, they are no failure.
missing_test=""
need_test() { missing_test="$missing_test $1"; need "$1"; }

# A user's PATH often lacks the sbin directories where depmod and capsh
# live; they are installed all the same.
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { have_cmd pkg-config && pkg-config --exists "$1"; }

# What the test suite runs besides slctl (make check: `deps.sh test`).
test_tools() {
	# Tests: jq reads --json output, setpriv drops privileges.
	have_cmd jq || need_test jq
	have_cmd setpriv || need_test setpriv
	# slctl probe tests build fake module trees with the real depmod.
	have_cmd depmod || need_test depmod
	# ... and watch the probe's child name and pin itself with strace.
	have_cmd strace || need_test strace
	# capsh drops one capability for the missing-privilege tests.
	have_cmd capsh || need_test capsh
	# The hostile-file-system tests set POSIX ACLs and xattrs on replaced files.
	have_cmd setfacl || need_test acl
	have_cmd setfattr || need_test attr
	# Fake roots that slctl --run-tools chroots into get a static busybox.
	have_cmd busybox || need_test busybox
	# slctl mode tests run the real kernel-install of systemd in a fake root.
	have_cmd kernel-install || need_test kernel-install
	# tests/cli/completions.sh loads the zsh and fish completions in their shells.
	have_cmd zsh || need_test zsh
	have_cmd fish || need_test fish
	# tests/cli/run-attacks.sh stops the helper from a pseudo-terminal.
	have_cmd python3 || need_test python3
	# tests/cli/header.sh compiles the public header as C++.
	have_cmd g++ || need_test g++
}

deb_tools() {
	have_cmd mmdebstrap || need mmdebstrap
	have_cmd zstd || need zstd
	have_cmd dpkg-buildpackage || need dpkg-dev
	have_cmd dh || need debhelper
	have_cmd lintian || need lintian
}

# Without arguments: what building needs (make, make run). Optional groups:
# `deps.sh test` (make check), `deps.sh valgrind`, `deps.sh fuzz`
# (reliability targets), `deps.sh boot` (make check-boot), `deps.sh deb`,
# `rpm` or `packaging` (both). With --tools first, only the groups' tools:
# tools/deb.sh builds in a chroot, not with this machine's libraries.
build=yes install=yes
[ -z "${DEB_RULES_REQUIRES_ROOT:-}${RPM_BUILD_ROOT:-}" ] || install=no
while [ $# -gt 0 ]; do
	case $1 in
	--tools) build=no ;;
	--no-install) install=no ;;
	*) break ;;
	esac
	shift
done
for group in "$@"; do
	case $group in
	test) test_tools ;;
	valgrind) have_cmd valgrind || need valgrind ;;
	abi) have_cmd abidw || need abigail ;;
	fuzz) have_cmd clang || need clang
	      [ -n "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
		      need libfuzzer ;;
	# make check-boot: Debian images built with mmdebstrap, kept as .tar.zst.
	boot) have_cmd mmdebstrap || need mmdebstrap
	      have_cmd zstd || need zstd ;;
	# make deb and debcheck (tools/deb.sh, debcheck.sh): the chroots, and
	# the tools that check what was built in them.
	deb) deb_tools ;;
	# make rpm (tools/rpm.sh).
	rpm) have_cmd rpmbuild || need rpmbuild ;;
	packaging) deb_tools
	      have_cmd rpmbuild || need rpmbuild ;;
	esac
done

[ $build = no ] || {
	have_cmd cc || need cc
	have_cmd make || need make
	have_cmd pkg-config || need pkg-config
	have_pc libcap || need libcap
	have_pc libmnl || need libmnl
	have_pc libkmod || need libkmod
	have_pc smartcols || need smartcols
	have_pc bash-completion || need bash-completion
	have_cmd scdoc || need scdoc
}
[ -z "$missing" ] && exit 0
if [ $install = no ] && [ "$missing" = "$missing_test" ]; then
	echo "deps: not installing anything here (a package build, or INSTALL_DEPS=no): the tests that need$missing_test skip." >&2
	exit 0
fi

if have_cmd apt-get; then
	pm="apt-get install -y"
	map() { case $1 in
		cc) echo gcc libc6-dev;; make) echo make;; pkg-config) echo pkg-config;;
		libcap) echo libcap-dev;; libmnl) echo libmnl-dev;; libkmod) echo libkmod-dev;;
		smartcols) echo libsmartcols-dev;; bash-completion) echo bash-completion;;
		scdoc) echo scdoc;; jq) echo jq;; capsh) echo libcap2-bin;;
		setpriv) echo util-linux;; valgrind) echo valgrind;; clang) echo clang;;
		libfuzzer) echo libclang-rt-dev;; kernel-install) echo systemd;;
		abigail) echo abigail-tools;; depmod) echo kmod;; strace) echo strace;; zsh) echo zsh;; fish) echo fish;;
		mmdebstrap) echo mmdebstrap;; zstd) echo zstd;;
		python3) echo python3;; busybox) echo busybox-static;; acl) echo acl;; attr) echo attr;;
		g++) echo g++;;
		dpkg-dev) echo dpkg-dev;; debhelper) echo debhelper;; lintian) echo lintian;;
		rpmbuild) echo rpm;; esac; }
elif have_cmd dnf; then
	pm="dnf install -y"
	map() { case $1 in
		cc) echo gcc;; make) echo make;; pkg-config) echo pkgconf-pkg-config;;
		libcap) echo libcap-devel;; libmnl) echo libmnl-devel;; libkmod) echo kmod-devel;;
		smartcols) echo libsmartcols-devel;; bash-completion) echo bash-completion;;
		scdoc) echo scdoc;; jq) echo jq;; capsh) echo libcap;;
		setpriv) echo util-linux;; valgrind) echo valgrind;; clang) echo clang;;
		libfuzzer) echo compiler-rt;; kernel-install) echo systemd-udev;;
		abigail) echo libabigail;; depmod) echo kmod;; strace) echo strace;; zsh) echo zsh;; fish) echo fish;; acl) echo acl;; attr) echo attr;;
		python3) echo python3;; busybox) echo busybox;; mmdebstrap) echo mmdebstrap;; zstd) echo zstd;; dpkg-dev) echo dpkg-dev;;
		g++) echo gcc-c++;;
		debhelper) echo debhelper;; lintian) echo lintian;; rpmbuild) echo rpm-build;; esac; }
elif have_cmd pacman; then
	pm="pacman -S --needed --noconfirm"
	map() { case $1 in
		cc) echo gcc;; make) echo make;; pkg-config) echo pkgconf;;
		libcap) echo libcap;; libmnl) echo libmnl;; libkmod) echo kmod;;
		smartcols) echo util-linux-libs;; bash-completion) echo bash-completion;;
		scdoc) echo scdoc;; jq) echo jq;; capsh) echo libcap;;
		setpriv) echo util-linux;; valgrind) echo valgrind;; clang) echo clang;;
		libfuzzer) echo compiler-rt;; kernel-install) echo systemd;;
		abigail) echo libabigail;; depmod) echo kmod;; strace) echo strace;; zsh) echo zsh;; fish) echo fish;; acl) echo acl;; attr) echo attr;;
		python3) echo python;; busybox) echo busybox;; mmdebstrap) echo mmdebstrap;; zstd) echo zstd;; dpkg-dev) echo dpkg;;
		g++) echo gcc;;
		debhelper) echo debhelper;; lintian) echo lintian;; rpmbuild) echo rpm-tools;; esac; }
else
	echo "deps: missing:$missing; install them with your package manager" >&2
	exit 1
fi

pkgs=$(for m in $missing; do map "$m"; done | sort -u | tr '\n' ' ')
if [ $install = no ]; then
	echo "deps: missing:$missing; not installing anything here (a package build, or INSTALL_DEPS=no); they come with: $pm $pkgs" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: packages are missing; install them as root with: $pm $pkgs" >&2
	exit 1
fi
echo "deps: installing $pkgs" >&2
if [ "${pm%% *}" = apt-get ]; then
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine may have no package lists yet; another apt-get (the
	# kernel tests' in CI) may hold dpkg's lock for a while.
	lock="-o DPkg::Lock::Timeout=300"
	apt-get install -y $lock $pkgs || { apt-get update $lock && apt-get install -y $lock $pkgs; } || exit 1
else
	$pm $pkgs || exit 1
fi
