#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: debugfs `probes` has one line per probe: its spec in the
#   language /dev/kptrace takes, then "# id=N [label=L] at=WHERE TYPE MODE
#   hits=N missed=N" with the entry hits of each; the specs replay
# requires: root, debugfs, kptrace.ko, kpt_test.ko
#
# name=kpt_test_func,kpt_test_call_loop,do_sys_openat2 and address= of
# kpt_test_sleep, after 3 calls (1 loop):
#   p:kptrace/kpt_test_func kpt_test_func arg0=$arg1:x64 ... arg5=$arg6:x64
#     # id=0 at=kpt_test:kpt_test_func+0x0/0x<size> kprobe <mode> hits=3 missed=0
#   ... id=1 kpt_test_call_loop hits=1, id=2 do_sys_openat2,
#   p:kptrace/a_<addr> 0x<addr> ... # id=3 label=kpt_test_sleep+0x0 ...
# Written back to /dev/kptrace, the specs (before " #") make the same
# listing. Then retprobe=1, sym+0x5 and MOD:SYM lines. On a kernel with
# IBT the kprobe core puts entry probes at +0x4, past the endbr64, and the
# first instruction after the fentry call is +0x9 (kpt_entry_off): at= says
# where the probe is, label= the address as given. On arm64 the entry
# probes are at +0x0 and sym+0x5 is +0x8, past ftrace's two instructions
# (kpt_after_entry).

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load

addr=$(awk '$3 == "kpt_test_sleep" { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || fail "kpt_test_sleep not in /proc/kallsyms"
case $addr in 0000000000000000) skip "kallsyms addresses are hidden" ;; esac

MODE='(ftrace|optimized|int3)'
E_FUNC=$(kpt_entry_off kpt_test_func)
E_LOOP=$(kpt_entry_off kpt_test_call_loop)
E_OPEN=$(kpt_entry_off do_sys_openat2)
E_SLEEP=$(kpt_entry_off kpt_test_sleep)
OFF=$(kpt_after_entry kpt_test_func)
SZ='0x[0-9a-f]+'
ARGS6='arg0=\$arg1:x64 arg1=\$arg2:x64 arg2=\$arg3:x64 arg3=\$arg4:x64 arg4=\$arg5:x64 arg5=\$arg6:x64'

kpt_load name=kpt_test_func,kpt_test_call_loop,do_sys_openat2 \
	address="$addr" stack=0
kpt_call 3
cat "$KPT_DIR/probes" | sed 's/^/#   /'
assert_eq "probe lines" "$(grep -c '' "$KPT_DIR/probes")" 4
assert_match "probe 0" "$(sed -n 1p "$KPT_DIR/probes")" \
	"^p:kptrace/kpt_test_func kpt_test_func $ARGS6 # id=0 at=kpt_test:kpt_test_func\\+$E_FUNC/$SZ kprobe $MODE hits=3 missed=0\$"
assert_match "probe 1" "$(sed -n 2p "$KPT_DIR/probes")" \
	"^p:kptrace/kpt_test_call_loop kpt_test_call_loop $ARGS6 # id=1 at=kpt_test:kpt_test_call_loop\\+$E_LOOP/$SZ kprobe $MODE hits=1 missed=0\$"
assert_match "probe 2" "$(sed -n 3p "$KPT_DIR/probes")" \
	"^p:kptrace/do_sys_openat2 do_sys_openat2 $ARGS6 # id=2 at=do_sys_openat2\\+$E_OPEN/$SZ kprobe $MODE hits=[0-9]+ missed=[0-9]+\$"
assert_match "probe 3" "$(sed -n 4p "$KPT_DIR/probes")" \
	"^p:kptrace/a_(0x)?0*$addr 0x0*$addr $ARGS6 # id=3 label=kpt_test_sleep\\+0x0 at=kpt_test:kpt_test_sleep\\+$E_SLEEP/$SZ kprobe $MODE hits=0 missed=0\$"

# The listing is the language a write takes: written back, it makes the
# same probes (under new ids).
sed 's/ # .*//' "$KPT_DIR/probes" > "$KPT_TMP/replay"
kpt_unload
kpt_load stack=0
while read -r line; do
	printf '%s\n' "$line" > /dev/kptrace || fail "replaying '$line' failed"
done < "$KPT_TMP/replay"
assert_eq "replayed specs" "$(sed 's/ # .*//' "$KPT_DIR/probes")" \
	"$(cat "$KPT_TMP/replay")"
kpt_unload

kpt_load name=kpt_test_func retprobe=1 stack=0 args=1
kpt_call 2
sed 's/^/#   /' "$KPT_DIR/probes"
assert_match "kretprobe line" "$(cat "$KPT_DIR/probes")" \
	"^b:kptrace/kpt_test_func kpt_test_func arg0=\\\$arg1:x64 # id=0 at=kpt_test:kpt_test_func\\+$E_FUNC/$SZ kretprobe $MODE hits=2 missed=0\$"
kpt_unload

kpt_load name=kpt_test_func+$OFF stack=0 args=0
kpt_call 2
sed 's/^/#   /' "$KPT_DIR/probes"
assert_match "offset probe line" "$(cat "$KPT_DIR/probes")" \
	"^p:kptrace/kpt_test_func_$OFF kpt_test_func\\+$OFF # id=0 label=kpt_test_func\\+$OFF at=kpt_test:kpt_test_func\\+$OFF/$SZ kprobe $MODE hits=2 missed=0\$"
kpt_unload

kpt_load name=kpt_test:kpt_test_func stack=0 args=0
kpt_call 1
sed 's/^/#   /' "$KPT_DIR/probes"
assert_match "MOD:SYM probe line" "$(cat "$KPT_DIR/probes")" \
	"^p:kptrace/kpt_test_kpt_test_func kpt_test:kpt_test_func # id=0 label=kpt_test:kpt_test_func at=kpt_test:kpt_test_func\\+$E_FUNC/$SZ kprobe $MODE hits=1 missed=0\$"
kpt_unload
info "probes lines as in the README, and they replay"
