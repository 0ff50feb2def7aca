#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the same specs in ftrace's kprobe_events and in kptrace, the
#   same calls: the same number of hits and the same values and strings
# requires: root, debugfs, tracefs with kprobe_events (CONFIG_KPROBE_EVENTS),
#   kptrace.ko, kpt_test.ko, CONFIG_KALLSYMS_ALL (for @ADDR), helpers/kpt_spec
#
# Both get these lines, word for word (group kptd), at the same time:
#   p:kptd/f kpt_test_func a=$arg1:u32 b=%si:x16 c=$arg3:s64 d=$arg6 e=%r9:u8
#   p:kptd/v kpt_test_vals v8=%di:s8 v16=%di:u16 v32=%di:x32 v=%di
#            n=%si:s32 e=+0(+8(+8(%dx))):s8 m=+0(+8(%dx)):s64 g=$stack0:symbol
#            h=%ip:symbol i=$stack x=@0x<kpt_test_u64> y=@0x<kpt_test_u64+4>:u32
#            z=+0(@0x<kpt_test_head>):s64
#   p:kptd/s kpt_test_strs k=+0($arg1):string u=+0($arg2):ustring n=$arg3:u32
#            c=$comm f=+0($arg3):string ku=+0($arg1):ustring
#   r:kptd/r kpt_test_func rv=$retval:s64
# (ftrace on 6.1 takes no $argN in r probes, and its :string also reads
# user memory, so neither is compared.) Workload: 5 calls of
# kpt_test_func, 3 of kpt_test_vals, 2 writes to strs. Then per event name
# the lines of both, values only (ftrace's "(func+off/size) " and
# kptrace's "ret=R lat_ns=L " removed, kptrace's \" and \\ escapes undone),
# must be equal, and ftrace's kprobe_profile hits equal kptrace's probes
# hits.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load
[ -e "$KPT_TEST_DIR/strs" ] || skip "kpt_test.ko has no strs file (rebuild it)"

kpt_tracefs
TRACING_ON=$(cat "$TR/tracing_on")
cleanup()
{
	echo 0 > "$TR/events/kptd/enable" 2>/dev/null
	for e in f v s r; do
		echo "-:kptd/$e" >> "$TR/kprobe_events" 2>/dev/null
	done
	echo > "$TR/trace" 2>/dev/null
	echo "$TRACING_ON" > "$TR/tracing_on" 2>/dev/null
	kpt_tracefs_done
	return 0
}

kpt_kallsyms_visible
U64=$(spec_kallsyms kpt_test_u64 kpt_test)
HEAD=$(spec_kallsyms kpt_test_head kpt_test)
[ -n "$U64" ] && [ -n "$HEAD" ] ||
	skip "kpt_test's data symbols are not in /proc/kallsyms (CONFIG_KALLSYMS_ALL): @ADDR cannot be compared"
ADDR_ARGS=" x=@0x$U64 y=@0x$(printf '%x' $((0x$U64 + 4))):u32 z=+0(@0x$HEAD):s64"
cat > "$KPT_TMP/specs" <<EOF
p:kptd/f kpt_test_func a=\$arg1:u32 b=%si:x16 c=\$arg3:s64 d=\$arg6 e=%r9:u8
p:kptd/v kpt_test_vals v8=%di:s8 v16=%di:u16 v32=%di:x32 v=%di n=%si:s32 e=+0(+8(+8(%dx))):s8 m=+0(+8(%dx)):s64 g=\$stack0:symbol h=%ip:symbol i=\$stack$ADDR_ARGS
p:kptd/s kpt_test_strs k=+0(\$arg1):string u=+0(\$arg2):ustring n=\$arg3:u32 c=\$comm f=+0(\$arg3):string ku=+0(\$arg1):ustring
r:kptd/r kpt_test_func rv=\$retval:s64
EOF

echo 0 > "$TR/tracing_on"
echo > "$TR/trace"
while read -r spec; do
	if ! echo "$spec" >> "$TR/kprobe_events" 2>/dev/null; then
		sed 's/^/#   ftrace: /' "$TR/error_log" 2>/dev/null | tail -n 3
		fail "ftrace refused: $spec"
	fi
done < "$KPT_TMP/specs"
echo 1 > "$TR/events/kptd/enable" || fail "cannot enable the kptd events"

kpt_load stack=0
while read -r spec; do
	spec_add "$spec"
done < "$KPT_TMP/specs"
sed 's/^/#   kptrace: /' "$KPT_DIR/probes"
sed 's/^/#   ftrace:  /' "$TR/kprobe_events"

echo 1 > "$TR/tracing_on"
kpt_call 5
echo 3 > "$KPT_TEST_DIR/vals" || fail "calling kpt_test_vals"
r=$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" 'a "user" \ string')
assert_eq "write to strs" "$r" ok
r=$("$KPT_SPEC" ustr "$KPT_TEST_DIR/strs" 'second')
assert_eq "write to strs" "$r" ok
echo 0 > "$TR/tracing_on"

kpt_trace_read "$KPT_TMP/kpt.raw"
cat "$TR/trace" > "$KPT_TMP/ft.raw"
sed 's/^/#   kptrace: /' "$KPT_TMP/kpt.raw"
grep -v '^#' "$KPT_TMP/ft.raw" | sed 's/^/#   ftrace:  /'

# NAME: values. kptrace: "comm-tid [cpu] s.us: NAME: [ret=R lat_ns=L ]vals"
sed -n 's/^.*-[0-9]* *\[[0-9]*\] *[0-9.]*: \([frsv]\): \(.*\)$/\1: \2/p' \
	"$KPT_TMP/kpt.raw" |
	sed 's/^r: ret=[-0-9]* lat_ns=[0-9]* /r: /' |
	sed 's/\\"/"/g; s/\\\\/\\/g' > "$KPT_TMP/kpt"
# ftrace: "comm-pid [cpu] flags s.us: NAME: (where) vals"
grep -v '^#' "$KPT_TMP/ft.raw" |
	sed -n 's/^.*: \([frsv]\): ([^)]*) \(.*\)$/\1: \2/p' > "$KPT_TMP/ft"

for e in f v s r; do
	grep "^$e: " "$KPT_TMP/kpt" > "$KPT_TMP/kpt.$e"
	grep "^$e: " "$KPT_TMP/ft" > "$KPT_TMP/ft.$e"
	nk=$(grep -c '' "$KPT_TMP/kpt.$e")
	nf=$(grep -c '' "$KPT_TMP/ft.$e")
	check_eq "$e: events (kptrace vs ftrace)" "$nk" "$nf"
	if ! cmp -s "$KPT_TMP/kpt.$e" "$KPT_TMP/ft.$e"; then
		diff "$KPT_TMP/ft.$e" "$KPT_TMP/kpt.$e" | sed 's/^/#   /'
		check_fail "$e: values differ (- ftrace, + kptrace)"
	fi
done
check_eq "f events" "$(grep -c '' "$KPT_TMP/ft.f")" 5
check_eq "v events" "$(grep -c '' "$KPT_TMP/ft.v")" 3
check_eq "s events" "$(grep -c '' "$KPT_TMP/ft.s")" 2
check_eq "r events" "$(grep -c '' "$KPT_TMP/ft.r")" 5

# kprobe_profile: "  kptd/f   HITS   MISSES" (event name, hits, misses)
for e in f v s r; do
	fh=$(awk -v n="kptd/$e" '$1 == n || $1 == "kptd:" n { print $2 }' \
		"$TR/kprobe_profile")
	[ -n "$fh" ] || fh=$(awk -v n="$e" '$1 == n { print $2 }' \
		"$TR/kprobe_profile")
	check_eq "$e: hits (kptrace probes vs ftrace kprobe_profile)" \
		"$(spec_field "$e" hits)" "$fh"
done
spec_finish "kptrace and ftrace agree on hits, values and strings"
