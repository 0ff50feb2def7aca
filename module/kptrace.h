/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: declarations shared by the module's files.
 *
 *   main.c     module parameters, init and exit
 *   probe.c    kprobe/kretprobe registration and the probe handlers
 *   ring.c     the per-CPU lock-free ring buffers and their reader
 *   format.c   text rendering of a record (trace, trace_pipe)
 *   debugfs.c  /sys/kernel/debug/kptrace/
 *   chardev.c  /dev/kptrace
 */
#ifndef _KPT_KPTRACE_H
#define _KPT_KPTRACE_H

#include <linux/types.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/kallsyms.h>
#include <uapi/kptrace.h>

#define KPT_HDR_SIZE		sizeof(struct kpt_event)
#define KPT_ENTRY_SIZE(args, stack) \
	(KPT_HDR_SIZE + ((args) + (stack)) * sizeof(__u64))
#define KPT_RET_SIZE		(KPT_HDR_SIZE + sizeof(struct kpt_ret))
#define KPT_LOST_SIZE		(KPT_HDR_SIZE + sizeof(struct kpt_lost))

/* Settings fixed at load time, read by every probe hit. */
struct kpt_config {
	unsigned int	args;		/* register arguments per entry */
	unsigned int	stack;		/* stack frames per entry */
	bool		overwrite;	/* flight recorder mode */
	unsigned int	max_record;	/* largest record a hit may reserve */
	unsigned long	ring_bytes;	/* per CPU, a power of two */
};

extern struct kpt_config kpt_cfg;

/* ring.c */
struct kpt_ring;

int kpt_rings_alloc(unsigned long bytes);
void kpt_rings_free(void);
void *kpt_ring_reserve(struct kpt_ring **rp, unsigned int size);
void kpt_ring_commit(struct kpt_ring *r, struct kpt_event *ev,
		     unsigned int size);

/* The reader side, process context only. */
struct file;
struct poll_table_struct;
ssize_t kpt_rings_read(void *buf, size_t len, bool block);
__poll_t kpt_rings_poll(struct file *file, struct poll_table_struct *wait);

struct kpt_cpu_stats {
	u64 hits;
	u64 recorded;
	u64 lost[KPT_LOST_NR];
	u64 read;
};

void kpt_ring_stats(unsigned int cpu, struct kpt_cpu_stats *st);
extern const char * const kpt_lost_names[KPT_LOST_NR];

/* probe.c */
int kpt_probes_register(const char *names, const char *addrs, bool retprobe,
			int maxactive);
void kpt_probes_unregister(void);
unsigned int kpt_probes_count(void);
const char *kpt_probe_name(unsigned int id);
struct seq_file;
void kpt_probes_show(struct seq_file *m);
u64 kpt_probes_missed(void);

/* format.c */
#define KPT_TEXT_MAX	(KPT_MAX_STACK * (KSYM_SYMBOL_LEN + 8) + 1024)
int kpt_format_event(const struct kpt_event *ev, char *buf, size_t len);

/* debugfs.c and chardev.c */
int kpt_debugfs_init(void);
void kpt_debugfs_exit(void);
int kpt_chardev_init(void);
void kpt_chardev_exit(void);

#endif /* _KPT_KPTRACE_H */
