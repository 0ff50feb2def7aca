#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the kernel crash described in selftests/debug/README.md
# (not a kptrace bug): kpt_hazard floods kpt_hazard_target (ftrace site)
# from task, softirq, hardirq and NMI context on every CPU while a kprobe
# on it is registered and unregistered in a loop by MODULE (default the
# control kpt_hazard_ctl.ko slow=1; kptrace.ko with KO=/kptrace.ko).
#
#   selftests/vm/run-vm.sh --mode cmd --timeout 500 \
#       --guest-cmd 'sh /selftests/debug/repro-ftrace-arm.sh'
#
# Exits 0 after SECS seconds (default 200) without a crash; the harness
# fails the run on the Oops.
cd /selftests || exit 1
KO=${KO:-/selftests/hazard_modules/kpt_hazard_ctl.ko}
ARGS=${ARGS:-slow=1}
# HAZ_ARGS=int3=1 with ARGS='sym=kpt_hazard_target_int3 slow=1': the int3 case.
# shellcheck disable=SC2086
insmod hazard_modules/kpt_hazard.ko ${HAZ_ARGS:-} || exit 1
rm -f /tmp/repro.stop
(while [ ! -e /tmp/repro.stop ]; do
	echo 5000 > /sys/kernel/debug/kpt_hazard/run
done) &
name=$(basename "$KO" .ko)
i=0
start=$(date +%s)
while [ $(($(date +%s) - start)) -lt "${SECS:-200}" ]; do
	# shellcheck disable=SC2086
	insmod "$KO" $ARGS || break
	rmmod "$name" || break
	i=$((i + 1))
done
: > /tmp/repro.stop
wait
echo "$name: $i load/unload cycles in $(($(date +%s) - start)) s, no crash"
