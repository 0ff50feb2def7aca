// SPDX-License-Identifier: GPL-2.0
/*
 * fakedev: an LD_PRELOAD stand-in for /dev/kptrace, for the host tests of
 * `kptrace syscalls`, `kptrace -e` and `kptrace probe add` on kptrace-dyn:
 * not the module, only what the tools see of it. Environment:
 *
 *	FAKEDEV_PATH	the path that is the device (KPTRACE_DEVICE)
 *	FAKEDEV_DIR	where it keeps its logs and the module's files:
 *			specs (every line added or deleted, in order),
 *			sessions (each KPT_IOC_SESSION: what was asked;
 *			"closed" when the session's file is closed),
 *			opens (every path the process opened: open(),
 *			open64(), openat(), fopen(), fopen64()), probes (the
 *			listing: an s line gets id 42), probe_stats (fixed
 *			counters of that probe)
 *	FAKEDEV_RECORDS	records the first read() returns once a probe is
 *			armed (as `kptrace -w` saves them), their seqs made
 *			per CPU (1, 2, ... on each) as the module's are
 *	FAKEDEV_REFUSE	if set, an s line is refused: -EINVAL at column 0,
 *			"expected p, r, b or - at the start"
 *	FAKEDEV_REFUSE_WORD  a line holding this word is refused: -ENOENT
 *			at the word's column, "symbol not found: WORD"
 *	FAKEDEV_IDS	the ids of the probes that are not s probes, in
 *			the order they are added ("7,1000000"); then 100, 101..
 *	FAKEDEV_OLD	if set, the module predates sessions: KPT_IOC_SESSION,
 *			KPT_IOC_ADD, KPT_IOC_STATS and KPT_IOC_PROBE_STATS
 *			answer ENOTTY
 *
 * Lines are added with KPT_IOC_ADD (or a write(), its lines in order, the
 * first refused one failing it), answered as the module does: the id,
 * the canonical spec (the group kptrace/ put in, a p/r/b line without a
 * name named after its symbol, an s probe's summary made summary=2048),
 * or err, pos and msg. A name taken is -EEXIST; a -:NAME of no probe is
 * -ENOENT.
 *
 * KPT_IOC_SESSION makes the file a session (id 7): once (-EEXIST), before
 * any probe or read (-EBUSY), open for writing (-EBADF); its rings are
 * ring_bytes rounded up to a power of 2 (0: 1M; under 1K: -EINVAL; over
 * 64M: -E2BIG), its clock mono when asked auto. KPT_IOC_STATS answers the
 * books of the records of FAKEDEV_RECORDS, per CPU (2 CPUs): all of them
 * recorded (seq per CPU) once a probe is armed, read once served; the
 * loss reports' counts lost by cause. KPT_IOC_PROBE_STATS: an s probe's
 * fixed counters (those of probe_stats), another probe's records in
 * FAKEDEV_RECORDS as its calls, events and recorded.
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

static int dev_fd = -1, dev_w = -1, dev_rdwr, dev_write;
static int armed, served;

/* the armed s probe with summary: its name, the answers given */
static int summary;
static char sum_name[KPT_HIST_NAME_LEN];
static unsigned int sum_answers;
static unsigned long long sum_calls, sum_full;

/* the file's session (0: the default), and what was done through it */
static unsigned int session_id;
static int used;

/* the probes added through the file */
#define FAKE_PROBES	512
static struct fake_probe {
	unsigned int id;
	char name[160];		/* GROUP/NAME */
	char kind;
} probes[FAKE_PROBES];
static unsigned int nr_probes, next_id_index;

#define SUM_ROOM	(2 * 2048 * sizeof(struct kpt_syssum_entry))
#define FAKE_LINE_MAX	4200	/* of a written line, its NUL included */
#define FAKE_CPUS	2
#define FAKE_RING_MIN	1024
#define FAKE_RING_MAX	(64 << 20)
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
static int (*real_openat)(int dir, const char *path, int flags, ...);
static FILE *(*real_fopen)(const char *path, const char *mode);
static ssize_t (*real_read)(int fd, void *buf, size_t len);
static ssize_t (*real_write)(int fd, const void *buf, size_t len);
static int (*real_close)(int fd);
static int (*real_ioctl)(int fd, unsigned long req, ...);

static void fake_init(void)
{
	if (!real_open) {
		real_open = dlsym(RTLD_NEXT, "open");
		real_openat = dlsym(RTLD_NEXT, "openat");
		real_fopen = dlsym(RTLD_NEXT, "fopen");
		real_read = dlsym(RTLD_NEXT, "read");
		real_write = dlsym(RTLD_NEXT, "write");
		real_close = dlsym(RTLD_NEXT, "close");
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
	f = real_fopen(path, mode);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* FAKEDEV_DIR/opens: every path the process opens, in order */
static void log_open(const char *path)
{
	char text[4200];

	snprintf(text, sizeof(text), "%s\n", path);
	fake_file("opens", "a", text);
}

static int fake_open(const char *path, int flags)
{
	const char *dev = getenv("FAKEDEV_PATH");
	int p[2];

	log_open(path);
	if (!dev || strcmp(path, dev))
		return -2;
	if (pipe2(p, O_CLOEXEC))
		return -1;
	dev_fd = p[0];
	dev_w = p[1];
	dev_rdwr = (flags & O_ACCMODE) == O_RDWR;
	dev_write = (flags & O_ACCMODE) != O_RDONLY;
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

int openat(int dir, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	fake_init();
	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	log_open(path);
	return real_openat(dir, path, flags, mode);
}

FILE *fopen(const char *path, const char *mode)
{
	fake_init();
	log_open(path);
	return real_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
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

static int fake_syssum(void *arg)
{
	struct kpt_syssum_req *req = arg;
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

/*
 * FAKEDEV_RECORDS, read whole (malloc'ed, *@len bytes), with the seqs
 * made per CPU; NULL if there is none.
 */
static char *records_load(size_t *len)
{
	const char *path = getenv("FAKEDEV_RECORDS");
	__u64 seq[64] = { 0 };
	char *buf = NULL;
	size_t off = 0;
	long size;
	FILE *f;

	f = path ? real_fopen(path, "re") : NULL;
	if (!f)
		return NULL;
	size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (size > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(size);
		if (buf && fread(buf, 1, size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		}
		*len = size;
	}
	fclose(f);
	while (buf && off + sizeof(struct kpt_event) <= *len) {
		struct kpt_event *e = (struct kpt_event *)(buf + off);

		if (e->size < sizeof(*e) || off + e->size > *len)
			break;
		if (e->type != KPT_EV_LOST && e->cpu < ARRAY_LEN(seq))
			e->seq = ++seq[e->cpu];
		off += e->size;
	}
	return buf;
}

/* The books of the records: per CPU, once armed; read once served. */
static void records_books(struct kpt_ring_books *b, unsigned int nr_cpus)
{
	size_t len = 0, off = 0;
	char *buf = armed ? records_load(&len) : NULL;

	memset(b, 0, nr_cpus * sizeof(*b));
	while (buf && off + sizeof(struct kpt_event) <= len) {
		const struct kpt_event *e = (const void *)(buf + off);
		const struct kpt_lost *l = (const void *)e->data;

		if (e->size < sizeof(*e) || off + e->size > len)
			break;
		off += e->size;
		if (e->cpu >= nr_cpus)
			continue;
		if (e->type == KPT_EV_LOST && l->cause < KPT_LOST_NR) {
			b[e->cpu].lost[l->cause] += l->count;
			b[e->cpu].hits += l->count;
		} else if (e->type != KPT_EV_LOST) {
			b[e->cpu].hits++;
			b[e->cpu].recorded++;
			b[e->cpu].read += served;
		}
	}
	free(buf);
}

/* The records of probe @id in FAKEDEV_RECORDS */
static unsigned long long records_of(unsigned int id)
{
	unsigned long long n = 0;
	size_t len = 0, off = 0;
	char *buf = records_load(&len);

	while (buf && off + sizeof(struct kpt_event) <= len) {
		const struct kpt_event *e = (const void *)(buf + off);

		if (e->size < sizeof(*e) || off + e->size > len)
			break;
		off += e->size;
		n += e->type != KPT_EV_LOST && e->probe_id == id;
	}
	free(buf);
	return n;
}

static int fake_session(void *arg)
{
	struct kpt_session_req *req = arg;
	__u64 ring = 1 << 20;
	char text[256];

	if (!dev_rdwr) {
		errno = EBADF;
		return -1;
	}
	if (session_id) {
		errno = EEXIST;
		return -1;
	}
	if (used) {
		errno = EBUSY;
		return -1;
	}
	snprintf(text, sizeof(text), "ring_bytes=%llu flags=%u clock=%u\n",
		 (unsigned long long)req->ring_bytes, req->flags, req->clock);
	fake_file("sessions", "a", text);
	if (req->ring_bytes) {
		if (req->ring_bytes < FAKE_RING_MIN) {
			errno = EINVAL;
			return -1;
		}
		for (ring = FAKE_RING_MIN; ring < req->ring_bytes; ring *= 2)
			;
	}
	if (ring > FAKE_RING_MAX) {
		errno = E2BIG;
		return -1;
	}
	session_id = 7;
	req->ring_bytes = ring;
	req->clock = req->clock == KPT_CLOCK_AUTO ? KPT_CLOCK_MONO : req->clock;
	req->id = session_id;
	return 0;
}

static int fake_stats(void *arg)
{
	struct kpt_stats_req *req = arg;

	if (req->nr_cpus < FAKE_CPUS) {
		req->nr_cpus = FAKE_CPUS;
		errno = ENOSPC;
		return -1;
	}
	req->nr_cpus = FAKE_CPUS;
	records_books((void *)(unsigned long)req->buf, FAKE_CPUS);
	req->session = session_id;
	req->nr_probes = nr_probes;
	req->missed = 1;
	return 0;
}

static struct fake_probe *probe_find(unsigned int id, const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_probes; i++)
		if ((name && !strcmp(probes[i].name, name)) ||
		    (!name && probes[i].id == id))
			return &probes[i];
	return NULL;
}

static int fake_probe_books(void *arg)
{
	struct kpt_probe_books *pb = arg;
	struct fake_probe *p = probe_find(pb->id, NULL);
	unsigned long long n;

	if (!p) {
		errno = ENOENT;
		return -1;
	}
	memset(pb, 0, sizeof(*pb));
	pb->id = p->id;
	if (p->kind == 's' && summary) {
		pb->flags = KPT_PB_RETURN | KPT_PB_SUMMARY;
		pb->calls = sum_calls + 5 + sum_full + 2;
		pb->events = sum_calls + 5 + sum_full;
		pb->filtered = 5;
		pb->recorded = sum_calls;
		pb->summary_full = sum_full;
		pb->maxactive_missed = 1;
	} else if (p->kind == 's') {
		/* as probe_stats says of it */
		pb->flags = KPT_PB_RETURN;
		pb->calls = 25;
		pb->events = 19;
		pb->filtered = 9;
		pb->recorded = 9;
		pb->lost[KPT_LOST_FULL] = 1;
		pb->str_fault = 1;
		pb->str_trunc = 1;
		pb->maxactive_missed = 1;
	} else {
		n = records_of(p->id);
		pb->flags = p->kind == 'p' ? 0 : KPT_PB_RETURN;
		pb->calls = n;
		pb->events = n;
		pb->recorded = n;
	}
	return 0;
}

/* An add's answer: -@err at column @pos, "@fmt..."; -1 with errno. */
static int add_refuse(struct kpt_add_req *req, int err, int pos,
		      const char *fmt, const char *arg)
{
	req->err = -err;
	req->pos = pos;
	snprintf(req->msg, sizeof(req->msg), fmt, arg);
	errno = err;
	return -1;
}

/* The next id of a probe that is not an s probe (FAKEDEV_IDS) */
static unsigned int next_id(void)
{
	const char *ids = getenv("FAKEDEV_IDS");
	unsigned int i = 0, n = next_id_index++;

	while (ids && *ids) {
		if (i++ == n)
			return (unsigned int)strtoul(ids, NULL, 10);
		ids = strchr(ids, ',');
		ids = ids ? ids + 1 : NULL;
	}
	return 100 + n - (i < n ? i : n);
}

/*
 * The head of @line made canonical into @name (GROUP/NAME) and @spec:
 * the group kptrace/ put in, a name made of the symbol if none.
 */
static void canonical(const char *line, char *name, size_t nlen, char *spec,
		      size_t slen)
{
	size_t head = strcspn(line, " "), i, n;
	const char *colon = memchr(line, ':', head), *target, *g;
	char sym[128];

	if (colon) {
		n = head - (colon + 1 - line);
		g = memchr(colon + 1, '/', n) ? "" : "kptrace/";
		snprintf(name, nlen, "%s%.*s", g, (int)n, colon + 1);
		snprintf(spec, slen, "%.*s%s%s", (int)(colon + 1 - line), line,
			 g, colon + 1);
		return;
	}
	target = line + head + strspn(line + head, " ");
	n = strcspn(target, " ");
	snprintf(sym, sizeof(sym), "%.*s", (int)n, target);
	for (i = 0; sym[i]; i++)
		if (sym[i] == ':' || sym[i] == '+' || sym[i] == '.')
			sym[i] = '_';
	snprintf(name, nlen, "kptrace/%s", sym);
	snprintf(spec, slen, "%.*s:%s%s", (int)head, line, name, line + head);
}

/* A delete, -:[GROUP/]NAME */
static int fake_delete(struct kpt_add_req *req, const char *line)
{
	char name[160];
	struct fake_probe *p;

	snprintf(name, sizeof(name), "%s%s", strchr(line, '/') ? "" : "kptrace/",
		 line + 2);
	p = probe_find(0, name);
	if (!p)
		return add_refuse(req, ENOENT, 2, "no probe %s", line + 2);
	*p = probes[--nr_probes];
	req->id = 0;
	fake_file("probes", "w", "");
	fake_file("probe_stats", "w", "");
	return 0;
}

/* One line: added or deleted, else -1 with errno and req's answer. */
static int fake_add(struct kpt_add_req *req, const char *line)
{
	const char *word = getenv("FAKEDEV_REFUSE_WORD");
	char name[160], spec[FAKE_LINE_MAX + 64], text[FAKE_LINE_MAX + 160];
	const char *w = word && *word ? strstr(line, word) : NULL;
	struct fake_probe *p;

	req->err = 0;
	req->pos = -1;
	req->msg[0] = '\0';
	if (line[0] == 's' && getenv("FAKEDEV_REFUSE"))
		return add_refuse(req, EINVAL, 0, "%s",
				  "expected p, r, b or - at the start");
	if (w)
		return add_refuse(req, ENOENT, (int)(w - line),
				  "symbol not found: %s", word);
	snprintf(text, sizeof(text), "%s\n", line);
	fake_file("specs", "a", text);
	used = 1;
	if (line[0] == '-')
		return fake_delete(req, line);
	canonical(line, name, sizeof(name), spec, sizeof(spec));
	if (probe_find(0, name))
		return add_refuse(req, EEXIST, 2, "a probe %s exists", name);
	if (nr_probes == FAKE_PROBES)
		return add_refuse(req, E2BIG, -1, "%s", "too many probes");
	p = &probes[nr_probes++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->kind = line[0];
	p->id = line[0] == 's' ? 42 : next_id();
	if (line[0] == 's' && strstr(spec, " summary")) {
		/* the module prints the size it made */
		strcat(spec, "=2048");
		snprintf(sum_name, sizeof(sum_name), "%s",
			 strchr(name, '/') + 1);
		summary = 1;
		sum_stats();
	} else if (line[0] == 's') {
		snprintf(text, sizeof(text),
			 "%s calls=25 events=19 filtered=9 recorded=9 full=1 overwritten=0 nested=0 too_big=0 num_fault=0 str_fault=1 str_trunc=1 stack_trunc=0 missed=0 maxactive_missed=1\n",
			 strchr(name, '/') + 1);
		fake_file("probe_stats", "w", text);
	}
	snprintf(text, sizeof(text),
		 "%s # id=%u%s%.0u at=x64_sys_call+0x0/0x2000 kretprobe - hits=0 missed=0\n",
		 spec, p->id, session_id ? " session=" : "", session_id);
	fake_file("probes", "a", text);
	armed = 1;
	req->id = p->id;
	req->spec_size = strlen(spec) + 1;
	if (req->spec && req->spec_len >= req->spec_size)
		memcpy((void *)(unsigned long)req->spec, spec, req->spec_size);
	return 0;
}

static int fake_ioc_add(void *arg)
{
	struct kpt_add_req *req = arg;
	char line[FAKE_LINE_MAX];

	if (!dev_write) {
		errno = EBADF;
		return -1;
	}
	if (req->len >= sizeof(line) || req->len >= 4096) {
		errno = EINVAL;
		return -1;
	}
	memcpy(line, (const void *)(unsigned long)req->line, req->len);
	line[req->len] = '\0';
	return fake_add(req, line);
}

static int fake_info(void *arg)
{
	struct kpt_info *info = arg;

	memset(info, 0, sizeof(*info));
	info->magic = KPT_MAGIC;
	info->version = KPT_VERSION;
	info->nr_cpus = FAKE_CPUS;
	info->nr_probes = nr_probes;
	info->ring_bytes = 1 << 20;
	info->max_record = KPT_MAX_RECORD;
	return 0;
}

/* The ioctls the fake answers, and how */
static const struct {
	unsigned long req;
	int (*answer)(void *arg);
} fake_ioctls[] = {
	{ KPT_IOC_INFO, fake_info },
	{ KPT_IOC_SYSSUM, fake_syssum },
	{ KPT_IOC_SESSION, fake_session },
	{ KPT_IOC_ADD, fake_ioc_add },
	{ KPT_IOC_STATS, fake_stats },
	{ KPT_IOC_PROBE_STATS, fake_probe_books },
};

int ioctl(int fd, unsigned long req, ...)
{
	unsigned int i;
	va_list ap;
	void *arg;

	fake_init();
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != dev_fd || dev_fd < 0)
		return real_ioctl(fd, req, arg);
	/* a module older than sessions: none of their ioctls */
	if (getenv("FAKEDEV_OLD") && _IOC_NR(req) >= _IOC_NR(KPT_IOC_SESSION))
		req = 0;
	for (i = 0; i < ARRAY_LEN(fake_ioctls); i++)
		if (fake_ioctls[i].req == req)
			return fake_ioctls[i].answer(arg);
	errno = ENOTTY;
	return -1;
}

ssize_t read(int fd, void *buf, size_t len)
{
	size_t n = 0;
	char *recs;

	fake_init();
	if (fd != dev_fd || dev_fd < 0)
		return real_read(fd, buf, len);
	used = 1;
	if (!armed || served || summary || !getenv("FAKEDEV_RECORDS"))
		return real_read(fd, buf, len);
	served = 1;
	recs = records_load(&n);
	if (n > len)
		n = len;
	if (recs)
		memcpy(buf, recs, n);
	free(recs);
	return n;
}

/*
 * A write to the device: its lines in order, as the module takes them;
 * the first refused one fails the write, the lines before it stay.
 */
ssize_t write(int fd, const void *buf, size_t len)
{
	char text[FAKE_LINE_MAX];
	const char *p = buf, *end = p + len;
	struct kpt_add_req req;
	size_t n;

	fake_init();
	if (fd != dev_fd || dev_fd < 0)
		return real_write(fd, buf, len);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		n = (nl ? nl : end) - p;
		memcpy(text, p, n < sizeof(text) ? n : sizeof(text) - 1);
		text[n < sizeof(text) ? n : sizeof(text) - 1] = '\0';
		memset(&req, 0, sizeof(req));
		if (text[0] && fake_add(&req, text))
			return -1;
		p = nl ? nl + 1 : end;
	}
	return len;
}

/*
 * The device closed: a session's probes go with it (the listing loses
 * them), and FAKEDEV_DIR/sessions says so; the number may be reused.
 */
int close(int fd)
{
	fake_init();
	if (fd == dev_fd && dev_fd >= 0) {
		real_close(dev_w);
		dev_fd = -1;
		if (session_id) {
			fake_file("sessions", "a", "closed\n");
			fake_file("probes", "w", "");
			nr_probes = 0;
		}
	}
	return real_close(fd);
}
