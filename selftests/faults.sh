# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The kernel reports that fail a test run, in one place: sourced by the
# host's harness (vm/vmlib.sh), by the guest's runner (run_tests.sh) and by
# the debug kernel's boot check (debug/boot-dmesg.sh). POSIX sh: the guest
# has busybox. Extended regular expressions, matched on kernel log lines.

KPT_FAULT_RE='Oops|BUG:|WARNING:|Kernel panic|Call Trace:|general protection|'\
'KASAN|UBSAN|lockdep|possible recursive locking|possible circular locking|'\
'inconsistent lock state|sleeping function called from invalid context|'\
'kernel BUG at|Unable to handle kernel|kernel NULL pointer|Fatal exception|'\
'stack-protector|double fault|detected stalls|RCU stall|'\
'rcu_sched self-detected|blocked for more than|soft lockup|hard LOCKUP|'\
'DEBUG_LOCKS_WARN_ON'

# Benign lines that happen to contain one of the words above: a boot
# notice of Debian's kernels, and the debug kernel's lockdep announcement.
KPT_FAULT_IGNORE_RE='Spectre V2 : WARNING: Unprivileged eBPF|'\
'RCU lockdep checking is enabled'
