#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of check-debug's main boot (selftests/debug/check-debug.sh):
# every selftest (run_tests.sh, KTAP) with loops and timeouts sized for a
# KASAN + lockdep kernel under TCG, then a kmemleak scan. Exits non-zero
# when a test failed or kmemleak suspects an object allocated by kptrace,
# kpt_test or kpt_hazard (their symbols in the allocation trace, an address
# inside an unloaded module, or the module loader's parameter copies).
# The scan's verdict is "# " lines after the KTAP totals, so the plan of
# run_tests.sh stays the only KTAP.

cd /selftests || exit 1
# The boot log is checked here and then cleared (boot-dmesg.sh).
. /selftests/debug/boot-dmesg.sh
# Several times slower under KASAN: a longer limit per test, smaller floods.
KPT_TIMEOUT=${KPT_TIMEOUT:-900}
KPT_FLOOD_N=${KPT_FLOOD_N:-50000}
KPT_HAZ_BUDGET=${KPT_HAZ_BUDGET:-200}
KPT_HAZ_SLOW=1
# kpt_hazard_syscalls: parking 1000 threads alone took 497 s here
KPT_HAZ_SYS_THREADS=${KPT_HAZ_SYS_THREADS:-200}
KPT_HAZ_SYS_CHURN=${KPT_HAZ_SYS_CHURN:-20}
KPT_HAZ_SYS_ROUNDS=${KPT_HAZ_SYS_ROUNDS:-6}
# The kmemleak scan below writes to debugfs, which a lockdown refuses:
# kpt_lockdown_runtime (it raises one for good) skips in this boot; the
# lockdown boots of check-debug.sh cover lockdown.
KPT_LOCKDOWN_OK=${KPT_LOCKDOWN_OK:-0}
export KPT_TIMEOUT KPT_FLOOD_N KPT_HAZ_BUDGET KPT_HAZ_SLOW KPT_LOCKDOWN_OK
export KPT_HAZ_SYS_THREADS KPT_HAZ_SYS_CHURN KPT_HAZ_SYS_ROUNDS
echo "# debug kernel $(uname -r): $(cat /proc/cmdline)"
sh ./run_tests.sh "$@"
rc=$?
[ "$KPT_BOOT_FAULTS" = 0 ] || { echo "# the boot log had faults: FAIL"; rc=1; }

kml=/sys/kernel/debug/kmemleak
if [ ! -e "$kml" ]; then
	echo "# kmemleak: $kml missing (kmemleak off?): FAIL"
	exit 1
fi
# Objects younger than 5 s are never reported; two scans, as the kernel's
# documentation advises against transient false positives.
sleep 6
echo scan > "$kml" || { echo "# kmemleak: scan refused: FAIL"; exit 1; }
sleep 6
echo scan > "$kml"
cat "$kml" > /tmp/kmemleak.txt
all=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)
ours=$(awk '
	/^unreferenced object/ { if (blk != "" && bad) print blk; blk = $0; bad = 0; next }
	{ blk = blk "\n" $0 }
	/\[(kptrace|kpt_test|kpt_hazard)\]/ { bad = 1 }
	/\] 0xffffffff[a-f][0-9a-f]+$/ { bad = 1 }
	/load_module|do_init_module|param_set|param_attr/ { bad = 1 }
	END { if (blk != "" && bad) print blk }' /tmp/kmemleak.txt)
if [ -n "$ours" ]; then
	echo "# kmemleak: suspected leaks from kptrace or the test modules: FAIL"
	printf '%s\n' "$ours" | head -n 200 | sed 's/^/#   /'
	rc=1
else
	echo "# kmemleak: $all suspected objects in all, none from kptrace, kpt_test or kpt_hazard: ok"
	[ "$all" = 0 ] || head -n 40 /tmp/kmemleak.txt | sed 's/^/#   other: /'
fi
exit $rc
