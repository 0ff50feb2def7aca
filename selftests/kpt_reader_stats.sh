#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace --stats` prints the module's counters and a per-CPU
#   table
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# With kptrace on kpt_test_func and 5 calls: `kptrace --stats` exits 0,
# prints a "hits N" line with N >= 5 and a per-CPU table whose header
# starts "CPU HITS RECORDED".

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load
kpt_load name=kpt_test_func stack=0
kpt_call 5

rc=0
"$KPTRACE" --stats > "$KPT_TMP/stats" 2> "$KPT_TMP/err" || rc=$?
sed 's/^/#   /' "$KPT_TMP/stats" "$KPT_TMP/err"
assert_eq "kptrace --stats: exit status" "$rc" 0
hits=$(sed -n 's/^hits  *\([0-9][0-9]*\).*/\1/p' "$KPT_TMP/stats")
assert_ge "kptrace --stats: hits" "${hits:-0}" 5
grep -Eq '^CPU +HITS +RECORDED' "$KPT_TMP/stats" ||
	fail "kptrace --stats: no per-CPU table (CPU HITS RECORDED ...)"
exit 0
