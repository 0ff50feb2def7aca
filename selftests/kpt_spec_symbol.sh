#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: :symbol prints an address as %pS does: sym+0xoff/0xsize,
#   with " [module]" for module symbols, and the bare hex value when no
#   symbol holds it; the record keeps the address
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# p kpt_test_vals with stack=2, 2 calls:
#   ra=$stack0:symbol is the return address: the same text as the 2nd frame
#     of the event's own call trace, "kpt_test_vals_write+0x<o>/0x<s>
#     [kpt_test]"
#   ip=%ip:symbol is "kpt_test_vals+0x1/0x<s> [kpt_test]" (after the
#     breakpoint, as ftrace prints it)
#   (data symbols, node=%dx:symbol and next=+8(%dx):symbol, are
#   kpt_spec_symbol_data's: a kernel without CONFIG_KALLSYMS_ALL has none)
#   neg=$arg2:symbol for -1 and -2: "0xffffffffffffffff", "0xfffffffffffffffe"
#   (kpt_spec dump: the slot of ra is the address, the same as $stack0:x64)
# p vfs_write if pid == <the test shell>: ra=$stack0:symbol is a vmlinux
#   symbol (no " [module]"), again the 2nd frame of each event's trace.
# On arm64 (lib.sh's architecture facts): the return address at a
# function's entry is %x30 (the link register), %ip is %pc, at +0x0 (brk
# leaves pc at the probed instruction).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_spec_vals_setup

HEX='0x[0-9a-f]+'
RA=$KPT_RET_ADDR
kpt_load stack=2
spec_add "p:sym kpt_test_vals ra=$RA:symbol ip=$KPT_REG_IP:symbol neg=\$arg2:symbol rax=$RA"
echo 2 > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
"$KPT_SPEC" dump > "$KPT_TMP/dump" || fail "kpt_spec dump"
sed 's/^/#   /' "$KPT_TMP/dump"
# slots: a0 (ra) is the address, as a3 (rax) is
awk '{ a0 = a3 = ""; for (i = 1; i <= NF; i++) {
	if ($i ~ /^a0=/) a0 = substr($i, 4); if ($i ~ /^a3=/) a3 = substr($i, 4) }
	print (a0 != "" && a0 == a3) ? "same" : "differ: " $0 }' "$KPT_TMP/dump" > "$KPT_TMP/slots"
check_eq "symbol slots hold the address" "$(cat "$KPT_TMP/slots")" "same
same"

echo 2 > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "events" "$(grep -c ': sym: ' "$KPT_TMP/trace")" 2
n=0
# each event line, then " Call Trace:", the probed function, the caller
awk '/: sym: / { ev = $0; getline; getline; getline; print ev "|" $0 }' \
	"$KPT_TMP/trace" > "$KPT_TMP/pairs"
while IFS='|' read -r ev frame; do
	n=$((n + 1))
	frame=${frame#  }
	check_match "event $n" "$ev" \
		": sym: ra=kpt_test_vals_write\\+$HEX/$HEX \\[kpt_test\\] ip=kpt_test_vals\\+$KPT_ENTRY_IP/$HEX \\[kpt_test\\] neg=0xffffffffffffff(ff|fe) rax=$HEX\$"
	ra=$(echo "$ev" | sed 's/.* ra=\(.*\) ip=.*/\1/')
	check_eq "event $n: ra is the caller frame" "$ra" "$frame"
done < "$KPT_TMP/pairs"
check_eq "event pairs" "$n" 2
check_eq "neg values" "$(sed -n 's/.* neg=\([^ ]*\) .*/\1/p' "$KPT_TMP/trace" | tr '\n' ' ')" \
	"0xffffffffffffffff 0xfffffffffffffffe "

# A vmlinux caller: no module suffix.
spec_add "p:vw vfs_write ra=$RA:symbol if pid == $$"
echo 1 > "$KPT_TEST_DIR/call" || fail "calling kpt_test_func"
spec_add '-:vw'
kpt_trace_read "$KPT_TMP/trace2"
awk '/: vw: / { ev = $0; getline; getline; getline; print ev "|" $0 }' \
	"$KPT_TMP/trace2" > "$KPT_TMP/pairs2"
n=0
while IFS='|' read -r ev frame; do
	n=$((n + 1))
	frame=${frame#  }
	check_match "vfs_write event $n" "$ev" \
		": vw: ra=[A-Za-z_][A-Za-z0-9_.]*\\+$HEX/$HEX\$"
	check_eq "vfs_write event $n: ra is the caller frame" \
		"${ev##*: vw: ra=}" "$frame"
done < "$KPT_TMP/pairs2"
[ "$n" -ge 1 ] || check_fail "no vfs_write event of the test shell"
spec_finish ":symbol is sym+0xoff/0xsize [module], or hex without a symbol"
