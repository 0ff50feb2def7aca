#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace syscalls` where strace users look first: the call a
#   process is blocked in, at attach and at Ctrl-C; -f -p; the refused
#   command lines; COMMAND's stdout its own; -y
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_sysgen
# timeout: 240
#
# - `sleep 600 &`, then `kptrace syscalls -p $!`, SIGINT 2 s later: the
#   sleep's call in progress printed twice, at attach and at the stop,
#   "sleep/PID clock_nanosleep(...) <unfinished ...>" (or nanosleep, or
#   restart_syscall), its time blocked at the stop at least 1 s; no other
#   line.
# - a shell that opens a FIFO read-write and then blocks in read() on it,
#   traced with -p -y from before the read: at Ctrl-C, "read(fd: 3<PATH
#   of the FIFO>, ...) <unfinished ...>".
# - -f -p SH -e openat: SH forks cat /etc/hostname after the attach; the
#   cat's openat of /etc/hostname is shown (a child's, by children=).
# - the refused command lines: -c -- true and -p 1 -- true: exit 2, one
#   line "kptrace: error: ...", nothing armed (no probe left, the
#   command never ran).
# - `kptrace syscalls -- sh -c 'echo hello' > out`: out is exactly
#   "hello\n", the trace on stderr.
# - -y: `kptrace syscalls -y -e openat,read -- cat /etc/hostname`: a
#   read line "read(fd: 3</etc/hostname>, ...) = N" with N the file's
#   size.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_kpt_sysgen
kpt_tracefs > /dev/null 2>&1
kpt_load

. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"

no_probes() # WHAT
{
	check_eq "$1: probes left" "$(grep -c '' "$KPT_DIR/probes")" 0
}

# trace_bg ARGS...: the tool in the background until armed (its banner)
trace_bg()
{
	rm -f "$KPT_TMP/bg.out" "$KPT_TMP/bg.err"
	"$KPTRACE" syscalls "$@" > "$KPT_TMP/bg.out" 2> "$KPT_TMP/bg.err" &
	TR=$!
	i=0
	until grep -q 'Hit Ctrl-C' "$KPT_TMP/bg.err" 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "kptrace syscalls $* did not arm: $(cat "$KPT_TMP/bg.err")"
		sleep 0.1
	done
}

trace_stop() # WHAT
{
	kill -INT "$TR"
	wait "$TR"
	check_eq "$1: exit status" "$?" 0
	sed 's/^/#   /' "$KPT_TMP/bg.out" "$KPT_TMP/bg.err"
}

# --- a blocked sleep, at attach and at the stop -------------------------
sleep 600 &
SL=$!
sleep 0.5
trace_bg -p "$SL"
sleep 2
trace_stop "blocked sleep"
pat="sleep/$SL (clock_nanosleep|nanosleep|restart_syscall)\(.*\) <unfinished \.\.\.>\$"
check_eq "blocked sleep: in progress at attach and at the stop" \
	"$(grep -Ec "$pat" "$KPT_TMP/bg.out")" 2
check_eq "blocked sleep: no other line" "$(grep -c '' "$KPT_TMP/bg.out")" 2
# the second: blocked for 1 s at least ("(2001.234 ms)"), where /proc's
# sched says (a kernel without CONFIG_SCHED_DEBUG shows "?")
blocked=$(sed -n 2p "$KPT_TMP/bg.out" | sed -En 's/^[0-9.]+ \( *([0-9]+)\.[0-9]{3} ms\).*/\1/p')
if [ -n "$blocked" ]; then
	check_eq "blocked sleep: blocked 1 s at least at the stop" \
		"$([ "$blocked" -ge 1000 ] && echo yes || echo "$blocked ms")" yes
fi
kill "$SL"
wait "$SL" 2> /dev/null
no_probes "blocked sleep"

# --- a FIFO read that blocks while traced, shown at Ctrl-C ----------------
FIFO=$KPT_TMP/fifo
rm -f "$FIFO"
mkfifo "$FIFO"
sh -c 'sleep 1; exec 3<>"$1"; read x <&3' sh "$FIFO" &
SH=$!
trace_bg -p "$SH" -y -e read
sleep 3
trace_stop "FIFO read"
check_eq "FIFO read: in progress at Ctrl-C, the fd with its path" \
	"$(grep -Ec "^[0-9.]+ \( *[0-9?.]+ ms\): sh/$SH read\(fd: 3<$FIFO>, .*\) <unfinished \.\.\.>\$" "$KPT_TMP/bg.out")" 1
kill "$SH"
wait "$SH" 2> /dev/null
no_probes "FIFO read"

# --- -f -p: a child forked after the attach -------------------------------
sh -c 'sleep 2; cat /etc/hostname > /dev/null' &
SH=$!
trace_bg -f -p "$SH" -e openat
wait "$SH"
trace_stop "-f -p"
check_eq "-f -p: the child's open of /etc/hostname" \
	"$(grep -Ec "cat/[0-9]+ openat\(dfd: CWD, filename: \"/etc/hostname\", .*\) = [0-9]+\$" "$KPT_TMP/bg.out")" 1
check_eq "-f -p: two probes (pid=, children=)" \
	"$(grep -c 'tracing system calls\|Hit Ctrl-C' "$KPT_TMP/bg.err")" 2
no_probes "-f -p"

# --- the refused command lines ---------------------------------------------
rm -f "$KPT_TMP/ran"
"$KPTRACE" syscalls -c -- touch "$KPT_TMP/ran" > "$KPT_TMP/r1.out" 2> "$KPT_TMP/r1.err"
check_eq "-c -- COMMAND: status" "$?" 2
check_eq "-c -- COMMAND: one line" "$(cat "$KPT_TMP/r1.err")" \
	"kptrace: error: -c needs a value, not '--' (--comm=-- if that is one)"
"$KPTRACE" syscalls -p 1 -- touch "$KPT_TMP/ran" > "$KPT_TMP/r2.out" 2> "$KPT_TMP/r2.err"
check_eq "-p PID -- COMMAND: status" "$?" 2
check_eq "-p PID -- COMMAND: one line" "$(cat "$KPT_TMP/r2.err")" \
	"kptrace: error: -p selects running processes, COMMAND a new one: not both"
check_eq "refused: nothing printed, COMMAND never ran" \
	"$(cat "$KPT_TMP/r1.out" "$KPT_TMP/r2.out"; [ -e "$KPT_TMP/ran" ] && echo ran)" ""
no_probes "refused"

# --- COMMAND's stdout is its own --------------------------------------------
"$KPTRACE" syscalls -- sh -c 'echo hello' > "$KPT_TMP/out" 2> "$KPT_TMP/out.err"
check_eq "stdout: status" "$?" 0
check_eq "stdout: exactly COMMAND's output" "$(od -An -c "$KPT_TMP/out" | tr -s ' ')" " h e l l o \\n"
check_eq "stdout: the trace on stderr" \
	"$(grep -c ' write(fd: 1, .*) = 6$' "$KPT_TMP/out.err")" 1

# --- -y: a read with its file's path ----------------------------------------
size=$(stat -c %s /etc/hostname)
"$KPTRACE" syscalls -y -e openat,read -o "$KPT_TMP/y.txt" -- cat /etc/hostname > /dev/null 2> /dev/null
check_eq "-y: status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/y.txt"
check_eq "-y: the read of /etc/hostname with its path" \
	"$(grep -Ec "cat/[0-9]+ read\(fd: [0-9]+</etc/hostname>, .*\) = $size\$" "$KPT_TMP/y.txt")" 1
check_eq "-y: the open returns the fd with its path" \
	"$(grep -Ec "openat\(dfd: CWD, filename: \"/etc/hostname\", .*\) = [0-9]+</etc/hostname>\$" "$KPT_TMP/y.txt")" 1
no_probes "-y"

kpt_unload
[ "$SPEC_FAILS" = 0 ] || fail "$SPEC_FAILS check(s) failed (see the FAIL lines above)"
info "kptrace syscalls as strace: calls in progress, -f -p, refused lines, COMMAND's stdout, -y"
