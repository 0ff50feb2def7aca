// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the rings' reader. It takes records from every CPU's ring in
 * time order, with loss reports, to a kernel buffer or straight to the
 * reader's memory: kpt_rings_read(), the one entry point, chooses which.
 * Its cursors are its own, not in the rings: the writer never sees them.
 * Readers are serialised by kpt_read_mutex. The concurrency contract it
 * keeps with the writers is at the top of ring.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include "config.h"
#include "ring.h"

/*
 * The reader's place in one ring during a merge (overwrite=0): from
 * where, up to where, what it copied.
 */
struct kpt_cursor {
	struct kpt_ring	*r;
	unsigned long	tail;		/* tail when the merge began */
	unsigned long	pos;		/* next record to copy */
	unsigned long	head;		/* head when the merge began */
	u64		ts;		/* timestamp of the record at pos */
	u64		nr;		/* records copied */
	u64		drop;		/* records dropped as corrupt */
};

/* The reader, under kpt_read_mutex: a cursor per possible CPU. */
static struct {
	struct kpt_cursor	*cur;
	struct kpt_cursor	**live;	/* the cursors a merge takes from */
} kpt_reader;

static DEFINE_MUTEX(kpt_read_mutex);

/*
 * Reader: a record at position @pos of @r, of @size bytes, that cannot be
 * whole: a size that is not a multiple of 8, runs past the end of the
 * buffer, or past @head.
 */
static __always_inline bool kpt_rec_bad(const struct kpt_ring *r,
					unsigned long pos, u32 size,
					unsigned long head)
{
	return size < 8 || size % 8 || (pos & r->mask) + size > r->mask + 1 ||
	       size > head - pos;
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
	ev->ts_ns = ktime_get_mono_fast_ns();
	ev->cpu = r->cpu;
	lost->cause = i;
	lost->count = now - r->reported[i];
	if (kpt_dest_copy(to, at, rec, KPT_LOST_SIZE))
		return -EFAULT;
	r->reported[i] = now;
	return KPT_LOST_SIZE;
}

/*
 * Reader: the timestamp of the oldest record of @r, skipping (and freeing)
 * padding. Returns false when the ring is empty.
 */
static bool kpt_ring_peek(struct kpt_ring *r, u64 *ts)
{
	unsigned long head, tail, off;
	u32 size;
	u8 type;

	for (;;) {
		/* Pairs with an overwriting writer's cmpxchg() */
		tail = smp_load_acquire(&r->tail);
		head = kpt_ring_head(r);	/* the record is complete */
		if (tail == head)
			return false;
		off = tail & r->mask;
		kpt_ring_hdr(r->data + off, &type, &size);
		if (type != KPT_EV_PAD) {
			*ts = READ_ONCE(((struct kpt_event *)
					 (r->data + off))->ts_ns);
			return true;
		}
		cmpxchg(&r->tail, tail, tail + size);
	}
}

/*
 * Reader: copy the oldest records of @r into @buf, as many as fit in @len
 * and are not younger than @until, *@nr at most (not 0), then free them;
 * in overwrite mode no more than @batch bytes.
 * Returns the bytes copied (only then does *@nr get the number of
 * records), 0 if there were none or they were overwritten meanwhile (try
 * again, *@nr untouched), -EINVAL if the first record does not fit in
 * @len.
 *
 * In overwrite mode a writer may free (and rewrite) records under the
 * copy; then the cmpxchg() of tail fails and the whole batch, possibly
 * torn, is dropped: the writer has counted it as overwritten. Batches are
 * kept small in that mode (@batch) so that the reader still makes
 * progress; a first record larger than @batch (of a probe added since the
 * caller computed it) goes alone.
 */
static ssize_t kpt_ring_consume(struct kpt_ring *r, void *buf, size_t len,
				u64 until, unsigned long *nr, size_t batch)
{
	unsigned long head, tail, pos, off, max_nr = *nr, n = 0;
	const struct kpt_event *ev;
	size_t done = 0, room = len;
	u64 drop = 0;
	u32 size;
	u8 type;

	/* 0 would be no limit at all: the caller lost its count */
	if (WARN_ON_ONCE(!max_nr))
		max_nr = 1;
	if (kpt_ring_opts.overwrite)
		room = min(len, batch);
	/* Pairs with an overwriting writer's cmpxchg() */
	tail = smp_load_acquire(&r->tail);
	head = kpt_ring_head(r);	/* the records are complete */
	for (pos = tail; pos != head; pos += size) {
		off = pos & r->mask;
		ev = r->data + off;
		kpt_ring_hdr(ev, &type, &size);
		if (unlikely(kpt_rec_bad(r, pos, size, head))) {
			/* Only a writer overwriting it can make this torn. */
			if (READ_ONCE(r->tail) != tail)
				return 0;
			WARN_ONCE(1, "kptrace: corrupt record on cpu %u\n",
				  r->cpu);
			/* dropped, up to head: see "Counting" in ring.c */
			pos = kpt_ring_quiet(r, &drop);
			drop -= n;
			break;
		}
		if (type == KPT_EV_PAD)
			continue;
		if (done && (n == max_nr || size > room - min(room, done) ||
			     READ_ONCE(ev->ts_ns) > until))
			break;
		if (size > len)
			return READ_ONCE(r->tail) == tail ? -EINVAL : 0;
		memcpy(buf + done, ev, size);
		done += size;
		n++;
	}
	/* Fully ordered on success: the copy is done before the space is. */
	if (pos != tail && cmpxchg(&r->tail, tail, pos) != tail)
		return 0;
	if (drop)
		WRITE_ONCE(r->dropped, r->dropped + drop);
	if (!done)
		return 0;
	WRITE_ONCE(r->read, r->read + n);
	*nr = n;
	return done;
}

/*
 * Take the next records, in time order across CPUs: the oldest CPU's
 * records up to the oldest record of any other CPU, *@nr at most, in one
 * batch. Loss reports come first, as KPT_EV_LOST records. Returns the
 * bytes copied (*@nr gets the number of records), 0 when nothing is
 * pending, -EINVAL when the next record is larger than @len. Caller holds
 * kpt_read_mutex.
 */
static ssize_t kpt_rings_next(void *buf, size_t len, unsigned long *nr,
			      size_t batch)
{
	const struct kpt_dest to = { .kbuf = buf };
	const unsigned long max_nr = *nr;
	struct kpt_ring *r, *best;
	u64 ts, best_ts, next_ts;
	unsigned int cpu;
	ssize_t ret;

	lockdep_assert_held(&kpt_read_mutex);
again:
	best = NULL;
	best_ts = U64_MAX;
	next_ts = U64_MAX;
	for_each_possible_cpu(cpu) {
		r = kpt_rings[cpu];
		ret = kpt_ring_report_lost(r, &to, 0, len);
		if (ret > 0)
			*nr = 1;
		if (ret)
			return ret;
		if (!kpt_ring_peek(r, &ts))
			continue;
		if (ts < best_ts) {
			next_ts = best_ts;
			best_ts = ts;
			best = r;
		} else if (ts < next_ts) {
			next_ts = ts;
		}
	}
	if (!best)
		return 0;
	*nr = max_nr;		/* the limit, on every try */
	ret = kpt_ring_consume(best, buf, len, next_ts, nr, batch);
	if (!ret)
		goto again;
	return ret;
}

/*
 * Move @c past padding to its ring's next record, and read that record's
 * timestamp. Returns false at the head the merge began with.
 */
static bool kpt_merge_peek(struct kpt_cursor *c)
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
		if (WARN_ONCE(kpt_rec_bad(r, c->pos, size, c->head),
			      "kptrace: corrupt record on cpu %u\n", r->cpu)) {
			/* dropped, up to head: see "Counting" in ring.c */
			c->pos = kpt_ring_quiet(r, &c->drop);
			c->drop -= c->nr;
			return false;
		}
		if (type != KPT_EV_PAD) {
			c->ts = ev->ts_ns;
			return true;
		}
		c->pos += size;
	}
	return false;
}

/*
 * The records from @c that can go out in one copy: not younger than
 * @until (but the first), contiguous (up to padding or the end of the
 * buffer), at most @room bytes and @max_nr records. Returns their bytes,
 * 0 if the first does not fit; *@nr gets their number.
 */
static size_t kpt_merge_run(const struct kpt_cursor *c, u64 until,
			    size_t room, unsigned long max_nr,
			    unsigned long *nr)
{
	const struct kpt_ring *r = c->r;
	unsigned long pos = c->pos, off, cap = r->mask + 1;
	const struct kpt_event *ev;
	size_t run = 0;
	u32 size;
	u8 type;

	*nr = 0;
	while (pos != c->head && *nr < max_nr) {
		off = pos & r->mask;
		ev = r->data + off;
		kpt_ring_hdr(ev, &type, &size);
		/* padding, or a bad size kpt_merge_peek() will report */
		if (type == KPT_EV_PAD || kpt_rec_bad(r, pos, size, c->head))
			break;
		if (size > room - run || (run && ev->ts_ns > until))
			break;
		run += size;
		pos += size;
		(*nr)++;
		if (off + size == cap)
			break;
	}
	return run;
}

/*
 * overwrite=0: merge the rings by timestamp into @to with a cursor per
 * ring, one copy per run of a ring's records older than every other
 * ring's next one, then free what was copied with one tail update per
 * ring. No writer moves tail in this mode, so nothing copied can have
 * changed under us. A faulting copy ends the merge there: what went out
 * before it is consumed, the rest stays. At most @max_nr records.
 */
static ssize_t kpt_rings_merge(const struct kpt_dest *to, size_t at,
			       size_t len, unsigned long max_nr)
{
	struct kpt_cursor *c, *best, **live = kpt_reader.live;
	unsigned int cpu, n = 0, i, bi;
	unsigned long nr, taken = 0;
	size_t done = 0, run;
	struct kpt_ring *r;
	int fault = 0;
	u64 until;

	for_each_possible_cpu(cpu) {
		c = &kpt_reader.cur[cpu];
		r = kpt_rings[cpu];
		c->r = r;
		c->tail = READ_ONCE(r->tail);
		c->pos = c->tail;
		c->head = kpt_ring_head(r);	/* the records are complete */
		c->nr = 0;
		c->drop = 0;
		if (kpt_merge_peek(c))
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
		run = kpt_merge_run(best, until, len - done, max_nr - taken,
				    &nr);
		if (!run)
			break;
		fault = kpt_dest_copy(to, at + done,
				      r->data + (best->pos & r->mask), run);
		if (fault)
			break;
		done += run;
		taken += nr;
		best->pos += run;
		best->nr += nr;
		if (!kpt_merge_peek(best))
			live[bi] = live[--n];
	}
	for_each_possible_cpu(cpu) {
		c = &kpt_reader.cur[cpu];
		r = c->r;
		if (c->pos == c->tail)
			continue;
		/* Fully ordered: the copy is done before the space is free. */
		if (WARN_ON_ONCE(cmpxchg(&r->tail, c->tail, c->pos) != c->tail))
			continue;
		WRITE_ONCE(r->read, r->read + c->nr);
		if (c->drop)
			WRITE_ONCE(r->dropped, r->dropped + c->drop);
	}
	if (!done && fault)
		return fault;
	if (!done && n)
		return -EINVAL;		/* the next record is larger than len */
	return done;
}

/*
 * As many whole records as fit in @len, to->max_nr at most; caller holds
 * kpt_read_mutex. Only a kernel buffer takes overwrite mode's records,
 * which may be torn.
 */
static ssize_t kpt_rings_fill(const struct kpt_dest *to, size_t len)
{
	unsigned long left = to->max_nr, nr;
	struct kpt_ring *r;
	unsigned int cpu;
	size_t done = 0;
	ssize_t ret;

	if (!kpt_ring_opts.overwrite) {
		/* Loss reports first, then the merged records. */
		for_each_possible_cpu(cpu) {
			r = kpt_rings[cpu];
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
		ret = kpt_rings_merge(to, done, len - done, left);
		if (ret < 0)
			return done ? done : ret;
		return done + ret;
	}
	if (WARN_ON_ONCE(!to->kbuf))
		return -EINVAL;
	while (done < len && left) {
		nr = left;
		ret = kpt_rings_next(to->kbuf + done, len - done, &nr,
				     to->batch);
		if (ret <= 0)
			return done ? done : ret;
		done += ret;
		if (WARN_ON_ONCE(!nr || nr > left))
			break;
		left -= nr;
	}
	return done;
}

static ssize_t kpt_rings_read_to(const struct kpt_dest *to, size_t len,
				 bool block)
{
	ssize_t ret;
	long left;

	for (;;) {
		if (mutex_lock_interruptible(&kpt_read_mutex))
			return -ERESTARTSYS;
		ret = kpt_rings_fill(to, len);
		mutex_unlock(&kpt_read_mutex);
		if (ret || !block)
			return ret;
		left = kpt_rings_wait();
		if (left < 0)
			return left;
	}
}

/**
 * kpt_rings_read() - take the next records, waiting for some if rq->block
 * @rq: the read (struct kpt_read in ring.h)
 *
 * The records go straight to rq->ubuf, one copy per run of them, unless
 * their addresses must be hidden (rq->hide_addrs), they may be torn
 * (overwrite=1), or there is no rq->ubuf: then to rq->kbuf, at most
 * rq->kbuf_len bytes, and rq->in_kbuf says so; the caller edits them and
 * copies them out.
 *
 * Returns the number of bytes copied, whole records only, 0 when none is
 * pending and !rq->block, -EINVAL when the next record does not fit,
 * -EFAULT when nothing could be copied to rq->ubuf (records are consumed
 * only once copied), -ERESTARTSYS on a signal.
 */
ssize_t kpt_rings_read(struct kpt_read *rq)
{
	struct kpt_dest to = {
		.max_nr = rq->max_nr,
		.batch = 4 * (size_t)rq->max_record,
	};
	size_t len = rq->len;

	rq->in_kbuf = !rq->ubuf || rq->hide_addrs || kpt_ring_opts.overwrite;
	if (rq->in_kbuf) {
		to.kbuf = rq->kbuf;
		len = min(len, rq->kbuf_len);
	} else {
		to.ubuf = rq->ubuf;
	}
	return kpt_rings_read_to(&to, len, rq->block);
}

/* With the rings: the cursors of every possible CPU. */
int kpt_reader_alloc(void)
{
	kpt_reader.cur = kcalloc(nr_cpu_ids, sizeof(*kpt_reader.cur),
				 GFP_KERNEL);
	kpt_reader.live = kcalloc(nr_cpu_ids, sizeof(*kpt_reader.live),
				  GFP_KERNEL);
	if (!kpt_reader.cur || !kpt_reader.live) {
		kpt_reader_free();
		return -ENOMEM;
	}
	return 0;
}

void kpt_reader_free(void)
{
	kfree(kpt_reader.cur);
	kfree(kpt_reader.live);
	kpt_reader.cur = NULL;
	kpt_reader.live = NULL;
}
