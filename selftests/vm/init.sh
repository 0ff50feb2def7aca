#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of kptrace's test initramfs (packed by mkinitramfs.sh, booted by
# run-vm.sh).  Runs as PID 1 under busybox sh, so it must never exit: it
# always ends in poweroff -f.
#
# /etc/kptrace-vm.env (written by run-vm.sh) sets VM_TOKEN and VM_CMD.
# The command's stdout and stderr go to the second serial port, /dev/ttyS1,
# so that the test output (KTAP) never mixes with the kernel's console on
# ttyS0.  Without a usable ttyS1 everything goes to /dev/console with the
# console loglevel lowered to 1.  Markers (see vmlib.sh) frame the output;
# the guest's dmesg is dumped between two of them at the end.

PATH=/tools:/bin:/sbin:/usr/bin:/usr/sbin
HOME=/root
TERM=dumb
export PATH HOME TERM

mount -t proc -o nosuid,nodev,noexec proc /proc
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
mount -t devtmpfs -o nosuid devtmpfs /dev
# what udev (and systemd, and every container runtime) adds: devtmpfs has
# no /dev/stdout, and `-o /dev/stdout` would make a file of that name
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t debugfs -o nosuid,nodev,noexec debugfs /sys/kernel/debug
mount -t tmpfs -o nosuid,nodev tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
hostname kptrace-vm
ip link set lo up 2>/dev/null

VM_TOKEN=none
VM_CMD='echo "init: no /etc/kptrace-vm.env"; exit 1'
[ -r /etc/kptrace-vm.env ] && . /etc/kptrace-vm.env

# The 8250 driver registers ttyS1 even without a UART behind it (type 0,
# PORT_UNKNOWN), and writes to it then vanish: check the type.
out=/dev/ttyS1
type=$(cat /sys/class/tty/ttyS1/type 2>/dev/null)
if [ -n "$type" ] && [ "$type" != 0 ] && (: >"$out") 2>/dev/null; then
	stty -F "$out" raw -echo 2>/dev/null
else
	out=/dev/console
	dmesg -n 1
fi
exec >"$out" 2>&1 </dev/null

# Seen by the host: the guest booted, the command starts now.
echo "KPTRACE-VM-START $VM_TOKEN uptime=$(cut -d' ' -f1 /proc/uptime)"
(cd / && eval "$VM_CMD")
rc=$?

echo "KPTRACE-VM-DMESG-BEGIN $VM_TOKEN"
dmesg
echo "KPTRACE-VM-DMESG-END $VM_TOKEN"
echo "KPTRACE-VM-END $VM_TOKEN rc=$rc"
echo "kptrace-vm: guest command exited with $rc" >/dev/kmsg

# Closing the port waits until the UART has sent everything.
exec >/dev/console 2>&1
sync
poweroff -f
sleep 10
echo o >/proc/sysrq-trigger
