# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The harness's one chroot maker, sourced (bash) by testbox.sh (a test box
# of each Debian suite, for the kernel matrix) and by bench/bench.sh (the
# benchmark's build root and guest root).  A chroot is a Debian SUITE made
# by mmdebstrap in a directory named chroot-NAME (in $KPT_CACHE,
# /var/cache/kptrace, unless the caller gives another), holding the
# packages it is asked for; the host's apt sources are never touched.
#
# A chroot is made under DIR.new and renamed to DIR only once complete and
# stamped (DIR/.kptrace-chroot), so a half-made one is never used; a later
# call installs, with the chroot's own apt, what a grown recipe adds.  A
# directory without the stamp is adopted when dpkg says it is whole (or it
# carries the stamp of the bench's former mkchroot.sh, .kptrace-bench-ok),
# else made again.  Commands inside a chroot run in a private mount
# namespace (its own /proc, which objtool needs), which disappears with
# them: no mount is ever left on the host.
#
#   chroot_ensure DIR SUITE PKG...   make DIR, or check and complete it
#   chroot_run [--overlay OV] [--dev] DIR CMD...
#   chroot_missing DIR PKG...        the PKGs not installed in DIR
#   chroot_remove DIR                remove a chroot-* tree (or its .new)
#   kpt_apt_mirror [ROOT]            the Debian mirror ROOT's apt sources name
#
# The mirror: KPT_MIRROR when set, else the one the host's own apt sources
# name (kpt_apt_mirror), else none given, and mmdebstrap takes its default.

# kpt_apt_mirror [ROOT]: the Debian archive that the apt sources of ROOT
# (default /) name: the first URI of a "deb" source that is not a security
# or updates-only one, from ROOT/etc/apt/sources.list.d/*.sources (deb822
# stanzas: Types, URIs, Suites, Enabled), then the one-line "deb [opts] URI
# SUITE ..." lines of ROOT/etc/apt/sources.list.d/*.list and
# ROOT/etc/apt/sources.list. Prints nothing (and returns 1) when none is
# found. The host's sources are only read.
kpt_apt_mirror()
{
	local root=${1:-} f m
	for f in "$root"/etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		m=$(awk '
			function flush() {
				if (deb && uri != "" && enabled && suites !~ /^ *$/ &&
				    uri !~ /security/) { print uri; found = 1; exit }
				deb = 0; uri = ""; enabled = 1; suites = ""
			}
			BEGIN { enabled = 1 }
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "enabled:" { enabled = (tolower($2) != "no") }
			tolower($1) == "suites:" {
				for (i = 2; i <= NF; i++)
					if ($i !~ /-(security|updates|backports)$/) suites = suites " " $i
			}
			END { if (!found) flush() }' "$f")
		[ -z "$m" ] || { echo "${m%/}"; return 0; }
	done
	for f in "$root"/etc/apt/sources.list.d/*.list "$root"/etc/apt/sources.list; do
		[ -r "$f" ] || continue
		m=$(awk '$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
				if ($i ~ /\]$/) i++
				if ($(i) !~ /security/ && $(i + 1) !~ /-(security|updates|backports)$/) {
					print $(i); exit
				}
			}' "$f")
		[ -z "$m" ] || { echo "${m%/}"; return 0; }
	done
	return 1
}

KPT_CACHE=${KPT_CACHE:-/var/cache/kptrace}
KPT_MIRROR=${KPT_MIRROR:-$(kpt_apt_mirror / || true)}
CHROOT_STAMP=.kptrace-chroot

chroot_say() { echo "chroot: $*"; }

# chroot_run [--overlay OV] [--dev] DIR CMD...: run CMD in the chroot DIR
# with a clean environment, in a private mount namespace with /proc and
# its own /dev/pts (apt wants a pty for its log).  With --overlay, DIR is
# seen through an overlay whose changes go to OV/upper (OV/work and OV/root
# are the overlay's): DIR itself stays as it was.  With --dev, also /sys,
# a devtmpfs /dev, and tmpfs on /dev/shm and /tmp (what a QEMU launched
# from inside the chroot needs).
chroot_run()
{
	local ov='' dev=0
	while :; do
		case $1 in
		--overlay)	ov=$2; shift 2 ;;
		--dev)		dev=1; shift ;;
		*)		break ;;
		esac
	done
	local root=$1
	shift
	local env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
		   LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive)
	# shellcheck disable=SC2016
	unshare --mount --propagation private -- /bin/sh -c \
		'root=$0 ov=$1 dev=$2
		 shift 2
		 if [ -n "$ov" ]; then
			mount -t overlay overlay -o "lowerdir=$root,upperdir=$ov/upper,workdir=$ov/work" \
				"$ov/root" || exit 1
			root=$ov/root
		 fi
		 mount -t proc proc "$root/proc" || exit 1
		 if [ "$dev" = 1 ]; then
			mount -t sysfs sysfs "$root/sys" &&
			mount -t devtmpfs devtmpfs "$root/dev" &&
			mkdir -p "$root/dev/pts" &&
			mount -t tmpfs tmpfs "$root/tmp" || exit 1
			mkdir -p "$root/dev/shm" &&
			mount -t tmpfs tmpfs "$root/dev/shm" || exit 1
		 fi
		 mount -t devpts -o newinstance,ptmxmode=0666 devpts \
			"$root/dev/pts" 2>/dev/null
		 exec chroot "$root" "$@"' \
		"$root" "$ov" "$dev" "${env[@]}" "$@"
}

# chroot_missing DIR PKG...: print the PKGs not installed in DIR.
chroot_missing()
{
	local root=$1 p st
	shift
	for p in "$@"; do
		st=$(dpkg-query --admindir="$root/var/lib/dpkg" -W \
			-f='${Status}' "$p" 2>/dev/null || true)
		[ "$st" = "install ok installed" ] || echo "$p"
	done
}

# chroot_remove DIR: remove a chroot tree; unmount what is mounted below it
# first, and never cross into another filesystem.  Only chroot-* trees.
chroot_remove()
{
	local d=$1 m
	[ -e "$d" ] || return 0
	case ${d##*/} in
	chroot-*) ;;
	*) chroot_say "refusing to remove $d"; return 1 ;;
	esac
	for m in $(findmnt -rn -o TARGET | grep -F "$d/" | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
	rm -rf --one-file-system "$d"
}

# chroot_install DIR PKG...: apt-get install inside a chroot (log DIR.apt.log).
chroot_install()
{
	local root=$1
	shift
	local log=$root.apt.log
	chroot_say "installing in $root: $* (log $log)"
	if ! { chroot_run "$root" apt-get -q -o Acquire::Check-Valid-Until=false \
			update &&
	       chroot_run "$root" apt-get -y -q -o Acquire::Check-Valid-Until=false \
			--no-install-recommends install "$@"; } >"$log" 2>&1; then
		tail -n 20 "$log"
		return 1
	fi
}

# chroot_ensure DIR SUITE PKG...: a complete chroot of SUITE with PKG... in
# DIR (its name chroot-*).  Returns non-zero, with a message, when it cannot
# be had.  Serialised by DIR.lock, so that runs can share the cache.
chroot_ensure()
{
	local root=$1 lockfd rc=0
	case ${root##*/} in
	chroot-*) ;;
	*) chroot_say "a chroot's directory is named chroot-*, not $root"; return 1 ;;
	esac
	mkdir -p "$(dirname "$root")"
	exec {lockfd}>"$root.lock"
	flock "$lockfd"
	_chroot_ensure_locked "$@" || rc=$?
	exec {lockfd}>&-
	return $rc
}

# The body of chroot_ensure, under its lock.
_chroot_ensure_locked()
{
	local root=$1 suite=$2 new=$1.new t0 miss
	shift 2
	local pkgs=("$@")

	if [ -d "$root" ] && [ ! -f "$root/$CHROOT_STAMP" ]; then
		# Not made here: adopt it only when dpkg says it is whole (no
		# half-installed package, apt present), or when the bench's
		# former mkchroot.sh finished it.
		if [ -f "$root/.kptrace-bench-ok" ] ||
		   { [ -x "$root/usr/bin/apt-get" ] &&
		     [ -f "$root/var/lib/dpkg/status" ] &&
		     [ -z "$(chroot_run "$root" dpkg --audit 2>&1)" ]; }; then
			chroot_say "adopting $root (no stamp of ours, but whole)"
			printf 'suite=%s\nadopted=%s\n' "$suite" "$(date -u +%F)" \
				>"$root/$CHROOT_STAMP"
		else
			chroot_say "$root is incomplete (no stamp, dpkg not consistent): making it again"
			chroot_remove "$root" || return 1
		fi
	fi

	if [ ! -d "$root" ]; then
		command -v mmdebstrap >/dev/null ||
			"$(dirname "${BASH_SOURCE[0]}")/install-deps.sh" mmdebstrap ||
			return 1
		chroot_remove "$new" || return 1
		chroot_say "making the $suite chroot $root (mmdebstrap, mirror ${KPT_MIRROR:-the default of mmdebstrap}, log $root.log)"
		t0=$(date +%s)
		# No documentation, and no /etc/kernel/postinst.d hooks: an
		# initramfs per kernel nobody boots (the guests have their
		# own) is a third of the time here.
		if ! mmdebstrap --variant=apt \
			--aptopt='Acquire::Check-Valid-Until "false"' \
			--dpkgopt='path-exclude=/usr/share/doc/*' \
			--dpkgopt='path-exclude=/usr/share/man/*' \
			--dpkgopt='path-exclude=/usr/share/locale/*' \
			--dpkgopt='path-exclude=/etc/kernel/postinst.d/*' \
			--include="$(echo "${pkgs[*]}" | tr ' ' ',')" \
			"$suite" "$new" ${KPT_MIRROR:+"$KPT_MIRROR"} \
			>"$root.log" 2>&1; then
			tail -n 20 "$root.log"
			chroot_remove "$new"
			chroot_say "FAIL: mmdebstrap $suite"
			return 1
		fi
		printf 'suite=%s\nmade=%s\nmirror=%s\n' "$suite" \
			"$(date -u +%FT%TZ)" "${KPT_MIRROR:-the default of mmdebstrap}" \
			>"$new/$CHROOT_STAMP"
		mv "$new" "$root"
		chroot_say "$suite chroot made in $(($(date +%s) - t0))s"
	fi

	# The recipe may have grown since the chroot was made.
	read -r -a miss <<<"$(chroot_missing "$root" "${pkgs[@]}" | tr '\n' ' ')"
	if [ ${#miss[@]} -gt 0 ] && ! chroot_install "$root" "${miss[@]}"; then
		chroot_say "FAIL: cannot install ${miss[*]} in $root"
		return 1
	fi
}
