#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an r probe emits one record per call, at return, with the
#   entry-side fetchargs, $retval and the latency; MAXACTIVE bounds the
#   calls in flight and counts the rest as maxactive misses
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# r:rr kpt_test_func a=$arg1:u32 b=$arg2 rv=$retval:s64, 4 calls: exactly 4
#   lines "rr: ret=-i lat_ns=L a=i b=0x1111 rv=-i" with L > 0 and no entry
#   event; kpt_spec dump: 4 RETURN records of 3 args, 0 ENTRY; probe_stats
#   calls=4 events=4 recorded=4; probes "kretprobe ... hits=4 missed=0".
# r:rf kpt_test_func rv=$retval a=$arg1 f=$arg6 (the fast return path) and
#   r:r2 with a second $retval (the general one), 2 calls: exactly
#   "rf: ret=-i lat_ns=L rv=-i a=i f=0x5555" and "r2: ... rv2=-i" (hex).
# r:rs kpt_test_strs with entry-side strings: k=+0($arg1):string
#   u=+0($arg2):ustring rv=$retval:s64: one line with both strings and
#   rv = the length written.
# (lat_ns bounds less the clock's tolerance: 2 us + 0.1% of CLOCK_MONOTONIC)
# r:rl kpt_test_sleep ms=$arg1:u32: sleep(200) gives ret=200, lat_ns >=
#   200000000, ms=200.
# r1:ms kpt_test_sleep: 3 concurrent kpt_test_sleep(1500) calls: one
#   instance, so exactly 1 record "ms: ret=1500 lat_ns=L ms=1500"
#   (L >= 1.5e9), probe_stats calls=1 maxactive_missed=2, probes "r1:...
#   hits=1 missed=2". r4096 is accepted, r4097 refused (EINVAL).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load
[ -e "$KPT_TEST_DIR/strs" ] || skip "kpt_test.ko has no strs file (rebuild it)"

kpt_load stack=4
spec_add 'r:rr kpt_test_func a=$arg1:u32 b=$arg2 rv=$retval:s64'
kpt_call 4
"$KPT_SPEC" dump > "$KPT_TMP/dump" || fail "kpt_spec dump"
sed 's/^/#   /' "$KPT_TMP/dump"
check_eq "return records" "$(grep -c '^return id=0 comm=[^ ]* ret=-[1-4] lat_ns=[1-9][0-9]* nargs=3 a0=0x[1-4] a1=0x1111 a2=0xffffffffffffff' "$KPT_TMP/dump")" 4
check_eq "entry records" "$(grep -c '^entry' "$KPT_TMP/dump")" 0
check_eq "records" "$(grep -c '' "$KPT_TMP/dump")" 4
kpt_call 4
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "trace lines" "$(grep -c '' "$KPT_TMP/trace")" 4
i=0
spec_events "$KPT_TMP/trace" rr > "$KPT_TMP/rr"
while read -r line; do
	i=$((i + 1))
	check_match "return event $i" "$line" \
		"^rr: ret=-$i lat_ns=[1-9][0-9]* a=$i b=0x1111 rv=-$i\$"
done < "$KPT_TMP/rr"
check_eq "return events" "$i" 4
check_eq "rr stats" "$(spec_stat rr calls)/$(spec_stat rr events)/$(spec_stat rr recorded)" 8/8/8
check_match "rr probes line" "$(spec_line rr)" \
	"^r:kptrace/rr kpt_test_func a=\\\$arg1:u32 b=\\\$arg2:x64 rv=\\\$retval:s64 # id=0 at=kpt_test:kpt_test_func\\+$(kpt_entry_off kpt_test_func)/0x[0-9a-f]+ kretprobe $SPEC_MODE hits=8 missed=0\$"
spec_add '-:rr'

# The fast return path (8-byte register arguments and one $retval, in any
# slot) and the general one (a second $retval): the same values.
lat_l() { sed 's/lat_ns=[1-9][0-9]*/lat_ns=L/' | tr '\n' ' '; }
spec_add 'r:rf kpt_test_func rv=$retval a=$arg1 f=$arg6'
spec_add 'r:r2 kpt_test_func a=$arg1 rv=$retval f=$arg6 rv2=$retval'
kpt_call 2
kpt_trace_read "$KPT_TMP/trace3"
sed 's/^/#   /' "$KPT_TMP/trace3"
check_eq "fast return events" "$(spec_events "$KPT_TMP/trace3" rf | lat_l)" \
	"$(printf 'rf: ret=-%d lat_ns=L rv=0x%s a=0x%d f=0x5555 ' \
		1 ffffffffffffffff 1 2 fffffffffffffffe 2)"
check_eq "general return events" "$(spec_events "$KPT_TMP/trace3" r2 | lat_l)" \
	"$(printf 'r2: ret=-%d lat_ns=L a=0x%d rv=0x%s f=0x5555 rv2=0x%s ' \
		1 1 ffffffffffffffff ffffffffffffffff \
		2 2 fffffffffffffffe fffffffffffffffe)"
spec_add '-:rf'
spec_add '-:r2'

# Entry-side strings travel to the return record.
spec_add 'r:rs kpt_test_strs k=+0($arg1):string u=+0($arg2):ustring rv=$retval:s64'
check_eq "write to strs" "$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" 'at entry')" ok
kpt_trace_read "$KPT_TMP/trace2"
check_match "string return event" "$(spec_events "$KPT_TMP/trace2" rs)" \
	'^rs: ret=9 lat_ns=[1-9][0-9]* k="kpt_test \\"kernel\\" string \\\\ end" u="at entry" rv=9$'
spec_add '-:rs'

# Latency of a sleep.
spec_add 'r:rl kpt_test_sleep ms=$arg1:u32'
kpt_sleep_call 200
kpt_trace_read "$KPT_TMP/trace3"
ev=$(spec_events "$KPT_TMP/trace3" rl)
check_match "sleep return event" "$ev" '^rl: ret=200 lat_ns=[0-9]+ ms=200$'
lat=$(echo "$ev" | sed -n 's/.* lat_ns=\([0-9]*\) .*/\1/p')
# kptrace's clock keeps within 2 us + 0.1% of CLOCK_MONOTONIC (README, the
# clock): a 200 ms sleep is at least 200 ms less that much.
[ -n "$lat" ] && [ "$lat" -ge $((200000000 - 200000 - 2000)) ] ||
	check_fail "lat_ns of a 200 ms sleep: $lat < 200 ms - 0.1% - 2 us"
spec_add '-:rl'

# MAXACTIVE
check_eq "r4097" "$(spec_write 'r4097:mx kpt_test_sleep')" errno=EINVAL
check_eq "r4096" "$(spec_write 'r4096:mx kpt_test_sleep')" ok
spec_add '-:mx'
spec_add 'r1:ms kpt_test_sleep ms=$arg1:u32'
for _ in 1 2 3; do
	kpt_bg sh -c "echo 1500 > $KPT_TEST_DIR/sleep"
done
for p in $KPT_BG_PIDS; do
	wait "$p" || fail "a sleep call failed"
done
KPT_BG_PIDS=
kpt_trace_read "$KPT_TMP/trace4"
sed 's/^/#   /' "$KPT_TMP/trace4"
ev=$(spec_events "$KPT_TMP/trace4" ms)
check_match "maxactive event" "$ev" '^ms: ret=1500 lat_ns=[0-9]+ ms=1500$'
lat=$(echo "$ev" | sed -n 's/.* lat_ns=\([0-9]*\) .*/\1/p')
[ -n "$lat" ] && [ "$lat" -ge $((1500000000 - 1500000 - 2000)) ] ||
	check_fail "lat_ns of a 1500 ms sleep: $lat < 1500 ms - 0.1% - 2 us"
check_eq "maxactive: records" "$(grep -c '' "$KPT_TMP/trace4")" 1
check_eq "maxactive: calls" "$(spec_stat ms calls)" 1
check_eq "maxactive: maxactive_missed" "$(spec_stat ms maxactive_missed)" 2
check_eq "maxactive: missed" "$(spec_stat ms missed)" 0
check_match "maxactive: probes line" "$(spec_line ms)" \
	"^r1:kptrace/ms kpt_test_sleep ms=\\\$arg1:u32 # id=[0-9]+ at=kpt_test:kpt_test_sleep\\+$(kpt_entry_off kpt_test_sleep)/0x[0-9a-f]+ kretprobe $SPEC_MODE hits=1 missed=2\$"
kpt_stats_check
spec_finish "r probes: one record at return with entry args, \$retval, lat_ns; MAXACTIVE exact"
