#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a bare symbol name defined more than once is refused with
#   EADDRNOTAVAIL and one log line naming where it is defined and how to
#   choose (as ftrace's kprobe_events does from 6.6); MOD:SYM and 0xADDR
#   pick one definition, and only that one is traced
# requires: root, debugfs, kptrace.ko, kpt_test.ko, kpt_test2.ko,
#   helpers/kpt_spec, helpers/kpt_insmod
#
# kpt_test and kpt_test2 both have a static kpt_dup(a). With both loaded:
#   p:d kpt_dup a=$arg1:u32, p:d kpt_dup+4, r:d kpt_dup (write) and
#   p:d kpt_dup (ioctl) are refused with EADDRNOTAVAIL, each with one log
#   line and error_log entry
#     symbol is not unique: 2 definitions (kpt_test2, kpt_test); choose one
#     with MOD:SYM or 0xADDR from /proc/kallsyms (-99)
#   and no probe is left;
#   insmod name=kpt_dup fails with EADDRNOTAVAIL and one line naming
#   name=kpt_dup; name=kpt_test2:kpt_dup loads;
#   p:d1 kpt_test:kpt_dup, p:d2 kpt_test2:kpt_dup and p:d3 0x<kpt_test's
#   kpt_dup from /proc/kallsyms> are accepted: 2 calls of kpt_test's
#   kpt_dup and 3 of kpt_test2's give d1: a=1,2, d2: a=1..3, d3: a=1,2.
# rmmod kpt_test2: kpt_dup is unique again (the module notifier forgets
# what was known), p:d kpt_dup is accepted, at kpt_test's.
# A name defined twice in vmlinux (found in /proc/kallsyms, text only) is
# refused the same way, with "(vmlinux, vmlinux)" and "choose one with
# 0xADDR" (no MOD:SYM for vmlinux).

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_test2_ko
[ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ] ||
	skip "helpers/kpt_insmod not built (make -C selftests helpers)"
kpt_test_load
[ -e "$KPT_TEST_DIR/dup" ] || skip "kpt_test.ko has no dup file (rebuild it)"

cleanup()
{
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test2
}

kpt_rmmod_quiet kpt_test2
_out=$(insmod "$KPT_TEST2_KO" init_calls=0 2>&1) || fail "insmod kpt_test2: $_out"
check_eq "kpt_dup in kallsyms" \
	"$(awk '$3 == "kpt_dup" { print $4 }' /proc/kallsyms | sort | tr '\n' ' ')" \
	"[kpt_test2] [kpt_test] "
MSG='symbol is not unique: 2 definitions (kpt_test2, kpt_test); choose one with MOD:SYM or 0xADDR from /proc/kallsyms'

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
check_eq "log" "$(kpt_log_kptrace)" \
"kptrace: \"p:d kpt_dup a=\$arg1:u32\": $MSG (-99)
kptrace: \"p:d kpt_dup a=\$arg1:u32\": $MSG (-99)
kptrace: \"p:d kpt_dup+4\": $MSG (-99)
kptrace: \"r:d kpt_dup\": $MSG (-99)"
check_eq "probes after the refusals" "$(cat "$KPT_DIR/probes")" ""

# MOD:SYM and 0xADDR choose.
spec_add 'p:d1 kpt_test:kpt_dup a=$arg1:u32'
spec_add 'p:d2 kpt_test2:kpt_dup a=$arg1:u32'
check_match "d1 at" "$(spec_field d1 at)" '^kpt_test:kpt_dup\+0x[04]/'
check_match "d2 at" "$(spec_field d2 at)" '^kpt_test2:kpt_dup\+0x[04]/'
addr=$(spec_kallsyms kpt_dup kpt_test)
if [ -n "$addr" ]; then
	spec_add "p:d3 0x$addr a=\$arg1:u32"
	check_eq "d3 at" "$(spec_field d3 at)" "$(spec_field d1 at)"
	want3=$(printf 'd3: a=%s\n' 1 2)
else
	info "kallsyms addresses are hidden: 0xADDR not checked"
	want3=
fi
sed 's/^/#   /' "$KPT_DIR/probes"
echo 2 > "$KPT_TEST_DIR/dup" || fail "calling kpt_test's kpt_dup"
echo 3 > "$KPT_TEST2_DIR/dup" || fail "calling kpt_test2's kpt_dup"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "d1 events" "$(spec_events "$KPT_TMP/trace" d1)" \
	"$(printf 'd1: a=%s\n' 1 2)"
check_eq "d2 events" "$(spec_events "$KPT_TMP/trace" d2)" \
	"$(printf 'd2: a=%s\n' 1 2 3)"
check_eq "d3 events" "$(spec_events "$KPT_TMP/trace" d3)" "$want3"
kpt_unload

# name= at insmod.
expect_insmod_fail -w 'name=kpt_dup' EADDRNOTAVAIL name=kpt_dup
kpt_load name=kpt_test2:kpt_dup stack=0
kpt_unload

# One definition left: accepted again.
_out=$(rmmod kpt_test2 2>&1) || fail "rmmod kpt_test2: $_out"
kpt_load stack=0
spec_add 'p:d kpt_dup a=$arg1:u32'
check_match "d at, kpt_test2 gone" "$(spec_field d at)" '^kpt_test:kpt_dup\+0x[04]/'

# A name twice in vmlinux.
# (twice in all: not in a module too)
name=$(awk '$2 ~ /^[tTwW]$/ { n[$3]++; if ($4 == "") v[$3]++ }
	END { for (s in n) if (n[s] == 2 && v[s] == 2 && s !~ /[.$]/) print s }' \
	/proc/kallsyms | sort | head -n 1)
if [ -n "$name" ]; then
	kpt_mark
	check_eq "p $name (twice in vmlinux)" "$(spec_write "p:v $name")" \
		errno=EADDRNOTAVAIL
	check_eq "log of $name" "$(kpt_log_kptrace)" \
		"kptrace: \"p:v $name\": symbol is not unique: 2 definitions (vmlinux, vmlinux); choose one with 0xADDR from /proc/kallsyms (-99)"
else
	info "no text symbol name twice in vmlinux: not checked"
fi
kpt_unload
spec_finish "names defined twice refused with EADDRNOTAVAIL; MOD:SYM and 0xADDR choose"
