/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls_pending: the calls in progress of the selected tasks, from
 * /proc, as strace shows them at attach and at its end: "<unfinished
 * ...>" for the return that is not there. The module records a call at
 * its return only, and a call entered before the probe was armed has no
 * record at all: what a task is blocked in is read from
 * /proc/PID/task/TID/syscall (its number and six argument registers;
 * "running" or -1: in no call), how long it has been blocked from the
 * scheduler's clock of its last run (se.exec_start of
 * /proc/PID/task/TID/sched, CONFIG_SCHED_DEBUG) against the tool's own
 * (that of /proc/self/sched, read at once): the time since the task last
 * ran, which for a task blocked in a call is the time since it blocked.
 */
#ifndef __KPTRACE_SYSCALLS_PENDING_H
#define __KPTRACE_SYSCALLS_PENDING_H

#include <stdbool.h>
#include <sys/types.h>

#include <linux/types.h>

#include "syscalls_cmd.h"

/* The tasks to look at: those of the run's selection that /proc can list. */
struct sys_pending_sel {
	const __u32 *pids;		/* processes (-p) */
	unsigned int npids;
	const __u32 *tids;		/* threads (-t) */
	unsigned int ntids;
	bool follow;			/* -f: the pids' descendants too */
	__u32 parent;			/* COMMAND: the tool's descendants */
	const char *comm;		/* -c: a glob; NULL: none */
	/* -e: x86-64 numbers (syscalls__count()); NULL: all */
	const bool *nr;
	bool nr_rest;
	__u32 self;			/* the tool: never shown */
	const char *proc;		/* /proc (tests: another root) */
	/*
	 * Now in the records' clock (0: not known), asked for each task
	 * right after its call is read, so that a call it enters later is
	 * never taken for the one shown; NULL: sys_pending__show()'s now_ns
	 */
	__u64 (*now)(void *ctx);
	void *now_ctx;
};

/* Can @sel's tasks be listed (a -G or whole-machine run's are not)? */
bool sys_pending__listable(const struct sys_pending_sel *sel);

/*
 * Prints through @p (sys_printer__unfinished()) the call each of @sel's
 * tasks is in, the tool's own left out; @now_ns: the time of the snapshot
 * in the records' clock, where @sel has no now(). Returns the calls
 * printed.
 */
unsigned int sys_pending__show(struct sys_printer *p,
			       const struct sys_pending_sel *sel,
			       __u64 now_ns);

/*
 * Parses the text of /proc/PID/task/TID/syscall into @args (number, six
 * arguments): true if the task is in a call.
 */
bool sys_pending__parse(const char *text, __u64 *args);

#endif /* __KPTRACE_SYSCALLS_PENDING_H */
