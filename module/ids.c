// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: probe ids, what the id in every record names: a live probe,
 * or the tombstone of a deleted one whose records may still be in its
 * session's rings, or nothing once none is left.
 *
 * Every probe gets an id, handed out in turn whatever the session, not
 * reused before the ids wrap (2^31 of them); a probe that was never armed
 * gives its id back. kpt_probe_ids maps an id to
 * its probe; all changes happen under kpt_probes_mutex, lookups under
 * RCU (a handler's, for the overwrite callback, any context, NMI too:
 * preemption disabled, an RCU read-side section; kpt_format_event()'s
 * under rcu_read_lock()).
 *
 * A deleted probe's records still need its label and its arguments'
 * names and types to be printed: a tombstone, struct kpt_tomb of at most
 * KPT_TOMB_MAX bytes, keeps them. It takes the probe's place in
 * kpt_probe_ids (one store, so that a lookup finds one or the other) and
 * goes to its session's dead_new list. kpt_probes_reclaim() moves a
 * session's dead_new to its dead_wait, noting each of its rings' head;
 * once every tail has passed that head, no record of those probes is left
 * in a ring, and their tombstones leave kpt_probe_ids and are freed after
 * an RCU grace period. A text reader may still hold copies of a freed
 * probe's records in its buffer: they print as "probeN(deleted)". The
 * reclaim runs whenever probes are added, deleted or listed. So a deleted
 * probe whose records nobody reads costs its tombstone and its slot in
 * kpt_probe_ids, never the whole probe. A session's close frees its
 * tombstones with its rings, which held the only records naming them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/build_bug.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <linux/rcupdate.h>
#include "probe.h"
#include "ring.h"
#include "session.h"

static DEFINE_XARRAY_ALLOC(kpt_probe_ids);
static u32 kpt_next_id;

/*
 * What is left of a deleted probe while its records may be in a ring:
 * what format.c needs to print them. One allocation of at most
 * KPT_TOMB_MAX bytes, whatever the spec: the label and the arguments'
 * names are kept in order while they fit in names[]; an argument whose
 * name does not fit prints as argN (its type is kept), and a label that
 * does not fit (a name= label can be 200 bytes) as "probeN(deleted)".
 */
struct kpt_tomb {
	struct list_head	list;	/* its session's dead_new, dead_wait */
	struct rcu_head		rcu;	/* freed after a grace period */
	u32			id;
	u8			nargs;	/* the spec's fetchargs */
	u8			named;	/* those whose names follow the label */
	bool			labelled; /* names[] starts with the label */
	u8			type[KPT_SPEC_MAX_ARGS];
	char			names[];	/* "label\0name0\0name1\0..." */
};

#define KPT_TOMB_MAX		256
/* kpt_tomb_new() keeps names in what is left of KPT_TOMB_MAX */
static_assert(sizeof(struct kpt_tomb) <= KPT_TOMB_MAX);

/*
 * kpt_probe_ids holds a struct kpt_probe, or a struct kpt_tomb tagged
 * with KPT_TOMB_TAG (xa_tag_pointer(); both are 8-byte aligned).
 */
#define KPT_TOMB_TAG		1

static struct kpt_tomb *kpt_ref_tomb(const struct kpt_probe_ref *ref)
{
	void *entry = (void *)ref;

	if (xa_pointer_tag(entry) != KPT_TOMB_TAG)
		return NULL;
	return xa_untag_pointer(entry);
}

/*
 * A ring overwrote record @ev (its buffer's opts.dropped, any context):
 * its probe counts it lost. A handler runs with preemption disabled, an
 * RCU read-side section: a deleted probe found here is not freed before
 * it returns. The record of a deleted probe (a tombstone here) is counted
 * by the ring alone, in stats' lost.overwritten: no file shows a deleted
 * probe's own counts.
 */
void kpt_probe_overwritten(const struct kpt_event *ev)
{
	void *entry = xa_load(&kpt_probe_ids, ev->probe_id);
	struct kpt_probe *p = entry;

	if (p && xa_pointer_tag(entry) != KPT_TOMB_TAG)
		this_cpu_inc(p->stats->lost[KPT_LOST_OVERWRITTEN]);
}
NOKPROBE_SYMBOL(kpt_probe_overwritten);

/* The probe of @id, live or deleted; under rcu_read_lock(). */
const struct kpt_probe_ref *kpt_probe_lookup(u32 id)
{
	return xa_load(&kpt_probe_ids, id);
}

/* The name records of @ref carry, or NULL if it was not kept. */
const char *kpt_probe_ref_label(const struct kpt_probe_ref *ref)
{
	const struct kpt_tomb *t = kpt_ref_tomb(ref);

	if (!t)
		return ((const struct kpt_probe *)ref)->label;
	return t->labelled ? t->names : NULL;
}

/*
 * The type of @ref's argument @i, or -1 if it has none (the record has
 * more); *@name is its name, or NULL (print it as argN).
 */
int kpt_probe_ref_arg(const struct kpt_probe_ref *ref, unsigned int i,
		      const char **name)
{
	const struct kpt_tomb *t = kpt_ref_tomb(ref);
	const struct kpt_probe *p = (const struct kpt_probe *)ref;
	const char *s;
	unsigned int k;

	*name = NULL;
	if (!t) {
		if (i >= p->spec->nargs)
			return -1;
		*name = p->spec->args[i].name;
		return p->spec->args[i].type;
	}
	if (i >= t->nargs)
		return -1;
	if (i < t->named) {
		s = t->names;
		for (k = !t->labelled; k <= i; k++)
			s += strlen(s) + 1;
		*name = s;
	}
	return t->type[i];
}

/* Has every ring of @b been freed up to where it was written at @heads? */
static bool kpt_rings_passed(struct kpt_buffer *b, const unsigned long *heads)
{
	unsigned long head, tail;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		kpt_ring_positions(b, cpu, &head, &tail);
		if ((long)(tail - heads[cpu]) < 0)
			return false;
	}
	return true;
}

/* The tombstones of @sess of which no record is left in its rings */
static void kpt_session_reclaim(struct kpt_session *sess)
{
	struct kpt_tomb *t, *tmp;
	unsigned long tail;
	unsigned int cpu;

	if (!list_empty(&sess->dead_wait) &&
	    kpt_rings_passed(sess->buf, sess->dead_heads)) {
		list_for_each_entry_safe(t, tmp, &sess->dead_wait, list) {
			list_del(&t->list);
			xa_erase(&kpt_probe_ids, t->id);
			kfree_rcu(t, rcu);
			sess->nr_dead--;
		}
	}
	if (list_empty(&sess->dead_wait) && !list_empty(&sess->dead_new)) {
		list_splice_init(&sess->dead_new, &sess->dead_wait);
		for_each_possible_cpu(cpu)
			kpt_ring_positions(sess->buf, cpu,
					   &sess->dead_heads[cpu], &tail);
	}
}

/*
 * Free the tombstones of the deleted probes of which no record is left in
 * their session's rings (see the top of this file). Caller holds
 * kpt_probes_mutex.
 */
void kpt_probes_reclaim(void)
{
	struct kpt_session *sess;

	lockdep_assert_held(&kpt_probes_mutex);
	list_for_each_entry(sess, &kpt_sessions, list)
		kpt_session_reclaim(sess);
}

/* The tombstone of @p (see struct kpt_tomb), or NULL: out of memory. */
static struct kpt_tomb *kpt_tomb_new(const struct kpt_probe *p)
{
	const struct kpt_spec *spec = p->spec;
	char names[KPT_TOMB_MAX - sizeof(struct kpt_tomb)];
	size_t used = 0, len;
	bool labelled = false;
	unsigned int i, named = 0;
	struct kpt_tomb *t;

	len = strlen(p->label) + 1;
	if (len <= sizeof(names)) {
		memcpy(names, p->label, len);
		used = len;
		labelled = true;
	}
	for (i = 0; i < spec->nargs; i++) {
		len = strlen(spec->args[i].name) + 1;
		if (len > sizeof(names) - used)
			break;
		memcpy(names + used, spec->args[i].name, len);
		used += len;
		named++;
	}
	t = kmalloc(struct_size(t, names, used), GFP_KERNEL);
	if (!t)
		return NULL;
	t->id = p->id;
	t->nargs = spec->nargs;
	t->named = named;
	t->labelled = labelled;
	for (i = 0; i < spec->nargs; i++)
		t->type[i] = spec->args[i].type;
	memcpy(t->names, names, used);
	return t;
}


/* @p's id, its entry in kpt_probe_ids: 0 (p->id set) or -EBUSY, -ENOMEM */
int kpt_id_alloc(struct kpt_probe *p)
{
	int ret;

	lockdep_assert_held(&kpt_probes_mutex);
	ret = xa_alloc_cyclic(&kpt_probe_ids, &p->id, p, xa_limit_31b,
			      &kpt_next_id, GFP_KERNEL);
	return ret < 0 ? ret : 0;
}

/*
 * @p was never armed: no record carries its id, which the next probe can
 * have (ids count the probes made); only lookups by id may still see it.
 */
void kpt_id_unused(struct kpt_probe *p)
{
	lockdep_assert_held(&kpt_probes_mutex);
	xa_erase(&kpt_probe_ids, p->id);
	if (kpt_next_id == p->id + 1)
		kpt_next_id = p->id;
}

/*
 * @p was deleted: if it wrote records (@records), its tombstone takes its
 * place. The store replaces an entry, so it allocates nothing; if it
 * failed all the same, or there is no tombstone (no memory, or an
 * aggregation without :events, which wrote no record), its records print
 * as "probeN(deleted)".
 */
void kpt_id_bury(struct kpt_probe *p, bool records)
{
	struct kpt_session *sess = p->sess;
	struct kpt_tomb *t;
	void *old;

	lockdep_assert_held(&kpt_probes_mutex);
	t = records ? kpt_tomb_new(p) : NULL;
	old = t ? xa_store(&kpt_probe_ids, p->id,
			   xa_tag_pointer(t, KPT_TOMB_TAG), GFP_KERNEL) :
		  NULL;
	if (t && !xa_is_err(old)) {
		list_add_tail(&t->list, &sess->dead_new);
		sess->nr_dead++;
	} else {
		kfree(t);
		xa_erase(&kpt_probe_ids, p->id);
	}
}

/* @p's id is no longer looked up: its session's rings are going too */
void kpt_id_release(struct kpt_probe *p)
{
	lockdep_assert_held(&kpt_probes_mutex);
	xa_erase(&kpt_probe_ids, p->id);
}

/* Every tombstone of @sess, after an RCU grace period: it is closing */
void kpt_tombs_free(struct kpt_session *sess)
{
	struct kpt_tomb *t, *tmp;

	lockdep_assert_held(&kpt_probes_mutex);
	list_splice_init(&sess->dead_new, &sess->dead_wait);
	list_for_each_entry_safe(t, tmp, &sess->dead_wait, list) {
		list_del(&t->list);
		xa_erase(&kpt_probe_ids, t->id);
		kfree_rcu(t, rcu);
	}
	sess->nr_dead = 0;
}

/* At unload, after the last probe and tombstone left */
void kpt_ids_exit(void)
{
	xa_destroy(&kpt_probe_ids);
}
