#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an aggregation (hist:) counts exactly: N calls of
#   kpt_test_func give hitcount N in the buckets the arguments determine,
#   for plain, .log2, .buckets=N and .loglin keys, comm, retval and a
#   stacktrace; values sum with min and max; Hits = Aggregated + Filtered
#   + Dropped in the hist file and in probe_stats; clear swaps the table
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# Call i (1..20) is kpt_test_func(i, 0x1111, ...), returning -i.
# p:ha kpt_test_func a=$arg1:u32 hist:keys=a:vals=a, 3 x 20 calls: 20
#   entries "{ a: i } hitcount: 3  a: 3i  a.min: i  a.max: i".
# p:hl ... hist:keys=a.log2 (ftrace's buckets: ~2^k holds (2^(k-1), 2^k]):
#   2^0:1 2^1:1 2^2:2 2^3:4 2^4:8 2^5:4.
# p:hb ... hist:keys=a.buckets=5: 0-4:4 5-9:5 10-14:5 15-19:5 20-24:1.
# r:hr kpt_test_func a=$arg1 if a > 15 hist:keys=comm,retval:vals=lat_ns:
#   5 entries (retval -16..-20), Filtered 15, comm the caller's.
# p:hs kpt_test_func hist:keys=stacktrace: 1 entry of 20; the first frame
#   is kpt_test_func, the second kpt_test_call_loop.
# p:hg ... hist:keys=a.loglin with a = i * 1000: each value in a bucket
#   whose range holds it and is at most 1/16 of its low end wide.
# p:he kpt_test_func a=$arg1:u32 if a > 2 hist:keys=a:events, 5 calls:
#   3 entries and the same 3 events; probe_stats filtered 2 recorded 3.
# r:hq kpt_test_sleep hist:keys=lat_ns.log2, a latency histogram alone
#   (a handler of its own): two 40 ms sleeps, both in one bucket of
#   2^26..2^28 (40 ms is in (2^25, 2^26] ns, and a late wake-up stays
#   under 2^28); r:hp kpt_test_func hist:keys=lat_ns.log2: 20 calls, 20
#   hits aggregated.
# clear: the file that wrote it reads the 20 old hits; a new open reads an
#   empty live table; 20 more calls land there; probe_stats agg_hits counts
#   all 40. Deleting the probe removes hist/NAME.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load
kpt_load

H=$KPT_DIR/hist
[ -d "$H" ] || fail "no $H directory"

# entries NAME: the entry lines of hist/NAME, spaces squeezed
entries() { grep '^{' "$H/$1" | tr -s ' '; }
# total NAME FIELD: a Totals line's number
total() { sed -n "s/^    $2: //p" "$H/$1"; }
# books NAME: Hits = Aggregated + Filtered + Dropped, Dropped = the causes
books()
{
	_h=$(total "$1" Hits); _a=$(total "$1" Aggregated)
	_f=$(total "$1" Filtered); _d=$(total "$1" Dropped)
	_c=$(($(total "$1" "Dropped table_full") + $(total "$1" "Dropped nested") + \
		$(total "$1" "Dropped key_too_large")))
	check_eq "$1: hits = aggregated + filtered + dropped" "$_h" $((_a + _f + _d))
	check_eq "$1: dropped by cause" "$_c" "$_d"
	check_eq "$1: aggregated = sum of hitcounts" "$_a" \
		"$(sed -n 's/.*} hitcount: *\([0-9]*\).*/\1/p' "$H/$1" | awk '{ s += $1 } END { print s + 0 }')"
}

spec_add 'p:ha kpt_test_func a=$arg1:u32 hist:keys=a:vals=a'
spec_add 'p:hl kpt_test_func a=$arg1:u32 hist:keys=a.log2:sort=a'
spec_add 'p:hb kpt_test_func a=$arg1:u32 hist:keys=a.buckets=5:sort=a'
spec_add 'r:hr kpt_test_func a=$arg1:u32 if a > 15 hist:keys=comm,retval:vals=lat_ns:sort=retval.descending'
spec_add 'p:hs kpt_test_func hist:keys=stacktrace'
kpt_call 20
kpt_call 20
kpt_call 20
sed 's/^/#   /' "$H/ha" | head -n 12

want=
for i in $(seq 1 20); do
	want="$want{ a: $i } hitcount: 3 a: $((3 * i)) a.min: $i a.max: $i
"
done
check_eq "ha entries" "$(entries ha | sort -t: -k2 -n)" \
	"$(printf '%s' "$want" | sort -t: -k2 -n)"
check_eq "ha Hits" "$(total ha Hits)" 60
check_eq "ha Entries" "$(total ha Entries)" 20
books ha
check_match "ha trigger info" "$(grep '^# trigger info' "$H/ha")" \
	'hist:keys=a:vals=hitcount,a:sort=hitcount:size=2048 \[active\]$'

check_eq "hl log2 buckets" "$(entries hl | tr '\n' '|')" \
"{ a: ~ 2^0 } hitcount: 3|{ a: ~ 2^1 } hitcount: 3|{ a: ~ 2^2 } hitcount: 6|{ a: ~ 2^3 } hitcount: 12|{ a: ~ 2^4 } hitcount: 24|{ a: ~ 2^5 } hitcount: 12|"
books hl
check_eq "hb linear buckets" "$(entries hb | tr '\n' '|')" \
"{ a: ~ 0-4 } hitcount: 12|{ a: ~ 5-9 } hitcount: 15|{ a: ~ 10-14 } hitcount: 15|{ a: ~ 15-19 } hitcount: 15|{ a: ~ 20-24 } hitcount: 3|"

sed 's/^/#   /' "$H/hr" | grep -v '^#   #'
check_eq "hr entries" "$(entries hr | sed 's/lat_ns: .*//' | tr '\n' '|')" \
"{ comm: sh , retval: -16 } hitcount: 3 |{ comm: sh , retval: -17 } hitcount: 3 |{ comm: sh , retval: -18 } hitcount: 3 |{ comm: sh , retval: -19 } hitcount: 3 |{ comm: sh , retval: -20 } hitcount: 3 |"
check_eq "hr Filtered" "$(total hr Filtered)" 45
books hr
grep '^{' "$H/hr" | tr -s ' ' | while read -r line; do
	set -- $line
	# { comm: sh , retval: -N } hitcount: 3 lat_ns: S lat_ns.min: A lat_ns.max: B
	[ "${11}" -ge 1 ] && [ "${13}" -le "${15}" ] && [ "${11}" -ge "${15}" ] ||
		echo "bad lat_ns values: $line"
done > "$KPT_TMP/hr_bad"
check_eq "hr lat_ns sum >= max >= min > 0" "$(cat "$KPT_TMP/hr_bad")" ""

sed 's/^/#   /' "$H/hs" | grep -v '^#   #' | head -n 20
check_eq "hs hitcount" "$(sed -n 's/^} hitcount: *//p' "$H/hs")" 60
check_match "hs frame 0" "$(sed -n '/stacktrace:/{n;p;}' "$H/hs")" \
	'^ {9}kpt_test_func\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]$'
check_match "hs frame 1" "$(sed -n '/stacktrace:/{n;n;p;}' "$H/hs")" \
	'^ {9}kpt_test_call_loop\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]$'
books hs

# probe_stats: the books since the probe was made
check_eq "ha probe_stats agg_hits/aggregated/calls/events" \
	"$(spec_stat ha agg_hits)/$(spec_stat ha aggregated)/$(spec_stat ha calls)/$(spec_stat ha events)" \
	60/60/60/0
check_eq "hr probe_stats agg_hits/agg_filtered" \
	"$(spec_stat hr agg_hits)/$(spec_stat hr agg_filtered)" 60/45

# clear: this fd reads the interval that ended, a new open the live one
exec 3<>"$H/ha"
echo clear >&3 || fail "writing clear to hist/ha"
check_eq "cleared interval Hits" "$(sed -n 's/^    Hits: //p' <&3)" 60
check_eq "live Hits after clear" "$(total ha Hits)" 0
check_eq "live Entries after clear" "$(total ha Entries)" 0
kpt_call 20
check_eq "live Hits after 20 calls" "$(total ha Hits)" 20
check_eq "probe_stats agg_hits over both" "$(spec_stat ha agg_hits)" 80
exec 3<&-
_r=$(sh -c "echo nonsense > $H/ha" 2>&1)
check_match "writing nonsense" "$_r" "Invalid argument"

# loglin: 1..20 each in its own bucket (under 32 they are exact); -i as
# a u64 (2^64 - i) all in the top bucket of 2^63, 2^59 wide.
spec_add 'p:hg kpt_test_func a=$arg1:u32 hist:keys=a.loglin:sort=a'
spec_add 'p:hn kpt_test_vals n=$arg2:u64 hist:keys=n.loglin'
kpt_call 20
echo 20 > "$KPT_TEST_DIR/vals" || fail "writing kpt_test/vals"
check_eq "hg: each of 1..20 in its own exact bucket" \
	"$(entries hg | sed -n 's/^{ a: ~ \([0-9]*\)-\([0-9]*\) } hitcount: 1$/\1-\2/p' | tr '\n' ' ')" \
	"$(seq 1 20 | awk '{ printf "%d-%d ", $1, $1 }')"
check_eq "hn: 2^64 - i in the top bucket" "$(entries hn)" \
	"{ n: ~ 17870283321406128128-18446744073709551615 } hitcount: 20"

# string keys, escaped; one longer than a key holds is dropped, counted
spec_add 'p:hk kpt_test_strs k=+0($arg1):string u=+0($arg2):ustring hist:keys=k,u'
check_eq "write to strs" "$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" 'at entry')" ok
check_eq "write a long string to strs" "$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" \
	"$(printf '%070d' 0)")" ok
check_eq "hk entries" "$(entries hk)" \
	'{ k: kpt_test\x20"kernel"\x20string\x20\x5c\x20end, u: at\x20entry } hitcount: 1'
check_eq "hk key_too_large" "$(total hk 'Dropped key_too_large')" 1
books hk

# :events: the same hits also recorded, filtered by the same condition
spec_add 'p:he kpt_test_func a=$arg1:u32 if a > 2 hist:keys=a:events'
kpt_trace_read "$KPT_TMP/before"
kpt_call 5
kpt_trace_read "$KPT_TMP/ev"
check_eq "he entries" "$(entries he | tr '\n' '|')" \
	"{ a: 3 } hitcount: 1|{ a: 4 } hitcount: 1|{ a: 5 } hitcount: 1|"
check_eq "he events" "$(spec_events "$KPT_TMP/ev" he | tr '\n' '|')" \
	"he: a=3|he: a=4|he: a=5|"
check_eq "he probe_stats calls/events/filtered/recorded/agg_hits/agg_filtered" \
	"$(for f in calls events filtered recorded agg_hits agg_filtered; do spec_stat he $f; done | tr '\n' /)" \
	"5/5/2/3/5/2/"
spec_add '-:he'

spec_add '-:ha'
check_eq "hist/ha gone with its probe" "$([ -e "$H/ha" ] && echo present)" ""
spec_add 'p:ha kpt_test_func hist:keys=cpu'
check_eq "hist/ha again" "$([ -e "$H/ha" ] && echo present)" present

# a latency histogram alone: kpt_kretprobe_ret_lat
spec_add 'r:hq kpt_test_sleep hist:keys=lat_ns.log2'
spec_add 'r:hp kpt_test_func hist:keys=lat_ns.log2'
kpt_sleep_call 40
kpt_sleep_call 40
kpt_call 20
sed 's/^/#   /' "$H/hq" | grep -v '^#   #'
check_eq "hq: two 40 ms sleeps in one bucket of 2^26..2^28" \
	"$(entries hq | sed -n 's/^{ lat_ns: ~ 2^\(2[678]\) } hitcount: 2$/ok/p')" ok
check_eq "hq Hits" "$(total hq Hits)" 2
books hq
check_eq "hp Hits/Aggregated" "$(total hp Hits)/$(total hp Aggregated)" 20/20
check_match "hp buckets" "$(entries hp | head -n 1)" '^\{ lat_ns: ~ 2\^[0-9]+ \} hitcount: [0-9]+$'
books hp
spec_add '-:hq'
spec_add '-:hp'

# sizes: refused, with the reason in error_log
spec_expect EINVAL 'p:hz kpt_test_func hist:keys=pid:size=131073'
spec_expect E2BIG 'p:hz kpt_test_func a=+0($arg1):string b=+0($arg2):string hist:keys=stacktrace,a,b:size=131072'
check_match "E2BIG reason" "$(spec_err_last | head -n 1)" 'over 256 MiB'
check_eq "no hist/hz" "$([ -e "$H/hz" ] && echo present)" ""

spec_finish "hist keys, buckets, values, books and clear exact"
