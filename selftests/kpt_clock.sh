#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: records' timestamps, by the default session's clock=: mono
#   is CLOCK_MONOTONIC (inside the time the calls took), local is
#   sched_clock(); both never backwards on a CPU, latencies exact; auto
#   picks mono where CLOCK_MONOTONIC reads no device; the TSC path stays
#   on where the kernel keeps time with the TSC
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# For clock=mono and clock=local, name=kpt_test_func,kpt_test_sleep
# retprobe=1 args=1 stack=0: 3 x 5000 calls with two 30 ms sleeps between
# them (the clock's anchors move every ms, so many times), between two
# CLOCK_MONOTONIC readings T0 and T1 of user space (kpt_read now). Then,
# from kpt_read -v drain:
# - 15002 entries and 15002 returns, nothing lost;
# - mono only: every record's ts lies in [T0, T1] (user space cannot read
#   sched_clock(), and it drifts from CLOCK_MONOTONIC);
# - on each CPU, ts never decreases from one record to the next;
# - every return has ts = entry_ts + lat_ns, and the two sleeps (ret=30)
#   lat_ns >= 30 ms;
# - stats: clock_local 0 with clock=mono, 1 with clock=local; without
#   clock= (auto), 0 exactly when the clocksource is one read from the CPU
#   (tsc, kvm-clock, hyperv_clocksource_tsc_page, xen, arm64's
#   arch_sys_counter);
# - stats has clock_tsc 0|1 and clock_fallbacks; when the clocksource is
#   tsc, clock_tsc is 1 and clock_fallbacks 0: every window's check of the
#   TSC's rate against CLOCK_MONOTONIC passed.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

now() { "$KPT_READ" now | sed -n 's/^now ns=//p'; }

# run_clock CLOCK: the calls above, with the default session's clock=CLOCK
run_clock()
{
	clk=$1
	kpt_load name=kpt_test_func,kpt_test_sleep retprobe=1 args=1 stack=0 \
		bufsize_kb=4096 clock="$clk"
	t0=$(now)
	kpt_call 5000
	kpt_sleep_call 30
	kpt_call 5000
	kpt_sleep_call 30
	kpt_call 5000
	t1=$(now)
	[ -n "$t0" ] && [ -n "$t1" ] || fail "kpt_read now printed no time"
	info "T0=$t0 T1=$t1 ($(((t1 - t0) / 1000000)) ms)"

	"$KPT_READ" -v drain > "$KPT_TMP/recs" 2> "$KPT_TMP/err" ||
		fail "kpt_read drain: $(cat "$KPT_TMP/err")"
	tail -n 3 "$KPT_TMP/recs" | sed 's/^/#   /'
	assert_eq "lost" "$(kpt_stat lost)" 0

	# Prints "entries returns outside backwards badlat sleeps shortsleeps",
	# and the first offending record of each kind on stderr.
	[ "$clk" = mono ] || { t0=0; t1=9223372036854775807; }
	set -- $(awk -v t0="$t0" -v t1="$t1" '
	function field(name,    i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	function bad(kind) {
		if (!(kind in seen)) {
			seen[kind] = 1
			print kind ": " $0 > "/dev/stderr"
		}
	}
	$1 == "rec" {
		cpu = field("cpu"); ts = field("ts") + 0; type = field("type")
		if (type != "entry" && type != "return")
			next
		if (type == "entry")
			entries++
		else
			returns++
		if (ts < t0 || ts > t1) {
			outside++; bad("outside [T0, T1]")
		}
		if ((cpu in last) && ts < last[cpu]) {
			backwards++; bad("backwards on its CPU")
		}
		last[cpu] = ts
		if (type == "return") {
			lat = field("lat_ns") + 0
			if (field("entry_ts") + lat != ts) {
				badlat++; bad("ts != entry_ts + lat_ns")
			}
			if (field("ret") == "30") {
				sleeps++
				if (lat < 30000000) {
					short++; bad("sleep shorter than 30 ms")
				}
			}
		}
	}
	END { printf "%d %d %d %d %d %d %d\n", entries, returns, outside,
		backwards, badlat, sleeps, short }' "$KPT_TMP/recs")
	assert_eq "entries" "$1" 15002
	assert_eq "returns" "$2" 15002
	assert_eq "records outside [T0, T1]" "$3" 0
	assert_eq "records older than the one before on their CPU" "$4" 0
	assert_eq "returns with ts != entry_ts + lat_ns" "$5" 0
	assert_eq "sleep returns" "$6" 2
	assert_eq "sleeps shorter than 30 ms" "$7" 0
	assert_eq "clock_local with clock=$clk" "$(kpt_stat clock_local)" \
		"$([ "$clk" = local ] && echo 1 || echo 0)"
}

info "clock=mono"
run_clock mono
tsc=$(kpt_stat clock_tsc)
fallbacks=$(kpt_stat clock_fallbacks)
kpt_unload
info "clock=local"
run_clock local
kpt_unload

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource \
	2>/dev/null)
kpt_load name=kpt_test_func stack=0
case $cs in
tsc|kvm-clock|hyperv_clocksource_tsc_page|xen|arch_sys_counter) want=0 ;;
*) want=1 ;;
esac
assert_eq "clock_local of auto, clocksource ${cs:-?}" \
	"$(kpt_stat clock_local)" "$want"
kpt_unload

assert_match "clock_tsc" "$tsc" '^[01]$'
assert_match "clock_fallbacks" "$fallbacks" '^[0-9]+$'
info "clocksource ${cs:-?}: clock_tsc=$tsc clock_fallbacks=$fallbacks"
if [ "$cs" = tsc ]; then
	assert_eq "clock_tsc with the tsc clocksource" "$tsc" 1
	assert_eq "clock_fallbacks with the tsc clocksource" "$fallbacks" 0
fi
info "timestamps inside the calls' time, monotonic per CPU, latencies exact"
