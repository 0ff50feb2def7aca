#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the kptrace reader prints known calls as text: arguments,
#   call trace with symbols, returns; -n, -p and -c; and one clear sentence
#   when the module is not loaded
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# - kptrace without the module: exit status 1, nothing on stdout, one line
#   on stderr saying the module is not loaded;
# - name=kpt_test_func retprobe=1 args=6 stack=4, 3 calls, `kptrace -q -n 6`
#   prints exactly 3 entry/return pairs, in order:
#     "<comm>-<tid> [000] <s>.<us>: kpt_test_func: arg0=0x<i> arg1=0x1111
#      ... arg5=0x5555", " Call Trace:",
#     "  [<16 hex digits>] kpt_test_func+0x0/0x<size> [kpt_test]",
#     "  [<...>] kpt_test_call_loop+0x<off>/0x<size> [kpt_test]", ...,
#     "<comm>-<tid> [000] <s>.<us>: kpt_test_func: ret=-<i> lat_ns=<n>"
#   and exits by itself (-n);
# - -n 2 prints exactly 2 events;
# - -p PID keeps only the 2 calls of process PID among those of two
#   processes; -c COMM only those of the process whose comm is COMM.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load

# Not loaded.
"$KPTRACE" -n 1 > "$KPT_TMP/out" 2> "$KPT_TMP/err"
rc=$?
sed 's/^/#   stderr: /' "$KPT_TMP/err"
assert_eq "exit status without the module" "$rc" 1
assert_eq "stdout without the module" "$(wc -c < "$KPT_TMP/out")" 0
assert_eq "stderr lines without the module" "$(grep -c '' "$KPT_TMP/err")" 1
grep -Eqi 'not loaded|module loaded\?' "$KPT_TMP/err" ||
	fail "the message does not say that the module is not loaded: $(cat "$KPT_TMP/err")"

kpt_load name=kpt_test_func retprobe=1 args=6 stack=4
kpt_call 3
timeout 30 "$KPTRACE" -q -n 6 > "$KPT_TMP/out" 2> "$KPT_TMP/err" ||
	fail "kptrace -q -n 6 failed or hung: $(cat "$KPT_TMP/err")"
sed 's/^/#   /' "$KPT_TMP/out"
assert_eq "stderr with -q" "$(cat "$KPT_TMP/err")" ""
CPU='\[000\]'
command -v taskset >/dev/null 2>&1 || CPU='\[[0-9]{3}\]'
HEAD='^[^ ]+-[0-9]+ '"$CPU"' [0-9]+\.[0-9]{6}: kpt_test_func: '
ADDR='  \[<[0-9a-f]{16}>\] '
awk '/^[^ ]/ { print }' "$KPT_TMP/out" > "$KPT_TMP/events"
assert_eq "events printed" "$(grep -c '' "$KPT_TMP/events")" 6
i=1
while [ $i -le 3 ]; do
	assert_match "entry $i" "$(sed -n "$((2 * i - 1))p" "$KPT_TMP/events")" \
		"${HEAD}arg0=0x$i arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555\$"
	assert_match "return $i" "$(sed -n "$((2 * i))p" "$KPT_TMP/events")" \
		"${HEAD}ret=-$i lat_ns=[0-9]+\$"
	i=$((i + 1))
done
# The first event's call trace.
sed -n '2,/^[^ ]/p' "$KPT_TMP/out" | grep '^ ' > "$KPT_TMP/trace1"
assert_eq "call trace header" "$(sed -n 1p "$KPT_TMP/trace1")" " Call Trace:"
assert_match "frame 1" "$(sed -n 2p "$KPT_TMP/trace1")" \
	"^${ADDR}kpt_test_func\\+0x(0|4)/0x[0-9a-f]+ \\[kpt_test\\]\$"
assert_match "frame 2" "$(sed -n 3p "$KPT_TMP/trace1")" \
	"^${ADDR}kpt_test_call_loop\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[kpt_test\\]\$"
frames=$(grep -c '^  \[<' "$KPT_TMP/trace1")
[ "$frames" -ge 2 ] && [ "$frames" -le 4 ] || fail "stack=4 gave $frames frames"

# -n 2
kpt_call 3
timeout 30 "$KPTRACE" -q -n 2 --no-stack > "$KPT_TMP/out" 2>&1 ||
	fail "kptrace -n 2 failed or hung: $(cat "$KPT_TMP/out")"
sed 's/^/#   /' "$KPT_TMP/out"
assert_eq "events with -n 2" "$(grep -c '' "$KPT_TMP/out")" 2
assert_match "-n 2, first" "$(sed -n 1p "$KPT_TMP/out")" "${HEAD}arg0=0x1 "
assert_match "-n 2, second" "$(sed -n 2p "$KPT_TMP/out")" "${HEAD}ret=-1 "
kpt_unload

# -p and -c: two processes, 2 calls each; the second renames itself.
kpt_load name=kpt_test_func args=1 stack=0
pid1=$(sh -c 'echo $$; echo 2 > '"$KPT_TEST_DIR/call")
pid2=$(sh -c 'echo $$; printf kptcaller > /proc/self/comm; echo 2 > '"$KPT_TEST_DIR/call")
info "callers: $pid1 (sh), $pid2 (kptcaller)"
timeout 30 "$KPTRACE" -q -p "$pid1" -d 2 > "$KPT_TMP/p" 2>&1 ||
	fail "kptrace -p failed: $(cat "$KPT_TMP/p")"
sed 's/^/#   -p: /' "$KPT_TMP/p"
assert_eq "events with -p $pid1" "$(grep -c '' "$KPT_TMP/p")" 2
assert_eq "events of $pid1 with -p $pid1" "$(grep -c "^[^ ]*-$pid1 " "$KPT_TMP/p")" 2

kpt_unload
kpt_load name=kpt_test_func args=1 stack=0
sh -c 'echo 2 > '"$KPT_TEST_DIR/call"
sh -c 'printf kptcaller > /proc/self/comm; echo 2 > '"$KPT_TEST_DIR/call"
timeout 30 "$KPTRACE" -q -c kptcaller -d 2 > "$KPT_TMP/c" 2>&1 ||
	fail "kptrace -c failed: $(cat "$KPT_TMP/c")"
sed 's/^/#   -c: /' "$KPT_TMP/c"
assert_eq "events with -c kptcaller" "$(grep -c '' "$KPT_TMP/c")" 2
assert_eq "events of kptcaller" "$(grep -c '^kptcaller-[0-9]* ' "$KPT_TMP/c")" 2
info "kptrace text output as expected"
