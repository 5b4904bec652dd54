# Shared helpers for the CLI tests. A test file defines test_* functions and
# ends with `run_tests`; each test runs in its own subshell with a fresh
# scratch directory $T, and prints "ok - NAME" or "not ok - NAME".
set -u
# Tests that run make run it as a user would, not as a sub-make of the make
# that started the suite (rpmbuild's %check passes a jobserver whose
# descriptors do not reach us, and make then warns on stderr). make also
# exports the variables of its command line to its recipes' environment,
# where the Makefile's ?= would take them: the directories debian/rules
# and the spec give make check must not move the tests' own installs.
unset MAKEFLAGS MFLAGS MAKELEVEL
unset PREFIX BINDIR LIBDIR INCLUDEDIR DATADIR MANDIR PKGCONFIGDIR DESTDIR \
	BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR POLKITACTIONDIR TMPFILESDIR INSTALL_DEPS
# depmod, capsh and kernel-install live in sbin, often not on a user's PATH.
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
SLCTL=${SLCTL:-$TOP/$BUILD_DIR/slctl}
FIXTURES=$TOP/tests/fixtures
# bash tests/cli/FILE.sh [NAME...] runs only the tests named (without test_).
ONLY_TESTS=("$@")

fail() {
	echo "  FAIL: $*" >&2
	exit 1
}

# run CMD...: stores stdout in $out, stderr in $err, status in $rc.
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	# The subshell keeps bash's "Killed" notices out of the test output.
	{ ( "$@" >"$o" 2>"$e" ); } 2>/dev/null
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1 (stderr: $err)"
}

expect_out() {
	grep -qF -- "$1" <<<"$out" || fail "stdout lacks '$1': $out"
}

expect_err() {
	grep -qF -- "$1" <<<"$err" || fail "stderr lacks '$1': $err"
}

# expect_json FILTER VALUE: jq -r FILTER of $out equals VALUE.
expect_json() {
	local got
	require_cmd jq "it reads the --json output"
	got=$(jq -r "$1" <<<"$out" 2>/dev/null) || fail "stdout is not JSON: $out"
	[ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
}

# copy_fixture NAME: a private copy of tests/fixtures/NAME in $T/root.
# The root gets slctl's lock directory as a first run leaves it (git cannot
# keep its mode 0700), so that a test comparing the tree before and after a
# change sees only the change.
copy_fixture() {
	rm -rf "$T/root"
	cp -a "$FIXTURES/$1" "$T/root"
	install -d -m 0700 "$T/root/run/slctl"
	install -m 0600 /dev/null "$T/root/run/slctl/lock"
}

# Hash of every file under a tree, to prove that nothing changed (the
# stubs' argument log aside: a tool that ran and failed still logs).
tree_hash() {
	(cd "$1" && {
		find . -type f ! -path ./run/slctl-stub.log -print0 | sort -z | xargs -0 -r sha256sum
		find . ! -path ./run/slctl-stub.log -printf '%y %p %l %m\n' | sort
	})
}

# skip REASON: ends the current test as skipped (exit status 77, as
# automake's harness uses); run_tests reports it as a TAP skip.
skip() {
	echo "$*" >"$SKIP_REASON_FILE"
	exit 77
}

# require_root WHAT: skips the test unless it runs as root; WHAT says which
# privileged operation it needs (mknod, chroot, a setuid file, ...).
require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root ($*)"
}

# require_cmd CMD [WHY]: skips the test unless CMD is installed. A package
# build installs nothing (tools/deps.sh names what is missing), so a test
# tool the build environment lacks is a skip with its reason, not a failure.
require_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip "needs $1${2:+ ($2)}, which is not installed"
}

# file_requires_cmd CMD [WHY]: every test of this file needs CMD (jq,
# called all through it); without it, each is reported as skipped.
FILE_SKIP_REASON=
file_requires_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		FILE_SKIP_REASON="needs $1${2:+ ($2)}, which is not installed"
}

# Prints a TAP plan, then one line a test; the status is non-zero when a
# test failed, so that tests/run sees the failure twice over.
run_tests() {
	local t status failed=0 tests
	tests=$(declare -F | awk '$3 ~ /^test_/ {print $3}')
	if [ ${#ONLY_TESTS[@]} -gt 0 ]; then
		# A name that matches no test (a typo) is a failure, not 1..0.
		for t in "${ONLY_TESTS[@]}"; do
			grep -qFx "test_$t" <<<"$tests" ||
				{ echo "${0##*/}: no test named '$t'" >&2; echo "1..0"; return 1; }
		done
		tests=$(grep -Fxf <(printf 'test_%s\n' "${ONLY_TESTS[@]}") <<<"$tests")
	fi
	echo "1..$(grep -c . <<<"$tests")"
	if [ -n "$FILE_SKIP_REASON" ]; then
		for t in $tests; do
			echo "ok - ${0##*/}: ${t#test_} # SKIP $FILE_SKIP_REASON"
		done
		return 0
	fi
	SKIP_REASON_FILE=$(mktemp)
	for t in $tests; do
		T=$(mktemp -d)
		: >"$SKIP_REASON_FILE"
		(cd "$T" && "$t")
		status=$?
		rm -rf "$T"
		if [ $status -eq 0 ]; then
			echo "ok - ${0##*/}: ${t#test_}"
		elif [ $status -eq 77 ] && [ -s "$SKIP_REASON_FILE" ]; then
			echo "ok - ${0##*/}: ${t#test_} # SKIP $(head -n1 "$SKIP_REASON_FILE")"
		else
			echo "not ok - ${0##*/}: ${t#test_}"
			failed=1
		fi
	done
	rm -f "$SKIP_REASON_FILE"
	return $failed
}

# stub_env: makes the fake root $T/root one that slctl --run-tools can chroot
# into: a static busybox as /bin/sh and the utilities, the stubs of
# tests/stubs in /usr/local/sbin (first on the root's PATH; slctl detects
# tools only in /usr/sbin, /usr/bin, /sbin and /bin, so detection still sees
# the fixture's own files). $STUB_LOG is the stubs' argument log as seen
# from here. Nothing of the running system is run.
stub_env() {
	local a bb
	require_root "mknod and chroot, to run the root's own tools"
	require_cmd busybox "a static one: busybox-static"
	bb=$(command -v busybox)
	mkdir -p "$T/root/bin" "$T/root/usr/local/sbin" "$T/root/run" "$T/root/tmp" "$T/root/dev"
	cp "$bb" "$T/root/bin/busybox"
	for a in $("$bb" --list); do
		[ -e "$T/root/bin/$a" ] || ln -s busybox "$T/root/bin/$a"
	done
	[ -e "$T/root/dev/null" ] || mknod -m 666 "$T/root/dev/null" c 1 3
	cp -P "$TOP"/tests/stubs/* "$T/root/usr/local/sbin/"
	export STUB_LOG="$T/root/run/slctl-stub.log"
	: >"$STUB_LOG"
}

# sld_tokens TEXT: the split_lock_detect words of TEXT, one per line.
sld_tokens() {
	tr ' \t' '\n\n' <<<"$1" | grep '^"\?split_lock_detect' || true
}

# expect_unchanged HASHFILE: the tree under $T/root is byte-identical.
expect_unchanged() {
	tree_hash "$T/root" | diff -u "$1" - >&2 || fail "the tree under the root changed"
}

# expect_one_sentence: stderr is one line ending in a period.
expect_one_sentence() {
	[ "$(grep -c . <<<"$err")" -eq 1 ] || fail "stderr is not one line: $err"
	[[ $err == *. ]] || fail "stderr does not end a sentence: $err"
}
