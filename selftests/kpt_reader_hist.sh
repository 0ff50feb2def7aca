#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace hist on the real module: aggregations added with
#   kptrace probe add, printed as bars, JSON, folded stacks, an SVG flame
#   graph, Prometheus text and intervals, each with the exact counts of
#   the calls made
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# kptrace probe add 'p:hl kpt_test_func a=$arg1:u32 hist:keys=a.log2' and
# 'p:hs kpt_test_func hist:keys=comm,stacktrace', 20 calls:
# - kptrace hist hl: bars whose counts are 1 1 2 4 8 4, Totals Hits 20;
# - -j: valid JSON whose hitcounts sum to 20;
# - --folded: one line "sh;...;kpt_test_call_loop;kpt_test_func 20";
# - --svg: an <svg> naming kpt_test_func;
# - --prometheus DIR: kptrace_hist_hits_total{hist="hl"} 20;
# - -i 1 -c 2 after 20 more calls: two intervals, whose Hits add up to
#   all 40 calls (the first clears the table), and the live table is empty.
# Without the module: kptrace hist exits 1 and says why.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load

"$KPTRACE" hist > "$KPT_TMP/out" 2> "$KPT_TMP/err"
assert_eq "kptrace hist without the module: exit status" "$?" 1
sed 's/^/#   /' "$KPT_TMP/err"

kpt_load
"$KPTRACE" probe add 'p:hl kpt_test_func a=$arg1:u32 hist:keys=a.log2' ||
	fail "kptrace probe add hl"
"$KPTRACE" probe add 'p:hs kpt_test_func hist:keys=comm,stacktrace' ||
	fail "kptrace probe add hs"
assert_eq "kptrace hist lists" "$("$KPTRACE" hist | tr '\n' ' ')" "hl hs "
kpt_call 20

"$KPTRACE" hist hl > "$KPT_TMP/hl" || fail "kptrace hist hl failed"
sed 's/^/#   /' "$KPT_TMP/hl"
assert_eq "bars' counts" \
	"$(sed -n 's/^[[(][^]]*[])] *\([0-9]*\) |.*/\1/p' "$KPT_TMP/hl" | tr '\n' ' ')" \
	"1 1 2 4 8 4 "
assert_eq "Totals Hits" "$(sed -n 's/^    Hits: //p' "$KPT_TMP/hl")" 20

"$KPTRACE" hist hl -j > "$KPT_TMP/hl.json" || fail "kptrace hist hl -j failed"
tr -d '\n' < "$KPT_TMP/hl.json" > "$KPT_TMP/hl.json1"	# one object
kpt_json_check "$KPT_TMP/hl.json1"
assert_eq "JSON hitcounts" \
	"$(grep -o '"hitcount": *[0-9]*' "$KPT_TMP/hl.json" | awk -F: '{ s += $2 } END { print s }')" 20

"$KPTRACE" hist hs --folded > "$KPT_TMP/hs.folded" || fail "kptrace hist hs --folded failed"
sed 's/^/#   /' "$KPT_TMP/hs.folded"
assert_match "folded stack" "$(cat "$KPT_TMP/hs.folded")" \
	'^sh;.*;kpt_test_call_write \[kpt_test\];kpt_test_call_loop \[kpt_test\];kpt_test_func \[kpt_test\] 20$'

"$KPTRACE" hist hs --svg "$KPT_TMP/hs.svg" || fail "kptrace hist hs --svg failed"
grep -q '<svg' "$KPT_TMP/hs.svg" || fail "no <svg> in the flame graph"
grep -q 'kpt_test_func' "$KPT_TMP/hs.svg" || fail "the flame graph does not name kpt_test_func"

mkdir -p "$KPT_TMP/prom"
"$KPTRACE" hist hl --prometheus "$KPT_TMP/prom" || fail "kptrace hist --prometheus failed"
assert_match "prometheus hits" "$(cat "$KPT_TMP/prom/kptrace_hl.prom")" \
	'kptrace_hist_hits_total\{hist="hl"\} 20'

# intervals: the first clears the table, the two add up to the 40 calls
kpt_call 20
"$KPTRACE" hist hl -i 1 -c 2 > "$KPT_TMP/iv" || fail "kptrace hist -i 1 -c 2 failed"
sed 's/^/#   /' "$KPT_TMP/iv" | head -n 40
assert_eq "intervals" "$(grep -c '^    Hits: ' "$KPT_TMP/iv")" 2
assert_eq "Hits over the intervals" \
	"$(sed -n 's/^    Hits: //p' "$KPT_TMP/iv" | awk '{ s += $1 } END { print s }')" 40
assert_eq "live table after the intervals" \
	"$(sed -n 's/^    Hits: //p' "$KPT_DIR/hist/hl")" 0
info "kptrace hist: bars, JSON, folded, SVG, Prometheus and intervals exact"
