#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: sessions with an s probe killed with -9 leave nothing
#   behind: no session, no probe, no kretprobe, memory back
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read, the
#   syscalls probe (x86-64 only for now: run_tests.sh's arch_skip)
#
# KPT_KILL_N / 10 (100) children that each make a session with 64 KiB
# rings, add an s probe ('s:x pid=1', its kretprobe on x64_sys_call, or
# the raw_syscalls tracepoints on 5.10) and SIGKILL themselves (kpt_read
# killloop): every child killed, within 1 s the sessions file back to the
# default session's line, no probe listed, no kprobe on x64_sys_call, and
# Slab + Percpu + VmallocUsed grown by at most KPT_KILL_N / 2 kB. (Until
# 29 Nov 2026 a part of kpt_session_kill, split out so that arm64, which
# has no s probe yet, runs the rest.)

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_load

N=${KPT_KILL_N:-1000}

m0=$(kpt_mem_kb VmallocUsed)
ns=$((N / 10))
out=$("$KPT_READ" -S -b 65536 -e 's:x pid=1' killloop "$ns")
assert_eq "s probe sessions killed" "$out" "killloop n=$ns killed=$ns armed=$ns"
kpt_session_gone "s probe sessions killed" x64_sys_call
sleep 1
m1=$(kpt_mem_kb VmallocUsed)
info "$ns s probe sessions killed: Slab+Percpu+Vmalloc $m0 kB -> $m1 kB ($((m1 - m0)) kB)"
if [ $((m1 - m0)) -gt $((N / 2)) ]; then
	grep -q ' kasan_report$' /proc/kallsyms &&
		info "KASAN: its quarantine keeps freed memory (kmemleak checks leaks)" ||
		fail "memory grew by $((m1 - m0)) kB over $ns kills, over $((N / 2)) kB"
fi
info "s probe sessions killed with -9: nothing left, memory back"
