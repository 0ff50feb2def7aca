#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the syscalls probe (s): a kretprobe on x64_sys_call that
#   selects in its entry handler; each selection keeps exactly the calls it
#   should, with arguments, path strings, return value and duration
# requires: root, debugfs, kptrace.ko, helpers/kpt_spec, helpers/kpt_sysgen
# timeout: 240
#
# kpt_sysgen makes calls in exact numbers (getppid = nr 110, a failing
# openat = 257, nanosleep = 35, exit_group = 231); started with -w it
# waits on a FIFO, so its pid is known before the probe is armed, and
# the probe sees none of its calls before.
# - attach: "s:sa nr=110" arms on x64_sys_call where kallsyms has it,
#   else on the raw_syscalls tracepoints; the probes line names which.
# - pid=: getppid:5 -> exactly 5 return records nr=110 ret=$$ (its
#   parent), args 9, both string slots unused.
# - failure + a path: fail:3 getppid:4 with "pid=P failure nr=110,257"
#   -> exactly 3 records nr=257 ret=-2, arg1's string "/nonexistent/kpt"
#   in slot 7 (flags u, a2), slot 8 unused.
# - duration=: getppid:3 sleep:300 with duration=100 ms -> exactly one
#   record, nr=35 ret=0 lat_ns >= 300 ms less the clock's tolerance.
# - tid= and pid= with threads: getppid:2 threads:4:3 -> tid=P 2 records,
#   pid=P 14.
# - comm=: getppid:7 -> "comm=kpt_sysg*" 7, "comm=nomatch*" none (every
#   call it saw filtered).
# - comm= across a rename (prctl(PR_SET_NAME), each probe's verdict kept
#   per CPU for the last comm seen): getppid:3 rename:1 getppid:4
#   rename:0 getppid:2 -> "comm=kpt_sysg*" 5, "comm=kpt_rn*" 4; the same
#   with rename:1000 ("kpt_sysg1000", kpt_sysgen's first 8 bytes) ->
#   "comm=kpt_sysgen" 5.
# - exclude=P with comm=kpt_sysg*: P's getppid:3 left out, another
#   kpt_sysgen's getppid:2 in.
# - children=$$: getppid:2 fork:3 -> 5: 2 returning $$, 3 returning P.
# - cgroup= (a cgroup v2 directory made here, P moved into it before it
#   runs): getppid:4 fork:2 -> 6 (children inherit the cgroup).
# - exit_group and execve, children=$$ nr=59,231: a child shell execs
#   kpt_sysgen exit:7 -> one return record of execve (ret 0, the path in
#   slot 7, the new comm kpt_sysgen) and one entry record nr=231 arg0=7;
#   the books show calls = events.
# - execve from a thread (texec:3, pid=P nr=59,110): the thread takes the
#   leader's pid (and, on 5.10, its start time, where the tracepoints' way
#   finds its slot by the execve and the exec count) -> the execve's
#   return record (ret 0), then 3 getppid(); calls = events.
# - exit_group by pid= (the kprobe's out-of-line path, then pid=): P's
#   getppid:2 exit:5 beside another kpt_sysgen's exit:3 -> "pid=P nr=231"
#   one entry record arg0=5, "pid=P nr=110" 2 records and no exit_group.
# - a number the table leaves unused (nosys:3, number 400, -ENOSYS) with
#   getppid:2 -> "pid=P" 3 records ret=-38, "pid=P nr=110" 2.
# - an untraced call keeps no instance: with s4 (four instances), 8
#   sleep(1)s started after arming and unselected, getppid:5 of
#   kpt_sysgen -> 5 records and maxactive_missed=0.
# - summary=64: fail:3 getppid:5 -> KPT_IOC_SYSSUM gives getppid calls=5
#   errors=0, openat calls=3 errors=3, exit_group 1, no record, and an
#   empty next interval; recorded = the calls counted; ENOENT for a
#   probe without summary.
# - the books: every probe's calls = events (nothing in flight) and
#   events = filtered + recorded + lost, and the rings' books agree.
# - bad specs: EINVAL and one error_log line each, nothing added.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_kpt_sysgen

kpt_load
r=$(spec_write 's:sa nr=110')
check_eq "s:sa added" "$r" ok
# x64_sys_call where the kernel has it (6.1.85+, 6.9+), else the
# raw_syscalls tracepoints (Debian 11's 5.10)
if grep -qw x64_sys_call /proc/kallsyms; then
	# (+0x4 past an endbr64; from 6.15 ftrace's kprobe_events refuses
	# x64_sys_call, so kpt_entry_off cannot say)
	at="x64_sys_call\\+0x[04]/0x[0-9a-f]+ kretprobe $SPEC_MODE"
else
	at="raw_syscalls:sys_enter/sys_exit tracepoint enabled"
fi
check_match "sa probes line" "$(spec_line sa)" \
	"^s:kptrace/sa nr=110 # id=[0-9]+ at=$at hits=[0-9]+ missed=0\$"

# records NAME: the pending records of probe NAME (slots 7 and 8 as
# strings), from a dump of every pending record into $KPT_TMP/dump.
records()
{
	"$KPT_SPEC" dump 7,8 > "$KPT_TMP/dump" || fail "kpt_spec dump"
	cat "$KPT_TMP/dump" >> "$KPT_TMP/all"
	grep "^[a-z]* id=$(spec_field "$1" id) " "$KPT_TMP/dump"
}

# no id, no lat: "return comm=C ret=R nargs=9 a0=.. s7=.. s8=.."
strip() { sed -E 's/ id=[0-9]+//; s/ lat_ns=[0-9]+//'; }

# books NAME: "calls events filtered recorded" of NAME, from one read of
# probe_stats (the counters move while other tasks make calls)
books()
{
	awk -v n="$1" '$1 == n && $2 !~ /^cpu[0-9]+$/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["calls"], v["events"], v["filtered"], v["recorded"] }' \
		"$KPT_DIR/probe_stats"
}

"$KPT_SPEC" dump 7,8 > "$KPT_TMP/all"

# pid=
sysgen_start getppid:5
spec_add "s:sp pid=$SG nr=110"
sysgen_go
records sp > "$KPT_TMP/sp"
sed 's/^/#   /' "$KPT_TMP/sp"
check_eq "pid= records" "$(grep -c '' "$KPT_TMP/sp")" 5
check_eq "pid= record shape" \
	"$(strip < "$KPT_TMP/sp" | sed -E 's/ a[1-6]=0x[0-9a-f]+//g' | sort -u)" \
	"return comm=kpt_sysgen ret=$$ nargs=9 a0=0x6e s7=-:0: s8=-:0:"

# failure, and a path string
sysgen_start fail:3 getppid:4
spec_add "s:sf pid=$SG failure nr=110,257"
sysgen_go
records sf > "$KPT_TMP/sf"
sed 's/^/#   /' "$KPT_TMP/sf"
check_eq "failure records" "$(grep -c '' "$KPT_TMP/sf")" 3
check_eq "failure record shape" \
	"$(strip < "$KPT_TMP/sf" | sed -E 's/ a[24-6]=0x[0-9a-f]+//g' | sort -u)" \
	"return comm=kpt_sysgen ret=-2 nargs=9 a0=0x101 a1=0xffffff9c a3=0x0 s7=ua2:16:/nonexistent/kpt s8=-:0:"
check_eq "sf str_fault" "$(spec_stat sf str_fault)" 0

# a number the table leaves unused (400, -ENOSYS from the dispatcher):
# selected when nr= is not given, not when it is
sysgen_start nosys:3 getppid:2
spec_add "s:su pid=$SG"
spec_add "s:sun pid=$SG nr=110"
sysgen_go
records su > "$KPT_TMP/su"
check_eq "number 400 records" "$(grep -c ' a0=0x190 ' "$KPT_TMP/su")" 3
check_eq "number 400 record shape" \
	"$(strip < "$KPT_TMP/su" | grep ' a0=0x190 ' |
	   sed -E 's/ a[1-6]=0x[0-9a-f]+//g' | sort -u)" \
	"return comm=kpt_sysgen ret=-38 nargs=9 a0=0x190 s7=-:0: s8=-:0:"
check_eq "nr=110 records beside number 400" \
	"$(grep -c "^return id=$(spec_field sun id) " "$KPT_TMP/dump")" 2
spec_add '-:su'
spec_add '-:sun'

# duration=
sysgen_start getppid:3 sleep:300
spec_add "s:sd pid=$SG duration=100000000 nr=35,110"
sysgen_go
records sd > "$KPT_TMP/sd"
sed 's/^/#   /' "$KPT_TMP/sd"
check_eq "duration= records" "$(grep -c '' "$KPT_TMP/sd")" 1
check_match "duration= record" "$(cat "$KPT_TMP/sd")" \
	"^return id=[0-9]+ comm=kpt_sysgen ret=0 lat_ns=[0-9]+ nargs=9 a0=0x23 "
lat=$(sed -En 's/.* lat_ns=([0-9]+) .*/\1/p' "$KPT_TMP/sd")
[ "${lat:-0}" -ge 299000000 ] ||
	check_fail "nanosleep(300 ms) took lat_ns=$lat"

# tid= and pid= with threads
sysgen_start getppid:2 threads:4:3
spec_add "s:st tid=$SG nr=110"
spec_add "s:spt pid=$SG nr=110"
sysgen_go
records st > "$KPT_TMP/st"
check_eq "tid= records" "$(grep -c '' "$KPT_TMP/st")" 2
check_eq "pid= records, 4 threads" \
	"$(grep -c "^return id=$(spec_field spt id) " "$KPT_TMP/dump")" 14

# comm=
spec_add 's:sc comm=kpt_sysg* nr=110'
spec_add 's:sn comm=nomatch* nr=110'
"$SYSGEN" getppid:7 || fail "kpt_sysgen getppid:7"
records sc > "$KPT_TMP/sc"
check_eq "comm= records" "$(grep -c '' "$KPT_TMP/sc")" 7
check_eq "comm= non-matching records" \
	"$(grep -c "^return id=$(spec_field sn id) " "$KPT_TMP/dump")" 0
set -- $(books sn)
check_eq "comm= non-matching: all filtered, none recorded" \
	"$1 $2 $4" "$3 $3 0"
spec_add '-:sn'

# comm= follows the comm, not the task: renamed and back mid-run
spec_add 's:sr comm=kpt_rn* nr=110'
"$SYSGEN" getppid:3 rename:1 getppid:4 rename:0 getppid:2 ||
	fail "kpt_sysgen rename"
records sc > "$KPT_TMP/sc"
check_eq "comm= records, renamed away and back" \
	"$(grep -c '' "$KPT_TMP/sc")" 5
check_eq "comm= records of the new name" \
	"$(grep -c "^return id=$(spec_field sr id) " "$KPT_TMP/dump")" 4
spec_add '-:sc'
spec_add '-:sr'
# ... and by all 16 bytes: a name that keeps the first 8 is another comm
spec_add 's:sx comm=kpt_sysgen nr=110'
"$SYSGEN" getppid:3 rename:1000 getppid:4 rename:0 getppid:2 ||
	fail "kpt_sysgen rename"
check_eq "comm=kpt_sysgen records, renamed kpt_sysg1000 and back" \
	"$(records sx | grep -c '')" 5
spec_add '-:sx'

# exclude=: one process of that comm left out
sysgen_start getppid:3
spec_add "s:sxe comm=kpt_sysg* exclude=$SG nr=110"
sysgen_go
"$SYSGEN" getppid:2 || fail "kpt_sysgen getppid:2"
records sxe > "$KPT_TMP/sxe"
check_eq "exclude= records" "$(grep -c '' "$KPT_TMP/sxe")" 2
spec_add '-:sxe'

# children=
spec_add "s:sch children=$$ nr=110"
"$SYSGEN" getppid:2 fork:3 > "$KPT_TMP/pid" || fail "kpt_sysgen fork:3"
records sch > "$KPT_TMP/sch"
sed 's/^/#   /' "$KPT_TMP/sch"
check_eq "children= records" "$(grep -c '' "$KPT_TMP/sch")" 5
check_eq "children= returning \$\$" \
	"$(grep -c " ret=$$ " "$KPT_TMP/sch")" 2
spec_add '-:sch'

# cgroup=
cg=
if grep -q ' cgroup2 ' /proc/mounts; then
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
else
	mkdir -p "$KPT_TMP/cg" && mount -t cgroup2 none "$KPT_TMP/cg" &&
		cg=$KPT_TMP/cg
fi
[ -n "$cg" ] || fail "no cgroup v2 hierarchy (mount -t cgroup2 failed)"
mkdir "$cg/kpt_sys" || fail "mkdir $cg/kpt_sys"
id=$(stat -c %i "$cg/kpt_sys")
sysgen_start getppid:4 fork:2
echo "$SG" > "$cg/kpt_sys/cgroup.procs" || fail "moving $SG to $cg/kpt_sys"
spec_add "s:scg cgroup=$id nr=110"
sysgen_go
records scg > "$KPT_TMP/scg"
check_eq "cgroup= records" "$(grep -c '' "$KPT_TMP/scg")" 6
rmdir "$cg/kpt_sys" || check_fail "rmdir $cg/kpt_sys"
[ "$cg" = "$KPT_TMP/cg" ] && umount "$cg"
spec_add '-:scg'

# exit_group and execve
spec_add "s:sx children=$$ nr=59,231"
sh -c "exec $SYSGEN exit:7"
check_eq "exit:7's status" "$?" 7
records sx | grep ' comm=kpt_sysgen ' > "$KPT_TMP/sx"
sed 's/^/#   /' "$KPT_TMP/sx"
check_eq "execve/exit_group records" "$(grep -c '' "$KPT_TMP/sx")" 2
check_match "execve record" "$(grep '^return' "$KPT_TMP/sx")" \
	"^return id=[0-9]+ comm=kpt_sysgen ret=0 lat_ns=[0-9]+ nargs=9 a0=0x3b .* s7=ua1:${#SYSGEN}:$SYSGEN s8=-:0:\$"
check_match "exit_group record" "$(grep '^entry' "$KPT_TMP/sx")" \
	"^entry id=[0-9]+ comm=kpt_sysgen nargs=9 a0=0xe7 a1=0x7 "
# every call decided once: events = calls (nothing is in flight: the
# execve of the awk reading the books has returned; exit_group, decided
# at entry, was counted twice once)
set -- $(books sx)
check_eq "execve/exit_group books: calls events" "$1 $2" "$1 $1"
spec_add '-:sx'

# execve from a thread other than the leader: it takes the leader's pid
# (and, on 5.10's tracepoints, its start time); the call is recorded all
# the same, then the new image's 3 getppid(), and nothing stays in flight
sysgen_start texec:3
spec_add "s:sxt pid=$SG nr=59,110"
sysgen_go
records sxt | strip > "$KPT_TMP/sxt"
sed 's/^/#   /' "$KPT_TMP/sxt"
check_eq "thread execve records" "$(grep -c '' "$KPT_TMP/sxt")" 4
check_match "thread execve record" "$(head -n 1 "$KPT_TMP/sxt")" \
	"^return comm=kpt_sysgen ret=0 nargs=9 a0=0x3b "
check_eq "thread execve: then getppid" \
	"$(sed 1d "$KPT_TMP/sxt" | grep -c '^return comm=kpt_sysgen ret=[0-9]* nargs=9 a0=0x6e ')" 3
set -- $(books sxt)
check_eq "thread execve books: calls events" "$1 $2" "$1 $1"
spec_add '-:sxt'

# exit_group by pid=, beside another process's; and a probe without it
sysgen_start getppid:2 exit:5
spec_add "s:sxp pid=$SG nr=231"
spec_add "s:sxn pid=$SG nr=110"
"$SYSGEN" exit:3
check_eq "the other exit:3's status" "$?" 3
sysgen_go 5
records sxp > "$KPT_TMP/sxp"
sed 's/^/#   /' "$KPT_TMP/sxp"
check_eq "pid= exit_group records" "$(grep -c '' "$KPT_TMP/sxp")" 1
check_match "pid= exit_group record" "$(cat "$KPT_TMP/sxp")" \
	"^entry id=[0-9]+ comm=kpt_sysgen nargs=9 a0=0xe7 a1=0x5 "
check_eq "nr=110 records beside exit_group" \
	"$(grep -c "^[a-z]* id=$(spec_field sxn id) " "$KPT_TMP/dump")" 2
spec_add '-:sxp'
spec_add '-:sxn'

# an unselected call keeps no instance: 4 instances, 8 unselected
# sleeps in flight; a call's instance is only ever held by the traced
# call in flight and, for a moment, by a call on another CPU
spec_add 's4:sm comm=kpt_sysg* nr=35,110,230'
for i in 1 2 3 4 5 6 7 8; do sleep 1 & done
sleep 0.2
"$SYSGEN" getppid:5 || fail "kpt_sysgen getppid:5"
wait
records sm > "$KPT_TMP/sm"
check_eq "s4 records beside 8 unselected sleeps" \
	"$(grep -c '' "$KPT_TMP/sm")" 5
check_eq "s4 maxactive_missed" "$(spec_stat sm maxactive_missed)" 0
spec_add '-:sm'

# summary: counts by (process, call), no record; each read ends an
# interval
sysgen_start fail:3 getppid:5 sleep:40
spec_add "s:ss pid=$SG summary=64"
check_match "ss probes line" "$(spec_line ss)" "^s:kptrace/ss pid=$SG summary=64 # "
sysgen_go
"$KPT_SPEC" syssum ss > "$KPT_TMP/ss" || fail "kpt_spec syssum ss"
sed 's/^/#   /' "$KPT_TMP/ss"
# a row without its latency buckets
sum_row() {
	grep " nr=$1 " "$KPT_TMP/ss" | sed 's/ lat=.*//'
}
check_eq "summary: getppid" "$(sum_row 110)" \
	"pid=$SG nr=110 comm=kpt_sysgen calls=5 errors=0"
check_eq "summary: openat" "$(sum_row 257)" \
	"pid=$SG nr=257 comm=kpt_sysgen calls=3 errors=3"
check_eq "summary: nanosleep" "$(sum_row 35)" \
	"pid=$SG nr=35 comm=kpt_sysgen calls=1 errors=0"
check_eq "summary: exit_group" "$(sum_row 231)" \
	"pid=$SG nr=231 comm=kpt_sysgen calls=1 errors=0"
# the latency buckets: every call in one; 40 ms is in [2^25, 2^26) ns,
# bucket 16 (the timer's slack would have to pass 27 ms to leave it);
# exit_group, recorded at entry, takes 0 ns
check_eq "summary: nanosleep's bucket" "$(grep " nr=35 " "$KPT_TMP/ss" |
	sed 's/.* lat=//')" "16:1"
check_eq "summary: exit_group's bucket" "$(grep " nr=231 " "$KPT_TMP/ss" |
	sed 's/.* lat=//')" "0:1"
check_eq "summary: buckets = calls, every row" "$(awk '/^pid=/ {
	split($0, c, "calls="); split(c[2], n, " ")
	split($0, l, "lat="); k = split(l[2], b, ","); t = 0
	for (i = 1; i <= k; i++) { split(b[i], v, ":"); t += v[2] }
	if (t != n[1]) bad++ } END { print bad + 0 }' "$KPT_TMP/ss")" 0
check_eq "summary: full" "$(grep -c '^full=0 ' "$KPT_TMP/ss")" 1
counted=$(awk -F'calls=' '/^pid=/ { split($2, a, " "); n += a[1] } END { print n + 0 }' \
	"$KPT_TMP/ss")
check_eq "summary: records" "$(records ss | grep -c '')" 0
check_eq "summary: the next interval" "$("$KPT_SPEC" syssum ss)" \
	"full=0 entries=0"
set -- $(books ss)
check_eq "ss calls = events" "$1" "$2"
check_eq "ss recorded = counted" "$4" "$counted"
check_eq "ss summary_full" "$(spec_stat ss summary_full)" 0
check_eq "syssum of a probe without summary" "$("$KPT_SPEC" syssum sp)" \
	"errno=ENOENT"
spec_add '-:ss'

# the books of the probes left: no call of theirs in flight, and what
# they recorded is what was read
for n in sa sp sf sd st spt; do
	set -- $(books "$n")
	check_eq "$n calls = events" "$1" "$2"
	check_eq "$n recorded = records read" "$4" \
		"$(grep -c "^[a-z]* id=$(spec_field "$n" id) " "$KPT_TMP/all")"
done
check_eq "sp recorded" "$(spec_stat sp recorded)" 5
check_eq "spt recorded" "$(spec_stat spt recorded)" 14
"$KPT_SPEC" dump > /dev/null

# bad specs
spec_expect EINVAL 's nr=512'
check_eq "nr=512 error" "$(spec_err_last | sed -n 's/.*error: \(.*\) (-22)$/\1/p')" \
	"syscall numbers are 0 to 511, N-M with N <= M"
spec_expect EINVAL 's pid=0'
spec_expect EINVAL 's pid=1,2,3,4,5,6,7,8,9'
spec_expect EINVAL 's pid=1 pid=2'
spec_expect EINVAL 's comm=0123456789abcdef'
spec_expect EINVAL 's nr=5-3'
spec_expect EINVAL 's if nr == 1'
spec_expect EINVAL 's:sa2 x64_sys_call'
check_eq "probes after the refused specs" \
	"$(awk '{ print $1 }' "$KPT_DIR/probes" | tr '\n' ' ')" \
	"s:kptrace/sa s:kptrace/sp s:kptrace/sf s:kptrace/sd s:kptrace/st s:kptrace/spt "
for n in sa sp sf sd st spt; do spec_add "-:$n"; done
kpt_unload
spec_finish "syscalls probe: pid, tid, comm, children, cgroup, nr, failure, duration, exit_group, execve, execve from a thread"
