# SPDX-License-Identifier: GPL-2.0
# kpt_park_lib.sh: threads parked in system calls, and an s probe's books
# (sourced by tests that also source lib.sh and kpt_spec_lib.sh; they set
# CASE, the name their messages give). kpt_sysgen -w park:T:MS waits for
# a line on its stdin, then starts T threads, half in futex(FUTEX_WAIT),
# half in nanosleep(), each for MS ms at a time, and says "parked T".

# Processes started here, killed with SIGKILL by the cleanup
MINE=
cleanup()
{
	for _p in $MINE; do
		kill -9 "$_p" 2>/dev/null
	done
	for _p in $MINE; do
		wait "$_p" 2>/dev/null
	done
	MINE=
}

# forget PID: it was waited for
forget()
{
	MINE=$(echo "$MINE" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# parkers TAG T MS: kpt_sysgen -w park:T:MS in the background, blocked
# on the FIFO $KPT_TMP/TAG.go until go TAG; its pid in PK
parkers()
{
	rm -f "$KPT_TMP/$1.go" "$KPT_TMP/$1.out"
	mkfifo "$KPT_TMP/$1.go" || fail "mkfifo"
	"$SYSGEN" -w "park:$2:$3" < "$KPT_TMP/$1.go" > "$KPT_TMP/$1.out" 2>&1 &
	PK=$!
	MINE="$MINE $PK"
}

go()
{
	echo > "$KPT_TMP/$1.go"
}

# parked TAG T: waits until kpt_sysgen TAG has started its T threads
parked()
{
	_i=0
	until grep -qx "parked $2" "$KPT_TMP/$1.out" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -le 1200 ] ||
			fail "case $CASE: kpt_sysgen park:$2 did not start its threads in 120 s: $(cat "$KPT_TMP/$1.out")"
		sleep 0.1
	done
}

# books NAME: CALLS EVENTS FILTERED RECORDED LOST AMISSED (missed
# returns) of probe NAME, from one read of probe_stats; HELD = the calls
# in flight plus those missed for want of an instance
books()
{
	_b=$(awk -v n="$1" '$1 == n && $2 !~ /^cpu[0-9]+$/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["calls"], v["events"], v["filtered"], v["recorded"],
			v["full"] + v["overwritten"] + v["nested"] + v["too_big"],
			v["maxactive_missed"]; f = 1 }
		END { exit !f }' "$KPT_DIR/probe_stats") ||
		fail "case $CASE: no probe $1 in probe_stats"
	# shellcheck disable=SC2086
	set -- $_b
	CALLS=$1 EVENTS=$2 FILTERED=$3 RECORDED=$4 LOST=$5 AMISSED=$6
	HELD=$((CALLS - EVENTS + AMISSED))
	BOOKS="calls=$1 events=$2 filtered=$3 recorded=$4 lost=$5 maxactive_missed=$6"
}

# wait_held NAME N: until N of the parked calls are in NAME's hands
wait_held()
{
	_i=0
	books "$1"
	while [ "$HELD" != "$2" ]; do
		_i=$((_i + 1))
		[ $_i -le 600 ] ||
			fail "case $CASE: $1 has $HELD calls in flight or missed, not $2, after 60 s ($BOOKS)"
		sleep 0.1
		books "$1"
	done
}

# in_calls PID: PID's threads sitting in futex (202) or nanosleep (35)
in_calls()
{
	cat /proc/"$1"/task/*/syscall 2>/dev/null |
		awk '$1 == 202 || $1 == 35 { n++ } END { print n + 0 }'
}
