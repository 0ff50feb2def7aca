// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_sig: signals delivered and task exits as strace prints them
 * (syscall_sig.h). The si_code names are the kernel's
 * (include/uapi/asm-generic/siginfo.h), per signal family: the fault
 * signals (SIGILL, SIGFPE, SIGSEGV, SIGBUS, SIGTRAP) with si_addr,
 * SIGCHLD with si_pid, si_uid and si_status, SIGPOLL and SIGSYS; a code
 * of 0 or below (SI_USER, SI_QUEUE, SI_TKILL, ...) is a signal a process
 * sent, with si_pid and si_uid; SI_KERNEL one the kernel sent.
 */
#include <signal.h>
#include <string.h>

#include <uapi/kptrace.h>

#include "event.h"
#include "json.h"
#include "syscall_sig.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#define SIG_RTMIN	32	/* the kernel's; glibc keeps 32 and 33 */
#define SIG_SI_KERNEL	0x80

/* x86's numbers (arch/x86/include/uapi/asm/signal.h) */
static const char * const sig_names[] = {
	[1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL",
	[5] = "SIGTRAP", [6] = "SIGABRT", [7] = "SIGBUS", [8] = "SIGFPE",
	[9] = "SIGKILL", [10] = "SIGUSR1", [11] = "SIGSEGV",
	[12] = "SIGUSR2", [13] = "SIGPIPE", [14] = "SIGALRM",
	[15] = "SIGTERM", [16] = "SIGSTKFLT", [17] = "SIGCHLD",
	[18] = "SIGCONT", [19] = "SIGSTOP", [20] = "SIGTSTP",
	[21] = "SIGTTIN", [22] = "SIGTTOU", [23] = "SIGURG",
	[24] = "SIGXCPU", [25] = "SIGXFSZ", [26] = "SIGVTALRM",
	[27] = "SIGPROF", [28] = "SIGWINCH", [29] = "SIGIO", [30] = "SIGPWR",
	[31] = "SIGSYS",
};

const char *syscall_sig__name(int signo, char *buf, size_t len)
{
	if (signo > 0 && (size_t)signo < ARRAY_LEN(sig_names) &&
	    sig_names[signo])
		return sig_names[signo];
	if (signo >= SIG_RTMIN && signo <= 64)
		snprintf(buf, len, "SIGRT_%d", signo - SIG_RTMIN);
	else
		snprintf(buf, len, "SIG%d", signo);
	return buf;
}

/* The codes of one family, from 1 */
struct sig_codes {
	int signo;
	const char * const *names;
	size_t n;
};

static const char * const ill_codes[] = {
	"ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC",
	"ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK", "ILL_BADIADDR",
};

static const char * const fpe_codes[] = {
	"FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND",
	"FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB", NULL, NULL, NULL, NULL, NULL,
	"FPE_FLTUNK", "FPE_CONDTRAP",
};

static const char * const segv_codes[] = {
	"SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR",
	"SEGV_ACCADI", "SEGV_ADIDERR", "SEGV_ADIPERR", "SEGV_MTEAERR",
	"SEGV_MTESERR", "SEGV_CPERR",
};

static const char * const bus_codes[] = {
	"BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR",
	"BUS_MCEERR_AO",
};

static const char * const trap_codes[] = {
	"TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT", "TRAP_UNK",
	"TRAP_PERF",
};

static const char * const chld_codes[] = {
	"CLD_EXITED", "CLD_KILLED", "CLD_DUMPED", "CLD_TRAPPED",
	"CLD_STOPPED", "CLD_CONTINUED",
};

static const char * const poll_codes[] = {
	"POLL_IN", "POLL_OUT", "POLL_MSG", "POLL_ERR", "POLL_PRI", "POLL_HUP",
};

static const char * const sys_codes[] = { "SYS_SECCOMP", "SYS_USER_DISPATCH" };

static const struct sig_codes families[] = {
	{ SIGILL, ill_codes, ARRAY_LEN(ill_codes) },
	{ SIGFPE, fpe_codes, ARRAY_LEN(fpe_codes) },
	{ SIGSEGV, segv_codes, ARRAY_LEN(segv_codes) },
	{ SIGBUS, bus_codes, ARRAY_LEN(bus_codes) },
	{ SIGTRAP, trap_codes, ARRAY_LEN(trap_codes) },
	{ SIGCHLD, chld_codes, ARRAY_LEN(chld_codes) },
	{ SIGIO, poll_codes, ARRAY_LEN(poll_codes) },
	{ SIGSYS, sys_codes, ARRAY_LEN(sys_codes) },
};

/* a code of 0 or below: a process sent it (SI_*) */
static const char *si_code_name(int code)
{
	switch (code) {
	case 0:
		return "SI_USER";
	case SIG_SI_KERNEL:
		return "SI_KERNEL";
	case -1:
		return "SI_QUEUE";
	case -2:
		return "SI_TIMER";
	case -3:
		return "SI_MESGQ";
	case -4:
		return "SI_ASYNCIO";
	case -5:
		return "SI_SIGIO";
	case -6:
		return "SI_TKILL";
	case -7:
		return "SI_DETHREAD";
	case -60:
		return "SI_ASYNCNL";
	}
	return NULL;
}

const char *syscall_sig__code(int signo, int code)
{
	size_t i;

	if (code <= 0 || code == SIG_SI_KERNEL)
		return si_code_name(code);
	for (i = 0; i < ARRAY_LEN(families); i++)
		if (families[i].signo == signo)
			return (size_t)code <= families[i].n ?
			       families[i].names[code - 1] : NULL;
	return NULL;
}

bool syscall_sig__is_fault(int signo, int code)
{
	return code > 0 && code != SIG_SI_KERNEL &&
	       (signo == SIGILL || signo == SIGFPE || signo == SIGSEGV ||
		signo == SIGBUS || signo == SIGTRAP);
}

/* Sent by a process: si_pid and si_uid are set (SI_USER, SI_QUEUE, ...) */
static bool sig_sent(const struct syscall_signal *s)
{
	return s->code <= 0 && s->code != -2 && s->code != -4;
}

static bool sig_chld(const struct syscall_signal *s)
{
	return s->signo == SIGCHLD && s->code > 0 &&
	       s->code != SIG_SI_KERNEL;
}

/* "12.345 (          ): comm/tid " */
static void sig_head(FILE *f, __u64 ts_ns, const char *comm, __u32 tid)
{
	fprintf(f, "%llu.%03llu (          ): ",
		(unsigned long long)(ts_ns / 1000000),
		(unsigned long long)(ts_ns / 1000 % 1000));
	event__text_comm(f, comm);
	fprintf(f, "/%u ", tid);
}

void syscall_sig__print(FILE *f, const struct syscall_signal *s)
{
	const char *code = syscall_sig__code(s->signo, s->code);
	const char *name;
	char buf[16];

	sig_head(f, s->ts_ns, s->comm, s->tid);
	name = syscall_sig__name(s->signo, buf, sizeof(buf));
	fprintf(f, "--- %s {si_signo=%s, si_code=", name, name);
	if (code)
		fputs(code, f);
	else
		fprintf(f, "%d", s->code);
	if (s->err)
		fprintf(f, ", si_errno=%d", s->err);
	if (syscall_sig__is_fault(s->signo, s->code) && s->addr)
		fprintf(f, ", si_addr=%#llx", (unsigned long long)s->addr);
	else if (syscall_sig__is_fault(s->signo, s->code))
		fputs(", si_addr=NULL", f);
	else if (sig_sent(s) || sig_chld(s))
		fprintf(f, ", si_pid=%u, si_uid=%u", (__u32)s->addr,
			(__u32)(s->addr >> 32));
	if (sig_chld(s))
		fprintf(f, ", si_status=%d", s->status);
	fputs("} ---", f);
}

void syscall_sig__print_exit(FILE *f, const struct syscall_exit *x)
{
	char buf[16];

	sig_head(f, x->ts_ns, x->comm, x->tid);
	if (x->status & 0x7f)
		fprintf(f, "+++ killed by %s%s +++",
			syscall_sig__name(x->status & 0x7f, buf, sizeof(buf)),
			x->status & 0x80 ? " (core dumped)" : "");
	else
		fprintf(f, "+++ exited with %d +++", (x->status >> 8) & 0xff);
}

static void sig_json_head(FILE *f, const char *type, __u64 ts_ns,
			  const char *comm, __u32 pid, __u32 tid)
{
	fprintf(f, "{\"type\":\"%s\",\"ts\":%llu,\"comm\":", type,
		(unsigned long long)ts_ns);
	json__str(f, comm, KPT_COMM_LEN);
	fprintf(f, ",\"pid\":%u,\"tid\":%u", pid, tid);
}

void syscall_sig__json(FILE *f, const struct syscall_signal *s)
{
	static const char * const actions[] = {
		[KPT_SYS_SIG_DEFAULT] = "default",
		[KPT_SYS_SIG_IGNORED] = "ignored",
		[KPT_SYS_SIG_HANDLER] = "handler",
	};
	const char *code = syscall_sig__code(s->signo, s->code);
	char buf[16];

	sig_json_head(f, "signal", s->ts_ns, s->comm, s->pid, s->tid);
	fprintf(f, ",\"signal\":\"%s\",\"signo\":%d,\"code\":",
		syscall_sig__name(s->signo, buf, sizeof(buf)), s->signo);
	if (code)
		fprintf(f, "\"%s\"", code);
	else
		fputs("null", f);
	fprintf(f, ",\"si_code\":%d,\"errno\":%d", s->code, s->err);
	if (syscall_sig__is_fault(s->signo, s->code))
		fprintf(f, ",\"addr\":%llu", (unsigned long long)s->addr);
	else if (sig_sent(s) || sig_chld(s))
		fprintf(f, ",\"sender_pid\":%u,\"sender_uid\":%u",
			(__u32)s->addr, (__u32)(s->addr >> 32));
	if (sig_chld(s))
		fprintf(f, ",\"status\":%d", s->status);
	if (s->action < ARRAY_LEN(actions))
		fprintf(f, ",\"action\":\"%s\"}\n", actions[s->action]);
	else
		fprintf(f, ",\"action\":%u}\n", s->action);
}

void syscall_sig__json_exit(FILE *f, const struct syscall_exit *x)
{
	char buf[16];

	sig_json_head(f, "exit", x->ts_ns, x->comm, x->pid, x->tid);
	fprintf(f, ",\"status\":%d", x->status);
	if (x->status & 0x7f)
		fprintf(f, ",\"exited\":null,\"signal\":\"%s\",\"core_dumped\":%s",
			syscall_sig__name(x->status & 0x7f, buf, sizeof(buf)),
			x->status & 0x80 ? "true" : "false");
	else
		fprintf(f, ",\"exited\":%d,\"signal\":null,\"core_dumped\":false",
			(x->status >> 8) & 0xff);
	fprintf(f, ",\"last\":%s,\"group\":%s}\n", x->last ? "true" : "false",
		x->group ? "true" : "false");
}
