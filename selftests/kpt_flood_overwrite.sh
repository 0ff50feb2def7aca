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
# - stats invariants; pending = 0; lost.full = lost.nested =
#   lost.too_big = 0; missed = 0 and hits = N x CPUs, N on each CPU
#   (cpuN.hits: its ring's committed records and losses); the probe's own
#   counters agree with the rings' (kpt_books_check);
# - the small rings were overwritten: lost.overwritten > 0 (else the test
#   tested nothing);
# - the reader got exactly `read` records, all valid, and LOST reports
#   adding up to `lost`, cause by cause;
# - per CPU: seq strictly increasing, and the last seq read is the number
#   of records ever committed there, cpuN.recorded + cpuN.lost.overwritten,
#   which is N (every call committed a record); so records read +
#   overwritten = last seq = N: every number is accounted for as read or
#   as overwritten. Every online CPU's records were read.

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

kpt_books_check
hits=$(kpt_stat hits)
missed=$(kpt_stat missed)
read=$(kpt_stat read)
lost=$(kpt_stat lost)
assert_eq "pending after the drain" "$(kpt_stat pending)" 0
assert_eq "missed" "$missed" 0
assert_eq "hits" "$hits" $((N * ncpu))
assert_eq "lost.full in overwrite mode" "$(kpt_stat lost.full)" 0
assert_eq "lost.nested" "$(kpt_stat lost.nested)" 0
assert_eq "lost.too_big" "$(kpt_stat lost.too_big)" 0
assert_ge "lost.overwritten (rings of 16 KiB, $N calls a CPU)" \
	"$(kpt_stat lost.overwritten)" 1
assert_eq "lost = lost.overwritten" "$lost" "$(kpt_stat lost.overwritten)"
online=$(kpt_online_cpus)
for cpu in $online; do
	assert_eq "cpu$cpu.hits" "$(kpt_stat "cpu$cpu.hits")" "$N"
done

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

assert_eq "CPUs the reader read" \
	"$(grep '^cpu ' "$KPT_TMP/reader" | awk '{ printf "%s ", $2 }')" \
	"$(for cpu in $online; do printf '%s ' "$cpu"; done)"
for cpu in $online; do
	line=$(grep "^cpu $cpu " "$KPT_TMP/reader")
	got=$(field records "$line")
	ow=$(kpt_stat "cpu$cpu.lost.overwritten")
	assert_eq "cpu$cpu records read" "$got" "$(kpt_stat "cpu$cpu.read")"
	assert_ge "cpu$cpu records read" "$got" 1
	assert_eq "cpu$cpu last seq = recorded + overwritten" \
		"$(field last_seq "$line")" $(($(kpt_stat "cpu$cpu.recorded") + ow))
	assert_eq "cpu$cpu read + overwritten = last seq" $((got + ow)) \
		"$(field last_seq "$line")"
	assert_eq "cpu$cpu last seq = its calls" "$(field last_seq "$line")" "$N"
done
info "hits=$hits read=$read lost=$lost (all overwritten) missed=$missed: all accounted"
