#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: :string reads kernel strings, :ustring user strings, :str
#   picks by the address, $comm is the task's name; bad pointers give
#   (fault) and a count, never an oops; strsize= truncates with "..."
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# kpt_test_strs(kstr, ustr, n): kstr is kpt_test's
#   kpt_test "kernel" string \ end
# ustr the buffer of a write() to kpt_test/strs (helpers/kpt_spec writes
# the text and its NUL), n its length with the NUL. Spec:
#   k=+0($arg1):string u=+0($arg2):ustring n=$arg3:u32 ks=$arg1:str
#   us=$arg2:str c=$comm f=+0($arg3):string ku=+0($arg1):ustring
#   uk=+0($arg2):string
# Writing 'user "q" \ x<01>y' (15 bytes with the NUL) gives exactly
#   k="kpt_test \"kernel\" string \\ end" u="user \"q\" \\ x\x01y" n=15
#   ks=<as k> us=<as u> c="kpt_spec" f=(fault) ku=(fault) uk=(fault)
# (C escapes, \xNN for non-printables). In the binary record (kpt_spec
# dump) u and us carry KPT_STR_USER, k and ks do not, f/ku/uk carry
# KPT_STR_FAULT; probe_stats: str_fault=3 per call, str_trunc=0.
# With strsize=8: k="kpt_test"... (truncated, marked), a user string of 9
# characters "012345678" gives u="01234567"..., one of exactly 8
# characters "abcdefgh" is whole: u="abcdefgh" (no mark, not counted);
# str_trunc counts the truncated strings only.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load
[ -e "$KPT_TEST_DIR/strs" ] || skip "kpt_test.ko has no strs file (rebuild it)"

SPEC='p:s kpt_test_strs k=+0($arg1):string u=+0($arg2):ustring n=$arg3:u32 ks=$arg1:str us=$arg2:str c=$comm f=+0($arg3):string ku=+0($arg1):ustring uk=+0($arg2):string'
K='"kpt_test \"kernel\" string \\ end"'

kpt_load stack=0
spec_add "$SPEC"
# 'user "q" \ x' then byte 0x01 then 'y': 14 characters, 15 with the NUL
r=$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" "$(printf 'user "q" \\ x\001y')")
assert_eq "write to strs" "$r" ok
r=$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" "plain")
assert_eq "write to strs" "$r" ok
"$KPT_SPEC" dump 0,1,3,4,5,6,7,8 > "$KPT_TMP/dump" || fail "kpt_spec dump"
sed 's/^/#   /' "$KPT_TMP/dump"
U='"user \"q\" \\ x\x01y"'
# The text of the same records, rendered by the kernel: a second run.
spec_add '-:s'
spec_add "p:s2 ${SPEC#p:s }"
"$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" "$(printf 'user "q" \\ x\001y')" >/dev/null
"$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" "plain" >/dev/null
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "text" "$(spec_events "$KPT_TMP/trace" s2)" \
"s2: k=$K u=$U n=15 ks=$K us=$U c=\"kpt_spec\" f=(fault) ku=(fault) uk=(fault)
s2: k=$K u=\"plain\" n=6 ks=$K us=\"plain\" c=\"kpt_spec\" f=(fault) ku=(fault) uk=(fault)"

# The records: string slots with their flags (u user, f fault, t trunc).
KB='kpt_test "kernel" string \ end'
check_eq "records" "$(sed 's/^entry id=[0-9]* //' "$KPT_TMP/dump")" \
"comm=kpt_spec nargs=9 s0=-:30:$KB s1=u:14:user \"q\" \\ x\\x01y a2=0xf s3=-:30:$KB s4=u:14:user \"q\" \\ x\\x01y s5=-:8:kpt_spec s6=f:0: s7=uf:0: s8=f:0:
comm=kpt_spec nargs=9 s0=-:30:$KB s1=u:5:plain a2=0x6 s3=-:30:$KB s4=u:5:plain s5=-:8:kpt_spec s6=f:0: s7=uf:0: s8=f:0:"
check_eq "str_fault" "$(spec_stat s2 str_fault)" 6
check_eq "str_trunc" "$(spec_stat s2 str_trunc)" 0
check_eq "num_fault" "$(spec_stat s2 num_fault)" 0
check_eq "recorded" "$(spec_stat s2 recorded)" 2
kpt_unload

# strsize=8: truncation, marked and counted.
kpt_load stack=0 strsize=8
spec_add 'p:t kpt_test_strs k=+0($arg1):string u=+0($arg2):ustring us=$arg2:str'
"$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" 012345678 >/dev/null
kpt_trace_read "$KPT_TMP/trace8"
check_eq "strsize=8, 9 characters" "$(spec_events "$KPT_TMP/trace8" t)" \
	't: k="kpt_test"... u="01234567"... us="01234567"...'
check_eq "str_trunc after 9 characters" "$(spec_stat t str_trunc)" 3
"$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" abcdefgh >/dev/null
kpt_trace_read "$KPT_TMP/trace8b"
check_eq "strsize=8, exactly 8 characters" "$(spec_events "$KPT_TMP/trace8b" t)" \
	't: k="kpt_test"... u="abcdefgh" us="abcdefgh"'
check_eq "str_trunc after 8 characters" "$(spec_stat t str_trunc)" 4
kpt_stats_check
spec_finish "kernel, user and either strings, faults, \$comm and strsize truncation"
