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
ncpu=$(kpt_nr_online_cpus)
online=$(kpt_online_cpus)

field()
{
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# flood NAME [PARAM...]: one load, flood, drain and check
flood()
{
	name=$1
	shift
	kpt_load name=kpt_test_func stack=16 "$@"
	kpt_bg "$KPT_READ" follow > "$KPT_TMP/reader" 2> "$KPT_TMP/reader.err"
	reader=$KPT_BG
	sleep 1
	kill -0 "$reader" 2>/dev/null || fail "$name: reader ended early: $(cat "$KPT_TMP/reader.err")"

	start=$(date +%s)
	kpt_call_all "$N"
	info "$name: call_all $N on $ncpu CPUs took $(($(date +%s) - start))s"
	kill -TERM "$reader"
	wait "$reader"
	rc=$?
	KPT_BG_PIDS=
	sed "s/^/#   $name: reader: /" "$KPT_TMP/reader" "$KPT_TMP/reader.err"
	[ "$rc" = 0 ] || fail "$name: reader failed ($rc)"
	sed "s/^/#   $name: /" "$KPT_DIR/stats" | grep -v ' 0$'

	kpt_books_check
	hits=$(kpt_stat hits)
	missed=$(kpt_stat missed)
	read=$(kpt_stat read)
	lost=$(kpt_stat lost)
	assert_eq "$name: pending after the drain" "$(kpt_stat pending)" 0
	assert_eq "$name: missed" "$missed" 0
	assert_eq "$name: hits" "$hits" $((N * ncpu))

	summary=$(grep '^summary ' "$KPT_TMP/reader")
	[ -n "$summary" ] || fail "$name: no summary from the reader"
	assert_eq "$name: bad records" "$(field bad "$summary")" 0
	assert_eq "$name: per-CPU seq errors" "$(field seq_errors "$summary")" 0
	assert_eq "$name: records of unknown type" "$(field unknown "$summary")" 0
	assert_eq "$name: records read = stats read" "$(field records "$summary")" "$read"
	assert_eq "$name: entry records" "$(field entry "$summary")" "$read"
	assert_eq "$name: return records" "$(field return "$summary")" 0
	assert_eq "$name: events reported lost = stats lost" "$(field lost_events "$summary")" "$lost"
	for c in full overwritten nested too_big; do
		assert_eq "$name: lost.$c reported" "$(field "lost_$c" "$summary")" "$(kpt_stat "lost.$c")"
	done

	assert_eq "$name: CPUs the reader read" \
		"$(grep '^cpu ' "$KPT_TMP/reader" | awk '{ printf "%s ", $2 }')" \
		"$(for cpu in $online; do printf '%s ' "$cpu"; done)"
	for cpu in $online; do
		line=$(grep "^cpu $cpu " "$KPT_TMP/reader")
		rec=$(kpt_stat "cpu$cpu.recorded")
		assert_eq "$name: cpu$cpu.hits" "$(kpt_stat "cpu$cpu.hits")" "$N"
		assert_eq "$name: cpu$cpu records read" "$(field records "$line")" "$(kpt_stat "cpu$cpu.read")"
		assert_ge "$name: cpu$cpu records" "$rec" 1
		assert_eq "$name: cpu$cpu first seq" "$(field first_seq "$line")" 1
		assert_eq "$name: cpu$cpu last seq" "$(field last_seq "$line")" "$rec"
		assert_eq "$name: cpu$cpu seq gaps" "$(field gaps "$line")" 0
	done
	info "$name: hits=$hits read=$read lost=$lost missed=$missed: all accounted"
}

flood default
kpt_unload
flood small bufsize_kb=16
assert_ge "small: lost.full (rings of 16 KiB, $N calls a CPU)" "$(kpt_stat lost.full)" 1
assert_eq "small: lost = lost.full" "$(kpt_stat lost)" "$(kpt_stat lost.full)"
kpt_unload
