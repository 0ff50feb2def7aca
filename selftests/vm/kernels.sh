#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix: build kptrace for every Debian kernel from 5.10 to 7.2
# (PREEMPT_RT included) with that kernel's own suite compiler and headers,
# check that DKMS builds it too, boot each kernel in QEMU and run the full
# selftests there.  `make check-kernels` runs this.
#
# usage: kernels.sh [options] [KERNEL...]     (default: $KERNELS, else all)
#
#   kernels   5.10 (bullseye, gcc-10)   6.1, 6.1-rt (bookworm, gcc-12)
#             6.12, 6.12-rt (trixie, gcc-14)   7.2 (sid, gcc-16)
#   --build-only     build (W=1) and the test box's install, no boot
#   --dkms-only      the test box's installs (DKMS, make install) only
#   --prepare-only   make or check the chroots, nothing else
#   --no-dkms        skip the test box's install
#   --out DIR        builds and logs (default: a new /tmp/kptrace-kernels.*)
#   --timeout SEC    hard limit of one guest boot (env VM_TIMEOUT, default
#                    run-vm.sh's)
#   --budget SEC     time budget of the whole run (env KERNELS_BUDGET): a
#                    kernel is not started with less than 5 minutes left
#                    (result "budget", a failure), and a boot never runs
#                    past the budget
#   --list           print the matrix and the kernel each name resolves to
#
# Environment: KPT_CACHE (chroots, default /var/cache/kptrace),
# KPT_MIRROR (default: the Debian mirror the host's own apt sources name,
# chroot.sh's kpt_apt_mirror, else mmdebstrap's default), VM_ARGS (more
# run-vm.sh options), V=1 (the kernel console too).
#
# Every suite, the host's own too, is a fresh test box (testbox.sh: a
# chroot of the packages README.md's "Using it on a test box" has one
# install of, made by chroot.sh).  Each kernel, in its suite's test box:
# `make`, kpt_test.ko and the selftests' static helpers with W=1 (a
# warning from kptrace's own files, or a reader that is not static, fails
# the kernel), then what a test box does to install it (dkms-check.sh
# --testbox: `dkms add .`, `dkms install`, `make install`).  Then a QEMU
# boot (run-vm.sh --mode check) with the module and the reader built in
# that suite.  Everything (sources, tests, harness) comes from one snapshot
# of the working tree taken at the start, so edits during the run change
# nothing.  The table at the end has one line per kernel; the last line is
# the total "N passed, N failed, N skipped".  Exit 0 when every kernel
# built and passed, 1 otherwise, 2 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbox.sh
. "$here/testbox.sh"

ALL_KERNELS="5.10 6.1 6.1-rt 6.12 6.12-rt 7.2"
timeout=${VM_TIMEOUT:-}
budget=${KERNELS_BUDGET:-}
out=
mode=check
dkms=1
list=0

say() { echo "kernels: $*"; }
die() { echo "kernels: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--build-only)	mode=build ;;
	--dkms-only)	mode=dkms ;;
	--prepare-only)	mode=prepare ;;
	--no-dkms)	dkms=0 ;;
	--out)		out=$2; shift ;;
	--timeout)	timeout=$2; shift ;;
	--budget)	budget=$2; shift ;;
	--list)		list=1 ;;
	-h|--help)	sed -n '3,/^set -e/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*)		die "unknown option: $1 (see --help)" ;;
	*)		break ;;
	esac
	shift
done
# shellcheck disable=SC2206
kernels=(${*:-${KERNELS:-$ALL_KERNELS}})
[ ${#kernels[@]} -gt 0 ] || read -r -a kernels <<<"$ALL_KERNELS"

# The matrix: name -> Debian suite and kernel flavour.
kernel_suite()
{
	case $1 in
	5.10)		echo bullseye ;;
	6.1|6.1-rt)	echo bookworm ;;
	6.12|6.12-rt)	echo trixie ;;
	7.2)		echo sid ;;
	*)		return 1 ;;
	esac
}
kernel_flavour() { case $1 in *-rt) echo rt-amd64 ;; *) echo amd64 ;; esac; }

for k in "${kernels[@]}"; do
	kernel_suite "$k" >/dev/null ||
		die "unknown kernel '$k' (known: $ALL_KERNELS)"
done

# Per-kernel results: r_res is "ok" or the failures, r_why the details.
declare -A r_ver r_pkg r_res r_pass r_fail r_skip r_tbuild r_tvm r_why
overall=0
note_fail()
{
	case ,${r_res[$1]:-}, in
	*,"$2",*) ;;
	*) r_res[$1]=${r_res[$1]:+${r_res[$1]},}$2 ;;
	esac
	[ -z "${3:-}" ] || r_why[$1]=${r_why[$1]:+${r_why[$1]}; }$3
	overall=1
}

# vm KERNEL: boot it with the selftests of its own build tree.
vm_kernel()
{
	local k=$1 t0 rc=0 line left tmo=$timeout args=() res=vm-fail short=0
	if [ -n "$budget" ]; then
		left=$((t_all + budget - $(date +%s) - 15))
		[ "${tmo:-2400}" -le "$left" ] || { tmo=$left; short=1; }
	fi
	[ -z "$tmo" ] || args+=(--timeout "$tmo")
	# shellcheck disable=SC2206
	args+=(${VM_ARGS:-})
	t0=$(date +%s)
	# The harness of this run's snapshot, like everything else: an edit
	# of the working tree during the run cannot change it under our feet.
	V=${V:-0} "$out/src/selftests/vm/run-vm.sh" --kernel "$out/$k/vmlinuz" \
		--root "$out/$k/tree" --tools "$out/$k/tree/tools/kptrace" \
		--mode check --logdir "$out/$k/vm" \
		"${args[@]}" 2>&1 | tee "$out/$k/vm.log" || rc=${PIPESTATUS[0]}
	r_tvm[$k]=$(($(date +%s) - t0))
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' \
		"$out/$k/vm.log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		read -r "r_pass[$k]" _ "r_fail[$k]" _ "r_skip[$k]" _ <<<"$line"
	fi
	if [ "$rc" != 0 ]; then
		# A run that died has what it did not run counted as failed
		# in its verdict (run-vm.sh), or one failure when there was no
		# KTAP plan at all; a boot the budget cut short says so.
		[ "$short" = 0 ] || ! grep -q '^vm: FAIL: timeout' "$out/$k/vm.log" ||
			res=budget
		[ "${r_fail[$k]:-0}" != 0 ] || r_fail[$k]=1
		note_fail "$k" "$res" "$(grep '^vm: FAIL' "$out/$k/vm.log" |
			grep -v 'KTAP plan' | sed 's/^vm: FAIL: //' |
			tr '\n' ' ' | sed 's/ $//'), logs $out/$k/vm"
		return 1
	fi
	! grep -q '^vm: RETRY' "$out/$k/vm.log" ||
		r_why[$k]=${r_why[$k]:+${r_why[$k]}; }"booted twice (RETRY)"
}

if [ "$list" = 1 ]; then
	printf '%-8s %-9s %-28s %s\n' name suite kernel image
	for k in $ALL_KERNELS; do
		s=$(kernel_suite "$k")
		r=$(testbox_root "$s")
		v=$(meta_kver "$r" "$(kernel_flavour "$k")" 2>/dev/null || true)
		printf '%-8s %-9s %-28s %s\n' "$k" "$s" \
			"${v:-(not installed)}" "${v:+$r/boot/vmlinuz-$v}"
	done
	exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (chroots, dkms, apt-get)"
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/kptrace-kernels.XXXXXX")
else
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
fi
# Build directories inside the roots and overlays are this run's ($$):
# gone at the end.
trap testbox_cleanup EXIT
trap 'exit 130' INT TERM

t_all=$(date +%s)
say "kernels: ${kernels[*]}; chroots in $KPT_CACHE (mirror ${KPT_MIRROR:-the default of mmdebstrap}); logs in $out"

# The sources of this run, taken once: every kernel builds the same.
rm -rf "$out/src"
copy_sources "$out/src"

# Host side: readelf and modinfo to check the builds, and what a guest run
# needs (QEMU, busybox, cpio); every build is in the chroots.
"$here/install-deps.sh" binutils kmod
if [ "$mode" = check ]; then
	"$here/install-deps.sh" qemu-system-x86 busybox-static cpio kmod
fi

# The chroots, each once.
declare -A suite_ok
t_prep=$(date +%s)
for k in "${kernels[@]}"; do
	s=$(kernel_suite "$k")
	[ -z "${suite_ok[$s]:-}" ] || continue
	if testbox_ensure "$s"; then
		suite_ok[$s]=1
	else
		suite_ok[$s]=0
	fi
done
t_prep=$(($(date +%s) - t_prep))
say "roots ready in ${t_prep}s"

for k in "${kernels[@]}"; do
	s=$(kernel_suite "$k")
	if [ "${suite_ok[$s]}" != 1 ]; then
		note_fail "$k" no-chroot "the $s chroot could not be made"
		continue
	fi
	if [ "$mode" = prepare ]; then
		r_ver[$k]=$(meta_kver "$(testbox_root "$s")" "$(kernel_flavour "$k")")
		continue
	fi
	if [ -n "$budget" ] &&
	   [ $((t_all + budget - $(date +%s))) -lt 300 ]; then
		note_fail "$k" budget "not run: less than 300s left of the ${budget}s budget"
		continue
	fi
	printf '\n===== %s =====\n' "$k"
	built=1
	if [ "$mode" != dkms ]; then
		testbox_build "$k" "$s" "$(kernel_flavour "$k")" || built=0
	fi
	if [ "$dkms" = 1 ] || [ "$mode" = dkms ]; then
		testbox_install "$k" "$s" "$(kernel_flavour "$k")" || true
	fi
	if [ "$mode" = check ] && [ "$built" = 1 ]; then
		vm_kernel "$k" || true
	fi
done

# The table, then what went wrong where.
printf '\n%-8s %-26s %6s %6s %7s %6s %5s  %s\n' kernel version passed \
	failed skipped build vm result
tp=0 tf=0 ts=0
for k in "${kernels[@]}"; do
	printf '%-8s %-26s %6s %6s %7s %6s %5s  %s\n' "$k" \
		"${r_ver[$k]:-?}" "${r_pass[$k]:--}" "${r_fail[$k]:--}" \
		"${r_skip[$k]:--}" "${r_tbuild[$k]:--}" "${r_tvm[$k]:--}" \
		"${r_res[$k]:-ok}"
	tp=$((tp + ${r_pass[$k]:-0}))
	tf=$((tf + ${r_fail[$k]:-0}))
	ts=$((ts + ${r_skip[$k]:-0}))
done
for k in "${kernels[@]}"; do
	[ -z "${r_why[$k]:-}" ] || say "$k: ${r_why[$k]}"
done
say "seconds: build = W=1 build + dkms install and make install, vm = boot + selftests; roots ${t_prep}s, all $(($(date +%s) - t_all))s"
say "logs in $out"
if [ "$mode" = check ]; then
	echo "$tp passed, $tf failed, $ts skipped"
fi
exit "$overall"
