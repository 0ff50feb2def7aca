#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: two processes reading the same open file of /dev/kptrace at
#   once (a reader that forked) under a flood: every record delivered once,
#   whole, to one of them
# requires: root, debugfs, kptrace.ko, hazard_modules/kpt_hazard.ko,
#   hazard_modules/kpt_hazard_shared
#
# hazard_modules/kpt_hazard_shared opens /dev/kptrace once and forks two
# children that read() it concurrently for SECS seconds (KPT_HAZ_SHARED_SECS,
# default 8), while kpt_hazard floods kpt_hazard_target from every context
# on every CPU; then it drains the rest. Over all the reads:
# - no torn read() result (each is whole, valid records), no record twice
#   (same cpu and seq);
# - records = stats read; per CPU the seqs read are exactly 1..cpuN.recorded;
# - stats invariants hold with pending = 0.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_haz_ko
SHARED=$KPT_SELFTESTS/hazard_modules/kpt_hazard_shared
[ -x "$SHARED" ] || fail "hazard_modules/kpt_hazard_shared not built (make hazard-module)"

cleanup()
{
	[ -n "$KPT_TMP" ] && : > "$KPT_TMP/stop"
	for _p in $KPT_BG_PIDS; do
		wait "$_p" 2>/dev/null
	done
	KPT_BG_PIDS=
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_hazard
}

SECS=${KPT_HAZ_SHARED_SECS:-8}
N=$(kpt_haz_n 20000 5000)
kpt_haz_load
kpt_load name=kpt_hazard_target args=2 stack=4 bufsize_kb=4096
kpt_bg "$SHARED" -n 2 "$SECS" > "$KPT_TMP/shared" 2> "$KPT_TMP/shared.err"
reader=$KPT_BG
sleep 1
start=$(date +%s)
runs=0
while [ "$(kpt_haz_elapsed "$start")" -lt $((SECS - 3)) ]; do
	echo "$N" > "$KPT_HAZ_DIR/run" || fail "kpt_hazard run failed"
	runs=$((runs + 1))
done
wait "$reader" || fail "kpt_hazard_shared failed: $(cat "$KPT_TMP/shared.err")"
KPT_BG_PIDS=
sed 's/^/#   /' "$KPT_TMP/shared" "$KPT_TMP/shared.err"
sed 's/^/#   /' "$KPT_DIR/stats" | grep -v ' 0$'
kpt_stats_check
assert_eq "pending" "$(kpt_stat pending)" 0
s=$(grep '^shared ' "$KPT_TMP/shared")
[ -n "$s" ] || fail "no result from kpt_hazard_shared"
assert_eq "torn reads" "$(kpt_haz_field torn "$s")" 0
assert_eq "records read twice" "$(kpt_haz_field dups "$s")" 0
assert_eq "records = stats read" "$(kpt_haz_field records "$s")" "$(kpt_stat read)"
assert_eq "lost reported = stats lost" "$(kpt_haz_field lost_events "$s")" "$(kpt_stat lost)"
for cpu in $(grep '^cpu ' "$KPT_TMP/shared" | awk '{ print $2 }'); do
	line=$(grep "^cpu $cpu " "$KPT_TMP/shared")
	rec=$(kpt_stat "cpu$cpu.recorded")
	assert_eq "cpu$cpu records" "$(kpt_haz_field records "$line")" "$rec"
	assert_eq "cpu$cpu first seq" "$(kpt_haz_field min_seq "$line")" 1
	assert_eq "cpu$cpu last seq" "$(kpt_haz_field max_seq "$line")" "$rec"
done
info "$runs floods, two readers on one file: $(kpt_haz_field records "$s") records, each once"
