/* SPDX-License-Identifier: GPL-2.0 */
/*
 * child: the COMMAND of `kptrace syscalls -- COMMAND` and of `kptrace -e
 * SPEC -- COMMAND`. The tool makes itself a child subreaper and forks a
 * child that waits on a pipe until the tool's probes are armed
 * (child__go()), then execs COMMAND; COMMAND's exit stops the run
 * (trace__stop()), and the tool exits with its status (child__end()).
 */
#ifndef __KPTRACE_CHILD_H
#define __KPTRACE_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct child {
	int go;		/* the write end of the go pipe, or -1 */
	int err;	/* the read end of the errno pipe, or -1 */
	pid_t pid;	/* COMMAND's, 0 before the fork */
};

#define CHILD_INIT	{ .go = -1, .err = -1, .pid = 0 }

/*
 * Sets the SIGCHLD handler (signals__on_child(): it reaps COMMAND and the
 * orphans it leaves, and stops the run at COMMAND's exit), makes the tool
 * a child subreaper and forks the child, waiting. Call it before the
 * probes are armed, after signals__setup(). 0, or -1 with a message.
 */
int child__start(struct child *ch, char **command);

/*
 * strace -f's end: the run stops when the last of COMMAND's descendants
 * (the tool's children, COMMAND and the orphans it leaves) has exited,
 * not at COMMAND's exit. Call it after child__start().
 */
void child__wait_all(struct child *ch);

/* Armed: COMMAND may run. */
void child__go(struct child *ch);

/*
 * A SIGCHLD that sigtimedwait() took while it was held (kptrace syscalls
 * -s): reaps as the handler does. Whether COMMAND has ended (with
 * child__wait_all(), the last of its descendants).
 */
bool child__sigchld(void);

/*
 * The end: reaps COMMAND (after SIGTERM if it still runs, and SIGKILL 5 s
 * later or at a second stop signal), says why exec failed if it did, and
 * returns the status to exit with: COMMAND's, 128+N if signal N killed
 * it, 127 if it was not found, 126 if it could not be run; 1 if it could
 * not be reaped.
 */
int child__end(struct child *ch, char **command);

#endif /* __KPTRACE_CHILD_H */
