/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: a probe, as probe.c makes it and the handlers (fetch.c) read
 * it, and the probes' interface for the rest of the module.
 */
#ifndef _KPT_PROBE_H
#define _KPT_PROBE_H

#include <linux/types.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <uapi/kptrace.h>
#include "spec.h"
#include "clock.h"

/* Per probe and per CPU; the handlers count with this_cpu_inc(). */
struct kpt_probe_stats {
	u64	cpu_id;		/* not a counter: a header word, this CPU | */
				/* the probe's id << 32 (see kpt_fill_header) */
	/* not a counter: this CPU's ring of the probe's session's buffer */
	struct kpt_ring	*ring;
	u64	calls;		/* hits of the probe point (entries) */
	/* handler runs that meant an event, but a retprobe=1 entry's */
	u64	hits;		/* (that one is counted as a call) */
	u64	filtered;	/* ... that the condition dropped */
	u64	lost[KPT_LOST_NR];	/* ... lost; the rest were recorded */
	u64	num_fault;	/* numbers read as 0 after a fault */
	u64	str_fault;
	u64	str_trunc;
	u64	stack_trunc;
	/*
	 * An s probe's calls its selection dropped at entry: one count
	 * where calls, hits and filtered would be three; each a call, an
	 * event and a filtered one (kpt_probe_stats_fold())
	 */
	u64	unselected;
	u64	sum_full;	/* an s probe's summary had no room */
};

/* Counts as shown: an s probe's unselected calls in calls, hits, filtered */
static inline void kpt_probe_stats_fold(struct kpt_probe_stats *st)
{
	st->calls += st->unselected;
	st->hits += st->unselected;
	st->filtered += st->unselected;
	st->unselected = 0;
}

enum kpt_probe_state {
	KPT_PROBE_ARMED,	/* registered with the kprobe core */
	KPT_PROBE_PENDING,	/* MOD:SYM whose module is not loaded */
};

/*
 * The fast paths copy this many argument slots, used or not, and have one
 * more, past them, for a $retval that is not there: straight-line code,
 * two instructions a slot for the ABI's argument registers in order, three
 * for others, fewer than a loop's or a test's per argument.
 */
#define KPT_FAST_ARGS		6

/*
 * One fetcharg of one phase of a program: where spec->args[slot] comes
 * from, compiled so that a handler reads nothing else.
 */
struct kpt_step {
	u8		slot;		/* its place in args[] */
	u8		base;		/* enum kpt_fetch_base */
	u8		type;		/* enum kpt_fetch_type */
	u8		reg;		/* enum kpt_reg, for KPT_FB_REG */
	u8		nderef;
	u8		size;		/* bytes the last read takes; 0: */
					/* a string, whose address it is */
	bool		str;		/* a string type */
	u8		str_flags;	/* its KPT_STR_USER, as the last */
					/* +uOFFS(...) says */
	u32		index;		/* N of $argN, $stackN */
	u64		imm;		/* the address of @ADDR */
	struct kpt_deref deref[KPT_SPEC_MAX_DEREF];
};

/*
 * A phase: the fetchargs fetched at entry, or at a return probe's return,
 * kpt_prog::step[first] to [first + n - 1]
 */
struct kpt_phase {
	u8		first;
	u8		n;		/* steps */
	u8		nstr;		/* of them strings */
};

enum { KPT_AT_ENTRY, KPT_AT_RETURN };

/* A condition's term, its field's signedness decided once */
struct kpt_term {
	struct kpt_cond	c;
	bool		is_signed;
};

/* How an aggregation's key is made (kpt_hist_key(), fetch.c) */
enum kpt_hkey_kind { KPT_HK_NUM, KPT_HK_STACK, KPT_HK_COMM, KPT_HK_STR };

struct kpt_hkey {
	struct kpt_hist_field hf;	/* field, bucket modifier, sign */
	u8		kind;		/* enum kpt_hkey_kind */
	u8		str_base;	/* KPT_HK_STR: its fetcharg's base, */
	u8		str_type;	/* type and KPT_STR_USER */
	u8		str_flags;
};

/*
 * A probe's program: what its handlers do on a hit, compiled once from its
 * spec by kpt_prog_compile() (prog.c); a kind's arm() picks the handlers
 * that run it (kpt_kprobe_set_handlers(), kpt_kretprobe_set_handlers(),
 * fetch.c). The handlers read this and nothing
 * of the spec: the fast paths its first words, the general path also its
 * phases, condition and aggregation.
 */
struct kpt_prog {
	bool		is_ret;		/* a kretprobe: r or b */
	bool		both;		/* b: the entry is a record of its */
					/* own, the return only its value */
	bool		regs_only;	/* at most KPT_FAST_ARGS fetchargs, */
					/* each a 64-bit register argument */
					/* or $retval, no condition */
	bool		entry_fast;	/* regs_only, and stack=0 */
	bool		hist_events;	/* hist: ...:events */
	bool		syscalls;	/* an s probe: syscall.c's handlers */
	bool		sys_ret_filter;	/* its failure or duration= */
	bool		sys_ret_slow;	/* those, or stack= */
	bool		sys_fast_task;	/* no comm=, cgroup=, children= */
	bool		clock_local;	/* its session's clock: local */
	/* ... that clock's anchors (clock.h) */
	struct kpt_clock __percpu *clock;
	u8		nargs;		/* spec->nargs */
	u8		ret_nargs;	/* in a return record */
	u8		ret_slot;	/* the $retval argument, or */
					/* KPT_FAST_ARGS (none) */
	u8		ncond;		/* spec->ncond */
	/* the fetchargs' offsets in pt_regs; unused (and $retval's): ax */
	unsigned short	arg_off[KPT_FAST_ARGS];
	unsigned int	nstr;		/* string fetchargs */
	/* bytes of their strings fetched at entry, at return */
	unsigned int	str_bytes[2];
	unsigned int	entry_size;	/* largest entry record */
	unsigned int	ret_size;	/* largest return record */
	unsigned int	ri_size;	/* kretprobe instance data */
	/* the aggregation's keys and values (spec->hist) */
	u8		nkeys;
	u8		nvals;
	u16		val_field[KPT_HIST_MAX_VALS];
	struct kpt_hkey	key[KPT_HIST_MAX_KEYS];
	struct kpt_term	cond[KPT_SPEC_MAX_COND];
	/*
	 * [KPT_AT_ENTRY]: every fetcharg but a return probe's $retval ones,
	 * which are [KPT_AT_RETURN]'s (a b probe has none); their steps in
	 * step[], the entry's first
	 */
	struct kpt_phase phase[2];
	struct kpt_step	step[KPT_SPEC_MAX_ARGS];
	/* an s probe's selection, every number's bit set if nr= is not */
	struct kpt_sys_spec sys;
	/* ... its numbers but exit and exit_group (kpt_sys_kprobe_pre()) */
	u64		sys_fast_nr[KPT_SYS_NR_BITS / 64];
	/* ... comm='s verdicts, per CPU (syscall.h); NULL without comm= */
	struct kpt_sys_comm_memo __percpu *sys_comm_memo;
};

struct kpt_session;
struct kpt_probe;
struct seq_file;

/*
 * Many probes disarmed at once (a session's close): each kind's disarm()
 * puts what it registered here instead of unregistering it, and
 * kpt_probes_disarm_all() (probe.c) unregisters them all with one wait for
 * their handlers (an RCU grace period) per kind of registration, not one
 * per probe. Room for as many kprobes as the probes disarmed, and
 * KPT_PROBE_MAX_RPS kretprobes each (an s probe's: syscall.h).
 */
#define KPT_PROBE_MAX_RPS	3
struct kpt_disarm_batch {
	struct kprobe		**kps;
	struct kretprobe	**rps;
	unsigned int		nkps;
	unsigned int		nrps;
	bool			tracepoints;	/* to wait for, once */
};

/*
 * A kind of probe, as ftrace's dyn_event_operations: what differs between
 * a kprobe (p), a kretprobe (r, b) and the syscalls probe (s), one table
 * each (kprobe.c, syscall.c), so that the code every probe shares never
 * asks which. The aggregation (hist:) is not a kind: a p or r probe has
 * one or not (kpt_probe::hist).
 */
struct kpt_probe_ops {
	/* after the shared compile (prog.c): the records' sizes, ri_size */
	void		(*compile)(const struct kpt_spec *spec,
				   struct kpt_prog *g);
	/* return instances in flight at once (none: NULL) */
	unsigned int	(*maxactive)(const struct kpt_probe *p);
	/* bytes it allocates as its spec says, for mem_max_mb (or NULL) */
	u64		(*mem)(const struct kpt_probe *p);
	/* what the kind refuses, before anything is allocated (or NULL): */
	/* 0, or -EINVAL or -E2BIG with the reason in *@why */
	int		(*check)(const struct kpt_probe *p, const char **why);
	/* its own tables, once sized and checked (or NULL): 0, -ENOMEM */
	int		(*alloc)(struct kpt_probe *p);
	/* its handlers set, registered: once it returns 0 they may run */
	int		(*arm)(struct kpt_probe *p);
	/*
	 * unregistered: once it returns, none of its handlers runs; or, with
	 * @batch, once kpt_probes_disarm_all() unregistered the batch
	 */
	void		(*disarm)(struct kpt_probe *p,
				  struct kpt_disarm_batch *batch);
	void		(*free)(struct kpt_probe *p);		/* or NULL */
	/* why arming refused @err, if not kpt_reason()'s (or NULL) */
	const char	*(*arm_error)(const struct kpt_probe *p, int err);
	/* the listing's " at=WHERE KIND MODE"; @buf: 2 * KSYM_SYMBOL_LEN */
	void		(*show)(struct seq_file *m, struct kpt_probe *p,
				char *buf);
};

extern const struct kpt_probe_ops kpt_kprobe_ops;
extern const struct kpt_probe_ops kpt_kretprobe_ops;
extern const struct kpt_probe_ops kpt_sys_ops;

struct kpt_probe {
	struct kprobe		kp;	/* entry probes */
	struct kretprobe	rp;	/* return probes */
	const struct kpt_probe_ops *ops;	/* its kind */
	struct list_head	list;	/* kpt_probe_list, kpt_probes_mutex */
	struct kpt_session	*sess;	/* its owner: its records go there */
	u32			id;	/* kpt_event.probe_id, never reused */
	u8			state;	/* enum kpt_probe_state */
	struct kpt_prog		prog;
	int			err;	/* last arming error, for pending */
	u64			mem;	/* counted against mem_max_mb */
	char			*label;	/* the name events carry */
	char			*symname;	/* "mod:sym" or "sym" */
	struct kpt_spec		*spec;
	struct kpt_hist		*hist;	/* its aggregation, or NULL */
	struct kpt_sys_tp	*sys_tp;	/* an s probe on tracepoints */
	struct kpt_sys_sum	*sys_sum;	/* an s probe's summary */
	struct kpt_sys_aux	*sys_aux;	/* an s probe's other probes */
	/* an s probe's kretprobe pre-handler, behind its selection */
	kprobe_pre_handler_t	sys_pre;
	struct kpt_probe_stats __percpu *stats;
	/* the kprobe core's counts before the last re-arm zeroed them */
	unsigned long		missed_before;
	unsigned long		maxactive_missed_before;
	struct rcu_head		rcu;	/* freed after a grace period */
};

static inline struct kprobe *kpt_probe_kprobe(struct kpt_probe *p)
{
	return p->prog.is_ret ? &p->rp.kp : &p->kp;
}

/* The kprobe core's misses: recursion, and for a kretprobe maxactive. */
static inline unsigned long kpt_probe_kp_missed(struct kpt_probe *p)
{
	return p->missed_before + kpt_probe_kprobe(p)->nmissed;
}

unsigned long kpt_sys_missed(const struct kpt_probe *p);

static inline unsigned long kpt_probe_rp_missed(struct kpt_probe *p)
{
	return p->prog.is_ret ? p->maxactive_missed_before + p->rp.nmissed +
				kpt_sys_missed(p) : 0;
}

static inline u64 kpt_probe_missed(struct kpt_probe *p)
{
	return kpt_probe_kp_missed(p) + kpt_probe_rp_missed(p);
}

/*
 * probe.c. The live probes (armed or pending) are on kpt_probe_list, and
 * every change to a probe happens under kpt_probes_mutex, or on a private
 * list once off kpt_probe_list (a session's close, kpt_probes_disarm_all());
 * probe_show.c walks the list under the mutex too.
 */
extern struct list_head kpt_probe_list;
extern struct mutex kpt_probes_mutex;
void kpt_probes_reclaim(void);		/* under kpt_probes_mutex */
void kpt_probe_sum(struct kpt_probe *p, struct kpt_probe_stats *sum);
/* under kpt_probes_mutex: for the probes of name= and address= */
struct kpt_probe *kpt_probe_find(struct kpt_session *sess, const char *group,
				 const char *name);

/*
 * The answer to one spec line, for KPT_IOC_ADD: kpt_error() fills err,
 * pos and msg of the line being served, the add its id and probe.
 */
struct kpt_answer {
	int			err;
	int			pos;
	u32			id;
	struct kpt_probe	*probe;	/* under kpt_probes_mutex only */
	char			msg[KPT_ADD_MSG_LEN];
};

int kpt_probe_create(struct kpt_session *sess, struct kpt_spec *spec,
		     const char *label, const char *line);
int kpt_probes_init(void);
void kpt_probes_exit(void);
int kpt_probes_write(struct kpt_session *sess, const char *text, size_t len,
		     char sep);
int kpt_probes_write_user(struct kpt_session *sess, const char __user *ubuf,
			  size_t len);
int kpt_probes_add_user(struct kpt_session *sess, struct kpt_add_req *req,
			bool hide);
void kpt_probes_session_close(struct kpt_session *sess);
int kpt_mem_charge(u64 bytes);		/* under kpt_probes_mutex */
void kpt_mem_uncharge(u64 bytes);
int kpt_probes_books(struct kpt_session *sess, struct kpt_probe_books *pb);
int kpt_probes_hist(struct kpt_session *sess, const char *name, u32 flags,
		    u32 *gen, u32 *id, bool hide, void **out, size_t *len);
void kpt_probe_overwritten(const struct kpt_event *ev);
/*
 * What a record's probe id names, for format.c: a live probe, or the
 * tombstone of a deleted one whose records may still be in a ring. Used
 * under rcu_read_lock(); NULL once no record of the probe is left.
 */
struct kpt_probe_ref;
const struct kpt_probe_ref *kpt_probe_lookup(u32 id);
const char *kpt_probe_ref_label(const struct kpt_probe_ref *ref);
int kpt_probe_ref_arg(const struct kpt_probe_ref *ref, unsigned int i,
		      const char **name);
u64 kpt_probes_missed(struct kpt_session *sess);
u64 kpt_probes_filtered(struct kpt_session *sess);
unsigned int kpt_probes_deleted_pending(void);
u64 kpt_probes_mem_used(void);
struct dentry;
void kpt_probes_hist_dir(struct dentry *dir);

/* ids.c: what a record's probe id names; kpt_probes_mutex */
int kpt_id_alloc(struct kpt_probe *p);
void kpt_id_unused(struct kpt_probe *p);
void kpt_id_bury(struct kpt_probe *p, bool records);
void kpt_id_release(struct kpt_probe *p);
void kpt_tombs_free(struct kpt_session *sess);
void kpt_ids_exit(void);

/* prog.c: a probe's program */
void kpt_prog_compile(const struct kpt_spec *spec,
		      const struct kpt_probe_ops *ops, struct kpt_prog *g);

/* kprobe.c: what the syscalls kind shares with the kretprobe kind */
void kpt_kretprobe_prepare(struct kpt_probe *p);
void kpt_kretprobe_disarm(struct kpt_probe *p, struct kpt_disarm_batch *batch);
void kpt_rp_disarm(struct kretprobe *rp, struct kpt_disarm_batch *batch);
u64 kpt_kretprobe_mem(const struct kpt_probe *p);
int kpt_kretprobe_check(const struct kpt_probe *p, const char **why);

/* probe_show.c: what the probes files show, and the error log */
void kpt_probes_show(struct seq_file *m, bool hide);
void kpt_probe_show_kprobe(struct seq_file *m, struct kpt_probe *p,
			   const char *kind, char *buf);
void kpt_probes_show_stats(struct seq_file *m);
void kpt_error(const char *line, int pos, const char *msg, int err);
void kpt_error_answer(struct kpt_answer *ans);	/* kpt_probes_mutex */
void kpt_error_answer_probe(struct kpt_probe *p);
void kpt_errors_show(struct seq_file *m);

/* fetch.c: the handlers the kinds' arm() registers */
void kpt_kprobe_set_handlers(struct kpt_probe *p);
void kpt_kretprobe_set_handlers(struct kpt_probe *p);
struct kpt_event;
void kpt_stack_record(struct kpt_probe *p, struct kpt_event *ev,
		      struct pt_regs *regs, u64 *out, unsigned int n,
		      unsigned int max);

/* syscall.c: an s probe's */
#define KPT_SYS_MAXACTIVE	32768	/* its default MAXACTIVE, at most */
int kpt_sys_ids_global(struct kpt_spec *spec);
int kpt_probes_syssum(struct kpt_session *sess, const char *name,
		      void __user *ubuf, u64 room, u32 *id, u32 *n, u64 *full,
		      size_t *len);

#endif /* _KPT_PROBE_H */
