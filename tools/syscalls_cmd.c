// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_cmd: `kptrace syscalls [OPTION]... [--] [COMMAND [ARG]...]`.
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
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <uapi/kptrace_record.h>

#include "child.h"
#include "event.h"
#include "json.h"
#include "ksyms.h"
#include "paths.h"
#include "prom.h"
#include "probes.h"
#include "session.h"
#include "speclist.h"
#include "stats.h"
#include "summary.h"
#include "syscalls_cmd.h"
#include "syscalls_flight.h"
#include "trace.h"

#define EXIT_USAGE		2
#define SYS_GROUP		"kptrace"
#define SYS_LINE_MAX		4096	/* the module's KPT_SPEC_LINE_MAX */
#define SYS_READ_BUF		(1024 * 1024)
#define SYS_OUT_BUF		(1024 * 1024)
#define SYS_MAX_INTERVAL	86400	/* -i: a day */
#define SYS_STACK_DEF		16	/* --stack's frames */
#define SYS_SUM_ENTRIES		1024	/* summary's per CPU, the default */
#define SYS_SUM_BUF_MAX		(1024ULL * 1024 * 1024)	/* KPT_IOC_SYSSUM's */
#define SYS_PROM_FILE		"kptrace_syscalls.prom"	/* in --prometheus DIR */
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

/* Is x86-64 call @nr in @sel's nr= (which @sel->nr is not NULL for)? */
static bool sel_nr(const struct sys_sel *sel, unsigned int nr)
{
	return nr < syscalls__count(SYSCALLS_64) ? sel->nr[nr] : sel->nr_rest;
}

int syscalls_cmd__spec(const struct sys_sel *sel, pid_t tool_pid, char *buf,
		       size_t len)
{
	unsigned int nr, end;
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
	if (sel->comm[0]) {
		/* escaped as the module's listing prints it (its bytes as given) */
		char glob[4 * SYS_COMM_MAX + 1];

		/* a byte prints as 4 at most: all of them fit, never a cut glob */
		static_assert(SYS_COMM_MAX + 1 == KPT_SPEC_GLOB_LEN,
			      "-c's bytes are a comm glob's");
		kpt_print_glob(sel->comm, 0, glob, sizeof(glob));
		spec_add(buf, len, &pos, " comm=%s", glob);
	}
	if (sel->cgroup)
		spec_add(buf, len, &pos, " cgroup=%llu",
			 (unsigned long long)sel->cgroup);
	for (nr = 0; sel->nr && nr < SYS_NR_SPAN; nr = end + 1) {
		end = nr;
		if (!sel_nr(sel, nr))
			continue;
		while (end + 1 < SYS_NR_SPAN && sel_nr(sel, end + 1))
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
	if (sel->stack)
		spec_add(buf, len, &pos, " stack=%u", sel->stack);
	if (sel->summary)
		spec_add(buf, len, &pos, " summary");
	return pos < len ? (int)pos : -1;
}

/* --- the probe's exclude= ------------------------------------------------- */

/*
 * The value of " exclude=" in the canonical spec @spec (the module's
 * global number of the pid written), or 0.
 */
static __u32 spec_exclude(const char *spec)
{
	const char *p = strstr(spec, " exclude=");

	return p ? (__u32)strtoul(p + 9, NULL, 10) : 0;
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
		if (!p->no_lines)
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
		if (!p->no_lines && p->json) {
			syscall_fmt__json_open(p->out, &sc.call);
			if (e->nr_stack)
				event__json_stack(&p->lost_fmt, e);
			fputs("}\n", p->out);
		} else if (!p->no_lines) {
			syscall_fmt__print(p->out, &sc.call);
			putc_unlocked('\n', p->out);
			event__print_stack(&p->lost_fmt, e);
		}
		p->shown++;
		if (p->sum && (sys_sum__add_call(p->sum, &sc.call, sc.nr) ||
			       (p->by_comm &&
				sys_sum__add_call(p->by_comm, &sc.call,
						  sc.nr))) &&
		    !p->no_memory) {
			p->no_memory = true;
			trace__stop();
		}
	}
	if (ferror(p->out) && !p->out_error) {
		p->out_error = true;
		p->out_errno = trace__flush(p->out);
		trace__stop();		/* nowhere to print: end the run */
	}
}

/* --- the counts of -s and -S ---------------------------------------------- */

struct sys_sum_row {
	__u64 nr;			/* the call's number */
	__u32 pid;			/* the process (tgid) */
	__u64 calls;			/* 0: a free slot */
	__u64 errors, total_ns, min_ns, max_ns;
	__u64 sumsq[2];			/* of the ns of each call: low, high */
	__u64 lat[KPT_SYS_SUM_BUCKETS];	/* calls by log2 of ns, as lat_log2 */
	char comm[KPT_COMM_LEN];	/* untrusted; see comm_gen */
	/* the batch comm is from, and the calls of its entry there */
	unsigned long long comm_gen;
	__u64 comm_calls;
};

/*
 * An open-addressing table by (pid, nr), or (pid, comm, nr) if by_comm, a
 * power of 2 slots, half used.
 */
struct sys_sum {
	struct sys_sum_row *tab;
	size_t cap, used;
	bool by_comm;
	unsigned long long gen;		/* batches, sys_sum__next() */
	unsigned long long calls;
};

#define SYS_SUM_MIN_CAP		64

struct sys_sum *sys_sum__new(void)
{
	return calloc(1, sizeof(struct sys_sum));
}

struct sys_sum *sys_sum__new_by_comm(void)
{
	struct sys_sum *s = sys_sum__new();

	if (s)
		s->by_comm = true;
	return s;
}

void sys_sum__free(struct sys_sum *s)
{
	if (s)
		free(s->tab);
	free(s);
}

void sys_sum__clear(struct sys_sum *s)
{
	if (s->tab)
		memset(s->tab, 0, s->cap * sizeof(*s->tab));
	s->used = 0;
	s->calls = 0;
}

void sys_sum__next(struct sys_sum *s)
{
	s->gen++;
}

unsigned long long sys_sum__calls(const struct sys_sum *s)
{
	return s->calls;
}

/* Is row @r that of @key: its (pid, nr), and its comm if @by_comm? */
static bool sum_same(const struct sys_sum_row *r,
		     const struct sys_sum_row *key, bool by_comm)
{
	return r->pid == key->pid && r->nr == key->nr &&
	       (!by_comm || !strncmp(r->comm, key->comm, KPT_COMM_LEN));
}

static struct sys_sum_row *sum_slot(struct sys_sum_row *tab, size_t cap,
				    const struct sys_sum_row *key,
				    bool by_comm)
{
	__u64 h = ((__u64)key->pid << 32) ^ key->nr;
	size_t i;

	for (i = 0; by_comm && i < KPT_COMM_LEN && key->comm[i]; i++)
		h = (h ^ (unsigned char)key->comm[i]) * 0x100000001b3ULL;
	h *= 0x9e3779b97f4a7c15ULL;
	i = (size_t)(h >> 32) & (cap - 1);
	while (tab[i].calls && !sum_same(&tab[i], key, by_comm))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int sum_grow(struct sys_sum *s)
{
	size_t cap = s->cap ? s->cap * 2 : SYS_SUM_MIN_CAP, i;
	struct sys_sum_row *tab;

	if (cap > SIZE_MAX / 2 / sizeof(*tab))
		return -1;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->tab[i].calls)
			*sum_slot(tab, cap, &s->tab[i], s->by_comm) =
				s->tab[i];
	free(s->tab);
	s->tab = tab;
	s->cap = cap;
	return 0;
}

/*
 * @a + @b, held at the top: a row's total ns of a long run of long calls
 * (a thousand threads back from a 1 s futex every second add 2^64 ns in
 * 213 days) stays the largest it can say rather than wrap below its max.
 */
static __u64 add_sat(__u64 a, __u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

/* Adds @in (pid, nr, comm and the counts) to its row. */
static int sum_add(struct sys_sum *s, const struct sys_sum_row *in)
{
	struct sys_sum_row *r;
	unsigned int b;

	if (!in->calls)
		return 0;
	if ((s->used + 1) * 2 > s->cap && sum_grow(s))
		return -1;
	r = sum_slot(s->tab, s->cap, in, s->by_comm);
	if (!r->calls) {
		r->pid = in->pid;
		r->nr = in->nr;
		r->min_ns = in->min_ns;
		s->used++;
	}
	/* the comm of the entry with the most calls of the latest batch */
	if (r->comm_gen != s->gen || in->calls > r->comm_calls) {
		memcpy(r->comm, in->comm, sizeof(r->comm));
		r->comm_gen = s->gen;
		r->comm_calls = in->calls;
	}
	r->calls += in->calls;
	r->errors += in->errors;
	r->total_ns = add_sat(r->total_ns, in->total_ns);
	if (in->min_ns < r->min_ns)
		r->min_ns = in->min_ns;
	if (in->max_ns > r->max_ns)
		r->max_ns = in->max_ns;
	/* 128 bits: the low words' carry into the high */
	r->sumsq[0] += in->sumsq[0];
	r->sumsq[1] += in->sumsq[1] + (r->sumsq[0] < in->sumsq[0]);
	for (b = 0; b < KPT_SYS_SUM_BUCKETS; b++)
		r->lat[b] += in->lat[b];
	s->calls += in->calls;
	return 0;
}

int sys_sum__add(struct sys_sum *s, const struct kpt_syssum_entry *e)
{
	struct sys_sum_row in = {
		.nr = e->nr, .pid = e->pid, .calls = e->calls,
		.errors = e->errors, .total_ns = e->total_ns,
		.min_ns = e->min_ns, .max_ns = e->max_ns,
		.sumsq = { e->sumsq_ns[0], e->sumsq_ns[1] },
	};
	unsigned int b;

	for (b = 0; b < KPT_SYS_SUM_BUCKETS; b++)
		in.lat[b] = e->lat_log2[b];
	memcpy(in.comm, e->comm, sizeof(in.comm));
	return sum_add(s, &in);
}

int sys_sum__add_call(struct sys_sum *s, const struct syscall_call *c,
		      __u64 nr)
{
	__u64 ns = c->no_return ? 0 : c->dur_ns;
	struct sys_sum_row in = {
		.nr = nr, .pid = c->pid, .calls = 1,
		.errors = !c->no_return && syscall_fmt__is_error(c->ret),
		.total_ns = ns, .min_ns = ns, .max_ns = ns,
		.sumsq = { (__u64)((__uint128_t)ns * ns),
			   (__u64)(((__uint128_t)ns * ns) >> 64) },
	};
	unsigned int b = 0;

	/*
	 * the module's bucket: fls64((ns - !!ns) >> KPT_SYS_SUM_SHIFT), at
	 * most 31 (an upper bound is in its bucket)
	 */
	for (ns = (ns - !!ns) >> KPT_SYS_SUM_SHIFT;
	     ns && b < KPT_SYS_SUM_BUCKETS - 1; ns >>= 1)
		b++;
	in.lat[b] = 1;
	memcpy(in.comm, c->comm, strnlen(c->comm, KPT_COMM_LEN));
	sys_sum__next(s);
	return sum_add(s, &in);
}

/* sqrt() without libm: Newton's steps down from above, until they stop. */
static long double sum_sqrt(long double v)
{
	long double x, y;

	if (!(v > 0))
		return 0;
	x = v > 1 ? v : 1;
	for (;;) {
		y = (x + v / x) / 2;
		if (!(y < x))	/* no step down left (or not a number) */
			return x;
		x = y;
	}
}

/*
 * The sample standard deviation of a row's durations in % of their
 * average: s^2 = (sum of squares - sum^2 / n) / (n - 1), in long double
 * (64-bit mantissa: the 128-bit sum of squares loses its low bits only).
 */
static double sum_stddev_pct(const struct sys_sum_row *r)
{
	long double n = r->calls, sum = r->total_ns, sq, var;

	if (r->calls < 2 || !r->total_ns)
		return 0;
	sq = (long double)r->sumsq[1] * 18446744073709551616.0L +
	     (long double)r->sumsq[0];
	var = (sq - sum * sum / n) / (n - 1);
	if (!(var > 0))		/* rounding, or a total held at the top */
		return 0;
	return (double)(100 * sum_sqrt(var) / (sum / n));
}

/* perf trace's, as it prints them */
static const char sum_head[] =
	"   syscall            calls  errors  total       min       avg       max       stddev\n"
	"                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
	"   --------------- --------  ------ -------- --------- --------- ---------     ------\n";

/* A process of a table: its rows, and the comm of one of them. */
struct sum_proc {
	__u32 pid;
	unsigned long long events;
	const struct sys_sum_row *comm_row;
	const struct sys_sum_row **rows;
	size_t n;
};

static int sum_row_by_pid(const void *a, const void *b)
{
	const struct sys_sum_row *x = *(const struct sys_sum_row * const *)a;
	const struct sys_sum_row *y = *(const struct sys_sum_row * const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return 0;
}

/* perf trace's order: the longest total first; then most calls, nr */
static int sum_row_by_total(const void *a, const void *b)
{
	const struct sys_sum_row *x = *(const struct sys_sum_row * const *)a;
	const struct sys_sum_row *y = *(const struct sys_sum_row * const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return 0;
}

static int sum_proc_by_events(const void *a, const void *b)
{
	const struct sum_proc *x = a, *y = b;

	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return 0;
}

static const char *sum_name(const struct sys_sum_row *r, char *buf,
			    size_t len)
{
	if (r->nr > 0xffffffffULL) {
		snprintf(buf, len, "syscall_%llu", (unsigned long long)r->nr);
		return buf;
	}
	return syscalls__name_fmt(SYSCALLS_64, (unsigned int)r->nr, buf, len);
}

static void sum_print_row(FILE *f, const struct sum_proc *p,
			  const struct sys_sum_row *r, bool json,
			  long interval)
{
	double pct = sum_stddev_pct(r);
	const char *name;
	char buf[32];

	name = sum_name(r, buf, sizeof(buf));
	if (!json) {
		fprintf(f, "   %-15s %8llu %6llu %9.3f %9.3f %9.3f %9.3f %9.2f%%\n",
			name, (unsigned long long)r->calls,
			(unsigned long long)r->errors, r->total_ns / 1e6,
			r->min_ns / 1e6,
			(double)((long double)r->total_ns / r->calls / 1e6L),
			r->max_ns / 1e6, pct);
		return;
	}
	if (interval >= 0)
		fprintf(f, "{\"interval\":%ld,", interval);
	else
		putc_unlocked('{', f);
	fprintf(f, "\"pid\":%u,\"comm\":", p->pid);
	json__str(f, p->comm_row->comm, KPT_COMM_LEN);
	fputs(",\"syscall\":", f);
	json__str(f, name, strlen(name));
	fprintf(f, ",\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu",
		(unsigned long long)r->calls, (unsigned long long)r->errors,
		(unsigned long long)r->total_ns);
	fprintf(f, ",\"min_ns\":%llu,\"max_ns\":%llu,\"stddev_pct\":%.2f}\n",
		(unsigned long long)r->min_ns, (unsigned long long)r->max_ns,
		pct);
}

static void sum_print_proc(FILE *f, const struct sum_proc *p,
			   unsigned long long all, bool json, long interval)
{
	size_t i;

	if (!json) {
		putc_unlocked(' ', f);
		event__text_comm(f, p->comm_row->comm);
		fprintf(f, " (%u), %llu events, %.1f%%\n\n", p->pid, p->events,
			100.0 * p->events / all);
		fputs(sum_head, f);
	}
	for (i = 0; i < p->n; i++)
		sum_print_row(f, p, p->rows[i], json, interval);
	if (!json)
		fputs("\n\n", f);
}

int sys_sum__print(FILE *f, const struct sys_sum *s, bool json,
		   const char *title, long interval)
{
	const struct sys_sum_row **rows;
	struct sum_proc *procs;
	size_t i, j, n = 0, np = 0;

	rows = calloc(s->used ? s->used : 1, sizeof(*rows));
	procs = calloc(s->used ? s->used : 1, sizeof(*procs));
	if (!rows || !procs) {
		free(rows);
		free(procs);
		return -1;
	}
	for (i = 0; i < s->cap; i++)
		if (s->tab[i].calls)
			rows[n++] = &s->tab[i];
	qsort(rows, n, sizeof(*rows), sum_row_by_pid);
	for (i = 0; i < n; i = j) {
		struct sum_proc *p = &procs[np++];

		p->pid = rows[i]->pid;
		p->rows = &rows[i];
		p->comm_row = rows[i];
		for (j = i; j < n && rows[j]->pid == p->pid; j++) {
			const struct sys_sum_row *r = rows[j];

			p->events += r->calls;
			if (r->comm_gen > p->comm_row->comm_gen ||
			    (r->comm_gen == p->comm_row->comm_gen &&
			     r->comm_calls > p->comm_row->comm_calls))
				p->comm_row = r;
		}
		p->n = j - i;
		qsort(p->rows, p->n, sizeof(*rows), sum_row_by_total);
	}
	qsort(procs, np, sizeof(*procs), sum_proc_by_events);
	if (!json)
		fprintf(f, "\n %s:\n\n%s", title, np ? "" : " no system calls\n\n");
	for (i = 0; i < np; i++)
		sum_print_proc(f, &procs[i], s->calls, json, interval);
	free(rows);
	free(procs);
	return 0;
}

/* --- --prometheus ----------------------------------------------------------- */

static int sum_row_by_labels(const void *a, const void *b)
{
	const struct sys_sum_row *x = *(const struct sys_sum_row * const *)a;
	const struct sys_sum_row *y = *(const struct sys_sum_row * const *)b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	c = strncmp(x->comm, y->comm, KPT_COMM_LEN);
	if (c)
		return c;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return 0;
}

/* {syscall="NAME",pid="PID",comm="COMM"[,cgroup="PATH"], without the '}' */
static void prom_labels(FILE *f, const struct sys_sum_row *r,
			const char *cgroup)
{
	char buf[32];

	fputs("{syscall=\"", f);
	prom__value(f, sum_name(r, buf, sizeof(buf)), SIZE_MAX);
	fprintf(f, "\",pid=\"%u\",comm=\"", r->pid);
	prom__value(f, r->comm, KPT_COMM_LEN);
	putc('"', f);
	if (cgroup) {
		fputs(",cgroup=\"", f);
		prom__value(f, cgroup, SIZE_MAX);
		putc('"', f);
	}
}

/* A counter of the books, without labels. */
static void prom_book(FILE *f, const char *metric, const char *help,
		      unsigned long long v)
{
	prom__head(f, metric, "counter", help);
	fprintf(f, "%s %llu\n", metric, v);
}

static void prom_books(FILE *f, const struct pstats_probe *ps)
{
	static const char lost[] = "kptrace_syscall_lost_total";
	static const char missed[] = "kptrace_syscall_missed_total";
	unsigned int i;

	prom_book(f, "kptrace_syscall_seen_total",
		  "Calls the probe saw: those its handler saw, and those it missed.",
		  ps->calls + ps->maxactive_missed + ps->missed);
	prom_book(f, "kptrace_syscall_filtered_total",
		  "Calls its handler saw that the selection left out.",
		  ps->filtered);
	prom_book(f, "kptrace_syscall_recorded_total",
		  "Selected calls the probe kept: counted in its tables (-s), recorded (-S).",
		  ps->recorded);
	prom__head(f, lost, "counter", "Selected calls lost, by cause.");
	for (i = 0; i < KPT_LOST_NR; i++)
		fprintf(f, "%s{cause=\"%s\"} %llu\n", lost,
			event__lost_cause(i), ps->lost[i]);
	prom_book(f, "kptrace_syscall_table_full_total",
		  "Selected calls not counted: their CPU's summary table had no room.",
		  ps->summary_full);
	prom__head(f, missed, "counter",
		   "Calls missed: no kretprobe instance free (return), or by the kprobe (kprobe).");
	fprintf(f, "%s{cause=\"return\"} %llu\n", missed, ps->maxactive_missed);
	fprintf(f, "%s{cause=\"kprobe\"} %llu\n", missed, ps->missed);
}

/* Each row's @count (calls or errors) as counter @metric. */
static void prom_counts(FILE *f, const struct sys_sum_row **rows, size_t n,
			const char *cgroup, bool errors)
{
	const char *metric = errors ? "kptrace_syscall_errors_total" :
				      "kptrace_syscall_calls_total";
	size_t i;

	if (!n)
		return;
	prom__head(f, metric, "counter", errors ?
		   "System calls that returned an error (-4095..-1)." :
		   "System calls (exit and exit_group at their entry).");
	for (i = 0; i < n; i++) {
		fputs(metric, f);
		prom_labels(f, rows[i], cgroup);
		fprintf(f, "} %llu\n", (unsigned long long)(errors ?
			rows[i]->errors : rows[i]->calls));
	}
}

/*
 * The histogram: per row, the buckets 0..30 that had a call, cumulative
 * (le the bucket's upper bound, 2^(10+b) ns, which is in it), +Inf, _sum
 * and _count.
 */
static void prom_latency(FILE *f, const struct sys_sum_row **rows, size_t n,
			 const char *cgroup)
{
	static const char metric[] = "kptrace_syscall_latency_seconds";
	unsigned long long cum;
	unsigned int b;
	size_t i;

	if (!n)
		return;
	prom__head(f, metric, "histogram",
		   "Time from a call's entry to its return (exit and exit_group: 0), log2 buckets.");
	for (i = 0; i < n; i++) {
		const struct sys_sum_row *r = rows[i];

		cum = 0;
		for (b = 0; b < KPT_SYS_SUM_BUCKETS - 1; b++) {
			if (!r->lat[b])
				continue;
			cum += r->lat[b];
			fprintf(f, "%s_bucket", metric);
			prom_labels(f, r, cgroup);
			fputs(",le=\"", f);
			prom__seconds(f, 1ULL << (KPT_SYS_SUM_SHIFT + b));
			fprintf(f, "\"} %llu\n", cum);
		}
		fprintf(f, "%s_bucket", metric);
		prom_labels(f, r, cgroup);
		fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)r->calls);
		fprintf(f, "%s_sum", metric);
		prom_labels(f, r, cgroup);
		fputs("} ", f);
		prom__seconds(f, r->total_ns);
		fprintf(f, "\n%s_count", metric);
		prom_labels(f, r, cgroup);
		fprintf(f, "} %llu\n", (unsigned long long)r->calls);
	}
}

int sys_sum__prom(FILE *f, const struct sys_sum *s, const char *cgroup,
		  const struct pstats_probe *ps)
{
	const struct sys_sum_row **rows;
	size_t i, n = 0;

	rows = calloc(s->used ? s->used : 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->tab[i].calls)
			rows[n++] = &s->tab[i];
	qsort(rows, n, sizeof(*rows), sum_row_by_labels);
	if (ps)
		prom_books(f, ps);
	prom_counts(f, rows, n, cgroup, false);
	prom_counts(f, rows, n, cgroup, true);
	prom_latency(f, rows, n, cgroup);
	free(rows);
	return 0;
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

void syscalls_cmd__sum_summary(FILE *f, const struct pstats_probe *ps,
			       unsigned long long read,
			       unsigned long long own)
{
	unsigned long long lost = 0, seen, decided;
	const char *sep = " (";
	unsigned int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		lost += ps->lost[i];
	seen = ps->calls + ps->maxactive_missed + ps->missed;
	fprintf(f, "kptrace: %llu calls seen, %llu counted in the kernel",
		seen, ps->recorded);
	/* what every KPT_IOC_SYSSUM gave, against the module's count */
	if (read == ps->recorded)
		fputs(" (all read)", f);
	else if (read < ps->recorded)
		fprintf(f, " (%llu read: %llu counted after the last read)",
			read, ps->recorded - read);
	else
		fprintf(f, " (%llu read: %llu more than counted)", read,
			read - ps->recorded);
	fprintf(f, ", %llu filtered, %llu lost", ps->filtered, lost);
	for (i = 0; i < KPT_LOST_NR; i++) {
		if (!ps->lost[i])
			continue;
		fprintf(f, "%s%s %llu", sep, event__lost_cause(i), ps->lost[i]);
		sep = ", ";
	}
	if (lost)
		fputc(')', f);
	fprintf(f, ", %llu not counted (summary table full)",
		ps->summary_full);
	fprintf(f, ", %llu missed returns", ps->maxactive_missed);
	if (ps->missed)
		fprintf(f, ", %llu missed by the kprobe", ps->missed);
	decided = ps->recorded + ps->filtered + lost + ps->summary_full;
	if (ps->calls > decided)
		fprintf(f, ", %llu in flight at detach", ps->calls - decided);
	else if (ps->calls < decided)
		fprintf(f, " (the counters add up to %llu more than seen)",
			decided - ps->calls);
	if (own)
		fprintf(f, "; %llu of kptrace itself, not in the tables", own);
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
"                             15 bytes at most, taken as they are:\n"
"                             -c 'Web Content')\n"
"  -G, --cgroup=PATH          only tasks in the cgroup v2 directory PATH or\n"
"                             in a cgroup below it\n"
"  -e, --expr=NAME[,NAME]...  only these calls: names or globs, !NAME\n"
"                             leaves out (open*,!openat2 or !read,!write)\n"
"      --failure              only calls that failed (returned -4095..-1)\n"
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
"  -o, --output=FILE          print to FILE instead of the standard output\n"
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
"    [cgroup=ID] [nr=N[-M],..] [failure] [duration=NS] [stack=N] [summary]\n"
"(PID the tool's own; with COMMAND, children=PID: its descendants); a\n"
"refusal prints the module's reason under the column at fault. It reads\n"
"the probe's records, no other's; the probe goes with the session when\n"
"the tool ends, whatever ends it (a signal, an error, COMMAND's exit,\n"
"kill -9): nothing is left to delete. Only 64-bit tasks are traced. The\n"
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
"most calls (\"events\") first, named by the comm of its busiest call in\n"
"the last read that had it; in it, the calls with the longest total first.\n"
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
	{ "summary",	no_argument,		NULL, 's' },
	{ "with-summary", no_argument,		NULL, 'S' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "prometheus",	required_argument,	NULL, OPT_PROMETHEUS },
	{ "flight",	required_argument,	NULL, OPT_FLIGHT },
	/* refused, with the reason */
	{ "stack",	optional_argument,	NULL, OPT_STACK },
	{ NULL,		0,			NULL, 0 },
};

/* The command line, checked. */
struct sys_env {
	struct sys_sel sel;
	bool *nr_sel;		/* -e's selection, syscalls__count() */
	char *expr;		/* -e's lists, joined by ',' */
	const char *cgroup_path;
	bool json, dry_run, quiet, selecting;
	bool summary_only, with_summary;	/* -s, -S */
	unsigned int interval;			/* -i SECS, 0: none */
	size_t flight;				/* --flight SIZE, 0: none */
	const char *prom_dir;			/* --prometheus DIR */
	char *cgroup_label;	/* with it and -G: the cgroup's real path */
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
	while ((opt = getopt_long(argc, argv, "+:p:t:c:G:e:jo:w:r:nqhsSi:",
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
	if (!env->nr_sel)
		return sys_error(1, "out of memory");
	n = syscalls__select(SYSCALLS_64, env->expr, env->nr_sel,
			     &env->sel.nr_rest, err, sizeof(err));
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

/* --- a run ---------------------------------------------------------------------- */

struct sys_run {
	struct sys_env *env;
	struct source src;
	struct sink sink;
	struct sys_printer printer;
	struct flight *flight;	/* --flight */
	struct ksyms *ksyms;	/* --stack and -r: names the frames */
	FILE *out;
	struct session session;	/* the tool's: its probe goes with it */
	__u32 probe_id;
	struct stats start, end;
	struct books books;
	char name[32];		/* sys_PID */
	struct child child;
	/* -s and -S: the whole run's counts; -i: the interval's too */
	struct sys_sum *sum, *interval;
	/* --prometheus: the whole run's by comm; the last books; an error */
	struct sys_sum *prom;
	const struct pstats_probe *ps_end;
	bool prom_failed;
	/* -s: KPT_IOC_SYSSUM's buffer, and what the reads gave */
	struct kpt_syssum_entry *sum_buf;
	size_t sum_len;
	unsigned int nr_cpus;
	unsigned long long sum_read;	/* calls of every read */
	unsigned long long sum_own;	/* of them, the tool's own */
	__u32 self_pid;		/* the probe's exclude=: global; 0: none */
	char *listing;		/* its line of the probes listing */
	unsigned long intervals;	/* -i: printed */
	unsigned long long next_interval;	/* -i: at this second */
	struct timespec t0;		/* armed */
	struct timespec t_read;		/* the last read */
	struct timespec t_interval;	/* the interval's start */
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

/*
 * The kernel's symbols, for the frames of the call traces printed (live
 * --stack; -r, whose records may have them): without them, a frame is
 * its bare address, which scripts/decode_stacktrace.sh can still read.
 */
static void run_ksyms(struct sys_run *run)
{
	const char *path = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
	/* -r: the saved calls may have none */
	bool quiet = !run->env->sel.stack || run->env->quiet;

	run->ksyms = ksyms__load_frames(path, quiet);
	run->printer.lost_fmt.ksyms = run->ksyms;
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
	run->printer.no_lines = env->summary_only;
	if (env->summary_only || env->with_summary) {
		run->printer.sum = run->sum;
		run->printer.by_comm = run->prom;
	}
	/* -s on records: no line, no argument to name */
	run->printer.formats = env->summary_only ? NULL :
		sys_formats__new(getenv("KPTRACE_TRACEFS"), env->quiet);
	if (!run->printer.formats && !env->summary_only)
		return sys_error(-1, "out of memory");
	run->printer.lost_fmt.out = run->out;
	run->printer.lost_fmt.json = env->json;
	if ((env->sel.stack || env->replay_path) && !env->summary_only)
		run_ksyms(run);
	run->sink.fmt.out = run->out;
	run->sink.print = sys_printer__record;
	run->sink.priv = &run->printer;
	return 0;
}

/* --flight: the recorder, in front of the printer. 0, or -1. */
static int run_flight(struct sys_run *run)
{
	struct sys_env *env = run->env;

	run->flight = flight__new(env->flight, &run->sink, &run->printer,
				  !env->quiet && !env->command);
	return run->flight ? 0 : -1;
}

/*
 * Makes the tool's session (--flight: its rings overwrite, SIZE per CPU
 * at least), adds the probe and learns its id and exclude= from the
 * module's answer. 0, or -1 with a message.
 */
static int run_arm(struct sys_run *run)
{
	struct session_opts opts = { .clock = KPT_CLOCK_AUTO };
	struct spec_line sl = { 0 };
	char line[SYS_LINE_MAX], *spec;
	struct kpt_info info;

	if (syscalls_cmd__spec(&run->env->sel, getpid(), line,
			       sizeof(line)) < 0)
		return sys_error(-1, "the spec line is over %d bytes",
				 SYS_LINE_MAX);
	if (run->env->flight) {
		opts.ring_bytes = flight__ring_bytes(run->env->flight);
		opts.overwrite = true;
	}
	run->src.path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
	if (session__new(&run->session, &run->src, &opts, &info))
		return -1;
	run->nr_cpus = info.nr_cpus ? info.nr_cpus : 1;
	if (!source__stats(&run->src, &run->start)) {
		stats__free(&run->start);	/* the totals are enough */
		run->books.start = &run->start;
	}
	sl.line = line;
	sl.user = line;
	if (session__add(&run->session, &sl, &run->probe_id, &spec))
		return -1;
	/*
	 * Its own calls, as the module numbers it (exclude=, global; in a
	 * container's pid namespace getpid() may be another process's)
	 */
	run->self_pid = spec_exclude(spec);
	trace_env.only_probe = true;
	trace_env.probe_id = run->probe_id;
	trace_env.self_pid = run->self_pid;
	run->listing = session__listing_line(&run->session, spec,
					     run->probe_id);
	free(spec);
	if (!run->listing)
		return sys_error(-1, "out of memory");
	if (!run->env->quiet && !run->env->command)
		fprintf(stderr, "kptrace: %s system calls (%s)... Hit Ctrl-C to end.\n",
			run->env->sel.summary ? "counting" : "tracing", line);
	return 0;
}

/* -w FILE: FILE.probes gets the probe's listing line, for kptrace -r. */
static int run_save_listing(struct sys_run *run)
{
	struct probes *probes;
	int ret = -1;

	if (run->sink.fd <= STDOUT_FILENO)
		return 0;
	probes = probes__load(NULL, NULL, true, false);
	if (probes && !probes__add(probes, run->listing))
		ret = probes__save_to(probes, run->sink.path);
	else
		sys_error(0, "out of memory");
	probes__free(probes);
	return ret;
}

/* The end of the session: its probe goes. */
static void run_close_session(struct sys_run *run)
{
	if (run->src.fd >= 0)
		close(run->src.fd);
	run->src.fd = -1;
	run->src.session = NULL;
}

/* The summary of a live run: the probe's counters, else what was read. */
static void run_summary(struct sys_run *run, const struct pstats_probe *ps,
			int ps_err)
{
	bool saved = run->env->save_path;
	unsigned long long shown = saved ?
		trace_counts.entries + trace_counts.returns :
		run->printer.shown;

	if (run->env->sel.summary) {
		if (!ps_err)
			syscalls_cmd__sum_summary(stderr, ps, run->sum_read,
						  run->sum_own);
		else
			fprintf(stderr, "kptrace: %llu calls read (no books of the probe)\n",
				run->sum_read);
		return;
	}
	drain__report(&run->books);
	if (!ps_err) {
		syscalls_cmd__summary(stderr, ps, shown, trace_counts.own,
				      saved);
		return;
	}
	fprintf(stderr, "kptrace: %llu %s (no books of the probe)\n", shown,
		saved ? "saved" : "shown");
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
		run->printer.shown, saved ? "records saved" :
		run->printer.no_lines ? "calls counted" : "calls shown",
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
	e = trace__flush(run->out);
	if (run->printer.out_error && run->printer.out_errno)
		e = run->printer.out_errno;
	else if (run->printer.out_error && !e)
		e = EIO;
	/*
	 * A reader that closed the pipe (kptrace syscalls -- CMD | head)
	 * ended the output, not the run in error: COMMAND's status stands.
	 */
	if (e && e != EPIPE) {
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

/* --- -s: the counts of the kernel ------------------------------------------ */

/* The stop signals and SIGCHLD, held during a -s run: sigtimedwait() */
static sigset_t sum_signals;

static double ts_since(const struct timespec *t, const struct timespec *t0)
{
	return (double)(t->tv_sec - t0->tv_sec) +
	       (t->tv_nsec - t0->tv_nsec) / 1e9;
}

/* A write to the output failed: the run stops, as the printer's does. */
static int sum_out_check(struct sys_run *run)
{
	if (!ferror(run->out))
		return 0;
	if (!run->printer.out_error) {
		run->printer.out_error = true;
		run->printer.out_errno = trace__flush(run->out);
	}
	return -1;
}

/*
 * One ioctl(KPT_IOC_SYSSUM): ends the kernel's interval and adds its
 * entries (one per CPU and (process, call)) to the run's counts and, with
 * -i, to the interval's; the tool's own calls are counted apart. The
 * buffer grows to the size an -ENOSPC asks for (nothing was ended then).
 * 0, or -1 with a message.
 */
static int sum_read(struct sys_run *run)
{
	const struct kpt_syssum_entry *e;
	struct kpt_syssum_req req;
	__u32 self = run->self_pid;
	unsigned int tries = 0;
	size_t i;
	void *buf;

	for (;;) {
		memset(&req, 0, sizeof(req));
		snprintf(req.name, sizeof(req.name), "%s", run->name);
		req.buf = (__u64)(uintptr_t)run->sum_buf;
		req.len = run->sum_len;
		if (!ioctl(run->src.fd, KPT_IOC_SYSSUM, &req))
			break;
		if (errno == EINTR && ++tries < 100)
			continue;
		if (errno == ENOTTY)
			return sys_error(-1, "%s has no KPT_IOC_SYSSUM: an older module",
					 run->src.path);
		if (errno != ENOSPC || req.size <= run->sum_len ||
		    req.size > SYS_SUM_BUF_MAX || ++tries > 3)
			return sys_error(-1, "KPT_IOC_SYSSUM of %s/%s: %s",
					 SYS_GROUP, run->name,
					 strerror(errno));
		buf = realloc(run->sum_buf, req.size);
		if (!buf)
			return sys_error(-1, "out of memory");
		run->sum_buf = buf;
		run->sum_len = req.size;
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_read);
	if (req.size > run->sum_len ||
	    req.size != (__u64)req.nr_entries * sizeof(*e))
		return sys_error(-1, "KPT_IOC_SYSSUM of %s/%s: %u entries in %llu bytes",
				 SYS_GROUP, run->name, req.nr_entries,
				 (unsigned long long)req.size);
	sys_sum__next(run->sum);
	if (run->interval)
		sys_sum__next(run->interval);
	for (i = 0; i < req.nr_entries; i++) {
		e = &run->sum_buf[i];
		run->sum_read += e->calls;
		if (self && e->pid == self) {
			run->sum_own += e->calls;
			continue;
		}
		if (sys_sum__add(run->sum, e) ||
		    (run->interval && sys_sum__add(run->interval, e)) ||
		    (run->prom && sys_sum__add(run->prom, e)))
			return sys_error(-1, "out of memory");
	}
	return 0;
}

/* The tables are printed: but with --prometheus, if not as -j's rows. */
static bool run_prints_tables(const struct sys_run *run)
{
	return !run->env->prom_dir || run->env->json;
}

/*
 * --prometheus: DIR/SYS_PROM_FILE from the whole run's counts by comm, and
 * the books of @ps, or if NULL of the probe's counters read now (none if
 * they cannot be read). 0, or -1 with a message.
 */
static int run_prom(struct sys_run *run, const struct pstats_probe *ps)
{
	struct pstats_probe now;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	if (!ps && !session__probe_books(&run->session, run->probe_id, &now))
		ps = &now;
	m = open_memstream(&text, &len);
	if (!m)
		return sys_error(-1, "out of memory");
	ret = sys_sum__prom(m, run->prom, run->env->cgroup_label, ps);
	if (fclose(m) || ret) {
		free(text);
		return sys_error(-1, "out of memory");
	}
	ret = prom__write(run->env->prom_dir, SYS_PROM_FILE, text, len);
	free(text);
	return ret;
}

/* -i: prints the interval that the last read ended, and starts the next. */
static int sum_interval(struct sys_run *run)
{
	char title[128];

	run->intervals++;
	snprintf(title, sizeof(title),
		 "Summary of events, interval %lu (%.3f to %.3f s)",
		 run->intervals, ts_since(&run->t_interval, &run->t0),
		 ts_since(&run->t_read, &run->t0));
	if (run_prints_tables(run) &&
	    sys_sum__print(run->out, run->interval, run->env->json, title,
			   run->env->json ? (long)run->intervals : -1))
		return sys_error(-1, "out of memory");
	sys_sum__clear(run->interval);
	run->t_interval = run->t_read;
	fflush(run->out);
	return sum_out_check(run);
}

/*
 * -s: waits for the stop (SIGINT, SIGTERM, COMMAND's exit), the signals
 * held and taken by sigtimedwait(); reads the counts every second, so that
 * each CPU's table needs room for a second's (process, call)s only, and
 * with -i prints an interval every SECS seconds. 0, or -1 on an error.
 */
static int sum_loop(struct sys_run *run)
{
	unsigned int secs = run->env->interval;
	struct timespec next = run->t0, now, left;
	unsigned long long tick;
	siginfo_t si;
	int sig;

	run->next_interval = secs;
	next.tv_sec++;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec)) {
			/* whole seconds since t0: a late tick skips the missed */
			tick = (unsigned long long)ts_since(&now, &run->t0);
			if (sum_read(run))
				return -1;
			if (secs && tick >= run->next_interval) {
				run->next_interval = (tick / secs + 1) * secs;
				if (sum_interval(run))
					return -1;
				/* a failed write is said; the next may work */
				if (run->prom && run_prom(run, NULL))
					run->prom_failed = true;
			}
			next = run->t0;
			next.tv_sec += (time_t)tick + 1;
			continue;
		}
		left.tv_sec = next.tv_sec - now.tv_sec;
		left.tv_nsec = next.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		sig = sigtimedwait(&sum_signals, &si, &left);
		if (sig < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (sig < 0)
			return sys_error(-1, "sigtimedwait: %s", strerror(errno));
		if (sig != SIGCHLD)
			return 0;	/* SIGINT, SIGTERM; SIGALRM: a stop */
		if (child__sigchld())
			return 0;
	}
}

/* -s: the tables at the end: the last interval's (-i), the whole run's. */
static int sum_tables(struct sys_run *run)
{
	char title[128];

	if (run->env->interval && sum_interval(run))
		return -1;
	if (run->env->interval)
		snprintf(title, sizeof(title),
			 "Summary of events, the whole run (0.000 to %.3f s, %lu interval%s)",
			 ts_since(&run->t_read, &run->t0), run->intervals,
			 run->intervals == 1 ? "" : "s");
	else
		snprintf(title, sizeof(title), "Summary of events");
	if (run_prints_tables(run) &&
	    sys_sum__print(run->out, run->sum, run->env->json, title,
			   run->env->interval ? 0 : -1))
		return sys_error(-1, "out of memory");
	return sum_out_check(run);
}

/* -s: holds the signals sum_loop() takes, from the start of the run. */
static void sum_hold_signals(void)
{
	sigemptyset(&sum_signals);
	signals__add_stops(&sum_signals);
	sigaddset(&sum_signals, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sum_signals, NULL);
}

/* -s: the buffer of a read, for the module's default table size. */
static int sum_start(struct sys_run *run)
{
	run->sum_len = (size_t)run->nr_cpus * SYS_SUM_ENTRIES *
		       sizeof(*run->sum_buf);
	run->sum_buf = malloc(run->sum_len);
	if (!run->sum_buf)
		return sys_error(-1, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	run->t_interval = run->t0;
	run->t_read = run->t0;
	return 0;
}

/*
 * The table(s) at the end, unless the output already failed: -s live,
 * the kernel's counts (sum_tables()); -S, or -s on records (-r), the
 * calls of the records. --prometheus: the file, whatever became of the
 * output, with the books of run->ps_end. 0, or -1 with a message.
 */
static int run_table(struct sys_run *run)
{
	int err = 0;

	if (run->prom && !run->printer.no_memory &&
	    run_prom(run, run->ps_end))
		err = -1;
	if (!run->sum || !run->out || run->printer.out_error)
		return err;
	if (run->env->sel.summary)
		return sum_tables(run) ? -1 : err;
	if (run->printer.no_memory)
		return sys_error(-1, "out of memory: the table is not printed");
	if (run_prints_tables(run) &&
	    sys_sum__print(run->out, run->sum, run->env->json,
			   "Summary of events", -1))
		return sys_error(-1, "out of memory");
	return sum_out_check(run) ? -1 : err;
}

static int sys_run(struct sys_env *env)
{
	struct sys_run run = {
		.env = env,
		.src = { .fd = -1, .size = -1 },
		.child = CHILD_INIT,
	};
	struct pstats_probe ps;
	int err = 1, status = -1, ps_err = -1;
	char *buf = NULL;

	snprintf(run.name, sizeof(run.name), "sys_%d", (int)getpid());
	if (signals__setup())
		return 1;
	/* a closed pipe must not kill the tool with its probe armed */
	signal(SIGPIPE, SIG_IGN);
	buf = malloc(SYS_READ_BUF);
	if (env->summary_only || env->with_summary)
		run.sum = sys_sum__new();
	if (env->interval)
		run.interval = sys_sum__new();
	if (env->prom_dir)
		run.prom = sys_sum__new_by_comm();
	if (!buf || ((env->summary_only || env->with_summary) && !run.sum) ||
	    (env->interval && !run.interval) || (env->prom_dir && !run.prom)) {
		sys_error(0, "out of memory");
		goto out;
	}
	if (env->replay_path) {
		run.src.path = env->replay_path;
		if (replay__open(&run.src) || run_sink(&run))
			goto out;
		err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ?
		      1 : 0;
		if (run_table(&run))
			err = 1;
		if (run_close_output(&run))
			err = 1;
		if (!env->quiet)
			replay_summary(&run);
		goto out;
	}

	if (env->sel.summary)
		sum_hold_signals();
	/* forked first: COMMAND never holds the session's file */
	if (env->command && child__start(&run.child, env->command))
		goto out;
	/*
	 * Armed first: a refusal (no module, a spec the module rejects)
	 * leaves the -o and -w files as they were. Nothing is read before
	 * the outputs are open, and COMMAND waits for child__go().
	 */
	if (run_arm(&run) ||
	    (env->sel.summary ? run_output(&run) : run_sink(&run)) ||
	    (env->save_path && run_save_listing(&run)) ||
	    (env->flight && run_flight(&run)) ||
	    (env->sel.summary && sum_start(&run)))
		goto end;
	child__go(&run.child);

	if (env->sel.summary) {
		err = sum_loop(&run) ? 1 : 0;
		alarm(0);	/* trace__stop()'s, from COMMAND's end */
	} else if (run.flight) {
		err = flight__run(run.flight, &run.src, buf, SYS_READ_BUF,
				  &run.session, run.probe_id) ? 1 : 0;
	} else {
		err = records__pump(&run.src, &run.sink, buf, SYS_READ_BUF) ?
		      1 : 0;
	}
	if (env->command)
		status = child__end(&run.child, env->command);
	/* -s: the last read, after COMMAND's end, before the counters */
	if (env->sel.summary && !err && sum_read(&run))
		err = 1;
	/* after the drain, before the probe goes: its last counters */
	ps_err = session__probe_books(&run.session, run.probe_id, &ps);
	if (run.flight && !ps_err)
		flight__books(run.flight, &ps);
	if (!ps_err)
		run.ps_end = &ps;
	if (!env->sel.summary && !source__stats(&run.src, &run.end))
		run.books.end = &run.end;
	/* -s: nothing more to read: the probe goes before the tables */
	if (env->sel.summary)
		run_close_session(&run);
	if (run_table(&run) || run.prom_failed)
		err = 1;
	if (run_close_output(&run))
		err = 1;
	run_close_session(&run);
	if (!env->quiet) {
		run_summary(&run, &ps, ps_err);
		if (!env->sel.summary)
			books__check(&run.books);
	}
end:
	run_close_session(&run);
	if (env->command && status < 0 && run.child.pid > 0)
		child__end(&run.child, env->command);
	if (!err && status >= 0)
		err = status;
out:
	run_close_output(&run);
	if (run.src.fd > STDIN_FILENO)
		close(run.src.fd);
	stats__free(&run.end);
	free(run.listing);
	free(trace_stop.bound);
	sys_formats__free(run.printer.formats);
	ksyms__free(run.ksyms);
	flight__free(run.flight);
	sys_sum__free(run.sum);
	sys_sum__free(run.interval);
	sys_sum__free(run.prom);
	free(run.sum_buf);
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
	free(env.cgroup_label);
	return ret;
}
