/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls_comm: the comm of a process, its leader's (the thread whose id
 * is the process's), for the tables of -s, -S and --prometheus: a process
 * is one row set under one name, whichever of its threads made the calls
 * (a thread may rename itself: "worker-3" is not the process). The
 * leader's comm comes from the records the leader made (tid == pid), and
 * in a live run from /proc/PID/comm while the process lives, read again
 * at each batch of counts; else the calling thread's comm stands.
 */
#ifndef __KPTRACE_SYSCALLS_COMM_H
#define __KPTRACE_SYSCALLS_COMM_H

#include <stdbool.h>

#include <uapi/kptrace.h>

struct sys_comms;

/* @proc: /proc, whose PID/comm may be read; NULL: none. NULL: no memory. */
struct sys_comms *sys_comms__new(const char *proc);
void sys_comms__free(struct sys_comms *c);

/* A new batch: what /proc said is read again when next asked. */
void sys_comms__next(struct sys_comms *c);

/* A record of task @tid of process @pid named @comm: the leader's if equal. */
void sys_comms__note(struct sys_comms *c, __u32 pid, __u32 tid,
		     const char *comm);

/*
 * The comm of process @pid into @out (KPT_COMM_LEN bytes, NUL-padded):
 * its leader's as known, else @thread_comm (that of the calling thread).
 */
void sys_comms__get(struct sys_comms *c, __u32 pid, const char *thread_comm,
		    char *out);

#endif /* __KPTRACE_SYSCALLS_COMM_H */
