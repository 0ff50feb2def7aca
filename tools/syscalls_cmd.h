/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls_cmd: `kptrace syscalls`, the system calls of a command, of
 * processes, threads, comms or a cgroup, as perf trace prints them, from
 * one syscalls probe (s) of the module. The parts the host tests reach
 * without a kernel are here: the spec line of a selection, a record as a
 * call (struct syscall_call) and the printer of the records, the formats
 * cache, the tables of -s and -S (struct sys_sum) and the summary lines.
 */
#ifndef __KPTRACE_SYSCALLS_CMD_H
#define __KPTRACE_SYSCALLS_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include <uapi/kptrace.h>

#include "event.h"
#include "pstats.h"
#include "syscall_fmt.h"
#include "syscalls.h"

/*
 * In a syscalls probe's string slots: the argument the string is, from 1
 * (0: the slot is unused). uapi/kptrace.h has it from the kernel side's
 * change on.
 */
#ifndef KPT_STR_SYSARG
#define KPT_STR_SYSARG(flags)	(((flags) >> 8) & 7)
#endif

#define SYS_MAX_IDS	8	/* pid=, tid=: the module's limit */
#define SYS_MAX_PID	0x3fffffff	/* the module's: PID_MAX_LIMIT's bound */
#define SYS_COMM_MAX	15	/* comm=: TASK_COMM_LEN - 1 */
#define SYS_NR_SPAN	512	/* nr= takes 0 to 511: the module's */
/* a record's args[]: the number, the six registers, two string slots */
#define SYS_NARGS	9
#define SYS_STR_SLOT	7	/* args[7] and args[8] */
/* in a -S row's number: a 32-bit call, whose number is i386's */
#define SYS_SUM_COMPAT	0x4000000000000000ULL	/* bit 62 */

/* What the probe is to select: the options of its spec line. */
struct sys_sel {
	__u32 pid[SYS_MAX_IDS];		/* tgids */
	__u32 tid[SYS_MAX_IDS];
	unsigned int npid, ntid;
	__u32 children;			/* descendants of this process; 0: any */
	char comm[SYS_COMM_MAX + 1];	/* a glob; "": any */
	__u64 cgroup;			/* a cgroup v2 id; 0: any */
	const bool *nr;		/* per x86-64 number (syscalls__count()); NULL: all */
	bool nr_rest;		/* ... and those past the table, to SYS_NR_SPAN */
	/* with nr: per i386 number (32-bit calls); NULL: none of them */
	const bool *nr32;
	bool nr32_rest;
	bool signals;			/* signals delivered, task exits */
	bool denied;			/* calls seccomp denied */
	bool failure;
	__u64 duration_ns;		/* 0: any */
	unsigned int stack;		/* frames of each call's trace; 0: none */
	bool summary;			/* counts in the kernel, no records */
};

/*
 * The spec line (no newline) of probe kptrace/sys_@tool_pid for @sel into
 * @buf: "s:kptrace/sys_PID" and the options, in the module's order, nr= and
 * nr32= as ranges, " summary" last. Returns its length, or -1 if it does
 * not fit in @len bytes.
 */
int syscalls_cmd__spec(const struct sys_sel *sel, pid_t tool_pid, char *buf,
		       size_t len);

/* The same, of probe kptrace/@name. */
int syscalls_cmd__spec_named(const struct sys_sel *sel, const char *name,
			     pid_t tool_pid, char *buf, size_t len);

/*
 * The tracefs formats of the calls (names and types of their arguments),
 * read once per number from ROOT/events/syscalls/sys_enter_NAME/format:
 * ROOT is @tracefs, else /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing. A call without one shows arg0..arg5 in hex.
 */
struct sys_formats;

struct sys_formats *sys_formats__new(const char *tracefs, bool quiet);
void sys_formats__free(struct sys_formats *f);
/* The format of x86-64 call @nr, or NULL. */
const struct syscall_format *sys_formats__get(struct sys_formats *f,
					      unsigned int nr);
/* @fmt as the format of @nr (the tests: no tracefs). 0, or -1. */
int sys_formats__set(struct sys_formats *f, unsigned int nr,
		     const struct syscall_format *fmt);

/* One call of a record, with the storage its pointers point to. */
struct sys_call {
	struct syscall_call call;
	__u64 entry_ns;			/* CLOCK_MONOTONIC at entry */
	__u64 nr;
	__u64 vals[SYSCALL_MAX_ARGS];
	struct syscall_str strs[SYSCALL_MAX_ARGS];
	struct syscall_arg args[SYSCALL_MAX_ARGS];
	char name[32];
};

/*
 * The call of @e, a checked record of a syscalls probe: a return, or the
 * entry of a call that does not return (exit, exit_group). The arguments
 * are named by @formats (may be NULL: arg0..arg5), strings come from the
 * string slots by KPT_STR_SYSARG(); call.ts_ns is the entry's time from
 * @base_ns (0 if before it). Returns 0, or -1 if @e is not such a record.
 */
int sys_call__from_record(struct sys_call *sc, const struct kpt_event *e,
			  struct sys_formats *formats, __u64 base_ns);

/*
 * The counts of (process, call)s, as perf trace -s prints them: the
 * entries of KPT_IOC_SYSSUM (one per CPU and (process, call)) merged, or
 * the calls of records; their calls, errors, times, and calls by log2 of
 * their time (the entries' lat_log2[], KPT_SYS_SUM_BUCKETS). A process's
 * comm is its leader's with sys_sum__set_comms(); else, and where that
 * is not known, that of its entry with the most calls in the latest
 * batch (sys_sum__next()) that had one: the name it ran under last,
 * mostly (an exec changes it). A table by comm (sys_sum__new_by_comm(), for
 * --prometheus) has a row per (process, comm, call) instead: an entry's
 * comm is part of its row's key.
 */
struct sys_sum;

struct sys_sum *sys_sum__new(void);
struct sys_sum *sys_sum__new_by_comm(void);
void sys_sum__free(struct sys_sum *s);
/*
 * Rows named by their process's leader (syscalls_comm.h): each entry's
 * and call's comm is replaced by sys_comms__get()'s, and a call's
 * (pid, tid, comm) noted first. @comms outlives @s; NULL: as the entries.
 */
struct sys_comms;
void sys_sum__set_comms(struct sys_sum *s, struct sys_comms *comms);
/* Empty again: the next interval. */
void sys_sum__clear(struct sys_sum *s);
/* A new batch (a KPT_IOC_SYSSUM read): its comms come before the older. */
void sys_sum__next(struct sys_sum *s);
/* Adds entry @e (calls 0: nothing) to the batch. 0, or -1: no memory. */
int sys_sum__add(struct sys_sum *s, const struct kpt_syssum_entry *e);
/*
 * Adds call @c of number @nr as a batch of one: an error if it returned
 * -4095..-1, and 0 ns if it does not return (exit, exit_group), as the
 * kernel counts them. 0, or -1.
 */
int sys_sum__add_call(struct sys_sum *s, const struct syscall_call *c,
		      __u64 nr);
/* The calls counted in @s. */
unsigned long long sys_sum__calls(const struct sys_sum *s);

/*
 * Prints @s as perf trace -s does: "\n @title:\n\n", then per process,
 * most calls ("events") first, " COMM (PID), N events, P%" (of all the
 * calls of @s) and a table of its calls, the longest total first: calls,
 * errors, total, min, avg and max in ms, and the sample standard deviation
 * in % of the average (100 * s / avg, s from the sum of squares). With
 * @json, one object per (process, call) in the same order instead:
 * {"pid","comm","syscall","calls","errors","total_ns","min_ns","max_ns",
 * "stddev_pct"}, with "interval":@interval first when @interval >= 0.
 * Returns 0, or -1 if out of memory.
 */
int sys_sum__print(FILE *f, const struct sys_sum *s, bool json,
		   const char *title, long interval);

/*
 * The Prometheus text of @s, a table by comm, for node_exporter's textfile
 * collector (README "Tracing system calls"). First, if @ps is not NULL,
 * the probe's books, counters without labels:
 * kptrace_syscall_seen_total, _filtered_total, _recorded_total,
 * _lost_total{cause} (the lost causes' names), _table_full_total,
 * _missed_total{cause="return"|"kprobe"}. Then per row, labelled
 * {syscall,pid,comm} and cgroup="@cgroup" if @cgroup is not NULL (label
 * values escaped by prom__value()), in the order of pid, comm, number:
 * the counters kptrace_syscall_calls_total and kptrace_syscall_errors_total,
 * and the histogram kptrace_syscall_latency_seconds: _bucket{le} for each
 * bucket 0..30 that has had a call, le its upper bound 2^(10+b) ns in
 * seconds (prom__seconds()), the count cumulative; le="+Inf" (the calls,
 * bucket 31's included), _sum (the total time in seconds), _count. One
 * HELP and one TYPE line per family. Returns 0, or -1 if out of memory.
 */
int sys_sum__prom(FILE *f, const struct sys_sum *s, const char *cgroup,
		  const struct pstats_probe *ps);

/* Prints the records of a run: trace.c's sink->print. */
struct sys_printer {
	FILE *out;
	bool json;
	bool no_lines;			/* -s on records: the table only */
	struct sys_sum *sum;		/* if set, counts the calls shown */
	struct sys_sum *by_comm;	/* with sum, if set: counts them too */
	struct sys_formats *formats;
	/* loss reports (event__print()), and the call traces of the */
	/* records that have one (--stack), whose frames its ksyms names */
	struct event_fmt lost_fmt;
	bool have_base;
	__u64 base_ns;			/* the first call's entry */
	struct sys_fds *fds;		/* -y: the fds' paths; NULL: none */
	unsigned long long shown;	/* calls printed (counted: no_lines) */
	unsigned long long unfinished;	/* calls in progress printed */
	unsigned long long signals, exits;	/* signals, processes ended */
	unsigned long long other;	/* records not of a syscalls probe */
	bool out_error;			/* a write failed: the run stops */
	int out_errno;
	bool no_memory;			/* sum could not grow: it stops */
	/* the calls shown in progress, until their return resumes them */
	struct sys_shown_pending *pending;
	size_t npending, pending_cap;
};

void sys_printer__record(const struct kpt_event *e, void *priv);

/* Frees what the printer @p keeps (the calls shown in progress). */
void sys_printer__fini(struct sys_printer *p);

/*
 * Prints @sc, a call in progress (syscalls_pending.c): " <unfinished
 * ...>" for its return; its call.ts_ns is the time of the snapshot in
 * the records' clock (0: the start), printed from the first call shown.
 * The printer keeps (tid, call, snapshot time): the first return record
 * of that task and call entered by then prints as resumed. A record of
 * the task entered after it ends it, printed "<... NAME resumed>() = ?"
 * before that record (a call entered before the probe was armed has no
 * return record).
 */
void sys_printer__unfinished(struct sys_printer *p, struct sys_call *sc);

/*
 * The summary line at the end of a live run, from the probe's counters
 * @ps (the module's books: calls, those its handler saw, are recorded,
 * filtered, lost or in flight; a missed return, a call that found no
 * kretprobe instance, never reached the handler): calls seen (calls and
 * misses), @shown (saved with -w: @saved), filtered, lost by cause,
 * missed returns, the calls in flight when it ended; then what was
 * recorded but not shown: @own (the tool's own calls) and the rest, left
 * unread.
 */
void syscalls_cmd__summary(FILE *f, const struct pstats_probe *ps,
			   unsigned long long shown, unsigned long long own,
			   bool saved);

/*
 * The summary line of a run with -s, from the counters @ps of its summary
 * probe (recorded: the calls counted in the kernel; summary_full: those
 * its tables had no room for): calls seen, counted, and whether the
 * tool read them all (@read: the calls of every KPT_IOC_SYSSUM, @own of
 * them the tool's own, left out of the tables), filtered, lost, not
 * counted, missed returns, in flight.
 */
void syscalls_cmd__sum_summary(FILE *f, const struct pstats_probe *ps,
			       unsigned long long read,
			       unsigned long long own);

/*
 * Adds the books @b of another probe of the run to @ps: the calls seen
 * are one probe's (each sees all), the filtered those no probe selected
 * (taken from the fewer calls of the two), the rest added up.
 */
void sys_books__merge(struct pstats_probe *ps, const struct pstats_probe *b);

/* argv[0] is "syscalls". Returns the exit status. */
/* One line on stderr, "kptrace: error: ..." and a newline; returns @ret */
int sys_error(int ret, const char *fmt, ...);

int syscalls_cmd__main(int argc, char **argv);

#endif /* __KPTRACE_SYSCALLS_CMD_H */
