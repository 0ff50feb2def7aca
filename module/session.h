/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: sessions, the unit of ownership. A session owns its buffer
 * (the per-CPU rings, ring.h), its probes (probe.c: kpt_probe::sess),
 * the tombstones of the probes it deleted, its clock and its books. The
 * default session lives as long as the module: the probes of insmod's
 * parameters and of lines written by a shell, read by debugfs' trace
 * files and by an /dev/kptrace that is no session's. Any other session
 * belongs to one open /dev/kptrace (chardev.c, KPT_IOC_SESSION) and dies
 * with it: kpt_session_close() disarms its probes, waits for their
 * handlers, and frees everything it owned.
 */
#ifndef _KPT_SESSION_H
#define _KPT_SESSION_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <uapi/kptrace.h>

struct kpt_buffer;

struct kpt_session {
	u32			id;		/* 0: the default session */
	u32			flags;		/* KPT_SESSION_* */
	u8			clock;		/* enum kpt_clock_id, not AUTO */
	unsigned long		ring_bytes;	/* per CPU */
	struct kpt_buffer	*buf;
	u64			mem;		/* its rings, in mem_max_mb */
	pid_t			owner;		/* who made it: tgid, and */
	char			comm[TASK_COMM_LEN];	/* comm then */
	/* the rest under kpt_probes_mutex */
	struct list_head	list;		/* kpt_sessions */
	unsigned int		nr_probes;	/* live: armed or pending */
	unsigned int		max_record;	/* of every probe it made */
	/* the counts of its deleted probes, for its totals */
	u64			gone_missed;
	u64			gone_filtered;
	/* tombstones (probe.c): deleted, before dead_heads; pending */
	struct list_head	dead_new;
	struct list_head	dead_wait;
	unsigned long		*dead_heads;	/* per possible CPU */
	unsigned int		nr_dead;
};

/* Every session, the default one first; kpt_probes_mutex. */
extern struct list_head kpt_sessions;
extern struct kpt_session *kpt_default_session;

/* What an open /dev/kptrace holds besides its session (chardev.c) */
#define KPT_SESSION_FILE_BYTES	(64 * 1024)

int kpt_sessions_init(void);
void kpt_sessions_exit(void);
struct kpt_session *kpt_session_new(struct kpt_session_req *req);
void kpt_session_close(struct kpt_session *s);
unsigned int kpt_sessions_count(void);
const char *kpt_clock_name(unsigned int clock);

struct seq_file;
void kpt_sessions_show(struct seq_file *m);

#endif /* _KPT_SESSION_H */
