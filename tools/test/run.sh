#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of tools/kptrace; no kernel, no module, no root needed.
#
# test/gen_trace writes synthetic record files (as `kptrace -w` saves them);
# `kptrace -r` decodes them against the fake test/data/kallsyms and
# test/data/probes, and the exact text and JSON outputs are compared with
# test/expected/. Garbage and truncated files must be refused with one
# message and exit status 1, never a crash. The command line, the error
# messages and --stats (on test/data/stats) are checked too, and the decoder
# runs under valgrind when it is installed.
#
# Output: KTAP-ish "ok N name" / "not ok N name" lines, then "N passed,
# N failed". Exit status 1 if any test failed.
# UPDATE=1 test/run.sh rewrites test/expected/ from the current output.
#
# Then the spec language: test/test_spec (the module's parser under ASan
# and UBSan: every syntax element, errors at their columns, round trips;
# BTF names and @SYM against test/gen_btf's BTF; test/test_ftrace_syntax:
# the specs of ftrace's kprobe_syntax_errors.tc, refused at ftrace's
# carets or a documented column of kptrace's own), typed records
# (gen_trace typed: strings, escapes, faults, truncation, return records
# with arguments, legacy probes named from BTF), -w FILE.probes, and
# `kptrace probe ...` with --dry-run, fake available_filter_functions,
# blacklist and kallsyms for globs, and on test/fakedev.so (LD_PRELOAD, a
# stand-in for /dev/kptrace): one KPT_IOC_ADD per line, the module's
# reason for a refusal under the user's column, a module too old for
# sessions (a regular file as the device too). A
# crafted FILE.probes: labels and BTF names with terminal escapes must be
# shown escaped, and a trace of many ids the listing lacks must not make
# the reader read it again for each. The BTF reader has its own unit tests
# (test/test_kbtf, ASan and UBSan: every kind, split BTF, cut, garbled and
# made-up files). Short libFuzzer runs of kpt_spec_parse() and of the BTF
# reader end it (FUZZ_SECONDS each, 10; 0 skips them; need clang).
# test/test_hist_bin: the binary form of the aggregations (KPT_IOC_HIST)
# on hand-made tables, against the text of the same hist files.
#
# test/test_syscalls (ASan and UBSan): the syscall names table, -e
# selections, tracefs format files (test/data/format-*), the decoders, and
# the lines and JSON objects of `kptrace syscalls`, exact strings; and
# gen_syscalls.sh must remake the committed uapi/kptrace_syscalls.h.
# test/test_syscalls_cmd (ASan and UBSan): the command's records of a
# syscalls probe to lines and JSON, its spec lines, the probe's listing
# line, the summary, the tables of -s and -S; then `kptrace syscalls -r`
# of gen_trace's syscalls records against a fake tracefs, --dry-run's spec
# lines, its errors, and its live path on test/fakedev.so in a session of
# its own (no debugfs file read), --prometheus's file too (exact, every
# -i interval, read by node_exporter). test/flight.sh: --flight's
# overwriting session, its refusals and its dumps on the fake device.
# kptrace -e on the fake device: a session's records printed as the plain
# reader prints them (text, -j, -w then -r), its books, COMMAND, -p, -n,
# the refusals (the module's, at its column; the tool's), the session's
# options, a glob with --max, the usage errors; the plain reader makes no
# session.

set -u
cd "$(dirname "$0")/.." || exit 1

KPT=./kptrace
DATA=test/data
EXP=test/expected
OUT=test/out
export KPTRACE_KALLSYMS=$DATA/kallsyms
export KPTRACE_PROBES=$DATA/probes
export KPTRACE_STATS=$DATA/stats
export KPTRACE_DEVICE=$OUT/no-such-device
export KPTRACE_PROBE_STATS=$DATA/probe_stats
export KPTRACE_FILTER_FUNCTIONS=$DATA/available_filter_functions
export KPTRACE_BLACKLIST=$DATA/blacklist
# BTF that knows no function: the legacy probes of the old tests keep arg0..
export KPTRACE_BTF_DIR=$OUT/btf-empty

rm -rf "$OUT"
mkdir -p "$OUT" "$OUT/btf" "$OUT/btf-empty" "$OUT/btf-layout" "$OUT/kbtf-work"
test/gen_btf "$OUT/btf" && test/gen_btf "$OUT/btf-empty" empty &&
	test/gen_btf "$OUT/btf-layout" layout || exit 1

nr=0
passed=0
failed=0
skipped=0

echo "TAP version 13"

ok()
{
	nr=$((nr + 1))
	passed=$((passed + 1))
	echo "ok $nr $1"
}

not_ok()
{
	nr=$((nr + 1))
	failed=$((failed + 1))
	echo "not ok $nr $1"
	if [ -n "${2:-}" ]; then
		printf '%s\n' "$2" | head -40 | sed 's/^/# /'
	fi
}

skip()
{
	nr=$((nr + 1))
	skipped=$((skipped + 1))
	echo "ok $nr $1 # SKIP $2"
}

# run NAME CMD...: runs CMD, stdout in $OUT/NAME.out, stderr in
# $OUT/NAME.err, exit status in $rc.
# scrape_textfiles DIR METRICS LOG: node_exporter's textfile collector
# on DIR, on a free port (5 tries), scraped once into METRICS; 1 if no
# scrape succeeded. EXPORTER is the node_exporter binary.
scrape_textfiles()
{
	local try i port epid
	for try in 1 2 3 4 5; do
		port=$((20000 + (RANDOM % 30000)))
		"$EXPORTER" --web.listen-address=127.0.0.1:$port \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$1" >"$3" 2>&1 &
		epid=$!
		for i in $(seq 50); do
			if curl -sf "http://127.0.0.1:$port/metrics" >"$2" 2>/dev/null; then
				kill $epid 2>/dev/null
				wait $epid 2>/dev/null
				return 0
			fi
			kill -0 $epid 2>/dev/null || break
			sleep 0.1
		done
		kill $epid 2>/dev/null
		wait $epid 2>/dev/null
	done
	return 1
}

run()
{
	local name=$1

	shift
	"$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	rc=$?
}

# same FILE EXPECTED: empty if equal, else a diff
same()
{
	if [ "${UPDATE:-}" = 1 ] && [[ $2 == "$EXP"/* ]]; then
		cp "$1" "$2"
	fi
	diff -u "$2" "$1" 2>&1
}

# check_run NAME RC CMD...: the output must equal $EXP/NAME.out and, if
# it exists, $EXP/NAME.err; the exit status must be RC.
check_run()
{
	local name=$1 want_rc=$2 d

	shift 2
	run "$name" "$@"
	if [ "$rc" != "$want_rc" ]; then
		not_ok "$name" "exit status $rc, expected $want_rc
$(cat "$OUT/$name.err")"
		return
	fi
	d=$(same "$OUT/$name.out" "$EXP/$name.out")
	if [ -z "$d" ] && [ -e "$EXP/$name.err" ]; then
		d=$(same "$OUT/$name.err" "$EXP/$name.err")
	fi
	if [ -n "$d" ]; then
		not_ok "$name" "$d"
	else
		ok "$name"
	fi
}

# check_msg NAME RC MESSAGE CMD...: exit status RC, nothing on stdout, and
# exactly MESSAGE (one line, or two for usage errors) on stderr.
check_msg()
{
	local name=$1 want_rc=$2 msg=$3

	shift 3
	run "$name" "$@"
	if [ "$rc" != "$want_rc" ]; then
		not_ok "$name" "exit status $rc, expected $want_rc
$(cat "$OUT/$name.err")"
	elif [ -s "$OUT/$name.out" ]; then
		not_ok "$name" "unexpected output: $(head -3 "$OUT/$name.out")"
	elif [ "$(cat "$OUT/$name.err")" != "$msg" ]; then
		not_ok "$name" "stderr: $(cat "$OUT/$name.err")
expected: $msg"
	else
		ok "$name"
	fi
}

usage_msg()
{
	printf 'kptrace: %s\nTry '\''kptrace --help'\'' for more information.' "$1"
}

# --- synthetic traces ---------------------------------------------------

gen_ok=1
for kind in good empty bad-magic bad-size small-size bad-payload \
	    too-many-args truncated short-header huge-size random; do
	test/gen_trace "$kind" "$OUT/$kind.bin" || gen_ok=
done
GEN_COUNT=100000 test/gen_trace big "$OUT/big.bin" || gen_ok=
if [ -n "$gen_ok" ]; then
	ok "gen_trace writes the synthetic traces"
else
	not_ok "gen_trace writes the synthetic traces"
fi

run ksyms test/test_ksyms "$DATA/kallsyms"
if [ "$rc" = 0 ]; then
	ok "ksyms: sizes, aliases, modules, table ends"
else
	not_ok "ksyms: sizes, aliases, modules, table ends" "$(cat "$OUT/ksyms.out" "$OUT/ksyms.err")"
fi

# --- decoding -----------------------------------------------------------

check_run text 0 $KPT -r "$OUT/good.bin"
check_run json 0 $KPT -r "$OUT/good.bin" -j
check_run no-stack 0 $KPT -r "$OUT/good.bin" --no-stack -q
check_run json-no-stack 0 $KPT -r "$OUT/good.bin" --json --no-stack -q

# every line is one valid JSON object: json.tool, then exact values
bad_lines=0
while IFS= read -r line; do
	printf '%s\n' "$line" | python3 -m json.tool >/dev/null 2>&1 ||
		bad_lines=$((bad_lines + 1))
done <"$OUT/json.out"
if [ "$bad_lines" = 0 ] && [ -s "$OUT/json.out" ]; then
	ok "json: every line passes python3 -m json.tool"
else
	not_ok "json: every line passes python3 -m json.tool" "$bad_lines bad lines"
fi

d=$(python3 - "$OUT/json.out" <<'EOF' 2>&1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], "rb")]
e = ev[0]
assert e["type"] == "entry" and e["probe"] == "do_sys_openat2", e
assert e["args"][4] == 2**64 - 1 and e["args"][0] == 0xffffff9c, e["args"]
assert e["stack"][2] == {"addr": "0xffffffffc0400090",
                         "sym": "kpt_test_func+0x10/0x40 [kpt_test]",
                         "module": "kpt_test"}, e["stack"][2]
assert e["stack"][5]["sym"] is None
r = ev[1]
assert (r["ret"], r["lat_ns"], r["entry_ts_ns"]) == (-2, 1234, r["ts_ns"] - 1234)
assert ev[2] == {"type": "lost", "cpu": 1, "cause": "full", "count": 17}
odd = [x for x in ev if x.get("probe") == "probe5"][0]
assert odd["comm"] == 'q"b\\n\n\t\xff\x80\x7fabcdef', repr(odd["comm"])
assert min(x.get("ret", 0) for x in ev) == -2**63
assert max(x.get("ret", 0) for x in ev) == 2**63 - 1
assert [x for x in ev if x.get("stack_truncated")][0]["pid"] == 4242
EOF
)
if [ -z "$d" ]; then
	ok "json: exact u64/s64 values, escapes, module frames"
else
	not_ok "json: exact u64/s64 values, escapes, module frames" "$d"
fi

check_run pid-filter 0 $KPT -r "$OUT/good.bin" -p 4242
check_run comm-filter 0 $KPT -r "$OUT/good.bin" -c cat --no-stack
check_run count 0 $KPT -r "$OUT/good.bin" -n 2

run quiet $KPT -r "$OUT/good.bin" -q
if [ "$rc" = 0 ] && [ ! -s "$OUT/quiet.err" ] &&
   cmp -s "$OUT/quiet.out" "$OUT/text.out"; then
	ok "quiet: same output, nothing on stderr"
else
	not_ok "quiet: same output, nothing on stderr" "$(cat "$OUT/quiet.err")"
fi

run stdin $KPT -r - <"$OUT/good.bin"
if [ "$rc" = 0 ] && cmp -s "$OUT/stdin.out" "$OUT/text.out"; then
	ok "replay from stdin"
else
	not_ok "replay from stdin" "$(cat "$OUT/stdin.err")"
fi

run no-probes env KPTRACE_PROBES=/nonexistent $KPT -r "$OUT/good.bin" -q
if [ "$rc" = 0 ] &&
   [ "$(head -1 "$OUT/no-probes.out")" = "ls-101 [000] 1000.000123: probe0: arg0=0xffffff9c arg1=0x7ffc12345678 arg2=0x8000 arg3=0x0 arg4=0xffffffffffffffff arg5=0x1" ]; then
	ok "no probes file: names fall back to probe<id>"
else
	not_ok "no probes file: names fall back to probe<id>" "$(head -2 "$OUT/no-probes.out" "$OUT/no-probes.err")"
fi

run no-kallsyms env KPTRACE_KALLSYMS=/nonexistent $KPT -r "$OUT/good.bin" -q
if [ "$rc" = 0 ] &&
   [ "$(cat "$OUT/no-kallsyms.err")" = "kptrace: cannot read /nonexistent (No such file or directory): call traces will show bare addresses" ] &&
   grep -qx '  \[<ffffffff81234500>\] 0xffffffff81234500' "$OUT/no-kallsyms.out"; then
	ok "no kallsyms: one warning, bare addresses"
else
	not_ok "no kallsyms: one warning, bare addresses" "$(cat "$OUT/no-kallsyms.err")"
fi

# kptr_restrict: every address 0
sed 's/^[0-9a-f]*/0000000000000000/' "$DATA/kallsyms" >"$OUT/kallsyms.zero"
run zero-kallsyms env KPTRACE_KALLSYMS=$OUT/kallsyms.zero $KPT -r "$OUT/good.bin" -q
if [ "$rc" = 0 ] && grep -q 'shows no addresses' "$OUT/zero-kallsyms.err" &&
   grep -qx '  \[<ffffffff81234500>\] 0xffffffff81234500' "$OUT/zero-kallsyms.out"; then
	ok "zeroed kallsyms (kptr_restrict): bare addresses"
else
	not_ok "zeroed kallsyms (kptr_restrict): bare addresses" "$(cat "$OUT/zero-kallsyms.err")"
fi

# 100000 entry/return pairs with 10 lost records: records cut by the 1 MiB
# reads must be carried over, not lost
run big $KPT -r "$OUT/big.bin" --no-stack
lines=$(wc -l <"$OUT/big.out")
summary="kptrace: 200000 events (100000 entries, 100000 returns), 30 lost (full 30)"
if [ "$rc" = 0 ] && [ "$lines" = 200010 ] &&
   [ "$(cat "$OUT/big.err")" = "$summary" ] &&
   [ "$(tail -2 "$OUT/big.out" | head -1)" = "kpt_test-78 [000] 0.100000: kpt_test_func+0x4: ret=-100000 lat_ns=500" ]; then
	ok "big trace across many reads: every record once"
else
	not_ok "big trace across many reads: every record once" "rc=$rc lines=$lines $(cat "$OUT/big.err")"
fi

# --- saving (-w), tested on a replay --------------------------------------

run save $KPT -r "$OUT/good.bin" -w "$OUT/copy.bin" -q
if [ "$rc" = 0 ] && [ ! -s "$OUT/save.out" ] &&
   cmp -s "$OUT/good.bin" "$OUT/copy.bin"; then
	ok "save: -w writes the records as they came"
else
	not_ok "save: -w writes the records as they came" "$(cat "$OUT/save.err")"
fi

run save-count $KPT -r "$OUT/good.bin" -w "$OUT/copy2.bin" -n 2
# the first entry (64 + 13 * 8) and return (64 + 24) records
head -c 256 "$OUT/good.bin" >"$OUT/first2.bin"
if [ "$rc" = 0 ] && cmp -s "$OUT/first2.bin" "$OUT/copy2.bin" &&
   [ "$(cat "$OUT/save-count.err")" = "kptrace: 2 events (1 entries, 1 returns), 0 lost, 256 bytes saved to $OUT/copy2.bin" ]; then
	ok "save: -n stops at a record boundary"
else
	not_ok "save: -n stops at a record boundary" "$(cat "$OUT/save-count.err")"
fi

run save-pid $KPT -r "$OUT/good.bin" -w "$OUT/copy3.bin" -p 4242 -q
run replay-pid $KPT -r "$OUT/copy3.bin" -q
if [ "$rc" = 0 ] && cmp -s "$OUT/replay-pid.out" "$OUT/pid-filter.out"; then
	ok "save: -p keeps the matching and lost records"
else
	not_ok "save: -p keeps the matching and lost records" "$(diff "$OUT/replay-pid.out" "$OUT/pid-filter.out")"
fi

# --- garbage ------------------------------------------------------------

for kind in bad-magic bad-size small-size bad-payload too-many-args \
	    truncated short-header huge-size random; do
	run "$kind" $KPT -r "$OUT/$kind.bin"
	if [ "$rc" != 1 ]; then
		not_ok "garbage: $kind" "exit status $rc, expected 1"
	elif grep -q after "$OUT/$kind.out"; then
		not_ok "garbage: $kind" "decoded records after the bad one"
	else
		d=$(same "$OUT/$kind.err" "$EXP/$kind.err")
		if [ -n "$d" ]; then
			not_ok "garbage: $kind" "$d"
		else
			ok "garbage: $kind"
		fi
	fi
done

# every prefix of the good trace: cut records are refused, never crash
bad=0
size=$(stat -c %s "$OUT/good.bin")
for cut in $(seq 1 7 "$size"); do
	head -c "$cut" "$OUT/good.bin" >"$OUT/cut.bin"
	$KPT -r "$OUT/cut.bin" -j >/dev/null 2>&1
	rc=$?
	[ "$rc" -le 1 ] || bad=$((bad + 1))
done
if [ "$bad" = 0 ]; then
	ok "garbage: every cut of the good trace exits 0 or 1"
else
	not_ok "garbage: every cut of the good trace exits 0 or 1" "$bad crashes"
fi

run empty $KPT -r "$OUT/empty.bin"
if [ "$rc" = 0 ] && [ ! -s "$OUT/empty.out" ] &&
   [ "$(cat "$OUT/empty.err")" = "kptrace: 0 events (0 entries, 0 returns), 0 lost" ]; then
	ok "empty trace"
else
	not_ok "empty trace" "rc=$rc $(cat "$OUT/empty.err")"
fi

# --- the device: errors only, on the host ---------------------------------

check_msg no-device 1 \
	"kptrace: $OUT/no-such-device not found: is the kptrace module loaded? (insmod kptrace.ko name=SYMBOL)" \
	$KPT
check_msg not-kptrace 1 \
	"kptrace: /dev/null is not a kptrace device (it does not answer KPT_IOC_INFO)" \
	env KPTRACE_DEVICE=/dev/null $KPT
# a 0600 file of root's, opened by nobody: EACCES
if [ "$(id -u)" != 0 ]; then
	skip device-eacces "needs root, to run kptrace as nobody"
elif ! command -v setpriv >/dev/null; then
	skip device-eacces "setpriv (util-linux) not installed"
else
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	cp $KPT "$tmp/kptrace"
	: >"$tmp/kptrace-dev"
	chmod 600 "$tmp/kptrace-dev"
	check_msg device-eacces 1 \
		"kptrace: opening $tmp/kptrace-dev needs root (CAP_PERFMON or CAP_SYS_ADMIN)" \
		env KPTRACE_DEVICE="$tmp/kptrace-dev" setpriv --reuid=65534 \
		--regid=65534 --clear-groups "$tmp/kptrace"
	rm -rf "$tmp"
fi
check_msg replay-missing 1 \
	"kptrace: cannot open /nonexistent.bin: No such file or directory" \
	$KPT -r /nonexistent.bin
check_msg replay-dir 1 \
	"kptrace: test is a directory, not a trace saved with -w" \
	$KPT -r test

# --- command line -------------------------------------------------------

check_msg usage-count 2 "$(usage_msg "invalid count '0': a number of events > 0")" $KPT -n 0
check_msg usage-count-junk 2 "$(usage_msg "invalid count '12x': a number of events > 0")" $KPT -n 12x
check_msg usage-duration 2 "$(usage_msg "invalid duration '-1': a number of seconds > 0")" $KPT -d -1
check_msg usage-pid 2 "$(usage_msg "invalid pid 'abc'")" $KPT -p abc
check_msg usage-option 2 "$(usage_msg "invalid option '-x'")" $KPT -x
check_msg usage-long-option 2 "$(usage_msg "invalid option '--bogus'")" $KPT --bogus
check_msg usage-missing 2 "$(usage_msg "option '-n' needs an argument")" $KPT -n
check_msg usage-argument 2 "$(usage_msg "unexpected argument 'foo'")" $KPT foo
check_msg usage-write-json 2 "$(usage_msg "-j and --no-stack are for printing: -w saves the raw records")" $KPT -w x -j
check_msg usage-stats-replay 2 "$(usage_msg "-s shows the module's statistics: it does not apply to -r")" $KPT -s -r x

run help $KPT --help
if [ "$rc" = 0 ] && grep -q '^EXAMPLES:' "$OUT/help.out" &&
   grep -q 'kptrace -w trace.bin' "$OUT/help.out" && [ ! -s "$OUT/help.err" ]; then
	ok "help: on stdout, with EXAMPLES"
else
	not_ok "help: on stdout, with EXAMPLES"
fi

run version $KPT -V
if [ "$rc" = 0 ] && grep -q '^kptrace .* (record format version 1)$' "$OUT/version.out"; then
	ok "version"
else
	not_ok "version"
fi

# --- stats --------------------------------------------------------------

check_run stats 0 env KPTRACE_PROBE_STATS=/nonexistent $KPT --stats
check_msg stats-missing 1 \
	"kptrace: /nonexistent not found: is the kptrace module loaded and debugfs mounted? (mount -t debugfs none /sys/kernel/debug)" \
	env KPTRACE_STATS=/nonexistent $KPT -s

# --- the spec language -----------------------------------------------------

run spec test/test_spec "$OUT/btf" "$DATA/kallsyms"
if [ "$rc" = 0 ]; then
	ok "spec: parser and translation unit tests, ASan+UBSan ($(tail -1 "$OUT/spec.out"))"
else
	not_ok "spec: parser and translation unit tests, ASan+UBSan" "$(grep -A1 '^not ok' "$OUT/spec.out"; cat "$OUT/spec.err")"
fi

run ftrace-syntax test/test_ftrace_syntax
if [ "$rc" = 0 ]; then
	ok "spec: ftrace's kprobe_syntax_errors.tc, refusals and carets, ASan+UBSan ($(tail -1 "$OUT/ftrace-syntax.out"))"
else
	not_ok "spec: ftrace's kprobe_syntax_errors.tc, refusals and carets, ASan+UBSan" "$(grep -A1 '^not ok' "$OUT/ftrace-syntax.out"; cat "$OUT/ftrace-syntax.err")"
fi

run kbtf test/test_kbtf "$OUT/btf" "$OUT/btf-layout" "$OUT/kbtf-work"
if [ "$rc" = 0 ]; then
	ok "kbtf: BTF reader unit tests, cut and garbled files, ASan+UBSan ($(tail -1 "$OUT/kbtf.out"))"
else
	not_ok "kbtf: BTF reader unit tests, cut and garbled files, ASan+UBSan" "$(grep -A2 '^not ok' "$OUT/kbtf.out"; cat "$OUT/kbtf.err")"
fi

# --- system calls ------------------------------------------------------------

run syscalls test/test_syscalls "$DATA"
if [ "$rc" = 0 ]; then
	ok "syscalls: names, -e selections, format files, decoders, lines and JSON, ASan+UBSan ($(tail -1 "$OUT/syscalls.out"))"
else
	not_ok "syscalls: names, -e selections, format files, decoders, lines and JSON, ASan+UBSan" "$(grep -A1 '^not ok' "$OUT/syscalls.out"; cat "$OUT/syscalls.err")"
fi

# the committed header is what gen_syscalls.sh makes of the committed tables
run gen-syscalls ./gen_syscalls.sh syscalls
d=$(diff -u ../include/uapi/kptrace_syscalls.h "$OUT/gen-syscalls.out" 2>&1)
if [ "$rc" = 0 ] && [ -z "$d" ] && [ ! -s "$OUT/gen-syscalls.err" ]; then
	ok "syscalls: gen_syscalls.sh remakes uapi/kptrace_syscalls.h from syscalls/*.tbl"
else
	not_ok "syscalls: gen_syscalls.sh remakes uapi/kptrace_syscalls.h from syscalls/*.tbl" "$(cat "$OUT/gen-syscalls.err"; printf '%s\n' "$d")"
fi

# --- kptrace syscalls -----------------------------------------------------------
# test/test_syscalls_cmd (ASan and UBSan): records of a syscalls probe as
# the module's contract makes them, to lines and JSON; spec lines; the
# probe's id in a listing; the counters and the summary; the tables of -s
# and -S from KPT_IOC_SYSSUM's entries and from records. Then -r of
# gen_trace's syscalls records against a fake tracefs (-S and -s too), the
# spec lines of --dry-run, and the errors of the command line, exact.

run syscalls-cmd test/test_syscalls_cmd "$DATA" "$OUT"
if [ "$rc" = 0 ]; then
	ok "syscalls cmd: records to lines and JSON, spec lines, listing line, summary, ASan+UBSan ($(tail -1 "$OUT/syscalls-cmd.out"))"
else
	not_ok "syscalls cmd: records to lines and JSON, spec lines, listing line, summary, ASan+UBSan" "$(grep -A1 '^not ok' "$OUT/syscalls-cmd.out"; cat "$OUT/syscalls-cmd.err")"
fi

# a tracefs with the formats of test/data
for call in openat execve renameat2 write exit_group; do
	mkdir -p "$OUT/tracefs/events/syscalls/sys_enter_$call"
	cp "$DATA/format-$call" "$OUT/tracefs/events/syscalls/sys_enter_$call/format"
done
test/gen_trace syscalls "$OUT/syscalls.bin"
check_run syscalls-replay 0 env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls.bin"
check_run syscalls-replay-json 0 env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls.bin" -j -q
# without tracefs: arg0..arg5 in hex, the strings still quoted
check_run syscalls-replay-noformat 0 env KPTRACE_TRACEFS=/nonexistent $KPT syscalls -r "$OUT/syscalls.bin" -q

d=$(python3 - "$OUT/syscalls-replay-json.out" <<'EOF' 2>&1
import json, sys
raw = open(sys.argv[1], "rb").read().splitlines()
for line in raw:
    assert all(0x20 <= b < 0x7f for b in line), line
ev = [json.loads(l) for l in raw]
assert len(ev) == 8, len(ev)
assert ev[0]["args"] == {"dfd": -100, "filename": "/etc/passwd",
                         "flags": 0x80000, "mode": 0}, ev[0]
assert ev[1]["ret"] == -2 and ev[1]["errno"] == "ENOENT", ev[1]
assert ev[2] == {"type": "lost", "cpu": 1, "cause": "full", "count": 17}
assert ev[4]["comm"] == "\x1b[2J", ev[4]
assert ev[5]["args"]["oldname"] == "a\\old\n" and ev[5]["args"]["oldname_truncated"] is True
assert ev[6]["args"]["filename"] is None, ev[6]
assert ev[7]["syscall"] == "exit_group" and "ret" not in ev[7], ev[7]
assert ev[7]["args"] == {"error_code": 0} and ev[7]["ts"] == 4000000
EOF
)
if [ -z "$d" ]; then
	ok "syscalls replay json: valid ASCII lines, values, no ret for exit_group"
else
	not_ok "syscalls replay json: valid ASCII lines, values, no ret for exit_group" "$d"
fi

# --stack's records (gen_trace syscalls-stack): the frames under the line,
# the path after them; as JSON; and in the event reader's return record
test/gen_trace syscalls-stack "$OUT/syscalls-stack.bin"
check_run syscalls-stack-replay 0 env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls-stack.bin" -q
check_run syscalls-stack-replay-json 0 env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls-stack.bin" -q -j
check_run syscalls-stack-reader 0 $KPT -r "$OUT/syscalls-stack.bin" -q

run syscalls-stdin env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r - <"$OUT/syscalls.bin"
run syscalls-o env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls.bin" -o "$OUT/syscalls-o.txt"
if [ "$rc" = 0 ] && [ ! -s "$OUT/syscalls-o.out" ] &&
   cmp -s "$OUT/syscalls-o.txt" "$OUT/syscalls-replay.out" &&
   cmp -s "$OUT/syscalls-stdin.out" "$OUT/syscalls-replay.out"; then
	ok "syscalls replay: from stdin, and -o FILE, the same lines"
else
	not_ok "syscalls replay: from stdin, and -o FILE, the same lines" "$(cat "$OUT/syscalls-o.err" "$OUT/syscalls-stdin.err")"
fi

run syscalls-copy $KPT syscalls -r "$OUT/syscalls.bin" -w "$OUT/syscalls-copy.bin"
if [ "$rc" = 0 ] && cmp -s "$OUT/syscalls.bin" "$OUT/syscalls-copy.bin" &&
   [ "$(cat "$OUT/syscalls-copy.err")" = "kptrace: 8 records saved, 17 lost (full 17)" ]; then
	ok "syscalls replay: -w copies the records as they came"
else
	not_ok "syscalls replay: -w copies the records as they came" "$(cat "$OUT/syscalls-copy.err")"
fi

# an output that fails: one error, exit 1; a closed pipe: no message
run syscalls-full env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls.bin" -q -o /dev/full
if [ "$rc" = 1 ] &&
   [ "$(cat "$OUT/syscalls-full.err")" = "kptrace: error: cannot write /dev/full: No space left on device" ]; then
	ok "syscalls replay: a full output is one error, exit 1"
else
	not_ok "syscalls replay: a full output is one error, exit 1" "rc=$rc $(cat "$OUT/syscalls-full.err")"
fi
python3 -c 'import sys; open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read() * 2000)' \
	"$OUT/syscalls.bin" "$OUT/big-syscalls.bin"
run syscalls-epipe sh -c "KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r $OUT/big-syscalls.bin -q | head -1 >/dev/null"
if [ ! -s "$OUT/syscalls-epipe.err" ]; then
	ok "syscalls replay: a closed pipe is not an error message"
else
	not_ok "syscalls replay: a closed pipe is not an error message" "$(cat "$OUT/syscalls-epipe.err")"
fi

# --dry-run: the spec line, TOOLPID as sys_PID
run syscalls-dry sh -c "$KPT syscalls -n -p 1 -e 'open*,!openat2' --failure --duration 1.5 &&
	$KPT syscalls -n -t 1 -c 'ng*x' -e '!read,!write' &&
	$KPT syscalls --dry-run --duration 0 -e 'exit*' -- true &&
	$KPT syscalls -n &&
	$KPT syscalls -n -e signal=none -e getppid"
sed -E 's/sys_[0-9]+/sys_PID/; s/children=[0-9]+/children=PID/; s/exclude=[0-9]+/exclude=PID/' "$OUT/syscalls-dry.out" >"$OUT/syscalls-dry.sed"
if [ "$rc" = 0 ] && [ "$(cat "$OUT/syscalls-dry.sed")" = "s:kptrace/sys_PID pid=1 nr=2,257,304,428,467 nr32=5,295,342,428,467 failure duration=1500000 signals denied
s:kptrace/sys_PID tid=1 comm=ng*x nr=2-511 nr32=0-2,5-511 signals denied
s:kptrace/sys_PID children=PID nr=60,231 nr32=1,252 signals denied
s:kptrace/sys_PID exclude=PID signals denied
s:kptrace/sys_PID exclude=PID nr=110 nr32=64 denied" ] &&
   sed -n 3p "$OUT/syscalls-dry.out" | grep -Eq '^s:kptrace/sys_([0-9]+) children=\1 '; then
	ok "syscalls --dry-run: the spec lines, children= the tool's own pid, -e signal=none"
else
	not_ok "syscalls --dry-run: the spec lines, children= the tool's own pid, -e signal=none" "$(cat "$OUT/syscalls-dry.out" "$OUT/syscalls-dry.err")"
fi

# errors: one line (usage errors: and the Try line), nothing armed
sys_usage()
{
	printf 'kptrace: error: %s\nTry '\''kptrace syscalls --help'\'' for more information.' "$1"
}
# strace's spellings: a value that starts with '-' is no value, -p or -t
# with COMMAND is refused, -e's qualifiers but trace= are not known; each
# one line, exit 2, nothing armed (no device: the error comes first)
check_msg syscalls-comm-dashdash 2 "kptrace: error: -c needs a value, not '--' (--comm=-- if that is one)" env KPTRACE_DEVICE=/nonexistent $KPT syscalls -c -- true
check_msg syscalls-pid-dash 2 "kptrace: error: -p needs a value, not '-f' (--pid=-f if that is one)" env KPTRACE_DEVICE=/nonexistent $KPT syscalls -p -f
check_msg syscalls-tid-dash 2 "kptrace: error: -t needs a value, not '-1' (--tid=-1 if that is one)" env KPTRACE_DEVICE=/nonexistent $KPT syscalls -t -1
check_msg syscalls-pid-cmd 2 "kptrace: error: -p selects running processes, COMMAND a new one: not both" env KPTRACE_DEVICE=/nonexistent $KPT syscalls -p 1 -- true
check_msg syscalls-tid-cmd 2 "kptrace: error: -t selects running threads, COMMAND a new one: not both" env KPTRACE_DEVICE=/nonexistent $KPT syscalls -t 1 true
check_msg syscalls-e-signal 2 "kptrace: error: -e signal=: only trace= (or t=) and signal=none are known here" $KPT syscalls -e signal=SIGSEGV
check_msg syscalls-e-class 2 "kptrace: error: -e: no class '%files' (%desc %file %ipc %net %network %process %signal %memory)" $KPT syscalls -e trace=%files
# -p of any length: a probe per 8; -f: children= per process, one under
# another left out (this shell is under pid 1); 129 processes are too many
# (20 processes of this test's own: -p checks that each one exists)
dry_pids=
for i in $(seq 20); do
	sleep 60 &
	dry_pids=${dry_pids:+$dry_pids,}$!
done
run syscalls-dry-strace sh -c "$KPT syscalls -n -e trace=%ipc,open -Z -p 1 &&
	$KPT syscalls -n -f -p 1,\$\$ -y -T &&
	$KPT syscalls -n -p $dry_pids &&
	$KPT syscalls -n -e t=%net -- true"
kill ${dry_pids//,/ } 2>/dev/null
wait 2>/dev/null
dry_p() { printf '%s' "$dry_pids" | cut -d, -f"$1"; }
sed -E 's/sys_[0-9]+/sys_PID/; s/children=[0-9]+ nr/children=PID nr/; s/exclude=[0-9]+/exclude=PID/' "$OUT/syscalls-dry-strace.out" >"$OUT/syscalls-dry-strace.sed"
if [ "$rc" = 0 ] && [ "$(cat "$OUT/syscalls-dry-strace.sed")" = "s:kptrace/sys_PID pid=1 nr=2,29-31,64-71,220 nr32=5,117,393-402,420 failure signals denied
s:kptrace/sys_PID pid=1 signals denied
s:kptrace/sys_PID_2 children=1 exclude=PID signals denied
s:kptrace/sys_PID pid=$(dry_p 1-8) signals denied
s:kptrace/sys_PID_2 pid=$(dry_p 9-16) signals denied
s:kptrace/sys_PID_3 pid=$(dry_p 17-20) signals denied
s:kptrace/sys_PID children=PID nr=40-55,181-182,288,299,307 nr32=187-189,239,337,345,359-373,417 signals denied" ] &&
   sed -n 3p "$OUT/syscalls-dry-strace.out" | grep -Eq '^s:kptrace/sys_([0-9]+)_2 children=1 exclude=\1 '; then
	ok "syscalls --dry-run: -e trace=%CLASS (both ABIs), -Z, -f -p, -p of 20 processes: 3 probes"
else
	not_ok "syscalls --dry-run: -e trace=%CLASS (both ABIs), -Z, -f -p, -p of 20 processes: 3 probes" "$(cat "$OUT/syscalls-dry-strace.out" "$OUT/syscalls-dry-strace.err")"
fi
check_msg syscalls-pids-129 2 "kptrace: error: -p: 129 processes need more than 16 probes (pid= takes 8 processes): select them by -c COMM or -G CGROUP" sh -c "$KPT syscalls -n -p \$(seq -s, 2 130)"
check_msg syscalls-bad-expr 2 "kptrace: error: -e: no system call matches 'nosuch'" $KPT syscalls -e 'read,nosuch'
check_msg syscalls-empty-expr 2 "kptrace: error: -e: 'open*,!open*' selects no system call" $KPT syscalls -e 'open*,!open*'
check_msg syscalls-no-pid 1 "kptrace: error: no process 1073741823 (-p)" $KPT syscalls -p 1,1073741823
check_msg syscalls-no-tid 1 "kptrace: error: no thread 1073741823 (-t)" $KPT syscalls -t 1073741823
check_msg syscalls-bad-pid 2 "kptrace: error: -p: invalid id list 'abc': numbers separated by ','" $KPT syscalls -p abc
check_msg syscalls-pid-zero 2 "kptrace: error: -p: invalid id '0' in '1,0'" $KPT syscalls -p 1,0
check_msg syscalls-pids-9 2 "kptrace: error: -t: more than 8 ids (the module takes 8)" $KPT syscalls -t 1,2,3,4,5,6,7,8,9
check_msg syscalls-cgroup-dir 1 "kptrace: error: $OUT is not a cgroup v2 directory" $KPT syscalls -G "$OUT"
check_msg syscalls-cgroup-none 1 "kptrace: error: /nonexistent: No such file or directory" $KPT syscalls -G /nonexistent
check_msg syscalls-comm-long 2 "kptrace: error: -c: a comm glob of 1 to 15 bytes, not '0123456789abcdef'" $KPT syscalls -c 0123456789abcdef
check_msg syscalls-comm-long-esc 2 "kptrace: error: -c: a comm glob of 1 to 15 bytes, not 'a\\x1b[2Jbcdefghijklm'" $KPT syscalls -c "$(printf 'a\033[2Jbcdefghijklm')"
# -c takes any bytes; the spec line escapes them as the module reads them
run syscalls-dry-comm $KPT syscalls -n -c "$(printf 'Web Content\\\033*')"
if [ "$rc" = 0 ] && [ "$(sed -E 's/sys_[0-9]+/sys_PID/; s/exclude=[0-9]+/exclude=PID/' "$OUT/syscalls-dry-comm.out")" = 's:kptrace/sys_PID exclude=PID comm=Web\x20Content\\\x1b* signals denied' ]; then
	ok "syscalls -c: a space, a backslash and ESC escaped in the spec line"
else
	not_ok "syscalls -c: a space, a backslash and ESC escaped in the spec line" "$(cat "$OUT/syscalls-dry-comm.out" "$OUT/syscalls-dry-comm.err")"
fi
check_msg syscalls-duration 2 "kptrace: error: invalid --duration '-1': milliseconds >= 0 (0.5: 500 us)" $KPT syscalls --duration -1
check_msg syscalls-duration-nan 2 "kptrace: error: invalid --duration 'nan': milliseconds >= 0 (0.5: 500 us)" $KPT syscalls --duration nan
check_msg syscalls-duration-hex 2 "kptrace: error: invalid --duration '0x10': milliseconds >= 0 (0.5: 500 us)" $KPT syscalls --duration 0x10
check_msg syscalls-duration-exp 2 "kptrace: error: invalid --duration '1e-9': milliseconds >= 0 (0.5: 500 us)" $KPT syscalls --duration 1e-9
check_msg syscalls-sum-both 2 "$(sys_usage "-s (the table) or -S (the lines, the table)")" $KPT syscalls -s -S -- true
check_msg syscalls-interval 2 "$(sys_usage "-i prints the table of -s every SECS seconds: it needs -s")" $KPT syscalls -S -i 1
check_msg syscalls-interval-zero 2 "kptrace: error: invalid -i '0': whole seconds, 1 to 86400" $KPT syscalls -s -i 0
check_msg syscalls-interval-frac 2 "kptrace: error: invalid -i '1.5': whole seconds, 1 to 86400" $KPT syscalls -s -i 1.5
check_msg syscalls-interval-missing 2 "$(sys_usage "option '-i' needs an argument")" $KPT syscalls -s -i
check_msg syscalls-interval-replay 2 "$(sys_usage "-i is for a live run: not with -r")" $KPT syscalls -s -i 1 -r x
check_msg syscalls-sum-write 2 "$(sys_usage "-s prints a table: -w saves the raw records")" $KPT syscalls -s -w x
check_msg syscalls-with-sum-write 2 "$(sys_usage "-S prints a table: -w saves the raw records")" $KPT syscalls --with-summary -w x
check_msg syscalls-prom-missing 2 "$(sys_usage "option '--prometheus' needs an argument")" $KPT syscalls -s --prometheus
check_msg syscalls-prom-no-sum 2 "$(sys_usage "--prometheus writes the counts of -s or -S: it needs one")" $KPT syscalls --prometheus "$OUT" -- true
check_msg syscalls-prom-replay 2 "$(sys_usage "--prometheus is for a live run: not with -r")" $KPT syscalls -s -r x --prometheus "$OUT"
rm -f "$OUT/syscalls-ran"
check_msg syscalls-prom-nodir 1 "kptrace: error: --prometheus $OUT/nonexistent: No such file or directory" \
	$KPT syscalls -s --prometheus "$OUT/nonexistent" -- touch "$OUT/syscalls-ran"
check_msg syscalls-prom-file 1 "kptrace: error: --prometheus $DATA/probes: not a directory" \
	$KPT syscalls -S --prometheus "$DATA/probes" -- touch "$OUT/syscalls-ran"
if [ ! -e "$OUT/syscalls-ran" ]; then
	ok "syscalls --prometheus: a bad DIR is said before anything is armed, COMMAND never runs"
else
	not_ok "syscalls --prometheus: a bad DIR is said before anything is armed, COMMAND never runs"
fi
check_msg syscalls-stack-sum 2 "$(sys_usage "--stack records each call's trace: not with -s, which keeps no calls")" $KPT syscalls --stack -s
check_msg syscalls-stack-replay 2 "$(sys_usage "--stack records each call's trace: not with -r, which shows the traces the saved calls have")" $KPT syscalls --stack=4 -r x
check_msg syscalls-stack-zero 2 "kptrace: error: invalid --stack '0': whole frames, 1 to 64" $KPT syscalls --stack=0
check_msg syscalls-stack-big 2 "kptrace: error: invalid --stack '65': whole frames, 1 to 64" $KPT syscalls --stack=65
check_msg syscalls-interval-bad 2 "kptrace: error: invalid -i '0': whole seconds, 1 to 86400" $KPT syscalls -s -i 0
check_msg syscalls-option 2 "$(sys_usage "invalid option '-x'")" $KPT syscalls -x
check_msg syscalls-missing 2 "$(sys_usage "option '-p' needs an argument")" $KPT syscalls -p
check_msg syscalls-write-json 2 "$(sys_usage "-j and -o are for printing: -w saves the raw records")" $KPT syscalls -w x -j
check_msg syscalls-replay-sel 2 "$(sys_usage "-r prints a saved trace: the selection and COMMAND are for tracing")" $KPT syscalls -r x -p 1
check_msg syscalls-replay-cmd 2 "$(sys_usage "-r prints a saved trace: the selection and COMMAND are for tracing")" $KPT syscalls -r x true
check_msg syscalls-replay-missing 1 "kptrace: cannot open /nonexistent.bin: No such file or directory" $KPT syscalls -r /nonexistent.bin

# no module: the device's error, and COMMAND never runs
rm -f "$OUT/syscalls-ran"
check_msg syscalls-nodev 1 \
	"kptrace: $OUT/no-such-device not found: is the kptrace module loaded? (insmod kptrace.ko name=SYMBOL)" \
	$KPT syscalls -- touch "$OUT/syscalls-ran"
if [ ! -e "$OUT/syscalls-ran" ]; then
	ok "syscalls: COMMAND does not run when the probe cannot be armed"
else
	not_ok "syscalls: COMMAND does not run when the probe cannot be armed"
fi
check_msg syscalls-notdev 1 \
	"kptrace: /dev/null is not a kptrace device (it does not answer KPT_IOC_INFO)" \
	env KPTRACE_DEVICE=/dev/null $KPT syscalls -p 1

# -s on records: the table alone, of the calls -S prints; -n: " summary"
check_run syscalls-replay-sum 0 env KPTRACE_TRACEFS=$OUT/tracefs $KPT syscalls -r "$OUT/syscalls.bin" -S -q
run syscalls-replay-sum-only env KPTRACE_TRACEFS=/nonexistent $KPT syscalls --summary -r "$OUT/syscalls.bin"
if [ "$rc" = 0 ] &&
   cmp -s "$OUT/syscalls-replay-sum-only.out" <(sed -n '/^ Summary of events:$/,$p' "$EXP/syscalls-replay-sum.out" | sed '1s/^/\n/') &&
   [ "$(cat "$OUT/syscalls-replay-sum-only.err")" = "kptrace: 7 calls counted, 17 lost (full 17), 1 record not of a syscalls probe skipped" ]; then
	ok "syscalls -s -r: the table of the records alone, no tracefs note"
else
	not_ok "syscalls -s -r: the table of the records alone, no tracefs note" "rc=$rc $(cat "$OUT/syscalls-replay-sum-only.err")"
fi
run syscalls-dry-sum $KPT syscalls -n -s -p 1 -e read
if [ "$rc" = 0 ] &&
   [ "$(sed -E 's/sys_[0-9]+/sys_PID/' "$OUT/syscalls-dry-sum.out")" = "s:kptrace/sys_PID pid=1 nr=0 nr32=3 summary" ]; then
	ok "syscalls -s --dry-run: summary at the end of the spec line"
else
	not_ok "syscalls -s --dry-run: summary at the end of the spec line" "$(cat "$OUT/syscalls-dry-sum.out" "$OUT/syscalls-dry-sum.err")"
fi

run syscalls-help $KPT syscalls --help
run syscalls-help-main $KPT --help
if [ "$rc" = 0 ] && grep -q '^EXAMPLES:' "$OUT/syscalls-help.out" &&
   grep -q 'kptrace syscalls -- ls /tmp' "$OUT/syscalls-help.out" &&
   grep -q '^SYSTEM CALLS:' "$OUT/syscalls-help-main.out" &&
   grep -q 'kptrace syscalls \[OPTION\]... \[--\] \[COMMAND \[ARG\]...\]' "$OUT/syscalls-help-main.out" &&
   [ ! -s "$OUT/syscalls-help.err" ]; then
	ok "syscalls --help: on stdout, with EXAMPLES; kptrace --help names it"
else
	not_ok "syscalls --help: on stdout, with EXAMPLES; kptrace --help names it"
fi

# The live path on kptrace-dyn with test/fakedev.so in place of the module
# (LD_PRELOAD): not the kernel, only what the tool sees of it. The tool
# makes a session, adds the probe with KPT_IOC_ADD (its id 42 is the
# answer: no listing, no error_log, no probe_stats read: sess_ok), its
# records printed, the session closed at the end whatever ended the run; COMMAND's exit status, exec errors,
# signals, -w, the summary from probe_stats; -s on fakedev's canned
# KPT_IOC_SYSSUM answers (its -ENOSPC, -i's intervals, -j), -S;
# --prometheus's file of them (test/expected/syscalls-*.prom).
FAKE_SUMMARY="kptrace: 26 calls seen, 7 shown, 9 filtered, 1 lost (full 1), 1 missed returns, 6 in flight at detach; 2 recorded but not shown (2 left unread)"

# fake_env DIR CMD...: CMD with the fake device, its files in DIR
fake_env()
{
	local dir=$1

	shift
	env LD_PRELOAD="$PWD/test/fakedev.so" \
		FAKEDEV_PATH="$dir/dev" FAKEDEV_DIR="$dir" \
		FAKEDEV_RECORDS="$OUT/syscalls.bin" KPTRACE_DEVICE="$dir/dev" \
		KPTRACE_PROBES="$dir/probes" \
		KPTRACE_PROBE_STATS="$dir/probe_stats" \
		KPTRACE_STATS="$dir/stats" \
		KPTRACE_TRACEFS="$OUT/tracefs" KPTRACE_PROC=/nonexistent "$@"
}

# fake_run NAME CMD...: CMD with the fake device, its files in $OUT/NAME.d
fake_run()
{
	local name=$1 dir=$OUT/$1.d

	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	run "$name" fake_env "$dir" "$@"
	specs=$(sed -E 's/sys_[0-9]+/sys_PID/; s/children=[0-9]+/children=PID/' "$dir/specs" 2>/dev/null)
	fake_dir=$dir
}

# sess_ok [DIR]: the run (fake_run's, or DIR's) made one session and
# closed it (its probes go with it), and opened none of the module's
# debugfs files (probes, probe_stats, stats, error_log): the session's
# ioctls answered all
sess_ok()
{
	local dir=${1:-$fake_dir}

	[ "$(grep -c '^ring_bytes=' "$dir/sessions" 2>/dev/null)" = 1 ] &&
	[ "$(tail -n 1 "$dir/sessions")" = closed ] &&
	! grep -Eq "^($dir/(probes|probe_stats|stats|error_log)|/sys/kernel/debug/kptrace/.*)\$" "$dir/opens"
}

if [ ! -x ./kptrace-dyn ] || [ ! -e test/fakedev.so ]; then
	skip "syscalls live: fake device" "kptrace-dyn or test/fakedev.so not built"
else
	fake_run live-cmd ./kptrace-dyn syscalls -o /dev/stdout -- sh -c 'exit 3'
	if [ "$rc" = 3 ] && cmp -s "$OUT/live-cmd.out" "$EXP/syscalls-replay.out" &&
	   [ "$(cat "$OUT/live-cmd.err")" = "$FAKE_SUMMARY" ] &&
	   [ "$specs" = "s:kptrace/sys_PID children=PID signals denied" ] && sess_ok &&
	   grep -Eq '^s:kptrace/sys_([0-9]+) children=\1 signals denied$' "$OUT/live-cmd.d/specs"; then
		ok "syscalls live: COMMAND's status, its calls, one s line then its delete, the summary"
	else
		not_ok "syscalls live: COMMAND's status, its calls, one s line then its delete, the summary" "rc=$rc $(cat "$OUT/live-cmd.err" "$OUT/live-cmd.d/specs")"
	fi

	fake_run live-noent ./kptrace-dyn syscalls -q -o /dev/null -- /nonexistent/cmd
	noent=$(cat "$OUT/live-noent.err")
	fake_run live-noexec ./kptrace-dyn syscalls -q -o /dev/null -- "$OUT"
	if [ "$(cat "$OUT/live-noexec.err")" = "kptrace: error: $OUT: Permission denied" ] &&
	   [ "$rc" = 126 ] &&
	   [ "$noent" = "kptrace: error: /nonexistent/cmd: No such file or directory" ] &&
	   [ "$(grep -c '' "$OUT/live-noent.d/specs")" = 1 ] &&
	   sess_ok "$OUT/live-noent.d"; then
		ok "syscalls live: exec errors, 127 not found, 126 not runnable, the session closed"
	else
		not_ok "syscalls live: exec errors, 127 not found, 126 not runnable, the session closed" "rc=$rc $noent $(cat "$OUT/live-noexec.err")"
	fi
	fake_run live-killed ./kptrace-dyn syscalls -q -- sh -c 'kill -9 $$'
	if [ "$rc" = 137 ]; then
		ok "syscalls live: COMMAND killed by SIGKILL: exit 137"
	else
		not_ok "syscalls live: COMMAND killed by SIGKILL: exit 137" "rc=$rc"
	fi

	rm -f "$OUT/live-ran"
	fake_run live-refused env FAKEDEV_REFUSE=1 ./kptrace-dyn syscalls -- touch "$OUT/live-ran"
	if [ "$rc" = 1 ] && [ ! -e "$OUT/live-ran" ] && [ -z "$specs" ] &&
	   [ "$(sed -E 's/sys_[0-9]+/sys_PID/g; s/children=[0-9]+/children=PID/g' "$OUT/live-refused.err")" = "kptrace: error: the module refused it (Invalid argument): expected p, r, b or - at the start
  Command: s:kptrace/sys_PID children=PID signals denied
           ^" ] && sess_ok; then
		ok "syscalls live: a refused spec: the module's reason at its column, COMMAND never runs, the session closed"
	else
		not_ok "syscalls live: a refused spec: the module's reason at its column, COMMAND never runs, the session closed" "rc=$rc $(cat "$OUT/live-refused.err")"
	fi

	# -c's bytes are the user's: the spec line carries them escaped
	# (comm=a\xc3\xa9), and the refusal shows that line escaped as text
	# (a\\xc3\\xa9); the module's reason names a word of it (the fake's
	# FAKEDEV_REFUSE_WORD: \xa9, escaped in the message too), and the
	# caret stands under that word's column in the escaped text
	fake_run live-refused-esc env FAKEDEV_REFUSE_WORD='\xa9' ./kptrace-dyn syscalls -p 1 \
		-c "$(printf 'a\303\251')"
	want=$(sed -n 2p "$OUT/live-refused-esc.err" | awk '{ print index($0, "\\\\xa9") - 1 }')
	got=$(sed -n 3p "$OUT/live-refused-esc.err" | awk '{ print index($0, "^") - 1 }')
	if [ "$rc" = 1 ] && [ "$want" -gt 30 ] && [ "$want" = "$got" ] &&
	   [ "$(sed -E '3d; s/sys_[0-9]+/sys_PID/g' "$OUT/live-refused-esc.err")" = 'kptrace: error: the module refused it (No such file or directory): symbol not found: \\xa9
  Command: s:kptrace/sys_PID pid=1 comm=a\\xc3\\xa9 signals denied' ] && sess_ok; then
		ok "syscalls live: a refused line with UTF-8 in -c, shown escaped, the caret under the module's column"
	else
		not_ok "syscalls live: a refused line with UTF-8 in -c, shown escaped, the caret under the module's column" "rc=$rc want=$want got=$got $(cat "$OUT/live-refused-esc.err")"
	fi

	fake_run live-sigterm timeout --preserve-status -s TERM 1 ./kptrace-dyn syscalls -p 1
	if [ "$rc" = 0 ] && cmp -s "$OUT/live-sigterm.out" "$EXP/syscalls-replay.out" &&
	   [ "$specs" = "s:kptrace/sys_PID pid=1 signals denied" ] && sess_ok &&
	   [ "$(sed -E 's/sys_[0-9]+/sys_PID/' "$OUT/live-sigterm.err")" = "kptrace: tracing system calls (s:kptrace/sys_PID pid=1 signals denied)... Hit Ctrl-C to end.
$FAKE_SUMMARY" ]; then
		ok "syscalls live: SIGTERM ends a run without COMMAND, the session closed"
	else
		not_ok "syscalls live: SIGTERM ends a run without COMMAND, the session closed" "rc=$rc $(cat "$OUT/live-sigterm.err"; echo "$specs")"
	fi

	t0=$(date +%s)
	fake_run live-sigterm-cmd timeout --preserve-status -s TERM 1 ./kptrace-dyn syscalls -q -- sleep 20
	t1=$(date +%s)
	if [ "$rc" = 143 ] && [ $((t1 - t0)) -lt 10 ] && [ "$specs" = "s:kptrace/sys_PID children=PID signals denied" ] && sess_ok; then
		ok "syscalls live: SIGTERM to the tool: COMMAND gets SIGTERM, exit 143, the session closed"
	else
		not_ok "syscalls live: SIGTERM to the tool: COMMAND gets SIGTERM, exit 143, the session closed" "rc=$rc $((t1 - t0)) s $(cat "$OUT/live-sigterm-cmd.err")"
	fi

	# the other signals that end a run: the probe goes all the same
	for sig in HUP QUIT USR1 USR2; do
		fake_run live-sig-$sig timeout --preserve-status -s $sig 1 ./kptrace-dyn syscalls -q -p 1
		if [ "$rc" = 0 ] && cmp -s "$OUT/live-sig-$sig.out" "$EXP/syscalls-replay.out" &&
		   [ "$specs" = "s:kptrace/sys_PID pid=1 signals denied" ] && sess_ok; then
			ok "syscalls live: SIG$sig ends the run as Ctrl-C does, the session closed"
		else
			not_ok "syscalls live: SIG$sig ends the run as Ctrl-C does, the session closed" "rc=$rc $(cat "$OUT/live-sig-$sig.err"; echo "$specs")"
		fi
	done

	# a COMMAND that ignores SIGTERM: SIGKILL 5 s later, not a hang
	t0=$(date +%s)
	# (one SIGTERM to the tool alone: timeout(1) also signals its group,
	# and a second stop signal is a reason for SIGKILL at once)
	fake_run live-sigterm-deaf sh -c './kptrace-dyn syscalls -q -o /dev/null -- sh -c "trap \"\" TERM; sleep 30" & p=$!; sleep 1; kill -TERM $p; wait $p'
	t1=$(date +%s)
	if [ "$rc" = 137 ] && [ $((t1 - t0)) -ge 5 ] && [ $((t1 - t0)) -lt 15 ] &&
	   [ "$(cat "$OUT/live-sigterm-deaf.err")" = "kptrace: sh did not end on SIGTERM: sending SIGKILL" ] &&
	   [ "$specs" = "s:kptrace/sys_PID children=PID signals denied" ] && sess_ok; then
		ok "syscalls live: a COMMAND deaf to SIGTERM gets SIGKILL after 5 s, exit 137, the session closed"
	else
		not_ok "syscalls live: a COMMAND deaf to SIGTERM gets SIGKILL after 5 s, exit 137, the session closed" "rc=$rc $((t1 - t0)) s $(cat "$OUT/live-sigterm-deaf.err")"
	fi

	# a closed output pipe (the reader gone before the first line): silent,
	# COMMAND's status stands
	rm -rf "$OUT/live-epipe.d"
	mkdir -p "$OUT/live-epipe.d"
	{ sleep 0.5; fake_env "$OUT/live-epipe.d" ./kptrace-dyn syscalls -q -o /dev/stdout -- sh -c 'exit 3' 2>"$OUT/live-epipe.err"; } | true
	rc_pipe=${PIPESTATUS[0]}
	if [ "$rc_pipe" = 3 ] && [ ! -s "$OUT/live-epipe.err" ]; then
		ok "syscalls live: a closed output pipe ends the output silently, COMMAND's status 3 stands"
	else
		not_ok "syscalls live: a closed output pipe ends the output silently, COMMAND's status 3 stands" "status $rc_pipe $(cat "$OUT/live-epipe.err")"
	fi

	# nothing armed: the -o and -w files are left as they were
	printf 'keep\n' > "$OUT/keep.txt"
	printf 'keep\n' > "$OUT/keep.bin"
	fake_run live-keep-o env FAKEDEV_REFUSE=1 ./kptrace-dyn syscalls -q -o "$OUT/keep.txt" -p 1
	rc_o=$rc
	fake_run live-keep-w env FAKEDEV_REFUSE=1 ./kptrace-dyn syscalls -q -w "$OUT/keep.bin" -p 1
	if [ "$rc_o" = 1 ] && [ "$rc" = 1 ] && [ "$(cat "$OUT/keep.txt")" = keep ] &&
	   [ "$(cat "$OUT/keep.bin")" = keep ] && [ ! -e "$OUT/keep.bin.probes" ]; then
		ok "syscalls live: a refused spec leaves the -o and -w files untouched"
	else
		not_ok "syscalls live: a refused spec leaves the -o and -w files untouched" "rc=$rc_o,$rc $(cat "$OUT/keep.txt" "$OUT/keep.bin" | head -2)"
	fi

	# COMMAND exits, its orphan goes on: the tool does not wait for it
	t0=$(date +%s)
	fake_run live-orphan ./kptrace-dyn syscalls -q -- sh -c 'sleep 20 & exit 0'
	t1=$(date +%s)
	if [ "$rc" = 0 ] && [ $((t1 - t0)) -lt 10 ]; then
		ok "syscalls live: COMMAND's exit ends the run, its orphans are not waited for"
	else
		not_ok "syscalls live: COMMAND's exit ends the run, its orphans are not waited for" "rc=$rc $((t1 - t0)) s"
	fi

	# COMMAND's stdout is its own: the trace on stderr, as strace's
	fake_run live-stdout ./kptrace-dyn syscalls -- sh -c 'echo hello'
	if [ "$rc" = 0 ] && [ "$(cat "$OUT/live-stdout.out")" = hello ] &&
	   [ "$(head -c 6 "$OUT/live-stdout.out" | od -An -c | tr -d ' ')" = 'hello\n' ] &&
	   cmp -s <(head -n 8 "$OUT/live-stdout.err") "$EXP/syscalls-replay.out" &&
	   [ "$(sed -n '9,$p' "$OUT/live-stdout.err")" = "$FAKE_SUMMARY" ]; then
		ok "syscalls live: COMMAND's stdout holds its output alone, the trace is on stderr"
	else
		not_ok "syscalls live: COMMAND's stdout holds its output alone, the trace is on stderr" "rc=$rc $(od -c "$OUT/live-stdout.out" | head -3; cat "$OUT/live-stdout.err")"
	fi

	# -f with COMMAND: the run lasts while a descendant lives
	t0=$(date +%s.%N)
	fake_run live-follow ./kptrace-dyn syscalls -f -q -o /dev/null -- sh -c 'sleep 1.5 & exit 0'
	t1=$(date +%s.%N)
	if [ "$rc" = 0 ] && awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.4 && b - a < 10) }' &&
	   [ "$specs" = "s:kptrace/sys_PID children=PID signals denied" ]; then
		ok "syscalls live -f: COMMAND's run lasts until its last descendant exits"
	else
		not_ok "syscalls live -f: COMMAND's run lasts until its last descendant exits" "rc=$rc $t0 $t1"
	fi

	# -f -p: a probe for the process, one for its descendants
	fake_run live-follow-p timeout --preserve-status -s TERM 0.5 ./kptrace-dyn syscalls -f -q -p $$ -o /dev/null
	# (the tool is under this shell: its own calls left out)
	if [ "$rc" = 0 ] && [ "$(sed -E 's/sys_[0-9]+/sys_PID/; s/exclude=[0-9]+/exclude=TOOL/' "$fake_dir/specs")" = "s:kptrace/sys_PID pid=$$ signals denied
s:kptrace/sys_PID_2 children=$$ exclude=TOOL signals denied" ] &&
	   grep -Eq '^s:kptrace/sys_([0-9]+)_2 children=[0-9]+ exclude=\1 ' "$fake_dir/specs" && sess_ok; then
		ok "syscalls live -f -p: two probes, pid= and children=, one session"
	else
		not_ok "syscalls live -f -p: two probes, pid= and children=, one session" "rc=$rc $specs $(cat "$OUT/live-follow-p.err")"
	fi

	# -s: KPT_IOC_SYSSUM's canned entries (fakedev.c, set 1), after one
	# -ENOSPC; the table as an independent computation made it
	SUM_LINE="kptrace: 30 calls seen, 20 counted in the kernel (all read), 5 filtered, 0 lost, 2 not counted (summary table full), 1 missed returns, 2 in flight at detach"
	fake_run live-sum ./kptrace-dyn syscalls -s -o /dev/stdout -- true
	if [ "$rc" = 0 ] && cmp -s "$OUT/live-sum.out" "$EXP/syscalls-sum.out" &&
	   [ "$(cat "$OUT/live-sum.err")" = "$SUM_LINE" ] &&
	   [ "$specs" = "s:kptrace/sys_PID children=PID summary" ] && sess_ok &&
	   [ "$(cat "$OUT/live-sum.d/syssum")" = "len=2048e ENOSPC size=4096e
len=4096e entries=8 full=2" ]; then
		ok "syscalls live -s: the table of the kernel's counts, -ENOSPC retried, all read, the session closed"
	else
		not_ok "syscalls live -s: the table of the kernel's counts, -ENOSPC retried, all read, the session closed" "rc=$rc $(diff "$EXP/syscalls-sum.out" "$OUT/live-sum.out"; cat "$OUT/live-sum.err" "$OUT/live-sum.d/syssum"; echo "$specs")"
	fi

	# -i 1 for 1.2 s: interval 1 (set 1), the last (set 2), the whole run
	fake_run live-sum-interval ./kptrace-dyn syscalls -s -i 1 -o /dev/stdout -- sleep 1.2
	sed -E 's/\([0-9]+\.[0-9]{3} to [0-9]+\.[0-9]{3} s/(T0 to T1 s/' "$OUT/live-sum-interval.out" >"$OUT/live-sum-interval.sed"
	if [ "$rc" = 0 ] && cmp -s "$OUT/live-sum-interval.sed" "$EXP/syscalls-sum-interval.out" &&
	   [ "$(cat "$OUT/live-sum-interval.err")" = "kptrace: 32 calls seen, 22 counted in the kernel (all read), 5 filtered, 0 lost, 2 not counted (summary table full), 1 missed returns, 2 in flight at detach" ] &&
	   grep -Eq '^ Summary of events, interval 2 \(1\.[0-9]{3} to 1\.[0-9]{3} s\):$' "$OUT/live-sum-interval.out"; then
		ok "syscalls live -s -i 1: two intervals, then the whole run's table"
	else
		not_ok "syscalls live -s -i 1: two intervals, then the whole run's table" "rc=$rc $(diff "$EXP/syscalls-sum-interval.out" "$OUT/live-sum-interval.sed"; cat "$OUT/live-sum-interval.err")"
	fi

	fake_run live-sum-json ./kptrace-dyn syscalls -s -j -i 1 -q -o /dev/stdout -- sleep 1.2
	d=$(python3 - "$OUT/live-sum-json.out" <<'EOF' 2>&1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], "rb")]
keys = ["interval", "pid", "comm", "syscall", "calls", "errors", "total_ns",
        "min_ns", "max_ns", "stddev_pct"]
assert all(list(r) == keys for r in rows), rows
assert [r["interval"] for r in rows] == [1] * 6 + [2] * 2 + [0] * 7, rows
calls = {}
for r in rows:
    k = (r["interval"] > 0, r["pid"], r["syscall"])
    calls[k] = calls.get(k, 0) + r["calls"]
assert all(calls[(True,) + k[1:]] == v for k, v in calls.items()
           if not k[0]), calls
read = [r for r in rows if r["interval"] == 0 and r["syscall"] == "read"]
assert read == [dict(interval=0, pid=1234, comm="dd", syscall="read",
                     calls=6, errors=0, total_ns=8700, min_ns=500,
                     max_ns=3000, stddev_pct=64.51)], read
assert rows[4]["comm"] == "c\\at\x1b[2J", rows[4]
EOF
)
	if [ "$rc" = 0 ] && [ -z "$d" ] && [ ! -s "$OUT/live-sum-json.err" ]; then
		ok "syscalls live -s -j -i 1: the rows of each interval, then the whole run's (0)"
	else
		not_ok "syscalls live -s -j -i 1: the rows of each interval, then the whole run's (0)" "rc=$rc $d $(cat "$OUT/live-sum-json.err")"
	fi

	fake_run live-sum-sigterm timeout --preserve-status -s TERM 0.5 ./kptrace-dyn syscalls -s -p 1
	if [ "$rc" = 0 ] && cmp -s "$OUT/live-sum-sigterm.out" "$EXP/syscalls-sum.out" &&
	   [ "$specs" = "s:kptrace/sys_PID pid=1 summary" ] && sess_ok &&
	   [ "$(sed -E 's/sys_[0-9]+/sys_PID/' "$OUT/live-sum-sigterm.err")" = "kptrace: counting system calls (s:kptrace/sys_PID pid=1 summary)... Hit Ctrl-C to end.
$SUM_LINE" ]; then
		ok "syscalls live -s: SIGTERM ends a run without COMMAND, the table, the session closed"
	else
		not_ok "syscalls live -s: SIGTERM ends a run without COMMAND, the table, the session closed" "rc=$rc $(cat "$OUT/live-sum-sigterm.err"; echo "$specs")"
	fi

	fake_run live-sum-full ./kptrace-dyn syscalls -s -q -o /dev/full -- true
	if [ "$rc" = 1 ] && [ "$specs" = "s:kptrace/sys_PID children=PID summary" ] && sess_ok &&
	   [ "$(cat "$OUT/live-sum-full.err")" = "kptrace: error: cannot write /dev/full: No space left on device" ]; then
		ok "syscalls live -s: a full output is one error, exit 1, the session closed"
	else
		not_ok "syscalls live -s: a full output is one error, exit 1, the session closed" "rc=$rc $(cat "$OUT/live-sum-full.err")"
	fi

	# -S: the lines, then the table the tool counts from them
	fake_run live-with-sum ./kptrace-dyn syscalls -S -o /dev/stdout -- sh -c 'exit 3'
	if [ "$rc" = 3 ] && cmp -s "$OUT/live-with-sum.out" "$EXP/syscalls-replay-sum.out" &&
	   [ "$(cat "$OUT/live-with-sum.err")" = "$FAKE_SUMMARY" ] &&
	   [ "$specs" = "s:kptrace/sys_PID children=PID signals denied" ] && sess_ok; then
		ok "syscalls live -S: one probe with records, the lines, then their table"
	else
		not_ok "syscalls live -S: one probe with records, the lines, then their table" "rc=$rc $(cat "$OUT/live-with-sum.err"; echo "$specs")"
	fi

	# --prometheus, -i 1 for 2.5 s: the file after interval 1 (set 1),
	# after interval 2 and at the end (sets 1 and 2), each a new file (a
	# rename: a new inode), each seen whole; the counters are the whole
	# run's though -i clears its tables; the escaped comm; no table on
	# stdout; no temporary file left
	PD=$OUT/live-prom.d
	rm -rf "$PD"
	mkdir -p "$PD/prom"
	fake_env "$PD" ./kptrace-dyn syscalls -s -i 1 --prometheus "$PD/prom" \
		-- sleep 2.5 >"$OUT/live-prom.out" 2>"$OUT/live-prom.err" &
	bg=$!
	last=
	k=0
	while :; do
		running=
		kill -0 $bg 2>/dev/null && running=1
		ino=$(stat -c %i "$PD/prom/kptrace_syscalls.prom" 2>/dev/null)
		if [ -n "$ino" ] && [ "$ino" != "$last" ] &&
		   cp "$PD/prom/kptrace_syscalls.prom" "$PD/v$((k + 1))" 2>/dev/null; then
			k=$((k + 1))
			last=$ino
		fi
		[ -n "$running" ] || break
		sleep 0.02
	done
	wait $bg
	rc=$?
	d=$(same "$PD/v1" "$EXP/syscalls-prom-1.prom")
	[ -z "$d" ] && d=$(same "$PD/prom/kptrace_syscalls.prom" "$EXP/syscalls-prom.prom")
	for i in $(seq 2 $k); do
		cmp -s "$PD/v$i" "$EXP/syscalls-prom.prom" ||
			d="$d
version $i of $k is neither file: $(diff "$EXP/syscalls-prom.prom" "$PD/v$i" | head -5)"
	done
	if [ "$rc" = 0 ] && [ -z "$d" ] && [ "$k" -ge 2 ] && [ "$k" -le 3 ] &&
	   [ ! -s "$OUT/live-prom.out" ] &&
	   [ "$(cat "$OUT/live-prom.err")" = "kptrace: 32 calls seen, 22 counted in the kernel (all read), 5 filtered, 0 lost, 2 not counted (summary table full), 1 missed returns, 2 in flight at detach" ] &&
	   [ "$(ls -A "$PD/prom")" = kptrace_syscalls.prom ] &&
	   [ "$(stat -c %a "$PD/prom/kptrace_syscalls.prom")" = 644 ]; then
		ok "syscalls live -s -i 1 --prometheus: the file every interval, counters of the whole run, swapped whole"
	else
		not_ok "syscalls live -s -i 1 --prometheus: the file every interval, counters of the whole run, swapped whole" "rc=$rc, $k versions, $(ls -A "$PD/prom") $d
$(cat "$OUT/live-prom.out" "$OUT/live-prom.err")"
	fi

	# node_exporter's textfile collector reads it, as it is
	EXPORTER=/usr/bin/prometheus-node-exporter
	if [ ! -x "$EXPORTER" ] || ! command -v curl >/dev/null; then
		skip "syscalls --prometheus: node_exporter's textfile collector reads it" \
			"prometheus-node-exporter or curl not installed"
	else
		scraped=
		scrape_textfiles "$PD/prom" "$OUT/sys-metrics.txt" \
			"$OUT/sys-exporter.log" && scraped=1
		missing=
		for want in 'node_textfile_scrape_error 0' \
			    'kptrace_syscall_seen_total 32' \
			    'kptrace_syscall_table_full_total 2' \
			    'kptrace_syscall_missed_total{cause="return"} 1' \
			    'kptrace_syscall_calls_total{comm="c\\x5cat\\x1b[2J",pid="99",syscall="openat"} 7' \
			    'kptrace_syscall_errors_total{comm="c\\x5cat\\x1b[2J",pid="99",syscall="openat"} 3' \
			    'kptrace_syscall_latency_seconds_bucket{comm="dd",pid="1234",syscall="write",le="1.6384e-05"} 4' \
			    'kptrace_syscall_latency_seconds_bucket{comm="sh",pid="99",syscall="execve",le="0.000262144"} 1' \
			    'kptrace_syscall_latency_seconds_bucket{comm="dd",pid="1234",syscall="nanosleep",le="8.589934592"} 2' \
			    'kptrace_syscall_latency_seconds_bucket{comm="dd",pid="1234",syscall="read",le="+Inf"} 6' \
			    'kptrace_syscall_latency_seconds_sum{comm="dd",pid="1234",syscall="read"} 8.7e-06' \
			    'kptrace_syscall_latency_seconds_count{comm="sleep",pid="7",syscall="clock_nanosleep"} 1'; do
			grep -qxF "$want" "$OUT/sys-metrics.txt" 2>/dev/null || missing="$missing
$want"
		done
		dup=$(grep -E '^# (HELP|TYPE) kptrace_' "$OUT/sys-metrics.txt" 2>/dev/null |
		      awk '{ print $2, $3 }' | sort | uniq -d)
		if [ -n "$scraped" ] && [ -z "$missing$dup" ]; then
			ok "syscalls --prometheus: node_exporter's textfile collector reads it"
		else
			not_ok "syscalls --prometheus: node_exporter's textfile collector reads it" \
				"scraped=$scraped missing:$missing
$dup
$(grep -iE 'error|collid|inconsist' "$OUT/sys-exporter.log" | head -5)"
		fi
	fi

	# without -i: once, at the end; -j's rows still printed
	fake_run live-prom-once ./kptrace-dyn syscalls -s -j -q -o /dev/stdout --prometheus "$OUT/live-prom-once.d" -- true
	rc1=$rc
	fake_run live-prom-once-ref ./kptrace-dyn syscalls -s -j -q -o /dev/stdout -- true
	if [ "$rc1" = 0 ] && [ "$rc" = 0 ] && [ -s "$OUT/live-prom-once.out" ] &&
	   cmp -s "$OUT/live-prom-once.out" "$OUT/live-prom-once-ref.out" &&
	   cmp -s "$OUT/live-prom-once.d/kptrace_syscalls.prom" "$EXP/syscalls-prom-1.prom"; then
		ok "syscalls live -s --prometheus: without -i, the file at the end; -j's rows printed"
	else
		not_ok "syscalls live -s --prometheus: without -i, the file at the end; -j's rows printed" "rc=$rc1 $(diff "$EXP/syscalls-prom-1.prom" "$OUT/live-prom-once.d/kptrace_syscalls.prom"; cat "$OUT/live-prom-once.err")"
	fi

	# a write that fails (the file's name is a directory): said, exit 1,
	# the session closed, no temporary file left
	mkdir -p "$OUT/live-prom-fail.p/kptrace_syscalls.prom"
	fake_run live-prom-fail ./kptrace-dyn syscalls -s -q --prometheus "$OUT/live-prom-fail.p" -- true
	if [ "$rc" = 1 ] && [ ! -s "$OUT/live-prom-fail.out" ] &&
	   [ "$(cat "$OUT/live-prom-fail.err")" = "kptrace: cannot write $OUT/live-prom-fail.p/kptrace_syscalls.prom: Is a directory" ] &&
	   [ "$(ls -A "$OUT/live-prom-fail.p")" = kptrace_syscalls.prom ] &&
	   [ "$specs" = "s:kptrace/sys_PID children=PID summary" ] && sess_ok; then
		ok "syscalls live -s --prometheus: a failed write is one error, exit 1, the session closed"
	else
		not_ok "syscalls live -s --prometheus: a failed write is one error, exit 1, the session closed" "rc=$rc $(cat "$OUT/live-prom-fail.err"; ls -A "$OUT/live-prom-fail.p")"
	fi

	# -S: the lines, no table; the file of the calls the tool printed,
	# with the books of the probe with records
	mkdir -p "$OUT/live-with-sum-prom.p"
	fake_run live-with-sum-prom ./kptrace-dyn syscalls -S -o /dev/stdout --prometheus "$OUT/live-with-sum-prom.p" -- sh -c 'exit 3'
	d=$(same "$OUT/live-with-sum-prom.p/kptrace_syscalls.prom" "$EXP/syscalls-with-sum-prom.prom")
	if [ "$rc" = 3 ] && [ -z "$d" ] &&
	   cmp -s "$OUT/live-with-sum-prom.out" "$EXP/syscalls-replay.out" &&
	   [ "$(cat "$OUT/live-with-sum-prom.err")" = "$FAKE_SUMMARY" ]; then
		ok "syscalls live -S --prometheus: the lines, and the file of their counts"
	else
		not_ok "syscalls live -S --prometheus: the lines, and the file of their counts" "rc=$rc $d $(cat "$OUT/live-with-sum-prom.err")"
	fi

	fake_run live-save ./kptrace-dyn syscalls -w "$OUT/live-save.bin" -- true
	run live-save-replay env KPTRACE_TRACEFS="$OUT/tracefs" $KPT syscalls -r "$OUT/live-save.bin" -q
	if [ "$rc" = 0 ] && cmp -s "$OUT/live-save-replay.out" "$EXP/syscalls-replay.out" &&
	   grep -Eq '^s:kptrace/sys_([0-9]+) children=\1 signals denied # id=42 ' "$OUT/live-save.bin.probes" &&
	   [ "$(stat -c %a "$OUT/live-save.bin.probes")" = 600 ] &&
	   [ "$(cat "$OUT/live-save.err")" = "kptrace: 26 calls seen, 7 saved, 9 filtered, 1 lost (full 1), 1 missed returns, 6 in flight at detach; 2 recorded but not saved (2 left unread)" ]; then
		ok "syscalls live: -w saves the probe's records (not another probe's) and FILE.probes"
	else
		not_ok "syscalls live: -w saves the probe's records (not another probe's) and FILE.probes" "$(cat "$OUT/live-save.err" "$OUT/live-save-replay.err")"
	fi
fi

# --flight: test/flight.sh (the fake device's too)
. test/flight.sh

# --- typed records -----------------------------------------------------------

test/gen_trace typed "$OUT/typed.bin"
typed_env="KPTRACE_PROBES=$DATA/probes-typed KPTRACE_BTF_DIR=$OUT/btf"
# shellcheck disable=SC2086
check_run typed 0 env $typed_env $KPT -r "$OUT/typed.bin"
# shellcheck disable=SC2086
check_run typed-json 0 env $typed_env $KPT -r "$OUT/typed.bin" -j --no-stack -q

d=$(python3 - "$OUT/typed-json.out" <<'EOF' 2>&1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], "rb")]
f = [e["fields"] for e in ev]
assert f[0] == {"dfd": -100, "file": "/etc/passwd", "flags": "0x8000",
                "mode": 420, "caller": "do_sys_open+0x10/0x50", "c": "cat"}, f[0]
assert f[1]["file"] == 'a"b\\c\n\x01\xff\x00z' and f[1]["file_truncated"] is True, f[1]
assert f[1]["caller"] == "kpt_test_func+0x4/0x40 [kpt_test]", f[1]
assert f[2]["file"] is None and f[2]["c"] is None and f[2]["caller"] == "0x10", f[2]
assert ev[3]["type"] == "return" and ev[3]["id"] == 1000000 and ev[3]["ret"] == -2
assert f[3] == {"dfd": -100, "file": "/tmp/x", "rv": -2}, f[3]
assert f[4]["file_truncated"] is True
assert f[5] == {"dfd": -100, "filename": "0x7ffc12345678", "how": "0xffff888012345678"}, f[5]
assert ev[5]["args"] == [0xffffff9c, 0x7ffc12345678, 0xffff888012345678, 4, 5, 6]
assert f[6] == dict(zip("abcdef", [1, 0x1111, 0x2222, 0x3333, 0x4444, 0x5555])), f[6]
assert ev[7]["probe"] == "probe99" and f[7] == {"arg0": "0x1", "arg1": "0x1111"}
EOF
)
if [ -z "$d" ]; then
	ok "typed json: fields by type, strings, null on fault, truncation"
else
	not_ok "typed json: fields by type, strings, null on fault, truncation" "$d"
fi

# the kernel's own text for these records: no BTF names, no call trace
run typed-nobtf env KPTRACE_PROBES=$DATA/probes-typed $KPT -r "$OUT/typed.bin" --no-stack -q
if [ "$rc" = 0 ] &&
   grep -qx 'ls-501 \[001\] 3.000000: do_sys_openat2: arg0=0xffffff9c arg1=0x7ffc12345678 arg2=0xffff888012345678 arg3=0x4 arg4=0x5 arg5=0x6' "$OUT/typed-nobtf.out"; then
	ok "typed: without BTF, legacy probes show arg0.. as the module does"
else
	not_ok "typed: without BTF, legacy probes show arg0.. as the module does" "$(cat "$OUT/typed-nobtf.out")"
fi

run typed-nobtf-note env KPTRACE_PROBES=$DATA/probes-typed KPTRACE_BTF_DIR=/nonexistent $KPT -r "$OUT/typed.bin" --no-stack
if [ "$(grep -c 'no BTF' "$OUT/typed-nobtf-note.err")" = 1 ] &&
   grep -qx 'kptrace: no BTF (cannot read /nonexistent/vmlinux: No such file or directory): name=/address= probes show arg0.. as recorded' "$OUT/typed-nobtf-note.err"; then
	ok "typed: missing BTF said once"
else
	not_ok "typed: missing BTF said once" "$(cat "$OUT/typed-nobtf-note.err")"
fi

# -w FILE saves FILE.probes (with the BTF names); -r FILE uses it elsewhere
# shellcheck disable=SC2086
run save-probes env $typed_env $KPT -r "$OUT/typed.bin" -w "$OUT/saved.bin" -q
run replay-probes env KPTRACE_PROBES=/nonexistent KPTRACE_BTF_DIR=/nonexistent $KPT -r "$OUT/saved.bin"
if [ -s "$OUT/saved.bin.probes" ] &&
   grep -qx '# id=3 btf=dfd:s32,filename:x64,how:x64 shown=3' "$OUT/saved.bin.probes" &&
   cmp -s "$OUT/replay-probes.out" "$OUT/typed.out" &&
   [ "$(stat -c %a "$OUT/saved.bin.probes")" = 600 ]; then
	ok "save: FILE.probes, then -r FILE decodes the same without the module or BTF"
else
	not_ok "save: FILE.probes, then -r FILE decodes the same without the module or BTF" "$(cat "$OUT/saved.bin.probes"; diff "$OUT/replay-probes.out" "$OUT/typed.out")"
fi

# a legacy return of a function returning int: ret= as BTF types it
test/gen_trace ret32 "$OUT/ret32.bin"
run ret32 env KPTRACE_PROBES=$DATA/probes-ret32 KPTRACE_BTF_DIR=$OUT/btf $KPT -r "$OUT/ret32.bin" -q
run ret32-json env KPTRACE_PROBES=$DATA/probes-ret32 KPTRACE_BTF_DIR=$OUT/btf $KPT -r "$OUT/ret32.bin" -q -j
run ret32-save env KPTRACE_PROBES=$DATA/probes-ret32 KPTRACE_BTF_DIR=$OUT/btf $KPT -r "$OUT/ret32.bin" -q -w "$OUT/ret32-saved.bin"
run ret32-replay env KPTRACE_PROBES=/nonexistent KPTRACE_BTF_DIR=/nonexistent $KPT -r "$OUT/ret32-saved.bin" -q
run ret32-nobtf env KPTRACE_PROBES=$DATA/probes-ret32 KPTRACE_BTF_DIR=/nonexistent $KPT -r "$OUT/ret32.bin" -q
if grep -q ': many_args: ret=-2 lat_ns=500$' "$OUT/ret32.out" &&
   grep -q ': many_args: ret=7 lat_ns=500$' "$OUT/ret32.out" &&
   grep -q '"ret":-2,' "$OUT/ret32-json.out" &&
   grep -q '^# id=2 btf=a:s32,b:s64 ret=s32 shown=2$' "$OUT/ret32-saved.bin.probes" &&
   cmp -s "$OUT/ret32-replay.out" "$OUT/ret32.out" &&
   grep -q ': many_args: ret=4294967294 lat_ns=500$' "$OUT/ret32-nobtf.out"; then
	ok "ret32: an int function's return shown as int by BTF, saved with -w, raw without BTF"
else
	not_ok "ret32: an int function's return shown as int by BTF, saved with -w, raw without BTF" \
		"$(cat "$OUT/ret32.out" "$OUT/ret32-json.out" "$OUT/ret32-saved.bin.probes" "$OUT/ret32-nobtf.out" 2>&1)"
fi

# --- untrusted listings: a crafted FILE.probes ------------------------------

# labels and BTF names with terminal escapes (OSC, CSI, C1 CSI, CR, BEL):
# text shows them as \xNN, JSON as \u00XX, never raw; then -w saves the
# listing as it is, and -r of the copy shows the same
test/gen_trace names "$OUT/names.bin"
{
	# an id listed twice: the later line is the probe
	printf 'p:kptrace/old do_sys_openat2 # id=2 label=superseded at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=1 missed=0\n'
	printf 'p:kptrace/evil do_sys_openat2 a=$arg1:x64 b=$arg2:x64 # id=0 label=ev\033]0;pwned\007il at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=1 missed=0\n'
	printf 'p:kptrace/do_sys_openat2 do_sys_openat2 arg0=$arg1:x64 arg1=$arg2:x64 # id=1 at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=1 missed=0\n'
	printf 'p:kptrace/x do_sys_openat2 a=$arg1:x64 # id=2 label=x\233\rback\\slash at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=1 missed=0\n'
	printf '# id=1 btf=d\033[2Jfd:s32,fi\\le:x64 shown=2\n'
} >"$OUT/names.bin.probes"
check_run names 0 $KPT -r "$OUT/names.bin" -q
run names-save $KPT -r "$OUT/names.bin" -q -w "$OUT/names-copy.bin"
run names-copy $KPT -r "$OUT/names-copy.bin" -q
d=$(diff "$OUT/names.out" "$OUT/names-copy.out")
run names-json $KPT -r "$OUT/names.bin" -q -j
d=$d$(LC_ALL=C grep -n '[^ -~]' "$OUT/names.out" | cat -v)
d=$d$(python3 - "$OUT/names-json.out" <<'EOF' 2>&1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], "rb")]
assert [e["probe"] for e in ev[::2]] == \
    ["ev\x1b]0;pwned\x07il", "do_sys_openat2", "x\x9b\rback\\slash"], ev
assert list(ev[2]["fields"]) == ["d\x1b[2Jfd", "fi\\le"], ev[2]
EOF
)
if [ "$rc" = 0 ] && [ -z "$d" ] && ! LC_ALL=C grep -q '[^ -~]' "$OUT/names-json.out"; then
	ok "names: a crafted FILE.probes's escapes are shown escaped, text, JSON, -w copy"
else
	not_ok "names: a crafted FILE.probes's escapes are shown escaped, text, JSON, -w copy" "$d"
fi

# untrusted text (issue 21): comms and string arguments holding ESC [2J,
# the C1 CSI as UTF-8 (c2 9b), an OSC, a newline and a backslash. Text:
# printable ASCII only (no ESC, no byte 0x80-0x9f, no newline inside a
# line), \xNN and \\ as the module's trace file; JSON: valid, and it
# decodes to the very bytes (\u00NN each)
test/gen_trace evil "$OUT/evil.bin"
# shellcheck disable=SC2086
check_run evil 0 env $typed_env $KPT -r "$OUT/evil.bin" --no-stack -q
# shellcheck disable=SC2086
run evil-json env $typed_env $KPT -r "$OUT/evil.bin" -j --no-stack -q
d=$(LC_ALL=C grep -n '[^ -~]' "$OUT/evil.out" | cat -v)
[ "$(wc -l <"$OUT/evil.out")" = 10 ] ||
	d="$d
$(wc -l <"$OUT/evil.out") lines for 10 events"
grep -qxF '\x1b[2J-501 [001] 1.000000: open: dfd=-100 file="\x1b[2J" flags=0x0 mode=0 caller=0x10 c="\x1b[2J"' "$OUT/evil.out" &&
grep -qxF '\xc2\x9b31m-501 [001] 1.000001: ropen: ret=-2 lat_ns=100 dfd=-100 file="\xc2\x9b31m" rv=0' "$OUT/evil.out" &&
grep -qF 'a\x0ab-501 [001] 1.000002: open: dfd=-100 file="a\x0ab"' "$OUT/evil.out" &&
grep -qF 'back\\slash-501 [001] 1.000003: open: dfd=-100 file="back\\slash"' "$OUT/evil.out" ||
	d="$d
$(cat -v "$OUT/evil.out")"
d=$d$(python3 - "$OUT/evil-json.out" <<'PY' 2>&1
import json, sys
evil = [b"\x1b[2J", b"\xc2\x9b31m", b"a\nb", b"back\\slash",
        b"\x1b]0;pwned\x07"]
raw = open(sys.argv[1], "rb").read().splitlines()
assert len(raw) == 10, len(raw)
for line in raw:
    assert all(0x20 <= b < 0x7f for b in line), line
ev = [json.loads(l) for l in raw]
for i, e in enumerate(ev):
    want = evil[i // 2]
    assert e["comm"].encode("latin-1") == want, (e["comm"], want)
    assert e["fields"]["file"].encode("latin-1") == want, e["fields"]
    if e["type"] == "entry":
        assert e["fields"]["c"].encode("latin-1") == want, e["fields"]
PY
)
if [ "$rc" = 0 ] && [ -z "$d" ]; then
	ok "evil: comm and strings with terminal escapes, escaped in text and JSON"
else
	not_ok "evil: comm and strings with terminal escapes, escaped in text and JSON" "$d"
fi

# 20000 records, half of them of ids the listing lacks, each once, and a
# listing of 50000 probes in falling id order: the listing is read once
# and sorted once (it was read again for each unknown id: hours, not
# seconds)
GEN_COUNT=20000 test/gen_trace many-ids "$OUT/many.bin"
awk 'BEGIN { for (i = 49999; i >= 0; i--) printf "p:kptrace/p%d do_sys_openat2 a=$arg1:x64 # id=%d at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=1 missed=0\n", i, i }' \
	>"$OUT/many.bin.probes"
t0=$(date +%s)
run many-ids timeout -s KILL 60 $KPT -r "$OUT/many.bin" -q
t1=$(date +%s)
opens=
if command -v strace >/dev/null; then
	timeout -s KILL 60 strace -f -e trace=open,openat \
		-o "$OUT/many-strace.log" $KPT -r "$OUT/many.bin" -q \
		>/dev/null 2>&1
	opens=$(grep -c 'many\.bin\.probes"' "$OUT/many-strace.log")
fi
if [ "$rc" = 0 ] && [ "$(wc -l <"$OUT/many-ids.out")" = 20000 ] &&
   [ "$(sed -n 1p "$OUT/many-ids.out")" = "kpt_test-78 [000] 0.000001: probe1000001: arg0=0xffffff9c" ] &&
   [ "$(sed -n 20000p "$OUT/many-ids.out")" = "kpt_test-78 [000] 0.020000: p20000: a=0xffffff9c" ] &&
   { [ -z "$opens" ] || [ "$opens" = 1 ]; }; then
	ok "many unknown ids: the saved listing is read once ($((t1 - t0)) s${opens:+, opened $opens time})"
else
	not_ok "many unknown ids: the saved listing is read once" \
		"rc=$rc $((t1 - t0)) s, FILE.probes opened ${opens:-?} times, $(wc -l <"$OUT/many-ids.out") lines"
fi

# --stats: the per-probe counters after the module's
check_run stats-probes 0 $KPT --stats

# --- probe add / del / list / clear -------------------------------------------

export KPTRACE_BTF_DIR=$OUT/btf
check_run probe-add-btf 0 $KPT probe add -n 'p do_sys_openat2 dfd filename:ustring' \
	'r:ro do_sys_openat2 dfd $retval if retval < 0' \
	'p kpt_test:kpt_test_func a f' 'p many_args g h' 'p cpu_fn cpu' \
	'p:j do_sys_openat2 j=@jiffies:u64 v=+8(@kpt_test:kpt_var)' \
	'p:raw do_sys_openat2 %di:s32 $arg2:ustring'

# errors: the message, the user's line, a caret under the column
check_run probe-add-errors 1 $KPT probe add -n 'p do_sys_openat2 dfd %zz'
check_run probe-add-err-btf 1 $KPT probe add -n 'p do_sys_openat2 fd'
check_run probe-add-err-nobtf 1 env KPTRACE_BTF_DIR=/nonexistent $KPT probe add -n 'p do_sys_openat2 dfd'
check_run probe-add-err-offset 1 $KPT probe add -n 'p do_sys_openat2+4 dfd'
check_run probe-add-err-sym 1 $KPT probe add -n 'p do_sys_openat2 @dup_sym'
check_run probe-add-err-parse 1 $KPT probe add -n 'r:x f+4 $arg1'
# a refused line is shown escaped as untrusted text, the caret where its
# column went: after \xc3\xa9 and \\\\ (8 more), on the zz
check_msg probe-add-err-escaped 1 'kptrace: error: unknown field
  Command: p:x f if comm == "\xc3\xa9\\\\" && zz == 1
                                              ^' \
	$KPT probe add -n "$(printf 'p:x f if comm == "\303\251\\\\" && zz == 1')"
check_msg probe-add-err-control 1 'kptrace: error: a comm glob cannot hold control characters (write them \xNN)
  Command: p:x f if comm == a\x1b[2J
                             ^' \
	$KPT probe add -n "$(printf 'p:x f if comm == a\033[2J')"

# globs, against the fake available_filter_functions, blacklist, kallsyms
export KPTRACE_KALLSYMS=$DATA/kallsyms-glob
check_run probe-glob 0 $KPT probe add -n 'p:vfs vfs_*' 'p ext4:ext4_*' \
	'p:g/w vfs_wr* file count'
check_msg probe-glob-max 1 \
	"kptrace: 'vfs_*' matches 2 functions, more than --max 1: narrow the glob or raise --max" \
	$KPT probe add -n -q 'p:vfs vfs_*' --max 1
check_msg probe-glob-none 1 \
	"kptrace: 'nothing*' matches no function that can be probed" \
	$KPT probe add -n -q 'p nothing*'
check_msg probe-glob-offset 1 "kptrace: error: a glob takes no +OFFS
  Command: p vfs_*+4
             ^" $KPT probe add -n 'p vfs_*+4'
check_msg probe-glob-noaff 1 \
	"kptrace: cannot read /nonexistent (No such file or directory): globs need tracefs (mount -t tracefs none /sys/kernel/tracing) and root" \
	env KPTRACE_FILTER_FUNCTIONS=/nonexistent $KPT probe add -n 'p vfs_*'
export KPTRACE_KALLSYMS=$DATA/kallsyms

# adds: the translated lines, one KPT_IOC_ADD each, in order, on the fake
# device (the default session: no KPT_IOC_SESSION), answered in the call:
# no error_log read
if [ ! -x ./kptrace-dyn ] || [ ! -e test/fakedev.so ]; then
	skip "probe add: KPT_IOC_ADD of the translated lines" "kptrace-dyn or test/fakedev.so not built"
else
	fake_run probe-add ./kptrace-dyn probe add 'p:a do_sys_openat2 dfd' \
		'p:b do_sys_openat2 $arg2:ustring'
	if [ "$rc" = 0 ] && [ "$(cat "$OUT/probe-add.err")" = "kptrace: added 2 probes" ] &&
	   [ "$specs" = 'p:a do_sys_openat2 dfd=$arg1:s32
p:b do_sys_openat2 $arg2:ustring' ] && [ ! -e "$OUT/probe-add.d/sessions" ] &&
	   ! grep -q 'error_log' "$OUT/probe-add.d/opens"; then
		ok "probe add: one KPT_IOC_ADD per translated line, the default session, no error_log read"
	else
		not_ok "probe add: one KPT_IOC_ADD per translated line, the default session, no error_log read" "rc=$rc $(cat "$OUT/probe-add.err"; echo "$specs")"
	fi

	i=0
	: >"$OUT/many.spec"
	while [ $i -lt 300 ]; do
		echo "p:probe_number_$i do_sys_openat2 dfd filename:ustring" >>"$OUT/many.spec"
		i=$((i + 1))
	done
	fake_run probe-add-many ./kptrace-dyn probe add -q -f "$OUT/many.spec"
	if [ "$rc" = 0 ] && [ "$(grep -c '' "$OUT/probe-add-many.d/specs")" = 300 ] &&
	   [ "$(sed -n '300p' "$OUT/probe-add-many.d/specs")" = 'p:probe_number_299 do_sys_openat2 dfd=$arg1:s32 filename=$arg2:ustring' ] &&
	   [ ! -s "$OUT/probe-add-many.err" ]; then
		ok "probe add -f: 300 lines, 300 adds in order"
	else
		not_ok "probe add -f: 300 lines, 300 adds in order" "rc=$rc $(tail -3 "$OUT/probe-add-many.err")"
	fi

	# the module's reason, at its column, under the user's own text:
	# the BTF names made it longer, the caret is under the user's word
	fake_run probe-add-refused env FAKEDEV_REFUSE_WORD=vfs_nosuch ./kptrace-dyn \
		probe add 'p:a do_sys_openat2 dfd' 'p:b vfs_nosuch' 'p:c do_sys_openat2'
	if [ "$rc" = 1 ] && [ "$specs" = 'p:a do_sys_openat2 dfd=$arg1:s32' ] &&
	   [ "$(cat "$OUT/probe-add-refused.err")" = "kptrace: error: the module refused it (No such file or directory): symbol not found: vfs_nosuch
  Command: p:b vfs_nosuch
               ^
kptrace: 1 of 3 lines were applied before it (kptrace probe list)" ]; then
		ok "probe add: the second of three lines refused: the module's reason under its column, the first applied"
	else
		not_ok "probe add: the second of three lines refused: the module's reason under its column, the first applied" "rc=$rc specs=$specs $(cat "$OUT/probe-add-refused.err")"
	fi

	fake_run probe-add-caret env FAKEDEV_REFUSE_WORD='zz=' ./kptrace-dyn \
		probe add 'p:a do_sys_openat2 dfd zz=$arg2'
	if [ "$rc" = 1 ] && [ -z "$specs" ] &&
	   [ "$(cat "$OUT/probe-add-caret.err")" = 'kptrace: error: the module refused it (No such file or directory): symbol not found: zz=
  Command: p:a do_sys_openat2 dfd zz=$arg2
                                  ^' ]; then
		ok "probe add: a column of the translated line (after dfd=\$arg1:s32) shown under the user's"
	else
		not_ok "probe add: a column of the translated line (after dfd=\$arg1:s32) shown under the user's" "rc=$rc $(cat "$OUT/probe-add-caret.err")"
	fi

	fake_run probe-add-old env FAKEDEV_OLD=1 ./kptrace-dyn probe add 'p:a do_sys_openat2'
	if [ "$rc" = 1 ] && [ -z "$specs" ] &&
	   [ "$(cat "$OUT/probe-add-old.err")" = "kptrace: the kptrace module is too old for sessions: reload it" ]; then
		ok "probe add: a module without KPT_IOC_ADD: reload it, exit 1"
	else
		not_ok "probe add: a module without KPT_IOC_ADD: reload it, exit 1" "rc=$rc $(cat "$OUT/probe-add-old.err")"
	fi

	fake_run probe-del-fake ./kptrace-dyn probe del a
	if [ "$rc" = 1 ] && [ "$(cat "$OUT/probe-del-fake.err")" = "kptrace: error: the module refused it (No such file or directory): no probe a
  Command: -:a
             ^" ]; then
		ok "probe del: a name the module does not have: its reason at its column"
	else
		not_ok "probe del: a name the module does not have: its reason at its column" "rc=$rc $(cat "$OUT/probe-del-fake.err")"
	fi
fi

# a regular file is no module: it answers no KPT_IOC_ADD
: >"$OUT/dev"
check_msg probe-refused 1 "kptrace: the kptrace module is too old for sessions: reload it" \
	env KPTRACE_DEVICE="$OUT/dev" $KPT probe add 'p:a do_sys_openat2'
check_msg probe-nodev 1 \
	"kptrace: $OUT/no-such-device not found: is the kptrace module loaded? (insmod kptrace.ko)" \
	$KPT probe add 'p:a do_sys_openat2'

# s lines go to the module as they are: comm='s glob is no function glob,
# their options no fetchargs (the first option is no function either)
check_run probe-add-sys 0 $KPT probe add -n 's:a pid=1 comm=ba?h failure' \
	's:b comm=a* nr=0-3 duration=5 summary' 's pid=1,2 comm=zz stack=4'
check_msg probe-add-sys-err 1 "kptrace: error: expected pid=, tid=, children=, exclude=, comm=, cgroup=, nr=, nr32=, failure, duration=, stack=, signals, denied or summary
  Command: s:a pid=1 frob
                     ^" $KPT probe add -n 's:a pid=1 frob'

check_run probe-del 0 $KPT probe del -n a grp/b
check_run probe-del-glob 0 env KPTRACE_PROBES=$DATA/probes-typed $KPT probe del -n '*open*'
check_run probe-clear 0 env KPTRACE_PROBES=$DATA/probes-typed $KPT probe clear -n
# a session's probes (session= in the listing) are its own: not cleared
printf '%s\n' 'p:kptrace/a do_sys_openat2 # id=1 at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=0 missed=0' \
	'p:kptrace/b do_sys_openat2 # id=2 session=7 at=do_sys_openat2+0x0/0x1a0 kprobe ftrace hits=0 missed=0' \
	>"$OUT/probes-sess"
run probe-clear-sess env KPTRACE_PROBES="$OUT/probes-sess" $KPT probe clear -n
run probe-del-sess env KPTRACE_PROBES="$OUT/probes-sess" $KPT probe del -n '*'
if [ "$rc" = 0 ] && [ "$(cat "$OUT/probe-clear-sess.out")" = "-:kptrace/a" ] &&
   [ "$(cat "$OUT/probe-del-sess.out")" = "-:kptrace/a" ]; then
	ok "probe clear, probe del GLOB: the default session's probes, not another session's"
else
	not_ok "probe clear, probe del GLOB: the default session's probes, not another session's" "$(cat "$OUT/probe-clear-sess.out" "$OUT/probe-del-sess.out")"
fi
check_msg probe-del-none 1 "kptrace: no probe matches 'zz*'" \
	env KPTRACE_PROBES=$DATA/probes-typed $KPT probe del -n 'zz*'
check_msg probe-del-bad 1 "kptrace: error: expected a name
  Command: -:1x
             ^" $KPT probe del -n 1x
run probe-list env KPTRACE_PROBES=$DATA/probes-typed $KPT probe list
if [ "$rc" = 0 ] && cmp -s "$OUT/probe-list.out" "$DATA/probes-typed"; then
	ok "probe list: the listing as it is"
else
	not_ok "probe list: the listing as it is" "$(cat "$OUT/probe-list.err")"
fi
# the listing replays: probe add -f takes the spec before " # id="
check_run probe-add-file 0 $KPT probe add -n -f "$DATA/probes-replay"

check_msg probe-usage 2 "kptrace: probe needs a command: add, del, list or clear
Try 'kptrace --help' for more information." $KPT probe
check_msg probe-usage-cmd 2 "kptrace: unknown probe command 'frob': add, del, list or clear
Try 'kptrace --help' for more information." $KPT probe frob
check_msg probe-usage-nospec 2 "kptrace: probe add needs a SPEC (see kptrace --help)" $KPT probe add
check_msg probe-usage-max 2 "kptrace: invalid --max '0': a number > 0" $KPT probe add --max 0 'p f'
check_msg probe-usage-extra 2 "kptrace: unexpected argument 'x'" $KPT probe list x

run help-probes $KPT --help
if grep -q "kptrace probe add 'p do_sys_openat2 dfd filename:ustring'" "$OUT/help-probes.out" &&
   grep -q '^PROBES AT RUN TIME:' "$OUT/help-probes.out" &&
   grep -q 'kptrace probe clear' "$OUT/help-probes.out"; then
	ok "help: probe subcommands with examples"
else
	not_ok "help: probe subcommands with examples"
fi

# --- kptrace -e: one run, a session of its own ----------------------------------
# On the fake device (test/fakedev.so), whose first read gives gen_trace's
# typed records (test/data/probes-typed's probes 7, 1000000 and 3, then
# records of probes 4, 99 and 8 that are not the session's): the three
# SPECs of probes-typed added with KPT_IOC_ADD in a session (the ids the
# fake answers: FAKEDEV_IDS), their records printed exactly as the plain
# reader prints them from that listing (test/expected/typed.out's lines),
# -j and -w too (kptrace -r of the saved FILE prints the same); the
# session's books in the summary, each probe's books at the end, the
# session closed, no debugfs file read; COMMAND's exit status. A SPEC the
# module refuses: its reason under the user's column, exit 1, COMMAND
# never runs, the session closed; one the tool refuses: no session at
# all. The session's options (-b, --clock, --overwrite), a glob target
# and --max, a module without sessions, the usage errors; and the plain
# reader, which makes no session.
if [ ! -x ./kptrace-dyn ] || [ ! -e test/fakedev.so ]; then
	skip "kptrace -e: fake device" "kptrace-dyn or test/fakedev.so not built"
else
	OS_SPECS=(-e 'p:open do_sys_openat2 dfd=$arg1:s32 file=+0($arg2):string flags=$arg3:x32 mode=$arg4:u16 caller=$stack0:symbol c=$comm:string'
		  -e 'r:ropen do_sys_openat2 dfd=$arg1:s32 file=+0($arg2):ustring rv=$retval:s64'
		  -e 'p:do_sys_openat2 do_sys_openat2 arg0=$arg1:x64 arg1=$arg2:x64 arg2=$arg3:x64 arg3=$arg4:x64 arg4=$arg5:x64 arg5=$arg6:x64')
	os_env=(env FAKEDEV_RECORDS="$OUT/typed.bin" FAKEDEV_IDS=7,1000000,3)

	fake_run oneshot "${os_env[@]}" ./kptrace-dyn "${OS_SPECS[@]}" -- sh -c 'exit 3'
	head -n 13 "$EXP/typed.out" >"$OUT/oneshot.want"
	printf '%s\n' 'kpt_test-501 [001] 3.000000: probe4: arg0=0x1 arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555' \
		'who-501 [001] 3.000000: probe99: arg0=0x1 arg1=0x1111' \
		'many-501 [001] 3.000000: probe8: arg0=0x1 arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555' >>"$OUT/oneshot.want"
	d=$(same "$OUT/oneshot.out" "$OUT/oneshot.want")
	if [ "$rc" = 3 ] && [ -z "$d" ] && sess_ok &&
	   [ "$specs" = "$(printf '%s\n' "${OS_SPECS[@]}" | grep -v '^-e$')" ] &&
	   [ "$(cat "$OUT/oneshot.err")" = "kptrace: tracing 3 probes on 2 CPUs in session 7 (rings of 1M, clock mono)... Hit Ctrl-C to end.
kptrace: 9 events (7 entries, 2 returns), 0 lost; module: hits 9 recorded 9 lost 0 missed 1
PROBE                         CALLS     EVENTS   RECORDED  FILTERED      LOST    MISSED MAXACTIVE
open                              3          3          3         0         0         0         0
ropen                             2          2          2         0         0         0         0
do_sys_openat2                    1          1          1         0         0         0         0" ]; then
		ok "kptrace -e: the session's records as the plain reader prints them, its books, COMMAND's status, the session closed"
	else
		not_ok "kptrace -e: the session's records as the plain reader prints them, its books, COMMAND's status, the session closed" "rc=$rc $d $(cat "$OUT/oneshot.err"; echo "$specs")"
	fi

	fake_run oneshot-json "${os_env[@]}" ./kptrace-dyn "${OS_SPECS[@]}" -j --no-stack -q -- true
	if [ "$rc" = 0 ] && [ ! -s "$OUT/oneshot-json.err" ] &&
	   [ "$(head -n 6 "$OUT/oneshot-json.out")" = "$(head -n 6 "$EXP/typed-json.out")" ] &&
	   [ "$(grep -c '' "$OUT/oneshot-json.out")" = 9 ] && sess_ok; then
		ok "kptrace -e -j --no-stack -q: the plain reader's JSON"
	else
		not_ok "kptrace -e -j --no-stack -q: the plain reader's JSON" "rc=$rc $(diff "$EXP/typed-json.out" "$OUT/oneshot-json.out" | head -5; cat "$OUT/oneshot-json.err")"
	fi

	fake_run oneshot-save "${os_env[@]}" ./kptrace-dyn "${OS_SPECS[@]}" -q -w "$OUT/oneshot.bin" -- true
	run oneshot-replay env KPTRACE_PROBES=/nonexistent $KPT -r "$OUT/oneshot.bin" -q
	if [ "$rc" = 0 ] && cmp -s "$OUT/oneshot-replay.out" "$OUT/oneshot.out" &&
	   [ "$(cut -d'#' -f2 "$OUT/oneshot.bin.probes" | sed -n 1,3p)" = " id=3 session=7
 id=7 session=7
 id=1000000 session=7" ] &&
	   grep -qx 'p:kptrace/open do_sys_openat2 dfd=$arg1:s32 file=+0($arg2):string flags=$arg3:x32 mode=$arg4:u16 caller=$stack0:symbol c=$comm:string # id=7 session=7' "$OUT/oneshot.bin.probes" &&
	   [ "$(stat -c %a "$OUT/oneshot.bin.probes")" = 600 ]; then
		ok "kptrace -e -w FILE: FILE.probes from the adds' answers (SPEC # id=N session=S), kptrace -r FILE prints the same"
	else
		not_ok "kptrace -e -w FILE: FILE.probes from the adds' answers (SPEC # id=N session=S), kptrace -r FILE prints the same" "rc=$rc $(cat "$OUT/oneshot.bin.probes" "$OUT/oneshot-replay.err"; diff "$OUT/oneshot.out" "$OUT/oneshot-replay.out" | head -5)"
	fi

	# -p keeps one process; -n stops the run and COMMAND (SIGTERM)
	fake_run oneshot-pid "${os_env[@]}" ./kptrace-dyn "${OS_SPECS[@]}" -q -p 1 --no-stack -- true
	t0=$(date +%s)
	fake_run oneshot-count "${os_env[@]}" ./kptrace-dyn "${OS_SPECS[@]}" -q -n 2 --no-stack -- sleep 20
	t1=$(date +%s)
	if [ "$rc" = 143 ] && [ $((t1 - t0)) -lt 10 ] && [ ! -s "$OUT/oneshot-pid.out" ] &&
	   [ "$(grep -c '' "$OUT/oneshot-count.out")" = 2 ] && sess_ok; then
		ok "kptrace -e: -p 1 shows none of pid 501's events; -n 2 ends the run and COMMAND (exit 143)"
	else
		not_ok "kptrace -e: -p 1 shows none of pid 501's events; -n 2 ends the run and COMMAND (exit 143)" "rc=$rc $((t1 - t0)) s $(cat "$OUT/oneshot-pid.out" "$OUT/oneshot-count.out")"
	fi

	# a SPEC the module refuses: its reason under the user's column, the
	# first SPEC's probe gone with the session, COMMAND never run
	rm -f "$OUT/oneshot-ran"
	fake_run oneshot-refused env FAKEDEV_REFUSE_WORD=vfs_nosuch ./kptrace-dyn \
		-e 'p:a do_sys_openat2 dfd' -e 'p:b vfs_nosuch $arg1' -- touch "$OUT/oneshot-ran"
	if [ "$rc" = 1 ] && [ ! -e "$OUT/oneshot-ran" ] && [ ! -s "$OUT/oneshot-refused.out" ] &&
	   [ "$specs" = 'p:a do_sys_openat2 dfd=$arg1:s32' ] && sess_ok &&
	   [ ! -s "$OUT/oneshot-refused.d/probes" ] &&
	   [ "$(cat "$OUT/oneshot-refused.err")" = "kptrace: error: the module refused it (No such file or directory): symbol not found: vfs_nosuch
  Command: p:b vfs_nosuch \$arg1
               ^" ]; then
		ok "kptrace -e: a SPEC the module refuses: its reason at its column, exit 1, COMMAND never ran, nothing left"
	else
		not_ok "kptrace -e: a SPEC the module refuses: its reason at its column, exit 1, COMMAND never ran, nothing left" "rc=$rc $(cat "$OUT/oneshot-refused.err"; echo "$specs")"
	fi

	# one the tool refuses (BTF: no such parameter): no session at all
	fake_run oneshot-btf ./kptrace-dyn -e 'p do_sys_openat2 fd' -- touch "$OUT/oneshot-ran"
	if [ "$rc" = 1 ] && [ ! -e "$OUT/oneshot-ran" ] && [ ! -e "$OUT/oneshot-btf.d/sessions" ] &&
	   [ "$(sed -n 1p "$OUT/oneshot-btf.err")" = "kptrace: error: 'fd' is not a parameter of the function (dfd, filename, how)" ]; then
		ok "kptrace -e: a SPEC the tool refuses: its error, no session made, COMMAND never ran"
	else
		not_ok "kptrace -e: a SPEC the tool refuses: its error, no session made, COMMAND never ran" "rc=$rc $(cat "$OUT/oneshot-btf.err")"
	fi

	# the session's options; a glob target, one probe per function
	fake_run oneshot-opts env KPTRACE_KALLSYMS="$DATA/kallsyms-glob" ./kptrace-dyn \
		-e 'p:vfs vfs_*' -b 3K --clock local --overwrite -- true
	if [ "$rc" = 0 ] && sess_ok &&
	   [ "$(head -n 1 "$OUT/oneshot-opts.d/sessions")" = "ring_bytes=3072 flags=1 clock=2" ] &&
	   [ "$specs" = "p:vfs_vfs_read vfs_read
p:vfs_vfs_write vfs_write" ] &&
	   grep -qxF "kptrace: tracing 2 probes on 2 CPUs in session 7 (rings of 4K, clock local)... Hit Ctrl-C to end." "$OUT/oneshot-opts.err"; then
		ok "kptrace -e: -b 3K --clock local --overwrite make the session; a glob target, a probe per function"
	else
		not_ok "kptrace -e: -b 3K --clock local --overwrite make the session; a glob target, a probe per function" "rc=$rc $(cat "$OUT/oneshot-opts.err" "$OUT/oneshot-opts.d/sessions"; echo "$specs")"
	fi
	fake_run oneshot-max env KPTRACE_KALLSYMS="$DATA/kallsyms-glob" ./kptrace-dyn \
		-e 'p:vfs vfs_*' --max 1 -- true
	if [ "$rc" = 1 ] && [ ! -e "$OUT/oneshot-max.d/sessions" ] &&
	   [ "$(cat "$OUT/oneshot-max.err")" = "kptrace: 'vfs_*' matches 2 functions, more than --max 1: narrow the glob or raise --max" ]; then
		ok "kptrace -e: --max refuses a larger glob, no session made"
	else
		not_ok "kptrace -e: --max refuses a larger glob, no session made" "rc=$rc $(cat "$OUT/oneshot-max.err")"
	fi

	fake_run oneshot-old env FAKEDEV_OLD=1 ./kptrace-dyn -e 'p do_sys_openat2' -- touch "$OUT/oneshot-ran"
	if [ "$rc" = 1 ] && [ ! -e "$OUT/oneshot-ran" ] &&
	   [ "$(cat "$OUT/oneshot-old.err")" = "kptrace: the kptrace module is too old for sessions: reload it" ]; then
		ok "kptrace -e: a module without sessions: reload it, exit 1"
	else
		not_ok "kptrace -e: a module without sessions: reload it, exit 1" "rc=$rc $(cat "$OUT/oneshot-old.err")"
	fi

	# the plain reader makes no session: the default session's books,
	# from debugfs as before
	fake_run plain-reader timeout --preserve-status -s INT 0.5 ./kptrace-dyn -q
	if [ "$rc" = 0 ] && [ ! -e "$OUT/plain-reader.d/sessions" ] &&
	   grep -qx "$OUT/plain-reader.d/stats" "$OUT/plain-reader.d/opens"; then
		ok "kptrace without -e: no session, the stats file as before"
	else
		not_ok "kptrace without -e: no session, the stats file as before" "rc=$rc $(cat "$OUT/plain-reader.err")"
	fi
fi

check_msg oneshot-usage-b 2 "$(usage_msg "-b is for the probes of -e SPEC")" $KPT -b 4M
check_msg oneshot-usage-clock 2 "$(usage_msg "invalid clock 'tsc': auto, mono or local")" $KPT -e 'p f' --clock tsc
check_msg oneshot-usage-size 2 "$(usage_msg "invalid buffer size '0': bytes per CPU, with K or M for KiB or MiB (4M), 1G at most")" $KPT -e 'p f' -b 0
check_msg oneshot-usage-r 2 "$(usage_msg "-e traces probes of its own: -r decodes a saved trace")" $KPT -e 'p f' -r x
check_msg oneshot-usage-cmd 2 "$(usage_msg "unexpected argument 'ls': COMMAND goes after --, as in kptrace -e SPEC -- COMMAND")" $KPT -e 'p f' ls
check_msg oneshot-delete 1 "kptrace: error: -e adds probes: a new session has none to delete
  Command: -:open
           ^" $KPT -e 'p f' -e -:open
check_msg oneshot-usage-plain 2 "$(usage_msg "unexpected argument 'ls'")" $KPT -- ls
run oneshot-help $KPT --help
if [ "$rc" = 0 ] && grep -q '^ONE RUN (-e)' "$OUT/oneshot-help.out" &&
   grep -qF "kptrace -e 'r:open do_sys_openat2 filename:ustring \$retval' -- cat /etc/hostname" "$OUT/oneshot-help.out" &&
   grep -qF 'kptrace -e SPEC [-e SPEC]... [OPTION]... [-- COMMAND [ARG]...]' "$OUT/oneshot-help.out"; then
	ok "help: kptrace -e, its options and examples"
else
	not_ok "help: kptrace -e, its options and examples"
fi

# --- kptrace hist: test/hist.sh -----------------------------------------------

# shellcheck source=test/hist.sh
. test/hist.sh

# --- kptrace hist: the binary form (hist_bin.c) on hand-made tables ---------
# test/test_hist_bin: KPT_IOC_HIST tables made by hand from the hist files
# of test/data give exactly the struct hist their text gives.
run hist_bin test/test_hist_bin "$DATA" "$OUT"
hist_bin_failed=0
while IFS= read -r line; do
	case $line in
	"ok "*) ok "hist_bin: ${line#ok * }" ;;
	"not ok "*)
		hist_bin_failed=1
		not_ok "hist_bin: ${line#not ok * }" \
			"$(grep '^#' "$OUT/hist_bin.out"; cat "$OUT/hist_bin.err")" ;;
	esac
done < "$OUT/hist_bin.out"
if [ "$rc" != 0 ] && [ "$hist_bin_failed" = 0 ]; then
	not_ok "hist_bin: exit status $rc" "$(cat "$OUT/hist_bin.err")"
fi

# --- fuzz ---------------------------------------------------------------------

for target in spec btf; do
	case $target in
	spec)	what=kpt_spec_parse ;;
	btf)	what="the BTF reader" ;;
	esac
	if [ "${FUZZ_SECONDS:-10}" = 0 ]; then
		skip "fuzz: $what" "FUZZ_SECONDS=0"
	elif [ ! -x "test/fuzz_$target" ]; then
		skip "fuzz: $what" "test/fuzz_$target not built (needs clang with libFuzzer)"
	else
		run fuzz-$target test/fuzz.sh "${FUZZ_SECONDS:-10}" $target
		if [ "$rc" = 0 ]; then
			ok "$(cat "$OUT/fuzz-$target.out")"
		else
			not_ok "fuzz: $what" "$(cat "$OUT/fuzz-$target.out")"
		fi
	fi
done

# --- valgrind -----------------------------------------------------------

if [ ! -x ./kptrace-dyn ]; then
	skip valgrind "kptrace-dyn not built"
elif ! command -v valgrind >/dev/null; then
	skip valgrind "valgrind not installed"
else
	vg_bad=
	GEN_COUNT=3000 test/gen_trace big "$OUT/medium.bin"
	for args in "-r $OUT/good.bin" "-r $OUT/good.bin -j" \
		    "-r $OUT/medium.bin -j -p 77" "-r $OUT/bad-magic.bin" \
		    "-r $OUT/truncated.bin" "-r $OUT/random.bin -j" \
		    "-r $OUT/huge-size.bin" "-r $OUT/good.bin -w $OUT/vg.bin" \
		    "-s" "-n 0" "-r $OUT/typed.bin" "-r $OUT/typed.bin -j" \
		    "-r $OUT/names.bin" "-r $OUT/names.bin -w $OUT/vg2.bin" \
		    "-r $OUT/evil.bin" "-r $OUT/evil.bin -j" \
		    "probe add -n p:x do_sys_openat2 dfd" \
		    "probe add -n p:x do_sys_openat2 %zz" \
		    "probe del -n x" "syscalls -r $OUT/syscalls.bin" \
		    "syscalls -r $OUT/syscalls.bin -j" \
		    "syscalls -n -p 1 -e open*"; do
		# shellcheck disable=SC2086
		valgrind -q --error-exitcode=99 --leak-check=full \
			--show-leak-kinds=all --errors-for-leak-kinds=all \
			./kptrace-dyn $args >/dev/null 2>"$OUT/valgrind.err"
		if [ $? = 99 ]; then
			vg_bad="$vg_bad
$args: $(cat "$OUT/valgrind.err")"
		fi
	done
	if [ -z "$vg_bad" ]; then
		ok "valgrind: no errors, no leaks"
	else
		not_ok "valgrind: no errors, no leaks" "$vg_bad"
	fi
fi

echo "1..$nr"
if [ "$skipped" != 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
