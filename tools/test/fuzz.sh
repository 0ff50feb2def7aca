#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh SECONDS [spec|btf]: runs a libFuzzer target (ASan, UBSan) for
# SECONDS. spec (the default): test/fuzz_spec on kpt_spec_parse(), from the
# seeds in test/fuzz/seeds and the dictionary test/fuzz/spec.dict. btf:
# test/fuzz_btf on the BTF reader, from the seeds test/gen_btf writes (its
# vmlinux and kpt_test in one input, with 7.1's layout section and without). The corpus it grows is thrown away.
# Exit status 0 if nothing crashed, 1 otherwise (the crashing input is
# kept in test/out/, named crash-*).
set -u
cd "$(dirname "$0")/.." || exit 1
secs=${1:-60}
target=${2:-spec}
corpus=test/fuzz-corpus-$target.tmp
log=test/out/fuzz-$target.log
mkdir -p test/out
rm -rf "$corpus"
mkdir -p "$corpus"
case $target in
spec)
	what="kpt_spec_parse"
	test/fuzz_spec -max_total_time="$secs" -max_len=600 -timeout=5 \
		-rss_limit_mb=1024 -print_final_stats=1 \
		-dict=test/fuzz/spec.dict -artifact_prefix=test/out/ \
		"$corpus" test/fuzz/seeds >"$log" 2>&1
	rc=$?
	;;
btf)
	what="the BTF reader"
	mkdir -p "$corpus.seed" "$corpus.seed-layout"
	if ! test/gen_btf "$corpus.seed" seed ||
	   ! test/gen_btf "$corpus.seed-layout" seed-layout; then
		rm -rf "$corpus" "$corpus.seed" "$corpus.seed-layout"
		echo "fuzz: test/gen_btf could not write the seeds"
		exit 1
	fi
	test/fuzz_btf -max_total_time="$secs" -max_len=4096 -timeout=5 \
		-rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix=test/out/ \
		"$corpus" "$corpus.seed" "$corpus.seed-layout" >"$log" 2>&1
	rc=$?
	rm -rf "$corpus.seed" "$corpus.seed-layout"
	;;
*)
	echo "usage: fuzz.sh SECONDS [spec|btf]" >&2
	exit 2
	;;
esac
rm -rf "$corpus"
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ "$rc" = 0 ]; then
	echo "fuzz: $what: ${runs:-?} inputs in ${secs} s, no crash"
	exit 0
fi
echo "fuzz: $what crashed ($log):"
grep -E '^(round trip|bad error|bad answer|==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5
ls test/out/crash-* 2>/dev/null | head -3
exit 1
