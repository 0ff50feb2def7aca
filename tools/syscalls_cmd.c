// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_cmd: `kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]`.
 *
 * One syscalls probe does the work in the kernel: the tool writes its spec
 * line to /dev/kptrace,
 *
 *	s:kptrace/sys_TOOLPID [pid=P,..] [tid=T,..] [children=TOOLPID]
 *	  [comm=GLOB] [cgroup=ID] [nr=N[-M],..] [failure] [duration=NS]
 *
 * finds its id in the probes listing, reads the records of that id with
 * the main reader's loop (trace.c: checks, -w and -r, the stop and the
 * drain), prints each as perf trace would (syscall_fmt.c), and deletes the
 * probe at the end (-:kptrace/sys_TOOLPID), whatever ended the run.
 *
 * A record of the probe (uapi/kptrace.h): a return, nr_args 9: kpt_ret,
 * then args[0] the call's number, args[1..6] its six argument registers
 * at entry, args[7] and args[8] string slots that say which argument they
 * are (KPT_STR_SYSARG()); or, for exit and exit_group, which never
 * return, an entry of the same args[]. Arguments are named by tracefs'
 * sys_enter_NAME/format when there is one (struct sys_formats), else
 * arg0..arg5 in hex; strings come from the slots, with or without it.
 *
 * With COMMAND, the tool makes itself a child subreaper, forks a child
 * that waits on a pipe until the probe is armed and then execs COMMAND,
 * selects children=TOOLPID (every descendant of the tool, itself left
 * out), and stops when COMMAND exits: it drains what was recorded until
 * then, and exits with COMMAND's status.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/kptrace_record.h>

#include "paths.h"
#include "probecmd.h"
#include "probes.h"
#include "stats.h"
#include "summary.h"
#include "syscalls_cmd.h"
#include "trace.h"

#define EXIT_USAGE		2
#define SYS_GROUP		"kptrace"
#define SYS_LINE_MAX		4096	/* the module's KPT_SPEC_LINE_MAX */
#define SYS_READ_BUF		(1024 * 1024)
#define SYS_OUT_BUF		(1024 * 1024)
#define CGROUP2_SUPER_MAGIC_	0x63677270
#define TRACEFS_PATH		"/sys/kernel/tracing"
#define TRACEFS_PATH2		"/sys/kernel/debug/tracing"
#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))

/* --- the spec line ------------------------------------------------------- */

/* Appends to @buf at *@pos; false once something did not fit. */
static bool spec_add(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *pos) {
		*pos = len;
		return false;
	}
	*pos += n;
	return true;
}

static void spec_ids(char *buf, size_t len, size_t *pos, const char *key,
		     const __u32 *ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		spec_add(buf, len, pos, "%s%u", i ? "," : key, ids[i]);
}

int syscalls_cmd__spec(const struct sys_sel *sel, pid_t tool_pid, char *buf,
		       size_t len)
{
	unsigned int nr, end, count = syscalls__count(SYSCALLS_64);
	const char *sep = " nr=";
	size_t pos = 0;

	spec_add(buf, len, &pos, "s:%s/sys_%d", SYS_GROUP, (int)tool_pid);
	spec_ids(buf, len, &pos, " pid=", sel->pid, sel->npid);
	spec_ids(buf, len, &pos, " tid=", sel->tid, sel->ntid);
	if (sel->children)
		spec_add(buf, len, &pos, " children=%u", sel->children);
	else if (!sel->npid && !sel->ntid)
		/* its own calls: tracing them would never end */
		spec_add(buf, len, &pos, " exclude=%d", (int)tool_pid);
	if (sel->comm[0])
		spec_add(buf, len, &pos, " comm=%s", sel->comm);
	if (sel->cgroup)
		spec_add(buf, len, &pos, " cgroup=%llu",
			 (unsigned long long)sel->cgroup);
	for (nr = 0; sel->nr && nr < count; nr = end + 1) {
		end = nr;
		if (!sel->nr[nr])
			continue;
		while (end + 1 < count && sel->nr[end + 1])
			end++;
		if (end > nr)
			spec_add(buf, len, &pos, "%s%u-%u", sep, nr, end);
		else
			spec_add(buf, len, &pos, "%s%u", sep, nr);
		sep = ",";
	}
	if (sel->failure)
		spec_add(buf, len, &pos, " failure");
	if (sel->duration_ns)
		spec_add(buf, len, &pos, " duration=%llu",
			 (unsigned long long)sel->duration_ns);
	return pos < len ? (int)pos : -1;
}

/* --- the probe's id -------------------------------------------------------- */

long syscalls_cmd__probe_id(const char *path, const char *group,
			    const char *name)
{
	const char *label, *p, *end, *slash, *g, *nm;
	size_t cap = 0, spec_len, label_len, n, glen, nlen;
	char *line = NULL;
	long id, found = -ENOENT;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		id = probes__split_line(line, &spec_len, &label, &label_len);
		if (id < 0 || line[0] != 's')
			continue;
		end = line + spec_len;
		for (p = line + 1; p < end && isdigit((unsigned char)*p); p++)
			;
		if (p >= end || *p++ != ':')
			continue;
		n = strcspn(p, " \t\n");
		if (n > (size_t)(end - p))
			n = end - p;
		slash = memchr(p, '/', n);
		if (slash) {
			g = p;
			glen = slash - p;
			nm = slash + 1;
			nlen = n - glen - 1;
		} else {
			g = SYS_GROUP;
			glen = strlen(SYS_GROUP);
			nm = p;
			nlen = n;
		}
		if (glen == strlen(group) && !memcmp(g, group, glen) &&
		    nlen == strlen(name) && !memcmp(nm, name, nlen))
			found = id;
	}
	free(line);
	fclose(f);
	return found;
}

/* --- the formats of the calls ---------------------------------------------- */

struct sys_format_slot {
	bool tried;
	struct syscall_format *fmt;	/* NULL: none */
};

struct sys_formats {
	char *root;		/* tracefs; NULL: not chosen yet */
	bool chosen, quiet;
	unsigned int count;
	struct sys_format_slot *tab;
};

struct sys_formats *sys_formats__new(const char *tracefs, bool quiet)
{
	struct sys_formats *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->quiet = quiet;
	f->count = syscalls__count(SYSCALLS_64);
	f->tab = calloc(f->count, sizeof(*f->tab));
	if (tracefs) {
		f->root = strdup(tracefs);
		f->chosen = true;
	}
	if (!f->tab || (tracefs && !f->root)) {
		sys_formats__free(f);
		return NULL;
	}
	return f;
}

void sys_formats__free(struct sys_formats *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; f->tab && i < f->count; i++)
		free(f->tab[i].fmt);
	free(f->tab);
	free(f->root);
	free(f);
}

/* The first tracefs with events/syscalls, once; a note if none. */
static void sys_formats__choose(struct sys_formats *f)
{
	static const char * const roots[] = { TRACEFS_PATH, TRACEFS_PATH2 };
	char path[256];
	size_t i;

	f->chosen = true;
	for (i = 0; i < ARRAY_LEN(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/syscalls", roots[i]);
		if (!access(path, X_OK)) {
			f->root = strdup(roots[i]);
			return;
		}
	}
	if (!f->quiet)
		fprintf(stderr,
			"kptrace: no %s/events/syscalls (tracefs, with CONFIG_FTRACE_SYSCALLS): arguments show as arg0..arg5\n",
			TRACEFS_PATH);
}

const struct syscall_format *sys_formats__get(struct sys_formats *f,
					      unsigned int nr)
{
	struct sys_format_slot *s;
	const char *event;
	char path[4096], err[256];

	if (!f || nr >= f->count)
		return NULL;
	s = &f->tab[nr];
	if (s->tried)
		return s->fmt;
	s->tried = true;
	if (!f->chosen)
		sys_formats__choose(f);
	event = syscalls__event_name(nr);
	if (!f->root || !event)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format",
		 f->root, event);
	s->fmt = malloc(sizeof(*s->fmt));
	if (s->fmt && syscalls__read_format(path, s->fmt, err, sizeof(err))) {
		free(s->fmt);
		s->fmt = NULL;
	}
	return s->fmt;
}

int sys_formats__set(struct sys_formats *f, unsigned int nr,
		     const struct syscall_format *fmt)
{
	struct sys_format_slot *s;

	if (nr >= f->count)
		return -1;
	s = &f->tab[nr];
	if (!s->fmt)
		s->fmt = malloc(sizeof(*s->fmt));
	if (!s->fmt)
		return -1;
	*s->fmt = *fmt;
	s->tried = true;
	return 0;
}

/* --- a record as a call ---------------------------------------------------- */

int sys_call__from_record(struct sys_call *sc, const struct kpt_event *e,
			  struct sys_formats *formats, __u64 base_ns)
{
	const struct syscall_format *fmt = NULL;
	const struct kpt_ret *r = NULL;
	unsigned int i, n, nargs;
	const char *name;
	const __u64 *a;
	__u64 slot;
	__u16 flags;

	if ((e->type != KPT_EV_RETURN && e->type != KPT_EV_ENTRY) ||
	    e->nr_args != SYS_NARGS)
		return -1;
	memset(sc, 0, sizeof(*sc));
	if (e->type == KPT_EV_RETURN) {
		r = (const struct kpt_ret *)e->data;
		a = e->data + KPT_RET_SLOTS;
		sc->entry_ns = r->entry_ts_ns;
	} else {
		a = e->data;
		sc->entry_ns = e->ts_ns;
	}
	sc->nr = a[0];
	if (sc->nr <= 0xffffffffULL) {
		/* the table's name, or syscall_NNN in sc->name */
		name = syscalls__name_fmt(SYSCALLS_64, (unsigned int)sc->nr,
					  sc->name, sizeof(sc->name));
		if (name != sc->name)
			snprintf(sc->name, sizeof(sc->name), "%s", name);
		fmt = sys_formats__get(formats, (unsigned int)sc->nr);
	} else {
		snprintf(sc->name, sizeof(sc->name), "syscall_%llu",
			 (unsigned long long)sc->nr);
	}
	nargs = fmt ? fmt->nr_args : SYSCALL_MAX_ARGS;
	for (i = 0; i < nargs; i++) {
		sc->vals[i] = a[1 + i];
		if (fmt) {
			sc->args[i] = fmt->args[i];
		} else {
			snprintf(sc->args[i].name, sizeof(sc->args[i].name),
				 "arg%u", i);
			sc->args[i].kind = SYSCALL_ARG_HEX;
			sc->args[i].bytes = 8;
		}
		/* a string only where a slot says so */
		if (sc->args[i].kind == SYSCALL_ARG_STR)
			sc->args[i].kind = SYSCALL_ARG_PTR;
	}
	for (i = SYS_STR_SLOT; i < SYS_NARGS; i++) {
		slot = a[i];
		flags = KPT_STR_FLAGS(slot);
		n = KPT_STR_SYSARG(flags);
		if (!n || n > nargs)
			continue;
		sc->args[n - 1].kind = SYSCALL_ARG_STR;
		if (flags & KPT_STR_FAULT)
			continue;	/* s NULL: (fault) */
		sc->strs[n - 1].s = kpt_record_str(e, slot);
		sc->strs[n - 1].len = KPT_STR_LEN(slot);
		sc->strs[n - 1].trunc = flags & KPT_STR_TRUNC;
		sc->strs[n - 1].bad = !sc->strs[n - 1].s;
	}
	sc->call.ts_ns = sc->entry_ns >= base_ns ? sc->entry_ns - base_ns : 0;
	sc->call.dur_ns = r ? r->lat_ns : 0;
	sc->call.comm = e->comm;
	sc->call.pid = e->pid;
	sc->call.tid = e->tid;
	sc->call.name = sc->name;
	sc->call.nr_args = nargs;
	sc->call.args = sc->args;
	sc->call.vals = sc->vals;
	sc->call.strs = sc->strs;
	sc->call.ret = r ? r->ret : 0;
	sc->call.no_return = !r;
	return 0;
}

void sys_printer__record(const struct kpt_event *e, void *priv)
{
	struct sys_printer *p = priv;
	struct sys_call sc;

	if (e->type == KPT_EV_LOST) {
		event__print(&p->lost_fmt, e);
	} else if (sys_call__from_record(&sc, e, p->formats,
					 p->have_base ? p->base_ns : 0)) {
		p->other++;
	} else {
		if (!p->have_base) {
			p->have_base = true;
			p->base_ns = sc.entry_ns;
			sc.call.ts_ns = 0;
		}
		if (p->json) {
			syscall_fmt__json(p->out, &sc.call);
		} else {
			syscall_fmt__print(p->out, &sc.call);
			putc_unlocked('\n', p->out);
		}
		p->shown++;
	}
	if (ferror(p->out) && !p->out_error) {
		p->out_error = true;
		p->out_errno = errno;
		trace__stop();		/* nowhere to print: end the run */
	}
}

/* --- the summary ----------------------------------------------------------- */

void syscalls_cmd__summary(FILE *f, const struct pstats_probe *ps,
			   unsigned long long shown, unsigned long long own,
			   bool saved)
{
	unsigned long long lost = 0, seen, decided, unread;
	const char *sep = " (";
	unsigned int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		lost += ps->lost[i];
	/* the calls without an instance never reached the handler */
	seen = ps->calls + ps->maxactive_missed + ps->missed;
	fprintf(f, "kptrace: %llu calls seen, %llu %s, %llu filtered", seen,
		shown, saved ? "saved" : "shown", ps->filtered);
	fprintf(f, ", %llu lost", lost);
	for (i = 0; i < KPT_LOST_NR; i++) {
		if (!ps->lost[i])
			continue;
		fprintf(f, "%s%s %llu", sep, event__lost_cause(i), ps->lost[i]);
		sep = ", ";
	}
	if (lost)
		fputc(')', f);
	fprintf(f, ", %llu missed returns", ps->maxactive_missed);
	if (ps->missed)
		fprintf(f, ", %llu missed by the kprobe", ps->missed);
	/* what the handler saw was recorded, filtered, lost or is running */
	decided = ps->recorded + ps->filtered + lost;
	if (ps->calls > decided)
		fprintf(f, ", %llu in flight at detach", ps->calls - decided);
	else if (ps->calls < decided)
		fprintf(f, " (the counters add up to %llu more than seen)",
			decided - ps->calls);
	if (ps->recorded > shown) {
		fprintf(f, "; %llu recorded but not %s", ps->recorded - shown,
			saved ? "saved" : "shown");
		sep = " (";
		if (own) {
			fprintf(f, "%s%llu of kptrace itself", sep, own);
			sep = ", ";
		}
		unread = ps->recorded - shown - (own < ps->recorded - shown ?
						 own : ps->recorded - shown);
		if (unread) {
			fprintf(f, "%s%llu left unread", sep, unread);
			sep = ", ";
		}
		if (*sep == ',')
			fputc(')', f);
	}
	fputc('\n', f);
}

/* --- the command ----------------------------------------------------------- */

static const char usage_text[] =
"Usage: kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]\n"
"Print system calls as perf trace does, a line each when it returns: the\n"
"time of its entry (ms from the first call printed), its duration, the\n"
"task (comm/tid), the call with its arguments named and decoded, and its\n"
"return value or error. With COMMAND: the calls of COMMAND and of all the\n"
"processes it starts, until COMMAND exits. Without: those of the whole\n"
"machine, or of what the options select, until Ctrl-C (SIGINT) or SIGTERM.\n"
"\n"
"Selection, made in the kernel (all options must hold):\n"
"  -p, --pid=PID[,PID]...     only these processes (8 at most)\n"
"  -t, --tid=TID[,TID]...     only these threads (8 at most)\n"
"  -c, --comm=GLOB            only tasks whose comm matches GLOB (* and ?,\n"
"                             15 bytes at most)\n"
"  -G, --cgroup=PATH          only tasks in the cgroup v2 directory PATH or\n"
"                             in a cgroup below it\n"
"  -e, --expr=NAME[,NAME]...  only these calls: names or globs, !NAME\n"
"                             leaves out (open*,!openat2 or !read,!write)\n"
"      --failure              only calls that failed (returned -4095..-1)\n"
"      --duration=MS          only calls that took longer than MS ms (0.5:\n"
"                             500 us)\n"
"\n"
"Output:\n"
"  -j, --json                 one JSON object per line\n"
"  -o, --output=FILE          print to FILE instead of the standard output\n"
"  -w, --write=FILE           save the raw records to FILE ('-': stdout)\n"
"                             instead of printing them\n"
"  -r, --read=FILE            print the calls saved in FILE with -w ('-':\n"
"                             stdin); needs neither root nor the module\n"
"  -n, --dry-run              print the probe's spec line and exit\n"
"  -q, --quiet                no banner, no notes, no summary\n"
"  -h, --help                 print this help and exit\n"
"\n"
"How: the tool adds one syscalls probe, written to /dev/kptrace as\n"
"  s:kptrace/sys_PID [pid=..] [tid=..] [children=PID] [comm=GLOB]\n"
"    [cgroup=ID] [nr=N[-M],..] [failure] [duration=NS]\n"
"(PID the tool's own; with COMMAND, children=PID: its descendants), reads\n"
"the probe's records and deletes the probe when it ends, whatever ends it\n"
"(a signal, an error, COMMAND's exit). Only 64-bit tasks are traced. The\n"
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
"error) sends COMMAND SIGTERM.\n"
"\n"
"At the end, on stderr: calls seen while the probe was armed, shown,\n"
"filtered out, lost (by cause), missed returns, and those in flight when\n"
"the probe went away.\n"
"\n"
"Not yet: -s, -S, -i, --prometheus, --stack, --flight.\n"
"\n"
"EXAMPLES:\n"
"    kptrace syscalls -- ls /tmp         # ls, and all that it runs\n"
"    kptrace syscalls -e 'open*' --failure -- make\n"
"                                        # the opens that fail in a build\n"
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
"\n"
"ENVIRONMENT (for tests): KPTRACE_TRACEFS replaces /sys/kernel/tracing,\n"
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
	/* not yet */
	{ "prometheus",	optional_argument,	NULL, OPT_PROMETHEUS },
	{ "stack",	optional_argument,	NULL, OPT_STACK },
	{ "flight",	optional_argument,	NULL, OPT_FLIGHT },
	{ NULL,		0,			NULL, 0 },
};

/* The command line, checked. */
struct sys_env {
	struct sys_sel sel;
	bool *nr_sel;		/* -e's selection, syscalls__count() */
	char *expr;		/* -e's lists, joined by ',' */
	const char *cgroup_path;
	bool json, dry_run, quiet, selecting;
	const char *output, *save_path, *replay_path;
	char **command;		/* NULL: none */
};

static int sys_usage(const char *fmt, ...)
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
static int sys_error(int ret, const char *fmt, ...)
{
	va_list ap;

	fputs("kptrace: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return ret;
}

/* -p or -t: PID[,PID...], each 1..SYS_MAX_PID, SYS_MAX_IDS in all. */
static int parse_ids(const char *opt, const char *arg, __u32 *ids,
		     unsigned int *n)
{
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
		if (*n == SYS_MAX_IDS)
			return sys_error(EXIT_USAGE,
					 "%s: more than %d ids (the module takes %d)",
					 opt, SYS_MAX_IDS, SYS_MAX_IDS);
		ids[(*n)++] = (__u32)v;
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
	/* NaN fails the comparisons too */
	if (errno || end == arg || *end || !(ms >= 0 && ms <= 1e12))
		return sys_error(EXIT_USAGE,
				 "invalid --duration '%s': milliseconds >= 0 (0.5: 500 us)",
				 arg);
	*ns = (__u64)(ms * 1e6 + 0.5);
	return 0;
}

/* -c GLOB: what the spec line can carry. */
static int check_comm(const char *arg)
{
	const unsigned char *p;

	if (!*arg || strlen(arg) > SYS_COMM_MAX)
		return sys_error(EXIT_USAGE,
				 "-c: a comm glob of 1 to %d bytes, not '%s'",
				 SYS_COMM_MAX, arg);
	for (p = (const unsigned char *)arg; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return sys_error(EXIT_USAGE,
					 "-c: a comm glob without spaces or control characters");
	return 0;
}

static int add_expr(struct sys_env *env, const char *arg)
{
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
	while ((opt = getopt_long(argc, argv, "+:p:t:c:G:e:jo:w:r:nqhsSi",
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
		switch (opt) {
		case 'p':
			ret = parse_ids("-p", optarg, env->sel.pid,
					&env->sel.npid);
			break;
		case 't':
			ret = parse_ids("-t", optarg, env->sel.tid,
					&env->sel.ntid);
			break;
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
		case 'S':
		case 'i':
			return sys_usage("-%c is not yet supported by kptrace syscalls",
					 opt);
		case OPT_PROMETHEUS:
		case OPT_STACK:
		case OPT_FLIGHT:
			return sys_usage("%s is not yet supported by kptrace syscalls",
					 argv[optind - 1]);
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
	if (env->save_path && (env->json || env->output))
		return sys_usage("-j and -o are for printing: -w saves the raw records");
	if (env->replay_path && (env->selecting || env->command))
		return sys_usage("-r prints a saved trace: %s",
				 "the selection and COMMAND are for tracing");
	if (env->replay_path && env->dry_run)
		return sys_usage("-n prints the spec line of a trace: not with -r");
	return -1;
}

/* -e: the selection; an error names what is wrong. */
static int check_expr(struct sys_env *env)
{
	unsigned int count = syscalls__count(SYSCALLS_64);
	char err[256];
	int n;

	env->nr_sel = calloc(count, sizeof(*env->nr_sel));
	if (!env->nr_sel)
		return sys_error(1, "out of memory");
	n = syscalls__select(SYSCALLS_64, env->expr, env->nr_sel, err,
			     sizeof(err));
	if (n < 0)
		return sys_error(EXIT_USAGE, "-e: %s", err);
	if (!n)
		return sys_error(EXIT_USAGE, "-e: '%s' selects no system call",
				 env->expr);
	env->sel.nr = env->nr_sel;
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
static int check_ids(const struct sys_sel *sel)
{
	unsigned int i;
	__u32 tgid;

	for (i = 0; i < sel->npid + sel->ntid; i++) {
		bool is_pid = i < sel->npid;
		__u32 id = is_pid ? sel->pid[i] : sel->tid[i - sel->npid];

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

/* --- COMMAND ---------------------------------------------------------------- */

static pid_t cmd_pid;
/* set by the SIGCHLD handler */
static volatile sig_atomic_t cmd_done;
static volatile sig_atomic_t cmd_status;

/* SIGCHLD: reaps COMMAND and the orphans it left, stops at COMMAND's exit */
static void on_child(int sig)
{
	int saved = errno, status;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == cmd_pid && !cmd_done) {
			cmd_status = status;
			cmd_done = 1;
			trace__stop();
		}
	}
	errno = saved;
}

/*
 * The child: waits until the tool says go (a byte on @go), then runs
 * COMMAND; if exec fails, tells the tool errno on @err and exits 127 (not
 * found) or 126, as a shell.
 */
static void child_run(int go, int err, char **command)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGALRM, SIGCHLD, SIGPIPE };
	sigset_t none;
	ssize_t n;
	size_t i;
	char c;
	int e;

	for (i = 0; i < ARRAY_LEN(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		n = read(go, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* not armed: the tool says why */
	execvp(command[0], command);
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		e = ENOENT;
	_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

struct child {
	int go;		/* the write end of the go pipe, or -1 */
	int err;	/* the read end of the errno pipe, or -1 */
};

/* Forks the child, waiting. 0, or -1 with a message. */
static int child_fork(struct child *ch, char **command)
{
	int go[2], err[2];
	sigset_t chld, old;

	if (pipe2(go, O_CLOEXEC))
		return sys_error(-1, "pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return sys_error(-1, "pipe: %s", strerror(errno));
	}
	/* no SIGCHLD before cmd_pid is known */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	fflush(NULL);
	cmd_pid = fork();
	if (!cmd_pid) {
		close(go[1]);
		close(err[0]);
		child_run(go[0], err[1], command);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	close(err[1]);
	if (cmd_pid < 0) {
		close(go[1]);
		close(err[0]);
		return sys_error(-1, "fork: %s", strerror(errno));
	}
	ch->go = go[1];
	ch->err = err[0];
	return 0;
}

/* Armed: COMMAND may run. */
static void child_go(struct child *ch)
{
	if (ch->go >= 0 && write(ch->go, "g", 1) != 1)
		fprintf(stderr, "kptrace: cannot start the command: %s\n",
			strerror(errno));
	if (ch->go >= 0)
		close(ch->go);
	ch->go = -1;
}

/*
 * The end: reaps COMMAND (SIGTERM first if it still runs), says why exec
 * failed if it did, and returns the status to exit with.
 */
static int child_end(struct child *ch, char **command)
{
	int status = 0, e;
	sigset_t chld;
	ssize_t n;
	pid_t w;

	/* from here on, the handler does not reap it behind our back */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (ch->go >= 0) {		/* never started: it exits */
		close(ch->go);
		ch->go = -1;
	}
	if (!cmd_done) {
		kill(cmd_pid, SIGTERM);
		do
			w = waitpid(cmd_pid, &status, 0);
		while (w < 0 && errno == EINTR);
		if (w == cmd_pid) {
			cmd_status = status;
			cmd_done = 1;
		}
	}
	if (!cmd_done)
		return 1;
	status = cmd_status;
	do
		n = read(ch->err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ch->err);
	ch->err = -1;
	if (n == sizeof(e))
		sys_error(0, "%s: %s", command[0], strerror(e));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* --- the probe ---------------------------------------------------------------- */

/* Writes @line to the device; on a refusal, the module's reason. */
static int probe_write(int fd, const char *line, const char *name)
{
	char buf[SYS_LINE_MAX + 2], *before, *after;
	int n, err;

	n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return sys_error(-1, "spec line too long");
	before = probecmd__error_log_last();
	if (write(fd, buf, n) == n) {
		free(before);
		return 0;
	}
	err = errno;
	after = probecmd__error_log_last();
	fprintf(stderr, "kptrace: error: the module refused '%s': %s\n",
		line, strerror(err));
	if (after && (!before || strcmp(before, after)))
		fputs(after, stderr);
	if (err == EEXIST && line[0] != '-')
		fprintf(stderr,
			"kptrace: a probe %s/%s exists: left by a kptrace that was killed? (kptrace probe del %s/%s)\n",
			SYS_GROUP, name, SYS_GROUP, name);
	free(before);
	free(after);
	return -1;
}

static int probe_delete(int fd, const char *name)
{
	char line[128];

	snprintf(line, sizeof(line), "-:%s/%s", SYS_GROUP, name);
	if (!probe_write(fd, line, name))
		return 0;
	fprintf(stderr, "kptrace: the probe %s/%s is left: kptrace probe del %s/%s\n",
		SYS_GROUP, name, SYS_GROUP, name);
	return -1;
}

/* -w FILE: FILE.probes gets the probe's listing line, for kptrace -r. */
static void probe_save_listing(const char *save_path, __u32 id)
{
	const char *listing = path_from_env("KPTRACE_PROBES", PROBES_PATH);
	struct probes *probes;
	const struct probe *p;
	char path[4096];
	FILE *f;
	int fd;

	if (!strcmp(save_path, "-"))
		return;
	probes = probes__load(listing, NULL, true, false);
	p = probes ? probes__find(probes, id) : NULL;
	snprintf(path, sizeof(path), "%s.probes", save_path);
	fd = p ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) :
		 -1;
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fprintf(f, "%s\n", p->line);
		fclose(f);
	} else if (fd >= 0) {
		close(fd);
	}
	probes__free(probes);
}

/* --- a run ---------------------------------------------------------------------- */

struct sys_run {
	struct sys_env *env;
	struct source src;
	struct sink sink;
	struct sys_printer printer;
	FILE *out;
	FILE *stats_file, *pstats_file;
	struct stats start, end;
	struct books books;
	char name[32];		/* sys_PID */
	bool armed;
	struct child child;
};

/* -o FILE, or stdout; buffered as the main reader's */
static int run_output(struct sys_run *run)
{
	static char out_buf[SYS_OUT_BUF];
	int fd;

	run->out = stdout;
	if (run->env->output) {
		fd = open(run->env->output,
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		run->out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!run->out) {
			sys_error(1, "cannot create %s: %s", run->env->output,
				  strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	if (isatty(fileno(run->out)))
		setvbuf(run->out, NULL, _IOLBF, 0);
	else
		setvbuf(run->out, out_buf, _IOFBF, sizeof(out_buf));
	return 0;
}

static int run_sink(struct sys_run *run)
{
	struct sys_env *env = run->env;

	run->sink.fd = -1;
	if (env->save_path) {
		run->sink.path = env->save_path;
		return sink__open_file(&run->sink);
	}
	if (run_output(run))
		return -1;
	run->printer.out = run->out;
	run->printer.json = env->json;
	run->printer.formats = sys_formats__new(getenv("KPTRACE_TRACEFS"),
						env->quiet);
	if (!run->printer.formats)
		return sys_error(-1, "out of memory");
	run->printer.lost_fmt.out = run->out;
	run->printer.lost_fmt.json = env->json;
	run->sink.fmt.out = run->out;
	run->sink.print = sys_printer__record;
	run->sink.priv = &run->printer;
	return 0;
}

/* Opens the device, arms the probe and finds its id. 0, or -1. */
static int run_arm(struct sys_run *run)
{
	const char *listing = path_from_env("KPTRACE_PROBES", PROBES_PATH);
	struct kpt_info info;
	char line[SYS_LINE_MAX];
	long id;

	if (syscalls_cmd__spec(&run->env->sel, getpid(), line,
			       sizeof(line)) < 0)
		return sys_error(-1, "the spec line is over %d bytes",
				 SYS_LINE_MAX);
	run->src.path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
	run->src.rdwr = true;
	if (device__open(&run->src, &info))
		return -1;
	/* kept open: read at the end without an open() (see kptrace.c) */
	run->stats_file = fopen(stats__path(), "re");
	run->src.stats = run->stats_file;
	if (run->stats_file && !stats__read_from(run->stats_file,
						 &run->start)) {
		stats__free(&run->start);
		run->books.start = &run->start;
	}
	run->pstats_file = fopen(path_from_env("KPTRACE_PROBE_STATS",
					       PROBE_STATS_PATH), "re");
	if (probe_write(run->src.fd, line, run->name))
		return -1;
	run->armed = true;
	id = syscalls_cmd__probe_id(listing, SYS_GROUP, run->name);
	if (id < 0)
		return sys_error(-1, "the probe %s/%s is not in %s (%s)",
				 SYS_GROUP, run->name, listing,
				 id == -ENOENT ? "no such line" :
				 strerror((int)-id));
	trace_env.only_probe = true;
	trace_env.probe_id = (__u32)id;
	trace_env.self_pid = (__u32)getpid();
	if (run->env->save_path)
		probe_save_listing(run->env->save_path, (__u32)id);
	if (!run->env->quiet && !run->env->command)
		fprintf(stderr, "kptrace: tracing system calls (%s)... Hit Ctrl-C to end.\n",
			line);
	return 0;
}

/* The summary of a live run: the probe's counters, else what was read. */
static void run_summary(struct sys_run *run, const struct pstats_probe *ps,
			int ps_err)
{
	bool saved = run->env->save_path;
	unsigned long long shown = saved ?
		trace_counts.entries + trace_counts.returns :
		run->printer.shown;

	drain__report(&run->books);
	if (!ps_err) {
		syscalls_cmd__summary(stderr, ps, shown, trace_counts.own,
				      saved);
		return;
	}
	fprintf(stderr, "kptrace: %llu %s (no counters of %s in %s: %s)\n",
		shown, saved ? "saved" : "shown", run->name,
		path_from_env("KPTRACE_PROBE_STATS", PROBE_STATS_PATH),
		ps_err == -ENOENT ? "no such line" : strerror(-ps_err));
}

/* The summary of a replay. */
static void replay_summary(const struct sys_run *run)
{
	bool saved = run->env->save_path;
	unsigned long long lost = 0;
	const char *sep = " (";
	unsigned int i;

	for (i = 0; i <= KPT_LOST_NR; i++)
		lost += trace_counts.lost[i];
	fprintf(stderr, "kptrace: %llu %s, %llu lost",
		saved ? trace_counts.entries + trace_counts.returns :
		run->printer.shown, saved ? "records saved" : "calls shown",
		lost);
	for (i = 0; i <= KPT_LOST_NR; i++) {
		if (!trace_counts.lost[i])
			continue;
		fprintf(stderr, "%s%s %llu", sep, event__lost_cause(i),
			trace_counts.lost[i]);
		sep = ", ";
	}
	if (lost)
		fputc(')', stderr);
	if (run->printer.other)
		fprintf(stderr, ", %llu record%s not of a syscalls probe skipped",
			run->printer.other, run->printer.other == 1 ? "" : "s");
	if (trace_counts.bad)
		fprintf(stderr, ", %llu bad record%s (%llu bytes dropped)",
			trace_counts.bad, trace_counts.bad == 1 ? "" : "s",
			trace_counts.dropped);
	fputc('\n', stderr);
}

/*
 * Flushes and closes the output; 0, or -1 with a message (none for a
 * closed pipe: the reader of `kptrace syscalls | head` has had enough).
 */
static int run_close_output(struct sys_run *run)
{
	int err = 0, e;

	if (run->sink.fd > STDOUT_FILENO && close(run->sink.fd)) {
		sys_error(0, "cannot write %s: %s", run->sink.path,
			  strerror(errno));
		err = -1;
	}
	if (run->sink.fd > STDOUT_FILENO)
		run->sink.fd = -1;
	if (!run->out)
		return err;
	errno = 0;
	if (fflush(run->out) || ferror(run->out) || run->printer.out_error) {
		e = run->printer.out_error ? run->printer.out_errno : errno;
		if (e != EPIPE)
			sys_error(0, "cannot write %s: %s",
				  run->env->output ? run->env->output :
				  "the standard output", strerror(e));
		err = -1;
	}
	if (run->out != stdout && fclose(run->out))
		err = -1;
	run->out = NULL;
	return err;
}

static int sys_run(struct sys_env *env)
{
	struct sys_run run = {
		.env = env,
		.src = { .fd = -1, .size = -1 },
		.child = { .go = -1, .err = -1 },
	};
	struct pstats_probe ps;
	int err = 1, status = -1, ps_err = -ENOENT;
	char *buf = NULL;

	snprintf(run.name, sizeof(run.name), "sys_%d", (int)getpid());
	if (signals__setup())
		return 1;
	/* a closed pipe must not kill the tool with its probe armed */
	signal(SIGPIPE, SIG_IGN);
	buf = malloc(SYS_READ_BUF);
	if (!buf) {
		sys_error(0, "out of memory");
		goto out;
	}
	if (env->replay_path) {
		run.src.path = env->replay_path;
		if (replay__open(&run.src) || run_sink(&run))
			goto out;
		err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ?
		      1 : 0;
		if (run_close_output(&run))
			err = 1;
		if (!env->quiet)
			replay_summary(&run);
		goto out;
	}

	if (env->command) {
		if (signals__on_child(on_child))
			goto out;
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
			sys_error(0, "prctl(PR_SET_CHILD_SUBREAPER): %s",
				  strerror(errno));
			goto out;
		}
		if (child_fork(&run.child, env->command))
			goto out;
	}
	if (run_sink(&run) || run_arm(&run))
		goto end;
	child_go(&run.child);

	err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ? 1 : 0;
	if (env->command)
		status = child_end(&run.child, env->command);
	/* after the drain, before the probe goes: its last counters */
	if (!run.pstats_file)
		run.pstats_file = fopen(path_from_env("KPTRACE_PROBE_STATS",
						      PROBE_STATS_PATH), "re");
	if (run.pstats_file)
		ps_err = pstats__read_probe(run.pstats_file, run.name, &ps);
	else
		ps_err = -errno;
	if (run.stats_file && !stats__read_from(run.stats_file, &run.end))
		run.books.end = &run.end;
	if (run_close_output(&run))
		err = 1;
	if (probe_delete(run.src.fd, run.name))
		err = 1;
	run.armed = false;
	if (!env->quiet) {
		run_summary(&run, &ps, ps_err);
		books__check(&run.books);
	}
end:
	if (run.armed && probe_delete(run.src.fd, run.name))
		err = 1;
	if (env->command && status < 0 && cmd_pid > 0)
		child_end(&run.child, env->command);
	if (!err && status >= 0)
		err = status;
out:
	run_close_output(&run);
	if (run.src.fd > STDIN_FILENO)
		close(run.src.fd);
	if (run.stats_file)
		fclose(run.stats_file);
	if (run.pstats_file)
		fclose(run.pstats_file);
	stats__free(&run.end);
	free(trace_stop.bound);
	sys_formats__free(run.printer.formats);
	free(buf);
	return err;
}

int syscalls_cmd__main(int argc, char **argv)
{
	struct sys_env env = { 0 };
	char line[SYS_LINE_MAX];
	int ret;

	ret = sys_parse(argc, argv, &env);
	if (ret >= 0)
		goto out;
	ret = env.expr ? check_expr(&env) : 0;
	if (!ret)
		ret = check_ids(&env.sel);
	if (!ret && env.cgroup_path)
		ret = check_cgroup(env.cgroup_path, &env.sel.cgroup);
	if (ret)
		goto out;
	if (env.command)
		env.sel.children = (__u32)getpid();
	if (env.dry_run) {
		if (syscalls_cmd__spec(&env.sel, getpid(), line,
				       sizeof(line)) < 0) {
			ret = sys_error(1, "the spec line is over %d bytes",
					SYS_LINE_MAX);
			goto out;
		}
		printf("%s\n", line);
		ret = fflush(stdout) ? 1 : 0;
		goto out;
	}
	ret = sys_run(&env);
out:
	free(env.nr_sel);
	free(env.expr);
	return ret;
}
