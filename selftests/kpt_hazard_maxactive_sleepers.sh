#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: retprobe=1 maxactive=1 with many concurrent sleepers in the
#   probed function: exactly one instance used, every other call missed,
#   the instance back in the pool after they return
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_sleep retprobe=1 maxactive=1: first one process enters
# kpt_test_sleep(MS) (MS = KPT_HAZ_SLEEP_MS, default 4000) and takes the only
# kretprobe instance; then SLEEPERS-1 more (KPT_HAZ_SLEEPERS, default 16)
# enter it while it sleeps. After all returned:
# - exactly one entry (arg0 = MS) and one return (ret = MS), nothing else;
# - missed = SLEEPERS - 1 (stats and probes line), hits = 2;
# - then one more call is recorded in full (entry + return): the instance
#   went back to the pool, none leaked; stats invariants hold and kptrace
#   unloads.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
kpt_test_load

MS=${KPT_HAZ_SLEEP_MS:-4000}
SLEEPERS=${KPT_HAZ_SLEEPERS:-16}
hexms=$(printf '0x%x' "$MS")

kpt_load name=kpt_test_sleep retprobe=1 maxactive=1 args=1 stack=0
start=$(date +%s)
kpt_bg sh -c "echo $MS > $KPT_TEST_DIR/sleep"
# Wait until the first sleeper holds the instance.
i=0
while [ "$(kpt_stat hits)" != 1 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
assert_eq "hits once the first sleeper is in" "$(kpt_stat hits)" 1
i=1
while [ $i -lt "$SLEEPERS" ]; do
	kpt_bg sh -c "echo $MS > $KPT_TEST_DIR/sleep"
	i=$((i + 1))
done
# The first sleeper must still be sleeping when all the others are in.
i=0
while [ "$(kpt_stat missed)" -lt $((SLEEPERS - 1)) ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
took=$(kpt_haz_elapsed "$start")
[ $((took * 1000)) -lt "$MS" ] ||
	skip "starting $SLEEPERS sleepers took ${took}s, longer than one sleep of ${MS}ms (raise KPT_HAZ_SLEEP_MS)"
for p in $KPT_BG_PIDS; do
	wait "$p" || fail "a sleep call failed"
done
KPT_BG_PIDS=
sed 's/^/#   /' "$KPT_DIR/probes"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
assert_eq "entries" "$(grep -c "kpt_test_sleep: arg0=$hexms\$" "$KPT_TMP/trace")" 1
assert_eq "returns" "$(grep -c "kpt_test_sleep: ret=$MS lat_ns=" "$KPT_TMP/trace")" 1
assert_eq "lines" "$(grep -c '' "$KPT_TMP/trace")" 2
kpt_stats_check
assert_eq hits "$(kpt_stat hits)" 2
assert_eq missed "$(kpt_stat missed)" $((SLEEPERS - 1))
assert_match "probes line" "$(cat "$KPT_DIR/probes")" " hits=1 missed=$((SLEEPERS - 1))\$"

# The instance is free again.
kpt_sleep_call 10
kpt_trace_read "$KPT_TMP/trace2"
assert_eq "entry after all returned" "$(grep -c 'kpt_test_sleep: arg0=0xa$' "$KPT_TMP/trace2")" 1
assert_eq "return after all returned" "$(grep -c 'kpt_test_sleep: ret=10 lat_ns=' "$KPT_TMP/trace2")" 1
kpt_stats_check
assert_eq "missed after all returned" "$(kpt_stat missed)" $((SLEEPERS - 1))
kpt_unload
info "maxactive=1, $SLEEPERS sleepers: 1 recorded, $((SLEEPERS - 1)) missed, instance reused"
