/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pstats: the module's per-probe counters, from
 * /sys/kernel/debug/kptrace/probe_stats, as a summary at exit.
 */
#ifndef __KPTRACE_PSTATS_H
#define __KPTRACE_PSTATS_H

#include <stdio.h>

#include <uapi/kptrace.h>

/*
 * Prints one line per probe to @f, after @before and a header if there is
 * any probe: calls, events, recorded, filtered, lost (by cause), kprobe
 * and maxactive misses, faults and truncations. Returns 0, or -errno when
 * @path cannot be read.
 */
int pstats__print(const char *path, FILE *f, const char *before);
/* The same from @in, an open probe_stats read again from its start. */
int pstats__print_from(FILE *in, FILE *f, const char *before);

/* One probe's total line (missing fields count 0). */
struct pstats_probe {
	unsigned long long calls, events, filtered, recorded;
	unsigned long long lost[KPT_LOST_NR];	/* by enum kpt_lost_cause */
	unsigned long long missed;		/* the kprobe's */
	unsigned long long maxactive_missed;	/* the kretprobe's */
	unsigned long long num_fault, str_fault, str_trunc, stack_trunc;
	/* an s probe's summary: calls its tables had no room for */
	unsigned long long summary_full;
};

/*
 * The table's head (after @before) and one probe's line, as pstats__print()
 * prints them, from books that are not the file's (a session's,
 * KPT_IOC_PROBE_STATS). @name is escaped.
 */
void pstats__print_head(FILE *f, const char *before);
void pstats__print_probe(FILE *f, const char *name,
			 const struct pstats_probe *ps);

/*
 * The total line of probe @name from @in, an open probe_stats read again
 * from its start. Returns 0, -ENOENT when no line is @name's, or -errno.
 */
int pstats__read_probe(FILE *in, const char *name, struct pstats_probe *ps);

#endif /* __KPTRACE_PSTATS_H */
