#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: rmmod with a reader blocked in read() of /dev/kptrace is
#   refused, also under a flood; once the reader is killed, rmmod works
# requires: root, debugfs, kptrace.ko, hazard_modules/kpt_hazard.ko,
#   helpers/kpt_read
#
# 1. kptrace idle on kpt_hazard_target_int3 (an int3 kprobe),
#    helpers/kpt_read blocked in read(): rmmod is refused ("in use"),
#    kptrace stays loaded and working.
# 2. kpt_hazard floods the probe from every context, so the reader is busy
#    in read(): rmmod is refused again.
# 3. The reader is killed (SIGKILL) in the middle of the flood: it ends,
#    and rmmod works while the flood still runs.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_kpt_read
require_haz_ko

cleanup()
{
	[ -n "$KPT_TMP" ] && : > "$KPT_TMP/stop"
	for _p in $KPT_BG_PIDS; do
		kill -9 "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	KPT_BG_PIDS=
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_hazard
}

# int3=1: the unload under the flood must not meet the kernel's own
# ftrace-site bug (hazard_modules/cycles.sh).
kpt_haz_load int3=1
kpt_load name=kpt_hazard_target_int3 args=2 stack=8
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
kpt_bg sh -c "while [ ! -e $KPT_TMP/stop ]; do echo 5000 > $KPT_HAZ_DIR/run || exit 1; done"
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
