/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: probe specs, the ftrace kprobe_events language, parsed once.
 *
 * This header and the parser's files beside it (spec.c, the line as a
 * whole; spec_*.c, a clause each; spec_impl.h, what they share) compile in
 * the kernel and in userspace (the tool and the host tests include them),
 * so they use nothing but fixed-width types and a few string functions
 * that both sides have.
 */
#ifndef _KPT_SPEC_H
#define _KPT_SPEC_H

#include <linux/types.h>

#define KPT_SPEC_MAX_ARGS	16	/* fetchargs per probe */
#define KPT_SPEC_MAX_DEREF	4	/* nested +OFFS(...) per fetcharg */
#define KPT_SPEC_MAX_COND	8	/* terms of an "if" condition */
#define KPT_SPEC_NAME_LEN	64	/* group, event and argument names */
#define KPT_SPEC_SYM_LEN	256	/* symbol names */
#define KPT_SPEC_MOD_LEN	64	/* module names (MODULE_NAME_LEN) */
#define KPT_SPEC_GLOB_LEN	16	/* comm globs (TASK_COMM_LEN) */
#define KPT_SPEC_LINE_MAX	4096	/* one spec line */
#define KPT_MAXACTIVE_MAX	4096
/* an s probe's: a task blocked in a call holds one; 20000 parked threads */
#define KPT_SYS_MAXACTIVE_MAX	65536
#define KPT_HIST_MAX_KEYS	3	/* as ftrace's hist triggers */
#define KPT_HIST_MAX_VALS	4	/* besides hitcount */
#define KPT_HIST_SIZE_DEF	2048	/* entries per CPU */
#define KPT_HIST_SIZE_MAX	131072
#define KPT_HIST_STR_LEN	64	/* a string key, with its NUL */
#define KPT_HIST_STACK_DEPTH	16	/* frames of a stacktrace key */
#define KPT_HIST_SUB_BITS	4	/* .loglin: 16 buckets per power of 2 */

enum kpt_spec_kind {
	KPT_SPEC_ENTRY	= 'p',
	KPT_SPEC_RETURN	= 'r',
	KPT_SPEC_BOTH	= 'b',	/* an entry record, and a return record */
	KPT_SPEC_SYSCALLS = 's',	/* system calls (module/syscall.c) */
	KPT_SPEC_DELETE	= '-',
};

/* Where a fetcharg starts. */
enum kpt_fetch_base {
	KPT_FB_REG,		/* %REG: reg is an enum kpt_reg */
	KPT_FB_ARG,		/* $argN: index = N, from 1 */
	KPT_FB_STACK,		/* $stackN: index = N, from 0 */
	KPT_FB_STACKP,		/* $stack: the stack pointer */
	KPT_FB_RETVAL,		/* $retval: return probes only */
	KPT_FB_COMM,		/* $comm: the task's name */
	KPT_FB_ADDR,		/* @ADDR[+|-OFFS]: imm, a kernel address */
};

/* What is stored. The first ones are integers of 1, 2, 4 or 8 bytes. */
enum kpt_fetch_type {
	KPT_T_U8, KPT_T_U16, KPT_T_U32, KPT_T_U64,
	KPT_T_S8, KPT_T_S16, KPT_T_S32, KPT_T_S64,
	KPT_T_X8, KPT_T_X16, KPT_T_X32, KPT_T_X64,
	KPT_T_STRING,		/* NUL-terminated, kernel memory */
	KPT_T_USTRING,		/* NUL-terminated, user memory */
	KPT_T_STR,		/* kernel or user memory, by the address */
	KPT_T_SYMBOL,		/* a kernel address, printed as sym+off */
	KPT_T_NR
};

/*
 * The registers %REG names, in the order of kpt_reg_names[]: the
 * architecture's the parser is built for (the module's, or the tool's),
 * as ftrace's kprobe_events names its own.
 */
#ifdef __aarch64__
enum kpt_reg {
	KPT_REG_X0, KPT_REG_X30 = KPT_REG_X0 + 30, KPT_REG_SP, KPT_REG_PC,
	KPT_REG_PSTATE, KPT_REG_NR
};
#else
enum kpt_reg {
	KPT_REG_AX, KPT_REG_BX, KPT_REG_CX, KPT_REG_DX, KPT_REG_SI,
	KPT_REG_DI, KPT_REG_BP, KPT_REG_SP, KPT_REG_R8, KPT_REG_R9,
	KPT_REG_R10, KPT_REG_R11, KPT_REG_R12, KPT_REG_R13, KPT_REG_R14,
	KPT_REG_R15, KPT_REG_IP, KPT_REG_FLAGS, KPT_REG_NR
};
#endif

struct kpt_deref {
	__s32	off;
	__u8	user;		/* +uOFFS(...): read user memory */
};

struct kpt_fetch {
	char		name[KPT_SPEC_NAME_LEN];
	__u8		base;		/* enum kpt_fetch_base */
	__u8		type;		/* enum kpt_fetch_type */
	__u8		reg;		/* enum kpt_reg, for KPT_FB_REG */
	__u8		nderef;
	__u32		index;		/* N of $argN, $stackN */
	__u64		imm;		/* the address of @ADDR */
	/* applied in order: deref[0] is the innermost +OFFS(...) */
	struct kpt_deref deref[KPT_SPEC_MAX_DEREF];
};

/* Fields of a condition other than the fetchargs (which are 0..nargs-1). */
enum kpt_cond_field {
	KPT_CF_RETVAL = 0x100, KPT_CF_LAT_NS, KPT_CF_PID, KPT_CF_TID,
	KPT_CF_CPU, KPT_CF_UID, KPT_CF_COMM,
	KPT_CF_STACKTRACE,	/* hist keys only */
};

enum kpt_cond_op {
	KPT_OP_EQ, KPT_OP_NE, KPT_OP_LT, KPT_OP_LE, KPT_OP_GT, KPT_OP_GE,
	KPT_OP_AND,		/* FIELD & MASK: true when any bit is set */
};

struct kpt_cond {
	__u16	field;		/* fetcharg index or enum kpt_cond_field */
	__u8	op;		/* enum kpt_cond_op */
	__u8	or;		/* joined to the previous term by || (else &&) */
	__s64	value;
	char	glob[KPT_SPEC_GLOB_LEN];	/* for comm */
};

/* How a hist key is bucketed (and printed). */
enum kpt_hist_mod {
	KPT_HM_NONE,
	KPT_HM_HEX,		/* .hex: printed in hex */
	KPT_HM_LOG2,		/* .log2: ~ 2^k holds (2^(k-1), 2^k], as ftrace */
	KPT_HM_LOGLIN,		/* .loglin: 2^KPT_HIST_SUB_BITS per power of 2 */
	KPT_HM_BUCKETS,		/* .buckets=N: ~ kN-(kN+N-1) */
};

struct kpt_hist_field {
	__u16	field;		/* fetcharg index or enum kpt_cond_field */
	__u8	mod;		/* enum kpt_hist_mod, keys only */
	__u8	is_signed;	/* a signed field (set by the parser) */
	__u32	buckets;	/* N of .buckets=N */
};

/* Sort by: hitcount, a key (KPT_HIST_SORT_KEY + i) or a value's sum. */
#define KPT_HIST_SORT_HITCOUNT	0
#define KPT_HIST_SORT_KEY	1
#define KPT_HIST_SORT_VAL	(KPT_HIST_SORT_KEY + KPT_HIST_MAX_KEYS)

/* hist:keys=...[:vals=...][:sort=...][:size=N][:events] */
struct kpt_hist_spec {
	__u8	nkeys;		/* 0: the probe has no aggregation */
	__u8	nvals;
	__u8	sort;		/* KPT_HIST_SORT_* */
	__u8	descending;
	__u8	events;		/* also record events */
	__u8	size_given;	/* size= was given (else the module fits */
				/* the default to the machine's CPUs) */
	__u8	pad[2];
	__u32	size;		/* entries per CPU */
	struct kpt_hist_field keys[KPT_HIST_MAX_KEYS];
	struct kpt_hist_field vals[KPT_HIST_MAX_VALS];
};

/*
 * s[MAXACTIVE][:[GRP/]NAME] [pid=P,..] [tid=T,..] [children=PID]
 * [exclude=PID] [comm=GLOB] [cgroup=ID] [nr=N[-M],..] [nr32=N[-M],..]
 * [failure] [duration=NS] [stack=N] [signals] [denied] [summary[=N]]: the
 * selection of a syscalls probe, every option ANDed; nr= the x86-64
 * numbers, nr32= the i386 numbers of 32-bit calls (int $0x80, 32-bit
 * tasks); without either, every number of both, else only those given
 * (nr= alone: no 32-bit call); stack=, each record's call trace, at most
 * N frames; signals, a record per signal delivered to and exit of a
 * selected task; denied, a record per call of a selected task that
 * seccomp denied; with summary (not with stack=, signals or denied), no
 * record per call but per-CPU counts by process and call in tables of N
 * entries (module/syscall.c, KPT_IOC_SYSSUM). Its fetchargs are fixed
 * (KPT_SYS_NARGS: nr, arg0..arg5, str0, str1) and filled in by the parser
 * (spec_sys.c, which parses and prints these options).
 */
#define KPT_SYS_MAX_IDS		8	/* pids, tids */
#define KPT_SYS_NR_BITS		512	/* x86-64 numbers nr= can select */
#define KPT_SYS_NARGS		9
#define KPT_SYS_NSTR		2	/* string slots */
#define KPT_SYS_SUM_DEF		1024	/* summary's entries per CPU */
#define KPT_SYS_SUM_MAX		65536
#define KPT_SYS_MAX_STACK	64	/* stack=, KPT_MAX_STACK */

struct kpt_sys_spec {
	__u32	pid[KPT_SYS_MAX_IDS];	/* tgids */
	__u32	tid[KPT_SYS_MAX_IDS];
	__u32	children;	/* descendants of process PID; 0: any */
	__u8	npid;
	__u8	ntid;
	__u8	failure;	/* only calls that returned -4095..-1 */
	__u8	nr_given;	/* nr= or nr32=: else every number */
	__u8	stack;		/* frames of each record's call trace */
	__u8	signals;	/* signals delivered, task exits */
	__u8	denied;		/* calls seccomp denied */
	__u64	cgroup;		/* a cgroup v2 id and its subtree; 0: any */
	__u64	duration_ns;	/* only calls longer than this; 0: any */
	__u32	summary;	/* entries per CPU of a summary; 0: records */
	__u32	exclude;	/* a process left out (a tool's own); 0: none */
	char	comm[KPT_SPEC_GLOB_LEN];	/* empty: any */
	__u64	nr[KPT_SYS_NR_BITS / 64];
	__u64	nr32[KPT_SYS_NR_BITS / 64];	/* i386 numbers */
};

struct kpt_spec {
	char		kind;		/* enum kpt_spec_kind */
	char		group[KPT_SPEC_NAME_LEN];
	char		name[KPT_SPEC_NAME_LEN];
	char		mod[KPT_SPEC_MOD_LEN];	/* MOD:SYM, else empty */
	char		sym[KPT_SPEC_SYM_LEN];	/* empty for an address */
	__u64		addr;			/* when sym is empty */
	__u32		offset;
	__u32		maxactive;		/* r probes; 0: the default */
	__u32		nargs;
	struct kpt_fetch args[KPT_SPEC_MAX_ARGS];
	__u32		ncond;
	struct kpt_cond	cond[KPT_SPEC_MAX_COND];
	struct kpt_hist_spec hist;
	struct kpt_sys_spec sys;	/* kind KPT_SPEC_SYSCALLS */
	/* Set by kpt_spec_parse() on error: */
	int		err_pos;	/* column of the error, from 0 */
	const char	*err_msg;
};

extern const char * const kpt_reg_names[KPT_REG_NR];
extern const char * const kpt_type_names[KPT_T_NR];

int kpt_spec_parse(const char *line, struct kpt_spec *spec);
int kpt_spec_print(const struct kpt_spec *spec, int hide, char *buf, int len);
int kpt_type_size(unsigned int type);
int kpt_type_is_string(unsigned int type);
int kpt_type_is_signed(unsigned int type);
int kpt_field_signed(const struct kpt_spec *spec, unsigned int field);
int kpt_field_numeric(const struct kpt_spec *spec, unsigned int field);
int kpt_glob_match(const char *glob, const char *str);
int kpt_print_glob(const char *glob, int quoted, char *buf, int len);
int kpt_hexval(char ch);
const char *kpt_spec_field_name(const struct kpt_spec *spec,
				unsigned int field);
int kpt_hist_print(const struct kpt_spec *spec, char *buf, int len);

#endif /* _KPT_SPEC_H */
