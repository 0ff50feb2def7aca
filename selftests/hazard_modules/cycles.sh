# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# cycles.sh: the body of kpt_hazard_cycles_flood.sh and
# kpt_hazard_cycles_reader.sh, sourced with READER=0 or 1 set.
#
# A flood runs on every CPU while kptrace is loaded on its target and
# unloaded, CYCLES times (KPT_HAZ_CYCLES, default 100; 25 on a debug
# kernel). Every planned cycle must run: BUDGET seconds
# (KPT_HAZ_CYCLES_BUDGET, default 300, or 3 s a cycle when more) only
# bound a run that hangs or crawls, and a budget that ends the loop sooner
# fails the test. (On 6.1 under TCG a cycle takes 0.8 to 1.2 s, 1.0 to
# 1.5 s with the reader: 100 cycles take 80 to 150 s; 1000 fit in no CI
# run.)
# With READER=1 each cycle also reads before the unload, alternately 500
# records through /dev/kptrace (helpers/kpt_read, every record validated)
# and 64 KiB of the text `trace`, then closes the file with more pending.
# Each load must work, each unload must work. Each cycle's probe has a
# second probe point, kpt_test:kpt_test_vals, which only the test calls:
# CALLS calls of it (from one CPU, the flood going on) must give that
# probe exactly CALLS hits and no miss.
#
# The probe is named MOD:SYM: a bare name makes each load read
# /proc/kallsyms once to refuse an ambiguous one (module/ksyms.c), which
# would spend the budget on that instead of on cycles.
#
# The flood: kpt_test's call_all in a loop (kpt_test_func, an ftrace
# kprobe, from a bound kthread per CPU). KPT_HAZ_ALLCTX=1 floods from task,
# softirq, hardirq and NMI context at once with kpt_hazard instead. That is
# not in make check: under QEMU TCG on Debian's 6.1 it crashes or hangs
# the guest within a few hundred cycles, and a 15-line kprobe module in
# kptrace's place crashes it the same way (selftests/debug/README.md).
# There the target is the notrace kpt_hazard_target_int3 (an int3 kprobe),
# or with KPT_HAZ_FTRACE=1 the ftrace-based kpt_hazard_target.

kpt_setup
[ "$READER" = 0 ] || require_kpt_read
kpt_require_stable_rearm

cleanup()
{
	[ -n "$KPT_TMP" ] && : > "$KPT_TMP/stop"
	for _p in $KPT_BG_PIDS; do
		wait "$_p" 2>/dev/null
	done
	KPT_BG_PIDS=
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_hazard
	kpt_rmmod_quiet kpt_test
}

CYCLES=${KPT_HAZ_CYCLES:-$(kpt_haz_n 100 25)}
[ "$CYCLES" -ge 1 ] 2>/dev/null || fail "KPT_HAZ_CYCLES='$CYCLES': a number of cycles, 1 or more"
# Its own bound (KPT_HAZ_CYCLES_BUDGET, default 300 s, within the tests'
# "# timeout: 400"; 3 s a cycle when that is more: a longer plan needs a
# larger KPT_TIMEOUT too); KPT_HAZ_BUDGET when larger.
BUDGET=${KPT_HAZ_CYCLES_BUDGET:-$((CYCLES * 3 > 300 ? CYCLES * 3 : 300))}
[ "$KPT_HAZ_BUDGET" -le "$BUDGET" ] || BUDGET=$KPT_HAZ_BUDGET
CALLS=3
kpt_test_load
if [ "${KPT_HAZ_ALLCTX:-0}" = 1 ]; then
	require_haz_ko
	if [ "${KPT_HAZ_FTRACE:-0}" = 1 ]; then
		TARGET=kpt_hazard:kpt_hazard_target
		kpt_haz_load
	else
		TARGET=kpt_hazard:kpt_hazard_target_int3
		kpt_haz_load int3=1
	fi
	FLOOD="echo 5000 > $KPT_HAZ_DIR/run"
else
	TARGET=kpt_test:kpt_test_func
	FLOOD="echo $(kpt_haz_n 20000 5000) > $KPT_TEST_DIR/call_all"
fi
rm -f "$KPT_TMP/stop"
kpt_bg sh -c "while [ ! -e $KPT_TMP/stop ]; do $FLOOD || exit 1; done"
flood=$KPT_BG
sleep 1

i=0
bad=0
start=$(date +%s)
while [ $i -lt "$CYCLES" ]; do
	if [ "$(kpt_haz_elapsed "$start")" -ge "$BUDGET" ]; then
		info "bound of ${BUDGET}s reached after $i cycles: stopped there"
		break
	fi
	out=$(insmod "$KPT_KO" name=$TARGET,kpt_test:kpt_test_vals args=2 \
		stack=4 bufsize_kb=64 2>&1) || fail "cycle $i: insmod: $out"
	# The calls of this test, under the flood: counted exactly.
	echo $CALLS > "$KPT_TEST_DIR/vals" ||
		fail "cycle $i: calling kpt_test_vals"
	h=$(kpt_haz_probe_field 1 hits)
	m=$(kpt_haz_probe_field 1 missed)
	[ "$h $m" = "$CALLS 0" ] ||
		fail "cycle $i: kpt_test_vals after $CALLS calls: hits=$h missed=$m, expected hits=$CALLS missed=0"
	if [ "$READER" = 1 ]; then
		# Bounded reads: under a flood the rings may never be empty,
		# so a read until empty (EOF, EAGAIN) need not end.
		if [ $((i % 2)) = 0 ]; then
			r=$("$KPT_READ" -t 20 read 500 2>&1) || fail "cycle $i: kpt_read read 500: $r"
			s=$(echo "$r" | grep '^summary ')
			[ "$(kpt_haz_field bad "$s")" = 0 ] &&
			[ "$(kpt_haz_field seq_errors "$s")" = 0 ] ||
				fail "cycle $i: bad records: $r"
		else
			timeout 20 head -c 65536 "$KPT_DIR/trace" > /dev/null ||
				fail "cycle $i: reading 64 KiB of trace failed"
		fi
	fi
	out=$(rmmod kptrace 2>&1) || fail "cycle $i: rmmod: $out"
	i=$((i + 1))
done
secs=$(kpt_haz_elapsed "$start")
kill -0 "$flood" 2>/dev/null || fail "the flood stopped during the cycles"
: > "$KPT_TMP/stop"
wait "$flood" || fail "the flood failed"
KPT_BG_PIDS=

# The flood stopped: a last load counts exactly, and its books agree.
kpt_load name=kpt_test:kpt_test_func,kpt_test:kpt_test_vals args=2 stack=4
kpt_call_all 100
echo $CALLS > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
assert_eq "kpt_test_func hits after call_all 100" \
	"$(kpt_haz_probe_field 0 hits)" $((100 * $(kpt_nr_online_cpus)))
assert_eq "kpt_test_vals hits after $CALLS calls" "$(kpt_haz_probe_field 1 hits)" $CALLS
kpt_books_check
kpt_unload

with=without
[ "$READER" = 1 ] && with=with
info "$i of $CYCLES planned load/unload cycles of a probe on $TARGET under a flood on $(kpt_nr_online_cpus) CPUs, $with a reader, in ${secs}s, each with $CALLS calls of kpt_test_vals counted exactly"
assert_eq "cycles run (of $CYCLES planned, within ${BUDGET}s)" "$i" "$CYCLES"
