// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_read: the selftests' own minimal reader of /dev/kptrace.
 *
 * It checks the character device against include/uapi/kptrace.h without
 * depending on tools/kptrace, and prints one-line results the shell tests
 * assert on. Every mode exits 0 when it could do what it was asked (the
 * result is in the output) and 1 on an unexpected error (with a message on
 * stderr). Modes:
 *
 *   info         ioctl(KPT_IOC_INFO): "info magic=0x4b50 version=1 ..."
 *                (exit 1 if magic or version is not the one built in)
 *   nonblock     O_NONBLOCK read: "nonblock EAGAIN" or "nonblock read=N"
 *   zero         read(fd, buf, 0) on a blocking descriptor (given up after
 *                5 s): "zero read=0", or "zero ENAME" (EINTR: it blocked)
 *   poll MS      poll(POLLIN, MS): "poll POLLIN" or "poll timeout"
 *   pingpong N FILE [MS [WIN]]  N rounds of: drain, have a child on another
 *                CPU write "1" to FILE (one probed call; MS ms later if
 *                given), poll(POLLIN, 2 s); late: rounds not woken within
 *                1 s; with WIN, a round not woken whose call (by its
 *                record's time) came more than WIN ms after the poll
 *                began counts as "after" instead
 *                "pingpong rounds=N woken=W late=L min_ms=m max_ms=M [after=A]"
 *   small        read(fd, buf, 8) with a record pending: "small EINVAL",
 *                then reads that record with a big buffer: "small next=ok"
 *   perm         drops to uid/gid 65534 (no capabilities), then open():
 *                "perm errno=EACCES" / "perm errno=EPERM" / "perm open=ok"
 *   nocap        stays uid 0, drops CAP_SYS_ADMIN and CAP_PERFMON, open():
 *                "nocap errno=EPERM" / "nocap open=ok"
 *   read N       blocking read() until N records were read (or -t SEC)
 *   follow       poll()+read() until SIGTERM/SIGINT (or -t SEC), then reads
 *                what is still pending with O_NONBLOCK until EAGAIN
 *   drain        O_NONBLOCK reads until EAGAIN
 *   now          CLOCK_MONOTONIC: "now ns=N" (for the records' ts)
 *   hold         with -S: make the session, add -e's probes, say "armed",
 *                then wait for a signal (its end, or a kill -9, closes it)
 *   killloop N   N times: a child makes the session of -S -b -o -k and
 *                adds -e's probes, then kills itself with SIGKILL; the
 *                children run one at a time: "killloop n=N killed=K armed=A"
 *                (armed: those whose probes were all added)
 *   maxsessions  sessions of -b bytes (one per open descriptor) until one
 *                is refused: "maxsessions made=N err=ENAME", then closes them
 *   session_errors  each refusal of KPT_IOC_SESSION, one line each:
 *                "case NAME err=ENAME" (ok: none)
 *   race N       N rounds of two threads on one new descriptor, one making
 *                it a session (-b bytes: its allocation takes a while), the
 *                other adding -e's first spec at the same moment: either
 *                the session is made and the probe is its, or the session
 *                is refused (EBUSY) and the probe the default session's
 *                (deleted again); anything else is misrouted:
 *                "race rounds=N session=S busy=B misrouted=M"
 *   firstuse N   N rounds on a new descriptor: one thread makes it a session
 *                (-b bytes), 2 ms later another starts a blocking read()
 *                (nothing comes) and a third a write() of a comment line,
 *                both first uses of the file; the write must be back
 *                within 2 s, whatever the read does (then interrupted):
 *                "firstuse rounds=N stuck=K"
 *
 * Sessions. -S makes the descriptor a session of its own (KPT_IOC_SESSION:
 * -b BYTES its rings per CPU, -o overwrite, -k auto|mono|local its clock)
 * and prints "session id=N ring_bytes=B clock=C"; each -e SPEC (up to 16)
 * is then added through it with KPT_IOC_ADD, which prints
 *   "add id=N spec=SPEC" or "add err=ENAME pos=P msg=MSG" (then exit 1)
 * and once all are in, "armed". read, follow, drain and hold work on the
 * session then, and end with its books (KPT_IOC_STATS, KPT_IOC_PROBE_STATS)
 *   "books session=S hits=H recorded=R read=D pending=P lost=L nr_probes=N"
 *   "pbooks id=N calls=C events=E recorded=R filtered=F lost=L missed=M"
 * (-e without -S adds to the default session the same way.)
 *
 * read, follow and drain validate every record (kpt_record_check() of
 * uapi/kptrace_record.h, known CPU and loss cause, per-CPU seq strictly
 * increasing) and end with
 *   "summary records=R entry=E return=X lost=L lost_events=S ..."
 * and one "cpu C records=... first_seq=... last_seq=... gaps=..." line per
 * CPU seen. -v prints one "rec ..." line per record as it is read. -c
 * tallies the entry records by their context flags (KPT_F_NMI, _HARDIRQ,
 * _SOFTIRQ) and first argument, and prints before the summary one
 *   "ctx flags=0xF arg0=0xA records=N"
 * line per pair seen (arg0 above CTX_ARG0_MAX, or no argument, as arg0=other):
 * what a test that calls a probed function from several contexts, with
 * the context in arg0, compares, at no cost per record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <pthread.h>
#include <unistd.h>
#include <linux/capability.h>

#include <uapi/kptrace.h>
#include <uapi/kptrace_record.h>

#define MAX_CPUS	1024
#define BUF_SIZE	(1 << 20)
#define CTX_FLAGS	(KPT_F_NMI | KPT_F_HARDIRQ | KPT_F_SOFTIRQ)
#define CTX_ARG0_MAX	15

static const char *dev = "/dev/kptrace";
static int verbose;
/* -S, -b, -o, -k, -e: a session and its probes */
#define MAX_SPECS	16
static int session;
static unsigned long long ring_bytes;
static int overwrite;
static unsigned int clock_id;
static const char *specs[MAX_SPECS];
static unsigned int nspecs;
static uint32_t spec_ids[MAX_SPECS];
static int tally_ctx;
static unsigned int timeout_sec;
static volatile sig_atomic_t exiting;

static const char *const cause_names[KPT_LOST_NR] = KPT_LOST_NAMES;

struct cpu_state {
	uint64_t records;	/* entry + return records */
	uint64_t first_seq;
	uint64_t last_seq;
	uint64_t gaps;		/* seq != last_seq + 1 */
	uint64_t lost_records;
};

static struct {
	uint64_t records, entry, ret, lost, lost_events, unknown, bad;
	uint64_t seq_errors, bytes;
	uint64_t lost_by_cause[KPT_LOST_NR];
	uint32_t nr_cpus;	/* from KPT_IOC_INFO, 0 if unknown */
	struct cpu_state cpu[MAX_CPUS];
	/* -c: entries by [flags & CTX_FLAGS][arg0, CTX_ARG0_MAX + 1: other] */
	uint64_t ctx[CTX_FLAGS + 1][CTX_ARG0_MAX + 2];
} st;

static const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case EILSEQ: return "EILSEQ";
	case ENXIO: return "ENXIO";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EEXIST: return "EEXIST";
	case EMFILE: return "EMFILE";
	case ERANGE: return "ERANGE";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	default: return "E?";
	}
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static void setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: read() gets EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (timeout_sec)
		alarm(timeout_sec);
}

static int open_dev(int flags)
{
	int fd = open(dev, flags);

	if (fd < 0)
		fprintf(stderr, "kpt_read: open %s: %s\n", dev, strerror(errno));
	return fd;
}

static int get_info(int fd, struct kpt_info *info)
{
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, KPT_IOC_INFO, info)) {
		fprintf(stderr, "kpt_read: ioctl KPT_IOC_INFO: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static void print_record(const struct kpt_event *e)
{
	char comm[KPT_COMM_LEN + 1];
	unsigned int i;

	memcpy(comm, e->comm, KPT_COMM_LEN);
	comm[KPT_COMM_LEN] = 0;
	printf("rec cpu=%u seq=%llu ts=%llu type=", e->cpu,
	       (unsigned long long)e->seq, (unsigned long long)e->ts_ns);
	switch (e->type) {
	case KPT_EV_ENTRY:
		printf("entry pid=%u tid=%u comm=%s probe=%u flags=0x%x nargs=%u nstack=%u args=",
		       e->pid, e->tid, comm, e->probe_id, e->flags,
		       e->nr_args, e->nr_stack);
		for (i = 0; i < e->nr_args; i++)
			printf("%s0x%llx", i ? "," : "",
			       (unsigned long long)e->data[i]);
		printf("\n");
		break;
	case KPT_EV_RETURN: {
		const struct kpt_ret *r = (const void *)e->data;

		printf("return pid=%u tid=%u comm=%s probe=%u ret=%lld lat_ns=%llu entry_ts=%llu\n",
		       e->pid, e->tid, comm, e->probe_id, (long long)r->ret,
		       (unsigned long long)r->lat_ns,
		       (unsigned long long)r->entry_ts_ns);
		break;
	}
	case KPT_EV_LOST: {
		const struct kpt_lost *l = (const void *)e->data;

		printf("lost cause=%s count=%llu\n",
		       l->cause < KPT_LOST_NR ? cause_names[l->cause] : "?",
		       (unsigned long long)l->count);
		break;
	}
	default:
		printf("%u size=%u\n", e->type, e->size);
	}
}

static void bad(const struct kpt_event *e, const char *why)
{
	st.bad++;
	fprintf(stderr, "kpt_read: bad record (%s): type=%u size=%u cpu=%u seq=%llu\n",
		why, e->type, e->size, e->cpu, (unsigned long long)e->seq);
}

/*
 * Validates the records of one read() result: kpt_record_check(), as every
 * reader of the format checks them, then what this module's records must
 * be besides (a known CPU, a known loss cause). Returns -1 if it is torn.
 */
static int account(const unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		const struct kpt_event *e = (const void *)(buf + off);
		enum kpt_record_err err = kpt_record_check(e, len - off);
		struct cpu_state *c;

		if (err == KPT_REC_HDR_CUT) {
			fprintf(stderr, "kpt_read: read() ended inside a record header (%zu bytes left)\n",
				len - off);
			st.bad++;
			return -1;
		}
		if (kpt_record_unframed(err)) {
			bad(e, kpt_record_why(err));
			return -1;
		}
		st.bytes += e->size;
		off += e->size;
		if (err) {
			bad(e, kpt_record_why(err));
			continue;
		}
		if (verbose)
			print_record(e);
		if (e->cpu >= MAX_CPUS || (st.nr_cpus && e->cpu >= st.nr_cpus)) {
			bad(e, "cpu");
			continue;
		}
		c = &st.cpu[e->cpu];
		switch (e->type) {
		case KPT_EV_ENTRY:
			st.entry++;
			if (tally_ctx)
				st.ctx[e->flags & CTX_FLAGS]
				      [e->nr_args && e->data[0] <= CTX_ARG0_MAX ?
				       e->data[0] : CTX_ARG0_MAX + 1]++;
			break;
		case KPT_EV_RETURN:
			st.ret++;
			break;
		case KPT_EV_LOST: {
			const struct kpt_lost *l = (const void *)e->data;

			if (l->cause >= KPT_LOST_NR || !l->count) {
				bad(e, "lost record");
				continue;
			}
			st.lost++;
			st.lost_events += l->count;
			st.lost_by_cause[l->cause] += l->count;
			c->lost_records++;
			continue;	/* LOST reports are not numbered events */
		}
		default:
			st.unknown++;
			continue;
		}
		st.records++;
		if (!c->records) {
			c->first_seq = e->seq;
			if (!e->seq) {
				st.seq_errors++;
				fprintf(stderr, "kpt_read: cpu %u: seq 0\n",
					e->cpu);
			}
		} else if (e->seq <= c->last_seq) {
			st.seq_errors++;
			fprintf(stderr, "kpt_read: cpu %u: seq %llu after %llu\n",
				e->cpu, (unsigned long long)e->seq,
				(unsigned long long)c->last_seq);
		} else if (e->seq != c->last_seq + 1) {
			c->gaps++;
		}
		c->records++;
		c->last_seq = e->seq;
	}
	return 0;
}

static void summary(void)
{
	unsigned int i, a;

	for (i = 0; tally_ctx && i <= CTX_FLAGS; i++)
		for (a = 0; a <= CTX_ARG0_MAX + 1; a++) {
			if (!st.ctx[i][a])
				continue;
			if (a <= CTX_ARG0_MAX)
				printf("ctx flags=0x%x arg0=0x%x records=%llu\n",
				       i, a, (unsigned long long)st.ctx[i][a]);
			else
				printf("ctx flags=0x%x arg0=other records=%llu\n",
				       i, (unsigned long long)st.ctx[i][a]);
		}

	printf("summary records=%llu entry=%llu return=%llu lost=%llu lost_events=%llu lost_full=%llu lost_overwritten=%llu lost_nested=%llu lost_too_big=%llu unknown=%llu bad=%llu seq_errors=%llu bytes=%llu\n",
	       (unsigned long long)st.records, (unsigned long long)st.entry,
	       (unsigned long long)st.ret, (unsigned long long)st.lost,
	       (unsigned long long)st.lost_events,
	       (unsigned long long)st.lost_by_cause[KPT_LOST_FULL],
	       (unsigned long long)st.lost_by_cause[KPT_LOST_OVERWRITTEN],
	       (unsigned long long)st.lost_by_cause[KPT_LOST_NESTED],
	       (unsigned long long)st.lost_by_cause[KPT_LOST_TOO_BIG],
	       (unsigned long long)st.unknown, (unsigned long long)st.bad,
	       (unsigned long long)st.seq_errors,
	       (unsigned long long)st.bytes);
	for (i = 0; i < MAX_CPUS; i++) {
		struct cpu_state *c = &st.cpu[i];

		if (!c->records && !c->lost_records)
			continue;
		printf("cpu %u records=%llu first_seq=%llu last_seq=%llu gaps=%llu lost_records=%llu\n",
		       i, (unsigned long long)c->records,
		       (unsigned long long)c->first_seq,
		       (unsigned long long)c->last_seq,
		       (unsigned long long)c->gaps,
		       (unsigned long long)c->lost_records);
	}
	fflush(stdout);
}

/* Reads with O_NONBLOCK until EAGAIN. */
/*
 * Read what is left, until EAGAIN. Probes on functions the kernel calls all
 * the time (kpt_hazard_self_probe) may never let the rings empty: after
 * DRAIN_SEC the drain stops and says so, rather than running forever.
 */
#define DRAIN_SEC	10

static int drain(int fd, unsigned char *buf)
{
	int fl = fcntl(fd, F_GETFL);
	time_t t0 = time(NULL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		perror("kpt_read: fcntl");
		return -1;
	}
	for (;;) {
		ssize_t n;

		if (time(NULL) - t0 > DRAIN_SEC) {
			fprintf(stderr, "kpt_read: records still arriving after %d s of reading the rest, stopped\n",
				DRAIN_SEC);
			return 0;
		}
		n = read(fd, buf, BUF_SIZE);

		if (n < 0) {
			if (errno == EAGAIN)
				return 0;
			if (errno == EINTR)
				continue;
			fprintf(stderr, "kpt_read: drain: read: %s\n", strerror(errno));
			return -1;
		}
		if (n == 0) {
			fprintf(stderr, "kpt_read: read returned 0\n");
			return -1;
		}
		if (account(buf, n))
			return -1;
	}
}

/* -S and -e: the session and its probes, as the header says. 0 or -1 */
static int session_setup(int fd)
{
	static const char *const clocks[] = KPT_CLOCK_NAMES;
	struct kpt_session_req req;
	struct kpt_add_req add;
	char spec[4096];
	unsigned int i;

	if (session) {
		memset(&req, 0, sizeof(req));
		req.ring_bytes = ring_bytes;
		req.flags = overwrite ? KPT_SESSION_OVERWRITE : 0;
		req.clock = clock_id;
		if (ioctl(fd, KPT_IOC_SESSION, &req)) {
			printf("session err=%s\n", errno_name(errno));
			return -1;
		}
		printf("session id=%u ring_bytes=%llu clock=%s\n", req.id,
		       (unsigned long long)req.ring_bytes,
		       req.clock < 3 ? clocks[req.clock] : "?");
	}
	for (i = 0; i < nspecs; i++) {
		memset(&add, 0, sizeof(add));
		add.line = (uintptr_t)specs[i];
		add.len = strlen(specs[i]);
		add.spec = (uintptr_t)spec;
		add.spec_len = sizeof(spec);
		if (ioctl(fd, KPT_IOC_ADD, &add)) {
			printf("add err=%s pos=%d msg=%s\n", errno_name(errno),
			       add.pos, add.msg);
			return -1;
		}
		spec_ids[i] = add.id;
		printf("add id=%u spec=%s\n", add.id, spec);
	}
	if (session || nspecs)
		printf("armed\n");
	fflush(stdout);
	return 0;
}

/* The session's books, and its probes' (-S, -e) */
static void session_books(int fd)
{
	struct kpt_ring_books *rb;
	struct kpt_stats_req req;
	struct kpt_probe_books pb;
	unsigned long long hits = 0, rec = 0, rd = 0, lost = 0;
	unsigned int i, c;

	if (!session && !nspecs)
		return;
	rb = calloc(MAX_CPUS, sizeof(*rb));
	memset(&req, 0, sizeof(req));
	req.buf = (uintptr_t)rb;
	req.nr_cpus = MAX_CPUS;
	if (!rb || ioctl(fd, KPT_IOC_STATS, &req)) {
		printf("books err=%s\n", errno_name(errno));
		free(rb);
		return;
	}
	for (c = 0; c < req.nr_cpus; c++) {
		hits += rb[c].hits;
		rec += rb[c].recorded;
		rd += rb[c].read;
		for (i = 0; i < KPT_LOST_NR; i++)
			lost += rb[c].lost[i];
	}
	printf("books session=%u hits=%llu recorded=%llu read=%llu pending=%llu lost=%llu nr_probes=%u\n",
	       req.session, hits, rec, rd, rec - rd, lost, req.nr_probes);
	free(rb);
	for (i = 0; i < nspecs; i++) {
		memset(&pb, 0, sizeof(pb));
		pb.id = spec_ids[i];
		if (ioctl(fd, KPT_IOC_PROBE_STATS, &pb)) {
			printf("pbooks id=%u err=%s\n", spec_ids[i],
			       errno_name(errno));
			continue;
		}
		for (c = 0, lost = 0; c < KPT_LOST_NR; c++)
			lost += pb.lost[c];
		printf("pbooks id=%u calls=%llu events=%llu recorded=%llu filtered=%llu lost=%llu missed=%llu\n",
		       pb.id, (unsigned long long)pb.calls,
		       (unsigned long long)pb.events,
		       (unsigned long long)pb.recorded,
		       (unsigned long long)pb.filtered, lost,
		       (unsigned long long)(pb.missed + pb.maxactive_missed));
	}
	fflush(stdout);
}

static int fill_info(int fd)
{
	struct kpt_info info;

	if (get_info(fd, &info))
		return -1;
	if (info.magic != KPT_MAGIC || info.version != KPT_VERSION) {
		fprintf(stderr, "kpt_read: module speaks magic 0x%x version %u, expected 0x%x version %u\n",
			info.magic, info.version, KPT_MAGIC, KPT_VERSION);
		return -1;
	}
	st.nr_cpus = info.nr_cpus;
	return 0;
}

static int mode_stream(const char *mode, uint64_t count)
{
	unsigned char *buf = malloc(BUF_SIZE);
	int fd, err = 0;

	if (!buf)
		return 1;
	fd = open_dev((session || nspecs ? O_RDWR : O_RDONLY) |
		      (strcmp(mode, "drain") ? 0 : O_NONBLOCK));
	if (fd < 0 || session_setup(fd) || fill_info(fd))
		return 1;
	setup_signals();

	if (!strcmp(mode, "read")) {
		/* Plain blocking read(): the test of read()'s wait. */
		while (!exiting && st.records + st.lost < count) {
			ssize_t n = read(fd, buf, BUF_SIZE);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fprintf(stderr, "kpt_read: read: %s\n",
					n ? strerror(errno) : "returned 0");
				err = 1;
				break;
			}
			if (account(buf, n)) {
				err = 1;
				break;
			}
		}
		if (exiting && st.records + st.lost < count)
			fprintf(stderr, "kpt_read: timed out after %llu of %llu records\n",
				(unsigned long long)(st.records + st.lost),
				(unsigned long long)count);
	} else if (!strcmp(mode, "follow")) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		while (!exiting) {
			int r = poll(&p, 1, 100);
			ssize_t n;

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				perror("kpt_read: poll");
				err = 1;
				break;
			}
			if (!r)
				continue;
			n = read(fd, buf, BUF_SIZE);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fprintf(stderr, "kpt_read: read: %s\n",
					n ? strerror(errno) : "returned 0");
				err = 1;
				break;
			}
			if (account(buf, n)) {
				err = 1;
				break;
			}
		}
	} else if (!strcmp(mode, "hold")) {
		while (!exiting)
			pause();
	}
	if (!err && drain(fd, buf))
		err = 1;
	summary();
	session_books(fd);
	close(fd);
	free(buf);
	return err;
}

static int mode_killloop(unsigned long n)
{
	unsigned long i, killed = 0, armed = 0;
	int status, fd, devnull;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("kpt_read: fork");
			return 1;
		}
		if (!pid) {
			devnull = open("/dev/null", O_WRONLY);
			if (devnull >= 0)
				dup2(devnull, 1);
			fd = open_dev(O_RDWR);
			if (fd < 0 || session_setup(fd))
				_exit(1);
			raise(SIGKILL);
			_exit(2);
		}
		if (waitpid(pid, &status, 0) < 0) {
			perror("kpt_read: waitpid");
			return 1;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
			killed++;
			armed++;
		}
	}
	printf("killloop n=%lu killed=%lu armed=%lu\n", n, killed, armed);
	return 0;
}

static int mode_maxsessions(void)
{
	struct kpt_session_req req;
	int *fds, made = 0, err = 0, i;

	struct rlimit rl = { 8 * KPT_MAX_SESSIONS, 8 * KPT_MAX_SESSIONS };

	/* the descriptors' own limit (1024) must not be the one met */
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("kpt_read: setrlimit");
		return 1;
	}
	fds = calloc(4 * KPT_MAX_SESSIONS, sizeof(*fds));
	if (!fds)
		return 1;
	while (made < 4 * KPT_MAX_SESSIONS) {
		fds[made] = open_dev(O_RDWR);
		if (fds[made] < 0) {
			printf("maxsessions made=%d open=%s\n", made,
			       errno_name(errno));
			return 1;
		}
		memset(&req, 0, sizeof(req));
		req.ring_bytes = ring_bytes;
		if (ioctl(fds[made], KPT_IOC_SESSION, &req)) {
			err = errno;
			close(fds[made]);
			break;
		}
		made++;
	}
	printf("maxsessions made=%d err=%s\n", made, err ? errno_name(err) : "none");
	for (i = 0; i < made; i++)
		close(fds[i]);
	free(fds);
	return 0;
}

/* One KPT_IOC_SESSION on a new descriptor of @flags: its errno, 0 if ok */
static int session_try(int flags, const struct kpt_session_req *in,
		       int *fdp)
{
	struct kpt_session_req req = *in;
	int fd = open_dev(flags), err = 0;

	if (fd < 0)
		return -1;
	if (ioctl(fd, KPT_IOC_SESSION, &req))
		err = errno;
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return err;
}

static void session_case(const char *name, int err)
{
	printf("case %s err=%s\n", name, err ? errno_name(err) : "ok");
}

static int mode_session_errors(void)
{
	struct kpt_session_req req = { 0 };
	char rec[4096];
	int fd, err;

	session_case("readonly", session_try(O_RDONLY, &req, NULL));
	req.flags = 0x2;
	session_case("flags", session_try(O_RDWR, &req, NULL));
	req.flags = 0;
	req.clock = 3;
	session_case("clock", session_try(O_RDWR, &req, NULL));
	req.clock = 0;
	req.__rsvd[1] = 1;
	session_case("reserved", session_try(O_RDWR, &req, NULL));
	req.__rsvd[1] = 0;
	req.ring_bytes = 512;
	session_case("small", session_try(O_RDWR, &req, NULL));
	req.ring_bytes = 1ULL << 31;
	session_case("large", session_try(O_RDWR, &req, NULL));
	req.ring_bytes = 4096;
	err = session_try(O_RDWR, &req, &fd);
	session_case("first", err);
	if (fd >= 0) {
		session_case("twice", ioctl(fd, KPT_IOC_SESSION, &req) ?
			     errno : 0);
		close(fd);
	}
	fd = open_dev(O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return 1;
	err = read(fd, rec, sizeof(rec)) < 0 ? errno : 0;
	printf("case read_first err=%s\n", err ? errno_name(err) : "ok");
	session_case("after_read", ioctl(fd, KPT_IOC_SESSION, &req) ?
		     errno : 0);
	close(fd);
	return 0;
}

struct race {
	int fd;
	pthread_barrier_t go;
	int sess_err, add_err;
	uint32_t add_id;
};

static void *race_session(void *arg)
{
	struct race *r = arg;
	struct kpt_session_req req = { .ring_bytes = ring_bytes };

	pthread_barrier_wait(&r->go);
	r->sess_err = ioctl(r->fd, KPT_IOC_SESSION, &req) ? errno : 0;
	return NULL;
}

static void *race_add(void *arg)
{
	struct race *r = arg;
	struct kpt_add_req add = { 0 };

	add.line = (uintptr_t)specs[0];
	add.len = strlen(specs[0]);
	pthread_barrier_wait(&r->go);
	r->add_err = ioctl(r->fd, KPT_IOC_ADD, &add) ? errno : 0;
	r->add_id = add.id;
	return NULL;
}

/* The probes of the session of @fd (KPT_IOC_STATS), or -1 */
static int session_probes(int fd, uint32_t *id)
{
	static struct kpt_ring_books rb[MAX_CPUS];
	struct kpt_stats_req req = { .buf = (uintptr_t)rb,
				     .nr_cpus = MAX_CPUS };

	if (ioctl(fd, KPT_IOC_STATS, &req))
		return -1;
	*id = req.session;
	return req.nr_probes;
}

static int mode_race(unsigned long n)
{
	unsigned long i, made = 0, busy = 0, bad = 0;
	char del[128], *name;
	pthread_t t1, t2;
	struct race r;
	uint32_t sid = 0;
	int probes;

	if (!nspecs) {
		fprintf(stderr, "kpt_read: race needs -e SPEC\n");
		return 2;
	}
	name = strchr(specs[0], ':');
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.fd = open_dev(O_RDWR);
		if (r.fd < 0)
			return 1;
		pthread_barrier_init(&r.go, NULL, 2);
		pthread_create(&t1, NULL, race_session, &r);
		pthread_create(&t2, NULL, race_add, &r);
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
		pthread_barrier_destroy(&r.go);
		probes = session_probes(r.fd, &sid);
		if (!r.sess_err && !r.add_err && sid && probes == 1) {
			made++;
		} else if (r.sess_err == EBUSY && !r.add_err && !sid) {
			busy++;
			/* the default session's now: deleted again */
			snprintf(del, sizeof(del), "-%.*s", (int)(name ?
				 strcspn(name, " ") : 0), name ? name : "");
			if (write(r.fd, del, strlen(del)) < 0)
				perror("kpt_read: race: delete");
		} else {
			bad++;
			fprintf(stderr, "kpt_read: race round %lu: session err=%s add err=%s id=%u, the session %u has %d probes\n",
				i, errno_name(r.sess_err), errno_name(r.add_err),
				r.add_id, sid, probes);
		}
		close(r.fd);
	}
	printf("race rounds=%lu session=%lu busy=%lu misrouted=%lu\n", n,
	       made, busy, bad);
	return 0;
}

struct firstuse {
	int fd;
	volatile int written;
};

static void *firstuse_session(void *arg)
{
	struct firstuse *f = arg;
	struct kpt_session_req req = { .ring_bytes = ring_bytes };

	if (ioctl(f->fd, KPT_IOC_SESSION, &req))
		fprintf(stderr, "kpt_read: firstuse: session: %s\n",
			strerror(errno));
	return NULL;
}

static void *firstuse_read(void *arg)
{
	static char buf[4096];
	struct firstuse *f = arg;

	if (read(f->fd, buf, sizeof(buf)) < 0 && errno != EINTR)
		perror("kpt_read: firstuse: read");
	return NULL;
}

static void *firstuse_write(void *arg)
{
	static const char line[] = "# a comment\n";
	struct firstuse *f = arg;

	if (write(f->fd, line, sizeof(line) - 1) < 0)
		perror("kpt_read: firstuse: write");
	f->written = 1;
	return NULL;
}

static void firstuse_wake(int sig)
{
	(void)sig;
}

static int mode_firstuse(unsigned long n)
{
	struct sigaction sa = { .sa_handler = firstuse_wake };	/* EINTR */
	unsigned long i, stuck = 0;
	pthread_t ts, tr, tw;
	struct firstuse f;
	int ms;

	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++) {
		memset(&f, 0, sizeof(f));
		f.fd = open_dev(O_RDWR);
		if (f.fd < 0)
			return 1;
		pthread_create(&ts, NULL, firstuse_session, &f);
		usleep(2000);
		pthread_create(&tr, NULL, firstuse_read, &f);
		pthread_create(&tw, NULL, firstuse_write, &f);
		for (ms = 0; !f.written && ms < 2000; ms += 10)
			usleep(10000);
		if (!f.written) {
			stuck++;
			fprintf(stderr, "kpt_read: firstuse round %lu: write() still blocked after 2 s\n",
				i);
		}
		pthread_join(ts, NULL);
		/* the read waits for records that never come: interrupted */
		while (pthread_tryjoin_np(tr, NULL)) {
			pthread_kill(tr, SIGUSR1);
			usleep(10000);
		}
		pthread_join(tw, NULL);
		close(f.fd);
	}
	printf("firstuse rounds=%lu stuck=%lu\n", n, stuck);
	return 0;
}

static int mode_info(void)
{
	struct kpt_info info;
	int fd = open_dev(O_RDONLY);

	if (fd < 0 || get_info(fd, &info))
		return 1;
	printf("info magic=0x%x version=%u nr_cpus=%u nr_probes=%u ring_bytes=%llu max_record=%u\n",
	       info.magic, info.version, info.nr_cpus, info.nr_probes,
	       (unsigned long long)info.ring_bytes, info.max_record);
	return info.magic != KPT_MAGIC || info.version != KPT_VERSION;
}

static int mode_nonblock(void)
{
	unsigned char buf[4096];
	int fd = open_dev(O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		printf("nonblock %s\n", errno_name(errno));
	else
		printf("nonblock read=%zd\n", n);
	return 0;
}

static int mode_zero(void)
{
	unsigned char buf[8];
	int fd = open_dev(O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 1;
	setup_signals();
	alarm(5);
	n = read(fd, buf, 0);
	if (n < 0)
		printf("zero %s\n", errno_name(errno));
	else
		printf("zero read=%zd\n", n);
	return 0;
}

static int mode_poll(int ms)
{
	struct pollfd p;
	int fd = open_dev(O_RDONLY), r;

	if (fd < 0)
		return 1;
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	r = poll(&p, 1, ms);
	if (r < 0) {
		perror("kpt_read: poll");
		return 1;
	}
	if (!r)
		printf("poll timeout\n");
	else
		printf("poll %s revents=0x%x\n",
		       p.revents & POLLIN ? "POLLIN" : "other", p.revents);
	return 0;
}

/* A child on the next CPU makes one probed call per byte it reads. */
static pid_t pingpong_child(const char *file, int delay_ms, int *tx)
{
	int fds[2], cfd;
	cpu_set_t set;
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid)
		goto parent;
	close(fds[1]);
	CPU_ZERO(&set);
	CPU_SET((sched_getcpu() + 1) % sysconf(_SC_NPROCESSORS_ONLN), &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (read(fds[0], &c, 1) == 1) {
		if (delay_ms)
			usleep(delay_ms * 1000);
		cfd = open(file, O_WRONLY);
		if (cfd < 0 || write(cfd, "1\n", 2) != 2)
			_exit(1);
		close(cfd);
	}
	_exit(0);
parent:
	close(fds[0]);
	*tx = fds[1];
	return pid;
}

/*
 * Every record wakes a poller, however its commit races with the poller
 * going to sleep: each round's one event must end poll() well before its
 * timeout.
 */
static int mode_pingpong(unsigned long rounds, const char *file,
			 int delay_ms, double window_ms)
{
	unsigned char *buf = malloc(BUF_SIZE);
	int fd = open_dev(O_RDONLY | O_NONBLOCK), tx, r;
	unsigned long i, woken = 0, late = 0, after = 0;
	struct kpt_event *ev = (struct kpt_event *)buf;
	struct timespec t0, t1;
	double call_ms;
	ssize_t n;
	struct pollfd p;
	double ms, min_ms = 1e9, max_ms = 0;
	pid_t child;

	if (!buf || fd < 0)
		return 1;
	child = pingpong_child(file, delay_ms, &tx);
	if (child < 0) {
		perror("kpt_read: fork");
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		while (read(fd, buf, BUF_SIZE) > 0)
			;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (write(tx, "x", 1) != 1)
			break;
		p.fd = fd;
		p.events = POLLIN;
		p.revents = 0;
		r = poll(&p, 1, 2000);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1e3 +
		     (t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (ms > max_ms)
			max_ms = ms;
		if (ms < min_ms)
			min_ms = ms;
		/*
		 * When the call was, by its record's time (CLOCK_MONOTONIC
		 * too): with no writer wakes (MS > 0 is for wake_net_only=1),
		 * a call later than @window ms after the poll began may come
		 * after the net's one look, which no wake-up then follows:
		 * such a round is counted "after", not late.
		 */
		n = read(fd, buf, BUF_SIZE);
		call_ms = n >= (ssize_t)sizeof(*ev) ?
			  ((double)ev->ts_ns - (t0.tv_sec * 1e9 + t0.tv_nsec)) / 1e6 :
			  -1;
		/* poll() looks once more when it times out: that is late */
		if (r > 0 && (p.revents & POLLIN) && ms < 1000)
			woken++;
		else if (window_ms && call_ms > window_ms)
			after++;
		else
			late++;
	}
	close(tx);
	waitpid(child, NULL, 0);
	printf("pingpong rounds=%lu woken=%lu late=%lu min_ms=%.0f max_ms=%.0f",
	       i, woken, late, min_ms, max_ms);
	if (window_ms)
		printf(" after=%lu", after);
	printf("\n");
	return 0;
}

static int mode_small(void)
{
	unsigned char *buf = malloc(BUF_SIZE);
	int fd = open_dev(O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (!buf || fd < 0 || fill_info(fd))
		return 1;
	n = read(fd, buf, 8);
	if (n < 0)
		printf("small %s\n", errno_name(errno));
	else
		printf("small read=%zd\n", n);
	/* The refused read must not have consumed the record. */
	n = read(fd, buf, BUF_SIZE);
	if (n > 0 && !account(buf, n) && st.records + st.lost > 0)
		printf("small next=ok records=%llu\n",
		       (unsigned long long)(st.records + st.lost));
	else
		printf("small next=%s\n", n < 0 ? errno_name(errno) : "bad");
	return 0;
}

/*
 * A read into a buffer whose second page is not mapped: it returns whole
 * records that fit before the hole, or EFAULT, and must not consume what
 * it could not copy: the drain after it gets every other record.
 */
static int mode_fault(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *buf = malloc(BUF_SIZE), *map;
	int fd = open_dev(O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (!buf || fd < 0 || fill_info(fd))
		return 1;
	map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || munmap(map + pg, pg)) {
		perror("kpt_read: mmap");
		return 1;
	}
	n = read(fd, map, 2 * pg);
	if (n < 0) {
		printf("fault first=%s\n", errno_name(errno));
	} else {
		printf("fault first=%zd\n", n);
		if (n > pg || account(map, n))
			return 1;
	}
	if (drain(fd, buf))
		return 1;
	summary();
	return 0;
}

static int mode_perm(void)
{
	int fd;

	if (getuid() != 0) {
		fprintf(stderr, "kpt_read: perm must start as root\n");
		return 1;
	}
	/* From uid 0 to 65534 without KEEP_CAPS: every capability goes. */
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("kpt_read: dropping to 65534");
		return 1;
	}
	fd = open(dev, O_RDONLY);
	if (fd < 0)
		printf("perm errno=%s\n", errno_name(errno));
	else
		printf("perm open=ok\n");
	return 0;
}

static int mode_nocap(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i, fd;

	if (syscall(SYS_capget, &hdr, data)) {
		perror("kpt_read: capget");
		return 1;
	}
	for (i = 0; i < 2; i++) {
		unsigned int drop = 0;

		if (CAP_SYS_ADMIN / 32 == i)
			drop |= 1u << (CAP_SYS_ADMIN % 32);
		if (CAP_PERFMON / 32 == i)
			drop |= 1u << (CAP_PERFMON % 32);
		data[i].effective &= ~drop;
		data[i].permitted &= ~drop;
		data[i].inheritable &= ~drop;
	}
	if (syscall(SYS_capset, &hdr, data)) {
		perror("kpt_read: capset");
		return 1;
	}
	fd = open(dev, O_RDONLY);
	if (fd < 0)
		printf("nocap errno=%s\n", errno_name(errno));
	else
		printf("nocap open=ok\n");
	return 0;
}

static int mode_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts)) {
		perror("kpt_read: clock_gettime");
		return 1;
	}
	printf("now ns=%llu\n",
	       (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kpt_read [-d DEV] [-t SEC] [-v] [-c] [-S [-b BYTES] [-o]\n"
		"                [-k auto|mono|local]] [-e SPEC]... MODE [ARG]\n"
		"modes: info | nonblock | zero | poll MS | small | perm | nocap |\n"
		"       read N | follow | drain | hold | fault | now |\n"
		"       killloop N | maxsessions | session_errors | race N |\n"
		"       pingpong N FILE [MS [WIN]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode;
	int opt;

	while ((opt = getopt(argc, argv, "b:cd:e:k:ot:vS")) != -1) {
		switch (opt) {
		case 'S':
			session = 1;
			break;
		case 'b':
			ring_bytes = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			overwrite = 1;
			break;
		case 'k':
			clock_id = !strcmp(optarg, "mono") ? KPT_CLOCK_MONO :
				   !strcmp(optarg, "local") ? KPT_CLOCK_LOCAL :
				   KPT_CLOCK_AUTO;
			break;
		case 'e':
			if (nspecs == MAX_SPECS)
				usage();
			specs[nspecs++] = optarg;
			break;
		case 'd':
			dev = optarg;
			break;
		case 't':
			timeout_sec = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'c':
			tally_ctx = 1;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	mode = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "info"))
		return mode_info();
	if (!strcmp(mode, "now"))
		return mode_now();
	if (!strcmp(mode, "nonblock"))
		return mode_nonblock();
	if (!strcmp(mode, "zero"))
		return mode_zero();
	if (!strcmp(mode, "poll") && optind + 1 < argc)
		return mode_poll(atoi(argv[optind + 1]));
	if (!strcmp(mode, "small"))
		return mode_small();
	if (!strcmp(mode, "pingpong") && optind + 2 < argc)
		return mode_pingpong(strtoul(argv[optind + 1], NULL, 0),
				     argv[optind + 2], optind + 3 < argc ?
				     atoi(argv[optind + 3]) : 0,
				     optind + 4 < argc ?
				     atof(argv[optind + 4]) : 0);
	if (!strcmp(mode, "perm"))
		return mode_perm();
	if (!strcmp(mode, "fault"))
		return mode_fault();
	if (!strcmp(mode, "nocap"))
		return mode_nocap();
	if (!strcmp(mode, "killloop") && optind + 1 < argc)
		return mode_killloop(strtoul(argv[optind + 1], NULL, 0));
	if (!strcmp(mode, "maxsessions"))
		return mode_maxsessions();
	if (!strcmp(mode, "race") && optind + 1 < argc)
		return mode_race(strtoul(argv[optind + 1], NULL, 0));
	if (!strcmp(mode, "firstuse") && optind + 1 < argc)
		return mode_firstuse(strtoul(argv[optind + 1], NULL, 0));
	if (!strcmp(mode, "session_errors"))
		return mode_session_errors();
	if (!strcmp(mode, "read") && optind + 1 < argc)
		return mode_stream(mode, strtoull(argv[optind + 1], NULL, 0));
	if (!strcmp(mode, "follow") || !strcmp(mode, "drain") ||
	    !strcmp(mode, "hold"))
		return mode_stream(mode, 0);
	usage();
	return 2;
}
