#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: 5000 threads parked in selected blocking calls each hold
#   one of the s probe's return instances; the calls made beside them
#   miss none (issue #35: the pool was capped at 4096)
# requires: root, debugfs, kptrace.ko, helpers/kpt_spec, helpers/kpt_sysgen
# timeout: 300
#
# kpt_sysgen park:T:MS starts T threads that each sit in one futex or
# nanosleep call (MS = 10 minutes), the main thread in pause(). One probe,
# "s:pk comm=kpt_sysgen" (the default MAXACTIVE: as many instances as
# 16 MiB of call data hold, 28339 of 592 bytes), selects them all and a
# second kpt_sysgen beside them that makes 100 getppid() calls:
# - once the T + 1 calls are in flight (calls - events), maxactive_missed
#   is 0;
# - the 100 getppid() are recorded, exactly, the probe's records of them
#   all there, none lost, maxactive_missed still 0 and the T + 1 calls
#   still in flight;
# - the probe's memory (mem= of the probes file) is within mem_max_mb;
# - a probe whose MAXACTIVE is too small for them (s100) misses what it
#   should: 100 parked calls hold its 100 instances (5.10's tracepoints:
#   its table's 256 slots), and the 100 getppid() beside them find none:
#   none recorded, 100 (256) in flight still.
#
#	KPT_SYS_PARK_THREADS	parked threads (default 5000; 20000 fits too)

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_park_lib.sh"
kpt_setup
require_kpt_spec
require_kpt_sysgen

THREADS=${KPT_SYS_PARK_THREADS:-5000}
PARK_MS=600000

kpt_load

# getppids N: a kpt_sysgen beside the parked ones makes N getppid()
getppids()
{
	"$SYSGEN" "getppid:$1" > /dev/null || fail "kpt_sysgen getppid:$1"
}

# getppid_records ID: probe ID's records of getppid() (nr 110)
getppid_records()
{
	"$KPT_SPEC" dump > "$KPT_TMP/dump" || fail "kpt_spec dump"
	grep -c "^return id=$1 comm=kpt_sysgen .* a0=0x6e " "$KPT_TMP/dump"
}

CASE=default
spec_add "s:pk comm=kpt_sysgen"
pk_id=$(spec_field pk id)
parkers p1 "$THREADS" "$PARK_MS"
go p1
parked p1 "$THREADS"
wait_held pk $((THREADS + 1))
books pk
info "$THREADS parked: pk $BOOKS"
check_eq "parked: maxactive_missed" "$AMISSED" 0
# what was recorded so far: the parkers' calls that returned
"$KPT_SPEC" dump > /dev/null || fail "kpt_spec dump"
getppids 100
check_eq "beside: getppid() recorded" "$(getppid_records "$pk_id")" 100
books pk
info "after 100 getppid(): pk $BOOKS"
check_eq "beside: maxactive_missed" "$AMISSED" 0
check_eq "beside: lost" "$LOST" 0
check_eq "beside: still in flight" $((CALLS - EVENTS)) $((THREADS + 1))
mem=$(awk '$1 == "mem_used_bytes" { print $2 }' "$KPT_DIR/stats")
max=$(awk '$1 == "mem_max_bytes" { print $2 }' "$KPT_DIR/stats")
info "memory: $mem bytes used, mem_max_mb: $max bytes"
[ -n "$mem" ] && [ "$mem" -gt $((THREADS * 592)) ] && [ "$mem" -le "$max" ] ||
	check_fail "memory used '$mem' not what $THREADS instances take, within mem_max_mb ($max)"
spec_add "-:pk"
cleanup

# a pool too small: the 100 getppid() find no instance
CASE=small
spec_add "s100:ps comm=kpt_sysgen"
ps_id=$(spec_field ps id)
parkers p2 "$THREADS" "$PARK_MS"
go p2
parked p2 "$THREADS"
# every parked thread in its call (the rest of its calls, and 5000 of
# these, missed: their count is not the test's)
_i=0
until [ "$(in_calls "$PK")" = "$THREADS" ]; do
	_i=$((_i + 1))
	[ $_i -le 600 ] || fail "s100: $(in_calls "$PK") of $THREADS threads in their calls after 60 s"
	sleep 0.1
done
"$KPT_SPEC" dump > /dev/null || fail "kpt_spec dump"
getppids 100
books ps
info "s100: ps $BOOKS"
check_eq "s100: getppid() recorded" "$(getppid_records "$ps_id")" 0
# MAXACTIVE 100: 100 instances; on the tracepoints' way (5.10) a table of
# twice as many slots, in buckets of 16, rounded up: 16 x 16 = 256
held=100
! spec_line ps | grep -q raw_syscalls || held=256
check_eq "s100: in flight" $((CALLS - EVENTS)) "$held"
spec_add "-:ps"
cleanup

kpt_unload
[ "$SPEC_FAILS" = 0 ] || fail "$SPEC_FAILS check(s) failed (see the FAIL lines above)"
info "$THREADS parked calls held, none of the calls beside them missed"
