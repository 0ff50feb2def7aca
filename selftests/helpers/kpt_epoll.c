// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_epoll: epoll on a trace file added while a line is half returned.
 *
 *   kpt_epoll [-d FILE] CALLFILE DELAY_MS TIMEOUT_MS
 *
 * Opens FILE (default /sys/kernel/debug/kptrace/trace_pipe) with
 * O_NONBLOCK, reads 10 bytes of the line pending there, adds the file to
 * an epoll set (EPOLLIN, level-triggered), reads the rest until EAGAIN,
 * then has a child write "1" to CALLFILE DELAY_MS ms later (one probed
 * call) and waits in epoll_wait(TIMEOUT_MS). Prints
 *   "epoll first=N drained=D ready=R ms=M read=B"
 * N the bytes of the first read, D those read after it, R what
 * epoll_wait() returned, M how long it took, B what a read() then
 * returned (or an errno name). Exit 0 when it could do that, 1 on an
 * unexpected error (message on stderr), 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void call_later(const char *file, int delay_ms)
{
	int fd;

	usleep(delay_ms * 1000);
	fd = open(file, O_WRONLY);
	if (fd < 0 || write(fd, "1\n", 2) != 2) {
		perror("kpt_epoll: call");
		_exit(1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *path = "/sys/kernel/debug/kptrace/trace_pipe";
	struct epoll_event ev = { .events = EPOLLIN };
	static char buf[1 << 16];
	long long drained = 0, t0;
	int fd, ep, opt, ready, status;
	ssize_t first, n;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			return 2;
		path = optarg;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: kpt_epoll [-d FILE] CALLFILE DELAY_MS TIMEOUT_MS\n");
		return 2;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("kpt_epoll: open");
		return 1;
	}
	first = read(fd, buf, 10);
	if (first < 0) {
		perror("kpt_epoll: first read");
		return 1;
	}
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
		perror("kpt_epoll: epoll");
		return 1;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			drained += n;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		fprintf(stderr, "kpt_epoll: drain: %s\n",
			n ? strerror(errno) : "read returned 0");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("kpt_epoll: fork");
		return 1;
	}
	if (!pid)
		call_later(argv[optind], atoi(argv[optind + 1]));
	t0 = now_ms();
	do {
		ready = epoll_wait(ep, &ev, 1, atoi(argv[optind + 2]));
	} while (ready < 0 && errno == EINTR);
	t0 = now_ms() - t0;
	n = read(fd, buf, sizeof(buf));
	printf("epoll first=%zd drained=%lld ready=%d ms=%lld read=", first,
	       drained, ready, t0);
	if (n < 0)
		printf("%s\n", errno == EAGAIN ? "EAGAIN" : strerror(errno));
	else
		printf("%zd\n", n);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "kpt_epoll: the call failed\n");
		return 1;
	}
	return 0;
}
