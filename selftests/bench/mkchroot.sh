#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark guest's root: a Debian trixie chroot (kernel 6.12) with the
# tracers kptrace is compared with, built once with mmdebstrap and reused.
#
# usage: mkchroot.sh [DIR]    (default /var/cache/kptrace/chroot-trixie-bench)
#
# The chroot is both the build environment (gcc-14, the 6.12 headers) and,
# through virtme-ng (vng, 9p root), the guest's root file system, so
# whatever is installed here runs in the guest: bpftrace, perf, strace,
# trace-cmd. Nothing is installed on the host but mmdebstrap; the host's apt
# sources are never touched. A finished chroot carries .kptrace-bench-ok;
# a half-made one is rebuilt from scratch.
set -euo pipefail

dir=${1:-/var/cache/kptrace/chroot-trixie-bench}
mirror=${BENCH_MIRROR:-http://deb.debian.org/debian}
pkgs=make,gcc,libc6-dev,linux-image-amd64,linux-headers-amd64,kmod
pkgs+=,busybox-static,bpftrace,linux-perf,strace,trace-cmd
pkgs+=,virtme-ng,qemu-system-x86,procps,python3,util-linux
# the instruction-counting QEMU plugin (insn_plugin.c) builds here
pkgs+=,libglib2.0-dev,pkgconf

[ "$(id -u)" = 0 ] || { echo "bench: mkchroot needs root" >&2; exit 2; }
if [ -e "$dir/.kptrace-bench-ok" ]; then
	# A chroot made by an older version of this script: add what is new,
	# with the chroot's own apt (the host's sources are never touched).
	missing=$(chroot "$dir" dpkg-query -W -f='${Package} ${Status}\n' \
		$(echo "$pkgs" | tr ',' ' ') 2>&1 |
		awk '/no packages found matching/ { print $NF; next }
		     $NF != "installed" { print $1 }' | sort -u | tr '\n' ' ' || true)
	if [ -n "${missing// /}" ]; then
		echo "bench: installing into $dir: $missing"
		unshare --mount --propagation private sh -c '
			mount -t proc proc "$1/proc" &&
			chroot "$1" sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq &&
				DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $2 >/dev/null"' \
			sh "$dir" "$missing" || exit 1
	fi
	echo "bench: reusing chroot $dir"
	exit 0
fi
if ! command -v mmdebstrap >/dev/null; then
	"$(dirname "$0")/../vm/install-deps.sh" mmdebstrap
fi

tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$(dirname "$dir")"
echo "bench: making chroot $dir (mmdebstrap trixie, a few minutes)"
mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
	--include="$pkgs" trixie "$tmp" "$mirror" >"$tmp.log" 2>&1 || {
	tail -n 20 "$tmp.log" >&2
	echo "bench: mmdebstrap failed, log in $tmp.log" >&2
	exit 1
}

# virtme-ng's shell init ends with "poweroff -f" and sets up lo with "ip":
# without systemd-sysv and iproute2 the guest would panic at the end.
# busybox provides both, in /usr/local/bin, which virtme-init's PATH has.
for applet in poweroff ip; do
	if ! chroot "$tmp" sh -c "command -v $applet" >/dev/null 2>&1; then
		ln -sf /bin/busybox "$tmp/usr/local/bin/$applet"
	fi
done

ls "$tmp"/boot/vmlinuz-* >/dev/null
rm -rf "$dir"
mv "$tmp" "$dir"
mv "$tmp.log" "$dir.log"
touch "$dir/.kptrace-bench-ok"
echo "bench: chroot ready: $dir"
