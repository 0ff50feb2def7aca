#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh: runs the kptrace selftests and prints KTAP.
#
#	sh run_tests.sh [NAME...]
#
# runs every kpt_*.sh beside this script in sorted order (or only the named
# ones, with or without ".sh"), each under `timeout` ($KPT_TIMEOUT seconds,
# default 120, or the test's own "# timeout: SECS" header line when
# longer), with kptrace and kpt_test unloaded before and after each
# test. A test's output becomes "# " diagnostic lines; exit code 4 is a
# skip, whose reason is the test's last line starting with "SKIP:". A test
# also fails when it leaves a module loaded or when the kernel logged an
# Oops, BUG, WARNING, KASAN, UBSAN, lockdep, hung task or Call Trace
# report while it ran (faults.sh). With KPT_STRICT=1 (CI) a skip counts
# as a failure unless it is one of the expected skips below
# (expected_skip: a test, on a kernel that lacks what it tests, for that
# reason); an expected skip stays a skip and says why it is allowed. A
# test whose header has the line "# order: last" runs after all the
# others, whichever were named: it changes the boot for good (it raises
# the kernel lockdown, which only a reboot lowers). The last line is
# "# N passed, N failed, N skipped". Exit status: 0 if no test failed, 1
# otherwise. See lib.sh for the environment variables.

KPT_SELFTESTS=$(cd "$(dirname "$0")" && pwd)
export KPT_SELFTESTS
KPT_TIMEOUT=${KPT_TIMEOUT:-120}
KPT_RUNDIR=${TMPDIR:-/tmp}/kpt_run.$$
# The kernel reports that fail a test: KPT_FAULT_RE, KPT_FAULT_IGNORE_RE
. "$KPT_SELFTESTS/faults.sh"

mkdir -p "$KPT_RUNDIR" || exit 1
trap 'rm -rf "$KPT_RUNDIR"' EXIT

# expected_skip NAME WHY: true when test NAME may skip with reason WHY on
# this kernel (uname -r) under KPT_STRICT=1, and prints why it may. Only
# a kernel without the feature a test needs belongs here, one line per
# test, kernel and reason; anything else that skips is something missing
# from the build or the guest, which CI must not pass over.
expected_skip()
{
	case $1:$(uname -r):$2 in
	# Debian's arm64 kernels are built without CONFIG_KALLSYMS_ALL.
	kpt_spec_symbol_data:*-arm64:"no data symbols"*|\
	kpt_spec_addr:*-arm64:"kpt_test's data symbols are not in /proc/kallsyms"*)
		echo "Debian's arm64 kernels have no data symbols in kallsyms" ;;
	# Debian's 5.10 is built without CONFIG_HIST_TRIGGERS.
	kpt_hist_ftrace:5.10.*:"no hist triggers"*)
		echo "Debian 5.10 has no hist triggers" ;;
	# make check-debug's kernel (x86_64_defconfig + selftests/debug/
	# kptrace-debug.config): no BTF, no hist triggers, and its suite
	# boot stays unlocked for the kmemleak scan (KPT_LOCKDOWN_OK=0;
	# lockdown has boots of its own there).
	kpt_reader_btf:*-kptrace-debug:"no /sys/kernel/btf/vmlinux"*|\
	kpt_reader_probe_cmd:*-kptrace-debug:"no /sys/kernel/btf/vmlinux"*)
		echo "the debug kernel has no BTF (CONFIG_DEBUG_INFO_NONE)" ;;
	kpt_hist_ftrace:*-kptrace-debug:"no hist triggers"*)
		echo "the debug kernel has no hist triggers" ;;
	kpt_lockdown_runtime:*-kptrace-debug:"KPT_LOCKDOWN_OK=0"*)
		echo "the debug suite boot must stay unlocked" ;;
	*)
		return 1 ;;
	esac
}

# arch_skip NAME: prints why test NAME cannot run on this machine's
# architecture (uname -m), or returns 1. Counted as a skip, with KPT_STRICT
# too: what is x86-64's alone for now (issue 36, the arm64 port) is named
# here, one line per reason, and not run at all.
arch_skip()
{
	case $(uname -m):$1 in
	aarch64:kpt_syscalls*|aarch64:kpt_reader_syscalls*|\
	aarch64:kpt_hazard_syscalls|aarch64:kpt_spec_filter_sys|\
	aarch64:kpt_reader_probe_cmd_sys|aarch64:kpt_session_kill_sys)
		echo "x86-64 only: the syscalls probe (s) is not ported to arm64" ;;
	aarch64:kpt_hazard_retprobe_delete_sleeping|\
	aarch64:kpt_hazard_unload_inflight)
		return 1 ;;
	aarch64:kpt_hazard_*)
		echo "x86-64 only: kpt_hazard.ko (NMI, APIC) is not ported to arm64" ;;
	aarch64:kpt_spec_differential)
		echo "x86-64 only: its specs name x86 registers (%di ...) or offsets" ;;
	*)
		return 1 ;;
	esac
}

loaded()
{
	[ -e "/sys/module/$1/initstate" ] || [ -e "/sys/module/$1/refcnt" ]
}

# Kills what a dead test left holding kptrace files open (its own
# background readers), so the module can be unloaded.
kill_holders()
{
	for _d in /proc/[0-9]*; do
		_pid=${_d#/proc/}
		[ "$_pid" = $$ ] && continue
		for _fd in "$_d"/fd/*; do
			case $(readlink "$_fd" 2>/dev/null) in
			/dev/kptrace|*/kptrace/*|*/kpt_test/*)
				echo "# killing leftover process $_pid ($(cat "$_d/comm" 2>/dev/null))"
				kill -9 "$_pid" 2>/dev/null
				break ;;
			esac
		done
	done
}

# Unloads kptrace and kpt_test; returns 1 if one of them was loaded.
clean_state()
{
	_was=0
	for _m in kptrace kpt_test; do
		loaded $_m || continue
		_was=1
		_i=0
		while loaded $_m && [ $_i -lt 25 ]; do
			rmmod $_m 2>/dev/null && break
			[ $_i = 5 ] && kill_holders
			sleep 0.2
			_i=$((_i + 1))
		done
		loaded $_m && echo "# cannot unload $_m: $(rmmod $_m 2>&1)"
	done
	return $_was
}

if [ $# -gt 0 ]; then
	tests=
	for _n in "$@"; do
		_n=${_n%.sh}
		_n=${_n##*/}
		[ -f "$KPT_SELFTESTS/$_n.sh" ] || { echo "no test $_n" >&2; exit 1; }
		tests="$tests $KPT_SELFTESTS/$_n.sh"
	done
else
	tests=$(ls "$KPT_SELFTESTS"/kpt_*.sh 2>/dev/null | sort)
fi

# "# order: last" tests after the others, each group in its order.
_first=
_last=
for _t in $tests; do
	if grep -q '^# order: last$' "$_t"; then
		_last="$_last $_t"
	else
		_first="$_first $_t"
	fi
done
tests="$_first $_last"

n=0
for _t in $tests; do
	n=$((n + 1))
done

echo "TAP version 13"
echo "1..$n"
if [ "$(id -u)" != 0 ]; then
	echo "# not root: every test will skip"
fi

pass=0
fail=0
skip=0
i=0
for t in $tests; do
	i=$((i + 1))
	name=$(basename "$t")
	log=$KPT_RUNDIR/$name.log
	echo "# ---- $name"
	if why=$(arch_skip "${name%.sh}"); then
		skip=$((skip + 1))
		echo "ok $i $name # SKIP $why"
		continue
	fi
	if ! clean_state; then
		echo "# (unloaded modules left by an earlier step)"
	fi
	mark="kpt_run: start $name $$.$i"
	[ -w /dev/kmsg ] && echo "$mark" > /dev/kmsg
	start=$(date +%s)

	# A test may need longer: "# timeout: SECS" in its header.
	limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	[ -n "$limit" ] && [ "$limit" -gt "$KPT_TIMEOUT" ] || limit=$KPT_TIMEOUT
	( cd "$KPT_SELFTESTS" &&
	  timeout -k 10 "$limit" sh "$t" 2>&1
	  echo $? > "$KPT_RUNDIR/rc" ) | tee "$log" | sed -e 's/^/# /'
	rc=$(cat "$KPT_RUNDIR/rc" 2>/dev/null || echo 1)
	rm -f "$KPT_RUNDIR/rc"
	secs=$(($(date +%s) - start))

	reason=
	if [ "$rc" = 124 ] || [ "$rc" = 137 ] || [ "$rc" = 143 ]; then
		reason="timed out after ${limit}s (rc $rc)"
		rc=1
	fi
	if ! clean_state && [ "$rc" = 0 ]; then
		reason="left kptrace or kpt_test loaded"
		rc=1
	fi
	if [ -r /dev/kmsg ] || dmesg >/dev/null 2>&1; then
		bad=$(dmesg 2>/dev/null | sed -e 's/^\[[ 0-9.]*\] //' |
			awk -v m="$mark" 'f { print } $0 == m { f = 1 }' |
			grep -E "$KPT_FAULT_RE" | grep -vE "$KPT_FAULT_IGNORE_RE")
		if [ -n "$bad" ]; then
			echo "$bad" | head -n 20 | sed -e 's/^/# kernel: /'
			reason="${reason:+$reason; }the kernel logged: $(echo "$bad" | head -n 1)"
			rc=1
		fi
	fi

	case $rc in
	0)
		pass=$((pass + 1))
		echo "ok $i $name"
		;;
	4)
		why=$(grep '^SKIP:' "$log" | tail -n 1 | sed -e 's/^SKIP:[ ]*//')
		if [ "${KPT_STRICT:-0}" = 1 ] &&
		   ! allowed=$(expected_skip "${name%.sh}" "$why"); then
			fail=$((fail + 1))
			echo "# $name skipped (${why:-no reason given}) on $(uname -r), not an expected skip: a failure with KPT_STRICT=1"
			echo "not ok $i $name"
		else
			skip=$((skip + 1))
			[ "${KPT_STRICT:-0}" != 1 ] ||
				echo "# $name: an expected skip: $allowed"
			echo "ok $i $name # SKIP ${why:-no reason given}"
		fi
		;;
	*)
		fail=$((fail + 1))
		[ -n "$reason" ] && echo "# $name: $reason"
		echo "not ok $i $name"
		;;
	esac
	echo "# $name: ${secs}s"
done

echo "# $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
