#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a full ring drops the newest events (overwrite=0) or the
#   oldest (overwrite=1), counts them by cause and reports them to readers
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read, taskset
#
# bufsize_kb=4 (a 4 KiB ring per CPU), args=6 stack=0 (112-byte records),
# no reader, 1000 calls on CPU 0; R = records that fit (1 <= R < 1000).
# overwrite=0:
# - stats: hits = 1000 = recorded + lost.full, recorded = R <= 4096/112;
# - `trace` starts with "CPU:0 [LOST <1000-R> EVENTS: full]", then exactly
#   R entries, arg0=0x1 .. 0x<R>: the first ones;
# - /dev/kptrace (reloaded, same calls): one LOST record (full, 1000-R),
#   then R records on CPU 0 with seq 1..R, none torn.
# overwrite=1:
# - stats: hits = 1000, lost.overwritten = 1000 - R, lost.full = 0;
# - `trace` starts with "CPU:0 [LOST <1000-R> EVENTS: overwritten]", then
#   R entries arg0=0x<1000-R+1> .. 0x3e8 (1000): the last ones, in order;
# - /dev/kptrace: LOST overwritten 1000-R, then seq 1000-R+1 .. 1000.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kpt_read
require_cmd taskset
kpt_test_load

N=1000
KPT_CPU=0
field()
{
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# text OVERWRITE: loads, calls, checks stats and the text; sets R
text()
{
	ow=$1
	kpt_load name=kpt_test_func bufsize_kb=4 args=6 stack=0 overwrite="$ow"
	kpt_call $N
	kpt_stats_check
	R=$(kpt_stat recorded)
	assert_eq "hits (overwrite=$ow)" "$(kpt_stat hits)" $N
	[ "$R" -ge 1 ] && [ "$R" -le $((4096 / 112)) ] ||
		fail "overwrite=$ow: recorded=$R, expected 1..$((4096 / 112))"
	if [ "$ow" = 0 ]; then
		cause=full
		first=1
	else
		cause=overwritten
		first=$((N - R + 1))
	fi
	for c in full overwritten nested too_big; do
		want=0
		[ $c = $cause ] && want=$((N - R))
		assert_eq "lost.$c (overwrite=$ow)" "$(kpt_stat "lost.$c")" "$want"
	done
	kpt_trace_read "$KPT_TMP/trace"
	head -n 3 "$KPT_TMP/trace" | sed 's/^/#   /'
	echo "#   ..."
	tail -n 2 "$KPT_TMP/trace" | sed 's/^/#   /'
	assert_eq "line 1 (overwrite=$ow)" "$(sed -n 1p "$KPT_TMP/trace")" \
		"CPU:0 [LOST $((N - R)) EVENTS: $cause]"
	assert_eq "lines (overwrite=$ow)" "$(grep -c '' "$KPT_TMP/trace")" $((R + 1))
	sed -n '2,$p' "$KPT_TMP/trace" |
		sed -n 's/.*: kpt_test_func: arg0=0x\([0-9a-f]*\) .*/\1/p' > "$KPT_TMP/a0"
	want=$(awk -v f="$first" -v n="$R" 'BEGIN {
		for (i = f; i < f + n; i++) printf "%x\n", i }')
	assert_eq "arg0 of the records kept (overwrite=$ow)" \
		"$(cat "$KPT_TMP/a0" | tr '\n' ' ')" "$(echo "$want" | tr '\n' ' ')"
	kpt_unload
}

# binary OVERWRITE: the same through /dev/kptrace
binary()
{
	ow=$1
	kpt_load name=kpt_test_func bufsize_kb=4 args=6 stack=0 overwrite="$ow"
	kpt_call $N
	R=$(kpt_stat recorded)
	"$KPT_READ" -v drain > "$KPT_TMP/recs" || fail "kpt_read drain failed"
	s=$(grep '^summary ' "$KPT_TMP/recs")
	c=$(grep '^cpu 0 ' "$KPT_TMP/recs")
	info "$s"
	info "$c"
	if [ "$ow" = 0 ]; then
		cause=full
		first=1
	else
		cause=overwritten
		first=$((N - R + 1))
	fi
	assert_eq "first record (overwrite=$ow)" \
		"$(grep '^rec ' "$KPT_TMP/recs" | head -n 1 | sed 's/.* type=//')" \
		"lost cause=$cause count=$((N - R))"
	assert_eq "records (overwrite=$ow)" "$(field records "$s")" "$R"
	assert_eq "LOST records (overwrite=$ow)" "$(field lost "$s")" 1
	assert_eq "bad records (overwrite=$ow)" "$(field bad "$s")" 0
	assert_eq "seq errors (overwrite=$ow)" "$(field seq_errors "$s")" 0
	assert_eq "first seq (overwrite=$ow)" "$(field first_seq "$c")" "$first"
	assert_eq "last seq (overwrite=$ow)" "$(field last_seq "$c")" $((first + R - 1))
	assert_eq "seq gaps (overwrite=$ow)" "$(field gaps "$c")" 0
	assert_eq "last arg0 (overwrite=$ow)" \
		"$(grep '^rec .*type=entry' "$KPT_TMP/recs" | tail -n 1 | sed 's/.* args=\([^,]*\),.*/\1/')" \
		"$(printf '0x%x' $((first + R - 1)))"
	kpt_stats_check
	assert_eq "read (overwrite=$ow)" "$(kpt_stat read)" "$R"
	kpt_unload
}

text 0
binary 0
text 1
binary 1
info "drops counted and reported, the right records kept"
