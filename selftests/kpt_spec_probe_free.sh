#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: deleted probes are freed: add/delete cycles of one probe do
#   not grow the kernel's memory; a deleted probe whose records are still
#   in the rings is freed all the same, but for a tombstone of at most 256
#   bytes that decodes them under its name, freed once they were read
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
# timeout: 400
#
# With kptrace loaded idle (stack=0), 100 cycles of
#   p:c kpt_test_func a=$arg1:u32   then   -:c
# warm up, then 1000 more (KPT_FREE_CYCLES; all of them must run within
# KPT_FREE_BUDGET seconds, default 240, a bound on a run that crawls;
# about 60 s under TCG): Slab + Percpu of /proc/meminfo grow by at most
# 512 bytes a cycle, and at most 256 kB for the noise (each deleted probe
# used to stay until unload, ~4.7 KiB: 4.7 MB for 1000), and the ids keep
# counting up (the next probe's id is the number of probes made before
# it).
#
# Lifetime: p:t1 and p:t2 with 3 calls; a reader of trace takes one
# record (one read of 1 byte: the text files take one record at a time)
# and stops. "-:t1" and "-:t2" cannot free their tombstones: the other
# records are still in a ring.
# Neither can KPT_PIN_CYCLES (1000) add/delete cycles of another probe,
# whose tombstones wait behind t1's, but the probes themselves are freed:
# Slab + Percpu grow by at most 512 bytes a cycle (a tombstone of at most
# 256 bytes, its slot in the id table, and room for the noise; the whole
# probes, ~4.7 KiB each, grew 4.7 MB here before tombstones). Under KASAN
# these bounds are only reported (mem_bound). The rest of
# the read prints the records whole, under t1's name and its arguments'
# names; t2's seven arguments have names of 30 characters (an argument's
# name has 31 at most, as in ftrace), of which a tombstone keeps the first
# six: the seventh prints as arg6 (but in the first record, which the
# reader may have formatted before "-:t2").
# stats' deleted_pending then counts KPT_PIN_CYCLES + 2 tombstones. Once
# the ring is drained, one add/delete (and a read of the probes file)
# frees t1's tombstone and then those behind it: deleted_pending is 0.
# Records still in the ring when their probe is deleted keep their name
# (kpt_spec_add_del).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

CYCLES=${KPT_FREE_CYCLES:-1000}
BUDGET=${KPT_FREE_BUDGET:-240}
[ "$CYCLES" -ge 1 ] 2>/dev/null || fail "KPT_FREE_CYCLES='$CYCLES': a number of cycles, 1 or more"


# cycles N: N add/delete cycles; fails on the first refusal.
cycles()
{
	_n=0
	while [ $_n -lt "$1" ]; do
		echo 'p:c kpt_test_func a=$arg1:u32' > "$KPT_DEV" ||
			fail "cycle $_n: add refused"
		echo '-:c' > "$KPT_DEV" || fail "cycle $_n: delete refused"
		_n=$((_n + 1))
		if [ $((_n % 100)) = 0 ] && [ -n "${2:-}" ] &&
		   [ $(($(date +%s) - $2)) -ge "$BUDGET" ]; then
			break
		fi
	done
	done_cycles=$_n
}

# mem_bound WHAT KB LIMIT_KB: fail if KB > LIMIT_KB. Under KASAN only say
# it: its quarantine keeps freed objects until it holds 1/32 of RAM, so
# Slab grows while it fills (11 MB in 3000 cycles early in a run, -0.9 MB
# late); make check-debug's kmemleak scan checks for leaks there.
mem_bound()
{
	[ "$2" -gt "$3" ] || return 0
	if grep -q ' kasan_report$' /proc/kallsyms; then
		info "KASAN: $1: $2 kB, over $3 kB (its quarantine; kmemleak checks leaks)"
		return 0
	fi
	fail "$1: $2 kB, over $3 kB"
}

kpt_load stack=0
cycles 100
m0=$(kpt_mem_kb)
start=$(date +%s)
cycles "$CYCLES" "$start"
secs=$(($(date +%s) - start))
n=$done_cycles
# deleted probes are freed after an RCU grace period
sleep 1
m1=$(kpt_mem_kb)
info "$n cycles in ${secs}s: Slab+Percpu $m0 kB -> $m1 kB ($((m1 - m0)) kB)"
assert_eq "cycles run (of $CYCLES planned, within ${BUDGET}s)" "$n" "$CYCLES"
mem_bound "Slab+Percpu growth over $n add/delete cycles" $((m1 - m0)) \
	$((n / 2 > 256 ? n / 2 : 256))
spec_add 'p:last kpt_test_func'
check_eq "id after $((n + 100)) cycles" "$(spec_field last id)" $((n + 100))
spec_add '-:last'

# Records of a deleted probe, read before and after it is freed.
PIN=${KPT_PIN_CYCLES:-1000}
spec_add 'p:t1 kpt_test_func a=$arg1:u32 b=$arg2'
# "t2" and six names of 30 characters take 189 of the 200 bytes a
# tombstone keeps for names (KPT_TOMB_MAX less its header): not a seventh
N=$(printf '%028d' 0)
spec_add "p:t2 kpt_test_func n1$N=\$arg1:u32 n2$N=\$arg1:u32 n3$N=\$arg1:u32 n4$N=\$arg1:u32 n5$N=\$arg1:u32 n6$N=\$arg1:u32 n7$N=\$arg1:u32"
kpt_call 3
: > "$KPT_TMP/spec_errors"
(
	dd bs=1 count=1 2>/dev/null
	for t in t1 t2; do
		r=$("$KPT_SPEC" write "-:$t")
		[ "$r" = ok ] || echo "'-:$t': $r" >> "$KPT_TMP/spec_errors"
	done
	kpt_mem_kb > "$KPT_TMP/pin0"
	cycles "$PIN"
	echo "$done_cycles" > "$KPT_TMP/pin_cycles"
	sleep 1
	kpt_mem_kb > "$KPT_TMP/pin1"
	kpt_stat deleted_pending > "$KPT_TMP/pinned"
	timeout 20 cat
) < "$KPT_DIR/trace" > "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "writes while the trace was open" "$(cat "$KPT_TMP/spec_errors")" ""
check_eq "t1's records, read after t1 was deleted" \
	"$(spec_events "$KPT_TMP/trace" t1)" \
	"$(printf '%s\n' 't1: a=1 b=0x1111' 't1: a=2 b=0x1111' \
		't1: a=3 b=0x1111')"
# the first may have been formatted before the delete, with every name
check_match "t2's first record" \
	"$(spec_events "$KPT_TMP/trace" t2 | head -n 1)" \
	"^t2: n1$N=1 n2$N=1 n3$N=1 n4$N=1 n5$N=1 n6$N=1 (n7$N|arg6)=1\$"
check_eq "t2's records, read after t2 was deleted" \
	"$(spec_events "$KPT_TMP/trace" t2 | sed 1d)" \
	"$(for i in 2 3; do
		echo "t2: n1$N=$i n2$N=$i n3$N=$i n4$N=$i n5$N=$i n6$N=$i arg6=$i"
	done)"
assert_eq "cycles while t1's records were in the ring" \
	"$(cat "$KPT_TMP/pin_cycles")" "$PIN"
# t1, t2 and every probe deleted behind them
check_eq "deleted_pending before the drain" "$(cat "$KPT_TMP/pinned")" \
	$((PIN + 2))
p0=$(cat "$KPT_TMP/pin0")
p1=$(cat "$KPT_TMP/pin1")
info "$PIN probes deleted behind t1: Slab+Percpu $p0 kB -> $p1 kB ($((p1 - p0)) kB, $(((p1 - p0) * 1024 / PIN)) bytes each)"
# at most 512 bytes each (a tombstone is at most 256)
mem_bound "$PIN probes deleted behind t1" $((p1 - p0)) $((PIN * 512 / 1024))
# the ring is drained: this add/delete and the listing free t1, then them
spec_add 'p:x kpt_test_func'
spec_add '-:x'
cat "$KPT_DIR/probes" > /dev/null
cat "$KPT_DIR/probes" > /dev/null
sleep 1
p2=$(kpt_mem_kb)
info "after the ring was drained: Slab+Percpu $p2 kB ($((p2 - p1)) kB)"
check_eq "deleted_pending after the drain" "$(kpt_stat deleted_pending)" 0
kpt_stats_check
kpt_unload
spec_finish "$n add/delete cycles: Slab+Percpu $((m1 - m0)) kB; $PIN probes deleted behind t1 held $((p1 - p0)) kB ($(((p1 - p0) * 1024 / PIN)) bytes each)"
