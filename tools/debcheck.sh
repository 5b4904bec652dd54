#!/bin/sh
# tools/debcheck.sh TARBALL DEBDIR WORKDIR: the packages of `make deb` as a
# user gets them. A clean bookworm made by mmdebstrap from this machine's
# Debian mirror; the .debs installed there with apt (which resolves their
# dependencies from the mirror); `slctl --version` and `slctl status` run
# there; then autopkgtest runs debian/tests against the installed packages
# in a second clean bookworm (the unshare virt server). Needs root.
set -eu
tarball=$(realpath "$1") debs=$(realpath "$2") work=$3

[ "$(id -u)" -eq 0 ] || { echo "debcheck: needs root, for chroot." >&2; exit 3; }
export DEBIAN_FRONTEND=noninteractive
need=""
command -v mmdebstrap >/dev/null || need="$need mmdebstrap"
command -v autopkgtest >/dev/null || need="$need autopkgtest"
[ -z "$need" ] || apt-get install -y --no-install-recommends $need ||
	{ apt-get update && apt-get install -y --no-install-recommends $need; }

# The machine's own mirror: the first deb.debian.org-like URI of its sources.
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || { echo "debcheck: no Debian mirror in /etc/apt/sources.list*." >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
set -- "$debs"/slctl_*.deb "$debs"/libsplitlock1_*.deb "$debs"/libsplitlock-dev_*.deb
for deb; do [ -f "$deb" ] || { echo "debcheck: no $deb; run make deb first." >&2; exit 1; }; done

echo "debcheck: a clean bookworm from $mirror, the packages installed with apt"
mkdir -p "$work/debs"
cp "$@" "$work/debs/"
mmdebstrap --variant=apt bookworm "$work/chroot" "deb $mirror bookworm main" \
	--customize-hook='mkdir -p "$1/tmp/debs"' \
	--customize-hook="copy-in $(cd "$work/debs" && ls | sed "s|^|$work/debs/|" | tr '\n' ' ') /tmp/debs" \
	--customize-hook='chroot "$1" sh -c "apt-get install -y /tmp/debs/*.deb"' \
	--customize-hook='chroot "$1" dpkg-query -W slctl libsplitlock1 libsplitlock-dev' \
	--customize-hook='chroot "$1" slctl --version' \
	--customize-hook='chroot "$1" slctl status; echo "slctl status: exit $?"' \
	--customize-hook='chroot "$1" sh -c "slctl --json status" > "$1/tmp/status.json"' \
	--customize-hook='copy-out /tmp/status.json '"$work"
# slctl status may exit 3 (missing privileges inside a chroot), but it must
# print its one JSON document with every key the design names.
jq -e '.kernel.release and (.mode.current | type == "string")' "$work/status.json" >/dev/null ||
	{ echo "debcheck: slctl --json status in the chroot gave no usable document." >&2; exit 1; }

echo "debcheck: autopkgtest (debian/tests) in a clean bookworm"
mkdir -p "$work/src"
tar -xzf "$tarball" -C "$work/src"
mmdebstrap --variant=apt bookworm "$work/testbed.tar" "deb $mirror bookworm main"
rc=0
# The unshare server gives the tests their own /proc and /dev/pts (the
# chroot server has neither); -U: mmdebstrap leaves no package lists behind.
autopkgtest -U --no-built-binaries --output-dir "$work/autopkgtest" \
	"$work/src/$(basename "$tarball" .tar.gz)" "$@" -- unshare --tarball "$work/testbed.tar" || rc=$?
cat "$work/autopkgtest/summary" 2>/dev/null || true
rm -rf "$work/chroot" "$work/testbed.tar"
exit $rc
