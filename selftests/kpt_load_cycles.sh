#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace loads and unloads cleanly many times while its
#   target function is being called on every CPU
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# A background loop writes to kpt_test/call_all without pause; meanwhile 50
# cycles (KPT_CYCLES) of: load kptrace on kpt_test_func (kprobe, then
# kretprobe every other cycle, stack=8), one more call that must be
# counted (hits >= 1, or >= 2 with the return), read some of the trace,
# unload. Every load and unload must work; the kernel must log no Oops,
# BUG or WARNING (run_tests.sh and the VM harness check the log), and
# kpt_test must still work afterwards.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

CYCLES=${KPT_CYCLES:-50}

hammer()
{
	while [ -e "$KPT_TMP/hammer" ]; do
		echo 200 > "$KPT_TEST_DIR/call_all" || exit 1
	done
}
: > "$KPT_TMP/hammer"
kpt_bg hammer
hammer_pid=$KPT_BG

i=1
while [ $i -le $CYCLES ]; do
	rp=$((i % 2))
	kpt_load name=kpt_test_func retprobe=$rp stack=8 args=2
	kpt_call 1
	hits=$(kpt_stat hits)
	[ "$hits" -ge $((1 + rp)) ] || fail "cycle $i: hits=$hits after a call"
	head -c 4096 "$KPT_DIR/trace" > /dev/null || fail "cycle $i: reading trace"
	kill -0 "$hammer_pid" 2>/dev/null || fail "cycle $i: the call_all loop died"
	kpt_unload
	i=$((i + 1))
done
rm -f "$KPT_TMP/hammer"
wait "$hammer_pid"
KPT_BG_PIDS=

# kpt_test is intact: a last load counts exact hits.
kpt_load name=kpt_test_func stack=0
kpt_call 10
assert_eq "hits after the cycles" "$(kpt_stat hits)" 10
kpt_unload
info "$CYCLES load/unload cycles under load"
