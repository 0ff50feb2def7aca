#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace -w keeps up with a flood on every CPU and saves
#   every record it read, whole
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace,
#   helpers/kpt_read
#
# name=kpt_test_func stack=16; `kptrace -q -w FILE` runs while every online
# CPU makes N calls (KPT_FLOOD_N, default 200000), then gets SIGTERM and
# must exit 0. `kptrace -r FILE -j --no-stack` must decode FILE without a bad
# record into exactly `read` (stats) entries, every one of them
# kpt_test_func with args [i,4369,...]; then helpers/kpt_read drains the
# rest: entries in FILE + drained = recorded, LOST counts in FILE + drained
# = lost, and hits + missed = N x CPUs.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_kpt_read
kpt_test_load

N=${KPT_FLOOD_N:-200000}
ncpu=$(kpt_nr_online_cpus)

kpt_load name=kpt_test_func stack=16
kpt_bg "$KPTRACE" -q -w "$KPT_TMP/f.bin"
reader=$KPT_BG
sleep 1
kill -0 "$reader" 2>/dev/null || fail "kptrace -w ended early"
kpt_call_all "$N"
kill -TERM "$reader"
wait "$reader"
rc=$?
KPT_BG_PIDS=
assert_eq "kptrace -w exit status after SIGTERM" "$rc" 0
read=$(kpt_stat read)
info "saved $(wc -c < "$KPT_TMP/f.bin") bytes, stats read=$read"

timeout 120 "$KPTRACE" -q -r "$KPT_TMP/f.bin" -j --no-stack > "$KPT_TMP/json" 2> "$KPT_TMP/err"
rc=$?
sed 's/^/#   kptrace -r: /' "$KPT_TMP/err"
assert_eq "kptrace -r exit status" "$rc" 0
entries=$(grep -c '^{"type":"entry"' "$KPT_TMP/json")
assert_eq "entries in the file = stats read" "$entries" "$read"
assert_eq "entries that are kpt_test_func calls" \
	"$(grep -c '"probe":"kpt_test_func".*"args":\[[0-9]*,4369,8738,13107,17476,21845\]' "$KPT_TMP/json")" \
	"$entries"
lost_file=$(grep '^{"type":"lost"' "$KPT_TMP/json" |
	sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')

"$KPT_READ" drain > "$KPT_TMP/rest" || fail "kpt_read drain failed"
rest=$(grep '^summary ' "$KPT_TMP/rest")
info "drained after kptrace: $rest"
drained=$(echo "$rest" | tr ' ' '\n' | sed -n 's/^records=//p')
lost_rest=$(echo "$rest" | tr ' ' '\n' | sed -n 's/^lost_events=//p')
kpt_stats_check
assert_eq "pending after the drain" "$(kpt_stat pending)" 0
assert_eq "entries saved + drained = recorded" $((entries + drained)) "$(kpt_stat recorded)"
assert_eq "lost reported to kptrace + drained = lost" $((lost_file + lost_rest)) "$(kpt_stat lost)"
assert_eq "hits + missed" $(($(kpt_stat hits) + $(kpt_stat missed))) $((N * ncpu))
info "kptrace -w saved $entries records, lost $lost_file reported"
