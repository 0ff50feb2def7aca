#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kptrace -w saves the raw records and -r decodes them later,
#   without the module, into the same events
# requires: root, debugfs, kptrace.ko, kpt_test.ko, tools/kptrace
#
# name=kpt_test_func retprobe=1 args=6 stack=4, 5 calls, `kptrace -q -w
# FILE -d 2`: kptrace read 10 records and FILE has their size;
# `kptrace -q -r FILE --no-stack` prints the 5 entries
# "kpt_test_func: arg0=0x1..0x5 ..." and the 5 returns ret=-1..-5 in
# order, and `-r FILE -j` 10 valid JSON lines; after rmmod, the same
# events again (the probe names may then be unknown).

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
kpt_test_load

kpt_load name=kpt_test_func retprobe=1 args=6 stack=4
kpt_call 5
timeout 30 "$KPTRACE" -q -w "$KPT_TMP/f.bin" -d 2 > "$KPT_TMP/out" 2>&1 ||
	fail "kptrace -w failed: $(cat "$KPT_TMP/out")"
assert_eq "stdout of -w" "$(cat "$KPT_TMP/out")" ""
assert_eq "records read by kptrace -w" "$(kpt_stat read)" 10
size=$(wc -c < "$KPT_TMP/f.bin")
info "saved $size bytes"
# 5 entries of 64 + 8 x (6 args + 1..4 frames) and 5 returns of 88 bytes
[ "$size" -ge $((5 * (64 + 56) + 5 * 88)) ] && [ "$size" -le $((5 * (64 + 80) + 5 * 88)) ] ||
	fail "saved file of $size bytes for 5 entries and 5 returns"
# Decoded while the module is loaded: probe names come from its probes file.
decode()
{
	timeout 30 "$KPTRACE" -q -r "$KPT_TMP/f.bin" --no-stack > "$KPT_TMP/txt" 2>&1 ||
		fail "kptrace -r failed ($1): $(cat "$KPT_TMP/txt")"
	sed 's/^/#   /' "$KPT_TMP/txt"
	assert_eq "events decoded ($1)" "$(grep -c '' "$KPT_TMP/txt")" 10
	i=1
	while [ $i -le 5 ]; do
		assert_match "entry $i ($1)" "$(sed -n "$((2 * i - 1))p" "$KPT_TMP/txt")" \
			"$KPT_RE_HEAD$2"': arg0=0x'$i' arg1=0x1111 arg2=0x2222 arg3=0x3333 arg4=0x4444 arg5=0x5555$'
		assert_match "return $i ($1)" "$(sed -n "$((2 * i))p" "$KPT_TMP/txt")" \
			"$KPT_RE_HEAD$2"': ret=-'$i' lat_ns=[0-9]+$'
		i=$((i + 1))
	done
	timeout 30 "$KPTRACE" -q -r "$KPT_TMP/f.bin" -j > "$KPT_TMP/json" 2>&1 ||
		fail "kptrace -r -j failed ($1): $(cat "$KPT_TMP/json")"
	assert_eq "JSON lines decoded ($1)" "$(grep -c '' "$KPT_TMP/json")" 10
	kpt_json_check "$KPT_TMP/json"
}
decode "module loaded" kpt_test_func
kpt_unload
# Without the module the probe names are unknown, the events are the same.
decode "module unloaded" '[^ ]+'
info "saved and decoded the same events"
