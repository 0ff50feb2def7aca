# SPDX-License-Identifier: GPL-2.0
# Shared pieces of the QEMU harness, sourced by run-vm.sh (bash).
#
# A guest run leaves two logs on the host:
#   console log: the kernel's console (ttyS0).  Every kernel line starts with
#                a printk timestamp "[    1.234567] " (printk.time=1).
#   output log:  what the guest's command printed (ttyS1), framed by markers
#                carrying a per-run token (see init.sh):
#                  KPTRACE-VM-START <token> uptime=<s>
#                  ... command output (KTAP in mode check) ...
#                  KPTRACE-VM-DMESG-BEGIN <token>
#                  ... dmesg of the guest ...
#                  KPTRACE-VM-DMESG-END <token>
#                  KPTRACE-VM-END <token> rc=<exit code>
# Test output is never timestamped, so trace text such as kptrace's own
# " Call Trace:" blocks is not mistaken for a kernel report.

# Kernel reports that fail a run, matched only on printk lines (after a
# timestamp): the patterns every runner shares (selftests/faults.sh).
# shellcheck source=../faults.sh
. "$(dirname "${BASH_SOURCE[0]}")/../faults.sh"
VM_FAULT_RE=$KPT_FAULT_RE
VM_FAULT_IGNORE_RE=$KPT_FAULT_IGNORE_RE

# A printk timestamp, optionally followed by a caller id ("[    T1]").
VM_TS_RE='\[ *[0-9]+\.[0-9]+\]( \[ *[TC][0-9]+\])?'

# vm_faults FILE...: print the printk lines of FILE(s) that report a kernel
# fault.  The timestamp may follow other text on the same line: the kernel
# console and user output can share a line when both write to one port.
vm_faults()
{
	tr -d '\r' <"$1" |
		grep -aE "$VM_TS_RE .*($VM_FAULT_RE)" |
		grep -avE "$VM_FAULT_IGNORE_RE" || true
}

# vm_section FILE TOKEN WHAT: print one part of the output log, without \r.
#   WHAT=out:   the command's output (START..DMESG-BEGIN, or ..END, or EOF)
#   WHAT=dmesg: the dmesg dump (DMESG-BEGIN..DMESG-END)
vm_section()
{
	tr -d '\r' <"$1" | awk -v tok="$2" -v what="$3" '
		$0 ~ "^KPTRACE-VM-START " tok	{ s = "out"; next }
		$0 ~ "^KPTRACE-VM-DMESG-BEGIN " tok { s = "dmesg"; next }
		$0 ~ "^KPTRACE-VM-DMESG-END " tok { s = ""; next }
		$0 ~ "^KPTRACE-VM-END " tok	{ s = ""; next }
		s == what			{ print }'
}

# vm_marker FILE TOKEN NAME: print the rest of the line of marker NAME
# (START, END), empty if absent.
vm_marker()
{
	tr -d '\r' <"$1" | awk -v m="KPTRACE-VM-$3 $2" '
		index($0, m) == 1 { print substr($0, length(m) + 2); f = 1; exit }
		END { exit !f }'
}

# vm_ktap: read KTAP on stdin, print "passed failed skipped plan results tap".
# Only top-level result lines count (nested ones are indented or "# "-prefixed
# by kselftest).  A "# SKIP" directive makes a result skipped, ok or not.
vm_ktap()
{
	awk '
		/^TAP version [0-9]+/		{ tap = 1 }
		/^1\.\.[0-9]+/ && plan == ""	{ plan = substr($0, 4) + 0 }
		/^(not )?ok [0-9]+/ {
			n++
			if ($0 ~ /#[ \t]*[Ss][Kk][Ii][Pp]/)	s++
			else if ($0 ~ /^ok/)			p++
			else					f++
		}
		END {
			if (plan == "")
				plan = -1
			printf "%d %d %d %d %d %d\n", p, f, s, plan, n, tap
		}'
}

# vm_logdir DIR NAME: DIR made (and absolute), or a new
# ${TMPDIR:-/tmp}/NAME.XXXXXX when DIR is empty; prints it.
vm_logdir()
{
	if [ -z "$1" ]; then
		mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX"
	else
		mkdir -p "$1" && (cd "$1" && pwd)
	fi
}

# vm_tsc_append DIR: the kernel command line that gives a guest the host's
# TSC rate and makes it trust its TSC, as a real machine does (see
# tsc_khz.c); builds tsc_khz in DIR. Prints nothing when it cannot.
vm_tsc_append()
{
	local src
	src=$(dirname "${BASH_SOURCE[0]}")/tsc_khz.c
	gcc -O2 -o "$1/tsc_khz" "$src" 2>/dev/null || return 0
	echo "tsc_early_khz=$("$1/tsc_khz") tsc=reliable"
}
