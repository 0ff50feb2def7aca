# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib.sh: helpers shared by the kptrace selftests. Source it first:
#
#	. "$(dirname "$0")/lib.sh"
#
# Only POSIX sh and busybox applets are used, so the same tests run in the
# QEMU initramfs (selftests/vm) and on a real test box as root.
#
# Everything is found through environment variables, with defaults that fit
# both layouts (the repository, and the initramfs where selftests/ is
# /selftests and the module is /kptrace.ko):
#	KPT_SELFTESTS	this directory
#	KPT_KO		kptrace.ko	  (default ../kptrace.ko)
#	KPT_TEST_KO	kpt_test.ko	  (default test_modules/kpt_test.ko)
#	KPTRACE		the reader	  (default ../tools/kptrace)
#	KPT_READ	helpers/kpt_read  (the selftests' own reader)
#	KPT_INSMOD	helpers/kpt_insmod (insmod that reports the errno name)
#	KPT_CPU		the CPU kpt_call runs on (default 0)
#
# Exit codes: 0 pass, 1 fail, 4 skip (kselftest).

KPT_SELFTESTS=${KPT_SELFTESTS:-$(cd "$(dirname "$0")" && pwd)}
KPT_DEBUGFS=${KPT_DEBUGFS:-/sys/kernel/debug}
KPT_DIR=$KPT_DEBUGFS/kptrace
KPT_TEST_DIR=$KPT_DEBUGFS/kpt_test
KPT_DEV=${KPT_DEV:-/dev/kptrace}
KPT_CPU=${KPT_CPU:-0}
KPT_TMP=${KPT_TMP:-${TMPDIR:-/tmp}/kpt_selftest.$$}
KSFT_SKIP=4

# The first of its arguments that exists, or nothing.
kpt_first()
{
	for _f in "$@"; do
		if [ -e "$_f" ]; then
			echo "$_f"
			return 0
		fi
	done
	return 1
}

KPT_KO=${KPT_KO:-$(kpt_first "$KPT_SELFTESTS/../kptrace.ko" \
	/kptrace.ko /lib/modules/kptrace.ko /modules/kptrace.ko)}
KPT_TEST_KO=${KPT_TEST_KO:-$(kpt_first \
	"$KPT_SELFTESTS/test_modules/kpt_test.ko" "$KPT_SELFTESTS/kpt_test.ko" \
	/kpt_test.ko /lib/modules/kpt_test.ko /modules/kpt_test.ko)}
KPTRACE=${KPTRACE:-$(kpt_first "$KPT_SELFTESTS/../tools/kptrace" \
	/kptrace /tools/kptrace /bin/kptrace /usr/bin/kptrace \
	/usr/local/bin/kptrace /usr/sbin/kptrace)}
KPT_READ=${KPT_READ:-$(kpt_first "$KPT_SELFTESTS/helpers/kpt_read" \
	/bin/kpt_read /usr/bin/kpt_read)}
KPT_INSMOD=${KPT_INSMOD:-$(kpt_first "$KPT_SELFTESTS/helpers/kpt_insmod" \
	/bin/kpt_insmod /usr/bin/kpt_insmod)}

# ---------------------------------------------------------------- results

# fail MSG: the test failed; says why, shows the recent kernel log, exits 1.
fail()
{
	echo "# FAIL: $*" >&2
	echo "# last kernel messages:"
	dmesg 2>/dev/null | tail -n 10 | sed 's/^/#   /'
	exit 1
}

# skip MSG: the test cannot run here (exit 4); run_tests.sh prints MSG.
skip()
{
	echo "SKIP: $*"
	exit $KSFT_SKIP
}

# info MSG: a diagnostic line.
info()
{
	echo "# $*"
}

# assert_eq WHAT GOT EXPECTED
assert_eq()
{
	if [ "$2" != "$3" ]; then
		fail "$1: expected '$3', got '$2'"
	fi
}

# assert_match WHAT TEXT REGEX (grep -E)
assert_match()
{
	if ! printf '%s\n' "$2" | grep -Eq -- "$3"; then
		fail "$1: '$2' does not match /$3/"
	fi
}

# assert_ge WHAT GOT MIN
assert_ge()
{
	if [ "$2" -lt "$3" ] 2>/dev/null || ! [ "$2" -ge "$3" ] 2>/dev/null
	then
		fail "$1: expected >= $3, got '$2'"
	fi
}

# ---------------------------------------------------------- requirements

require_root()
{
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# Mounts debugfs when it is not mounted yet (the initramfs may not have).
require_debugfs()
{
	if [ ! -d "$KPT_DEBUGFS/tracing" ] && ! grep -q " $KPT_DEBUGFS debugfs " /proc/mounts; then
		mount -t debugfs none "$KPT_DEBUGFS" 2>/dev/null ||
			skip "debugfs is not mounted and cannot be mounted"
	fi
}

require_ko()
{
	[ -n "$KPT_KO" ] && [ -f "$KPT_KO" ] ||
		skip "kptrace.ko not found (build it, or set KPT_KO)"
}

require_test_ko()
{
	[ -n "$KPT_TEST_KO" ] && [ -f "$KPT_TEST_KO" ] ||
		skip "kpt_test.ko not found (make -C selftests, or set KPT_TEST_KO)"
}

require_kptrace()
{
	[ -n "$KPTRACE" ] && [ -x "$KPTRACE" ] ||
		skip "kptrace reader not found (make -C tools, or set KPTRACE)"
}

# Every Debian kernel has BTF; make check-debug's kernel does not.
require_btf()
{
	[ -r /sys/kernel/btf/vmlinux ] ||
		skip "no /sys/kernel/btf/vmlinux (a kernel without CONFIG_DEBUG_INFO_BTF)"
}

require_kpt_read()
{
	[ -n "$KPT_READ" ] && [ -x "$KPT_READ" ] ||
		fail "helpers/kpt_read not built (make -C selftests helpers)"
}

# require_kpt_sysgen: the static helper that makes system calls in exact
# numbers, in SYSGEN; the test fails without it.
require_kpt_sysgen()
{
	SYSGEN=$(kpt_first "$KPT_SELFTESTS/helpers/kpt_sysgen" /bin/kpt_sysgen)
	[ -n "$SYSGEN" ] && [ -x "$SYSGEN" ] ||
		fail "helpers/kpt_sysgen not built (make -C selftests helpers)"
}

# kpt_sys_named: true when `kptrace syscalls` names the arguments here:
# tracefs has events/syscalls (where the tool looks: /sys/kernel/tracing,
# else debugfs's tracing, which mounts it), which a kernel without
# CONFIG_FTRACE_SYSCALLS (the debug kernel's defconfig) lacks; then they
# print as arg0..arg5 in hex. GETPPID_RE: an ERE of a getppid() call as
# the tool prints it either way.
kpt_sys_named()
{
	[ -d /sys/kernel/tracing/events/syscalls ] ||
		[ -d /sys/kernel/debug/tracing/events/syscalls ]
}
export GETPPID_RE=' getppid\((arg0: [^)]*)?\) = '

# sysgen_start ACTION...: kpt_sysgen -w ACTION... in the background,
# blocked on a FIFO, so that its pid (SG; its parent is this shell) is
# known before a probe is armed for it (and its exec is done: no probe
# armed next sees it); sysgen_go [STATUS] lets it run
# and waits for it to exit STATUS (0).
sysgen_start()
{
	rm -f "$KPT_TMP/go"
	mkfifo "$KPT_TMP/go" || fail "mkfifo"
	"$SYSGEN" -w "$@" <> "$KPT_TMP/go" &
	SG=$!
	# the shell's fork has exec'ed kpt_sysgen (blocked in its read of the
	# FIFO, opened read-write so that the open does not wait for a
	# writer), so that no probe armed next sees that execve
	_i=0
	while [ "$(cat "/proc/$SG/comm" 2>/dev/null)" != kpt_sysgen ]; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "kpt_sysgen $SG did not start in 5 s"
		sleep 0.05
	done
}

sysgen_go()
{
	echo > "$KPT_TMP/go"
	wait "$SG"
	_st=$?
	[ "$_st" = "${1:-0}" ] || fail "kpt_sysgen $SG exited $_st, not ${1:-0}"
}

require_cmd()
{
	for _c in "$@"; do
		command -v "$_c" >/dev/null 2>&1 || skip "needs the command $_c"
	done
}

# The usual start of a test: root, debugfs, both modules, a clean state,
# a scratch directory, and the cleanup trap.
kpt_setup()
{
	require_root
	require_debugfs
	require_ko
	require_test_ko
	mkdir -p "$KPT_TMP" || fail "cannot create $KPT_TMP"
	trap kpt_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	kpt_unload
	kpt_test_unload
}

# Runs the test's own cleanup (a function named cleanup, if defined), then
# puts the system back: background jobs killed, modules unloaded, scratch
# files removed. The exit status of the test is kept.
kpt_cleanup()
{
	_rc=$?
	trap - EXIT
	if command -v cleanup >/dev/null 2>&1; then
		cleanup || true
	fi
	for _p in $KPT_BG_PIDS; do
		kill "$_p" 2>/dev/null
	done
	for _p in $KPT_BG_PIDS; do
		wait "$_p" 2>/dev/null
	done
	kpt_rmmod_quiet kptrace
	kpt_rmmod_quiet kpt_test
	[ -z "$KPT_KR_SAVED" ] ||
		echo "$KPT_KR_SAVED" > /proc/sys/kernel/kptr_restrict
	rm -rf "$KPT_TMP"
	exit $_rc
}

# kpt_bg CMD...: runs CMD in the background and remembers its pid for the
# cleanup; the pid is in $KPT_BG.
kpt_bg()
{
	"$@" &
	KPT_BG=$!
	KPT_BG_PIDS="$KPT_BG_PIDS $KPT_BG"
}

# kpt_sleepers N MS: N background calls of kpt_test_sleep(MS) (kpt_bg)
kpt_sleepers()
{
	_n=0
	while [ $_n -lt "$1" ]; do
		kpt_bg sh -c "echo $2 > $KPT_TEST_DIR/sleep"
		_n=$((_n + 1))
	done
}

# kpt_kallsyms_visible: /proc/kallsyms shows this root shell the
# addresses (kptr_restrict=2 hides them from everyone: then it is set to 1
# for the test, and kpt_cleanup puts it back); fails when they stay hidden.
kpt_kallsyms_visible()
{
	_kr=/proc/sys/kernel/kptr_restrict
	if kpt_kallsyms_hidden && [ -w "$_kr" ]; then
		KPT_KR_SAVED=$(cat "$_kr")
		echo 1 > "$_kr" || fail "cannot set kptr_restrict=1"
		info "kptr_restrict was $KPT_KR_SAVED: 1 for this test"
	fi
	! kpt_kallsyms_hidden ||
		fail "/proc/kallsyms hides its addresses from root (kptr_restrict $(cat "$_kr" 2>/dev/null))"
}

# kpt_kallsyms_hidden: true when /proc/kallsyms shows _stext at 0.
kpt_kallsyms_hidden()
{
	awk '$3 == "_stext" { f = 1; h = ($1 ~ /^0+$/) } END { exit !(f && h) }' \
		/proc/kallsyms
}

# ----------------------------------------------------------- kernel log

# kpt_mark: puts a unique marker line into the kernel log; kpt_log_since
# prints the messages logged after it, without the "[ time]" prefix.
KPT_MARK_N=0
kpt_mark()
{
	KPT_MARK_N=$((KPT_MARK_N + 1))
	# unique even in subshells, whose counter increments are lost
	KPT_MARK="kpt_selftest: mark $$.$KPT_MARK_N.$(cut -d' ' -f1 /proc/uptime)"
	echo "$KPT_MARK" > /dev/kmsg ||
		fail "cannot write to /dev/kmsg"
}

kpt_log_since()
{
	dmesg | sed -e 's/^\[[ 0-9.]*\] //' | awk -v m="$KPT_MARK" '
		$0 == m { n = 0; found = 1; next }
		found { line[++n] = $0 }
		END { for (i = 1; i <= n; i++) print line[i] }'
}

# The lines kptrace logged since the mark: those starting with "kptrace: ",
# less the kernel's own one-per-boot taint notices.
kpt_log_kptrace()
{
	kpt_log_since | grep '^kptrace: ' |
		grep -v -e 'taints kernel' -e 'tainting kernel'
}

# ------------------------------------------------------------ modules

kpt_loaded()
{
	[ -e "/sys/module/$1/initstate" ] || [ -e "/sys/module/$1/refcnt" ]
}

kpt_rmmod_quiet()
{
	_i=0
	while kpt_loaded "$1" && [ $_i -lt 20 ]; do
		rmmod "$1" 2>/dev/null && break
		sleep 0.2
		_i=$((_i + 1))
	done
}

# kpt_load [PARAM=VALUE ...]: loads kptrace.ko; on error shows the log and
# fails the test.
kpt_load()
{
	kpt_loaded kptrace && fail "kpt_load: kptrace is already loaded"
	kpt_mark
	if ! _out=$(insmod "$KPT_KO" "$@" 2>&1); then
		info "insmod $KPT_KO $*: $_out"
		kpt_log_since | tail -n 20 | sed 's/^/#   /'
		fail "kptrace.ko did not load with: $*"
	fi
	[ -d "$KPT_DIR" ] || fail "kptrace loaded but $KPT_DIR is missing"
}

kpt_unload()
{
	if kpt_loaded kptrace; then
		_out=$(rmmod kptrace 2>&1) || fail "rmmod kptrace: $_out"
	fi
	kpt_loaded kptrace && fail "kptrace still loaded after rmmod"
	return 0
}

kpt_test_load()
{
	kpt_loaded kpt_test && return 0
	_out=$(insmod "$KPT_TEST_KO" 2>&1) ||
		fail "insmod $KPT_TEST_KO: $_out"
	[ -e "$KPT_TEST_DIR/call" ] || fail "kpt_test loaded without $KPT_TEST_DIR/call"
}

kpt_test_unload()
{
	if kpt_loaded kpt_test; then
		_out=$(rmmod kpt_test 2>&1) || fail "rmmod kpt_test: $_out"
	fi
	return 0
}

# kpt_call N: N calls of kpt_test_func(i, 0x1111, ..., 0x5555) in this
# order, from one task pinned to $KPT_CPU when taskset is there.
kpt_call()
{
	if command -v taskset >/dev/null 2>&1; then
		taskset -c "$KPT_CPU" sh -c "echo $1 > $KPT_TEST_DIR/call" ||
			fail "kpt_call $1 failed"
	else
		echo "$1" > "$KPT_TEST_DIR/call" || fail "kpt_call $1 failed"
	fi
}

# kpt_call_all N: N calls on every online CPU at once.
kpt_call_all()
{
	echo "$1" > "$KPT_TEST_DIR/call_all" || fail "kpt_call_all $1 failed"
}

kpt_sleep_call()
{
	echo "$1" > "$KPT_TEST_DIR/sleep" || fail "kpt_sleep_call $1 failed"
}

# ---------------------------------------------------------- architecture
#
# What the tests assert that differs between x86-64 and arm64, in one
# place (as module/arch.h is the module's; run_tests.sh's arch_skip names
# the tests that do not run on arm64 at all). Tests use these, never
# uname -m:
#	KPT_ARCH	x86_64 or arm64
#	KPT_REG_ARG1..KPT_REG_ARG6
#			the registers of a function's first six arguments, as
#			the probe language names them: %di %si %dx %cx %r8
#			%r9; %x0 .. %x5 (AAPCS64)
#	KPT_REG_IP	the instruction pointer: %ip; %pc
#	KPT_RET_ADDR	a fetch of the return address at a function's first
#			instruction: $stack0 (the call pushed it); %x30
#			(bl leaves it in the link register, and $stack0 is
#			whatever the caller had at the top of its stack)
#	KPT_ENTRY_IP	sym+KPT_ENTRY_IP is the instruction pointer a kprobe
#			handler sees for a probe on sym's entry: 0x1 (past the
#			int3, or as kprobes on ftrace make it look); 0x0 (brk
#			leaves pc at the probed instruction)
#	KPT_BLACKLISTED	the kprobe core's own breakpoint handler, which
#			kprobes refuse (EINVAL): kprobe_int3_handler;
#			kprobe_breakpoint_handler (a local symbol)
#	KPT_EINSN	the errno of a probe address inside an instruction:
#			EILSEQ (the x86 decoder's boundary check); EINVAL
#			(arm64's arch_prepare_kprobe() refuses an address that
#			is not a multiple of 4 with -EINVAL before kptrace can
#			tell why); KPT_EINSN_WHY, the reason kptrace gives
#	KPT_NR_READ, KPT_NR_WRITE
#			the numbers of read(2) and write(2), as the first field
#			of /proc/PID/syscall: 0, 1; 63, 64 (asm-generic)
case $(uname -m) in
aarch64|arm64)
	KPT_ARCH=arm64
	KPT_REG_ARG1=%x0 KPT_REG_ARG2=%x1 KPT_REG_ARG3=%x2
	KPT_REG_ARG4=%x3 KPT_REG_ARG5=%x4 KPT_REG_ARG6=%x5
	KPT_REG_IP=%pc
	KPT_RET_ADDR=%x30
	KPT_ENTRY_IP=0x0
	KPT_BLACKLISTED=kprobe_breakpoint_handler
	KPT_EINSN=EINVAL
	KPT_EINSN_WHY='cannot be probed (blacklisted, notrace, or not kernel text)'
	KPT_NR_READ=63
	KPT_NR_WRITE=64
	;;
*)
	KPT_ARCH=x86_64
	KPT_REG_ARG1=%di KPT_REG_ARG2=%si KPT_REG_ARG3=%dx
	KPT_REG_ARG4=%cx KPT_REG_ARG5=%r8 KPT_REG_ARG6=%r9
	KPT_REG_IP=%ip
	KPT_RET_ADDR='$stack0'
	KPT_ENTRY_IP=0x1
	KPT_BLACKLISTED=kprobe_int3_handler
	KPT_EINSN=EILSEQ
	KPT_EINSN_WHY='offset is not on an instruction boundary'
	KPT_NR_READ=0
	KPT_NR_WRITE=1
	;;
esac

# kpt_entry_off SYM: where the kprobe core puts a probe on SYM's entry, as
# "0x<hex>": 0x0, or 0x4 past the endbr64 a kernel built with IBT starts
# functions with (x86-64 v6.2+, arch_adjust_kprobe_addr); 0x0 on arm64.
# Asked of the kernel itself: an ftrace kprobe_events probe, read back
# from kprobes/list.
kpt_entry_off()
{
	_ev=$KPT_DEBUGFS/tracing/kprobe_events
	[ -w "$_ev" ] || { echo 0x0; return; }
	echo "p:kpt_entry_off/p $1" >> "$_ev" ||
		fail "kpt_entry_off: kprobe_events refused $1"
	_off=$(awk -v s="$1" 'index($3, s "+0x") == 1 {
		sub(/^[^+]*\+/, "", $3); print $3; exit }' \
		"$KPT_DEBUGFS/kprobes/list")
	echo "-:kpt_entry_off/p" >> "$_ev"
	[ -n "$_off" ] || fail "kpt_entry_off: $1 is not in kprobes/list"
	echo "$_off"
}

# kpt_after_entry SYM: SYM+off of the first instruction after ftrace's
# patch site at SYM's entry, a boundary kprobes accept on every kernel,
# as "0x<hex>". x86-64: past the 5-byte fentry call (nop), which starts
# the function or follows the endbr64 (kpt_entry_off + 5). arm64: past
# the two instructions -fpatchable-function-entry=2 leaves (mov x9, x30
# and the bl to ftrace, after a bti c on a kernel with BTI): the bl is
# the offset kprobes refuse as an ftrace location, the first one past
# the entry (or list as [FTRACE] on a kernel with kprobes on ftrace),
# asked of kprobe_events as kpt_entry_off asks; 0x8 without it.
kpt_after_entry()
{
	if [ "$KPT_ARCH" != arm64 ]; then
		printf '0x%x\n' $(($(kpt_entry_off "$1") + 5))
		return
	fi
	_ev=$KPT_DEBUGFS/tracing/kprobe_events
	[ -w "$_ev" ] || { echo 0x8; return; }
	_o=4
	while [ $_o -le 16 ]; do
		if ! echo "p:kpt_after_entry/p $1+$_o" >> "$_ev" 2>/dev/null; then
			printf '0x%x\n' $((_o + 4))
			return
		fi
		_ft=$(awk -v s="$(printf '%s+0x%x' "$1" $_o)" \
			'$3 == s && /\[FTRACE\]/ { print "y"; exit }' \
			"$KPT_DEBUGFS/kprobes/list")
		echo "-:kpt_after_entry/p" >> "$_ev"
		if [ -n "$_ft" ]; then
			printf '0x%x\n' $((_o + 4))
			return
		fi
		_o=$((_o + 4))
	done
	fail "kpt_after_entry: no ftrace location in $1's first 16 bytes"
}

# kpt_require_stable_rearm: skips a test that arms and disarms a kprobe on
# a function hit without pause, on the kernels that crash doing it under
# QEMU's multi-threaded TCG whoever the kprobe's owner: Debian's 6.12 and
# later, not RT. A 40-line kprobe module (kpt_hazard_ctl.ko) and ftrace's
# own kprobe_events crash them the same way within seconds; run-vm.sh's
# default single-threaded TCG does not (selftests/debug/README.md). With
# KPT_HAZ_FORCE=1, or anywhere else, the test runs.
kpt_require_stable_rearm()
{
	[ "${KPT_VM_ACCEL:-}" = tcg-multi ] && [ "${KPT_HAZ_FORCE:-0}" != 1 ] ||
		return 0
	case $(uname -r) in
	*-rt-*|*-rt|[1-5].*|6.[0-9].*|6.1[01].*) return 0 ;;
	esac
	skip "$(uname -r) under QEMU's multi-threaded TCG crashes when any kprobe on a function hit without pause is armed and disarmed in a loop (kpt_hazard_ctl.ko and kprobe_events too: selftests/debug/README.md); VM_TCG_THREAD=single, or KPT_HAZ_FORCE=1, runs it"
}

# kpt_nr_possible_cpus: "0-1", "0" or "0-3,5" in sysfs -> how many
kpt_nr_possible_cpus()
{
	tr ',' '\n' < /sys/devices/system/cpu/possible | awk -F- '
		{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }'
}

# kpt_default_bufsize_kb: the ring size (KiB per CPU) kptrace picks when
# bufsize_kb= is not given: 8192, halved while the rings of all possible
# CPUs would take more than 1/32 of RAM, down to 1024 (module/main.c).
kpt_default_bufsize_kb()
{
	_ncpu=$(kpt_nr_possible_cpus)
	_ram=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
	_kb=8192
	while [ $_kb -gt 1024 ] && [ $((_kb * _ncpu)) -gt $((_ram / 32)) ]; do
		_kb=$((_kb / 2))
	done
	echo $_kb
}

kpt_nr_online_cpus()
{
	if command -v nproc >/dev/null 2>&1; then
		nproc
	else
		grep -c '^processor' /proc/cpuinfo
	fi
}

# kpt_online_cpus: the online CPUs' numbers, one per line.
kpt_online_cpus()
{
	tr ',' '\n' < /sys/devices/system/cpu/online | awk -F- '
		{ hi = (NF == 2 ? $2 : $1); for (c = $1; c <= hi; c++) print c }'
}

# kpt_field NAME TEXT: the value of NAME=value among TEXT's fields
kpt_field()
{
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# kpt_flood_run NAME N [PARAM...]: loads kptrace on kpt_test_func (stack=16
# and PARAMs), follows /dev/kptrace with helpers/kpt_read while every
# online CPU makes N calls, stops the reader once the rings are drained,
# and checks what every flood checks: the books (kpt_books_check), pending
# 0, missed 0, hits = N x CPUs and cpuN.hits = N on every online CPU; of
# the reader's summary: no bad record, no seq error, records read = stats'
# read, LOST reports = stats' lost cause by cause, every online CPU read.
# Leaves hits, read, lost, missed, online and the reader's output in
# $KPT_TMP/reader (its summary in $summary) for the test's own checks.
kpt_flood_run()
{
	_name=$1
	_n=$2
	shift 2
	kpt_load name=kpt_test_func stack=16 "$@"
	kpt_bg "$KPT_READ" follow > "$KPT_TMP/reader" 2> "$KPT_TMP/reader.err"
	_reader=$KPT_BG
	sleep 1
	kill -0 "$_reader" 2>/dev/null ||
		fail "$_name: reader ended early: $(cat "$KPT_TMP/reader.err")"
	_start=$(date +%s)
	kpt_call_all "$_n"
	info "$_name: call_all $_n on $(kpt_nr_online_cpus) CPUs took $(($(date +%s) - _start))s"
	kill -TERM "$_reader"
	wait "$_reader"
	_rc=$?
	KPT_BG_PIDS=
	sed "s/^/#   $_name: reader: /" "$KPT_TMP/reader" "$KPT_TMP/reader.err"
	[ "$_rc" = 0 ] || fail "$_name: reader failed ($_rc)"
	sed "s/^/#   $_name: /" "$KPT_DIR/stats" | grep -v ' 0$'

	kpt_books_check
	hits=$(kpt_stat hits)
	missed=$(kpt_stat missed)
	read=$(kpt_stat read)
	lost=$(kpt_stat lost)
	online=$(kpt_online_cpus)
	assert_eq "$_name: pending after the drain" "$(kpt_stat pending)" 0
	assert_eq "$_name: missed" "$missed" 0
	assert_eq "$_name: hits" "$hits" $((_n * $(kpt_nr_online_cpus)))
	for _cpu in $online; do
		assert_eq "$_name: cpu$_cpu.hits" "$(kpt_stat "cpu$_cpu.hits")" "$_n"
	done

	summary=$(grep '^summary ' "$KPT_TMP/reader")
	[ -n "$summary" ] || fail "$_name: no summary from the reader"
	assert_eq "$_name: bad records" "$(kpt_field bad "$summary")" 0
	assert_eq "$_name: per-CPU seq errors" "$(kpt_field seq_errors "$summary")" 0
	assert_eq "$_name: records read = stats read" "$(kpt_field records "$summary")" "$read"
	assert_eq "$_name: events reported lost = stats lost" \
		"$(kpt_field lost_events "$summary")" "$lost"
	for _c in full overwritten nested too_big; do
		assert_eq "$_name: lost.$_c reported" \
			"$(kpt_field "lost_$_c" "$summary")" "$(kpt_stat "lost.$_c")"
	done
	assert_eq "$_name: CPUs the reader read" \
		"$(grep '^cpu ' "$KPT_TMP/reader" | awk '{ printf "%s ", $2 }')" \
		"$(for _cpu in $online; do printf '%s ' "$_cpu"; done)"
}

# kpt_stat NAME: the value of NAME in the stats file (fails if missing).
# (Not called "stat", which would hide stat(1).)
kpt_stat()
{
	_v=$(awk -v n="$1" '$1 == n { print $2; f = 1 } END { exit !f }' \
		"$KPT_DIR/stats") || fail "stats has no '$1'"
	echo "$_v"
}

# kpt_stats_check: the exact invariants of the stats file, for a quiet
# system (no hit in flight).
kpt_stats_check()
{
	_s=$(cat "$KPT_DIR/stats") || fail "cannot read stats"
	echo "$_s" | awk '
		{ v[$1] = $2 }
		END {
			err = 0
			lsum = v["lost.full"] + v["lost.overwritten"] + \
			       v["lost.nested"] + v["lost.too_big"]
			if (v["hits"] != v["recorded"] + v["lost"]) {
				print "# hits " v["hits"] " != recorded " v["recorded"] " + lost " v["lost"]; err = 1
			}
			if (v["lost"] != lsum) {
				print "# lost " v["lost"] " != sum of lost.* " lsum; err = 1
			}
			if (v["recorded"] != v["read"] + v["pending"]) {
				print "# recorded " v["recorded"] " != read " v["read"] " + pending " v["pending"]; err = 1
			}
			exit err
		}' || { echo "$_s" | sed 's/^/#   /'; fail "stats invariants broken"; }
}

# kpt_books_check: kpt_stats_check, and the rings' books against the
# probes' own counters (probe_stats), which the handlers keep apart from
# the rings: the probes' events, less those filtered, add up to hits,
# their recorded to recorded, their losses to lost, cause by cause. (The
# stats file derives hits from recorded + lost, so hits = recorded + lost
# alone cannot fail; this can.) For a quiet system whose probes were never
# deleted and that has no aggregation.
kpt_books_check()
{
	kpt_stats_check
	_p=$(awk '$2 !~ /^cpu[0-9]+$/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] } }
		END { printf "hits %.0f recorded %.0f full %.0f overwritten %.0f nested %.0f too_big %.0f\n",
			v["events"] - v["filtered"], v["recorded"], v["full"],
			v["overwritten"], v["nested"], v["too_big"] }' \
		"$KPT_DIR/probe_stats") || fail "cannot read probe_stats"
	_r="hits $(kpt_stat hits) recorded $(kpt_stat recorded)"
	for _c in full overwritten nested too_big; do
		_r="$_r $_c $(kpt_stat lost.$_c)"
	done
	if [ "$_p" != "$_r" ]; then
		sed 's/^/#   /' "$KPT_DIR/probe_stats" | grep -v ' cpu[0-9]* '
		fail "the probes' books ($_p) are not the rings' ($_r)"
	fi
}

# ----------------------------------------------------- refused loads

# Text insmod prints for an errno: busybox (moderror()), then kmod, then
# the C library's strerror().
kpt_errno_text()
{
	case $1 in
	ENOENT) echo "unknown symbol in module, or unknown parameter|Unknown symbol in module|No such file or directory" ;;
	EINVAL) echo "Invalid argument|Invalid parameters" ;;
	EILSEQ) echo "Invalid or incomplete multibyte or wide character|Illegal byte sequence" ;;
	E2BIG) echo "Argument list too long" ;;
	ENOMEM) echo "Cannot allocate memory|Out of memory" ;;
	ERANGE) echo "Numerical result out of range|Result not representable" ;;
	EBUSY) echo "Device or resource busy|Resource busy" ;;
	EADDRNOTAVAIL) echo "Cannot assign requested address|Address not available" ;;
	*) echo "$1" ;;
	esac
}

# expect_insmod_fail [-w WORD] ERRNO|ERRNO1/ERRNO2 PARAM=VALUE...
#
# Loading kptrace.ko with the parameters must fail with that errno (or one
# of the /-separated ones), leave the module unloaded, and log exactly one
# line starting "kptrace: " that contains WORD (default: the value of the
# last parameter). Then a load with good parameters and an unload must work.
expect_insmod_fail()
{
	_word=
	if [ "$1" = "-w" ]; then
		_word=$2
		shift 2
	fi
	_want=$1
	shift
	if [ -z "$_word" ]; then
		for _p in "$@"; do
			_word=${_p#*=}
		done
	fi
	kpt_loaded kptrace && fail "expect_insmod_fail: kptrace already loaded"
	kpt_mark
	if [ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ]; then
		_out=$("$KPT_INSMOD" "$KPT_KO" "$@" 2>&1)
		_rc=$?
		_got=$(echo "$_out" | sed -n 's/^errno=\([A-Z0-9?]*\).*/\1/p')
		[ $_rc = 0 ] && _got=success
		case "/$_want/" in
		*"/$_got/"*) ;;
		*) kpt_unload; fail "insmod $*: expected $_want, got $_got ($_out)" ;;
		esac
	else
		_out=$(insmod "$KPT_KO" "$@" 2>&1) &&
			{ kpt_unload; fail "insmod $* succeeded, expected $_want"; }
		_re=
		for _e in $(echo "$_want" | tr / ' '); do
			_re="$_re${_re:+|}$(kpt_errno_text "$_e")"
		done
		echo "$_out" | grep -Eq "$_re" ||
			fail "insmod $*: expected $_want ($_re), got: $_out"
	fi
	kpt_loaded kptrace && { kpt_unload; fail "insmod $* failed but kptrace is loaded"; }

	if [ -n "$KPT_INSMOD" ] && [ -x "$KPT_INSMOD" ]; then
		_lines=$(kpt_log_kptrace)
	else
		# busybox insmod retries a failed finit_module() with
		# init_module(): the module's init runs twice.
		_lines=$(kpt_log_kptrace | uniq)
	fi
	_n=$(printf '%s' "$_lines" | grep -c '^')
	if [ "$_n" != 1 ]; then
		printf '%s\n' "$_lines" | sed 's/^/#   /'
		fail "insmod $*: expected exactly one 'kptrace: ' log line, got $_n"
	fi
	case $_lines in
	*"$_word"*) ;;
	*) fail "insmod $*: log line does not name '$_word': $_lines" ;;
	esac
	info "refused $* ($_want): $_lines"

	# The refusal left nothing behind: a good load and an unload work.
	kpt_load
	kpt_unload
}

# ------------------------------------------------------- trace reading

# kpt_mem_kb [FIELD...]: Slab + Percpu (and the /proc/meminfo FIELDs given,
# e.g. VmallocUsed) in kB, after the slab caches' reclaimable part is dropped.
kpt_mem_kb()
{
	sync
	echo 2 > /proc/sys/vm/drop_caches 2>/dev/null
	awk -v more=" $* " '$1 == "Slab:" || $1 == "Percpu:" ||
		index(more, " " substr($1, 1, length($1) - 1) " ") { s += $2 }
		END { print s }' /proc/meminfo
}

# kpt_tracefs: TR, where ftrace's kprobe_events is (mounting tracefs if
# need be; kpt_tracefs_done unmounts it), or skips the test.
kpt_tracefs()
{
	TR=
	MOUNTED=
	for _d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -e "$_d/kprobe_events" ]; then
			TR=$_d
			return 0
		fi
	done
	if [ -d /sys/kernel/tracing ] &&
	   mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		MOUNTED=/sys/kernel/tracing
		[ -e /sys/kernel/tracing/kprobe_events ] && TR=/sys/kernel/tracing
	fi
	if [ -z "$TR" ]; then
		kpt_tracefs_done
		skip "no tracefs with kprobe_events (CONFIG_KPROBE_EVENTS, tracefs)"
	fi
}

kpt_tracefs_done()
{
	[ -z "$MOUNTED" ] || umount "$MOUNTED" 2>/dev/null
	MOUNTED=
}

# kpt_trace_read FILE: consumes everything the 'trace' file holds now.
kpt_trace_read()
{
	timeout 20 cat "$KPT_DIR/trace" > "$1" ||
		fail "cat $KPT_DIR/trace failed or did not return at EOF"
}

# A regex for the start of a text event line: "<comm>-<tid> [<cpu>] <s>.<us>: "
KPT_RE_HEAD='^.+-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: '

# --------------------------------------------------------------- JSON

# kpt_json_check FILE: every line of FILE is one valid JSON value (a small
# recursive-descent parser in awk). Prints the bad lines; fails if any.
kpt_json_check()
{
	awk '
	function perr(m) { if (err == "") err = m " at column " pos; return 0 }
	function ws() { while (pos <= n && index(" \t\r", substr(s, pos, 1))) pos++ }
	function value(    c) {
		ws(); c = substr(s, pos, 1)
		if (c == "{") return obj()
		if (c == "[") return arr()
		if (c == "\"") return str()
		if (c ~ /[-0-9]/) return num()
		if (substr(s, pos, 4) == "true" || substr(s, pos, 4) == "null") { pos += 4; return 1 }
		if (substr(s, pos, 5) == "false") { pos += 5; return 1 }
		return perr("unexpected \"" c "\"")
	}
	function obj(    c) {
		pos++; ws()
		if (substr(s, pos, 1) == "}") { pos++; return 1 }
		for (;;) {
			ws()
			if (substr(s, pos, 1) != "\"") return perr("key expected")
			if (!str()) return 0
			ws()
			if (substr(s, pos, 1) != ":") return perr("colon expected")
			pos++
			if (!value()) return 0
			ws(); c = substr(s, pos, 1); pos++
			if (c == "}") return 1
			if (c != ",") return perr("comma or } expected")
		}
	}
	function arr(    c) {
		pos++; ws()
		if (substr(s, pos, 1) == "]") { pos++; return 1 }
		for (;;) {
			if (!value()) return 0
			ws(); c = substr(s, pos, 1); pos++
			if (c == "]") return 1
			if (c != ",") return perr("comma or ] expected")
		}
	}
	function str(    c) {
		pos++
		while (pos <= n) {
			c = substr(s, pos, 1)
			if (c == "\"") { pos++; return 1 }
			if (c == "\\") {
				c = substr(s, pos + 1, 1)
				if (c == "u") {
					if (substr(s, pos + 2, 4) !~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/)
						return perr("bad \\u escape")
					pos += 6
				} else if (index("\"\\/bfnrt", c)) {
					pos += 2
				} else {
					return perr("bad escape")
				}
				continue
			}
			if (c < " ") return perr("control character in a string")
			pos++
		}
		return perr("unterminated string")
	}
	function num() {
		if (match(substr(s, pos), /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
			pos += RLENGTH; return 1
		}
		return perr("bad number")
	}
	{
		s = $0; n = length(s); pos = 1; err = ""
		ok = value(); ws()
		if (ok && pos <= n) { ok = 0; perr("trailing characters") }
		if (!ok) { print "# bad JSON, line " NR ": " err ": " $0; bad++ }
	}
	END { exit bad > 0 }' "$1" || fail "$1 has lines that are not valid JSON"
}

# ------------------------------------------------------------ sessions

# kpt_session_start OUT ARG...: helpers/kpt_read -S ARG... in the
# background (its pid in $KPT_BG), its output to OUT; returns once it said
# "armed": its session made and its -e probes added. Fails if it exits
# first, or is not armed within 20 s.
kpt_session_start()
{
	_out=$1
	shift
	kpt_bg "$KPT_READ" -S "$@" > "$_out" 2>&1
	_i=0
	while ! grep -qx armed "$_out" 2>/dev/null; do
		kill -0 "$KPT_BG" 2>/dev/null ||
			fail "kpt_read -S $*: ended before it was armed: $(cat "$_out")"
		[ $_i -lt 200 ] || fail "kpt_read -S $*: not armed after 20 s"
		sleep 0.1
		_i=$((_i + 1))
	done
}

# kpt_session_stop PID OUT: SIGTERM to a kpt_session_start reader, which
# drains its session and prints its summary and books to OUT; fails if it
# fails.
kpt_session_stop()
{
	kill -TERM "$1" 2>/dev/null
	wait "$1"
	_rc=$?
	[ "$_rc" = 0 ] || { sed 's/^/#   /' "$2"; fail "kpt_read -S ($1) failed ($_rc)"; }
}

# kpt_sessions_lines: the sessions file's lines (the default session's
# included)
kpt_sessions_lines()
{
	grep -c '' "$KPT_DIR/sessions"
}

# kpt_kprobes_on SYMBOL: how many kprobes the kernel's list has on SYMBOL
kpt_kprobes_on()
{
	grep -c "[[:space:]]$1+0x[0-9a-f]*[[:space:]]" \
		"$KPT_DEBUGFS/kprobes/list" 2> /dev/null
}

# kpt_session_gone WHAT SYMBOL: within 1 s of a session's kill, nothing of
# it is left: the default session's line alone, no probe listed, no
# kprobe on SYMBOL
kpt_session_gone()
{
	i=0
	while [ "$(kpt_sessions_lines)" != 1 ] && [ $i -lt 10 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	assert_eq "$1: sessions lines within 1 s of the kill" "$(kpt_sessions_lines)" 1
	assert_eq "$1: probes listed" "$(grep -c '' "$KPT_DIR/probes")" 0
	assert_eq "$1: kprobes armed on $2" "$(kpt_kprobes_on "$2")" 0
}

# kpt_wait_sessions N: until the sessions file has N lines (the default
# session's included), 5 s at most; fails then.
kpt_wait_sessions()
{
	_i=0
	while [ "$(kpt_sessions_lines)" != "$1" ]; do
		[ $_i -lt 50 ] || { sed 's/^/#   /' "$KPT_DIR/sessions";
			fail "sessions: $(kpt_sessions_lines) lines after 5 s, expected $1"; }
		sleep 0.1
		_i=$((_i + 1))
	done
}
