#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: debugfs `stats` has every counter of the contract, in its
#   order, with exact values and the invariants
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# Names: hits recorded lost lost.full lost.overwritten lost.nested
# lost.too_big missed filtered read pending clock_tsc clock_fallbacks
# deleted_pending mem_used_bytes mem_max_bytes clock_local sessions
# (clock_tsc and clock_local 0 or 1, mem_max_bytes the mem_max_mb
# parameter, sessions 0), then for every possible CPU N:
# cpuN.hits cpuN.recorded cpuN.lost.full cpuN.lost.overwritten
# cpuN.lost.nested cpuN.lost.too_big cpuN.read cpuN.pending; every value a
# decimal number. After 4 calls on CPU 0: hits=recorded=pending=4, read=0,
# cpu0.hits=4, every other CPU 0; after reading: read=4, pending=0; the
# invariants hits = recorded + lost, lost = sum of lost.*, recorded = read +
# pending hold throughout.
# While a binary reader (helpers/kpt_read follow) keeps up with at least
# 400 bursts of 20 calls (more, up to 20000, until stats has been read 10
# times: a loaded host may run the 400 before), stats read in a loop never
# shows a pending (total or per CPU) of 10^18 or more (a negative one would
# be 2^63 or more);
# afterwards the invariants hold and the reader got every recorded event.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_cmd taskset
kpt_test_load
kpt_load name=kpt_test_func stack=0

# possible CPUs, one per line
cpus=$(tr ',' '\n' < /sys/devices/system/cpu/possible | awk -F- '
	{ hi = (NF == 2 ? $2 : $1); for (c = $1; c <= hi; c++) print c }')

expected="hits recorded lost lost.full lost.overwritten lost.nested lost.too_big missed filtered read pending clock_tsc clock_fallbacks deleted_pending mem_used_bytes mem_max_bytes clock_local sessions"
for c in $cpus; do
	for n in hits recorded lost.full lost.overwritten lost.nested lost.too_big read pending; do
		expected="$expected cpu$c.$n"
	done
done
got=$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }' "$KPT_DIR/stats")
assert_eq "stats names, in order" "$got" "$expected"
bad=$(awk 'NF != 2 || $2 !~ /^[0-9]+$/' "$KPT_DIR/stats")
[ -z "$bad" ] || fail "stats lines not '<name> <decimal>': $bad"
for n in $expected; do
	case $n in clock_*) continue ;; esac	# kpt_clock.sh's business
	[ "$n" = mem_max_bytes ] && continue	# kpt_mem_cap.sh's
	assert_eq "$n when idle" "$(kpt_stat "$n")" 0
done
assert_eq mem_max_bytes "$(kpt_stat mem_max_bytes)" \
	$(($(cat /sys/module/kptrace/parameters/mem_max_mb) << 20))

KPT_CPU=0
kpt_call 4
kpt_stats_check
assert_eq hits "$(kpt_stat hits)" 4
assert_eq recorded "$(kpt_stat recorded)" 4
assert_eq pending "$(kpt_stat pending)" 4
assert_eq read "$(kpt_stat read)" 0
assert_eq lost "$(kpt_stat lost)" 0
assert_eq missed "$(kpt_stat missed)" 0
assert_eq cpu0.hits "$(kpt_stat cpu0.hits)" 4
assert_eq cpu0.recorded "$(kpt_stat cpu0.recorded)" 4
assert_eq cpu0.pending "$(kpt_stat cpu0.pending)" 4
for c in $cpus; do
	[ "$c" = 0 ] && continue
	assert_eq "cpu$c.hits" "$(kpt_stat "cpu$c.hits")" 0
done

kpt_trace_read "$KPT_TMP/trace"
assert_eq "events read" "$(grep -c '' "$KPT_TMP/trace")" 4
kpt_stats_check
assert_eq "read after reading" "$(kpt_stat read)" 4
assert_eq "pending after reading" "$(kpt_stat pending)" 0
assert_eq "cpu0.read after reading" "$(kpt_stat cpu0.read)" 4
assert_eq "cpu0.pending after reading" "$(kpt_stat cpu0.pending)" 0

require_kpt_read
kpt_bg "$KPT_READ" -t 120 follow > "$KPT_TMP/follow"
reader=$KPT_BG
sleep 0.5
# bursts of calls the reader keeps up with: pending is often 0, where a
# count of `read' newer than the one of committed would show below it
stop=$KPT_TMP/stop-calls
rm -f "$stop"
kpt_bg sh -c "i=0; while [ \$i -lt 400 ] || { [ ! -e $stop ] && [ \$i -lt 20000 ]; }; do echo 20 > $KPT_TEST_DIR/call; i=\$((i + 1)); done"
flood=$KPT_BG
loops=0
neg=0
while kill -0 "$flood" 2>/dev/null; do
	[ "$loops" -lt 10 ] || touch "$stop"
	while read -r name val; do
		case $name in
		*pending)
			# 19 digits is 10^18 or more: only a negative one
			[ ${#val} -lt 19 ] && continue
			neg=$((neg + 1))
			info "stats while reading: $name $val"
			;;
		esac
	done < "$KPT_DIR/stats"
	loops=$((loops + 1))
done
wait "$flood" || fail "the calls failed"
kill -TERM "$reader"
wait "$reader" || fail "kpt_read follow failed"
info "stats read $loops times during the calls; $(grep '^summary' "$KPT_TMP/follow")"
assert_eq "negative pending seen" "$neg" 0
assert_ge "stats reads during the calls" "$loops" 10
kpt_stats_check
assert_eq "pending after the calls" "$(kpt_stat pending)" 0
assert_eq "events the reader got" \
	"$(sed -n 's/^summary records=\([0-9]*\) .*/\1/p' "$KPT_TMP/follow")" \
	$(($(kpt_stat recorded) - 4))
info "stats names, values and invariants as in the contract"
