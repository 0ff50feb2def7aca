// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_sysgen: system calls in exact numbers, for the syscalls tests.
 *
 *   kpt_sysgen [-w] ACTION...
 *
 * -w first reads one byte from stdin (a FIFO the test writes once the
 * probe is armed: until then the process exists, and its pid is known,
 * but makes no call). Then each ACTION in turn:
 *
 *   getppid:N        N getppid() calls (x86-64 nr 110)
 *   fail:N           N openat(AT_FDCWD, "/nonexistent/kpt", O_RDONLY),
 *                    each -ENOENT (nr 257)
 *   sleep:MS         one nanosleep() of MS ms (nr 35, the raw call)
 *   nosys:N          N calls of number 400, which x86-64 leaves unused
 *                    (335 to 423 are): -ENOSYS, from the dispatcher
 *   threads:T:N      T threads, each N getppid(); the main thread joins
 *   named:T:N        the same, each thread named "worker-I" first
 *                    (PR_SET_NAME, I from 0): the leader keeps its comm
 *   fork:K           K children, each one getppid() then _exit(0); the
 *                    parent waits for each
 *   exit:CODE        exit_group(CODE) (nr 231), the last action
 *   park:T:MS        T threads that each wait MS ms at a time until the
 *                    process is killed: the even ones in futex(FUTEX_WAIT)
 *                    with a timeout of MS (nr 202), the odd ones in
 *                    nanosleep(MS) (nr 35), each in a loop of that one
 *                    call; once all are started the main thread prints
 *                    "parked T" and waits in pause() (nr 34): the last
 *                    action. (With a long MS each thread makes one call
 *                    and sits in it.)
 *   texec:N          a new thread (not the leader) execve()s this program
 *                    with "getppid:N" (nr 59): the process keeps its pid,
 *                    the thread takes it; the last action
 *   spin:SECS        getppid() as fast as it can for SECS seconds (0: no
 *                    limit), or until SIGUSR1; then prints
 *                    "spin getppid=N ms=M", the calls made and the time
 *                    they took
 *   int80:N          N getpid() by int $0x80 (i386 nr 20), then one
 *                    open("/etc/hostname", O_RDONLY) by int $0x80 (i386
 *                    nr 5), its path in memory below 4 GiB: 32-bit calls
 *                    of a 64-bit process (CONFIG_IA32_EMULATION)
 *   deny:N           a seccomp filter that makes getppid() fail with EPERM
 *                    (no_new_privs set first), then N getppid() calls
 *   segv:0           a store to address 0x10: SIGSEGV, SEGV_MAPERR, the
 *                    default action (the last action)
 *   rename:N         prctl(PR_SET_NAME) (nr 157): the comm becomes
 *                    "kpt_rnN", "kpt_sysgN" for N >= 1000 (the first 8
 *                    bytes of "kpt_sysgen"), or "kpt_sysgen" again for N = 0
 *
 * Calls are made with syscall(2), so that libc adds none of its own
 * between them. Exit status 0, or 1 on a usage error or when a thread
 * cannot be started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A parked thread's stack: it only loops on one call */
#define PARK_STACK	(64 * 1024)

/* segv: an address no process maps (below mmap_min_addr) */
static volatile int *volatile segv_at = (volatile int *)0x10;
static long calls_per_thread;
static long park_ms;
static volatile sig_atomic_t spin_stop;

static char *texec_argv[3];

static void *texec_fn(void *arg)
{
	extern char **environ;

	(void)arg;
	syscall(SYS_execve, texec_argv[0], texec_argv, environ);
	_exit(1);	/* the exec failed */
}

/* texec:N: a thread other than the leader execs "getppid:N" */
static int thread_exec(long n)
{
	static char self[4096], act[32];
	pthread_t t;
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	snprintf(act, sizeof(act), "getppid:%ld", n);
	texec_argv[0] = self;	/* its comm stays kpt_sysgen */
	texec_argv[1] = act;
	if (pthread_create(&t, NULL, texec_fn, NULL))
		return 1;
	for (;;)
		pause();	/* until the exec ends this thread */
}

static void getppids(long n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
}

static void *thread_fn(void *arg)
{
	getppids(calls_per_thread);
	return arg;
}

static void *named_fn(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%ld", (long)(intptr_t)arg);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	getppids(calls_per_thread);
	return arg;
}

static void park_timeout(struct timespec *ts)
{
	ts->tv_sec = park_ms / 1000;
	ts->tv_nsec = (park_ms % 1000) * 1000000L;
}

static void *park_futex(void *arg)
{
	struct timespec ts;
	int word = 0;

	for (;;) {
		park_timeout(&ts);
		syscall(SYS_futex, &word, FUTEX_WAIT, 0, &ts, NULL, 0);
	}
	return arg;
}

static void *park_sleep(void *arg)
{
	struct timespec ts;

	for (;;) {
		park_timeout(&ts);
		syscall(SYS_nanosleep, &ts, NULL);
	}
	return arg;
}

/* T threads parked, then the main thread waits to be killed */
static int park_threads(long t)
{
	pthread_attr_t attr;
	pthread_t tid;
	long i;
	int err;

	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, PARK_STACK))
		return 1;
	for (i = 0; i < t; i++) {
		err = pthread_create(&tid, &attr, i % 2 ? park_sleep :
				     park_futex, NULL);
		if (err) {
			fprintf(stderr, "kpt_sysgen: park: thread %ld: %s\n",
				i, strerror(err));
			return 1;
		}
	}
	printf("parked %ld\n", t);
	fflush(stdout);
	for (;;)
		syscall(SYS_pause);
}

static void spin_end(int sig)
{
	spin_stop = 1;
}

/* getppid() until SECS passed or SIGUSR1 */
static void spin_getppid(long secs)
{
	struct sigaction sa = { .sa_handler = spin_end };
	struct timespec t0, t1;
	unsigned long n = 0;

	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	alarm(secs);
	while (!spin_stop) {
		syscall(SYS_getppid);
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("spin getppid=%lu ms=%ld\n", n,
	       (t1.tv_sec - t0.tv_sec) * 1000L +
	       (t1.tv_nsec - t0.tv_nsec) / 1000000L);
	fflush(stdout);
}

/* A 32-bit call by int $0x80: i386 number @nr, ebx, ecx, edx */
static long int80(long nr, long b, long c, long d)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret)
		     : "a"(nr), "b"(b), "c"(c), "d"(d) : "memory");
	return ret;
}

static int int80_calls(long n)
{
	static const char path[] = "/etc/hostname";
	char *low;
	long i, fd;

	for (i = 0; i < n; i++)
		int80(20, 0, 0, 0);
	/* the path where a 32-bit pointer reaches it */
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return 1;
	memcpy(low, path, sizeof(path));
	fd = int80(5, (long)(unsigned long)low, O_RDONLY, 0);
	if (fd >= 0)
		close((int)fd);
	return 0;
}

static int deny_getppid(long n)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 1;
	getppids(n);
	return 0;
}

static int usage(const char *what)
{
	fprintf(stderr, "kpt_sysgen: bad action '%s'\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	pthread_t tids[64];
	struct timespec ts;
	long a, b, i;
	char c, *end;
	int arg = 1;

	if (arg < argc && !strcmp(argv[arg], "-w")) {
		if (read(0, &c, 1) != 1)
			return 1;
		arg++;
	}
	for (; arg < argc; arg++) {
		char *act = argv[arg], *colon = strchr(act, ':');

		if (!colon)
			return usage(act);
		a = strtol(colon + 1, &end, 10);
		b = 0;
		if (*end == ':')
			b = strtol(end + 1, &end, 10);
		if (*end || a < 0)
			return usage(act);
		*colon = '\0';
		if (!strcmp(act, "getppid")) {
			getppids(a);
		} else if (!strcmp(act, "fail")) {
			for (i = 0; i < a; i++)
				syscall(SYS_openat, AT_FDCWD,
					"/nonexistent/kpt", O_RDONLY);
		} else if (!strcmp(act, "nosys")) {
			for (i = 0; i < a; i++)
				syscall(400);
		} else if (!strcmp(act, "sleep")) {
			ts.tv_sec = a / 1000;
			ts.tv_nsec = (a % 1000) * 1000000L;
			syscall(SYS_nanosleep, &ts, NULL);
		} else if (!strcmp(act, "threads") || !strcmp(act, "named")) {
			if (a > 64)
				return usage(act);
			calls_per_thread = b;
			for (i = 0; i < a; i++)
				if (pthread_create(&tids[i], NULL,
						   act[0] == 'n' ? named_fn :
						   thread_fn,
						   (void *)(intptr_t)i))
					return 1;
			for (i = 0; i < a; i++)
				pthread_join(tids[i], NULL);
		} else if (!strcmp(act, "fork")) {
			for (i = 0; i < a; i++) {
				pid_t pid = fork();

				if (pid < 0)
					return 1;
				if (!pid) {
					syscall(SYS_getppid);
					_exit(0);
				}
				waitpid(pid, NULL, 0);
			}
		} else if (!strcmp(act, "exit")) {
			syscall(SYS_exit_group, (int)a);
		} else if (!strcmp(act, "park")) {
			park_ms = b;
			return park_threads(a);
		} else if (!strcmp(act, "texec")) {
			return thread_exec(a);
		} else if (!strcmp(act, "spin")) {
			spin_getppid(a);
		} else if (!strcmp(act, "int80")) {
			if (int80_calls(a))
				return 1;
		} else if (!strcmp(act, "deny")) {
			if (deny_getppid(a))
				return 1;
		} else if (!strcmp(act, "segv")) {
			*segv_at = 1;
		} else if (!strcmp(act, "rename")) {
			char name[32] = "kpt_sysgen";

			if (a >= 1000)	/* kpt_sysgen's first 8 bytes */
				snprintf(name, sizeof(name), "kpt_sysg%ld", a);
			else if (a)
				snprintf(name, sizeof(name), "kpt_rn%ld", a);
			if (prctl(PR_SET_NAME, name))
				return 1;
		} else {
			*colon = ':';
			return usage(act);
		}
	}
	return 0;
}
