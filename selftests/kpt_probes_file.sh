#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: debugfs `probes` has one line per probe point in the
#   contract's format, with the entry hits of each
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_func,kpt_test_call_loop,do_sys_openat2 and address= of
# kpt_test_sleep, after 3 calls (1 loop):
#   "0 kpt_test_func kpt_test:kpt_test_func+0x0/0x<size> kprobe <mode> hits=3 missed=0"
#   "1 kpt_test_call_loop kpt_test:kpt_test_call_loop+0x0/0x<size> kprobe <mode> hits=1 missed=0"
#   "2 do_sys_openat2 do_sys_openat2+0x0/0x<size> kprobe <mode> hits=<n> missed=<n>"
#   "3 <addr> kpt_test:kpt_test_sleep+0x0/0x<size> kprobe <mode> hits=0 missed=0"
# exactly 7 space-separated fields (CONTRACT.md: "<id> <spec>
# [<mod>:]<sym>+0x<off>/0x<size> <kprobe|kretprobe> <ftrace|optimized|int3>
# hits=<n> missed=<n>", the module prefix only for module symbols), <mode>
# one of ftrace|optimized|int3; with retprobe=1 the kind is kretprobe; an
# offset probe is kpt_test:kpt_test_func+0x5; the MOD:SYM spelling of
# name= (README) works and is kept as the spec.

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

addr=$(awk '$3 == "kpt_test_sleep" { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || fail "kpt_test_sleep not in /proc/kallsyms"
case $addr in 0000000000000000) skip "kallsyms addresses are hidden" ;; esac

MODE='(ftrace|optimized|int3)'
SZ='0x[0-9a-f]+'

kpt_load name=kpt_test_func,kpt_test_call_loop,do_sys_openat2 \
	address="$addr" stack=0
kpt_call 3
cat "$KPT_DIR/probes" | sed 's/^/#   /'
assert_eq "probe lines" "$(grep -c '' "$KPT_DIR/probes")" 4
bad=$(awk 'NF != 7' "$KPT_DIR/probes")
[ -z "$bad" ] || fail "probes lines without exactly 7 fields: $bad"
assert_match "probe 0" "$(sed -n 1p "$KPT_DIR/probes")" \
	"^0 kpt_test_func kpt_test:kpt_test_func\\+0x0/$SZ kprobe $MODE hits=3 missed=0\$"
assert_match "probe 1" "$(sed -n 2p "$KPT_DIR/probes")" \
	"^1 kpt_test_call_loop kpt_test:kpt_test_call_loop\\+0x0/$SZ kprobe $MODE hits=1 missed=0\$"
assert_match "probe 2" "$(sed -n 3p "$KPT_DIR/probes")" \
	"^2 do_sys_openat2 do_sys_openat2\\+0x0/$SZ kprobe $MODE hits=[0-9]+ missed=[0-9]+\$"
assert_match "probe 3" "$(sed -n 4p "$KPT_DIR/probes")" \
	"^3 (0x)?0*$addr kpt_test:kpt_test_sleep\\+0x0/$SZ kprobe $MODE hits=0 missed=0\$"
kpt_unload

kpt_load name=kpt_test_func retprobe=1 stack=0
kpt_call 2
sed 's/^/#   /' "$KPT_DIR/probes"
assert_match "kretprobe line" "$(cat "$KPT_DIR/probes")" \
	"^0 kpt_test_func kpt_test:kpt_test_func\\+0x0/$SZ kretprobe $MODE hits=2 missed=0\$"
kpt_unload

kpt_load name=kpt_test_func+0x5 stack=0
kpt_call 2
sed 's/^/#   /' "$KPT_DIR/probes"
assert_match "offset probe line" "$(cat "$KPT_DIR/probes")" \
	"^0 kpt_test_func\\+0x5 kpt_test:kpt_test_func\\+0x5/$SZ kprobe $MODE hits=2 missed=0\$"
kpt_unload

kpt_load name=kpt_test:kpt_test_func stack=0
kpt_call 1
sed 's/^/#   /' "$KPT_DIR/probes"
assert_match "MOD:SYM probe line" "$(cat "$KPT_DIR/probes")" \
	"^0 kpt_test:kpt_test_func kpt_test:kpt_test_func\\+0x0/$SZ kprobe $MODE hits=1 missed=0\$"
kpt_unload
info "probes lines as in the contract"
