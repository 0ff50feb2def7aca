#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an r probe deleted while kretprobed calls are still sleeping
#   in the probed function, and another added there: the calls return
#   normally afterwards, and the deleted probe records none of them
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# r:rs kpt_test_sleep ms=$arg1:u32: SLEEPERS processes (KPT_HAZ_SLEEPERS,
# default 4) enter kpt_test_sleep(MS) (KPT_HAZ_SLEEP_MS, default 3000).
# Once probe_stats counts their SLEEPERS calls, "-:rs" deletes the probe
# (struct kretprobe is freed after a grace period while its instances are
# still on the sleepers' stacks) and "r:rs2 kpt_test_sleep" probes the same
# function again; every sleeper must still be inside it then (state D in
# msleep()). When they wake, they return through the kretprobe trampoline:
# - every sleeper's write succeeds;
# - no rs event at all (none had returned before the delete), and no rs2
#   event of theirs (they entered before rs2 was armed): one more call
#   gives exactly one "rs2: ret=5 ..." line;
# - the stats invariants hold, deleted_pending is 0, kptrace unloads, and
#   the kernel logs no fault (run_tests.sh checks).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

MS=${KPT_HAZ_SLEEP_MS:-3000}
SLEEPERS=${KPT_HAZ_SLEEPERS:-4}

# state PID: the process state letter of PID (D: uninterruptible sleep)
state()
{
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1
}

kpt_load stack=0
spec_add 'r:rs kpt_test_sleep ms=$arg1:u32'
kpt_sleepers "$SLEEPERS" "$MS"
i=0
while [ "$(spec_stat rs calls)" != "$SLEEPERS" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
assert_eq "rs calls before the delete" "$(spec_stat rs calls)" "$SLEEPERS"
spec_add '-:rs'
spec_add 'r:rs2 kpt_test_sleep'
for p in $KPT_BG_PIDS; do
	s=$(state "$p")
	[ "$s" = D ] ||
		fail "sleeper $p is not asleep in kpt_test_sleep after the delete (state '$s'): raise KPT_HAZ_SLEEP_MS ($MS)"
done
info "rs deleted and rs2 added with $SLEEPERS sleepers inside kpt_test_sleep"
for p in $KPT_BG_PIDS; do
	wait "$p" || fail "a sleeper's call failed after rs was deleted"
done
KPT_BG_PIDS=
info "all $SLEEPERS sleepers returned"

kpt_sleep_call 5
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "rs events" "$(spec_events "$KPT_TMP/trace" rs | grep -c '')" 0
check_match "rs2 events" "$(spec_events "$KPT_TMP/trace" rs2)" \
	'^rs2: ret=5 lat_ns=[0-9]+$'
check_eq "rs2 events" "$(spec_events "$KPT_TMP/trace" rs2 | grep -c '')" 1
check_eq "rs2 calls" "$(spec_stat rs2 calls)" 1
kpt_stats_check
check_eq recorded "$(kpt_stat recorded)" 1
cat "$KPT_DIR/probes" > /dev/null
check_eq deleted_pending "$(kpt_stat deleted_pending)" 0
spec_add '-:rs2'
kpt_unload
spec_finish "$SLEEPERS sleepers returned after their r probe was deleted"
