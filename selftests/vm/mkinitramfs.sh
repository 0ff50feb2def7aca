#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack a busybox initramfs (gzip'd newc cpio) for kptrace's QEMU guests.
#
# usage: mkinitramfs.sh -o OUT [--busybox PATH] [--init FILE]
#                       [--add SRC:DEST]... [--strip-ko]
#
#   -o OUT          the initramfs to write (gzip'd cpio)
#   --busybox PATH  a static busybox (default: /bin/busybox of busybox-static)
#   --init FILE     becomes /init (default: init.sh beside this script)
#   --add SRC:DEST  copy file or directory SRC to DEST (absolute) in the image
#   --strip-ko      strip debug info from every *.ko packed (smaller, faster),
#                   with $STRIP (default strip; aarch64-linux-gnu-strip for
#                   an arm64 image)
#
# The image holds no kernel modules of the distribution: only what the
# kernel has built in is usable (ttyS0/ttyS1, devtmpfs, debugfs, tmpfs).
# busybox's applets are symlinks in /bin, made at pack time.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=
busybox=/bin/busybox
init=$here/init.sh
strip_ko=0
adds=()

die() { echo "mkinitramfs: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	-o)		out=$2; shift ;;
	--busybox)	busybox=$2; shift ;;
	--init)		init=$2; shift ;;
	--add)		adds+=("$2"); shift ;;
	--strip-ko)	strip_ko=1 ;;
	-h|--help)	sed -n '3,/^set -e/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*)		die "unknown option: $1" ;;
	esac
	shift
done
[ -n "$out" ] || die "-o OUT is required"
[ -x "$busybox" ] || die "no busybox at $busybox (apt-get install busybox-static)"
if LC_ALL=C readelf -l "$busybox" 2>/dev/null | grep -q 'Requesting program interpreter'; then
	die "$busybox is dynamically linked: install busybox-static"
fi
[ -f "$init" ] || die "no init script $init"

stage=$(mktemp -d "${TMPDIR:-/tmp}/kptrace-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,dev,etc,proc,sys,tmp,run,root,usr/bin,usr/sbin}
install -m 0755 "$busybox" "$stage/bin/busybox"
# Another architecture's busybox cannot run here: its applets are taken
# to be the host's busybox-static's (the same Debian package and version)
applets=$("$busybox" --list 2>/dev/null) || applets=$(/bin/busybox --list) ||
	die "cannot list $busybox's applets (nor /bin/busybox's)"
for applet in $applets; do
	[ "$applet" = busybox ] || ln -sf busybox "$stage/bin/$applet"
done
install -m 0755 "$init" "$stage/init"
# The kernel's built-in initramfs has /dev/console already; these only
# help when packing as root (mknod needs it).
if [ "$(id -u)" = 0 ]; then
	mknod -m 0600 "$stage/dev/console" c 5 1
	mknod -m 0666 "$stage/dev/null" c 1 3
fi
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"
printf 'kptrace-vm\n' >"$stage/etc/hostname"

for a in "${adds[@]+"${adds[@]}"}"; do
	src=${a%%:*}
	dst=${a#*:}
	[ "$src" != "$a" ] && [ "${dst#/}" != "$dst" ] ||
		die "--add wants SRC:/ABS/DEST, got '$a'"
	[ -e "$src" ] || die "--add: no such file: $src"
	mkdir -p "$stage$(dirname "$dst")"
	if [ -d "$src" ]; then
		mkdir -p "$stage$dst"
		cp -a "$src/." "$stage$dst/"
	else
		cp -a "$src" "$stage$dst"
	fi
done

strip=${STRIP:-strip}
if [ "$strip_ko" = 1 ] && command -v "$strip" >/dev/null; then
	find "$stage" -name '*.ko' -type f -exec "$strip" --strip-debug {} +
fi

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet) |
	gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
