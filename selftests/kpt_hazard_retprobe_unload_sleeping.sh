#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace unloaded while kretprobed calls are still sleeping
#   in the probed function: the calls return normally afterwards
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_sleep retprobe=1: SLEEPERS processes (default 4) enter
# kpt_test_sleep(MS) (KPT_HAZ_SLEEP_MS, default 3000); while they sleep,
# rmmod kptrace must work (a kretprobe instance holds no reference on the
# module). When they wake, they return through the kretprobe trampoline
# with kptrace's code gone: every call must still return MS (the write
# succeeds), and the kernel must log no fault (run_tests.sh checks). Then
# kptrace loads again on the same function and records a full call.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
kpt_test_load

MS=${KPT_HAZ_SLEEP_MS:-3000}
SLEEPERS=${KPT_HAZ_SLEEPERS:-4}

kpt_load name=kpt_test_sleep retprobe=1 args=1 stack=4
kpt_sleepers "$SLEEPERS" "$MS"
i=0
while [ "$(kpt_stat hits)" -lt "$SLEEPERS" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
assert_eq "entries before the unload" "$(kpt_stat hits)" "$SLEEPERS"
start=$(date +%s)
out=$(rmmod kptrace 2>&1) || fail "rmmod kptrace with sleepers inside the probed function: $out"
kpt_loaded kptrace && fail "kptrace still loaded"
info "kptrace unloaded $(kpt_haz_elapsed "$start")s after the sleepers went in"
for p in $KPT_BG_PIDS; do
	wait "$p" || fail "a sleeper's call failed after kptrace was unloaded"
done
KPT_BG_PIDS=
info "all $SLEEPERS sleepers returned after the unload"

kpt_load name=kpt_test_sleep retprobe=1 args=1 stack=0
kpt_sleep_call 5
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
assert_eq "entry after reload" "$(grep -c 'kpt_test_sleep: arg0=0x5$' "$KPT_TMP/trace")" 1
assert_eq "return after reload" "$(grep -c 'kpt_test_sleep: ret=5 lat_ns=' "$KPT_TMP/trace")" 1
kpt_unload
