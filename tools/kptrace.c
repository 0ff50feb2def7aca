// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: reads the records of the kptrace module from /dev/kptrace and
 * prints them as text or JSON lines, saves them raw (-w) or decodes a saved
 * file (-r), and prints the module's statistics (-s).
 *
 * Data goes to stdout, diagnostics and the summary to stderr. Exit status:
 * 0 ok, 1 error, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
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
#include "hist.h"
#include "kbtf.h"
#include "ksyms.h"
#include "paths.h"
#include "probecmd.h"
#include "probes.h"
#include "pstats.h"
#include "stats.h"

#define KPTRACE_VERSION	"0.1"

#define READ_BUF_SIZE	(1024 * 1024)	/* one read(): many records */
#define OUT_BUF_SIZE	(1024 * 1024)	/* stdio buffer of stdout */

#define EXIT_USAGE	2

/* After a stop signal or -d, how long the reader drains the rings. */
#define DRAIN_SECONDS	2

static struct env {
	unsigned long long count;	/* -n: events to print, 0: all */
	unsigned int duration;		/* -d: seconds, 0: until stopped */
	long long pid;			/* -p: tgid to keep, -1: all */
	char comm[KPT_COMM_LEN];	/* -c: comm to keep, "": all */
	bool json;
	bool stats;
	bool no_stack;
	bool quiet;
	bool trace_opts;		/* an option other than -s and -q */
	const char *save_path;		/* -w */
	const char *replay_path;	/* -r */
} env = {
	.pid = -1,
};

/* set by the signal handler: volatile sig_atomic_t is what C allows there */
static volatile sig_atomic_t exiting;

/* SIGINT, SIGTERM, SIGALRM: held except while the reader waits in read() */
static sigset_t stop_signals;

/* How the last records were taken from the device after a stop. */
static enum drain_state {
	DRAIN_OFF,	/* no stop signal (yet), or a replayed file */
	DRAIN_ON,	/* non-blocking reads of what the rings held */
	DRAIN_EMPTY,	/* until none was left: all of it was taken */
	DRAIN_TIMEOUT,	/* cut after DRAIN_SECONDS */
	DRAIN_SIGNAL,	/* cut by a second SIGINT or SIGTERM */
} drain;

/*
 * The stop (a signal, or the end of -d), and which records it lets in:
 * those committed when the reader took it. Each record of a ring carries
 * its CPU's record number (seq, from 1), and the stats file gives each
 * CPU's count of committed records (cpuN.recorded + cpuN.lost.overwritten):
 * the seq of its last record. So a record of CPU c came before the stop
 * when its seq is at most bound[c], the count at the stop; the drain has
 * them all when each CPU's records reached bound[c] (taken[c]). Without the
 * stats file, the bound is the time: ts_ns (CLOCK_MONOTONIC) at most that
 * of the stop, and the drain ends at the first read with nothing older.
 * Loss reports (seq 0) are always taken: they count what is gone.
 */
static struct stop {
	__u64 ts_ns;		/* CLOCK_MONOTONIC when the reader stopped */
	unsigned int nr_cpus;	/* of bound[] and taken[]; 0: the time bound */
	__u64 *bound;		/* per CPU: the seq of its last record then */
	__u64 *taken;		/* per CPU: the last seq taken since */
	bool before;		/* the last read had records before the stop */
	unsigned long long after;	/* read, but recorded after the stop */
} stop;

/* What the records said, for the summary. */
static struct counts {
	unsigned long long entries;
	unsigned long long returns;
	unsigned long long filtered;
	unsigned long long lost[KPT_LOST_NR + 1];	/* last: unknown cause */
	unsigned long long unknown;	/* records of unknown type skipped */
	unsigned long long bad;		/* bad records met */
	unsigned long long dropped;	/* bytes dropped with them */
	unsigned long long saved;	/* bytes written by -w */
	unsigned long long past_count;	/* read from the device after -n */
} counts;

/* Where records come from and go to, and what a buffer of them needs. */
struct source {
	const char *path;
	int fd;
	bool device;		/* whole records per read(), else a stream */
	off_t size;		/* of a replayed regular file, else -1 */
	unsigned long long offset;	/* of buf[0] in a replayed stream */
	FILE *stats;		/* the module's stats, kept open, or NULL */
};

struct sink {
	const char *path;	/* -w */
	int fd;			/* -w, else -1: print */
	struct event_fmt fmt;
};

static const char usage_text[] =
"Usage: kptrace [OPTION]...\n"
"       kptrace probe add [--max N] [--dry-run] [-f FILE] SPEC...\n"
"       kptrace probe del NAME...\n"
"       kptrace probe list | clear\n"
"       kptrace hist [OPTION]... [NAME]\n"
"Print the events recorded by the kptrace kernel module: entries of the\n"
"probed functions with their arguments and call trace, returns with their\n"
"value, latency and arguments, and reports of lost events; or add and\n"
"remove probes while the module runs.\n"
"\n"
"  -n, --count=COUNT      stop after COUNT events (entries and returns)\n"
"  -d, --duration=SECS    stop after SECS seconds\n"
"  -p, --pid=PID          only the events of process PID (its tgid)\n"
"  -c, --comm=COMM        only the events whose comm is exactly COMM\n"
"                         (the kernel keeps its first 15 bytes)\n"
"  -j, --json             print one JSON object per line\n"
"      --no-stack         do not print call traces\n"
"  -w, --write=FILE       save the raw records to FILE ('-': stdout)\n"
"                         instead of printing them: the fastest mode;\n"
"                         the probes listing goes to FILE.probes\n"
"  -r, --read=FILE        decode FILE, saved with -w, instead of reading\n"
"                         /dev/kptrace ('-': stdin); needs no module;\n"
"                         names and types come from FILE.probes if there\n"
"  -s, --stats            print the module's statistics and exit; with\n"
"                         other options, trace and print them at the end\n"
"  -q, --quiet            no banner, no notes, no summary at exit\n"
"  -h, --help             print this help and exit\n"
"  -V, --version          print the version and exit\n"
"\n"
"At exit, a summary and the per-probe counters of probe_stats (calls,\n"
"recorded, filtered, lost by cause, misses, string faults) go to stderr.\n"
"Stops on Ctrl-C (SIGINT) or SIGTERM, and at the end of -d: it then takes\n"
"no new events, but first prints every one committed before the stop (for\n"
"at most 2 s; a second Ctrl-C cuts that short). The summary counts what it\n"
"printed, filtered out, lost, and left unread (recorded before the stop,\n"
"after it, past -n). Opening /dev/kptrace needs root (CAP_PERFMON or\n"
"CAP_SYS_ADMIN); -r needs neither root nor the module.\n"
"\n"
"PROBES AT RUN TIME:\n"
"  probe add SPEC...      add probes, in the language of ftrace's\n"
"                         kprobe_events (see README.md):\n"
"                           p[:[GRP/]NAME] SYM[+OFFS]|MOD:SYM|0xADDR [ARG]... [if COND]\n"
"                           r[MAXACTIVE][:[GRP/]NAME] SYM|MOD:SYM [ARG]... [if COND]\n"
"                           b[MAXACTIVE][:[GRP/]NAME] SYM|MOD:SYM [ARG]...  (entry\n"
"                           and return records, as name= with retprobe=1)\n"
"                           ARG: [NAME=]FETCH[:TYPE], FETCH: %REG $argN $stackN\n"
"                           $stack $retval $comm @ADDR @SYM +|-[u]OFFS(FETCH)\n"
"                           TYPE: u8..u64 s8..s64 x8..x64 string ustring str symbol\n"
"                         Each SPEC is checked here first (an error shows a\n"
"                         caret under its column), then written to\n"
"                         /dev/kptrace; a refusal prints the module's reason\n"
"                         (error_log) and exits 1. Beyond the module:\n"
"                         - a parameter's name (from BTF, /sys/kernel/btf)\n"
"                           is NAME=$argN with the C type's signedness and\n"
"                           size (int: s32, pointers: x64); NAME:TYPE keeps\n"
"                           TYPE; an untyped $retval of r gets the return type\n"
"                         - @SYM becomes @0xADDR (from /proc/kallsyms)\n"
"                         - a glob target (vfs_*, MOD:ext4_*) adds one probe\n"
"                           per function of available_filter_functions, named\n"
"                           NAME_SYM; blacklisted, notrace/inlined and\n"
"                           ambiguous (duplicate-name) symbols are skipped\n"
"                           with the reason\n"
"      --max=N            refuse a glob of more than N functions (100)\n"
"  -n, --dry-run          print the lines instead of writing them\n"
"  -f, --file=FILE        the SPECs of FILE, one per line ('-': stdin),\n"
"                         e.g. a saved probes listing\n"
"  probe del NAME...      remove probes ([GRP/]NAME; a glob removes every\n"
"                         listed probe it matches)\n"
"  probe list             the probes listing (replayable with probe add -f)\n"
"  probe clear            remove every listed probe\n"
"\n"
"AGGREGATIONS (IN THE KERNEL):\n"
"  A SPEC may end with hist:keys=KEY[,KEY]...[:vals=...][:sort=...][:size=N]\n"
"  (ftrace's hist triggers): the module counts instead of recording.\n"
"  hist [NAME]            list the aggregations, or print NAME's table as\n"
"                         histograms, a table, JSON, folded stacks, a flame\n"
"                         graph SVG or a Prometheus textfile; -i SECS for\n"
"                         intervals (see kptrace hist --help)\n"
"\n"
"EXAMPLES:\n"
"    kptrace                    # trace until Ctrl-C\n"
"    kptrace -n 100 -j          # 100 events as JSON lines\n"
"    kptrace -p 1234 -d 5       # only process 1234, for 5 seconds\n"
"    kptrace -c ls --no-stack   # only commands named ls, no call traces\n"
"    kptrace -w trace.bin       # save the raw records, then...\n"
"    kptrace -r trace.bin       # ...decode them, on any machine\n"
"    kptrace --stats            # the module's counters, per probe too\n"
"    kptrace probe add 'p do_sys_openat2 dfd filename:ustring'\n"
"                               # names and types from BTF\n"
"    kptrace probe add 'r:open do_sys_openat2 filename:ustring $retval if retval < 0'\n"
"                               # failing opens: one record at return\n"
"    kptrace probe add 'p:vfs vfs_*' --max 50\n"
"                               # a probe per vfs_ function\n"
"    kptrace probe add 'p:rd vfs_read file count j=@jiffies:u64'\n"
"                               # a kernel variable, by name\n"
"    kptrace probe add -n 'p kpt_test:kpt_test_func a f'\n"
"                               # print what would be written\n"
"    kptrace probe list         # what is probed, hits and misses\n"
"    kptrace probe del vfs_*    # remove the vfs_ probes\n"
"    kptrace probe clear        # remove them all\n"
"    kptrace probe add 'r:lat do_sys_openat2 hist:keys=comm,lat_ns.loglin'\n"
"    kptrace hist lat           # latency histograms per command\n"
"\n"
"ENVIRONMENT (for tests):\n"
"    KPTRACE_DEVICE, KPTRACE_KALLSYMS, KPTRACE_PROBES, KPTRACE_STATS,\n"
"    KPTRACE_PROBE_STATS, KPTRACE_ERROR_LOG, KPTRACE_BTF_DIR,\n"
"    KPTRACE_FILTER_FUNCTIONS, KPTRACE_BLACKLIST and KPTRACE_HIST_DIR\n"
"    replace /dev/kptrace,\n"
"    /proc/kallsyms, " DEBUGFS_KPT "{probes,stats,\n"
"    probe_stats,error_log}, " BTF_DIR ",\n"
"    available_filter_functions, the kprobes blacklist and\n"
"    " HIST_DIR ".\n"
"\n"
"Exit status: 0 ok, 1 error, 2 usage error.\n";

enum {
	OPT_NO_STACK = 256,
};

static const struct option long_opts[] = {
	{ "count",	required_argument,	NULL, 'n' },
	{ "duration",	required_argument,	NULL, 'd' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "comm",	required_argument,	NULL, 'c' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "no-stack",	no_argument,		NULL, OPT_NO_STACK },
	{ "write",	required_argument,	NULL, 'w' },
	{ "read",	required_argument,	NULL, 'r' },
	{ "stats",	no_argument,		NULL, 's' },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 },
};

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("kptrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'kptrace --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/* A decimal in [min, max], nothing else: no sign, no spaces, no suffix. */
static bool parse_ull(const char *s, unsigned long long min,
		      unsigned long long max, unsigned long long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*val = strtoull(s, &end, 10);
	return !errno && !*end && *val >= min && *val <= max;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	unsigned long long val;
	int opt;

	opterr = 0;	/* our own messages, below */
	while ((opt = getopt_long(argc, argv, ":n:d:p:c:jw:r:sqhV", long_opts,
				  NULL)) != -1) {
		if (opt != 's' && opt != 'q')
			env.trace_opts = true;
		switch (opt) {
		case 'n':
			if (!parse_ull(optarg, 1, ~0ULL, &val))
				return usage_error("invalid count '%s': a number of events > 0",
						   optarg);
			env.count = val;
			break;
		case 'd':
			if (!parse_ull(optarg, 1, 365 * 24 * 3600, &val))
				return usage_error("invalid duration '%s': a number of seconds > 0",
						   optarg);
			env.duration = val;
			break;
		case 'p':
			if (!parse_ull(optarg, 0, 0xffffffffULL, &val))
				return usage_error("invalid pid '%s'", optarg);
			env.pid = val;
			break;
		case 'c':
			if (!*optarg)
				return usage_error("empty comm");
			/* as the kernel truncates it */
			snprintf(env.comm, sizeof(env.comm), "%s", optarg);
			break;
		case 'j':
			env.json = true;
			break;
		case OPT_NO_STACK:
			env.no_stack = true;
			break;
		case 'w':
			env.save_path = optarg;
			break;
		case 'r':
			env.replay_path = optarg;
			break;
		case 's':
			env.stats = true;
			break;
		case 'q':
			env.quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("kptrace %s (record format version %d)\n",
			       KPTRACE_VERSION, KPT_VERSION);
			return 0;
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt && argv[optind - 1][1] != '-')
				return usage_error("invalid option '-%c'",
						   optopt);
			return usage_error("invalid option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (env.save_path && (env.json || env.no_stack))
		return usage_error("-j and --no-stack are for printing: -w saves the raw records");
	if (env.stats && env.replay_path)
		return usage_error("-s shows the module's statistics: it does not apply to -r");
	return -1;
}

static void sig_handler(int sig)
{
	(void)sig;
	exiting = 1;
	/*
	 * A signal that lands between the test of exiting and the read() is
	 * not seen until read() returns: this alarm interrupts it soon.
	 */
	alarm(1);
}

static int signals__setup(void)
{
	struct sigaction sa;

	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGALRM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: read() returns EINTR */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGALRM, &sa, NULL)) {
		fprintf(stderr, "kptrace: cannot set signal handlers: %s\n",
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

static int device__open(struct source *src, struct kpt_info *info)
{
	const char *path = src->path;

	src->fd = open(path, O_RDONLY | O_CLOEXEC);
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

static int replay__open(struct source *src)
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

static int sink__open_file(struct sink *sink)
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
		counts.saved += n;
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

	if (drain != DRAIN_ON || e->type == KPT_EV_LOST)
		return false;
	if (!stop.nr_cpus) {
		after = e->ts_ns > stop.ts_ns;
	} else if (e->cpu >= stop.nr_cpus) {
		after = false;	/* a CPU the stats did not list: take it */
	} else {
		after = e->seq > stop.bound[e->cpu];
		if (e->seq > stop.taken[e->cpu])
			stop.taken[e->cpu] = e->seq;
	}
	if (after)
		stop.after++;
	else
		stop.before = true;
	return after;
}

static bool event__wanted(const struct kpt_event *e)
{
	if (env.pid >= 0 && e->pid != env.pid)
		return false;
	if (env.comm[0] && strncmp(e->comm, env.comm, KPT_COMM_LEN))
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
	size_t off = 0, out = 0;
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
		if (stop__after(e)) {
			off += e->size;
			continue;
		}

		switch (e->type) {
		case KPT_EV_ENTRY:
		case KPT_EV_RETURN:
			if (!event__wanted(e)) {
				counts.filtered++;
				keep = false;
				break;
			}
			if (e->type == KPT_EV_ENTRY)
				counts.entries++;
			else
				counts.returns++;
			if (env.count && counts.entries + counts.returns >= env.count)
				*done = true;
			break;
		case KPT_EV_LOST: {
			const struct kpt_lost *l = (const void *)e->data;

			counts.lost[l->cause < KPT_LOST_NR ? l->cause :
				    KPT_LOST_NR] += l->count;
			break;
		}
		default:
			counts.unknown++;
			if (!unknown_reported && !env.quiet) {
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
			if (sink->fd < 0) {
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
				if (out != off)
					memmove(buf + out, e, e->size);
			}
			out += e->size;
		}
		off += e->size;
	}
	*kept = out;
	return off;
}

static void report_bad(const struct source *src, size_t at, size_t len,
		       const char *why)
{
	unsigned long long rest;

	counts.bad++;
	if (src->device) {
		rest = len - at;
		counts.dropped += rest;
		if (counts.bad > 1)
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
	counts.dropped += rest;
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
 * The bound of the stop, from the stats file read now: each CPU's count of
 * committed records, and how far its records were taken (all of them when
 * none is pending). Without the file, the time bound alone.
 */
static void stop__bound(const struct source *src)
{
	struct stats st;
	unsigned int cpu;

	if (!src->stats || stats__read_from(src->stats, &st))
		return;
	if (st.nr_cpus)
		stop.bound = calloc(2 * (size_t)st.nr_cpus, sizeof(__u64));
	if (stop.bound) {
		stop.taken = stop.bound + st.nr_cpus;
		stop.nr_cpus = st.nr_cpus;
		for (cpu = 0; cpu < st.nr_cpus; cpu++) {
			const struct stats_cpu *c = &st.cpu[cpu];

			stop.bound[cpu] = c->recorded +
					  c->lost[KPT_LOST_OVERWRITTEN];
			stop.taken[cpu] = stop.bound[cpu] -
					  (c->pending < stop.bound[cpu] ?
					   c->pending : stop.bound[cpu]);
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
	stop.ts_ns = end->tv_sec * 1000000000ULL + end->tv_nsec;
	stop__bound(src);
	flags = fcntl(src->fd, F_GETFL);
	if (flags < 0 || fcntl(src->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		fprintf(stderr, "kptrace: cannot drain %s: fcntl(O_NONBLOCK): %s\n",
			src->path, strerror(errno));
		return -1;
	}
	end->tv_sec += DRAIN_SECONDS;
	drain = DRAIN_ON;
	return 0;
}

/*
 * Records committed before the stop that the drain has not taken: while
 * some are, it goes on. With the time bound, until a read brings none.
 */
static unsigned long long drain__left(void)
{
	unsigned long long left = 0;
	unsigned int cpu;

	if (!stop.nr_cpus)
		return stop.before;
	for (cpu = 0; cpu < stop.nr_cpus; cpu++)
		if (stop.taken[cpu] < stop.bound[cpu])
			left += stop.bound[cpu] - stop.taken[cpu];
	return left;
}

/* Whether the drain must stop before it took all it was to take. */
static bool drain__cut(const struct timespec *end)
{
	struct timespec now;
	sigset_t pending;

	/* held since the drain began: a second Ctrl-C waits here */
	if (!sigpending(&pending) && (sigismember(&pending, SIGINT) ||
				      sigismember(&pending, SIGTERM))) {
		drain = DRAIN_SIGNAL;
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > end->tv_sec ||
	    (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec)) {
		drain = DRAIN_TIMEOUT;
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
			counts.lost[l->cause < KPT_LOST_NR ? l->cause :
				    KPT_LOST_NR] += l->count;
		else
			counts.past_count++;
		off += e->size;
	}
}

/*
 * Reads, checks and handles records until the end of a replayed file, or
 * -n, or a stop (a signal, or the end of -d). A stop drains the device:
 * the records committed before it are read and handled, without waiting
 * for more; those recorded after it that come in the same reads are
 * counted (stop.after), not handled. Returns 0, or -1 on an error or bad
 * data.
 */
static int records__pump(struct source *src, struct sink *sink, char *buf,
			 size_t buf_size)
{
	size_t have = 0;	/* bytes of a cut record, kept from last read */
	struct timespec drain_end;
	bool done = false;
	int ret = 0;

	signals__hold(true);
	while (!done) {
		const char *why = NULL;
		size_t used, kept;
		ssize_t n;
		bool bad;

		if (exiting && !src->device)
			break;		/* a file has nothing to drain */
		if (exiting && drain == DRAIN_OFF &&
		    drain__start(src, &drain_end))
			return -1;
		if (drain == DRAIN_ON && drain__cut(&drain_end))
			break;

		n = source__read(src, buf + have, buf_size - have,
				 drain == DRAIN_OFF);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && drain == DRAIN_ON) {
				drain = DRAIN_EMPTY;
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
				counts.bad++;
				counts.dropped += have;
				ret = -1;
			}
			break;
		}
		have += n;

		stop.before = false;
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
				fflush(stdout);
			/*
			 * At least one read: it brings the loss reports
			 * first, even when no record was left.
			 */
			if (drain == DRAIN_ON && !drain__left()) {
				drain = DRAIN_EMPTY;
				break;
			}
		} else {
			memmove(buf, buf + used, have - used);
			src->offset += used;
			have -= used;
		}
	}
	return ret;
}

static const char *stats__path(void)
{
	return path_from_env("KPTRACE_STATS", STATS_PATH);
}

static int stats__show(FILE *f)
{
	const char *path = stats__path();
	struct stats stats;
	int err;

	err = stats__read(path, &stats);
	if (err) {
		if (err == -ENOENT)
			fprintf(stderr,
				"kptrace: %s not found: is the kptrace module loaded and debugfs mounted? (mount -t debugfs none /sys/kernel/debug)\n",
				path);
		else if (err == -EACCES || err == -EPERM)
			fprintf(stderr, "kptrace: reading %s needs root\n",
				path);
		else
			fprintf(stderr, "kptrace: cannot read %s: %s\n", path,
				strerror(-err));
		return err;
	}
	stats__print(f, &stats);
	stats__free(&stats);
	return 0;
}

/*
 * The module's counters when the reader began (@start) and ended (@end),
 * either NULL when debugfs could not be read: what the summary needs.
 */
struct books {
	const struct stats *start;
	const struct stats *end;
};

/*
 * Records the module still holds, those the drain read but were recorded
 * after the stop, and those -n left in the last read.
 */
static unsigned long long books__unread(const struct books *b)
{
	return (b->end ? b->end->pending : 0) + stop.after + counts.past_count;
}

/*
 * Of those, the records committed before the stop that a cut drain left
 * (exact with the seq bound, unless overwrite=1 destroyed some since: then
 * at most what the module still holds), or 0.
 */
static unsigned long long books__unread_before(const struct books *b)
{
	unsigned long long left;

	if ((drain != DRAIN_TIMEOUT && drain != DRAIN_SIGNAL) ||
	    !stop.nr_cpus || !b->end)
		return 0;
	left = drain__left();
	return left < b->end->pending ? left : b->end->pending;
}

/*
 * Every record the module gave this reader was printed (or saved), filtered
 * out, or dropped past -n; the module counts them all in `read'. A
 * difference means that another reader (a cat of the trace file) took some.
 */
static void books__check(const struct books *b)
{
	unsigned long long taken, read;

	if (!b->start || !b->end || counts.bad)
		return;
	taken = counts.entries + counts.returns + counts.filtered +
		counts.unknown + counts.past_count + stop.after;
	read = b->end->read - b->start->read;
	if (taken != read)
		fprintf(stderr,
			"kptrace: the module gave %llu records to its readers while this one ran, and this one took %llu: another reader (of the trace file?) took the difference\n",
			read, taken);
}

/* What a drain cut short left behind. */
static void drain__report(const struct books *b)
{
	char left[80] = "records recorded before the stop may be";
	unsigned long long n;

	if (drain != DRAIN_TIMEOUT && drain != DRAIN_SIGNAL)
		return;
	if (stop.nr_cpus && b->end) {
		n = books__unread_before(b);
		snprintf(left, sizeof(left),
			 "%llu record%s recorded before the stop", n,
			 n == 1 ? "" : "s");
	}
	if (drain == DRAIN_TIMEOUT)
		fprintf(stderr,
			"kptrace: stopped draining after %d s: %s left unread\n",
			DRAIN_SECONDS, left);
	else
		fprintf(stderr,
			"kptrace: a second signal stopped the drain: %s left unread\n",
			left);
}

/*
 * ", U left unread (B recorded before the stop, A after the stop, P past
 * -n)", the parts that are not 0: B, those a cut drain left (seq bound
 * only); P, those -n read and did not print; A, the rest after a stop:
 * those the drain read but were recorded after the stop, and those still
 * in the module (a cut drain with the time bound cannot tell them apart).
 */
static void unread__print(const struct books *b, unsigned long long unread)
{
	unsigned long long before = books__unread_before(b);
	unsigned long long after = unread - before - counts.past_count;
	const char *sep = " (";

	fprintf(stderr, ", %llu left unread", unread);
	if (before) {
		fprintf(stderr, "%s%llu recorded before the stop", sep, before);
		sep = ", ";
	}
	/* a cut drain with the time bound cannot tell before from after */
	if ((drain == DRAIN_EMPTY || stop.nr_cpus) && after) {
		fprintf(stderr, "%s%llu %s the stop", sep, after,
			before ? "after" : "recorded after");
		sep = ", ";
	}
	if (counts.past_count) {
		fprintf(stderr, "%s%llu past -n", sep, counts.past_count);
		sep = ", ";
	}
	if (*sep == ',')
		fputc(')', stderr);
}

static void summary__print(const struct source *src, const struct sink *sink,
			   const struct books *b)
{
	unsigned long long lost = 0, unread;
	const char *sep = " (";
	unsigned int cause;

	fprintf(stderr, "kptrace: %llu events (%llu entries, %llu returns",
		counts.entries + counts.returns, counts.entries,
		counts.returns);
	if (counts.filtered)
		fprintf(stderr, ", %llu filtered out", counts.filtered);
	for (cause = 0; cause <= KPT_LOST_NR; cause++)
		lost += counts.lost[cause];
	fprintf(stderr, "), %llu lost", lost);
	for (cause = 0; cause <= KPT_LOST_NR; cause++) {
		if (!counts.lost[cause])
			continue;
		fprintf(stderr, "%s%s %llu", sep, event__lost_cause(cause),
			counts.lost[cause]);
		sep = ", ";
	}
	if (lost)
		fputc(')', stderr);
	unread = books__unread(b);
	if (src->device && unread)
		unread__print(b, unread);
	if (sink->fd >= 0)
		fprintf(stderr, ", %llu bytes saved to %s", counts.saved,
			sink->path);
	if (counts.unknown)
		fprintf(stderr, ", %llu record%s of unknown type skipped",
			counts.unknown, counts.unknown == 1 ? "" : "s");
	if (counts.bad)
		fprintf(stderr, ", %llu bad record%s (%llu bytes dropped)",
			counts.bad, counts.bad == 1 ? "" : "s",
			counts.dropped);
	if (b->end)
		fprintf(stderr, "; module: hits %llu recorded %llu lost %llu missed %llu",
			(unsigned long long)b->end->hits,
			(unsigned long long)b->end->recorded,
			(unsigned long long)b->end->lost,
			(unsigned long long)b->end->missed);
	fputc('\n', stderr);
}

/*
 * The probes listing that names the records: FILE.probes next to a
 * replayed FILE when there is one (saved by -w, with the BTF names of
 * name=/address= probes in it), else the module's. *@saved says which.
 */
static const char *probes__path(const char *replay, char *buf, size_t len,
				bool *saved)
{
	*saved = false;
	if (replay && strcmp(replay, "-")) {
		snprintf(buf, len, "%s.probes", replay);
		if (!access(buf, R_OK)) {
			*saved = true;
			return buf;
		}
	}
	return path_from_env("KPTRACE_PROBES", PROBES_PATH);
}

/* -w FILE: the probes listing goes to FILE.probes, for -r elsewhere. */
static int probes__save_for(const struct sink *sink, struct probes *probes)
{
	char path[4096];
	FILE *f;
	int fd, ret;

	if (sink->fd <= STDOUT_FILENO)
		return 0;
	snprintf(path, sizeof(path), "%s.probes", sink->path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "kptrace: cannot create %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ret = probes__save(probes, f);
	if (fclose(f) || ret) {
		fprintf(stderr, "kptrace: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct source src = { .fd = -1, .size = -1 };
	struct sink sink = { .fd = -1 };
	struct ksyms *ksyms = NULL;
	struct probes *probes = NULL;
	struct kbtf *btf = NULL;
	size_t buf_size = READ_BUF_SIZE;
	static char out_buf[OUT_BUF_SIZE];
	const char *kallsyms, *probes_path;
	char path_buf[4096];
	struct books books = { NULL, NULL };
	FILE *stats_file = NULL, *pstats_file = NULL;
	struct stats start, end = { 0 };
	struct kpt_info info;
	bool saved_probes;
	char *buf = NULL;
	int err;

	if (argc > 1 && !strcmp(argv[1], "probe"))
		return probecmd__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "hist"))
		return hist__main(argc - 1, argv + 1);

	err = parse_args(argc, argv);
	if (err >= 0)
		return err;

	if (env.stats && !env.trace_opts) {
		if (stats__show(stdout))
			return 1;
		pstats__print(path_from_env("KPTRACE_PROBE_STATS",
					    PROBE_STATS_PATH), stdout, "\n");
		return 0;
	}

	if (isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOLBF, 0);
	else
		setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));

	/*
	 * First: a signal during the setup (reading BTF and kallsyms takes
	 * a while) must end the run, not kill it or be lost.
	 */
	err = 1;
	if (signals__setup())
		goto cleanup;
	if (env.replay_path) {
		src.path = env.replay_path;
		if (replay__open(&src))
			goto cleanup;
	} else {
		src.path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
		if (device__open(&src, &info))
			goto cleanup;
		if (info.max_record > buf_size)
			buf_size = info.max_record;
		/*
		 * The books before the first read, for the summary. The
		 * files stay open, so that reading them after the last read
		 * needs no open(): with a probe on do_sys_openat2, that would
		 * be an event, recorded after the drain and left unread.
		 */
		stats_file = fopen(stats__path(), "re");
		src.stats = stats_file;		/* and for the stop's bound */
		if (stats_file && !stats__read_from(stats_file, &start)) {
			stats__free(&start);	/* the totals are enough */
			books.start = &start;
		}
		if (!env.quiet)
			pstats_file = fopen(path_from_env("KPTRACE_PROBE_STATS",
							  PROBE_STATS_PATH),
					    "re");
	}

	/* BTF names name=/address= probes, unless a saved listing already does */
	probes_path = probes__path(env.replay_path, path_buf, sizeof(path_buf),
				   &saved_probes);
	if (!saved_probes)
		btf = kbtf__new(path_from_env("KPTRACE_BTF_DIR", BTF_DIR));
	/* a live module's listing grows: read again for ids it lacks */
	probes = probes__load(probes_path, btf, env.quiet, src.device);
	if (!probes) {
		fputs("kptrace: out of memory\n", stderr);
		goto cleanup;
	}
	sink.fmt.probes = probes;

	if (env.save_path) {
		sink.path = env.save_path;
		if (sink__open_file(&sink) || probes__save_for(&sink, probes))
			goto cleanup;
	} else {
		kallsyms = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
		/* for call traces and symbol arguments */
		ksyms = ksyms__load(kallsyms);
		if (env.no_stack) {
			/* symbol arguments show as 0x... without it */
		} else if (!ksyms) {
			fprintf(stderr,
				"kptrace: cannot read %s (%s): call traces will show bare addresses\n",
				kallsyms, strerror(errno));
		} else if (!ksyms__count(ksyms)) {
			fprintf(stderr,
				"kptrace: %s shows no addresses (kptr_restrict?): call traces will show bare addresses\n",
				kallsyms);
		}
		sink.fmt.out = stdout;
		sink.fmt.json = env.json;
		sink.fmt.stack = !env.no_stack;
		sink.fmt.ksyms = ksyms;
	}

	buf = malloc(buf_size);
	if (!buf) {
		fputs("kptrace: out of memory\n", stderr);
		goto cleanup;
	}
	if (src.device && !env.quiet)
		fprintf(stderr, "kptrace: tracing %u probes on %u CPUs%s%s... Hit Ctrl-C to end.\n",
			info.nr_probes, info.nr_cpus,
			sink.fd >= 0 ? ", saving to " : "",
			sink.fd >= 0 ? sink.path : "");
	if (env.duration)
		alarm(env.duration);

	err = records__pump(&src, &sink, buf, buf_size) ? 1 : 0;
	alarm(0);
	if (stats_file && !stats__read_from(stats_file, &end))
		books.end = &end;
	drain__report(&books);

	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kptrace: cannot write the standard output: %s\n",
			strerror(errno));
		err = 1;
	}
	/* again: probes added while tracing, and deleted ones kept */
	if (probes__save_for(&sink, probes))
		err = 1;
	if (!env.quiet) {
		summary__print(&src, &sink, &books);
		books__check(&books);
	}
	if (pstats_file)
		pstats__print_from(pstats_file, stderr, "");
	if (env.stats && books.end)
		stats__print(stderr, &end);
	else if (env.stats && src.device)
		stats__show(stderr);

cleanup:
	if (sink.fd > STDOUT_FILENO && close(sink.fd)) {
		fprintf(stderr, "kptrace: cannot write %s: %s\n", sink.path,
			strerror(errno));
		err = 1;
	}
	if (src.fd > STDIN_FILENO)
		close(src.fd);
	if (stats_file)
		fclose(stats_file);
	if (pstats_file)
		fclose(pstats_file);
	stats__free(&end);
	free(stop.bound);
	free(buf);
	ksyms__free(ksyms);
	probes__free(probes);
	kbtf__free(btf);
	return err;
}
