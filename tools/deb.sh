#!/bin/sh
# tools/deb.sh TARBALL OUTDIR: the Debian packages, built the way sbuild
# builds them on a buildd: in a clean bookworm chroot (mmdebstrap
# --variant=buildd: Essential and build-essential, nothing else), the build
# dependencies installed there from debian/control alone (apt-get
# build-dep, without Recommends), and dpkg-buildpackage -us -uc -b run by
# a user without root, HOME=/sbuild-nonexistent, the tests on unless
# DEB_BUILD_OPTIONS says nocheck. The .debs, .changes and the build log
# land in OUTDIR, the source package (.dsc) in OUTDIR/source; then lintian
# with the Debian profile on both: any error or warning fails. Needs root (chroot) and the Debian mirror.
#
# Without root it builds here instead, as tools/deb.sh always did: with the
# build dependencies installed on this machine (dpkg-checkbuilddeps names
# what is missing), not in a clean chroot.
#
# The chroot is cached in /var/cache/slctl-buildd as a tarball made once a
# day (with its package lists, so that it matches the mirror of that day),
# and the packages apt downloads into it are kept there too: a second run
# needs no network.
set -eu
tarball=$(realpath "$1") out=$2
name=$(basename "$tarball" .tar.gz)       # slctl-1.0.0
version=${name#slctl-}
suite=bookworm
cache=${SLCTL_BUILDD_CACHE:-/var/cache/slctl-buildd}

# The source package too, as sbuild, a sponsor or the archive get it: the
# .dsc that dpkg-source makes of the release tarball and its debian/, in
# OUTDIR/source. lintian then checks the source and the binaries.
lint() {
	rm -rf "$out/source"
	mkdir -p "$out/source"
	cp "$tarball" "$out/source/slctl_$version.orig.tar.gz"
	tar -xzf "$tarball" -C "$out/source"
	(cd "$out/source" && dpkg-source -b "$name" && rm -rf "$name")
	cd "$out"
	lintian --profile debian --fail-on error,warning --info source/*.dsc *.changes
	ls -1 *.deb source/*.dsc
}

if [ "$(id -u)" -ne 0 ]; then
	echo "deb.sh: not root: building with this machine's packages, not in a clean chroot (run as root for that)."
	rm -rf "$out"
	mkdir -p "$out"
	out=$(realpath "$out")
	tar -xzf "$tarball" -C "$out"
	cp "$tarball" "$out/slctl_$version.orig.tar.gz"
	(cd "$out/$name" && dpkg-buildpackage -us -uc -b)
	lint
	exit
fi
# Its own tools, installed as make check installs its own (apt, root).
"$(dirname "$0")/deps.sh" --tools deb
mirror=$("$(dirname "$0")/mirror.sh")

mkdir -p "$cache/archives/partial"
base=$cache/$suite-buildd-$(date -u +%Y%m%d).tar.zst
if [ ! -f "$base" ]; then
	echo "deb.sh: a $suite buildd chroot from $mirror into $base"
	started=$(date +%s)
	rm -f "$cache/$suite-buildd-"*.tar.zst "$cache/new.tar.zst"
	mmdebstrap --variant=buildd --skip=cleanup/apt/lists $suite "$cache/new.tar.zst" \
		"deb $mirror $suite main"
	mv "$cache/new.tar.zst" "$base"
	echo "deb.sh: the chroot took $(( $(date +%s) - started )) s"
fi

rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
root=$(mktemp -d "${TMPDIR:-/var/tmp}/slctl-buildd.XXXXXX")
trap 'rm -rf "$root"' EXIT
tar --zstd -xf "$base" -C "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The builder: a user of its own, as sbuild's build user.
echo "builder:x:1000:1000:slctl builder:/sbuild-nonexistent:/bin/sh" >>"$root/etc/passwd"
echo "builder:x:1000:" >>"$root/etc/group"
echo "builder:*:19000:0:99999:7:::" >>"$root/etc/shadow"
mkdir -p "$root/build"
cp "$tarball" "$root/build/slctl_$version.orig.tar.gz"
chown -R 1000:1000 "$root/build"

# Everything runs in a mount namespace of its own: the mounts of the chroot
# die with it, whatever ends it, and rm -rf never meets a bind of /dev.
# As sbuild: the environment is cleared but for the build options.
# shellcheck disable=SC2016
inside='
	root=$1 archives=$2 options=$3 profiles=$4 name=$5
	mount -t proc proc "$root/proc"
	mount -t sysfs -o ro sysfs "$root/sys"
	mount --rbind /dev "$root/dev"
	mount --bind "$archives" "$root/var/cache/apt/archives"
	in_root() {
		chroot "$root" /usr/bin/env -i \
			PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			DEB_BUILD_OPTIONS="$options" DEB_BUILD_PROFILES="$profiles" "$@"
	}
	as_builder() {
		in_root setpriv --reuid=builder --regid=builder --init-groups \
			env HOME=/sbuild-nonexistent USER=builder LOGNAME=builder "$@"
	}
	as_builder sh -c "cd /build && tar -xzf slctl_*.orig.tar.gz"
	echo "deb.sh: build dependencies from debian/control"
	in_root apt-get build-dep -y -o APT::Install-Recommends=false "/build/$name"
	echo "deb.sh: dpkg-buildpackage -us -uc -b as builder, DEB_BUILD_OPTIONS=\"$options\""
	as_builder sh -c "cd /build/$name && dpkg-buildpackage -us -uc -b"
'
{
	rc=0
	unshare --mount --propagation private sh -euc "$inside" sh "$root" "$cache/archives" \
		"${DEB_BUILD_OPTIONS:-}" "${DEB_BUILD_PROFILES:-}" "$name" </dev/null 2>&1 || rc=$?
	echo $rc >"$out/build.rc"
} | tee "$out/build.log"
[ "$(cat "$out/build.rc")" = 0 ] ||
	{ echo "deb.sh: the build failed (exit $(cat "$out/build.rc")), see $out/build.log." >&2; exit 1; }
# The tests ran the program the package ships: helper.o, which carries the
# installed path, was compiled once, for /usr/bin/slctl; neither make check
# nor dh_auto_install rebuilt it (packager review F6).
[ "$(grep -c -- ' -o build/cli/helper\.o' "$out/build.log")" = 1 ] &&
	grep -- ' -o build/cli/helper\.o' "$out/build.log" | grep -qF '"/usr/bin/slctl"' ||
	{ echo "deb.sh: helper.o was not compiled exactly once, for /usr/bin/slctl: the tests did not run the shipped program; see $out/build.log." >&2; exit 1; }
cp "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo "$out/"
lint
