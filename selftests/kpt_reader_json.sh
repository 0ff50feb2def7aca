#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the kptrace reader prints known calls as JSON, one valid
#   object per line with the exact values
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# - without the module, -j gives exit 1, nothing on stdout, one line on
#   stderr saying the module is not loaded;
# - name=kpt_test_func retprobe=1 args=6 stack=4, 3 calls, `kptrace -q -j
#   -n 6`: 6 lines, each valid JSON (checked by a parser), alternately
#   {"type":"entry",...} with "probe":"kpt_test_func",
#   "args":[<i>,4369,8738,13107,17476,21845], a "stack" whose first frame
#   is kpt_test_func+0x0 ... [kpt_test] with "module":"kpt_test" and the
#   second kpt_test_call_loop, and {"type":"return",...} with "ret":-<i>,
#   "lat_ns":<n>; entry and return share "tid"; --no-stack drops "stack";
# - a LOST report (bufsize_kb=4, 100 calls) is
#   {"type":"lost","cpu":0,"cause":"full","count":<lost.full>}.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load

"$KPTRACE" -j -n 1 > "$KPT_TMP/out" 2> "$KPT_TMP/err"
rc=$?
assert_eq "exit status without the module" "$rc" 1
assert_eq "stdout without the module" "$(wc -c < "$KPT_TMP/out")" 0
assert_eq "stderr lines without the module" "$(grep -c '' "$KPT_TMP/err")" 1
grep -Eqi 'not loaded|module loaded\?' "$KPT_TMP/err" ||
	fail "the message does not say that the module is not loaded: $(cat "$KPT_TMP/err")"

kpt_load name=kpt_test_func retprobe=1 args=6 stack=4
kpt_call 3
timeout 30 "$KPTRACE" -q -j -n 6 > "$KPT_TMP/out" 2> "$KPT_TMP/err" ||
	fail "kptrace -q -j -n 6 failed or hung: $(cat "$KPT_TMP/err")"
sed 's/^/#   /' "$KPT_TMP/out"
assert_eq "lines" "$(grep -c '' "$KPT_TMP/out")" 6
kpt_json_check "$KPT_TMP/out"

# has LINE_NO TEXT: line LINE_NO contains TEXT
has()
{
	case $(sed -n "$1p" "$KPT_TMP/out") in
	*"$2"*) ;;
	*) fail "line $1 lacks $2: $(sed -n "$1p" "$KPT_TMP/out")" ;;
	esac
}
tid_of()
{
	sed -n "$1p" "$KPT_TMP/out" | sed -n 's/.*"tid":\([0-9]*\).*/\1/p'
}
i=1
while [ $i -le 3 ]; do
	e=$((2 * i - 1))
	r=$((2 * i))
	assert_match "entry $i" "$(sed -n "${e}p" "$KPT_TMP/out")" '^\{"type":"entry",'
	has $e '"probe":"kpt_test_func"'
	has $e "\"args\":[$i,4369,8738,13107,17476,21845]"
	has $e '"comm":"'
	has $e '"stack":[{'
	assert_match "entry $i, first frame" "$(sed -n "${e}p" "$KPT_TMP/out")" \
		'"stack":\[\{"addr":"0x[0-9a-f]+","sym":"kpt_test_func\+0x(0|4)/0x[0-9a-f]+ \[kpt_test\]","module":"kpt_test"\},\{"addr":"0x[0-9a-f]+","sym":"kpt_test_call_loop\+'
	assert_match "return $i" "$(sed -n "${r}p" "$KPT_TMP/out")" '^\{"type":"return",'
	has $r '"probe":"kpt_test_func"'
	has $r "\"ret\":-$i,"
	assert_match "return $i latency" "$(sed -n "${r}p" "$KPT_TMP/out")" '"lat_ns":[0-9]+[,}]'
	assert_eq "tid of return $i" "$(tid_of $r)" "$(tid_of $e)"
	i=$((i + 1))
done

kpt_call 1
timeout 30 "$KPTRACE" -q -j --no-stack -n 2 > "$KPT_TMP/out" 2>&1 ||
	fail "kptrace -j --no-stack failed: $(cat "$KPT_TMP/out")"
kpt_json_check "$KPT_TMP/out"
grep -q '"stack"' "$KPT_TMP/out" && fail "--no-stack printed a stack"
has 1 '"args":[1,4369,8738,13107,17476,21845]'
kpt_unload

kpt_load name=kpt_test_func bufsize_kb=4 args=6 stack=0
KPT_CPU=0
kpt_call 100
lost=$(kpt_stat lost.full)
[ "$lost" -gt 0 ] || fail "100 calls into a 4 KiB ring lost nothing"
timeout 30 "$KPTRACE" -q -j -d 2 > "$KPT_TMP/out" 2>&1 ||
	fail "kptrace -j -d 2 failed: $(cat "$KPT_TMP/out")"
kpt_json_check "$KPT_TMP/out"
sed -n 1p "$KPT_TMP/out" | sed 's/^/#   /'
assert_eq "lost report" "$(grep '"type":"lost"' "$KPT_TMP/out")" \
	"{\"type\":\"lost\",\"cpu\":0,\"cause\":\"full\",\"count\":$lost}"
assert_eq "entries after the loss" "$(grep -c '"type":"entry"' "$KPT_TMP/out")" \
	$((100 - lost))
info "kptrace JSON output as expected"
