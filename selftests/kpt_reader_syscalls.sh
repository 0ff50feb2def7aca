#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace syscalls`, as a user runs it: a command and all it
#   forks, or processes, comms and cgroups until Ctrl-C; exact counts,
#   perf trace's line, JSON, the exit status, the accounting, bad input,
#   untrusted comms escaped, -w/-r
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_sysgen
# timeout: 300
#
# - dd if=/dev/zero of=/dev/null bs=1 count=300 under `kptrace syscalls
#   -j --`: exactly 300 reads and 300 writes returning 1, all from one
#   process, and every JSON line valid.
# - the text line of a failing open, exact but for times and pid:
#   "T ( D ms): cat/P openat(dfd: CWD, filename: "/nonexistent/kpt_x",
#   flags: RDONLY) = -1 ENOENT (No such file or directory)"; the exit
#   status is COMMAND's (3).
# - exit_group at entry: "exit_group(error_code: 5) = ?"; JSON without
#   "ret".
# - --failure, --duration: kpt_sysgen fail:2 getppid:3 with -e
#   openat,getppid --failure: 2 lines; sleep:300 getppid:2 with
#   --duration 100: 1 line, nanosleep.
# - -p PID, -c GLOB, -G DIR without COMMAND: the tool armed (its banner),
#   then the calls, then SIGINT: exactly the calls of the selection (5,
#   4 + 3, 4 + 2 forked).
# - the summary: calls seen = shown + filtered + lost + missed returns,
#   shown = the lines printed; nothing left in the probes file.
# - an untrusted comm (ESC, newline) escaped: \x1b and \x0a in text,
#   \u001b and \u000a in JSON, no raw control byte in either; -c with
#   those bytes keeps exactly the reads made under that comm.
# - -s: fail:3 getppid:5 -> two JSON rows, openat calls 3 errors 3,
#   getppid calls 5 errors 0; the books line "8 counted in the kernel (all
#   read)"; the table's getppid row and process line (4 events, 100.0%).
# - -s -i 1 --prometheus DIR: getppid:5 sleep:1500 fail:3 -> the file
#   written at the first interval (getppid 5, no openat yet) and again at
#   the end, a new file each time, nothing else left in DIR, nothing on
#   stdout; at the end, kpt_sysgen's series exact: getppid calls_total 5
#   errors_total 0, openat calls_total 3 errors_total 3, their histograms'
#   le="+Inf" and _count equal to calls; for every series +Inf = _count =
#   calls_total and the buckets cumulative; the books: recorded_total =
#   the sum of calls_total, seen_total = the stderr line's calls seen and
#   = recorded + filtered + lost + table_full + missed; printable ASCII.
# - -w FILE then -r FILE -j: the same JSON as live.
# - bad input, one line each and nothing left armed: an unknown syscall
#   (exit 2), a pid that does not exist, a cgroup that is not cgroup v2,
#   a COMMAND not found (127) or not executable (126).

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_kpt_sysgen
kpt_tracefs > /dev/null 2>&1
kpt_load

# the soft checks: check_eq, check_match (helpers/kpt_spec_lib.sh)
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"

# summary_books FILE: "seen=shown+filtered+lost+missed" of the summary line
summary_books()
{
	sed -En 's/^kptrace: ([0-9]+) calls seen, ([0-9]+) shown, ([0-9]+) filtered, ([0-9]+) lost.*, ([0-9]+) missed returns.*/\1 \2 \3 \4 \5/p' "$1" |
		awk '{ print ($1 == $2 + $3 + $4 + $5) ? "ok " $2 : "bad " $0 }'
}

# calls_in FILE: its lines of calls, not of signals or ends (--- SIGX ---,
# +++ exited with N +++: the tool asks for them, as strace shows them)
calls_in()
{
	grep -Evc '^[0-9.]+ \( *\): [^ ]+ (---|\+\+\+) |^\{"type":"(signal|exit)"' "$1"
}

# dd, exact
"$KPTRACE" syscalls -o /dev/stdout -j -- dd if=/dev/zero of=/dev/null bs=1 count=300 \
	> "$KPT_TMP/dd.json" 2> "$KPT_TMP/dd.err"
check_eq "dd exit status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/dd.err"
kpt_json_check "$KPT_TMP/dd.json"
check_eq "dd reads of 1" \
	"$(grep -c '"syscall":"read",.*"ret":1}$' "$KPT_TMP/dd.json")" 300
check_eq "dd writes of 1" \
	"$(grep -c '"syscall":"write",.*"ret":1}$' "$KPT_TMP/dd.json")" 300
check_eq "dd: one process" "$(grep '"syscall":"\(read\|write\)",.*"ret":1}$' \
	"$KPT_TMP/dd.json" | sed -E 's/.*"pid":([0-9]+),.*/\1/' | sort -u |
	grep -c '')" 1
check_eq "dd books" "$(summary_books "$KPT_TMP/dd.err")" \
	"ok $(grep -c '' "$KPT_TMP/dd.json")"
no_probes dd

# the line of a failing open, and the exit status
"$KPTRACE" syscalls -o /dev/stdout -e openat -- sh -c 'cat /nonexistent/kpt_x; exit 3' \
	> "$KPT_TMP/open.txt" 2> "$KPT_TMP/open.err"
check_eq "exit status is COMMAND's" "$?" 3
sed 's/^/#   /' "$KPT_TMP/open.txt"
if kpt_sys_named; then
	args='dfd: CWD, filename: "/nonexistent/kpt_x", flags: RDONLY'
else	# no events/syscalls: arg0..arg5
	args='arg0: 0xffffff9c, arg1: "/nonexistent/kpt_x", arg2: 0x0(, arg[3-5]: 0x[0-9a-f]+){3}'
fi
check_match "openat line" "$(grep '/nonexistent/kpt_x' "$KPT_TMP/open.txt")" \
	"^[0-9]+\.[0-9]{3} \( *[0-9]+\.[0-9]{3} ms\): cat/[0-9]+ openat\($args\) = -1 ENOENT \(No such file or directory\)\$"

# exit_group
"$KPTRACE" syscalls -o /dev/stdout -e exit_group -- "$SYSGEN" exit:5 > "$KPT_TMP/exit.txt" \
	2> "$KPT_TMP/exit.err"
check_eq "exit:5 status" "$?" 5
args='error_code: 5'
jargs='"error_code":5'
if ! kpt_sys_named; then
	args='arg0: 0x5(, arg[1-5]: 0x[0-9a-f]+){5}'
	jargs='"arg0":5(,"arg[1-5]":[0-9]+){5}'
fi
check_match "exit_group line" "$(cat "$KPT_TMP/exit.txt")" \
	"^[0-9]+\.[0-9]{3} \( *0\.000 ms\): kpt_sysgen/[0-9]+ exit_group\($args\) = \?\$"
"$KPTRACE" syscalls -o /dev/stdout -j -e exit_group -- "$SYSGEN" exit:5 > "$KPT_TMP/exit.json" \
	2> /dev/null
check_match "exit_group JSON" "$(cat "$KPT_TMP/exit.json")" \
	'^\{"ts":[0-9]+,"dur_ns":0,"comm":"kpt_sysgen","pid":[0-9]+,"tid":[0-9]+,"syscall":"exit_group","args":\{'"$jargs"'\}\}$'

# --failure, --duration
"$KPTRACE" syscalls -o /dev/stdout -e openat,getppid --failure -- "$SYSGEN" fail:2 getppid:3 \
	> "$KPT_TMP/fail.txt" 2> /dev/null
check_eq "--failure lines" "$(calls_in "$KPT_TMP/fail.txt")" 2
check_eq "--failure: openat" "$(grep -c ' openat(.* = -1 ENOENT ' "$KPT_TMP/fail.txt")" 2
"$KPTRACE" syscalls -o /dev/stdout -e nanosleep,getppid --duration 100 -- "$SYSGEN" sleep:300 \
	getppid:2 > "$KPT_TMP/dur.txt" 2> /dev/null
check_eq "--duration lines" "$(calls_in "$KPT_TMP/dur.txt")" 1
check_match "--duration: nanosleep" "$(grep ' nanosleep(' "$KPT_TMP/dur.txt")" \
	'\( *[0-9]{3,}\.[0-9]{3} ms\): kpt_sysgen/[0-9]+ nanosleep\(.*\) = 0$'

# trace_bg ARGS...: the tool in the background until armed (its banner)
trace_bg()
{
	# (not the last run's banner: the shell truncates in the child)
	rm -f "$KPT_TMP/bg.out" "$KPT_TMP/bg.err"
	"$KPTRACE" syscalls "$@" > "$KPT_TMP/bg.out" 2> "$KPT_TMP/bg.err" &
	TR=$!
	i=0
	until grep -q 'Hit Ctrl-C' "$KPT_TMP/bg.err" 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "kptrace syscalls $* did not arm: $(cat "$KPT_TMP/bg.err")"
		sleep 0.1
	done
}

trace_end() # WHAT EXPECTED_LINES
{
	kill -INT "$TR"
	wait "$TR"
	check_eq "$1: exit status" "$?" 0
	sed 's/^/#   /' "$KPT_TMP/bg.err"
	check_eq "$1: lines" "$(calls_in "$KPT_TMP/bg.out")" "$2"
	# shown: the calls and the process's end (+++ exited with 0 +++)
	check_eq "$1: books" "$(summary_books "$KPT_TMP/bg.err")" \
		"ok $(grep -c '' "$KPT_TMP/bg.out")"
	no_probes "$1"
}

GO=$KPT_TMP/go
rm -f "$GO"; mkfifo "$GO"
"$SYSGEN" -w getppid:5 < "$GO" &
SG=$!
trace_bg -p "$SG" -e getppid
echo > "$GO"
wait "$SG"
trace_end "-p" 5

trace_bg -c 'kpt_sysg*' -e getppid -j
"$SYSGEN" getppid:4
"$SYSGEN" getppid:3
trace_end "-c" 7
kpt_json_check "$KPT_TMP/bg.out"

cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg" ]; then
	mkdir -p "$KPT_TMP/cg" && mount -t cgroup2 none "$KPT_TMP/cg" &&
		cg=$KPT_TMP/cg
fi
[ -n "$cg" ] || fail "no cgroup v2 hierarchy"
mkdir "$cg/kpt_rsys" || fail "mkdir $cg/kpt_rsys"
rm -f "$GO"; mkfifo "$GO"
"$SYSGEN" -w getppid:4 fork:2 < "$GO" &
SG=$!
echo "$SG" > "$cg/kpt_rsys/cgroup.procs" || fail "moving $SG"
trace_bg -G "$cg/kpt_rsys" -e getppid
echo > "$GO"
wait "$SG"
trace_end "-G" 6
rmdir "$cg/kpt_rsys"
[ "$cg" = "$KPT_TMP/cg" ] && umount "$cg"

# an untrusted comm, in text and JSON
comm_sh='printf "a\033b\nc" > /proc/$$/comm; read x < /dev/null; exit 0'
"$KPTRACE" syscalls -o /dev/stdout -e read -- sh -c "$comm_sh" > "$KPT_TMP/comm.txt" 2> /dev/null
"$KPTRACE" syscalls -o /dev/stdout -j -e read -- sh -c "$comm_sh" > "$KPT_TMP/comm.json" 2> /dev/null
check_match "comm escaped in text" "$(cat "$KPT_TMP/comm.txt")" \
	'^[0-9.]+ \( *[0-9.]+ ms\): a\\x1bb\\x0ac/[0-9]+ read\('
check_match "comm escaped in JSON" "$(cat "$KPT_TMP/comm.json")" \
	'"comm":"a\\u001bb\\u000ac"'
check_eq "no control byte in text" \
	"$(tr -d '\n' < "$KPT_TMP/comm.txt" | tr -d '\040-\176' | wc -c)" 0
kpt_json_check "$KPT_TMP/comm.json"
# -c takes those bytes as given: the tool writes them escaped into its
# spec line, the module decodes them, and exactly the reads made under
# that comm are kept (as many as the run above shows under it)
"$KPTRACE" syscalls -o /dev/stdout -c "$(printf 'a\033b\nc')" -e read -- sh -c "$comm_sh" \
	> "$KPT_TMP/commc.txt" 2> "$KPT_TMP/commc.err"
check_eq "-c with control bytes: exit status" "$?" 0
n=$(grep -c ': a\\x1bb\\x0ac/[0-9]* read(' "$KPT_TMP/comm.txt")
assert_ge "reads under the renamed comm" "$n" 1
check_eq "-c with control bytes: lines, and lines of that comm" \
	"$(calls_in "$KPT_TMP/commc.txt") $(grep -c ': a\\x1bb\\x0ac/[0-9]* read(' "$KPT_TMP/commc.txt")" \
	"$n $n"

# -s: counted in the kernel, one row per (process, call)
"$KPTRACE" syscalls -o /dev/stdout -s -j -e getppid,openat -- "$SYSGEN" fail:3 getppid:5 \
	> "$KPT_TMP/sum.json" 2> "$KPT_TMP/sum.err"
check_eq "-s exit status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/sum.json" "$KPT_TMP/sum.err"
check_eq "-s rows" "$(grep -c '' "$KPT_TMP/sum.json")" 2
check_match "-s openat row" "$(grep '"openat"' "$KPT_TMP/sum.json")" \
	'^\{"pid":[0-9]+,"comm":"kpt_sysgen","syscall":"openat","calls":3,"errors":3,"total_ns":[0-9]+,"min_ns":[0-9]+,"max_ns":[0-9]+,"stddev_pct":[0-9.]+\}$'
check_match "-s getppid row" "$(grep '"getppid"' "$KPT_TMP/sum.json")" \
	'"syscall":"getppid","calls":5,"errors":0,'
check_match "-s books" "$(cat "$KPT_TMP/sum.err")" \
	'^kptrace: ([0-9]+) calls seen, 8 counted in the kernel \(all read\), ([0-9]+) filtered, 0 lost, 0 not counted \(summary table full\), 0 missed returns$'
"$KPTRACE" syscalls -o /dev/stdout -s -e getppid -- "$SYSGEN" getppid:4 > "$KPT_TMP/sum.txt" \
	2> /dev/null
check_match "-s table row" "$(grep ' getppid ' "$KPT_TMP/sum.txt")" \
	'^   getppid +4 +0 +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{2}%$'
check_match "-s process line" "$(grep 'events' "$KPT_TMP/sum.txt")" \
	'^ kpt_sysgen \([0-9]+\), 4 events, 100\.0%$'
no_probes "-s"

# -s --prometheus: the whole run's counters, the file swapped every -i
PD=$KPT_TMP/prom
rm -rf "$PD"
mkdir -p "$PD"
P=$PD/kptrace_syscalls.prom
"$KPTRACE" syscalls -o /dev/stdout -s -i 1 --prometheus "$PD" -- "$SYSGEN" getppid:5 \
	sleep:1500 fail:3 > "$KPT_TMP/prom.out" 2> "$KPT_TMP/prom.err" &
TR=$!
last=
versions=0
while :; do
	running=
	kill -0 "$TR" 2> /dev/null && running=1
	ino=$(ls -i "$P" 2> /dev/null | awk '{ print $1 }')
	if [ -n "$ino" ] && [ "$ino" != "$last" ] &&
	   cp "$P" "$KPT_TMP/prom.v$((versions + 1))" 2> /dev/null; then
		versions=$((versions + 1))
		last=$ino
	fi
	[ -n "$running" ] || break
	sleep 0.05
done
wait "$TR"
check_eq "--prometheus exit status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/prom.err"
check_eq "--prometheus: nothing on stdout" "$(grep -c '' "$KPT_TMP/prom.out")" 0
check_eq "--prometheus: only the file in DIR" "$(ls -A "$PD")" \
	kptrace_syscalls.prom
[ "$versions" -ge 2 ] || check_eq "--prometheus: files written (2 or more)" \
	"$versions" "2 or more"
grep -E '^kptrace_syscall_(calls|errors)_total\{.*comm="kpt_sysgen"' "$P" |
	sed 's/^/#   /'

# prom_val FILE METRIC SYSCALL [LE]: kpt_sysgen's series' value
prom_val()
{
	awk -v m="$2" -v c="$3" -v le="$4" '
		{
			n = $0; sub(/\{.*/, "", n)
			if (n != m || index($0, "{syscall=\"" c "\",") != length(n) + 1 ||
			    index($0, ",comm=\"kpt_sysgen\"") == 0)
				next
			if (le != "" && index($0, ",le=\"" le "\"}") == 0)
				next
			print $NF
		}' "$1"
}
V1=$KPT_TMP/prom.v1
check_eq "--prometheus, interval 1: getppid calls" \
	"$(prom_val "$V1" kptrace_syscall_calls_total getppid)" 5
check_eq "--prometheus, interval 1: no openat yet" \
	"$(prom_val "$V1" kptrace_syscall_calls_total openat)" ""
check_eq "--prometheus: getppid calls_total" \
	"$(prom_val "$P" kptrace_syscall_calls_total getppid)" 5
check_eq "--prometheus: getppid errors_total" \
	"$(prom_val "$P" kptrace_syscall_errors_total getppid)" 0
check_eq "--prometheus: getppid +Inf" \
	"$(prom_val "$P" kptrace_syscall_latency_seconds_bucket getppid +Inf)" 5
check_eq "--prometheus: getppid _count" \
	"$(prom_val "$P" kptrace_syscall_latency_seconds_count getppid)" 5
check_eq "--prometheus: openat calls_total" \
	"$(prom_val "$P" kptrace_syscall_calls_total openat)" 3
check_eq "--prometheus: openat errors_total" \
	"$(prom_val "$P" kptrace_syscall_errors_total openat)" 3
check_eq "--prometheus: openat +Inf" \
	"$(prom_val "$P" kptrace_syscall_latency_seconds_bucket openat +Inf)" 3
check_eq "--prometheus: openat _count" \
	"$(prom_val "$P" kptrace_syscall_latency_seconds_count openat)" 3
# every series: buckets cumulative up to +Inf = _count = calls_total; the
# books add up; one HELP and TYPE per family
check_eq "--prometheus: every histogram consistent, the books add up" "$(awk '
	/^# TYPE / { if (fam[$3]++) print "TYPE twice: " $3; next }
	/^#/ { next }
	{
		n = $0; sub(/[{ ].*/, "", n)
		l = $0; sub(/^[^{]*/, "", l); sub(/ [^ ]*$/, "", l)
		v = $NF
		if (n == "kptrace_syscall_calls_total") { calls[l] = v; sum += v }
		else if (n == "kptrace_syscall_latency_seconds_bucket") {
			k = l; sub(/,le="[^"]*"\}$/, "}", k)
			if (v < prev[k]) print "not cumulative: " $0
			prev[k] = v
			if (l ~ /le="\+Inf"/) inf[k] = v
		}
		else if (n == "kptrace_syscall_latency_seconds_count") cnt[l] = v
		else if (n ~ /^kptrace_syscall_(lost|missed)_total$/) book[n] += v
		else if (n ~ /^kptrace_syscall_/) book[n] = v
	}
	END {
		for (l in calls)
			if (inf[l] != calls[l] || cnt[l] != calls[l])
				print "series " l ": calls " calls[l] ", +Inf " inf[l] ", count " cnt[l]
		if (book["kptrace_syscall_recorded_total"] != sum)
			print "recorded " book["kptrace_syscall_recorded_total"] " != calls " sum
		d = book["kptrace_syscall_recorded_total"] + book["kptrace_syscall_filtered_total"] + \
		    book["kptrace_syscall_lost_total"] + book["kptrace_syscall_table_full_total"] + \
		    book["kptrace_syscall_missed_total"]
		if (book["kptrace_syscall_seen_total"] != d)
			print "seen " book["kptrace_syscall_seen_total"] " != " d
		print "seen " book["kptrace_syscall_seen_total"]
	}' "$P")" "seen $(sed -n 's/^kptrace: \([0-9]*\) calls seen, .*/\1/p' "$KPT_TMP/prom.err")"
check_eq "--prometheus: printable ASCII only" \
	"$(tr -d '\n\040-\176' < "$P" | wc -c | tr -d ' ')" 0
check_match "--prometheus: all read" "$(cat "$KPT_TMP/prom.err")" \
	' counted in the kernel \(all read\), '
no_probes "--prometheus"

# -w, then -r
"$KPTRACE" syscalls -w "$KPT_TMP/dd.bin" -- dd if=/dev/zero of=/dev/null bs=1 \
	count=7 2> /dev/null
check_eq "-w exit status" "$?" 0
"$KPTRACE" syscalls -r "$KPT_TMP/dd.bin" -j > "$KPT_TMP/ddr.json" 2> /dev/null
check_eq "-r exit status" "$?" 0
check_eq "-r: reads of 1" \
	"$(grep -c '"syscall":"read",.*"ret":1}$' "$KPT_TMP/ddr.json")" 7

# bad input
"$KPTRACE" syscalls -o /dev/stdout -e nosuchcall -- true > /dev/null 2> "$KPT_TMP/bad1"
check_eq "unknown syscall: status" "$?" 2
check_eq "unknown syscall: message" "$(cat "$KPT_TMP/bad1")" \
	"kptrace: error: -e: no system call matches 'nosuchcall'"
"$KPTRACE" syscalls -p 4000000 > /dev/null 2> "$KPT_TMP/bad2"
check_eq "no such pid: status" "$?" 1
check_eq "no such pid: one line" "$(grep -c '' "$KPT_TMP/bad2")" 1
"$KPTRACE" syscalls -G /proc > /dev/null 2> "$KPT_TMP/bad3"
check_eq "not cgroup v2: status" "$?" 1
check_eq "not cgroup v2: message" "$(cat "$KPT_TMP/bad3")" \
	"kptrace: error: /proc is not a cgroup v2 directory"
"$KPTRACE" syscalls -o /dev/stdout -- /nonexistent/kpt_cmd > /dev/null 2> "$KPT_TMP/bad4"
check_eq "command not found: status" "$?" 127
check_match "command not found: message" "$(cat "$KPT_TMP/bad4")" \
	"kptrace: error: /nonexistent/kpt_cmd: No such file or directory"
printf 'x' > "$KPT_TMP/noexec"
chmod 644 "$KPT_TMP/noexec"
"$KPTRACE" syscalls -o /dev/stdout -- "$KPT_TMP/noexec" > /dev/null 2> /dev/null
check_eq "command not executable: status" "$?" 126
no_probes "bad input"

kpt_unload
[ "$SPEC_FAILS" = 0 ] || fail "$SPEC_FAILS check(s) failed (see the FAIL lines above)"
info "kptrace syscalls: dd exact, lines, JSON, filters, books, escaping, -s, --prometheus, -w/-r, bad input"
