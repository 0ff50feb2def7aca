#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: sym+0 .. sym+255 of a real kernel function: every load
#   either works (and the probe is hit) or is refused with EILSEQ or EINVAL,
#   never an oops
# requires: root, debugfs, kptrace.ko, helpers/kpt_insmod
#
# The function is do_sys_openat2 (KPT_HAZ_SWEEP_SYM), called by every
# open(): after each load that works, a few files are opened so that the
# probe, wherever it sits, is run when it is on the path, and then kptrace
# is unloaded. Offsets past the function's end land in the next function,
# which the kprobe core may accept: that is fine too. Each refusal must
# leave kptrace unloaded with exactly one "kptrace: " line naming the
# offset. The sweep goes 0..KPT_HAZ_SWEEP_MAX (default 255) by
# KPT_HAZ_SWEEP_STEP (default 1; 3 on a debug kernel), and stops early,
# saying so, after KPT_HAZ_SWEEP_BUDGET seconds (default 105, or
# KPT_HAZ_BUDGET when that is larger).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
[ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ] ||
	skip "helpers/kpt_insmod not built (make -C selftests helpers)"

SYM=${KPT_HAZ_SWEEP_SYM:-do_sys_openat2}
MAX=${KPT_HAZ_SWEEP_MAX:-255}
STEP=${KPT_HAZ_SWEEP_STEP:-$(kpt_haz_n 1 3)}
BUDGET=${KPT_HAZ_SWEEP_BUDGET:-105}
[ "$KPT_HAZ_BUDGET" -le "$BUDGET" ] || BUDGET=$KPT_HAZ_BUDGET
grep -q " [tT] $SYM\$" /proc/kallsyms || skip "$SYM is not in /proc/kallsyms"

ok=0
eilseq=0
einval=0
hit=0
off=0
start=$(date +%s)
while [ "$off" -le "$MAX" ]; do
	if [ "$(kpt_haz_elapsed "$start")" -ge "$BUDGET" ]; then
		info "budget of ${BUDGET}s spent: stopped before +$off"
		break
	fi
	kpt_mark
	out=$("$KPT_INSMOD" "$KPT_KO" name="$SYM+$off" args=2 stack=4 bufsize_kb=16 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		kpt_loaded kptrace || fail "+$off: insmod worked but kptrace is not loaded"
		cat /proc/version /proc/cmdline > /dev/null
		ls / > /dev/null
		h=$(kpt_haz_probe_field 0 hits)
		[ "$h" -gt 0 ] && hit=$((hit + 1))
		kpt_unload
		ok=$((ok + 1))
	else
		e=$(echo "$out" | sed -n 's/^errno=\([A-Z0-9?]*\).*/\1/p')
		kpt_loaded kptrace && fail "+$off: refused ($e) but kptrace is loaded"
		lines=$(kpt_log_kptrace)
		n=$(printf '%s' "$lines" | grep -c '^')
		[ "$n" = 1 ] || fail "+$off: refused with $n 'kptrace: ' lines: $lines"
		case $e in
		EILSEQ) eilseq=$((eilseq + 1)) ;;
		EINVAL) einval=$((einval + 1)) ;;
		*) fail "+$off: refused with $e ($out): $lines" ;;
		esac
		case $lines in
		*"$SYM+$off"*) ;;
		*) fail "+$off: the log line does not name $SYM+$off: $lines" ;;
		esac
	fi
	off=$((off + STEP))
done
total=$((ok + eilseq + einval))
[ "$total" -gt 0 ] || fail "no offset tried"
[ "$ok" -gt 0 ] || fail "not even $SYM+0 could be probed"
info "$SYM+0..+$((off - STEP)) step $STEP: $total loads, $ok probed ($hit of them hit), $eilseq EILSEQ, $einval EINVAL"
