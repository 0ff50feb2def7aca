// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_prom: a table by comm of -s or -S (struct sys_sum) as the
 * Prometheus text of --prometheus, with the probe's books.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "prom.h"
#include "syscalls_cmd.h"
#include "syscalls_sum.h"

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
	prom__value(f, sys_sum__name(r, buf, sizeof(buf)), SIZE_MAX);
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
