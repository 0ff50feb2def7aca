#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace unloads, and deletes probes, while its target
#   function is being entered and is returning, right after the probes
#   were armed (issue: a task returned to address 0 under rmmod)
# requires: root, debugfs, kptrace.ko, kpt_test.ko
# timeout: 600
#
# KPT_UNLOAD_ROUNDS (default 8) rounds of:
#  - insmod name=kpt_test_func; two tasks each make 300000 calls
#    (KPT_UNLOAD_CALLS); after 1 s, rmmod while they run;
#  - 10 times: insmod name=kpt_test_func retprobe=1, calls started,
#    rmmod at once (the first hits arrive as the module goes);
#  - the same 10 times with a plain probe, a hist-only probe and a b probe
#    written to /dev/kptrace and deleted with -:NAME while the calls run.
# Every insmod, rmmod, add and delete must succeed, and the kernel must log
# no Oops, BUG or WARNING (run_tests.sh checks dmesg); kpt_test must still
# count exact hits afterwards.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

ROUNDS=${KPT_UNLOAD_ROUNDS:-8}
CALLS=${KPT_UNLOAD_CALLS:-300000}
SHORT=${KPT_UNLOAD_SHORT:-20000}

# calls N: N calls of kpt_test_func in the background; the pid in $KPT_BG
calls()
{
	kpt_bg sh -c "echo $1 > $KPT_TEST_DIR/call"
}

# spec LINE: one probe line to /dev/kptrace (fails the test if refused)
spec()
{
	printf '%s\n' "$1" > "$KPT_DEV" || fail "round $r: /dev/kptrace refused '$1'"
}

wait_calls()
{
	for _w in "$@"; do
		wait "$_w" || fail "round $r: the calls ($_w) failed"
	done
	KPT_BG_PIDS=
}

r=1
while [ $r -le "$ROUNDS" ]; do
	kpt_load name=kpt_test_func
	calls "$CALLS"; a=$KPT_BG
	calls "$CALLS"; b=$KPT_BG
	sleep 1
	kpt_unload
	wait_calls "$a" "$b"

	i=0
	while [ $i -lt 10 ]; do
		kpt_load name=kpt_test_func retprobe=$((i % 2))
		calls "$SHORT"; a=$KPT_BG
		kpt_unload
		wait_calls "$a"
		i=$((i + 1))
	done

	kpt_load
	i=0
	while [ $i -lt 10 ]; do
		case $((i % 3)) in
		0) line='p:u/e kpt_test_func a=$arg1' ;;
		1) line='r:u/e kpt_test_func hist:keys=retval:vals=lat_ns' ;;
		2) line='b:u/e kpt_test_func a=$arg1 c=$comm' ;;
		esac
		spec "$line"
		calls "$SHORT"; a=$KPT_BG
		spec '-:u/e'
		wait_calls "$a"
		i=$((i + 1))
	done
	kpt_unload
	info "round $r of $ROUNDS done"
	r=$((r + 1))
done

# kpt_test is intact, and a last load counts exact hits.
kpt_load name=kpt_test_func
kpt_call 10
assert_eq "hits after $ROUNDS rounds" "$(kpt_stat hits)" 10
kpt_unload
info "$ROUNDS rounds of unloads and deletes with calls in flight"
