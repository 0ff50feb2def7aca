#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a stop drains only what was committed when it came: with a
#   caller that never stops, SIGINT ends the reader at once, every record
#   committed before it printed, the later ones counted as left unread; a
#   second SIGINT cuts a long drain and says how many it left; a burst
#   pending when -d ends is printed whole
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace, mkfifo,
#   usleep
# timeout: 300
#
# name=kpt_test_func args=6 stack=4 (entries only), loaded afresh for each
# part; the calls come from the test module (kpt_call), on one CPU.
# (a) name=kpt_test_func,vfs_write: each write of the reader (its output)
#     is a record too, so its rings are never empty after a read: it never
#     sleeps in read(), and the old drain, until they were empty, always
#     took its 2 s bound. A shell loop
#     writes 10 to the call file without end (calls 1..10, again and
#     again, a pause of 1 ms between, a pace the reader keeps up with)
#     while the reader runs (text, -j, -w); 0.5 s later, `recorded' is read
#     from stats and SIGINT sent. The reader must exit 0 within 1 s; the
#     kpt_test_func entries it printed must be the calls in order without
#     a gap (arg0 = 1..10, 1..10, ...), all its events at least as many as
#     `recorded' said before the signal; its summary "P events (P entries,
#     0 returns), 0 lost[, U left unread (U recorded after the stop)];
#     module: hits P+U recorded P+U lost 0 missed 0", and no drain cut.
# (b) The reader stopped (SIGSTOP) in its read(), 20000 calls (about 2.9
#     MB, three reads of its 1 MiB buffer), SIGINT, SIGCONT: it drains,
#     printing into a FIFO whose reader is stopped, so it blocks in its
#     first write; a second SIGINT then, and the FIFO's reader let go. It
#     must print calls 1..P in order, P < 20000, say "a second signal
#     stopped the drain: 20000-P records recorded before the stop left
#     unread", and sum up "P events ..., 20000-P left unread (20000-P
#     recorded before the stop); module: hits 20000 ...".
# (c) `kptrace -d 1`, stopped (SIGSTOP) in its read(), 500 calls, 1.5 s
#     (the end of -d comes, its SIGALRM waits), SIGCONT: calls 1..500 all
#     printed, nothing left unread.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_cmd mkfifo usleep
[ -r /proc/self/syscall ] || skip "needs /proc/PID/syscall"
kpt_test_load

PERIOD=10

# sleeps_in PID NR FILE: PID sleeps in syscall NR (KPT_NR_READ or
# KPT_NR_WRITE) on its fd open on FILE, as /proc/PID/syscall and
# /proc/PID/fd say
sleeps_in()
{
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(cat "/proc/$1/syscall" 2>/dev/null)
	[ "$4" = "$2" ] && [ -n "$5" ] &&
		[ "$(readlink "/proc/$1/fd/$(($5))" 2>/dev/null)" = "$3" ]
}

# wait_sleeping PID NR FILE WHAT: until sleeps_in PID NR FILE, 10 s at most
wait_sleeping()
{
	_i=0
	until sleeps_in "$1" "$2" "$3"; do
		kill -0 "$1" 2>/dev/null ||
			fail "the reader exited early: $(cat "$KPT_TMP/err")"
		[ $_i -lt 100 ] || fail "the reader did not reach $4 in 10 s"
		sleep 0.1
		_i=$((_i + 1))
	done
}

# wait_reading PID: PID sleeps in its read(2) of /dev/kptrace, not in a
# read of kallsyms or BTF during its setup
wait_reading()
{
	wait_sleeping "$1" $KPT_NR_READ "$KPT_DEV" "its read() of $KPT_DEV"
}

# wait_taking PID: PID has taken records (stats: read > 0). A reader that
# records its own writes never sleeps in read(): it takes the record of
# its last write at once.
wait_taking()
{
	_i=0
	while [ "$(kpt_stat read)" = 0 ]; do
		kill -0 "$1" 2>/dev/null ||
			fail "the reader exited early: $(cat "$KPT_TMP/err")"
		[ $_i -lt 100 ] ||
			fail "the reader took no record in 10 s"
		sleep 0.1
		_i=$((_i + 1))
	done
}

# now_cs: the time since boot, in hundredths of a second
now_cs()
{
	awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime
}

# entries FILE MODE: the entry lines of the reader's output (MODE text,
# json, or save: decoded with -r first) in $KPT_TMP/entries
entries()
{
	case $2 in
	text)
		grep ': kpt_test_func: ' "$1" > "$KPT_TMP/entries"
		;;
	json)
		kpt_json_check "$1"
		grep '^{"type":"entry","probe":"kpt_test_func"' "$1" \
			> "$KPT_TMP/entries"
		;;
	save)
		assert_eq "$2: stdout" "$(wc -c < "$1")" 0
		timeout 60 "$KPTRACE" -q -r "$KPT_TMP/f.bin" --no-stack \
			> "$KPT_TMP/decoded" 2> "$KPT_TMP/rerr" ||
			fail "$2: kptrace -r failed: $(cat "$KPT_TMP/rerr")"
		grep ': kpt_test_func: ' "$KPT_TMP/decoded" > "$KPT_TMP/entries"
		;;
	esac
}

# calls_in_order FILE PERIOD JSON WHAT: FILE's lines are entries of calls
# in order without a gap, arg0 = 1..PERIOD again and again (PERIOD 0:
# 1, 2, 3, ...); how many goes to $KPT_TMP/count.
calls_in_order()
{
	awk -v p="$2" -v json="$3" -v count="$KPT_TMP/count" '
		{
			i++
			a = p ? (i - 1) % p + 1 : i
			want = json ? sprintf("\"args\":[%d,4369,8738,13107,17476,21845]", a) \
				    : sprintf(": kpt_test_func: arg0=0x%x arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555", a)
			if (!index($0, want)) {
				print "# entry " i " is not call " a ": " $0 > "/dev/stderr"
				exit 1
			}
		}
		END { print i + 0 > count }' "$1" ||
		fail "$4: the entries are not the calls in order"
}

# summary ERRFILE: the reader's summary line
summary()
{
	grep '^kptrace: [0-9]* events (' "$1"
}

# opts MODE: the reader's options for MODE
opts()
{
	case $1 in
	text) echo "--no-stack" ;;
	json) echo "-j --no-stack" ;;
	save) echo "-w $KPT_TMP/f.bin" ;;
	esac
}

# (a) a caller that never stops, then SIGINT
busy_round()
{
	_what="busy caller, $1"
	kpt_load name=kpt_test_func,vfs_write args=6 stack=4
	# shellcheck disable=SC2046
	kpt_bg "$KPTRACE" $(opts "$1") > "$KPT_TMP/out" 2> "$KPT_TMP/err"
	reader=$KPT_BG
	wait_taking "$reader"
	_loop="while :; do echo $PERIOD > $KPT_TEST_DIR/call || exit 1; usleep 1000; done"
	if command -v taskset >/dev/null 2>&1; then
		kpt_bg taskset -c "$KPT_CPU" sh -c "$_loop"
	else
		kpt_bg sh -c "$_loop"
	fi
	caller=$KPT_BG
	sleep 0.5
	before=$(kpt_stat recorded)
	t0=$(now_cs)
	kill -INT "$reader"
	wait "$reader"
	rc=$?
	t1=$(now_cs)
	kill "$caller"
	wait "$caller" 2>/dev/null	# no "Terminated"
	KPT_BG_PIDS=
	sed 's/^/#   stderr: /' "$KPT_TMP/err"
	assert_eq "$_what: exit status" "$rc" 0
	info "$_what: $before recorded before SIGINT, exit $((t1 - t0))0 ms after it"
	[ $((t1 - t0)) -lt 100 ] ||
		fail "$_what: the reader took $((t1 - t0))0 ms to exit after SIGINT (more than 1 s)"
	entries "$KPT_TMP/out" "$1"
	json=0
	[ "$1" = json ] && json=1
	calls_in_order "$KPT_TMP/entries" $PERIOD $json "$_what"
	info "$_what: $(cat "$KPT_TMP/count") calls of kpt_test_func printed in order"
	_sum=$(summary "$KPT_TMP/err")
	info "$_what: $_sum"
	p=$(echo "$_sum" | cut -d' ' -f2)
	assert_ge "$_what: events printed >= recorded before SIGINT" "$p" "$before"
	assert_match "$_what: summary" "$_sum" \
		"^kptrace: $p events \\($p entries, 0 returns\\), 0 lost(, [0-9]+ left unread \\([0-9]+ recorded after the stop\\))?(, [0-9]+ bytes saved to [^;]*)?; module: hits [0-9]+ recorded [0-9]+ lost 0 missed 0\$"
	echo "$_sum" | awk -v p="$p" '{
		u = 0
		if (match($0, /, [0-9]+ left unread \([0-9]+ recorded/)) {
			split(substr($0, RSTART + 2, RLENGTH - 2), a, " ")
			u = a[1]; u2 = substr(a[4], 2)
			if (u != u2) { print "# left unread " u " != after the stop " u2; exit 1 }
		}
		match($0, /module: hits [0-9]+ recorded [0-9]+/)
		split(substr($0, RSTART, RLENGTH), a, " ")
		if (p + u != a[3] || a[3] != a[5]) {
			print "# " p " printed + " u " left unread != hits " a[3] " (recorded " a[5] ")"; exit 1
		}
	}' || fail "$_what: the summary does not add up"
	if grep -E 'drain|another reader' "$KPT_TMP/err"; then
		fail "$_what: the drain was cut short, or records are unaccounted for"
	fi
	kpt_stats_check
	kpt_unload
}

for mode in text json save; do
	busy_round $mode
done

# (b) a second SIGINT during a drain
N=20000
_what="second SIGINT"
kpt_load name=kpt_test_func args=6 stack=4 bufsize_kb=4096
mkfifo "$KPT_TMP/fifo" || fail "mkfifo failed"
kpt_bg cat "$KPT_TMP/fifo" > "$KPT_TMP/out"
consumer=$KPT_BG
kpt_bg "$KPTRACE" > "$KPT_TMP/fifo" 2> "$KPT_TMP/err"
reader=$KPT_BG
wait_reading "$reader"
kill -STOP "$consumer"
kill -STOP "$reader"
kpt_call $N
assert_eq "$_what: recorded" "$(kpt_stat recorded)" $N
kill -INT "$reader"
kill -CONT "$reader"
wait_sleeping "$reader" $KPT_NR_WRITE "$KPT_TMP/fifo" \
	"a write to the FIFO in its drain"
kill -INT "$reader"
kill -CONT "$consumer"
wait "$reader"
rc=$?
wait "$consumer"
KPT_BG_PIDS=
sed 's/^/#   stderr: /' "$KPT_TMP/err"
assert_eq "$_what: exit status" "$rc" 0
grep ': kpt_test_func: ' "$KPT_TMP/out" > "$KPT_TMP/entries"
calls_in_order "$KPT_TMP/entries" 0 0 "$_what"
p=$(cat "$KPT_TMP/count")
if [ "$p" -eq 0 ] || [ "$p" -ge $N ]; then
	fail "$_what: $p entries printed, not between 0 and $N: the drain was not cut"
fi
u=$((N - p))
grep -qx "kptrace: a second signal stopped the drain: $u records recorded before the stop left unread" "$KPT_TMP/err" ||
	fail "$_what: no line saying that the drain was cut with $u records left"
_sum=$(summary "$KPT_TMP/err")
info "$_what: $_sum"
assert_match "$_what: summary" "$_sum" \
	"^kptrace: $p events \\($p entries, 0 returns\\), 0 lost, $u left unread \\($u recorded before the stop\\); module: hits $N recorded $N lost 0 missed 0\$"
assert_eq "$_what: pending" "$(kpt_stat pending)" $u
kpt_unload

# (c) a burst pending when -d ends
N=500
_what="-d 1, a burst before its end"
kpt_load name=kpt_test_func args=6 stack=4
kpt_bg "$KPTRACE" -d 1 --no-stack > "$KPT_TMP/out" 2> "$KPT_TMP/err"
reader=$KPT_BG
wait_reading "$reader"
kill -STOP "$reader"
kpt_call $N
sleep 1.5
kill -CONT "$reader"
wait "$reader"
rc=$?
KPT_BG_PIDS=
sed 's/^/#   stderr: /' "$KPT_TMP/err"
assert_eq "$_what: exit status" "$rc" 0
grep ': kpt_test_func: ' "$KPT_TMP/out" > "$KPT_TMP/entries"
calls_in_order "$KPT_TMP/entries" 0 0 "$_what"
assert_eq "$_what: entries" "$(cat "$KPT_TMP/count")" $N
assert_match "$_what: summary" "$(summary "$KPT_TMP/err")" \
	"^kptrace: $N events \\($N entries, 0 returns\\), 0 lost; module: hits $N recorded $N lost 0 missed 0\$"
assert_eq "$_what: pending" "$(kpt_stat pending)" 0
kpt_unload
info "a stop drains what was committed before it, fast, and counts the rest"
