# slctl probe: a real split lock on this machine, the injection hook, the
# MSRs through fake /dev/cpu/N/msr files, libkmod's lookup of the msr module
# in fake module trees made by the real depmod, and the refusals.
source "$(dirname "$0")/../lib.sh"
file_requires_cmd jq "it reads the --json output"

REL=6.1.0-probe-test
MODDIR=lib/modules/$REL

# The CPU's flags decide what a real split lock does here.
cpu_detects() {
	grep -m1 '^flags' /proc/cpuinfo | grep -qw -e split_lock_detect -e bus_lock_detect
}

# put_msr CPU MSR VALUE: the register's 8 bytes at its offset, as the driver reads.
put_msr() {
	local file=$T/root/dev/cpu/$1/msr
	mkdir -p "${file%/*}"
	[ -f "$file" ] || : >"$file"
	perl -e 'print pack("Q<", $ARGV[0])' "$3" |
		dd of="$file" bs=1 seek=$(($2)) conv=notrunc status=none
}

# cpu_regs CPU SUPPORTED ARMED BUS_ARMED: the detector's three registers.
cpu_regs() {
	put_msr "$1" 0xcf $(($2 << 5))
	put_msr "$1" 0x33 $(($3 << 29))
	put_msr "$1" 0x1d9 $(($4 << 2))
}

# fake_module: a msr.ko in the root's module tree, indexed by the real depmod.
fake_module() {
	require_cmd depmod kmod
	mkdir -p "$T/root/$MODDIR/kernel/arch/x86/kernel"
	cc -c -o "$T/root/$MODDIR/kernel/arch/x86/kernel/msr.ko" "$FIXTURES/probe-msr/fake-msr.c" ||
		fail "cannot build the fake module"
	depmod -b "$T/root" "$REL" 2>/dev/null || fail "depmod failed"
}

# live_mode: the detector's mode now, as slctl status reads it.
live_mode() {
	"$SLCTL" --json status | jq -r '.mode.current'
}

# On a CPU that detects, the outcome follows the mode; elsewhere nothing
# can be detected. Every branch asserts: a CPU with detection is exactly
# where a user relies on the probe.
test_real_split_lock_reports_this_machines_outcome_and_costs() {
	local mode
	run "$SLCTL" --json probe
	expect_rc 0
	expect_json '.version' 1
	expect_json '.simulated' false
	expect_json '.msr' null
	expect_json '.msr_summary' null
	if ! cpu_detects || [ "$(live_mode)" = off ]; then
		# A bus lock costs far more than a cache-line lock, whatever the machine.
		expect_json '.split_lock_ns > 2 * .aligned_lock_ns and .aligned_lock_ns > 0' true
		if [ "$(nproc)" -gt 1 ]; then
			expect_json '.stall_percent | type' number
		else
			expect_json '.stall_percent' null
		fi
		expect_json '.detected' false
		expect_json '.action' none
		expect_json '.trap' null
		expect_json '.delay_ms' null
		expect_json '.delayed_by' null
	else
		mode=$(live_mode)
		expect_json '.detected' true
		expect_json '.trap == "ac" or .trap == "db"' true
		case $mode in
		fatal) expect_json '.action' sigbus ;;
		*) expect_json '.action == "warn" or .action == "misery"' true
		   expect_json '.delay_ms | type' number ;;
		esac
		# Trapped split locks would time the penalty, not the lock.
		expect_json '.split_lock_ns' null
		expect_json '.stall_percent' null
	fi
}

test_text_report_says_what_happened_and_what_it_cost() {
	run "$SLCTL" probe
	expect_rc 0
	if ! cpu_detects || [ "$(live_mode)" = off ]; then
		expect_out "not detected (nothing logged, no delay)."
		expect_out "ns a split-locked add"
	elif [ "$(live_mode)" = fatal ]; then
		expect_out "and killed with SIGBUS."
	else
		grep -qE "detected.* and (warned|penalized)" <<<"$out" ||
			fail "no verdict of a detected split lock: $out"
	fi
	if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/dmesg_restrict)" = 1 ]; then
		# A user cannot see whether the kernel warned; the probe says so.
		expect_err "reading it needs CAP_SYSLOG."
		expect_one_sentence
	else
		[ -z "$err" ] || fail "stderr not empty: $err"
	fi
}

test_the_child_is_named_and_pinned() {
	# The kernel logs the comm the probe set; strace shows the calls.
	require_cmd strace
	# LeakSanitizer cannot run under ptrace: no leak check for this run.
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=prctl,sched_setaffinity "$SLCTL" probe
	expect_rc 0
	expect_err 'PR_SET_NAME, "slctl-probe"'
	expect_err "sched_setaffinity("
}

test_simulate_is_refused_without_the_injection_hook() {
	copy_fixture vm-no-detect
	run "$SLCTL" --root "$T/root" probe --simulate
	expect_rc 4
	expect_one_sentence
	expect_err "/sys/kernel/debug/split_lock/inject"
	[ -z "$out" ] || fail "stdout not empty: $out"
}

test_simulate_writes_the_trap_kind_to_the_hook_and_says_simulated() {
	copy_fixture vm-no-detect
	mkdir -p "$T/root/sys/kernel/debug/split_lock"
	: >"$T/root/sys/kernel/debug/split_lock/inject"
	run "$SLCTL" --root "$T/root" --json probe --simulate=db
	expect_rc 0
	expect_json '.simulated' true
	# A file is not the kernel's hook: nothing happens to the writer.
	expect_json '.action' none
	[ "$(cat "$T/root/sys/kernel/debug/split_lock/inject")" = dbdbdb ] ||
		fail "hook got '$(cat "$T/root/sys/kernel/debug/split_lock/inject")'"
}

test_bad_arguments_are_usage_errors() {
	run "$SLCTL" probe --simulate=xx
	expect_rc 2
	expect_err "'xx' is not 'ac' or 'db'."
	run "$SLCTL" probe now
	expect_rc 2
}

test_msr_bits_per_cpu_and_a_disarmed_cpu_in_the_summary() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	for c in 0 1 2; do cpu_regs $c 1 1 0; done
	cpu_regs 3 1 0 0
	run "$SLCTL" --root "$T/root" --json probe --msr
	expect_rc 0
	expect_json '.msr | length' 4
	expect_json '.msr[0] | [.cpu, .split_lock_supported, .split_lock_armed, .bus_lock_armed, .error] | tostring' \
		'[0,true,true,false,null]'
	expect_json '.msr[3] | [.cpu, .split_lock_supported, .split_lock_armed] | tostring' '[3,true,false]'
	expect_json '.msr_summary' \
		'Split lock detection armed on CPUs 0-2; CPU 3 disarmed (a penalty in progress?).'
	run "$SLCTL" --root "$T/root" probe --msr
	expect_rc 0
	expect_out "MSRs: Split lock detection armed on CPUs 0-2; CPU 3 disarmed"
}

test_msrs_a_cpu_lacks_are_unavailable_not_an_error() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	echo 0-2 >"$T/root/sys/devices/system/cpu/online"
	cpu_regs 0 1 1 1
	cpu_regs 1 1 1 1
	# A CPU without the registers (the driver's EIO; a short read from a file).
	mkdir -p "$T/root/dev/cpu/2"
	: >"$T/root/dev/cpu/2/msr"
	run "$SLCTL" --root "$T/root" --json probe --msr
	expect_rc 0
	expect_json '.msr[2] | [.split_lock_supported, .split_lock_armed, .bus_lock_armed] | tostring' \
		'[null,null,null]'
	expect_json '.msr[2].error' \
		'IA32_CORE_CAPABILITIES unavailable, MSR_TEST_CTRL unavailable, IA32_DEBUGCTL unavailable'
	expect_json '.msr[1].error' null
	expect_json '.msr_summary' \
		'Split lock detection armed on CPUs 0-1; bus lock detection armed on CPUs 0-1; MSRs unavailable on CPU 2.'
}

test_offline_cpus_are_skipped_and_lists_keep_their_gaps() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	echo 0-1,3 >"$T/root/sys/devices/system/cpu/online"
	for c in 0 1 3; do cpu_regs $c 1 1 0; done
	run "$SLCTL" --root "$T/root" --json probe --msr
	expect_rc 0
	expect_json '[.msr[].cpu] | tostring' '[0,1,3]'
	expect_json '.msr_summary' 'Split lock detection armed on CPUs 0-1,3.'
}

test_unreadable_kernel_log_makes_the_report_incomplete() {
	require_root "setpriv to become another user"
	copy_fixture vm-no-detect
	chmod 755 "$T"
	chmod -R a+rX "$T/root"
	chmod 600 "$T/root/dev/kmsg"
	run setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$SLCTL" --root "$T/root" --json probe
	expect_rc 0
	expect_json '.complete' false
	expect_one_sentence
	expect_err "needs CAP_SYSLOG"
}

test_builtin_msr_from_modules_builtin_is_found_first() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	mkdir -p "$T/root/$MODDIR"
	printf 'kernel/arch/x86/kernel/cpuid.ko\nkernel/arch/x86/kernel/msr.ko\n' >"$T/root/$MODDIR/modules.builtin"
	run "$SLCTL" --root "$T/root" probe --msr
	expect_rc 4
	expect_one_sentence
	expect_err "the msr driver is built into this kernel, but /dev/cpu/0/msr is missing"
}

test_builtin_msr_in_depmods_index_is_found_by_libkmod() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	mkdir -p "$T/root/$MODDIR"
	printf 'kernel/arch/x86/kernel/msr.ko\n' >"$T/root/$MODDIR/modules.builtin"
	printf 'msr.file=arch/x86/kernel/msr\0msr.license=GPL\0' >"$T/root/$MODDIR/modules.builtin.modinfo"
	depmod -b "$T/root" "$REL" 2>/dev/null || fail "depmod failed"
	# Only depmod's index (modules.builtin.bin) is left to say it: libkmod's part.
	rm "$T/root/$MODDIR/modules.builtin"
	run "$SLCTL" --root "$T/root" probe --msr
	expect_rc 4
	expect_err "the msr driver is built into this kernel"
}

test_loadable_msr_is_found_by_libkmod_and_not_loaded_for_another_root() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	fake_module
	run "$SLCTL" --root "$T/root" probe --msr
	expect_rc 4
	expect_one_sentence
	expect_err "the msr module $T/root/$MODDIR/kernel/arch/x86/kernel/msr.ko is for the kernel of the tree under $T/root"
}

test_missing_msr_driver_is_unsupported() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	mkdir -p "$T/root/$MODDIR"
	depmod -b "$T/root" "$REL" 2>/dev/null || fail "depmod failed"
	run "$SLCTL" --root "$T/root" probe --msr
	expect_rc 4
	expect_one_sentence
	expect_err "this kernel has no msr driver"
}

test_unprivileged_user_is_told_the_missing_capability() {
	require_root "setpriv to become another user"
	copy_fixture probe-msr
	cpu_regs 0 1 1 0
	chmod 755 "$T"
	chmod -R a+rX "$T/root"
	run setpriv --reuid=nobody --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$SLCTL" --root "$T/root" probe --msr
	expect_rc 3
	expect_one_sentence
	expect_err "reading the MSRs needs CAP_SYS_RAWIO"
}

test_loading_the_module_needs_cap_sys_module() {
	require_root "CAP_SYS_RAWIO to read the MSRs"
	copy_fixture probe-msr
	fake_module
	run setpriv --inh-caps=-sys_module --bounding-set=-sys_module \
		"$SLCTL" --root "$T/root" probe --msr
	expect_rc 3
	expect_one_sentence
	expect_err "loading the msr module needs CAP_SYS_MODULE"
}

test_offenders_label_the_probes_own_events() {
	copy_fixture vm-no-detect
	cat >>"$T/root/dev/kmsg" <<-'LOG'
	4,900,5000000,-;x86/split lock detection: #AC: slctl-probe/4242 took a split_lock trap at address: 0x401136
	4,901,6000000,-;x86/split lock detection: #AC: game.exe/4300 took a split_lock trap at address: 0x140001000
	LOG
	run "$SLCTL" --root "$T/root" --json offenders
	expect_rc 0
	expect_json '[.offenders[] | select(.comm == "slctl-probe") | .probe] | tostring' '[true]'
	expect_json '[.offenders[] | select(.comm == "game.exe") | .probe] | tostring' '[false]'
	run "$SLCTL" --root "$T/root" offenders
	expect_rc 0
	expect_out "warn (probe)"
}

test_bash_completion_offers_the_probes_options() {
	local offered
	offered=$(bash -c 'source /usr/share/bash-completion/bash_completion 2>/dev/null
		source "$0"
		COMP_WORDS=(slctl probe --); COMP_CWORD=2; COMP_LINE="slctl probe --"; COMP_POINT=${#COMP_LINE}
		_slctl; echo "${COMPREPLY[*]}"' "$TOP/completions/slctl.bash")
	grep -q -- "--simulate --msr --help" <<<"$offered" || fail "offered: $offered"
}

run_tests
