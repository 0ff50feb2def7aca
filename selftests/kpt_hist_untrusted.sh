#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: untrusted names in the module's outputs: a comm with
#   terminal escapes and a newline is escaped (\xNN) in trace, trace_pipe
#   and hist/NAME, never written raw; comm and string keys sort as
#   strings (sort=comm); .buckets=N on a signed field buckets negative
#   values as signed ranges (issue 21, items 2, 5 and 6)
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# Comms are set by writing /proc/self/comm in a subshell, which then
# calls kpt_test_func with the shell's builtin echo (no new process).
#  - comm "e\033[2J\nX\302\233m\\" (ESC [2J, a newline, UTF-8 CSI, a
#    backslash), 2 calls read by trace, 2 more by trace_pipe: each shows
#    e\x1b[2J\x0aX\xc2\x9bm\\ and holds no ESC, no byte >= 0x80, and
#    exactly 2 lines of the probe; hist/cs with keys=comm has one entry,
#    escaped (the backslash as \x5c there), hitcount 4.
#  - comms b ab zz cat bash, one call each: hist/so (keys=comm,
#    sort=comm) lists ab b bash cat zz; sort=comm.descending the reverse.
#  - r:nb kpt_test_func hist:keys=retval.buckets=10, calls 1..15 (retval
#    -1..-15): "~ -10--1" hitcount 10 and "~ -20--11" hitcount 5.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load
kpt_load

H=$KPT_DIR/hist
# call_as COMM N: N calls of kpt_test_func from a task named COMM (printf)
call_as()
{
	( printf "$1" > /proc/self/comm && echo "$2" > "$KPT_TEST_DIR/call" ) ||
		fail "calls as '$1' failed"
}

# --- comm escaping in trace, trace_pipe and hist
spec_add 'p:ce kpt_test_func a=$arg1:u32'
spec_add 'p:cs kpt_test_func hist:keys=comm'
call_as 'e\033[2J\nX\302\233m\\' 2
raw=$KPT_TMP/trace
cat "$KPT_DIR/trace" > "$raw"
esc='e\\x1b\[2J\\x0aX\\xc2\\x9bm\\\\-[0-9]+ '
check_eq "trace: lines of ce with the escaped comm" \
	"$(grep -Ec "^${esc}.*ce: a=" "$raw")" 2
check_eq "trace: ESC bytes" "$(tr -cd '\033' < "$raw" | wc -c)" 0
check_eq "trace: bytes >= 0x80" \
	"$(LC_ALL=C tr -cd '\200-\377' < "$raw" | wc -c)" 0
check_eq "trace: lines of ce" "$(grep -c ' ce: ' "$raw")" 2
# trace is a consuming read: 2 more calls for trace_pipe
call_as 'e\033[2J\nX\302\233m\\' 2
timeout 5 cat "$KPT_DIR/trace_pipe" > "$KPT_TMP/pipe" 2>/dev/null
check_eq "trace_pipe: lines of ce with the escaped comm" \
	"$(grep -Ec "^${esc}.*ce: a=" "$KPT_TMP/pipe")" 2
check_eq "trace_pipe: ESC bytes" "$(tr -cd '\033' < "$KPT_TMP/pipe" | wc -c)" 0
check_match "hist/cs: the escaped comm" "$(grep '^{' "$H/cs" | tr -s ' ')" \
	'^\{ comm: e\\x1b\[2J\\x0aX\\xc2\\x9bm\\x5c \} hitcount: 4$'
check_eq "hist/cs: ESC bytes" "$(tr -cd '\033' < "$H/cs" | wc -c)" 0
spec_write '-:ce' > /dev/null
spec_write '-:cs' > /dev/null

# --- sort=comm sorts names as strings
spec_add 'p:so kpt_test_func hist:keys=comm:sort=comm'
spec_add 'p:sd kpt_test_func hist:keys=comm:sort=comm.descending'
for c in b ab zz cat bash; do
	call_as "$c" 1
done
order() { grep '^{' "$H/$1" | sed 's/^{ comm: *\([^ ]*\) .*/\1/' | tr '\n' ' '; }
check_eq "sort=comm" "$(order so)" "ab b bash cat zz "
check_eq "sort=comm.descending" "$(order sd)" "zz cat bash b ab "
spec_write '-:so' > /dev/null
spec_write '-:sd' > /dev/null

# --- .buckets=N on a signed field
spec_add 'r:nb kpt_test_func hist:keys=retval.buckets=10'
kpt_call 15
check_eq "buckets of -1..-15" "$(grep '^{' "$H/nb" | tr -s ' ' | tr '\n' '|')" \
	"{ retval: ~ -20--11 } hitcount: 5|{ retval: ~ -10--1 } hitcount: 10|"
books_line=$(sed -n 's/^ *Hits: //p' "$H/nb")
check_eq "nb: Hits" "$books_line" 15
spec_write '-:nb' > /dev/null
spec_finish
