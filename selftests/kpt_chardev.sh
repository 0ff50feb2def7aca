#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: /dev/kptrace: info ioctl, blocking, non-blocking and polled
#   reads of whole valid records, too-small buffers, permissions
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# With name=kpt_test_func args=6 stack=4 (helpers/kpt_read validates every
# record: magic, size for its type, per-CPU seq strictly increasing):
# - KPT_IOC_INFO: magic 0x4b50, version 1, nr_probes 1, nr_cpus >= online
#   CPUs, max_record >= one entry of 6 args + 4 frames, ring_bytes the
#   default ring: bufsize_kb in sysfs (KiB), 8192 halved while the rings
#   of all possible CPUs would take more than 1/32 of RAM, down to 1024;
# - empty: an O_NONBLOCK read fails with EAGAIN, poll(500 ms) times out;
#   read(fd, buf, 0) on a blocking descriptor returns 0 at once, empty or
#   with a record pending, and takes nothing;
# - a blocking read started before 3 calls stays blocked, then returns the
#   3 entries (args 0x1..0x3, 0x1111..0x5555, 1..4 frames);
# - a poll started before a call returns POLLIN; poll on a pending record
#   returns POLLIN at once;
# - read() with 8 bytes when a record is pending fails with EINVAL and the
#   record is still there for the next read;
# - the node is a 0600 character device: uid 65534 gets EACCES; with mode
#   0666, uid 65534 gets EPERM from the module; uid 0 without CAP_SYS_ADMIN
#   and CAP_PERFMON gets EPERM;
# - the stats read counter equals the records read;
# - 300 rounds of one call on another CPU, each while this one polls: every
#   poll() is woken by its record within 1 s (its timeout is 2 s); and the
#   same, 30 rounds, the call 1 ms after the poll began, with
#   wake_net_only=1 (writers never wake a reader): the timer net wakes
#   within 1 s every poll whose call came within 3 ms (by its record's
#   time), and those are at least 15 of the 30.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

cleanup()
{
	[ -c "$KPT_DEV" ] && chmod 0600 "$KPT_DEV"
	return 0
}

kpt_load name=kpt_test_func args=6 stack=4

out=$("$KPT_READ" info) || fail "kpt_read info: $out"
info "$out"
assert_match "info" "$out" '^info magic=0x4b50 version=1 nr_cpus=[0-9]+ nr_probes=1 ring_bytes=[0-9]+ max_record=[0-9]+$'
# the default ring, by the rule the README gives
want=$(kpt_default_bufsize_kb)
assert_eq "bufsize_kb (the default)" \
	"$(cat /sys/module/kptrace/parameters/bufsize_kb)" "$want"
assert_eq "ring_bytes" "$(echo "$out" | sed 's/.* ring_bytes=\([0-9]*\) .*/\1/')" \
	$((want * 1024))
nr_cpus=$(echo "$out" | sed 's/.* nr_cpus=\([0-9]*\) .*/\1/')
assert_ge "nr_cpus" "$nr_cpus" "$(kpt_nr_online_cpus)"
maxrec=${out##*max_record=}
assert_ge "max_record" "$maxrec" $((64 + 8 * (6 + 4)))

assert_eq "non-blocking read when empty" "$("$KPT_READ" nonblock)" "nonblock EAGAIN"
assert_eq "poll when empty" "$("$KPT_READ" poll 500)" "poll timeout"
assert_eq "0-byte read when empty" "$("$KPT_READ" zero)" "zero read=0"

# A blocking read waits for the events.
kpt_bg "$KPT_READ" -v -t 60 read 3 > "$KPT_TMP/read"
reader=$KPT_BG
sleep 1
kill -0 "$reader" 2>/dev/null || fail "blocking read returned with nothing recorded: $(cat "$KPT_TMP/read")"
kpt_call 3
wait "$reader" || fail "kpt_read read 3 failed"
sed 's/^/#   /' "$KPT_TMP/read"
assert_match "blocking read" "$(grep '^summary' "$KPT_TMP/read")" \
	'^summary records=3 entry=3 return=0 lost=0 .* unknown=0 bad=0 seq_errors=0 '
i=1
grep '^rec ' "$KPT_TMP/read" > "$KPT_TMP/recs"
while [ $i -le 3 ]; do
	assert_match "record $i" "$(sed -n "${i}p" "$KPT_TMP/recs")" \
		"type=entry .* nargs=6 nstack=[1-4] args=0x$i,0x1111,0x2222,0x3333,0x4444,0x5555\$"
	i=$((i + 1))
done

# poll wakes up when a record comes.
kpt_bg "$KPT_READ" poll 30000 > "$KPT_TMP/poll"
poller=$KPT_BG
sleep 1
kill -0 "$poller" 2>/dev/null || fail "poll returned with nothing recorded: $(cat "$KPT_TMP/poll")"
kpt_call 1
wait "$poller"
assert_match "poll woken by a record" "$(cat "$KPT_TMP/poll")" '^poll POLLIN'
assert_match "poll with a record pending" "$("$KPT_READ" poll 0)" '^poll POLLIN'
assert_eq "0-byte read with a record pending" "$("$KPT_READ" zero)" "zero read=0"

# A buffer too small for the next record: EINVAL, and nothing is lost.
out=$("$KPT_READ" small)
echo "$out" | sed 's/^/# /'
assert_eq "8-byte read" "$(echo "$out" | sed -n 1p)" "small EINVAL"
assert_eq "read after the 8-byte read" "$(echo "$out" | sed -n 2p)" "small next=ok records=1"
assert_eq "non-blocking read when empty again" "$("$KPT_READ" nonblock)" "nonblock EAGAIN"
assert_eq "stats read" "$(kpt_stat read)" 4
assert_eq "stats pending" "$(kpt_stat pending)" 0

# Permissions.
assert_eq "mode of $KPT_DEV" "$(ls -l "$KPT_DEV" | cut -c1-10)" "crw-------"
assert_eq "open as uid 65534" "$("$KPT_READ" perm)" "perm errno=EACCES"
chmod 0666 "$KPT_DEV" || fail "chmod $KPT_DEV"
assert_eq "open as uid 65534, mode 0666" "$("$KPT_READ" perm)" "perm errno=EPERM"
chmod 0600 "$KPT_DEV"
assert_eq "open as root without CAP_SYS_ADMIN, CAP_PERFMON" \
	"$("$KPT_READ" nocap)" "nocap errno=EPERM"

# Every record wakes a poller, however its commit races with the poller
# going to sleep (the writer tests for a sleeping reader without a barrier;
# ring.c's timer net wakes what it misses): 300 rounds of one call from
# another CPU while this one polls, each woken well within poll's 2 s.
out=$("$KPT_READ" pingpong 300 "$KPT_TEST_DIR/call")
info "$out"
assert_match "pingpong" "$out" '^pingpong rounds=300 woken=300 late=0 min_ms=[0-9]+ max_ms=[0-9]+$'

# The net alone: with wake_net_only=1 no writer wakes a reader, so each of
# these wake-ups is the net's. The net looks once, KPT_WAKE_NET (2 jiffies
# of Debian's HZ=250: 4 to 8 ms) after the poll armed it, for what raced
# with the arming: the call comes 1 ms after the poll began. A call that
# the host's load delays past 3 ms after the poll began (its record's
# time says) may come after that one look, which nothing follows then:
# such a round is "after", not late. Every other round must be woken, and
# at least half the rounds must be of those.
kpt_unload
kpt_load name=kpt_test_func wake_net_only=1
out=$("$KPT_READ" pingpong 30 "$KPT_TEST_DIR/call" 1 3)
info "wake_net_only=1: $out"
assert_match "pingpong, the net alone" "$out" '^pingpong rounds=30 woken=[0-9]+ late=0 min_ms=[0-9]+ max_ms=[0-9]+ after=[0-9]+$'
after=$(echo "$out" | sed 's/.* after=//')
assert_ge "pingpong, the net alone: rounds the net had to catch" $((30 - after)) 15
info "/dev/kptrace as in the contract"
