#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: sym+0 .. sym+255 of a real kernel function: every load
#   either works (and the probe is hit) or is refused with EILSEQ or EINVAL,
#   never an oops
# requires: root, debugfs, kptrace.ko, helpers/kpt_insmod
# timeout: 240
#
# The function is do_sys_openat2 (KPT_HAZ_SWEEP_SYM), called by every
# open(): after each load that works, the test shell opens /proc/version
# OPENS times (10) between two reads of the probe's hits (the shell opens
# the probes file as it opens /proc/version, with the same flags), so that the
# probe, wherever it sits, is run when it is on the path, and then kptrace
# is unloaded. Inside the function (an offset below its size, from the
# probes file) every one of those opens takes the same path: the hits
# grow by exactly OPENS + 1 (the second read opens the probes file) where
# the probe is on that path, and by 0 where it is not; at +0, always by
# OPENS + 1. (The guest runs nothing else that opens files meanwhile.)
# Offsets past the function's end land in the next function, which the
# kprobe core may accept: that is fine too, and their hits are only
# counted. Each refusal must
# leave kptrace unloaded with exactly one "kptrace: " line naming the
# offset. The sweep goes 0..KPT_HAZ_SWEEP_MAX (default 255) by
# KPT_HAZ_SWEEP_STEP (default 1; 3 on a debug kernel), and stops early,
# saying so, after KPT_HAZ_SWEEP_BUDGET seconds (default 105, or
# KPT_HAZ_BUDGET when that is larger).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
[ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ] ||
	fail "helpers/kpt_insmod not built (make -C selftests helpers)"

SYM=${KPT_HAZ_SWEEP_SYM:-do_sys_openat2}
MAX=${KPT_HAZ_SWEEP_MAX:-255}
STEP=${KPT_HAZ_SWEEP_STEP:-$(kpt_haz_n 1 3)}
BUDGET=${KPT_HAZ_SWEEP_BUDGET:-105}
[ "$KPT_HAZ_BUDGET" -le "$BUDGET" ] || BUDGET=$KPT_HAZ_BUDGET
grep -q " [tT] $SYM\$" /proc/kallsyms || skip "$SYM is not in /proc/kallsyms"

OPENS=10
# The probe's hits, the probes file opened by the shell as /proc/version
# is (the same flags: the same path through $SYM).
probe_hits()
{
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^hits=/) { sub(/^hits=/, "", $i); print $i; f = 1 } }
		END { exit !f }' < "$KPT_DIR/probes" || fail "+$off: no hits in the probes file"
}
ok=0
inside=0
on_path=0
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
		at=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^at=/) print $i }' \
			"$KPT_DIR/probes")
		size=$(printf '%d' "${at##*/}") ||
			fail "+$off: no size in the probe's at= ($at)"
		h0=$(probe_hits)
		n=0
		while [ $n -lt $OPENS ]; do
			: < /proc/version
			n=$((n + 1))
		done
		h=$(($(probe_hits) - h0))
		[ "$h" -gt 0 ] && hit=$((hit + 1))
		case $at in
		"at=$SYM+"*) in_sym=1 ;;
		*) in_sym=0 ;;
		esac
		if [ $in_sym = 1 ] && [ "$off" -lt "$size" ]; then
			inside=$((inside + 1))
			case $h in
			0) ;;
			$((OPENS + 1))) on_path=$((on_path + 1)) ;;
			*) fail "+$off ($at): $OPENS opens gave $h hits, expected $((OPENS + 1)) or 0" ;;
			esac
			[ "$off" != 0 ] || [ "$h" = $((OPENS + 1)) ] ||
				fail "+0 ($at): $OPENS opens gave $h hits, expected $((OPENS + 1))"
		fi
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
[ "$on_path" -gt 0 ] || fail "no offset of $SYM counted the opens"
info "$SYM+0..+$((off - STEP)) step $STEP: $total loads, $ok probed ($hit of them hit; $inside inside the function, $on_path of them hit exactly $((OPENS + 1)) times, the others 0), $eilseq EILSEQ, $einval EINVAL"
