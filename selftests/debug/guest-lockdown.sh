#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of check-debug's lockdown boots: run with the kernel booted
# with lockdown=LEVEL, prints KTAP.
#
#   sh /selftests/debug/guest-lockdown.sh confidentiality|integrity
#
# kptrace.ko is the signed copy (selftests/debug/signed/kptrace.ko.signed,
# signed by check-debug.sh with the debug kernel's build key) when there is
# one, else the unsigned KPT_KO.
#
# confidentiality: insmod kptrace fails with EPERM, and nothing is left
#   (no module, no /dev/kptrace, no debugfs directory). With a signed module
#   the refusal is kptrace's own: one line "kptrace: kernel lockdown forbids
#   kprobes". With an unsigned one (a stock Debian kernel) the kernel's
#   lockdown refuses the unsigned module before kptrace's init runs ("Lockdown:
#   ... unsigned module loading is restricted"): the test checks that refusal
#   instead, and says so. A second try is refused the same way.
# integrity (needs the signed module): the unsigned module is refused with
#   EPERM; the signed one loads on do_sys_openat2; every 0400 debugfs file
#   (trace, trace_pipe, probes, stats) reads, the trace shows the opens,
#   /dev/kptrace reads, and rmmod works.

KPT_SELFTESTS=/selftests
export KPT_SELFTESTS
. /selftests/lib.sh
level=$1
signed=$KPT_SELFTESTS/debug/signed/kptrace.ko.signed
[ -f "$signed" ] || signed=
n=0
nfail=0
result()
{
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		nfail=$((nfail + 1))
		echo "# FAIL: $3"
		echo "not ok $n $2"
	fi
}
since_mark()
{
	kpt_log_since | grep -v 'kpt_selftest: mark'
}

mount -t securityfs none /sys/kernel/security 2>/dev/null
# The boot log is checked here and then cleared, so that the harness's scan
# of the guest's dmesg sees only what happened during the test: a debug
# kernel's boot says "RCU lockdep checking is enabled", which the harness
# would take for a lockdep report.
. /selftests/debug/boot-dmesg.sh
echo "TAP version 13"
case $level in
confidentiality) echo "1..5" ;;
integrity) echo "1..5" ;;
*) echo "usage: guest-lockdown.sh confidentiality|integrity" >&2; exit 2 ;;
esac
echo "# $(uname -r): $(cat /proc/cmdline)"
if [ -r /sys/kernel/security/lockdown ]; then
	lk=$(cat /sys/kernel/security/lockdown)
	echo "# /sys/kernel/security/lockdown: $lk"
	case $lk in
	*"[$level]"*) result ok "lockdown_is_$level" ;;
	*) result fail "lockdown_is_$level" "lockdown is '$lk'" ;;
	esac
else
	# No securityfs in this kernel: the command line and the LSM list.
	echo "# no /sys/kernel/security/lockdown (CONFIG_SECURITYFS off): checking the command line"
	# boot-dmesg.sh kept the boot's log in /tmp/boot.dmesg, then cleared it
	if grep -qw "lockdown=$level" /proc/cmdline &&
	   grep -q 'LSM: .*lockdown\|Kernel is locked down\|lockdown' /tmp/boot.dmesg; then
		result ok "lockdown_is_$level"
	else
		result fail "lockdown_is_$level" "no lockdown=$level on the command line"
	fi
fi

if [ "$level" = confidentiality ]; then
	# The kernel's "Lockdown: ... is restricted" notices are ratelimited
	# (10 per 5 s), and the boot spends them on tracefs: wait until the
	# window the boot's notices opened is over.
	while [ "$(cut -d. -f1 /proc/uptime)" -lt 7 ]; do
		sleep 1
	done
	ko=${signed:-$KPT_KO}
	kind=unsigned
	[ -n "$signed" ] && kind=signed
	for try in 1 2; do
		kpt_mark
		out=$("$KPT_INSMOD" "$ko" name=do_sys_openat2 2>&1)
		log=$(since_mark)
		echo "$log" | sed 's/^/#   dmesg: /'
		case $out in
		errno=EPERM*) result ok "insmod_${kind}_refused_eperm_$try" ;;
		*) kpt_rmmod_quiet kptrace
		   result fail "insmod_${kind}_refused_eperm_$try" "insmod $kind: $out" ;;
		esac
	done
	if [ -n "$signed" ]; then
		msg=$(echo "$log" | grep -c '^kptrace: kernel lockdown forbids kprobes')
		if [ "$msg" = 1 ] && ! echo "$log" | grep -q 'unsigned module'; then
			result ok "kptrace_refuses_itself"
		else
			result fail "kptrace_refuses_itself" "no single 'kptrace: kernel lockdown forbids kprobes' line"
		fi
	else
		if echo "$log" | grep -q 'Lockdown: .*unsigned module loading is restricted' &&
		   ! echo "$log" | grep -q '^kptrace: '; then
			echo "# unsigned module: refused by the kernel's lockdown before kptrace's init ran"
			result ok "lockdown_refuses_unsigned_module"
		else
			result fail "lockdown_refuses_unsigned_module" "no 'Lockdown: ... unsigned module loading is restricted' line"
		fi
	fi
	if kpt_loaded kptrace || [ -e "$KPT_DEV" ] || [ -e "$KPT_DIR" ]; then
		result fail nothing_left "left behind: $(ls -d /sys/module/kptrace "$KPT_DEV" "$KPT_DIR" 2>/dev/null)"
	else
		result ok nothing_left
	fi
else
	if [ -z "$signed" ]; then
		echo "ok 2 unsigned_refused # SKIP no signed kptrace.ko (a stock kernel)"
		echo "ok 3 signed_loads # SKIP no signed kptrace.ko"
		echo "ok 4 debugfs_files_read # SKIP no signed kptrace.ko"
		echo "ok 5 unload # SKIP no signed kptrace.ko"
		exit 0
	fi
	out=$("$KPT_INSMOD" "$KPT_KO" name=do_sys_openat2 2>&1)
	case $out in
	errno=EPERM*) result ok unsigned_refused ;;
	*) kpt_rmmod_quiet kptrace
	   result fail unsigned_refused "unsigned insmod under integrity: $out" ;;
	esac
	kpt_mark
	out=$("$KPT_INSMOD" "$signed" name=do_sys_openat2 args=2 stack=4 2>&1)
	if [ "$out" = ok ] && kpt_loaded kptrace; then
		result ok signed_loads
	else
		since_mark | sed 's/^/#   dmesg: /'
		result fail signed_loads "signed insmod under integrity: $out"
	fi
	cat /proc/version /proc/cmdline > /dev/null
	bad=
	for f in probes stats trace; do
		if ! timeout 20 cat "$KPT_DIR/$f" > "/tmp/ld.$f" 2> "/tmp/ld.$f.err"; then
			bad="$bad $f($(cat "/tmp/ld.$f.err"))"
		fi
	done
	cat /proc/version > /dev/null
	timeout 3 cat "$KPT_DIR/trace_pipe" > /tmp/ld.trace_pipe 2> /tmp/ld.tp.err
	[ -s /tmp/ld.trace_pipe ] || bad="$bad trace_pipe($(cat /tmp/ld.tp.err))"
	grep -q 'do_sys_openat2: arg0=' /tmp/ld.trace /tmp/ld.trace_pipe ||
		bad="$bad no-events-in-trace"
	"$KPT_READ" drain > /tmp/ld.dev 2>&1 || bad="$bad /dev/kptrace($(cat /tmp/ld.dev))"
	sed 's/^/#   probes: /' /tmp/ld.probes
	head -n 3 /tmp/ld.trace | sed 's/^/#   trace: /'
	if [ -z "$bad" ]; then
		result ok debugfs_files_read
	else
		result fail debugfs_files_read "unreadable under lockdown=integrity:$bad"
	fi
	if out=$(rmmod kptrace 2>&1) && ! kpt_loaded kptrace; then
		result ok unload
	else
		result fail unload "rmmod: $out"
	fi
fi
echo "# totals: fail:$nfail"
[ "$KPT_BOOT_FAULTS" = 0 ] || { echo "# the boot log had faults: FAIL"; exit 1; }
[ "$nfail" = 0 ]
