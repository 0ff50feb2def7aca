#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace hist NAME reads the aggregation in binary through
#   /dev/kptrace (ioctl KPT_IOC_HIST) and gives exactly what the text file
#   hist/NAME gives; clearing through the ioctl returns the interval that
#   ended; a buffer too small is retried without a hit lost
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# Three aggregations on kpt_test_func(i, ...), i = 1..20:
#   hb: keys=a.log2,comm vals=a   hk: keys=a.buckets=7   hs: keys=comm,stacktrace
# - `kptrace hist NAME -j` (binary) equals the same command on the text
#   files (KPTRACE_HIST_DIR=hist/), for each; hb's hitcounts are 1 1 2 4 4 8
#   (ascending), hk's 6 7 7, hs's one stack 20; Hits 20 = Aggregated 20;
# - with kptr_restrict=2 (addresses hidden) the two still agree (hs: the
#   stack "(hidden)");
# - 10 more calls, `-i 1 -c 1` (clear by ioctl): the ended interval has
#   Hits 30 and a.log2 counts 2 2 4 4 8 10 exactly, and the live table,
#   binary and text, Hits 0;
# - KPTRACE_HIST_BUF=8 (every read first fails with ENOSPC): the same JSON,
#   and a clear with 5 calls in it returns Hits 5 (the retry reads the
#   interval the clear ended, by its gen);
# - 50 deletes and re-adds of hk while loops read and clear it through
#   the ioctl: every read gives the table or "no aggregation hk";
# - a name that does not exist: exit 1, "no aggregation NAME";
# - uid 65534: exit 1, the device cannot be opened.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load

cleanup()
{
	[ -n "$passwd_saved" ] && cp "$KPT_TMP/passwd" /etc/passwd
	return 0
}

kpt_load
kpt_kallsyms_visible
"$KPTRACE" probe add 'p:hb kpt_test_func a=$arg1:u32 hist:keys=a.log2,comm:vals=a' ||
	fail "kptrace probe add hb"
"$KPTRACE" probe add 'p:hk kpt_test_func a=$arg1:u32 hist:keys=a.buckets=7' ||
	fail "kptrace probe add hk"
"$KPTRACE" probe add 'p:hs kpt_test_func hist:keys=comm,stacktrace' ||
	fail "kptrace probe add hs"
kpt_call 20

# same_as_text NAME WHAT: binary and text JSON of NAME equal; prints it
same_as_text()
{
	"$KPTRACE" hist "$1" -j > "$KPT_TMP/$1.bin" 2> "$KPT_TMP/$1.err" ||
		fail "kptrace hist $1 -j (binary): $(cat "$KPT_TMP/$1.err")"
	KPTRACE_HIST_DIR=$KPT_DIR/hist "$KPTRACE" hist "$1" -j \
		> "$KPT_TMP/$1.txt" 2> "$KPT_TMP/$1.err" ||
		fail "kptrace hist $1 -j (text): $(cat "$KPT_TMP/$1.err")"
	sed 's/^/#   /' "$KPT_TMP/$1.bin" | head -n 30
	assert_eq "$2: binary = text" "$(cat "$KPT_TMP/$1.bin")" \
		"$(cat "$KPT_TMP/$1.txt")"
}

# hitcounts FILE: the JSON's hitcounts, in ascending order
hitcounts()
{
	grep -o '"hitcount": *[0-9]*' "$1" | sed 's/.*: *//' | sort -n |
		tr '\n' ' '
}

# total FILE NAME: a total of the JSON
total()
{
	tr -d '\n' < "$1" | grep -o "\"$2\": *[0-9]*" | sed 's/.*: *//'
}

same_as_text hb "hb (.log2, comm, vals=a)"
same_as_text hk "hk (.buckets=7)"
same_as_text hs "hs (comm, stacktrace)"
assert_eq "hb hitcounts" "$(hitcounts "$KPT_TMP/hb.bin")" "1 1 2 4 4 8 "
assert_eq "hk hitcounts" "$(hitcounts "$KPT_TMP/hk.bin")" "6 7 7 "
assert_eq "hs hitcounts" "$(hitcounts "$KPT_TMP/hs.bin")" "20 "
for n in hb hk hs; do
	assert_eq "$n Hits" "$(total "$KPT_TMP/$n.bin" hits)" 20
	assert_eq "$n Aggregated" "$(total "$KPT_TMP/$n.bin" aggregated)" 20
done
assert_match "hs: the probed function first" "$(cat "$KPT_TMP/hs.bin")" \
	'"kpt_test_func\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]"'
info "binary = text for .log2, comm, .buckets=7 and a stack; counts exact"

# addresses hidden: both forms hide the same
_kr=/proc/sys/kernel/kptr_restrict
[ -n "$KPT_KR_SAVED" ] || KPT_KR_SAVED=$(cat "$_kr")
echo 2 > "$_kr" || fail "cannot set kptr_restrict=2"
same_as_text hs "hs, kptr_restrict=2"
same_as_text hb "hb, kptr_restrict=2"
assert_match "hs hidden" "$(cat "$KPT_TMP/hs.bin")" '"\(hidden\)"'
echo "$KPT_KR_SAVED" > "$_kr"
info "kptr_restrict=2: binary = text, the stack (hidden)"

# clear by ioctl: the ended interval, exact, and a live table of 0
kpt_call 10
"$KPTRACE" hist hb -i 1 -c 1 -j > "$KPT_TMP/iv.json" ||
	fail "kptrace hist hb -i 1 -c 1 -j"
sed 's/^/#   /' "$KPT_TMP/iv.json" | head -n 30
assert_eq "ended interval Hits" "$(total "$KPT_TMP/iv.json" hits)" 30
assert_eq "ended interval Aggregated" "$(total "$KPT_TMP/iv.json" aggregated)" 30
assert_eq "ended interval hitcounts" "$(hitcounts "$KPT_TMP/iv.json")" \
	"2 2 4 4 8 10 "
assert_eq "live table after the clear (text)" \
	"$(sed -n 's/^    Hits: //p' "$KPT_DIR/hist/hb")" 0
"$KPTRACE" hist hb -j > "$KPT_TMP/live.json" || fail "kptrace hist hb -j"
assert_eq "live table after the clear (binary)" \
	"$(total "$KPT_TMP/live.json" hits)" 0
info "clear by ioctl: the interval that ended, Hits 30, then 0 live"

# -ENOSPC: an 8-byte first buffer, retried
kpt_call 20
same_as_text hk "hk, before the small buffer"
KPTRACE_HIST_BUF=8 "$KPTRACE" hist hk -j > "$KPT_TMP/hk.small" ||
	fail "kptrace hist hk -j, KPTRACE_HIST_BUF=8"
assert_eq "ENOSPC retried: same table" "$(cat "$KPT_TMP/hk.small")" \
	"$(cat "$KPT_TMP/hk.bin")"
"$KPTRACE" hist hb -i 1 -c 1 > /dev/null || fail "clear hb"
kpt_call 5
KPTRACE_HIST_BUF=8 "$KPTRACE" hist hb -i 1 -c 1 -j > "$KPT_TMP/iv5.json" ||
	fail "kptrace hist hb -i 1 -c 1 -j, KPTRACE_HIST_BUF=8"
assert_eq "ENOSPC after a clear: the interval's Hits" \
	"$(total "$KPT_TMP/iv5.json" hits)" 5
assert_eq "ENOSPC after a clear: hitcounts" \
	"$(hitcounts "$KPT_TMP/iv5.json")" "1 1 1 2 "
assert_eq "live table after it" \
	"$(sed -n 's/^    Hits: //p' "$KPT_DIR/hist/hb")" 0
info "ENOSPC: retried, and the interval a clear ended is read by its gen"

# Deletes under readers: the ioctl makes the table under the probes' lock,
# which a delete takes to free it (kpt_probes_hist()); 50 deletes and
# re-adds of hk while one loop reads it and another clears it through the
# ioctl.
# Every read gives the table or "no aggregation hk"; the console check
# catches a use-after-free or a hung task.
: > "$KPT_TMP/race.err"
: > "$KPT_TMP/race.reads"
(
	while [ ! -e "$KPT_TMP/race.stop" ]; do
		"$KPTRACE" hist hk -j > /dev/null 2>> "$KPT_TMP/race.err"
		echo >> "$KPT_TMP/race.reads"
	done
) &
race=$!
(
	while [ ! -e "$KPT_TMP/race.stop" ]; do
		"$KPTRACE" hist hk -i 1 -c 1 > /dev/null 2>> "$KPT_TMP/race.err"
	done
) &
race2=$!
i=0
while [ $i -lt 50 ]; do
	echo '-:hk' > "$KPT_DEV" || fail "race $i: delete refused"
	echo 'p:hk kpt_test_func a=$arg1:u32 hist:keys=a.buckets=7' > "$KPT_DEV" ||
		fail "race $i: add refused"
	kpt_call 1
	i=$((i + 1))
done
touch "$KPT_TMP/race.stop"
wait $race $race2
sort "$KPT_TMP/race.err" | uniq -c | sed 's/^/#   /' | head -5
assert_eq "reads and clears racing 50 deletes: other errors" \
	"$(grep -v '^kptrace: no aggregation hk ' "$KPT_TMP/race.err" | head -3)" ""
info "50 deletes and re-adds under $(wc -l < "$KPT_TMP/race.reads") ioctl reads and the clears: no other error"

# errors
"$KPTRACE" hist nosuch > "$KPT_TMP/out" 2> "$KPT_TMP/err"
assert_eq "no such aggregation: exit status" "$?" 1
assert_eq "no such aggregation: message" "$(cat "$KPT_TMP/err")" \
	"kptrace: no aggregation nosuch (see: kptrace hist)"
cp /etc/passwd "$KPT_TMP/passwd" && passwd_saved=1
grep -q '^kptnobody:' /etc/passwd ||
	echo 'kptnobody:x:65534:65534::/:/bin/sh' >> /etc/passwd
su -s /bin/sh kptnobody -c "'$KPTRACE' hist hb" > "$KPT_TMP/out" 2> "$KPT_TMP/err"
assert_eq "uid 65534: exit status" "$?" 1
sed 's/^/#   /' "$KPT_TMP/err"
assert_match "uid 65534: message" "$(cat "$KPT_TMP/err")" \
	'^kptrace: cannot open /dev/kptrace: Permission denied \(it needs root'
info "no such name: ENOENT with its message; uid 65534: refused"
