#!/bin/sh
# tools/debcheck.sh TARBALL DEBDIR WORKDIR: the packages of `make deb` as a
# user gets them. A clean bookworm made by mmdebstrap from this machine's
# Debian mirror; the .debs installed there with apt (which resolves their
# dependencies from the mirror): first libsplitlock-dev alone, and a program
# built against it with pkg-config (debian/tests/pkg-config), then all of
# them; `slctl --version` and `slctl status` run
# there; then autopkgtest runs debian/tests against the installed packages
# in that chroot (the null virt server). Needs root.
set -eu
tarball=$(realpath "$1") debs=$(realpath "$2") work=$3

[ "$(id -u)" -eq 0 ] || { echo "debcheck: needs root, for chroot." >&2; exit 3; }
# Its own tools, installed as make check installs its own (apt, root).
"$(dirname "$0")/deps.sh" --tools deb
mirror=$("$(dirname "$0")/mirror.sh")

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
set -- "$debs"/slctl_*.deb "$debs"/libsplitlock1_*.deb "$debs"/libsplitlock-dev_*.deb
for deb; do [ -f "$deb" ] || { echo "debcheck: no $deb; run make deb first." >&2; exit 1; }; done

echo "debcheck: a clean bookworm from $mirror, the packages installed with apt"
mkdir -p "$work/in"
cp "$@" "$tarball" "$work/in/"
# The hooks run inside the chroot with /proc, /sys and /dev mounted. The
# last one runs autopkgtest there with the null server (the chroot is the
# testbed: the unshare server needs subuids, the chroot server lacks /proc);
# its status and summary come out in $work.
mmdebstrap --variant=apt bookworm "$work/chroot" "deb $mirror bookworm main" \
	--customize-hook='mkdir -p "$1/tmp/in"' \
	--customize-hook="copy-in $(cd "$work/in" && ls | sed "s|^|$work/in/|" | tr '\n' ' ') /tmp/in" \
	--customize-hook='chroot "$1" sh -c "mkdir -p /tmp/src && tar -xzf /tmp/in/*.tar.gz -C /tmp/src"' \
	--customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends gcc libc6-dev pkgconf /tmp/in/libsplitlock-dev_*.deb /tmp/in/libsplitlock1_*.deb"' \
	--customize-hook='chroot "$1" sh -c "! dpkg -s slctl >/dev/null 2>&1"' \
	--customize-hook='chroot "$1" sh -c "cd /tmp/src/* && debian/tests/pkg-config"' \
	--customize-hook='chroot "$1" sh -c "apt-get install -y /tmp/in/*.deb"' \
	--customize-hook='chroot "$1" dpkg-query -W slctl libsplitlock1 libsplitlock-dev' \
	--customize-hook='chroot "$1" slctl --version' \
	--customize-hook='chroot "$1" sh -c "slctl status; echo \"slctl status: exit \$?\""' \
	--customize-hook='chroot "$1" sh -c "slctl --json status > /tmp/status.json"' \
	--customize-hook='copy-out /tmp/status.json '"$work" \
	--customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends autopkgtest"' \
	--customize-hook='chroot "$1" sh -c "cd /tmp/src/* && autopkgtest --no-built-binaries --output-dir /tmp/autopkgtest . /tmp/in/*.deb -- null; echo \$? > /tmp/autopkgtest/rc"' \
	--customize-hook='copy-out /tmp/autopkgtest '"$work"

# slctl status must print its one JSON document there.
jq -e '.kernel.release and (.mode.current | type == "string")' "$work/status.json" >/dev/null ||
	{ echo "debcheck: slctl --json status in the chroot gave no usable document." >&2; exit 1; }
echo "debcheck: autopkgtest summary:"
cat "$work/autopkgtest/summary"
rc=$(cat "$work/autopkgtest/rc")
rm -rf "$work/chroot"
[ "$rc" -eq 0 ] || { echo "debcheck: autopkgtest failed (exit $rc), see $work/autopkgtest/." >&2; exit 1; }
echo "debcheck: installed with apt, slctl runs, autopkgtest passes."
