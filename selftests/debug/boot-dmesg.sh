# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced first by the guest scripts of check-debug: checks the kernel log
# of the boot for faults (the patterns of selftests/vm/vmlib.sh, less the
# debug kernel's own announcements, such as "rcu: RCU lockdep checking is
# enabled."), prints them, then clears the kernel log (dmesg -c: busybox
# has no -C), so that
# the harness's scan of the guest's dmesg only sees the test's own time.
# Sets KPT_BOOT_FAULTS to the number of faulty boot lines.
KPT_BOOT_FAULTS=0
if dmesg > /tmp/boot.dmesg 2>/dev/null; then
	_bad=$(grep -E 'Oops|BUG:|WARNING:|Kernel panic|Call Trace:|general protection|KASAN|UBSAN|lockdep|possible recursive locking|possible circular locking|inconsistent lock state|sleeping function called from invalid context|kernel BUG at|detected stalls|blocked for more than|DEBUG_LOCKS_WARN_ON' /tmp/boot.dmesg |
		grep -vE 'RCU lockdep checking is enabled|Spectre V2 : WARNING: Unprivileged eBPF')
	if [ -n "$_bad" ]; then
		KPT_BOOT_FAULTS=$(printf '%s\n' "$_bad" | grep -c '')
		echo "# boot log: $KPT_BOOT_FAULTS fault lines:"
		printf '%s\n' "$_bad" | head -n 20 | sed 's/^/#   boot: /'
	fi
	dmesg -c >/dev/null
fi
