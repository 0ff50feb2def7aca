#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a pending MOD:SYM probe on a module's NOKPROBE_SYMBOL()
#   function is not armed when the module loads: it stays pending, with
#   one log line giving the reason, and the function's calls are not
#   traced
# requires: root, debugfs, kptrace.ko, kpt_test3.ko, helpers/kpt_spec
#
# kpt_test3 (not loaded) has kpt_test3_nokprobe(), NOKPROBE_SYMBOL(), and
# kpt_test3_func(); writing N to its debugfs "call" calls both, i = 1..N.
#   p:nb kpt_test3:kpt_test3_nokprobe a=$arg1:u32    pending
#   p:ok kpt_test3:kpt_test3_func a=$arg1:u32        pending
# insmod kpt_test3: the kprobe core adds kpt_test3_nokprobe to its
# blacklist when the module comes (its own module notifier, priority 0);
# kptrace arms pending probes after that (priority -1), so:
#   - ok is armed, nb stays pending;
#   - exactly one log line: "kptrace: nb: cannot arm on
#     kpt_test3:kpt_test3_nokprobe: cannot be probed (blacklisted,
#     notrace, or not kernel text) (-22)";
#   - 3 calls: ok: a=1..3, nothing from nb, nb hits=0.
# rmmod kpt_test3: both pending.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
require_root
require_debugfs
require_ko
require_kpt_spec
KPT_TEST3_KO=${KPT_TEST3_KO:-$(kpt_first \
	"$KPT_SELFTESTS/test_modules/kpt_test3.ko" \
	"$(dirname "${KPT_TEST_KO:-/nonexistent}")/kpt_test3.ko")}
[ -n "$KPT_TEST3_KO" ] && [ -f "$KPT_TEST3_KO" ] ||
	skip "kpt_test3.ko not found (make -C selftests, or set KPT_TEST3_KO)"
mkdir -p "$KPT_TMP" || fail "cannot create $KPT_TMP"
trap kpt_cleanup EXIT
trap 'exit 1' INT TERM HUP
kpt_unload

cleanup()
{
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test3
}
kpt_rmmod_quiet kpt_test3

kpt_load stack=0
spec_add 'p:nb kpt_test3:kpt_test3_nokprobe a=$arg1:u32'
spec_add 'p:ok kpt_test3:kpt_test3_func a=$arg1:u32'
check_eq "nb pending" "$(spec_mode nb)" pending
check_eq "ok pending" "$(spec_mode ok)" pending

kpt_mark
_out=$(insmod "$KPT_TEST3_KO" 2>&1) || fail "insmod kpt_test3: $_out"
grep -q 'kpt_test3_nokprobe' "$KPT_DEBUGFS/kprobes/blacklist" ||
	fail "kpt_test3_nokprobe is not in the kprobe blacklist"
sed 's/^/#   /' "$KPT_DIR/probes"
check_eq "nb after the load" "$(spec_mode nb)" pending
check_match "ok after the load" "$(spec_mode ok)" "^$SPEC_MODE\$"
check_eq "log" "$(kpt_log_kptrace)" \
	"kptrace: nb: cannot arm on kpt_test3:kpt_test3_nokprobe: cannot be probed (blacklisted, notrace, or not kernel text) (-22)"

echo 3 > "$KPT_DEBUGFS/kpt_test3/call" || fail "calling kpt_test3"
kpt_trace_read "$KPT_TMP/trace"
sed 's/^/#   /' "$KPT_TMP/trace"
check_eq "ok events" "$(spec_events "$KPT_TMP/trace" ok)" \
	"$(printf 'ok: a=%s\n' 1 2 3)"
check_eq "nb events" "$(spec_events "$KPT_TMP/trace" nb)" ""
check_eq "nb hits" "$(spec_field nb hits)" 0
check_eq "ok hits" "$(spec_field ok hits)" 3

_out=$(rmmod kpt_test3 2>&1) || fail "rmmod kpt_test3: $_out"
check_eq "nb after rmmod" "$(spec_mode nb)" pending
check_eq "ok after rmmod" "$(spec_mode ok)" pending
kpt_stats_check
kpt_unload
spec_finish "a pending probe on a NOKPROBE_SYMBOL() function stays pending when its module loads"
