#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: every refused parameter fails the load with its errno and
#   exactly one "kptrace: " log line naming it, and leaves nothing behind
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_insmod
#   (else insmod's message is matched, and busybox insmod's second try
#   with init_module() logs every line twice)
#
# Each case (CONTRACT.md, "Refusals"), then a clean load and unload:
#   unknown symbol                      ENOENT
#   unknown symbol after a good one     ENOENT (the good one is rolled back)
#   blacklisted (the kprobe core's breakpoint handler: kprobe_int3_handler,
#     on arm64 kprobe_breakpoint_handler; KPT_BLACKLISTED)   EINVAL
#   offset inside an instruction        EILSEQ (kpt_test_func+1 is inside
#                                       the 5-byte __fentry__ call/nop, or
#                                       inside endbr64 on IBT kernels); on
#                                       arm64 EINVAL, arm64's kprobes' own
#                                       answer for an address that is not
#                                       a multiple of 4 (KPT_EINSN)
#   65 probe points (name=, name=+address=)  E2BIG; 64 are accepted
#   args=7, stack=65, maxactive=4097    EINVAL
#   bufsize_kb=0                        EINVAL
#   bufsize_kb=1 stack=64               EINVAL (a 1 KiB ring cannot hold two
#                                       records of 632 bytes)
#   bufsize_kb=1073741824               EINVAL or ENOMEM
#   bufsize_kb=<MemTotal, rounded up to a power of two> (a ring per
#     CPU as large as all of RAM: more than the half of RAM the module
#     allows; 1048576 in a 1 GiB guest)    ENOMEM, or EINVAL past the
#                                       per-CPU limit
#   address=0x1000 (not kernel text)    EINVAL (unprobeable)
#   address=<kpt_test_func + 1>         EILSEQ (arm64: EINVAL, as above)
#   retprobe=1 name=kpt_test_func+0x5   EINVAL (kretprobes need the entry;
#                                       +0x8 on arm64: kpt_after_entry)
#   clock=bad, clock=MONO               EINVAL (auto, mono or local)

. "$(dirname "$0")/lib.sh"
kpt_setup
kpt_test_load
[ -x "$KPT_INSMOD" ] ||
	info "helpers/kpt_insmod not built: matching insmod's messages"

# kpt_test_func+0x5 must be an instruction boundary for the retprobe case:
# the first instruction is the 5-byte __fentry__ call (nop), or on IBT
# kernels endbr64 (4 bytes) then the call, where +0x9 is; on arm64 +0x8,
# past mov x9, x30 and the bl to ftrace (kpt_after_entry).
boundary=$(kpt_after_entry kpt_test_func)

# lists of N items
items()
{
	awk -v n="$1" -v s="$2" 'BEGIN {
		for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), s
		print "" }'
}

# refused ARGS...: expect_insmod_fail in a subshell, so that every case
# runs and reports even when an earlier one failed.
failed=
refused()
{
	if ! (expect_insmod_fail "$@"); then
		failed="$failed
#   $*"
	fi
	kpt_loaded kptrace && kpt_unload
	return 0
}

refused ENOENT name=kpt_no_such_function_xyz
refused -w kpt_no_such_function_xyz ENOENT \
	name=kpt_test_func,kpt_no_such_function_xyz
refused EINVAL name=$KPT_BLACKLISTED
refused -w kpt_test_func+1 $KPT_EINSN name=kpt_test_func+1
refused -w 65 E2BIG "name=$(items 65 kpt_test_func)"
addr=$(awk '$3 == "kpt_test_func" { print "0x" $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || fail "kpt_test_func is not in /proc/kallsyms"
refused -w 65 E2BIG "name=$(items 60 kpt_test_func)" \
	"address=$(items 5 "$addr")"
refused -w args=7 EINVAL args=7
refused -w stack=65 EINVAL stack=65
refused -w maxactive=4097 EINVAL maxactive=4097
refused -w bufsize_kb=0 EINVAL bufsize_kb=0
refused -w bufsize_kb=1 EINVAL bufsize_kb=1 stack=64
refused -w bufsize_kb=1073741824 EINVAL/ENOMEM bufsize_kb=1073741824
memkb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
ramkb=1024
while [ $ramkb -lt "$memkb" ]; do
	ramkb=$((ramkb * 2))
done
refused -w bufsize_kb=$ramkb EINVAL/ENOMEM bufsize_kb=$ramkb
refused -w 0x1000 EINVAL address=0x1000
# kpt_test_func is 16-byte aligned: +1 is the same address ending in 1.
case $addr in
*0)	inside=${addr%0}1
	refused -w "$inside" $KPT_EINSN address="$inside" ;;
*)	fail "kpt_test_func at $addr is not 16-byte aligned" ;;
esac
refused -w "kpt_test_func+$boundary" EINVAL retprobe=1 \
	"name=kpt_test_func+$boundary"
refused -w clock=bad EINVAL clock=bad
refused -w clock=MONO EINVAL clock=MONO

# The limits themselves are accepted.
kpt_load "name=$(items 64 kpt_test_func)" args=6 stack=64 maxactive=4096
assert_eq "probe lines with 64 probe points" \
	"$(grep -c . "$KPT_DIR/probes")" 64
kpt_unload
kpt_load "name=kpt_test_func+$boundary"
kpt_unload
kpt_load args=0 stack=0 bufsize_kb=1
kpt_unload
for c in auto mono local; do
	kpt_load clock=$c
	kpt_unload
done

[ -z "$failed" ] || fail "refusals not as in the contract:$failed"
info "every refusal as in the contract"
