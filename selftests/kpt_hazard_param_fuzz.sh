#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: insmod with random and hostile parameter strings: each is
#   refused or accepted cleanly, never an oops, nothing left behind
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_insmod
# timeout: 300
#
# A fixed list of hostile values (over-long names, 10k-character values,
# huge, negative and hex numbers, garbage after numbers, repeated commas,
# format strings, quotes, non-ASCII bytes, unknown parameters, every
# parameter at once), then ROUNDS random strings (KPT_HAZ_FUZZ_ROUNDS,
# default 100; 60 on a debug kernel) built by awk from a seed that is
# printed (KPT_HAZ_FUZZ_SEED to replay). For each:
# - insmod either works (then kptrace is loaded, its files exist, a
#   kpt_test call is harmless and rmmod works) or fails with kptrace not
#   loaded and /dev/kptrace and the debugfs directory gone;
# - a refusal logs at most one "kptrace: " line of kptrace's own (the
#   kernel's parameter parser adds one line per bad parameter);
# - afterwards a good load and unload still work.
# On a kernel with kmemleak (the debug kernel), a scan after the loop must
# show no leak from kptrace.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
kpt_test_load
[ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ] ||
	fail "helpers/kpt_insmod not built (make -C selftests helpers)"

ROUNDS=${KPT_HAZ_FUZZ_ROUNDS:-$(kpt_haz_n 100 60)}
SEED=${KPT_HAZ_FUZZ_SEED:-$(($(date +%s) % 100000))}
long()
{
	awk -v n="$1" -v c="$2" 'BEGIN { s = ""; while (length(s) < n) s = s c; print substr(s, 1, n) }'
}

KERNEL_PARAM_RE='invalid for parameter|unknown parameter|parameter too long|string doesn.t fit|Unknown symbol|module verification'
accepted=0
refused=0
tries=0
# try PARAM...: one insmod, judged.
try()
{
	tries=$((tries + 1))
	kpt_mark
	out=$("$KPT_INSMOD" "$KPT_KO" "$@" 2>&1)
	rc=$?
	short=$(printf '%s' "$*" | cut -c1-80)
	if [ $rc = 0 ]; then
		kpt_loaded kptrace || fail "'$short': accepted but not loaded"
		[ -e "$KPT_DIR/stats" ] && [ -e "$KPT_DEV" ] ||
			fail "'$short': accepted without its files"
		echo 3 > "$KPT_TEST_DIR/call" || fail "'$short': kpt_test call failed"
		cat "$KPT_DIR/probes" "$KPT_DIR/stats" > /dev/null ||
			fail "'$short': probes/stats unreadable"
		out=$(rmmod kptrace 2>&1) || fail "'$short': rmmod: $out"
		accepted=$((accepted + 1))
	else
		case $out in
		errno=*) ;;
		*) fail "'$short': insmod did not report an errno: $out" ;;
		esac
		kpt_loaded kptrace && fail "'$short': refused ($out) but loaded"
		[ -e "$KPT_DIR" ] && fail "'$short': refused but $KPT_DIR is left"
		[ -e "$KPT_DEV" ] && fail "'$short': refused but $KPT_DEV is left"
		# The kernel's own parameter parser logs per parameter too.
		n=$(kpt_log_kptrace | grep -vEc "$KERNEL_PARAM_RE")
		[ "$n" -le 1 ] || fail "'$short': refused with $n 'kptrace: ' lines of kptrace's own"
		refused=$((refused + 1))
	fi
}

L10K=$(long 10000 a)
try name="$L10K"
try name="kpt_test_func+$(long 10000 9)"
try name="$(long 511 b)"
try name="$(long 512 b)"
try name="$(long 1024 c)"
try address="$(long 10000 f)"
try args="$(long 10000 1)"
try name=kpt_test_func stack=99999999999999999999
try name=kpt_test_func stack=-1
try name=kpt_test_func args=-2147483648
try name=kpt_test_func args=4294967296
try name=kpt_test_func args=6x
try name=kpt_test_func args=0x6
try name=kpt_test_func stack=0x10
try name=kpt_test_func bufsize_kb=4294967295
try name=kpt_test_func bufsize_kb=1048577
try name=kpt_test_func bufsize_kb=1k
try name=kpt_test_func maxactive=-1
try name=kpt_test_func maxactive=4097
try name=kpt_test_func retprobe=2
try name=kpt_test_func retprobe=yes
try name=kpt_test_func overwrite=Y
try name=kpt_test_func overwrite=
try name=,,,,
try name=kpt_test_func,,kpt_test_func
try name=kpt_test_func,
try name=,kpt_test_func
try name=kpt_test_func,kpt_test_func
try name=kpt_test_func+
try name=+0
try name=kpt_test_func+-1
try name=kpt_test_func+0xffffffff
try name=kpt_test_func+18446744073709551615
try name=kpt_test_func+1+1
try name='%s%s%s%n%p%pK'
try name='kpt_test_func%n'
try name=kpt_test:kpt_test_func
try name=kpt_test:
try name=:kpt_test_func
try name="$(printf 'kpt_\377\376_func')"
try 'name="kpt_test_func"'
try 'name="kpt_test_func'
try 'name=kpt_test_func args=2 args=3'
try address=0
try address=-1
try address=ffffffffffffffff
try address=0xffffffffffffffff
try address=zz
try address=,
try address=ffffffff
try name= address= args= stack= bufsize_kb= overwrite= maxactive= retprobe=
try foo=1 name=kpt_test_func
try name=kpt_test_func args=6 retprobe=1 stack=64 bufsize_kb=64 overwrite=1 maxactive=4096 address=
try name="$(awk 'BEGIN { for (i = 0; i < 64; i++) printf "%skpt_test_func", i ? "," : "" }')"
try name="$(awk 'BEGIN { for (i = 0; i < 65; i++) printf "%skpt_test_func", i ? "," : "" }')"
info "$tries hostile strings: $accepted accepted, $refused refused"

# Random strings: parameter names (some unknown), values from pieces.
awk -v seed="$SEED" -v n="$ROUNDS" 'BEGIN {
	srand(seed)
	np = split("name address args stack bufsize_kb overwrite maxactive retprobe bogus", P, " ")
	nv = split("kpt_test_func kpt_test_sleep do_sys_openat2 0 1 6 7 64 65 -1 0x 0x10 , ,, + +1 +0x4 x 99999999999999999999 ffffffffc0000000 Y N %s kpt_test: 4096 4097 1048576", V, " ")
	for (r = 0; r < n; r++) {
		k = 1 + int(rand() * 4)
		line = ""
		for (j = 0; j < k; j++) {
			p = P[1 + int(rand() * np)]
			m = 1 + int(rand() * 3)
			v = ""
			for (q = 0; q < m; q++)
				v = v V[1 + int(rand() * nv)]
			line = line (j ? "\t" : "") p "=" v
		}
		print line
	}
}' > "$KPT_TMP/random"
info "random seed $SEED, $ROUNDS strings"
r0=$tries
while IFS= read -r line; do
	old_ifs=$IFS
	IFS='	'
	# shellcheck disable=SC2086
	set -- $line
	IFS=$old_ifs
	try "$@"
done < "$KPT_TMP/random"
info "$((tries - r0)) random strings: done ($accepted accepted, $refused refused in all)"

kpt_load name=kpt_test_func args=1 stack=0
kpt_call 5
assert_eq "hits of a good load after the fuzzing" "$(kpt_stat hits)" 5
kpt_unload
kpt_haz_kmemleak "after $tries insmod strings"
