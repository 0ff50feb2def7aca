#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: refused specs log one line each, but a loop of bad writes
#   cannot flood the kernel log: at most 100 lines in 5 s, then the
#   kernel's "callbacks suppressed" count; error_log keeps the last ones
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# 1000 writes of "p:x kpt_test_func %zz" (unknown register) as fast as the
# shell goes, each refused with EINVAL: the kernel log gets one line per
# refusal for the first 100 of each 5 s and no more (so fewer than 500
# lines here, however slow the guest), error_log ends with the last one.
# 6 s later one more refusal logs its own line again, after the kernel's
# "kpt_error: N callbacks suppressed": lines + suppressed = 1001.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

LINE='kptrace: "p:x kpt_test_func %zz": unknown register, at column 18 (-22)'
kpt_load stack=0
kpt_mark
start=$(date +%s)
i=0
refused=0
while [ $i -lt 1000 ]; do
	echo 'p:x kpt_test_func %zz' 2>/dev/null > "$KPT_DEV" ||
		refused=$((refused + 1))
	i=$((i + 1))
done
secs=$(($(date +%s) - start))
assert_eq "refused writes" "$refused" 1000
n=$(kpt_log_since | grep -cF "$LINE")
info "1000 refusals in ${secs}s: $n log lines"
[ "$n" -ge 100 ] || fail "only $n log lines for 1000 refusals (100 expected first)"
[ "$n" -lt 500 ] || fail "$n log lines for 1000 refusals: not rate limited"
[ "$n" -le $((100 * (secs / 5 + 1))) ] ||
	fail "$n log lines in ${secs}s: more than 100 per 5 s"
assert_eq "kptrace lines that are not the refusal" \
	"$(kpt_log_kptrace | grep -vcF "$LINE")" 0
assert_match "error_log's last entry" "$(tail -n 3 "$KPT_DIR/error_log" | head -n 2)" \
	'kptrace: error: unknown register \(-22\)'

# After a pause, one more refusal logs its line again, preceded by the
# count of what was left out: every refusal is in the log or counted.
mark1=$KPT_MARK
sleep 6
kpt_mark
echo 'p:x kpt_test_func %zz' 2>/dev/null > "$KPT_DEV" && fail "the bad spec was taken"
assert_eq "the refusal after the pause" "$(kpt_log_since | grep -cF "$LINE")" 1
KPT_MARK=$mark1
log=$(kpt_log_since | grep -v 'kpt_selftest: mark')
lines=$(printf '%s\n' "$log" | grep -cF "$LINE")
suppressed=$(printf '%s\n' "$log" |
	sed -n 's/^kpt_error: \([0-9]*\) callbacks suppressed$/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
printf '%s\n' "$log" | grep -v -F "$LINE" | sed 's/^/#   /'
assert_ge "callbacks suppressed" "$suppressed" 1
assert_eq "lines + suppressed" $((lines + suppressed)) 1001
kpt_unload
info "1001 refusals: $lines logged, $suppressed counted as suppressed"
