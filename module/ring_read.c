// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the rings' reader. It takes records from every CPU's ring in
 * time order, with loss reports, to a kernel buffer or straight to the
 * reader's memory: kpt_buffer_read(), the one entry point, chooses which.
 * Its cursors are its own, not in the rings: the writer never sees them.
 * Each buffer has its reader's state (struct kpt_buffer: the cursors,
 * read_mutex, which serialises its readers). The concurrency contract it
 * keeps with the writers is at the top of ring.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include "config.h"
#include "ring.h"
#include "clock.h"

/*
 * The reader's place in one ring during a read: what it has freed (tail),
 * where it is (pos), up to where it may go, what it copied but has not
 * freed yet.
 */
struct kpt_cursor {
	struct kpt_ring	*r;
	unsigned long	tail;		/* the ring's tail as this read left it */
	unsigned long	pos;		/* next record to copy */
	unsigned long	head;		/* head when the cursor was set */
	u64		ts;		/* timestamp of the record at pos */
	u64		nr;		/* records copied since tail */
	u64		drop;		/* records dropped as corrupt */
};

/* Tries of one merge, in overwrite mode, when writers move tail under it */
#define KPT_MERGE_RESETS	8

/*
 * Reader: a record at position @pos of @r, of @type and @size bytes, that
 * cannot be whole: a size that is not a multiple of 8, smaller than a
 * header (but padding's), runs past the end of the buffer, or past @head.
 * In overwrite mode a writer may be rewriting it: then anything can be in
 * its header, and this keeps the reader's loads within it.
 */
static __always_inline bool kpt_rec_bad(const struct kpt_ring *r,
					unsigned long pos, u8 type, u32 size,
					unsigned long head)
{
	return size < (type == KPT_EV_PAD ? 8 : KPT_HDR_SIZE) || size % 8 ||
	       (pos & r->mask) + size > r->mask + 1 || size > head - pos;
}

/*
 * Where a read copies records to: a kernel buffer (the text files, and
 * /dev/kptrace when it edits records or in overwrite mode), or the
 * reader's own memory, straight from the rings; how many records it may
 * take at most, loss reports included; and in overwrite mode how many
 * bytes it takes from one ring at a time (four of the largest records,
 * which the caller knows: the ring knows nothing of probes).
 */
struct kpt_dest {
	void		*kbuf;
	char __user	*ubuf;		/* when kbuf is NULL */
	unsigned long	max_nr;
	size_t		batch;
};

static int kpt_dest_copy(const struct kpt_dest *to, size_t at,
			 const void *src, size_t len)
{
	if (to->kbuf) {
		memcpy(to->kbuf + at, src, len);
		return 0;
	}
	return copy_to_user(to->ubuf + at, src, len) ? -EFAULT : 0;
}

/*
 * Reader, on a corrupt record: the head of @r, and how many records
 * before it were neither read, nor dropped, nor overwritten (the ones
 * still in the ring, with those copied but not yet counted), at one
 * instant with no write in flight. A writer sets BUSY in head before it
 * counts or frees anything and clears it with the store that publishes
 * its record, after its counts (x86 orders stores): a head without BUSY
 * that did not change across the loads covers every count it implies.
 * A write is short, so this waits at most a few of them.
 */
static unsigned long kpt_ring_quiet(struct kpt_ring *r, u64 *unread)
{
	unsigned long head;
	u64 committed, overwritten;

	for (;;) {
		/* Pairs with kpt_ring_commit(): its counts before its head */
		head = smp_load_acquire(&r->head);
		committed = local_read(&r->committed);
		overwritten = local_read(&r->lost[KPT_LOST_OVERWRITTEN]);
		smp_rmb();	/* the counts before the second look */
		if (!(head & KPT_RING_BUSY) && READ_ONCE(r->head) == head)
			break;
		cpu_relax();
	}
	*unread = committed - overwritten - r->read - r->dropped;
	return head;
}

/*
 * Reader: a pending loss report becomes a KPT_EV_LOST record at @at of
 * @to. Returns its size, 0 if none is pending, -EINVAL if @len is too
 * small, -EFAULT if the copy faulted (the report stays pending).
 */
static int kpt_ring_report_lost(struct kpt_ring *r, const struct kpt_dest *to,
				size_t at, size_t len)
{
	u64 rec[KPT_LOST_SIZE / sizeof(u64)] = { 0 };
	struct kpt_event *ev = (struct kpt_event *)rec;
	struct kpt_lost *lost = (struct kpt_lost *)ev->data;
	u64 now;
	int i;

	for (i = 0; i < KPT_LOST_NR; i++) {
		now = kpt_ring_lost(r, i);
		if (now != r->reported[i])
			break;
	}
	if (i == KPT_LOST_NR)
		return 0;
	if (len < KPT_LOST_SIZE)
		return -EINVAL;

	ev->magic = KPT_MAGIC;
	ev->type = KPT_EV_LOST;
	ev->size = KPT_LOST_SIZE;
	/*
	 * Now, by the reader's CPU; never before a record already taken
	 * from this ring, whose times are its writer CPU's (floors that may
	 * run ahead, a TSC that may be skewed on the local clock).
	 */
	ev->ts_ns = max(kpt_clock_now(r->buf->opts.local_clock), r->last_ts);
	ev->cpu = r->cpu;
	lost->cause = i;
	lost->count = now - r->reported[i];
	if (kpt_dest_copy(to, at, rec, KPT_LOST_SIZE))
		return -EFAULT;
	r->reported[i] = now;
	return KPT_LOST_SIZE;
}

/* Set @c at @r's tail and head as they are now. */
static void kpt_cursor_set(struct kpt_cursor *c, struct kpt_ring *r)
{
	c->r = r;
	/* Pairs with an overwriting writer's cmpxchg() */
	c->tail = smp_load_acquire(&r->tail);
	c->pos = c->tail;
	c->head = kpt_ring_head(r);	/* the records are complete */
	c->nr = 0;
	c->drop = 0;
}

/*
 * Free what @c passed: one tail update, then the counts of what it read
 * and dropped. Returns false when a writer moved tail first (overwrite=1
 * only): it overwrote what was copied and counted it; the copy, possibly
 * torn, must be dropped.
 */
static bool kpt_cursor_free(struct kpt_cursor *c)
{
	struct kpt_ring *r = c->r;
	bool ok = true;

	if (c->pos != c->tail) {
		/* Fully ordered: the copy is done before the space is free. */
		ok = cmpxchg(&r->tail, c->tail, c->pos) == c->tail;
		if (ok) {
			WRITE_ONCE(r->read, r->read + c->nr);
			if (c->drop)
				WRITE_ONCE(r->dropped, r->dropped + c->drop);
			c->tail = c->pos;
		} else {
			WARN_ON_ONCE(!r->buf->opts.overwrite);
		}
	}
	c->nr = 0;
	c->drop = 0;
	return ok;
}

/*
 * Move @c past padding to its ring's next record, and read that record's
 * timestamp. Returns 1 then, 0 at the head the cursor was set with or at
 * a corrupt record (dropped), -EAGAIN when a writer overwrote the record
 * (overwrite=1; @c is set again at the new tail).
 */
static int kpt_merge_peek(struct kpt_cursor *c)
{
	struct kpt_ring *r = c->r;
	const struct kpt_event *ev;
	unsigned long off;
	u32 size;
	u8 type;

	while (c->pos != c->head) {
		off = c->pos & r->mask;
		ev = r->data + off;
		kpt_ring_hdr(ev, &type, &size);
		if (unlikely(kpt_rec_bad(r, c->pos, type, size, c->head))) {
			/* Only a writer overwriting it can make this torn. */
			if (READ_ONCE(r->tail) != c->tail) {
				kpt_cursor_set(c, r);
				return -EAGAIN;
			}
			WARN_ONCE(1, "kptrace: corrupt record on cpu %u\n",
				  r->cpu);
			/* dropped, up to head: see "Counting" in ring.c */
			c->pos = kpt_ring_quiet(r, &c->drop);
			c->drop -= c->nr;
			kpt_cursor_free(c);
			return 0;
		}
		if (type != KPT_EV_PAD) {
			c->ts = READ_ONCE(ev->ts_ns);
			return 1;
		}
		c->pos += size;
	}
	return 0;
}

/*
 * kpt_merge_peek(), again from the new tail each time a writer overwrote
 * what @c was at, while the merge has copied nothing (@done) and has
 * tries left. A merge that gets -EAGAIN ends: without that ring's next
 * record it cannot know what comes first.
 */
static int kpt_merge_next(struct kpt_cursor *c, size_t done,
			  unsigned int *resets)
{
	int ret;

	do {
		ret = kpt_merge_peek(c);
	} while (ret == -EAGAIN && !done && ++*resets <= KPT_MERGE_RESETS);
	return ret;
}

/*
 * The records from @c that can go out in one copy: not younger than
 * @until (but the first), contiguous (up to padding or the end of the
 * buffer), at most @room bytes, @batch bytes (but the first) and @max_nr
 * records. Returns their bytes, 0 if the first does not fit or is not
 * whole; *@nr gets their number, *@last the time of the last one.
 */
static size_t kpt_merge_run(const struct kpt_cursor *c, u64 until,
			    size_t room, size_t batch, unsigned long max_nr,
			    unsigned long *nr, u64 *last)
{
	const struct kpt_ring *r = c->r;
	unsigned long pos = c->pos, off, cap = r->mask + 1;
	const struct kpt_event *ev;
	size_t run = 0;
	u32 size;
	u64 ts;
	u8 type;

	*nr = 0;
	while (pos != c->head && *nr < max_nr) {
		off = pos & r->mask;
		ev = r->data + off;
		kpt_ring_hdr(ev, &type, &size);
		/* padding, or a bad size kpt_merge_peek() will report */
		if (type == KPT_EV_PAD ||
		    kpt_rec_bad(r, pos, type, size, c->head))
			break;
		ts = READ_ONCE(ev->ts_ns);
		if (size > room - run ||
		    (run && (size > batch - min(batch, run) || ts > until)))
			break;
		*last = ts;
		run += size;
		pos += size;
		(*nr)++;
		if (off + size == cap)
			break;
	}
	return run;
}

/*
 * Merge the rings by timestamp into @to at @at, at most @len bytes and
 * @max_nr records: a cursor per ring, one copy per run of a ring's
 * records older than every other ring's next one.
 *
 * overwrite=0: no writer moves tail, so nothing copied can change under
 * the copy; each ring's tail moves once, at the end. A faulting copy ends
 * the merge there: what went out before it is consumed, the rest stays.
 * overwrite=1: a writer may free (and rewrite) records under the copy, so
 * each run is freed right after its copy; if the writer moved tail first,
 * the run is dropped (the writer counted it) and the cursor starts again
 * from the new tail. Runs are kept to @to->batch bytes, so that the
 * reader still makes progress under a flood; only a kernel buffer takes
 * them. A flood can move tail under every try: the merge then ends with
 * what it has, or after KPT_MERGE_RESETS tries with nothing (the caller's
 * next try begins with the loss report those overwrites made pending).
 */
static ssize_t kpt_rings_merge(struct kpt_buffer *b, const struct kpt_dest *to,
			       size_t at, size_t len, unsigned long max_nr)
{
	struct kpt_cursor *c, *best, **live = b->live;
	const bool overwrite = b->opts.overwrite;
	unsigned int cpu, n = 0, i, bi, resets = 0;
	unsigned long nr, taken = 0;
	bool too_big = false;
	size_t done = 0, run;
	struct kpt_ring *r;
	int fault = 0, ret;
	u64 until, last;

	for_each_possible_cpu(cpu)
		kpt_cursor_set(&b->cur[cpu], b->rings[cpu]);
	for_each_possible_cpu(cpu) {
		c = &b->cur[cpu];
		ret = kpt_merge_next(c, done, &resets);
		if (ret < 0) {
			n = 0;
			break;
		}
		if (ret)
			live[n++] = c;
	}
	while (n && taken < max_nr) {
		bi = 0;
		for (i = 1; i < n; i++)
			if (live[i]->ts < live[bi]->ts)
				bi = i;
		until = U64_MAX;
		for (i = 0; i < n; i++)
			if (i != bi && live[i]->ts < until)
				until = live[i]->ts;
		best = live[bi];
		r = best->r;
		run = kpt_merge_run(best, until, len - done,
				    overwrite ? to->batch : SIZE_MAX,
				    max_nr - taken, &nr, &last);
		if (run) {
			fault = kpt_dest_copy(to, at + done,
					      r->data + (best->pos & r->mask),
					      run);
			if (fault)
				break;
			best->pos += run;
			best->nr += nr;
		}
		if (run && (!overwrite || kpt_cursor_free(best))) {
			done += run;
			taken += nr;
			/* read while intact: no writer freed the run */
			r->last_ts = max(r->last_ts, last);
		} else {
			/* the next record does not fit, unless overwritten */
			too_big = !overwrite || READ_ONCE(r->tail) == best->tail;
			if (too_big || done || ++resets > KPT_MERGE_RESETS)
				break;
			/* overwritten under the copy, or before it */
			kpt_cursor_set(best, r);
		}
		ret = kpt_merge_next(best, done, &resets);
		if (ret < 0)
			break;
		if (!ret)
			live[bi] = live[--n];
	}
	for_each_possible_cpu(cpu)
		kpt_cursor_free(&b->cur[cpu]);
	if (!done && fault)
		return fault;
	if (!done && too_big)
		return -EINVAL;		/* the next record is larger than len */
	return done;
}

/*
 * Loss reports first, then the merged records: as many whole records as
 * fit in @len, to->max_nr at most; caller holds @b's read_mutex.
 */
static ssize_t kpt_rings_fill(struct kpt_buffer *b, const struct kpt_dest *to,
			      size_t len)
{
	unsigned long left = to->max_nr;
	unsigned int cpu, try;
	struct kpt_ring *r;
	size_t done = 0;
	ssize_t ret;

	/* overwrite mode's records may be torn: a kernel buffer takes them */
	if (WARN_ON_ONCE(b->opts.overwrite && !to->kbuf))
		return -EINVAL;
	for (try = 0; try < 2; try++) {
		for_each_possible_cpu(cpu) {
			r = b->rings[cpu];
			while (left) {
				ret = kpt_ring_report_lost(r, to, done,
							   len - done);
				if (ret < 0)
					return done ? done : ret;
				if (!ret)
					break;
				done += ret;
				left--;
			}
		}
		if (!left)
			return done;
		ret = kpt_rings_merge(b, to, done, len - done, left);
		if (ret < 0)
			return done ? done : ret;
		/*
		 * Nothing, in overwrite mode, may be a merge that writers
		 * outran: what they overwrote is a loss report by now.
		 */
		if (ret || done || !b->opts.overwrite)
			return done + ret;
	}
	return done;
}

static ssize_t kpt_rings_read_to(struct kpt_buffer *b,
				 const struct kpt_dest *to, size_t len,
				 const struct kpt_read *rq)
{
	ssize_t ret;
	long left;

	for (;;) {
		if (mutex_lock_interruptible(&b->read_mutex))
			return -ERESTARTSYS;
		/*
		 * Asked before every fill, the first too: a reader may have
		 * slept in the wait, or on a lock, since it began.
		 */
		ret = rq->may_read ? rq->may_read() : 0;
		if (!ret)
			ret = kpt_rings_fill(b, to, len);
		mutex_unlock(&b->read_mutex);
		if (ret || !rq->block)
			return ret;
		left = kpt_buffer_wait(b);
		if (left < 0)
			return left;
	}
}

/**
 * kpt_buffer_read() - take the next records, waiting for some if rq->block
 * @b: the buffer
 * @rq: the read (struct kpt_read in ring.h)
 *
 * The records go straight to rq->ubuf, one copy per run of them, unless
 * their addresses must be hidden (rq->hide_addrs), they may be torn
 * (overwrite=1), or there is no rq->ubuf: then to rq->kbuf, at most
 * rq->kbuf_len bytes, and rq->in_kbuf says so; the caller edits them and
 * copies them out.
 *
 * Returns the number of bytes copied, whole records only, 0 when none is
 * pending and !rq->block (in overwrite mode, rarely, also when writers
 * outran both tries without a loss to report), -EINVAL when the next
 * record does not fit,
 * -EFAULT when nothing could be copied to rq->ubuf (records are consumed
 * only once copied), -ERESTARTSYS on a signal, or what rq->may_read()
 * returned when it refused, asked before each fill (the kernel lockdown
 * raised while the reader slept: each wait is KPT_WAKE_TIMEOUT at most).
 */
ssize_t kpt_buffer_read(struct kpt_buffer *b, struct kpt_read *rq)
{
	struct kpt_dest to = {
		.max_nr = rq->max_nr,
		.batch = 4 * (size_t)rq->max_record,
	};
	size_t len = rq->len;

	rq->in_kbuf = !rq->ubuf || rq->hide_addrs || b->opts.overwrite;
	if (rq->in_kbuf) {
		to.kbuf = rq->kbuf;
		len = min(len, rq->kbuf_len);
	} else {
		to.ubuf = rq->ubuf;
	}
	return kpt_rings_read_to(b, &to, len, rq);
}

/* With the buffer: the cursors of every possible CPU. */
size_t kpt_reader_bytes(void)
{
	return nr_cpu_ids * (sizeof(struct kpt_cursor) +
			     sizeof(struct kpt_cursor *));
}

int kpt_reader_alloc(struct kpt_buffer *b)
{
	b->cur = kcalloc(nr_cpu_ids, sizeof(*b->cur), GFP_KERNEL);
	b->live = kcalloc(nr_cpu_ids, sizeof(*b->live), GFP_KERNEL);
	if (!b->cur || !b->live) {
		kpt_reader_free(b);
		return -ENOMEM;
	}
	return 0;
}

void kpt_reader_free(struct kpt_buffer *b)
{
	kfree(b->cur);
	kfree(b->live);
	b->cur = NULL;
	b->live = NULL;
}
