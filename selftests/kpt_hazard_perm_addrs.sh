#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: stack addresses read from /dev/kptrace are zeroed and
#   flagged KPT_F_ADDR_HIDDEN for a reader without CAP_SYSLOG, and for
#   every reader when kptr_restrict=2; root sees them otherwise
# requires: root, debugfs, kptrace.ko, kpt_test.ko,
#   hazard_modules/kpt_hazard_caps, /proc/sys/kernel/kptr_restrict
#
# name=kpt_test_func stack=8, 10 calls before each read
# (hazard_modules/kpt_hazard_caps reads every pending record):
# - kptr_restrict=1, root: 10 entries with stacks, none hidden, frames set;
# - kptr_restrict=1, root without CAP_SYSLOG: 10 hidden, every frame zero;
# - kptr_restrict=2, root: 10 hidden, every frame zero.
# kptr_restrict is put back.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/hazard_modules/lib_hazard.sh"
kpt_setup
require_haz_caps
kpt_test_load
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
echo "$saved" > "$KR"
info "addresses hidden without CAP_SYSLOG and with kptr_restrict=2"
