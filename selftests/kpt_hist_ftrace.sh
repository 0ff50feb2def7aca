#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the same aggregations in ftrace's hist triggers and in
#   kptrace, the same calls in one boot: the same keys give the same
#   hitcounts
# requires: root, debugfs, tracefs with kprobe_events and hist triggers
#   (CONFIG_HIST_TRIGGERS: not in Debian's 5.10), kptrace.ko, kpt_test.ko,
#   helpers/kpt_spec
#
# Both armed before the workload, on the same functions:
#   kpt_test_func a=%di:u32   keys a, a.log2, a.buckets=7, cpu (%x0 on
#                             arm64: lib.sh's KPT_REG_ARG1, which both
#                             languages name alike)
#   do_sys_openat2            keys comm (ftrace: common_pid.execname,
#                             summed per name)
# Workload: 2 x 20 calls of kpt_test_func on one CPU, 30 on every CPU,
#   7 runs of ls and 5 of cat. Entries of each pair, spaces squeezed and
#   sorted, must be equal; the per-comm sums of ls and cat too.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load
kpt_tracefs
[ -e "$TR/events/kprobes" ] || [ -e "$TR/kprobe_events" ] ||
	skip "no kprobe events"
grep -q hist "$TR/README" 2>/dev/null ||
	{ kpt_tracefs_done; skip "no hist triggers (CONFIG_HIST_TRIGGERS)"; }

TRACING_ON=$(cat "$TR/tracing_on")
cleanup()
{
	for e in fa fl fb fc o; do
		echo "!$(cat "$KPT_TMP/trig.$e" 2>/dev/null)" > \
			"$TR/events/kpth/$e/trigger" 2>/dev/null
	done
	echo 0 > "$TR/events/kpth/enable" 2>/dev/null
	for e in fa fl fb fc o; do
		echo "-:kpth/$e" >> "$TR/kprobe_events" 2>/dev/null
	done
	echo > "$TR/trace" 2>/dev/null
	echo "$TRACING_ON" > "$TR/tracing_on" 2>/dev/null
	kpt_tracefs_done
	return 0
}

# NAME FUNC ARGS KEYS: the same aggregation in both
both()
{
	echo "p:kpth/$1 $2 $3" >> "$TR/kprobe_events" ||
		fail "ftrace refused p:kpth/$1 $2 $3"
	echo "hist:keys=$5" > "$KPT_TMP/trig.$1"
	if ! cat "$KPT_TMP/trig.$1" > "$TR/events/kpth/$1/trigger" 2>/dev/null; then
		sed 's/^/#   ftrace: /' "$TR/error_log" 2>/dev/null | tail -n 3
		fail "ftrace refused the trigger hist:keys=$5 on $1"
	fi
	spec_add "p:$1 $2 $3 hist:keys=$4"
}

kpt_load
both fa kpt_test_func "a=$KPT_REG_ARG1:u32" a a
both fl kpt_test_func "a=$KPT_REG_ARG1:u32" a.log2 a.log2
both fb kpt_test_func "a=$KPT_REG_ARG1:u32" a.buckets=7 a.buckets=7
both fc kpt_test_func "a=$KPT_REG_ARG1:u32" cpu cpu
both o do_sys_openat2 '' comm common_pid.execname
echo 1 > "$TR/events/kpth/enable" || fail "cannot enable the kpth events"
echo 1 > "$TR/tracing_on"

kpt_call 20
kpt_call 20
kpt_call_all 30
i=0
while [ $i -lt 7 ]; do ls / > /dev/null; i=$((i + 1)); done
i=0
while [ $i -lt 5 ]; do cat /proc/version > /dev/null; i=$((i + 1)); done
echo 0 > "$TR/tracing_on"

# entries FILE: the { ... } lines, spaces squeezed, sorted
entries() { grep '^{' "$1" | tr -s ' ' | sort; }

for e in fa fl fb fc; do
	entries "$TR/events/kpth/$e/hist" > "$KPT_TMP/ft.$e"
	entries "$KPT_DIR/hist/$e" > "$KPT_TMP/kpt.$e"
	sed 's/^/#   ftrace:  /' "$KPT_TMP/ft.$e" | head -n 8
	sed 's/^/#   kptrace: /' "$KPT_TMP/kpt.$e" | head -n 8
	check_eq "$e: entries" "$(grep -c '' "$KPT_TMP/kpt.$e")" \
		"$(grep -c '' "$KPT_TMP/ft.$e")"
	if ! cmp -s "$KPT_TMP/ft.$e" "$KPT_TMP/kpt.$e"; then
		diff "$KPT_TMP/ft.$e" "$KPT_TMP/kpt.$e" | sed 's/^/#   /'
		check_fail "$e: hitcounts differ (- ftrace, + kptrace)"
	fi
done
check_eq "fa: 30 keys" "$(grep -c '' "$KPT_TMP/kpt.fa")" 30

# comm: ftrace keys each pid ("{ common_pid: ls [ 123] } hitcount: N")
for c in ls cat; do
	ft=$(grep '^{' "$TR/events/kpth/o/hist" | tr -s ' ' |
		awk -v c="$c" '$3 == c { s += $NF } END { print s + 0 }')
	kp=$(grep '^{' "$KPT_DIR/hist/o" | tr -s ' ' |
		awk -v c="$c" '$3 == c { s += $NF } END { print s + 0 }')
	info "do_sys_openat2 by $c: ftrace $ft, kptrace $kp"
	check_eq "o: opens by $c" "$kp" "$ft"
	[ "$ft" -gt 0 ] || check_fail "o: no opens by $c"
done

spec_finish "kptrace's hist equals ftrace's hist trigger for 5 aggregations"
