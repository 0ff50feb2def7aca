#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: with retprobe=1 every entry is followed by its return event,
#   with the return value and the latency
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_func retprobe=1 args=1 stack=0, 5 calls: exactly 10 lines,
# entry i ("arg0=0x<i>") then its return ("ret=-<i> lat_ns=<n>", n > 0)
# from the same tid; the probes line says kretprobe with hits=5 missed=0
# (entry hits), stats hits=10 (entries and returns each count one).
# The probe is a b probe of the spec language: its listing line, written
# back to the probes file after the probe is deleted, makes the same probe
# (the same 10 lines for 5 more calls, hits=5 in the new listing, stats
# hits=20 in all).
# A b probe with strings ($comm, a faulting +0($arg2):string) fetches
# them at entry only: 3 calls give 3 entries with them and 3 returns of
# exactly ret= and lat_ns=, 6 records and nothing lost.
# name=kpt_test_sleep retprobe=1: a 100 ms sleep returns ret=100 with
# lat_ns >= 100000000.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

# pairs HOW N PROBE ENTRY: N calls, then exactly their 2N lines in the
# trace: entry i, "PROBE: ENTRY" with each @ made i, then its return
# "PROBE: ret=-i lat_ns=L", L > 0, from the same tid
pairs()
{
	kpt_call "$2"
	kpt_trace_read "$KPT_TMP/trace"
	sed 's/^/#   /' "$KPT_TMP/trace"
	assert_eq "$1: lines in trace" "$(grep -c '' "$KPT_TMP/trace")" $(($2 * 2))
	i=1
	while [ $i -le "$2" ]; do
		entry=$(sed -n "$((2 * i - 1))p" "$KPT_TMP/trace")
		ret=$(sed -n "$((2 * i))p" "$KPT_TMP/trace")
		assert_match "$1: entry $i" "$entry" \
			"$KPT_RE_HEAD$3: $(printf "%s" "$4" | sed "s/@/$i/g")\$"
		assert_match "$1: return $i" "$ret" "$KPT_RE_HEAD$3"': ret=-'$i' lat_ns=[0-9]+$'
		lat=${ret##*lat_ns=}
		[ "$lat" -gt 0 ] || fail "$1: return $i: lat_ns=$lat, expected > 0"
		etid=$(echo "$entry" | sed 's/^[^ ]*-\([0-9]*\) .*/\1/')
		rtid=$(echo "$ret" | sed 's/^[^ ]*-\([0-9]*\) .*/\1/')
		assert_eq "$1: tid of return $i" "$rtid" "$etid"
		i=$((i + 1))
	done
}

# five_calls HOW: pairs of 5 calls of the retprobe=1 probe, and its listing
five_calls()
{
	pairs "$1" 5 kpt_test_func 'arg0=0x@'
	probe=$(cat "$KPT_DIR/probes")
	info "probes: $probe"
	# (the exact format of the line is kpt_probes_file.sh's business)
	assert_match "$1: probes line" "$probe" \
		'^b:kptrace/kpt_test_func kpt_test_func arg0=\$arg1:x64 # .* kretprobe (ftrace|optimized|int3) hits=5 missed=0$'
}

kpt_load name=kpt_test_func retprobe=1 args=1 stack=0
five_calls "name= retprobe=1"
assert_eq "hits (entries + returns)" "$(kpt_stat hits)" 10
assert_eq "recorded" "$(kpt_stat recorded)" 10
assert_eq "missed" "$(kpt_stat missed)" 0
# The listing line, replayed: the same probe from the spec language.
echo '-:kptrace/kpt_test_func' > "$KPT_DIR/probes" ||
	fail "deleting kptrace/kpt_test_func"
echo "$probe" > "$KPT_DIR/probes" || fail "writing back: $probe"
five_calls "its listing written back"
assert_eq "hits (both probes)" "$(kpt_stat hits)" 20
assert_eq "recorded (both probes)" "$(kpt_stat recorded)" 20
kpt_unload

kpt_load stack=0
echo 'b:bs kpt_test_func a=$arg1:u32 c=$comm s=+0($arg2):string' \
	> "$KPT_DIR/probes" || fail "adding b:bs"
pairs "b with strings" 3 bs 'a=@ c="[^"]+" s=\(fault\)'
assert_eq "b with strings: recorded" "$(kpt_stat recorded)" 6
assert_eq "b with strings: lost" "$(kpt_stat lost)" 0
kpt_unload

kpt_load name=kpt_test_sleep retprobe=1 args=1 stack=0
kpt_sleep_call 100
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
assert_eq "lines in trace (sleep)" "$(grep -c '' "$KPT_TMP/trace")" 2
assert_match "sleep entry" "$(sed -n 1p "$KPT_TMP/trace")" \
	"$KPT_RE_HEAD"'kpt_test_sleep: arg0=0x64$'
ret=$(sed -n 2p "$KPT_TMP/trace")
assert_match "sleep return" "$ret" "$KPT_RE_HEAD"'kpt_test_sleep: ret=100 lat_ns=[0-9]+$'
lat=${ret##*lat_ns=}
[ "$lat" -ge 100000000 ] || fail "100 ms sleep: lat_ns=$lat, expected >= 100000000"
kpt_unload
info "every entry followed by its return, values and latencies right"
