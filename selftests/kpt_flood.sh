#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: under a flood of events on every CPU with a reader running,
#   every hit is accounted exactly once and every record is whole
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# name=kpt_test_func stack=16, helpers/kpt_read following /dev/kptrace
# while every online CPU makes N calls at once (KPT_FLOOD_N, default
# 200000), twice: with the default rings, and with rings of 16 KiB
# (bufsize_kb=16), which the flood fills faster than the reader empties
# them. After the reader stopped and drained the rings, each time:
# - stats: hits = recorded + lost, lost = sum of lost.*, recorded = read +
#   pending, pending = 0, and the probe's own counters agree with the
#   rings' (kpt_books_check);
# - missed = 0, hits = N x CPUs, cpuN.hits = N on every online CPU;
# - the reader got exactly `read` entry records, every one valid (magic,
#   sizes), none torn, and LOST reports adding up to `lost`, cause by cause;
# - per CPU, seq goes 1, 2, 3 ... cpuN.recorded without gaps (drops on a
#   full ring take no number), and every online CPU's records were read;
# - with the 16 KiB rings: lost.full > 0 (else the losses went untested)
#   and every loss is lost.full.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

N=${KPT_FLOOD_N:-200000}

# flood NAME [PARAM...]: one load, flood, drain and check
flood()
{
	name=$1
	shift
	kpt_flood_run "$name" "$N" "$@"
	assert_eq "$name: records of unknown type" "$(kpt_field unknown "$summary")" 0
	assert_eq "$name: entry records" "$(kpt_field entry "$summary")" "$read"
	assert_eq "$name: return records" "$(kpt_field return "$summary")" 0
	for cpu in $online; do
		line=$(grep "^cpu $cpu " "$KPT_TMP/reader")
		rec=$(kpt_stat "cpu$cpu.recorded")
		assert_eq "$name: cpu$cpu records read" "$(kpt_field records "$line")" "$(kpt_stat "cpu$cpu.read")"
		assert_ge "$name: cpu$cpu records" "$rec" 1
		assert_eq "$name: cpu$cpu first seq" "$(kpt_field first_seq "$line")" 1
		assert_eq "$name: cpu$cpu last seq" "$(kpt_field last_seq "$line")" "$rec"
		assert_eq "$name: cpu$cpu seq gaps" "$(kpt_field gaps "$line")" 0
	done
	info "$name: hits=$hits read=$read lost=$lost missed=$missed: all accounted"
}

flood default
kpt_unload
flood small bufsize_kb=16
assert_ge "small: lost.full (rings of 16 KiB, $N calls a CPU)" "$(kpt_stat lost.full)" 1
assert_eq "small: lost = lost.full" "$(kpt_stat lost)" "$(kpt_stat lost.full)"
kpt_unload
