#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: "if COND" filters in the kernel: argument comparisons, & bit
#   tests, && binding tighter than ||, retval and lat_ns of r probes, comm
#   globs, pid, cpu and uid; filtered hits are counted, never recorded
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# kpt_test_func(i, ...) returns -i. Probes and what they keep:
#   p:eq   a=$arg1:u32 if a == 3                 6 calls: a=3
#   p:bit  a=$arg1:u32 if a & 1                  6 calls: 1 3 5
#   p:prec a=$arg1:u32 if a == 2 || a >= 4 && a & 1   6 calls: 2 5
#          (with || binding tighter it would be 5 only)
#   p:ne   a=$arg1:s64 if a != 1 && a <= 2       6 calls: 2
#   r:ret  a=$arg1:u32 if retval < -2            6 calls: 3 4 5 6
#   r:lat  kpt_test_sleep ms=$arg1:u32 if lat_ns > 150000000
#          sleeps of 1 and 300 ms: ms=300 only
#   p:pid  if pid == <test shell>: 2 calls by the shell itself kept, 3
#          calls from a child sh filtered; p:tid if tid == <test shell> ||
#          a == 3: the shell's 2 and the child's a=3
#   p:comm if comm == "kpt_test/*": call_all 2 (one kthread kpt_test/N per
#          CPU) kept, 2 calls from sh filtered;  p:ncomm if comm != "sh*"
#          the same
#   p:cpu  if cpu == 1 (2+ CPUs, taskset): call_all 2: the 2 calls of
#          kpt_test/1; with one CPU, cpu == 0: every call
#   p:uid0 if uid == 0, p:uidn if uid != 0: every call kept / filtered
#   p:esc if comm == "w?b\\*\xc3\xa9", p:raw the same glob with a raw
#          UTF-8 e-acute: listed escaped by the one rule of untrusted
#          text, the listing replayed; a subshell named 'w b\x' + e-acute
#          makes 2 calls, kept by both, the shell's filtered (the same
#          for an s probe's comm= glob: kpt_spec_filter_sys)
# For each: probe_stats calls = events = filtered + recorded (nothing lost),
# also summed over its per-CPU lines,
# stats filtered = the sum, and hits = recorded + lost.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

ncpu=$(kpt_nr_online_cpus)
[ "$ncpu" -lt 2 ] || require_cmd taskset	# the cpu filter's calls
kpt_load stack=0
spec_add 'p:eq kpt_test_func a=$arg1:u32 if a == 3'
spec_add 'p:bit kpt_test_func a=$arg1:u32 if a & 1'
spec_add 'p:prec kpt_test_func a=$arg1:u32 if a == 2 || a >= 4 && a & 1'
spec_add 'p:ne kpt_test_func a=$arg1:s64 if a != 1 && a <= 2'
spec_add 'r:ret kpt_test_func a=$arg1:u32 if retval < -2'
check_eq "canonical conditions" "$(sed 's/ # .*//' "$KPT_DIR/probes")" \
'p:kptrace/eq kpt_test_func a=$arg1:u32 if a == 3
p:kptrace/bit kpt_test_func a=$arg1:u32 if a & 1
p:kptrace/prec kpt_test_func a=$arg1:u32 if a == 2 || a >= 4 && a & 1
p:kptrace/ne kpt_test_func a=$arg1:s64 if a != 1 && a <= 2
r:kptrace/ret kpt_test_func a=$arg1:u32 if retval < -2'
kpt_call 6
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "eq" "$(spec_events "$KPT_TMP/trace" eq)" 'eq: a=3'
check_eq "bit" "$(spec_events "$KPT_TMP/trace" bit)" \
	"$(printf 'bit: a=%s\n' 1 3 5)"
check_eq "prec" "$(spec_events "$KPT_TMP/trace" prec)" \
	"$(printf 'prec: a=%s\n' 2 5)"
check_eq "ne" "$(spec_events "$KPT_TMP/trace" ne)" 'ne: a=2'
check_eq "ret" "$(spec_events "$KPT_TMP/trace" ret |
	sed 's/ lat_ns=[0-9]* / /')" \
	"$(for i in 3 4 5 6; do echo "ret: ret=-$i a=$i"; done)"

# stats_of NAME CALLS RECORDED: calls = events, filtered = the rest; the
# per-CPU lines' calls and events add up to the same CALLS
stats_of()
{
	check_eq "$1: calls events filtered recorded lost" \
		"$(spec_stat "$1" calls) $(spec_stat "$1" events) $(spec_stat "$1" filtered) $(spec_stat "$1" recorded) $(spec_stat "$1" full)$(spec_stat "$1" nested)$(spec_stat "$1" too_big)$(spec_stat "$1" overwritten)" \
		"$2 $2 $(($2 - $3)) $3 0000"
	check_eq "$1: per-CPU calls and events, summed" \
		"$(awk -v n="$1" '$1 == n && $2 ~ /^cpu[0-9]+$/ {
			for (i = 3; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "calls") c += kv[2]
				if (kv[1] == "events") e += kv[2]
			}
		} END { print c + 0, e + 0 }' "$KPT_DIR/probe_stats")" "$2 $2"
}
stats_of eq 6 1
stats_of bit 6 3
stats_of prec 6 2
stats_of ne 6 1
stats_of ret 6 4
check_eq "stats filtered" "$(kpt_stat filtered)" $((5 + 3 + 4 + 5 + 2))
check_eq "stats hits" "$(kpt_stat hits)" $((1 + 3 + 2 + 1 + 4))
kpt_stats_check
kpt_unload

# lat_ns on an r probe.
kpt_load stack=0
spec_add 'r:lat kpt_test_sleep ms=$arg1:u32 if lat_ns > 150000000'
kpt_sleep_call 1
kpt_sleep_call 300
kpt_trace_read "$KPT_TMP/trace2"
check_match "lat" "$(spec_events "$KPT_TMP/trace2" lat)" \
	'^lat: ret=300 lat_ns=[0-9]+ ms=300$'
stats_of lat 2 1
kpt_unload

# Who calls: pid, comm, cpu, uid. The test shell and its children run on
# CPU 0, so that only kpt_test/1 calls on CPU 1; with one CPU online,
# cpu == 0 keeps every call.
if [ "$ncpu" -ge 2 ]; then
	taskset -p -c 0 $$ > /dev/null || fail "taskset -p -c 0 $$"
	cpu_want=1
else
	cpu_want=0
fi
kpt_load stack=0
spec_add "p:pid kpt_test_func a=\$arg1:u32 if pid == $$"
spec_add "p:tid kpt_test_func a=\$arg1:u32 if tid == $$ || a == 3"
spec_add 'p:comm kpt_test_func if comm == "kpt_test/*"'
spec_add 'p:ncomm kpt_test_func if comm != "sh*"'
spec_add 'p:uid0 kpt_test_func if uid == 0'
spec_add 'p:uidn kpt_test_func if uid != 0'
spec_add "p:cpu kpt_test_func if cpu == $cpu_want"
echo 2 > "$KPT_TEST_DIR/call" || fail "calling kpt_test_func"
sh -c "echo 3 > $KPT_TEST_DIR/call" || fail "calling kpt_test_func"
kpt_call_all 2
kpt_trace_read "$KPT_TMP/trace3"
sed 's/^/#   /' "$KPT_TMP/trace3"
total=$((5 + 2 * ncpu))
check_eq "pid" "$(spec_events "$KPT_TMP/trace3" pid)" \
	"$(printf 'pid: a=%s\n' 1 2)"
check_eq "pid events of the test shell" \
	"$(grep -c -- "-$$ .*: pid: " "$KPT_TMP/trace3")" 2
stats_of pid "$total" 2
# the shell's 2 calls, and a == 3 of the child's calls
check_eq "tid" "$(spec_events "$KPT_TMP/trace3" tid)" \
	"$(printf 'tid: a=%s\n' 1 2 3)"
stats_of tid "$total" 3
check_eq "comm events" "$(grep -c '^kpt_test/[0-9]*-[0-9]* .*: comm:$' "$KPT_TMP/trace3")" $((2 * ncpu))
stats_of comm "$total" $((2 * ncpu))
check_eq "ncomm events" "$(grep -c '^kpt_test/[0-9]*-[0-9]* .*: ncomm:$' "$KPT_TMP/trace3")" $((2 * ncpu))
stats_of ncomm "$total" $((2 * ncpu))
stats_of uid0 "$total" "$total"
stats_of uidn "$total" 0
if [ "$cpu_want" = 1 ]; then
	check_eq "cpu events" \
		"$(grep -c '^kpt_test/1-[0-9]* *\[001\] .*: cpu:$' "$KPT_TMP/trace3")" 2
	check_eq "cpu events in all" "$(grep -c ': cpu:$' "$KPT_TMP/trace3")" 2
	stats_of cpu "$total" 2
else
	check_eq "cpu events, one CPU" \
		"$(grep -c ' \[000\] .*: cpu:$' "$KPT_TMP/trace3")" "$total"
	stats_of cpu "$total" "$total"
fi
kpt_stats_check
kpt_unload

# A comm glob is read and listed by the one rule of untrusted text: \\ and
# \xNN in, raw UTF-8 taken, the same escapes out, and the listing replays.
# A subshell names itself 'w b\x' and an e-acute (7 bytes, through
# /proc/self/comm) and makes 2 calls (echo 2 > call); the test shell 1.
kpt_load stack=0
spec_add 'p:esc kpt_test_func if comm == "w?b\\*\xc3\xa9"'
spec_add "$(printf 'p:raw kpt_test_func if comm == w?b\\\\x\303\251')"
listed='p:kptrace/esc kpt_test_func if comm == "w?b\\*\xc3\xa9"
p:kptrace/raw kpt_test_func if comm == "w?b\\x\xc3\xa9"'
check_eq "escaped globs, listed by the one rule" \
	"$(sed 's/ # .*//' "$KPT_DIR/probes")" "$listed"
sed 's/ # .*//' "$KPT_DIR/probes" > "$KPT_TMP/globs"
for name in esc raw; do
	spec_add "-:$name"
done
while read -r line; do
	spec_add "$line"
done < "$KPT_TMP/globs"
check_eq "the listing of escaped globs replays" \
	"$(sed 's/ # .*//' "$KPT_DIR/probes")" "$listed"
( printf 'w b\\x\303\251' > /proc/self/comm &&
	echo 2 > "$KPT_TEST_DIR/call" ) ||
	fail "calling kpt_test_func as 'w b\\x\xc3\xa9'"
echo 1 > "$KPT_TEST_DIR/call" || fail "calling kpt_test_func"
kpt_trace_read "$KPT_TMP/trace4"
sed 's/^/#   /' "$KPT_TMP/trace4"
check_eq "esc events, by their escaped comm" \
	"$(grep -c -F 'w b\\x\xc3\xa9-' "$KPT_TMP/trace4") $(grep -c ': esc:$' "$KPT_TMP/trace4")" "4 2"
stats_of esc 3 2
stats_of raw 3 2
kpt_stats_check
spec_finish "conditions keep exactly the matching hits and count the others"
