#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: fetchargs %REG, $argN, $stackN, $stack, $comm, nested
#   +OFFS(...) dereferences and every integer type give the exact values,
#   under their NAME= or default (arg1, arg2...) names
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# kpt_test_func(i, 0x1111, 0x2222, 0x3333, 0x4444, 0x5555), 2 calls:
#   p:regs  %di %si %dx %cx %r8 %r9          "regs: arg1=0x1 arg2=0x1111
#            arg3=0x2222 arg4=0x3333 arg5=0x4444 arg6=0x5555"
#   p:args  $arg1 .. $arg6                   the same, "args: arg1=0x1 ..."
#   p:names $arg1 x=$arg2 %dx y=%cx c=$comm  "names: arg1=0x1 x=0x1111
#            arg3=0x2222 y=0x3333 c="sh"" (unnamed ones by position)
# kpt_test_vals(0x8899aabbccddeeff, -i, &node0), 2 calls, where node0 ->
# node1 -> node2 (val at +0, next at +8; vals 0x11, -0x22, 0x33):
#   p:types %di as u8..u64 s8..s64 x8..x64, %si as s8 u32 x16 s64:
#            u8=255 u16=61183 u32=3437096703 u64=9843086184167632639
#            s8=-1 s16=-4353 s32=-857870593 s64=-8603657889541918977
#            x8=0xff x16=0xeeff x32=0xccddeeff x64=0x8899aabbccddeeff
#            n8=-i nu=2^32-i nx=0x10000-i n=-i
#   p:deref +0($arg3)=0x11, +0(+8($arg3)):s64=-34, +0(+8(+8($arg3))):u8=51,
#            -16(+8(+8($arg3))):s64=-34 (negative offset), +0(+8(%dx)):u16
#            =65502, :x32=0xffffffde, +8(+8(+8($arg3)))=0x0 (NULL next), and
#            +0(+8(+8(+8($arg3)))) through that NULL: 0, counted num_fault
#   p:stk   $stack0 == +0($stack), $stack1 == +8($stack), $stack == %sp,
#            $stack0 is a return address into kpt_test_vals_write (on
#            arm64 %x30, the link register: KPT_RET_ADDR)
# On arm64 the registers are %x0 .. %x5 for %di .. %r9 (lib.sh).
# The probes file lists each spec in canonical form (types spelled out).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_spec_vals_setup

# The registers by the architecture's names (lib.sh): %di %si %dx %cx
# %r8 %r9 on x86-64, %x0 .. %x5 on arm64, where the return address at the
# entry is %x30 (the link register), not $stack0.
D=$KPT_REG_ARG1 S=$KPT_REG_ARG2 X=$KPT_REG_ARG3
C=$KPT_REG_ARG4 R8=$KPT_REG_ARG5 R9=$KPT_REG_ARG6
RA=$KPT_RET_ADDR
kpt_load stack=0
spec_add "p:regs kpt_test_func $D $S $X $C $R8 $R9"
spec_add 'p:args kpt_test_func $arg1 $arg2 $arg3 $arg4 $arg5 $arg6'
spec_add "p:names kpt_test_func \$arg1 x=\$arg2 $X y=$C c=\$comm"
spec_add "p:types kpt_test_vals u8=$D:u8 u16=$D:u16 u32=$D:u32 u64=$D:u64 s8=$D:s8 s16=$D:s16 s32=$D:s32 s64=$D:s64 x8=$D:x8 x16=$D:x16 x32=$D:x32 x64=$D:x64 n8=$S:s8 nu=$S:u32 nx=$S:x16 n=\$arg2:s64"
spec_add "p:deref kpt_test_vals v0=+0(\$arg3) v1=+0(+8(\$arg3)):s64 v2=+0(+8(+8(\$arg3))):u8 neg=-16(+8(+8(\$arg3))):s64 m16=+0(+8($X)):u16 m32=+0(+8($X)):x32 nul=+8(+8(+8(\$arg3))) bad=+0(+8(+8(+8(\$arg3)))):u64"
spec_add "p:stk kpt_test_vals s0=\$stack0 m0=+0(\$stack) s1=\$stack1 m1=+8(\$stack) sp=\$stack rsp=%sp ra=$RA:symbol"
sed 's/^/#   /' "$KPT_DIR/probes"

# The canonical form of each spec in the listing.
check_eq "listing" "$(sed 's/ # .*//' "$KPT_DIR/probes")" \
"p:kptrace/regs kpt_test_func arg1=$D:x64 arg2=$S:x64 arg3=$X:x64 arg4=$C:x64 arg5=$R8:x64 arg6=$R9:x64
p:kptrace/args kpt_test_func arg1=\$arg1:x64 arg2=\$arg2:x64 arg3=\$arg3:x64 arg4=\$arg4:x64 arg5=\$arg5:x64 arg6=\$arg6:x64
p:kptrace/names kpt_test_func arg1=\$arg1:x64 x=\$arg2:x64 arg3=$X:x64 y=$C:x64 c=\$comm:string
p:kptrace/types kpt_test_vals u8=$D:u8 u16=$D:u16 u32=$D:u32 u64=$D:u64 s8=$D:s8 s16=$D:s16 s32=$D:s32 s64=$D:s64 x8=$D:x8 x16=$D:x16 x32=$D:x32 x64=$D:x64 n8=$S:s8 nu=$S:u32 nx=$S:x16 n=\$arg2:s64
p:kptrace/deref kpt_test_vals v0=+0(\$arg3):x64 v1=+0(+8(\$arg3)):s64 v2=+0(+8(+8(\$arg3))):u8 neg=-16(+8(+8(\$arg3))):s64 m16=+0(+8($X)):u16 m32=+0(+8($X)):x32 nul=+8(+8(+8(\$arg3))):x64 bad=+0(+8(+8(+8(\$arg3)))):u64
p:kptrace/stk kpt_test_vals s0=\$stack0:x64 m0=+0(\$stack):x64 s1=\$stack1:x64 m1=+8(\$stack):x64 sp=\$stack:x64 rsp=%sp:x64 ra=$RA:symbol"

# The test shell itself writes (comm "sh" for busybox's builtin echo).
echo 2 > "$KPT_TEST_DIR/call" || fail "calling kpt_test_func"
echo 2 > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
comm=$(cat /proc/$$/comm)

check_eq "regs" "$(spec_events "$KPT_TMP/trace" regs)" \
	"$(printf 'regs: arg1=0x%s arg2=0x1111 arg3=0x2222 arg4=0x3333 arg5=0x4444 arg6=0x5555\n' 1 2)"
check_eq "args" "$(spec_events "$KPT_TMP/trace" args)" \
	"$(printf 'args: arg1=0x%s arg2=0x1111 arg3=0x2222 arg4=0x3333 arg5=0x4444 arg6=0x5555\n' 1 2)"
check_eq "names" "$(spec_events "$KPT_TMP/trace" names)" \
	"$(printf 'names: arg1=0x%s x=0x1111 arg3=0x2222 y=0x3333 c="'"$comm"'"\n' 1 2)"

T='u8=255 u16=61183 u32=3437096703 u64=9843086184167632639 s8=-1 s16=-4353 s32=-857870593 s64=-8603657889541918977 x8=0xff x16=0xeeff x32=0xccddeeff x64=0x8899aabbccddeeff'
check_eq "types" "$(spec_events "$KPT_TMP/trace" types)" \
"types: $T n8=-1 nu=4294967295 nx=0xffff n=-1
types: $T n8=-2 nu=4294967294 nx=0xfffe n=-2"

check_eq "deref" "$(spec_events "$KPT_TMP/trace" deref)" \
"deref: v0=0x11 v1=-34 v2=51 neg=-34 m16=65502 m32=0xffffffde nul=0x0 bad=0
deref: v0=0x11 v1=-34 v2=51 neg=-34 m16=65502 m32=0xffffffde nul=0x0 bad=0"
check_eq "deref num_fault" "$(spec_stat deref num_fault)" 2
check_eq "types num_fault" "$(spec_stat types num_fault)" 0

spec_events "$KPT_TMP/trace" stk > "$KPT_TMP/stk"
check_eq "stk events" "$(grep -c '' "$KPT_TMP/stk")" 2
while read -r line; do
	v() { echo "$line" | sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }
	check_match "stk line" "$line" \
		'^stk: s0=0x[0-9a-f]+ m0=0x[0-9a-f]+ s1=0x[0-9a-f]+ m1=0x[0-9a-f]+ sp=0x[0-9a-f]+ rsp=0x[0-9a-f]+ ra=kpt_test_vals_write\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]$'
	check_eq "\$stack0 = +0(\$stack)" "$(v s0)" "$(v m0)"
	check_eq "\$stack1 = +8(\$stack)" "$(v s1)" "$(v m1)"
	check_eq "\$stack = %sp" "$(v sp)" "$(v rsp)"
	check_match "\$stack is a kernel address" "$(v sp)" '^0xff[0-9a-f]{14}$'
done < "$KPT_TMP/stk"

for p in regs args names types deref stk; do
	check_eq "$p: calls/events/recorded" \
		"$(spec_stat $p calls)/$(spec_stat $p events)/$(spec_stat $p recorded)" \
		2/2/2
done
kpt_stats_check
spec_finish "registers, \$argN, \$stackN, \$stack, \$comm, derefs and types exact"
