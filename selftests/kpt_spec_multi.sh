#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: several probes at once, on different functions and on the
#   same one, have distinct ids and each event goes to its own probe
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# On kpt_test_func and its caller kpt_test_call_loop, 3 calls (one loop):
#   p:loop kpt_test_call_loop n=$arg1:u32       loop: n=3         (1 event)
#   p:f1   kpt_test_func a=$arg1:u32            f1: a=1..3
#   p:f2   kpt_test_func b=$arg2:x16            f2: b=0x1111 (x3)
#   p:f3   kpt_test_func a=$arg1:u32            f3: a=1..3 (same spec as f1)
#   r:f4   kpt_test_func rv=$retval:s64         f4: ret=-i rv=-i
#   p:f5   kpt_test_func+<first insn after the fentry call> d=%di:u32
#                                               f5: d=1..3
#          (+0x5, +0x9 after an endbr64; on arm64 +0x8 d=%x0:u32:
#          kpt_after_entry, KPT_REG_ARG1)
# ids 0..5 distinct, the kptrace ids of the records (kpt_spec dump) are
# those of the probes, each probes line hits = its events, and the records
# come in call order: loop's, then call 1's 5 records, call 2's, call 3's.
# (Names defined more than once, in modules or in vmlinux, are refused:
# kpt_spec_ambiguous.)

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

kpt_load stack=0
spec_add 'p:loop kpt_test_call_loop n=$arg1:u32'
spec_add 'p:f1 kpt_test_func a=$arg1:u32'
spec_add 'p:f2 kpt_test_func b=$arg2:x16'
spec_add 'p:f3 kpt_test_func a=$arg1:u32'
spec_add 'r:f4 kpt_test_func rv=$retval:s64'
# The first instruction after the fentry call: +5, or +9 after an endbr64
# (arm64: +0x8, past ftrace's two instructions).
off=$(kpt_after_entry kpt_test_func)
r=$(spec_write "p:f5 kpt_test_func+$off d=$KPT_REG_ARG1:u32")
[ "$r" = ok ] || fail "kpt_test_func+$off takes no probe: $r"
sed 's/^/#   /' "$KPT_DIR/probes"
check_eq "ids" "$(for p in loop f1 f2 f3 f4 f5; do spec_field $p id; done | tr '\n' ' ')" \
	"0 1 2 3 4 5 "
check_match "f5 at" "$(spec_field f5 at)" \
	"^kpt_test:kpt_test_func\\+$off/0x[0-9a-f]+\$"
kpt_call 3
"$KPT_SPEC" dump > "$KPT_TMP/dump" || fail "kpt_spec dump"
sed 's/^/#   /' "$KPT_TMP/dump"
# Per probe id, the values of its records, in order.
per_id()
{
	awk -v id="$2" '$2 == "id=" id { sub(/.* a0=/, ""); printf "%s ", $0 }' "$1"
}
check_eq "records of loop (id 0)" "$(per_id "$KPT_TMP/dump" 0)" "0x3 "
check_eq "records of f1 (id 1)" "$(per_id "$KPT_TMP/dump" 1)" "0x1 0x2 0x3 "
check_eq "records of f2 (id 2)" "$(per_id "$KPT_TMP/dump" 2)" \
	"0x1111 0x1111 0x1111 "
check_eq "records of f3 (id 3)" "$(per_id "$KPT_TMP/dump" 3)" "0x1 0x2 0x3 "
check_eq "records of f4 (id 4)" "$(per_id "$KPT_TMP/dump" 4)" \
	"0xffffffffffffffff 0xfffffffffffffffe 0xfffffffffffffffd "
check_eq "records of f5 (id 5)" "$(per_id "$KPT_TMP/dump" 5)" "0x1 0x2 0x3 "
check_eq "f4 records are returns" \
	"$(grep -c '^return id=4 comm=[^ ]* ret=-[123] ' "$KPT_TMP/dump")" 3
check_eq "records" "$(grep -c '' "$KPT_TMP/dump")" 16
# In time order: the loop's entry first, then call 1's records, call 2's,
# call 3's (the call number is a0 of f1 f3 f5, -ret of f4).
check_eq "records in call order" "$(awk '
	$2 == "id=0" { print 0 }
	$2 ~ /^id=[135]$/ { v = $NF; sub(/^a0=0x/, "", v); print v }
	$2 == "id=4" { v = $4; sub(/^ret=-/, "", v); print v }' "$KPT_TMP/dump" |
	tr '\n' ' ')" "0 1 1 1 1 2 2 2 2 3 3 3 3 "
kpt_call 3
kpt_trace_read "$KPT_TMP/trace"
for p in loop f1 f2 f3 f4 f5; do
	spec_events "$KPT_TMP/trace" $p | sed 's/ lat_ns=[0-9]* / /' |
		tr '\n' '|'
	echo
done > "$KPT_TMP/text"
check_eq "text events by probe" "$(cat "$KPT_TMP/text")" \
"loop: n=3|
f1: a=1|f1: a=2|f1: a=3|
f2: b=0x1111|f2: b=0x1111|f2: b=0x1111|
f3: a=1|f3: a=2|f3: a=3|
f4: ret=-1 rv=-1|f4: ret=-2 rv=-2|f4: ret=-3 rv=-3|
f5: d=1|f5: d=2|f5: d=3|"
check_eq "hits" "$(for p in loop f1 f2 f3 f4 f5; do spec_field $p hits; done | tr '\n' ' ')" \
	"2 6 6 6 6 6 "
kpt_stats_check
kpt_unload

spec_finish "distinct ids, events to their probes"
