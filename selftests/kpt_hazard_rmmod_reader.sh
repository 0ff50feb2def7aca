#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: rmmod with a reader blocked in read() of /dev/kptrace is
#   refused, also under a flood; once the reader is killed, rmmod works
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# 1. kptrace idle on kpt_test_func, helpers/kpt_read blocked in read():
#    rmmod is refused ("in use"), kptrace stays loaded and working.
# 2. kpt_test's call_all floods the probe on every CPU, so the reader is
#    busy in read(): rmmod is refused again.
# 3. The reader is killed (SIGKILL) in the middle of the flood: it ends,
#    and rmmod works while the flood still runs.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_kpt_read

cleanup()
{
	[ -n "$KPT_TMP" ] && : > "$KPT_TMP/stop"
	for _p in $KPT_BG_PIDS; do
		kill -9 "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	KPT_BG_PIDS=
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test
}

kpt_test_load
kpt_load name=kpt_test_func args=2 stack=8
kpt_bg "$KPT_READ" read 1000000000 > /dev/null 2> "$KPT_TMP/reader.err"
reader=$KPT_BG
sleep 1
kill -0 "$reader" 2>/dev/null || fail "the reader did not block: $(cat "$KPT_TMP/reader.err")"
grep -q 'State:.*S' "/proc/$reader/status" ||
	info "reader state: $(grep State: "/proc/$reader/status")"
out=$(rmmod kptrace 2>&1) && fail "rmmod worked with a reader blocked in read()"
info "rmmod with a blocked reader: $out"
kpt_loaded kptrace || fail "kptrace gone after a refused rmmod"

rm -f "$KPT_TMP/stop"
kpt_bg sh -c "while [ ! -e $KPT_TMP/stop ]; do echo $(kpt_haz_n 20000 5000) > $KPT_TEST_DIR/call_all || exit 1; done"
flood=$KPT_BG
sleep 2
out=$(rmmod kptrace 2>&1) && fail "rmmod worked with a reader busy in read() under a flood"
info "rmmod with a reader under a flood: $out"
assert_ge "hits under the flood" "$(kpt_stat hits)" 1

kill -9 "$reader"
wait "$reader" 2>/dev/null
kill -0 "$flood" 2>/dev/null || fail "the flood stopped"
i=0
until out=$(rmmod kptrace 2>&1); do
	i=$((i + 1))
	[ $i -lt 20 ] || fail "rmmod still refused after the reader was killed: $out"
	sleep 0.2
done
kpt_loaded kptrace && fail "kptrace still loaded"
info "reader killed, rmmod worked under the flood (after $i retries)"
: > "$KPT_TMP/stop"
wait "$flood" || fail "the flood failed"
KPT_BG_PIDS=
