#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: bad probe specs are refused with the right errno, an
#   error_log entry with the message and the caret under the exact column,
#   and one kernel log line; nothing is left behind (like ftrace's
#   kprobe_syntax_errors.tc)
# requires: root, debugfs, kptrace.ko, kpt_test.ko, helpers/kpt_spec
#
# Each row of the table below is COLUMN ;; ERRNO ;; MESSAGE ;; SPEC. Writing
# SPEC to /dev/kptrace fails with ERRNO; error_log's last entry is
#   "[<ts>] kptrace: error: MESSAGE (-<errno>)"
#   "  Command: SPEC"
#   "           <COLUMN spaces>^"        (no caret line when COLUMN is -)
# and the kernel log gets, per row, exactly
#   kptrace: "SPEC": MESSAGE, at column COLUMN (-<errno>)   (or without the
#   ", at column" part). Refusals that are not parse errors: no such symbol
# (ENOENT), a MOD:SYM whose module is loaded but has no such symbol
# (ENOENT, not a pending probe), an offset inside an instruction (EILSEQ),
# a function on the kprobe blacklist and an address that is not text
# (EINVAL). A long line (173 characters, error at column 170) is shown
# whole, caret included. Afterwards: no probe exists, error_log holds exactly the last 8
# refusals, and a good spec works (its 2 events exact). A line with UTF-8,
# a backslash or an ESC is shown escaped as untrusted text (\xc3, \\,
# \x1b), in error_log and the kernel log, its caret moved with it.
# A column is where ftrace's error_log puts its caret for the same mistake
# (tools/test/test_ftrace_syntax.c checks the parser against all the specs
# of ftrace's kprobe_syntax_errors.tc); "p vfs_read $stack0:string" and
# "p non_exist_func" are two of them, word for word.

. "$(dirname "$0")/lib.sh"
. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"
kpt_setup
require_kpt_spec
kpt_test_load

errnum()
{
	case $1 in
	EINVAL) echo -22 ;; ENOENT) echo -2 ;; EILSEQ) echo -84 ;;
	E2BIG) echo -7 ;; EEXIST) echo -17 ;; *) echo "?$1" ;;
	esac
}

A17='$arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1 $arg1'
C9='pid == 1 || pid == 2 || pid == 3 || pid == 4 || pid == 5 || pid == 6 || pid == 7 || pid == 8 || pid == 9'
N65=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
# 15 good arguments, then a bad 16th at column 170 (a 173-character line)
L15=$(i=1; while [ $i -le 15 ]; do printf 'x%02d=$arg1 ' $i; i=$((i + 1)); done)

# The registers (%di, %x0 on arm64: lib.sh) are three characters on
# both, so the columns are the same; kpt_test_func+1 is KPT_EINSN.
# The kprobe blacklist names functions that must be refused; without it
# in debugfs, KPT_BLACKLISTED (NOKPROBE_SYMBOL on every kernel).
BL=
if [ -r "$KPT_DEBUGFS/kprobes/blacklist" ]; then
	# "0x<start>-0x<end>\t<symbol>"
	BL=$(awk 'NF == 2 && $2 == "do_int3" { print $2; exit }' \
		"$KPT_DEBUGFS/kprobes/blacklist")
	[ -n "$BL" ] || BL=$(awk 'NF == 2 && $2 ~ /^[a-z_][a-z0-9_]*$/ {
		print $2; exit }' "$KPT_DEBUGFS/kprobes/blacklist")
fi
[ -n "$BL" ] || BL=$KPT_BLACKLISTED

cat > "$KPT_TMP/table" <<EOF
0 ;; EINVAL ;; expected p, r, b, s or - at the start ;; x:bad kpt_test_func
5 ;; EINVAL ;; expected a symbol or an address ;; p:bad
2 ;; EINVAL ;; expected a name ;; p:1bad kpt_test_func
6 ;; EINVAL ;; expected a name after the group ;; p:grp/ kpt_test_func
2 ;; EINVAL ;; the event name must be a C identifier ;; p:bad! kpt_test_func
2 ;; EINVAL ;; name too long ;; p:$N65 kpt_test_func
6 ;; EINVAL ;; expected a number ;; p:bad kpt_test_func+
6 ;; EINVAL ;; garbage after a number ;; p:bad kpt_test_func+0x1g
6 ;; EINVAL ;; address 0 ;; p:bad 0x0
6 ;; EINVAL ;; a return probe takes no offset ;; r:bad kpt_test_func+4
1 ;; EINVAL ;; MAXACTIVE must be 1 to 4096 ;; r4097:bad kpt_test_func
1 ;; EINVAL ;; MAXACTIVE must be 1 to 4096 ;; r0:bad kpt_test_func
6 ;; EINVAL ;; -:NAME takes nothing more ;; -:bad extra
1 ;; EINVAL ;; expected -:[GROUP/]NAME ;; -bad
20 ;; EINVAL ;; unknown register ;; p:bad kpt_test_func %zz
20 ;; EINVAL ;; \$argN: N must be 1 to 6 ;; p:bad kpt_test_func \$arg7
20 ;; EINVAL ;; \$argN: N must be 1 to 6 ;; p:bad kpt_test_func \$arg0
20 ;; EINVAL ;; \$stackN: N too large ;; p:bad kpt_test_func \$stack1024
20 ;; EINVAL ;; unknown \$variable ;; p:bad kpt_test_func \$foo
20 ;; EINVAL ;; \$retval is for r probes ;; p:bad kpt_test_func \$retval
23 ;; EINVAL ;; \$comm cannot be dereferenced ;; p:bad kpt_test_func +0(\$comm)
26 ;; EINVAL ;; \$comm is a string ;; p:bad kpt_test_func \$comm:u32
26 ;; EINVAL ;; unknown type ;; p:bad kpt_test_func \$arg1:u128
26 ;; EINVAL ;; expected ')' ;; p:bad kpt_test_func +0($KPT_REG_ARG1
29 ;; EINVAL ;; expected ')' ;; p:bad kpt_test_func +0(+0($KPT_REG_ARG1)
20 ;; EINVAL ;; expected '(' after the offset ;; p:bad kpt_test_func +0$KPT_REG_ARG1
32 ;; EINVAL ;; dereferences nested too deep ;; p:bad kpt_test_func +0(+0(+0(+0(+0($KPT_REG_ARG1)))))
20 ;; EINVAL ;; offset too large ;; p:bad kpt_test_func +0x80000000(\$arg1)
20 ;; EINVAL ;; expected +uOFFS(...) ;; p:bad kpt_test_func -u8(\$arg1)
20 ;; EINVAL ;; @ takes an address (the tool resolves @SYMBOL) ;; p:bad kpt_test_func @sym
20 ;; EINVAL ;; bad address after @ ;; p:bad kpt_test_func @12345678abcde
28 ;; EINVAL ;; a string needs +OFFS(...), @ADDR, \$argN or \$comm ;; p:bad kpt_test_func \$stack0:string
19 ;; EINVAL ;; a string needs +OFFS(...), @ADDR, \$argN or \$comm ;; p vfs_read \$stack0:string
24 ;; EINVAL ;; a string needs +OFFS(...), @ADDR, \$argN or \$comm ;; p:bad kpt_test_func $KPT_REG_ARG1:ustring
30 ;; EINVAL ;; array types (TYPE[N]) are not supported ;; p:bad kpt_test_func +0($KPT_REG_ARG1):u8[4]
20 ;; EINVAL ;; the argument name must be a C identifier ;; p:bad kpt_test_func a.b=\$arg1
22 ;; EINVAL ;; unknown fetch argument ;; p:bad kpt_test_func a=
28 ;; EINVAL ;; duplicate argument name ;; p:bad kpt_test_func a=\$arg1 a=\$arg2
20 ;; EINVAL ;; argument name is reserved ;; p:bad kpt_test_func pid=\$arg1
116 ;; EINVAL ;; too many fetch arguments (16) ;; p:bad kpt_test_func $A17
170 ;; EINVAL ;; unknown register ;; p:bad kpt_test_func $L15%zz
31 ;; EINVAL ;; unknown field ;; p:bad kpt_test_func a=\$arg1 if b == 1
33 ;; EINVAL ;; expected ==, !=, <, <=, >, >= or & ;; p:bad kpt_test_func a=\$arg1 if a = 1
23 ;; EINVAL ;; retval and lat_ns are for return probes ;; p:bad kpt_test_func if retval < 0
23 ;; EINVAL ;; retval and lat_ns are for return probes ;; p:bad kpt_test_func if lat_ns > 1
31 ;; EINVAL ;; only numbers and comm can be compared ;; p:bad kpt_test_func a=\$comm if a == 1
30 ;; EINVAL ;; comm takes == or != ;; p:bad kpt_test_func if comm < x
31 ;; EINVAL ;; comm glob too long ;; p:bad kpt_test_func if comm == 0123456789abcdefg
31 ;; EINVAL ;; unterminated string ;; p:bad kpt_test_func if comm == "abc
38 ;; EINVAL ;; expected && or || ;; p:bad kpt_test_func a=\$arg1 if a == 1 b == 2
40 ;; EINVAL ;; expected a field name ;; p:bad kpt_test_func a=\$arg1 if a == 1 &&
30 ;; EINVAL ;; number too large ;; p:bad kpt_test_func if pid == 99999999999999999999
30 ;; EINVAL ;; number out of range ;; p:bad kpt_test_func if pid == 9223372036854775808
116 ;; EINVAL ;; too many condition terms (8) ;; p:bad kpt_test_func if $C9
- ;; ENOENT ;; no such symbol ;; p:bad kpt_no_such_function
- ;; ENOENT ;; no such symbol ;; p non_exist_func
- ;; ENOENT ;; no such symbol ;; p:bad kpt_test:kpt_no_such_function
- ;; $KPT_EINSN ;; $KPT_EINSN_WHY ;; p:bad kpt_test_func+1
- ;; EINVAL ;; not a kernel text address ;; p:bad 0x1000
EOF
echo "- ;; EINVAL ;; cannot be probed (blacklisted, notrace, or not kernel text) ;; p:bad $BL" >> "$KPT_TMP/table"

kpt_load stack=0
kpt_mark
: > "$KPT_TMP/want_log"
: > "$KPT_TMP/refused"
rows=0
while IFS= read -r row; do
	col=${row%% ;; *}; rest=${row#* ;; }
	err=${rest%% ;; *}; rest=${rest#* ;; }
	msg=${rest%% ;; *}; spec=${rest#* ;; }
	rows=$((rows + 1))
	r=$(spec_write "$spec")
	check_eq "row $rows errno ($spec)" "$r" "errno=$err"
	e=$(spec_err_last)
	check_match "row $rows error_log head ($spec)" "$(echo "$e" | sed -n 1p)" \
		'^\[ *[0-9]+\.[0-9]{6}\] kptrace: error: '
	check_eq "row $rows message ($spec)" \
		"$(echo "$e" | sed -n '1s/^\[[^]]*\] kptrace: error: //p')" \
		"$msg ($(errnum "$err"))"
	check_eq "row $rows command" "$(echo "$e" | sed -n 2p)" "  Command: $spec"
	# the log quotes the line, its '"' as \" (no row has one before
	# its column, which stays)
	qspec=$(printf '%s' "$spec" | sed 's/"/\\"/g')
	if [ "$col" = - ]; then
		check_eq "row $rows caret ($spec)" "$(spec_caret_col)" none
		logline="kptrace: \"$qspec\": $msg ($(errnum "$err"))"
	else
		check_eq "row $rows caret column ($spec)" "$(spec_caret_col)" "$col"
		logline="kptrace: \"$qspec\": $msg, at column $col ($(errnum "$err"))"
	fi
	# what the logs must hold: the refusals (a wrongly accepted row is
	# reported above, and not expected there)
	if [ "$r" != ok ]; then
		echo "$logline" >> "$KPT_TMP/want_log"
		echo "$spec" >> "$KPT_TMP/refused"
	fi
	left=$(cat "$KPT_DIR/probes")
	check_eq "row $rows leaves no probe ($spec)" "$left" ""
	# a probe left behind is reported once, then removed
	# (by its listed GROUP/NAME: a row may have no p:bad name)
	if [ -n "$left" ]; then
		first=${left%% *}
		spec_write "-:${first#*:}" > /dev/null
	fi
done < "$KPT_TMP/table"
info "$rows refused specs"

# One kernel log line per refusal, in order.
kpt_log_kptrace > "$KPT_TMP/got_log"
if ! cmp -s "$KPT_TMP/got_log" "$KPT_TMP/want_log"; then
	diff "$KPT_TMP/want_log" "$KPT_TMP/got_log" | head -n 20 | sed 's/^/#   /'
	check_fail "kernel log lines differ from one per refused spec"
fi

# error_log keeps the last 8.
check_eq "error_log entries" "$(grep -c '^\[' "$KPT_DIR/error_log")" 8
check_eq "error_log commands" \
	"$(sed -n 's/^  Command: //p' "$KPT_DIR/error_log")" \
	"$(tail -n 8 "$KPT_TMP/refused")"

# A line's bytes are the writer's: error_log and the kernel log show it
# escaped as untrusted text is everywhere, the caret (and the logged
# column) where the column went. In the kernel log the line is quoted, so
# its '"' are \" too. The UTF-8 e-acute and the glob's escaped backslash
# (\\, shown \\\\) before zz move it by 6 and 2 (by 9 in the log); an
# ESC is \x1b, the caret on its '\'.
kpt_mark
ESC=$(printf '\033')
EACUTE=$(printf '\303\251')
spec_expect EINVAL "p:bad kpt_test_func if comm == \"$EACUTE\\\\\" && zz == 1"
check_eq "escaped: command" "$(spec_err_last | sed -n 2p)" \
	'  Command: p:bad kpt_test_func if comm == "\xc3\xa9\\\\" && zz == 1'
check_eq "escaped: caret column" "$(spec_caret_col)" 49
spec_expect EINVAL "p:bad kpt_test_func if comm == a$ESC[2J"
check_eq "control: command" "$(spec_err_last | sed -n 2p)" \
	'  Command: p:bad kpt_test_func if comm == a\x1b[2J'
check_eq "control: caret column" "$(spec_caret_col)" 32
check_eq "escaped: the kernel log's lines" "$(kpt_log_kptrace)" \
	'kptrace: "p:bad kpt_test_func if comm == \"\xc3\xa9\\\\\" && zz == 1": unknown field, at column 51 (-22)
kptrace: "p:bad kpt_test_func if comm == a\x1b[2J": a comm glob cannot hold control characters (write them \xNN), at column 32 (-22)'
check_eq "no probe after the escaped lines" "$(cat "$KPT_DIR/probes")" ""

# A line whose escaped form passes what a printk record holds: the log
# line is cut to at most 768 bytes of it, ending "...", so its reason,
# column and errno stay; error_log keeps it whole (20 + 250 x 4 bytes).
# The cut falls between two escapes: 20 + 186 x 4 + "..." is 767 bytes
# (the 187th \x7f would end past 765).
kpt_mark
DEL250=$(awk 'BEGIN { for (i = 0; i < 250; i++) printf "%c", 127 }')
spec_expect EINVAL "p:bad kpt_test_func $DEL250"
check_eq "long: error_log's command, whole" \
	"$(spec_err_last | sed -n 's/^  Command: //p' | awk '{ print length($0) }')" 1020
check_eq "long: caret column" "$(spec_caret_col)" 20
check_match "long: the log line cut, its reason kept" "$(kpt_log_kptrace)" \
	'^kptrace: "p:bad kpt_test_func (\\x7f){186}\.\.\.": unknown fetch argument, at column 20 \(-22\)$'

# Nothing left behind: a good spec works, its events exact.
check_eq "probe_stats" "$(cat "$KPT_DIR/probe_stats")" ""
spec_add 'p:good kpt_test_func a=$arg1:u8 b=$arg2:x16'
check_match "good probe" "$(cat "$KPT_DIR/probes")" \
	"^p:kptrace/good kpt_test_func a=\\\$arg1:u8 b=\\\$arg2:x16 # id=[0-9]+ at=kpt_test:kpt_test_func\\+$(kpt_entry_off kpt_test_func)/0x[0-9a-f]+ kprobe $SPEC_MODE hits=0 missed=0\$"
kpt_call 2
kpt_trace_read "$KPT_TMP/trace"
check_eq "good events" "$(spec_events "$KPT_TMP/trace" good)" \
	"$(printf 'good: a=%s b=0x1111\n' 1 2)"
kpt_stats_check
spec_finish "bad specs refused with errno, message and column; nothing left behind"
