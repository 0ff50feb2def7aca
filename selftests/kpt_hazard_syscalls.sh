#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the syscalls probe (s) deleted, unloaded and detached by
#   the tool's Ctrl-C while 1000 threads sit in futex and nanosleep
#   holding its instances; added and deleted, and kptrace unloaded, 20
#   times beside a process making syscalls as fast as it can, under a
#   reader (issue #22)
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_spec,
#   helpers/kpt_read, helpers/kpt_sysgen
# timeout: 300
#
# kpt_sysgen park:T:MS starts T threads, half looping in futex(FUTEX_WAIT)
# with a timeout of MS, half in nanosleep(MS); with MS = 10 minutes each
# makes one call and sits in it, so the calls in flight are exact. A
# second kpt_sysgen with 100 threads looping every 20 ms (the churn) has
# calls returning, entering and recorded all along.
# 1a. -:NAME: "s:hz pid=P nr=35,202" on the 1000, "s:hc" on the churn;
#     once hz has 1000 calls in flight (calls - events), one read of its
#     probe_stats: 1000 in flight, recorded 0, lost 0, maxactive_missed 0,
#     events = filtered; then both deleted with their instances held:
#     both writes succeed, the probes file is empty, the 1000 still sit.
#     Then killed, they return through the deleted probe's instances (its
#     tracepoint slots on 5.10):
#     each kpt_sysgen is killed by SIGKILL (status 137), none of hz's
#     records exists, hc's are futex and nanosleep calls of the churn, the
#     records read are stats' recorded, the stats invariants hold,
#     deleted_pending is 0 after two listings.
# 1b. rmmod: the same two probes on new parkers, 1000 in flight: rmmod
#     kptrace succeeds; kptrace loads again while the 1000 still sit on
#     the old module's instances, "s:hz2 pid=P nr=35,202" and "s:hc2"
#     are added, the parkers killed: hz2 saw no call of the 1000 (0 in
#     flight, 0 recorded: they entered before it), hc2 recorded the
#     churn's calls and has none in flight; kpt_sysgen getppid:5 under
#     "s:sg pid=G nr=110" gives exactly 5 records.
# 1c. Ctrl-C: `kptrace syscalls -p P -e futex,nanosleep` armed before
#     the 1000 start (its probe is its session's, not in probe_stats);
#     once the 1000 sit in their calls (/proc/P/task/*/syscall: futex or
#     nanosleep), all entered after it was armed, SIGINT: exit 0,
#     its books line says "1000 in flight at detach", 0 lost, 0 missed
#     returns, and seen = shown + filtered + lost + missed + in flight,
#     shown = the lines of calls that returned, and the 1000 in flight
#     are 1000 "<unfinished ...>" lines (futex, nanosleep); the probes
#     file is empty; then the 1000 are killed.
# 2.  spin, on a kptrace loaded afresh: kpt_sysgen spin:0 makes getppid()
#     as fast as it can (its rate is printed, not asserted: under TCG
#     0.5 to 0.8 million a second) while helpers/kpt_read follows
#     /dev/kptrace, and 20 rounds add and delete an s probe selecting it
#     (in turn "pid=S nr=110", "pid=S", "pid=S nr=110 summary=64"):
#     every add and delete succeeds, each
#     probe records (or counts) the spinner before it is deleted with 0
#     missed returns, and is gone from the probes file after. In round 10
#     rmmod is refused while the reader is attached, works once the
#     reader is stopped (the probe armed, the spinner spinning), and
#     kptrace loads again under a new reader. At the end the spinner is
#     alive and exits 0 on SIGUSR1; each reader exits 0 with no bad
#     record and no seq error and read what stats say was read, and the
#     stats invariants hold.
# After each case the kernel log since its start has no Oops, BUG,
# WARNING or other fault (faults.sh; run_tests.sh checks again).
#
#	KPT_HAZ_SYS_THREADS	parked threads (default 1000)
#	KPT_HAZ_SYS_CHURN	churn threads (default 100)
#	KPT_HAZ_SYS_ROUNDS	rounds of case 2 (default 20)

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
. "$KPT_SELFTESTS/faults.sh"
. "$KPT_SELFTESTS/helpers/kpt_park_lib.sh"
kpt_setup
require_kpt_spec
require_kpt_read
require_kptrace
require_kpt_sysgen

THREADS=${KPT_HAZ_SYS_THREADS:-1000}
CHURN=${KPT_HAZ_SYS_CHURN:-100}
CHURN_MS=20
ROUNDS=${KPT_HAZ_SYS_ROUNDS:-20}
# longer than the test: each parked thread makes one call
PARK_MS=600000
T0=$(date +%s)

elapsed()
{
	echo $(($(date +%s) - $1))
}

# case_mark NAME: a line in the kernel log where case NAME starts
case_mark()
{
	CASE=$1
	CASE_MARK="kpt_hazard_syscalls: case $1 $$.$(cut -d' ' -f1 /proc/uptime)"
	echo "$CASE_MARK" > /dev/kmsg || fail "cannot write to /dev/kmsg"
}

# no_fault: the kernel logged no fault since the case began (the lines
# since the mark are shown if it did: the splat is the report)
no_fault()
{
	_log=$(dmesg | sed -e 's/^\[[ 0-9.]*\] //' |
		awk -v m="$CASE_MARK" 'f { print } $0 == m { f = 1 }')
	_bad=$(printf '%s\n' "$_log" | grep -E "$KPT_FAULT_RE" |
		grep -vE "$KPT_FAULT_IGNORE_RE")
	[ -z "$_bad" ] && return 0
	printf '%s\n' "$_log" | head -n 120 | sed 's/^/#   kernel: /'
	fail "case $CASE: the kernel logged: $(printf '%s\n' "$_bad" | head -n 1)"
}

# killed PID WHAT: SIGKILL, and its status must say so (128 + 9)
killed()
{
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	_rc=$?
	forget "$1"
	check_eq "case $CASE: $2 killed: status" "$_rc" 137
}

# threads PID: the threads of process PID
threads()
{
	awk '$1 == "Threads:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

no_probes()
{
	check_eq "case $CASE: $1: probes left" "$(grep -c '' "$KPT_DIR/probes")" 0
}

# dump: every pending record into $KPT_TMP/dump (kpt_spec dump)
dump()
{
	"$KPT_SPEC" dump > "$KPT_TMP/dump" || fail "kpt_spec dump"
}

# records_of ID: the records of probe id ID in $KPT_TMP/dump
records_of()
{
	grep -c "^[a-z]* id=$1 " "$KPT_TMP/dump"
}

# ----------------------------------------------------------------- 1a

kpt_load
case_mark 1a
start=$(date +%s)
parkers p1 "$THREADS" "$PARK_MS"
P1=$PK
parkers c1 "$CHURN" "$CHURN_MS"
C1=$PK
spec_add "s:hz pid=$P1 nr=35,202"
spec_add "s:hc pid=$C1 nr=35,202"
hz_id=$(spec_field hz id)
hc_id=$(spec_field hc id)
go p1
go c1
parked p1 "$THREADS"
parked c1 "$CHURN"
wait_held hz "$THREADS"
info "1a: $THREADS parked and $CHURN churning in $(elapsed "$start") s"
books hz
info "1a: hz $BOOKS"
check_eq "1a: hz calls in flight" $((CALLS - EVENTS)) "$THREADS"
check_eq "1a: hz recorded" "$RECORDED" 0
check_eq "1a: hz lost" "$LOST" 0
check_eq "1a: hz maxactive_missed" "$AMISSED" 0
check_eq "1a: hz events = filtered" "$EVENTS" "$FILTERED"
books hc
info "1a: hc $BOOKS"
[ "$RECORDED" -gt 0 ] || check_fail "1a: hc recorded none of the churn's calls"
[ $((CALLS - EVENTS)) -le "$CHURN" ] ||
	check_fail "1a: hc has $((CALLS - EVENTS)) calls in flight, more than $CHURN threads"
check_eq "1a: hc maxactive_missed" "$AMISSED" 0
check_eq "1a: threads of the parkers" "$(threads "$P1")" $((THREADS + 1))

start=$(date +%s)
spec_add '-:hz'
spec_add '-:hc'
info "1a: hz and hc deleted with $THREADS + up to $CHURN instances held, in $(elapsed "$start") s"
no_probes "after the deletes"
kill -0 "$P1" 2>/dev/null || fail "1a: the parkers died when hz was deleted"
check_eq "1a: threads still parked" "$(threads "$P1")" $((THREADS + 1))
# the churn goes on returning through hc's instances for a while
sleep 1
killed "$P1" "1a: the parkers"
killed "$C1" "1a: the churn"
dump
check_eq "1a: hz records" "$(records_of "$hz_id")" 0
hc_n=$(records_of "$hc_id")
info "1a: hc records $hc_n"
[ "$hc_n" -gt 0 ] || check_fail "1a: no hc record"
check_eq "1a: hc records of other calls than futex and nanosleep" \
	"$(grep "^return id=$hc_id " "$KPT_TMP/dump" |
		grep -cvE ' a0=0x(23|ca) ')" 0
check_eq "1a: records read = stats recorded" \
	"$(grep -cE '^(entry|return) ' "$KPT_TMP/dump")" "$(kpt_stat recorded)"
kpt_stats_check
check_eq "1a: pending" "$(kpt_stat pending)" 0
# a listing notes where the rings' heads are, the next one frees the
# tombstones whose records were all read since (module/probe.c)
cat "$KPT_DIR/probes" > /dev/null
cat "$KPT_DIR/probes" > /dev/null
check_eq "1a: deleted_pending" "$(kpt_stat deleted_pending)" 0
no_fault

# ----------------------------------------------------------------- 1b

case_mark 1b
start=$(date +%s)
parkers p2 "$THREADS" "$PARK_MS"
P2=$PK
parkers c2 "$CHURN" "$CHURN_MS"
C2=$PK
spec_add "s:hz pid=$P2 nr=35,202"
spec_add "s:hc pid=$C2 nr=35,202"
go p2
go c2
parked p2 "$THREADS"
parked c2 "$CHURN"
wait_held hz "$THREADS"
books hz
check_eq "1b: hz calls in flight" $((CALLS - EVENTS)) "$THREADS"
check_eq "1b: hz maxactive_missed" "$AMISSED" 0
start=$(date +%s)
kpt_unload
info "1b: rmmod with $THREADS + up to $CHURN calls in flight took $(elapsed "$start") s"
kill -0 "$P2" 2>/dev/null || fail "1b: the parkers died at rmmod"
check_eq "1b: threads still parked after rmmod" "$(threads "$P2")" $((THREADS + 1))
no_fault
# loaded again while the 1000 sit on the old module's instances
kpt_load
spec_add "s:hz2 pid=$P2 nr=35,202"
spec_add "s:hc2 pid=$C2 nr=35,202"
sleep 1
killed "$P2" "1b: the parkers"
killed "$C2" "1b: the churn"
books hz2
info "1b: hz2 $BOOKS"
check_eq "1b: hz2 in flight, recorded, missed" \
	"$((CALLS - EVENTS)) $RECORDED $AMISSED" "0 0 0"
books hc2
info "1b: hc2 $BOOKS"
check_eq "1b: hc2 in flight, missed" "$((CALLS - EVENTS)) $AMISSED" "0 0"
[ "$RECORDED" -gt 0 ] || check_fail "1b: hc2 recorded none of the churn's calls"
spec_add '-:hz2'
spec_add '-:hc2'
dump
# the module works: exact counts
rm -f "$KPT_TMP/g.go"
mkfifo "$KPT_TMP/g.go" || fail "mkfifo"
"$SYSGEN" -w getppid:5 < "$KPT_TMP/g.go" &
G=$!
spec_add "s:sg pid=$G nr=110"
go g
wait "$G" || check_fail "1b: kpt_sysgen getppid:5 exited $?"
dump
check_eq "1b: sg records after the reload" \
	"$(grep -c "^return id=$(spec_field sg id) .* ret=$$ " "$KPT_TMP/dump")" 5
spec_add '-:sg'
kpt_stats_check
no_fault

# ----------------------------------------------------------------- 1c

case_mark 1c
parkers p3 "$THREADS" "$PARK_MS"
P3=$PK
"$KPTRACE" syscalls -p "$P3" -e futex,nanosleep > "$KPT_TMP/tool.out" \
	2> "$KPT_TMP/tool.err" &
TR=$!
MINE="$MINE $TR"
i=0
until grep -q 'Hit Ctrl-C' "$KPT_TMP/tool.err" 2> /dev/null; do
	i=$((i + 1))
	[ $i -le 300 ] ||
		fail "1c: kptrace syscalls -p $P3 did not arm: $(cat "$KPT_TMP/tool.err")"
	sleep 0.1
done
go p3
parked p3 "$THREADS"
# the tool's probe is its session's: its books are the tool's own (the
# line below), not probe_stats'; the 1000 are in its hands once they sit
# in their calls, which they entered after it was armed
i=0
until [ "$(in_calls "$P3")" = "$THREADS" ]; do
	i=$((i + 1))
	[ $i -le 600 ] ||
		fail "1c: $(in_calls "$P3") of the $THREADS parkers in futex or nanosleep after 60 s"
	sleep 0.1
done
start=$(date +%s)
kill -INT "$TR"
wait "$TR"
rc=$?
forget "$TR"
info "1c: the tool ended in $(elapsed "$start") s"
sed 's/^/#   1c: /' "$KPT_TMP/tool.err"
check_eq "1c: kptrace syscalls exit status after SIGINT" "$rc" 0
bl=$(grep '^kptrace: .* calls seen' "$KPT_TMP/tool.err")
check_match "1c: books line" "$bl" \
	"^kptrace: [0-9]+ calls seen, [0-9]+ shown, [0-9]+ filtered, 0 lost, 0 missed returns, $THREADS in flight at detach"
check_eq "1c: seen = shown + filtered + lost + missed + in flight" \
	"$(printf '%s\n' "$bl" | sed -En 's/^kptrace: ([0-9]+) calls seen, ([0-9]+) shown, ([0-9]+) filtered, ([0-9]+) lost, ([0-9]+) missed returns, ([0-9]+) in flight at detach.*/\1 \2 \3 \4 \5 \6/p' |
		awk '{ print ($1 == $2 + $3 + $4 + $5 + $6) ? "yes" : "no: " $0 }')" yes
check_eq "1c: shown = the lines of calls that returned" \
	"$(printf '%s\n' "$bl" | sed -En 's/.* calls seen, ([0-9]+) shown,.*/\1/p')" \
	"$(grep -vc '<unfinished \.\.\.>$' "$KPT_TMP/tool.out")"
# the calls in flight at the stop, as strace -p shows them at its detach
check_eq "1c: an unfinished line per call in flight" \
	"$(grep -Ec ' (futex|nanosleep)\(.*<unfinished \.\.\.>$' "$KPT_TMP/tool.out")" \
	"$THREADS"
no_probes "after the tool's SIGINT"
check_eq "1c: threads still parked" "$(threads "$P3")" $((THREADS + 1))
killed "$P3" "1c: the parkers"
dump
kpt_stats_check
no_fault

# ------------------------------------------------------------------ 2

case_mark 2
# a fresh module: its stats count only what the readers here read
kpt_unload
kpt_load
RN=0
# reader_start: helpers/kpt_read follows /dev/kptrace; pid in RD
reader_start()
{
	RN=$((RN + 1))
	"$KPT_READ" follow > "$KPT_TMP/reader.$RN" 2> "$KPT_TMP/reader.$RN.err" &
	RD=$!
	MINE="$MINE $RD"
	sleep 0.2
	kill -0 "$RD" 2>/dev/null ||
		fail "2: the reader ended early: $(cat "$KPT_TMP/reader.$RN.err")"
}

# reader_stop: SIGTERM; it drains, exits 0, no bad record or seq error
reader_stop()
{
	kill -TERM "$RD"
	wait "$RD"
	_rc=$?
	forget "$RD"
	SUMMARY=$(grep '^summary ' "$KPT_TMP/reader.$RN")
	info "2: reader $RN: $SUMMARY"
	check_eq "2: reader $RN exit status" "$_rc" 0
	check_eq "2: reader $RN bad records" "$(kpt_field bad "$SUMMARY")" 0
	check_eq "2: reader $RN seq errors" "$(kpt_field seq_errors "$SUMMARY")" 0
}

# round_probe R: the probe of round R
round_probe()
{
	case $(($1 % 3)) in
	1) echo "s:sp pid=$SP nr=110" ;;
	2) echo "s:sp pid=$SP" ;;
	0) echo "s:sp pid=$SP nr=110 summary=64" ;;
	esac
}

# seen_spinner R: the probe has recorded (or counted) the spinner's calls
seen_spinner()
{
	_i=0
	books sp
	until [ "$RECORDED" -gt 0 ]; do
		_i=$((_i + 1))
		[ $_i -le 100 ] ||
			{ check_fail "2: round $R: sp recorded nothing of the spinner in 10 s ($BOOKS)"; return; }
		sleep 0.1
		books sp
	done
	check_eq "2: round $R: sp maxactive_missed" "$AMISSED" 0
}

reader_start
"$SYSGEN" spin:0 > "$KPT_TMP/spin.out" &
SP=$!
MINE="$MINE $SP"
sleep 0.5
start=$(date +%s)
R=1
while [ $R -le "$ROUNDS" ]; do
	spec_add "$(round_probe $R)"
	seen_spinner
	if [ $R = $((ROUNDS / 2)) ]; then
		out=$(rmmod kptrace 2>&1) &&
			fail "2: round $R: rmmod worked with a reader attached"
		kpt_loaded kptrace || fail "2: round $R: kptrace gone after a refused rmmod"
		info "2: round $R: rmmod with the reader attached: $out"
		reader_stop
		# the probe still records the spinner: nothing reads it now
		check_eq "2: records reader $RN read = stats read" \
			"$(kpt_field records "$SUMMARY")" "$(kpt_stat read)"
		kpt_unload
		kpt_load
		reader_start
	else
		spec_add '-:sp'
	fi
	no_probes "round $R"
	kill -0 "$SP" 2>/dev/null || fail "2: round $R: the spinner died"
	R=$((R + 1))
done
info "2: $ROUNDS rounds in $(elapsed "$start") s"
kill -0 "$SP" 2>/dev/null || fail "2: the spinner died"
kill -USR1 "$SP"
wait "$SP"
rc=$?
forget "$SP"
check_eq "2: spinner exit status" "$rc" 0
spin=$(cat "$KPT_TMP/spin.out")
n=$(kpt_field getppid "$spin")
ms=$(kpt_field ms "$spin")
info "2: the spinner made ${n:-?} getppid() calls in ${ms:-?} ms: $((${n:-0} * 1000 / (${ms:-0} + 1))) a second"
reader_stop
check_eq "2: records the last reader read = stats read" \
	"$(kpt_field records "$SUMMARY")" "$(kpt_stat read)"
kpt_stats_check
no_fault
kpt_unload

spec_finish "syscalls probe: -:NAME, rmmod and Ctrl-C with $THREADS calls held, $ROUNDS add/delete rounds beside a spinner, in $(elapsed "$T0") s"
