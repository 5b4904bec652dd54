#!/bin/sh
# /init of the test initramfs built by tests/kernel/run. The scenario comes
# from slctl_scenario= on the kernel command line; every line meant for the
# host starts with "@@@ " (slinject's own lines with "SLINJECT ").
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t devtmpfs dev /dev 2>/dev/null
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
exec </dev/console >/dev/console 2>&1
# Kernel lines on the console would land in the middle of the scenario's
# own lines; they are read from the log buffer at the end instead.
dmesg -n 1

say() { echo "@@@ $*"; }
run() {
	say "run $*"
	"$@"
	say "exit $?"
}
show_mitigate() { say "mitigate $(cat /proc/sys/kernel/split_lock_mitigate)"; }

scenario=$(sed -n 's/.*slctl_scenario=\([^ ]*\).*/\1/p' /proc/cmdline)
tracing=/sys/kernel/tracing
say "begin $scenario"
say "mode [$(cat /sys/kernel/split_lock/mode)]"
say "features [$(cat /sys/kernel/split_lock/features)]"
show_mitigate
if [ -d $tracing/events/split_lock/split_lock_trap ]; then
	echo 1 > $tracing/events/split_lock/split_lock_trap/enable && say "trace on"
fi

case "$scenario" in
warn)
	run slinject ac 30
	run slinject write /proc/sys/kernel/split_lock_mitigate 0
	show_mitigate
	run slinject ac 30
	run slinject -t 3 ac 5
	run slinject db 3
	run slinject peek 1
	;;
seq|kconfig-default-seq)
	run slinject write /proc/sys/kernel/split_lock_mitigate 0
	show_mitigate
	run slinject ac 30
	;;
fatal)
	run slinject ac 1
	run slinject db 1
	;;
off)
	run slinject ac 5
	run slinject db 5
	;;
ratelimit)
	run slinject db 25
	run slinject ac 3
	;;
kconfig-mitigate-default-n)
	run slinject ac 30
	;;
runtime)
	# warn -> off -> warn through the mode file, with traps in between.
	run slinject ac 10
	run slinject write /sys/kernel/split_lock/mode off
	say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
	run slinject ac 10
	run slinject write /sys/kernel/split_lock/mode warn
	say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
	run slinject ac 10
	run slinject write /sys/kernel/split_lock/mode bogus
	# An exempt burst while another task, started first, is penalized.
	slinject ac 30 >/tmp/penalized.out 2>&1 &
	run sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock && exec slinject ac 30'
	wait
	say "run penalized"
	cat /tmp/penalized.out
	say "exit 0"
	show_mitigate
	# Inherited across fork and exec: a grandchild of the marked shell.
	run sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock && sh -c "slinject ac 30; true"'
	if [ -x /usr/bin/slctl ]; then
		run slctl run --no-misery -- slinject ac 30
		run slctl mode off --now
		say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
		run slctl mode warn --now
		say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
	fi
	;;
runtime-ratelimit)
	run slinject write /sys/kernel/split_lock/mode ratelimit:10
	run sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock && exec slinject db 25'
	run slinject db 25
	;;
runtime-seq)
	# A process marked before the switch to seq, waiting to run.
	mkfifo /tmp/go
	sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock; read x < /tmp/go; exec slinject ac 20' \
		>/tmp/marked.out 2>&1 &
	run slinject write /proc/sys/kernel/split_lock_mitigate 0
	run slinject write /sys/kernel/split_lock/mode seq
	show_mitigate
	run slinject write /sys/kernel/split_lock/mode warn
	run slinject write /proc/self/split_lock "misery_exempt 1"
	run slinject write /proc/sys/kernel/split_lock_mitigate 0
	echo go > /tmp/go
	wait
	say "run marked"
	cat /tmp/marked.out
	say "exit 0"
	;;
esac

dmesg | grep -E 'split lock detection|split_lock|bus_lock|Oops|BUG:|WARNING:|Call Trace|Kernel panic' |
	sed 's/^/@@@ dmesg /'
if [ -d /sys/kernel/split_lock/stats ]; then
	# v2: one file per counter, v1's names first in v1's order.
	for f in ac_traps db_traps misery_delays sigbus warnings_suppressed \
		 $(ls /sys/kernel/split_lock/stats); do
		case " $done_stats " in *" $f "*) continue ;; esac
		done_stats="$done_stats $f"
		v=$(cat /sys/kernel/split_lock/stats/$f)
		if [ "$(wc -l < /sys/kernel/split_lock/stats/$f)" = 1 ] &&
		   [ -n "$v" ] && [ -z "$(echo "$v" | tr -d 0-9)" ]; then
			say "stats $f $v"
		else
			say "stats-bad $f"
		fi
	done
else
	sed 's/^/@@@ stats /' /sys/kernel/split_lock/stats
fi
if [ -d $tracing/events/split_lock/split_lock_trap ]; then
	say "trace_events $(grep -c 'split_lock_trap:' $tracing/trace)"
	grep 'split_lock_trap:' $tracing/trace | head -3 | sed 's/^/@@@ trace /'
fi
if [ -x /usr/bin/slctl ]; then
	say "slctl-status-begin"
	slctl --json status
	say "slctl-status-end rc=$?"
	say "slctl-offenders-begin"
	slctl offenders --json
	say "slctl-offenders-end rc=$?"
fi
say "end $scenario"
reboot -f
