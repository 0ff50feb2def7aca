#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a flight recorder session (overwrite, small rings) beside a
#   recording one, on one module loaded without overwrite=1: the recording
#   session gets every call; the flight one keeps the newest and counts
#   every other as overwritten
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# kptrace loaded with no parameter. Session R: kpt_read -S -b 1048576 -e
# 'p:r kpt_test_func i=$arg1' follow. Session F: kpt_read -S -o -b 16384
# -e 'p:f kpt_test_func i=$arg1' hold (it reads nothing until it is
# stopped). N = 5000 calls of kpt_test_func(i, ...), i = 1..N, on CPU 0.
# Then:
# - R: N entries, no loss, books hits = recorded = read = N;
# - F: the entries it shows (S of them, 0 < S < N: a 16 KiB ring) are the
#   newest, i = N - S + 1 .. N in order (the first has i = N - S + 1, the
#   last i = N); its loss reports count N - S overwritten, and nothing
#   else lost; its books: hits = N, read = S, lost = N - S, pending 0;
# - the module's parameters still say overwrite=N: the default session is
#   as it was.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
require_cmd taskset
kpt_test_load
kpt_load

N=5000
kpt_session_start "$KPT_TMP/r" -b 1048576 -e 'p:r kpt_test_func i=$arg1' follow
rpid=$KPT_BG
kpt_session_start "$KPT_TMP/f" -v -o -b 16384 -e 'p:f kpt_test_func i=$arg1' hold
fpid=$KPT_BG
KPT_CPU=0 kpt_call "$N"
kpt_session_stop "$rpid" "$KPT_TMP/r"
kpt_session_stop "$fpid" "$KPT_TMP/f"

r=$(grep '^summary ' "$KPT_TMP/r")
rb=$(grep '^books ' "$KPT_TMP/r")
assert_eq "recording: entries" "$(kpt_field entry "$r")" "$N"
assert_eq "recording: loss reports" "$(kpt_field lost "$r")" 0
for f in hits recorded read; do
	assert_eq "recording: books $f" "$(kpt_field $f "$rb")" "$N"
done

f=$(grep '^summary ' "$KPT_TMP/f")
fb=$(grep '^books ' "$KPT_TMP/f")
s=$(kpt_field entry "$f")
info "flight: $s of $N calls kept"
[ "$s" -gt 0 ] && [ "$s" -lt "$N" ] || fail "flight: $s entries shown of $N"
# the i= of the entries shown, in order: N - S + 1 .. N
set -- $(awk '$1 == "rec" && / type=entry / {
	sub(/.* args=/, ""); split($0, a, ","); printf "%d\n", a[1] }' "$KPT_TMP/f" |
	awk -v want=$((N - s + 1)) '
	NR == 1 { first = $1 } { if ($1 != want + NR - 1) bad++; last = $1 }
	END { printf "%d %d %d\n", first, last, bad }')
assert_eq "flight: the first kept" "$1" $((N - s + 1))
assert_eq "flight: the last kept" "$2" "$N"
assert_eq "flight: kept out of order" "$3" 0
assert_eq "flight: reported overwritten" "$(kpt_field lost_overwritten "$f")" $((N - s))
assert_eq "flight: reported lost" "$(kpt_field lost_events "$f")" $((N - s))
assert_eq "flight: books hits" "$(kpt_field hits "$fb")" "$N"
assert_eq "flight: books read" "$(kpt_field read "$fb")" "$s"
assert_eq "flight: books lost" "$(kpt_field lost "$fb")" $((N - s))
assert_eq "flight: books pending" "$(kpt_field pending "$fb")" 0
assert_eq "the module's overwrite=" "$(cat /sys/module/kptrace/parameters/overwrite)" N
info "recording session: all $N; flight: the newest $s, $((N - s)) counted overwritten"
