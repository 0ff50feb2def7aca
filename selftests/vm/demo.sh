#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of `make run` (run-vm.sh --mode run): load kptrace on
# do_sys_openat2 with return probes and 16-frame stacks, trace a small real
# workload with the reader, stop it with SIGINT, print what it saw and the
# module's statistics, unload.  Fails (exit 1) when a step fails, no
# entry/return was traced, or the reader did not print every event the
# module recorded: the events printed must be the summary's count, and
# equal the module's `recorded' when the reader exited with nothing left
# unread (its summary, from stats), and the module's `read' after; no
# event may be lost.

ko=${KPT_KO:-/kptrace.ko}
reader=${KPTRACE:-/tools/kptrace}
dir=/sys/kernel/debug/kptrace
trace=/tmp/kptrace.out
maxlines=400

step() { echo; echo "== $*"; }
die() { echo "demo: FAIL: $*"; rmmod kptrace 2>/dev/null; exit 1; }

step "insmod $ko name=do_sys_openat2 retprobe=1 stack=16"
insmod "$ko" name=do_sys_openat2 retprobe=1 stack=16 || die "insmod failed"
cat "$dir/probes"

step "$reader > $trace &"
"$reader" >"$trace" 2>/tmp/kptrace.err &
pid=$!
# Let the reader open /dev/kptrace before the workload runs.
i=0
while [ $i -lt 50 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q kptrace; do
	sleep 0.1
	i=$((i + 1))
done

step "workload: ls /; cat /etc/passwd; cat /proc/version"
ls /
cat /etc/passwd
cat /proc/version
sleep 0.5

step "kill -INT $pid"
kill -INT "$pid"
wait "$pid"
rc=$?
cat /tmp/kptrace.err
[ "$rc" = 0 ] || die "kptrace exited with $rc"

lines=$(wc -l <"$trace")
step "kptrace output ($lines lines)"
head -n "$maxlines" "$trace"
[ "$lines" -le "$maxlines" ] ||
	echo "... $((lines - maxlines)) more lines"

step "$dir/stats"
cat "$dir/stats"

counter() { awk -v n="$1" '$1 == n { print $2 }' "$dir/stats"; }
read_total=$(counter read)
lost_total=$(counter lost)

step "rmmod kptrace"
rmmod kptrace || die "rmmod failed"

# arg0= without BTF, the real parameter names (dfd=) with it
grep -qE ': do_sys_openat2: (arg0|dfd)=' "$trace" || die "no entry event traced"
grep -q ': do_sys_openat2: ret=' "$trace" || die "no return event traced"

# Every event recorded until the reader exited was printed: its summary
# says how many it printed and what the module had recorded then, with no
# "left unread" (pending 0) and nothing lost.  The demo's own commands
# since then are recorded, not read: `read' is what the reader took.
printed=$(grep -c ': do_sys_openat2: ' "$trace")
summary=$(grep '^kptrace: [0-9]* events (' /tmp/kptrace.err)
events=$(echo "$summary" | sed -n 's/^kptrace: \([0-9]*\) events .*/\1/p')
recorded=$(echo "$summary" | sed -n 's/.*; module: hits [0-9]* recorded \([0-9]*\) lost 0 missed [0-9]*$/\1/p')
echo
echo "demo: printed $printed events; summary: $events events, module recorded ${recorded:-?}; stats after: read $read_total, lost $lost_total"
echo "$summary" | grep -Eq '^kptrace: [0-9]+ events \([0-9]+ entries, [0-9]+ returns\), 0 lost; module: ' ||
	die "the summary is not 'N events (...), 0 lost; module: ...' (something left unread or lost?): $summary"
[ -n "$events" ] && [ -n "$recorded" ] || die "no summary with the module's counters"
[ "$printed" = "$events" ] || die "printed $printed events, the summary says $events"
[ "$printed" = "$recorded" ] || die "printed $printed events, the module recorded $recorded"
[ "$printed" = "$read_total" ] || die "printed $printed events, the module gave out $read_total"
[ "$lost_total" = 0 ] || die "$lost_total events lost"
echo "demo: OK"
