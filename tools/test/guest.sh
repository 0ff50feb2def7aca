#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side tests of tools/kptrace against the real module: run inside a
# QEMU guest as root (busybox sh is enough), with kptrace.ko, kpt_test.ko
# and the reader packed as selftests/vm/run-vm.sh packs them. From tools/:
#
#	make vm-test
#
# It loads kpt_test and kptrace on kpt_test_func with return probes, then
# checks the reader's text and JSON against the known arguments, return
# values and callers of kpt_test_func, -n, -d, -p, SIGINT, -w then -r,
# and --stats; then probes at run time: probe add with BTF names, typed
# records, strings and (fault), return records with arguments, refusals
# with the module's reason, globs, -w FILE.probes, the probe_stats
# summary, probe del and clear. Prints "ok N name" / "not ok N name",
# then "N passed, N failed"; exit status 1 if any failed.

KPT=${KPTRACE:-/tools/kptrace}
KO=${KPT_KO:-/kptrace.ko}
TEST_KO=${KPT_TEST_KO:-/selftests/test_modules/kpt_test.ko}
CALL=/sys/kernel/debug/kpt_test/call
T=/tmp/kptrace-guest

nr=0
passed=0
failed=0

ok() { nr=$((nr + 1)); passed=$((passed + 1)); echo "ok $nr $1"; }
not_ok()
{
	nr=$((nr + 1))
	failed=$((failed + 1))
	echo "not ok $nr $1"
	[ -z "$2" ] || echo "$2" | head -20 | sed 's/^/# /'
}
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name" "$(cat $T/err 2>/dev/null)"; fi; }

# wait_open PID: until PID has /dev/kptrace open (5 s at most)
wait_open()
{
	i=0
	while [ $i -lt 50 ]; do
		ls -l /proc/"$1"/fd 2>/dev/null | grep -q kptrace && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

finish()
{
	rmmod kptrace 2>/dev/null
	rmmod kpt_test 2>/dev/null
	echo "1..$nr"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit $?
}

echo "TAP version 13"
rm -rf $T
mkdir -p $T
mountpoint -q /sys/kernel/debug 2>/dev/null ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null

# before the module: one clear sentence
$KPT >$T/out 2>$T/err
rc=$?
check "no module: exit 1, one sentence" [ "$rc" = 1 -a \
	"$(cat $T/err)" = "kptrace: /dev/kptrace not found: is the kptrace module loaded? (insmod kptrace.ko name=SYMBOL)" ]

if ! insmod "$TEST_KO" || ! insmod "$KO" name=kpt_test_func retprobe=1 stack=8; then
	not_ok "insmod kpt_test and kptrace"
	finish
fi
ok "insmod kpt_test and kptrace name=kpt_test_func retprobe=1 stack=8"

# text: 3 calls = 3 entries + 3 returns
$KPT -n 6 >$T/text 2>$T/err &
pid=$!
wait_open $pid
echo 3 >$CALL
wait $pid
rc=$?
check "text: -n 6 stops after 3 calls" [ "$rc" = 0 ]
check "text: entry line with the six arguments" \
	grep -q ': kpt_test_func: arg0=0x2 arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555$' $T/text
check "text: return line with ret=-i" \
	grep -q ': kpt_test_func: ret=-3 lat_ns=[0-9]*$' $T/text
check "text: probed function first, module frame" \
	grep -q '^  \[<ffffffff[0-9a-f]*>\] kpt_test_func+0x0/0x[0-9a-f]* \[kpt_test\]$' $T/text
check "text: caller kpt_test_call_loop second" \
	grep -q '^  \[<ffffffff[0-9a-f]*>\] kpt_test_call_loop+0x[0-9a-f]*/0x[0-9a-f]* \[kpt_test\]$' $T/text
check "text: summary counts" \
	grep -q '^kptrace: 6 events (3 entries, 3 returns), 0 lost; module: hits [0-9]* recorded [0-9]* lost 0 missed 0$' $T/err
[ "$failed" = 0 ] || { cat $T/text; cat $T/err; }

# JSON
$KPT -j -q -n 4 >$T/json 2>$T/err &
pid=$!
wait_open $pid
echo 2 >$CALL
wait $pid
check "json: entry object" \
	grep -q '^{"type":"entry","probe":"kpt_test_func","id":0,"ts_ns":[0-9]*,"cpu":[0-9]*,"pid":[0-9]*,"tid":[0-9]*,"comm":"[^"]*","args":\[1,4369,8738,13107,17476,21845\],"fields":{"arg0":"0x1","arg1":"0x1111","arg2":"0x2222","arg3":"0x3333","arg4":"0x4444","arg5":"0x5555"},"stack":\[{"addr":"0xffffffff[0-9a-f]*","sym":"kpt_test_func+0x0/0x[0-9a-f]* \[kpt_test\]","module":"kpt_test"}' $T/json
check "json: return object" \
	grep -q '^{"type":"return","probe":"kpt_test_func","id":0,.*"ret":-2,"lat_ns":[0-9]*,"entry_ts_ns":[0-9]*}$' $T/json
check "json: quiet, nothing on stderr" [ ! -s $T/err ]
[ "$failed" = 0 ] || cat $T/json

# -p: another pid sees nothing of our calls
$KPT -p 999999 -d 2 >$T/out 2>$T/err &
pid=$!
wait_open $pid
echo 5 >$CALL
wait $pid
rc=$?
check "-p and -d: nothing printed, calls filtered out, exit 0" [ "$rc" = 0 -a ! -s $T/out ] 
check "-p: the summary counts them" \
	grep -q '^kptrace: 0 events (0 entries, 0 returns, 10 filtered out), 0 lost' $T/err

# SIGINT while blocked in read()
$KPT >$T/out 2>$T/err &
pid=$!
wait_open $pid
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: blocked read ends, exit 0" [ "$rc" = 0 ]
check "SIGINT: summary printed" grep -q '^kptrace: 0 events' $T/err

# -w then -r
$KPT -w $T/trace.bin -n 200 >$T/out 2>$T/err &
pid=$!
wait_open $pid
echo 100 >$CALL
wait $pid
rc=$?
check "-w: saves 200 events" [ "$rc" = 0 -a -s $T/trace.bin ]
check "-w: summary with bytes saved" \
	grep -q '^kptrace: 200 events (100 entries, 100 returns), 0 lost, [0-9]* bytes saved to' $T/err
$KPT -r $T/trace.bin -j >$T/replay 2>$T/err
rc=$?
check "-r: decodes the saved file" [ "$rc" = 0 -a "$(grep -c '"type":"entry"' $T/replay)" = 100 ]
check "-r: the last return" grep -q '"ret":-100,' $T/replay

# a burst on every CPU, saved: what -w counted is what -r decodes
$KPT -w $T/burst.bin >$T/out 2>$T/err &
pid=$!
wait_open $pid
echo 20000 >/sys/kernel/debug/kpt_test/call_all
sleep 1
kill -INT $pid
wait $pid
rc=$?
w=$(sed -n 's/^kptrace: \([0-9]* events ([^)]*), [0-9]* lost\).*/\1/p' $T/err)
$KPT -r $T/burst.bin --no-stack >$T/out 2>$T/err2
r=$(sed -n 's/^kptrace: \([0-9]* events ([^)]*), [0-9]* lost\).*/\1/p' $T/err2)
check "burst: -w and -r agree ($w)" [ "$rc" = 0 -a -n "$w" -a "$w" = "$r" ]
cat $T/err

# --stats
$KPT --stats >$T/stats 2>$T/err
rc=$?
check "--stats: exit 0, table" [ "$rc" = 0 ] 
check "--stats: counters" grep -q '^hits  *[0-9]' $T/stats
check "--stats: per-CPU table" grep -q '^CPU  *HITS  *RECORDED' $T/stats
cat $T/stats

# --- probes at run time ---------------------------------------------------

mountpoint -q /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs none /sys/kernel/tracing 2>/dev/null

$KPT probe list >$T/list 2>$T/err
check "probe list: the legacy probe" grep -q '^r:kptrace/kpt_test_func kpt_test_func arg0=\$arg1:x64 .* # id=0 ' $T/list

# BTF names and types for vmlinux functions, a user string, a return
# record with its arguments
$KPT probe add 'r:open do_sys_openat2 dfd filename:ustring $retval' \
	'p:k kpt_test:kpt_test_func a=$arg1:u32 b=$arg2:s64 c=$comm' \
	'p:l do_sys_openat2 arg0=$arg1 arg1=$arg2 arg2=$arg3' \
	'p:f do_sys_openat2 s=+0($arg2):string' >$T/out 2>$T/err
rc=$?
check "probe add: 4 probes, BTF names" [ "$rc" = 0 ]
cat $T/err
$KPT probe list >$T/list 2>&1
check "probe add: dfd=\$arg1:s32 from BTF" grep -q '^r:kptrace/open do_sys_openat2 dfd=\$arg1:s32 filename=\$arg2:ustring arg3=\$retval:s64 # id=' $T/list
cat $T/list

$KPT -c cat --no-stack -d 4 >$T/text 2>$T/err &
pid=$!
wait_open $pid
cat /nonexistent_kpt 2>/dev/null
echo 2 >$CALL
wait $pid
check "typed: return record with args, string" \
	grep -q '^cat-[0-9]* \[[0-9]*\] [0-9.]*: open: ret=-2 lat_ns=[0-9]* dfd=-100 filename="/nonexistent_kpt" arg3=-2$' $T/text
check "typed: a kernel read of a user pointer is (fault)" \
	grep -q ': f: s=(fault)$' $T/text
check "typed: legacy-shaped probe named from BTF" \
	grep -q ': l: dfd=-100 filename=0x[0-9a-f]* how=0x[0-9a-f]*$' $T/text
check "summary: probe_stats table at exit" grep -q '^PROBE  *CALLS  *EVENTS  *RECORDED' $T/err
check "summary: str_fault counted" grep -q '^f .* str_fault=[1-9]' $T/err
cat $T/text $T/err

$KPT -d 3 -j --no-stack >$T/json 2>$T/err &
pid=$!
wait_open $pid
echo 1 >$CALL
wait $pid
check "typed json: u32 and s64 fields, comm string" \
	grep -q '"fields":{"a":1,"b":4369,"c":"sh"}' $T/json
cat $T/json

# -w FILE also saves FILE.probes; -r FILE reads it
$KPT -w $T/p.bin -d 3 >$T/out 2>$T/err &
pid=$!
wait_open $pid
echo 1 >$CALL
wait $pid
KPTRACE_PROBES=/nonexistent $KPT -r $T/p.bin --no-stack >$T/out 2>$T/err
check "-w: FILE.probes saved, -r names the records with it" \
	grep -q ': k: a=1 b=4369 c="sh"$' $T/out
cat $T/p.bin.probes

# refusals: the module's reason, from error_log
$KPT probe add 'p:bad no_such_function_kpt' >$T/out 2>$T/err
rc=$?
grep -q "the module refused 'p:bad no_such_function_kpt': No such file or directory" $T/err &&
	grep -q 'kptrace: error: no such symbol' $T/err
check "probe add: refusal exits 1 with the module's reason" [ "$rc" = 1 -a $? = 0 ]
cat $T/err
$KPT probe add 'p:open do_sys_openat2' >$T/out 2>$T/err
check "probe add: an existing name is refused" grep -q 'a probe of that name exists' $T/err
$KPT probe add 'p bad %zz' >$T/out 2>$T/err
check "probe add: local parse error with a caret" \
	[ "$(sed -n 3p $T/err)" = "                 ^" ]

# globs
$KPT probe add --max 1000 'p:vr vfs_read*' >$T/out 2>$T/err
rc=$?
n=$($KPT probe list | grep -c '^p:kptrace/vr_')
check "glob: vfs_read* added ($n probes)" [ "$rc" = 0 -a "$n" -ge 1 ]
cat $T/err
$KPT probe add --max 1 'p:v2 vfs_*' >$T/out 2>$T/err
check "glob: --max refuses" grep -q 'more than --max 1' $T/err
$KPT probe del 'vr_*' >$T/out 2>$T/err
n=$($KPT probe list | grep -c '^p:kptrace/vr_')
check "probe del: a glob of names" [ "$n" = 0 ]

$KPT probe del open >$T/out 2>$T/err
check "probe del: one name" [ "$($KPT probe list | grep -c '^r:kptrace/open ')" = 0 ]
$KPT probe clear >$T/out 2>$T/err
$KPT probe list >$T/list
check "probe clear: nothing listed" [ ! -s $T/list ]
cat $T/err

finish
