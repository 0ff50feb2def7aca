// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_spec: the kpt_spec_* selftests' helper for probe specs and their
 * records. Each mode prints one result line the shell tests assert on and
 * exits 0 when it could do what it was asked (the result is in the
 * output), 1 on an unexpected error (with a message on stderr):
 *
 *   write TEXT         one write() of TEXT to /dev/kptrace:
 *                      "ok" or "errno=ENAME"
 *   ioctl TEXT         ioctl(KPT_IOC_PROBE) with TEXT on a descriptor open
 *                      for writing (as a write() needs): "ok" or
 *                      "errno=ENAME"
 *   ioctl-ro TEXT      the same on a read-only descriptor
 *   pad N TEXT         one write() of exactly N bytes: TEXT, a newline,
 *                      then a "#" comment line filling up to N
 *   ustr FILE TEXT     one write() to FILE of TEXT with its NUL (so that
 *                      the kernel sees a NUL-terminated user string):
 *                      "ok" or "errno=ENAME"
 *   ustrx FILE TEXT    the same, with 63 'x' after the NUL in the same
 *                      write(): the bytes a string read may take in past
 *                      the NUL are not zero
 *   syssum NAME        ioctl(KPT_IOC_SYSSUM) of s probe NAME: its
 *                      interval's counts merged by (process, call)
 *   dump [STRARGS]     reads every pending record (O_NONBLOCK, until
 *                      EAGAIN) and prints one line per record:
 *                        entry id=I comm=C nargs=N ARG...
 *                        return id=I comm=C ret=R lat_ns=L nargs=N ARG...
 *                        lost cause=CAUSE count=N
 *                      ARG is "aK=0x<hex>" for a number, and for the
 *                      0-based argument indexes in the comma list STRARGS
 *                      "sK=<flags>:<len>:<bytes>" with flags among u
 *                      (user), f (fault), t (truncated), aN (a syscalls
 *                      probe's argument N, KPT_STR_SYSARG()), or "-",
 *                      and the bytes with non-printables as \xNN.
 *
 * TEXT is taken as it is: newlines come from the shell ("$(printf ...)").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/kptrace.h>
#include <uapi/kptrace_record.h>

#define BUF_SIZE	(1 << 20)

static const char *dev = "/dev/kptrace";

static const char *errno_name(int err)
{
	static char other[16];

	switch (err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case E2BIG: return "E2BIG";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EILSEQ: return "EILSEQ";
	case ENOTTY: return "ENOTTY";
	case EBADF: return "EBADF";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case ENXIO: return "ENXIO";
	case ESRCH: return "ESRCH";
	default:
		snprintf(other, sizeof(other), "E%d", err);
		return other;
	}
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0) {
		fprintf(stderr, "kpt_spec: open %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
	return fd;
}

/* Prints "ok" or "errno=ENAME" for a write() or ioctl() result. */
static int result(long ret, size_t want)
{
	if (ret < 0)
		printf("errno=%s\n", errno_name(errno));
	else if ((size_t)ret != want && want != (size_t)-1)
		printf("short=%ld\n", ret);
	else
		printf("ok\n");
	return 0;
}

static int do_write(const char *path, const char *buf, size_t len)
{
	int fd = open_or_die(path, O_WRONLY);
	long ret = write(fd, buf, len);
	int err = errno;

	close(fd);
	errno = err;
	return result(ret, len);
}

static int do_ioctl(const char *text, int flags)
{
	struct kpt_probe_cmd cmd;
	int fd = open_or_die(dev, flags);
	long ret;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.text = (uintptr_t)text;
	cmd.len = strlen(text);
	ret = ioctl(fd, KPT_IOC_PROBE, &cmd);
	err = errno;
	close(fd);
	errno = err;
	return result(ret, (size_t)-1);
}

static int do_pad(size_t n, const char *text)
{
	size_t len = strlen(text);
	char *buf;

	if (n < len + 3) {
		fprintf(stderr, "kpt_spec: pad: %zu bytes cannot hold the text\n",
			n);
		return 1;
	}
	buf = malloc(n);
	if (!buf)
		return 1;
	memcpy(buf, text, len);
	buf[len] = '\n';
	buf[len + 1] = '#';
	memset(buf + len + 2, 'x', n - len - 3);
	buf[n - 1] = '\n';
	return do_write(dev, buf, n);
}

/* TEXT, its NUL, then 63 'x': one write() to @path. */
static int do_ustrx(const char *path, const char *text)
{
	size_t len = strlen(text) + 1;
	char *buf = malloc(len + 63);

	if (!buf)
		return 1;
	memcpy(buf, text, len);
	memset(buf + len, 'x', 63);
	return do_write(path, buf, len + 63);
}

static int is_str_arg(const char *list, unsigned int i)
{
	const char *p = list;
	char *end;

	while (p && *p) {
		if (strtoul(p, &end, 10) == i && end != p)
			return 1;
		if (end == p)
			return 0;
		p = *end == ',' ? end + 1 : NULL;
	}
	return 0;
}

static void print_args(const struct kpt_event *e, const __u64 *slots,
		       const char *strs)
{
	unsigned int i, j, len, fl;
	const unsigned char *s;

	for (i = 0; i < e->nr_args; i++) {
		if (!is_str_arg(strs, i)) {
			printf(" a%u=0x%llx", i, (unsigned long long)slots[i]);
			continue;
		}
		len = KPT_STR_LEN(slots[i]);
		fl = KPT_STR_FLAGS(slots[i]);
		printf(" s%u=%s%s%s", i, fl & KPT_STR_USER ? "u" : "",
		       fl & KPT_STR_FAULT ? "f" : "",
		       fl & KPT_STR_TRUNC ? "t" : "");
		if (KPT_STR_SYSARG(fl))
			printf("a%u", KPT_STR_SYSARG(fl));
		printf("%s:%u:", fl ? "" : "-", len);
		s = kpt_record_str(e, slots[i]);
		if (!s) {
			printf("(bad)");
			continue;
		}
		for (j = 0; j < len; j++) {
			if (s[j] >= 0x20 && s[j] < 0x7f)
				putchar(s[j]);
			else
				printf("\\x%02x", s[j]);
		}
	}
}

static int do_dump(const char *strs)
{
	static const char *const causes[KPT_LOST_NR] = KPT_LOST_NAMES;
	int fd = open_or_die(dev, O_RDONLY | O_NONBLOCK);
	unsigned char *buf = malloc(BUF_SIZE);
	char comm[KPT_COMM_LEN + 1];
	size_t off;
	ssize_t n;

	if (!buf)
		return 1;
	for (;;) {
		n = read(fd, buf, BUF_SIZE);
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			fprintf(stderr, "kpt_spec: read: %s\n",
				n ? strerror(errno) : "EOF");
			return 1;
		}
		for (off = 0; off < (size_t)n;) {
			const struct kpt_event *e = (const void *)(buf + off);
			const struct kpt_ret *r = (const void *)e->data;
			const struct kpt_lost *l = (const void *)e->data;
			enum kpt_record_err err = kpt_record_check(e, n - off);

			if (err) {
				fprintf(stderr, "kpt_spec: bad record at %zu: %s\n",
					off, kpt_record_why(err));
				return 1;
			}
			memcpy(comm, e->comm, KPT_COMM_LEN);
			comm[KPT_COMM_LEN] = '\0';
			switch (e->type) {
			case KPT_EV_ENTRY:
				printf("entry id=%u comm=%s nargs=%u", e->probe_id,
				       comm, e->nr_args);
				print_args(e, e->data, strs);
				printf("\n");
				break;
			case KPT_EV_RETURN:
				printf("return id=%u comm=%s ret=%lld lat_ns=%llu nargs=%u",
				       e->probe_id, comm, (long long)r->ret,
				       (unsigned long long)r->lat_ns,
				       e->nr_args);
				print_args(e, e->data + KPT_RET_SLOTS, strs);
				printf("\n");
				break;
			case KPT_EV_LOST:
				printf("lost cause=%s count=%llu\n",
				       l->cause < KPT_LOST_NR ?
				       causes[l->cause] : "?",
				       (unsigned long long)l->count);
				break;
			default:
				printf("type=%u size=%u\n", e->type, e->size);
			}
			off += e->size;
		}
	}
	close(fd);
	free(buf);
	return 0;
}

/*
 * syssum NAME: ioctl(KPT_IOC_SYSSUM) of s probe NAME, its entries merged
 * by (process, call), one line each, sorted by the caller:
 * "pid=P nr=N comm=C calls=C errors=E lat=B:N,..." (comm with \xNN
 * escapes; lat= the non-empty latency buckets, KPT_SYS_SUM_SHIFT), then
 * "full=N entries=N" (the unmerged count); or "errno=ENAME".
 */
static int do_syssum(const char *name)
{
	struct kpt_syssum_req req;
	struct kpt_syssum_entry *e, *m;
	struct kpt_info info;
	unsigned int i, j, k, n = 0;
	int fd = open_or_die(dev, O_RDWR);
	const char *sep;
	const char *c;

	if (ioctl(fd, KPT_IOC_INFO, &info))
		return result(-1, 0);
	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", name);
	req.len = (__u64)info.nr_cpus * 65536 * sizeof(*e);
	e = calloc(1, req.len);
	m = calloc(1, req.len);
	if (!e || !m)
		return 1;
	req.buf = (uintptr_t)e;
	if (ioctl(fd, KPT_IOC_SYSSUM, &req))
		return result(-1, 0);
	for (i = 0; i < req.nr_entries; i++) {
		for (j = 0; j < n; j++)
			if (m[j].pid == e[i].pid && m[j].nr == e[i].nr)
				break;
		if (j == n)
			m[n++] = e[i];
		else {
			m[j].calls += e[i].calls;
			m[j].errors += e[i].errors;
			for (k = 0; k < KPT_SYS_SUM_BUCKETS; k++)
				m[j].lat_log2[k] += e[i].lat_log2[k];
		}
	}
	for (j = 0; j < n; j++) {
		printf("pid=%u nr=%u comm=", m[j].pid, m[j].nr);
		for (c = m[j].comm; *c && c < m[j].comm + KPT_COMM_LEN; c++)
			if (*c >= 0x20 && *c < 0x7f && *c != '\\')
				putchar(*c);
			else
				printf("\\x%02x", (unsigned char)*c);
		printf(" calls=%llu errors=%llu lat=",
		       (unsigned long long)m[j].calls,
		       (unsigned long long)m[j].errors);
		for (k = 0, sep = ""; k < KPT_SYS_SUM_BUCKETS; k++) {
			if (!m[j].lat_log2[k])
				continue;
			printf("%s%u:%u", sep, k, m[j].lat_log2[k]);
			sep = ",";
		}
		putchar('\n');
	}
	printf("full=%llu entries=%u\n", (unsigned long long)req.full,
	       req.nr_entries);
	close(fd);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: kpt_spec write TEXT | debugfs TEXT | ioctl TEXT |\n"
		"       ioctl-ro TEXT |\n"
		"       pad N TEXT | ustr FILE TEXT | ustrx FILE TEXT |\n"
		"       dump [STRARGS] | syssum NAME\n");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "write"))
		return do_write(dev, argv[2], strlen(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "debugfs"))
		return do_write("/sys/kernel/debug/kptrace/probes", argv[2],
				strlen(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "ioctl"))
		return do_ioctl(argv[2], O_WRONLY);
	if (argc == 3 && !strcmp(argv[1], "ioctl-ro"))
		return do_ioctl(argv[2], O_RDONLY);
	if (argc == 4 && !strcmp(argv[1], "pad"))
		return do_pad(strtoul(argv[2], NULL, 0), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "ustr"))
		return do_write(argv[2], argv[3], strlen(argv[3]) + 1);
	if (argc == 4 && !strcmp(argv[1], "ustrx"))
		return do_ustrx(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "syssum"))
		return do_syssum(argv[2]);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "dump"))
		return do_dump(argc == 3 ? argv[2] : "");
	return usage();
}
