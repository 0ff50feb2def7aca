#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: probes are added and removed at run time by writing specs to
#   /dev/kptrace or to debugfs' probes file, by ioctl(KPT_IOC_PROBE), and by
#   probe= at insmod, with the errnos of CONTRACT5
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec,
#   helpers/kpt_read
#
# With kptrace loaded idle (stack=0):
#  - "p:t1 kpt_test_func a=$arg1:u32 b=$arg2" is listed as exactly
#    "p:kptrace/t1 kpt_test_func a=$arg1:u32 b=$arg2:x64 # id=0
#     at=kpt_test:kpt_test_func+0x0/0x<size> kprobe <mode> hits=0 missed=0";
#    3 calls give exactly "t1: a=1 b=0x1111" .. "t1: a=3 b=0x1111" and hits=3
#  - "-:t1" removes it: no line in probes, no event on 2 more calls, but the
#    events already in the ring still read with their names
#  - "-:t1" again is ENOENT, error_log "no probe of that name (-2)" without
#    a caret; "p:t2 ..." twice is EEXIST ("a probe of that name exists");
#    p:other/t2 is a different probe, -:other/t2 removes only it
#  - unnamed probes are p_kpt_test_func_0, r_kpt_test_func_0 and
#    p_kpt_test_kpt_test_func_0, and "-:NAME" takes those names
#  - one write of three lines whose 2nd is bad: EINVAL, the 1st stays
#  - 4096 bytes in one write are taken, 4097 are E2BIG (nothing added)
#  - ids are never reused; the ioctl path and a write to
#    /sys/kernel/debug/kptrace/probes do all of the above the same (the
#    ioctl on a descriptor open for writing)
#  - ioctl(KPT_IOC_PROBE) on a read-only descriptor fails with EBADF, as a
#    write() on it does, and adds nothing; KPT_IOC_INFO still works there
#  - probe="p:i1 ...;r:i2 ..." at insmod makes the same probes (same
#    listing) as the same specs written later, and their events flow;
#    a bad spec in probe= fails the load with EINVAL and one log line.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_kpt_read
kpt_test_load

SZ='0x[0-9a-f]+'
# entry probes sit past the endbr64 on a kernel with IBT (kpt_entry_off)
AT="kpt_test:kpt_test_func\\+$(kpt_entry_off kpt_test_func)/$SZ"
AT_SLEEP="kpt_test:kpt_test_sleep\\+$(kpt_entry_off kpt_test_sleep)/$SZ"

# run_path write|debugfs|ioctl: the add/delete/errno sequence through one
# path.
run_path()
{
	how=$1
	kpt_load stack=0
	r=$("$KPT_SPEC" "$how" 'p:t1 kpt_test_func a=$arg1:u32 b=$arg2')
	check_eq "$how: add t1" "$r" ok
	check_match "$how: probes line of t1" "$(cat "$KPT_DIR/probes")" \
		"^p:kptrace/t1 kpt_test_func a=\\\$arg1:u32 b=\\\$arg2:x64 # id=0 at=$AT kprobe $SPEC_MODE hits=0 missed=0\$"
	check_eq "$how: probes lines" "$(grep -c '' "$KPT_DIR/probes")" 1
	kpt_call 3
	check_eq "$how: t1 hits" "$(spec_field t1 hits)" 3
	# Deleted: disarmed at once, its recorded events still decode.
	r=$("$KPT_SPEC" "$how" '-:t1')
	check_eq "$how: delete t1" "$r" ok
	check_eq "$how: probes after -:t1" "$(cat "$KPT_DIR/probes")" ""
	check_eq "$how: probe_stats after -:t1" "$(cat "$KPT_DIR/probe_stats")" ""
	kpt_call 2
	kpt_trace_read "$KPT_TMP/trace.$how"
	check_eq "$how: events of t1" "$(spec_events "$KPT_TMP/trace.$how" t1)" \
		"$(printf 't1: a=%s b=0x1111\n' 1 2 3)"
	check_eq "$how: trace lines" "$(grep -c '' "$KPT_TMP/trace.$how")" 3

	r=$("$KPT_SPEC" "$how" '-:t1')
	check_eq "$how: delete t1 again" "$r" errno=ENOENT
	check_match "$how: error_log for -:t1" "$(spec_err_last | head -n 1)" \
		'^\[ *[0-9]+\.[0-9]{6}\] kptrace: error: no probe of that name \(-2\)$'
	check_eq "$how: error_log command" "$(spec_err_last | sed -n 2p)" \
		'  Command: -:t1'
	check_eq "$how: no caret for -:t1" "$(spec_caret_col)" none
	r=$("$KPT_SPEC" "$how" '-:kptrace/nosuch')
	check_eq "$how: delete unknown" "$r" errno=ENOENT

	r=$("$KPT_SPEC" "$how" 'p:t2 kpt_test_func')
	check_eq "$how: add t2" "$r" ok
	r=$("$KPT_SPEC" "$how" 'p:t2 kpt_test_sleep')
	check_eq "$how: add t2 again" "$r" errno=EEXIST
	check_match "$how: error_log for the duplicate" \
		"$(spec_err_last | head -n 1)" \
		'kptrace: error: a probe of that name exists \(-17\)$'
	check_eq "$how: EEXIST command" "$(spec_err_last | sed -n 2p)" \
		'  Command: p:t2 kpt_test_sleep'
	r=$("$KPT_SPEC" "$how" 'p:kptrace/t2 kpt_test_sleep')
	check_eq "$how: add kptrace/t2" "$r" errno=EEXIST
	r=$("$KPT_SPEC" "$how" 'p:other/t2 kpt_test_sleep')
	check_eq "$how: add other/t2" "$r" ok
	check_eq "$how: probes lines with two t2" \
		"$(grep -c '' "$KPT_DIR/probes")" 2
	check_match "$how: probes line of kptrace/t2" \
		"$(sed -n 1p "$KPT_DIR/probes")" \
		"^p:kptrace/t2 kpt_test_func # id=1 at=$AT kprobe $SPEC_MODE hits=0 missed=0\$"
	check_match "$how: probes line of other/t2" \
		"$(sed -n 2p "$KPT_DIR/probes")" \
		"^p:other/t2 kpt_test_sleep # id=2 at=$AT_SLEEP kprobe $SPEC_MODE hits=0 missed=0\$"
	r=$("$KPT_SPEC" "$how" '-:other/t2')
	check_eq "$how: delete other/t2" "$r" ok
	check_eq "$how: kptrace/t2 stays" \
		"$(sed 's/ # .*//' "$KPT_DIR/probes")" 'p:kptrace/t2 kpt_test_func'
	r=$("$KPT_SPEC" "$how" '-:t2')
	check_eq "$how: delete t2" "$r" ok

	# Default names, and deleting by them.
	for s in 'p kpt_test_func:p_kpt_test_func_0' \
		 'r kpt_test_func:r_kpt_test_func_0' \
		 'p kpt_test:kpt_test_func:p_kpt_test_kpt_test_func_0'; do
		spec=${s%:*}
		name=${s##*:}
		r=$("$KPT_SPEC" "$how" "$spec")
		check_eq "$how: add '$spec'" "$r" ok
		check_eq "$how: name of '$spec'" \
			"$(sed -n '$s/^[pr]:\([^ ]*\) .*/\1/p' "$KPT_DIR/probes")" \
			"kptrace/$name"
	done
	for name in p_kpt_test_func_0 r_kpt_test_func_0 \
		    p_kpt_test_kpt_test_func_0; do
		r=$("$KPT_SPEC" "$how" "-:$name")
		check_eq "$how: delete $name" "$r" ok
	done
	check_eq "$how: probes after the default names" \
		"$(cat "$KPT_DIR/probes")" ""

	# Lines in order; the first bad one stops, the ones before stay.
	r=$("$KPT_SPEC" "$how" "$(printf '%s\n' 'p:t4 kpt_test_func' \
		'p:t5 kpt_test_func %zz' 'p:t6 kpt_test_func')")
	check_eq "$how: three lines, 2nd bad" "$r" errno=EINVAL
	check_eq "$how: probes after the 3 lines" \
		"$(sed 's/ # .*//' "$KPT_DIR/probes")" 'p:kptrace/t4 kpt_test_func'
	# ids are never reused: t1 0, t2 1, other/t2 2, the default-named
	# 3..5, t4 6
	check_eq "$how: id of t4" "$(spec_field t4 id)" 6
	kpt_unload
}

run_path write
run_path debugfs
run_path ioctl

# Adding probes is writing: not through a read-only descriptor.
kpt_load stack=0
check_eq "ioctl on a read-only fd" \
	"$("$KPT_SPEC" ioctl-ro 'p:ro kpt_test_func')" errno=EBADF
check_eq "probes after the read-only ioctl" "$(cat "$KPT_DIR/probes")" ""
check_match "KPT_IOC_INFO on a read-only fd" "$("$KPT_READ" info)" \
	'^info magic=0x4b50 version=1 .* nr_probes=0 '
kpt_unload

# One write is at most 4096 bytes.
kpt_load stack=0
check_eq "4096-byte write" \
	"$("$KPT_SPEC" pad 4096 'p:big kpt_test_func')" ok
check_eq "4097-byte write" \
	"$("$KPT_SPEC" pad 4097 'p:big2 kpt_test_func')" errno=E2BIG
check_eq "probes after the big writes" \
	"$(sed 's/ # .*//' "$KPT_DIR/probes")" 'p:kptrace/big kpt_test_func'
# The same specs written at run time, for the probe= comparison below.
spec_add 'p:i1 kpt_test_func a=$arg1:u32'
spec_add 'r:i2 kpt_test_func rv=$retval:s64'
grep -E '^[pr]:kptrace/i[12] ' "$KPT_DIR/probes" |
	sed 's/ # id=[0-9]* / # /' > "$KPT_TMP/written"
kpt_unload

# probe= at insmod: double-quoted, ';'-separated.
kpt_load stack=0 'probe="p:i1 kpt_test_func a=$arg1:u32;r:i2 kpt_test_func rv=$retval:s64"'
sed 's/^/#   /' "$KPT_DIR/probes"
check_eq "probe= listing" \
	"$(sed 's/ # id=[0-9]* / # /' "$KPT_DIR/probes")" "$(cat "$KPT_TMP/written")"
check_eq "probe= ids" "$(spec_field i1 id) $(spec_field i2 id)" "0 1"
kpt_call 2
kpt_trace_read "$KPT_TMP/trace.param"
check_eq "probe= entry events" "$(spec_events "$KPT_TMP/trace.param" i1)" \
	"$(printf 'i1: a=%s\n' 1 2)"
check_match "probe= return events" "$(spec_events "$KPT_TMP/trace.param" i2 |
	tr '\n' '|')" '^i2: ret=-1 lat_ns=[0-9]+ rv=-1\|i2: ret=-2 lat_ns=[0-9]+ rv=-2\|$'
kpt_unload
expect_insmod_fail -w 'unknown register, at column 19 (-22)' EINVAL \
	'probe="p:i1 kpt_test_func;p:i3 kpt_test_func %zz"'

spec_finish "write (to /dev/kptrace and to probes), ioctl and probe= add and remove probes with the right errnos"
