#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace loads and unloads cleanly many times while its
#   target function is being called on every CPU, and counts exactly in
#   every cycle
# requires: root, debugfs, kptrace.ko, kpt_test.ko
# timeout: 300
#
# A background loop (the hammer) writes 200 to kpt_test/call_all without
# pause; meanwhile exactly KPT_CYCLES cycles (default 30) of:
# - load kptrace on kpt_test_func under the hammer (a kprobe, or every
#   other cycle retprobe=1, a probe with an entry and a return record per
#   call), stack=8 args=2;
# - pause the hammer (it stops between two writes and says so) and check
#   the books on the quiet system: stats' invariants, and the probes' own
#   counters against the rings' (kpt_books_check: events less filtered =
#   hits, recorded = recorded, lost cause by cause);
# - 3 calls on one CPU: the probe's calls grow by exactly 3, stats hits by
#   exactly 3, or 6 with the return records, and the books still agree;
# - resume the hammer, read 4 KiB of the trace, unload under the hammer.
# Every load and unload must work, the hammer must run throughout, and
# all KPT_CYCLES cycles must run (one that cannot fails the test); the
# kernel must log no Oops, BUG or WARNING (run_tests.sh and the VM
# harness check the log).
# Then kpt_test must still work: a last load counts 10 calls exactly.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

CYCLES=${KPT_CYCLES:-30}
CALLS=3

# The hammer: while $KPT_TMP/pause exists, it stops between two writes
# and says so with $KPT_TMP/paused.
hammer()
{
	while [ -e "$KPT_TMP/hammer" ]; do
		if [ -e "$KPT_TMP/pause" ]; then
			: > "$KPT_TMP/paused"
			sleep 0.05
			continue
		fi
		rm -f "$KPT_TMP/paused"
		echo 200 > "$KPT_TEST_DIR/call_all" || exit 1
	done
}
# hammer_pause: returns once no call_all is running (10 s at most)
hammer_pause()
{
	rm -f "$KPT_TMP/paused"
	: > "$KPT_TMP/pause"
	_n=0
	while [ ! -e "$KPT_TMP/paused" ]; do
		kill -0 "$hammer_pid" 2>/dev/null || fail "cycle $i: the call_all loop died"
		[ $_n -lt 200 ] || fail "cycle $i: the hammer did not pause within 10 s"
		sleep 0.05
		_n=$((_n + 1))
	done
}
# probe_calls: calls= of the probe's total line in probe_stats
probe_calls()
{
	awk '$1 == "kpt_test_func" && $2 ~ /^calls=/ { sub(/^calls=/, "", $2); print $2; f = 1 }
		END { exit !f }' "$KPT_DIR/probe_stats" || fail "cycle $i: no kpt_test_func in probe_stats"
}

: > "$KPT_TMP/hammer"
kpt_bg hammer
hammer_pid=$KPT_BG

i=1
while [ $i -le "$CYCLES" ]; do
	rp=$((i % 2))
	kpt_load name=kpt_test_func retprobe=$rp stack=8 args=2
	hammer_pause
	kpt_books_check
	calls0=$(probe_calls)
	hits0=$(kpt_stat hits)
	kpt_call $CALLS
	assert_eq "cycle $i (retprobe=$rp): probe calls after $CALLS calls" \
		"$(probe_calls)" $((calls0 + CALLS))
	assert_eq "cycle $i (retprobe=$rp): stats hits after $CALLS calls" \
		"$(kpt_stat hits)" $((hits0 + CALLS * (1 + rp)))
	kpt_books_check
	rm -f "$KPT_TMP/pause"
	head -c 4096 "$KPT_DIR/trace" > /dev/null || fail "cycle $i: reading trace"
	kill -0 "$hammer_pid" 2>/dev/null || fail "cycle $i: the call_all loop died"
	kpt_unload
	i=$((i + 1))
done
rm -f "$KPT_TMP/hammer"
wait "$hammer_pid" || fail "the call_all loop failed"
KPT_BG_PIDS=
info "$CYCLES of $CYCLES cycles (the loop leaves early only through fail)"

# kpt_test is intact: a last load counts exact hits.
kpt_load name=kpt_test_func stack=0
kpt_call 10
assert_eq "hits after the cycles" "$(kpt_stat hits)" 10
kpt_books_check
kpt_unload
info "$CYCLES load/unload cycles under load, each with exact books and $CALLS calls counted exactly"
