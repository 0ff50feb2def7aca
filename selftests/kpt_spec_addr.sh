#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: @0xADDR[+|-OFFS] fetches the memory at ADDR, as in ftrace's
#   kprobe_events ("@ADDR: Fetch memory at ADDR"), with every type
# requires: root, debugfs, kptrace.ko, kpt_test.ko (its data symbols in
#   /proc/kallsyms: CONFIG_KALLSYMS_ALL), helpers/kpt_spec
#
# kpt_test's kpt_test_u64 holds 0x8899aabbccddeeff, kpt_test_head points to
# kpt_test_nodes[0] (struct { long val; void *next; }, vals 0x11, -0x22,
# 0x33). At each of 2 calls of kpt_test_vals:
#   a=@U64             0x8899aabbccddeeff
#   b=@U64:u8          255               (the first byte)
#   c=@U64:s16         -4353
#   d=@U64+4:x32       0x8899aabb        (@ADDR+OFFS)
#   e=@U64+8-8         0x8899aabbccddeeff  (@ADDR-OFFS: U64+8 written as
#                                        @0x<U64+8>-8)
#   f=@HEAD            the address of kpt_test_nodes
#   g=+8(@HEAD)        the address of kpt_test_nodes[1]
#   h=+0(+8(@HEAD)):s64  -34
#   i=@NODES+16:s64    -34
# The differential test (kpt_spec_differential.sh) checks that ftrace's
# kprobe_events gives the same values for the same spec.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_spec_vals_setup

U64=$(spec_kallsyms kpt_test_u64 kpt_test)
HEAD=$(spec_kallsyms kpt_test_head kpt_test)
NODES=$(spec_kallsyms kpt_test_nodes kpt_test)
[ -n "$U64" ] && [ -n "$HEAD" ] && [ -n "$NODES" ] ||
	skip "kpt_test's data symbols are not in /proc/kallsyms (CONFIG_KALLSYMS_ALL, kptr_restrict)"
U64_8=$(printf '%x' $((0x$U64 + 8)))
NODE1=$(printf '%x' $((0x$NODES + 16)))

kpt_load stack=0
spec_add "p:addr kpt_test_vals a=@0x$U64 b=@0x$U64:u8 c=@0x$U64:s16 d=@0x$U64+4:x32 e=@0x$U64_8-8 f=@0x$HEAD g=+8(@0x$HEAD) h=+0(+8(@0x$HEAD)):s64 i=@0x$NODES+16:s64"
sed 's/^/#   /' "$KPT_DIR/probes"
# The listing folds the offsets into the address.
check_eq "listing" "$(sed 's/ # .*//' "$KPT_DIR/probes")" \
	"p:kptrace/addr kpt_test_vals a=@0x$U64:x64 b=@0x$U64:u8 c=@0x$U64:s16 d=@0x$(printf '%x' $((0x$U64 + 4))):x32 e=@0x$U64:x64 f=@0x$HEAD:x64 g=+8(@0x$HEAD):x64 h=+0(+8(@0x$HEAD)):s64 i=@0x$NODE1:s64"

echo 2 > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
want="addr: a=0x8899aabbccddeeff b=255 c=-4353 d=0x8899aabb e=0x8899aabbccddeeff f=0x$NODES g=0x$NODE1 h=-34 i=-34"
got=$(spec_events "$KPT_TMP/trace" addr)
check_eq "events" "$got" "$want
$want"
if [ "$got" != "$want
$want" ] && echo "$got" | grep -q "a=0x$U64 "; then
	check_fail "@0xADDR gave the address itself, not the memory at it (ftrace: \"@ADDR: Fetch memory at ADDR\")"
fi
check_eq "num_fault" "$(spec_stat addr num_fault)" 0
spec_finish "@0xADDR reads the memory at ADDR, with offsets and types"
