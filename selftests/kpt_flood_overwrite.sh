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

kpt_flood_run overwrite "$N" overwrite=1 bufsize_kb=16
assert_eq "lost.full in overwrite mode" "$(kpt_stat lost.full)" 0
assert_eq "lost.nested" "$(kpt_stat lost.nested)" 0
assert_eq "lost.too_big" "$(kpt_stat lost.too_big)" 0
assert_ge "lost.overwritten (rings of 16 KiB, $N calls a CPU)" \
	"$(kpt_stat lost.overwritten)" 1
assert_eq "lost = lost.overwritten" "$lost" "$(kpt_stat lost.overwritten)"

for cpu in $online; do
	line=$(grep "^cpu $cpu " "$KPT_TMP/reader")
	got=$(kpt_field records "$line")
	ow=$(kpt_stat "cpu$cpu.lost.overwritten")
	assert_eq "cpu$cpu records read" "$got" "$(kpt_stat "cpu$cpu.read")"
	assert_ge "cpu$cpu records read" "$got" 1
	assert_eq "cpu$cpu last seq = recorded + overwritten" \
		"$(kpt_field last_seq "$line")" $(($(kpt_stat "cpu$cpu.recorded") + ow))
	assert_eq "cpu$cpu read + overwritten = last seq" $((got + ow)) \
		"$(kpt_field last_seq "$line")"
	assert_eq "cpu$cpu last seq = its calls" "$(kpt_field last_seq "$line")" "$N"
done
info "hits=$hits read=$read lost=$lost (all overwritten) missed=$missed: all accounted"
