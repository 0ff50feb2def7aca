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
#include "trace.h"

#define EXIT_USAGE		2
#define SYS_GROUP		"kptrace"
#define SYS_LINE_MAX		4096	/* the module's KPT_SPEC_LINE_MAX */

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

/* The run of @env (syscalls_run.c). Returns the exit status. */
int sys_run(struct sys_env *env);

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

#endif /* __KPTRACE_SYSCALLS_RUN_H */
