/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats: the module's counters, from /sys/kernel/debug/kptrace/stats.
 */
#ifndef __KPTRACE_STATS_H
#define __KPTRACE_STATS_H

#include <stdio.h>
#include <linux/types.h>

#include <uapi/kptrace.h>

struct stats_cpu {
	__u64 hits;
	__u64 recorded;
	__u64 lost[KPT_LOST_NR];
	__u64 read;
	__u64 pending;
};

struct stats {
	__u64 hits;
	__u64 recorded;
	__u64 lost;
	__u64 lost_cause[KPT_LOST_NR];
	__u64 missed;
	__u64 read;
	__u64 pending;
	unsigned int nr_cpus;	/* 1 + the highest cpuN seen */
	struct stats_cpu *cpu;
};

/* Returns 0, or -errno when @path cannot be read. */
int stats__read(const char *path, struct stats *stats);
/*
 * The same from @f, read again from its start: a reader that keeps the
 * stats file open reads its counters without an open(), which a probe on
 * the open path would record.
 */
int stats__read_from(FILE *f, struct stats *stats);
void stats__print(FILE *f, const struct stats *stats);
void stats__free(struct stats *stats);

#endif /* __KPTRACE_STATS_H */
