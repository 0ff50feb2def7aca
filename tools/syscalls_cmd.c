// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_cmd: `kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]`,
 * its command line: the options, checked, and the probes they make
 * (struct sys_env, syscalls_run.h). The command's other files, each one
 * idea:
 *
 *	syscalls_spec.c		the spec lines: a selection's, a run's probes
 *	syscalls_run.c		a run: session, probes, COMMAND, outputs, end
 *	syscalls_print.c	records to calls, lines and JSON (the printer)
 *	syscalls_fd.c		-y: each process's fds and their paths
 *	syscalls_pending.c	the calls in progress, from /proc
 *	syscalls_count.c	-s: the kernel's counts, the tables at the end
 *	syscalls_sum.c		the tables of -s and -S
 *	syscalls_comm.c		a process's comm in them: its leader's
 *	syscalls_prom.c		--prometheus's text of a table
 *	syscalls_books.c	the books line at the end
 *	syscalls_flight.c	--flight, the flight recorder
 *	syscall_fmt.c, syscall_sig.c	a call, a signal, an exit as text
 *
 * What follows is how the command works as a whole.
 *
 * One syscalls probe does the work in the kernel, in a session of the
 * tool's own (session.c: /dev/kptrace made a session with
 * KPT_IOC_SESSION, its own rings and books): the tool adds its spec line
 * with KPT_IOC_ADD,
 *
 *	s:kptrace/sys_TOOLPID [pid=P,..] [tid=T,..] [children=TOOLPID]
 *	  [comm=GLOB] [cgroup=ID] [nr=N[-M],..] [failure] [duration=NS]
 *
 * which answers the probe's id and its canonical spec (a refusal: the
 * module's reason, under the column at fault), reads the session's
 * records with the main reader's loop (trace.c: checks, -w and -r, the
 * stop and the drain), prints each as perf trace would (syscall_fmt.c),
 * and takes its books from the session (KPT_IOC_STATS,
 * KPT_IOC_PROBE_STATS). The probe is the session's: closing the device
 * at the end removes it, and so does the tool's death, kill -9 included.
 *
 * A record of the probe (uapi/kptrace.h): a return, nr_args 9: kpt_ret,
 * then args[0] the call's number, args[1..6] its six argument registers
 * at entry, args[7] and args[8] string slots that say which argument they
 * are (KPT_STR_SYSARG()); or, for exit and exit_group, which never
 * return, an entry of the same args[]. Arguments are named by tracefs'
 * sys_enter_NAME/format when there is one (struct sys_formats), else
 * arg0..arg5 in hex; strings come from the slots, with or without it.
 *
 * With COMMAND (child.c), the tool makes itself a child subreaper, forks
 * a child that waits on a pipe until the probe is armed and then execs
 * COMMAND, selects children=TOOLPID (every descendant of the tool, itself
 * left out), and stops when COMMAND exits: it drains what was recorded
 * until then, and exits with COMMAND's status.
 *
 * -s puts " summary" at the end of the spec line: the probe keeps no
 * record but counts, per CPU, by (process, call), and the tool reads
 * those counts with ioctl(KPT_IOC_SYSSUM) every second (each read ends
 * the kernel's interval), adds them up in a struct sys_sum (and one per
 * -i interval), and prints perf trace -s's tables at the end. It reads no
 * record then: it waits in sigtimedwait() for the stop signals and
 * SIGCHLD, held from the start. -S, and -s of a saved trace (-r), count
 * the calls of the records in the same struct sys_sum instead, with one
 * probe as without them.
 *
 * --prometheus DIR (with -s or -S) counts the same entries or calls once
 * more, in a struct sys_sum by (process, comm, call) of the whole run,
 * and writes it with the probe's books as DIR/kptrace_syscalls.prom
 * (sys_sum__prom(), prom__write()) after each -i interval and at the end.
 *
 * --flight SIZE (syscalls_flight.c) arms the same probe in a session whose
 * rings overwrite their oldest records (KPT_SESSION_OVERWRITE), SIZE per
 * CPU at least, but reads nothing until SIGUSR1 or the end: then the
 * newest SIZE bytes of the records the rings kept, through the same
 * printer.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "event.h"
#include "syscalls_cmd.h"
#include "syscalls_flight.h"
#include "syscalls_run.h"

#define SYS_MAX_INTERVAL	86400	/* -i: a day */
#define SYS_STACK_DEF		16	/* --stack's frames */
#define CGROUP2_SUPER_MAGIC_	0x63677270

/* --- the command ----------------------------------------------------------- */

static const char usage_text[] =
"Usage: kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]\n"
"Print system calls as perf trace does, a line each when it returns: the\n"
"time of its entry (ms from the first line printed), its duration, the\n"
"task (comm/tid), the call with its arguments named and decoded, and its\n"
"return value or error; the signals delivered (--- SIGSEGV {...} ---) and\n"
"the processes' ends (+++ exited with 0 +++), as strace prints them. With\n"
"COMMAND: the calls of COMMAND and of all the processes it starts, until\n"
"COMMAND exits (-f: until the last of them exits), on the standard error\n"
"(COMMAND's standard output is its own). Without: those of the whole\n"
"machine, or of what the options select, until Ctrl-C (SIGINT) or SIGTERM,\n"
"on the standard output. At the start and at the end, the call each\n"
"selected task is blocked in (\"<unfinished ...>\", from /proc).\n"
"\n"
"Selection, made in the kernel (all options must hold):\n"
"  -p, --pid=PID[,PID]...     only these processes, any number (pgrep -d,):\n"
"                             a probe per 8 (the module's pid= takes 8),\n"
"                             16 probes at most; not with COMMAND\n"
"  -f, --follow-forks         with -p: their descendants too, those forked\n"
"                             later included (a probe children=PID each);\n"
"                             with COMMAND: trace until the last of its\n"
"                             descendants exits, not COMMAND itself\n"
"  -t, --tid=TID[,TID]...     only these threads (8 at most); not with\n"
"                             COMMAND\n"
"  -c, --comm=GLOB            only tasks whose comm matches GLOB (* and ?,\n"
"                             15 bytes at most, taken as they are:\n"
"                             -c 'Web Content')\n"
"  -G, --cgroup=PATH          only tasks in the cgroup v2 directory PATH or\n"
"                             in a cgroup below it\n"
"  -e, --expr=[trace=]NAME[,NAME]...\n"
"                             only these calls: names, globs or strace's\n"
"                             classes (%file %desc %net %network %process\n"
"                             %signal %memory %ipc); !NAME leaves out\n"
"                             (open*,!openat2 or !read,!write); both the\n"
"                             x86-64 and the i386 calls of those names;\n"
"                             -e signal=none: no --- SIGNAL --- and no\n"
"                             +++ exited +++ lines\n"
"  -Z, --failure              only calls that failed (returned -4095..-1)\n"
"      --duration=MS          only calls that took longer than MS ms (0.5:\n"
"                             500 us)\n"
"\n"
"Summary:\n"
"  -s, --summary              no line per call: the calls are counted in the\n"
"                             kernel by process and call, and at the end a\n"
"                             table per process is printed as perf trace -s\n"
"                             does (see below; with -r, of the saved calls)\n"
"  -S, --with-summary         the lines, and at the end the same table, which\n"
"                             the tool counts from the calls it printed (one\n"
"                             probe with records: a call lost in a ring is in\n"
"                             neither); with -r too\n"
"  -i, --interval=SECS        with -s: every SECS seconds the table of those\n"
"                             seconds, after a line with their span (from\n"
"                             the start); at the end the last interval's, then\n"
"                             the whole run's\n"
"      --prometheus=DIR       with -s or -S: the whole run's counts as\n"
"                             DIR/kptrace_syscalls.prom, for node_exporter's\n"
"                             textfile collector (see below), written\n"
"                             atomically every -i SECS and at the end;\n"
"                             without -i, once at the end. The tables are not\n"
"                             printed then (-j's rows are)\n"
"\n"
"Flight recorder:\n"
"      --flight=SIZE          keep only the newest SIZE bytes of calls (K, M:\n"
"                             KiB, MiB), in the kernel, overwriting the older;\n"
"                             print them on SIGUSR1 (tracing goes on), at the\n"
"                             end (Ctrl-C, SIGTERM, COMMAND's exit), each time\n"
"                             with \"kptrace: N older calls overwritten\" (see\n"
"                             below)\n"
"\n"
"Output:\n"
"  -j, --json                 one JSON object per line (with -s and -S, one per\n"
"                             row of the tables too)\n"
"      --stack[=N]            each call's kernel call trace, N frames at most\n"
"                             (default 16), under its line as dump_stack()\n"
"                             prints one (-j: \"stack\", an array of frames)\n"
"  -y, --decode-fds           fds with their path, socket or pipe, as strace\n"
"                             -y: read(fd: 3</etc/hostname>, ...) (-j:\n"
"                             \"fds\", \"ret_path\"; see below)\n"
"  -T, --syscall-times        strace's: accepted, durations are always shown\n"
"  -o, --output=FILE          print to FILE instead of the standard output\n"
"                             (the standard error with COMMAND)\n"
"  -w, --write=FILE           save the raw records to FILE ('-': stdout)\n"
"                             instead of printing them\n"
"  -r, --read=FILE            print the calls saved in FILE with -w ('-':\n"
"                             stdin); needs neither root nor the module\n"
"  -n, --dry-run              print the probe's spec line and exit\n"
"  -q, --quiet                no banner, no notes, no summary\n"
"  -h, --help                 print this help and exit\n"
"\n"
"How: the tool makes /dev/kptrace a session of its own (its rings, its\n"
"books) and adds one syscalls probe to it,\n"
"  s:kptrace/sys_PID [pid=..] [tid=..] [children=PID] [comm=GLOB]\n"
"    [cgroup=ID] [nr=N[-M],..] [nr32=N[-M],..] [failure] [duration=NS]\n"
"    [stack=N] [signals] [denied] [summary]\n"
"(PID the tool's own; with COMMAND, children=PID: its descendants); a\n"
"refusal prints the module's reason under the column at fault. It reads\n"
"the probe's records, no other's; the probe goes with the session when\n"
"the tool ends, whatever ends it (a signal, an error, COMMAND's exit,\n"
"kill -9): nothing is left to delete. The probe has \" signals denied\" but\n"
"with -s: a record per signal delivered and per task exit, and per call a\n"
"seccomp filter denied, shown with its errno and \" (seccomp)\" (-j:\n"
"\"denied\":true). A 32-bit call (int $0x80, an i386 program) shows with\n"
"its i386 name and \" (32-bit)\" (-j: \"compat\":true); -e selects it by\n"
"name too (nr32=). A value of -c, -p or -t that starts with '-' (-c -- ls)\n"
"is refused: --comm=-x for a glob that does. The\n"
"arguments are named by tracefs (events/syscalls/sys_enter_NAME/format)\n"
"when there is one, else shown as arg0..arg5 in hex; strings always in\n"
"quotes. exit and exit_group, which do not return, end in \" = ?\".\n"
"Without COMMAND, the tool's own calls may be in the selection: they are\n"
"recorded, not shown, and counted in the summary. Loss reports of the\n"
"rings show as with kptrace (\"CPU:N [LOST N EVENTS: cause]\", or a JSON\n"
"object with \"type\":\"lost\").\n"
"\n"
"With COMMAND, the tool starts it once the probe is armed, stays the\n"
"parent of the processes it leaves behind (a child subreaper), stops when\n"
"COMMAND exits, prints what was recorded until then, and exits with\n"
"COMMAND's status (128+N if a signal N killed it; 127 if it was not\n"
"found, 126 if it could not be run). A stop before that (a signal, an\n"
"error) sends COMMAND SIGTERM, and SIGKILL 5 s later or at a second Ctrl-C.\n"
"SIGHUP, SIGQUIT, SIGUSR1 (without --flight) and SIGUSR2 stop the run as\n"
"Ctrl-C does; a closed output pipe ends the output, not COMMAND.\n"
"\n"
"At the end, on stderr: calls seen while the probe was armed, shown,\n"
"filtered out, lost (by cause), missed returns, and those in flight when\n"
"the probe went away.\n"
"\n"
"-s: the probe gets \" summary\" at the end of its spec line and keeps no\n"
"record: per CPU, it counts each (process, call)'s calls, errors\n"
"(-4095..-1), total, min and max time and the sum of their squares (exit\n"
"and exit_group with 0 ns). The tool reads and resets these counts every\n"
"second (ioctl KPT_IOC_SYSSUM: a CPU's table holds 1024 (process, call)s,\n"
"a second's worth) and adds them up. A table per process, the one with the\n"
"most calls (\"events\") first, named by its leader's comm (its main\n"
"thread's: /proc/PID/comm while it lives, else the records of the leader,\n"
"else the calling thread's); in it, the calls with the longest total first.\n"
"stddev is the sample standard deviation of the call's times in % of their\n"
"average (perf trace prints that of the average, smaller by the square\n"
"root of calls). With -j, one object per row: pid, comm, syscall, calls,\n"
"errors, total_ns, min_ns, max_ns, stddev_pct; with -i, \"interval\" first:\n"
"the interval's number from 1, 0 for the whole run. The line on stderr:\n"
"calls seen, counted in the kernel (and whether the tool read them all),\n"
"filtered, lost, not counted because a table was full, missed returns, in\n"
"flight. With -r, -s counts the saved calls, as -S does.\n"
"\n"
"--prometheus: DIR must exist. The file is written as\n"
"DIR/.kptrace_syscalls.prom.tmp, fsync'ed and renamed: a scrape never sees\n"
"a part. It has the probe's books, counters as on the line on stderr\n"
"(kptrace_syscall_seen_total, _filtered_total, _recorded_total,\n"
"_lost_total{cause}, _table_full_total, _missed_total{cause}), then per\n"
"process and call, labelled syscall, pid, comm (and with -G, cgroup: its\n"
"directory), the counters kptrace_syscall_calls_total and\n"
"kptrace_syscall_errors_total and the histogram\n"
"kptrace_syscall_latency_seconds: a bucket per log2 bucket of the kernel's\n"
"that has had a call, le its upper bound (in it), 2^(10+b) ns in seconds as\n"
"Prometheus writes floats (1.024e-06, 0.000131072, 1.073741824), counts\n"
"cumulative, le=\"+Inf\" all the calls; _sum, the total time in seconds;\n"
"_count. Counters are of the whole run: they never go back. A comm is\n"
"untrusted: in a label value a byte below 0x20, from 0x7f up, or a\n"
"backslash is \\\\xHH (it reads \\xHH), '\"' is \\\". A process that changes its\n"
"comm (an exec) counts under the new one from then on, in new series.\n"
"\n"
"--flight: the flight recorder is the rings of the tool's session, made to\n"
"overwrite their oldest records (every other session keeps its own: the\n"
"module needs no overwrite=1), each SIZE rounded up to a power of 2 and at\n"
"least 128K (two of the largest records): a task's calls may all be on one\n"
"CPU. They hold the probe's records only. The\n"
"tool reads nothing until a dump, which takes all the rings hold and prints\n"
"the newest SIZE bytes of the probe's calls (a record's size: a call with\n"
"no path string is 160 bytes), oldest first, as the lines above (or -j's\n"
"objects), then the line of the older calls overwritten since the last dump\n"
"(-j: {\"type\":\"flight\",\"shown\":M,\"overwritten\":N}): by the rings, or\n"
"taken past SIZE. A dump empties the rings: the next one shows the calls\n"
"made since. The books at the end count the overwritten as lost. A module\n"
"that refuses the rings (mem_max_mb) says so, and nothing is armed.\n"
"\n"
"--stack: the trace starts at the attach point, x64_sys_call, then its\n"
"callers (do_syscall_64, entry_SYSCALL_64_after_hwframe: the same for\n"
"every call of a 64-bit task); on the raw_syscalls tracepoints (5.10),\n"
"at the tracepoint's caller. Frames are \"[<ADDR>] SYM+OFF/SIZE\", which\n"
"scripts/decode_stacktrace.sh reads; bare addresses when /proc/kallsyms\n"
"shows none. A record is 8 bytes a frame larger.\n"
"\n"
"EXAMPLES:\n"
"    kptrace syscalls -- ls /tmp         # ls, and all that it runs\n"
"    kptrace syscalls -e 'open*' --failure -- make\n"
"                                        # the opens that fail in a build\n"
"    kptrace syscalls -p 1234            # what is it stuck on? (Ctrl-C)\n"
"    kptrace syscalls -f -- ./build.sh   # until its last child exits\n"
"    kptrace syscalls -o trace.txt -- sh -c 'echo hi' > out\n"
"                                        # out holds \"hi\" alone\n"
"    kptrace syscalls -p $(pgrep -d, nginx) -f -y\n"
"                                        # nginx and its children, fds named\n"
"    kptrace syscalls -e trace=%file -Z -- make\n"
"                                        # the file calls that fail\n"
"    kptrace syscalls -p 1234 --duration 10\n"
"                                        # process 1234's calls over 10 ms\n"
"    kptrace syscalls -c 'nginx*' -j     # nginx's calls, JSON lines\n"
"    kptrace syscalls -G /sys/fs/cgroup/system.slice/ssh.service\n"
"                                        # the calls of a service\n"
"    kptrace syscalls -e '!read,!write' -t 4321\n"
"                                        # thread 4321 but reads, writes\n"
"    kptrace syscalls -w calls.bin -- ./test.sh\n"
"    kptrace syscalls -r calls.bin       # later, anywhere\n"
"    kptrace syscalls -n -p 1 -e 'read*' # the spec line it would write\n"
"    kptrace syscalls -s -- make         # the calls of a build, counted\n"
"    kptrace syscalls -s -i 10 -c nginx  # nginx's, every 10 s\n"
"    kptrace syscalls -s -i 15 -c nginx --prometheus \\\n"
"        /var/lib/prometheus/node-exporter   # for a fleet's Prometheus\n"
"    kptrace syscalls -S -- ls           # the lines, then the table\n"
"    kptrace syscalls --stack=8 -e openat -- cat /etc/hostname\n"
"                                        # each open with its call trace\n"
"    kptrace syscalls --flight 1M -- ./flaky-test\n"
"                                        # its last 1 MiB of calls, at its end\n"
"    kptrace syscalls --flight 64K -c nginx\n"
"                                        # kill -USR1 PID: nginx's last calls\n"
"\n"
"-y: the tool keeps each process's fds from its calls (open*, creat,\n"
"dup*, fcntl F_DUPFD, close, close_range, socket, accept, eventfd,\n"
"epoll_create, ...; the close-on-exec ones go at an execve), and reads\n"
"/proc/PID/fd/N once for an fd it did not see made (one from before the\n"
"trace, a pipe's): a path can be stale when -e leaves out the calls that\n"
"changed the fd, or when /proc was read after the fd was reused.\n"
"\n"
"Calls in progress: the module records a call at its return only, and a\n"
"call made before the probe was armed not at all: at the start and at the\n"
"end (and after each --flight dump) the tool reads /proc/PID/task/TID/syscall\n"
"of the tasks of -p (-f: and their descendants), -t, -c, COMMAND (at the\n"
"end), and prints the call each is blocked in with \" <unfinished ...>\",\n"
"its time blocked that since the task last ran (/proc's sched, as the\n"
"scheduler's clock counts it; \"?\" without CONFIG_SCHED_DEBUG). Not for\n"
"-G or the whole machine. The return of a call shown in progress after a\n"
"--flight dump prints, when it comes, as \"<... read resumed>(ARGS) = N\"\n"
"(-j: \"resumed\":true); that of a call in progress at the start is never\n"
"shown: it has no record.\n"
"\n"
"ENVIRONMENT (for tests): KPTRACE_TRACEFS replaces /sys/kernel/tracing,\n"
"    KPTRACE_PROC /proc (of the calls in progress),\n"
"    and the variables of kptrace --help, the files of the module.\n"
"\n"
"Exit status: COMMAND's; without one, 0 ok, 1 error, 2 usage error.\n";

enum {
	OPT_FAILURE = 256,
	OPT_DURATION,
	OPT_PROMETHEUS,
	OPT_STACK,
	OPT_FLIGHT,
};

static const struct option sys_opts[] = {
	{ "pid",	required_argument,	NULL, 'p' },
	{ "tid",	required_argument,	NULL, 't' },
	{ "comm",	required_argument,	NULL, 'c' },
	{ "cgroup",	required_argument,	NULL, 'G' },
	{ "expr",	required_argument,	NULL, 'e' },
	{ "failure",	no_argument,		NULL, OPT_FAILURE },
	{ "duration",	required_argument,	NULL, OPT_DURATION },
	{ "json",	no_argument,		NULL, 'j' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "write",	required_argument,	NULL, 'w' },
	{ "read",	required_argument,	NULL, 'r' },
	{ "dry-run",	no_argument,		NULL, 'n' },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "summary",	no_argument,		NULL, 's' },
	{ "with-summary", no_argument,		NULL, 'S' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "prometheus",	required_argument,	NULL, OPT_PROMETHEUS },
	{ "flight",	required_argument,	NULL, OPT_FLIGHT },
	{ "follow-forks", no_argument,		NULL, 'f' },
	{ "decode-fds",	no_argument,		NULL, 'y' },
	{ "failed-only", no_argument,		NULL, 'Z' },
	{ "syscall-times", no_argument,		NULL, 'T' },
	/* refused, with the reason */
	{ "stack",	optional_argument,	NULL, OPT_STACK },
	{ NULL,		0,			NULL, 0 },
};

int sys_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("kptrace: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'kptrace syscalls --help' for more information.\n",
	      stderr);
	return EXIT_USAGE;
}

/* One line, "kptrace: error: ...", and @ret. */
int sys_error(int ret, const char *fmt, ...)
{
	va_list ap;

	fputs("kptrace: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return ret;
}

/*
 * -p or -t: PID[,PID...], each 1..SYS_MAX_PID, at most @max in all (-p:
 * any number: @ids grows); an id given twice counts once.
 */
static int parse_ids(const char *opt, const char *arg, __u32 **ids,
		     unsigned int *n, unsigned int max)
{
	unsigned int i;
	__u32 *more;
	const char *p = arg;
	unsigned long long v;
	char *end;

	for (;;) {
		if (*p < '0' || *p > '9')
			return sys_error(EXIT_USAGE,
					 "%s: invalid id list '%s': numbers separated by ','",
					 opt, arg);
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || !v || v > SYS_MAX_PID || (*end && *end != ','))
			return sys_error(EXIT_USAGE,
					 "%s: invalid id '%.*s' in '%s'", opt,
					 (int)strcspn(p, ","), p, arg);
		for (i = 0; i < *n && (*ids)[i] != (__u32)v; i++)
			;
		if (i == *n && *n == max)
			return sys_error(EXIT_USAGE,
					 "%s: more than %d ids (the module takes %d)",
					 opt, SYS_MAX_IDS, SYS_MAX_IDS);
		if (i == *n && !(*n & (*n + 1))) {
			/* at 0, 1, 3, 7...: room for twice as many */
			more = realloc(*ids, 2 * (*n + 1) * sizeof(**ids));
			if (!more)
				return sys_error(1, "out of memory");
			*ids = more;
		}
		if (i == *n)
			(*ids)[(*n)++] = (__u32)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* --duration MS: a float of ms, >= 0, to ns. */
static int parse_duration(const char *arg, __u64 *ns)
{
	double ms;
	char *end;

	errno = 0;
	ms = strtod(arg, &end);
	/* digits and a dot: no sign, exponent, hex float, inf or nan */
	if (errno || end == arg || *end ||
	    arg[strspn(arg, "0123456789.")] || !(ms >= 0 && ms <= 1e12))
		return sys_error(EXIT_USAGE,
				 "invalid --duration '%s': milliseconds >= 0 (0.5: 500 us)",
				 arg);
	*ns = (__u64)(ms * 1e6 + 0.5);
	if (ms > 0 && !*ns)	/* under half a ns is not "no filter" */
		*ns = 1;
	return 0;
}

/* Option @opt's @arg: a whole number of @what, 1 to @max. */
static int parse_whole(const char *opt, const char *arg, const char *what,
		       unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || errno || *end || !v || v > max)
		return sys_error(EXIT_USAGE, "invalid %s '%s': whole %s, 1 to %u",
				 opt, arg, what, max);
	*out = (unsigned int)v;
	return 0;
}

/*
 * -c GLOB: any bytes (a comm may hold spaces, UTF-8, even controls), as
 * many as a comm has; the spec line escapes them (kpt_print_glob()).
 */
static int check_comm(const char *arg)
{
	if (!*arg || strlen(arg) > SYS_COMM_MAX) {
		char *text = event__text_str(arg, strlen(arg));

		sys_error(EXIT_USAGE, "-c: a comm glob of 1 to %d bytes, not '%s'",
			  SYS_COMM_MAX, text ? text : "?");
		free(text);
		return EXIT_USAGE;
	}
	return 0;
}

static int add_expr(struct sys_env *env, const char *arg)
{
	const char *eq = strchr(arg, '=');

	/* strace's -e trace=LIST (t=LIST) and -e signal=none */
	if (eq && ((eq - arg == 5 && !strncmp(arg, "trace", 5)) ||
		   (eq - arg == 1 && *arg == 't')))
		arg = eq + 1;
	else if (eq && eq - arg == 6 && !strncmp(arg, "signal", 6) &&
		 !strcmp(eq + 1, "none")) {
		env->no_signals = true;
		return 0;
	} else if (eq)
		return sys_error(EXIT_USAGE,
				 "-e %.*s=: only trace= (or t=) and signal=none are known here",
				 (int)(eq - arg), arg);
	size_t old = env->expr ? strlen(env->expr) : 0;
	char *s = realloc(env->expr, old + strlen(arg) + 2);

	if (!s)
		return sys_error(1, "out of memory");
	if (old)
		s[old++] = ',';
	strcpy(s + old, arg);
	env->expr = s;
	return 0;
}

static int sys_parse(int argc, char **argv, struct sys_env *env)
{
	int opt, ret;

	optind = 0;	/* glibc: start again */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:p:t:c:G:e:jo:w:r:nqhsSi:fyZT",
				  sys_opts, NULL)) != -1) {
		ret = 0;
		switch (opt) {
		case 'p':
		case 't':
		case 'c':
		case 'G':
		case 'e':
		case OPT_FAILURE:
		case OPT_DURATION:
			env->selecting = true;
			break;
		}
		/* "-c -- true": the next option, or the "--", is no value */
		if ((opt == 'p' || opt == 't' || opt == 'c') &&
		    optarg == argv[optind - 1] && optarg[0] == '-')
			return sys_error(EXIT_USAGE,
					 "-%c needs a value, not '%s' (--%s=%s if that is one)",
					 opt, optarg, opt == 'p' ? "pid" :
					 opt == 't' ? "tid" : "comm", optarg);
		switch (opt) {
		case 'p':
			ret = parse_ids("-p", optarg, &env->pids, &env->npids,
					UINT_MAX);
			break;
		case 't':
			ret = parse_ids("-t", optarg, &env->tids, &env->ntids,
					SYS_MAX_IDS);
			break;
		case 'f':
			env->follow = true;
			break;
		case 'y':
			env->fds = true;
			break;
		case 'Z':
			env->sel.failure = true;
			env->selecting = true;
			break;
		case 'T':
			break;	/* strace's: the durations are always shown */
		case 'c':
			ret = check_comm(optarg);
			if (!ret)
				strcpy(env->sel.comm, optarg);
			break;
		case 'G':
			env->cgroup_path = optarg;
			break;
		case 'e':
			ret = add_expr(env, optarg);
			break;
		case OPT_FAILURE:
			env->sel.failure = true;
			break;
		case OPT_DURATION:
			ret = parse_duration(optarg, &env->sel.duration_ns);
			break;
		case 'j':
			env->json = true;
			break;
		case 'o':
			env->output = optarg;
			break;
		case 'w':
			env->save_path = optarg;
			break;
		case 'r':
			env->replay_path = optarg;
			break;
		case 'n':
			env->dry_run = true;
			break;
		case 'q':
			env->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 's':
			env->summary_only = true;
			break;
		case 'S':
			env->with_summary = true;
			break;
		case 'i':
			ret = parse_whole("-i", optarg, "seconds",
					  SYS_MAX_INTERVAL, &env->interval);
			break;
		case OPT_PROMETHEUS:
			env->prom_dir = optarg;
			break;
		case OPT_FLIGHT:
			ret = flight__parse_size(optarg, &env->flight);
			break;
		case OPT_STACK:
			env->sel.stack = SYS_STACK_DEF;
			if (optarg)
				ret = parse_whole("--stack", optarg, "frames",
						  KPT_MAX_STACK,
						  &env->sel.stack);
			break;
		case ':':
			return sys_usage("option '%s' needs an argument",
					 argv[optind - 1]);
		default:
			if (optopt && argv[optind - 1][1] != '-')
				return sys_usage("invalid option '-%c'", optopt);
			return sys_usage("invalid option '%s'",
					 argv[optind - 1]);
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		env->command = argv + optind;
	if (env->command && (env->npids || env->ntids))
		return sys_error(EXIT_USAGE,
				 "-%c selects running %s, COMMAND a new one: not both",
				 env->npids ? 'p' : 't',
				 env->npids ? "processes" : "threads");
	if (env->save_path && (env->json || env->output))
		return sys_usage("-j and -o are for printing: -w saves the raw records");
	if (env->replay_path && (env->selecting || env->command))
		return sys_usage("-r prints a saved trace: %s",
				 "the selection and COMMAND are for tracing");
	if (env->replay_path && env->dry_run)
		return sys_usage("-n prints the spec line of a trace: not with -r");
	if (env->summary_only && env->with_summary)
		return sys_usage("-s (the table) or -S (the lines, the table)");
	if (env->interval && !env->summary_only)
		return sys_usage("-i prints the table of -s every SECS seconds: it needs -s");
	if (env->interval && env->replay_path)
		return sys_usage("-i is for a live run: not with -r");
	if ((env->summary_only || env->with_summary) && env->save_path)
		return sys_usage("-%c prints a table: -w saves the raw records",
				 env->summary_only ? 's' : 'S');
	if (env->prom_dir && !env->summary_only && !env->with_summary)
		return sys_usage("--prometheus writes the counts of -s or -S: it needs one");
	if (env->prom_dir && env->replay_path)
		return sys_usage("--prometheus is for a live run: not with -r");
	if (env->sel.stack && (env->summary_only || env->replay_path))
		return sys_usage("--stack records each call's trace: not with %s",
				 env->summary_only ?
				 "-s, which keeps no calls" :
				 "-r, which shows the traces the saved calls have");
	if (env->flight && (env->summary_only || env->save_path ||
			    env->replay_path))
		return sys_usage("--flight prints the calls the rings kept: not with %s",
				 env->summary_only ? "-s" :
				 env->save_path ? "-w" : "-r");
	/* live -s: counts in the kernel; on records (-r), counted here */
	env->sel.summary = env->summary_only && !env->replay_path;
	return -1;
}

/* -e: the selection; an error names what is wrong. */
static int check_expr(struct sys_env *env)
{
	unsigned int count = syscalls__count(SYSCALLS_64);
	char err[256];
	int n;

	env->nr_sel = calloc(count, sizeof(*env->nr_sel));
	env->nr32_sel = calloc(syscalls__count(SYSCALLS_32),
			       sizeof(*env->nr32_sel));
	if (!env->nr_sel || !env->nr32_sel)
		return sys_error(1, "out of memory");
	n = syscalls__select_both(env->expr, env->nr_sel, &env->sel.nr_rest,
				  env->nr32_sel, &env->sel.nr32_rest, err,
				  sizeof(err));
	if (n < 0)
		return sys_error(EXIT_USAGE, "-e: %s", err);
	if (!n)
		return sys_error(EXIT_USAGE, "-e: '%s' selects no system call",
				 env->expr);
	env->sel.nr = env->nr_sel;
	env->sel.nr32 = env->nr32_sel;
	return 0;
}

/* /proc/PID/status's Tgid, or 0 if it cannot be read. */
static __u32 proc_tgid(__u32 pid)
{
	char path[64], line[256];
	unsigned long tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %lu", &tgid) == 1)
			break;
	fclose(f);
	return (__u32)tgid;
}

/* Each PID of -p a process, each TID of -t a thread, that exists. */
static int check_ids(const struct sys_env *env)
{
	unsigned int i;
	__u32 tgid;

	for (i = 0; i < env->npids + env->ntids; i++) {
		bool is_pid = i < env->npids;
		__u32 id = is_pid ? env->pids[i] : env->tids[i - env->npids];

		if (kill((pid_t)id, 0) && errno == ESRCH)
			return sys_error(1, "no %s %u (%s)",
					 is_pid ? "process" : "thread", id,
					 is_pid ? "-p" : "-t");
		tgid = is_pid ? proc_tgid(id) : 0;
		if (tgid && tgid != id)
			return sys_error(1,
					 "%u is a thread of process %u: -p takes a process id, -t a thread id",
					 id, tgid);
	}
	return 0;
}

/* -G PATH: a cgroup v2 directory; its id is its inode number. */
static int check_cgroup(const char *path, __u64 *id)
{
	struct statfs sfs;
	struct stat st;

	if (statfs(path, &sfs) || stat(path, &st))
		return sys_error(1, "%s: %s", path, strerror(errno));
	if ((unsigned long)sfs.f_type != CGROUP2_SUPER_MAGIC_ ||
	    !S_ISDIR(st.st_mode))
		return sys_error(1, "%s is not a cgroup v2 directory", path);
	*id = st.st_ino;
	return 0;
}

/* --prometheus DIR: a directory the tool may write in. */
static int check_prom_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return sys_error(1, "--prometheus %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sys_error(1, "--prometheus %s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return sys_error(1, "--prometheus %s: %s", dir, strerror(errno));
	return 0;
}

/* -p's processes (-f: those not under another) need too many probes */
static int too_many_pids(const struct sys_env *env)
{
	return sys_error(EXIT_USAGE,
			 "-p: %u processes%s need more than %d probes (pid= takes %d processes%s): select them by -c COMM or -G CGROUP",
			 env->npids, env->follow ? " and their children" : "",
			 SYS_MAX_PROBES, SYS_MAX_IDS,
			 env->follow ? ", children= one" : "");
}

int syscalls_cmd__main(int argc, char **argv)
{
	struct sys_sel sels[SYS_MAX_PROBES];
	struct sys_env env = { 0 };
	char line[SYS_LINE_MAX], name[32];
	unsigned int i;
	int ret, n;

	ret = sys_parse(argc, argv, &env);
	if (ret >= 0)
		goto out;
	ret = env.expr ? check_expr(&env) : 0;
	/* without -f the count alone says: a usage error, before what exists */
	if (!ret && !env.follow &&
	    env.npids > SYS_MAX_PROBES * SYS_MAX_IDS)
		ret = too_many_pids(&env);
	if (!ret)
		ret = check_ids(&env);
	if (!ret && env.cgroup_path)
		ret = check_cgroup(env.cgroup_path, &env.sel.cgroup);
	if (!ret && env.prom_dir)
		ret = check_prom_dir(env.prom_dir);
	if (ret)
		goto out;
	/* the cgroup label: the directory, whatever path named it */
	if (env.prom_dir && env.cgroup_path) {
		env.cgroup_label = realpath(env.cgroup_path, NULL);
		if (!env.cgroup_label)
			env.cgroup_label = strdup(env.cgroup_path);
		if (!env.cgroup_label) {
			ret = sys_error(1, "out of memory");
			goto out;
		}
	}
	if (env.command)
		env.sel.children = (__u32)getpid();
	/* strace's --- SIGNAL --- and +++ exited +++, seccomp's denials */
	env.sel.signals = !env.sel.summary && !env.no_signals;
	env.sel.denied = !env.sel.summary;
	n = sys_spec__plan(&env, sels, SYS_MAX_PROBES);
	if (n < 0) {
		ret = sys_error(1, "out of memory");
		goto out;
	}
	if (!n) {
		ret = too_many_pids(&env);
		goto out;
	}
	if (env.dry_run) {
		for (i = 0; i < (unsigned int)n; i++) {
			sys_spec__name(name, sizeof(name), getpid(), i);
			if (syscalls_cmd__spec_named(&sels[i], name, getpid(),
						     line, sizeof(line)) < 0) {
				ret = sys_error(1, "the spec line is over %d bytes",
						SYS_LINE_MAX);
				goto out;
			}
			printf("%s\n", line);
		}
		ret = fflush(stdout) ? 1 : 0;
		goto out;
	}
	ret = sys_run(&env, sels, (unsigned int)n);
out:
	free(env.pids);
	free(env.tids);
	free(env.nr32_sel);
	free(env.nr_sel);
	free(env.expr);
	free(env.cgroup_label);
	return ret;
}
