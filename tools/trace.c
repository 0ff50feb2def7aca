// SPDX-License-Identifier: GPL-2.0
/*
 * trace: the records of a run. Reads them from /dev/kptrace (device__open)
 * or from a file saved with -w (replay__open), checks them, keeps those of
 * -p and -c, and prints them or saves them raw (struct sink), counting
 * what they say for the summary (struct trace_counts). A stop (a signal,
 * or the end of -d) drains the device: the records committed before it
 * are taken, the later ones counted (struct trace_stop, trace.h).
 * records__take() drains without a stop, all there is (kptrace syscalls
 * --flight).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <uapi/kptrace.h>

#include "event.h"
#include "probes.h"
#include "session.h"
#include "stats.h"
#include "trace.h"

enum drain_state trace_drain;
struct trace_stop trace_stop;
struct trace_counts trace_counts;

/* set by the signal handler: volatile sig_atomic_t is what C allows there */
static volatile sig_atomic_t exiting;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The signals that end a run as Ctrl-C does: whatever ends it, the probe
 * it armed goes and what was read is printed. SIGHUP (a closed terminal
 * or ssh session), SIGQUIT, SIGUSR1 and SIGUSR2 would otherwise kill the
 * tool with its probe left armed (--flight takes SIGUSR1 for its dumps).
 * SIGALRM (-d, and trace__stop()'s wake-up) too.
 */
static const int stop_sigs[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
};

/* stop_sigs[]: held except while the reader waits in read() */
static sigset_t stop_signals;

/* records__take(): a drain without a stop, of all there is */
static bool take_all;

/* The errno of the first failed flush of the text output, 0: none */
static int out_errno;

int trace__flush(FILE *out)
{
	if (!fflush(out) && !ferror(out))
		return 0;
	/* what failed first, not what the last call left in errno */
	if (!out_errno)
		out_errno = errno ? errno : EIO;
	return out_errno;
}

bool trace__stopped(void)
{
	return exiting;
}

void trace__stop(void)
{
	exiting = 1;
	/*
	 * A signal that lands between the test of exiting and the read() is
	 * not seen until read() returns: this alarm interrupts it soon.
	 */
	alarm(1);
}

static void sig_handler(int sig)
{
	(void)sig;
	trace__stop();
}

void signals__add_stops(sigset_t *set)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(set, stop_sigs[i]);
}

int signals__setup(void)
{
	struct sigaction sa;
	size_t i;

	sigemptyset(&stop_signals);
	signals__add_stops(&stop_signals);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: read() returns EINTR */
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++) {
		if (sigaction(stop_sigs[i], &sa, NULL)) {
			fprintf(stderr,
				"kptrace: cannot set signal handlers: %s\n",
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

int signals__on_child(void (*handler)(int))
{
	struct sigaction sa;

	sigaddset(&stop_signals, SIGCHLD);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NOCLDSTOP;	/* no SA_RESTART: as the others */
	if (sigaction(SIGCHLD, &sa, NULL)) {
		fprintf(stderr, "kptrace: cannot set a SIGCHLD handler: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * While records are handled, printed or saved, the stop signals are held:
 * a write() to a full pipe that a signal cut short (EINTR) would lose the
 * output stdio holds. They are let in only while the reader waits.
 */
static void signals__hold(bool hold)
{
	sigprocmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &stop_signals, NULL);
}

int device__open(struct source *src, struct kpt_info *info)
{
	const char *path = src->path;

	src->fd = open(path, (src->rdwr ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (src->fd < 0) {
		switch (errno) {
		case ENOENT:
			fprintf(stderr,
				"kptrace: %s not found: is the kptrace module loaded? (insmod kptrace.ko name=SYMBOL)\n",
				path);
			break;
		case EACCES:
		case EPERM:
			fprintf(stderr,
				"kptrace: opening %s needs root (CAP_PERFMON or CAP_SYS_ADMIN)\n",
				path);
			break;
		case ENXIO:
		case ENODEV:
			fprintf(stderr,
				"kptrace: %s has no driver behind it: is the kptrace module loaded?\n",
				path);
			break;
		case EBUSY:
			fprintf(stderr, "kptrace: %s is busy: is another kptrace reader running?\n",
				path);
			break;
		default:
			fprintf(stderr, "kptrace: cannot open %s: %s\n", path,
				strerror(errno));
			break;
		}
		return -1;
	}

	memset(info, 0, sizeof(*info));
	if (ioctl(src->fd, KPT_IOC_INFO, info)) {
		if (errno == ENOTTY || errno == EINVAL)
			fprintf(stderr,
				"kptrace: %s is not a kptrace device (it does not answer KPT_IOC_INFO)\n",
				path);
		else
			fprintf(stderr, "kptrace: KPT_IOC_INFO on %s failed: %s\n",
				path, strerror(errno));
		return -1;
	}
	if (info->magic != KPT_MAGIC) {
		fprintf(stderr, "kptrace: %s is not a kptrace device (magic 0x%x, expected 0x%x)\n",
			path, info->magic, KPT_MAGIC);
		return -1;
	}
	if (info->version != KPT_VERSION) {
		fprintf(stderr,
			"kptrace: the module speaks record format version %u, this reader only version %d: use the reader built with the module\n",
			info->version, KPT_VERSION);
		return -1;
	}
	src->device = true;
	src->size = -1;
	return 0;
}

int replay__open(struct source *src)
{
	struct stat st;

	if (!strcmp(src->path, "-")) {
		src->path = "standard input";
		src->fd = STDIN_FILENO;
	} else {
		src->fd = open(src->path, O_RDONLY | O_CLOEXEC);
		if (src->fd < 0) {
			fprintf(stderr, "kptrace: cannot open %s: %s\n",
				src->path, strerror(errno));
			return -1;
		}
	}
	src->size = -1;
	if (!fstat(src->fd, &st)) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "kptrace: %s is a directory, not a trace saved with -w\n",
				src->path);
			return -1;
		}
		if (S_ISREG(st.st_mode))
			src->size = st.st_size;
	}
	return 0;
}

int sink__open_file(struct sink *sink)
{
	if (!strcmp(sink->path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr,
				"kptrace: -w - would write binary records to a terminal: redirect stdout\n");
			return -1;
		}
		sink->path = "standard output";
		sink->fd = STDOUT_FILENO;
		return 0;
	}
	/* the records hold kernel addresses: keep them private */
	sink->fd = open(sink->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0600);
	if (sink->fd < 0) {
		fprintf(stderr, "kptrace: cannot create %s: %s\n", sink->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int sink__write(struct sink *sink, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(sink->fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "kptrace: cannot write %s: %s\n",
				sink->path, strerror(errno));
			return -1;
		}
		buf += n;
		len -= n;
		trace_counts.saved += n;
	}
	return 0;
}

/*
 * During a drain, whether @e was recorded after the stop: not printed, but
 * counted. Notes how far its CPU's records were taken.
 */
static bool stop__after(const struct kpt_event *e)
{
	bool after;

	if (trace_drain != DRAIN_ON || e->type == KPT_EV_LOST)
		return false;
	if (!trace_stop.nr_cpus) {
		after = e->ts_ns > trace_stop.ts_ns;
	} else if (e->cpu >= trace_stop.nr_cpus) {
		after = false;	/* a CPU the stats did not list: take it */
	} else {
		after = e->seq > trace_stop.bound[e->cpu];
		if (e->seq > trace_stop.taken[e->cpu])
			trace_stop.taken[e->cpu] = e->seq;
	}
	if (after)
		trace_stop.after++;
	else
		trace_stop.before = true;
	return after;
}

static bool event__wanted(const struct kpt_event *e)
{
	if (trace_env.pid >= 0 && e->pid != trace_env.pid)
		return false;
	if (trace_env.comm[0] && strncmp(e->comm, trace_env.comm, KPT_COMM_LEN))
		return false;
	return true;
}

/*
 * Handles the records of buf[0..len): prints them, or, when saving, packs
 * the ones to keep at the front of buf. Returns the bytes handled: less
 * than len when the last record is cut (a stream goes on with it at the
 * next read) or when garbage was met, which sets *bad. *kept gets the bytes
 * to save; *done says that -n is reached.
 */
static size_t records__handle(struct sink *sink, char *buf, size_t len,
			      size_t *kept, bool *bad, bool *done)
{
	static bool unknown_reported;
	static __u32 last_id = ~0U;	/* the last probe looked up */
	size_t off = 0, out = 0, size;
	const char *why;

	*bad = false;
	while (off < len && !*done) {
		struct kpt_event *e = (struct kpt_event *)(buf + off);
		enum event_check check = event__check(e, len - off, &why);
		bool keep = true;

		if (check == EVENT_PARTIAL)
			break;
		if (check == EVENT_BAD) {
			*bad = true;
			break;
		}
		size = e->size;
		if (stop__after(e)) {
			off += size;
			continue;
		}

		switch (e->type) {
		case KPT_EV_ENTRY:
		case KPT_EV_RETURN:
			if (trace_env.only_probe &&
			    e->probe_id != trace_env.probe_id) {
				trace_counts.filtered++;
				keep = false;
				break;
			}
			if (trace_env.self_pid && e->pid == trace_env.self_pid) {
				trace_counts.own++;
				keep = false;
				break;
			}
			if (!event__wanted(e)) {
				trace_counts.filtered++;
				keep = false;
				break;
			}
			if (e->type == KPT_EV_ENTRY)
				trace_counts.entries++;
			else
				trace_counts.returns++;
			if (trace_env.count && trace_counts.entries +
			    trace_counts.returns >= trace_env.count)
				*done = true;
			break;
		case KPT_EV_LOST: {
			const struct kpt_lost *l = (const void *)e->data;

			trace_counts.lost[l->cause < KPT_LOST_NR ? l->cause :
				    KPT_LOST_NR] += l->count;
			break;
		}
		default:
			trace_counts.unknown++;
			if (!unknown_reported && !trace_env.quiet) {
				unknown_reported = true;
				fprintf(stderr,
					"kptrace: skipping records of unknown type %u (a newer module?)\n",
					e->type);
			}
			/* saved as they came, but there is nothing to print */
			keep = sink->fd >= 0;
			break;
		}

		if (keep) {
			if (sink->fd < 0 && sink->print) {
				sink->print(e, sink->priv);
			} else if (sink->fd < 0) {
				event__print(&sink->fmt, e);
			} else {
				/* learns probes added since: for FILE.probes */
				if ((e->type == KPT_EV_ENTRY ||
				     e->type == KPT_EV_RETURN) &&
				    e->probe_id != last_id) {
					probes__find(sink->fmt.probes,
						     e->probe_id);
					last_id = e->probe_id;
				}
				/* may overwrite e's header: size is read first */
				if (out != off)
					memmove(buf + out, e, size);
			}
			out += size;
		}
		off += size;
	}
	*kept = out;
	return off;
}

static void report_bad(const struct source *src, size_t at, size_t len,
		       const char *why)
{
	unsigned long long rest;

	trace_counts.bad++;
	if (src->device) {
		rest = len - at;
		trace_counts.dropped += rest;
		if (trace_counts.bad > 1)
			return;
		fprintf(stderr,
			"kptrace: bad record from %s (%s) at offset %zu of a %zu-byte read: dropped its last %llu bytes\n",
			src->path, why, at, len, rest);
		return;
	}
	if (src->size >= 0)
		rest = src->size - (src->offset + at);
	else
		rest = len - at;
	trace_counts.dropped += rest;
	fprintf(stderr, "kptrace: %s: bad record (%s) at offset %llu: dropped the %s%llu bytes\n",
		src->path, why, src->offset + at,
		src->size >= 0 ? "remaining " : "rest of the input, at least ",
		rest);
}

/*
 * read() from @src, the stop signals let in for the wait when @wait: a
 * signal then ends the read with EINTR, unless it came after the test of
 * exiting below (then the handler's alarm(1) does, a second later).
 */
static ssize_t source__read(const struct source *src, char *buf, size_t len,
			    bool wait)
{
	ssize_t n = -1;
	int err = EINTR;

	if (!wait)
		return read(src->fd, buf, len);
	signals__hold(false);
	if (!exiting) {
		n = read(src->fd, buf, len);
		err = errno;
	}
	signals__hold(true);
	errno = err;
	return n;
}

/*
 * trace_env.self_pid: a read that brought records of the reader itself and
 * less than SELF_PAUSE_BYTES is followed by a pause of SELF_PAUSE_NS, the
 * stop signals let in, so that the reader does not read its own read()s
 * back one by one, never sleeping.
 */
#define SELF_PAUSE_BYTES	(64 * 1024)
#define SELF_PAUSE_NS		(50 * 1000 * 1000)

static void self__pause(void)
{
	struct timespec ts = { 0, SELF_PAUSE_NS };

	signals__hold(false);
	if (!exiting)
		nanosleep(&ts, NULL);
	signals__hold(true);
}

int source__stats(const struct source *src, struct stats *st)
{
	struct session dflt;

	if (src->session)
		return session__stats(src->session, st) ? -1 : 0;
	memset(st, 0, sizeof(*st));
	if (src->stats && !stats__read_from(src->stats, st))
		return 0;
	/*
	 * No stats file (debugfs not mounted): the default session's books
	 * through the device itself, so that a stop is bound by records,
	 * not by a time the records' clock may not share (clock=local)
	 */
	if (!src->device || src->fd < 0)
		return -1;
	session__default(&dflt, src->fd, src->path);
	return session__stats(&dflt, st) ? -1 : 0;
}

/*
 * The bound of the stop, from the books read now (source__stats()): each
 * CPU's count of committed records, and how far its records were taken
 * (all of them when none is pending). Without books, the time bound alone.
 */
static void stop__bound(const struct source *src)
{
	struct stats st;
	unsigned int cpu;

	if (source__stats(src, &st))
		return;
	if (st.nr_cpus)
		trace_stop.bound = calloc(2 * (size_t)st.nr_cpus,
					  sizeof(__u64));
	if (trace_stop.bound) {
		trace_stop.taken = trace_stop.bound + st.nr_cpus;
		trace_stop.nr_cpus = st.nr_cpus;
		for (cpu = 0; cpu < st.nr_cpus; cpu++) {
			const struct stats_cpu *c = &st.cpu[cpu];

			trace_stop.bound[cpu] = c->recorded +
					  c->lost[KPT_LOST_OVERWRITTEN];
			trace_stop.taken[cpu] = trace_stop.bound[cpu] -
					  (c->pending < trace_stop.bound[cpu] ?
					   c->pending : trace_stop.bound[cpu]);
		}
	}
	stats__free(&st);
}

/*
 * A stop: take no new events, but those committed now (struct stop).
 * Reads no longer wait (O_NONBLOCK); the drain ends when they are all
 * taken, at the first EAGAIN, or at @end.
 */
static int drain__start(const struct source *src, struct timespec *end)
{
	int flags;

	alarm(0);	/* the read it would break waits no more */
	clock_gettime(CLOCK_MONOTONIC, end);
	trace_stop.ts_ns = end->tv_sec * 1000000000ULL + end->tv_nsec;
	if (take_all)
		trace_stop.ts_ns = ~0ULL;	/* no record is after it */
	else
		stop__bound(src);
	flags = fcntl(src->fd, F_GETFL);
	if (flags < 0 || fcntl(src->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		fprintf(stderr, "kptrace: cannot drain %s: fcntl(O_NONBLOCK): %s\n",
			src->path, strerror(errno));
		return -1;
	}
	end->tv_sec += DRAIN_SECONDS;
	trace_drain = DRAIN_ON;
	return 0;
}

/*
 * Records committed before the stop that the drain has not taken: while
 * some are, it goes on. With the time bound, until a read brings none.
 */
unsigned long long drain__left(void)
{
	unsigned long long left = 0;
	unsigned int cpu;

	if (!trace_stop.nr_cpus)
		return trace_stop.before;
	for (cpu = 0; cpu < trace_stop.nr_cpus; cpu++)
		if (trace_stop.taken[cpu] < trace_stop.bound[cpu])
			left += trace_stop.bound[cpu] - trace_stop.taken[cpu];
	return left;
}

/* Whether the drain must stop before it took all it was to take. */
static bool drain__cut(const struct timespec *end)
{
	struct timespec now;
	sigset_t pending;

	/*
	 * held since the drain began: a second Ctrl-C waits here (a take
	 * without a stop leaves the first one to the stop that follows)
	 */
	if (exiting && !sigpending(&pending) &&
	    (sigismember(&pending, SIGINT) ||
	     sigismember(&pending, SIGTERM))) {
		trace_drain = DRAIN_SIGNAL;
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > end->tv_sec ||
	    (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec)) {
		trace_drain = DRAIN_TIMEOUT;
		return true;
	}
	return false;
}

/*
 * The records of a device read that -n left unhandled: the module counts
 * them as read, so the summary counts them as left unread; the losses
 * they report are counted as lost.
 */
static void records__count_rest(const char *buf, size_t len)
{
	const char *why;
	size_t off = 0;

	while (off < len) {
		const struct kpt_event *e = (const void *)(buf + off);
		const struct kpt_lost *l = (const void *)e->data;

		if (event__check(e, len - off, &why) != EVENT_OK)
			break;
		if (e->type == KPT_EV_LOST)
			trace_counts.lost[l->cause < KPT_LOST_NR ? l->cause :
				    KPT_LOST_NR] += l->count;
		else
			trace_counts.past_count++;
		off += e->size;
	}
}

/*
 * Reads, checks and handles records until the end of a replayed file, or
 * -n, or a stop (a signal, or the end of -d). A stop drains the device:
 * the records committed before it are read and handled, without waiting
 * for more; those recorded after it that come in the same reads are
 * counted (trace_stop.after), not handled. Returns 0, or -1 on an error
 * or bad data.
 */
int records__pump(struct source *src, struct sink *sink, char *buf,
		  size_t buf_size)
{
	size_t have = 0;	/* bytes of a cut record, kept from last read */
	struct timespec drain_end;
	bool done = false;
	int ret = 0;

	signals__hold(true);
	while (!done) {
		unsigned long long own = trace_counts.own;
		const char *why = NULL;
		size_t used, kept;
		ssize_t n;
		bool bad;

		if (exiting && !src->device)
			break;		/* a file has nothing to drain */
		if ((exiting || take_all) && trace_drain == DRAIN_OFF &&
		    drain__start(src, &drain_end))
			return -1;
		if (trace_drain == DRAIN_ON && drain__cut(&drain_end))
			break;

		n = source__read(src, buf + have, buf_size - have,
				 trace_drain == DRAIN_OFF);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && trace_drain == DRAIN_ON) {
				trace_drain = DRAIN_EMPTY;
				break;
			}
			if (errno == EINVAL && src->device)
				fprintf(stderr,
					"kptrace: read of %s failed: its next record is larger than the %zu-byte buffer\n",
					src->path, buf_size);
			else
				fprintf(stderr, "kptrace: read of %s failed: %s\n",
					src->path, strerror(errno));
			return -1;
		}
		if (!n) {
			if (have) {
				fprintf(stderr,
					"kptrace: %s: truncated record at offset %llu: dropped the last %zu bytes\n",
					src->path, src->offset, have);
				trace_counts.bad++;
				trace_counts.dropped += have;
				ret = -1;
			}
			break;
		}
		have += n;

		trace_stop.before = false;
		used = records__handle(sink, buf, have, &kept, &bad, &done);
		if (sink->fd >= 0 && kept && sink__write(sink, buf, kept))
			return -1;
		/*
		 * A device returns whole records: a cut one is garbage too.
		 * In a stream, a cut record goes on in the next read, unless
		 * it does not even fit in the buffer.
		 */
		if (bad) {
			event__check(buf + used, have - used, &why);
		} else if (!done && used < have && src->device) {
			bad = true;
			why = "record cut at the end of the read";
		} else if (!done && used < have && have == buf_size && !used) {
			bad = true;
			why = "record larger than the read buffer";
		}
		if (bad) {
			report_bad(src, used, have, why);
			if (!src->device)
				return -1;
			ret = -1;
			have = 0;
			continue;
		}
		if (src->device) {
			if (done)
				records__count_rest(buf + used, have - used);
			have = 0;
			/* a batch at a time, so pipes see events promptly */
			if (sink->fd < 0)
				trace__flush(sink->fmt.out ? sink->fmt.out :
					     stdout);
			/*
			 * At least one read: it brings the loss reports
			 * first, even when no record was left.
			 */
			if (trace_drain == DRAIN_ON && !drain__left()) {
				trace_drain = DRAIN_EMPTY;
				break;
			}
			if (trace_drain == DRAIN_OFF && !done &&
			    trace_counts.own != own && n < SELF_PAUSE_BYTES)
				self__pause();
		} else {
			memmove(buf, buf + used, have - used);
			src->offset += used;
			have -= used;
		}
	}
	return ret;
}

int records__take(struct source *src, struct sink *sink, char *buf,
		  size_t buf_size)
{
	int ret;

	trace_drain = DRAIN_OFF;
	trace_stop.before = false;
	take_all = true;
	ret = records__pump(src, sink, buf, buf_size);
	take_all = false;
	return ret;
}
