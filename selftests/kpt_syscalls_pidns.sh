#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the syscalls probe written from a pid namespace (a tool in
#   a container): pid=, tid=, children= and exclude= are the writer's
#   numbers, which the module makes global
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_sysgen,
#   helpers/kpt_spec, busybox unshare
# timeout: 200
#
# - `unshare -pf --mount-proc kptrace syscalls -j -e getppid -- kpt_sysgen
#   sleep:1500 getppid:3`, while a kpt_sysgen outside the namespace makes
#   5 getppid calls: exactly the command's 3 lines, all of one process.
#   The tool is pid 1 there: its children=1 read as a global number would
#   be init's descendants, every process, and count the 5 too.
# - a spec written from a namespace with tid= of a sleep there (its pid 2
#   there): the probes listing shows the sleep's global pid.
# - pid= naming no process of the writer's namespace: ESRCH, one
#   error_log entry that says so; nothing added. A name that exists is
#   EEXIST first, as for every probe.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_kpt_sysgen
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
require_kpt_spec
command -v unshare > /dev/null || fail "no unshare (busybox's) in the guest"
# the one skip: a kernel without pid namespaces (CONFIG_PID_NS=n)
[ -e /proc/self/ns/pid ] || skip "this kernel has no pid namespaces"
kpt_load

# wait_listed RE LOG: until a probe line matches RE (10 s; then LOG says why)
wait_listed()
{
	_i=0
	while ! grep -q "$1" "$KPT_DIR/probes" 2> /dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 200 ] || fail "no probe $1 listed: $(cat "$2")"
		sleep 0.05
	done
}

# 1. a COMMAND traced from inside a pid namespace
sysgen_start getppid:5
unshare -p -f --mount-proc "$KPTRACE" syscalls -o /dev/stdout -j -e getppid -- \
	"$SYSGEN" sleep:1500 getppid:3 > "$KPT_TMP/ns.json" \
	2> "$KPT_TMP/ns.err" &
TOOL=$!
wait_listed "^s:" "$KPT_TMP/ns.err"
# the tool: unshare's child, pid 1 in the namespace
GTOOL=$(for d in /proc/[0-9]*; do
	awk -v t="$TOOL" '$4 == t { print $1 }' "$d/stat" 2> /dev/null
done)
check_match "the tool's global pid" "$GTOOL" '^[0-9]+$'
check_eq "the probe's children= is the tool's global pid, not 1" \
	"$(sed -n 's/^s:kptrace\/sys_1 children=\([0-9]*\) .*/\1/p' "$KPT_DIR/probes")" \
	"$GTOOL"
sysgen_go
wait "$TOOL"
check_eq "the tool's exit status (the command's)" "$?" 0
check_eq "getppid lines: the command's 3, not the 5 outside" \
	"$(grep -c '"syscall":"getppid"' "$KPT_TMP/ns.json")" 3
# its 3 calls and its exit ({"type":"exit",...}), all under one pid
check_eq "all of kpt_sysgen, one process" \
	"$(sed -n 's/.*"comm":"\([^"]*\)","pid":\([0-9]*\),.*/\1 \2/p' \
		"$KPT_TMP/ns.json" | sort -u | wc -l) $(grep -c '"comm":"kpt_sysgen"' "$KPT_TMP/ns.json")" \
	"1 4"
check_eq "nothing left armed" "$(cat "$KPT_DIR/probes")" ""

# 2. tid= of a process of the namespace: its global pid in the listing
unshare -p -f sh -c "sleep 4242 & \"$KPT_SPEC\" write \"s:kptrace/nsx tid=\$!\"; wait" \
	> "$KPT_TMP/nsx.out" 2>&1 &
NS=$!
wait_listed "^s:kptrace/nsx" "$KPT_TMP/nsx.out"
SLEEP=
for d in /proc/[0-9]*; do
	[ "$(tr '\0' ' ' 2> /dev/null < "$d/cmdline")" = "sleep 4242 " ] &&
		SLEEP=${d#/proc/}
done
check_eq "the write's result" "$(cat "$KPT_TMP/nsx.out")" ok
check_match "the sleep's global pid" "$SLEEP" '^[0-9]+$'
check_match "the listing's tid= is the sleep's global pid" \
	"$(grep '^s:kptrace/nsx' "$KPT_DIR/probes")" "^s:kptrace/nsx tid=$SLEEP "
[ -n "$SLEEP" ] && kill "$SLEEP"
wait "$NS"
spec_write "-:nsx" > /dev/null

# 3. a pid the writer's namespace has not: ESRCH, said once
check_eq "pid= of no process there" \
	"$(unshare -p -f "$KPT_SPEC" write 's:kptrace/nsy pid=4242')" "errno=ESRCH"
check_eq "error_log names the namespace" "$(spec_err_last | head -n 1 |
	sed 's/^\[[^]]*\] //')" \
	"kptrace: error: pid=, tid=, children= or exclude= names no process of the writer's pid namespace (-3)"
check_eq "nothing added" "$(cat "$KPT_DIR/probes")" ""
# the name's check comes first, as for every probe: EEXIST, not ESRCH
spec_write 's:kptrace/nsz pid=1' > /dev/null
check_eq "an existing name from the namespace" \
	"$(unshare -p -f "$KPT_SPEC" write 's:kptrace/nsz pid=4242')" "errno=EEXIST"
spec_write "-:nsz" > /dev/null
check_eq "nothing left" "$(cat "$KPT_DIR/probes")" ""
kpt_stats_check
spec_finish "pid=, tid=, children= from a pid namespace made global; unknown ones refused"
