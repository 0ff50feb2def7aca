#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `kptrace syscalls` and the module's new records: a signal
#   delivered and a process's end as strace prints them, 32-bit calls by
#   int $0x80, calls a seccomp filter denied
# requires: root, debugfs, kptrace.ko, tools/kptrace, helpers/kpt_sysgen,
#   a module with the s probe's signals and denied records and 32-bit calls
# timeout: 180
#
# - kpt_sysgen segv:0 (a store to 0x10): "--- SIGSEGV {si_signo=SIGSEGV,
#   si_code=SEGV_MAPERR, si_addr=0x10} ---" and "+++ killed by SIGSEGV
#   (core dumped) +++" or "+++ killed by SIGSEGV +++" (core_pattern
#   decides), exit status 139; in JSON {"type":"signal",...,"signo":11,
#   "code":"SEGV_MAPERR","addr":16} and {"type":"exit",...,"signal":
#   "SIGSEGV","last":true}.
# - sh -c 'kill -SEGV $$': "--- SIGSEGV {si_signo=SIGSEGV, si_code=SI_USER,
#   si_pid=P, si_uid=0} ---" with P the shell's pid.
# - sh -c 'exit 7': "+++ exited with 7 +++".
# - kpt_sysgen int80:3 -e getpid,open: 3 lines "getpid() = P (32-bit)" and
#   one "open(...) = N (32-bit)"; -e getpid: nr=39 nr32=20 selects both
#   ABIs; JSON "compat":true.
# - kpt_sysgen deny:3 -e getppid: 3 lines "getppid() = -1 EPERM
#   (Operation not permitted) (seccomp)"; JSON "denied":true.

. "$(dirname "$0")/lib.sh"
kpt_setup
require_kptrace
require_kpt_sysgen
kpt_tracefs > /dev/null 2>&1
kpt_load

. "$KPT_SELFTESTS/helpers/kpt_spec_lib.sh"

# --- SIGSEGV, a fault --------------------------------------------------------
"$KPTRACE" syscalls -o "$KPT_TMP/segv.txt" -- "$SYSGEN" segv:0 2> /dev/null
check_eq "segv: status" "$?" 139
sed 's/^/#   /' "$KPT_TMP/segv.txt" | tail -n 5
check_eq "segv: the signal, strace's line" \
	"$(grep -Ec 'kpt_sysgen/[0-9]+ --- SIGSEGV \{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10\} ---$' "$KPT_TMP/segv.txt")" 1
check_eq "segv: the end, strace's line" \
	"$(grep -Ec 'kpt_sysgen/[0-9]+ \+\+\+ killed by SIGSEGV( \(core dumped\))? \+\+\+$' "$KPT_TMP/segv.txt")" 1
"$KPTRACE" syscalls -j -o "$KPT_TMP/segv.json" -- "$SYSGEN" segv:0 2> /dev/null
kpt_json_check "$KPT_TMP/segv.json"
check_eq "segv json: the signal object" \
	"$(grep -c '^{"type":"signal",.*"signal":"SIGSEGV","signo":11,"code":"SEGV_MAPERR","si_code":1,"errno":0,"addr":16,"action":"default"}$' "$KPT_TMP/segv.json")" 1
check_eq "segv json: the exit object" \
	"$(grep -c '^{"type":"exit",.*"signal":"SIGSEGV",.*"last":true,' "$KPT_TMP/segv.json")" 1

# --- SIGSEGV sent by kill, and an exit code ------------------------------------
"$KPTRACE" syscalls -o "$KPT_TMP/kill.txt" -- sh -c 'kill -SEGV $$' 2> /dev/null
check_eq "kill -SEGV: status" "$?" 139
check_eq "kill -SEGV: SI_USER, the sender" \
	"$(grep -Ec 'sh/([0-9]+) --- SIGSEGV \{si_signo=SIGSEGV, si_code=SI_USER, si_pid=[0-9]+, si_uid=0\} ---$' "$KPT_TMP/kill.txt")" 1
"$KPTRACE" syscalls -o "$KPT_TMP/exit.txt" -- sh -c 'exit 7' 2> /dev/null
check_eq "exit 7: status" "$?" 7
check_eq "exit 7: +++ exited with 7 +++" \
	"$(grep -Ec 'sh/[0-9]+ \+\+\+ exited with 7 \+\+\+$' "$KPT_TMP/exit.txt")" 1

# --- 32-bit calls by int $0x80 ---------------------------------------------------
"$KPTRACE" syscalls -e getpid,open -o "$KPT_TMP/c32.txt" -- "$SYSGEN" int80:3 2> /dev/null
check_eq "int80: status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/c32.txt"
check_eq "int80: 3 getpid, 32-bit" \
	"$(grep -Ec 'kpt_sysgen/[0-9]+ getpid\(\) = [0-9]+ \(32-bit\)$' "$KPT_TMP/c32.txt")" 3
# its path read through ebx, the first of a 32-bit call's registers
check_eq "int80: 1 open of /etc/hostname, 32-bit" \
	"$(grep -Ec 'kpt_sysgen/[0-9]+ open\((filename|arg0): "/etc/hostname", .*\) = [0-9]+ \(32-bit\)$' "$KPT_TMP/c32.txt")" 1
"$KPTRACE" syscalls -j -e getpid -o "$KPT_TMP/c32.json" -- "$SYSGEN" int80:3 2> /dev/null
check_eq "int80 json: compat" \
	"$(grep -c '"syscall":"getpid",.*"compat":true' "$KPT_TMP/c32.json")" 3

# --- calls seccomp denied ------------------------------------------------------------
"$KPTRACE" syscalls -e getppid -o "$KPT_TMP/deny.txt" -- "$SYSGEN" deny:3 2> /dev/null
check_eq "deny: status" "$?" 0
sed 's/^/#   /' "$KPT_TMP/deny.txt"
check_eq "deny: 3 getppid, EPERM, (seccomp)" \
	"$(grep -Ec 'kpt_sysgen/[0-9]+ getppid\(\) = -1 EPERM \(Operation not permitted\) \(seccomp\)$' "$KPT_TMP/deny.txt")" 3
"$KPTRACE" syscalls -j -e getppid -o "$KPT_TMP/deny.json" -- "$SYSGEN" deny:3 2> /dev/null
check_eq "deny json: denied" \
	"$(grep -c '"syscall":"getppid",.*"denied":true,"ret":-1,"errno":"EPERM"' "$KPT_TMP/deny.json")" 3
no_probes "signals, 32-bit, seccomp"

kpt_unload
[ "$SPEC_FAILS" = 0 ] || fail "$SPEC_FAILS check(s) failed (see the FAIL lines above)"
info "kptrace syscalls: signals and ends, 32-bit calls, seccomp's denials"
