#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: Ctrl-C (SIGINT) right after a burst of calls: before it
#   exits, the kptrace reader prints (-j, or saves with -w) every event the
#   module recorded, and its summary accounts for each of them; -n counts
#   what it stops before as left unread
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
# timeout: 300
#
# name=kpt_test_func args=6 stack=4 (entries only), loaded afresh for each
# run. The reader (text, -j, -w) starts and sleeps in its read() of
# /dev/kptrace (/proc/PID/syscall); N calls on one CPU (kpt_call N), then
# SIGINT at once, a few ms after the last call, while the kernel still
# holds the blocking read() (it waits up to 100 ms for a batch). The
# reader must exit 0 having printed (or saved, then decoded with -r)
# exactly N entries, arg0=1..N in order; stats must say recorded N and
# pending 0; the summary must be exactly
#   "kptrace: N events (N entries, 0 returns), 0 lost[, B bytes saved to F];
#    module: hits N recorded N lost 0 missed 0"
# (events + filtered out + lost + left unread = hits, nothing left unread),
# with no drain cut short and no records unaccounted for. Rounds:
# KPT_SIGINT_ROUNDS (3), N = 100, 700, 1300, ...; the last round's text run
# gets SIGTERM instead.
# Then -n: 10 calls, `kptrace -n 4`: 4 entries printed, summary "4 events
# (4 entries, 0 returns), 0 lost, 6 left unread (6 past -n); module: hits
# 10 ...", pending 0.
# Then another reader: the reader stopped (SIGSTOP) in its read(), 50
# calls, `cat trace` takes them, SIGCONT, SIGINT: "0 events" and a line
# saying that the module gave 50 records to its readers and this one took
# 0.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load

ROUNDS=${KPT_SIGINT_ROUNDS:-3}

# dev_fd PID: the fd on which PID has /dev/kptrace open, or nothing.
dev_fd()
{
	for _fd in "/proc/$1/fd/"*; do
		if [ "$(readlink "$_fd" 2>/dev/null)" = /dev/kptrace ]; then
			echo "${_fd##*/}"
			return 0
		fi
	done
	return 1
}

# wait_reading PID: PID sleeps in read(2) of /dev/kptrace: /proc/PID/syscall
# says "<KPT_NR_READ> 0x<fd> ..." (0 on x86_64, 63 on arm64), not a read
# of kallsyms or BTF during its setup. Without /proc/PID/syscall, 1 s
# after the open.
wait_reading()
{
	_i=0
	while [ $_i -lt 100 ]; do
		kill -0 "$1" 2>/dev/null ||
			fail "the reader exited early: $(cat "$KPT_TMP/err")"
		_fd=$(dev_fd "$1")
		if [ -n "$_fd" ]; then
			_sc=$(cut -d' ' -f1,2 "/proc/$1/syscall" 2>/dev/null)
			[ "$_sc" = "$KPT_NR_READ $(printf '0x%x' "$_fd")" ] &&
				return 0
			[ -z "$_sc" ] && [ $_i -ge 10 ] && return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "the reader did not reach its read() of /dev/kptrace in 10 s"
}

# entries_in_order FILE N WHAT: FILE's lines are the N entries of kpt_call
# N in order, arg0=0x1..0x<N> (text) or "args":[1..N,...] (JSON)
entries_in_order()
{
	awk -v n="$2" -v json="$3" '
		{
			i++
			want = json ? sprintf("\"args\":[%d,4369,8738,13107,17476,21845]", i) \
				    : sprintf(": kpt_test_func: arg0=0x%x arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555", i)
			if (!index($0, want)) {
				print "# entry " i " is not call " i ": " $0
				exit 1
			}
		}
		END { if (i != n) { print "# " i + 0 " entries, not " n; exit 1 } }' "$1" ||
		fail "$4: the entries are not calls 1..$2 in order"
}

# check_summary ERRFILE N WHAT: the summary accounts for N recorded events,
# all printed; its numbers add up; no drain cut, no stray reader.
check_summary()
{
	_sum=$(grep '^kptrace: [0-9]* events (' "$1")
	info "$3: $_sum"
	assert_match "$3: summary" "$_sum" \
		"^kptrace: $2 events \\($2 entries, 0 returns\\), 0 lost(, [0-9]+ bytes saved to [^;]*)?; module: hits $2 recorded $2 lost 0 missed 0\$"
	# events + filtered out + lost + left unread = the module's hits
	echo "$_sum" | awk '{
		ev = $2
		if (match($0, /, [0-9]+ filtered out/)) { split(substr($0, RSTART + 2), a, " "); f = a[1] }
		if (match($0, /\), [0-9]+ lost/)) { split(substr($0, RSTART + 3), a, " "); l = a[1] }
		if (match($0, /, [0-9]+ left unread/)) { split(substr($0, RSTART + 2), a, " "); u = a[1] }
		if (match($0, /module: hits [0-9]+/)) { split(substr($0, RSTART), a, " "); h = a[3] }
		if (ev + f + l + u != h) { print "# " ev " + " f " + " l " + " u " != " h; exit 1 }
	}' || fail "$3: the summary does not add up"
	if grep -E 'drain|another reader' "$1"; then
		fail "$3: the drain was cut short, or records are unaccounted for"
	fi
}

# run_round MODE N SIGNAL: one reader run, one burst of N calls, SIGNAL.
run_round()
{
	_what="$1, $2 calls, SIG$3"
	case $1 in
	text) _opts= ;;
	json) _opts=-j ;;
	save) _opts="-w $KPT_TMP/f.bin" ;;
	esac
	kpt_load name=kpt_test_func args=6 stack=4
	# shellcheck disable=SC2086
	kpt_bg "$KPTRACE" $_opts > "$KPT_TMP/out" 2> "$KPT_TMP/err"
	reader=$KPT_BG
	wait_reading "$reader"
	kpt_call "$2"
	kill -"$3" "$reader"
	wait "$reader"
	rc=$?
	KPT_BG_PIDS=
	sed 's/^/#   stderr: /' "$KPT_TMP/err"
	assert_eq "$_what: exit status" "$rc" 0
	case $1 in
	text)
		grep ': kpt_test_func: ' "$KPT_TMP/out" > "$KPT_TMP/entries"
		entries_in_order "$KPT_TMP/entries" "$2" 0 "$_what"
		;;
	json)
		kpt_json_check "$KPT_TMP/out"
		grep '^{"type":"entry"' "$KPT_TMP/out" > "$KPT_TMP/entries"
		entries_in_order "$KPT_TMP/entries" "$2" 1 "$_what"
		;;
	save)
		assert_eq "$_what: stdout" "$(wc -c < "$KPT_TMP/out")" 0
		timeout 60 "$KPTRACE" -q -r "$KPT_TMP/f.bin" --no-stack \
			> "$KPT_TMP/entries" 2> "$KPT_TMP/rerr" ||
			fail "$_what: kptrace -r failed: $(cat "$KPT_TMP/rerr")"
		entries_in_order "$KPT_TMP/entries" "$2" 0 "$_what"
		;;
	esac
	assert_eq "$_what: entries printed = recorded" "$(kpt_stat recorded)" "$2"
	assert_eq "$_what: pending after the reader" "$(kpt_stat pending)" 0
	kpt_stats_check
	check_summary "$KPT_TMP/err" "$2" "$_what"
	kpt_unload
}

r=1
while [ $r -le "$ROUNDS" ]; do
	n=$((100 + 600 * (r - 1)))
	sig=INT
	[ $r = "$ROUNDS" ] && sig=TERM
	run_round text $n $sig
	run_round json $n INT
	run_round save $n INT
	r=$((r + 1))
done

# -n: the 10 records come in one read; 4 are printed, 6 are left unread.
kpt_load name=kpt_test_func args=6 stack=4
kpt_call 10
timeout 30 "$KPTRACE" -n 4 --no-stack > "$KPT_TMP/out" 2> "$KPT_TMP/err" ||
	fail "kptrace -n 4 failed or hung: $(cat "$KPT_TMP/err")"
sed 's/^/#   stderr: /' "$KPT_TMP/err"
entries_in_order "$KPT_TMP/out" 4 0 "-n 4"
assert_match "-n 4: summary" "$(grep '^kptrace: [0-9]* events (' "$KPT_TMP/err")" \
	'^kptrace: 4 events \(4 entries, 0 returns\), 0 lost, 6 left unread \(6 past -n\); module: hits 10 recorded 10 lost 0 missed 0$'
assert_eq "-n 4: pending" "$(kpt_stat pending)" 0
kpt_unload

# Another reader takes the records: the summary cannot count them, it says so.
kpt_load name=kpt_test_func args=6 stack=4
kpt_bg "$KPTRACE" > "$KPT_TMP/out" 2> "$KPT_TMP/err"
reader=$KPT_BG
wait_reading "$reader"
kill -STOP "$reader"
kpt_call 50
kpt_trace_read "$KPT_TMP/trace"
kill -CONT "$reader"
kill -INT "$reader"
wait "$reader"
rc=$?
KPT_BG_PIDS=
sed 's/^/#   stderr: /' "$KPT_TMP/err"
assert_eq "another reader: exit status" "$rc" 0
assert_eq "another reader: entries it took" "$(grep -c ': kpt_test_func: ' "$KPT_TMP/trace")" 50
assert_eq "another reader: stdout" "$(wc -c < "$KPT_TMP/out")" 0
grep -q '^kptrace: 0 events (0 entries, 0 returns), 0 lost; module: hits 50 recorded 50 ' "$KPT_TMP/err" ||
	fail "another reader: the summary is not '0 events ... hits 50 recorded 50'"
grep -qx 'kptrace: the module gave 50 records to its readers while this one ran, and this one took 0: another reader (of the trace file?) took the difference' "$KPT_TMP/err" ||
	fail "another reader: no line saying that another reader took 50 records"
kpt_unload
info "every recorded event printed before the reader exited, and counted"
