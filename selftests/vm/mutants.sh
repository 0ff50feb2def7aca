#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-mutants: do the selftests catch a bug? Each mutant is one
# small, deliberate bug put into the module (a sed expression on a copy of
# this tree, never on the working tree); the module is built with it and
# the tests that should see it run in a QEMU guest (run-vm.sh --mode
# check, KPT_TESTS= the mutant's tests). A mutant is killed when a test
# failed (or the guest reported a kernel fault), and survived when every
# test passed: then the tests could not tell the bug from the module.
#
# usage: mutants.sh [options] [MUTANT...]    (default: every mutant)
#   --kver KVER      the kernel to build for and boot (default:
#                    default-kver.sh's, the kernel of linux-image-amd64)
#   --logdir DIR     logs (default: a new /tmp/kptrace-mutants.*)
#   --no-baseline    skip the unmutated run of all the mutants' tests
#   --dry-run        only apply each mutant's edits (and show them): do the
#                    patterns still apply? No build, no guest
#   --list           print the mutants and their tests
#
# First the copy is built as it is and every mutant's tests run on it once
# (the baseline): a test that fails without a mutant would kill them all,
# so a failing baseline ends the run. Then, for each mutant: the module's
# sources restored, its edits applied, each of which must change exactly
# the lines it names (else "mutant X: pattern not found": the module
# changed under it, and the mutant must be written again, never passed
# over), kptrace.ko built, its tests run. The table at the end: mutant,
# file, tests, result (killed, survived, pattern-not-found, build-failed,
# vm-error: the guest died before its tests), the tests that failed.
# Exit 0 only when every mutant was killed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vmlib.sh
. "$here/vmlib.sh"
repo=$(cd "$here/../.." && pwd)

# ---------------------------------------------------------------- mutants
#
# One line per edit: NAME|FILE|LINES|SED EXPRESSION (sed -E), FILE in
# module/ or tools/ (the reader and kptrace syscalls). Each
# expression must change exactly LINES lines of FILE; a mutant may have
# several edits (the same bug on each path a test can take). Anchor on
# whole lines that say what they do, so that edits elsewhere in the file
# leave them applicable, and a change of the line itself is reported.
MUTANT_EDITS='
ring_seq|module/ring.h|1|s/^(\tev->seq = local_read\(&r->committed\));$/\1 - 1;/
lost_uncounted|module/ring.h|1|s/^(\t)local_inc\(&r->lost\[\*cause\]\);$/\1barrier();/
arg_dropped|module/fetch.c|1|s/^(\tout\[2\] = )kpt_reg_at\(regs, off\[2\]\);$/\10;/
ret_sign|module/fetch.c|2|s/^(\ts64 retval = )\(long\)(regs_return_value\(regs\);)$/\1(u32)\2/
ret_sign|module/fetch.c|1|s/^(\tu64 retval = )(regs_return_value\(regs\), entry_ts = d->entry_ts;)$/\1(u32)\2/
filter_ignored|module/fetch.c|1|s/^(\t)return group;$/\1return true;/
stack_skip|module/fetch.c|1|s/^(\tfor \(unwind_start\(&state, current, regs, NULL\));$/\1, unwind_next_frame(\&state);/
hist_log2|module/fetch.c|1|s/^(\t\treturn v <= 1 \? 0 : fls64\()v - 1(\);)$/\1v\2/
sys_nr_ignored|module/syscall.c|1|s/^(\t)memcpy\((g->sys_fast_nr), g->sys\.nr, (sizeof\(g->sys_fast_nr\))\);$/\1memset(\2, 0xff, \3);/
sys_lat_zero|module/syscall.c|1|s/^(\tlat = )kpt_clock_since\(d->entry_ts, ts\);$/\10;/
sys_arg32|module/syscall.h|1|s/^(\t\tvals\[1\] = \(u32\)u->)bx;$/\1cx;/
sys_denied_ret|module/syscall_denied.c|1|s/^(\tkpt_sys_exit_slow\(p, d, )\(long\)u->ax(, ts, 0, regs, flags\);)$/\10\2/
sys_sig_code|module/syscall_signal.c|1|s/^(\t\tvals\[2\] = )\(u32\)info->si_code;$/\10;/
sys_exit_code|module/syscall_signal.c|1|s/^(\t\tvals\[1\] = \(u32\)tsk->exit_code)(;)$/\1 >> 8\2/
tool_compat|tools/syscalls_print.c|1|s/^(\tcompat = )e->flags & KPT_F_SYS_COMPAT;$/\10;/
'
# What each mutant is, and the tests that should kill it.
mutant_what()
{
	case $1 in
	ring_seq)	echo "records numbered from 0: the seq books one short" ;;
	lost_uncounted)	echo "a hit the ring could not take is not counted lost" ;;
	arg_dropped)	echo "the third argument register not copied (0)" ;;
	ret_sign)	echo "the return value's sign lost (zero-extended from 32 bits)" ;;
	filter_ignored)	echo "an if condition always passes" ;;
	stack_skip)	echo "the stack's first frame (the caller) skipped" ;;
	hist_log2)	echo ".log2 buckets one off at powers of two" ;;
	sys_nr_ignored)	echo "an s probe's nr= selects every call" ;;
	sys_lat_zero)	echo "an s probe's calls last 0 ns" ;;
	sys_arg32)	echo "a 32-bit call's first argument read from ecx" ;;
	sys_denied_ret)	echo "a denied call returns 0" ;;
	sys_sig_code)	echo "a signal's si_code lost" ;;
	sys_exit_code)	echo "a task's wait status shifted: the exit code lost" ;;
	tool_compat)	echo "the tool prints no 32-bit call as such" ;;
	esac
}
mutant_tests()
{
	case $1 in
	ring_seq)	echo "kpt_flood_overwrite kpt_read_fault kpt_reader_flood" ;;
	lost_uncounted)	echo "kpt_flood kpt_overflow" ;;
	arg_dropped)	echo "kpt_args kpt_spec_args" ;;
	ret_sign)	echo "kpt_retprobe kpt_spec_return" ;;
	filter_ignored)	echo "kpt_spec_filter" ;;
	stack_skip)	echo "kpt_stack" ;;
	hist_log2)	echo "kpt_hist_keys kpt_reader_hist" ;;
	sys_nr_ignored)	echo "kpt_syscalls" ;;
	sys_lat_zero)	echo "kpt_reader_syscalls" ;;
	sys_arg32|sys_denied_ret|sys_sig_code|sys_exit_code|tool_compat)
			echo "kpt_syscalls_signals" ;;
	esac
}
ALL_MUTANTS=$(echo "$MUTANT_EDITS" | sed -n 's/^\([a-z0-9_]*\)|.*/\1/p' | awk '!seen[$0]++')

kver=
logdir=
baseline=1
list=0
dry=0
say() { echo "mutants: $*"; }
die() { echo "mutants: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--kver)		kver=$2; shift ;;
	--logdir)	logdir=$2; shift ;;
	--no-baseline)	baseline=0 ;;
	--dry-run)	dry=1 ;;
	--list)		list=1 ;;
	-h|--help)	sed -n '3,/^set -e/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*)		die "unknown option: $1 (see --help)" ;;
	*)		break ;;
	esac
	shift
done
# shellcheck disable=SC2206
mutants=(${*:-$ALL_MUTANTS})
for m in "${mutants[@]}"; do
	grep -q "^$m|" <<<"$MUTANT_EDITS" || die "no mutant $m (known: $(echo "$ALL_MUTANTS" | tr '\n' ' '))"
done
if [ "$list" = 1 ]; then
	for m in "${mutants[@]}"; do
		printf '%-16s %s\n%-16s tests: %s\n' "$m" "$(mutant_what "$m")" "" "$(mutant_tests "$m")"
	done
	exit 0
fi

if [ "$dry" = 0 ]; then
	[ -n "$kver" ] || kver=$("$here/default-kver.sh") ||
		die "no Debian kernel in /boot: give --kver"
	kdir=/lib/modules/$kver/build
	[ -f "$kdir/Makefile" ] || die "no headers for $kver ($kdir)"
	[ -r "/boot/vmlinuz-$kver" ] || die "no /boot/vmlinuz-$kver"
fi
logdir=$(vm_logdir "$logdir" kptrace-mutants)
work=$(mktemp -d "${TMPDIR:-/tmp}/kptrace-mutants-tree.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The copy: this tree as it is now, without .git; build products go with
# it and are rebuilt for the copy's path.
say "copying $repo to $work (logs in $logdir)"
# (others may be editing and testing in it: a file that changes or goes
# while it is read is only a warning, tar's exit status 1)
{ tar -C "$repo" --exclude=./.git --exclude='*.tmp' \
	--warning=no-file-changed --warning=no-file-removed -cf - . ||
	[ $? = 1 ]; } | tar -C "$work" -xf - || die "cannot copy $repo to $work"
cp -a "$work/module" "$work/module.pristine"
cp -a "$work/tools" "$work/tools.pristine"
if [ "$dry" = 0 ]; then
	say "building the copy for $kver"
	if ! make -C "$work" KDIR="$kdir" vm-build >"$logdir/build.log" 2>&1; then
		tail -n 30 "$logdir/build.log"
		die "the unmutated copy does not build (log: $logdir/build.log)"
	fi
fi

# run NAME TESTS...: the tests in a guest booted from the copy; prints
# killed, survived or vm-error, and the failed tests into $logdir/NAME.failed.
run()
{
	local name=$1 rc=0 out
	shift
	out=$logdir/$name.out
	KPT_TESTS="$*" "$work/selftests/vm/run-vm.sh" --root "$work" \
		--kernel "/boot/vmlinuz-$kver" --mode check \
		--logdir "$logdir/$name" >"$out" 2>&1 || rc=$?
	grep -a '^not ok ' "$logdir/$name/test-output.log" 2>/dev/null |
		sed 's/^not ok [0-9]* //; s/\.sh$//' | tr '\n' ' ' >"$logdir/$name.failed" || true
	if [ "$rc" = 0 ]; then
		echo survived
	elif grep -q '^vm: guest command started' "$out"; then
		echo killed
	else
		echo vm-error
	fi
}

# restore: the copy's module and tools as they were
restore()
{
	rm -rf "$work/module" "$work/tools"
	cp -a "$work/module.pristine" "$work/module"
	cp -a "$work/tools.pristine" "$work/tools"
}

# apply MUTANT: its edits on the copy's module or tools; prints what went
# wrong.
apply()
{
	local m=$1 line file n expr before after
	restore
	while IFS='|' read -r line file n expr; do
		[ "$line" = "$m" ] || continue
		cp "$work/$file" "$work/$file.orig"
		sed -E -i -e "$expr" "$work/$file"
		# exactly n lines changed, each into one
		before=$(diff "$work/$file.orig" "$work/$file" | grep -c '^<' || true)
		after=$(diff "$work/$file.orig" "$work/$file" | grep -c '^>' || true)
		if [ "$before" != "$n" ] || [ "$after" != "$n" ]; then
			echo "$file: '$expr' changed $before line(s), not $n"
			return 1
		fi
		diff "$work/$file.orig" "$work/$file" | sed "s|^|    $file: |" >&2
		rm -f "$work/$file.orig"
	done <<<"$MUTANT_EDITS"
}

if [ "$dry" = 1 ]; then
	rc=0
	for m in "${mutants[@]}"; do
		if why=$(apply "$m"); then
			say "$m: applies"
		else
			say "mutant $m: pattern not found: $why"
			rc=1
		fi
	done
	exit "$rc"
fi

union=$(for m in "${mutants[@]}"; do mutant_tests "$m"; done | tr ' ' '\n' |
	awk 'NF && !seen[$0]++' | tr '\n' ' ')
if [ "$baseline" = 1 ]; then
	say "baseline: $union"
	# shellcheck disable=SC2086
	r=$(run baseline $union)
	if [ "$r" != survived ]; then
		say "baseline: $r (failed: $(cat "$logdir/baseline.failed")); logs $logdir/baseline"
		die "the tests fail without a mutant: the mutants would prove nothing"
	fi
	say "baseline: every test passes"
fi

declare -A res failed
t0=$(date +%s)
for m in "${mutants[@]}"; do
	say "---- $m: $(mutant_what "$m")"
	if ! why=$(apply "$m"); then
		say "mutant $m: pattern not found: $why"
		res[$m]=pattern-not-found
		failed[$m]=
		continue
	fi
	if ! make -C "$work" KDIR="$kdir" module tools >"$logdir/$m.build.log" 2>&1; then
		tail -n 20 "$logdir/$m.build.log"
		res[$m]=build-failed
		failed[$m]=
		continue
	fi
	# shellcheck disable=SC2046
	res[$m]=$(run "$m" $(mutant_tests "$m"))
	failed[$m]=$(cat "$logdir/$m.failed")
	say "$m: ${res[$m]}${failed[$m]:+ (failed: ${failed[$m]})}"
done
restore

rc=0
printf '\n%-16s %-15s %-18s %s\n' mutant file result "its tests that failed (of its tests)"
for m in "${mutants[@]}"; do
	file=$(sed -n "s/^$m|\([^|]*\)|.*/\1/p" <<<"$MUTANT_EDITS" | sort -u | tr '\n' ' ')
	# shellcheck disable=SC2046
	set -- $(mutant_tests "$m")
	printf '%-16s %-15s %-18s %s\n' "$m" "$file" "${res[$m]}" \
		"$(wc -w <<<"${failed[$m]:-}") of $#: ${failed[$m]:--}"
	[ "${res[$m]}" = killed ] || rc=1
done
say "$(($(date +%s) - t0)) s for ${#mutants[@]} mutants; logs in $logdir"
if [ "$rc" = 0 ]; then
	say "every mutant killed"
else
	say "FAIL: not every mutant was killed"
fi
exit "$rc"
