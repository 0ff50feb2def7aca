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
 *                  stack[0] is the probed address, then the callers
 *                  outward (a syscalls probe on the raw_syscalls
 *                  tracepoints: from the tracepoint's caller).
 *   KPT_EV_RETURN  struct kpt_ret; __u64 args[nr_args]; __u64
 *                  stack[nr_stack]; then string bytes. Only a syscalls
 *                  probe's return has a stack (stack=), as an entry's;
 *                  a reader that does not know it finds the strings by
 *                  their slots all the same.
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
#define KPT_MAX_STACK		64	/* stack[] of a record */
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
	__u64	ts_ns;		/* ns, by its session's clock: */
				/* CLOCK_MONOTONIC or sched_clock() */
				/* (kpt_info.clock, KPT_CLOCK_*) */
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
/*
 * In a syscalls probe's (s) string slots: the system call's argument the
 * string is, from 1; 0: the slot is unused (the call has fewer strings).
 */
#define KPT_STR_SYSARG(flags)	(((flags) >> 8) & 7)
#define KPT_STR_SYSARG_SET(n)	((__u16)(n) << 8)
#define KPT_STR_SLOT(off, len, flags) \
	(((__u64)(off) << 32) | ((__u64)(len) << 16) | (__u64)(flags))
#define KPT_STR_OFF(slot)	((__u32)((slot) >> 32))	/* from the record */
#define KPT_STR_LEN(slot)	((__u16)((slot) >> 16))
#define KPT_STR_FLAGS(slot)	((__u16)(slot))

/*
 * A syscalls probe's (s) records: a return (KPT_EV_RETURN) per call, its
 * args[] KPT_SYS_NARGS (9): args[0] the call's number, args[1..6] its six
 * argument registers at entry, args[7] and args[8] string slots
 * (KPT_STR_SYSARG() says which argument each is); an entry (KPT_EV_ENTRY)
 * of the same args[] for exit and exit_group, which never return. Their
 * kpt_event.flags may say:
 *   KPT_F_SYS_COMPAT  a 32-bit call (int $0x80, or a task in 32-bit mode):
 *                     args[0] is its i386 number and args[1..6] its ebx,
 *                     ecx, edx, esi, edi, ebp;
 *   KPT_F_SYS_DENIED  seccomp denied it: it never ran, ret is what the
 *                     filter made it return (-errno, or a user
 *                     notification's answer), lat_ns is 0; one it
 *                     rolled back (TRAP; KILL_PROCESS from 5.16: SIGSYS
 *                     follows) has no return value: an entry record.
 * With the probe's signals option, two more kinds of entry records, whose
 * args[0] is no call's number (args[7] and args[8] empty string slots):
 *   KPT_SYS_EV_SIGNAL a signal delivered to the task (about to run its
 *                     handler or its default action): args[1] signo,
 *                     args[2] si_code (as a __u32), args[3] si_errno,
 *                     args[4] si_addr for a fault (SIGSEGV, SIGBUS,
 *                     SIGILL, SIGFPE, SIGTRAP with si_code > 0), else
 *                     for SIGSYS from seccomp (SYS_SECCOMP) its
 *                     si_call_addr, else si_pid | (__u64)si_uid << 32
 *                     (numbers of the receiver's pid and user
 *                     namespaces; for another layout, SIGPOLL's or a
 *                     timer's, the union's first two __u32), args[5]
 *                     si_status (SIGCHLD), si_syscall | (__u64)si_arch
 *                     << 32 (SYS_SECCOMP) or 0, args[6] the action
 *                     (KPT_SYS_SIG_*);
 *                     a task killed as its process exits gets SIGKILL,
 *                     si_code 0 (SI_USER) and no sender;
 *   KPT_SYS_EV_EXIT   the task exits: args[1] its wait status (the exit
 *                     code << 8, or the signal that killed it, | 0x80 if
 *                     it dumped core), args[2] 1 if it was the process's
 *                     last task (the process has ended), args[3] 1 if the
 *                     whole process is exiting (exit_group, a fatal
 *                     signal).
 */
#define KPT_F_SYS_COMPAT	0x20
/* A summary entry's nr of a 32-bit call: its i386 number | this */
#define KPT_SYS_NR_COMPAT	0x80000000u
#define KPT_F_SYS_DENIED	0x40
#define KPT_SYS_EV_SIGNAL	0x10000
#define KPT_SYS_EV_EXIT		0x10001
#define KPT_SYS_SIG_DEFAULT	0
#define KPT_SYS_SIG_IGNORED	1
#define KPT_SYS_SIG_HANDLER	2

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
	__u32	nr_probes;	/* of the file's session */
	__u64	ring_bytes;	/* per CPU, of the file's session */
	__u32	max_record;	/* largest record the module may emit */
	__u32	clock;		/* its records' clock: KPT_CLOCK_MONO or */
				/* _LOCAL (0 from a module before sessions: */
				/* CLOCK_MONOTONIC) */
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

/*
 * ioctl(KPT_IOC_HIST): an aggregation (hist:) in binary, the table that
 * /sys/kernel/debug/kptrace/hist/NAME shows as text (which stays, for cat
 * and ftrace's users). Needs /dev/kptrace open (CAP_PERFMON or
 * CAP_SYS_ADMIN); KPT_HIST_REQ_CLEAR needs it open for writing (-EBADF
 * otherwise, as KPT_IOC_PROBE).
 *
 * In: name, the probe's name (hist/NAME; of the first probe made if probes
 * of two groups share it, which the hist files do not allow), flags, buf
 * and len. Out (written back whenever the request could be read, errors
 * included): size, gen and probe_id; a clear whose table could not be
 * made (-ENOMEM) has still ended its interval, read again with
 * KPT_HIST_REQ_ENDED. A clear is not refused under lockdown (the hist
 * file's "clear" is, as every debugfs write): it changes no kernel
 * state but the aggregation's. Requests:
 *   0                   the live table;
 *   KPT_HIST_REQ_CLEAR  start a new interval, as writing "clear" to the
 *                       hist file does, and return the interval that ended;
 *   KPT_HIST_REQ_ENDED  the interval a clear ended again: gen and probe_id
 *                       as that clear returned them; -ESTALE once another
 *                       clear (or a new probe of the name) reused the set.
 * If len is smaller than the table, -ENOSPC with the bytes needed in size
 * and nothing copied; a clear has still happened: its interval is kept
 * and read with KPT_HIST_REQ_ENDED (a live table may have grown by then:
 * ask again with more room). -ENOENT: no probe NAME with a hist:.
 *
 * The table (size bytes at buf, all fields native-endian):
 *   struct kpt_hist_hdr;
 *   the probe's spec, as the hist file's "# probe:" line prints it (with
 *   the same hidden addresses), NUL-terminated, NUL-padded to spec_size,
 *   a multiple of 8;
 *   nr_entries entries of entry_words __u64 each, merged across CPUs and
 *   in the order of the hist file (the spec's sort=):
 *     [0] KPT_HIST_E_KEY_HIDDEN(k) | KPT_HIST_E_VAL_HIDDEN(i) bits,
 *     [1] hitcount, then sum, min, max per value (nvals, in the spec's
 *     order), then the keys' words (key_words[k] each, in the spec's
 *     order) as the module keeps them: a number or a bucket as one word
 *     (.log2: K; .buckets=N: the bucket's low end; .loglin: the bucket's
 *     low end; signed ones as two's complement); comm and strings as
 *     their bytes, NUL-padded; a stacktrace as KPT_HIST_STACK_DEPTH
 *     addresses, the probed one first, 0 after the last.
 * A reader that may not see kernel addresses (decided when /dev/kptrace
 * was opened, as for records) gets KPT_HIST_F_ADDR_HIDDEN and what the
 * text hides zeroed: a stacktrace, a key or a value's sum, min and max
 * that may be an address. A key the text prints as "(hidden)" (a
 * stacktrace, a symbol, a number with a modifier) has its
 * KPT_HIST_E_KEY_HIDDEN(k) bit set; a plain number is just 0, as in the
 * text. The books add up as the text's Totals: for an ended interval
 * hits = aggregated + filtered + the dropped[]s and aggregated = the sum of
 * the hitcounts; a live table's are read after its entries, never behind.
 */
#define KPT_HIST_NAME_LEN	64
#define KPT_HIST_REQ_CLEAR	0x1
#define KPT_HIST_REQ_ENDED	0x2

struct kpt_hist_req {
	char	name[KPT_HIST_NAME_LEN];	/* in: NUL-terminated */
	__u32	flags;		/* in: KPT_HIST_REQ_* */
	__u32	gen;		/* in (ENDED), out: clears of the hist */
	__u32	probe_id;	/* in (ENDED), out */
	__u32	__pad;		/* 0 */
	__u64	buf;		/* in: user pointer to the buffer */
	__u64	len;		/* in: its bytes */
	__u64	size;		/* out: bytes written, or needed (-ENOSPC) */
};

#define KPT_HIST_MAGIC		0x4b504854	/* "KPHT" */
#define KPT_HIST_VERSION	1
#define KPT_HIST_KEYS		4	/* key_words[]: at most 3 used */

/* kpt_hist_hdr.flags */
#define KPT_HIST_F_LIVE		0x1	/* the live table */
#define KPT_HIST_F_ENDED	0x2	/* the interval a clear ended */
#define KPT_HIST_F_ADDR_HIDDEN	0x4	/* addresses hidden for this reader */

/* an entry's word 0 */
#define KPT_HIST_E_KEY_HIDDEN(k)	(1ULL << (k))
#define KPT_HIST_E_VAL_HIDDEN(i)	(1ULL << (16 + (i)))

struct kpt_hist_hdr {
	__u32	magic;		/* KPT_HIST_MAGIC */
	__u16	version;	/* KPT_HIST_VERSION */
	__u16	hdr_size;	/* this struct's: the spec starts there */
	__u64	size;		/* the whole table, bytes */
	__u32	flags;		/* KPT_HIST_F_* */
	__u32	gen;		/* clears of the hist before this read */
	__u32	probe_id;
	__u32	spec_size;	/* the spec's bytes with its padding */
	__u32	nr_entries;
	__u16	entry_words;	/* 2 + 3 * nvals + the key words */
	__u16	nvals;
	__u16	nkeys;
	__u16	key_words[KPT_HIST_KEYS];	/* per key */
	__u16	__pad[3];
	/* the books, as the text's Totals */
	__u64	hits;
	__u64	aggregated;
	__u64	filtered;
	__u64	dropped[KPT_HD_NR];	/* by enum kpt_hist_drop */
};

/*
 * ioctl(KPT_IOC_SYSSUM): the counts of a syscalls probe with summary
 * (s ... summary[=N], README "Tracing system calls"), which keeps no
 * record per call but counts, per CPU, by process and call. Needs
 * /dev/kptrace open for writing (-EBADF otherwise): each request ends an
 * interval and returns it, and the next interval counts from zero (the
 * tool adds them up).
 *
 * In: name (the probe's, NUL-terminated), buf and len. len must hold
 * every entry that can be: nr_cpus (KPT_IOC_INFO) x N entries (N as the
 * probes file prints summary=N: a power of 2), else -ENOSPC with that
 * size in size and nothing ended. A buffer that faults loses the
 * interval (-EFAULT). Out: size, the bytes
 * written (nr_entries struct kpt_syssum_entry, unmerged: one per CPU
 * and (process, call) that had calls); probe_id; full, the calls of the
 * interval not counted because a CPU's table had no room for their
 * (process, call) (also in probe_stats, summary_full). -ENOENT: no s
 * probe NAME with summary.
 */
struct kpt_syssum_req {
	char	name[KPT_HIST_NAME_LEN];	/* in */
	__u64	buf;		/* in: user pointer */
	__u64	len;		/* in: its bytes */
	__u64	size;		/* out: bytes written, or needed */
	__u32	probe_id;	/* out */
	__u32	nr_entries;	/* out */
	__u64	full;		/* out */
};

#define KPT_SYS_SUM_BUCKETS	32	/* lat_log2[] */
#define KPT_SYS_SUM_SHIFT	10	/* [0] is up to 2^10 ns */

struct kpt_syssum_entry {
	__u32	pid;		/* the process (tgid) */
	__u32	nr;		/* the call's x86-64 number, or its */
				/* i386 one | KPT_SYS_NR_COMPAT */
	char	comm[KPT_COMM_LEN];	/* the process's (its leader's) at */
					/* its first call of the interval */
					/* on that CPU, NUL-ended */
	__u64	calls;
	__u64	errors;		/* returned -4095..-1 */
	__u64	total_ns;
	__u64	min_ns;
	__u64	max_ns;
	__u64	sumsq_ns[2];	/* sum of squared ns: low, high words */
	/*
	 * Calls by latency, log2: [0] up to 1024 ns, [b] over 2^(9+b) and
	 * up to 2^(10+b) ns, [31] over 2^40 ns: each bucket's upper bound
	 * is in it, as a Prometheus bucket's le is (and its native
	 * histograms' schema 0). 32 bits, as a reader ends an interval
	 * before one CPU makes 2^32 calls of a (process, call): kptrace
	 * syscalls does every second.
	 */
	__u32	lat_log2[KPT_SYS_SUM_BUCKETS];
};


/*
 * Sessions. An open /dev/kptrace belongs to the default session (the
 * probes of insmod's parameters and of lines written by a shell, read by
 * debugfs' trace and trace_pipe) until ioctl(KPT_IOC_SESSION) makes it a
 * session of its own: its own per-CPU rings (their size, discard or
 * overwrite), its own clock, its own books. Probes added through that
 * file (write(), KPT_IOC_PROBE, KPT_IOC_ADD) are the session's: their
 * names are the session's own (two sessions may both have "open"), their
 * records go to its rings only, and its read()s return nothing else.
 * KPT_IOC_HIST, KPT_IOC_SYSSUM, KPT_IOC_STATS and KPT_IOC_PROBE_STATS on
 * the file ask about the session's probes. When the file is released
 * (its last descriptor closed: exit, kill -9, OOM), the session's probes
 * are disarmed, any handler still running on them finishes, and
 * everything the session owned is freed; nothing of it is listed any
 * more. Sessions are refused past KPT_MAX_SESSIONS (-EMFILE), and their
 * rings count against mem_max_mb with the probes' tables (-E2BIG past
 * it); a refusal changes nothing but, for -EFAULT writing the answer
 * back, the id it would have had. Needs the file open for writing
 * (-EBADF), once per file (-EEXIST), before it was used (-EBUSY): before
 * any read() of one byte or more, poll(), write(), KPT_IOC_PROBE or
 * KPT_IOC_ADD through it, refused or not, as long as the module read its
 * request (an ioctl refused with -EFAULT or -EBADF does not count); a
 * kernel that is locked down refuses (-EPERM). Ids count the sessions
 * made, from 1; after 2^32 - 1 they wrap, past 0.
 *
 * In: ring_bytes, flags, clock. Out (written back on success): ring_bytes
 * as allocated, clock as chosen, id.
 */
#define KPT_MAX_SESSIONS	1024	/* at once, the default one apart */
#define KPT_SESSION_OVERWRITE	0x1	/* full rings free their oldest */

/*
 * The clock of a session's records (kpt_event.ts_ns, kpt_ret.lat_ns):
 *   KPT_CLOCK_MONO   CLOCK_MONOTONIC, ordered across CPUs; where the
 *                    kernel keeps time with a device (HPET, acpi_pm) it
 *                    costs each hit a read of that device;
 *   KPT_CLOCK_LOCAL  sched_clock(), ftrace's "local" clock: ns from the
 *                    TSC, never a device read; monotonic on each CPU,
 *                    across CPUs as close as their TSCs are (two CPUs'
 *                    events may be out of order by that much);
 *   KPT_CLOCK_AUTO   (asked only) MONO where the kernel's clocksource is
 *                    read without a device (a trusted TSC, kvm-clock,
 *                    Hyper-V's or Xen's), else LOCAL.
 */
enum kpt_clock_id {
	KPT_CLOCK_AUTO	= 0,
	KPT_CLOCK_MONO	= 1,
	KPT_CLOCK_LOCAL	= 2,
};

#define KPT_CLOCK_NAMES	{ "auto", "mono", "local" }

struct kpt_session_req {
	__u64	ring_bytes;	/* in: per CPU, rounded up to a power of 2; */
				/* 0: the module's bufsize_kb. out */
	__u32	flags;		/* in: KPT_SESSION_* */
	__u32	clock;		/* in: enum kpt_clock_id; out: never AUTO */
	__u32	id;		/* out: from 1, not reused till they wrap */
	__u32	__pad;		/* 0 */
	__u64	__rsvd[2];	/* 0 */
};

/*
 * ioctl(KPT_IOC_ADD): one spec line (as a write() takes it: an add or a
 * -:NAME delete; a newline may end it, none may be in it, nor a NUL),
 * answered in the call. Needs the file open for writing (-EBADF). The
 * request is written back on every outcome the module could read it for
 * (its out fields set by the module, whatever they held): the ioctl
 * returns 0 or -err, and err, pos and msg say why (as error_log does,
 * which keeps the line too); an add's id and canonical spec (the line as
 * the probes listing prints it, addresses hidden for a reader that may
 * not see them) are set on success, the spec copied to spec (spec_len
 * bytes of room, 0 for none; spec_size says how many it needs, NUL
 * included: a spec that does not fit is not copied, and the add is
 * still done; a spec buffer that faults is not copied either, the add
 * done, and spec_size 0).
 */
#define KPT_ADD_MSG_LEN		224

struct kpt_add_req {
	__u64	line;		/* in: user pointer to the line */
	__u32	len;		/* in: its bytes, below 4096 */
	__u32	id;		/* out: the probe's id; 0 for a delete */
	__s32	err;		/* out: 0 or -errno */
	__s32	pos;		/* out: the column at fault, or -1 */
	__u64	spec;		/* in: user pointer, or 0 */
	__u32	spec_len;	/* in: its bytes */
	__u32	spec_size;	/* out: the canonical spec's, with its NUL */
	char	msg[KPT_ADD_MSG_LEN];	/* out: the reason, or "" */
};

/*
 * ioctl(KPT_IOC_STATS): the books of the file's session (the default
 * one's for a file that is not a session's), as debugfs' stats shows the
 * default session's: per possible CPU, its ring's
 *	hits = recorded + lost[], recorded = read + pending.
 * In: buf, room for nr_cpus struct kpt_ring_books. Out: nr_cpus, the
 * possible CPUs (-ENOSPC, nothing copied, if room is short), and the
 * session's settings and totals.
 */
struct kpt_ring_books {
	__u64	hits;
	__u64	recorded;	/* committed, less the overwritten */
	__u64	read;
	__u64	lost[KPT_LOST_NR];
};

struct kpt_stats_req {
	__u64	buf;		/* in: user pointer */
	__u32	nr_cpus;	/* in: room, in entries; out */
	__u32	session;	/* out: its id, 0: the default session */
	__u64	ring_bytes;	/* out: per CPU */
	__u32	flags;		/* out: KPT_SESSION_* */
	__u32	clock;		/* out: enum kpt_clock_id */
	__u32	nr_probes;	/* out: live (armed or pending) */
	__u32	__pad;
	__u64	missed;		/* out: the kprobe core's misses of its */
				/* probes, the deleted ones' included */
	__u64	filtered;	/* out: likewise */
	__u64	mem_bytes;	/* out: counted against mem_max_mb: its */
				/* rings and file buffer, not its probes' */
};

/*
 * ioctl(KPT_IOC_PROBE_STATS): one probe's books, as probe_stats' total
 * line shows them, by id; only a probe of the file's session (-ENOENT
 * for any other). In: id. Out: the rest.
 *	events = filtered + recorded + lost[] + summary_full
 */
#define KPT_PB_RETURN		0x1	/* a return probe (r, b, s) */
#define KPT_PB_SUMMARY		0x2	/* an s probe with summary */

struct kpt_probe_books {
	__u32	id;		/* in */
	__u32	flags;		/* out: KPT_PB_* */
	__u64	calls;		/* hits of the probe point */
	__u64	events;
	__u64	filtered;
	__u64	recorded;
	__u64	lost[KPT_LOST_NR];
	__u64	missed;		/* the kprobe core's: recursion */
	__u64	maxactive_missed;	/* no free return instance */
	__u64	num_fault;
	__u64	str_fault;
	__u64	str_trunc;
	__u64	stack_trunc;
	__u64	summary_full;
};

#define KPT_IOC_MAGIC		0xb7
#define KPT_IOC_INFO		_IOR(KPT_IOC_MAGIC, 0, struct kpt_info)
#define KPT_IOC_PROBE		_IOW(KPT_IOC_MAGIC, 1, struct kpt_probe_cmd)
#define KPT_IOC_HIST		_IOWR(KPT_IOC_MAGIC, 2, struct kpt_hist_req)
#define KPT_IOC_SYSSUM		_IOWR(KPT_IOC_MAGIC, 3, struct kpt_syssum_req)
#define KPT_IOC_SESSION		_IOWR(KPT_IOC_MAGIC, 4, struct kpt_session_req)
#define KPT_IOC_ADD		_IOWR(KPT_IOC_MAGIC, 5, struct kpt_add_req)
#define KPT_IOC_STATS		_IOWR(KPT_IOC_MAGIC, 6, struct kpt_stats_req)
#define KPT_IOC_PROBE_STATS	_IOWR(KPT_IOC_MAGIC, 7, struct kpt_probe_books)
/*
 * ioctl(KPT_IOC_NOW): now, in ns by the clock of the file's session at the
 * time of the call (the default session's until KPT_IOC_SESSION): the
 * clock kpt_event.ts_ns is read from, CLOCK_MONOTONIC or sched_clock()
 * (a record's time is that clock as its CPU interpolates it, clock.h).
 * How a tool places a moment of its own (a /proc snapshot) among the
 * records where it cannot read that clock (KPT_CLOCK_LOCAL).
 */
#define KPT_IOC_NOW		_IOR(KPT_IOC_MAGIC, 8, __u64)

#endif /* _UAPI_KPTRACE_H */
