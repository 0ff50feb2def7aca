#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest side of make bench: runs inside ONE virtme-ng guest whose root
# is the bench chroot (see bench.sh), and measures every arm there.
#
# usage: guest.sh OUTDIR
# environment (set by bench.sh): BENCH_REPS, BENCH_CALLS, BENCH_DD_COUNT,
#   BENCH_SEED, BENCH_ARMS (regexp of arms to run, default all)
#
# Every measurement is one line "R key=value ..." on stdout and in
# OUTDIR/results.txt; report.py turns them into the tables. Arms run in
# rounds: round 0 is the warm-up (every arm once, discarded), then
# BENCH_REPS rounds, each in a fresh random order. The kernel loop is
# pinned to CPU 0, the tracers' readers to CPU 1.
#
# The system-call arms: sys_* (micro) time and count kpt_sysloop, a
# user-space loop of N getppid() on CPU 0 between the plugin's markers,
# under an empty kprobe and kretprobe on x64_sys_call (the floors),
# ftrace's raw_syscalls events filtered to the loop's pid or to another
# (pid 1) with a trace_pipe reader, and kptrace's syscalls probe (s)
# selecting another task, the loop's (with a -w reader) or the loop's with
# summary (no record). e2e_sys_* run dd under strace -f, perf trace (and
# with -m 32M), perf trace -s, a bpftrace syscount and kptrace (`kptrace
# syscalls -w` once the reader has it, else an s probe with comm=dd and
# -w; and `kptrace syscalls -s` once it has that).
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: guest.sh OUTDIR}
reps=${BENCH_REPS:-7}
calls=${BENCH_CALLS:-100000}
dd_count=${BENCH_DD_COUNT:-20000}
seed=${BENCH_SEED:-$RANDOM}
arms_re=${BENCH_ARMS:-.}

KO=$src/kptrace.ko
KPTRACE=$src/tools/kptrace
# the selftests' own reader: the session arms' (-S)
KPT_READ=$src/selftests/helpers/kpt_read
BENCH_KO=$src/selftests/bench/kpt_bench.ko
FLOOR_KO=$src/selftests/bench/kpt_floor.ko
SYSLOOP=$src/selftests/bench/kpt_sysloop
T=/sys/kernel/tracing
D=/sys/kernel/debug
RUN=$D/kpt_bench/run
tmp=/tmp/kpt-bench
res=$out/results.txt
WAIT=120	# seconds any one wait may take

mkdir -p "$tmp" "$out"
: >"$res"
RANDOM=$seed

say() { echo "bench: $*" >&2; }
result() { echo "R $*" | tee -a "$res"; }
meta() { echo "M $*" | tee -a "$res"; }

# wait_for SECS CMD...: poll CMD every 0.1 s until it succeeds
wait_for()
{
	local limit=$(($1 * 10)) i=0

	shift
	while ! "$@" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt "$limit" ] || return 1
		sleep 0.1
	done
}

# has_open PID PATTERN: process PID holds a file whose path matches
has_open() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q -- "$2"; }

# start_reader NAME CMD...: CMD in the background on CPU 1, its output
# wherever CMD says; $tmp/NAME.pid is its pid and, once it was stopped,
# $tmp/NAME.cpu its user+system CPU time in clock ticks (cutime + cstime
# of the shell that waited for it).
start_reader()
{
	local name=$1

	shift
	rm -f "$tmp/$name.pid" "$tmp/$name.cpu"
	(
		taskset -c 1 "$@" &
		echo $! >"$tmp/$name.pid"
		wait $!
		read -r -a st </proc/$BASHPID/stat
		echo $((st[15] + st[16])) >"$tmp/$name.cpu"
	) &
	echo $! >"$tmp/$name.sub"
	wait_for 10 test -s "$tmp/$name.pid"
}

stop_reader()
{
	local name=$1 sig=${2:-TERM}

	kill -"$sig" "$(cat "$tmp/$name.pid")" 2>/dev/null
	wait "$(cat "$tmp/$name.sub")" 2>/dev/null
	# in a command substitution wait returns at once: the reader has
	# exited (its output is complete) once its CPU time is written
	wait_for $WAIT test -s "$tmp/$name.cpu"
	cat "$tmp/$name.cpu" 2>/dev/null || echo -1
}

# The kernel loop: N calls on CPU 0; prints "calls ns chunk_ns chunk run"
# (run: the loop's number, which insn_plugin logs with its instruction
# counts, see kpt_bench.c).
run_loop()
{
	local line

	taskset -c 0 sh -c "echo $1 >$RUN" || return 1
	line=$(cat $RUN)
	set -- $line
	# --profile: the symbols of this run's modules (each arm loads its
	# own), BPF programs and ftrace and kprobe trampolines
	[ "${BENCH_PROFILE:-0}" = 0 ] ||
		awk '$4 ~ /^\[(kptrace|kpt_bench|kpt_floor|bpf|__builtin__(ftrace|kprobes))\]$/' \
			/proc/kallsyms >"$out/ksyms.${5#run=}"
	echo "${1#calls=} ${2#ns=} ${3#chunk_ns=} ${4#chunk=} ${5#run=}"
}

# Files grow until a reader has caught up: wait until SIZE is stable for
# 1.5 s.
wait_quiet()
{
	local f=$1 a b n=0

	a=$(stat -c %s "$f" 2>/dev/null || echo 0)
	while [ $n -lt $((WAIT * 2)) ]; do
		sleep 0.5
		b=$(stat -c %s "$f" 2>/dev/null || echo 0)
		if [ "$a" = "$b" ]; then
			sleep 1
			b=$(stat -c %s "$f" 2>/dev/null || echo 0)
			[ "$a" != "$b" ] || return 0
		fi
		a=$b
		n=$((n + 1))
	done
	return 1
}

# wait_count_quiet REGEXP FILE: until the lines matching stop changing for
# 1.5 s (FILE itself may keep growing)
wait_count_quiet()
{
	local a b n=0

	a=$(grep -cE "$1" "$2" 2>/dev/null)
	while [ $n -lt $((WAIT * 2)) ]; do
		sleep 0.5
		b=$(grep -cE "$1" "$2" 2>/dev/null)
		if [ "$a" = "$b" ]; then
			sleep 1
			b=$(grep -cE "$1" "$2" 2>/dev/null)
			[ "$a" != "$b" ] || return 0
		fi
		a=$b
		n=$((n + 1))
	done
	return 1
}

# ------------------------------------------------------------- ftrace --

ftrace_sum_stat()	# KEY: sum of "KEY: N" over per_cpu/*/stats
{
	cat $T/per_cpu/cpu*/stats | awk -v k="$1:" '$1 == k { s += $2 } END { print s + 0 }'
}

ftrace_drained() { [ "$(ftrace_sum_stat entries)" = 0 ]; }

ftrace_clear()
{
	echo 0 >$T/tracing_on
	[ -d $T/events/kptb ] && echo 0 >$T/events/kptb/enable
	if [ -e $T/events/kptb/kptb_f/trigger ]; then
		echo '!stacktrace' >$T/events/kptb/kptb_f/trigger 2>/dev/null
	fi
	echo >$T/kprobe_events
	echo >$T/trace
	echo 1 >$T/tracing_on
}

# ftrace_setup DEF...: kprobe_events definitions, then enable them
ftrace_setup()
{
	local d

	ftrace_clear
	for d in "$@"; do
		echo "$d" >>$T/kprobe_events || return 1
	done
	echo >$T/trace
	echo 1 >$T/events/kptb/enable
}

ftrace_reader_start()
{
	start_reader ftcat sh -c "exec cat $T/trace_pipe >$tmp/ft.txt"
	wait_for 10 has_open "$(cat $tmp/ftcat.pid)" trace_pipe
}

# The trace clock now (seconds), the latest of the CPUs' "now ts"
ftrace_now() { cat $T/per_cpu/cpu*/stats | awk '$1 == "now" { if ($3 > m) m = $3 } END { printf "%.6f\n", m }'; }

# Every CPU's buffer is empty or holds only events younger than $1
ftrace_caught_up()
{
	local c

	for c in $T/per_cpu/cpu*; do
		awk -v t="$1" '
			$1 == "entries:" { e = $2 }
			$1 == "oldest" { o = $4 }
			END { exit !(e == 0 || o > t) }' "$c/stats" || return 1
	done
}

# Stop the trace_pipe reader once the buffer is empty, or with an argument
# T, once every event older than T was read; sets ft_cpu.
ftrace_reader_stop()
{
	if [ $# = 0 ]; then
		wait_for $WAIT ftrace_drained || say "ftrace buffer not drained"
	else
		wait_for $WAIT ftrace_caught_up "$1" || say "trace_pipe reader behind"
	fi
	sleep 0.3
	ft_cpu=$(stop_reader ftcat)
}

# ------------------------------------------------------------ kptrace --

kpt_stat() { awk -v k="$1" '$1 == k { print $2 }' $D/kptrace/stats; }
kpt_drained() { [ "$(kpt_stat pending)" = 0 ]; }

kpt_load()
{
	insmod "$KO" "$@" || return 1
	kpt_probes=$(tr ' ' '_' <$D/kptrace/probes | tr '\n' ';')
}

kpt_reader_start()
{
	rm -f "$tmp/kpt.bin" "$tmp/kpt.bin.probes"
	start_reader kpt "$KPTRACE" -w "$tmp/kpt.bin" 2>"$tmp/kpt.err"
	wait_for 10 has_open "$(cat $tmp/kpt.pid)" /dev/kptrace
}

# read + lost >= HITS: every hit up to HITS reached the reader or was
# counted lost (the reader takes records in time order)
kpt_caught_up() { [ $(($(kpt_stat read) + $(kpt_stat lost))) -ge "$1" ]; }

# Stop the reader when every record is read, or with an argument HITS,
# once every hit up to HITS is (see e2e: the reader's own read() and
# write() are traced too there, so the rings never stay empty); sets
# kpt_cpu and kpt_fields (the module's counters), then unloads.
kpt_reader_stop_unload()
{
	if [ $# = 0 ]; then
		wait_for $WAIT kpt_drained || say "kptrace rings not drained"
	else
		wait_for $WAIT kpt_caught_up "$1" || say "kptrace reader behind"
		sleep 0.3
	fi
	kpt_cpu=$(stop_reader kpt)
	kpt_fields="hits=$(kpt_stat hits) recorded=$(kpt_stat recorded)"
	kpt_fields+=" lost=$(kpt_stat lost) missed=$(kpt_stat missed)"
	kpt_fields+=" read=$(kpt_stat read)"
	kpt_lost=$(kpt_stat lost)
	rmmod kptrace
}

# kpt_count FILE [kptrace -r options]: "entries returns lost_records"
kpt_count()
{
	local f=$1

	shift
	"$KPTRACE" -r "$f" -j -q --no-stack "$@" | awk '
		/"type":"entry"/ { e++ }
		/"type":"return"/ { r++ }
		/"type":"lost"/ { l++ }
		END { printf "%d %d %d\n", e, r, l }'
}

# ----------------------------------------------------------- bpftrace --

bpf_ready() { grep -q "$1" $D/kprobes/list; }

# bpf_start PROBED_SYMBOL PROGRAM: bpftrace writing to $tmp/bpf.out
bpf_start()
{
	rm -f "$tmp/bpf.out"
	start_reader bpf bpftrace -o "$tmp/bpf.out" -e "$2" \
		2>"$tmp/bpf.err"
	# bpftrace needs 20-60 s to start under TCG
	wait_for 300 bpf_ready "$1" || { say "bpftrace did not attach"; return 1; }
	wait_for $WAIT grep -q Attaching "$tmp/bpf.out"
	sleep 1
}

bpf_stop()
{
	wait_quiet "$tmp/bpf.out" || say "bpftrace output still growing"
	bpf_cpu=$(stop_reader bpf INT)
	wait_for $WAIT sh -c "! grep -q kpt_bench_func $D/kprobes/list"
}

# bpftrace warns "Lost N events" on stderr or in its output
bpf_lost()
{
	cat "$tmp/bpf.out" "$tmp/bpf.err" 2>/dev/null |
		awk '/Lost [0-9]+ events/ { for (i = 1; i <= NF; i++) if ($i == "Lost") s += $(i + 1) } END { print s + 0 }'
}

# ------------------------------------------------------ system calls --

# The sys_* arms' loop: kpt_sysloop, N getppid() in user space on CPU 0
# between insn_plugin's markers. Its runs are numbered from SYS_RUN_BASE,
# apart from kpt_bench's (1, 2, ...), in the same "run" field.
SYS_RUN_BASE=1000000
sys_runs=0
# instances of a return probe on x64_sys_call: kptrace's default for a
# syscalls probe (KPT_SYS_MAXACTIVE), the empty kretprobe's too
SYS_MAXACTIVE=1024

sys_stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]; }

# sys_start [fork]: kpt_sysloop -s in the background, pinned to CPU 0 and
# stopped before its loop, so that its pid (SYS_PID) can be selected; no
# call of it is in flight while it waits. With fork (kpt_sysloop -f), the
# loop is the child of a process that only waits for it (SYS_PARENT), as
# COMMAND is the child of kptrace syscalls; else SYS_PARENT = SYS_PID.
sys_start()
{
	local fork=()

	[ "${1:-}" != fork ] || fork=(-f)
	sys_runs=$((sys_runs + 1))
	SYS_RUN=$((SYS_RUN_BASE + sys_runs))
	rm -f "$tmp/sysloop.out"
	"$SYSLOOP" -s "${fork[@]}" "$calls" "$SYS_RUN" >"$tmp/sysloop.out" \
		2>"$tmp/sysloop.err" &
	SYS_PID=$!
	SYS_PARENT=$!
	if [ ${#fork[@]} != 0 ]; then
		wait_for 10 sys_child "$SYS_PARENT" ||
			{ say "kpt_sysloop -f did not fork"; sys_abort; return 1; }
	fi
	wait_for 10 sys_stopped "$SYS_PID" && return 0
	say "kpt_sysloop did not stop: $(cat "$tmp/sysloop.err")"
	sys_abort
	return 1
}

# sys_child PID: SYS_PID becomes PID's one child, if it has one yet
sys_child()
{
	local c

	c=$(cat "/proc/$1/task/$1/children" 2>/dev/null) || return 1
	c=${c%% }
	[ -n "$c" ] || return 1
	SYS_PID=$c
}

sys_abort()
{
	kill -KILL "$SYS_PID" "$SYS_PARENT" 2>/dev/null
	wait "$SYS_PARENT" 2>/dev/null
}

# sys_depth PID: PID's ancestors up to init, init included: the parents
# a children= test walks for a task outside the selection
sys_depth()
{
	local p=$1 n=0

	while [ "$p" -gt 1 ]; do
		p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || break
		[ -n "$p" ] || break
		n=$((n + 1))
	done
	echo "$n"
}

# sys_go: lets the loop run and waits for it; r: "calls ns chunk_ns chunk
# run", as run_loop prints it.
sys_go()
{
	local line

	# --profile: the symbols of this run's modules, as run_loop takes them
	[ "${BENCH_PROFILE:-0}" = 0 ] ||
		awk '$4 ~ /^\[(kptrace|kpt_bench|kpt_floor|bpf|__builtin__(ftrace|kprobes))\]$/' \
			/proc/kallsyms >"$out/ksyms.$SYS_RUN"
	kill -CONT "$SYS_PID"
	wait "$SYS_PARENT" || { say "kpt_sysloop exited $?: $(cat "$tmp/sysloop.err")"; return 1; }
	line=$(cat "$tmp/sysloop.out")
	set -- $line
	[ "${1%%=*}" = calls ] && [ "${5#run=}" = "$SYS_RUN" ] ||
		{ say "kpt_sysloop printed '$line'"; return 1; }
	r="${1#calls=} ${2#ns=} ${3#chunk_ns=} ${4#chunk=} ${5#run=}"
}

# ftrace's raw_syscalls events, both filtered on common_pid == $1
sysft_setup()
{
	local e

	ftrace_clear
	for e in sys_enter sys_exit; do
		echo "common_pid == $1" >$T/events/raw_syscalls/$e/filter ||
			return 1
	done
	echo >$T/trace
	echo 1 >$T/events/raw_syscalls/enable
}

sysft_clear()
{
	local e

	echo 0 >$T/events/raw_syscalls/enable
	for e in sys_enter sys_exit; do
		echo 0 >$T/events/raw_syscalls/$e/filter
	done
	ftrace_clear
}

# kptrace's syscalls probes: kptrace.ko loaded with each SPEC written to
# probes
sys_kpt_load()
{
	local spec

	kpt_load stack=0 || return 1
	for spec in "$@"; do
		if ! echo "$spec" >$D/kptrace/probes; then
			say "'$spec' refused: $(tail -n 3 $D/kptrace/error_log 2>/dev/null)"
			rmmod kptrace
			return 1
		fi
	done
	kpt_probes=$(tr ' ' '_' <$D/kptrace/probes | tr '\n' ';')
}

# The probe_stats total line of probe $1, as key=value fields
sys_kpt_pstats()
{
	awk -v n="$1" '$1 == n && $2 !~ /^cpu[0-9]+$/ {
		$1 = ""; sub(/^ /, ""); print }' $D/kptrace/probe_stats
}

# One field of that line
sys_kpt_pfield() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# The sys_kpt_<mode>_* arms: the spec lines `kptrace syscalls --dry-run
# ARGS...` prints (the tool's defaults, signals and denied included), its
# probes renamed kb, kb_2 and its own pid (exclude=, COMMAND's children=)
# replaced: SYS_EXCL for exclude= (the tool's stand-in: the test is one
# compare, whatever the pid), SYS_CHILDREN for COMMAND's children=.
# SYS_SPECS: the lines.
sys_tool_specs()
{
	local out line i=0

	SYS_SPECS=()
	out=$("$KPTRACE" syscalls --dry-run "$@" 2>"$tmp/dry.err") ||
		{ say "kptrace syscalls --dry-run $*: $(cat "$tmp/dry.err")"; return 1; }
	while read -r line; do
		[ -n "$line" ] || continue
		i=$((i + 1))
		line=$(printf '%s\n' "$line" |
			sed -E "s|^s:kptrace/sys_[0-9]+(_[0-9]+)? |s:kptrace/kb\1 |
				s/ exclude=[0-9]+/ exclude=$SYS_EXCL/")
		[ -z "${SYS_CHILDREN:-}" ] ||
			line=$(printf '%s\n' "$line" |
				sed -E "s/ children=[0-9]+/ children=$SYS_CHILDREN/")
		SYS_SPECS+=("$line")
	done <<<"$out"
	[ "$i" -gt 0 ] || { say "kptrace syscalls --dry-run $*: no spec"; return 1; }
}

# The -G arms' cgroups (v2): SYS_CG/kpt_s/svc, selected, and
# SYS_CG/kpt_o/svc, not; each two levels below the root, as a service's
# under system.slice. Made once; cgroup2 mounted if it is not.
SYS_CG=
sys_cg_setup()
{
	[ -z "$SYS_CG" ] || return 0
	SYS_CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$SYS_CG" ]; then
		SYS_CG=$tmp/cgroup2
		mkdir -p "$SYS_CG"
		mount -t cgroup2 none "$SYS_CG" || { SYS_CG=; return 1; }
	fi
	mkdir -p "$SYS_CG/kpt_s/svc" "$SYS_CG/kpt_o/svc" || { SYS_CG=; return 1; }
}

# The probes' lost records: events - filtered - recorded, summed
sys_kpt_lost()
{
	local n ps sum=0

	for n in "$@"; do
		ps=$(sys_kpt_pstats "$n")
		[ -n "$ps" ] || continue
		sum=$((sum + $(sys_kpt_pfield "$ps" events) - $(sys_kpt_pfield "$ps" filtered) - $(sys_kpt_pfield "$ps" recorded)))
	done
	echo "$sum"
}

# `kptrace syscalls` writing raw records (-w), once the reader has it
kpt_has_syscalls_cmd()
{
	"$KPTRACE" syscalls --help 2>&1 | grep -q '^Usage: kptrace syscalls' &&
		"$KPTRACE" syscalls --help 2>&1 | grep -q -- '-w'
}

# -------------------------------------------------------- micro arms --

ARGS4='a=%di b=%si c=%dx d=%cx'

# One repetition of one micro arm: prints its R line.
micro()
{
	local arm=$1 rep=$2 warm=$3 r n ns del=-1 exp=$calls lost=-1
	local cpu=-1 bytes=-1 extra=""

	case $arm in
	baseline)
		r=$(run_loop "$calls") ;;
	floor_kprobe|floor_kretprobe)
		local kr=0

		[ "$arm" = floor_kprobe ] || kr=1
		insmod "$FLOOR_KO" kretprobe=$kr || return 1
		extra="mech=$(grep kpt_bench_func $D/kprobes/list | tr -d ' \t' | head -n 1)"
		r=$(run_loop "$calls")
		rmmod kpt_floor ;;
	ftrace_*)
		local defs=() ev=kptb_f rd=0 a=${arm#ftrace_}

		case $a in *_rd) rd=1; a=${a%_rd} ;; esac
		case $a in
		args|stack) defs=("p:kptb/kptb_f kpt_bench_func $ARGS4") ;;
		ret)	defs=('r:kptb/kptb_r kpt_bench_func ret=$retval')
			ev=kptb_r ;;
		entret)	defs=("p:kptb/kptb_f kpt_bench_func $ARGS4"
			      'r:kptb/kptb_r kpt_bench_func ret=$retval')
			ev="kptb_[fr]"; exp=$((2 * calls)) ;;
		esac
		ftrace_setup "${defs[@]}" || return 1
		[ "$a" != stack ] ||
			echo stacktrace >$T/events/kptb/kptb_f/trigger
		local ov0
		ov0=$(ftrace_sum_stat overrun)
		[ "$rd" = 0 ] || ftrace_reader_start
		r=$(run_loop "$calls")
		if [ "$rd" = 1 ]; then
			ftrace_reader_stop
			del=$(grep -cE " $ev: " "$tmp/ft.txt")
			cpu=$ft_cpu
			bytes=$(stat -c %s "$tmp/ft.txt")
		fi
		lost=$(($(ftrace_sum_stat overrun) - ov0))
		extra="entries_left=$(ftrace_sum_stat entries)"
		extra+=" lost_lines=$(grep -c LOST "$tmp/ft.txt" 2>/dev/null)"
		ftrace_clear
		rm -f "$tmp/ft.txt" ;;
	bpf_count)
		bpf_start kpt_bench_func \
			'kprobe:kpt_bench_func { @c = count(); }' || return 1
		r=$(run_loop "$calls")
		bpf_stop
		del=$(awk '/^@c: / { print $2 }' "$tmp/bpf.out")
		lost=$(bpf_lost) ;;
	bpf_args|bpf_kstack)
		local prog='kprobe:kpt_bench_func { printf("%lu %lu %lu %lu\n", arg0, arg1, arg2, arg3); }'

		[ "$arm" = bpf_args ] ||
			prog='kprobe:kpt_bench_func { printf("%lu %lu %lu %lu%s\n", arg0, arg1, arg2, arg3, kstack); }'
		bpf_start kpt_bench_func "$prog" || return 1
		r=$(run_loop "$calls")
		bpf_stop
		del=$(grep -cE '^[0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$tmp/bpf.out")
		bytes=$(stat -c %s "$tmp/bpf.out")
		lost=$(bpf_lost) ;;
	kpt_args|kpt_stack|kpt_ret|kpt_ret1|kpt_cond)
		local p=(name=kpt_bench_func args=4 stack=0)

		[ "$arm" != kpt_stack ] || p=(name=kpt_bench_func args=4 stack=16)
		if [ "$arm" = kpt_ret ]; then
			p+=(retprobe=1)
			exp=$((2 * calls))
		fi
		if [ "$arm" = kpt_ret1 ] || [ "$arm" = kpt_cond ]; then
			# a return probe of the probe language: ONE record per
			# call, with the entry's arguments, $retval and latency;
			# kpt_cond adds a condition every call passes, which
			# takes the general path (fetch steps, terms)
			local rspec='r:kptb/kret kpt_bench_func a=$arg1 b=$arg2 c=$arg3 d=$arg4 ret=$retval'

			[ "$arm" = kpt_ret1 ] || rspec+=' if a >= 0'
			kpt_load stack=0 || return 1
			"$KPTRACE" probe add "$rspec" \
				>"$tmp/probe-add.out" 2>&1 ||
				{ cat "$tmp/probe-add.out" >&2; rmmod kptrace; return 1; }
			kpt_probes=$(tr ' ' '_' <$D/kptrace/probes | tr '\n' ';')
		else
			kpt_load "${p[@]}" || return 1
		fi
		kpt_reader_start || { say "kptrace reader did not start"; rmmod kptrace; return 1; }
		r=$(run_loop "$calls")
		kpt_reader_stop_unload
		set -- $(kpt_count "$tmp/kpt.bin")
		del=$(($1 + $2))
		lost=$kpt_lost
		cpu=$kpt_cpu
		bytes=$(stat -c %s "$tmp/kpt.bin")
		extra="$kpt_fields lost_records=$3 probes=$kpt_probes"
		extra+=" summary=$(tail -n 1 "$tmp/kpt.err" | tr ' ' '_')"
		# The last repetition's file is kept for the decoding costs.
		cp "$tmp/kpt.bin" "$tmp/keep-$arm.bin"
		cp "$tmp/kpt.bin.probes" "$tmp/keep-$arm.bin.probes" 2>/dev/null
		rm -f "$tmp/kpt.bin" "$tmp/kpt.bin.probes" ;;
	kpt_sess1|kpt_sess8)
		# kpt_args' probe, made by sessions of their own
		# (KPT_IOC_SESSION): one, or eight on the one function, each
		# with its reader (kpt_read -S, on CPU 1 as kptrace's)
		local n=1 i spec='p:kptb/s kpt_bench_func arg0=$arg1:x64 arg1=$arg2:x64 arg2=$arg3:x64 arg3=$arg4:x64'

		[ "$arm" = kpt_sess1 ] || n=8
		exp=$((n * calls))
		kpt_load stack=0 || return 1
		for i in $(seq "$n"); do
			start_reader "sess$i" "$KPT_READ" -S -b 4194304 \
				-e "$spec" follow >"$tmp/sess$i.out" 2>&1
			wait_for 10 grep -qx armed "$tmp/sess$i.out" ||
				{ cat "$tmp/sess$i.out" >&2; rmmod kptrace; return 1; }
		done
		r=$(run_loop "$calls")
		del=0
		lost=0
		cpu=0
		for i in $(seq "$n"); do
			cpu=$((cpu + $(stop_reader "sess$i")))
			set -- $(awk '/^summary / { for (i = 2; i <= NF; i++) {
				split($i, kv, "="); v[kv[1]] = kv[2] } }
				/^books / { for (i = 2; i <= NF; i++) {
				split($i, kv, "="); b[kv[1]] = kv[2] } }
				END { print v["entry"] + 0, b["lost"] + 0 }' "$tmp/sess$i.out")
			del=$((del + $1))
			lost=$((lost + $2))
		done
		extra="sessions=$n"
		rmmod kptrace ;;
	agg_kpt_*)
		# an aggregation only: no reader, the summary is read once
		local spec
		case $arm in
		agg_kpt_comm)	spec='p:kptb/agg kpt_bench_func hist:keys=comm' ;;
		agg_kpt_lat)	spec='r:kptb/agg kpt_bench_func hist:keys=lat_ns.log2' ;;
		agg_kpt_stack)	spec='p:kptb/agg kpt_bench_func hist:keys=stacktrace' ;;
		agg_kpt_num)	spec='p:kptb/agg kpt_bench_func a=$arg1 hist:keys=a.log2' ;;
		esac
		kpt_load stack=0 || return 1
		"$KPTRACE" probe add "$spec" >"$tmp/probe-add.out" 2>&1 ||
			{ cat "$tmp/probe-add.out" >&2; rmmod kptrace; return 1; }
		r=$(run_loop "$calls")
		cp $D/kptrace/hist/agg "$tmp/agg.txt"
		cp "$tmp/agg.txt" "$out/$arm.out"
		# delivered: what the summary counts (Aggregated); lost: dropped
		del=$(sed -n 's/^    Aggregated: //p' "$tmp/agg.txt")
		lost=$(sed -n 's/^    Dropped: //p' "$tmp/agg.txt")
		extra="entries=$(sed -n 's/^    Entries: //p' "$tmp/agg.txt")"
		rmmod kptrace ;;
	agg_bpf_*)
		local prog

		case $arm in
		agg_bpf_comm)	prog='kprobe:kpt_bench_func { @[comm] = count(); }' ;;
		agg_bpf_lat)	prog='kprobe:kpt_bench_func { @start[tid] = nsecs; } kretprobe:kpt_bench_func /@start[tid]/ { @ = hist(nsecs - @start[tid]); delete(@start[tid]); }' ;;
		agg_bpf_stack)	prog='kprobe:kpt_bench_func { @[kstack] = count(); }' ;;
		esac
		bpf_start kpt_bench_func "$prog" || return 1
		r=$(run_loop "$calls")
		bpf_stop
		# the counts bpftrace printed at exit: "@[x]: N", or hist rows
		# "[a, b)  N |@@|"
		del=$(awk '/^@.*: [0-9]+$/ { s += $NF }
			/^\[.*\) *[0-9]+ \|/ { sub(/^[^)]*\) */, ""); s += $1 }
			/^\]: [0-9]+$/ { s += $2 }
			END { print s + 0 }' "$tmp/bpf.out")
		cp "$tmp/bpf.out" "$out/$arm.out"	# what was counted
		lost=$(bpf_lost) ;;
	agg_ftrace_*)
		local key

		case $arm in
		agg_ftrace_comm)	key=common_pid.execname ;;
		agg_ftrace_stack)	key=stacktrace ;;
		esac
		ftrace_setup "p:kptb/kptb_f kpt_bench_func" || return 1
		echo "hist:keys=$key" >$T/events/kptb/kptb_f/trigger || return 1
		r=$(run_loop "$calls")
		del=$(awk '/^    Hits: / { print $2 }' $T/events/kptb/kptb_f/hist)
		lost=$(awk '/^    Dropped: / { print $2 }' $T/events/kptb/kptb_f/hist)
		echo "!hist:keys=$key" >$T/events/kptb/kptb_f/trigger
		ftrace_clear ;;
	sys_none)
		sys_start || return 1
		sys_go || return 1 ;;
	sys_floor_kprobe|sys_floor_kretprobe)
		local kr=0

		[ "$arm" = sys_floor_kprobe ] || kr=1
		sys_start || return 1
		insmod "$FLOOR_KO" symbol=x64_sys_call kretprobe=$kr \
			maxactive=$SYS_MAXACTIVE || { sys_abort; return 1; }
		extra="mech=$(grep x64_sys_call $D/kprobes/list | tr -d ' \t' | head -n 1)"
		sys_go || { rmmod kpt_floor; return 1; }
		# calls the probe did not handle (no free instance): these
		# ran cheaper
		lost=$(cat /sys/module/kpt_floor/parameters/missed)
		rmmod kpt_floor ;;
	sys_ftrace_task|sys_ftrace_other)
		local pid=1 ov0

		sys_start || return 1
		[ "$arm" = sys_ftrace_other ] || pid=$SYS_PID
		sysft_setup "$pid" || { sys_abort; sysft_clear; return 1; }
		ov0=$(ftrace_sum_stat overrun)
		ftrace_reader_start
		sys_go || { ftrace_reader_stop; sysft_clear; return 1; }
		ftrace_reader_stop
		# the loop's getppid()s, entry and exit: the task arm's 2N
		del=$(grep -cE ' sys_(enter: NR 110 |exit: NR 110 = )' "$tmp/ft.txt")
		exp=$((2 * calls))
		[ "$arm" = sys_ftrace_task ] || exp=0
		cpu=$ft_cpu
		bytes=$(stat -c %s "$tmp/ft.txt")
		lost=$(($(ftrace_sum_stat overrun) - ov0))
		extra="all_events=$(grep -cE ' sys_(enter|exit): ' "$tmp/ft.txt")"
		extra+=" entries_left=$(ftrace_sum_stat entries)"
		extra+=" selected_pid=$pid"
		sysft_clear
		rm -f "$tmp/ft.txt" ;;
	sys_kpt_sum)
		# the summary (s ... summary, what kptrace syscalls -s reads):
		# counts by (process, call) in the kernel, no record, no
		# reader; its books count the loop's calls
		local ps

		sys_start || return 1
		sys_kpt_load "s:kptrace/kb pid=$SYS_PID summary" ||
			{ sys_abort; return 1; }
		sys_go || { rmmod kptrace; return 1; }
		ps=$(sys_kpt_pstats kb)
		# counted: the loop's N and the few calls after its SIGCONT
		local counted
		counted=$(sys_kpt_pfield "$ps" recorded)
		lost=$(sys_kpt_pfield "$ps" summary_full)
		extra="counted=$counted around=$((counted - calls))"
		extra+=" pstats=$(printf '%s' "$ps" | tr ' ' ',')"
		extra+=" probes=$kpt_probes"
		rmmod kptrace ;;
	sys_kpt_other|sys_kpt_task)
		local pid=1 ps

		sys_start || return 1
		[ "$arm" = sys_kpt_other ] || pid=$SYS_PID
		sys_kpt_load "s:kptrace/kb pid=$pid" || { sys_abort; return 1; }
		kpt_reader_start || { say "kptrace reader did not start"; sys_abort; rmmod kptrace; return 1; }
		sys_go || { kpt_reader_stop_unload; return 1; }
		# the books before the reader stops (unloading drops them)
		wait_for $WAIT kpt_drained || say "kptrace rings not drained"
		ps=$(sys_kpt_pstats kb)
		kpt_reader_stop_unload
		set -- $(kpt_count "$tmp/kpt.bin" -p "$SYS_PID")
		# the loop's task: its N getppid() (nr 110, delivered) and
		# the few calls after its SIGCONT (kpt_sysloop.c)
		del=$("$KPTRACE" -r "$tmp/kpt.bin" -j -q --no-stack -p "$SYS_PID" |
			grep -c '"type":"return".*"args":\[110,')
		exp=$calls
		[ "$arm" = sys_kpt_task ] || exp=0
		extra="records=$(($1 + $2)) around=$(($1 + $2 - del))"
		# events = filtered + recorded + lost by every cause
		lost=$(($(sys_kpt_pfield "$ps" events) - $(sys_kpt_pfield "$ps" filtered) - $(sys_kpt_pfield "$ps" recorded)))
		cpu=$kpt_cpu
		bytes=$(stat -c %s "$tmp/kpt.bin")
		extra+=" all_records=$(kpt_count "$tmp/kpt.bin" | awk '{ print $1 + $2 }')"
		extra+=" lost_records=$3 $kpt_fields selected_pid=$pid"
		extra+=" pstats=$(printf '%s' "$ps" | tr ' ' ',')"
		extra+=" probes=$kpt_probes"
		rm -f "$tmp/kpt.bin" "$tmp/kpt.bin.probes" ;;
	sys_kpt_*_other|sys_kpt_*_task)
		# a selection mode of `kptrace syscalls`, the spec as the tool
		# writes it (sys_tool_specs); _task: the loop is selected and
		# a -w reader reads its records; _other: it is not
		local mode=${arm#sys_kpt_} who=${arm##*_} helper= ps pstats=
		local args=() names=(kb) depth

		mode=${mode%_*}
		SYS_EXCL=$$
		SYS_CHILDREN=
		case $mode in
		cmd|follow)
			# COMMAND: children=TOOL, the loop TOOL's child (task)
			# or not (other: TOOL a sleep beside it); -f -p P: the
			# loop P's child (task) or not (other: P the sleep)
			if [ "$who" = task ]; then
				sys_start fork || return 1
			else
				sys_start || return 1
				sleep 100000 &
				helper=$!
			fi
			local tool=${helper:-$SYS_PARENT}
			if [ "$mode" = cmd ]; then
				args=(-- true)
				SYS_CHILDREN=$tool
			else
				args=(-f -p "$tool")
				names=(kb kb_2)
			fi ;;
		followp)
			# -f -p P with the loop P itself (pid= selects it; the
			# children= probe beside it does not)
			sys_start || return 1
			args=(-f -p "$SYS_PID")
			names=(kb kb_2) ;;
		pid|tid)
			sys_start || return 1
			local id=1
			[ "$who" = other ] || id=$SYS_PID
			args=(-${mode:0:1} "$id") ;;
		comm)
			# the loop's comm is kpt_sysloop
			sys_start || return 1
			args=(-c 'kpt_sys*')
			[ "$who" = task ] || args=(-c 'kpt_oth*') ;;
		cgroup)
			sys_cg_setup || { say "no cgroup v2"; return 1; }
			sys_start || return 1
			local cg=$SYS_CG/kpt_s/svc
			[ "$who" = task ] || cg=$SYS_CG/kpt_o/svc
			echo "$SYS_PID" >"$cg/cgroup.procs" ||
				{ say "cannot move the loop to $cg"; sys_abort; return 1; }
			args=(-G "$SYS_CG/kpt_s/svc") ;;
		*)	say "unknown mode $mode"; return 1 ;;
		esac
		depth=$(sys_depth "$SYS_PID")
		sys_tool_specs "${args[@]}" &&
			sys_kpt_load "${SYS_SPECS[@]}" ||
			{ sys_abort; [ -z "$helper" ] || kill "$helper"; return 1; }
		kpt_reader_start || { say "kptrace reader did not start"; sys_abort; rmmod kptrace; return 1; }
		sys_go || { kpt_reader_stop_unload; return 1; }
		[ -z "$helper" ] || { kill "$helper"; wait "$helper" 2>/dev/null; }
		wait_for $WAIT kpt_drained || say "kptrace rings not drained"
		lost=$(sys_kpt_lost "${names[@]}")
		for n in "${names[@]}"; do
			ps=$(sys_kpt_pstats "$n")
			pstats+="$n:$(printf '%s' "$ps" | tr ' ' ',');"
		done
		kpt_reader_stop_unload
		set -- $(kpt_count "$tmp/kpt.bin" -p "$SYS_PID")
		del=$("$KPTRACE" -r "$tmp/kpt.bin" -j -q --no-stack -p "$SYS_PID" |
			grep -c '"type":"return".*"args":\[110,')
		exp=$calls
		[ "$who" = task ] || exp=0
		extra="records=$(($1 + $2)) around=$(($1 + $2 - del))"
		cpu=$kpt_cpu
		bytes=$(stat -c %s "$tmp/kpt.bin")
		extra+=" all_records=$(kpt_count "$tmp/kpt.bin" | awk '{ print $1 + $2 }')"
		extra+=" lost_records=$3 $kpt_fields"
		extra+=" mode=$mode tool_args=$(printf '%s' "${args[*]}" | tr ' ' '_')"
		extra+=" depth=$depth pstats=$pstats"
		extra+=" probes=$kpt_probes"
		rm -f "$tmp/kpt.bin" "$tmp/kpt.bin.probes" ;;
	*)	say "unknown arm $arm"; return 1 ;;
	esac
	set -- $r
	n=$1
	ns=$2
	result "phase=micro arm=$arm rep=$rep warm=$warm calls=$n ns=$ns" \
		"chunk_ns=$3 chunk=${4:-1024} run=${5:--1}" \
		"delivered=$del expected=$exp lost=$lost reader_ticks=$cpu" \
		"bytes=$bytes $extra"
}

# ---------------------------------------------------------- e2e arms --

# dd's own "copied, S s" (it excludes the tracer's start-up)
dd_secs() { awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s," || $i == "s") { print $(i - 1); exit } }' "$1"; }

e2e()
{
	local arm=$1 rep=$2 warm=$3 del=-1 lost=-1 cpu=-1 extra=""
	local dd=(dd if=/dev/zero of=/dev/null bs=1 "count=$dd_count")
	local rd=$E2E_READ wr=$E2E_WRITE

	case $arm in
	e2e_none|e2e_sys_none)
		taskset -c 0 "${dd[@]}" 2>"$tmp/dd.err" ;;
	e2e_kptrace)
		kpt_load "name=$rd,$wr" args=3 stack=0 || return 1
		kpt_reader_start || { rmmod kptrace; return 1; }
		taskset -c 0 "${dd[@]}" 2>"$tmp/dd.err"
		kpt_reader_stop_unload "$(kpt_stat hits)"
		set -- $(kpt_count "$tmp/kpt.bin" -c dd)
		del=$(($1 + $2))
		lost=$kpt_lost
		cpu=$kpt_cpu
		extra="$kpt_fields all_events=$(kpt_count "$tmp/kpt.bin" | awk '{ print $1 + $2 }')"
		rm -f "$tmp/kpt.bin" "$tmp/kpt.bin.probes" ;;
	e2e_ftrace)
		ftrace_setup "p:kptb/kptb_rd $rd fd=%di buf=%si count=%dx" \
			"p:kptb/kptb_wr $wr fd=%di buf=%si count=%dx" || return 1
		local ov0
		ov0=$(ftrace_sum_stat overrun)
		ftrace_reader_start
		taskset -c 0 "${dd[@]}" 2>"$tmp/dd.err"
		ftrace_reader_stop "$(ftrace_now)"
		del=$(grep -cE '^ *dd-[0-9]+ .* kptb_(rd|wr): ' "$tmp/ft.txt")
		extra="all_events=$(grep -cE ' kptb_(rd|wr): ' "$tmp/ft.txt")"
		lost=$(($(ftrace_sum_stat overrun) - ov0))
		cpu=$ft_cpu
		ftrace_clear
		rm -f "$tmp/ft.txt" ;;
	e2e_bpftrace)
		bpf_start "$rd" "kprobe:$rd, kprobe:$wr { printf(\"%s %d %lu %lu %lu\\n\", comm, tid, arg0, arg1, arg2); }" || return 1
		taskset -c 0 "${dd[@]}" 2>"$tmp/dd.err"
		wait_count_quiet '^dd [0-9]+ ' "$tmp/bpf.out"
		bpf_cpu=$(stop_reader bpf INT)
		wait_for $WAIT sh -c "! grep -q $rd $D/kprobes/list"
		del=$(grep -cE '^dd [0-9]+ ' "$tmp/bpf.out")
		extra="all_events=$(grep -cE '^.+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "$tmp/bpf.out")"
		lost=$(bpf_lost)
		rm -f "$tmp/bpf.out" ;;
	e2e_perf)
		taskset -c 0 perf trace -e read,write -o "$tmp/perf.out" -- \
			"${dd[@]}" 2>"$tmp/dd.err"
		del=$(grep -cE ' (read|write)\(' "$tmp/perf.out")
		lost=$(grep -ciE 'lost|dropped' "$tmp/perf.out")
		rm -f "$tmp/perf.out" ;;
	e2e_strace)
		taskset -c 0 strace -f -o "$tmp/strace.out" -e trace=read,write \
			"${dd[@]}" 2>"$tmp/dd.err"
		del=$(grep -cE '^([0-9]+ +)?(read|write)\(' "$tmp/strace.out")
		lost=0
		rm -f "$tmp/strace.out" ;;
	e2e_sys_*)
		e2e_sys "$arm" || return 1 ;;
	*)	say "unknown arm $arm"; return 1 ;;
	esac
	result "phase=e2e arm=$arm rep=$rep warm=$warm count=$dd_count" \
		"secs=$(dd_secs "$tmp/dd.err") delivered=$del lost=$lost" \
		"reader_ticks=$cpu $extra"
}

# perf trace's "LOST N events!" lines: the events it lost (a call is two)
perf_lost() { awk '/LOST [0-9]+ events/ { s += $2 } END { print s + 0 }' "$1"; }

# The "calls" column of perf trace -s's tables (kptrace syscalls -s's
# too): the rows after each "---" line
sum_calls()
{
	awk '/^ *-+ +-+/ { t = 1; next }
		t && NF >= 3 && $2 ~ /^[0-9]+$/ { s += $2; next }
		{ t = 0 }
		END { print s + 0 }' "$1"
}

# The system-call tracers of e2e(), each tracing every call of dd: the
# tool on CPU 1 (a command: its child taskset moves dd to CPU 0, and the
# tool sees taskset's few calls before dd's exec too), dd on CPU 0. Sets
# e2e()'s del (the calls the tool reported), lost, cpu and extra; the
# first measured repetition's output goes to OUTDIR/ARM.sample (its first
# and last 40 lines).
e2e_sys()
{
	local arm=$1 f=$tmp/$1.out ps
	local dd0=(taskset -c 0 "${dd[@]}")

	rm -f "$f"
	case $arm in
	e2e_sys_strace)
		taskset -c 1 strace -f -o "$f" "${dd0[@]}" 2>"$tmp/dd.err"
		# a call's line starts with its name ("PID name(" with -f);
		# "<... name resumed>" continues one, "+++"/"---" are not calls
		del=$(grep -cE '^([0-9]+ +)?[a-z_0-9]+\(' "$f")
		lost=0 ;;
	e2e_sys_perf_trace|e2e_sys_perf_trace_m)
		# _m: a buffer that holds every event of the run (the
		# default one loses most of them under TCG)
		local m=()

		[ "$arm" = e2e_sys_perf_trace ] || m=(-m 32M)
		taskset -c 1 perf trace "${m[@]}" -o "$f" -- "${dd0[@]}" \
			2>"$tmp/dd.err"
		del=$(grep -cE '^ *[0-9]+\.[0-9]+ .*[a-z_0-9]+\(' "$f")
		lost=$(perf_lost "$f") ;;
	e2e_sys_perf_trace_s)
		taskset -c 1 perf trace -s -o "$f" -- "${dd0[@]}" \
			2>"$tmp/dd.err"
		del=$(sum_calls "$f")
		lost=$(perf_lost "$f") ;;
	e2e_sys_kptrace_s)
		# the summary: counted in the kernel, no record
		kpt_load stack=0 || return 1
		taskset -c 1 "$KPTRACE" syscalls -s -o "$f" -- "${dd0[@]}" \
			2>"$tmp/dd.err"
		del=$(sum_calls "$f")
		lost=$(sed -n 's/^kptrace: .* \([0-9]*\) lost.*/\1/p' \
			"$tmp/dd.err" | tail -n 1)
		: "${lost:=-1}"
		extra="summary=$(grep '^kptrace: ' "$tmp/dd.err" | tail -n 1 | tr ' ' '_')"
		rmmod kptrace ;;
	e2e_sys_bpftrace)
		# syscount: calls per number, counted in the kernel
		start_reader bpf bpftrace -o "$f" -e \
			'tracepoint:raw_syscalls:sys_enter /comm == "dd"/ { @[args.id] = count(); }' \
			2>"$tmp/bpf.err"
		# bpftrace needs 20-60 s to start under TCG
		if ! wait_for 300 grep -q Attaching "$f" ||
		   ! wait_for $WAIT has_open "$(cat "$tmp/bpf.pid")" perf_event; then
			say "bpftrace did not attach: $(tail -n 3 "$tmp/bpf.err")"
			stop_reader bpf INT >/dev/null
			return 1
		fi
		sleep 1
		"${dd0[@]}" 2>"$tmp/dd.err"
		cpu=$(stop_reader bpf INT)
		del=$(awk '/^@\[[0-9]+\]: [0-9]+$/ { s += $2 } END { print s + 0 }' "$f")
		lost=$(cat "$f" "$tmp/bpf.err" | awk '/Lost [0-9]+ events/ {
			for (i = 1; i <= NF; i++) if ($i == "Lost") s += $(i + 1) }
			END { print s + 0 }') ;;
	e2e_sys_kptrace)
		if kpt_has_syscalls_cmd; then
			# the command: its probe selects its descendants
			# (children=), its summary line goes to stderr
			kpt_load stack=0 || return 1
			taskset -c 1 "$KPTRACE" syscalls -w "$f" -- "${dd0[@]}" \
				2>"$tmp/dd.err"
			# all its calls, as perf trace's and strace's (dd's
			# and taskset's before its exec)
			del=$("$KPTRACE" syscalls -r "$f" -j -q | grep -c '"syscall"')
			lost=$(sed -n 's/^kptrace: .* \([0-9]*\) lost.*/\1/p' \
				"$tmp/dd.err" | tail -n 1)
			: "${lost:=-1}"
			extra="how=kptrace_syscalls_-w"
			extra+=" dd_calls=$("$KPTRACE" syscalls -r "$f" -j -q | grep -c '"comm":"dd"')"
			extra+=" summary=$(grep '^kptrace: ' "$tmp/dd.err" | tail -n 1 | tr ' ' '_')"
			extra+=" hits=$(kpt_stat hits) recorded=$(kpt_stat recorded)"
			extra+=" read=$(kpt_stat read)"
			rmmod kptrace
		else
			# until then: its probe, selecting dd by comm, and -w
			sys_kpt_load "s:kptrace/kb comm=dd" || return 1
			kpt_reader_start || { rmmod kptrace; return 1; }
			"${dd0[@]}" 2>"$tmp/dd.err"
			wait_for $WAIT kpt_drained || say "kptrace rings not drained"
			ps=$(sys_kpt_pstats kb)
			kpt_reader_stop_unload
			mv "$tmp/kpt.bin" "$f"
			mv "$tmp/kpt.bin.probes" "$f.probes" 2>/dev/null
			set -- $(kpt_count "$f" -c dd)
			del=$(($1 + $2))
			lost=$(($(sys_kpt_pfield "$ps" events) - $(sys_kpt_pfield "$ps" filtered) - $(sys_kpt_pfield "$ps" recorded)))
			cpu=$kpt_cpu
			extra="how=probe_s_comm=dd_and_-w $kpt_fields"
			extra+=" pstats=$(printf '%s' "$ps" | tr ' ' ',')"
		fi ;;
	*)	say "unknown arm $arm"; return 1 ;;
	esac
	if [ "$warm" = 0 ] && [ ! -s "$out/$arm.sample" ]; then
		if [[ $extra == how=kptrace_syscalls* ]]; then
			"$KPTRACE" syscalls -r "$f" -q 2>&1
		elif [ "$arm" = e2e_sys_kptrace ]; then
			"$KPTRACE" -r "$f" -q --no-stack 2>&1
		else
			cat "$f"
		fi | awk 'NR <= 40 { print; next } { t[NR % 40] = $0 }
			END { if (NR > 40) print "..."
			      for (i = (NR > 80 ? NR - 39 : 41); i <= NR; i++)
				      print t[i % 40] }' >"$out/$arm.sample"
	fi
	rm -f "$f" "$f.probes" "$tmp/kpt.bin.probes"
}

# ---------------------------------------------------- reader decoding --

# CPU seconds (user+sys) of "kptrace -r FILE ARGS > /dev/null"
decode_secs()
{
	local f=$1 TIMEFORMAT='%3U %3S'

	shift
	{ time taskset -c 1 "$KPTRACE" -r "$f" "$@" >/dev/null 2>&1; } 2>&1 |
		awk '{ print $1 + $2 }'
}

decode()
{
	local f arm rep n mode opts

	for arm in kpt_args kpt_stack kpt_ret kpt_ret1 kpt_cond; do
		f=$tmp/keep-$arm.bin
		[ -s "$f" ] || continue
		set -- $(kpt_count "$f")
		n=$(($1 + $2))
		for rep in $(seq 1 "$reps"); do
			for mode in text json; do
				opts=()
				[ $mode = text ] || opts=(-j)
				result "phase=decode arm=$arm mode=$mode rep=$rep" \
					"events=$n bytes=$(stat -c %s "$f")" \
					"cpu_s=$(decode_secs "$f" "${opts[@]}")" \
					"startup_cpu_s=$(decode_secs "$f" -n 1 "${opts[@]}")"
			done
		done
	done
}

# --------------------------------------------------------------- main --

shuffled() { printf '%s\n' "$@" | awk -v s="$RANDOM" 'BEGIN { srand(s) } { print rand() "\t" $0 }' | sort -k1,1g | cut -f2; }

mount | grep -q " $T " || mount -t tracefs nodev $T
insmod "$BENCH_KO" || { say "cannot load kpt_bench.ko"; exit 1; }
echo 0 >$RUN
# --profile: every symbol but those of the arms' own modules (ksyms.RUN)
[ "${BENCH_PROFILE:-0}" = 0 ] ||
	awk '$4 !~ /^\[(kptrace|kpt_floor)\]$/' /proc/kallsyms >"$out/kallsyms"

E2E_READ=ksys_read
E2E_WRITE=ksys_write
if ! grep -qw ksys_read /proc/kallsyms || ! grep -qw ksys_write /proc/kallsyms; then
	E2E_READ=vfs_read
	E2E_WRITE=vfs_write
fi

micro_arms=(baseline floor_kprobe floor_kretprobe
	    ftrace_args ftrace_args_rd ftrace_stack ftrace_stack_rd
	    ftrace_ret ftrace_ret_rd ftrace_entret ftrace_entret_rd
	    bpf_count bpf_args bpf_kstack
	    kpt_args kpt_stack kpt_ret kpt_ret1 kpt_cond kpt_sess1 kpt_sess8
	    agg_kpt_comm agg_kpt_lat agg_kpt_stack agg_kpt_num
	    agg_bpf_comm agg_bpf_lat agg_bpf_stack
	    agg_ftrace_comm agg_ftrace_stack
	    sys_none sys_floor_kprobe sys_floor_kretprobe
	    sys_ftrace_task sys_ftrace_other sys_kpt_other sys_kpt_task
	    sys_kpt_sum
	    sys_kpt_pid_other sys_kpt_pid_task sys_kpt_tid_other
	    sys_kpt_tid_task sys_kpt_comm_other sys_kpt_comm_task
	    sys_kpt_cgroup_other sys_kpt_cgroup_task sys_kpt_cmd_other
	    sys_kpt_cmd_task sys_kpt_follow_other sys_kpt_follow_task
	    sys_kpt_followp_task)
e2e_arms=(e2e_none e2e_kptrace e2e_ftrace e2e_bpftrace e2e_perf e2e_strace
	  e2e_sys_none e2e_sys_strace e2e_sys_perf_trace e2e_sys_perf_trace_m
	  e2e_sys_perf_trace_s e2e_sys_bpftrace e2e_sys_kptrace
	  e2e_sys_kptrace_s)

# Tools that are missing skip their arms, and say so.
have_perf=1
perf trace -e read -o /dev/null -- true >/dev/null 2>&1 || have_perf=0
want()
{
	[[ $1 =~ $arms_re ]] || return 1
	case $1 in
	bpf_*|agg_bpf_*|e2e_bpftrace|e2e_sys_bpftrace)
		command -v bpftrace >/dev/null ;;
	e2e_perf|e2e_sys_perf_trace*) [ "$have_perf" = 1 ] ;;
	e2e_strace|e2e_sys_strace) command -v strace >/dev/null ;;
	sys_*) [ -x "$SYSLOOP" ] && grep -qw x64_sys_call /proc/kallsyms ;;
	kpt_sess*) [ -x "$KPT_READ" ] && "$KPT_READ" 2>&1 | grep -q -- '\[-S' ;;
	e2e_sys_kptrace_s)
		kpt_has_syscalls_cmd &&
			"$KPTRACE" syscalls --help 2>&1 | grep -q -- '--summary' ;;
	esac
}
sel_micro=()
for a in "${micro_arms[@]}"; do
	if want "$a"; then
		sel_micro+=("$a")
	elif [[ $a =~ $arms_re ]]; then
		meta "skipped=$a"
	fi
done
sel_e2e=()
for a in "${e2e_arms[@]}"; do
	if want "$a"; then
		sel_e2e+=("$a")
	elif [[ $a =~ $arms_re ]]; then
		meta "skipped=$a"
	fi
done

meta "kernel=$(uname -r) cpus=$(nproc) mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
meta "seed=$seed reps=$reps calls=$calls dd_count=$dd_count e2e_funcs=$E2E_READ,$E2E_WRITE"
meta "ftrace_buffer_size_kb=$(cat $T/buffer_size_kb | tr ' ' '_') kptrace_bufsize_kb=default"
meta "bpftrace=$(bpftrace --version 2>/dev/null | tr ' ' '_') perf=$(perf --version 2>/dev/null | tr ' ' '_') have_perf_trace=$have_perf strace=$(strace -V 2>/dev/null | head -n 1 | tr ' ' '_')"
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
meta "clocksource=$(cat $cs) tsc_khz=$(dmesg | grep -o 'Refined TSC clocksource calibration: [0-9.]* MHz\|Detected [0-9.]* MHz' | tail -n 1 | tr -dc '0-9.')"

t0=$(date +%s)
for round in $(seq 0 "$reps"); do
	warm=0
	[ "$round" != 0 ] || warm=1
	order=$(shuffled "${sel_micro[@]}")
	meta "micro_round=$round order=$(echo $order | tr ' ' ',')"
	for a in $order; do
		micro "$a" "$round" "$warm" || result "phase=micro arm=$a rep=$round warm=$warm failed=1"
	done
	say "micro round $round done after $(($(date +%s) - t0)) s"
done
for round in $(seq 0 "$reps"); do
	warm=0
	[ "$round" != 0 ] || warm=1
	order=$(shuffled "${sel_e2e[@]}")
	meta "e2e_round=$round order=$(echo $order | tr ' ' ',')"
	for a in $order; do
		e2e "$a" "$round" "$warm" || result "phase=e2e arm=$a rep=$round warm=$warm failed=1"
	done
	say "e2e round $round done after $(($(date +%s) - t0)) s"
done
decode
meta "elapsed_s=$(($(date +%s) - t0)) clocksource_end=$(cat $cs)"
rmmod kpt_bench
echo "BENCH-DONE"
