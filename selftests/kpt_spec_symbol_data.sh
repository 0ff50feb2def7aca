#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: :symbol of a data address prints the data symbol that holds
#   it, sym+0xoff/0xsize [module], as %pS does
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec, data
#   symbols in kallsyms (CONFIG_KALLSYMS_ALL: Debian's amd64 kernels have
#   it, its arm64 kernels do not, and there %pS names the module's last
#   function, as kpt_test_exit+0x17e8/0x758, past its size)
#
# p kpt_test_vals with stack=0, 2 calls (kpt_test_vals(v, -i, &node0)):
#   node=%dx:symbol "kpt_test_nodes+0x0/0x<s> [kpt_test]", next=+8(%dx):symbol
#   "kpt_test_nodes+0x10/0x<s> [kpt_test]" (%x2 on arm64: lib.sh's
#   KPT_REG_ARG3), the same size in both. (Until 29 Nov 2026 a part of
#   kpt_spec_symbol.)

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_spec_vals_setup
awk '$3 == "kpt_test_nodes" { f = 1 } END { exit !f }' /proc/kallsyms ||
	skip "no data symbols in kallsyms (CONFIG_KALLSYMS_ALL is not set)"

HEX='0x[0-9a-f]+'
A3=$KPT_REG_ARG3
kpt_load stack=0
spec_add "p:data kpt_test_vals node=$A3:symbol next=+8($A3):symbol"
echo 2 > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
grep ': data: ' "$KPT_TMP/trace" > "$KPT_TMP/ev"
n=0
while read -r ev; do
	n=$((n + 1))
	check_match "event $n" "$ev" \
		": data: node=kpt_test_nodes\\+0x0/$HEX \\[kpt_test\\] next=kpt_test_nodes\\+0x10/$HEX \\[kpt_test\\]\$"
done < "$KPT_TMP/ev"
check_eq "event lines" "$n" 2
check_eq "one size" "$(sed -n 's/.*: data: node=[^/]*\(\/[^ ]*\) .* next=[^/]*\(\/[^ ]*\) .*/\1 \2/p' "$KPT_TMP/trace" |
	awk '$1 == $2 { print "same" }' | tr '\n' ' ')" "same same "
spec_finish ":symbol of a data address is the data symbol, sym+0xoff/0xsize [module]"
