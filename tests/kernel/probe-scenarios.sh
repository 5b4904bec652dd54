#!/bin/sh
# slctl probe in the test VM, self-contained so that tests/kernel/run can
# hook it in (the kernel needs CONFIG_X86_SPLIT_LOCK_INJECT, CONFIG_MODULES=y
# and CONFIG_X86_MSR=m, with its modules installed under the initramfs's
# /lib/modules/$(uname -r) by `make modules_install INSTALL_MOD_PATH=`):
#
#   in the guest, from init.sh after a scenario's own steps:
#       sh /probe-scenarios.sh guest SCENARIO
#   on the host, on the console log of that boot:
#       tests/kernel/probe-scenarios.sh check SCENARIO CONSOLE_LOG
#
# The guest part prints each probe's JSON between "@@@ probe-begin NAME"
# and "@@@ probe-end NAME rc=N"; the host part checks them with jq and
# prints "ok - probe: SCENARIO NAME" or "not ok - ..." lines like tests/run.
# Expected, per boot mode (split_lock_detect=):
#   warn:  --simulate gives misery with kernel.split_lock_mitigate=1, warn
#          with 0; --msr loads msr.ko through libkmod and reports the MSRs
#          TCG lacks as unavailable
#   fatal: --simulate gives sigbus
#   off:   --simulate gives none
# and in every mode a real split lock gives none (TCG has no detection).
set -u

guest_probe() { # NAME ARGS...
	name=$1
	shift
	echo "@@@ probe-begin $name"
	# Messages apart, so that only the JSON lies between the markers.
	slctl --json probe "$@" 2>/tmp/probe.err
	echo "@@@ probe-end $name rc=$?"
	sed "s/^/@@@ probe-stderr $name /" /tmp/probe.err
}

guest() {
	mitigate=/proc/sys/kernel/split_lock_mitigate
	guest_probe real
	case $1 in
	warn)
		echo 1 >$mitigate
		guest_probe simulate-misery --simulate
		echo 0 >$mitigate
		guest_probe simulate-warn --simulate
		echo 1 >$mitigate
		guest_probe msr --msr
		echo "@@@ probe-lsmod $(grep -c '^msr ' /proc/modules)"
		;;
	fatal | off)
		guest_probe simulate --simulate
		;;
	esac
}

# The JSON of probe NAME from the console log, or nothing.
probe_json() { # LOG NAME
	tr -d '\r' <"$1" | sed -n "/^@@@ probe-begin $2\$/,/^@@@ probe-end $2 /p" | sed '1d;$d'
}

probe_rc() { # LOG NAME
	tr -d '\r' <"$1" | sed -n "s/^@@@ probe-end $2 rc=//p"
}

failures=0
expect() { # SCENARIO LOG NAME JQ-FILTER (must print true)
	json=$(probe_json "$2" "$3")
	if [ "$(probe_rc "$2" "$3")" = 0 ] &&
	   [ "$(printf '%s\n' "$json" | jq -r "$4" 2>/dev/null)" = true ]; then
		echo "ok - probe: $1 $3"
	else
		echo "not ok - probe: $1 $3"
		echo "    expected $4 of: $json" >&2
		failures=$((failures + 1))
	fi
}

check() { # SCENARIO LOG
	expect "$1" "$2" real '.detected == false and .action == "none" and .simulated == false'
	case $1 in
	warn)
		expect "$1" "$2" simulate-misery \
			'.simulated and .action == "misery" and .trap == "ac" and .delay_ms >= 9'
		expect "$1" "$2" simulate-warn \
			'.simulated and .action == "warn" and .trap == "ac" and .delay_ms < 1'
		expect "$1" "$2" msr \
			'(.msr | length) > 0 and all(.msr[]; .split_lock_armed == null and .error != null)'
		if tr -d '\r' <"$2" | grep -q '^@@@ probe-lsmod 1$'; then
			echo "ok - probe: $1 msr module loaded"
		else
			echo "not ok - probe: $1 msr module loaded"
			failures=$((failures + 1))
		fi
		;;
	fatal)
		expect "$1" "$2" simulate '.simulated and .action == "sigbus" and .trap == "ac"'
		;;
	off)
		expect "$1" "$2" simulate '.simulated and .action == "none" and .detected == false'
		;;
	esac
	[ "$failures" -eq 0 ]
}

case ${1-} in
guest) guest "${2:?scenario}" ;;
check) check "${2:?scenario}" "${3:?console log}" ;;
*) echo "usage: $0 guest SCENARIO | check SCENARIO CONSOLE_LOG" >&2; exit 2 ;;
esac
