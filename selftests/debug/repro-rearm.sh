#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the multi-threaded TCG crash in selftests/debug/README.md
# (not a kptrace bug): kpt_test floods kpt_test_func from a bound kthread
# per CPU while a kprobe on it is armed and disarmed in a loop, by
#   HOW=module   insmod/rmmod of KO with ARGS (default kptrace.ko on
#                kpt_test_func; the control: KO=.../kpt_hazard_ctl.ko
#                ARGS='sym=kpt_test_func slow=1')
#   HOW=runtime  kptrace loaded once, a probe added and deleted through
#                /dev/kptrace
#   HOW=ftrace   ftrace's kprobe_events, a probe enabled and disabled
#   HOW=ftrace-ret  ftrace's kprobe_events alone, no flood: issue 24's
#                cycle, an r: probe added, enabled, 20000 calls started,
#                disabled and removed while they run
#
#   VM_TCG_THREAD=multi selftests/vm/run-vm.sh --mode cmd --timeout 300 \
#       --guest-cmd 'HOW=ftrace sh /selftests/debug/repro-rearm.sh'
#
# Exits 0 after SECS seconds (default 90) without a crash; the harness
# fails the run on the Oops.
cd /selftests || exit 1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
T=/sys/kernel/debug/tracing
KO=${KO:-/kptrace.ko}
ARGS=${ARGS:-name=kpt_test_func args=2 stack=4 bufsize_kb=64}
HOW=${HOW:-module}
insmod test_modules/kpt_test.ko || exit 1
case $HOW in
runtime) insmod /kptrace.ko || exit 1 ;;
ftrace) echo 'p:kpt/t kpt_test_func' > $T/kprobe_events || exit 1 ;;
esac
rm -f /tmp/repro.stop
[ "$HOW" = ftrace-ret ] || (while [ ! -e /tmp/repro.stop ]; do
	echo 20000 > /sys/kernel/debug/kpt_test/call_all
done) &
i=0
start=$(date +%s)
while [ $(($(date +%s) - start)) -lt "${SECS:-90}" ]; do
	case $HOW in
	module)
		# shellcheck disable=SC2086
		insmod "$KO" $ARGS || break
		rmmod "$(basename "$KO" .ko)" || break ;;
	runtime)
		echo 'p:t kpt_test_func a=$arg1' > /dev/kptrace || break
		echo '-:t' > /dev/kptrace || break ;;
	ftrace)
		echo 1 > $T/events/kpt/t/enable || break
		echo 0 > $T/events/kpt/t/enable || break ;;
	ftrace-ret)
		echo 'r:kpt/r kpt_test_func $retval' > $T/kprobe_events || break
		echo 1 > $T/events/kpt/r/enable || break
		(echo 20000 > /sys/kernel/debug/kpt_test/call) &
		echo 0 > $T/events/kpt/r/enable || break
		echo '-:kpt/r' >> $T/kprobe_events || break
		wait $! ;;
	esac
	i=$((i + 1))
done
: > /tmp/repro.stop
wait
echo "$HOW: $i arm/disarm cycles in $(($(date +%s) - start)) s, no crash"
