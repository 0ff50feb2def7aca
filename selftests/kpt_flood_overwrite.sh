#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: in overwrite mode, writers that overwrite records while a
#   reader copies them lose no accounting and hand out no torn record
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# name=kpt_test_func stack=16 overwrite=1 bufsize_kb=16 (small rings, so
# writers wrap around the reader all the time), helpers/kpt_read following
# /dev/kptrace while every online CPU makes N calls (KPT_FLOOD_N, default
# 200000). After the reader stopped and drained:
# - stats invariants; pending = 0; lost.full = lost.too_big = 0;
#   hits + missed = N x CPUs;
# - the reader got exactly `read` records, all valid, and LOST reports
#   adding up to `lost`, cause by cause;
# - per CPU: seq strictly increasing, and the last seq read is the number
#   of records ever committed there, cpuN.recorded + cpuN.lost.overwritten;
#   so records read + overwritten = last seq: every number is accounted
#   for as read or as overwritten.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

N=${KPT_FLOOD_N:-200000}
ncpu=$(kpt_nr_online_cpus)

kpt_load name=kpt_test_func stack=16 overwrite=1 bufsize_kb=16
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
assert_eq "lost.full in overwrite mode" "$(kpt_stat lost.full)" 0
assert_eq "lost.too_big" "$(kpt_stat lost.too_big)" 0

summary=$(grep '^summary ' "$KPT_TMP/reader")
[ -n "$summary" ] || fail "no summary from the reader"
field()
{
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
assert_eq "bad records" "$(field bad "$summary")" 0
assert_eq "per-CPU seq errors" "$(field seq_errors "$summary")" 0
assert_eq "records read = stats read" "$(field records "$summary")" "$read"
assert_eq "events reported lost = stats lost" "$(field lost_events "$summary")" "$lost"
for c in full overwritten nested too_big; do
	assert_eq "lost.$c reported" "$(field "lost_$c" "$summary")" "$(kpt_stat "lost.$c")"
done

for cpu in $(grep '^cpu ' "$KPT_TMP/reader" | awk '{ print $2 }'); do
	line=$(grep "^cpu $cpu " "$KPT_TMP/reader")
	got=$(field records "$line")
	ow=$(kpt_stat "cpu$cpu.lost.overwritten")
	assert_eq "cpu$cpu records read" "$got" "$(kpt_stat "cpu$cpu.read")"
	[ "$got" -gt 0 ] || continue
	assert_eq "cpu$cpu last seq = recorded + overwritten" \
		"$(field last_seq "$line")" $(($(kpt_stat "cpu$cpu.recorded") + ow))
	assert_eq "cpu$cpu read + overwritten = last seq" $((got + ow)) \
		"$(field last_seq "$line")"
done
[ "$(kpt_stat lost.overwritten)" -gt 0 ] ||
	info "note: nothing was overwritten (the reader kept up)"
info "hits=$hits read=$read lost=$lost missed=$missed: all accounted"
