# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced first by the guest scripts of check-debug: checks the kernel log
# of the boot for faults (the patterns of selftests/faults.sh), prints
# them, then clears the kernel log (dmesg -c: busybox has no -C), so that
# the harness's scan of the guest's dmesg only sees the test's own time.
# Sets KPT_BOOT_FAULTS to the number of faulty boot lines.
KPT_BOOT_FAULTS=0
if dmesg > /tmp/boot.dmesg 2>/dev/null; then
	. /selftests/faults.sh
	_bad=$(grep -E "$KPT_FAULT_RE" /tmp/boot.dmesg |
		grep -vE "$KPT_FAULT_IGNORE_RE")
	if [ -n "$_bad" ]; then
		KPT_BOOT_FAULTS=$(printf '%s\n' "$_bad" | grep -c '')
		echo "# boot log: $KPT_BOOT_FAULTS fault lines:"
		printf '%s\n' "$_bad" | head -n 20 | sed 's/^/#   boot: /'
	fi
	dmesg -c >/dev/null
fi
