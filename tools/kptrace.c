// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: reads the records of the kptrace module from /dev/kptrace and
 * prints them as text or JSON lines, saves them raw (-w) or decodes a saved
 * file (-r), and prints the module's statistics (-s); with -e SPEC, makes
 * a session of its own with those probes for one run.
 *
 * This file holds main(): the command dispatch (kptrace probe, kptrace
 * hist, kptrace syscalls) and the reader's options; reader.c runs the
 * plain reader, oneshot.c the run of -e, trace.c reads and handles the
 * records, summary.c sums the run up at its end.
 *
 * Data goes to stdout, diagnostics and the summary to stderr. Exit status:
 * 0 ok, 1 error, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace.h>

#include "hist.h"
#include "oneshot.h"
#include "paths.h"
#include "probecmd.h"
#include "reader.h"
#include "syscalls_cmd.h"
#include "trace.h"

#define KPTRACE_VERSION	"0.1"

#define EXIT_USAGE	2
#define ONESHOT_MAX_SPECS	256	/* -e's */
#define ONESHOT_MAX_RING	(1024ULL * 1024 * 1024)	/* -b, per CPU */

struct trace_env trace_env = {
	.pid = -1,
};

static const char usage_text[] =
"Usage: kptrace [OPTION]...\n"
"       kptrace -e SPEC [-e SPEC]... [OPTION]... [-- COMMAND [ARG]...]\n"
"       kptrace probe add [--max N] [--dry-run] [-f FILE] SPEC...\n"
"       kptrace probe del NAME...\n"
"       kptrace probe list | clear\n"
"       kptrace hist [OPTION]... [NAME]\n"
"       kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]\n"
"Print the events recorded by the kptrace kernel module: entries of the\n"
"probed functions with their arguments and call trace, returns with their\n"
"value, latency and arguments, and reports of lost events; or add and\n"
"remove probes while the module runs; or, with -e, trace the probes of\n"
"the SPECs for one run, in a session of their own (see ONE RUN below).\n"
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
"                         (with -e: the session's)\n"
"  -q, --quiet            no banner, no notes, no summary at exit\n"
"  -h, --help             print this help and exit\n"
"  -V, --version          print the version and exit\n"
"\n"
"ONE RUN (-e), with the options above (but -r):\n"
"  -e, --event=SPEC       a probe of the run, as probe add takes it (BTF\n"
"                         names, @SYM, a glob target: one probe per\n"
"                         function); again for more probes\n"
"  -b, --buffer-size=SIZE the session's ring per CPU (K, M: KiB, MiB),\n"
"                         rounded up to a power of 2 (default: the\n"
"                         module's bufsize_kb)\n"
"      --clock=CLOCK      auto (default), mono (CLOCK_MONOTONIC) or local\n"
"                         (sched_clock(): no clock device read per event)\n"
"      --overwrite        full rings overwrite their oldest records\n"
"      --max=N            refuse a glob of more than N functions (100)\n"
"  -- COMMAND [ARG]...    run COMMAND once the probes are armed, stop when\n"
"                         it exits, exit with its status (every task's\n"
"                         events are shown, unless -p)\n"
"The run is a session of its own (KPT_IOC_SESSION): its rings, its clock,\n"
"its books; the probes are its own (their names too), their records reach\n"
"no other reader, and they go when the run ends, however it ends (Ctrl-C,\n"
"COMMAND's exit, kill -9): there is nothing to delete. A SPEC the module\n"
"refuses prints its reason under the column at fault, and exits 1 with\n"
"nothing left armed; COMMAND does not run.\n"
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
"                         caret under its column), then added through\n"
"                         /dev/kptrace (KPT_IOC_ADD); a refusal prints the\n"
"                         module's reason under its column and exits 1.\n"
"                         Beyond the module:\n"
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
"    kptrace -e 'r:open do_sys_openat2 filename:ustring $retval' -- cat /etc/hostname\n"
"                               # the opens of one command, and its output\n"
"    kptrace -e 'p:rd vfs_read file count' -e 'r:rdr vfs_read $retval' -d 5 -j\n"
"                               # two probes of our own, 5 s, JSON lines\n"
"    kptrace -e 'p:vfs vfs_*' --max 50 -b 4M -w vfs.bin -- make\n"
"                               # a probe per vfs_ function, saved, for a build\n"
"\n"
"ENVIRONMENT (for tests):\n"
"    KPTRACE_DEVICE, KPTRACE_KALLSYMS, KPTRACE_PROBES, KPTRACE_STATS,\n"
"    KPTRACE_PROBE_STATS, KPTRACE_BTF_DIR,\n"
"    KPTRACE_FILTER_FUNCTIONS, KPTRACE_BLACKLIST and KPTRACE_HIST_DIR\n"
"    replace /dev/kptrace,\n"
"    /proc/kallsyms, " DEBUGFS_KPT "{probes,stats,\n"
"    probe_stats}, " BTF_DIR ",\n"
"    available_filter_functions, the kprobes blacklist and\n"
"    " HIST_DIR ".\n"
"\n"
"Exit status: 0 ok, 1 error, 2 usage error.\n";

enum {
	OPT_NO_STACK = 256,
	OPT_CLOCK,
	OPT_OVERWRITE,
	OPT_MAX,
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
	/* -e's run */
	{ "event",	required_argument,	NULL, 'e' },
	{ "buffer-size", required_argument,	NULL, 'b' },
	{ "clock",	required_argument,	NULL, OPT_CLOCK },
	{ "overwrite",	no_argument,		NULL, OPT_OVERWRITE },
	{ "max",	required_argument,	NULL, OPT_MAX },
	{ NULL,		0,			NULL, 0 },
};

/* -e's run: its SPECs, its session, its COMMAND */
static char *oneshot_specs[ONESHOT_MAX_SPECS];
static struct oneshot_opts oneshot = {
	.specs = oneshot_specs,
	.session = { .clock = KPT_CLOCK_AUTO },
	.spec = { .max = SPEC_MAX_DEFAULT },
};

/* an option of -e's run was given (-b, --clock, --overwrite, --max) */
static const char *oneshot_opt;

static const char bad_size[] =
	"invalid buffer size '%s': bytes per CPU, with K or M for KiB or MiB (4M), 1G at most";
static const char bad_command[] =
	"unexpected argument '%s': COMMAND goes after --, as in kptrace -e SPEC -- COMMAND";

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

/* An option of -e's run (-e, -b, --clock, --overwrite, --max): -1, or 2. */
static int parse_oneshot_opt(int opt, const char *arg)
{
	unsigned long long val;

	switch (opt) {
	case 'e':
		if (oneshot.nr_specs == ONESHOT_MAX_SPECS)
			return usage_error("more than %d -e SPECs",
					   ONESHOT_MAX_SPECS);
		oneshot.specs[oneshot.nr_specs++] = (char *)arg;
		break;
	case 'b':
		if (session__parse_size(arg, &val) || !val ||
		    val > ONESHOT_MAX_RING)
			return usage_error(bad_size, arg);
		oneshot.session.ring_bytes = val;
		oneshot_opt = "-b";
		break;
	case OPT_CLOCK:
		if (session__parse_clock(arg, &oneshot.session.clock))
			return usage_error("invalid clock '%s': auto, mono or local",
					   arg);
		oneshot_opt = "--clock";
		break;
	case OPT_OVERWRITE:
		oneshot.session.overwrite = true;
		oneshot_opt = "--overwrite";
		break;
	case OPT_MAX:
		if (!parse_ull(arg, 1, ~0UL, &val))
			return usage_error("invalid --max '%s': a number > 0",
					   arg);
		oneshot.spec.max = val;
		oneshot_opt = "--max";
		break;
	}
	return -1;
}

/*
 * After the options: COMMAND, which -e's run takes after "--" (getopt
 * moved it there), and the combinations that make no sense. -1 to go on,
 * else the exit status.
 */
static int check_args(int argc, char **argv)
{
	if (oneshot.nr_specs && optind < argc &&
	    strcmp(argv[optind - 1], "--"))
		return usage_error(bad_command, argv[optind]);
	if (oneshot.nr_specs && optind < argc)
		oneshot.command = argv + optind;
	else if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (trace_env.save_path && (trace_env.json || trace_env.no_stack))
		return usage_error("-j and --no-stack are for printing: -w saves the raw records");
	if (trace_env.stats && trace_env.replay_path)
		return usage_error("-s shows the module's statistics: it does not apply to -r");
	if (oneshot.nr_specs && trace_env.replay_path)
		return usage_error("-e traces probes of its own: -r decodes a saved trace");
	if (!oneshot.nr_specs && oneshot_opt)
		return usage_error("%s is for the probes of -e SPEC", oneshot_opt);
	oneshot.spec.quiet = trace_env.quiet;
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	unsigned long long val;
	int opt, ret;

	opterr = 0;	/* our own messages, below */
	while ((opt = getopt_long(argc, argv, ":n:d:p:c:jw:r:sqhVe:b:",
				  long_opts, NULL)) != -1) {
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
		case 'e':
		case 'b':
		case OPT_CLOCK:
		case OPT_OVERWRITE:
		case OPT_MAX:
			ret = parse_oneshot_opt(opt, optarg);
			if (ret >= 0)
				return ret;
			break;
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
	return check_args(argc, argv);
}

int main(int argc, char **argv)
{
	int err;

	if (argc > 1 && !strcmp(argv[1], "probe"))
		return probecmd__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "hist"))
		return hist__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "syscalls"))
		return syscalls_cmd__main(argc - 1, argv + 1);

	err = parse_args(argc, argv);
	if (err >= 0)
		return err;
	if (oneshot.nr_specs)
		return oneshot__main(&oneshot);
	return reader__main();
}
