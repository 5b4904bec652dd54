# Helpers for the tests against the real bootloader tools (make check-boot).
# A test file defines test_* functions and ends with boot_run_tests; each
# test gets a fresh copy of a cached Debian 12 image in $T/root, where slctl
# runs as on an installed system (root "/"), and the test asserts on what
# the real tools generated. The file runs in its own mount namespace
# (tests/boot/run), so every mount made here vanishes with it.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

BOOT_DIR=$TOP/tests/boot
# The plain build: the image has the libraries slctl links, not ASan's.
SLCTL_IMAGE_BIN=${SLCTL_IMAGE_BIN:-$TOP/build/slctl}
IMAGE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The libraries slctl links, in every image.
SLCTL_RUNTIME="libcap2 libmnl0 libsmartcols1 libkmod2"

# boot_root NAME PACKAGE...: $T/root is a fresh Debian 12 with PACKAGE...
# (the image NAME, built once and cached), slctl in /usr/local/sbin and the
# kernel's /proc mounted.
boot_root() {
	local tarball
	# shellcheck disable=SC2086
	tarball=$("$BOOT_DIR/image" "$@" $SLCTL_RUNTIME) || fail "cannot build the $1 image"
	mkdir -p "$T/root"
	tar -C "$T/root" --zstd -xf "$tarball" || fail "cannot unpack $tarball"
	install -m755 "$SLCTL_IMAGE_BIN" "$T/root/usr/local/sbin/slctl"
	mount -t proc proc "$T/root/proc" || fail "cannot mount /proc in the image"
	# A fixed machine id, as an installed system has one.
	echo 0123456789abcdef0123456789abcdef >"$T/root/etc/machine-id"
}

# boot_cmdline TEXT: the image's /proc/cmdline reads TEXT, as the kernel
# that booted it would have passed (mkrlconf copies it).
boot_cmdline() {
	printf '%s\n' "$1" >"$T/cmdline"
	mount --bind "$T/cmdline" "$T/root/proc/cmdline" || fail "cannot bind /proc/cmdline"
}

# boot_kernel VERSION: an installed kernel and initrd in /boot, as
# linux-image-VERSION and initramfs-tools leave them.
boot_kernel() {
	printf 'kernel %s\n' "$1" >"$T/root/boot/vmlinuz-$1"
	printf 'initrd %s\n' "$1" >"$T/root/boot/initrd.img-$1"
}

# in_root CMD...: CMD inside the image with a clean environment plus
# $ROOT_ENV (words NAME=VALUE); $out, $err and $rc as run() gives them.
ROOT_ENV=""
in_root() {
	# shellcheck disable=SC2086
	run chroot "$T/root" /usr/bin/env -i PATH="$IMAGE_PATH" LANG=C.UTF-8 $ROOT_ENV "$@"
}

# Unmount whatever a test mounted under $1, innermost first.
unmount_under() {
	findmnt -rn -o TARGET | awk -v d="$1/" 'index($0, d) == 1' | sort -r |
		while read -r m; do umount -l "$m"; done
}

# As run_tests of tests/lib.sh: a TAP plan, a line a test, and a non-zero
# status when one failed, which tests/run checks.
boot_run_tests() {
	local t status failed=0 tests
	tests=$(declare -F | awk '$3 ~ /^test_/ {print $3}')
	echo "1..$(grep -c . <<<"$tests")"
	[ -x "$SLCTL_IMAGE_BIN" ] || { echo "not ok - ${0##*/}: $SLCTL_IMAGE_BIN is not built"; return 1; }
	for t in $tests; do
		T=$(mktemp -d)
		(cd "$T" && "$t")
		status=$?
		unmount_under "$T"
		rm -rf --one-file-system "$T"
		if [ $status -eq 0 ]; then
			echo "ok - ${0##*/}: ${t#test_}"
		else
			echo "not ok - ${0##*/}: ${t#test_}"
			failed=1
		fi
	done
	return $failed
}
