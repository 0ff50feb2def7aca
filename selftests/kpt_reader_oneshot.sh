#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace -e SPEC... [-- COMMAND]`, one run with probes of
#   its own in a session: exact events and argument values of
#   kpt_test_func, the summary from the session's books, the probes gone
#   with the run (after COMMAND, after kill -9 within 1 s), two sessions
#   with one probe name at once, the default session untouched, a refused
#   SPEC
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
# timeout: 300
#
# kptrace is loaded idle (stack=0, no probe of its own).
# - kptrace -e 'p:kt kpt_test:kpt_test_func a=$arg1:u64 b=$arg2:x64
#   f=$arg6:x64' -e 'r:ktr kpt_test:kpt_test_func a=$arg1:u64
#   rv=$retval:s64' --no-stack -- sh -c 'grep ...; echo 50 > call': the
#   COMMAND sees both probes in the probes listing with session=N; exactly
#   50 entries "kt: a=I b=0x1111 f=0x5555" for I = 1..50 in order and 50
#   returns "ktr: ret=-I lat_ns=N a=I rv=-I", all of COMMAND's sh; exit
#   status COMMAND's (0, then 3 with `exit 3`); the summary "100 events
#   (50 entries, 50 returns), 0 lost; module: hits 100 recorded 100 lost
#   0 ..." and the probes' books (kt and ktr, 50 calls each); after the
#   run no probe is listed, and the default session's stats recorded
#   nothing.
# - -j: 50 entry objects with "fields":{"a":I,"b":"0x1111","f":"0x5555"}.
# - --clock local -b 64K: the banner says so; 20 calls, 20 entries.
# - kill -9 of a running kptrace -e: its session is gone from the
#   sessions file within 1 s, its probe from the listing, and later calls
#   of the function go nowhere (no fault).
# - two runs at once, both with a probe named "same" (names are per
#   session): 20 calls, each run prints exactly its 20 entries.
# - a SPEC the module refuses (an unknown symbol): the module's reason
#   with a caret, exit 1, COMMAND never runs, nothing listed.

# shellcheck disable=SC2016  # the specs' $argN are the probe language's
. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load
kpt_load stack=0

# the soft checks: check_eq, check_match (helpers/kpt_spec_lib.sh)
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"

T=$KPT_TMP
KT='p:kt kpt_test:kpt_test_func a=$arg1:u64 b=$arg2:x64 f=$arg6:x64'
KTR='r:ktr kpt_test:kpt_test_func a=$arg1:u64 rv=$retval:s64'

listed() # the probes listing's lines
{
	grep -c '' "$KPT_DIR/probes"
}

# wait_listed N: until the listing has N lines with session= (10 s)
wait_listed()
{
	_i=0
	until [ "$(grep -c ' session=' "$KPT_DIR/probes")" = "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || fail "not $1 session probes listed: $(cat "$KPT_DIR/probes")"
		sleep 0.1
	done
}

# entries FILE: "ok" if FILE's kt lines are a=1..N in order with the
# other arguments exact, else the first bad line
entries()
{
	awk '/: kt: / { n++; want = "a=" n " b=0x1111 f=0x5555"
		if (substr($0, length($0) - length(want) + 1) != want) {
			print "bad: " $0; bad = 1; exit } }
	     END { if (!bad) print "ok " n + 0 }' "$1"
}

returns() # FILE: the same of the ktr lines: ret=-I lat_ns=N a=I rv=-I
{
	awk '/: ktr: / { n++
		if ($0 !~ ("ktr: ret=-" n " lat_ns=[0-9]+ a=" n " rv=-" n "$")) {
			print "bad: " $0; bad = 1; exit } }
	     END { if (!bad) print "ok " n + 0 }' "$1"
}

# 1. -- COMMAND: 50 calls from COMMAND's sh, exact
"$KPTRACE" -e "$KT" -e "$KTR" --no-stack -- sh -c \
	"grep -c ' session=' $KPT_DIR/probes > $T/during; echo 50 > $KPT_TEST_DIR/call" \
	> "$T/cmd.out" 2> "$T/cmd.err"
check_eq "COMMAND: exit status" "$?" 0
sed -n '1,4p;$p' "$T/cmd.out" | sed 's/^/#   /'
sed 's/^/#   /' "$T/cmd.err"
check_eq "COMMAND saw the two probes listed with session=" "$(cat "$T/during")" 2
check_eq "entries a=1..50, b and f exact" "$(entries "$T/cmd.out")" "ok 50"
check_eq "returns ret=-I, a=I, rv=-I" "$(returns "$T/cmd.out")" "ok 50"
check_eq "lines: 100, all of sh" \
	"$(grep -c '' "$T/cmd.out") $(grep -c '^sh-[0-9]* ' "$T/cmd.out")" "100 100"
check_match "the session's banner" "$(head -n 1 "$T/cmd.err")" \
	'^kptrace: tracing 2 probes on [0-9]+ CPUs in session [0-9]+ \(rings of [0-9]+[KM]?, clock (mono|local)\)\.\.\. Hit Ctrl-C to end\.$'
check_match "the summary: the session's books" "$(sed -n 2p "$T/cmd.err")" \
	'^kptrace: 100 events \(50 entries, 50 returns\), 0 lost; module: hits 100 recorded 100 lost 0 missed 0$'
check_match "the probes' books: kt" "$(grep '^kt ' "$T/cmd.err")" \
	'^kt +50 +50 +50 +0 +0 +0 +0$'
check_match "the probes' books: ktr" "$(grep '^ktr ' "$T/cmd.err")" \
	'^ktr +50 +50 +50 +0 +0 +0 +0$'
check_eq "after the run: nothing listed" "$(listed)" 0
check_eq "the default session recorded nothing" \
	"$(sed -n 's/^recorded *//p' "$KPT_DIR/stats")" 0

"$KPTRACE" -e "$KT" -q -- sh -c "echo 5 > $KPT_TEST_DIR/call; exit 3" \
	> /dev/null 2> "$T/three.err"
check_eq "COMMAND's status 3" "$?" 3

# 2. -j: the fields
"$KPTRACE" -e "$KT" -j --no-stack -q -- sh -c \
	"echo 50 > $KPT_TEST_DIR/call" > "$T/j.out" 2> "$T/j.err"
check_eq "-j: exit status" "$?" 0
kpt_json_check "$T/j.out"
check_eq "-j: 50 objects with the fields, a=1..50" "$(awk '
	{ n++; want = "\"fields\":{\"a\":" n ",\"b\":\"0x1111\",\"f\":\"0x5555\"}"
	  if (index($0, want) == 0 || index($0, "\"probe\":\"kt\"") == 0) {
		print "bad: " $0; exit } }
	END { print n + 0 }' "$T/j.out")" 50

# 3. the session's clock and rings
"$KPTRACE" -e "$KT" --clock local -b 64K --no-stack -- sh -c \
	"echo 20 > $KPT_TEST_DIR/call" > "$T/local.out" 2> "$T/local.err"
check_eq "--clock local: exit status" "$?" 0
check_match "--clock local -b 64K: the banner" "$(head -n 1 "$T/local.err")" \
	' \(rings of 64K, clock local\)\.\.\. '
check_eq "--clock local: entries" "$(entries "$T/local.out")" "ok 20"

# 4. kill -9: the probe goes with the process, within 1 s
"$KPTRACE" -e 'p:k9 kpt_test:kpt_test_func' > "$T/k9.out" 2> "$T/k9.err" &
K9=$!
KPT_BG_PIDS="$KPT_BG_PIDS $K9"
wait_listed 1
kpt_call 10
t0=$(cut -d' ' -f1 /proc/uptime)
kill -9 "$K9"
wait "$K9" 2> /dev/null
kpt_wait_sessions 1	# the default session's line alone
t1=$(cut -d' ' -f1 /proc/uptime)
check_eq "kill -9: the session gone within 1 s" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a <= 1 ? "yes" : "no: " b - a " s" }')" yes
check_eq "kill -9: nothing listed" "$(listed)" 0
kpt_call 10	# into no session: nothing to fault on

# 5. two sessions, one probe name, each its own records
"$KPTRACE" -e 'p:same kpt_test:kpt_test_func a=$arg1:u64' --no-stack \
	> "$T/s1.out" 2> "$T/s1.err" &
S1=$!
"$KPTRACE" -e 'p:same kpt_test:kpt_test_func a=$arg1:u64' --no-stack \
	> "$T/s2.out" 2> "$T/s2.err" &
S2=$!
KPT_BG_PIDS="$KPT_BG_PIDS $S1 $S2"
wait_listed 2
kpt_call 20
kill -INT "$S1" "$S2"
wait "$S1"
check_eq "session 1: exit status" "$?" 0
wait "$S2"
check_eq "session 2: exit status" "$?" 0
check_eq "two sessions, one name: each 20 entries" \
	"$(grep -c ': same: a=' "$T/s1.out") $(grep -c ': same: a=' "$T/s2.out")" "20 20"
check_eq "two sessions: nothing listed after" "$(listed)" 0

# 6. a SPEC the module refuses
rm -f "$T/ran"
"$KPTRACE" -e "$KT" -e 'p:bad no_such_function_kpt' -- touch "$T/ran" \
	> "$T/bad.out" 2> "$T/bad.err"
check_eq "refused: exit status" "$?" 1
sed 's/^/#   /' "$T/bad.err"
check_match "refused: the module's reason" "$(head -n 1 "$T/bad.err")" \
	'^kptrace: error: the module refused it \(.*\)'
check_eq "refused: the user's line" "$(sed -n 2p "$T/bad.err")" \
	"  Command: p:bad no_such_function_kpt"
check_eq "refused: COMMAND never ran" "$([ -e "$T/ran" ] && echo ran)" ""
check_eq "refused: nothing listed" "$(listed)" 0

kpt_unload
spec_finish "kptrace -e: exact events in a session, its books, its probes gone with it"
