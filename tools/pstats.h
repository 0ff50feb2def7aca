/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pstats: the module's per-probe counters, from
 * /sys/kernel/debug/kptrace/probe_stats, as a summary at exit.
 */
#ifndef __KPTRACE_PSTATS_H
#define __KPTRACE_PSTATS_H

#include <stdio.h>

/*
 * Prints one line per probe to @f, after @before and a header if there is
 * any probe: calls, events, recorded, filtered, lost (by cause), kprobe
 * and maxactive misses, faults and truncations. Returns 0, or -errno when
 * @path cannot be read.
 */
int pstats__print(const char *path, FILE *f, const char *before);
/* The same from @in, an open probe_stats read again from its start. */
int pstats__print_from(FILE *in, FILE *f, const char *before);

#endif /* __KPTRACE_PSTATS_H */
