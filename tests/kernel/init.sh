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
# Series v3 (slctl_v3 on the command line): "ac" is an #AC that arrives
# whoever armed it, "split" a split lock that traps only where detection
# is armed; the per-process counts are the trace events of the process.
v3=
case " $(cat /proc/cmdline) " in *" slctl_v3 "*) v3=1 ;; esac
tracing=/sys/kernel/tracing
say "begin $scenario"
say "mode [$(cat /sys/kernel/split_lock/mode)]"
say "features [$(cat /sys/kernel/split_lock/features)]"
show_mitigate
if [ -d $tracing/events/split_lock/split_lock_trap ]; then
	[ -n "$v3" ] && echo 1 > $tracing/options/record-tgid
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
	# v3: a split lock in "off" is not trapped; "ac" is the foreign-ac
	# scenario.
	kind=ac
	[ -n "$v3" ] && kind=split
	run slinject $kind 5
	run slinject db 5
	;;
ratelimit)
	run slinject db 25
	if [ -n "$v3" ]; then
		# An #AC that ratelimit did not arm: SIGBUS, not a silent retry.
		run slinject ac 1
	else
		run slinject ac 3
	fi
	;;
split)
	# N split locks of one task: fewer traps in warn (detection off on the
	# core for 2 jiffies after each), N in seq (off for one instruction).
	run slinject split 20
	run slinject write /sys/kernel/split_lock/mode fatal
	run slinject write /sys/kernel/split_lock/mode warn
	run slinject write /sys/kernel/split_lock/mode seq
	run slinject split 20
	run slinject -t 3 split 5
	;;
foreign-ac)
	# "off": an #AC armed by someone else (a hypervisor) is delivered.
	run slinject ac 3
	run slinject split 5
	;;
runtime-arm)
	# Booted "off": #AC is not armed at run time; #DB is.
	run slinject write /sys/kernel/split_lock/mode warn
	run slinject write /sys/kernel/split_lock/mode seq
	run slinject write /sys/kernel/split_lock/mode fatal
	run slinject write /sys/kernel/split_lock/mode off
	run slinject write /sys/kernel/split_lock/mode ratelimit:10
	run slinject write /sys/kernel/split_lock/mode ratelimit:10
	say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
	run slinject write /sys/kernel/split_lock/mode off
	say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
	;;
exempt)
	# Kept across an exec, dropped by a setuid exec.
	run sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock && exec slinject asuser 1000 /bin/slinject proc'
	run sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock && exec slinject asuser 1000 /bin/slinject-suid proc'
	# Revoked through the process it was granted to, for its child too.
	mkfifo /tmp/go
	sh -c 'echo "misery_exempt 1" > /proc/$$/split_lock; sh -c "read x < /tmp/go; exec slinject ac 20"; true' \
		>/tmp/tree.out 2>&1 &
	tree=$!
	sleep 1
	run slinject write /proc/$tree/split_lock "misery_exempt 0"
	echo go > /tmp/go
	wait
	say "run tree"
	cat /tmp/tree.out
	say "exit 0"
	;;
release)
	# Throttled tasks are released by a change of the mode...
	run slinject write /sys/kernel/split_lock/mode ratelimit:1
	slinject -t 6 db 2 >/tmp/mode.out 2>&1 &
	sleep 2
	run slinject write /sys/kernel/split_lock/mode warn
	wait
	say "run mode-released"
	cat /tmp/mode.out
	say "exit 0"
	# ... and by an exemption of their process.
	run slinject write /sys/kernel/split_lock/mode ratelimit:1
	slinject -t 6 db 2 >/tmp/exempt.out 2>&1 &
	throttled=$!
	sleep 2
	run slinject write /proc/$throttled/split_lock "misery_exempt 1"
	wait
	say "run exempt-released"
	cat /tmp/exempt.out
	say "exit 0"
	;;
step)
	# v4: the single step of "seq" over a split lock. An #AC taken again
	# during the step (the SMT sibling re-armed the core) must not leave
	# the kernel's TF to the task, which would die of SIGTRAP.
	run slinject retrap 10
	# A uprobe on the instruction the step runs: uprobes steps it out of
	# line and must not take the step's TF for the task's (SIGTRAP).
	off=$(slinject probe-offset)
	if [ -n "$off" ] &&
	   echo "p:slstep /bin/slinject:$off" > $tracing/uprobe_events &&
	   echo 1 > $tracing/events/uprobes/slstep/enable; then
		say "uprobe at $off"
		run slinject probed 10
		echo 0 > $tracing/events/uprobes/slstep/enable
		say "uprobe hits $(grep -c ' slstep: ' $tracing/trace)"
	fi
	# Whatever came before, split locks still trap one by one.
	run slinject split 10
	;;
step-v5)
	# v5, the review of v4. H1: the stepped instruction is rt_sigreturn,
	# whose frame returns to the same address with TF clear; the split
	# lock made there must trap. M2: the stepped instruction page-faults
	# first; the step goes on and ends at its own trap.
	run slinject sigreturn 10
	run slinject fault 10
	;;
guest-v6)
	# v6, the review of v5 (F2): a KVM guest's split lock #AC in "seq",
	# through the hook as its VMM: SIGBUS, as in "fatal", not the 2
	# jiffies without detection of "warn".
	run slinject guest 1
	;;
kconfig-mitigate-default-n)
	run slinject ac 30
	;;
runtime)
	# warn -> off -> warn through the mode file, with traps in between.
	run slinject ac 10
	run slinject write /sys/kernel/split_lock/mode off
	say "mode-now [$(cat /sys/kernel/split_lock/mode)]"
	# v3: split locks, which "off" does not trap ("ac", an #AC that
	# arrives anyway, gets SIGBUS there: the foreign-ac scenario).
	kind=ac
	[ -n "$v3" ] && kind=split
	run slinject $kind 10
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
count)
	# slctl run --check: the traps of CMD's tree, each one, from the
	# tracepoint; nobody else's. slinject -t N runs N threads.
	if [ -x /usr/bin/slctl ]; then
		run slctl run --check -- slinject ac 3
		run slctl run --check -- true
		run slctl run --check --max 5 -- slinject db 4
		run slctl run --check --report /tmp/report.json -- \
			sh -c 'slinject ac 2; slinject -t 2 db 1; true'
		sed 's/^/@@@ report /' /tmp/report.json
		slinject ac 5 >/tmp/other.out 2>&1 &
		run slctl run --check -- sleep 2
		wait
		run slctl run --check --no-misery -- slinject ac 3
		run slctl run --check -- sh -c 'slinject ac 1; exit 7'
		run slctl run --check --report /tmp/report.xml --report-format junit -- slinject db 1
		sed 's/^/@@@ junit /' /tmp/report.xml
		# No exec under the gate gains privileges (the kernel would stop
		# counting it), and what CMD leaves running is waited for.
		run slctl run --check -- grep NoNewPrivs /proc/self/status
		run slctl run --check -- sh -c '(sleep 1; slinject ac 2) & exit 0'
		# seq traps every split lock: the count is exact there.
		run slinject write /sys/kernel/split_lock/mode seq
		run slctl run --check --report /tmp/seq.json -- slinject ac 2
		sed 's/^/@@@ seqreport /' /tmp/seq.json
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
	if [ -n "$v3" ]; then
		grep 'split_lock_trap:' $tracing/trace | sed 's/^/@@@ trace /'
	else
		grep 'split_lock_trap:' $tracing/trace | head -3 | sed 's/^/@@@ trace /'
	fi
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
# reboot -f does not wait for the serial port to send what is queued.
slinject drain
reboot -f
