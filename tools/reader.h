/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reader: a run of the main reader, as `kptrace` (reader__main(): the
 * default session's records, or a file saved with -w) and `kptrace -e`
 * (oneshot.c: a session of its own) both make it: the output (printed,
 * or saved raw with FILE.probes), the books when it starts and ends, the
 * pump of the records (trace.c), and what it prints at its end (the
 * summary, the per-probe books, -s).
 */
#ifndef __KPTRACE_READER_H
#define __KPTRACE_READER_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include <uapi/kptrace.h>

#include "stats.h"
#include "summary.h"
#include "trace.h"

struct ksyms;
struct probes;

struct reader {
	struct source src;
	struct sink sink;
	struct kpt_info info;		/* a device's, from KPT_IOC_INFO */
	struct probes *probes;		/* names the records */
	struct ksyms *ksyms;
	struct stats start, end;	/* the books, when read */
	struct books books;
	FILE *pstats_file;		/* the default session's probe_stats */
	const __u32 *ids;		/* a session's probes, for their books */
	size_t nr_ids;
	char *buf;			/* of the reads */
	size_t buf_size;
};

#define READER_INIT	{ .src = { .fd = -1, .size = -1 }, .sink = { .fd = -1 } }

/* stdout: by lines on a terminal, else a large buffer (the output) */
void reader__stdout(void);

/* The books before the first read (source__stats()), for the summary. */
void reader__books_start(struct reader *r);

/*
 * The output of the records, with trace_env's options: -w FILE (and
 * FILE.probes from r->probes), else printed to stdout (kallsyms for the
 * frames); and the buffer of the reads. 0, or -1 with a message.
 */
int reader__output(struct reader *r);

/* "kptrace: tracing N probes on N CPUs..." on stderr, unless -q. */
void reader__banner(const struct reader *r);

/*
 * The records until the end (of -d, -n, a stop signal, a replayed file),
 * then the books at the end and what a cut drain left. 0, or 1.
 */
int reader__pump(struct reader *r);

/*
 * The end of a run that returned @err: the output flushed, FILE.probes
 * again, the summary, the per-probe books, -s's statistics. Returns the
 * exit status: @err, or 1 if any of that failed.
 */
int reader__end(struct reader *r, int err);

/* Closes and frees what the run holds; the exit status as reader__end(). */
int reader__free(struct reader *r, int err);

/* The plain reader: `kptrace [OPTION]...` as trace_env says. */
int reader__main(void);

#endif /* __KPTRACE_READER_H */
