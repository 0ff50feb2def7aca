// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: function names that are not unique.
 *
 * Several static functions may share a name, in vmlinux or across vmlinux
 * and modules, and register_kprobe() puts a probe on SYM at whichever
 * definition kallsyms finds first. ftrace's kprobe_events refuses such a
 * name since v6.6 ("The symbol is not unique", -EADDRNOTAVAIL), and so
 * does kptrace: a bare SYM must name one function, and MOD:SYM or 0xADDR
 * chooses among several. MOD:SYM must name one function of MOD too: two
 * static functions of two files of one module can share a name (ftrace
 * refuses that since v6.6 as well), and then only 0xADDR chooses.
 *
 * kallsyms_on_each_symbol() and kallsyms_lookup_name() are not exported to
 * modules, so this reads /proc/kallsyms when a SYM or MOD:SYM is
 * registered, and keeps the text symbols (t, T, w, W) whose name occurs
 * more than once, with where each definition is ("vmlinux" or the
 * module's name), and under "MOD:SYM" the names that occur more than once
 * in one module (a module's lines come together in the file, so counting
 * the definitions of a name in a row of one owner counts them in it).
 * Reading the file (4 MB, 94,000 lines on Debian's 6.1) takes 0.15 to
 * 0.2 s under QEMU's emulation, nearly all of it the kernel printing the
 * lines, so the result is kept until a module comes or goes
 * (kpt_ksyms_invalidate(), from kptrace's module notifier): one read per
 * kptrace load and module event, not one per probe. All of it runs under
 * kpt_probes_mutex. A module's symbols are in kallsyms a little before
 * its COMING notice: names kept from before it can miss them for that
 * while, and the notifier asks again about the MOD:SYM probes armed on
 * it meanwhile (kpt_module_notify()).
 *
 * The file is opened once, at kptrace's load (kpt_ksyms_init(), in
 * insmod's context), and read again from its start at each rebuild: a
 * writer's root, mount namespace or credentials do not choose what is
 * read, and no open of a FIFO or device node can block or load a module
 * with kpt_probes_mutex held (the module notifier takes it). It must be
 * procfs' own regular file. Without it, no name is refused (said once).
 * A read with no text line of vmlinux is an error, and the table of
 * names is bounded (KPT_KSYMS_SLOTS_MAX).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/magic.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/lockdep.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include "ksyms.h"
#include "compat.h"

#define KPT_KSYMS_CHUNK		(64 * 1024)	/* one read of the file */
#define KPT_KSYMS_WHERE		96		/* "vmlinux, mod1, mod2" */
#define KPT_KSYMS_OWNERS	U16_MAX		/* vmlinux and modules */
#define KPT_KSYMS_SLOTS_MAX	BIT(21)		/* 1.5 million text names */

/*
 * A name defined more than once: what the cache keeps, under "SYM" for all
 * of them, and under "MOD:SYM" for those of one module.
 */
struct kpt_ksym_dup {
	struct hlist_node	node;
	u64			hash;
	unsigned int		count;		/* definitions */
	bool			in_module;	/* one of them is a module's */
	/* while the file is read: the owner of the last definition seen */
	u16			last_owner;
	unsigned int		last_count;	/* ... and its definitions */
	char			where[KPT_KSYMS_WHERE];
	char			name[];
};

static DEFINE_HASHTABLE(kpt_ksym_dups, 8);
static bool kpt_ksyms_valid;
static struct file *kpt_ksyms_file;	/* /proc/kallsyms, or NULL */

/*
 * While the file is read: the 64-bit FNV-1a hash of every text name seen,
 * and whose it is, in an open-addressing table (a hash of 0 is stored as
 * 1, 0 marks a free slot). Names are not kept, to spend as little as
 * possible per line: two different names of one boot with the same hash
 * would count as one name defined twice, which for ~50,000 names happens
 * about once in 10^10 boots.
 */
struct kpt_ksym_build {
	u64		*hashes;
	u16		*owner_of;	/* per slot */
	unsigned int	nslots;		/* a power of two */
	unsigned int	used;
	unsigned int	nvmlinux;	/* vmlinux text lines */
	const char	**owners;	/* [0] "vmlinux", then modules */
	unsigned int	nowners;
	unsigned int	owners_max;
	u16		owner;		/* of the lines being read */
};

#define KPT_FNV_BASIS	0xcbf29ce484222325ULL
#define KPT_FNV_PRIME	0x100000001b3ULL

static u64 kpt_fnv_more(u64 h, const char *s, size_t len)
{
	while (len--)
		h = (h ^ (u8)*s++) * KPT_FNV_PRIME;
	return h;
}

static u64 kpt_fnv(const char *s, size_t len)
{
	return kpt_fnv_more(KPT_FNV_BASIS, s, len) ?: 1;
}

/* The hash of "@mod:@sym". */
static u64 kpt_fnv_mod(const char *mod, size_t modlen, const char *sym,
		       size_t len)
{
	u64 h = kpt_fnv_more(KPT_FNV_BASIS, mod, modlen);

	return kpt_fnv_more(kpt_fnv_more(h, ":", 1), sym, len) ?: 1;
}

static int kpt_slots_grow(struct kpt_ksym_build *b)
{
	unsigned int n = b->nslots ? 2 * b->nslots : 1 << 17, i, j;
	u16 *owner_of;
	u64 *hashes;

	if (n > KPT_KSYMS_SLOTS_MAX)
		return -E2BIG;
	hashes = kvcalloc(n, sizeof(*hashes), GFP_KERNEL);
	owner_of = kvcalloc(n, sizeof(*owner_of), GFP_KERNEL);
	if (!hashes || !owner_of) {
		kvfree(hashes);
		kvfree(owner_of);
		return -ENOMEM;
	}
	for (i = 0; i < b->nslots; i++) {
		if (!b->hashes[i])
			continue;
		for (j = b->hashes[i] & (n - 1); hashes[j]; j = (j + 1) & (n - 1))
			;
		hashes[j] = b->hashes[i];
		owner_of[j] = b->owner_of[i];
	}
	kvfree(b->hashes);
	kvfree(b->owner_of);
	b->hashes = hashes;
	b->owner_of = owner_of;
	b->nslots = n;
	return 0;
}

/* The lines that follow are module @mod's (@len bytes, not terminated). */
static int kpt_ksym_owner(struct kpt_ksym_build *b, const char *mod,
			  size_t len)
{
	const char **owners;
	char *name;

	/* a module's symbols come together: a new name is a new module */
	if (b->owner && !strncmp(b->owners[b->owner], mod, len) &&
	    !b->owners[b->owner][len])
		return 0;
	if (b->nowners == KPT_KSYMS_OWNERS)
		return -E2BIG;
	if (b->nowners == b->owners_max) {
		owners = krealloc(b->owners, 2 * b->owners_max *
				  sizeof(*owners), GFP_KERNEL);
		if (!owners)
			return -ENOMEM;
		b->owners = owners;
		b->owners_max *= 2;
	}
	name = kmemdup_nul(mod, len, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	b->owners[b->nowners] = name;
	b->owner = b->nowners++;
	return 0;
}

/*
 * The entry of @name (@len bytes) under @hash, made if need be with a
 * count of 0 and @where empty.
 */
static struct kpt_ksym_dup *kpt_ksym_dup_get(u64 hash, const char *name,
					     size_t len)
{
	struct kpt_ksym_dup *d;

	hash_for_each_possible(kpt_ksym_dups, d, node, hash)
		if (d->hash == hash)
			return d;
	d = kzalloc(struct_size(d, name, len + 1), GFP_KERNEL);
	if (!d)
		return NULL;
	memcpy(d->name, name, len);
	d->hash = hash;
	hash_add(kpt_ksym_dups, &d->node, hash);
	return d;
}

/* One more definition in @d: note where it is. */
static void kpt_ksym_where(struct kpt_ksym_dup *d, const char *owner)
{
	size_t n = strlen(d->where);

	d->count++;
	if (!n)
		strscpy(d->where, owner, sizeof(d->where));
	else if (n < sizeof(d->where) - 1)
		scnprintf(d->where + n, sizeof(d->where) - n, ", %s", owner);
}

/*
 * The @n-th definition in a row of @name by module @owner: noted under
 * "MOD:SYM" from the second on.
 */
static int kpt_ksym_in_module(struct kpt_ksym_build *b, u16 owner,
			      unsigned int n, const char *name, size_t len)
{
	const char *mod = b->owners[owner];
	size_t modlen = strlen(mod);
	struct kpt_ksym_dup *d;
	char *full;

	if (!owner || n < 2)
		return 0;
	full = kasprintf(GFP_KERNEL, "%s:%.*s", mod, (int)len, name);
	if (!full)
		return -ENOMEM;
	d = kpt_ksym_dup_get(kpt_fnv_mod(mod, modlen, name, len), full,
			     strlen(full));
	kfree(full);
	if (!d)
		return -ENOMEM;
	d->in_module = true;
	if (n == 2)		/* the first one, too */
		kpt_ksym_where(d, mod);
	kpt_ksym_where(d, mod);
	return 0;
}

/* One more definition of a name already seen: note where it is. */
static int kpt_ksym_again(struct kpt_ksym_build *b, u64 hash, u16 first,
			  const char *name, size_t len)
{
	struct kpt_ksym_dup *d = kpt_ksym_dup_get(hash, name, len);

	if (!d)
		return -ENOMEM;
	if (!d->count) {
		/* the second one: note the first */
		kpt_ksym_where(d, b->owners[first]);
		d->in_module = first;
		d->last_owner = first;
		d->last_count = 1;
	}
	kpt_ksym_where(d, b->owners[b->owner]);
	d->in_module |= b->owner;
	if (d->last_owner == b->owner) {
		d->last_count++;
	} else {
		d->last_owner = b->owner;
		d->last_count = 1;
	}
	return kpt_ksym_in_module(b, b->owner, d->last_count, name, len);
}

/* A text symbol of the file: count its name. */
static int kpt_ksym_add(struct kpt_ksym_build *b, u64 hash, const char *name,
			size_t len)
{
	unsigned int i;
	int ret;

	if (b->used + 1 > b->nslots / 4 * 3) {
		ret = kpt_slots_grow(b);
		if (ret)
			return ret;
	}
	for (i = hash & (b->nslots - 1); b->hashes[i];
	     i = (i + 1) & (b->nslots - 1))
		if (b->hashes[i] == hash)
			return kpt_ksym_again(b, hash, b->owner_of[i], name,
					      len);
	b->hashes[i] = hash;
	b->owner_of[i] = b->owner;
	b->used++;
	return 0;
}

/*
 * The complete lines at the start of @buf, from /proc/kallsyms:
 * "ADDR TYPE NAME\n" for vmlinux, "ADDR TYPE NAME\t[MODULE]\n" for a
 * module (ADDR is 16 hex digits, 0s when hidden). Returns the bytes they
 * took, or a negative errno. 94,000 lines a read: a text symbol's name
 * is hashed as it is scanned, once.
 */
static ssize_t kpt_ksym_lines(struct kpt_ksym_build *b, char *buf, size_t len)
{
	char *p = buf, *end = buf + len, *type, *name, *q, *nl;
	u64 h;
	int ret;

	while (end - p > 19) {
		if (p[16] == ' ' && p[18] == ' ') {
			type = p + 17;
		} else {
			type = memchr(p, ' ', end - p);
			if (!type || end - type < 3)
				break;
			type++;
		}
		name = type + 2;
		if (type[1] != ' ' || (*type != 't' && *type != 'T' &&
				       *type != 'w' && *type != 'W')) {
			nl = memchr(name, '\n', end - name);
			if (!nl)
				break;
			p = nl + 1;
			continue;
		}
		h = KPT_FNV_BASIS;
		for (q = name; q < end && *q != '\n' && *q != '\t'; q++)
			h = (h ^ (u8)*q) * KPT_FNV_PRIME;
		nl = q < end && *q == '\n' ? q : memchr(q, '\n', end - q);
		if (!nl)
			break;
		p = nl + 1;
		if (q == name)
			continue;
		if (*q == '\t') {		/* "\t[MODULE]" */
			if (nl - q < 4 || q[1] != '[' || nl[-1] != ']')
				continue;
			ret = kpt_ksym_owner(b, q + 2, nl - 1 - (q + 2));
		} else {
			b->owner = 0;
			b->nvmlinux++;
			ret = 0;
		}
		if (!ret)
			ret = kpt_ksym_add(b, h ?: 1, name, q - name);
		if (ret)
			return ret;
	}
	return p - buf;
}

static void kpt_ksyms_clear(void)
{
	struct kpt_ksym_dup *d;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(kpt_ksym_dups, bkt, tmp, d, node) {
		hash_del(&d->node);
		kfree(d);
	}
	kpt_ksyms_valid = false;
}

/*
 * kernel_read() needs ->read_iter, and /proc/kallsyms has only ->read
 * (seq_read(), up to v7.2 at least). It is a seq_file (kallsyms_open()),
 * which seq_read_iter() reads into a kernel buffer the same way; the proc
 * entry's removal guard that ->read adds is moot for /proc/kallsyms.
 */
static ssize_t kpt_ksyms_read(struct file *file, void *buf, size_t len,
			      loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	if (file->f_op->read_iter)
		return kernel_read(file, buf, len, pos);
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, KPT_ITER_DEST, &kv, 1, len);
	ret = seq_read_iter(&kiocb, &iter);
	if (ret > 0)
		*pos = kiocb.ki_pos;
	return ret;
}

/*
 * Read /proc/kallsyms, from its start, into kpt_ksym_dups: seq_read_iter()
 * restarts the iteration for a read at position 0 (and kernel_read() of a
 * ->read_iter file reads at the position given), whatever was read before.
 */
static int kpt_ksyms_build(void)
{
	struct file *file = kpt_ksyms_file;
	struct kpt_ksym_build *b;
	size_t have = 0, i;
	ssize_t got, used;
	loff_t pos = 0;
	char *buf;
	int ret = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	buf = kvmalloc(KPT_KSYMS_CHUNK, GFP_KERNEL);
	if (!b || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	b->owners_max = 64;
	b->owners = kmalloc_array(b->owners_max, sizeof(*b->owners),
				  GFP_KERNEL);
	if (!b->owners) {
		ret = -ENOMEM;
		goto out;
	}
	b->owners[b->nowners++] = "vmlinux";
	for (;;) {
		got = kpt_ksyms_read(file, buf + have, KPT_KSYMS_CHUNK - have,
				     &pos);
		if (got < 0) {
			ret = got;
			break;
		}
		if (!got)
			break;
		have += got;
		used = kpt_ksym_lines(b, buf, have);
		if (used < 0) {
			ret = used;
			break;
		}
		if (!used && have == KPT_KSYMS_CHUNK) {
			ret = -EFBIG;	/* a line longer than the buffer */
			break;
		}
		have -= used;
		memmove(buf, buf + used, have);
	}
	if (!ret && !b->nvmlinux)
		ret = -ENODATA;		/* empty, or not kallsyms' lines */
out:
	if (b) {
		kvfree(b->hashes);
		kvfree(b->owner_of);
		for (i = 1; i < b->nowners; i++)
			kfree(b->owners[i]);
		kfree(b->owners);
		kfree(b);
	}
	kvfree(buf);
	if (ret)
		kpt_ksyms_clear();
	else
		kpt_ksyms_valid = true;
	return ret;
}

/* Is @d the entry of "@mod:@sym", or of @sym if @mod is NULL? */
static bool kpt_ksym_is(const struct kpt_ksym_dup *d, const char *mod,
			size_t modlen, const char *sym)
{
	if (!mod)
		return !strcmp(d->name, sym);
	return !strncmp(d->name, mod, modlen) && d->name[modlen] == ':' &&
	       !strcmp(d->name + modlen + 1, sym);
}

/**
 * kpt_ksyms_defined() - how many text symbols of vmlinux and modules, or
 * of one module, are named @sym
 * @mod: a module's name, or NULL: all of them and vmlinux
 * @sym: a symbol name, without a module
 * @where: filled with where they are, "vmlinux, kpt_test2, ..."
 * @len: room in @where
 * @in_module: set if one of them is a module's
 *
 * Returns 0 or 1 for a name that is unique (or unknown, or when
 * /proc/kallsyms could not be opened at load), the number of definitions
 * otherwise, or a negative errno when it could not be read. Caller holds
 * kpt_probes_mutex.
 */
int kpt_ksyms_defined(const char *mod, const char *sym, char *where,
		      size_t len, bool *in_module)
{
	struct kpt_ksym_dup *d;
	size_t modlen = mod ? strlen(mod) : 0;
	u64 hash;
	int ret;

	if (!kpt_ksyms_file)
		return 1;
	if (!kpt_ksyms_valid) {
		ret = kpt_ksyms_build();
		if (ret)
			return ret;
	}
	hash = mod ? kpt_fnv_mod(mod, modlen, sym, strlen(sym)) :
		     kpt_fnv(sym, strlen(sym));
	hash_for_each_possible(kpt_ksym_dups, d, node, hash) {
		if (d->hash != hash || !kpt_ksym_is(d, mod, modlen, sym))
			continue;
		strscpy(where, d->where, len);
		*in_module = d->in_module;
		return d->count;
	}
	return 1;
}

/* A module came or went: read the file again at the next question. */
void kpt_ksyms_invalidate(void)
{
	if (kpt_ksyms_valid)
		kpt_ksyms_clear();
}

/*
 * Our private opening of /proc/kallsyms is read with kpt_probes_mutex held,
 * while kptrace's own debugfs files (stats, probes...) take
 * kpt_probes_mutex under their seq_file's mutex. Every seq_file mutex is
 * of one lockdep class, so lockdep would report a cycle that cannot
 * happen: no one else can hold the mutex of a file only we opened. It gets
 * a class of its own.
 */
static struct lock_class_key kpt_kallsyms_seq_key;

/*
 * Open /proc/kallsyms, at load, before any probe is added: looked up
 * without opening it, so that what is opened can only be procfs' regular
 * file. Never fails: without it, names are not checked.
 */
void kpt_ksyms_init(void)
{
	struct inode *inode;
	struct path path;
	struct file *file;
	int ret;

	ret = kern_path("/proc/kallsyms", LOOKUP_FOLLOW, &path);
	if (ret)
		goto fail;
	inode = d_inode(path.dentry);
	if (inode->i_sb->s_magic != PROC_SUPER_MAGIC ||
	    !S_ISREG(inode->i_mode)) {
		path_put(&path);
		ret = -EINVAL;
		goto fail;
	}
	file = dentry_open(&path, O_RDONLY, current_cred());
	path_put(&path);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto fail;
	}
	if (!file->f_op->read_iter)	/* a seq_file: see kpt_kallsyms_seq_key */
		lockdep_set_class(&((struct seq_file *)file->private_data)->lock,
				  &kpt_kallsyms_seq_key);
	kpt_ksyms_file = file;
	return;
fail:
	pr_warn("cannot open /proc/kallsyms of procfs (%d): names defined more than once are not refused\n",
		ret);
}

void kpt_ksyms_exit(void)
{
	kpt_ksyms_clear();
	if (kpt_ksyms_file)
		fput(kpt_ksyms_file);
	kpt_ksyms_file = NULL;
}
