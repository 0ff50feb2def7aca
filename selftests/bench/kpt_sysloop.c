// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_sysloop: the user-space loop of make bench's system-call arms (sys_*).
 *
 *   kpt_sysloop [-s] [-f] N RUN
 *
 * With -f it forks first: the parent only waits for the child (blocked in
 * wait4 while the loop runs) and exits with its status; the child does
 * the rest. The bench then has a loop whose parent it knows, for the
 * children= selections (kptrace syscalls COMMAND, -f -p).
 * Pins itself to CPU 0, and with -s stops itself (SIGSTOP): the bench then
 * knows its pid, arms a tracer that selects it (or another task) and
 * sends SIGCONT; the stop comes after the call that raised it has
 * returned, so no call of this process is in flight while it waits. Then
 * N getppid() system calls (x86-64 nr 110), each one inline "syscall"
 * instruction (no libc wrapper in the loop), between insn_plugin.c's two
 * markers with RUN in %rax, as kpt_bench.c executes them in the kernel:
 *
 *	nopl 0x4b5054NN(%rax,%rax,1)	NN 01 before the loop, 02 after it
 *
 * The plugin counts every instruction its vCPU executes, in user and in
 * kernel mode, so marker 2 - marker 1 is the loop's instructions, kernel
 * entry and exit and the tracer's handlers included; / N, the cost of one
 * system call. Prints what guest.sh's micro arms read from kpt_bench's run
 * file:
 *
 *	calls=N ns=T chunk_ns=0 chunk=1 run=RUN
 *
 * T: CLOCK_MONOTONIC around the loop (no chunks: a clock read inside the
 * loop would be a system call where the vDSO cannot read the clock).
 * After its SIGCONT it makes these calls only, besides the loop's: two
 * clock_gettime where the clocksource has no vDSO read (HPET), stdio's
 * fstat and one write, and exit_group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __always_inline void mark_start(unsigned long run)
{
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x54, 0x50, 0x4b"
		     : : "a" (run) : "memory");
}

static __always_inline void mark_end(unsigned long run)
{
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x54, 0x50, 0x4b"
		     : : "a" (run) : "memory");
}

/* getppid() as the bare instruction: rcx and r11 are the kernel's */
static __always_inline long raw_getppid(void)
{
	long ret;

	asm volatile("syscall"
		     : "=a" (ret) : "0" ((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}

static long sys_loop(unsigned long n, unsigned long run)
{
	unsigned long i;
	long sum = 0;

	mark_start(run);
	for (i = 0; i < n; i++)
		sum += raw_getppid();
	mark_end(run);
	return sum;
}

static int bad_args(void)
{
	fprintf(stderr, "usage: kpt_sysloop [-s] [-f] N RUN\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long n, run;
	struct timespec t0, t1;
	cpu_set_t cpus;
	int stop = 0, fork_first = 0, arg = 1;
	long long ns;
	char *end;

	for (; arg < argc; arg++) {
		if (!strcmp(argv[arg], "-s"))
			stop = 1;
		else if (!strcmp(argv[arg], "-f"))
			fork_first = 1;
		else
			break;
	}
	if (argc - arg != 2)
		return bad_args();
	n = strtoul(argv[arg], &end, 0);
	if (*end || !*argv[arg])
		return bad_args();
	run = strtoul(argv[arg + 1], &end, 0);
	if (*end || !*argv[arg + 1])
		return bad_args();

	if (fork_first) {
		pid_t child = fork();
		int st;

		if (child < 0) {
			perror("kpt_sysloop: fork");
			return 1;
		}
		if (child) {
			while (waitpid(child, &st, 0) < 0)
				if (errno != EINTR)
					return 1;
			if (WIFEXITED(st))
				return WEXITSTATUS(st);
			return 128 + WTERMSIG(st);
		}
	}

	/* one vCPU from marker to marker: the plugin reads only its count */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("kpt_sysloop: sched_setaffinity");
		return 1;
	}
	/* not raise(): it would unblock signals in a call after SIGCONT */
	if (stop && syscall(SYS_kill, getpid(), SIGSTOP)) {
		perror("kpt_sysloop: kill");
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	sys_loop(n, run);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec;
	printf("calls=%lu ns=%lld chunk_ns=0 chunk=1 run=%lu\n", n, ns, run);
	return fflush(stdout) ? 1 : 0;
}
