#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: MOD:SYM probes on a module that is not loaded are pending,
#   armed at every load before the module's init runs (its init calls are
#   traced), disarmed at unload, re-armed at each reload
# requires: root, debugfs, kptrace.ko, kpt_test2.ko, helpers/kpt_spec
#
# kpt_test2's init calls kpt_test2_func(i, 0x2222), i = 1..init_calls
# (returns i + 0x2222); its debugfs "call" makes more calls.
#   p:m  kpt_test2:kpt_test2_func a=$arg1:u32 b=$arg2
#   r:mr kpt_test2:kpt_test2_func a=$arg1:u32 rv=$retval:s64
# added while kpt_test2 is not loaded: accepted, listed
#   "... # id=0 at=kpt_test2:kpt_test2_func kprobe pending hits=0 missed=0"
# insmod init_calls=3: both lines "at=kpt_test2:kpt_test2_func+0x0/0x<s>
#   kprobe|kretprobe <ftrace|optimized|int3> hits=3"; events exactly
#   m: a=1 b=0x2222, mr: ret=8739 lat_ns=L a=1 rv=8739, ... a=3, from insmod
#   and 2 more calls through debugfs trace a=1, a=2 (hits=5)
# rmmod: both pending again, hits kept (5); no event
# insmod init_calls=2: armed again (same ids), a=1, a=2 traced (hits=7)
# A MOD:SYM probe added while the module is loaded (p:late) is armed at
# once, pending after rmmod, re-armed on the next load. A pending probe
# can be deleted (p:gone): the next load does not trace it. A plain-SYM
# probe on a module function (p:plain kpt_test2_func) is not MOD:SYM: it
# is "disabled" once the module is gone, its line shows no raw address,
# and it records nothing after a reload.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
require_test2_ko

cleanup()
{
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test2
}

kpt_rmmod_quiet kpt_test2
kpt_loaded kpt_test2 && fail "kpt_test2 is loaded and cannot be unloaded"
test2_load()
{
	_out=$(insmod "$KPT_TEST2_KO" "$@" 2>&1) || fail "insmod kpt_test2: $_out"
}
test2_unload()
{
	_out=$(rmmod kpt_test2 2>&1) || fail "rmmod kpt_test2: $_out"
}

AT='kpt_test2:kpt_test2_func\+0x0/0x[0-9a-f]+'
M='p:kptrace/m kpt_test2:kpt_test2_func a=\$arg1:u32 b=\$arg2:x64'
MR='r:kptrace/mr kpt_test2:kpt_test2_func a=\$arg1:u32 rv=\$retval:s64'

# events FILE: the m and mr events, lat_ns dropped
events()
{
	spec_events "$1" 'mr?' | sed 's/ lat_ns=[0-9]* / /'
}
expect_calls()
{
	for _i in "$@"; do
		echo "m: a=$_i b=0x2222"
		echo "mr: ret=$((_i + 0x2222)) a=$_i rv=$((_i + 0x2222))"
	done
}

kpt_load stack=0
spec_add 'p:m kpt_test2:kpt_test2_func a=$arg1:u32 b=$arg2'
spec_add 'r:mr kpt_test2:kpt_test2_func a=$arg1:u32 rv=$retval:s64'
spec_add 'p:gone kpt_test2:kpt_test2_func'
sed 's/^/#   /' "$KPT_DIR/probes"
check_match "m pending" "$(spec_line m)" \
	"^$M # id=0 at=kpt_test2:kpt_test2_func kprobe pending hits=0 missed=0\$"
check_match "mr pending" "$(spec_line mr)" \
	"^$MR # id=1 at=kpt_test2:kpt_test2_func kretprobe pending hits=0 missed=0\$"
spec_add '-:gone'

# First load: armed before init, init's 3 calls traced.
test2_load init_calls=3
sed 's/^/#   /' "$KPT_DIR/probes"
check_match "m armed" "$(spec_line m)" \
	"^$M # id=0 at=$AT kprobe $SPEC_MODE hits=3 missed=0\$"
check_match "mr armed" "$(spec_line mr)" \
	"^$MR # id=1 at=$AT kretprobe $SPEC_MODE hits=3 missed=0\$"
echo 2 > "$KPT_TEST2_DIR/call" || fail "calling kpt_test2_func"
kpt_trace_read "$KPT_TMP/trace1"
sed 's/^/#   /' "$KPT_TMP/trace1"
check_eq "events of load 1" "$(events "$KPT_TMP/trace1")" \
	"$(expect_calls 1 2 3 1 2)"
check_eq "init calls come from insmod" \
	"$(grep -c '^insmod-[0-9]* .*: m: ' "$KPT_TMP/trace1")" 3
spec_add 'p:late kpt_test2:kpt_test2_func'
spec_add 'p:plain kpt_test2_func'
check_match "late armed at once" "$(spec_line late)" \
	" # id=[0-9]+ at=$AT kprobe $SPEC_MODE hits=0 missed=0\$"

# Unload: pending again, hits kept.
test2_unload
sed 's/^/#   /' "$KPT_DIR/probes"
check_match "m pending after rmmod" "$(spec_line m)" \
	"^$M # id=0 at=kpt_test2:kpt_test2_func kprobe pending hits=5 missed=0\$"
check_match "mr pending after rmmod" "$(spec_line mr)" \
	"^$MR # id=1 at=kpt_test2:kpt_test2_func kretprobe pending hits=5 missed=0\$"
check_match "late pending after rmmod" "$(spec_line late)" \
	" at=kpt_test2:kpt_test2_func kprobe pending hits=0 missed=0\$"
check_eq "plain probe mode after rmmod" "$(spec_mode plain)" disabled
check_match "plain probe: no raw address" "$(spec_line plain)" \
	' at=(kpt_test2:)?kpt_test2_func(\+0x0/0x[0-9a-f]+)? kprobe '
kpt_trace_read "$KPT_TMP/trace2"
check_eq "no event while unloaded" "$(cat "$KPT_TMP/trace2")" ""

# Reload: re-armed, same ids.
test2_load init_calls=2
sed 's/^/#   /' "$KPT_DIR/probes"
check_match "m re-armed" "$(spec_line m)" \
	"^$M # id=0 at=$AT kprobe $SPEC_MODE hits=7 missed=0\$"
check_match "mr re-armed" "$(spec_line mr)" \
	"^$MR # id=1 at=$AT kretprobe $SPEC_MODE hits=7 missed=0\$"
check_match "late re-armed" "$(spec_line late)" \
	" at=$AT kprobe $SPEC_MODE hits=2 missed=0\$"
kpt_trace_read "$KPT_TMP/trace3"
sed 's/^/#   /' "$KPT_TMP/trace3"
check_eq "events of load 2" "$(events "$KPT_TMP/trace3")" "$(expect_calls 1 2)"
check_eq "late events of load 2" \
	"$(grep -c ': late:$' "$KPT_TMP/trace3")" 2
check_eq "plain events after the reload" \
	"$(grep -c ': plain:' "$KPT_TMP/trace3")" 0
check_eq "deleted pending probe: no event" \
	"$(grep -c ': gone:' "$KPT_TMP/trace3")" 0
check_eq "m stats" "$(spec_stat m calls)/$(spec_stat m recorded)" 7/7
check_eq "mr stats" "$(spec_stat mr calls)/$(spec_stat mr recorded)" 7/7
test2_unload
kpt_stats_check
spec_finish "MOD:SYM probes: pending, armed before init, disarmed, re-armed"
