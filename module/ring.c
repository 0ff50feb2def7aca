// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: per-CPU lock-free ring buffers: their allocation, the writer's
 * out-of-line parts, stats and wake-ups. The writer's inline half is in
 * ring.h, the reader in ring_read.c; this contract covers all three.
 *
 * Concurrency contract
 * ====================
 *
 * A buffer (struct kpt_buffer, ring.h) has one ring per possible CPU;
 * each session owns a buffer (session.c), and a probe writes only to its
 * session's, so what follows holds of each buffer on its own: no ring,
 * counter, flag or lock is shared between two buffers. Positions (head,
 * tail) are byte
 * counters that only grow; the offset in the buffer is pos & mask, and the
 * buffer size is a power of two. A 64-bit counter never wraps, so there
 * is no ABA problem in the compare-and-exchange loops of either side.
 *
 * Writers. Only probe handlers write, and only to the ring of the CPU they
 * run on, with preemption disabled (the kprobe core guarantees this, on
 * PREEMPT_RT too; the syscalls probe's tracepoint probes, which the
 * kernel may call preemptible (6.13+'s faultable syscall tracepoints,
 * 7.x's SRCU-protected ones), disable it themselves). The kprobe core
 * also refuses to run a handler while another kprobe handler is active
 * on the same CPU (it counts the hit in the probe's nmissed instead), so
 * an irq or NMI cannot start a second
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
 * Reader (ring_read.c). Readers run in process context and are serialised
 * by their buffer's read_mutex; a reader may run on any CPU. It loads head with
 * acquire, copies records out, and only then releases the space by moving tail with
 * cmpxchg(), which is fully ordered on success: the copy is complete
 * before the space can be reused. A writer that runs out of room loads
 * tail with acquire, pairing with that cmpxchg, and keeps in `limit' how
 * far head may then grow: up to that tail plus the buffer's size, and not
 * past the end of the buffer. Tail only grows, so the limit a writer set
 * stays safe however old it is, and a write checks it alone, without a
 * load of the reader's cache line. Only writers, holding BUSY, touch it.
 * The reader (ring_read.c) merges all rings by timestamp with a cursor
 * per ring of its own (struct kpt_cursor, not in the ring: the writer
 * never sees it), copying runs of records. With overwrite=0 no writer
 * ever moves tail: the runs go straight to user memory (copy_to_user()
 * may fault and sleep: read_mutex is a mutex, and only what was
 * copied is freed) and each tail moves once per read. With overwrite=1
 * the runs are small, go to a kernel buffer, and each is freed right
 * after its copy (below). A read may also be limited to a number of
 * records (struct kpt_dest's max_nr, loss reports included): the merge
 * stops there and leaves the rest in the rings. The text files take one record
 * at a time, so that what a reader never returned was never consumed.
 *
 * Overwrite mode (the flight recorder). When the ring is full, the writer
 * frees the oldest record itself by moving tail with cmpxchg() before it
 * writes into that space (cmpxchg is a full barrier, so the new tail is
 * visible before any new byte). If a reader was copying that record, its own
 * cmpxchg of tail then fails: it drops the copy, which may be torn, and
 * ends the read there, or, if it had copied nothing yet, starts again
 * from the new tail a few times (ring_read.c). The writer counted that
 * record as lost.overwritten, so every record is counted exactly once, as read or as
 * lost; it also hands the record to the callback given at load
 * (kpt_rings_init()), for whoever wrote it to count (the ring knows
 * nothing of probes): that callback runs in the writer, in any context,
 * NMI too.
 *
 * Counting. Every reserve is one hit (a kpt_ring_try() that fails takes
 * and counts nothing, and one reserve follows it). It ends in exactly one
 * of: committed, lost.full, lost.nested, lost.too_big, and the ring
 * counts that outcome (a hit costs no counter of its own: hits is their
 * sum); a committed record can later become lost.overwritten. Hence, when
 * no write is in flight,
 *	hits = recorded + lost, with recorded = committed - overwritten,
 * and recorded = read + pending. The probes count their hits themselves
 * (probe_stats), so the two books check each other, and the
 * selftests check both against the calls they made. The writer's
 * counters are local_t on the writer's cache line; `read' is the
 * reader's, under read_mutex, stored after the cmpxchg() that freed
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
 * write is in flight (kpt_ring_quiet(), ring_read.c), the records before head are
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
 * about to sleep sets its buffer's wake_armed and then, after a full
 * barrier, rechecks the rings; a writer, after committing, tests it.
 * The writer has no barrier there (it would cost every record one), so its
 * load of the flag may pass its store of head: a writer committing just as
 * the reader arms can miss the flag while the reader misses the record
 * (store-buffer pattern). So arming also starts the buffer's wake_net, a
 * timer that looks again KPT_WAKE_NET later, when every store that raced
 * with the arming is visible, and wakes the reader if what it waits for is there:
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
#include <linux/kprobes.h>
#include <linux/poll.h>
#include <asm/local.h>
#include "ring.h"
#include "compat.h"


const char * const kpt_lost_names[KPT_LOST_NR] = KPT_LOST_NAMES;
static_assert(sizeof((const char * const[])KPT_LOST_NAMES) ==
	      sizeof(kpt_lost_names));

/* Set at load (kpt_rings_init()), then read-only: writers call it, NMI too */
static void (*kpt_ring_dropped)(const struct kpt_event *ev) __ro_after_init;

void __init kpt_rings_init(void (*dropped)(const struct kpt_event *ev))
{
	kpt_ring_dropped = dropped;
}

#define KPT_WAKE_TIMEOUT	(HZ / 10)
#define KPT_WAKE_NET		(HZ / 100 ?: 1)

static void kpt_ring_wake(struct irq_work *work)
{
	struct kpt_ring *r = container_of(work, struct kpt_ring, wake_work);

	wake_up_all(&r->buf->wait);
}

/* The writer found the reader waiting for it: wake it, from an irq_work. */
void kpt_ring_wake_up(struct kpt_ring *r)
{
	struct kpt_buffer *b = r->buf;

	/* selftests: as if every writer missed the reader; the net wakes it */
	if (b->opts.wake_net_only)
		return;
	if (xchg(&b->wake_armed, 0))
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
		kpt_ring_dropped(ev);
	}
	return tail + size;
}
NOKPROBE_SYMBOL(kpt_ring_drop_oldest);

/*
 * Writer, out of line: a reserve found its record past the ring's limit.
 * Looks at tail again; pads the end when the record would cross it, and in
 * overwrite mode frees the oldest records. Returns where the record goes,
 * with the new limit set, or, if the ring is full, KPT_RING_BUSY (odd: no
 * record starts there), having released the ring.
 */
unsigned long kpt_ring_make_room(struct kpt_ring *r, unsigned long head,
				 unsigned int size)
{
	unsigned long cap = r->mask + 1, off = head & r->mask;
	unsigned long pad = off + size > cap ? cap - off : 0;
	/* Pairs with the reader's cmpxchg(): its copy is done. */
	unsigned long tail = smp_load_acquire(&r->tail);
	struct kpt_event *ev;

	while (head + pad + size - tail > cap) {
		if (!r->buf->opts.overwrite) {
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
	/* as far as the reader had freed, and not past the end of the buffer */
	r->limit = min(tail + cap, ((head + pad) | r->mask) + 1);
	return head + pad;
}
NOKPROBE_SYMBOL(kpt_ring_make_room);

/* Records of @r lost for cause @i; corrupt ones count as overwritten. */
u64 kpt_ring_lost(struct kpt_ring *r, int i)
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



/* What a reader armed with @how waits for: a record, or a batch. */
static unsigned long kpt_wake_bytes(struct kpt_buffer *b, unsigned long how)
{
	return how == KPT_WAKE_ANY ? 1 : kpt_ring_batch(b->rings[0]);
}

static bool kpt_rings_pending(struct kpt_buffer *b, unsigned long min_bytes)
{
	struct kpt_ring *r;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		r = b->rings[cpu];
		if (kpt_ring_head(r) - READ_ONCE(r->tail) >=
		    min_bytes || kpt_ring_lost_pending(r))
			return true;
	}
	return false;
}

/* A record committed as the reader armed: see "Wake-ups" above. */
static void kpt_wake_net_fn(struct timer_list *t)
{
	struct kpt_buffer *b = container_of(t, struct kpt_buffer, wake_net);
	unsigned long how = READ_ONCE(b->wake_armed);

	if (how && kpt_rings_pending(b, kpt_wake_bytes(b, how)) &&
	    xchg(&b->wake_armed, 0))
		wake_up_all(&b->wait);
}

/**
 * kpt_rings_ready_or_arm() - is enough pending? If not, ask for a wake-up
 * @b: the buffer
 * @how: KPT_WAKE_ANY (one record is enough) or KPT_WAKE_BATCH (a quarter
 *	 of a ring, or a loss)
 *
 * Use as the condition of wait_event*(): it arms the wake-up before it
 * looks, so an event committed after the look wakes the reader.
 */
static bool kpt_rings_ready_or_arm(struct kpt_buffer *b, unsigned long how)
{
	WRITE_ONCE(b->wake_armed, how);
	/* Orders the flag before the look; the writers rely on the net. */
	smp_mb();
	if (kpt_rings_pending(b, kpt_wake_bytes(b, how)))
		return true;
	mod_timer(&b->wake_net, jiffies + KPT_WAKE_NET);
	return false;
}

/**
 * kpt_buffer_poll() - poll() for readers: is a record pending?
 * @b: the buffer
 * @file: the file being polled
 * @wait: the poll table
 */
__poll_t kpt_buffer_poll(struct kpt_buffer *b, struct file *file,
			 poll_table *wait)
{
	poll_wait(file, &b->wait, wait);
	return kpt_rings_ready_or_arm(b, KPT_WAKE_ANY) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * A blocking read found nothing: sleep until a ring holds a batch or a
 * loss is pending, KPT_WAKE_TIMEOUT at most. Returns < 0 on a signal.
 */
long kpt_buffer_wait(struct kpt_buffer *b)
{
	long ret;

	ret = wait_event_interruptible_timeout(b->wait,
					       kpt_rings_ready_or_arm(b, KPT_WAKE_BATCH),
					       KPT_WAKE_TIMEOUT);
	return ret;
}

/*
 * The counters of @cpu's ring of @b, while writers and readers run:
 * `read', then the losses, then committed, so that what was read or
 * overwritten is always within committed (see "Counting" above).
 */
void kpt_ring_stats(struct kpt_buffer *b, unsigned int cpu,
		    struct kpt_cpu_stats *st)
{
	struct kpt_ring *r = b->rings[cpu];
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
 * kpt_buffer_alloc() - a buffer: one ring per possible CPU
 * @opts: the size of each, overwrite mode and its callback
 *
 * Process context. Returns the buffer, or ERR_PTR(-ENOMEM) with nothing
 * left allocated.
 */
struct kpt_buffer *kpt_buffer_alloc(const struct kpt_ring_opts *opts)
{
	unsigned long bytes = opts->bytes;
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
			  __GFP_RETRY_MAYFAIL;
	struct kpt_buffer *b;
	struct kpt_ring *r;
	unsigned int cpu;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	b->opts = *opts;
	init_waitqueue_head(&b->wait);
	timer_setup(&b->wake_net, kpt_wake_net_fn, 0);
	mutex_init(&b->read_mutex);
	b->rings = kcalloc(nr_cpu_ids, sizeof(*b->rings), GFP_KERNEL);
	if (!b->rings || kpt_reader_alloc(b))
		goto err_free;
	for_each_possible_cpu(cpu) {
		r = kzalloc_node(sizeof(*r), GFP_KERNEL, cpu_to_node(cpu));
		if (!r)
			goto err_free;
		b->rings[cpu] = r;
		r->data = kvmalloc_node(bytes, gfp, cpu_to_node(cpu));
		if (!r->data)
			goto err_free;
		r->mask = bytes - 1;
		r->limit = bytes;
		r->cpu = cpu;
		r->buf = b;
		init_irq_work(&r->wake_work, kpt_ring_wake);
	}
	return b;

err_free:
	kpt_buffer_free(b);
	return ERR_PTR(-ENOMEM);
}

u64 kpt_buffer_bytes(unsigned long bytes)
{
	return sizeof(struct kpt_buffer) +
	       nr_cpu_ids * sizeof(struct kpt_ring *) + kpt_reader_bytes() +
	       (u64)num_possible_cpus() * (sizeof(struct kpt_ring) + bytes);
}

/*
 * After every probe writing to @b is unregistered (no writer is left)
 * and with no reader in it (its files are released).
 */
void kpt_buffer_free(struct kpt_buffer *b)
{
	struct kpt_ring *r;
	unsigned int cpu;

	if (!b)
		return;
	kpt_timer_delete_sync(&b->wake_net);
	if (b->rings) {
		for_each_possible_cpu(cpu) {
			r = b->rings[cpu];
			if (!r)
				continue;
			irq_work_sync(&r->wake_work);
			kvfree(r->data);
			kfree(r);
		}
	}
	kfree(b->rings);
	kpt_reader_free(b);
	kfree(b);
}

/*
 * Where @cpu's ring of @b is written up to (head) and freed up to (tail):
 * byte positions that only grow. A record below tail is gone from the
 * ring, read or overwritten. ids.c frees a deleted probe's tombstone once
 * every tail has passed the head of the time of its deletion.
 */
void kpt_ring_positions(struct kpt_buffer *b, unsigned int cpu,
			unsigned long *head, unsigned long *tail)
{
	struct kpt_ring *r = b->rings[cpu];

	*head = kpt_ring_head(r);
	/* Pairs with the reader's or an overwriting writer's cmpxchg() */
	*tail = smp_load_acquire(&r->tail);
}
