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
 * A write's lines are taken in order, as the module does: the first
 * refused one fails the write, and the lines before it stay.
 *
 * The device is the read end of a pipe nobody writes: a read() with
 * nothing to give blocks until a signal, or fails with EAGAIN once the
 * reader set O_NONBLOCK, as the module's. KPT_IOC_INFO answers (2 CPUs).
 *
 * An s line with summary gets no records but KPT_IOC_SYSSUM, as if its
 * tables were summary=2048 (so the tool's first request, sized for the
 * default 1024, gets -ENOSPC and the size): the first answer is canned
 * set 1, the second set 2, then nothing (struct kpt_syssum_entry, one per
 * CPU and (process, call)); each answer rewrites probe_stats, recorded
 * the calls given so far, summary_full their full; FAKEDEV_DIR/syssum
 * logs every request.
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

static int dev_fd = -1, dev_w = -1, dev_rdwr;
static int armed, served;

/* the armed s probe with summary: its name, the answers given */
static int summary;
static char sum_name[KPT_HIST_NAME_LEN];
static unsigned int sum_answers;
static unsigned long long sum_calls, sum_full;

#define SUM_ROOM	(2 * 2048 * sizeof(struct kpt_syssum_entry))
#define FAKE_LINE_MAX	4200	/* of a written line, its NUL included */
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Two processes over two CPUs, a 128-bit sum of squares, comm escapes;
 * lat_log2[] as the module counts the calls of each entry (its min, max,
 * total and sum of squares): [b] over 2^(9+b) and up to 2^(10+b) ns
 * ([0]: up to 1024 ns)
 */
static const struct kpt_syssum_entry sum_set1[] = {
	{ .pid = 1234, .nr = 0, .comm = "dd", .calls = 3, .total_ns = 3000,
	  .min_ns = 500, .max_ns = 1500, .sumsq_ns = { 3500000 },
	  .lat_log2 = { 2, 1 } },
	{ .pid = 1234, .nr = 1, .comm = "dd", .calls = 4, .errors = 1,
	  .total_ns = 20000, .min_ns = 1000, .max_ns = 10000,
	  .sumsq_ns = { 142000000 }, .lat_log2 = { 1, 0, 1, 1, 1 } },
	{ .pid = 1234, .nr = 231, .comm = "dd", .calls = 1,
	  .lat_log2 = { 1 } },
	{ .pid = 99, .nr = 257, .comm = "c\\at\x1b[2J", .calls = 1,
	  .errors = 1, .total_ns = 5000, .min_ns = 5000, .max_ns = 5000,
	  .sumsq_ns = { 25000000 }, .lat_log2 = { [3] = 1 } },
	/* CPU 1 */
	{ .pid = 1234, .nr = 0, .comm = "dd", .calls = 2, .total_ns = 5000,
	  .min_ns = 2000, .max_ns = 3000, .sumsq_ns = { 13000000 },
	  .lat_log2 = { 0, 1, 1 } },
	/* 4 s and 6 s: 52e18 = 2 * 2^64 + 15106511852580896768 */
	{ .pid = 1234, .nr = 35, .comm = "dd", .calls = 2,
	  .total_ns = 10000000000ULL, .min_ns = 4000000000ULL,
	  .max_ns = 6000000000ULL,
	  .sumsq_ns = { 15106511852580896768ULL, 2 },
	  .lat_log2 = { [22] = 1, [23] = 1 } },
	{ .pid = 99, .nr = 59, .comm = "sh", .calls = 1, .total_ns = 200000,
	  .min_ns = 200000, .max_ns = 200000,
	  .sumsq_ns = { 40000000000ULL }, .lat_log2 = { [8] = 1 } },
	/* 1000, 1000, 2000, 2000, 3000, 3000 ns */
	{ .pid = 99, .nr = 257, .comm = "c\\at\x1b[2J", .calls = 6,
	  .errors = 2, .total_ns = 12000, .min_ns = 1000, .max_ns = 3000,
	  .sumsq_ns = { 28000000 }, .lat_log2 = { 2, 2, 2 } },
};

static const struct kpt_syssum_entry sum_set2[] = {
	{ .pid = 1234, .nr = 0, .comm = "dd", .calls = 1, .total_ns = 700,
	  .min_ns = 700, .max_ns = 700, .sumsq_ns = { 490000 },
	  .lat_log2 = { 1 } },
	{ .pid = 7, .nr = 230, .comm = "sleep", .calls = 1,
	  .total_ns = 1000000000, .min_ns = 1000000000,
	  .max_ns = 1000000000, .sumsq_ns = { 1000000000000000000ULL },
	  .lat_log2 = { [20] = 1 } },
};

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
	dev_rdwr = (flags & O_ACCMODE) == O_RDWR;
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

/* probe_stats of the summary probe: recorded, the calls given so far */
static void sum_stats(void)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "%s calls=%llu events=%llu filtered=5 recorded=%llu full=0 overwritten=0 nested=0 too_big=0 num_fault=0 str_fault=0 str_trunc=0 stack_trunc=0 summary_full=%llu missed=0 maxactive_missed=1\n",
		 sum_name, sum_calls + 5 + sum_full + 2,
		 sum_calls + 5 + sum_full, sum_calls, sum_full);
	fake_file("probe_stats", "w", text);
}

static int fake_syssum(struct kpt_syssum_req *req)
{
	const struct kpt_syssum_entry *set = NULL;
	unsigned int i, n = 0;
	char text[256];
	__u64 full = 0;

	if (!dev_rdwr) {
		errno = EBADF;
		return -1;
	}
	if (!summary || strncmp(req->name, sum_name, sizeof(req->name))) {
		errno = ENOENT;
		return -1;
	}
	req->probe_id = 42;
	req->nr_entries = 0;
	req->full = 0;
	if (req->len < SUM_ROOM) {
		req->size = SUM_ROOM;
		snprintf(text, sizeof(text), "len=%llue ENOSPC size=%llue\n",
			 (unsigned long long)(req->len / sizeof(*set)),
			 (unsigned long long)(req->size / sizeof(*set)));
		fake_file("syssum", "a", text);
		errno = ENOSPC;
		return -1;
	}
	if (sum_answers == 0) {
		set = sum_set1;
		n = ARRAY_LEN(sum_set1);
		full = 2;
	} else if (sum_answers == 1) {
		set = sum_set2;
		n = ARRAY_LEN(sum_set2);
	}
	sum_answers++;
	if (n)
		memcpy((void *)(unsigned long)req->buf, set, n * sizeof(*set));
	for (i = 0; i < n; i++)
		sum_calls += set[i].calls;
	sum_full += full;
	req->size = n * sizeof(*set);
	req->nr_entries = n;
	req->full = full;
	snprintf(text, sizeof(text), "len=%llue entries=%u full=%llu\n",
		 (unsigned long long)(req->len / sizeof(*set)), n,
		 (unsigned long long)full);
	fake_file("syssum", "a", text);
	sum_stats();
	return 0;
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
	if (req == KPT_IOC_SYSSUM)
		return fake_syssum(arg);
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
	if (fd != dev_fd || dev_fd < 0 || !armed || served || !path ||
	    summary)
		return real_read(fd, buf, len);
	served = 1;
	f = fopen(path, "re");
	if (f) {
		n = fread(buf, 1, len, f);
		fclose(f);
	}
	return n;
}

/* One line of a write: 0, or -1 and errno when it is refused. */
static int fake_line(const char *line)
{
	/* an s probe's name, after "s:kptrace/" */
	const char *name = line + (strlen(line) > 10 ? 10 : strlen(line));
	char text[17000];

	if (line[0] == 's' && getenv("FAKEDEV_REFUSE")) {
		/* the Command as the module shows it: escaped */
		char esc[4 * FAKE_LINE_MAX];
		size_t i, o = 0;

		for (i = 0; line[i]; i++) {
			unsigned char c = line[i];

			if (c == '\\')
				o += sprintf(esc + o, "\\\\");
			else if (c < 0x20 || c >= 0x7f)
				o += sprintf(esc + o, "\\x%02x", c);
			else
				esc[o++] = c;
		}
		esc[o] = '\0';
		snprintf(text, sizeof(text),
			 "[    1.000000] kptrace: error: expected p, r, b or - at the start (-22)\n  Command: %s\n           ^\n",
			 esc);
		fake_file("error_log", "a", text);
		errno = EINVAL;
		return -1;
	}
	snprintf(text, sizeof(text), "%s\n", line);
	fake_file("specs", "a", text);
	if (line[0] == 's' && strstr(line, " summary")) {
		/* the module prints the size it made */
		snprintf(text, sizeof(text),
			 "%s=2048 # id=42 at=x64_sys_call+0x0/0x2000 kretprobe - hits=0 missed=0\n",
			 line);
		fake_file("probes", "w", text);
		snprintf(sum_name, sizeof(sum_name), "%.*s",
			 (int)strcspn(name, " "), name);
		summary = 1;
		sum_stats();
		armed = 1;
	} else if (line[0] == 's') {
		snprintf(text, sizeof(text),
			 "%s # id=42 at=x64_sys_call+0x0/0x2000 kretprobe - hits=0 missed=0\n",
			 line);
		fake_file("probes", "w", text);
		snprintf(text, sizeof(text),
			 "%.*s calls=25 events=19 filtered=9 recorded=9 full=1 overwritten=0 nested=0 too_big=0 num_fault=0 str_fault=1 str_trunc=1 stack_trunc=0 missed=0 maxactive_missed=1\n",
			 (int)strcspn(name, " "), name);
		fake_file("probe_stats", "w", text);
		armed = 1;
	} else if (line[0] == '-') {
		fake_file("probes", "w", "");
		fake_file("probe_stats", "w", "");
	}
	return 0;
}

/*
 * A write to the device: its lines in order, as the module takes them;
 * the first refused one fails the write, the lines before it stay.
 */
ssize_t write(int fd, const void *buf, size_t len)
{
	char text[FAKE_LINE_MAX];
	const char *p = buf, *end = p + len;
	size_t n;

	fake_init();
	if (fd != dev_fd || dev_fd < 0)
		return real_write(fd, buf, len);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		n = (nl ? nl : end) - p;
		memcpy(text, p, n < sizeof(text) ? n : sizeof(text) - 1);
		text[n < sizeof(text) ? n : sizeof(text) - 1] = '\0';
		if (text[0] && fake_line(text))
			return -1;
		p = nl ? nl + 1 : end;
	}
	return len;
}
