#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a session dies with its owner: a kill -9, reading or not,
#   with calls in flight, leaves no probe listed, no kprobe armed, and its
#   memory back
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
# timeout: 600
#
# kptrace loaded with no parameter (the default session idle), then:
# 1. kpt_read -S -e 'p:s kpt_test_func' hold: while it holds, sessions has
#    2 lines, the probes listing 1 (session=), the kprobe core's list one
#    probe on kpt_test_func, and rmmod kptrace is refused (the module
#    stays); kill -9: within 1 s sessions is back to 1
#    line, the listing empty, the kprobe core's list without kpt_test_func,
#    and 100 calls later stats' hits (the default session's) are still 0.
# 2. the same reading (follow) while every CPU calls kpt_test_func in a
#    loop: the session's hits grow between two looks right before the
#    kill -9 (calls in flight at the teardown); then as in 1.
# 3. kpt_read -S -e 'b:s kpt_test_sleep' hold and 4 calls of
#    kpt_test_sleep(1500): once the session has recorded their 4 entries
#    (4 calls in flight, their returns to come), kill -9; then as in 1,
#    and the 4 sleepers return into a kernel with no probe of theirs.
# 4. memory: Slab + Percpu + VmallocUsed before and after KPT_KILL_N
#    (1000) children that each make a session with 64 KiB rings, add
#    'p:s kpt_test_func', and SIGKILL themselves (killloop): every child
#    killed, and the growth under KPT_KILL_N / 2 kB (a session's rings
#    alone are 128 kB a CPU). (Sessions with an s probe instead:
#    kpt_session_kill_sys.)

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load
kpt_load

N=${KPT_KILL_N:-1000}
# session_field NAME: NAME= of the session that is not the default one
session_field()
{
	kpt_field "$1" "$(grep -v '^0 ' "$KPT_DIR/sessions")"
}

# 1. holding, not reading
kpt_session_start "$KPT_TMP/h" -e 'p:s kpt_test_func' hold
pid=$KPT_BG
assert_eq "holding: sessions lines" "$(kpt_sessions_lines)" 2
assert_eq "holding: probes listed" "$(grep -c ' session=[0-9]' "$KPT_DIR/probes")" 1
assert_eq "holding: kprobes on kpt_test_func" \
	"$(kpt_kprobes_on kpt_test_func)" 1
rmmod kptrace 2>/dev/null && fail "rmmod kptrace worked while a session was open"
kpt_loaded kptrace || fail "kptrace unloaded under an open session"
kill -9 "$pid"
wait "$pid" 2>/dev/null
KPT_BG_PIDS=
kpt_session_gone "kill -9 while holding" kpt_test_func
kpt_call 100
assert_eq "default session's hits after 100 calls" "$(kpt_stat hits)" 0

# 2. reading, with calls hitting on every CPU
kpt_session_start "$KPT_TMP/f" -e 'p:s kpt_test_func' follow
pid=$KPT_BG
kpt_bg sh -c "while [ ! -e $KPT_TMP/stop ]; do echo 2000 > $KPT_TEST_DIR/call_all; done"
flood=$KPT_BG
sleep 0.5
h0=$(session_field hits)
sleep 0.2
h1=$(session_field hits)
kill -9 "$pid"
info "reading: the session's hits $h0 then $h1 right before the kill"
[ -n "$h0" ] && [ -n "$h1" ] && [ "$h1" -gt "$h0" ] ||
	fail "reading: no calls hitting at the kill ($h0, $h1)"
wait "$pid" 2>/dev/null
kpt_session_gone "kill -9 while reading, calls hitting" kpt_test_func
touch "$KPT_TMP/stop"
wait "$flood"
KPT_BG_PIDS=

# 3. a return probe, calls in flight across the teardown
kpt_session_start "$KPT_TMP/b" -e 'b:s kpt_test_sleep' hold
pid=$KPT_BG
kpt_sleepers 4 1500
sleepers=$KPT_BG_PIDS
i=0
while [ "$(session_field recorded)" != 4 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
assert_eq "sleepers' entries recorded before the kill (4 in flight)" \
	"$(session_field recorded)" 4
kill -9 "$pid"
wait "$pid" 2>/dev/null
kpt_session_gone "kill -9 with 4 calls in flight" kpt_test_sleep
for p in $sleepers; do
	[ "$p" = "$pid" ] || wait "$p" 2>/dev/null
done
KPT_BG_PIDS=

# 4. memory across many kills
m0=$(kpt_mem_kb VmallocUsed)
out=$("$KPT_READ" -S -b 65536 -e 'p:s kpt_test_func' killloop "$N")
assert_eq "kprobe sessions killed" "$out" "killloop n=$N killed=$N armed=$N"
sleep 1
m1=$(kpt_mem_kb VmallocUsed)
kpt_session_gone "after $N kills" kpt_test_func
info "$N sessions killed: Slab+Percpu+Vmalloc $m0 kB -> $m1 kB ($((m1 - m0)) kB)"
if [ $((m1 - m0)) -gt $((N / 2)) ]; then
	grep -q ' kasan_report$' /proc/kallsyms &&
		info "KASAN: its quarantine keeps freed memory (kmemleak checks leaks)" ||
		fail "memory grew by $((m1 - m0)) kB over $N kills, over $((N / 2)) kB"
fi
info "sessions killed with -9: nothing left, memory back"
