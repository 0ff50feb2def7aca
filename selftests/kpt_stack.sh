#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: entry events carry the kernel call trace, probed function
#   first, cut at stack= frames
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# One call of kpt_test_func from kpt_test_call_loop from
# kpt_test_call_write. stack=16: the entry line is followed by
# " Call Trace:", then "  kpt_test_func+0x0/0x<size> [kpt_test]" (+0x4 on
# IBT kernels), "  kpt_test_call_loop+0x<off>/0x<size> [kpt_test]",
# "  kpt_test_call_write+..." and at most 16 frames in all, kernel frames
# without " [module]". stack=2: exactly those 2 frames. stack=0: no call
# trace at all. (A "  ..." line after the frames, marking a cut trace, is
# tolerated.)

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

FRAME_RE='^  [A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+( \[[A-Za-z0-9_]+\])?$'

# run STACK: one call, the trace in $KPT_TMP/trace, frames in .../frames
run()
{
	kpt_load name=kpt_test_func args=1 stack="$1"
	kpt_call 1
	kpt_trace_read "$KPT_TMP/trace"
	sed 's/^/#   /' "$KPT_TMP/trace"
	assert_match "entry (stack=$1)" "$(sed -n 1p "$KPT_TMP/trace")" \
		"$KPT_RE_HEAD"'kpt_test_func: arg0=0x1$'
	sed -n '3,$p' "$KPT_TMP/trace" | grep -v '^  \.\.\.$' > "$KPT_TMP/frames"
	kpt_unload
}

run 16
assert_eq "line 2" "$(sed -n 2p "$KPT_TMP/trace")" " Call Trace:"
n=$(grep -c '' "$KPT_TMP/frames")
[ "$n" -ge 3 ] && [ "$n" -le 16 ] || fail "stack=16: $n frames, expected 3..16"
bad=$(grep -Ev "$FRAME_RE" "$KPT_TMP/frames" | head -n 1)
[ -z "$bad" ] || fail "stack=16: not a frame line: '$bad'"
assert_match "frame 1" "$(sed -n 1p "$KPT_TMP/frames")" \
	'^  kpt_test_func\+0x(0|4)/0x[0-9a-f]+ \[kpt_test\]$'
assert_match "frame 2" "$(sed -n 2p "$KPT_TMP/frames")" \
	'^  kpt_test_call_loop\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]$'
assert_match "frame 3" "$(sed -n 3p "$KPT_TMP/frames")" \
	'^  kpt_test_call_write\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]$'
# A frame of the kernel proper is named without a module.
grep -Eq '^  [A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+$' "$KPT_TMP/frames" ||
	fail "stack=16: no kernel frame (without [module]) below kpt_test"

run 2
assert_eq "line 2 (stack=2)" "$(sed -n 2p "$KPT_TMP/trace")" " Call Trace:"
assert_eq "frames (stack=2)" "$(grep -c '' "$KPT_TMP/frames")" 2
assert_match "frame 1 (stack=2)" "$(sed -n 1p "$KPT_TMP/frames")" \
	'^  kpt_test_func\+0x(0|4)/0x[0-9a-f]+ \[kpt_test\]$'
assert_match "frame 2 (stack=2)" "$(sed -n 2p "$KPT_TMP/frames")" \
	'^  kpt_test_call_loop\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]$'

run 0
assert_eq "lines (stack=0)" "$(grep -c '' "$KPT_TMP/trace")" 1
grep -q 'Call Trace' "$KPT_TMP/trace" && fail "stack=0 printed a call trace"
info "call traces as expected for stack=16, 2 and 0"
