#!/bin/sh
# tools/deb.sh TARBALL OUTDIR: the Debian packages, built the way a Debian
# builder does (apt-get build-dep, dpkg-buildpackage -b) from the release
# tarball unpacked in OUTDIR, so nothing of the work tree leaks in and the
# .debs land in OUTDIR (dpkg-buildpackage writes next to the source tree).
# Then lintian with the Debian profile: any error or warning fails.
set -eu
tarball=$1 out=$2
name=$(basename "$tarball" .tar.gz)       # slctl-1.0.0
version=${name#slctl-}

if [ "$(id -u)" -eq 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	need=""
	for tool in dpkg-buildpackage:dpkg-dev lintian:lintian dh:debhelper; do
		command -v "${tool%%:*}" >/dev/null || need="$need ${tool#*:}"
	done
	[ -z "$need" ] || apt-get install -y --no-install-recommends $need ||
		{ apt-get update && apt-get install -y --no-install-recommends $need; }
fi

rm -rf "$out"
mkdir -p "$out"
tar -xzf "$tarball" -C "$out"
# 3.0 (quilt) pairs the source tree with the upstream tarball.
cp "$tarball" "$out/slctl_$version.orig.tar.gz"
cd "$out/$name"
if [ "$(id -u)" -eq 0 ]; then
	apt-get build-dep -y ./
fi
dpkg-buildpackage -us -uc -b
cd ..
lintian --profile debian --fail-on error,warning --info *.changes
ls -1 *.deb
