// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_sum: the tables of -s and -S (struct sys_sum), by (process,
 * call), from KPT_IOC_SYSSUM's entries or from the calls of records, and
 * their print as perf trace -s's tables or JSON rows.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "json.h"
#include "syscalls_cmd.h"
#include "syscalls_comm.h"
#include "syscalls_sum.h"

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

void sys_sum__set_comms(struct sys_sum *s, struct sys_comms *comms)
{
	s->comms = comms;
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
	/* the module's 32-bit calls: i386 number | KPT_SYS_NR_COMPAT */
	__u64 nr = e->nr & KPT_SYS_NR_COMPAT ?
		   (e->nr & ~KPT_SYS_NR_COMPAT) | SYS_SUM_COMPAT : e->nr;
	struct sys_sum_row in = {
		.nr = nr, .pid = e->pid, .calls = e->calls,
		.errors = e->errors, .total_ns = e->total_ns,
		.min_ns = e->min_ns, .max_ns = e->max_ns,
		.sumsq = { e->sumsq_ns[0], e->sumsq_ns[1] },
	};
	unsigned int b;

	for (b = 0; b < KPT_SYS_SUM_BUCKETS; b++)
		in.lat[b] = e->lat_log2[b];
	memcpy(in.comm, e->comm, sizeof(in.comm));
	if (s->comms)
		sys_comms__get(s->comms, in.pid, e->comm, in.comm);
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
	if (s->comms) {
		sys_comms__note(s->comms, c->pid, c->tid, c->comm);
		sys_comms__get(s->comms, c->pid, c->comm, in.comm);
	}
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

const char *sys_sum__name(const struct sys_sum_row *r, char *buf,
			  size_t len)
{
	char name[32];

	if (r->nr & SYS_SUM_COMPAT) {
		/* "i386:open" */
		snprintf(buf, len, "i386:%s",
			 syscalls__name_fmt(SYSCALLS_32,
					    (unsigned int)(r->nr & 0xffffffffULL),
					    name, sizeof(name)));
		return buf;
	}
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

	name = sys_sum__name(r, buf, sizeof(buf));
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
