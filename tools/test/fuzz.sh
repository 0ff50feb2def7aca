#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh SECONDS: runs test/fuzz_spec (libFuzzer, ASan, UBSan) on
# kpt_spec_parse() for SECONDS, from the seeds in test/fuzz/seeds and the
# dictionary test/fuzz/spec.dict. The corpus it grows is thrown away.
# Exit status 0 if nothing crashed, 1 otherwise (the crashing input is
# kept in test/out/, named crash-*).
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-60}
corpus=test/fuzz-corpus.tmp
mkdir -p test/out
rm -rf "$corpus"
mkdir -p "$corpus"
test/fuzz_spec -max_total_time="$secs" -max_len=600 -timeout=5 \
	-rss_limit_mb=1024 -print_final_stats=1 \
	-dict=test/fuzz/spec.dict -artifact_prefix=test/out/ \
	"$corpus" test/fuzz/seeds >test/out/fuzz.log 2>&1
rc=$?
rm -rf "$corpus"
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' test/out/fuzz.log)
if [ "$rc" = 0 ]; then
	echo "fuzz: kpt_spec_parse: ${runs:-?} inputs in ${secs} s, no crash"
	exit 0
fi
echo "fuzz: kpt_spec_parse crashed (test/out/fuzz.log):"
grep -E '^(round trip|bad error|==[0-9]+==ERROR|SUMMARY|.*runtime error)' test/out/fuzz.log | head -5
ls test/out/crash-* 2>/dev/null | head -3
exit 1
