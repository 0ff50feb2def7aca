// SPDX-License-Identifier: GPL-2.0
/*
 * fakedev: an LD_PRELOAD stand-in for /dev/kptrace, for the host tests of
 * `kptrace syscalls` on kptrace-dyn: not the module, only what the tool
 * sees of it. Environment:
 *
 *	FAKEDEV_PATH	the path that is the device (KPTRACE_DEVICE)
 *	FAKEDEV_DIR	where it keeps the files of the module:
 *			specs (every line written, in order), probes (the
 *			listing: an s line gets id 42), probe_stats (fixed
 *			counters of that probe), error_log
 *	FAKEDEV_RECORDS	records the first read() returns once a probe is
 *			armed (as `kptrace -w` saves them)
 *	FAKEDEV_REFUSE	if set, an s line is refused: EINVAL, and an
 *			error_log entry as the module's
 *
 * The device is the read end of a pipe nobody writes: a read() with
 * nothing to give blocks until a signal, or fails with EAGAIN once the
 * reader set O_NONBLOCK, as the module's. KPT_IOC_INFO answers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/kptrace.h>

static int dev_fd = -1, dev_w = -1;
static int armed, served;

static int (*real_open)(const char *path, int flags, ...);
static ssize_t (*real_read)(int fd, void *buf, size_t len);
static ssize_t (*real_write)(int fd, const void *buf, size_t len);
static int (*real_ioctl)(int fd, unsigned long req, ...);

static void fake_init(void)
{
	if (!real_open) {
		real_open = dlsym(RTLD_NEXT, "open");
		real_read = dlsym(RTLD_NEXT, "read");
		real_write = dlsym(RTLD_NEXT, "write");
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	}
}

/* Writes @text to FAKEDEV_DIR/@name (@mode "w" or "a"). */
static void fake_file(const char *name, const char *mode, const char *text)
{
	const char *dir = getenv("FAKEDEV_DIR");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, mode);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int fake_open(const char *path, int flags)
{
	const char *dev = getenv("FAKEDEV_PATH");
	int p[2];

	if (!dev || strcmp(path, dev))
		return -2;
	if (pipe2(p, O_CLOEXEC))
		return -1;
	dev_fd = p[0];
	dev_w = p[1];
	if (flags & O_NONBLOCK)
		fcntl(dev_fd, F_SETFL, O_NONBLOCK);
	return dev_fd;
}

static int open_any(const char *path, int flags, va_list ap)
{
	mode_t mode = 0;
	int fd;

	fake_init();
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	fd = fake_open(path, flags);
	return fd == -2 ? real_open(path, flags, mode) : fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_any(path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_any(path, flags, ap);
	va_end(ap);
	return fd;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct kpt_info *info;
	va_list ap;
	void *arg;

	fake_init();
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != dev_fd || dev_fd < 0)
		return real_ioctl(fd, req, arg);
	if (req != KPT_IOC_INFO) {
		errno = ENOTTY;
		return -1;
	}
	info = arg;
	memset(info, 0, sizeof(*info));
	info->magic = KPT_MAGIC;
	info->version = KPT_VERSION;
	info->nr_cpus = 2;
	info->nr_probes = 0;
	info->ring_bytes = 1 << 20;
	info->max_record = KPT_MAX_RECORD;
	return 0;
}

ssize_t read(int fd, void *buf, size_t len)
{
	const char *path = getenv("FAKEDEV_RECORDS");
	ssize_t n = 0;
	FILE *f;

	fake_init();
	if (fd != dev_fd || dev_fd < 0 || !armed || served || !path)
		return real_read(fd, buf, len);
	served = 1;
	f = fopen(path, "re");
	if (f) {
		n = fread(buf, 1, len, f);
		fclose(f);
	}
	return n;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	char line[4200], text[8600];
	size_t n = len < sizeof(line) - 1 ? len : sizeof(line) - 1;

	fake_init();
	if (fd != dev_fd || dev_fd < 0)
		return real_write(fd, buf, len);
	memcpy(line, buf, n);
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (line[0] == 's' && getenv("FAKEDEV_REFUSE")) {
		snprintf(text, sizeof(text),
			 "[    1.000000] kptrace: error: expected p, r, b or - at the start (-22)\n  Command: %s\n           ^\n",
			 line);
		fake_file("error_log", "a", text);
		errno = EINVAL;
		return -1;
	}
	snprintf(text, sizeof(text), "%s\n", line);
	fake_file("specs", "a", text);
	if (line[0] == 's') {
		snprintf(text, sizeof(text),
			 "%s # id=42 at=x64_sys_call+0x0/0x2000 kretprobe - hits=0 missed=0\n",
			 line);
		fake_file("probes", "w", text);
		snprintf(text, sizeof(text),
			 "%.*s calls=25 events=19 filtered=9 recorded=9 full=1 overwritten=0 nested=0 too_big=0 num_fault=0 str_fault=1 str_trunc=1 stack_trunc=0 missed=0 maxactive_missed=1\n",
			 (int)strcspn(line + 10, " "), line + 10);
		fake_file("probe_stats", "w", text);
		armed = 1;
	} else if (line[0] == '-') {
		fake_file("probes", "w", "");
		fake_file("probe_stats", "w", "");
	}
	return len;
}
