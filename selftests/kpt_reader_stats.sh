#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace --stats` prints the module's counters and a per-CPU
#   table, exactly as the stats file has them
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# With kptrace on kpt_test_func and 5 calls on CPU $KPT_CPU, nothing read:
# `kptrace --stats` exits 0 and prints hits 5, recorded 5, lost 0 (each
# cause 0), missed 0, read 0, pending 5, so hits = recorded + lost; a
# per-CPU table whose header starts "CPU HITS RECORDED LOST READ PENDING"
# with one row per CPU of the stats file: CPU $KPT_CPU 5 5 0 0 5, every
# other CPU 0 0 0 0 0; a probes' table whose kpt_test_func row has calls,
# events and recorded 5, filtered, lost and missed 0. Every number equals
# the stats file's.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_cmd taskset	# the 5 calls on one known CPU
kpt_test_load
kpt_load name=kpt_test_func stack=0
N=5
kpt_call $N

rc=0
"$KPTRACE" --stats > "$KPT_TMP/stats" 2> "$KPT_TMP/err" || rc=$?
sed 's/^/#   /' "$KPT_TMP/stats" "$KPT_TMP/err"
assert_eq "kptrace --stats: exit status" "$rc" 0
assert_eq "kptrace --stats: stderr" "$(cat "$KPT_TMP/err")" ""

# printed NAME: the number on the line "NAME   N ..." of the summary
printed()
{
	sed -n "s/^$1  *\([0-9][0-9]*\).*/\1/p" "$KPT_TMP/stats"
}
hits=$(printed hits)
recorded=$(printed recorded)
lost=$(printed lost)
assert_eq "kptrace --stats: hits" "$hits" $N
assert_eq "kptrace --stats: recorded" "$recorded" $N
assert_eq "kptrace --stats: lost" "$lost" 0
assert_eq "kptrace --stats: hits = recorded + lost" "$hits" $((recorded + lost))
assert_eq "kptrace --stats: missed" "$(printed missed)" 0
assert_eq "kptrace --stats: read" "$(printed read)" 0
assert_eq "kptrace --stats: pending" "$(printed pending)" $N
assert_match "kptrace --stats: lost by cause" "$(grep '^lost ' "$KPT_TMP/stats")" \
	'^lost +0( +[a-z_]+ 0){4}$'
# ... and the stats file says the same
kpt_stats_check
for f in hits recorded lost missed read pending; do
	assert_eq "kptrace --stats: $f = stats $f" "$(printed $f)" "$(kpt_stat $f)"
done

grep -Eq '^CPU +HITS +RECORDED +LOST +READ +PENDING' "$KPT_TMP/stats" ||
	fail "kptrace --stats: no per-CPU table (CPU HITS RECORDED LOST READ PENDING ...)"
# The table: one row per CPU of the stats file, in order.
sed -n '/^CPU /,/^$/p' "$KPT_TMP/stats" | sed -e 1d -e '/^$/d' > "$KPT_TMP/table"
ncpu=$(grep -c '^cpu[0-9]*\.hits ' "$KPT_DIR/stats")
assert_eq "kptrace --stats: per-CPU rows" "$(grep -c '' "$KPT_TMP/table")" "$ncpu"
cpu=0
while [ $cpu -lt "$ncpu" ]; do
	want="$cpu 0 0 0 0 0"
	[ $cpu != "$KPT_CPU" ] || want="$cpu $N $N 0 0 $N"
	row=$(sed -n "$((cpu + 1))p" "$KPT_TMP/table" | awk '{ print $1, $2, $3, $4, $5, $6 }')
	assert_eq "kptrace --stats: CPU $cpu row (cpu hits recorded lost read pending)" "$row" "$want"
	assert_eq "CPU $cpu: stats file" "$(kpt_stat cpu$cpu.hits) $(kpt_stat cpu$cpu.recorded)" \
		"$(echo "$want" | awk '{ print $2, $3 }')"
	cpu=$((cpu + 1))
done
# The probes' table: the one probe, its calls, events and recorded.
grep -Eq '^PROBE +CALLS +EVENTS +RECORDED +FILTERED +LOST +MISSED' "$KPT_TMP/stats" ||
	fail "kptrace --stats: no probes' table (PROBE CALLS EVENTS RECORDED ...)"
assert_eq "kptrace --stats: kpt_test_func row (calls events recorded filtered lost missed)" \
	"$(awk '$1 == "kpt_test_func" { print $2, $3, $4, $5, $6, $7 }' "$KPT_TMP/stats")" \
	"$N $N $N 0 0 0"
info "kptrace --stats: hits $N = recorded $N + lost 0, all on CPU $KPT_CPU, as the stats file"
