#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kretprobe instances beyond maxactive are counted as missed,
#   never recorded half
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_sleep retprobe=1 maxactive=1: three processes call
# kpt_test_sleep(1500) at once. One gets the only instance: its entry and
# return are recorded (trace: exactly one entry arg0=0x5dc and one return
# ret=1500); the two others are missed by the kprobe core: stats hits=2,
# recorded=2, missed=2; the probes line ends "hits=1 missed=2".

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

kpt_load name=kpt_test_sleep retprobe=1 maxactive=1 args=1 stack=0
for _ in 1 2 3; do
	kpt_bg sh -c "echo 1500 > $KPT_TEST_DIR/sleep"
done
for p in $KPT_BG_PIDS; do
	wait "$p" || fail "a sleep call failed"
done
KPT_BG_PIDS=
sed 's/^/#   /' "$KPT_DIR/probes"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
assert_eq "entries" "$(grep -c 'kpt_test_sleep: arg0=0x5dc$' "$KPT_TMP/trace")" 1
assert_eq "returns" "$(grep -c 'kpt_test_sleep: ret=1500 lat_ns=' "$KPT_TMP/trace")" 1
assert_eq "lines" "$(grep -c '' "$KPT_TMP/trace")" 2
kpt_stats_check
assert_eq hits "$(kpt_stat hits)" 2
assert_eq missed "$(kpt_stat missed)" 2
assert_match "probes line" "$(cat "$KPT_DIR/probes")" ' hits=1 missed=2$'
info "maxactive=1: one instance recorded, two missed"
