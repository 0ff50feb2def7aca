# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host tests of `kptrace hist`, sourced by test/run.sh (its ok/not_ok/skip,
# run, check_run, check_msg, $KPT, $DATA, $EXP, $OUT).
#
# The fixtures of test/data/hist/ are hist files written by hand in the
# module's format (ftrace's hist trigger text): .log2, .loglin and
# .buckets=N keys, comm and stack keys (multi-line entries, [mod] frames),
# strings with \xHH escapes, a signed retval key, hex and symbol keys. Each
# output form is compared with test/expected/hist-*; JSON goes through
# python3 -m json.tool; the flame graph SVG is rendered by a headless
# chromium (hovering a frame must show its share); the Prometheus file is
# scraped from a real node_exporter (textfile collector). test/gen_hist
# makes a .loglin file from known values: the printed percentiles must be
# within 6% of the true ones. A file whose totals do not add up must make
# the tool warn and exit 1; a live table (test/data/hist-live) may have its
# totals ahead of its entries, never behind, a cleared interval none.
# test/data/hist-signed: .buckets=N of signed fields, negative ranges.
# test/data/hist-evil: comm and string keys with terminal escapes, which
# no output form may carry raw. test/data/hist-prom: names chosen to
# collide in Prometheus metric names (a key "entries", retval a key here
# and a value in ret, a key "field"): node_exporter must read them all.
# test/data/hist-seq: five live reads of a table another reader clears,
# for the running totals of -i --prometheus. chromium and node_exporter
# missing: skip.

HDATA=$DATA/hist
export KPTRACE_HIST_DIR=$HDATA

# --- listing, errors ----------------------------------------------------------

check_run hist-list 0 $KPT hist
mkdir -p "$OUT/hist-empty"
check_msg hist-list-empty 1 \
	"kptrace: no aggregation in $OUT/hist-empty: is the kptrace module loaded? add one with: kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.log2'" \
	env KPTRACE_HIST_DIR="$OUT/hist-empty" $KPT hist
check_msg hist-unknown 1 "kptrace: no aggregation nosuch (see: kptrace hist)" \
	$KPT hist nosuch
check_msg hist-folded-nostack 2 \
	"kptrace: --folded needs a stacktrace key, lat has none: hist:keys=comm,lat_ns.log2" \
	$KPT hist lat --folded
check_msg hist-svg-nostack 2 \
	"kptrace: --svg needs a stacktrace key, ret has none: hist:keys=retval,flags" \
	$KPT hist ret --svg "$OUT/x.svg"
check_msg hist-usage-forms 2 "kptrace: -j, --folded and --svg exclude each other
Try 'kptrace hist --help' for more information." $KPT hist rd -j --folded
check_msg hist-usage-count 2 "kptrace: -c and -d need -i
Try 'kptrace hist --help' for more information." $KPT hist lat -c 2
check_msg hist-usage-interval 2 "kptrace: invalid --interval '0': a number > 0" \
	$KPT hist lat -i 0

# --- parsing: every fixture, as histograms or a table ----------------------------

for h in lat ll sz rd st op ret cpu; do
	check_run "hist-$h" 0 $KPT hist $h
done

# totals that do not add up: the output, then a warning, exit 1
check_run hist-badtotals 1 env KPTRACE_HIST_DIR=$DATA/hist-bad $KPT hist badtotals

# cut and garbled files: one message with the line, exit 1
mkdir -p "$OUT/hist-cut"
head -9 "$HDATA/lat" >"$OUT/hist-cut/cut"
sed 's/hitcount:          5/hitcount: five/' "$HDATA/lat" >"$OUT/hist-cut/garbled"
sed 's/2^10/2^x/' "$HDATA/lat" >"$OUT/hist-cut/badlog2"
sed '/^# probe:/d' "$HDATA/lat" >"$OUT/hist-cut/noprobe"
check_msg hist-cut 1 "kptrace: $OUT/hist-cut/cut: line 10: no Totals: (a cut file?)" \
	env KPTRACE_HIST_DIR="$OUT/hist-cut" $KPT hist cut
check_msg hist-garbled 1 "kptrace: $OUT/hist-cut/garbled: line 7: expected a number" \
	env KPTRACE_HIST_DIR="$OUT/hist-cut" $KPT hist garbled
check_msg hist-badlog2 1 "kptrace: $OUT/hist-cut/badlog2: line 7: bad value '~ 2^x' of key lat_ns" \
	env KPTRACE_HIST_DIR="$OUT/hist-cut" $KPT hist badlog2
check_msg hist-noprobe 1 "kptrace: $OUT/hist-cut/noprobe: line 5: no '# kptrace hist:' or '# probe:' header line" \
	env KPTRACE_HIST_DIR="$OUT/hist-cut" $KPT hist noprobe

# signed .buckets=N (issue 21): the module prints a signed field's bucket
# as a signed range, "~ -10--1", HI saturated at the type's largest; the
# tool reads it, orders the buckets as signed numbers and prints them back
# so, in every form. An unsigned key with a '-' is refused.
SDATA=$DATA/hist-signed
check_run hist-neg 0 env KPTRACE_HIST_DIR="$SDATA" $KPT hist neg
check_run hist-negtab 0 env KPTRACE_HIST_DIR="$SDATA" $KPT hist negtab
check_run hist-neg-json 0 env KPTRACE_HIST_DIR="$SDATA" $KPT hist neg -j
d=$(awk '/^[[(]|^\.\.\./ { printf "%s%s", sep, ($1 == "..." ? "..." : $1 " " $2); sep = " | " }' \
	"$OUT/hist-neg.out")
want='[-9223372036854775808, -9223372036854775799] | ... | [-30, -21] | [-20, -11] | [-10, -1] | [0, 9] | [10, 19] | ... | [9223372036854775800, 9223372036854775807]'
[ "$d" = "$want" ] && d= || d="buckets: $d
expected: $want"
d=$d$(python3 -c '
import json, sys
h = json.load(sys.stdin)
k = [(e["key"]["retval"]["lo"], e["key"]["retval"]["hi"], e["hitcount"])
     for e in h["entries"]]
assert k == [(-2**63, -2**63 + 9, 1), (-30, -21, 2), (-10, -1, 4), (0, 9, 6),
             (10, 19, 1), (2**63 - 8, 2**63 - 1, 1)], k
assert h["entries"][2]["vals"]["retval"] == {"sum": -14, "min": -9, "max": -1}
' <"$OUT/hist-neg-json.out" 2>&1)
if [ -z "$d" ]; then
	ok "hist .buckets=N signed: ordered as signed, printed back signed"
else
	not_ok "hist .buckets=N signed: ordered as signed, printed back signed" "$d"
fi
sed 's/~ 4096-5119/~ -4096-5119/' "$HDATA/sz" >"$OUT/hist-cut/negsz"
check_msg hist-neg-unsigned 1 "kptrace: $OUT/hist-cut/negsz: line 7: bad value '~ -4096-5119' of key count" \
	env KPTRACE_HIST_DIR="$OUT/hist-cut" $KPT hist negsz

# the totals of a live table (issue 21): the module reads the entries
# first, then the books, and counts a hit before its outcome: so in a live
# read Aggregated >= the sum of the hitcounts and Hits >= Aggregated +
# Filtered + Dropped, never the other way; a cleared interval adds up
# exactly. Dropped is the sum of its causes in both.
LDATA=$DATA/hist-live
for h in liveahead clearedexact; do
	run hist-$h env KPTRACE_HIST_DIR="$LDATA" $KPT hist $h
	if [ "$rc" = 0 ] && [ ! -s "$OUT/hist-$h.err" ] &&
	   grep -q '^Totals:' "$OUT/hist-$h.out"; then
		ok "hist totals: $h adds up"
	else
		not_ok "hist totals: $h adds up" "rc $rc $(cat "$OUT/hist-$h.err")"
	fi
done
mkdir -p "$OUT/prom-live"
run hist-liveahead-prom env KPTRACE_HIST_DIR="$LDATA" $KPT hist liveahead \
	--prometheus "$OUT/prom-live"
if [ "$rc" = 0 ] && [ ! -s "$OUT/hist-liveahead-prom.err" ]; then
	ok "hist totals: a live table ahead of its entries, --prometheus"
else
	not_ok "hist totals: a live table ahead of its entries, --prometheus" \
		"rc $rc $(cat "$OUT/hist-liveahead-prom.err")"
fi
for t in "livebehind:Aggregated 7 < 8, the sum of the hitcounts read before it (live table)" \
	 "livehits:Hits 10 < Aggregated 8 + Filtered 1 + Dropped 2 (live table)" \
	 "livedrop:Dropped 2 != the sum of its causes, 1" \
	 "clearedahead:Aggregated 10 != 8, the sum of the hitcounts"; do
	h=${t%%:*}
	run hist-$h env KPTRACE_HIST_DIR="$LDATA" $KPT hist $h
	msg="kptrace: warning: $h: the totals do not add up: ${t#*:}"
	if [ "$rc" = 1 ] && [ "$(cat "$OUT/hist-$h.err")" = "$msg" ] &&
	   grep -q '^Totals:' "$OUT/hist-$h.out"; then
		ok "hist totals: $h does not add up"
	else
		not_ok "hist totals: $h does not add up" "rc $rc $(cat "$OUT/hist-$h.err")
expected: $msg"
	fi
done

# prefixes of two fixtures (a stack key, signed and hex keys), cut every 5
# bytes and around each newline: a message and exit status 1, or 0 where
# the cut falls after the totals; never a crash
mkdir -p "$OUT/hist-prefix"
crash=
for h in rd ret; do
	cuts=$(awk '{ n += length($0) + 1; print n - 2; print n - 1; print n }
		    END { for (i = 0; i < n; i += 5) print i }' "$HDATA/$h" | sort -nu)
	for i in $cuts; do
		head -c "$i" "$HDATA/$h" >"$OUT/hist-prefix/p"
		KPTRACE_HIST_DIR="$OUT/hist-prefix" $KPT hist p >/dev/null 2>&1
		rc=$?
		[ $rc -gt 1 ] && crash="$crash $h:$i:rc=$rc"
	done
done
if [ -z "$crash" ]; then
	ok "hist: every prefix of a file is refused or read, never a crash"
else
	not_ok "hist: every prefix of a file is refused or read, never a crash" "$crash"
fi

# --- JSON ------------------------------------------------------------------------

for h in lat rd op ret cpu sz; do
	check_run "hist-$h-json" 0 $KPT hist $h -j
done
if ! command -v python3 >/dev/null; then
	skip "hist -j: valid JSON" "python3 not installed"
else
	bad=
	for h in lat ll sz rd st op ret cpu; do
		$KPT hist $h -j | python3 -m json.tool >/dev/null 2>&1 || bad="$bad $h"
	done
	# values, not only syntax: the escapes and the signed numbers
	d=$($KPT hist op -j | python3 -c '
import json, sys
h = json.load(sys.stdin)
k = {e["key"]["filename"]: e["hitcount"] for e in h["entries"]}
assert k["/tmp/a,b{c}"] == 2 and k["caf\u00c3\u00a9\n\"q\""] == 3, k
assert h["totals"]["dropped_by_cause"]["table_full"] == 0' 2>&1)
	d2=$($KPT hist ret -j | python3 -c '
import json, sys
h = json.load(sys.stdin)
e = h["entries"][0]
assert e["key"] == {"retval": -13, "flags": "0x241"}, e
assert e["vals"]["retval"] == {"sum": -13, "min": -13, "max": -13}, e' 2>&1)
	if [ -z "$bad$d$d2" ]; then
		ok "hist -j: valid JSON, the values"
	else
		not_ok "hist -j: valid JSON, the values" "invalid:$bad $d $d2"
	fi
fi

# --- folded stacks, flame graph ------------------------------------------------------

check_run hist-rd-folded 0 $KPT hist rd --folded
check_run hist-rd-folded-offsets 0 $KPT hist rd --folded --offsets
check_run hist-st-folded 0 $KPT hist st --folded
# vfs_read+0x9e and +0x5 of cat merge without --offsets: 120 + 30
if grep -qx 'cat;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read 150' \
	"$OUT/hist-rd-folded.out"; then
	ok "hist --folded: the same function merges"
else
	not_ok "hist --folded: the same function merges" "$(cat "$OUT/hist-rd-folded.out")"
fi

run hist-svg $KPT hist rd --svg "$OUT/rd.svg"
if [ "$rc" != 0 ] || [ -s "$OUT/hist-svg.out" ] ||
   ! grep -q '<title>ksys_read (150 samples, 46.88%)</title>' "$OUT/rd.svg"; then
	not_ok "hist --svg: the flame graph" "$(cat "$OUT/hist-svg.err")"
elif command -v python3 >/dev/null &&
     ! python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' \
	"$OUT/rd.svg" 2>"$OUT/hist-svg-xml.err"; then
	not_ok "hist --svg: the flame graph" "not XML: $(cat "$OUT/hist-svg-xml.err")"
else
	ok "hist --svg: the flame graph"
fi

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
	skip "hist --svg: hover in chromium shows frame and share" "chromium not installed"
else
	{
		echo '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
		sed 1d "$OUT/rd.svg"
		cat <<'EOF'
<pre id="result">not run</pre>
<script>
var r = 'no ksys_read frame', gs = document.querySelectorAll('g.f');
for (var i = 0; i < gs.length; i++) {
	if (gs[i].getAttribute('data-n') !== 'ksys_read')
		continue;
	var rect = gs[i].getElementsByTagName('rect')[0];
	rect.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
	r = document.getElementById('kptdetails').textContent;
	/* click: zoom on it, it then takes the whole width */
	rect.dispatchEvent(new MouseEvent('click', { bubbles: true }));
	r += ' / zoomed width ' + Math.round(rect.getAttribute('width'));
	break;
}
document.getElementById('result').textContent = 'DETAIL[' + r + ']';
</script></body></html>
EOF
	} >"$OUT/rd.html"
	timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox \
		--user-data-dir="$OUT/chromium-profile" \
		--dump-dom "file://$PWD/$OUT/rd.html" >"$OUT/rd.dom" 2>"$OUT/chromium.err"
	if grep -q 'DETAIL\[ksys_read (150 samples, 46.88%) / zoomed width 1180\]' "$OUT/rd.dom"; then
		ok "hist --svg: hover in chromium shows frame and share"
	else
		not_ok "hist --svg: hover in chromium shows frame and share" \
			"$(grep -o 'DETAIL\[[^]]*\]' "$OUT/rd.dom"; tail -5 "$OUT/chromium.err")"
	fi
fi

# --- untrusted text in every form ---------------------------------------------------

# comm and string keys holding ESC [2J, the C1 CSI (c2 9b), an OSC, a
# newline, a CR, a backslash and < > & " ' ; (issue 21): the histograms and
# the table, JSON, folded stacks, the SVG and the Prometheus file carry
# none of those bytes raw: \xNN in text (folded: ; too), \u00NN in JSON
# (decoding to the very bytes), &..; in the SVG, \\xNN in a label value
EDATA=$DATA/hist-evil
check_run hist-ev 0 env KPTRACE_HIST_DIR="$EDATA" $KPT hist ev
check_run hist-evst 0 env KPTRACE_HIST_DIR="$EDATA" $KPT hist evst
check_run hist-evst-folded 0 env KPTRACE_HIST_DIR="$EDATA" $KPT hist evst --folded
run hist-ev-json env KPTRACE_HIST_DIR="$EDATA" $KPT hist ev -j
run hist-evst-svg env KPTRACE_HIST_DIR="$EDATA" $KPT hist evst --svg "$OUT/evst.svg"
d=
for f in hist-ev.out hist-evst.out hist-evst-folded.out hist-ev-json.out evst.svg; do
	pat='[^ -~]'
	# (but the SVG's script is indented with tabs)
	[ $f = evst.svg ] && pat='[^	 -~]'
	LC_ALL=C grep -q "$pat" "$OUT/$f" &&
		d="$d
$f: $(LC_ALL=C grep -n "$pat" "$OUT/$f" | head -3 | cat -v)"
done
[ "$(wc -l <"$OUT/hist-evst-folded.out")" = 5 ] ||
	d="$d
folded: $(wc -l <"$OUT/hist-evst-folded.out") lines for 5 stacks"
grep -qxF 'a\x0ab\x3bc;ksys_read;vfs_read 30' "$OUT/hist-evst-folded.out" ||
	d="$d
folded: no 'a\x0ab\x3bc;ksys_read;vfs_read 30'"
d=$d$(python3 - "$OUT/hist-ev-json.out" "$OUT/evst.svg" <<'PY' 2>&1
import json, sys, xml.dom.minidom
h = json.load(open(sys.argv[1]))
got = {e["key"]["comm"].encode("latin-1"): e["key"]["filename"].encode("latin-1")
       for e in h["entries"]}
assert got == {b"\x1b[2J": b"\x1b]0;pwned\x07", b"\xc2\x9b31m": b"\xc2\x9b31m",
               b"a\nb": b"a\nb\r", b"back\\slash": b"back\\slash",
               b"it's<b>&\"q\"": b"it's<b>&\"q\";x=1"}, got
svg = open(sys.argv[2]).read()
xml.dom.minidom.parseString(svg)
assert "it&#39;s&lt;b&gt;&amp;&quot;q&quot;" in svg, "no escaped it's<b>&\"q\""
assert "data-n=\"back\\x5cslash\"" in svg, "no back\\x5cslash frame"
assert "'" not in svg.split("<script>")[0], "a raw ' in the SVG"
PY
)
if [ -z "$d" ]; then
	ok "hist: untrusted comm and strings escaped in text, JSON, folded and SVG"
else
	not_ok "hist: untrusted comm and strings escaped in text, JSON, folded and SVG" "$d"
fi

# --- percentiles of .loglin --------------------------------------------------------

mkdir -p "$OUT/hist-gen"
test/gen_hist "$OUT/hist-gen/gen" "$OUT/hist-gen.quantiles"
run hist-gen env KPTRACE_HIST_DIR="$OUT/hist-gen" $KPT hist gen
d=$(awk 'FNR == NR { want[$1] = $2; next }
	 /^count / { for (i = 4; i < NF; i += 2) got[$i] = $(i + 1); n++ }
	 END {
		if (n != 1) { print "no count line"; exit }
		for (q in want) {
			if (q == "min" || q == "max")
				continue
			e = (got[q] - want[q]) / want[q]
			if (e < 0) e = -e
			if (e > 0.06 || got[q] == "")
				print q ": " got[q] " vs " want[q]
		}
	 }' "$OUT/hist-gen.quantiles" "$OUT/hist-gen.out")
if [ "$rc" = 0 ] && [ -z "$d" ]; then
	ok "hist .loglin: p50 p90 p99 p99.9 within 6% of the true quantiles"
else
	not_ok "hist .loglin: p50 p90 p99 p99.9 within 6% of the true quantiles" \
		"$d $(grep ^count "$OUT/hist-gen.out") $(cat "$OUT/hist-gen.quantiles")"
fi

# --- -i -------------------------------------------------------------------------------

# a regular file has no "clear": the loop, its headers and -c
run hist-interval $KPT hist lat -i 1 -c 2
hdr='^=== [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} lat interval [12] \([0-9.]+ s\) ===$'
if [ "$rc" = 0 ] && [ "$(grep -cE "$hdr" "$OUT/hist-interval.out")" = 2 ] &&
   [ "$(grep -c '^Totals:' "$OUT/hist-interval.out")" = 2 ] &&
   cmp -s "$HDATA/lat" "$DATA/hist/lat"; then
	ok "hist -i 1 -c 2: two intervals with their headers"
else
	not_ok "hist -i 1 -c 2: two intervals with their headers" \
		"$(cat "$OUT/hist-interval.out" "$OUT/hist-interval.err")"
fi
# -d 2 -i 1: two intervals of 1 s, not a third empty one
run hist-interval-d $KPT hist rd -i 1 -d 2 --folded
if [ "$rc" = 0 ] && [ "$(grep -c '^=== .* rd interval [12] (1\.[0-9] s) ===$' "$OUT/hist-interval-d.out")" = 2 ] &&
   [ "$(grep -c '^===' "$OUT/hist-interval-d.out")" = 2 ] &&
   [ "$(grep -c ' 150$' "$OUT/hist-interval-d.out")" = 2 ]; then
	ok "hist -i 1 -d 2 --folded: two intervals"
else
	not_ok "hist -i 1 -d 2 --folded: two intervals" \
		"$(cat "$OUT/hist-interval-d.out" "$OUT/hist-interval-d.err")"
fi
# SIGINT: the interval so far, then exit 0
$KPT hist lat -i 60 -j >"$OUT/hist-sigint.out" 2>"$OUT/hist-sigint.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
if [ "$rc" = 0 ] && [ "$(grep -c '"totals"' "$OUT/hist-sigint.out")" = 1 ]; then
	ok "hist -i: SIGINT prints the interval so far and exits 0"
else
	not_ok "hist -i: SIGINT prints the interval so far and exits 0" \
		"rc $rc $(cat "$OUT/hist-sigint.err")"
fi

# --- Prometheus -------------------------------------------------------------------------

# Each file exactly as expected; then the metric names: a fixed set of
# families, the user's names (hist, keys, values) only in labels (issue 21:
# a key named "entries" made a second kptrace_hist_entries, a histogram on
# retval and a value retval both made kptrace_hist_retval_sum)
mkdir -p "$OUT/prom"
for t in lat:$HDATA ret:$HDATA rd:$HDATA op:$HDATA ent:$DATA/hist-prom \
	 rk:$DATA/hist-prom neg:$DATA/hist-signed negtab:$DATA/hist-signed \
	 ev:$DATA/hist-evil; do
	h=${t%%:*}
	run hist-prom-$h env KPTRACE_HIST_DIR="${t#*:}" $KPT hist $h --prometheus "$OUT/prom"
	if [ "$rc" != 0 ] || [ -s "$OUT/hist-prom-$h.out" ]; then
		not_ok "hist-$h.prom" "rc $rc $(cat "$OUT/hist-prom-$h.err")"
		continue
	fi
	d=$(same "$OUT/prom/kptrace_$h.prom" "$EXP/hist-$h.prom")
	if [ -n "$d" ]; then
		not_ok "hist-$h.prom" "$d"
	else
		ok "hist-$h.prom"
	fi
done
if ls -A "$OUT/prom" | grep -q '^\.'; then
	not_ok "hist --prometheus: no temporary file left" "$(ls -A "$OUT/prom")"
else
	ok "hist --prometheus: no temporary file left"
fi
d=$(cat "$OUT"/prom/*.prom | awk '
	BEGIN {
		split("hits_total aggregated_total filtered_total dropped_total entries hitcount_total value_sum_total value_signed_sum distribution", f)
		for (i in f)
			fam["kptrace_hist_" f[i]] = 1
	}
	/^# (HELP|TYPE) / { if (!($3 in fam)) print "family " $3; next }
	{
		n = $0
		sub(/[{ ].*/, "", n)
		b = n
		sub(/_(bucket|sum|count)$/, "", b)
		if (!(n in fam) && !(b == "kptrace_hist_distribution"))
			print "sample " n
	}' | sort -u)
LC_ALL=C grep -q '[^ -~]' "$OUT"/prom/*.prom &&
	d="$d
not printable ASCII: $(LC_ALL=C grep -n '[^ -~]' "$OUT"/prom/*.prom | cat -v)"
for want in 'comm="\\x1b[2J",filename="\\x1b]0;pwned\\x07"' \
	    'comm="a\\x0ab",filename="a\\x0ab\\x0d"' \
	    'comm="back\\x5cslash",filename="back\\x5cslash"' \
	    'comm="it'\''s<b>&\"q\"",filename="it'\''s<b>&\"q\";x=1"'; do
	grep -qF "$want" "$OUT/prom/kptrace_ev.prom" || d="$d
no $want"
done
if [ -z "$d" ]; then
	ok "hist --prometheus: fixed metric names, user names and text only in labels (\\\\xNN)"
else
	not_ok "hist --prometheus: fixed metric names, user names and text only in labels (\\\\xNN)" "$d"
fi

# -i with --prometheus: the file again every interval, nothing on stdout
mkdir -p "$OUT/prom-i"
run hist-prom-i $KPT hist lat -i 1 -c 2 --prometheus "$OUT/prom-i"
if [ "$rc" = 0 ] && [ ! -s "$OUT/hist-prom-i.out" ] &&
   cmp -s "$OUT/prom-i/kptrace_lat.prom" "$OUT/prom/kptrace_lat.prom"; then
	ok "hist -i --prometheus: the file, rewritten"
else
	not_ok "hist -i --prometheus: the file, rewritten" "$(cat "$OUT/hist-prom-i.err")"
fi

# -i with --prometheus while another reader clears the table (issue 21):
# five live reads of test/data/hist-seq/s1..s5, s3 and s5 after a clear
# (in s5 Hits fell but cat's count grew: the whole table was cleared);
# s2 misses the key sh (a live read may). The counters are the tool's
# running totals, never lower than before: each read adds its growth, or
# after a clear its counts. The file is swapped after each write.
SEQ=$(mktemp -d "$OUT/hist-seq.XXXXXX")
mkdir -p "$SEQ/prom"
cp "$DATA/hist-seq/s1" "$SEQ/seq"
KPTRACE_HIST_DIR=$SEQ $KPT hist seq -i 1 -c 5 --prometheus "$SEQ/prom" \
	>"$OUT/hist-seq.out" 2>"$OUT/hist-seq.err" &
pid=$!
last=
d=
for k in 1 2 3 4 5; do
	# each write is a new file (a rename): wait for the next one
	for i in $(seq 250); do
		ino=$(stat -c %i "$SEQ/prom/kptrace_seq.prom" 2>/dev/null)
		[ -n "$ino" ] && [ "$ino" != "$last" ] && break
		sleep 0.02
	done
	[ -n "$ino" ] && [ "$ino" != "$last" ] || d="$d
no write $k in 5 s"
	last=$ino
	cp "$SEQ/prom/kptrace_seq.prom" "$SEQ/read$k" 2>/dev/null
	if [ $k -lt 5 ]; then
		cp "$DATA/hist-seq/s$((k + 1))" "$SEQ/seq.tmp"
		mv "$SEQ/seq.tmp" "$SEQ/seq"
	fi
done
wait $pid
rc=$?
for want in \
	'kptrace_hist_hits_total{hist="seq"} 11 16 19 38 59' \
	'kptrace_hist_aggregated_total{hist="seq"} 11 16 19 38 59' \
	'kptrace_hist_distribution_count{hist="seq",field="lat_ns",comm="cat"} 6 9 11 21 34' \
	'kptrace_hist_distribution_bucket{hist="seq",field="lat_ns",comm="cat",le="1024"} 6 9 11 21 34' \
	'kptrace_hist_distribution_sum{hist="seq",field="lat_ns",comm="cat"} 4000 6000 7000 13000 20500' \
	'kptrace_hist_distribution_count{hist="seq",field="lat_ns",comm="ls"} 4 6 7 14 20' \
	'kptrace_hist_distribution_count{hist="seq",field="lat_ns",comm="sh"} 1 1 1 3 5' \
	'kptrace_hist_value_signed_sum{hist="seq",val="retval",comm="cat"} 6 9 11 21 34' \
	'kptrace_hist_value_signed_sum{hist="seq",val="retval",comm="ls"} -4 -6 -7 -14 -20' \
	'kptrace_hist_entries{hist="seq"} 3 2 2 3 3'; do
	series=${want% * * * * *}
	got=$series
	for k in 1 2 3 4 5; do
		v=$(grep -F "$series " "$SEQ/read$k" 2>/dev/null | awk '{ print $NF }')
		got="$got ${v:-none}"
	done
	[ "$got" = "$want" ] || d="$d
got      $got
expected $want"
done
if [ "$rc" = 0 ] && [ -z "$d" ] && [ ! -s "$OUT/hist-seq.out" ]; then
	ok "hist -i --prometheus: counters never go back when another reader clears"
else
	not_ok "hist -i --prometheus: counters never go back when another reader clears" \
		"rc $rc$d
$(cat "$OUT/hist-seq.err")"
fi

EXPORTER=/usr/bin/prometheus-node-exporter
if [ ! -x "$EXPORTER" ]; then
	skip "hist --prometheus: node_exporter's textfile collector reads it" \
		"prometheus-node-exporter not installed"
elif ! command -v curl >/dev/null; then
	skip "hist --prometheus: node_exporter's textfile collector reads it" \
		"curl not installed"
else
	scraped=
	scrape_textfiles "$OUT/prom" "$OUT/metrics.txt" "$OUT/exporter.log" &&
		scraped=1
	# every file's series, those named to collide (a key "entries", retval
	# a histogram's key in rk and a value in ret, keys "field" and a
	# negative le) and the escapes as node_exporter serves them
	missing=
	for want in 'node_textfile_scrape_error 0' \
		    'kptrace_hist_hits_total{hist="lat"} 18' \
		    'kptrace_hist_dropped_total{cause="table_full",hist="lat"} 3' \
		    'kptrace_hist_entries{hist="ret"} 3' \
		    'kptrace_hist_distribution_bucket{comm="bash x",field="lat_ns",hist="lat",le="4096"} 8' \
		    'kptrace_hist_distribution_bucket{comm="cat",field="lat_ns",hist="lat",le="+Inf"} 7' \
		    'kptrace_hist_distribution_sum{comm="cat",field="lat_ns",hist="lat"} 16000' \
		    'kptrace_hist_distribution_count{comm="bash x",field="lat_ns",hist="lat"} 8' \
		    'kptrace_hist_hitcount_total{flags="0x0",hist="ret",retval="-2"} 4' \
		    'kptrace_hist_value_signed_sum{flags="0x0",hist="ret",retval="-2",val="retval"} -8' \
		    'kptrace_hist_value_sum_total{flags="0x241",hist="ret",retval="-13",val="lat_ns"} 800' \
		    'kptrace_hist_hitcount_total{comm="cat",hist="rd"} 150' \
		    'kptrace_hist_hitcount_total{comm="my prog",filename="caf\\xc3\\xa9\\x0a\"q\"",hist="op"} 3' \
		    'kptrace_hist_hitcount_total{comm="vim",filename="/home/x\\x5cy z",hist="op"} 1' \
		    'kptrace_hist_entries{hist="ent"} 3' \
		    'kptrace_hist_distribution_bucket{comm="cat",field="entries",hist="ent",key_field="7",le="1024"} 3' \
		    'kptrace_hist_distribution_sum{comm="cat",field="entries",hist="ent",key_field="7"} 6100' \
		    'kptrace_hist_distribution_count{comm="dd",field="entries",hist="ent",key_field="0"} 2' \
		    'kptrace_hist_distribution_bucket{comm="cat",field="retval",hist="rk",le="9"} 4' \
		    'kptrace_hist_distribution_bucket{comm="cat",field="retval",hist="rk",le="19"} 5' \
		    'kptrace_hist_distribution_sum{comm="cat",field="retval",hist="rk"} 25' \
		    'kptrace_hist_value_sum_total{comm="cat",hist="rk",val="lat_ns"} 4500' \
		    'kptrace_hist_distribution_bucket{field="retval",hist="neg",le="-21"} 3' \
		    'kptrace_hist_distribution_bucket{field="retval",hist="neg",le="-1"} 7' \
		    'kptrace_hist_distribution_bucket{field="retval",hist="neg",le="+Inf"} 15' \
		    'kptrace_hist_distribution_bucket{comm="ls",field="dfd",hist="negtab",le="-1"} 5' \
		    'kptrace_hist_distribution_bucket{comm="cat",field="dfd",hist="negtab",le="-101"} 1' \
		    'kptrace_hist_hitcount_total{comm="\\x1b[2J",filename="\\x1b]0;pwned\\x07",hist="ev"} 1' \
		    'kptrace_hist_hitcount_total{comm="back\\x5cslash",filename="back\\x5cslash",hist="ev"} 4' \
		    'kptrace_hist_hitcount_total{comm="a\\x0ab",filename="a\\x0ab\\x0d",hist="ev"} 3' \
		    'kptrace_hist_hitcount_total{comm="it'\''s<b>&\"q\"",filename="it'\''s<b>&\"q\";x=1",hist="ev"} 5'; do
		grep -qxF "$want" "$OUT/metrics.txt" 2>/dev/null || missing="$missing
$want"
	done
	# one HELP and one TYPE per family
	dup=$(grep -E '^# (HELP|TYPE) kptrace_' "$OUT/metrics.txt" 2>/dev/null |
	      awk '{ print $2, $3 }' | sort | uniq -d)
	if [ -z "$scraped" ]; then
		not_ok "hist --prometheus: node_exporter's textfile collector reads it" \
			"no scrape: $(tail -5 "$OUT/exporter.log")"
	elif [ -n "$missing$dup" ]; then
		not_ok "hist --prometheus: node_exporter's textfile collector reads it" \
			"missing:$missing
$dup
$(grep -E 'textfile' "$OUT/metrics.txt" | head -5)
$(grep -iE 'error|collid|inconsist' "$OUT/exporter.log" | head -5)"
	else
		ok "hist --prometheus: node_exporter's textfile collector reads it"
	fi
fi

# --- the spec of an aggregating probe through probe add ---------------------------------

# resolve.c leaves the hist: part as it is (it took "hist:keys" for an
# argument); $retval gets its BTF type as before
check_run hist-probe-add 0 env KPTRACE_BTF_DIR="$OUT/btf" $KPT probe add -n \
	'r:lat do_sys_openat2 $retval hist:keys=comm,lat_ns.log2' \
	'p:rd vfs_read if comm == cat hist:keys=stacktrace' \
	'r:ll do_sys_openat2 hist:keys=comm,lat_ns.loglin:vals=lat_ns:sort=lat_ns.descending'

run hist-help $KPT hist --help
if [ "$rc" = 0 ] && grep -q "kptrace hist lat -i 5" "$OUT/hist-help.out" &&
   grep -q "kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.loglin'" "$OUT/hist-help.out" &&
   grep -q -- "--prometheus /var/lib/prometheus/node-exporter" "$OUT/hist-help.out"; then
	ok "hist --help: options with examples"
else
	not_ok "hist --help: options with examples"
fi

# --- valgrind -----------------------------------------------------------------------------

if [ ! -x ./kptrace-dyn ] || ! command -v valgrind >/dev/null; then
	skip "hist: valgrind" "valgrind or kptrace-dyn missing"
else
	vg_bad=
	for args in "hist" "hist lat" "hist ll" "hist sz -j" "hist rd --folded" \
		    "hist st" "hist op -j" "hist ret --prometheus $OUT/prom" \
		    "hist rd --svg $OUT/vg.svg" "hist lat --prometheus $OUT/prom"; do
		# shellcheck disable=SC2086
		valgrind -q --error-exitcode=99 --leak-check=full \
			--show-leak-kinds=all --errors-for-leak-kinds=all \
			./kptrace-dyn $args >/dev/null 2>"$OUT/valgrind.err"
		if [ $? = 99 ]; then
			vg_bad="$vg_bad
$args: $(cat "$OUT/valgrind.err")"
		fi
	done
	# signed ranges, untrusted text in every form, and the running totals
	# of --prometheus kept across intervals
	for t in "hist-signed neg" "hist-signed negtab -j" \
		 "hist-signed neg --prometheus $OUT/prom" \
		 "hist-evil ev --prometheus $OUT/prom" "hist-evil evst --folded" \
		 "hist-evil evst --svg $OUT/vg.svg" "hist-prom ent -i 1 -c 2 --prometheus $OUT/prom-i" \
		 "hist-live livebehind"; do
		# shellcheck disable=SC2086
		KPTRACE_HIST_DIR="$DATA/${t%% *}" valgrind -q --error-exitcode=99 \
			--leak-check=full --show-leak-kinds=all \
			--errors-for-leak-kinds=all ./kptrace-dyn hist ${t#* } \
			>/dev/null 2>"$OUT/valgrind.err"
		[ $? = 99 ] && vg_bad="$vg_bad
$t: $(cat "$OUT/valgrind.err")"
	done
	for f in cut garbled badlog2; do
		KPTRACE_HIST_DIR="$OUT/hist-cut" valgrind -q --error-exitcode=99 \
			--leak-check=full --show-leak-kinds=all \
			--errors-for-leak-kinds=all ./kptrace-dyn hist $f \
			>/dev/null 2>"$OUT/valgrind.err"
		[ $? = 99 ] && vg_bad="$vg_bad
$f: $(cat "$OUT/valgrind.err")"
	done
	if [ -z "$vg_bad" ]; then
		ok "hist: valgrind, no errors, no leaks"
	else
		not_ok "hist: valgrind, no errors, no leaks" "$vg_bad"
	fi
fi

unset KPTRACE_HIST_DIR
