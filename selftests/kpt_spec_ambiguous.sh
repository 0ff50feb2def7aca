#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a symbol name defined more than once is refused with
#   EADDRNOTAVAIL and one log line naming where it is defined and how to
#   choose (as ftrace's kprobe_events does from 6.6): a bare SYM defined
#   twice anywhere, and MOD:SYM defined twice in MOD; MOD:SYM with one
#   definition in MOD, and 0xADDR, pick one, and only that one is traced
# requires: root, debugfs, kptrace.ko, kpt_test.ko, kpt_test2.ko,
#   helpers/kpt_spec, helpers/kpt_insmod
#
# kpt_test has a static kpt_dup(a), and kpt_test2 two (kpt_test2_main.c's,
# called by its dup file, and kpt_test2_dup.c's, by dup2). With both
# loaded:
#   p:d kpt_dup a=$arg1:u32, p:d kpt_dup+4, r:d kpt_dup (write) and
#   p:d kpt_dup (ioctl) are refused with EADDRNOTAVAIL, each with one log
#   line and error_log entry
#     symbol is not unique: 3 definitions (kpt_test2, kpt_test2,
#     kpt_test); choose one with MOD:SYM or 0xADDR from /proc/kallsyms (-99)
#   and no probe is left; p:d kpt_test2:kpt_dup and
#   p:d kpt_test2:kpt_dup+4 are refused the same way, with
#     symbol is not unique: 2 definitions (kpt_test2, kpt_test2); choose
#     one with 0xADDR from /proc/kallsyms (-99)
#   insmod name=kpt_dup and name=kpt_test2:kpt_dup fail with EADDRNOTAVAIL
#   and one line naming the parameter; name=kpt_test:kpt_dup loads;
#   p:d1 kpt_test:kpt_dup (one in kpt_test, three in all), p:d2 and p:d4
#   at the two addresses of kpt_test2's kpt_dup and p:d3 at kpt_test's
#   from /proc/kallsyms are accepted: 2 calls of kpt_test's kpt_dup, 3 of
#   kpt_test2's dup and 2 of its dup2 give d1: a=1,2, d3: a=1,2, and
#   a=1..3 to one of d2 and d4, a=1,2 to the other.
# rmmod kpt_test2: kpt_dup is unique again (the module notifier forgets
# what was known), p:d kpt_dup is accepted, at kpt_test's. A pending
# p:pd kpt_test2:kpt_dup is accepted, and stays pending when kpt_test2
# loads, with one line
#   kptrace: pd: cannot arm on kpt_test2:kpt_dup: symbol is not unique:
#   2 definitions (kpt_test2, kpt_test2); choose one with 0xADDR from
#   /proc/kallsyms (-99)
# while a pending p:pf kpt_test2:kpt_test2_func is armed then, and sees
# kpt_test2's init calls.
# A name defined twice in vmlinux (found in /proc/kallsyms, text only) is
# refused the same way, with "(vmlinux, vmlinux)" and "choose one with
# 0xADDR" (no MOD:SYM for vmlinux); a kernel without one skips, once the
# rest passed. The addresses come from /proc/kallsyms (kptr_restrict set
# to 1 for the test where it is 2).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_test2_ko
[ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ] ||
	fail "helpers/kpt_insmod not built (make -C selftests helpers)"
kpt_test_load
[ -e "$KPT_TEST_DIR/dup" ] || skip "kpt_test.ko has no dup file (rebuild it)"
kpt_kallsyms_visible	# 0xADDR from /proc/kallsyms

cleanup()
{
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test2
}

kpt_rmmod_quiet kpt_test2
_out=$(insmod "$KPT_TEST2_KO" init_calls=0 2>&1) || fail "insmod kpt_test2: $_out"
check_eq "kpt_dup in kallsyms" \
	"$(awk '$3 == "kpt_dup" { print $4 }' /proc/kallsyms | sort | tr '\n' ' ')" \
	"[kpt_test2] [kpt_test2] [kpt_test] "
MSG='symbol is not unique: 3 definitions (kpt_test2, kpt_test2, kpt_test); choose one with MOD:SYM or 0xADDR from /proc/kallsyms'
MSG2='symbol is not unique: 2 definitions (kpt_test2, kpt_test2); choose one with 0xADDR from /proc/kallsyms'

kpt_load stack=0
kpt_mark
for how in write ioctl; do
	check_eq "$how: p:d kpt_dup" \
		"$("$KPT_SPEC" $how 'p:d kpt_dup a=$arg1:u32')" errno=EADDRNOTAVAIL
	check_eq "$how: error_log" "$(spec_err_last | sed -n '1s/^\[[^]]*\] //p')" \
		"kptrace: error: $MSG (-99)"
	check_eq "$how: no caret" "$(spec_caret_col)" none
done
check_eq "p:d kpt_dup+4" "$(spec_write 'p:d kpt_dup+4')" errno=EADDRNOTAVAIL
check_eq "r:d kpt_dup" "$(spec_write 'r:d kpt_dup')" errno=EADDRNOTAVAIL
# twice in one module: MOD:SYM does not choose
check_eq "p:d kpt_test2:kpt_dup" \
	"$(spec_write 'p:d kpt_test2:kpt_dup a=$arg1:u32')" errno=EADDRNOTAVAIL
check_eq "p:d kpt_test2:kpt_dup+4" "$(spec_write 'p:d kpt_test2:kpt_dup+4')" \
	errno=EADDRNOTAVAIL
check_eq "log" "$(kpt_log_kptrace)" \
"kptrace: \"p:d kpt_dup a=\$arg1:u32\": $MSG (-99)
kptrace: \"p:d kpt_dup a=\$arg1:u32\": $MSG (-99)
kptrace: \"p:d kpt_dup+4\": $MSG (-99)
kptrace: \"r:d kpt_dup\": $MSG (-99)
kptrace: \"p:d kpt_test2:kpt_dup a=\$arg1:u32\": $MSG2 (-99)
kptrace: \"p:d kpt_test2:kpt_dup+4\": $MSG2 (-99)"
check_eq "probes after the refusals" "$(cat "$KPT_DIR/probes")" ""

# MOD:SYM (one in MOD, three in all) and 0xADDR choose.
spec_add 'p:d1 kpt_test:kpt_dup a=$arg1:u32'
check_match "d1 at" "$(spec_field d1 at)" '^kpt_test:kpt_dup\+0x[04]/'
addr=$(spec_kallsyms kpt_dup kpt_test)
[ -n "$addr" ] || fail "kpt_test's kpt_dup is not in /proc/kallsyms"
spec_add "p:d3 0x$addr a=\$arg1:u32"
check_eq "d3 at" "$(spec_field d3 at)" "$(spec_field d1 at)"
want3=$(printf 'd3: a=%s\n' 1 2)
set -- $(awk '$3 == "kpt_dup" && $4 == "[kpt_test2]" { print $1 }' \
	/proc/kallsyms)
check_eq "kpt_test2's kpt_dup addresses" "$#" 2
spec_add "p:d2 0x$1 a=\$arg1:u32"
spec_add "p:d4 0x$2 a=\$arg1:u32"
check_match "d2 at" "$(spec_field d2 at)" '^kpt_test2:kpt_dup\+0x[04]/'
check_match "d4 at" "$(spec_field d4 at)" '^kpt_test2:kpt_dup\+0x[04]/'
want24=$(printf '%s\n' 'a=1 a=2 a=3 ' 'a=1 a=2 ' | sort)
sed 's/^/#   /' "$KPT_DIR/probes"
echo 2 > "$KPT_TEST_DIR/dup" || fail "calling kpt_test's kpt_dup"
echo 3 > "$KPT_TEST2_DIR/dup" || fail "calling kpt_test2's kpt_dup"
echo 2 > "$KPT_TEST2_DIR/dup2" || fail "calling kpt_test2's other kpt_dup"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "d1 events" "$(spec_events "$KPT_TMP/trace" d1)" \
	"$(printf 'd1: a=%s\n' 1 2)"
check_eq "d3 events" "$(spec_events "$KPT_TMP/trace" d3)" "$want3"
# one of d2, d4 is at the dup file's kpt_dup, the other at dup2's
got24=$(for d in d2 d4; do
		spec_events "$KPT_TMP/trace" $d | sed "s/^$d: //" |
			tr '\n' ' '
		echo
	done | sort)
check_eq "d2 and d4 events" "$got24" "$want24"
kpt_unload

# name= at insmod.
expect_insmod_fail -w 'name=kpt_dup' EADDRNOTAVAIL name=kpt_dup
expect_insmod_fail -w 'name=kpt_test2:kpt_dup' EADDRNOTAVAIL \
	name=kpt_test2:kpt_dup
kpt_load name=kpt_test:kpt_dup stack=0
kpt_unload

# One definition left: accepted again.
_out=$(rmmod kpt_test2 2>&1) || fail "rmmod kpt_test2: $_out"
kpt_load stack=0
spec_add 'p:d kpt_dup a=$arg1:u32'
check_match "d at, kpt_test2 gone" "$(spec_field d at)" '^kpt_test:kpt_dup\+0x[04]/'

# A pending MOD:SYM is asked again when its module loads.
spec_add 'p:pd kpt_test2:kpt_dup a=$arg1:u32'
spec_add 'p:pf kpt_test2:kpt_test2_func a=$arg1:u32'
check_eq "pd before kpt_test2 loads" "$(spec_mode pd)" pending
kpt_mark
_out=$(insmod "$KPT_TEST2_KO" init_calls=2 2>&1) || fail "insmod kpt_test2: $_out"
check_eq "log when kpt_test2 loads" "$(kpt_log_kptrace)" \
	"kptrace: pd: cannot arm on kpt_test2:kpt_dup: $MSG2 (-99)"
check_eq "pd once kpt_test2 is loaded" "$(spec_mode pd)" pending
check_match "pf once kpt_test2 is loaded" "$(spec_mode pf)" '^(ftrace|int3|optimized)$'
echo 2 > "$KPT_TEST2_DIR/dup" || fail "calling kpt_test2's kpt_dup"
kpt_trace_read "$KPT_TMP/trace2"
sed 's/^/#   /' "$KPT_TMP/trace2"
check_eq "pd events" "$(spec_events "$KPT_TMP/trace2" pd)" ""
check_eq "pf events (kpt_test2's init)" "$(spec_events "$KPT_TMP/trace2" pf)" \
	"$(printf 'pf: a=%s\n' 1 2)"
_out=$(rmmod kpt_test2 2>&1) || fail "rmmod kpt_test2: $_out"

# A name twice in vmlinux.
# (twice in all: not in a module too)
name=$(awk '$2 ~ /^[tTwW]$/ { n[$3]++; if ($4 == "") v[$3]++ }
	END { for (s in n) if (n[s] == 2 && v[s] == 2 && s !~ /[.$]/) print s }' \
	/proc/kallsyms | sort | head -n 1)
if [ -z "$name" ]; then
	kpt_unload
	spec_finish "names defined twice in modules refused, MOD:SYM and 0xADDR choose"
	skip "no text symbol is defined twice in this kernel's vmlinux: the vmlinux case cannot be made; the rest passed"
fi
kpt_mark
check_eq "p $name (twice in vmlinux)" "$(spec_write "p:v $name")" \
	errno=EADDRNOTAVAIL
check_eq "log of $name" "$(kpt_log_kptrace)" \
	"kptrace: \"p:v $name\": symbol is not unique: 2 definitions (vmlinux, vmlinux); choose one with 0xADDR from /proc/kallsyms (-99)"
kpt_unload
spec_finish "names defined twice refused with EADDRNOTAVAIL, MOD:SYM twice in MOD too (pending ones when MOD loads); MOD:SYM and 0xADDR choose"
