/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscall_sig: a signal delivered to a traced task and a task's exit (the
 * KPT_SYS_EV_SIGNAL and KPT_SYS_EV_EXIT records of a syscalls probe with
 * signals) as strace prints them, and as JSON objects:
 *
 * 12.345 (          ): sh/215 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10} ---
 * 12.400 (          ): sh/215 +++ killed by SIGSEGV (core dumped) +++
 *
 * {"type":"signal","ts":N,"comm":..,"pid":..,"tid":..,"signal":"SIGSEGV",
 *  "signo":11,"code":"SEGV_MAPERR","si_code":1,"addr":16,"action":"default"}
 *  ("addr" for the fault signals, "sender_pid" and "sender_uid" for a
 *  signal sent by a process, "status" for SIGCHLD)
 * {"type":"exit","ts":N,"comm":..,"pid":..,"tid":..,"status":139,
 *  "exited":null or N,"signal":"SIGSEGV" or null,"core_dumped":true,
 *  "last":true,"group":true}
 */
#ifndef __KPTRACE_SYSCALL_SIG_H
#define __KPTRACE_SYSCALL_SIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <linux/types.h>

/* A signal delivered: the record's args[1..6]. */
struct syscall_signal {
	__u64 ts_ns;		/* from the start of the trace */
	const char *comm;	/* untrusted: KPT_COMM_LEN bytes or to a NUL */
	__u32 pid, tid;
	int signo, code, err;
	__u64 addr;		/* si_addr, or si_pid | (__u64)si_uid << 32 */
	__s32 status;		/* SIGCHLD's si_status */
	unsigned int action;	/* KPT_SYS_SIG_* */
};

/* A task's exit: the record's args[1..3]. */
struct syscall_exit {
	__u64 ts_ns;
	const char *comm;
	__u32 pid, tid;
	int status;		/* a wait status */
	bool last;		/* the process's last task: it has ended */
	bool group;		/* the whole process is exiting */
};

/* "SIGSEGV", "SIGRT_3" (32 + 3), or "SIG<n>" written into @buf. */
const char *syscall_sig__name(int signo, char *buf, size_t len);

/*
 * The name of si_code @code of signal @signo: "SEGV_MAPERR", "SI_USER",
 * "CLD_EXITED"; NULL if none (strace prints the number then).
 */
const char *syscall_sig__code(int signo, int code);

/* Is @code of @signo a fault's, whose siginfo has si_addr? */
bool syscall_sig__is_fault(int signo, int code);

/* The lines, without a newline. */
void syscall_sig__print(FILE *f, const struct syscall_signal *s);
void syscall_sig__print_exit(FILE *f, const struct syscall_exit *x);

/* The JSON objects and a newline. */
void syscall_sig__json(FILE *f, const struct syscall_signal *s);
void syscall_sig__json_exit(FILE *f, const struct syscall_exit *x);

#endif /* __KPTRACE_SYSCALL_SIG_H */
