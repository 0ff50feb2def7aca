/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: declarations shared by the module's files.
 *
 *   main.c     module parameters, init and exit
 *   spec.c     the probe spec language (also built into the tools)
 *   probe.c    probes: creating, arming, listing, deleting, module reloads
 *   ksyms.c    function names that are not unique (from /proc/kallsyms)
 *   fetch.c    the probe handlers' work: fetchargs, conditions, records
 *   ring.c     the per-CPU lock-free ring buffers (writer, stats, wake-ups)
 *   ring_read.c  their reader
 *   format.c   text rendering of a record (trace, trace_pipe)
 *   debugfs.c  /sys/kernel/debug/kptrace/
 *   chardev.c  /dev/kptrace
 *   hide.c     kernel addresses hidden from some readers
 *   hist.c     aggregations (hist:): their tables and hist/NAME files
 */
#ifndef _KPT_KPTRACE_H
#define _KPT_KPTRACE_H

#include <linux/types.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <uapi/kptrace.h>
#include "spec.h"

#define KPT_HDR_SIZE		sizeof(struct kpt_event)
#define KPT_ENTRY_SIZE(args, stack) \
	(KPT_HDR_SIZE + ((args) + (stack)) * sizeof(__u64))
#define KPT_RET_SIZE		(KPT_HDR_SIZE + sizeof(struct kpt_ret))
#define KPT_RECORD_MAX		(64 * 1024)	/* largest record of a probe */
#define KPT_STRSIZE_MAX		4096
#define KPT_LOST_SIZE		(KPT_HDR_SIZE + sizeof(struct kpt_lost))

/* Settings fixed at load time, read by every probe hit. */
struct kpt_config {
	unsigned int	args;		/* register arguments, name=/address= */
	unsigned int	stack;		/* stack frames per entry */
	bool		overwrite;	/* flight recorder mode */
	unsigned int	strsize;	/* bytes per string argument */
	unsigned int	maxactive;	/* default for return probes */
	unsigned long	ring_bytes;	/* per CPU, a power of two */
	bool		wake_net_only;	/* selftests: no writer wakes */
};

extern struct kpt_config kpt_cfg;

/* ring.c */
struct kpt_ring;

/* The rings' own settings, fixed when they are allocated. */
struct kpt_ring_opts {
	unsigned long	bytes;		/* per CPU, a power of two */
	bool		overwrite;	/* a full ring frees its oldest */
	bool		wake_net_only;	/* selftests: no writer wakes */
	/* overwrite: a record freed unread, from its writer (any context) */
	void		(*dropped)(const struct kpt_event *ev);
};

int kpt_rings_alloc(const struct kpt_ring_opts *opts);
void kpt_rings_free(void);

/* ring_read.c: the reader side, process context only. */
struct file;
struct poll_table_struct;
/* A read of the rings: where its records go, how many at most. */
struct kpt_read {
	char __user	*ubuf;		/* the reader's memory, or NULL */
	size_t		len;		/* room at ubuf (or in kbuf) */
	void		*kbuf;		/* when hidden, may be torn, or !ubuf */
	size_t		kbuf_len;
	unsigned long	max_nr;		/* records, loss reports included */
	unsigned int	max_record;	/* kpt_probes_max_record() */
	bool		hide_addrs;	/* a restricted reader's: edited */
	bool		block;
	bool		in_kbuf;	/* set: the records went to kbuf */
};

ssize_t kpt_rings_read(struct kpt_read *rq);
__poll_t kpt_rings_poll(struct file *file, struct poll_table_struct *wait);

struct kpt_cpu_stats {
	u64 hits;
	u64 recorded;
	u64 lost[KPT_LOST_NR];
	u64 read;
};

void kpt_ring_stats(unsigned int cpu, struct kpt_cpu_stats *st);
void kpt_ring_positions(unsigned int cpu, unsigned long *head,
			unsigned long *tail);
extern const char * const kpt_lost_names[KPT_LOST_NR];

/* Per probe and per CPU; the handlers count with this_cpu_inc(). */
struct kpt_probe_stats {
	u64	cpu_id;		/* not a counter: a header word, this CPU | */
				/* the probe's id << 32 (see kpt_fill_header) */
	u64	calls;		/* hits of the probe point (entries) */
	/* handler runs that meant an event, but a retprobe=1 entry's */
	u64	hits;		/* (that one is counted as a call) */
	u64	filtered;	/* ... that the condition dropped */
	u64	lost[KPT_LOST_NR];	/* ... lost; the rest were recorded */
	u64	num_fault;	/* numbers read as 0 after a fault */
	u64	str_fault;
	u64	str_trunc;
	u64	stack_trunc;
};

enum kpt_probe_state {
	KPT_PROBE_ARMED,	/* registered with the kprobe core */
	KPT_PROBE_PENDING,	/* MOD:SYM whose module is not loaded */
	KPT_PROBE_DELETED,	/* kept while records of it may be unread */
};

/*
 * The fast paths copy this many argument slots, used or not, and have one
 * more, past them, for a $retval that is not there: straight-line code,
 * three instructions a slot, fewer than a loop's or a test's per argument.
 */
#define KPT_FAST_ARGS		6

struct kpt_probe {
	struct kprobe		kp;	/* entry probes */
	struct kretprobe	rp;	/* return probes */
	struct list_head	list;	/* kpt_probe_list, kpt_probes_mutex */
	u32			id;	/* kpt_event.probe_id, never reused */
	u8			state;	/* enum kpt_probe_state */
	bool			is_ret;	/* a kretprobe */
	bool			legacy;	/* name=/address=: "argN" from 0, */
					/* and entries too with retprobe=1 */
	bool			regs_only; /* at most KPT_FAST_ARGS */
					/* fetchargs, each a 64-bit */
					/* register argument or $retval, */
					/* no condition */
	bool			entry_fast; /* regs_only, and stack=0 */
	/* the fast paths' copies: no detour to the spec on a hit */
	u8			nargs;		/* spec->nargs */
	u8			ret_nargs;	/* in a return record */
	u8			ret_slot;	/* the $retval argument, or */
						/* KPT_FAST_ARGS (none) */
	/* their offsets in pt_regs; unused slots (and $retval's): ax */
	unsigned short		arg_off[KPT_FAST_ARGS];
	int			err;	/* last arming error, for pending */
	unsigned int		nstr;	/* string fetchargs */
	unsigned int		entry_size;	/* largest entry record */
	unsigned int		ret_size;	/* largest return record */
	unsigned int		ri_size;	/* kretprobe instance data */
	unsigned int		size[KPT_SPEC_MAX_ARGS];  /* bytes read */
	char			*label;	/* the name events carry */
	char			*symname;	/* "mod:sym" or "sym" */
	struct kpt_spec		*spec;
	struct kpt_hist		*hist;	/* its aggregation, or NULL */
	bool			hist_events;	/* hist: ...:events */
	u8			ncond;		/* spec->ncond */
	struct kpt_probe_stats __percpu *stats;
	/* the kprobe core's counts before the last re-arm zeroed them */
	unsigned long		missed_before;
	unsigned long		maxactive_missed_before;
	struct rcu_head		rcu;	/* freed after a grace period */
};

static inline struct kprobe *kpt_probe_kprobe(struct kpt_probe *p)
{
	return p->is_ret ? &p->rp.kp : &p->kp;
}

/* probe.c */
int kpt_probes_init(void);
void kpt_probes_exit(void);
int kpt_probes_add_legacy(const char *param, const char *list,
			  bool retprobe);
int kpt_probes_write(const char *text, size_t len, char sep);
int kpt_probes_write_user(const char __user *ubuf, size_t len);
unsigned int kpt_probes_count(void);
struct kpt_probe *kpt_probe_lookup(u32 id);	/* under rcu_read_lock() */
void kpt_probe_overwritten(const struct kpt_event *ev);
struct seq_file;
void kpt_probes_show(struct seq_file *m, bool hide);
void kpt_probes_show_stats(struct seq_file *m);
void kpt_errors_show(struct seq_file *m);
u64 kpt_probes_missed(void);
u64 kpt_probes_filtered(void);
unsigned int kpt_probes_max_record(void);

/* ksyms.c, under kpt_probes_mutex */
int kpt_ksyms_defined(const char *sym, char *where, size_t len,
		      bool *in_module);
void kpt_ksyms_invalidate(void);
void kpt_ksyms_init(void);
void kpt_ksyms_exit(void);

/* fetch.c: the handlers kpt_probe_arm() registers */
void kpt_probe_set_handlers(struct kpt_probe *p);

/* format.c */
#define KPT_TEXT_MAX	(KPT_MAX_STACK * (KSYM_SYMBOL_LEN + 8) + \
			 KPT_SPEC_MAX_ARGS * (KPT_SPEC_NAME_LEN + 64) + \
			 4 * KPT_RECORD_MAX + 1024)
int kpt_format_event(const struct kpt_event *ev, char *buf, size_t len);

/* debugfs.c and chardev.c */
int kpt_debugfs_init(void);
void kpt_debugfs_exit(void);
int kpt_chardev_init(void);
void kpt_chardev_exit(void);

/* hist.c */
struct kpt_hist;
struct dentry;
struct kpt_hist *kpt_hist_new(const struct kpt_spec *spec, const char **why);
void kpt_hist_free(struct kpt_hist *h);
void kpt_hist_stats(struct kpt_hist *h, struct seq_file *m);
int kpt_hist_file_add(struct kpt_hist *h, const char *name);
void kpt_hist_file_remove(struct kpt_hist *h);
void kpt_hist_dir_set(struct dentry *dir);
void kpt_probes_hist_dir(struct dentry *dir);	/* probe.c */

/* hide.c: for readers that may not see kernel addresses */
bool kpt_addrs_visible(void);
size_t kpt_hide_addrs(void *buf, size_t len);
bool kpt_hide_value(__u64 *v);	/* zeroes a kernel address in *v */
bool kpt_hide_range(__u64 min, __u64 max, bool is_signed);

#endif /* _KPT_KPTRACE_H */
