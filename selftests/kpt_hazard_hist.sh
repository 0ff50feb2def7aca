#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: aggregations under the hazards: hits from task, softirq,
#   hardirq and NMI context on every CPU while a reader clears the table
#   again and again (every hit in exactly one interval), a table that
#   fills up (counted as dropped.table_full), add/delete cycles while the
#   probe is hit (no memory kept), rmmod with a hist file being read
# requires: root, debugfs, kptrace.ko, hazard_modules/kpt_hazard.ko,
#   helpers/kpt_spec
# timeout: 600
#
# kpt_hazard's run file calls kpt_hazard_target(ctx, i) N times per CPU from
# each context (see kpt_hazard_contexts.sh). Probes:
#   p:hc kpt_hazard_target ctx=$arg1 hist:keys=ctx          (cleared)
#   r:hr kpt_hazard_target ctx=$arg1 hist:keys=ctx,lat_ns.log2
#   p:hf kpt_hazard_target i=$arg2 hist:keys=i:size=16      (fills up)
# Checks:
# - hc (runs until 10 intervals have ended): the Hits of every interval a clear ended, plus the live one's,
#   equal probe_stats agg_hits, and calls = agg_hits + the kprobe core's
#   missed (+ at most 1 in 20000 dropped by the kernel's ftrace recursion
#   guard before any handler, as kpt_hazard_contexts.sh allows); every
#   interval's books balance (Hits = Aggregated + Filtered + Dropped);
#   each context that made calls has an entry.
# - hr, hf: books balance; hf has at most 16 keys per CPU and drops the
#   rest as table_full.
# - KPT_HAZ_HIST_CYCLES (default 300, 100 on a debug kernel) add/delete
#   cycles of p:hx ... hist:keys=stacktrace:size=4096 while a run hits the
#   target: Slab + Percpu + VmallocUsed grow by less than one such probe's
#   tables (hist/hx's "# memory:"; vfree() unmaps lazily), and kmemleak
#   (on a debug kernel) finds nothing of kptrace's.
# - 20 cycles of insmod (probe= with a hist) / rmmod while the target is
#   hit on every CPU and a reader reads hist/hp in a loop: rmmod either
#   works or says the module is in use, and nothing oopses.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_haz_ko

cleanup()
{
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_hazard
}

N=${KPT_HAZ_CTX_N:-$(kpt_haz_n 50000 10000)}
H=$KPT_DIR/hist
kpt_haz_load
kpt_load

# total NAME FIELD [FILE]: a Totals line's number
total() { sed -n "s/^    $2: //p" "${3:-$H/$1}"; }
# books LABEL FILE: the Totals of FILE balance
books()
{
	_h=$(total x Hits "$2"); _a=$(total x Aggregated "$2")
	_f=$(total x Filtered "$2"); _d=$(total x Dropped "$2")
	_c=$(($(total x "Dropped table_full" "$2") + $(total x "Dropped nested" "$2") + \
		$(total x "Dropped key_too_large" "$2")))
	[ -n "$_h" ] || { check_fail "$1: no Totals"; return; }
	check_eq "$1: hits = aggregated + filtered + dropped" "$_h" $((_a + _f + _d))
	check_eq "$1: dropped by cause" "$_c" "$_d"
	check_eq "$1: aggregated = sum of hitcounts" "$_a" \
		"$(sed -n 's/.*} hitcount: *\([0-9]*\).*/\1/p' "$2" | awk '{ s += $1 } END { print s + 0 }')"
}

spec_add 'p:hc kpt_hazard_target ctx=$arg1 hist:keys=ctx'
spec_add 'r:hr kpt_hazard_target ctx=$arg1 hist:keys=ctx,lat_ns.log2'
spec_add 'p:hf kpt_hazard_target i=$arg2 hist:keys=i:size=16'

# The clearing reader: each interval's file in $KPT_TMP/iv.N
(
	n=0
	exec 3<>"$H/hc"
	while [ ! -e "$KPT_TMP/stop" ]; do
		echo clear >&3 || exit 1
		cat <&3 > "$KPT_TMP/iv.$n" || exit 1
		n=$((n + 1))
		sleep 0.2
	done
) &
clearer=$!
# runs until the reader has ended 10 intervals (at most 50 runs)
start=$(date +%s)
runs=0
calls=0
while [ $runs -lt 50 ]; do
	echo "$N" > "$KPT_HAZ_DIR/run" || fail "kpt_hazard run $N failed"
	calls=$((calls + $(kpt_haz_count total)))
	runs=$((runs + 1))
	[ -e "$KPT_TMP/iv.10" ] && break
done
info "$runs runs of $N on $(kpt_nr_online_cpus) CPUs took $(kpt_haz_elapsed "$start")s"
touch "$KPT_TMP/stop"
wait "$clearer" || fail "the clearing reader failed"
cat "$H/hc" > "$KPT_TMP/iv.live"
sed 's/^/#   counts: /' "$KPT_HAZ_DIR/counts"

sum=0
n=0
for f in "$KPT_TMP"/iv.*; do
	h=$(total x Hits "$f")
	sum=$((sum + h))
	n=$((n + 1))
	books "interval $(basename "$f")" "$f"
done
info "hc: $n intervals, $sum hits in all"
[ "$n" -ge 3 ] || check_fail "only $n intervals: the run was too short to test clear"
check_eq "hc: hits over the intervals = probe_stats agg_hits" "$sum" \
	"$(spec_stat hc agg_hits)"
missed=$(spec_field hc missed)
dropped=$((calls - sum - missed))
assert_ge "calls - (hits + missed)" "$dropped" 0
assert_ge "at most 1 in 20000 calls dropped by the kernel before the handler" \
	$((calls / 20000 + 1)) "$dropped"

sed 's/^/#   /' "$H/hr" | grep -v '^#   #' | head -n 30
cat "$H/hr" > "$KPT_TMP/hr"
books hr "$KPT_TMP/hr"
for c in task softirq hardirq nmi; do
	case $c in task) v=1 ;; softirq) v=2 ;; hardirq) v=3 ;; nmi) v=4 ;; esac
	[ "$(kpt_haz_count $c)" -gt 0 ] || continue
	grep -q "^{ ctx: *0x$v," "$KPT_TMP/hr" ||
		check_fail "hr: no entry of $c calls (ctx=$v)"
done
cat "$H/hf" > "$KPT_TMP/hf"
books hf "$KPT_TMP/hf"
check_eq "hf: at most 16 keys per CPU" \
	"$([ "$(total x Entries "$KPT_TMP/hf")" -le $((16 * $(kpt_nr_possible_cpus))) ] && echo yes)" yes
[ "$(total x 'Dropped table_full' "$KPT_TMP/hf")" -gt 0 ] ||
	check_fail "hf: a full table dropped nothing"
spec_add '-:hc'
spec_add '-:hr'
spec_add '-:hf'

# Add/delete cycles while the target is hit.
CYCLES=${KPT_HAZ_HIST_CYCLES:-$(kpt_haz_n 300 100)}
# what one such probe's tables take: a leak of even one shows
echo 'p:hx kpt_hazard_target hist:keys=stacktrace:size=4096' > "$KPT_DEV" ||
	fail "adding p:hx refused"
one_kb=$(sed -n 's/^# memory: \([0-9]*\) kB$/\1/p' "$H/hx")
echo '-:hx' > "$KPT_DEV" || fail "deleting p:hx refused"
[ -n "$one_kb" ] || fail "no '# memory:' line in hist/hx"
m0=$(kpt_mem_kb VmallocUsed)
kpt_bg sh -c "while [ ! -e $KPT_TMP/stop2 ]; do echo 2000 > $KPT_HAZ_DIR/run; done"
i=0
while [ $i -lt "$CYCLES" ]; do
	echo 'p:hx kpt_hazard_target hist:keys=stacktrace:size=4096' > "$KPT_DEV" ||
		fail "cycle $i: add refused"
	echo '-:hx' > "$KPT_DEV" || fail "cycle $i: delete refused"
	i=$((i + 1))
done
touch "$KPT_TMP/stop2"
wait
KPT_BG_PIDS=
sleep 1
m1=$(kpt_mem_kb VmallocUsed)
info "$CYCLES add/delete cycles: Slab+Percpu+Vmalloc $m0 kB -> $m1 kB (one probe's tables: $one_kb kB)"
# vfree() unmaps lazily: some may stay counted, never a whole probe's
[ $((m1 - m0)) -lt "$one_kb" ] ||
	check_fail "memory grew by $((m1 - m0)) kB over $CYCLES cycles, a probe's tables are $one_kb kB"
kpt_unload
kpt_haz_kmemleak "hist add/delete cycles"

# rmmod while hist/hp is read in a loop
i=0
busy=0
while [ $i -lt 20 ]; do
	kpt_load 'probe="p:hp kpt_hazard_target ctx=$arg1 hist:keys=ctx"'
	( while cat "$H/hp" > /dev/null 2>&1; do :; done ) &
	rd=$!
	# rmmod while the target is hit on every CPU, in every context
	( echo 50000 > "$KPT_HAZ_DIR/run" ) &
	ld=$!
	sleep 0.1
	if ! out=$(rmmod kptrace 2>&1); then
		case $out in
		*"in use"*|*busy*|*"temporarily unavailable"*) busy=$((busy + 1)) ;;
		*) fail "rmmod kptrace: $out" ;;
		esac
	fi
	wait "$ld" || fail "kpt_hazard run failed during rmmod"
	kill "$rd" 2>/dev/null
	wait "$rd" 2>/dev/null
	kpt_rmmod_quiet kptrace
	kpt_loaded kptrace && fail "cannot unload kptrace after the reader stopped"
	i=$((i + 1))
done
info "20 rmmods with a hist reader: $busy found the module in use"
spec_finish "hist under the hazards: $n exact intervals, full table counted, $CYCLES cycles, 20 rmmods"
