#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace cannot be unloaded while one of its files is open
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# For /dev/kptrace and each debugfs file (trace, trace_pipe, probes,
# stats): with the file open (and, for trace_pipe and /dev/kptrace, a
# reader blocked in read()), rmmod kptrace fails, the module stays loaded
# and working (a call is still recorded); after closing, rmmod works.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

busy()
{
	f=$1
	kpt_load name=kpt_test_func args=1 stack=0
	exec 3< "$f" || fail "cannot open $f"
	rmmod kptrace 2>/dev/null && fail "rmmod kptrace worked with $f open"
	kpt_loaded kptrace || fail "kptrace gone after a refused rmmod ($f open)"
	[ -e "$KPT_DIR/stats" ] || fail "stats gone after a refused rmmod"
	kpt_call 1
	assert_eq "hits with $f open" "$(kpt_stat hits)" 1
	exec 3<&-
	kpt_unload
	info "$f: rmmod refused while open, worked after close"
}

busy_blocked()
{
	f=$1
	kpt_load name=kpt_test_func args=1 stack=0
	kpt_bg cat "$f" > /dev/null
	sleep 1
	kill -0 "$KPT_BG" 2>/dev/null || fail "cat $f did not block"
	rmmod kptrace 2>/dev/null && fail "rmmod kptrace worked with a reader blocked in $f"
	kpt_loaded kptrace || fail "kptrace gone after a refused rmmod (reader in $f)"
	kill "$KPT_BG"
	wait "$KPT_BG" 2>/dev/null
	kpt_unload
	info "$f: rmmod refused with a blocked reader, worked after it ended"
}

busy "$KPT_DEV"
for f in trace trace_pipe probes stats; do
	busy "$KPT_DIR/$f"
done
busy_blocked "$KPT_DIR/trace_pipe"
busy_blocked "$KPT_DEV"
