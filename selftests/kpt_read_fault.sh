#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a read() into a buffer that faults consumes only what it
#   copied: nothing is lost, the next read gets the rest
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# name=kpt_test_func args=6 stack=4, 200 calls on one CPU (about 30 KiB of
# records). helpers/kpt_read fault reads 2 pages into a mapping whose
# second page is gone: the read returns EFAULT or whole records of the
# first page only. A drain then reads the rest: 200 entries in all, no
# seq gap, no loss, and stats read = 200 (/dev/kptrace copies straight
# from the rings to the reader and frees only what reached it).

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

kpt_load name=kpt_test_func args=6 stack=4
kpt_call 200
out=$("$KPT_READ" fault) || fail "kpt_read fault: $out"
echo "$out" | sed 's/^/#   /'
first=$(echo "$out" | sed -n 's/^fault first=//p')
case $first in
EFAULT) ;;
*[!0-9]*|"") fail "first read: '$first', expected EFAULT or a byte count" ;;
*) [ "$first" -le 4096 ] || fail "first read returned $first bytes, past the hole" ;;
esac
summary=$(echo "$out" | grep '^summary ')
assert_match "every record once" "$summary" \
	'^summary records=200 entry=200 return=0 lost=0 lost_events=0 .* bad=0 seq_errors=0 '
echo "$out" | grep '^cpu ' | grep -v ' gaps=0 ' &&
	fail "a CPU's records have seq gaps"
kpt_stats_check
assert_eq "stats read" "$(kpt_stat read)" 200
assert_eq "stats lost" "$(kpt_stat lost)" 0
info "a faulting read (first=$first) lost nothing: 200 records after it"
