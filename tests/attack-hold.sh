# Sourced by the attack tests of the helper's and root's waits on kernel
# locks a user holds (run-attacks-locks.sh, run-attacks-dirs.sh): the
# user's FUSE file system (tests/fake/hangfs.c), the holds it makes, and
# the checks that a command ends.
HANGFS=$TOP/$BUILD_DIR/tests/hangfs

# hangfs mounted on $T/mnt for nobody and served as nobody.
# With NOFLUSH_FLAG, FLUSH is no longer answered once that file exists.
hangfs_up() { # [NOFLUSH_FLAG]
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	[ -x "$HANGFS" ] || fail "$HANGFS is not built (make tests)"
	mkdir -p "$T/mnt"
	chmod 755 "$T" "$T/mnt"
	"$HANGFS" serve "$T/mnt" "$NOBODY" "$(id -g nobody)" ${1:+"$1"} 2>>"$T/hangfs.log" &
	hangfs_server=$!
	disown "$hangfs_server" # killed at the end: no "Killed" notice
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q " $T/mnt " /proc/self/mountinfo && return 0
		sleep 0.05
	done
	fail "hangfs did not mount: $(cat "$T/hangfs.log")"
}

hangfs_down() {
	[ -z "${holder:-}" ] || kill -KILL "$holder" 2>/dev/null
	[ -z "${hangfs_server:-}" ] || kill -KILL "$hangfs_server" 2>/dev/null
	umount -l "$T/mnt" 2>/dev/null
	true
}

# A thread of nobody's parked in a FUSE fault while it holds FILE's lock.
hold_lock_of() { # FILE
	"${AS_NOBODY[@]}" "$HANGFS" hold "$1" "$T/mnt/f" 2>>"$T/hangfs.log" &
	holder=$!
	disown "$holder"
	wait_for_the_holder "$holder"
}

wait_for_the_holder() { # PID
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q "READ from pid $1" "$T/hangfs.log" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "the holder did not reach the FUSE read: $(cat "$T/hangfs.log")"
}

# A process of nobody's in getdents64(DIR) into a FUSE-backed buffer:
# DIR's lock held shared for as long as the user likes.
hold_dir() { # DIR
	"${AS_NOBODY[@]}" "$HANGFS" holddir "$1" "$T/mnt/f" 2>>"$T/hangfs.log" &
	holder=$!
	disown "$holder"
	wait_for_the_holder "$holder"
}

cleanup() {
	end_helpers
	[ -z "${writer:-}" ] || kill -KILL "$writer" 2>/dev/null
	hangfs_down
	sleep 0.3
	umount -l "$T/root/run" 2>/dev/null
	true
}

# /run as on a running system: a tmpfs (negative dentries are not kept,
# so every lookup of a missing name takes the directory's lock shared).
# FRESH: no /run/slctl yet (a boot where slctl has not run).
tmpfs_run() { # [fresh]
	mount -t tmpfs -o mode=755 rev5 "$T/root/run" || skip "cannot mount a tmpfs"
	[ "${1:-}" = fresh ] || install -d -m 0700 "$T/root/run/slctl" "$T/root/run/slctl/leases"
}

# The user's two moves, no authorization needed: /run's lock held shared
# (getdents64 into a FUSE-backed buffer), then a mkdir in /run, which
# takes the lock exclusively before it checks permissions and so waits,
# queued: from then on every reader of /run's lock waits too.
hold_run_with_a_queued_writer() { # [DIR, default ROOT/run]
	local dir=${1:-$T/root/run} i
	"${AS_NOBODY[@]}" "$HANGFS" holddir "$dir" "$T/mnt/f" 2>>"$T/hangfs.log" &
	holder=$!
	disown "$holder"
	wait_for_the_holder "$holder"
	"${AS_NOBODY[@]}" mkdir "$dir/queued-writer" 2>/dev/null &
	writer=$!
	disown "$writer"
	for ((i = 0; i < 40; i++)); do
		[ "$(awk '{print $3}' "/proc/$writer/stat" 2>/dev/null)" = D ] && return 0
		sleep 0.05
	done
	fail "the user's mkdir is not queued on the lock of $dir"
}

# The attack's setting with ROOT/run on a tmpfs, as on a running system.
set_up_a_tmpfs_run() { # WHY-ROOT-IS-NEEDED
	require_root "$1"
	copy_fixture stock-ac
	unprivileged_env
	trap cleanup EXIT
	hangfs_up
	tmpfs_run
}

# PID must end within SECONDS (SIGKILL after that; a D-state wait outlives it).
expect_it_ends() { # PID SECONDS WHAT
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0
		sleep 0.1
	done
	local st wchan
	kill -KILL "$1" 2>/dev/null
	sleep 0.5
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
	wchan=$(cat "/proc/$1/wchan" 2>/dev/null)
	fail "$3 still waits after $2 s; after SIGKILL: state $st, in $wchan"
}
