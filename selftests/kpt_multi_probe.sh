#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: several probe points at once: each event is named after its
#   probe, and events come out in the order they happened
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_call_loop,kpt_test_func+0x5 and address=<kpt_test_sleep>,
# args=1 stack=0; one `call 3` then one `sleep 1`. `trace` then holds
# exactly, in this order:
#   ...: kpt_test_call_loop: arg0=0x3
#   ...: kpt_test_func+0x5: arg0=0x1   (the name as given)
#   ...: kpt_test_func+0x5: arg0=0x2
#   ...: kpt_test_func+0x5: arg0=0x3
#   ...: kpt_test_sleep+0x0: arg0=0x1  (address= probes: "sym+0xoff" of the
#                                       address given)
# +0x5 is the instruction after the fentry call: +0x9 on a kernel with IBT,
# +0x8 on arm64 (kpt_after_entry).
# and the probes file lists ids 0, 1, 2 in that order with hits 1, 3, 1.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

addr=$(awk '$3 == "kpt_test_sleep" { print $1; exit }' /proc/kallsyms)
case $addr in
""|0000000000000000) skip "kpt_test_sleep's address is not in /proc/kallsyms" ;;
esac

OFF=$(kpt_after_entry kpt_test_func)
kpt_load name=kpt_test_call_loop,kpt_test_func+$OFF address="$addr" \
	args=1 stack=0
kpt_call 3
kpt_sleep_call 1
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
sed 's/^[^:]*: //' "$KPT_TMP/trace" > "$KPT_TMP/ev"
expected="kpt_test_call_loop: arg0=0x3
kpt_test_func+$OFF: arg0=0x1
kpt_test_func+$OFF: arg0=0x2
kpt_test_func+$OFF: arg0=0x3
kpt_test_sleep+0x0: arg0=0x1"
assert_eq "events in order" "$(cat "$KPT_TMP/ev")" "$expected"
sed 's/^/#   /' "$KPT_DIR/probes"
assert_eq "probe ids and hits" \
	"$(sed -n 's/.* # id=\([0-9]*\) .* \(hits=[0-9]*\) missed=0$/\1 \2/p' "$KPT_DIR/probes")" \
	"0 hits=1
1 hits=3
2 hits=1"
kpt_stats_check
assert_eq hits "$(kpt_stat hits)" 5
info "three probes, named and ordered"
