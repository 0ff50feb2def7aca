#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace syscalls --flight SIZE`, the flight recorder: the
#   rings of the tool's own session, which overwrite their oldest records
#   (the module loaded without overwrite=1), keep the newest calls; the
#   tool prints the newest SIZE bytes of them at COMMAND's exit, on
#   SIGUSR1 (and goes on) and at SIGINT, with the count of the older ones
#   overwritten; exact lines, counts and books; the default session's
#   rings untouched
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_sysgen
# timeout: 300
#
# Every run takes -e signal=none: the sizes and counts below are the
# calls' records alone, without the process's exit record.
# kptrace is loaded without overwrite=1 (bufsize_kb=16: the default
# session's rings, which --flight does not use). The session's rings are
# SIZE rounded up, 128K at least (about 800 calls), so the rings and SIZE
# both push calls out of 1000.
# - the record sizes, measured with -w: G, a getppid() call's record
#   (160 bytes, no path string); O, a failing openat() of
#   "/nonexistent/kpt" (G + 16).
# - --flight 6400 -e getppid,openat -- kpt_sysgen getppid:1000 fail:1
#   getppid:9: the dump at COMMAND's exit is exactly the newest 6400
#   bytes: the 9 last getppid calls, the openat before them, and before
#   it M = (6400 - 9G - O) / G getppid calls (29 with G = 160), in that
#   order, times not decreasing; then "kptrace: N older calls
#   overwritten" with N = 1000 - M (971), which the rings and SIZE made
#   together; exit status 0; the books: calls seen = shown + filtered +
#   lost (overwritten N) + missed returns, shown the lines, nothing in
#   flight; the probe gone with the session.
# - the same with -j: M + 10 valid JSON objects, then
#   {"type":"flight","shown":M+10,"overwritten":N}.
# - SIGUSR1, without COMMAND: --flight 3200 -c 'kpt_sysg*' -e getppid;
#   kpt_sysgen getppid:300, SIGUSR1: a dump of 20 calls (3200 / G), all
#   of that process, "280 older calls overwritten"; the tool goes on;
#   kpt_sysgen getppid:200 (another pid), SIGUSR1: 20 calls of the
#   second, "180 older calls overwritten"; SIGINT: the last dump, empty,
#   "0 older calls overwritten"; exit 0, the books (overwritten 460).
# - SIZE over the default session's ring (17K with bufsize_kb=16) is no
#   limit: the session's rings are the tool's own; the dump shows the
#   newest 17K bytes (all 50 calls of kpt_sysgen getppid:50).
# - the default session's stats recorded nothing, and its overwrite
#   parameter is still N.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_kpt_sysgen
kpt_tracefs > /dev/null 2>&1
kpt_load bufsize_kb=16
assert_eq "overwrite parameter" \
	"$(cat /sys/module/kptrace/parameters/overwrite)" N

# the soft checks: check_eq, check_match (helpers/kpt_spec_lib.sh)
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"

# books FILE: "seen shown filtered lost overwritten missed" of the line
books()
{
	sed -En 's/^kptrace: ([0-9]+) calls seen, ([0-9]+) shown, ([0-9]+) filtered, ([0-9]+) lost \(overwritten ([0-9]+)\), ([0-9]+) missed returns$/\1 \2 \3 \4 \5 \6/p' "$1"
}

# balanced FILE SHOWN OVERWRITTEN: the books line has them, 0 missed,
# and seen = shown + filtered + lost + missed
balanced()
{
	set -- "$1" "$2" "$3" "$(books "$1")"
	[ -n "$4" ] || { echo "no books line"; return; }
	echo "$4" | awk -v s="$2" -v o="$3" '{
		print ($2 == s && $4 == o && $5 == o && $6 == 0 &&
		       $1 == $2 + $3 + $4 + $6) ? "ok" : "bad " $0 }'
}

# the record sizes, from -w's files
"$KPTRACE" syscalls -e signal=none -q -w "$KPT_TMP/g.bin" -e getppid -- "$SYSGEN" getppid:10 ||
	fail "kptrace syscalls -w (getppid)"
"$KPTRACE" syscalls -e signal=none -q -w "$KPT_TMP/o.bin" -e openat -- "$SYSGEN" fail:1 ||
	fail "kptrace syscalls -w (openat)"
G=$(($(wc -c < "$KPT_TMP/g.bin") / 10))
O=$(wc -c < "$KPT_TMP/o.bin")
info "record sizes: getppid $G bytes, openat of /nonexistent/kpt $O"
check_eq "getppid record size" "$G" 160
check_eq "openat record size" "$O" $((G + 16))

# at COMMAND's exit: exactly the newest 6400 bytes
SIZE=6400
M=$(((SIZE - 9 * G - O) / G))
N=$((1000 - M))
info "--flight $SIZE: $M + 1 + 9 calls shown, $N overwritten"
"$KPTRACE" syscalls -e signal=none -o /dev/stdout --flight $SIZE -e getppid,openat -- "$SYSGEN" \
	getppid:1000 fail:1 getppid:9 > "$KPT_TMP/cmd.out" 2> "$KPT_TMP/cmd.err"
check_eq "COMMAND: exit status" "$?" 0
sed -n '1,3p;$p' "$KPT_TMP/cmd.out" | sed 's/^/#   /'
sed 's/^/#   /' "$KPT_TMP/cmd.err"
check_eq "COMMAND: lines" "$(grep -c '' "$KPT_TMP/cmd.out")" $((M + 11))
# the shape of each line: g (getppid), o (the failing openat), ?
shape=$(sed '$d' "$KPT_TMP/cmd.out" | awk '
	BEGIN { g = ENVIRON["GETPPID_RE"] }
	$0 ~ (" kpt_sysgen/[0-9]+" g "[0-9]+$") { printf "g"; next }
	/ kpt_sysgen\/[0-9]+ openat\(.*"\/nonexistent\/kpt".* = -1 ENOENT / { printf "o"; next }
	{ printf "?" }')
want=$(awk -v m="$M" 'BEGIN { for (i = 0; i < m; i++) printf "g"
	printf "o"; for (i = 0; i < 9; i++) printf "g" }')
check_eq "COMMAND: the newest calls, in order" "$shape" "$want"
check_eq "COMMAND: times never go back" "$(sed '$d' "$KPT_TMP/cmd.out" |
	awk '$1 + 0 < last { bad++ } { last = $1 + 0 } END { print bad + 0 }')" 0
check_eq "COMMAND: the last line" "$(tail -n 1 "$KPT_TMP/cmd.out")" \
	"kptrace: $N older calls overwritten"
check_eq "COMMAND: books" "$(balanced "$KPT_TMP/cmd.err" $((M + 10)) $N)" ok
no_probes "COMMAND"

# the same with -j
"$KPTRACE" syscalls -e signal=none -o /dev/stdout -j --flight $SIZE -e getppid,openat -- "$SYSGEN" \
	getppid:1000 fail:1 getppid:9 > "$KPT_TMP/cmd.json" 2> "$KPT_TMP/cmdj.err"
check_eq "-j: exit status" "$?" 0
kpt_json_check "$KPT_TMP/cmd.json"
check_eq "-j: calls" "$(grep -c '"syscall":"getppid",' "$KPT_TMP/cmd.json") $(grep -c '"syscall":"openat",.*"errno":"ENOENT"' "$KPT_TMP/cmd.json")" \
	"$((M + 9)) 1"
check_eq "-j: the last object" "$(tail -n 1 "$KPT_TMP/cmd.json")" \
	"{\"type\":\"flight\",\"shown\":$((M + 10)),\"overwritten\":$N}"
check_eq "-j: books" "$(balanced "$KPT_TMP/cmdj.err" $((M + 10)) $N)" ok

# SIGUSR1 between two phases, without COMMAND
wait_line() # FILE TEXT COUNT: until FILE has COUNT lines TEXT (10 s)
{
	_i=0
	until [ "$(grep -cxF -- "$2" "$1" 2>/dev/null)" = "$3" ]; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || fail "no '$2' (x$3) in $1: $(cat "$1" "$KPT_TMP/usr1.err")"
		sleep 0.1
	done
}
rm -f "$KPT_TMP/usr1.out" "$KPT_TMP/usr1.err"
"$KPTRACE" syscalls -e signal=none --flight 3200 -c 'kpt_sysg*' -e getppid \
	> "$KPT_TMP/usr1.out" 2> "$KPT_TMP/usr1.err" &
TR=$!
KPT_BG_PIDS="$KPT_BG_PIDS $TR"
wait_line "$KPT_TMP/usr1.err" \
	"kptrace: a flight recorder of 3200: kill -USR1 $TR prints the newest calls" 1
"$SYSGEN" getppid:300 &
P1=$!
wait "$P1"
kill -USR1 "$TR"
wait_line "$KPT_TMP/usr1.out" "kptrace: 280 older calls overwritten" 1
"$SYSGEN" getppid:200 &
P2=$!
wait "$P2"
kill -USR1 "$TR"
wait_line "$KPT_TMP/usr1.out" "kptrace: 180 older calls overwritten" 1
kill -INT "$TR"
wait "$TR"
check_eq "SIGUSR1: exit status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/usr1.err"
per=$((3200 / G))
# each line: 1 (the first process), 2 (the second), the dumps' lines
shape=$(awk -v p1="$P1" -v p2="$P2" '
	BEGIN { g = ENVIRON["GETPPID_RE"] }
	$0 ~ (" kpt_sysgen/" p1 g) { printf "1"; next }
	$0 ~ (" kpt_sysgen/" p2 g) { printf "2"; next }
	/^kptrace: [0-9]+ older calls? overwritten$/ { printf "|%s|", $2; next }
	{ printf "?" }' "$KPT_TMP/usr1.out")
want=$(awk -v n="$per" 'BEGIN {
	for (i = 0; i < n; i++) printf "1"; printf "|280|"
	for (i = 0; i < n; i++) printf "2"; printf "|180||0|" }')
check_eq "SIGUSR1: three dumps, $per calls of each phase" "$shape" "$want"
check_eq "SIGUSR1: books" "$(balanced "$KPT_TMP/usr1.err" $((2 * per)) 460)" ok
no_probes "SIGUSR1"

# SIZE over the default session's ring: the session's rings are its own
"$KPTRACE" syscalls -e signal=none -o /dev/stdout --flight 17K -e getppid -- "$SYSGEN" getppid:50 \
	> "$KPT_TMP/big.out" 2> "$KPT_TMP/big.err"
check_eq "17K: exit status" "$?" 0
check_eq "17K: all 50 calls, then the line" \
	"$(grep -c ' getppid(' "$KPT_TMP/big.out") $(tail -n 1 "$KPT_TMP/big.out")" \
	"50 kptrace: 0 older calls overwritten"
no_probes "17K"

# the default session: untouched by the flight recorders' sessions
check_eq "the default session recorded nothing" \
	"$(sed -n 's/^recorded *//p' "$KPT_DIR/stats")" 0
check_eq "overwrite parameter after the runs" \
	"$(cat /sys/module/kptrace/parameters/overwrite)" N

kpt_unload
[ "$SPEC_FAILS" = 0 ] || fail "$SPEC_FAILS check(s) failed (see the FAIL lines above)"
info "kptrace syscalls --flight: the newest SIZE bytes exact, SIGUSR1, the books, a session of its own"
