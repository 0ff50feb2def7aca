// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: per-CPU lock-free ring buffers.
 *
 * Concurrency contract
 * ====================
 *
 * There is one ring per possible CPU. Positions (head, tail) are byte
 * counters that only grow; the offset in the buffer is pos & mask, and the
 * buffer size is a power of two. A 64-bit counter never wraps, so there
 * is no ABA problem in the compare-and-exchange loops below.
 *
 * Writers. Only probe handlers write, and only to the ring of the CPU they
 * run on, with preemption disabled (the kprobe core guarantees this, on
 * PREEMPT_RT too). The kprobe core also refuses to run a handler while
 * another kprobe handler is active on the same CPU (it counts the hit in
 * the probe's nmissed instead), so an irq or NMI cannot start a second
 * write into a ring that is half written. kptrace does not rely on that:
 * a write takes its ring by setting KPT_RING_BUSY, the low bit of head
 * (positions are multiples of 8), with cmpxchg_local(): one instruction,
 * which an irq or NMI on this CPU cannot split. A write that finds the bit
 * set is dropped and counted as lost.nested; the commit's store of the new
 * head clears it. So at most one writer is ever between reserve and commit
 * on a ring, and the writer owns everything from head onwards. Readers
 * mask the bit off (kpt_ring_head()).
 *
 * A write reserves room for the largest record it may produce, fills the
 * record in place (no intermediate copy), then commits its real size with
 * smp_store_release(&head), which orders the record's bytes before the new
 * head (pairs with the reader's smp_load_acquire(&head)) and frees the
 * ring. A record that does not fit before the end of the buffer is
 * preceded by a padding record that fills the end; padding is published
 * together with the record.
 *
 * Reader. Readers run in process context and are serialised by
 * kpt_read_mutex; a reader may run on any CPU. It loads head with acquire,
 * copies records out, and only then releases the space by moving tail with
 * cmpxchg(), which is fully ordered on success: the copy is complete
 * before the space can be reused. A writer checking for room loads tail
 * with acquire, pairing with that cmpxchg. With overwrite=0 no writer ever
 * moves tail, so the reader merges all rings by timestamp with a private
 * cursor per ring (rpos) and moves each tail once per read, copying runs
 * of records straight to user memory (copy_to_user() may fault and sleep:
 * kpt_read_mutex is a mutex, and only what was copied is freed); with
 * overwrite=1 it takes small batches from one ring at a time, below, into
 * a kernel buffer. A read may also be limited to a number of records
 * (struct kpt_dest's max_nr, loss reports included): both merges stop
 * there and leave the rest in the rings. The text files take one record
 * at a time, so that what a reader never returned was never consumed.
 *
 * Overwrite mode (the flight recorder). When the ring is full, the writer
 * frees the oldest record itself by moving tail with cmpxchg() before it
 * writes into that space (cmpxchg is a full barrier, so the new tail is
 * visible before any new byte). If a reader was copying that record, its own
 * cmpxchg of tail then fails: it drops the copy, which may be torn, and
 * starts again from the new tail. The writer counted that record as
 * lost.overwritten, so every record is counted exactly once, as read or as
 * lost; it also hands the record to kpt_ring_opts.dropped, given at
 * allocation, for whoever wrote it to count (the ring knows nothing of
 * probes): that callback runs in the writer, in any context, NMI too.
 *
 * Counting. Every reserve is one hit. It ends in exactly one of: committed,
 * lost.full, lost.nested, lost.too_big, and the ring counts that outcome
 * (a hit costs no counter of its own: hits is their sum); a committed
 * record can later become lost.overwritten. Hence, when no write is in
 * flight,
 *	hits = recorded + lost, with recorded = committed - overwritten,
 * and recorded = read + pending. The probes count their hits themselves
 * (probe.c), so the two books check each other, and the
 * selftests check both against the calls they made. The writer's
 * counters are local_t on the writer's cache line; `read' is the
 * reader's, under kpt_read_mutex, stored after the cmpxchg() that freed
 * what it counts.
 *
 * A corrupt record (a size that cannot be: a bug, hence the WARN) cannot
 * be walked past: the reader frees everything from it to head unread. So
 * that the books stay exact it counts those records in `dropped', its
 * own, stored like `read', which the stats and the loss reports add to
 * lost.overwritten (destroyed before they were read; of the existing
 * causes the one that is also within committed). How many there were is
 * the writer's count: committed is the seq of the last record before
 * head, so with head, committed and lost.overwritten loaded while no
 * write is in flight (kpt_ring_quiet()), the records before head are
 * committed - overwritten - read - dropped, less what this read copied.
 * The probes' own books (probe_stats) cannot tell whose records those
 * were and do not count them.
 *
 * Stats are read while both sides run: kpt_ring_stats() loads `read'
 * first, then the lost counters (and `dropped'), then committed, with
 * smp_rmb() between.
 * Every record counted in `read' or lost.overwritten was committed before
 * that count was stored (on the reader's side the cmpxchg() of tail, on
 * the overwriting writer's its own, order the two), so committed, loaded
 * last, covers both and pending = recorded - read never goes below 0.
 *
 * Wake-ups. A writer never wakes a reader directly (that takes the wait
 * queue lock, a sleeping lock on PREEMPT_RT, and is not NMI-safe). A reader
 * about to sleep sets kpt_wake_armed and then, after a full barrier,
 * rechecks the rings; a writer, after committing, tests kpt_wake_armed.
 * The writer has no barrier there (it would cost every record one), so its
 * load of the flag may pass its store of head: a writer committing just as
 * the reader arms can miss the flag while the reader misses the record
 * (store-buffer pattern). So arming also starts kpt_wake_net, a timer that
 * looks again KPT_WAKE_NET later, when every store that raced with the
 * arming is visible, and wakes the reader if what it waits for is there:
 * such an event arrives late by at most that, never not at all
 * (wake_net_only=1 makes every writer miss, for the selftests). The
 * writer that decides to wake clears the flag with xchg() and queues its
 * CPU's irq_work, which wakes the readers: one wake-up per reader sleep
 * however many events arrive, never one per event.
 *
 * A blocking read() arms KPT_WAKE_BATCH: writers wake it only once their
 * ring holds a quarter of its size, and the reader sleeps at most
 * KPT_WAKE_TIMEOUT, then takes whatever is there. A reader faster than the
 * writers therefore wakes a few times per ring, not once per event, and a
 * quiet probe's events still arrive within KPT_WAKE_TIMEOUT. poll() arms
 * KPT_WAKE_ANY: the first event wakes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/irq_work.h>
#include <linux/uaccess.h>
#include <linux/kprobes.h>
#include <linux/poll.h>
#include <asm/local.h>
#include "kptrace.h"
#include "ring.h"
#include "compat.h"


const char * const kpt_lost_names[KPT_LOST_NR] = KPT_LOST_NAMES;
static_assert(sizeof((const char * const[])KPT_LOST_NAMES) ==
	      sizeof(kpt_lost_names));

struct kpt_ring **kpt_rings;
DEFINE_PER_CPU(struct kpt_ring *, kpt_ring_here);
static struct kpt_ring **kpt_merge;	/* the rings a merge takes from */
static struct kpt_ring_opts kpt_ring_opts __read_mostly;
#define KPT_WAKE_TIMEOUT	(HZ / 10)
#define KPT_WAKE_NET		(HZ / 100 ?: 1)

unsigned long kpt_wake_armed;

static DEFINE_MUTEX(kpt_read_mutex);
static DECLARE_WAIT_QUEUE_HEAD(kpt_read_wait);

/* The first 8 bytes of every record: magic, type, flags, size. */
static __always_inline void kpt_ring_hdr(const void *rec, u8 *type, u32 *size)
{
	const struct kpt_event *ev = rec;

	*type = READ_ONCE(ev->type);
	*size = READ_ONCE(ev->size);
}

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

static void kpt_ring_wake(struct irq_work *work)
{
	wake_up_all(&kpt_read_wait);
}

/* The writer found the reader waiting for it: wake it, from an irq_work. */
void kpt_ring_wake_up(struct kpt_ring *r)
{
	/* selftests: as if every writer missed the reader; the net wakes it */
	if (kpt_ring_opts.wake_net_only)
		return;
	if (xchg(&kpt_wake_armed, 0))
		irq_work_queue(&r->wake_work);
}
NOKPROBE_SYMBOL(kpt_ring_wake_up);

/*
 * Overwrite mode: free the oldest record. Returns the new tail, which is
 * the reader's if the reader moved it first.
 */
static unsigned long kpt_ring_drop_oldest(struct kpt_ring *r,
					  unsigned long tail)
{
	unsigned long old;
	u32 size;
	u8 type;

	struct kpt_event *ev = r->data + (tail & r->mask);

	kpt_ring_hdr(ev, &type, &size);
	/* Records between tail and head are ours and intact: size is sane. */
	old = cmpxchg(&r->tail, tail, tail + size);
	if (old != tail)
		return old;
	if (type != KPT_EV_PAD) {
		local_inc(&r->lost[KPT_LOST_OVERWRITTEN]);
		kpt_ring_opts.dropped(ev);
	}
	return tail + size;
}
NOKPROBE_SYMBOL(kpt_ring_drop_oldest);

/*
 * Writer, out of line: a reserve found its record crossing the end of the
 * buffer, or no room for it. Pads the end, and in overwrite mode frees the
 * oldest records. Returns where the record goes, or, if the ring is full,
 * KPT_RING_BUSY (odd: no record starts there), having released the ring.
 */
unsigned long kpt_ring_make_room(struct kpt_ring *r, unsigned long head,
				 unsigned long tail, unsigned int size)
{
	unsigned long cap = r->mask + 1, off = head & r->mask;
	unsigned long pad = off + size > cap ? cap - off : 0;
	struct kpt_event *ev;

	while (head + pad + size - tail > cap) {
		if (!kpt_ring_opts.overwrite) {
			/* release the ring: nothing was written */
			WRITE_ONCE(r->head, head);
			return KPT_RING_BUSY;
		}
		tail = kpt_ring_drop_oldest(r, tail);
	}
	if (pad) {
		ev = r->data + off;
		ev->magic = KPT_MAGIC;
		ev->type = KPT_EV_PAD;
		ev->flags = 0;
		ev->size = pad;
	}
	return head + pad;
}
NOKPROBE_SYMBOL(kpt_ring_make_room);

/* Records of @r lost for cause @i; corrupt ones count as overwritten. */
static u64 kpt_ring_lost(struct kpt_ring *r, int i)
{
	u64 n = local_read(&r->lost[i]);

	if (i == KPT_LOST_OVERWRITTEN)
		n += READ_ONCE(r->dropped);
	return n;
}

static bool kpt_ring_lost_pending(struct kpt_ring *r)
{
	int i;

	for (i = 0; i < KPT_LOST_NR; i++)
		if (kpt_ring_lost(r, i) != r->reported[i])
			return true;
	return false;
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
			/* dropped, up to head: see "Counting" above */
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

static bool kpt_rings_ready_or_arm(unsigned long how);

/*
 * Move @r's cursor past padding to its next record, and read that
 * record's timestamp. Returns false at the head the merge began with.
 */
static bool kpt_merge_peek(struct kpt_ring *r)
{
	const struct kpt_event *ev;
	unsigned long off;
	u32 size;
	u8 type;

	while (r->rpos != r->rhead) {
		off = r->rpos & r->mask;
		ev = r->data + off;
		kpt_ring_hdr(ev, &type, &size);
		if (WARN_ONCE(kpt_rec_bad(r, r->rpos, size, r->rhead),
			      "kptrace: corrupt record on cpu %u\n", r->cpu)) {
			/* dropped, up to head: see "Counting" above */
			r->rpos = kpt_ring_quiet(r, &r->rdrop);
			r->rdrop -= r->rnr;
			return false;
		}
		if (type != KPT_EV_PAD) {
			r->rts = ev->ts_ns;
			return true;
		}
		r->rpos += size;
	}
	return false;
}

/*
 * The records of @r from its cursor that can go out in one copy: not
 * younger than @until (but the first), contiguous (up to padding or the
 * end of the buffer), at most @room bytes and @max_nr records. Returns
 * their bytes, 0 if the first does not fit; *@nr gets their number.
 */
static size_t kpt_merge_run(struct kpt_ring *r, u64 until, size_t room,
			    unsigned long max_nr, unsigned long *nr)
{
	unsigned long pos = r->rpos, off, cap = r->mask + 1;
	const struct kpt_event *ev;
	size_t run = 0;
	u32 size;
	u8 type;

	*nr = 0;
	while (pos != r->rhead && *nr < max_nr) {
		off = pos & r->mask;
		ev = r->data + off;
		kpt_ring_hdr(ev, &type, &size);
		/* padding, or a bad size kpt_merge_peek() will report */
		if (type == KPT_EV_PAD || kpt_rec_bad(r, pos, size, r->rhead))
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
	struct kpt_ring *r, *best;
	unsigned int cpu, n = 0, i, bi;
	unsigned long nr, taken = 0;
	size_t done = 0, run;
	int fault = 0;
	u64 until;

	for_each_possible_cpu(cpu) {
		r = kpt_rings[cpu];
		r->rtail = READ_ONCE(r->tail);
		r->rpos = r->rtail;
		r->rhead = kpt_ring_head(r);	/* the records are complete */
		r->rnr = 0;
		r->rdrop = 0;
		if (kpt_merge_peek(r))
			kpt_merge[n++] = r;
	}
	while (n && taken < max_nr) {
		bi = 0;
		for (i = 1; i < n; i++)
			if (kpt_merge[i]->rts < kpt_merge[bi]->rts)
				bi = i;
		until = U64_MAX;
		for (i = 0; i < n; i++)
			if (i != bi && kpt_merge[i]->rts < until)
				until = kpt_merge[i]->rts;
		best = kpt_merge[bi];
		run = kpt_merge_run(best, until, len - done, max_nr - taken,
				    &nr);
		if (!run)
			break;
		fault = kpt_dest_copy(to, at + done,
				      best->data + (best->rpos & best->mask),
				      run);
		if (fault)
			break;
		done += run;
		taken += nr;
		best->rpos += run;
		best->rnr += nr;
		if (!kpt_merge_peek(best))
			kpt_merge[bi] = kpt_merge[--n];
	}
	for_each_possible_cpu(cpu) {
		r = kpt_rings[cpu];
		if (r->rpos == r->rtail)
			continue;
		/* Fully ordered: the copy is done before the space is free. */
		if (WARN_ON_ONCE(cmpxchg(&r->tail, r->rtail, r->rpos) !=
				 r->rtail))
			continue;
		WRITE_ONCE(r->read, r->read + r->rnr);
		if (r->rdrop)
			WRITE_ONCE(r->dropped, r->dropped + r->rdrop);
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
		left = wait_event_interruptible_timeout(kpt_read_wait,
							kpt_rings_ready_or_arm(KPT_WAKE_BATCH),
							KPT_WAKE_TIMEOUT);
		if (left < 0)
			return left;
	}
}

/**
 * kpt_rings_read() - take the next records, waiting for some if @block
 * @buf: where to copy them
 * @len: room in @buf
 * @max_nr: how many records to take at most (loss reports count too);
 *	    the others stay in the rings
 * @max_record: the largest record a probe writes (overwrite=1 takes four
 *		of them from one ring at a time)
 * @block: sleep (interruptibly) until records are pending
 *
 * Returns the number of bytes copied, whole records only, 0 when none is
 * pending and !@block, -EINVAL when the next record does not fit in @len,
 * -ERESTARTSYS on a signal.
 */
ssize_t kpt_rings_read(void *buf, size_t len, unsigned long max_nr,
		       unsigned int max_record, bool block)
{
	const struct kpt_dest to = {
		.kbuf = buf, .max_nr = max_nr, .batch = 4 * (size_t)max_record,
	};

	return kpt_rings_read_to(&to, len, block);
}

/**
 * kpt_rings_read_user() - kpt_rings_read() straight into user memory
 * @ubuf: where to copy them
 * @len: room in @ubuf
 * @block: sleep (interruptibly) until records are pending
 *
 * One copy per run of records instead of two; overwrite=0 only. Returns
 * as kpt_rings_read(), or -EFAULT when nothing could be copied (records
 * are consumed only once copied).
 */
ssize_t kpt_rings_read_user(char __user *ubuf, size_t len, bool block)
{
	const struct kpt_dest to = { .ubuf = ubuf, .max_nr = ULONG_MAX };

	return kpt_rings_read_to(&to, len, block);
}

/* What a reader armed with @how waits for: a record, or a batch. */
static unsigned long kpt_wake_bytes(unsigned long how)
{
	return how == KPT_WAKE_ANY ? 1 : kpt_ring_batch(kpt_rings[0]);
}

static bool kpt_rings_pending(unsigned long min_bytes)
{
	struct kpt_ring *r;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		r = kpt_rings[cpu];
		if (kpt_ring_head(r) - READ_ONCE(r->tail) >=
		    min_bytes || kpt_ring_lost_pending(r))
			return true;
	}
	return false;
}

/* A record committed as the reader armed: see "Wake-ups" above. */
static void kpt_wake_net_fn(struct timer_list *t)
{
	unsigned long how = READ_ONCE(kpt_wake_armed);

	if (how && kpt_rings_pending(kpt_wake_bytes(how)) &&
	    xchg(&kpt_wake_armed, 0))
		wake_up_all(&kpt_read_wait);
}

static DEFINE_TIMER(kpt_wake_net, kpt_wake_net_fn);

/**
 * kpt_rings_ready_or_arm() - is enough pending? If not, ask for a wake-up
 * @how: KPT_WAKE_ANY (one record is enough) or KPT_WAKE_BATCH (a quarter
 *	 of a ring, or a loss)
 *
 * Use as the condition of wait_event*(): it arms the wake-up before it
 * looks, so an event committed after the look wakes the reader.
 */
static bool kpt_rings_ready_or_arm(unsigned long how)
{
	WRITE_ONCE(kpt_wake_armed, how);
	/* Orders the flag before the look; the writers rely on the net. */
	smp_mb();
	if (kpt_rings_pending(kpt_wake_bytes(how)))
		return true;
	mod_timer(&kpt_wake_net, jiffies + KPT_WAKE_NET);
	return false;
}

/**
 * kpt_rings_poll() - poll() for readers: is a record pending?
 * @file: the file being polled
 * @wait: the poll table
 */
__poll_t kpt_rings_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &kpt_read_wait, wait);
	return kpt_rings_ready_or_arm(KPT_WAKE_ANY) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * The counters of @cpu's ring, while writers and readers run: `read',
 * then the losses, then committed, so that what was read or overwritten
 * is always within committed (see "Counting" above).
 */
void kpt_ring_stats(unsigned int cpu, struct kpt_cpu_stats *st)
{
	struct kpt_ring *r = kpt_rings[cpu];
	u64 committed, lost = 0;
	int i;

	st->read = READ_ONCE(r->read);
	smp_rmb();	/* pairs with the reader's cmpxchg() of tail */
	for (i = 0; i < KPT_LOST_NR; i++) {
		st->lost[i] = kpt_ring_lost(r, i);
		lost += st->lost[i];
	}
	smp_rmb();	/* pairs with the overwriting writer's cmpxchg() */
	committed = local_read(&r->committed);
	st->recorded = committed - st->lost[KPT_LOST_OVERWRITTEN];
	/* every hit was committed or lost; an overwritten one is both */
	st->hits = st->recorded + lost;
}

/**
 * kpt_rings_alloc() - one ring per possible CPU
 * @opts: the size of each, overwrite mode and its callback
 *
 * Returns 0 or -ENOMEM, with nothing left allocated on failure.
 */
int kpt_rings_alloc(const struct kpt_ring_opts *opts)
{
	unsigned long bytes = opts->bytes;
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
			  __GFP_RETRY_MAYFAIL;
	struct kpt_ring *r;
	unsigned int cpu;

	kpt_ring_opts = *opts;
	kpt_rings = kcalloc(nr_cpu_ids, sizeof(*kpt_rings), GFP_KERNEL);
	kpt_merge = kcalloc(nr_cpu_ids, sizeof(*kpt_merge), GFP_KERNEL);
	if (!kpt_rings || !kpt_merge) {
		kfree(kpt_rings);
		kfree(kpt_merge);
		kpt_rings = NULL;
		kpt_merge = NULL;
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		r = kzalloc_node(sizeof(*r), GFP_KERNEL, cpu_to_node(cpu));
		if (!r)
			goto err_free;
		kpt_rings[cpu] = r;
		per_cpu(kpt_ring_here, cpu) = r;
		r->data = kvmalloc_node(bytes, gfp, cpu_to_node(cpu));
		if (!r->data)
			goto err_free;
		r->mask = bytes - 1;
		r->cpu = cpu;
		init_irq_work(&r->wake_work, kpt_ring_wake);
	}
	return 0;

err_free:
	kpt_rings_free();
	return -ENOMEM;
}

/* After every probe is unregistered: no writer is left. */
void kpt_rings_free(void)
{
	struct kpt_ring *r;
	unsigned int cpu;

	if (!kpt_rings)
		return;
	kpt_timer_delete_sync(&kpt_wake_net);
	for_each_possible_cpu(cpu) {
		r = kpt_rings[cpu];
		if (!r)
			continue;
		per_cpu(kpt_ring_here, cpu) = NULL;
		irq_work_sync(&r->wake_work);
		kvfree(r->data);
		kfree(r);
	}
	kfree(kpt_rings);
	kfree(kpt_merge);
	kpt_rings = NULL;
	kpt_merge = NULL;
}

/*
 * Where @cpu's ring is written up to (head) and freed up to (tail): byte
 * positions that only grow. A record below tail is gone from the ring,
 * read or overwritten. probe.c frees a deleted probe once every tail has
 * passed the head of the time of its deletion.
 */
void kpt_ring_positions(unsigned int cpu, unsigned long *head,
			unsigned long *tail)
{
	struct kpt_ring *r = kpt_rings[cpu];

	*head = kpt_ring_head(r);
	/* Pairs with the reader's or an overwriting writer's cmpxchg() */
	*tail = smp_load_acquire(&r->tail);
}
