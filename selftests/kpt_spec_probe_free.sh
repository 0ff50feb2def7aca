#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: deleted probes are freed once no record of them is left in
#   the rings: add/delete cycles of one probe do not grow the kernel's
#   memory, and records of a deleted probe read after it was freed print
#   as probeN(deleted)
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
# timeout: 400
#
# With kptrace loaded idle (stack=0), 100 cycles of
#   p:c kpt_test_func a=$arg1:u32   then   -:c
# warm up, then up to 3000 more (KPT_FREE_CYCLES, within KPT_FREE_BUDGET
# seconds, default 240; at least 300 must run): Slab + Percpu of
# /proc/meminfo grow by less than 1 MiB (each deleted probe used to stay
# until unload, ~4.7 KiB: 14 MB for 3000), and the ids keep counting up
# (the next probe's id is the number of probes made before it).
#
# Lifetime: p:t1 with 3 calls; a reader of trace takes the 3 records
# (one read of 1 byte: the records leave the ring in one batch) and stops.
# "-:t1", then one more add/delete, free t1 (no record of it is left in a
# ring); the rest of the read prints the first record whole, under its
# name, and the two others as "probe<id>(deleted): arg0=0x2 arg1=0x1111".
# Records still in the ring when their probe is deleted keep their name
# (kpt_spec_add_del).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

CYCLES=${KPT_FREE_CYCLES:-3000}
BUDGET=${KPT_FREE_BUDGET:-240}
MIN_CYCLES=300

# Slab + Percpu in kB, after the slab caches' reclaimable part is dropped.
mem_kb()
{
	sync
	echo 2 > /proc/sys/vm/drop_caches 2>/dev/null
	awk '$1 == "Slab:" || $1 == "Percpu:" { s += $2 } END { print s }' \
		/proc/meminfo
}

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

kpt_load stack=0
cycles 100
m0=$(mem_kb)
start=$(date +%s)
cycles "$CYCLES" "$start"
secs=$(($(date +%s) - start))
n=$done_cycles
# deleted probes are freed after an RCU grace period
sleep 1
m1=$(mem_kb)
info "$n cycles in ${secs}s: Slab+Percpu $m0 kB -> $m1 kB ($((m1 - m0)) kB)"
assert_ge "cycles run in ${BUDGET}s" "$n" "$MIN_CYCLES"
[ $((m1 - m0)) -lt 1024 ] ||
	fail "Slab+Percpu grew by $((m1 - m0)) kB over $n add/delete cycles"
spec_add 'p:last kpt_test_func'
check_eq "id after $((n + 100)) cycles" "$(spec_field last id)" $((n + 100))
spec_add '-:last'

# A record read after its probe was freed.
spec_add 'p:t1 kpt_test_func a=$arg1:u32 b=$arg2'
id=$(spec_field t1 id)
kpt_call 3
: > "$KPT_TMP/spec_errors"
(
	dd bs=1 count=1 2>/dev/null
	for s in '-:t1' 'p:x kpt_test_func' '-:x'; do
		r=$("$KPT_SPEC" write "$s")
		[ "$r" = ok ] || echo "'$s': $r" >> "$KPT_TMP/spec_errors"
	done
	timeout 20 cat
) < "$KPT_DIR/trace" > "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "writes while the trace was open" "$(cat "$KPT_TMP/spec_errors")" ""
check_eq "t1's records, read after t1 was freed" \
	"$(sed -En 's/^.*-[0-9]+ +\[[0-9]+\] +[0-9.]+: //p' "$KPT_TMP/trace")" \
	"$(printf '%s\n' 't1: a=1 b=0x1111' \
		"probe$id(deleted): arg0=0x2 arg1=0x1111" \
		"probe$id(deleted): arg0=0x3 arg1=0x1111")"
kpt_stats_check
kpt_unload
spec_finish "$n add/delete cycles: Slab+Percpu $((m1 - m0)) kB; a freed probe's records print as probe$id(deleted)"
