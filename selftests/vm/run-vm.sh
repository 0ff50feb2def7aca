#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel under QEMU (TCG) with a busybox initramfs holding kptrace,
# run the selftests (or the demo, or any command) in it and judge the run.
#
# usage: run-vm.sh [options]
#   --kernel PATH        vmlinuz to boot (default: default-kver.sh's, the
#                        kernel of linux-image-amd64)
#   --mode MODE          check: sh /selftests/run_tests.sh [$KPT_TESTS: only
#                        those tests], KTAP expected
#                        run:   sh /selftests/vm/demo.sh (kptrace on openat2)
#                        cmd:   the --guest-cmd command
#   --guest-cmd CMD      shell command run in the guest (implies --mode cmd)
#   --root DIR           built tree to pack (default: this repository):
#                        DIR/kptrace.ko, DIR/tools/kptrace, DIR/selftests/
#   --modules-from DIR   take kptrace.ko and kpt_test.ko from DIR instead
#                        (DIR/kpt_test.ko or DIR/selftests/test_modules/)
#   --tools PATH         the kptrace reader to pack (static binary)
#   --add SRC:DEST       pack more files (repeatable)
#   --timeout SEC        hard limit of one boot (default 2400, env VM_TIMEOUT)
#   --boot-timeout SEC   limit to reach the guest command (default 180)
#   --logdir DIR         where the logs go (default: a new /tmp/kptrace-vm.*)
#   --append ARGS        more kernel command line
#   --smp N, --mem SIZE  guest CPUs (2) and memory (1G)
#   --arch ARCH          x86_64 (default) or arm64 (env ARCH): arm64 boots
#                        qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on
#                        with busybox from arm64-root.sh (Debian's arm64
#                        busybox-static), one serial port (ttyAMA0)
#   VM_TCG_THREAD=multi  a host thread per vCPU (default single: see below)
#   VM_TSC=emulated      no tsc_early_khz=<host's> tsc=reliable (default:
#                        the guest keeps time with its TSC, see tsc_khz.c)
#   --no-retry           never boot twice
#   --one-serial         no ttyS1: the guest output shares the console
#                        (what a kernel without a second 8250 port gets)
#   -v, V=1              stream the kernel console too
#
# Guest layout mirrors the repository with / as its root: /kptrace.ko,
# /tools/kptrace, /selftests/..., /selftests/test_modules/kpt_test.ko; the
# environment has KPT_KO, KPT_TEST_KO and KPTRACE (the reader) set.
#
# The run fails on: a timeout, a missing end marker, a non-zero exit code of
# the guest command, a kernel fault (vmlib.sh: VM_FAULT_RE) on the console
# or in the guest's dmesg, or, in mode check, KTAP with a failed test or
# fewer results than planned.  A guest that dies before its command starts
# is booted once more, and the output says so.  The last line is
# "N passed, N failed, N skipped" whenever KTAP was seen (always in check).
# Exit: 0 pass, 1 fail, 2 usage or setup error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vmlib.sh
. "$here/vmlib.sh"

kernel=
mode=check
guest_cmd=
root=$(cd "$here/../.." && pwd)
modules_from=
tools=
adds=()
timeout=${VM_TIMEOUT:-2400}
boot_timeout=180
logdir=
append_extra=
smp=2
mem=1G
# QEMU's TCG threading: single (default), one host thread runs the vCPUs
# in turn; multi, a host thread per vCPU. Under multi a CPU can go on
# running code another CPU has just patched: Debian's 6.12 and 7.2 crash
# within seconds when a kprobe (kptrace's, ftrace's kprobe_events, or a
# 40-line module's) is armed and disarmed while the function runs, and 6.1
# now and then; under single they do not (selftests/debug/README.md).
tcg_thread=${VM_TCG_THREAD:-single}
retry=1
one_serial=0
verbose=${V:-0}
arch=${ARCH:-x86_64}

say() { echo "vm: $*"; }
secs() { printf '%d.%01d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
die() { echo "vm: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel)	kernel=$2; shift ;;
	--mode)		mode=$2; shift ;;
	--guest-cmd)	guest_cmd=$2; mode=cmd; shift ;;
	--root)		root=$2; shift ;;
	--modules-from)	modules_from=$2; shift ;;
	--tools)	tools=$2; shift ;;
	--add)		adds+=("$2"); shift ;;
	--timeout)	timeout=$2; shift ;;
	--boot-timeout)	boot_timeout=$2; shift ;;
	--logdir)	logdir=$2; shift ;;
	--append)	append_extra=$2; shift ;;
	--smp)		smp=$2; shift ;;
	--mem)		mem=$2; shift ;;
	--arch)		arch=$2; shift ;;
	--no-retry)	retry=0 ;;
	--one-serial)	one_serial=1 ;;
	-v)		verbose=1 ;;
	-h|--help)	sed -n '3,/^set -e/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*)		die "unknown option: $1 (see --help)" ;;
	esac
	shift
done

case $mode in
check|run) ;;
cmd)	[ -n "$guest_cmd" ] || die "--mode cmd needs --guest-cmd" ;;
*)	die "unknown mode: $mode" ;;
esac
[ "$verbose" = 1 ] || verbose=0
# The machine: x86_64's PC, or arm64's virt board, whose one PL011 UART
# (ttyAMA0) carries the console and the output both (init.sh then lowers
# the console loglevel to 1). pauth-impdef=on: QEMU's own pointer
# authentication algorithm, which it emulates about twice as fast as the
# architected one (7 s to /init against 3-4 s here).
busybox=/bin/busybox
case $arch in
x86_64|x86|amd64)
	qemu=${QEMU:-qemu-system-x86_64}
	machine=(-cpu max)
	console=ttyS0
	strip=strip ;;
arm64|aarch64)
	qemu=${QEMU:-qemu-system-aarch64}
	machine=(-M virt -cpu max,pauth-impdef=on)
	console=ttyAMA0
	one_serial=1
	strip=aarch64-linux-gnu-strip
	busybox=$("$here/arm64-root.sh" --busybox) ||
		die "no arm64 busybox (selftests/vm/arm64-root.sh)" ;;
*)	die "unknown --arch $arch (x86_64 or arm64)" ;;
esac
if [ -z "$kernel" ] && [ "$qemu" = qemu-system-aarch64 ]; then
	kernel=$("$here/arm64-root.sh" --kernel) ||
		die "no arm64 kernel (selftests/vm/arm64-root.sh)"
elif [ -z "$kernel" ]; then
	kver=$("$here/default-kver.sh") ||
		die "no Debian kernel in /boot: give --kernel"
	kernel=/boot/vmlinuz-$kver
fi
[ -r "$kernel" ] || die "cannot read kernel $kernel"
command -v "$qemu" >/dev/null ||
	die "$qemu not found (apt-get install qemu-system-x86 or qemu-system-arm)"

# What to pack: SRC:DEST pairs.  Missing kptrace pieces are fatal in the
# modes that need them, and skipped with a note in mode cmd.
ko=$root/kptrace.ko
test_ko=$root/selftests/test_modules/kpt_test.ko
if [ -n "$modules_from" ]; then
	ko=$modules_from/kptrace.ko
	test_ko=$modules_from/kpt_test.ko
	[ -e "$test_ko" ] ||
		test_ko=$modules_from/selftests/test_modules/kpt_test.ko
fi
[ -n "$tools" ] || tools=$root/tools/kptrace

pack=()
need()
{
	local src=$1 dst=$2 required=$3

	if [ -e "$src" ]; then
		pack+=(--add "$src:$dst")
	elif [ "$required" = 1 ]; then
		die "missing $src (build it first: make; make test-module)"
	else
		say "note: $src not built, not packed"
	fi
}
req=0
[ "$mode" = cmd ] || req=1
[ -d "$root/selftests" ] && pack+=(--add "$root/selftests:/selftests")
need "$ko" /kptrace.ko "$req"
need "$tools" /tools/kptrace "$req"
# The tests skip what needs the test module; do not refuse to run without it.
need "$test_ko" /selftests/test_modules/kpt_test.ko 0
[ "$mode" != check ] || [ -f "$root/selftests/run_tests.sh" ] ||
	die "missing $root/selftests/run_tests.sh"
if [ -e "$tools" ] && LC_ALL=C readelf -l "$tools" 2>/dev/null |
		grep -q 'Requesting program interpreter'; then
	die "$tools is dynamically linked; the initramfs has no libc (link it -static)"
fi
for a in "${adds[@]+"${adds[@]}"}"; do
	pack+=(--add "$a")
done

logdir=$(vm_logdir "$logdir" kptrace-vm)
work=$(mktemp -d "${TMPDIR:-/tmp}/kptrace-vm-work.XXXXXX")
qpid=
tailpids=()
cleanup()
{
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	for p in "${tailpids[@]+"${tailpids[@]}"}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

token=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
case $mode in
check)	cmd="cd /selftests && sh ./run_tests.sh ${KPT_TESTS:-}" ;;
run)	cmd='sh /selftests/vm/demo.sh' ;;
cmd)	printf '%s\n' "$guest_cmd" >"$work/guest-cmd.sh"
	pack+=(--add "$work/guest-cmd.sh:/guest-cmd.sh")
	cmd='sh /guest-cmd.sh' ;;
esac
{
	printf 'VM_TOKEN=%s\n' "$token"
	printf 'VM_MODE=%s\n' "$mode"
	printf "VM_CMD='%s'\n" "$cmd"
	printf 'KPT_KO=/kptrace.ko\nKPT_TEST_KO=/selftests/test_modules/kpt_test.ko\n'
	printf 'KPTRACE=/tools/kptrace\n'
	# Tests that hit QEMU TCG's limits say so by this.
	printf 'KPT_VM_ACCEL=tcg-%s\n' "$tcg_thread"
	printf 'export VM_MODE KPT_KO KPT_TEST_KO KPTRACE KPT_VM_ACCEL\n'
	# The tests' own knobs (KPT_FLOOD_N, KPT_HAZ_BUDGET, ...), when set
	# here, reach the guest too; plain words only.
	env | grep -E '^KPT_[A-Z0-9_]+=[A-Za-z0-9_.:/-]*$' |
		grep -vE '^KPT_(KO|TEST_KO)=' | sed 's/^/export /' || true
} >"$work/kptrace-vm.env"
pack+=(--add "$work/kptrace-vm.env:/etc/kptrace-vm.env")

initrd=$work/initramfs.gz
STRIP=$strip "$here/mkinitramfs.sh" -o "$initrd" --init "$here/init.sh" \
	--busybox "$busybox" --strip-ko "${pack[@]}"

append="console=$console printk.time=1 panic=-1 panic_on_warn=1 oops=panic"
append+=" loglevel=7"
# The TSC keeps time, as on real machines (kptrace's records are stamped
# from it); VM_TSC=emulated leaves the guest to its HPET (vmlib.sh).
[ "${VM_TSC:-host}" != host ] || [ "$console" != ttyS0 ] ||
	append+=" $(vm_tsc_append "$work")"
append+=" $append_extra"

say "kernel $kernel, mode $mode, timeout ${timeout}s"
say "logs in $logdir (console.log: kernel console, output.log: guest output)"

# boot: one QEMU run.  Sets boot_status to ok, timeout, boot-timeout or
# died (QEMU ended before the end marker), and started=1 once the guest
# command started.
boot()
{
	local con=$logdir/console.log out=$logdir/output.log
	local t0 now
	: >"$con"
	: >"$out"
	started=0
	boot_status=
	boot_secs=
	out_serial=(-chardev "file,id=out,path=$out" -serial chardev:out)
	[ "$one_serial" = 0 ] || out_serial=()
	t0=$(date +%s%3N)
	timeout -k 10 "$timeout" "$qemu" -accel "tcg,thread=$tcg_thread" \
		"${machine[@]}" -smp "$smp" \
		-m "$mem" -nodefaults -no-user-config -display none \
		-monitor none -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-chardev "file,id=con,path=$con" -serial chardev:con \
		"${out_serial[@]}" \
		</dev/null >"$logdir/qemu.log" 2>&1 &
	qpid=$!
	# Stream the guest output (without markers and dmesg) as it comes.
	tailpids=()
	tail -n +1 -F --pid="$qpid" "$out" 2>/dev/null | tr -d '\r' |
		awk -v tok="$token" '
			$0 ~ "^KPTRACE-VM-DMESG-BEGIN " tok { d = 1 }
			!d && $0 !~ "^KPTRACE-VM-" { print; fflush() }
			$0 ~ "^KPTRACE-VM-DMESG-END " tok { d = 0 }' &
	tailpids+=($!)
	if [ "$verbose" = 1 ]; then
		tail -n +1 -F --pid="$qpid" "$con" 2>/dev/null | tr -d '\r' |
			sed -u 's/^/console: /' &
		tailpids+=($!)
	fi
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s%3N)
		if [ "$started" = 0 ] &&
		   grep -aqs "^KPTRACE-VM-START $token" "$out" "$con"; then
			started=1
			boot_secs=$(secs $((now - t0)))
		fi
		if [ "$started" = 0 ] &&
		   [ $((now - t0)) -gt $((boot_timeout * 1000)) ]; then
			boot_status=boot-timeout
			kill "$qpid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	local rc=0
	wait "$qpid" || rc=$?
	qpid=
	for p in "${tailpids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	tailpids=()
	# A guest without a usable ttyS1 writes everything to the console.
	if [ ! -s "$out" ] && grep -aq "^KPTRACE-VM-START $token" "$con"; then
		say "note: no ttyS1 in the guest: output taken from the console"
		cp "$con" "$out"
		vm_section "$out" "$token" out
	fi
	wall_secs=$(secs $(($(date +%s%3N) - t0)))
	if [ "$started" = 0 ] && grep -aq "^KPTRACE-VM-START $token" "$out"; then
		started=1
		boot_secs="<$wall_secs"
	fi
	if [ -z "$boot_status" ]; then
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			boot_status=timeout
		elif vm_marker "$out" "$token" END >/dev/null; then
			boot_status=ok
		else
			boot_status=died
		fi
	fi
	[ "$rc" = 0 ] || [ "$boot_status" != ok ] ||
		say "note: qemu exited with $rc (see $logdir/qemu.log)"
}

attempt=1
while :; do
	boot
	[ "$started" = 0 ] || break
	[ "$retry" = 1 ] && [ "$attempt" = 1 ] || break
	say "RETRY: guest died before its command started ($boot_status); booting once more"
	for f in console output qemu; do
		mv "$logdir/$f.log" "$logdir/$f.attempt1.log"
	done
	say "first attempt's logs: $logdir/*.attempt1.log"
	attempt=2
done

con=$logdir/console.log
out=$logdir/output.log
fail=()
start_line=$(vm_marker "$out" "$token" START || true)
[ "$started" = 0 ] ||
	say "guest command started after ${boot_secs}s (guest ${start_line#uptime=}s uptime)"
case $boot_status in
ok)		;;
timeout)	fail+=("timeout: no end after ${timeout}s") ;;
boot-timeout)	fail+=("guest did not reach its command within ${boot_timeout}s") ;;
died)		fail+=("guest ended without the end marker") ;;
esac

end_line=$(vm_marker "$out" "$token" END || true)
guest_rc=${end_line#rc=}
if [ -n "$end_line" ] && [ "$guest_rc" != 0 ]; then
	fail+=("guest command exited with $guest_rc")
fi

vm_section "$out" "$token" dmesg >"$logdir/dmesg.log"
faults=$( (vm_faults "$con"; vm_faults "$logdir/dmesg.log") |
	awk '!seen[$0]++' | head -n 20)
if [ -n "$faults" ]; then
	fail+=("kernel fault reported:")
fi

vm_section "$out" "$token" out >"$logdir/test-output.log"
read -r passed failed skipped plan results tap < <(vm_ktap <"$logdir/test-output.log")
if [ "$mode" = check ] || [ "$tap" = 1 ]; then
	if [ "$tap" = 0 ]; then
		fail+=("no KTAP output (no 'TAP version' line)")
	elif [ "$plan" -ge 0 ] && [ "$results" != "$plan" ]; then
		fail+=("KTAP plan 1..$plan but $results results")
	fi
	[ "$failed" = 0 ] || fail+=("$failed test(s) failed")
	# A run cut short (a timeout, a crash) did not run the rest of its
	# plan: the verdict counts those tests as failed, so that its line
	# never reads "0 failed" for a run that failed.
	if [ "$tap" = 1 ] && [ "$plan" -gt "$results" ]; then
		fail+=("$((plan - results)) of $plan tests not run (counted as failed)")
		failed=$((failed + plan - results))
	fi
fi
# Nor for one that failed otherwise: no KTAP, no plan, a kernel fault or
# a non-zero exit after every test passed is one failure.
if [ ${#fail[@]} -gt 0 ] && [ "$failed" = 0 ]; then
	failed=1
fi

say "wall time ${wall_secs}s, boot attempts $attempt, guest exit code ${guest_rc:-none}"
if [ ${#fail[@]} -gt 0 ]; then
	for f in "${fail[@]}"; do
		say "FAIL: $f"
		[ "$f" != "kernel fault reported:" ] ||
			printf '%s\n' "$faults" | sed 's/^/    /'
	done
	echo "vm: ----- last 60 lines of $con -----"
	tr -d '\r' <"$con" | tail -n 60
	echo "vm: ----- end of console tail -----"
	rc=1
else
	say "PASS"
	rc=0
fi
if [ "$mode" = check ] || [ "$tap" = 1 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
fi
exit "$rc"
