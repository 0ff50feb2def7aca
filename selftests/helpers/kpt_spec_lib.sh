# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# kpt_spec_lib.sh: what the kpt_spec_*.sh tests (the probe spec language,
# CONTRACT5) share. Source it after lib.sh:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
#
# Checks here are "soft": check_eq and check_match print "# FAIL: ..." and
# count, so that one test reports every wrong value of a run, and
# spec_finish fails the test at the end if any check failed. Use lib.sh's
# assert_* (which stop the test) when nothing after could make sense.
#
#	KPT_SPEC	helpers/kpt_spec (write/ioctl specs, dump records)
#	KPT_TEST2_KO	test_modules/kpt_test2.ko

KPT_SPEC=${KPT_SPEC:-$(kpt_first "$KPT_SELFTESTS/helpers/kpt_spec" \
	/bin/kpt_spec /usr/bin/kpt_spec)}
KPT_TEST2_KO=${KPT_TEST2_KO:-$(kpt_first \
	"$KPT_SELFTESTS/test_modules/kpt_test2.ko" \
	"$(dirname "${KPT_TEST_KO:-/nonexistent}")/kpt_test2.ko" \
	/kpt_test2.ko /lib/modules/kpt_test2.ko)}
KPT_TEST2_DIR=$KPT_DEBUGFS/kpt_test2
SPEC_FAILS=0
# What the probes file says of an armed probe.
SPEC_MODE='(ftrace|optimized|int3)'

require_kpt_spec()
{
	[ -n "$KPT_SPEC" ] && [ -x "$KPT_SPEC" ] ||
		skip "helpers/kpt_spec not built (make -C selftests helpers)"
}

# kpt_spec_vals_setup: the setup of a test of kpt_test_vals() (the fetches'
# tests): kpt_setup, kpt_spec, kpt_test.ko loaded with its vals file
kpt_spec_vals_setup()
{
	kpt_setup
	require_kpt_spec
	kpt_test_load
	[ -e "$KPT_TEST_DIR/vals" ] || skip "kpt_test.ko has no vals file (rebuild it)"
}

require_test2_ko()
{
	[ -n "$KPT_TEST2_KO" ] && [ -f "$KPT_TEST2_KO" ] ||
		skip "kpt_test2.ko not found (make -C selftests, or set KPT_TEST2_KO)"
}

# ------------------------------------------------------------ soft checks

check_fail()
{
	echo "# FAIL: $*"
	SPEC_FAILS=$((SPEC_FAILS + 1))
}

# check_eq WHAT GOT EXPECTED
check_eq()
{
	[ "$2" = "$3" ] || check_fail "$1: expected '$3', got '$2'"
}

# check_match WHAT TEXT REGEX (grep -E, whole text as one line each)
check_match()
{
	printf '%s\n' "$2" | grep -Eq -- "$3" ||
		check_fail "$1: '$2' does not match /$3/"
}

# spec_finish MSG: fails the test if a soft check failed, else says MSG.
spec_finish()
{
	[ "$SPEC_FAILS" = 0 ] || fail "$SPEC_FAILS check(s) failed (see the FAIL lines above)"
	info "$*"
}

# ------------------------------------------------------------ probe specs

# no_probes WHAT: the probes file is empty (soft): the tool left nothing
no_probes()
{
	check_eq "$1: probes left" "$(grep -c '' "$KPT_DIR/probes")" 0
}

# spec_write TEXT: one write() of TEXT to /dev/kptrace; prints "ok" or
# "errno=ENAME".
spec_write()
{
	"$KPT_SPEC" write "$1" || fail "kpt_spec write failed: $1"
}

spec_ioctl()
{
	"$KPT_SPEC" ioctl "$1" || fail "kpt_spec ioctl failed: $1"
}

# spec_add TEXT: the write must succeed (stops the test otherwise).
spec_add()
{
	_r=$(spec_write "$1")
	[ "$_r" = ok ] || fail "adding '$1': $_r (error_log: $(spec_err_last | head -n 1))"
}

# spec_expect ERRNO TEXT: the write must fail with ERRNO (soft).
spec_expect()
{
	_r=$(spec_write "$2")
	check_eq "write '$2'" "$_r" "errno=$1"
}

# spec_line NAME: the probes line of the probe named NAME (any group).
spec_line()
{
	awk -v n="$1" '{ s = $1; sub(/^[^:]*:/, "", s); sub(/^.*\//, "", s)
		if (s == n) print }' "$KPT_DIR/probes"
}

# spec_field NAME FIELD: FIELD=value of NAME's probes line (id, at, hits..)
spec_field()
{
	spec_line "$1" | sed -En "s/.* # (.* )?$2=([^ ]*).*/\\2/p"
}

# spec_mode NAME: kprobe|kretprobe MODE of NAME's probes line (int3 has a
# digit: arm64's entry probes are int3 where x86-64's are ftrace).
spec_mode()
{
	spec_line "$1" | sed -En 's/.* (kprobe|kretprobe) ([a-z0-9]+) hits=.*/\2/p'
}

# spec_stat NAME FIELD: FIELD of NAME's total line in probe_stats.
spec_stat()
{
	awk -v n="$1" -v f="$2" '$1 == n && $2 !~ /^cpu[0-9]+$/ {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == f) { print kv[2]; exit }
		}
	}' "$KPT_DIR/probe_stats"
}

# spec_err_last: the last entry of error_log (its 2 or 3 lines).
spec_err_last()
{
	awk '/^\[/ { n = 0 } { l[++n] = $0 } END { for (i = 1; i <= n; i++) print l[i] }' \
		"$KPT_DIR/error_log"
}

# spec_caret_col: the column (from 0, in the command) of the caret of the
# last error_log entry, or "none".
spec_caret_col()
{
	spec_err_last | awk 'NR == 3 {
		if ($0 !~ /^ *\^$/) { print "bad:" $0; exit }
		print length($0) - 1 - 11; f = 1 }
		END { if (!f) print "none" }'
}

# spec_events FILE NAME: the event lines of probe label NAME in a trace
# file, from the label on: "NAME: a=1 b=2".
spec_events()
{
	sed -En "s/^.*-[0-9]+ +\\[[0-9]+\\] +[0-9.]+: ($2: .*)\$/\\1/p" "$1"
}

# spec_kallsyms SYM [MOD]: the address of SYM (of module MOD) in
# /proc/kallsyms, without 0x; nothing if absent or hidden.
spec_kallsyms()
{
	awk -v s="$1" -v m="${2:-}" '$3 == s && (m == "" || $4 == "[" m "]") &&
		$1 !~ /^0+$/ { print $1; exit }' /proc/kallsyms
}
