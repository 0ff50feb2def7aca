#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: sessions beside each other and beside the default session:
#   each gets every call it selected, exactly, with books of its own;
#   names are a session's own; nothing of a session outlives it
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# insmod name=kpt_test_func args=2 stack=0 (the default session's probe),
# with a trace_pipe reader. Then, for K = 2 and then 8: K helpers/kpt_read
# -S -b 262144, each adding the same 'p:s kpt_test_func a=$arg1' (one name
# in K sessions and none refused), reading until stopped; N = 3000 calls
# of kpt_test_func on CPU 0 and N on CPU 1 (kpt_call twice). Then:
# - every session: entry = 2N records, no loss report, no bad record;
#   its books hits = recorded = read = 2N, pending 0, lost 0; its probe's
#   calls = events = recorded = 2N, filtered 0, lost 0, missed 0;
# - while they run: the sessions file has K + 1 lines, the probes listing
#   K + 1 (K with " session="), stats' sessions is K;
# - trace_pipe got 2N lines per round, stats' hits and read 2N per round:
#   the default session is what it would be alone;
# - when they have ended: the sessions file has the default session's line
#   only, the listing the default probe only, stats' sessions 0.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
require_cmd taskset
kpt_test_load
kpt_load name=kpt_test_func args=2 stack=0

N=${KPT_SESSION_N:-3000}
kpt_bg cat "$KPT_DIR/trace_pipe" > "$KPT_TMP/pipe"
pipe=$KPT_BG
total=0

round()
{
	k=$1
	i=1
	pids=
	while [ $i -le "$k" ]; do
		kpt_session_start "$KPT_TMP/s$i" -b 262144 \
			-e 'p:s kpt_test_func a=$arg1' follow
		pids="$pids $KPT_BG"
		i=$((i + 1))
	done
	assert_eq "sessions file lines, $k sessions" "$(kpt_sessions_lines)" \
		$((k + 1))
	assert_eq "stats' sessions, $k sessions" "$(kpt_stat sessions)" "$k"
	assert_eq "probes listed, $k sessions" "$(grep -c '' "$KPT_DIR/probes")" \
		$((k + 1))
	assert_eq "session probes listed, $k sessions" \
		"$(grep -c ' session=[0-9]' "$KPT_DIR/probes")" "$k"
	KPT_CPU=0 kpt_call "$N"
	KPT_CPU=1 kpt_call "$N"
	total=$((total + 2 * N))
	i=1
	for pid in $pids; do
		kpt_session_stop "$pid" "$KPT_TMP/s$i"
		out=$(cat "$KPT_TMP/s$i")
		sum=$(echo "$out" | grep '^summary ')
		books=$(echo "$out" | grep '^books ')
		pb=$(echo "$out" | grep '^pbooks ')
		[ -n "$sum" ] && [ -n "$books" ] && [ -n "$pb" ] ||
			{ echo "$out" | sed 's/^/#   /'; fail "session $i of $k: no summary or books"; }
		assert_eq "session $i/$k entries" "$(kpt_field entry "$sum")" $((2 * N))
		assert_eq "session $i/$k records" "$(kpt_field records "$sum")" $((2 * N))
		assert_eq "session $i/$k loss reports" "$(kpt_field lost "$sum")" 0
		assert_eq "session $i/$k bad" "$(kpt_field bad "$sum")" 0
		assert_eq "session $i/$k seq errors" "$(kpt_field seq_errors "$sum")" 0
		for f in hits recorded read; do
			assert_eq "session $i/$k books $f" "$(kpt_field $f "$books")" $((2 * N))
		done
		assert_eq "session $i/$k pending" "$(kpt_field pending "$books")" 0
		assert_eq "session $i/$k lost" "$(kpt_field lost "$books")" 0
		for f in calls events recorded; do
			assert_eq "session $i/$k probe $f" "$(kpt_field $f "$pb")" $((2 * N))
		done
		for f in filtered lost missed; do
			assert_eq "session $i/$k probe $f" "$(kpt_field $f "$pb")" 0
		done
		i=$((i + 1))
	done
	KPT_BG_PIDS=$pipe
	kpt_wait_sessions 1
	assert_eq "probes listed after $k sessions" "$(grep -c '' "$KPT_DIR/probes")" 1
	assert_eq "stats' sessions after $k" "$(kpt_stat sessions)" 0
	# the default session, as if alone
	j=0
	while [ "$(grep -c '' "$KPT_TMP/pipe")" -lt "$total" ] && [ $j -lt 100 ]; do
		sleep 0.1
		j=$((j + 1))
	done
	assert_eq "trace_pipe lines after $k sessions" "$(grep -c '' "$KPT_TMP/pipe")" "$total"
	assert_eq "default session's hits after $k sessions" "$(kpt_stat hits)" "$total"
	assert_eq "default session's lost after $k sessions" "$(kpt_stat lost)" 0
}

round 2
round 8
kill "$pipe"
wait "$pipe" 2>/dev/null
KPT_BG_PIDS=
kpt_stats_check
info "2 and 8 sessions: $N x 2 calls each, exactly; the default session as alone"
