/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace: a run of the reader (trace.c): records from /dev/kptrace or a
 * file saved with -w, checked, filtered and printed or saved, and the
 * drain of the device at a stop; with the options of the run (kptrace.c)
 * and what the records said (summary.c sums it up).
 */
#ifndef __KPTRACE_TRACE_H
#define __KPTRACE_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "event.h"

struct session;
struct stats;

/* After a stop signal or -d, how long the reader drains the rings. */
#define DRAIN_SECONDS	2

/* The options of the run (kptrace.c parses them). */
struct trace_env {
	unsigned long long count;	/* -n: events to print, 0: all */
	unsigned int duration;		/* -d: seconds, 0: until stopped */
	long long pid;			/* -p: tgid to keep, -1: all */
	char comm[KPT_COMM_LEN];	/* -c: comm to keep, "": all */
	bool json;
	bool stats;
	bool no_stack;
	bool quiet;
	bool trace_opts;		/* an option other than -s and -q */
	const char *save_path;		/* -w */
	const char *replay_path;	/* -r */
	/* kptrace syscalls: the records of its own probe only */
	bool only_probe;
	__u32 probe_id;
	/*
	 * kptrace syscalls: the tgid of the reader itself (0: none). Its
	 * records are dropped (trace_counts.own), and a device read that
	 * brought some and little else is followed by a short pause: each
	 * read() of the reader is a record that the next read() returns at
	 * once, which would otherwise never let it sleep.
	 */
	__u32 self_pid;
};

extern struct trace_env trace_env;

/* How the last records were taken from the device after a stop. */
enum drain_state {
	DRAIN_OFF,	/* no stop signal (yet), or a replayed file */
	DRAIN_ON,	/* non-blocking reads of what the rings held */
	DRAIN_EMPTY,	/* until none was left: all of it was taken */
	DRAIN_TIMEOUT,	/* cut after DRAIN_SECONDS */
	DRAIN_SIGNAL,	/* cut by a second SIGINT or SIGTERM */
};

extern enum drain_state trace_drain;

/*
 * The stop (a signal, or the end of -d), and which records it lets in:
 * those committed when the reader took it. Each record of a ring carries
 * its CPU's record number (seq, from 1), and the books (the stats file,
 * or a session's KPT_IOC_STATS: source__stats()) give each CPU's count of
 * committed records (cpuN.recorded + cpuN.lost.overwritten): the seq of
 * its last record. So a record of CPU c came before the stop when its seq
 * is at most bound[c], the count at the stop; the drain has them all when
 * each CPU's records reached bound[c] (taken[c]). Without books, the
 * bound is the time: ts_ns (CLOCK_MONOTONIC) at most that of the stop,
 * and the drain ends at the first read with nothing older.
 * Loss reports (seq 0) are always taken: they count what is gone.
 */
struct trace_stop {
	__u64 ts_ns;		/* CLOCK_MONOTONIC when the reader stopped */
	unsigned int nr_cpus;	/* of bound[] and taken[]; 0: the time bound */
	__u64 *bound;		/* per CPU: the seq of its last record then */
	__u64 *taken;		/* per CPU: the last seq taken since */
	bool before;		/* the last read had records before the stop */
	unsigned long long after;	/* read, but recorded after the stop */
};

extern struct trace_stop trace_stop;

/* What the records said, for the summary. */
struct trace_counts {
	unsigned long long entries;
	unsigned long long returns;
	unsigned long long filtered;
	unsigned long long lost[KPT_LOST_NR + 1];	/* last: unknown cause */
	unsigned long long unknown;	/* records of unknown type skipped */
	unsigned long long bad;		/* bad records met */
	unsigned long long dropped;	/* bytes dropped with them */
	unsigned long long saved;	/* bytes written by -w */
	unsigned long long past_count;	/* read from the device after -n */
	unsigned long long own;		/* of trace_env.self_pid, dropped */
};

extern struct trace_counts trace_counts;

/* Where records come from and go to, and what a buffer of them needs. */
struct source {
	const char *path;
	int fd;
	bool rdwr;		/* open the device for writing specs too */
	bool device;		/* whole records per read(), else a stream */
	off_t size;		/* of a replayed regular file, else -1 */
	unsigned long long offset;	/* of buf[0] in a replayed stream */
	FILE *stats;		/* the module's stats, kept open, or NULL */
	struct session *session;	/* a session's device: its books */
};

struct sink {
	const char *path;	/* -w */
	int fd;			/* -w, else -1: print */
	struct event_fmt fmt;
	/* if set, prints the records instead of event__print() */
	void (*print)(const struct kpt_event *e, void *priv);
	void *priv;
};

/*
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM (-d) stop
 * the run; held while records are handled, let in while the reader waits.
 * 0, or -1 with a message.
 */
int signals__setup(void);
/* Adds those stop signals to @set. */
void signals__add_stops(sigset_t *set);

/*
 * kptrace syscalls -- COMMAND: @handler runs on SIGCHLD, which is held and
 * let in with the stop signals (it may call trace__stop()). 0, or -1 with
 * a message.
 */
int signals__on_child(void (*handler)(int));

/*
 * Flushes @out, the text output: 0, or the errno of its first failed
 * write (a later fflush() of a stream in error leaves errno as it was).
 */
int trace__flush(FILE *out);

/* Stops the run as a stop signal does: async-signal-safe. */
void trace__stop(void);
/* Whether the run was stopped (a stop signal, trace__stop()). */
bool trace__stopped(void);

/* /dev/kptrace: opens it and checks what answers (KPT_IOC_INFO). */
int device__open(struct source *src, struct kpt_info *info);
/*
 * The books of what @src reads: its session's (KPT_IOC_STATS), else the
 * stats file kept open (src->stats). 0, or -1 (none: @st empty).
 */
int source__stats(const struct source *src, struct stats *st);
/* a file saved with -w, or "-": standard input */
int replay__open(struct source *src);
/* -w FILE, or "-": standard output when it is not a terminal */
int sink__open_file(struct sink *sink);

/*
 * Reads, checks and handles records until the end of a replayed file, or
 * -n, or a stop (a signal, or the end of -d), then drains the device.
 * Returns 0, or -1 on an error or bad data.
 */
int records__pump(struct source *src, struct sink *sink, char *buf,
		  size_t buf_size);

/*
 * kptrace syscalls --flight: takes what the device holds now, handled as
 * records__pump() handles a drain's, but without a stop: non-blocking
 * reads, every record taken (none is after), until a read finds nothing
 * (EAGAIN) or none of them, for DRAIN_SECONDS at most (writers faster
 * than the reader), or, once the run was stopped, until a second stop
 * signal. trace_drain says which. Returns 0, or -1 on an error or bad
 * data.
 */
int records__take(struct source *src, struct sink *sink, char *buf,
		  size_t buf_size);

/*
 * Records committed before the stop that the drain has not taken (with
 * the time bound: whether the last read had some).
 */
unsigned long long drain__left(void);

#endif /* __KPTRACE_TRACE_H */
