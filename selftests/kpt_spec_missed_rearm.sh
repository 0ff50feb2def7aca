#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a probe's missed count never goes backwards: not when its
#   module is reloaded and the pending probe re-armed, not in the stats
#   totals when the probe is deleted
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# r1:s kpt_test:kpt_test_sleep (MAXACTIVE 1), three processes calling
# kpt_test_sleep(1500) at once: one instance, two misses (probes "hits=1
# missed=2", probe_stats "missed=0 maxactive_missed=2", stats missed 2).
# rmmod kpt_test: s is pending, still missed=2. insmod kpt_test: s is
# re-armed (the kprobe core's counters start again from 0) and still says
# missed=2; three more sleepers make it missed=4 (maxactive_missed=4).
# "-:s": stats' missed total stays 4.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

# sleepers: three kpt_test_sleep(1500) at once
sleepers()
{
	for _ in 1 2 3; do
		kpt_bg sh -c "echo 1500 > $KPT_TEST_DIR/sleep"
	done
	for _p in $KPT_BG_PIDS; do
		wait "$_p" || fail "a sleep call failed"
	done
	KPT_BG_PIDS=
}

kpt_load stack=0
spec_add 'r1:s kpt_test:kpt_test_sleep ms=$arg1:u32'
sleepers
sed 's/^/#   /' "$KPT_DIR/probes"
check_match "s after 3 sleepers" "$(spec_line s)" ' hits=1 missed=2$'
check_eq "maxactive_missed" "$(spec_stat s maxactive_missed)" 2
check_eq "stats missed" "$(kpt_stat missed)" 2

kpt_test_unload
check_match "s pending after rmmod" "$(spec_line s)" \
	' kretprobe pending hits=1 missed=2$'
kpt_test_load
check_match "s re-armed" "$(spec_line s)" " kretprobe $SPEC_MODE hits=1 missed=2\$"
check_eq "maxactive_missed after the re-arm" \
	"$(spec_stat s maxactive_missed)" 2
check_eq "stats missed after the re-arm" "$(kpt_stat missed)" 2
sleepers
sed 's/^/#   /' "$KPT_DIR/probes"
check_match "s after 3 more sleepers" "$(spec_line s)" ' hits=2 missed=4$'
check_eq "maxactive_missed at the end" "$(spec_stat s maxactive_missed)" 4
spec_add '-:s'
check_eq "stats missed after -:s" "$(kpt_stat missed)" 4
kpt_unload
spec_finish "missed kept across a re-arm (2, then 4) and a deletion"
