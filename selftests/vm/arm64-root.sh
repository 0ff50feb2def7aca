#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian bookworm's arm64 kernel, headers and busybox on an amd64 host, for
# `make module ARCH=arm64` and `make check ARCH=arm64` (issue 36).
#
# usage: arm64-root.sh [--kdir | --kernel | --busybox | --kver]
#   prints the headers tree to build against (--kdir, the default), the
#   vmlinuz to boot (--kernel), the arm64 busybox (--busybox) or the
#   kernel version (--kver); makes them first when missing:
#
#   1. the host's packages: gcc-aarch64-linux-gnu, qemu-system-arm,
#      mmdebstrap (from the host's own bookworm sources: never a foreign
#      architecture or suite in the host's apt sources);
#   2. mmdebstrap --variant=extract --architectures=arm64 of
#      linux-image-arm64, linux-headers-arm64 and busybox-static into
#      $KPT_CACHE/arm64-bookworm (unpacked only: no maintainer script
#      runs, the host's dpkg is untouched);
#   3. a copy of the two header trees in $KPT_CACHE/arm64-bookworm/kdir,
#      whose scripts/ and tools/ links point at the host's own
#      linux-kbuild-6.1 (amd64 binaries of the same kbuild) and whose
#      Makefile includes the copied -common tree.
#
# Uses a lock, so two runs do not unpack at once. Exit 0, or 2 on a setup
# error (said on stderr).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${KPT_CACHE:-/var/cache/kptrace}
root=$cache/arm64-bookworm
what=${1:---kdir}

die() { echo "arm64-root: $*" >&2; exit 2; }

"$here/install-deps.sh" gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	qemu-system-arm mmdebstrap linux-kbuild-6.1 >&2 ||
	die "missing host packages"

mkdir -p "$cache"
exec 9>"$root.lock"
flock 9

if [ ! -f "$root/.done" ]; then
	echo "  MMDEBSTRAP arm64 bookworm -> $root" >&2
	rm -rf "$root"
	mmdebstrap --variant=extract --architectures=arm64 \
		--include=linux-image-arm64,linux-headers-arm64,busybox-static \
		bookworm "$root" /etc/apt/sources.list.d/debian.sources \
		>"$root.log" 2>&1 || die "mmdebstrap failed: see $root.log"
	touch "$root/.done"
fi

kver=$(cd "$root/boot" && ls vmlinuz-*-arm64 2>/dev/null | sort -V |
	tail -n 1 | sed 's/^vmlinuz-//')
[ -n "$kver" ] || die "no vmlinuz-*-arm64 in $root/boot"
common=${kver%-arm64}-common
kdir=$root/kdir/linux-headers-$kver

if [ ! -f "$kdir/.done" ]; then
	[ -d /usr/lib/linux-kbuild-6.1/scripts ] ||
		die "no /usr/lib/linux-kbuild-6.1 (apt-get install linux-kbuild-6.1)"
	rm -rf "$root/kdir"
	mkdir -p "$root/kdir"
	cp -a "$root/usr/src/linux-headers-$kver" \
		"$root/usr/src/linux-headers-$common" "$root/kdir/"
	for t in "$kdir" "$root/kdir/linux-headers-$common"; do
		for l in scripts tools; do
			if [ -L "$t/$l" ]; then
				rm "$t/$l"
				ln -s "/usr/lib/linux-kbuild-6.1/$l" "$t/$l"
			fi
		done
	done
	sed -i "s|^include .*/linux-headers-$common/Makefile|include $root/kdir/linux-headers-$common/Makefile|" \
		"$kdir/Makefile"
	grep -q "^include $root/kdir/" "$kdir/Makefile" ||
		die "could not point $kdir/Makefile at the copied -common tree"
	touch "$kdir/.done"
fi

case $what in
--kdir) echo "$kdir" ;;
--kernel) echo "$root/boot/vmlinuz-$kver" ;;
--busybox) echo "$root/bin/busybox" ;;
--kver) echo "$kver" ;;
*) die "unknown option $what" ;;
esac
