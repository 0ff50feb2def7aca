#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a kernel lockdown raised after kptrace was loaded stops
#   every new probe (a write, the KPT_IOC_PROBE ioctl) with EPERM and one
#   log line each, as ftrace re-checks it at every registration; what was
#   armed before keeps working, and can be listed and deleted; what it
#   recorded can no longer be read (EPERM), as tracefs's files cannot
# requires: root, debugfs, kptrace.ko, helpers/kpt_spec, helpers/kpt_read,
#   securityfs with
#   the lockdown LSM at "none"; runs in kptrace's QEMU guest only, or with
#   KPT_LOCKDOWN_OK=1, because only a reboot lowers the lockdown again
#   (KPT_LOCKDOWN_OK=0 skips it in the guest too)
# order: last
#
# Before the lockdown: p:before on do_sys_openat2 (its condition keeps
# no call: it counts, records nothing), a pending p:pend
# kpt_test2:kpt_test2_func (kpt_test2 not loaded), p:quiet, the opens of
# uid 65534, and a reader asleep in read() of /dev/kptrace. Then
# "confidentiality" goes to /sys/kernel/security/lockdown, and:
#   write  'p:after do_sys_openat2'  -> EPERM
#   ioctl  'p:after2 do_sys_openat2' -> EPERM
#   write  'r:after3 kpt_test2:kpt_test2_func' (pending: module not
#          loaded)                   -> EPERM, checked before that too
#   write  's:nsl pid=4242' from a new pid namespace, which has no such
#          pid                       -> EPERM, checked before the pid
# each with exactly one log line
#   kptrace: "<spec>": kernel lockdown forbids kprobes (-1)
# and the error_log entry; no probe is added. p:before still counts hits
# (the 0400 debugfs files stay readable under lockdown), p:pend is still
# pending, "-:before" works, and rmmod works. The records are not for
# reading any more (as tracefs refuses its files then): the trace file
# refuses to open, a read of /dev/kptrace fails, both with EPERM, and the
# read() asleep since before the raise ends with EPERM without the
# record p:quiet made under the lockdown (kpt_read perm's open, as uid
# 65534; the debugfs files that take writes refuse to open then). A
# MOD:SYM probe that is
# pending when its module loads goes through the same check
# (kpt_probe_arm()); it cannot be shown here, as the lockdown refuses the
# unsigned test module itself.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
require_root
require_debugfs
require_ko
require_kpt_spec
require_kpt_read
case ${KPT_LOCKDOWN_OK:-} in
1) ;;
0) skip "KPT_LOCKDOWN_OK=0: this boot must stay unlocked" ;;
*) [ -n "${KPT_VM_ACCEL:-}" ] ||
	skip "raises the kernel lockdown until reboot: runs in the QEMU guest, or with KPT_LOCKDOWN_OK=1" ;;
esac
mkdir -p "$KPT_TMP" || fail "cannot create $KPT_TMP"
trap kpt_cleanup EXIT
trap 'exit 1' INT TERM HUP
kpt_unload

LD=/sys/kernel/security/lockdown
[ -e "$LD" ] || mount -t securityfs none /sys/kernel/security 2>/dev/null
[ -w "$LD" ] || skip "no $LD (securityfs or the lockdown LSM missing)"
case $(cat "$LD") in
*"[none]"*) ;;
*) skip "the kernel is locked down already: $(cat "$LD")" ;;
esac

kpt_load stack=0
# p:before counts every open (its hits) and records none (no such uid),
# so that the reader below sleeps with nothing to read
spec_add 'p:before do_sys_openat2 if uid == 54321'
spec_add 'p:pend kpt_test2:kpt_test2_func'
spec_add 'p:quiet do_sys_openat2 if uid == 65534 && comm == "kpt_read"'
check_eq "pend is pending" "$(spec_mode pend)" pending
kpt_bg "$KPT_READ" -t 20 read 1 > "$KPT_TMP/blocked" 2> "$KPT_TMP/blocked.err"
blocked=$KPT_BG
# asleep in read() (KPT_NR_READ: 0 on x86-64, 63 on arm64), not only started
n=0
until [ "$(cut -d ' ' -f 1 "/proc/$blocked/syscall" 2>/dev/null)" = $KPT_NR_READ ]; do
	kill -0 "$blocked" 2>/dev/null ||
		fail "the reader did not block: $(cat "$KPT_TMP/blocked" "$KPT_TMP/blocked.err")"
	[ $n -lt 100 ] || fail "the reader is not in read() after 10 s"
	sleep 0.1
	n=$((n + 1))
done
sleep 0.5

echo confidentiality > "$LD" || fail "cannot raise the lockdown"
check_match "lockdown" "$(cat "$LD")" '\[confidentiality\]'
info "lockdown now: $(cat "$LD")"

kpt_mark
check_eq "write after the lockdown" "$(spec_write 'p:after do_sys_openat2')" \
	errno=EPERM
check_eq "ioctl after the lockdown" "$(spec_ioctl 'p:after2 do_sys_openat2')" \
	errno=EPERM
check_eq "an s line from a pid namespace: lockdown first, not ESRCH" \
	"$(unshare -p -f "$KPT_SPEC" write 's:nsl pid=4242')" errno=EPERM
check_eq "pending MOD:SYM after the lockdown" \
	"$(spec_write 'r:after3 kpt_test2:kpt_test2_func')" errno=EPERM
kpt_log_kptrace > "$KPT_TMP/log"
sed 's/^/#   /' "$KPT_TMP/log"
check_eq "log lines" "$(cat "$KPT_TMP/log")" \
"kptrace: \"p:after do_sys_openat2\": kernel lockdown forbids kprobes (-1)
kptrace: \"p:after2 do_sys_openat2\": kernel lockdown forbids kprobes (-1)
kptrace: \"s:nsl pid=4242\": kernel lockdown forbids kprobes (-1)
kptrace: \"r:after3 kpt_test2:kpt_test2_func\": kernel lockdown forbids kprobes (-1)"
check_match "error_log" "$(spec_err_last | head -n 1)" \
	'kptrace: error: kernel lockdown forbids kprobes \(-1\)$'
check_eq "error_log command" "$(spec_err_last | sed -n 2p)" \
	'  Command: r:after3 kpt_test2:kpt_test2_func'
check_eq "probes after the refusals" \
	"$(sed 's/ # .*//' "$KPT_DIR/probes")" \
	"$(printf '%s\n' 'p:kptrace/before do_sys_openat2 if uid == 54321' \
		'p:kptrace/pend kpt_test2:kpt_test2_func' \
		'p:kptrace/quiet do_sys_openat2 if uid == 65534 && comm == "kpt_read"')"

# What was armed before goes on; it can be deleted.
h0=$(spec_field before hits)
cat /proc/version /proc/cmdline > /dev/null
h1=$(spec_field before hits)
[ "${h1:-0}" -gt "${h0:-0}" ] ||
	check_fail "p:before counted no hit under lockdown ($h0 -> $h1)"
check_eq "pend still pending" "$(spec_mode pend)" pending
# What was recorded is not for reading under it, as tracefs is not:
# the text files refuse to open, /dev/kptrace opens (deletes go through
# it) but refuses each read; the counters stay readable.
cat "$KPT_DIR/trace" > /dev/null 2> "$KPT_TMP/trace.err"
check_eq "trace under lockdown: cat's status" "$?" 1
check_match "trace under lockdown" "$(cat "$KPT_TMP/trace.err")" \
	'Operation not permitted$'
check_eq "/dev/kptrace read under lockdown" "$("$KPT_READ" nonblock)" \
	"nonblock EPERM"
# A read() that slept through the raise gets EPERM too, not the record
# made under the lockdown (p:quiet's, of kpt_read perm's open): the
# reader asks again after each wait (100 ms at most), as a new read()
# does first.
check_eq "an open as uid 65534, for p:quiet" "$("$KPT_READ" perm)" \
	"perm errno=EACCES"
wait "$blocked"
check_eq "the sleeping read(): kpt_read's status" "$?" 1
KPT_BG_PIDS=
check_eq "the sleeping read(): refused" "$(cat "$KPT_TMP/blocked.err")" \
	"kpt_read: read: Operation not permitted"
check_match "the sleeping read(): no record" "$(cat "$KPT_TMP/blocked")" \
	'^summary records=0 '
check_eq "stats: read, pending" "$(kpt_stat read) $(kpt_stat pending)" "0 1"
check_eq "delete under lockdown" "$(spec_write '-:before')" ok
check_eq "delete pending under lockdown" "$(spec_write '-:pend')" ok
check_eq "delete quiet under lockdown" "$(spec_write '-:quiet')" ok
check_eq "probes at the end" "$(cat "$KPT_DIR/probes")" ""
kpt_unload
spec_finish "lockdown raised at run time: write, ioctl and pending MOD:SYM refused with EPERM, one log line each"
