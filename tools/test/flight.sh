# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# `kptrace syscalls --flight SIZE` on the host, sourced by test/run.sh
# (its ok, not_ok, run, check_msg, sys_usage, fake_run, fake_env and
# sess_ok): SIZE's syntax and the options it excludes; the session it
# makes on the fake device (test/fakedev.so): rings that overwrite
# (KPT_SESSION_OVERWRITE), SIZE rounded up to a power of 2 and at least
# two of the largest records (128K), whatever the module was loaded
# with; the refusals, each one line, exit 1, nothing armed, COMMAND never
# run: no module, rings the module refuses (over the fake's 64M: E2BIG),
# a module without sessions; then the dumps on the fake device, whose
# first read gives gen_trace's syscalls records (7 calls of probe 42, a
# call of another probe, a loss report): at COMMAND's exit the newest
# SIZE bytes exactly (472: the last 3 records, 176 + 160 + 136 bytes;
# 471: the last 2), the line of the older calls overwritten, -j's object,
# the books with the calls past SIZE counted as overwritten; and on
# SIGUSR1 a dump while the run goes on, then at SIGTERM the last (empty)
# one.

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

# the session: rings that overwrite, of SIZE rounded up (128K at least)
fl_ring=
for size in 64K 200K 1M; do
	fake_run flight-ring-$size ./kptrace-dyn syscalls -q --flight $size -- true
	[ "$rc" = 0 ] && sess_ok || fl_ring="$fl_ring $size: rc=$rc"
	fl_ring="$fl_ring $(head -n 1 "$OUT/flight-ring-$size.d/sessions")"
done
if [ "$fl_ring" = " ring_bytes=131072 flags=1 clock=0 ring_bytes=262144 flags=1 clock=0 ring_bytes=1048576 flags=1 clock=0" ]; then
	ok "syscalls --flight: a session of its own that overwrites, SIZE rounded up to a power of 2, 128K at least"
else
	not_ok "syscalls --flight: a session of its own that overwrites, SIZE rounded up to a power of 2, 128K at least" "$fl_ring"
fi

# fl_refused NAME MESSAGE [ENV...]: --flight 65M -- touch: exit 1, one
# line, nothing armed, COMMAND never ran
fl_refused()
{
	local name=$1 msg=$2

	shift 2
	rm -f "$OUT/flight-ran"
	fake_run "$name" env "$@" ./kptrace-dyn syscalls --flight 65M -- \
		touch "$OUT/flight-ran"
	if [ "$rc" = 1 ] && [ -z "$specs" ] && [ ! -e "$OUT/flight-ran" ] &&
	   [ ! -s "$OUT/$name.out" ] &&
	   [ "$(cat "$OUT/$name.err")" = "$msg" ]; then
		ok "syscalls --flight: $name: one line, exit 1, nothing armed, COMMAND never ran"
	else
		not_ok "syscalls --flight: $name: one line, exit 1, nothing armed, COMMAND never ran" "rc=$rc specs=$specs $(cat "$OUT/$name.err")"
	fi
}

fl_refused flight-no-module "kptrace: $OUT/nonexistent not found: is the kptrace module loaded? (insmod kptrace.ko name=SYMBOL)" \
	KPTRACE_DEVICE="$OUT/nonexistent"
fl_refused flight-e2big "kptrace: the module refused a session of rings of 128M per CPU (2 CPUs): all its rings would pass the module's mem_max_mb: Argument list too long"
fl_refused flight-old-module "kptrace: the kptrace module is too old for sessions: reload it" \
	FAKEDEV_OLD=1

# fl_tail N FILE: FILE's calls without their times, against the last N
# of the replay's
fl_tail()
{
	[ "$(sed -E 's/^[0-9]+\.[0-9]{3} //' "$2")" = \
	  "$(grep -v LOST "$EXP/syscalls-replay.out" | tail -n "$1" |
	     sed -E 's/^[0-9]+\.[0-9]{3} //')" ]
}

FL_BOOKS="kptrace: 26 calls seen, 3 shown, 9 filtered, 5 lost (full 1, overwritten 4), 1 missed returns, 6 in flight at detach; 2 recorded but not shown (2 left unread)"
fake_run flight-cmd ./kptrace-dyn syscalls --flight 472 -o /dev/stdout -- sh -c 'exit 3'
head -n 3 "$OUT/flight-cmd.out" >"$OUT/flight-cmd.calls"
if [ "$rc" = 3 ] && fl_tail 3 "$OUT/flight-cmd.calls" &&
   [ "$(sed -n 1p "$OUT/flight-cmd.out" | cut -c1-6)" = "0.000 " ] &&
   [ "$(sed -n '4,$p' "$OUT/flight-cmd.out")" = "kptrace: 4 older calls overwritten" ] &&
   [ "$(cat "$OUT/flight-cmd.err")" = "$FL_BOOKS" ] &&
   [ "$specs" = "s:kptrace/sys_PID children=PID signals denied" ] && sess_ok; then
	ok "syscalls --flight 472 -- COMMAND: its newest 472 bytes (3 calls), 4 overwritten, the books, COMMAND's status"
else
	not_ok "syscalls --flight 472 -- COMMAND: its newest 472 bytes (3 calls), 4 overwritten, the books, COMMAND's status" "rc=$rc $(cat "$OUT/flight-cmd.out" "$OUT/flight-cmd.err"; echo "$specs")"
fi

fake_run flight-json ./kptrace-dyn syscalls --flight 471 -j -q -o /dev/stdout -- true
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
# (env, not fake_env: $! must be the tool's pid, not a subshell's)
env LD_PRELOAD="$PWD/test/fakedev.so" FAKEDEV_PATH="$FL_DIR/dev" \
	FAKEDEV_DIR="$FL_DIR" FAKEDEV_RECORDS="$OUT/syscalls.bin" \
	KPTRACE_DEVICE="$FL_DIR/dev" KPTRACE_PROBES="$FL_DIR/probes" \
	KPTRACE_PROBE_STATS="$FL_DIR/probe_stats" KPTRACE_STATS="$FL_DIR/stats" \
	KPTRACE_TRACEFS="$OUT/tracefs" KPTRACE_PROC=/nonexistent \
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
   [ "$(sed -E 's/sys_[0-9]+/sys_PID/' "$FL_DIR/specs")" = "s:kptrace/sys_PID pid=1 signals denied" ] &&
   sess_ok "$FL_DIR"; then
	ok "syscalls --flight 1K: SIGUSR1 dumps its newest 6 calls and goes on, SIGTERM the last dump, the session closed"
else
	not_ok "syscalls --flight 1K: SIGUSR1 dumps its newest 6 calls and goes on, SIGTERM the last dump, the session closed" "rc=$rc $(cat "$OUT/flight-usr1.out" "$OUT/flight-usr1.err" "$FL_DIR/specs")"
fi
