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
 *   threads:T:N      T threads, each N getppid(); the main thread joins
 *   fork:K           K children, each one getppid() then _exit(0); the
 *                    parent waits for each
 *   exit:CODE        exit_group(CODE) (nr 231), the last action
 *
 * Calls are made with syscall(2), so that libc adds none of its own
 * between them. Exit status 0, or 1 on a usage error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long calls_per_thread;

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
		} else if (!strcmp(act, "sleep")) {
			ts.tv_sec = a / 1000;
			ts.tv_nsec = (a % 1000) * 1000000L;
			syscall(SYS_nanosleep, &ts, NULL);
		} else if (!strcmp(act, "threads")) {
			if (a > 64)
				return usage(act);
			calls_per_thread = b;
			for (i = 0; i < a; i++)
				if (pthread_create(&tids[i], NULL, thread_fn,
						   NULL))
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
		} else {
			*colon = ':';
			return usage(act);
		}
	}
	return 0;
}
