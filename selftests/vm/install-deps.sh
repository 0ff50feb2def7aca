#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages named as arguments that are not installed yet:
# one `apt-get update`, then one `apt-get install -y`, only when something
# is missing.  Never touches apt's sources.  Needs root for installing; as
# another user it only says what is missing and fails.
set -euo pipefail

missing=()
for p in "$@"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run as root, or: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "  APT     ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
