/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the per-CPU rings. First what the rest of the module calls
 * (allocation, the read entry point, stats), then the writer half,
 * inlined into the probe handlers so that a hit costs no call into
 * ring.c. The concurrency contract these functions keep is written at the
 * top of ring.c; the reader is ring_read.c. The ring knows nothing of
 * probes.
 */
#ifndef _KPT_RING_H
#define _KPT_RING_H

#include <linux/kprobes.h>
#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/mutex.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <uapi/kptrace.h>
#include "compat.h"

#define KPT_RING_MIN		1024	/* bytes, bufsize_kb=1 */

struct file;
struct poll_table_struct;
struct kpt_cursor;

/* A buffer's own settings, fixed when it is allocated. */
struct kpt_ring_opts {
	unsigned long	bytes;		/* per CPU, a power of two */
	bool		overwrite;	/* a full ring frees its oldest */
	bool		wake_net_only;	/* selftests: no writer wakes */
	bool		local_clock;	/* the loss reports' time: clock.h */
};

/*
 * Overwrite mode: a record freed unread, handed to whoever wrote it to
 * count, from its writer (any context, NMI too). Set once at load, read
 * only after (the same for every buffer).
 */
void kpt_rings_init(void (*dropped)(const struct kpt_event *ev));

/*
 * A buffer: one ring per possible CPU, the readers' wait queue and their
 * cursors. A session owns one (session.c); a probe writes to its
 * session's (kpt_probe_stats::ring holds this CPU's ring of it).
 */
struct kpt_buffer {
	/* who waits, and for how much (KPT_WAKE_*): every writer loads it */
	unsigned long		wake_armed ____cacheline_aligned;
	struct kpt_ring_opts	opts;
	struct kpt_ring		**rings;	/* per possible CPU */
	wait_queue_head_t	wait;
	struct timer_list	wake_net;	/* see "Wake-ups" in ring.c */
	/* the reader's, under read_mutex (ring_read.c) */
	struct mutex		read_mutex;
	struct kpt_cursor	*cur;		/* per possible CPU */
	struct kpt_cursor	**live;
};

struct kpt_buffer *kpt_buffer_alloc(const struct kpt_ring_opts *opts);
void kpt_buffer_free(struct kpt_buffer *b);
/* what kpt_buffer_alloc() allocates for rings of @bytes per CPU */
u64 kpt_buffer_bytes(unsigned long bytes);

/* ring_read.c: the reader side, process context only. */
/* A read of the rings: where its records go, how many at most. */
struct kpt_read {
	char __user	*ubuf;		/* the reader's memory, or NULL */
	size_t		len;		/* room at ubuf (or in kbuf) */
	void		*kbuf;		/* when hidden, may be torn, or !ubuf */
	size_t		kbuf_len;
	unsigned long	max_nr;		/* records, loss reports included */
	unsigned int	max_record;	/* the largest its probes write */
	bool		hide_addrs;	/* a restricted reader's: edited */
	bool		block;
	bool		in_kbuf;	/* set: the records went to kbuf */
	/* asked before each fill: may the reader still read? 0 or -E */
	int		(*may_read)(void);
};

ssize_t kpt_buffer_read(struct kpt_buffer *b, struct kpt_read *rq);
__poll_t kpt_buffer_poll(struct kpt_buffer *b, struct file *file,
			 struct poll_table_struct *wait);

/* ring.c: the rings' books, for stats and the probes' reclaim */
struct kpt_cpu_stats {
	u64 hits;
	u64 recorded;
	u64 lost[KPT_LOST_NR];
	u64 read;
};

void kpt_ring_stats(struct kpt_buffer *b, unsigned int cpu,
		    struct kpt_cpu_stats *st);
void kpt_ring_positions(struct kpt_buffer *b, unsigned int cpu,
			unsigned long *head, unsigned long *tail);
extern const char * const kpt_lost_names[KPT_LOST_NR];

/* The rest of this header is the rings' own, and the writer's. */

struct kpt_ring {
	/* Writer side: only the owning CPU writes these. */
	unsigned long	head ____cacheline_aligned;	/* published, | BUSY */
	local_t		committed;	/* the last record's seq */
	local_t		lost[KPT_LOST_NR];
	unsigned long	limit;		/* head may grow to it: see ring.c */
	/* Constant after allocation; the writer reads them on every hit. */
	void		*data;
	unsigned long	mask;
	struct kpt_buffer *buf;		/* the buffer it is one of */
	unsigned int	cpu;

	/*
	 * Reader side (and the writer, in overwrite mode): the reader's
	 * books, which stats and wake-ups look at too, stored under the
	 * buffer's read_mutex (ring_read.c); its cursors are its own.
	 */
	unsigned long	tail ____cacheline_aligned;
	u64		read;
	u64		dropped;	/* corrupt, freed unread */
	u64		reported[KPT_LOST_NR];	/* lost already reported */
	u64		last_ts;	/* of the latest record taken */

	struct irq_work	wake_work;
};

/* A write in progress: its ring, where its record starts, the record. */
struct kpt_wr {
	struct kpt_ring		*r;
	unsigned long		pos;
	struct kpt_event	*ev;
};

/* In head, between reserve and commit: this CPU is writing (ring.c). */
#define KPT_RING_BUSY		1UL

/* Reader: the published head, records before it complete. */
static inline unsigned long kpt_ring_head(const struct kpt_ring *r)
{
	/* Pairs with kpt_ring_commit() */
	return smp_load_acquire(&r->head) & ~KPT_RING_BUSY;
}

/* The first 8 bytes of every record: magic, type, flags, size. */
static __always_inline void kpt_ring_hdr(const void *rec, u8 *type, u32 *size)
{
	const struct kpt_event *ev = rec;

	*type = READ_ONCE(ev->type);
	*size = READ_ONCE(ev->size);
}

/* ring.c, for the reader (ring_read.c) */
u64 kpt_ring_lost(struct kpt_ring *r, int i);
long kpt_buffer_wait(struct kpt_buffer *b);

/* ring_read.c: the reader's own state, allocated with the buffer */
int kpt_reader_alloc(struct kpt_buffer *b);
void kpt_reader_free(struct kpt_buffer *b);
size_t kpt_reader_bytes(void);

/* kpt_buffer::wake_armed: who waits, and for how much */
#define KPT_WAKE_ANY		1
#define KPT_WAKE_BATCH		2

void kpt_ring_wake_up(struct kpt_ring *r);
unsigned long kpt_ring_make_room(struct kpt_ring *r, unsigned long head,
				 unsigned int size);

/* What a reader armed with KPT_WAKE_BATCH waits for: a quarter of a ring. */
static nokprobe_inline unsigned long kpt_ring_batch(const struct kpt_ring *r)
{
	return (r->mask + 1) / 4;
}

/*
 * After a commit or a loss: wake the reader if it waits for this. No
 * barrier: a reader arming at this very moment may be missed, and its
 * timer net (the buffer's wake_net, ring.c) wakes it instead.
 */
static nokprobe_inline void kpt_ring_kick(struct kpt_ring *r)
{
	unsigned long armed;

	armed = READ_ONCE(r->buf->wake_armed);
	if (likely(!armed))
		return;
	if (armed == KPT_WAKE_BATCH &&
	    (r->head & ~KPT_RING_BUSY) - READ_ONCE(r->tail) <
	    kpt_ring_batch(r))
		return;
	kpt_ring_wake_up(r);
}

/*
 * Take this CPU's ring for a write: set BUSY in head, with one instruction
 * an irq or NMI cannot split, and return true with the head taken in
 * *@head. False when the hit interrupted a write here: BUSY found set, or
 * head moved between the load and the cmpxchg (by a write that has
 * finished: kpt_ring_reserve() drops this one all the same, while a
 * failed kpt_ring_try() leaves the hit to one kpt_ring_reserve()).
 */
static nokprobe_inline bool kpt_ring_take(struct kpt_ring *r,
					  unsigned long *head)
{
	/* a BUSY head is never the value expected: no test of its own */
	unsigned long seen = READ_ONCE(r->head) & ~KPT_RING_BUSY;

	*head = seen;
	return kpt_try_cmpxchg_local(&r->head, &seen, seen | KPT_RING_BUSY);
}

/*
 * Whether @size bytes fit at @head of @r as they are, not across the end
 * of the buffer nor over the reader's records: below the limit the last
 * look at tail set (kpt_ring_make_room()), without a load of the reader's
 * cache line.
 */
static nokprobe_inline bool kpt_ring_fits(const struct kpt_ring *r,
					  unsigned long head,
					  unsigned int size)
{
	return head + size <= r->limit;
}

static nokprobe_inline void kpt_ring_wr(struct kpt_wr *w, struct kpt_ring *r,
					unsigned long pos)
{
	w->r = r;
	w->pos = pos;
	w->ev = r->data + (pos & r->mask);
}

/**
 * kpt_ring_reserve() - reserve room for one record on this CPU's ring
 * @w: the write: where to write the record (w->ev), for kpt_ring_commit()
 * @r: this CPU's ring of the buffer written to
 * @size: the largest size the record may have, a multiple of 8
 * @cause: why, when the hit was lost
 *
 * Returns false when the hit was lost (and counted by cause). Must run
 * with preemption disabled; every true return must be followed by
 * kpt_ring_commit() on the same CPU.
 */
static nokprobe_inline bool kpt_ring_reserve(struct kpt_wr *w,
					     struct kpt_ring *r,
					     unsigned int size,
					     enum kpt_lost_cause *cause)
{
	unsigned long head, pos;

	/* (the fast paths' sizes fit any ring: no test for them) */
	if ((!__builtin_constant_p(size) || size > KPT_RING_MIN / 2) &&
	    unlikely(size > (r->mask + 1) / 2)) {
		*cause = KPT_LOST_TOO_BIG;
		goto lost;
	}
	if (unlikely(!kpt_ring_take(r, &head))) {
		*cause = KPT_LOST_NESTED;
		goto lost;
	}
	pos = head;
	if (unlikely(!kpt_ring_fits(r, head, size))) {
		pos = kpt_ring_make_room(r, head, size);
		if (unlikely(pos & KPT_RING_BUSY)) {
			*cause = KPT_LOST_FULL;
			goto lost;
		}
	}
	kpt_ring_wr(w, r, pos);
	return true;

lost:
	local_inc(&r->lost[*cause]);
	kpt_ring_kick(r);	/* a full ring wakes the reader */
	return false;
}

/**
 * kpt_ring_try() - kpt_ring_reserve() for a fast handler, which calls
 * nothing: room for @size (a constant that fits any ring) where head is.
 * Returns false, having taken and counted nothing, when that cannot be
 * (a write interrupted, room to make): then kpt_ring_reserve() decides.
 */
static nokprobe_inline bool kpt_ring_try(struct kpt_wr *w,
					 struct kpt_ring *r, unsigned int size)
{
	unsigned long head;

	BUILD_BUG_ON(!__builtin_constant_p(size) || size > KPT_RING_MIN / 2);
	if (unlikely(!kpt_ring_take(r, &head)))
		return false;
	if (unlikely(!kpt_ring_fits(r, head, size))) {
		WRITE_ONCE(r->head, head);	/* release: nothing written */
		return false;
	}
	kpt_ring_wr(w, r, head);
	return true;
}

/**
 * kpt_ring_commit() - publish a record filled after kpt_ring_reserve()
 * @w: the write kpt_ring_reserve() began
 * @ev: the record; its header is completed here (size, seq)
 * @size: its real size, at most the reserved size, a multiple of 8
 */
static nokprobe_inline void kpt_ring_commit(const struct kpt_wr *w,
					    struct kpt_event *ev,
					    unsigned int size)
{
	struct kpt_ring *r = w->r;

	ev->size = size;
	/* (no other write here while this one holds the ring: no xadd) */
	local_inc(&r->committed);
	ev->seq = local_read(&r->committed);
	/*
	 * The record's bytes before the new head (pairs with the reader),
	 * and BUSY cleared: the ring is free for the next write.
	 */
	smp_store_release(&r->head, w->pos + size);
	kpt_ring_kick(r);
}

#endif /* _KPT_RING_H */
