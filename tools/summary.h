/* SPDX-License-Identifier: GPL-2.0 */
/*
 * summary: the end of a run (summary.c): what was printed, filtered out,
 * lost and left unread, checked against the module's books; and -s, the
 * module's statistics.
 */
#ifndef __KPTRACE_SUMMARY_H
#define __KPTRACE_SUMMARY_H

#include <stdio.h>

#include "stats.h"
#include "trace.h"

/*
 * The module's counters when the reader began (@start) and ended (@end),
 * either NULL when debugfs could not be read: what the summary needs.
 */
struct books {
	const struct stats *start;
	const struct stats *end;
};

/* the module's stats file: KPTRACE_STATS, else STATS_PATH */
const char *stats__path(void);
/* -s: reads and prints it to @f; 0, or -errno with a message */
int stats__show(FILE *f);

/* What a drain cut short left behind, to stderr. */
void drain__report(const struct books *b);
/* The one line of the summary, to stderr. */
void summary__print(const struct source *src, const struct sink *sink,
		    const struct books *b);
/* Warns when another reader took records while this one ran. */
void books__check(const struct books *b);

#endif /* __KPTRACE_SUMMARY_H */
