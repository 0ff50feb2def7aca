#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: entry events carry exactly the first args= register
#   arguments of the probed function
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# kpt_test_func(i, 0x1111, 0x2222, 0x3333, 0x4444, 0x5555), i = 1..5, with
# stack=0. args=6: exactly 5 lines in `trace`, in order, each
#   "<comm>-<tid> [000] <s>.<us>: kpt_test_func: arg0=0x<i> arg1=0x1111
#    arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555"
# all from the same tid; args=2: only arg0 and arg1; args=0: nothing after
# "kpt_test_func:". stats: hits = recorded = read = 5 afterwards.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

CPU_RE='[0-9]{3}'
command -v taskset >/dev/null 2>&1 && CPU_RE=$(printf '%03d' "$KPT_CPU")

# check NARGS: 5 calls, then the exact lines
check()
{
	nargs=$1
	kpt_load name=kpt_test_func args="$nargs" stack=0
	kpt_call 5
	assert_eq "pending before reading (args=$nargs)" "$(kpt_stat pending)" 5
	kpt_trace_read "$KPT_TMP/trace"
	sed 's/^/#   /' "$KPT_TMP/trace" | head -n 5
	assert_eq "lines in trace (args=$nargs)" "$(grep -c '' "$KPT_TMP/trace")" 5
	i=1
	while [ $i -le 5 ]; do
		tail="kpt_test_func:"
		[ "$nargs" -ge 1 ] && tail="$tail arg0=0x$i"
		j=1
		for v in 1111 2222 3333 4444 5555; do
			[ "$nargs" -gt $j ] && tail="$tail arg$j=0x$v"
			j=$((j + 1))
		done
		line=$(sed -n "${i}p" "$KPT_TMP/trace")
		assert_match "line $i (args=$nargs)" "$line" \
			"^[^ ]+-[0-9]+ +\\[$CPU_RE\\] +[0-9]+\\.[0-9]{6}: $tail\$"
		i=$((i + 1))
	done
	tids=$(sed 's/^[^ ]*-\([0-9]*\) .*/\1/' "$KPT_TMP/trace" | sort -u | wc -l)
	assert_eq "distinct tids (args=$nargs)" "$tids" 1
	assert_eq "hits (args=$nargs)" "$(kpt_stat hits)" 5
	assert_eq "recorded (args=$nargs)" "$(kpt_stat recorded)" 5
	assert_eq "read (args=$nargs)" "$(kpt_stat read)" 5
	assert_eq "pending (args=$nargs)" "$(kpt_stat pending)" 0
	assert_eq "lost (args=$nargs)" "$(kpt_stat lost)" 0
	kpt_unload
}

check 6
check 2
check 0
info "arguments exactly as passed, for args=6, 2 and 0"
