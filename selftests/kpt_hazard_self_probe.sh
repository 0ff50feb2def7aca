#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: probing what kptrace's own handler calls (the clock, the
#   stack unwinder, irq_work_queue, memcpy) next to a normal target: no
#   hang, no recursion, every skipped hit counted in missed
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_read
#
# Candidates: ktime_get_mono_fast_ns (every handler), __unwind_start,
# unwind_next_frame (every handler with stack>0),
# unwind_get_return_address (only once the unwinder had to guess a frame:
# kpt_unwind_ip(), module/compat.h), irq_work_queue (a handler waking a
# reader), memcpy (the comm
# copy; a C function under KASAN, left out of the run on a debug kernel,
# where trapping every memcpy stalls the guest). Each is first loaded
# alone: it is either probed, or refused with EINVAL (blacklisted,
# noinstr) and left out, and said; one the handler always calls (the
# clock, the unwinder) missing from /proc/kallsyms fails the test. Then
# kptrace loads kpt_test_func plus every probeable candidate, stack=16,
# with helpers/kpt_read following /dev/kptrace, and
# kpt_test_func is called N times (KPT_HAZ_SELF_N, default 2000) on one CPU.
# - the calls return (no hang, no recursion: the test's timeout);
# - kpt_test_func: hits = N, missed = 0;
# - every candidate the handler always calls (the clock, the unwinder):
#   missed >= N, since each of kptrace's N handler runs hit it once at
#   least and the kprobe core refused to re-enter; the clock only >= 1
#   when stats says clock_tsc 1 (then a handler reads the TSC, and calls
#   ktime_get_mono_fast_ns() once per ms or so, see module/clock.h);
# - stats: missed >= the sum of the probes' missed read just before (the
#   helpers are hit kernel-wide all the time).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_kpt_read
kpt_test_load

N=${KPT_HAZ_SELF_N:-$(kpt_haz_n 2000 500)}
ALWAYS="ktime_get_mono_fast_ns __unwind_start unwind_next_frame"
CANDIDATES="$ALWAYS unwind_get_return_address irq_work_queue memcpy"

names=kpt_test_func
probed=
for s in $CANDIDATES; do
	if ! grep -q " [tTwW] $s\$" /proc/kallsyms; then
		# The handler calls the clock and the unwinder on every
		# kernel kptrace builds for: they are there.
		case " $ALWAYS " in
		*" $s "*) fail "$s: not in /proc/kallsyms, but kptrace's handler calls it" ;;
		esac
		info "$s: not in kallsyms, left out"
		continue
	fi
	kpt_mark
	if out=$(insmod "$KPT_KO" name="$s" args=1 stack=0 2>&1); then
		kpt_unload
		if [ "$s" = memcpy ] && [ "$KPT_HAZ_SLOW" = 1 ]; then
			# KASAN's memcpy is a C function, probed with an int3:
			# every memcpy of the kernel then traps, which under
			# TCG stalls the guest for many minutes.
			info "$s: probeable, left out of the run on this slow kernel"
			continue
		fi
		names="$names,$s"
		probed="$probed $s"
		info "$s: probeable"
	else
		why=$(kpt_log_kptrace | head -n 1)
		case $why in
		*"(-22)"*) info "$s: refused, $why" ;;
		*) fail "$s: load failed, not with EINVAL: $out / $why" ;;
		esac
	fi
done
[ -n "$probed" ] || skip "none of $CANDIDATES is probeable on this kernel"

kpt_load name="$names" stack=16 bufsize_kb=4096
sed 's/^/#   /' "$KPT_DIR/probes"
kpt_bg "$KPT_READ" follow > "$KPT_TMP/reader" 2> "$KPT_TMP/reader.err"
reader=$KPT_BG
sleep 1
start=$(date +%s)
kpt_call "$N"
info "$N calls took $(kpt_haz_elapsed "$start")s"
sleep 1
kill -TERM "$reader"
wait "$reader" || fail "reader failed: $(cat "$KPT_TMP/reader.err")"
KPT_BG_PIDS=
grep '^summary' "$KPT_TMP/reader" | sed 's/^/#   reader: /'
sed 's/^/#   /' "$KPT_DIR/probes"

assert_eq "kpt_test_func hits" "$(kpt_haz_probe_field 0 hits)" "$N"
assert_eq "kpt_test_func missed" "$(kpt_haz_probe_field 0 missed)" 0
tsc=$(kpt_stat clock_tsc)
id=0
sum=0
for s in $(echo "$names" | tr , ' '); do
	m=$(kpt_haz_probe_field $id missed)
	sum=$((sum + m))
	case " $ALWAYS " in
	*" $s "*)
		want=$N
		# the TSC clock calls it only when its anchor moves
		[ "$s" != ktime_get_mono_fast_ns ] || [ "$tsc" != 1 ] || want=1
		assert_ge "$s missed (handler runs: $N)" "$m" "$want" ;;
	esac
	id=$((id + 1))
done
summary=$(grep '^summary ' "$KPT_TMP/reader")
assert_eq "bad records" "$(kpt_haz_field bad "$summary")" 0
assert_eq "per-CPU seq errors" "$(kpt_haz_field seq_errors "$summary")" 0
# The helpers stay probed kernel-wide (the clock is hit all the time), so
# hits are in flight whenever stats is read: its exact invariants are the
# other tests' business; here the counters only grow between two reads.
assert_ge "stats missed >= the probes' missed read before" "$(kpt_stat missed)" "$sum"
kpt_unload
info "probed alongside kpt_test_func:$probed; all skipped hits counted (missed=$sum)"
