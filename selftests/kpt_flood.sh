#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: under a flood of events on every CPU with a reader running,
#   every hit is accounted exactly once and every record is whole
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# name=kpt_test_func stack=16, helpers/kpt_read following /dev/kptrace
# while every online CPU makes N calls at once (KPT_FLOOD_N, default
# 200000). After the reader stopped and drained the rings:
# - stats: hits = recorded + lost, lost = sum of lost.*, recorded = read +
#   pending, pending = 0;
# - hits + missed = N x CPUs (hits = N x CPUs when missed = 0), and per CPU
#   cpuN.hits = N when missed = 0;
# - the reader got exactly `read` entry records, every one valid (magic,
#   sizes), none torn, and LOST reports adding up to `lost`, cause by cause;
# - per CPU, seq goes 1, 2, 3 ... cpuN.recorded without gaps (drops on a
#   full ring take no number).

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

N=${KPT_FLOOD_N:-200000}
ncpu=$(kpt_nr_online_cpus)

kpt_load name=kpt_test_func stack=16
kpt_bg "$KPT_READ" follow > "$KPT_TMP/reader" 2> "$KPT_TMP/reader.err"
reader=$KPT_BG
sleep 1
kill -0 "$reader" 2>/dev/null || fail "reader ended early: $(cat "$KPT_TMP/reader.err")"

start=$(date +%s)
kpt_call_all "$N"
info "call_all $N on $ncpu CPUs took $(($(date +%s) - start))s"
kill -TERM "$reader"
wait "$reader"
rc=$?
KPT_BG_PIDS=
sed 's/^/#   reader: /' "$KPT_TMP/reader" "$KPT_TMP/reader.err"
[ "$rc" = 0 ] || fail "reader failed ($rc)"
sed 's/^/#   /' "$KPT_DIR/stats" | grep -v ' 0$'

kpt_stats_check
hits=$(kpt_stat hits)
missed=$(kpt_stat missed)
read=$(kpt_stat read)
lost=$(kpt_stat lost)
assert_eq "pending after the drain" "$(kpt_stat pending)" 0
assert_eq "hits + missed" $((hits + missed)) $((N * ncpu))

summary=$(grep '^summary ' "$KPT_TMP/reader")
[ -n "$summary" ] || fail "no summary from the reader"
field()
{
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
assert_eq "bad records" "$(field bad "$summary")" 0
assert_eq "per-CPU seq errors" "$(field seq_errors "$summary")" 0
assert_eq "records of unknown type" "$(field unknown "$summary")" 0
assert_eq "records read = stats read" "$(field records "$summary")" "$read"
assert_eq "entry records" "$(field entry "$summary")" "$read"
assert_eq "return records" "$(field return "$summary")" 0
assert_eq "events reported lost = stats lost" "$(field lost_events "$summary")" "$lost"
for c in full overwritten nested too_big; do
	assert_eq "lost.$c reported" "$(field "lost_$c" "$summary")" "$(kpt_stat "lost.$c")"
done

for cpu in $(grep '^cpu ' "$KPT_TMP/reader" | awk '{ print $2 }'); do
	line=$(grep "^cpu $cpu " "$KPT_TMP/reader")
	rec=$(kpt_stat "cpu$cpu.recorded")
	assert_eq "cpu$cpu records read" "$(field records "$line")" "$(kpt_stat "cpu$cpu.read")"
	if [ "$rec" -gt 0 ]; then
		assert_eq "cpu$cpu first seq" "$(field first_seq "$line")" 1
		assert_eq "cpu$cpu last seq" "$(field last_seq "$line")" "$rec"
		assert_eq "cpu$cpu seq gaps" "$(field gaps "$line")" 0
	fi
	[ "$missed" = 0 ] &&
		assert_eq "cpu$cpu.hits" "$(kpt_stat "cpu$cpu.hits")" "$N"
done
info "hits=$hits read=$read lost=$lost missed=$missed: all accounted"
