#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a read() into a buffer that faults consumes only what it
#   returned, on both paths of /dev/kptrace: nothing is lost, the next
#   read gets the rest
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read,
#   a writable /proc/sys/kernel/kptr_restrict (the hidden reader's round)
#
# name=kpt_test_func args=6 stack=4, 200 calls on one CPU (about 30 KiB of
# records). helpers/kpt_read fault reads 2 pages into a mapping whose
# second page is gone: the read returns EFAULT or whole records of the
# first page only. A drain then reads the rest: 200 entries in all, no
# seq gap, no loss, and stats read = 200, pending = 0, lost = 0. Three
# rounds, one per way a read goes:
# - straight from the rings to the reader (root, kptr_restrict=1), which
#   frees only what reached it;
# - through the open file's buffer for a reader whose addresses are
#   hidden (kptr_restrict=2), which keeps what the fault left for the
#   next read;
# - the same buffer with overwrite=1 (root, kptr_restrict=1).

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load
KR=/proc/sys/kernel/kptr_restrict
# every kernel has it (CONFIG_PRINTK); not writable: not root in init_ns
[ -w "$KR" ] || skip "no writable $KR (the hidden reader's round sets it to 2)"
saved=$(cat "$KR")

cleanup()
{
	[ -z "$saved" ] || echo "$saved" > "$KR"
}

# round NAME KPTR_RESTRICT PARAM...
round()
{
	name=$1
	kr=$2
	shift 2
	echo "$kr" > "$KR" || fail "cannot set kptr_restrict=$kr"
	kpt_load name=kpt_test_func args=6 stack=4 "$@"
	kpt_call 200
	out=$("$KPT_READ" fault) || fail "$name: kpt_read fault: $out"
	echo "$out" | sed "s/^/#   $name: /"
	first=$(echo "$out" | sed -n 's/^fault first=//p')
	case $first in
	EFAULT) ;;
	*[!0-9]*|"") fail "$name: first read: '$first', expected EFAULT or a byte count" ;;
	*) [ "$first" -le 4096 ] ||
		fail "$name: first read returned $first bytes, past the hole" ;;
	esac
	summary=$(echo "$out" | grep '^summary ')
	assert_match "$name: every record once" "$summary" \
		'^summary records=200 entry=200 return=0 lost=0 lost_events=0 .* bad=0 seq_errors=0 '
	echo "$out" | grep '^cpu ' | grep -v ' gaps=0 ' &&
		fail "$name: a CPU's records have seq gaps"
	kpt_stats_check
	assert_eq "$name: stats recorded" "$(kpt_stat recorded)" 200
	assert_eq "$name: stats read" "$(kpt_stat read)" 200
	assert_eq "$name: stats pending" "$(kpt_stat pending)" 0
	assert_eq "$name: stats lost" "$(kpt_stat lost)" 0
	info "$name: a faulting read (first=$first) lost nothing: 200 records after it"
	kpt_unload
}

round direct 1
round hidden 2
round overwrite 1 overwrite=1
info "a faulting read loses nothing, straight from the rings or through the buffer"
