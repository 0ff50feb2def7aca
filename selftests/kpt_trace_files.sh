#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: debugfs `trace` is a consuming read that ends at EOF;
#   `trace_pipe` is the same but blocks until events arrive
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read,
#   helpers/kpt_epoll
#
# - cat trace with nothing recorded returns at once, empty;
# - 3 calls: cat trace gives exactly the 3 lines, a second cat is empty;
# - `timeout 2 cat trace_pipe` with nothing recorded is still blocked when
#   killed, and printed nothing;
# - a cat trace_pipe started before 2 calls prints those 2 lines (arg0=0x1,
#   arg0=0x2) and keeps waiting;
# - with O_NONBLOCK (helpers/kpt_read), an empty trace_pipe fails with
#   EAGAIN and an empty trace returns 0 (EOF);
# - afterwards pending=0, read=5;
# - read(fd, buf, 0) returns 0 at once from both files, events pending
#   or not, and takes nothing;
# - poll() on an empty trace_pipe times out (500 ms); one started before
#   a call returns POLLIN; one with a record pending returns POLLIN at once;
# - epoll (helpers/kpt_epoll): trace_pipe added to an epoll set after a
#   10-byte read of a pending line, the rest read until EAGAIN, then one
#   call 500 ms later: epoll_wait(5 s) returns 1 before its timeout and
#   read() returns that call's line;
# - a reader takes records from the rings only as it returns their text:
#   with 400 events pending, `dd bs=10 count=1` of trace_pipe returns 10
#   bytes and leaves read=+1, pending=399; `head -n 1` prints the next
#   event (arg0=0x2), read + pending still make every event recorded,
#   at least one is still pending, and cat trace returns exactly the
#   pending ones, the last arg0=0x190.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
KPT_EPOLL=${KPT_EPOLL:-$KPT_SELFTESTS/helpers/kpt_epoll}
[ -x "$KPT_EPOLL" ] || fail "helpers/kpt_epoll not built (make -C selftests helpers)"
kpt_test_load
kpt_load name=kpt_test_func args=1 stack=0

kpt_trace_read "$KPT_TMP/t0"
assert_eq "bytes of an empty trace" "$(wc -c < "$KPT_TMP/t0")" 0

kpt_call 3
kpt_trace_read "$KPT_TMP/t1"
sed 's/^/#   /' "$KPT_TMP/t1"
assert_eq "lines of the first read" "$(grep -c '' "$KPT_TMP/t1")" 3
i=1
while [ $i -le 3 ]; do
	assert_match "line $i" "$(sed -n "${i}p" "$KPT_TMP/t1")" \
		"$KPT_RE_HEAD"'kpt_test_func: arg0=0x'$i'$'
	i=$((i + 1))
done
kpt_trace_read "$KPT_TMP/t2"
assert_eq "bytes of the second read" "$(wc -c < "$KPT_TMP/t2")" 0

# trace_pipe blocks when there is nothing.
start=$(date +%s)
timeout 2 cat "$KPT_DIR/trace_pipe" > "$KPT_TMP/p0"
rc=$?
[ "$rc" = 0 ] && fail "cat trace_pipe returned on an empty buffer"
[ "$(($(date +%s) - start))" -ge 1 ] || fail "cat trace_pipe did not block ($rc)"
assert_eq "bytes from an empty trace_pipe" "$(wc -c < "$KPT_TMP/p0")" 0

# trace_pipe wakes up when events come.
kpt_bg cat "$KPT_DIR/trace_pipe" > "$KPT_TMP/p1"
pipe_pid=$KPT_BG
sleep 1
kill -0 "$pipe_pid" 2>/dev/null || fail "cat trace_pipe ended before any event"
kpt_call 2
i=0
while [ "$(grep -c '' "$KPT_TMP/p1")" -lt 2 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sed 's/^/#   /' "$KPT_TMP/p1"
assert_eq "lines from trace_pipe" "$(grep -c '' "$KPT_TMP/p1")" 2
assert_match "trace_pipe line 1" "$(sed -n 1p "$KPT_TMP/p1")" \
	"$KPT_RE_HEAD"'kpt_test_func: arg0=0x1$'
assert_match "trace_pipe line 2" "$(sed -n 2p "$KPT_TMP/p1")" \
	"$KPT_RE_HEAD"'kpt_test_func: arg0=0x2$'
kill -0 "$pipe_pid" 2>/dev/null || fail "cat trace_pipe ended after the events"
kill "$pipe_pid"
wait "$pipe_pid" 2>/dev/null

# O_NONBLOCK: trace_pipe says EAGAIN when empty, trace gives EOF.
assert_eq "O_NONBLOCK read of an empty trace_pipe" \
	"$("$KPT_READ" -d "$KPT_DIR/trace_pipe" nonblock)" "nonblock EAGAIN"
assert_eq "O_NONBLOCK read of an empty trace" \
	"$("$KPT_READ" -d "$KPT_DIR/trace" nonblock)" "nonblock read=0"

assert_eq "pending" "$(kpt_stat pending)" 0
assert_eq "read" "$(kpt_stat read)" 5
assert_eq "hits" "$(kpt_stat hits)" 5

# read(fd, buf, 0) is 0, not EAGAIN, and does not block or consume.
for f in trace_pipe trace; do
	assert_eq "0-byte read of an empty $f" \
		"$("$KPT_READ" -d "$KPT_DIR/$f" zero)" "zero read=0"
done
kpt_call 1
for f in trace_pipe trace; do
	assert_eq "0-byte read of $f with an event pending" \
		"$("$KPT_READ" -d "$KPT_DIR/$f" zero)" "zero read=0"
done
assert_eq "pending after the 0-byte reads" "$(kpt_stat pending)" 1
kpt_trace_read "$KPT_TMP/z"

# poll() on trace_pipe: POLLIN only with a record pending.
assert_eq "poll of an empty trace_pipe" \
	"$("$KPT_READ" -d "$KPT_DIR/trace_pipe" poll 500)" "poll timeout"
kpt_bg "$KPT_READ" -d "$KPT_DIR/trace_pipe" poll 30000 > "$KPT_TMP/poll"
poller=$KPT_BG
sleep 1
kill -0 "$poller" 2>/dev/null ||
	fail "poll of trace_pipe returned with nothing recorded: $(cat "$KPT_TMP/poll")"
kpt_call 1
wait "$poller" || fail "kpt_read poll failed"
assert_match "poll woken by a record" "$(cat "$KPT_TMP/poll")" '^poll POLLIN '
assert_match "poll with a record pending" \
	"$("$KPT_READ" -d "$KPT_DIR/trace_pipe" poll 0)" '^poll POLLIN '
kpt_trace_read "$KPT_TMP/p2"
assert_eq "lines after poll" "$(grep -c '' "$KPT_TMP/p2")" 1

# epoll registered while a line is half returned still wakes afterwards.
kpt_call 1
out=$("$KPT_EPOLL" "$KPT_TEST_DIR/call" 500 5000) ||
	fail "kpt_epoll failed: $out"
info "$out"
assert_match "epoll added mid-line, woken by a later call" "$out" \
	'^epoll first=10 drained=[1-9][0-9]* ready=1 ms=[0-9]+ read=[1-9][0-9]*$'
ms=$(echo "$out" | sed 's/.* ms=\([0-9]*\) .*/\1/')
[ "$ms" -lt 4000 ] || fail "epoll_wait took $ms ms"
assert_eq "pending after epoll" "$(kpt_stat pending)" 0

# A reader that stops early leaves what it did not return in the rings.
kpt_call 400
read0=$(kpt_stat read)
recorded=$(kpt_stat recorded)
dd if="$KPT_DIR/trace_pipe" of="$KPT_TMP/dd" bs=10 count=1 2>/dev/null ||
	fail "dd of trace_pipe failed"
assert_eq "bytes dd read" "$(wc -c < "$KPT_TMP/dd")" 10
assert_eq "read after dd" "$(kpt_stat read)" $((read0 + 1))
assert_eq "pending after dd" "$(kpt_stat pending)" 399
kpt_stats_check
head -n 1 "$KPT_DIR/trace_pipe" > "$KPT_TMP/head" ||
	fail "head of trace_pipe failed"
assert_match "head's line" "$(cat "$KPT_TMP/head")" \
	"$KPT_RE_HEAD"'kpt_test_func: arg0=0x2$'
pending=$(kpt_stat pending)
info "head -n 1 took $(($(kpt_stat read) - read0 - 1)) events, $pending pending"
assert_eq "read + pending after head" $(($(kpt_stat read) + pending)) "$recorded"
assert_ge "pending after head" "$pending" 1
kpt_stats_check
kpt_trace_read "$KPT_TMP/rest"
assert_eq "lines of the rest" "$(grep -c '' "$KPT_TMP/rest")" "$pending"
assert_match "last line" "$(tail -n 1 "$KPT_TMP/rest")" \
	"$KPT_RE_HEAD"'kpt_test_func: arg0=0x190$'
assert_eq "pending at the end" "$(kpt_stat pending)" 0
info "trace consumes and ends, trace_pipe blocks, wakes and polls; a reader takes only what it returns"
