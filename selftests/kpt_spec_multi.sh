#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: several probes at once, on different functions and on the
#   same one, have distinct ids and each event goes to its own probe; a
#   symbol name that is not unique resolves to one definition, the same
#   every time, and only that one is traced
# requires: root, debugfs, kptrace.ko, kpt_test.ko, kpt_test2.ko,
#   helpers/kpt_spec
#
# On kpt_test_func and its caller kpt_test_call_loop, 3 calls (one loop):
#   p:loop kpt_test_call_loop n=$arg1:u32       loop: n=3         (1 event)
#   p:f1   kpt_test_func a=$arg1:u32            f1: a=1..3
#   p:f2   kpt_test_func b=$arg2:x16            f2: b=0x1111 (x3)
#   p:f3   kpt_test_func a=$arg1:u32            f3: a=1..3 (same spec as f1)
#   r:f4   kpt_test_func rv=$retval:s64         f4: ret=-i rv=-i
#   p:f5   kpt_test_func+<first insn after the fentry call> d=%di:u32
#                                               f5: d=1..3
# ids 0..5 distinct, the kptrace ids of the records (kpt_spec dump) are
# those of the probes, each probes line hits = its events, and the records
# come in call order: loop's, then call 1's 5 records, call 2's, call 3's.
# Duplicate names: kpt_test and kpt_test2 both have a static kpt_dup().
#   p:dup kpt_dup resolves to one of them (kallsyms_lookup_name() on 6.1:
#   the module loaded last, kpt_test2), p:dupb kpt_dup to the same one; the
#   at= of both names that module; calls of that module's kpt_dup are traced
#   (3), calls of the other's are not (0); p:d1 kpt_test:kpt_dup and
#   p:d2 kpt_test2:kpt_dup pick each one explicitly and trace only it.
# A name that is twice in vmlinux (found in /proc/kallsyms at run time,
# one whose two definitions differ in size): accepted, at= is the first
# definition in /proc/kallsyms (its size), the same for a second probe.
# (ftrace's kprobe_events refuses such a name on 6.1: "The symbol is not
# unique", EADDRNOTAVAIL; kptrace's module resolves it as the kprobe core
# does, and "kptrace probe add" is where ambiguous names are refused.)

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_test2_ko
kpt_test_load
[ -e "$KPT_TEST_DIR/dup" ] || skip "kpt_test.ko has no dup file (rebuild it)"

cleanup()
{
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test2
}

kpt_load stack=0
spec_add 'p:loop kpt_test_call_loop n=$arg1:u32'
spec_add 'p:f1 kpt_test_func a=$arg1:u32'
spec_add 'p:f2 kpt_test_func b=$arg2:x16'
spec_add 'p:f3 kpt_test_func a=$arg1:u32'
spec_add 'r:f4 kpt_test_func rv=$retval:s64'
# The first instruction after the fentry call: +5, or +9 after an endbr64.
off=
for o in 5 9; do
	if [ "$(spec_write "p:f5 kpt_test_func+$o d=%di:u32")" = ok ]; then
		off=$o
		break
	fi
done
[ -n "$off" ] || fail "no offset of kpt_test_func (5, 9) takes a probe"
sed 's/^/#   /' "$KPT_DIR/probes"
check_eq "ids" "$(for p in loop f1 f2 f3 f4 f5; do spec_field $p id; done | tr '\n' ' ')" \
	"0 1 2 3 4 5 "
check_match "f5 at" "$(spec_field f5 at)" \
	"^kpt_test:kpt_test_func\\+0x$off/0x[0-9a-f]+\$"
kpt_call 3
"$KPT_SPEC" dump > "$KPT_TMP/dump" || fail "kpt_spec dump"
sed 's/^/#   /' "$KPT_TMP/dump"
# Per probe id, the values of its records, in order.
per_id()
{
	awk -v id="$2" '$2 == "id=" id { sub(/.* a0=/, ""); printf "%s ", $0 }' "$1"
}
check_eq "records of loop (id 0)" "$(per_id "$KPT_TMP/dump" 0)" "0x3 "
check_eq "records of f1 (id 1)" "$(per_id "$KPT_TMP/dump" 1)" "0x1 0x2 0x3 "
check_eq "records of f2 (id 2)" "$(per_id "$KPT_TMP/dump" 2)" \
	"0x1111 0x1111 0x1111 "
check_eq "records of f3 (id 3)" "$(per_id "$KPT_TMP/dump" 3)" "0x1 0x2 0x3 "
check_eq "records of f4 (id 4)" "$(per_id "$KPT_TMP/dump" 4)" \
	"0xffffffffffffffff 0xfffffffffffffffe 0xfffffffffffffffd "
check_eq "records of f5 (id 5)" "$(per_id "$KPT_TMP/dump" 5)" "0x1 0x2 0x3 "
check_eq "f4 records are returns" \
	"$(grep -c '^return id=4 comm=[^ ]* ret=-[123] ' "$KPT_TMP/dump")" 3
check_eq "records" "$(grep -c '' "$KPT_TMP/dump")" 16
# In time order: the loop's entry first, then call 1's records, call 2's,
# call 3's (the call number is a0 of f1 f3 f5, -ret of f4).
check_eq "records in call order" "$(awk '
	$2 == "id=0" { print 0 }
	$2 ~ /^id=[135]$/ { v = $NF; sub(/^a0=0x/, "", v); print v }
	$2 == "id=4" { v = $4; sub(/^ret=-/, "", v); print v }' "$KPT_TMP/dump" |
	tr '\n' ' ')" "0 1 1 1 1 2 2 2 2 3 3 3 3 "
kpt_call 3
kpt_trace_read "$KPT_TMP/trace"
for p in loop f1 f2 f3 f4 f5; do
	spec_events "$KPT_TMP/trace" $p | sed 's/ lat_ns=[0-9]* / /' |
		tr '\n' '|'
	echo
done > "$KPT_TMP/text"
check_eq "text events by probe" "$(cat "$KPT_TMP/text")" \
"loop: n=3|
f1: a=1|f1: a=2|f1: a=3|
f2: b=0x1111|f2: b=0x1111|f2: b=0x1111|
f3: a=1|f3: a=2|f3: a=3|
f4: ret=-1 rv=-1|f4: ret=-2 rv=-2|f4: ret=-3 rv=-3|
f5: d=1|f5: d=2|f5: d=3|"
check_eq "hits" "$(for p in loop f1 f2 f3 f4 f5; do spec_field $p hits; done | tr '\n' ' ')" \
	"2 6 6 6 6 6 "
kpt_stats_check
kpt_unload

# Duplicate names in modules: kpt_dup in kpt_test and in kpt_test2.
_out=$(insmod "$KPT_TEST2_KO" init_calls=0 2>&1) || fail "insmod kpt_test2: $_out"
check_eq "kpt_dup in kallsyms" \
	"$(awk '$3 == "kpt_dup" { print $4 }' /proc/kallsyms | sort | tr '\n' ' ')" \
	"[kpt_test2] [kpt_test] "
kpt_load stack=0
spec_add 'p:dup kpt_dup a=$arg1:u32'
spec_add 'p:dupb kpt_dup a=$arg1:u32'
spec_add 'p:d1 kpt_test:kpt_dup a=$arg1:u32'
spec_add 'p:d2 kpt_test2:kpt_dup a=$arg1:u32'
sed 's/^/#   /' "$KPT_DIR/probes"
at=$(spec_field dup at)
check_eq "dup and dupb resolve alike" "$(spec_field dupb at)" "$at"
check_match "dup resolves to a module's kpt_dup" "$at" \
	'^kpt_test2?:kpt_dup\+0x0/0x[0-9a-f]+$'
check_match "d1 at" "$(spec_field d1 at)" '^kpt_test:kpt_dup\+0x0/'
check_match "d2 at" "$(spec_field d2 at)" '^kpt_test2:kpt_dup\+0x0/'
info "kpt_dup resolved to $at (kpt_test2 was loaded last)"
echo 2 > "$KPT_TEST_DIR/dup" || fail "calling kpt_test's kpt_dup"
echo 3 > "$KPT_TEST2_DIR/dup" || fail "calling kpt_test2's kpt_dup"
kpt_trace_read "$KPT_TMP/trace2"
sed 's/^/#   /' "$KPT_TMP/trace2"
check_eq "d1 events" "$(spec_events "$KPT_TMP/trace2" d1)" \
	"$(printf 'd1: a=%s\n' 1 2)"
check_eq "d2 events" "$(spec_events "$KPT_TMP/trace2" d2)" \
	"$(printf 'd2: a=%s\n' 1 2 3)"
case $at in
kpt_test2:*) want=$(printf 'dup: a=%s\n' 1 2 3) ;;
*) want=$(printf 'dup: a=%s\n' 1 2) ;;
esac
check_eq "dup events (the resolved one only)" \
	"$(spec_events "$KPT_TMP/trace2" dup)" "$want"
check_eq "dupb events" "$(spec_events "$KPT_TMP/trace2" dupb)" \
	"$(echo "$want" | sed 's/^dup:/dupb:/')"
[ "$at" = "$(spec_field d2 at)" ] &&
	info "as kallsyms_lookup_name() does: the module loaded last comes first"
kpt_unload
_out=$(rmmod kpt_test2 2>&1) || fail "rmmod kpt_test2: $_out"

# A name twice in vmlinux, whose two definitions differ in size.
# /proc/kallsyms is sorted by address for vmlinux; a symbol's size is the
# distance to the next higher address, as %pS computes it.
# Text symbols only, and each run of equal addresses walked once: 5.10 has
# long runs of symbols at one address, which a walk per symbol makes
# quadratic (minutes under TCG).
awk '$4 == "" && $2 ~ /^[tT]$/ { print }' /proc/kallsyms | awk '
	{ addr[NR] = $1; name[NR] = $3 }
	END {
		for (i = NR; i >= 1; i--)
			nxt[i] = (i < NR && addr[i + 1] == addr[i]) ? nxt[i + 1] : i + 1
		for (i = 1; i <= NR; i++) {
			j = nxt[i]
			if (j > NR) continue
			if (name[i] ~ /[.$]/) continue
			# an alias shares the address: %pS may name the other
			if (j != i + 1 || (i > 1 && addr[i - 1] == addr[i])) {
				alias[name[i]] = 1
				continue
			}
			n[name[i]]++
			if (n[name[i]] == 1) { first[name[i]] = addr[i]; nx1[name[i]] = addr[j] }
			if (n[name[i]] == 2) { second[name[i]] = addr[i]; nx2[name[i]] = addr[j] }
		}
		for (s in n)
			if (n[s] == 2 && !alias[s])
				print s, first[s], nx1[s], second[s], nx2[s]
	}' > "$KPT_TMP/dups"
info "$(grep -c '' "$KPT_TMP/dups") names are twice in vmlinux"
[ -n "$(spec_kallsyms kpt_test_func kpt_test)" ] ||
	skip "kallsyms addresses are hidden"
# hex_sub A B: A - B in hex (64-bit shell arithmetic)
hex_sub()
{
	printf '%x' $((0x$1 - 0x$2))
}
kpt_load stack=0
found=
tries=0
# At most 40 candidates: each refused one costs a registration attempt, slow
# under TCG on a kernel whose duplicates are mostly unprobeable.
while [ $tries -lt 40 ] && read -r s a1 n1 a2 n2; do
	sz1=$(hex_sub "$n1" "$a1")
	sz2=$(hex_sub "$n2" "$a2")
	[ "$sz1" != "$sz2" ] || continue
	tries=$((tries + 1))
	[ "$(spec_write "p:vd1 $s")" = ok ] || continue
	found=$s
	break
done < "$KPT_TMP/dups"
if [ -z "$found" ]; then
	kpt_unload
	spec_finish "distinct ids, events to their probes (no probeable name twice in vmlinux with two sizes in $tries tries: not checked)"
	exit 0
fi
spec_add "p:vd2 $found"
info "$found: first at $a1 (size 0x$sz1), second at $a2 (size 0x$sz2)"
sed 's/^/#   /' "$KPT_DIR/probes"
# +0x0, or +0x4 past an endbr64 on a kernel with IBT (kprobe_events, which
# kpt_entry_off asks, refuses a name defined twice).
check_match "vd1 resolves to the first definition" "$(spec_field vd1 at)" \
	"^$found\\+0x[04]/0x$sz1\$"
check_eq "vd2 the same" "$(spec_field vd2 at)" "$(spec_field vd1 at)"
spec_finish "distinct ids, events to their probes, duplicate names resolved consistently"
