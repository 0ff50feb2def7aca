/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inside of a table of -s and -S (struct sys_sum), for
 * the files that print it (syscalls_sum.c, syscalls_prom.c). Its users
 * outside see syscalls_cmd.h's functions only.
 */
#ifndef __KPTRACE_SYSCALLS_SUM_H
#define __KPTRACE_SYSCALLS_SUM_H

#include <stdbool.h>
#include <stddef.h>

#include <uapi/kptrace.h>

struct sys_sum_row {
	__u64 nr;			/* the call's number */
	__u32 pid;			/* the process (tgid) */
	__u64 calls;			/* 0: a free slot */
	__u64 errors, total_ns, min_ns, max_ns;
	__u64 sumsq[2];			/* of the ns of each call: low, high */
	__u64 lat[KPT_SYS_SUM_BUCKETS];	/* calls by log2 of ns, as lat_log2 */
	char comm[KPT_COMM_LEN];	/* untrusted; see comm_gen */
	/* the batch comm is from, and the calls of its entry there */
	unsigned long long comm_gen;
	__u64 comm_calls;
};

/*
 * An open-addressing table by (pid, nr), or (pid, comm, nr) if by_comm, a
 * power of 2 slots, half used.
 */
struct sys_sum {
	struct sys_sum_row *tab;
	size_t cap, used;
	bool by_comm;
	unsigned long long gen;		/* batches, sys_sum__next() */
	struct sys_comms *comms;	/* the leaders' comms; NULL: the entries' */
	unsigned long long calls;
};

/* The name of a row's call: the table's, or "syscall_NNN" in @buf. */
const char *sys_sum__name(const struct sys_sum_row *r, char *buf,
			  size_t len);

#endif /* __KPTRACE_SYSCALLS_SUM_H */
