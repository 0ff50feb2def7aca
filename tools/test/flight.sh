# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# `kptrace syscalls --flight SIZE` on the host, sourced by test/run.sh
# (its ok, not_ok, run, check_msg, sys_usage and fake_run): SIZE's
# syntax and the options it excludes; the refusals before anything is
# armed (the module loaded without overwrite=1, no module, SIZE over one
# CPU's ring: test/fakedev.so's KPT_IOC_INFO says 1M), each one line and
# no spec written; then the dumps on the fake device, whose first read
# gives gen_trace's syscalls records (7 calls of probe 42, a call of
# another probe, a loss report): at COMMAND's exit the newest SIZE bytes
# exactly (472: the last 3 records, 176 + 160 + 136 bytes; 471: the last
# 2), the line of the older calls overwritten, -j's object, the books
# with the calls past SIZE counted as overwritten; and on SIGUSR1 a dump
# while the run goes on, then at SIGTERM the last (empty) one.
# KPTRACE_PARAMS is the fake /sys/module/kptrace/parameters.

check_msg syscalls-flight 2 "kptrace: error: invalid --flight 'x': bytes, 160 (one call) to 1G, with K or M for KiB or MiB (64K)" "$KPT" syscalls --flight=x
check_msg syscalls-flight-0 2 "kptrace: error: invalid --flight '0': bytes, 160 (one call) to 1G, with K or M for KiB or MiB (64K)" "$KPT" syscalls --flight 0
check_msg syscalls-flight-small 2 "kptrace: error: invalid --flight '159': bytes, 160 (one call) to 1G, with K or M for KiB or MiB (64K)" "$KPT" syscalls --flight 159
check_msg syscalls-flight-big 2 "kptrace: error: invalid --flight '1025M': bytes, 160 (one call) to 1G, with K or M for KiB or MiB (64K)" "$KPT" syscalls --flight 1025M
check_msg syscalls-flight-sum 2 "$(sys_usage "--flight prints the calls the rings kept: not with -s")" "$KPT" syscalls --flight 64K -s
check_msg syscalls-flight-write 2 "$(sys_usage "--flight prints the calls the rings kept: not with -w")" "$KPT" syscalls --flight 64k -w x
check_msg syscalls-flight-read 2 "$(sys_usage "--flight prints the calls the rings kept: not with -r")" "$KPT" syscalls --flight 1M -r x

if [ ! -x ./kptrace-dyn ] || [ ! -e test/fakedev.so ]; then
	skip "syscalls --flight: fake device" "kptrace-dyn or test/fakedev.so not built"
	return 0
fi

FL_PARAMS=$OUT/flight-params
mkdir -p "$FL_PARAMS"

# the module loaded without overwrite=1: one line, exit 2, nothing armed
echo N >"$FL_PARAMS/overwrite"
rm -f "$OUT/flight-ran"
fake_run flight-no-ow env KPTRACE_PARAMS="$FL_PARAMS" ./kptrace-dyn syscalls \
	--flight 64K -- touch "$OUT/flight-ran"
if [ "$rc" = 2 ] && [ -z "$specs" ] && [ ! -e "$OUT/flight-ran" ] &&
   [ ! -s "$OUT/flight-no-ow.out" ] &&
   [ "$(cat "$OUT/flight-no-ow.err")" = "kptrace: error: --flight needs the module loaded with overwrite=1, its rings being the flight recorder: rmmod kptrace; insmod kptrace.ko overwrite=1 (or modprobe kptrace overwrite=1)" ]; then
	ok "syscalls --flight without overwrite=1: one line saying how to load it, exit 2, nothing armed"
else
	not_ok "syscalls --flight without overwrite=1: one line saying how to load it, exit 2, nothing armed" "rc=$rc specs=$specs $(cat "$OUT/flight-no-ow.err")"
fi

fake_run flight-no-module env KPTRACE_PARAMS="$OUT/nonexistent" ./kptrace-dyn \
	syscalls --flight 64K -- true
if [ "$rc" = 1 ] && [ -z "$specs" ] &&
   [ "$(cat "$OUT/flight-no-module.err")" = "kptrace: error: cannot read $OUT/nonexistent/overwrite: No such file or directory: is the kptrace module loaded?" ]; then
	ok "syscalls --flight without the module: exit 1, nothing armed"
else
	not_ok "syscalls --flight without the module: exit 1, nothing armed" "rc=$rc $(cat "$OUT/flight-no-module.err")"
fi

echo Y >"$FL_PARAMS/overwrite"
fake_run flight-over-ring env KPTRACE_PARAMS="$FL_PARAMS" ./kptrace-dyn \
	syscalls --flight 1025K -- true
if [ "$rc" = 2 ] && [ -z "$specs" ] &&
   [ "$(cat "$OUT/flight-over-ring.err")" = "kptrace: error: --flight 1025K: more than one CPU's ring holds, 1M (bufsize_kb=1024): the newest calls of a task may all be on one CPU" ]; then
	ok "syscalls --flight over one CPU's ring: exit 2, nothing armed"
else
	not_ok "syscalls --flight over one CPU's ring: exit 2, nothing armed" "rc=$rc specs=$specs $(cat "$OUT/flight-over-ring.err")"
fi

# fl_tail N FILE: FILE's calls without their times, against the last N
# of the replay's
fl_tail()
{
	[ "$(sed -E 's/^[0-9]+\.[0-9]{3} //' "$2")" = \
	  "$(grep -v LOST "$EXP/syscalls-replay.out" | tail -n "$1" |
	     sed -E 's/^[0-9]+\.[0-9]{3} //')" ]
}

FL_BOOKS="kptrace: 26 calls seen, 3 shown, 9 filtered, 5 lost (full 1, overwritten 4), 1 missed returns, 6 in flight at detach; 2 recorded but not shown (2 left unread)"
fake_run flight-cmd env KPTRACE_PARAMS="$FL_PARAMS" ./kptrace-dyn syscalls \
	--flight 472 -- sh -c 'exit 3'
head -n 3 "$OUT/flight-cmd.out" >"$OUT/flight-cmd.calls"
if [ "$rc" = 3 ] && fl_tail 3 "$OUT/flight-cmd.calls" &&
   [ "$(sed -n 1p "$OUT/flight-cmd.out" | cut -c1-6)" = "0.000 " ] &&
   [ "$(sed -n '4,$p' "$OUT/flight-cmd.out")" = "kptrace: 4 older calls overwritten" ] &&
   [ "$(cat "$OUT/flight-cmd.err")" = "$FL_BOOKS" ] &&
   [ "$specs" = "s:kptrace/sys_PID children=PID
-:kptrace/sys_PID" ]; then
	ok "syscalls --flight 472 -- COMMAND: its newest 472 bytes (3 calls), 4 overwritten, the books, COMMAND's status"
else
	not_ok "syscalls --flight 472 -- COMMAND: its newest 472 bytes (3 calls), 4 overwritten, the books, COMMAND's status" "rc=$rc $(cat "$OUT/flight-cmd.out" "$OUT/flight-cmd.err"; echo "$specs")"
fi

fake_run flight-json env KPTRACE_PARAMS="$FL_PARAMS" ./kptrace-dyn syscalls \
	--flight 471 -j -q -- true
if [ "$rc" = 0 ] && [ ! -s "$OUT/flight-json.err" ] &&
   [ "$(grep -c '' "$OUT/flight-json.out")" = 3 ] &&
   grep -q '^{"ts":0,"dur_ns":500,"comm":"cat",.*"syscall":"openat",' "$OUT/flight-json.out" &&
   grep -q '"syscall":"exit_group",' "$OUT/flight-json.out" &&
   [ "$(sed -n 3p "$OUT/flight-json.out")" = '{"type":"flight","shown":2,"overwritten":5}' ]; then
	ok "syscalls --flight 471 -j: the last 2 calls, then {\"type\":\"flight\",...}"
else
	not_ok "syscalls --flight 471 -j: the last 2 calls, then {\"type\":\"flight\",...}" "rc=$rc $(cat "$OUT/flight-json.out" "$OUT/flight-json.err")"
fi

# SIGUSR1: a dump, the run goes on; SIGTERM: the last one, empty here
FL_DIR=$OUT/flight-usr1.d
rm -rf "$FL_DIR"
mkdir -p "$FL_DIR"
env LD_PRELOAD="$PWD/test/fakedev.so" FAKEDEV_PATH="$FL_DIR/dev" \
	FAKEDEV_DIR="$FL_DIR" FAKEDEV_RECORDS="$OUT/syscalls.bin" \
	KPTRACE_DEVICE="$FL_DIR/dev" KPTRACE_PROBES="$FL_DIR/probes" \
	KPTRACE_PROBE_STATS="$FL_DIR/probe_stats" \
	KPTRACE_ERROR_LOG="$FL_DIR/error_log" KPTRACE_STATS=/nonexistent \
	KPTRACE_TRACEFS="$OUT/tracefs" KPTRACE_PARAMS="$FL_PARAMS" \
	./kptrace-dyn syscalls --flight 1K -p 1 >"$OUT/flight-usr1.out" \
	2>"$OUT/flight-usr1.err" &
fl_pid=$!
fl_wait() # FILE TEXT: until FILE has a line TEXT, 5 s at most
{
	local i=0

	until grep -qxF -- "$2" "$1" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
fl_wait "$OUT/flight-usr1.err" "kptrace: a flight recorder of 1K: kill -USR1 $fl_pid prints the newest calls"
kill -USR1 "$fl_pid"
fl_wait "$OUT/flight-usr1.out" "kptrace: 1 older call overwritten"
kill -TERM "$fl_pid"
wait "$fl_pid"
rc=$?
head -n 6 "$OUT/flight-usr1.out" >"$OUT/flight-usr1.calls"
if [ "$rc" = 0 ] && fl_tail 6 "$OUT/flight-usr1.calls" &&
   [ "$(sed -n '7,$p' "$OUT/flight-usr1.out")" = "kptrace: 1 older call overwritten
kptrace: 0 older calls overwritten" ] &&
   [ "$(sed -n 3p "$OUT/flight-usr1.err")" = "kptrace: 26 calls seen, 6 shown, 9 filtered, 2 lost (full 1, overwritten 1), 1 missed returns, 6 in flight at detach; 2 recorded but not shown (2 left unread)" ] &&
   [ "$(sed -E 's/sys_[0-9]+/sys_PID/' "$FL_DIR/specs")" = "s:kptrace/sys_PID pid=1
-:kptrace/sys_PID" ]; then
	ok "syscalls --flight 1K: SIGUSR1 dumps its newest 6 calls and goes on, SIGTERM the last dump, the probe deleted"
else
	not_ok "syscalls --flight 1K: SIGUSR1 dumps its newest 6 calls and goes on, SIGTERM the last dump, the probe deleted" "rc=$rc $(cat "$OUT/flight-usr1.out" "$OUT/flight-usr1.err" "$FL_DIR/specs")"
fi
