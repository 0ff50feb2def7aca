// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: reads the records of the kptrace module from /dev/kptrace and
 * prints them as text or JSON lines, saves them raw (-w) or decodes a saved
 * file (-r), and prints the module's statistics (-s).
 *
 * This file holds main(): the command dispatch (kptrace probe, kptrace
 * hist, kptrace syscalls), the options and the setup of a run; trace.c reads and handles
 * the records, summary.c sums the run up at its end.
 *
 * Data goes to stdout, diagnostics and the summary to stderr. Exit status:
 * 0 ok, 1 error, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "summary.h"
#include "syscalls_cmd.h"
#include "trace.h"

#define KPTRACE_VERSION	"0.1"

#define READ_BUF_SIZE	(1024 * 1024)	/* one read(): many records */
#define OUT_BUF_SIZE	(1024 * 1024)	/* stdio buffer of stdout */

#define EXIT_USAGE	2

struct trace_env trace_env = {
	.pid = -1,
};

static const char usage_text[] =
"Usage: kptrace [OPTION]...\n"
"       kptrace probe add [--max N] [--dry-run] [-f FILE] SPEC...\n"
"       kptrace probe del NAME...\n"
"       kptrace probe list | clear\n"
"       kptrace hist [OPTION]... [NAME]\n"
"       kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]\n"
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
"Stops on Ctrl-C (SIGINT), SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 or SIGUSR2,\n"
"and at the end of -d: it then takes no new events, but first prints\n"
"every one committed before the stop (for at most 2 s; a second Ctrl-C\n"
"cuts that short). The summary counts what it\n"
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
"SYSTEM CALLS:\n"
"  syscalls [--] [COMMAND] the system calls of COMMAND and its children, or\n"
"                         of processes (-p), threads (-t), comms (-c), a\n"
"                         cgroup (-G), as perf trace prints them; -e picks\n"
"                         calls, --failure and --duration MS filter, -j for\n"
"                         JSON; -s counts them per process and call (-i SECS:\n"
"                         every SECS s), -S prints both (see kptrace syscalls\n"
"                         --help)\n"
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
"    kptrace syscalls -- ls     # the system calls of ls\n"
"    kptrace syscalls -p 1234 -e 'open*' --failure\n"
"                               # process 1234's failing opens\n"
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
			trace_env.trace_opts = true;
		switch (opt) {
		case 'n':
			if (!parse_ull(optarg, 1, ~0ULL, &val))
				return usage_error("invalid count '%s': a number of events > 0",
						   optarg);
			trace_env.count = val;
			break;
		case 'd':
			if (!parse_ull(optarg, 1, 365 * 24 * 3600, &val))
				return usage_error("invalid duration '%s': a number of seconds > 0",
						   optarg);
			trace_env.duration = val;
			break;
		case 'p':
			if (!parse_ull(optarg, 0, 0xffffffffULL, &val))
				return usage_error("invalid pid '%s'", optarg);
			trace_env.pid = val;
			break;
		case 'c':
			if (!*optarg)
				return usage_error("empty comm");
			/* as the kernel truncates it */
			snprintf(trace_env.comm, sizeof(trace_env.comm), "%s",
				 optarg);
			break;
		case 'j':
			trace_env.json = true;
			break;
		case OPT_NO_STACK:
			trace_env.no_stack = true;
			break;
		case 'w':
			trace_env.save_path = optarg;
			break;
		case 'r':
			trace_env.replay_path = optarg;
			break;
		case 's':
			trace_env.stats = true;
			break;
		case 'q':
			trace_env.quiet = true;
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
	if (trace_env.save_path && (trace_env.json || trace_env.no_stack))
		return usage_error("-j and --no-stack are for printing: -w saves the raw records");
	if (trace_env.stats && trace_env.replay_path)
		return usage_error("-s shows the module's statistics: it does not apply to -r");
	return -1;
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
	int err, e;

	if (argc > 1 && !strcmp(argv[1], "probe"))
		return probecmd__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "hist"))
		return hist__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "syscalls"))
		return syscalls_cmd__main(argc - 1, argv + 1);

	err = parse_args(argc, argv);
	if (err >= 0)
		return err;

	if (trace_env.stats && !trace_env.trace_opts) {
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
	if (trace_env.replay_path) {
		src.path = trace_env.replay_path;
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
		if (!trace_env.quiet)
			pstats_file = fopen(path_from_env("KPTRACE_PROBE_STATS",
							  PROBE_STATS_PATH),
					    "re");
	}

	/* BTF names name=/address= probes, unless a saved listing already does */
	probes_path = probes__path(trace_env.replay_path, path_buf,
				   sizeof(path_buf), &saved_probes);
	if (!saved_probes)
		btf = kbtf__new(path_from_env("KPTRACE_BTF_DIR", BTF_DIR));
	/* a live module's listing grows: read again for ids it lacks */
	probes = probes__load(probes_path, btf, trace_env.quiet, src.device);
	if (!probes) {
		fputs("kptrace: out of memory\n", stderr);
		goto cleanup;
	}
	sink.fmt.probes = probes;

	if (trace_env.save_path) {
		sink.path = trace_env.save_path;
		if (sink__open_file(&sink) || probes__save_for(&sink, probes))
			goto cleanup;
	} else {
		kallsyms = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
		/* for call traces and symbol arguments (0x... without) */
		ksyms = ksyms__load_frames(kallsyms, trace_env.no_stack);
		sink.fmt.out = stdout;
		sink.fmt.json = trace_env.json;
		sink.fmt.stack = !trace_env.no_stack;
		sink.fmt.ksyms = ksyms;
	}

	buf = malloc(buf_size);
	if (!buf) {
		fputs("kptrace: out of memory\n", stderr);
		goto cleanup;
	}
	if (src.device && !trace_env.quiet)
		fprintf(stderr, "kptrace: tracing %u probes on %u CPUs%s%s... Hit Ctrl-C to end.\n",
			info.nr_probes, info.nr_cpus,
			sink.fd >= 0 ? ", saving to " : "",
			sink.fd >= 0 ? sink.path : "");
	if (trace_env.duration)
		alarm(trace_env.duration);

	err = records__pump(&src, &sink, buf, buf_size) ? 1 : 0;
	alarm(0);
	if (stats_file && !stats__read_from(stats_file, &end))
		books.end = &end;
	drain__report(&books);

	e = trace__flush(stdout);
	if (e) {
		fprintf(stderr, "kptrace: cannot write the standard output: %s\n",
			strerror(e));
		err = 1;
	}
	/* again: probes added while tracing, and deleted ones kept */
	if (probes__save_for(&sink, probes))
		err = 1;
	if (!trace_env.quiet) {
		summary__print(&src, &sink, &books);
		books__check(&books);
	}
	if (pstats_file)
		pstats__print_from(pstats_file, stderr, "");
	if (trace_env.stats && books.end)
		stats__print(stderr, &end);
	else if (trace_env.stats && src.device)
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
	free(trace_stop.bound);
	free(buf);
	ksyms__free(ksyms);
	probes__free(probes);
	kbtf__free(btf);
	return err;
}
