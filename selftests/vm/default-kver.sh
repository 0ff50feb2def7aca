#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the version of the default Debian kernel to test on: the one the
# linux-image-amd64 metapackage depends on (bookworm: 6.1.0-N-amd64), else
# the newest plain /boot/vmlinuz-*-amd64 (not -rt-, not -cloud-).  Prints
# nothing and fails when there is none.
v=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
if [ -z "$v" ] || [ ! -e "/boot/vmlinuz-$v" ]; then
	v=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | grep -v -e '-rt-' -e '-cloud-' |
		sort -V | tail -n 1 | sed 's,^/boot/vmlinuz-,,')
fi
[ -n "$v" ] && echo "$v"
