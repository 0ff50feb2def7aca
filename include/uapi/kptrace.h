/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kptrace: the binary record format and ioctls shared by the kernel module
 * and the tools. Everything here is fixed-width with explicit padding, so
 * the layout is the same for every compiler and kernel.
 *
 * A read() of /dev/kptrace returns a whole number of records. Every record
 * starts with struct kpt_event and is kpt_event.size bytes long, a multiple
 * of 8. The payload after the header depends on the type:
 *
 *   KPT_EV_ENTRY   __u64 args[nr_args]; __u64 stack[nr_stack]; then
 *                  string bytes up to size.
 *                  stack[0] is the probed address, then the callers outward.
 *   KPT_EV_RETURN  struct kpt_ret; __u64 args[nr_args]; then string bytes.
 *   KPT_EV_LOST    struct kpt_lost (header: cpu set, pid/tid/comm zero)
 *
 * args[] holds one slot per fetch argument of the probe's spec, in the
 * spec's order (see /sys/kernel/debug/kptrace/probes for names and types):
 * a number, zero- or sign-extended to 64 bits as its type says, or for a
 * string type (string, ustring, str, $comm) KPT_STR_SLOT(): where its bytes
 * are in the record (no NUL), how many, and whether reading it faulted or
 * was truncated.
 *
 * Readers must skip records of a type they do not know, using size.
 * kptrace_record.h checks a record, kpt_record_check(), before it is read.
 */
#ifndef _UAPI_KPTRACE_H
#define _UAPI_KPTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define KPT_MAGIC		0x4b50	/* "KP": first field of every record */
#define KPT_VERSION		1	/* bumped on any incompatible change */

#define KPT_MAX_LIVE_PROBES	1024	/* probes armed or pending at once */
#define KPT_COMM_LEN		16

/*
 * The most a record holds: what a reader may rely on, and what
 * kpt_record_check() (kptrace_record.h) holds every record to. A plain
 * number each, for the messages that name them.
 */
#define KPT_MAX_ARGS		16	/* args[]: a spec's fetchargs */
#define KPT_MAX_STACK		64	/* stack[] of an entry */
#define KPT_MAX_RECORD		65536	/* size, strings included */

enum kpt_event_type {
	KPT_EV_PAD	= 0,	/* ring padding, never returned by read() */
	KPT_EV_ENTRY	= 1,
	KPT_EV_RETURN	= 2,
	KPT_EV_LOST	= 3,
};

/* kpt_event.flags */
#define KPT_F_NMI		0x01	/* recorded in NMI context */
#define KPT_F_HARDIRQ		0x02	/* ... in hard interrupt context */
#define KPT_F_SOFTIRQ		0x04	/* ... in softirq context */
#define KPT_F_STACK_TRUNC	0x08	/* the stack had more frames */
#define KPT_F_ADDR_HIDDEN	0x10	/* addresses zeroed for this reader */

struct kpt_event {
	__u16	magic;		/* KPT_MAGIC */
	__u8	type;		/* enum kpt_event_type */
	__u8	flags;		/* KPT_F_* */
	__u32	size;		/* whole record in bytes, multiple of 8 */
	__u64	seq;		/* per-CPU record number, from 1, no reuse */
	__u64	ts_ns;		/* CLOCK_MONOTONIC, ns */
	__u32	cpu;
	__u32	probe_id;	/* index in /sys/kernel/debug/kptrace/probes */
	__u32	pid;		/* tgid */
	__u32	tid;
	char	comm[KPT_COMM_LEN];	/* NUL-terminated: comm[15] is 0 */
	__u16	nr_args;
	__u16	nr_stack;
	__u32	__pad;
	__u64	data[];
};

/* A string argument's slot. */
#define KPT_STR_FAULT		0x1	/* the address could not be read */
#define KPT_STR_TRUNC		0x2	/* longer than strsize= */
#define KPT_STR_USER		0x4	/* read from user memory */
#define KPT_STR_SLOT(off, len, flags) \
	(((__u64)(off) << 32) | ((__u64)(len) << 16) | (__u64)(flags))
#define KPT_STR_OFF(slot)	((__u32)((slot) >> 32))	/* from the record */
#define KPT_STR_LEN(slot)	((__u16)((slot) >> 16))
#define KPT_STR_FLAGS(slot)	((__u16)(slot))

struct kpt_ret {
	__s64	ret;		/* return value register */
	__u64	lat_ns;		/* since the matching entry */
	__u64	entry_ts_ns;	/* ts_ns of the matching entry */
};

/* In a return record, args[] starts at data[KPT_RET_SLOTS]. */
#define KPT_RET_SLOTS	(sizeof(struct kpt_ret) / sizeof(__u64))

/* Causes of loss, kpt_lost.cause and the lost.* counters in stats. */
enum kpt_lost_cause {
	KPT_LOST_FULL		= 0,	/* the CPU's ring was full */
	KPT_LOST_OVERWRITTEN	= 1,	/* overwritten before it was read */
	KPT_LOST_NESTED		= 2,	/* the CPU was already writing */
	KPT_LOST_TOO_BIG	= 3,	/* larger than the ring can hold */
	KPT_LOST_NR
};

/*
 * The names of the causes, as the stats, the trace files and the tools
 * print them: an initializer for a const char *[KPT_LOST_NR], in the
 * order of enum kpt_lost_cause.
 */
#define KPT_LOST_NAMES	{ "full", "overwritten", "nested", "too_big" }

/* Why an aggregation (hist:) dropped a hit. */
enum kpt_hist_drop {
	KPT_HD_TABLE_FULL	= 0,	/* a new key, this CPU's table full */
	KPT_HD_NESTED		= 1,	/* an NMI hit while it was busy */
	KPT_HD_KEY_TOO_LARGE	= 2,	/* a string key too long to keep */
	KPT_HD_NR
};

/*
 * Their names, as hist/NAME's Totals ("Dropped table_full: N"), probe_stats
 * and the tools print them: an initializer for a const char *[KPT_HD_NR].
 */
#define KPT_HIST_DROP_NAMES	{ "table_full", "nested", "key_too_large" }

struct kpt_lost {
	__u32	cause;		/* enum kpt_lost_cause */
	__u32	__pad;
	__u64	count;		/* events lost since the previous report */
};

/* ioctl(KPT_IOC_INFO): what the module speaks, so tools refuse mismatches */
struct kpt_info {
	__u32	magic;		/* KPT_MAGIC */
	__u32	version;	/* KPT_VERSION */
	__u32	nr_cpus;	/* possible CPUs: cpu < nr_cpus */
	__u32	nr_probes;
	__u64	ring_bytes;	/* per CPU */
	__u32	max_record;	/* largest record the module may emit */
	__u32	__pad;
};

/*
 * ioctl(KPT_IOC_PROBE): the same text a write() to /dev/kptrace takes, one
 * probe spec per line (see README.md, "Probes at run time").
 */
struct kpt_probe_cmd {
	__u64	text;		/* user pointer to the text */
	__u32	len;		/* its length in bytes */
	__u32	__pad;
};

#define KPT_IOC_MAGIC		0xb7
#define KPT_IOC_INFO		_IOR(KPT_IOC_MAGIC, 0, struct kpt_info)
#define KPT_IOC_PROBE		_IOW(KPT_IOC_MAGIC, 1, struct kpt_probe_cmd)

#endif /* _UAPI_KPTRACE_H */
