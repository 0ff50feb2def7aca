#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of `make run` (run-vm.sh --mode run): load kptrace on
# do_sys_openat2 with return probes and 16-frame stacks, trace a small real
# workload with the reader, print what it saw and the module's statistics,
# unload.  Fails (exit 1) when a step fails or no entry/return was traced.

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

step "rmmod kptrace"
rmmod kptrace || die "rmmod failed"

# arg0= without BTF, the real parameter names (dfd=) with it
grep -qE ': do_sys_openat2: (arg0|dfd)=' "$trace" || die "no entry event traced"
grep -q ': do_sys_openat2: ret=' "$trace" || die "no return event traced"
echo
echo "demo: OK"
