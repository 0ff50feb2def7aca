#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a session or an add that cannot be is refused with its
#   errno (and one log line for a session), the add's answer in the call;
#   a refusal changes nothing
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# KPT_IOC_SESSION (kpt_read session_errors): a read-only descriptor EBADF,
# unknown flags EINVAL, clock 3 EINVAL, a reserved field EINVAL,
# ring_bytes 512 and 2^31 EINVAL, a second one on the file EEXIST, one
# after a read EBUSY, a good one ok. With mem_max_mb=8: a session of 8 MiB
# rings a CPU is E2BIG with one log line naming mem_max_mb; sessions of
# 64 KiB rings are made until refused: all that fit in mem_max_mb with
# their files' 64 KiB buffers (8 MiB / (CPUs x 64 KiB + 64 KiB), less at
# most 2 for the rest a session takes), and E2BIG (with mem_max_mb=2048 and 1 KiB rings: KPT_MAX_SESSIONS of them,
# then EMFILE). KPT_IOC_ADD (kpt_read -e): a bad register is EINVAL at
# its column, with the parser's message; the same name twice in one
# session EEXIST; a probe whose records cannot fit a 1 KiB ring (stack=64
# of the module) EINVAL. 40 rounds of an add racing KPT_IOC_SESSION on
# one file (kpt_read race): each either made the session with the probe
# its own, or refused it (EBUSY) with the probe the default session's;
# none misrouted (a session made, its probe in the default session).
# 20 rounds of a read and a write as the first uses of a file becoming a
# session (kpt_read firstuse): the write comes back within 2 s though the
# read blocks for records that never come.
# After each refusal the sessions file has the default session's line
# only, and the module unloads.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
kpt_test_load

kpt_load
"$KPT_READ" session_errors > "$KPT_TMP/e" || fail "session_errors failed"
sed 's/^/#   /' "$KPT_TMP/e"
assert_eq "session refusals" "$(tr '\n' ' ' < "$KPT_TMP/e")" \
	"case readonly err=EBADF case flags err=EINVAL case clock err=EINVAL case reserved err=EINVAL case small err=EINVAL case large err=EINVAL case first err=ok case twice err=EEXIST case read_first err=EAGAIN case after_read err=EBUSY "
kpt_wait_sessions 1

# an add's answer, in the call
out=$("$KPT_READ" -S -e 'p:a kpt_test_func %zz' drain)
assert_eq "bad register" "$(echo "$out" | grep '^add ')" \
	"add err=EINVAL pos=18 msg=unknown register"
out=$("$KPT_READ" -S -e 'p:a kpt_test_func' -e 'p:a kpt_test_func' drain)
assert_eq "a name twice in one session" "$(echo "$out" | grep '^add ' | tail -n 1)" \
	"add err=EEXIST pos=-1 msg=a probe of that name exists"
out=$("$KPT_READ" -S -e 'p:a kpt_test_func x=$arg1:u32' drain)
assert_match "canonical spec" "$(echo "$out" | grep '^add ')" \
	'^add id=[0-9]+ spec=p:kptrace/a kpt_test_func x=\$arg1:u32$'
kpt_wait_sessions 1

# an add racing KPT_IOC_SESSION on one file: the session's, or refused
out=$("$KPT_READ" -b 16777216 -e 'p:race kpt_test_func' race 40)
info "$out"
assert_eq "adds misrouted while the file became a session" \
	"$(kpt_field misrouted "$out")" 0
assert_eq "rounds either way" \
	$(($(kpt_field session "$out") + $(kpt_field busy "$out"))) 40
kpt_wait_sessions 1
assert_eq "probes left by the race" "$(grep -c '' "$KPT_DIR/probes")" 0

# a first use waiting for a switch never waits behind a blocking read
out=$("$KPT_READ" -b 16777216 firstuse 20)
info "$out"
assert_eq "writes stuck behind a read while the file became a session" \
	"$(kpt_field stuck "$out")" 0
kpt_wait_sessions 1
kpt_unload

kpt_load mem_max_mb=8 stack=64
kpt_mark
out=$("$KPT_READ" -S -b 8388608 drain)
assert_eq "8 MiB rings past mem_max_mb=8" "$(echo "$out" | head -n 1)" "session err=E2BIG"
assert_eq "its log lines" "$(kpt_log_kptrace | grep -c 'mem_max_mb')" 1
out=$("$KPT_READ" -S -b 1024 -e 'p:a kpt_test_func' drain)
assert_eq "records larger than a 1 KiB ring" "$(echo "$out" | grep '^add ' | cut -d' ' -f1-3)" \
	"add err=EINVAL pos=-1"
out=$("$KPT_READ" -b 65536 maxsessions)
made=$(kpt_field made "$out")
assert_eq "64 KiB sessions in mem_max_mb=8: refusal" "$(kpt_field err "$out")" E2BIG
cpus=$(kpt_nr_possible_cpus)
info "$made sessions of 64 KiB rings on $cpus CPUs in 8 MiB"
# each takes its rings, its file's 64 KiB buffer and a little more:
# never more than fit, and nearly that many
fit=$((8192 / (cpus * 64 + 64)))
[ "$made" -le "$fit" ] && [ "$made" -ge $((fit - 2)) ] ||
	fail "$made sessions of 64 KiB x $cpus CPUs made in mem_max_mb=8 (at most $fit fit)"
kpt_wait_sessions 1
kpt_unload

kpt_load mem_max_mb=2048
out=$("$KPT_READ" -b 1024 maxsessions)
assert_eq "sessions at most" "$out" "maxsessions made=1024 err=EMFILE"
kpt_wait_sessions 1
kpt_unload
info "every refusal as it should be"
