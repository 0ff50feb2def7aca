#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: CPU hotplug during a flood: a CPU taken offline and back in a
#   loop, its events stay readable while it is offline, counters exact
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read, 2 CPUs
#   with /sys/devices/system/cpu/cpuN/online
#
# Two unpinned shell loops call kpt_test_func 1000 times per write to
# kpt_test's call file, counting their writes, while CPU H (the last online
# CPU) goes offline and online ROUNDS times (KPT_HAZ_HOTPLUG_ROUNDS,
# default 10; 4 on a debug kernel). Then, with the flood stopped and CPU H
# offline again:
# - hits + missed = the calls made (1000 x writes), per-CPU hits add up;
# - helpers/kpt_read drains every ring: CPU H's records are read although
#   it is offline (cpuH records = cpuH.recorded), no bad record, no seq
#   error; stats invariants hold with pending = 0.
# CPU H is brought back online at the end, even on failure.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_kpt_read
kpt_test_load

H=$(($(kpt_nr_online_cpus) - 1))
ONLINE=/sys/devices/system/cpu/cpu$H/online
[ "$H" -ge 1 ] || skip "needs 2 CPUs"
[ -w "$ONLINE" ] || skip "cpu$H cannot be taken offline ($ONLINE)"

cleanup()
{
	[ -n "$KPT_TMP" ] && : > "$KPT_TMP/stop"
	for _p in $KPT_BG_PIDS; do
		wait "$_p" 2>/dev/null
	done
	KPT_BG_PIDS=
	echo 1 > "$ONLINE" 2>/dev/null
}

ROUNDS=${KPT_HAZ_HOTPLUG_ROUNDS:-$(kpt_haz_n 10 4)}
kpt_load name=kpt_test_func args=6 stack=8 bufsize_kb=4096
rm -f "$KPT_TMP/stop"
for f in 1 2; do
	kpt_bg sh -c "n=0; while [ ! -e $KPT_TMP/stop ]; do echo 1000 > $KPT_TEST_DIR/call || exit 1; n=\$((n + 1)); done; echo \$n > $KPT_TMP/writes.$f"
done
sleep 1
r=0
start=$(date +%s)
while [ $r -lt "$ROUNDS" ]; do
	echo 0 > "$ONLINE" || fail "round $r: cannot take cpu$H offline"
	assert_eq "cpu$H online" "$(cat "$ONLINE")" 0
	sleep 0.3
	echo 1 > "$ONLINE" || fail "round $r: cannot bring cpu$H back"
	sleep 0.3
	r=$((r + 1))
done
info "$ROUNDS offline/online rounds of cpu$H in $(kpt_haz_elapsed "$start")s"
echo 0 > "$ONLINE" || fail "cannot take cpu$H offline at the end"
: > "$KPT_TMP/stop"
for p in $KPT_BG_PIDS; do
	wait "$p" || fail "a flood loop failed"
done
KPT_BG_PIDS=
calls=$(( ($(cat "$KPT_TMP/writes.1") + $(cat "$KPT_TMP/writes.2")) * 1000 ))
sed 's/^/#   /' "$KPT_DIR/stats" | grep -v ' 0$'

kpt_stats_check
hits=$(kpt_stat hits)
missed=$(kpt_stat missed)
assert_eq "hits + missed = calls" $((hits + missed)) "$calls"
sum=0
c=0
while [ $c -le "$H" ]; do
	sum=$((sum + $(kpt_stat "cpu$c.hits")))
	c=$((c + 1))
done
assert_eq "sum of cpuN.hits" "$sum" "$hits"
recH=$(kpt_stat "cpu$H.recorded")
assert_ge "cpu$H recorded (it took part in the flood)" "$recH" 1

"$KPT_READ" drain > "$KPT_TMP/drain" 2> "$KPT_TMP/drain.err" ||
	fail "drain failed: $(cat "$KPT_TMP/drain.err")"
sed 's/^/#   reader: /' "$KPT_TMP/drain"
summary=$(grep '^summary ' "$KPT_TMP/drain")
assert_eq "bad records" "$(kpt_haz_field bad "$summary")" 0
assert_eq "per-CPU seq errors" "$(kpt_haz_field seq_errors "$summary")" 0
lineH=$(grep "^cpu $H " "$KPT_TMP/drain")
assert_eq "records of offline cpu$H read" "$(kpt_haz_field records "$lineH")" "$recH"
kpt_stats_check
assert_eq "pending after the drain" "$(kpt_stat pending)" 0
echo 1 > "$ONLINE" || fail "cannot bring cpu$H back online"
info "calls=$calls hits=$hits missed=$missed; offline cpu$H: $recH records read"
