#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kernel addresses read from /dev/kptrace (stack frames, and
#   64-bit values in the kernel half that are not error codes) are zeroed
#   and flagged KPT_F_ADDR_HIDDEN for a reader without CAP_SYSLOG, and for
#   every reader when kptr_restrict=2; root sees them otherwise; the bytes
#   after a record's last string are zero for every reader; the text file
#   trace hides the same
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec,
#   hazard_modules/kpt_hazard_caps, /proc/sys/kernel/kptr_restrict
#
# name=kpt_test_func stack=8, 10 calls before each read
# (hazard_modules/kpt_hazard_caps reads every pending record):
# - kptr_restrict=1, root: 10 entries with stacks, none hidden, frames set;
# - kptr_restrict=1, root without CAP_SYSLOG: 10 hidden, every frame zero;
# - kptr_restrict=2, root: 10 hidden, every frame zero.
#
# Then, loaded idle with stack=4 and two probes:
#   p:kaddr kpt_test_strs k=$arg1:x64 sp=%sp ip=%ip:symbol st=$stack
#           k32=$arg1:x32 n=$arg3:s64 ks=+0($arg1):string us=+0($arg2):ustring
#   r:kret kpt_test_kptr rv=$retval:x64 c=$comm
#   r:khist kpt_test_kptr rv=$retval:x64 hist:keys=stacktrace,rv:vals=retval
# one write of "abc", its NUL and 63 'x' to kpt_test/strs (so the string
# read takes non-zero bytes in past the NUL), and kpt_test/kptr's calls
# returning current and ERR_PTR(-ENOENT), read by the same three readers:
# - root: k, sp, ip, st and the frames are not zero, k32 is k's low half,
#   the first kret has ret = rv = a kernel pointer; no KPT_F_ADDR_HIDDEN;
# - hidden (nosyslog, kptr_restrict=2): k, sp, ip, st, every frame, and
#   the first kret's ret and rv are 0, both records flagged; k32 (32 bits)
#   and n=0x43 pass unchanged;
# - everyone: the second kret has ret = rv = -2, unflagged; ks is 30
#   bytes, us 3, the 7 bytes after us are 0, and no record has a padding
#   byte that is not 0.
#
# The text files follow the same rule, decided at their open (hist/khist:
# "(hidden)" for the stack, 0 for the pointer key and values), a call of
# kpt_test_kptr returning current, read by `cat trace`:
# - kptr_restrict=2: "kret: ret=0 ... rv=0x0";
# - kptr_restrict=1, root: ret (signed) and rv=0xff... the pointer.
# A hist probe given by address with an @ADDR fetcharg
# (p:kahist 0xADDR ka=@0xADDR:x64 hist:keys=cpu): its spec, in the hist
# file's "# probe:" line and in the probes file, shows both addresses to
# root and 0x0 at kptr_restrict=2.
# kptr_restrict is put back.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_haz_caps
require_kpt_spec
kpt_test_load
[ -e "$KPT_TEST_DIR/kptr" ] || skip "kpt_test.ko has no kptr file (rebuild it)"
KR=/proc/sys/kernel/kptr_restrict
[ -w "$KR" ] || skip "no writable $KR"
saved=$(cat "$KR")

cleanup()
{
	echo "$saved" > "$KR"
}

kpt_load name=kpt_test_func args=2 stack=8
check()
{
	want=$1
	kpt_call 10
	got=$("$KPT_HAZ_CAPS" "$2")
	info "kptr_restrict=$(cat "$KR") $2: $got"
	assert_eq "$2 entries with a stack" "$(kpt_haz_field stack_entries "$got")" 10
	if [ "$want" = visible ]; then
		assert_eq "$2 hidden" "$(kpt_haz_field hidden "$got")" 0
		assert_ge "$2 frames not zero" "$(kpt_haz_field nonzero_frames "$got")" 20
	else
		assert_eq "$2 hidden" "$(kpt_haz_field hidden "$got")" 10
		assert_eq "$2 frames not zero" "$(kpt_haz_field nonzero_frames "$got")" 0
	fi
}
echo 1 > "$KR" || fail "cannot set kptr_restrict=1"
check visible root
check hidden nosyslog
echo 2 > "$KR" || fail "cannot set kptr_restrict=2"
check hidden root
kpt_unload

# Addresses in values, and the padding after strings.
echo 1 > "$KR" || fail "cannot set kptr_restrict=1"
kpt_load stack=4
spec_add 'p:kaddr kpt_test_strs k=$arg1:x64 sp=%sp ip=%ip:symbol st=$stack k32=$arg1:x32 n=$arg3:s64 ks=+0($arg1):string us=+0($arg2):ustring'
spec_add 'r:kret kpt_test_kptr rv=$retval:x64 c=$comm'
spec_add 'r:khist kpt_test_kptr rv=$retval:x64 hist:keys=stacktrace,rv:vals=retval'
# A probe and a fetcharg given by address: the spec itself holds addresses.
ka=$(awk '$3 == "kpt_test_strs" { print $1; exit }' /proc/kallsyms)
[ -n "$ka" ] || fail "no kpt_test_strs in /proc/kallsyms"
spec_add "p:kahist 0x$ka ka=@0x$ka:x64 hist:keys=cpu"
assert_eq "kaddr id" "$(spec_field kaddr id)" 0
assert_eq "kret id" "$(spec_field kret id)" 1

# f NAME LINE: NAME=value of a "rec" line
f()
{
	kpt_haz_field "$1" "$2"
}

# hidden_flag LINE: 1 if the record has KPT_F_ADDR_HIDDEN
hidden_flag()
{
	echo $((($(f flags "$1") & 0x10) != 0))
}

check_values()
{
	want=$1
	r=$("$KPT_SPEC" ustrx "$KPT_TEST_DIR/strs" abc)
	assert_eq "write to strs" "$r" ok
	echo 2 > "$KPT_TEST_DIR/kptr" || fail "cannot call kpt_test_kptr"
	out=$("$KPT_HAZ_CAPS" -s 0:6,7 -s 1:1 "$2")
	echo "$out" | sed "s/^/#   kptr_restrict=$(cat "$KR") /"
	ent=$(echo "$out" | grep '^rec entry id=0 ')
	ret1=$(echo "$out" | grep '^rec return id=1 ' | sed -n 1p)
	ret2=$(echo "$out" | grep '^rec return id=1 ' | sed -n 2p)
	sum=$(echo "$out" | tail -n 1)
	assert_eq "$2 kaddr entries" "$(echo "$out" | grep -c '^rec entry id=0 ')" 1
	assert_eq "$2 kret returns" "$(echo "$out" | grep -c '^rec return id=1 ')" 2
	# the same for every reader
	assert_eq "$2 n" "$(f a5 "$ent")" 0x43
	assert_eq "$2 ks length" "$(f s6 "$ent")" 30
	assert_eq "$2 us length" "$(f s7 "$ent")" 3
	assert_eq "$2 padding after us" "$(f pad "$ent")" 7
	assert_eq "$2 padding bytes not zero" "$(f pad_nonzero "$sum")" 0
	assert_ge "$2 padding bytes" "$(f pad_bytes "$sum")" 7
	assert_eq "$2 error return" "$(f ret "$ret2")" 0xfffffffffffffffe
	assert_eq "$2 error \$retval" "$(f a0 "$ret2")" 0xfffffffffffffffe
	assert_eq "$2 error return flagged" "$(hidden_flag "$ret2")" 0
	[ "$(f a4 "$ent")" != 0x0 ] || fail "$2: k32 is 0"
	if [ "$want" = visible ]; then
		for a in a0 a1 a2 a3; do
			[ "$(f $a "$ent")" != 0x0 ] || fail "$2: kaddr $a is 0"
		done
		assert_eq "$2 k32 is k's low half" \
			"$(printf '0x%x' $(($(f a0 "$ent") & 0xffffffff)))" \
			"$(f a4 "$ent")"
		assert_ge "$2 frames not zero" "$(f nonzero_frames "$ent")" 1
		assert_eq "$2 kaddr flagged" "$(hidden_flag "$ent")" 0
		[ "$(f ret "$ret1")" != 0x0 ] || fail "$2: kret ret is 0"
		assert_eq "$2 kret \$retval" "$(f a0 "$ret1")" "$(f ret "$ret1")"
		assert_eq "$2 kret flagged" "$(hidden_flag "$ret1")" 0
	else
		for a in a0 a1 a2 a3; do
			assert_eq "$2 kaddr $a" "$(f $a "$ent")" 0x0
		done
		assert_eq "$2 frames not zero" "$(f nonzero_frames "$ent")" 0
		assert_eq "$2 kaddr flagged" "$(hidden_flag "$ent")" 1
		assert_eq "$2 kret ret" "$(f ret "$ret1")" 0x0
		assert_eq "$2 kret \$retval" "$(f a0 "$ret1")" 0x0
		assert_eq "$2 kret flagged" "$(hidden_flag "$ret1")" 1
	fi
}
check_values visible root
check_values hidden nosyslog
echo 2 > "$KR" || fail "cannot set kptr_restrict=2"
check_values hidden root

# The text files: trace hides what /dev/kptrace hides.
trace_kret()
{
	echo 1 > "$KPT_TEST_DIR/kptr" || fail "cannot call kpt_test_kptr"
	kpt_trace_read "$KPT_TMP/trace"
	sed "s/^/#   kptr_restrict=$(cat "$KR") trace: /" "$KPT_TMP/trace"
	line=$(grep ' kret: ' "$KPT_TMP/trace")
}
trace_kret
check_match "kptr_restrict=2 trace" "$line" ' kret: ret=0 lat_ns=[0-9]+ rv=0x0 c='
# hist files: no stack, no address (key or value) for a hidden reader
hist=$(tr '\n' '|' < "$KPT_DIR/hist/khist")
sed "s/^/#   kptr_restrict=2 hist: /" "$KPT_DIR/hist/khist" | grep -v ': #'
check_match "kptr_restrict=2 hist" "$hist" \
	'\{ stacktrace:\| +\(hidden\)\|, rv: 0x0 \} hitcount: +[0-9]+  retval: +0  retval.min: +0  retval.max: +0\|'
# and the spec's own addresses, in the hist file's header and in probes
check_match "kptr_restrict=2 hist spec" "$(grep '^# probe:' "$KPT_DIR/hist/kahist")" \
	'^# probe: p:kptrace/kahist 0x0 ka=@0x0:x64 hist:keys=cpu'
check_match "kptr_restrict=2 probes" "$(grep '/kahist ' "$KPT_DIR/probes")" \
	'^p:kptrace/kahist 0x0 ka=@0x0:x64 hist:keys=cpu'
echo 1 > "$KR" || fail "cannot set kptr_restrict=1"
trace_kret
check_match "root trace" "$line" ' kret: ret=-[0-9]+ lat_ns=[0-9]+ rv=0xff[0-9a-f]{14} c='
hist=$(tr '\n' '|' < "$KPT_DIR/hist/khist")
check_match "root hist" "$hist" \
	'\{ stacktrace:\| +kpt_test_kptr\+0x[0-9a-f]+/0x[0-9a-f]+ \[kpt_test\]\|.*, rv: 0xff[0-9a-f]{14} \} hitcount: '
check_match "root hist spec" "$(grep '^# probe:' "$KPT_DIR/hist/kahist")" \
	"^# probe: p:kptrace/kahist 0x$ka ka=@0x$ka:x64 hist:keys=cpu"
check_match "root probes" "$(grep '/kahist ' "$KPT_DIR/probes")" \
	"^p:kptrace/kahist 0x$ka ka=@0x$ka:x64 hist:keys=cpu"
echo "$saved" > "$KR"
spec_finish "addresses hidden without CAP_SYSLOG and with kptr_restrict=2, in trace and hist files too; padding zero"
