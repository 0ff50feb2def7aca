/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of `kptrace syscalls`, checked (struct
 * sys_env, syscalls_cmd.c), and a run of it (struct sys_run,
 * syscalls_run.c), with the modes that share it (syscalls_count.c: -s).
 */
#ifndef __KPTRACE_SYSCALLS_RUN_H
#define __KPTRACE_SYSCALLS_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "child.h"
#include "pstats.h"
#include "session.h"
#include "stats.h"
#include "summary.h"
#include "syscalls_cmd.h"
#include "syscalls_pending.h"
#include "trace.h"

#define EXIT_USAGE		2
#define SYS_GROUP		"kptrace"
#define SYS_LINE_MAX		4096	/* the module's KPT_SPEC_LINE_MAX */
#define SYS_MAX_PROBES		16	/* a run's, at most */

/* The command line, checked. */
struct sys_env {
	struct sys_sel sel;	/* the pids and tids are below */
	__u32 *pids, *tids;	/* -p (any number), -t (SYS_MAX_IDS) */
	unsigned int npids, ntids;
	bool follow;		/* -f: -p's descendants; COMMAND's, to the last */
	bool fds;		/* -y: fds with their paths */
	bool no_signals;	/* -e signal=none */
	bool *nr_sel;		/* -e's selection, syscalls__count() */
	bool *nr32_sel;		/* the same, i386 numbers */
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

/* A run. */
struct sys_run {
	struct sys_env *env;
	struct source src;
	struct sink sink;
	struct sys_printer printer;
	struct flight *flight;	/* --flight */
	struct ksyms *ksyms;	/* --stack and -r: names the frames */
	FILE *out;
	struct session session;	/* the tool's: its probe goes with it */
	/* the probes: selections, names, ids, listing lines */
	const struct sys_sel *sels;
	unsigned int nprobes;
	char names[SYS_MAX_PROBES][32];
	__u32 ids[SYS_MAX_PROBES];
	char *listings[SYS_MAX_PROBES];
	char *banner;		/* "tracing system calls (...)" lines */
	struct sys_fds *fds;		/* -y */
	struct sys_comms *comms;	/* -s, -S, --prometheus: leaders */
	struct sys_pending_sel pending;	/* the tasks /proc may show */
	struct stats start, end;
	struct books books;
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
	unsigned long intervals;	/* -i: printed */
	unsigned long long next_interval;	/* -i: at this second */
	struct timespec t0;		/* armed */
	struct timespec t_read;		/* the last read */
	struct timespec t_interval;	/* the interval's start */
};

/*
 * The run of @env with its @n probes @sels (sys_spec__plan()), in
 * syscalls_run.c. Returns the exit status.
 */
int sys_run(struct sys_env *env, const struct sys_sel *sels, unsigned int n);

/*
 * A usage error: "kptrace: error: ..." and the line that points to
 * --help, on stderr. Returns EXIT_USAGE.
 */
int sys_usage(const char *fmt, ...);

/*
 * The value of " exclude=" in the module's canonical spec @spec (the
 * global number of the pid written), or 0.
 */
__u32 sys_spec__exclude(const char *spec);

/*
 * The probes of a run (syscalls_spec.c): one for the selection, but for
 * -p, one per SYS_MAX_IDS processes (the module's pid= takes that many),
 * and with -f one more per process, children=PID, for its descendants (a
 * process under another of -p is in that one's). Into @sels, @max at
 * most: returns how many, 0 if that is more than @max, -1: no memory.
 */
int sys_spec__plan(const struct sys_env *env, struct sys_sel *sels,
		   unsigned int max);

/* The name of probe @i of the tool's (sys_PID, then sys_PID_2, ...). */
void sys_spec__name(char *buf, size_t len, pid_t tool_pid, unsigned int i);

/* -s (syscalls_count.c) */
/* Holds the signals sys_count__loop() takes, from the start of the run. */
void sys_count__hold_signals(void);
/* The buffer of a read, for the module's default table size. 0, or -1. */
int sys_count__start(struct sys_run *run);
/* One KPT_IOC_SYSSUM read into the run's tables. 0, or -1 with a message. */
int sys_count__read(struct sys_run *run);
/* Reads every second until the stop. 0, or -1 on an error. */
int sys_count__loop(struct sys_run *run);
/*
 * The table(s) and the --prometheus file at the end of a run (-s, -S,
 * -r). 0, or -1 with a message.
 */
int sys_run__tables(struct sys_run *run);

/* The books of the run's probes, merged (sys_books__merge()). 0, or -1. */
int sys_run__books(const struct sys_run *run, struct pstats_probe *ps);

#endif /* __KPTRACE_SYSCALLS_RUN_H */
