// SPDX-License-Identifier: GPL-2.0
/*
 * kbtf: function signatures from the kernel's BTF, read by a small parser
 * of the raw BTF of /sys/kernel/btf/ (the format: kbtf_format.h).
 *
 * A function's BTF is a FUNC whose type is a FUNC_PROTO listing its
 * parameters' names and types. Where a parameter is at the function's
 * entry follows the x86_64 SysV calling convention: integers, pointers and
 * structs of up to 8 bytes take the next of the six argument registers
 * ($arg1..$arg6), then the next 8-byte stack slot ($stack1.., $stack0
 * being the return address); structs of 9 to 16 bytes take two registers
 * (or two slots), larger ones are copied to the stack, floats go to SSE
 * registers. Parameters that are not in one register or slot get no fetch.
 *
 * The files are input, and are checked once, when loaded, as libbpf
 * checks them: the header's sections against the file's size, each type's
 * record against the type section, and every name offset and type id in
 * a record against the string section and the number of types. A file
 * that fails a check is refused whole. A kind newer than kernel 7.2's is
 * stepped over by the size the layout section (7.1) gives it; without a
 * layout section its size cannot be known, and BTF that holds one is
 * refused too, naming the kind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbtf.h"
#include "kbtf_format.h"

#define KBTF_MAX_MODS	64
/* vmlinux's BTF is about 6 MiB: a file larger than this is not BTF */
#define KBTF_MAX_SIZE	(256u << 20)

/* One BTF file: vmlinux's, or a module's split on it. */
struct kbtf_file {
	char *data;		/* the whole file */
	const char *types;	/* its type section */
	const char *strs;	/* its string section */
	__u32 str_len;
	const __u8 *layout;	/* its layout section (7.1), or NULL */
	__u32 nlayout;		/* kinds the layout section describes */
	__u32 *offs;		/* where each of its types is in types */
	__u32 ntypes;		/* its own types */
	__u32 start_id;		/* its first type's id: 1, or after base's */
	__u32 start_str;	/* its first string's offset: 0, or base's end */
	const struct kbtf_file *base;
};

struct kbtf_mod {
	char name[KPT_SPEC_MOD_LEN];
	struct kbtf_file *btf;	/* NULL if it could not be read */
	char *why;		/* then why not */
};

struct kbtf {
	char *dir;
	bool tried;		/* vmlinux loaded or failed */
	struct kbtf_file *vmlinux;
	char why[4400];
	unsigned int nmods;
	struct kbtf_mod mods[KBTF_MAX_MODS];
};

struct kbtf *kbtf__new(const char *dir)
{
	struct kbtf *kbtf = calloc(1, sizeof(*kbtf));

	if (!kbtf)
		return NULL;
	kbtf->dir = strdup(dir);
	if (!kbtf->dir) {
		free(kbtf);
		return NULL;
	}
	return kbtf;
}

static void kbtf_file__free(struct kbtf_file *b)
{
	if (!b)
		return;
	free(b->offs);
	free(b->data);
	free(b);
}

void kbtf__free(struct kbtf *kbtf)
{
	unsigned int i;

	if (!kbtf)
		return;
	for (i = 0; i < kbtf->nmods; i++) {
		kbtf_file__free(kbtf->mods[i].btf);
		free(kbtf->mods[i].why);
	}
	kbtf_file__free(kbtf->vmlinux);
	free(kbtf->dir);
	free(kbtf);
}

/* Type @id of @b or of its base, NULL if none (0, void, is none). */
static const struct kbtf_raw_type *kbtf_file__type(const struct kbtf_file *b,
						   __u32 id)
{
	while (b && id < b->start_id)
		b = b->base;
	if (!b || id - b->start_id >= b->ntypes)
		return NULL;
	return (const struct kbtf_raw_type *)(b->types +
					      b->offs[id - b->start_id]);
}

/* The string at offset @off of @b's strings or its base's, or NULL. */
static const char *kbtf_file__str(const struct kbtf_file *b, __u32 off)
{
	while (b && off < b->start_str)
		b = b->base;
	if (!b || off - b->start_str >= b->str_len)
		return NULL;
	return b->strs + (off - b->start_str);
}

/* The size of what follows type record @t by its kind, or -1: unknown. */
static long kbtf__extra(const struct kbtf_raw_type *t)
{
	unsigned long vlen = kbtf_vlen(t);

	switch (kbtf_kind(t)) {
	case KBTF_KIND_INT:
		return sizeof(__u32);
	case KBTF_KIND_PTR:
	case KBTF_KIND_FWD:
	case KBTF_KIND_TYPEDEF:
	case KBTF_KIND_VOLATILE:
	case KBTF_KIND_CONST:
	case KBTF_KIND_RESTRICT:
	case KBTF_KIND_FUNC:
	case KBTF_KIND_FLOAT:
	case KBTF_KIND_TYPE_TAG:
		return 0;
	case KBTF_KIND_ARRAY:
		return sizeof(struct kbtf_raw_array);
	case KBTF_KIND_STRUCT:
	case KBTF_KIND_UNION:
		return vlen * sizeof(struct kbtf_raw_member);
	case KBTF_KIND_ENUM:
		return vlen * sizeof(struct kbtf_raw_enum);
	case KBTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct kbtf_raw_param);
	case KBTF_KIND_VAR:
		return sizeof(struct kbtf_raw_var);
	case KBTF_KIND_DATASEC:
		return vlen * sizeof(struct kbtf_raw_var_secinfo);
	case KBTF_KIND_DECL_TAG:
		return sizeof(struct kbtf_raw_decl_tag);
	case KBTF_KIND_ENUM64:
		return vlen * sizeof(struct kbtf_raw_enum64);
	default:
		return -1;
	}
}

/* The same, by @b's layout section: -1 if it does not describe the kind. */
static long kbtf_file__layout_extra(const struct kbtf_file *b,
				    const struct kbtf_raw_type *t)
{
	const __u8 *l;

	if (kbtf_kind(t) >= b->nlayout)
		return -1;
	l = b->layout + kbtf_kind(t) * sizeof(struct kbtf_raw_layout);
	return l[offsetof(struct kbtf_raw_layout, info_sz)] +
	       (long)kbtf_vlen(t) * l[offsetof(struct kbtf_raw_layout, elem_sz)];
}

/* Every name and type id that type record @t holds is in range. */
static bool kbtf_file__type_ok(const struct kbtf_file *b,
			       const struct kbtf_raw_type *t)
{
	__u32 nids = b->start_id + b->ntypes, i, vlen = kbtf_vlen(t);
	const struct kbtf_raw_var_secinfo *vs;
	const struct kbtf_raw_member *m;
	const struct kbtf_raw_enum64 *e64;
	const struct kbtf_raw_array *a;
	const struct kbtf_raw_param *p;
	const struct kbtf_raw_enum *e;

	if (!kbtf_file__str(b, t->name_off))
		return false;
	switch (kbtf_kind(t)) {
	case KBTF_KIND_PTR:
	case KBTF_KIND_TYPEDEF:
	case KBTF_KIND_VOLATILE:
	case KBTF_KIND_CONST:
	case KBTF_KIND_RESTRICT:
	case KBTF_KIND_FUNC:
	case KBTF_KIND_VAR:
	case KBTF_KIND_DECL_TAG:
	case KBTF_KIND_TYPE_TAG:
		return t->type < nids;
	case KBTF_KIND_ARRAY:
		a = (const void *)(t + 1);
		return a->type < nids && a->index_type < nids;
	case KBTF_KIND_STRUCT:
	case KBTF_KIND_UNION:
		for (i = 0, m = (const void *)(t + 1); i < vlen; i++, m++)
			if (!kbtf_file__str(b, m->name_off) || m->type >= nids)
				return false;
		return true;
	case KBTF_KIND_ENUM:
		for (i = 0, e = (const void *)(t + 1); i < vlen; i++, e++)
			if (!kbtf_file__str(b, e->name_off))
				return false;
		return true;
	case KBTF_KIND_ENUM64:
		for (i = 0, e64 = (const void *)(t + 1); i < vlen; i++, e64++)
			if (!kbtf_file__str(b, e64->name_off))
				return false;
		return true;
	case KBTF_KIND_FUNC_PROTO:
		if (t->type >= nids)
			return false;
		for (i = 0, p = (const void *)(t + 1); i < vlen; i++, p++)
			if (!kbtf_file__str(b, p->name_off) || p->type >= nids)
				return false;
		return true;
	case KBTF_KIND_DATASEC:
		for (i = 0, vs = (const void *)(t + 1); i < vlen; i++, vs++)
			if (vs->type >= nids)
				return false;
		return true;
	default:
		return true;
	}
}

/*
 * Checks @b's header and sections (of b->data, @size bytes), and indexes
 * its types. Returns NULL, or what is wrong in @msg.
 */
static const char *kbtf_file__parse(struct kbtf_file *b, size_t size,
				    char *msg, size_t len)
{
	const struct kbtf_raw_header *h = (const void *)b->data;
	const struct kbtf_raw_type *t;
	unsigned long long end;
	__u32 pass, n, pos;
	long extra, lextra;

	if (size < KBTF_HDR_LEN_V1)
		return "shorter than a BTF header";
	if (h->magic == (__u16)(KBTF_MAGIC << 8 | KBTF_MAGIC >> 8))
		return "BTF of the other byte order";
	if (h->magic != KBTF_MAGIC) {
		snprintf(msg, len, "not BTF (magic 0x%04x)", h->magic);
		return msg;
	}
	if (h->version != KBTF_VERSION) {
		snprintf(msg, len, "BTF version %u, not %u", h->version,
			 KBTF_VERSION);
		return msg;
	}
	if (h->hdr_len < KBTF_HDR_LEN_V1 || h->hdr_len > size)
		return "bad header length";
	if ((h->hdr_len + h->type_off) % 4)
		return "type section not aligned to 4 bytes";
	if ((unsigned long long)h->type_off + h->type_len > h->str_off)
		return "type section overlaps the string section";
	end = (unsigned long long)h->hdr_len + h->str_off + h->str_len;
	if (end > size)
		return "string section past the end of the file";
	b->types = b->data + h->hdr_len + h->type_off;
	b->strs = b->data + h->hdr_len + h->str_off;
	b->str_len = h->str_len;
	if (h->hdr_len >= sizeof(*h) && h->layout_len) {
		end = (unsigned long long)h->hdr_len + h->layout_off +
		      h->layout_len;
		if (end > size)
			return "layout section past the end of the file";
		b->layout = (const __u8 *)b->data + h->hdr_len + h->layout_off;
		b->nlayout = h->layout_len / sizeof(struct kbtf_raw_layout);
	}
	if (b->base) {
		b->start_id = b->base->start_id + b->base->ntypes;
		b->start_str = b->base->start_str + b->base->str_len;
	} else {
		b->start_id = 1;
		if (!b->str_len || b->strs[0])
			return "string section does not start with \"\"";
	}
	if (b->str_len && b->strs[b->str_len - 1])
		return "string section does not end with a NUL";

	/* Count the types, then note where each is. */
	for (pass = 0; pass < 2; pass++) {
		for (pos = 0, n = 0; pos < h->type_len; n++) {
			if (h->type_len - pos < sizeof(*t))
				return "type section ends inside a type";
			t = (const void *)(b->types + pos);
			extra = kbtf__extra(t);
			lextra = kbtf_file__layout_extra(b, t);
			if (extra >= 0 && lextra >= 0 && lextra != extra) {
				snprintf(msg, len,
					 "type %u: the layout section says kind %u is not as this reader knows it",
					 b->start_id + n, kbtf_kind(t));
				return msg;
			}
			if (extra < 0)
				extra = lextra;
			if (extra < 0) {
				snprintf(msg, len,
					 "type %u is of kind %u, unknown here%s",
					 b->start_id + n, kbtf_kind(t),
					 kbtf_kind(t) >= KBTF_NR_KINDS ?
					 " (BTF of a kernel newer than 7.2?)" : "");
				return msg;
			}
			if (h->type_len - pos - sizeof(*t) < (unsigned long)extra)
				return "type section ends inside a type";
			if (extra % 4) {
				snprintf(msg, len,
					 "type %u: a size not a multiple of 4",
					 b->start_id + n);
				return msg;
			}
			if ((unsigned long)b->start_id + n > KBTF_MAX_TYPE)
				return "more types than BTF allows";
			if (pass)
				b->offs[n] = pos;
			pos += sizeof(*t) + extra;
		}
		if (!pass) {
			b->ntypes = n;
			b->offs = malloc((n ? n : 1) * sizeof(*b->offs));
			if (!b->offs)
				return strerror(ENOMEM);
		}
	}
	for (n = 0; n < b->ntypes; n++) {
		t = kbtf_file__type(b, b->start_id + n);
		if (!kbtf_file__type_ok(b, t)) {
			snprintf(msg, len, "type %u refers past the strings or the types",
				 b->start_id + n);
			return msg;
		}
	}
	return NULL;
}

/* The whole of file @path in *@data, *@size bytes; or an errno. */
static int kbtf__read(const char *path, char **data, size_t *size)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	for (;;) {
		if (len == cap) {
			if (cap == KBTF_MAX_SIZE) {
				err = EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 1 << 16;
			p = realloc(buf, cap);
			if (!p) {
				err = ENOMEM;
				break;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*data = buf;
	*size = len;
	return 0;
}

/*
 * The BTF of file @path, split on @base if not NULL; or NULL, with why
 * not in @why: "cannot read PATH: REASON". *@err is the errno, or 0 when
 * the file is not valid BTF.
 */
static struct kbtf_file *kbtf__load(const char *path,
				    const struct kbtf_file *base, int *err,
				    char *why, size_t len)
{
	struct kbtf_file *b = calloc(1, sizeof(*b));
	const char *bad;
	char msg[128];
	size_t size = 0;

	*err = b ? kbtf__read(path, &b->data, &size) : ENOMEM;
	if (*err) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(*err));
		free(b);
		return NULL;
	}
	b->base = base;
	bad = kbtf_file__parse(b, size, msg, sizeof(msg));
	if (bad) {
		snprintf(why, len, "cannot read %s: invalid BTF (%s)", path,
			 bad);
		kbtf_file__free(b);
		return NULL;
	}
	return b;
}

static struct kbtf_file *kbtf__vmlinux(struct kbtf *kbtf)
{
	char path[4096];
	int err;

	if (kbtf->tried)
		return kbtf->vmlinux;
	kbtf->tried = true;
	snprintf(path, sizeof(path), "%s/vmlinux", kbtf->dir);
	kbtf->vmlinux = kbtf__load(path, NULL, &err, kbtf->why,
				   sizeof(kbtf->why));
	return kbtf->vmlinux;
}

/* The BTF of module @mod, split on vmlinux's. */
static struct kbtf_file *kbtf__module(struct kbtf *kbtf, const char *mod,
				      const char **why)
{
	struct kbtf_file *base = kbtf__vmlinux(kbtf);
	char path[4096], buf[4400];
	struct kbtf_mod *m;
	unsigned int i;
	int err;

	if (!base) {
		*why = kbtf->why;
		return NULL;
	}
	for (i = 0; i < kbtf->nmods; i++)
		if (!strcmp(kbtf->mods[i].name, mod))
			break;
	if (i == kbtf->nmods) {
		if (kbtf->nmods == KBTF_MAX_MODS) {
			*why = "BTF of too many modules";
			return NULL;
		}
		m = &kbtf->mods[kbtf->nmods++];
		snprintf(m->name, sizeof(m->name), "%s", mod);
		snprintf(path, sizeof(path), "%s/%s", kbtf->dir, mod);
		m->btf = kbtf__load(path, base, &err, buf, sizeof(buf));
		if (!m->btf && err == ENOENT)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 " (module not loaded, or built without BTF)");
		if (!m->btf)
			m->why = strdup(buf);
	}
	m = &kbtf->mods[i];
	if (!m->btf)
		*why = m->why ? m->why : strerror(ENOMEM);
	return m->btf;
}

/* The first FUNC named @name, from id 1 (vmlinux's) on, as libbpf finds. */
static __u32 kbtf_file__find_func(const struct kbtf_file *b, const char *name)
{
	const struct kbtf_raw_type *t;
	const char *s;
	__u32 id;

	for (id = 1; (t = kbtf_file__type(b, id)); id++) {
		if (kbtf_kind(t) != KBTF_KIND_FUNC)
			continue;
		s = kbtf_file__str(b, t->name_off);
		if (s && !strcmp(s, name))
			return id;
	}
	return 0;
}

static unsigned int kbtf__int_encoding(const struct kbtf_raw_type *t)
{
	return KBTF_INT_ENCODING(*(const __u32 *)(t + 1));
}

/* Skips typedefs and qualifiers. */
static const struct kbtf_raw_type *kbtf__skip(const struct kbtf_file *btf, __u32 *id)
{
	const struct kbtf_raw_type *t = kbtf_file__type(btf, *id);
	int guard = 32;

	while (t && guard--) {
		switch (kbtf_kind(t)) {
		case KBTF_KIND_TYPEDEF:
		case KBTF_KIND_CONST:
		case KBTF_KIND_VOLATILE:
		case KBTF_KIND_RESTRICT:
		case KBTF_KIND_TYPE_TAG:
			*id = t->type;
			t = kbtf_file__type(btf, *id);
			continue;
		default:
			return t;
		}
	}
	return NULL;
}

/* @a then @b into @buf, cut to fit. */
static void kbtf__join(char *buf, size_t len, const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n >= len)
		n = len - 1;
	memmove(buf, a, n);
	while (n < len - 1 && *b)
		buf[n++] = *b++;
	buf[n] = '\0';
}

/* A C-ish name of type @id, for messages: "int", "const char *". */
static void kbtf__ctype(const struct kbtf_file *btf, __u32 id, char *buf,
			size_t len, int depth)
{
	const struct kbtf_raw_type *t = id ? kbtf_file__type(btf, id) : NULL;
	const char *name;
	char inner[64];

	if (!id) {
		snprintf(buf, len, "void");
		return;
	}
	if (!t || depth > 8) {
		snprintf(buf, len, "?");
		return;
	}
	name = kbtf_file__str(btf, t->name_off);
	switch (kbtf_kind(t)) {
	case KBTF_KIND_PTR:
		kbtf__ctype(btf, t->type, inner, sizeof(inner), depth + 1);
		kbtf__join(buf, len, inner, " *");
		return;
	case KBTF_KIND_CONST:
		kbtf__ctype(btf, t->type, inner, sizeof(inner), depth + 1);
		kbtf__join(buf, len, "const ", inner);
		return;
	case KBTF_KIND_VOLATILE:
	case KBTF_KIND_RESTRICT:
	case KBTF_KIND_TYPE_TAG:
		kbtf__ctype(btf, t->type, buf, len, depth + 1);
		return;
	case KBTF_KIND_STRUCT:
		snprintf(buf, len, "struct %s", name && *name ? name : "?");
		return;
	case KBTF_KIND_UNION:
		snprintf(buf, len, "union %s", name && *name ? name : "?");
		return;
	case KBTF_KIND_ENUM:
	case KBTF_KIND_ENUM64:
		snprintf(buf, len, "enum %s", name && *name ? name : "?");
		return;
	case KBTF_KIND_FUNC_PROTO:
		snprintf(buf, len, "function");
		return;
	default:
		snprintf(buf, len, "%s", name && *name ? name : "?");
		return;
	}
}

static int kbtf__int_type(unsigned int size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? KPT_T_S8 : KPT_T_U8;
	case 2:
		return is_signed ? KPT_T_S16 : KPT_T_U16;
	case 4:
		return is_signed ? KPT_T_S32 : KPT_T_U32;
	case 8:
		return is_signed ? KPT_T_S64 : KPT_T_U64;
	default:
		return -1;
	}
}

/* Registers or slots a parameter of type @id takes: 1, 2, more, 0: SSE. */
static int kbtf__classify(const struct kbtf_file *btf, __u32 id, int *type,
			  bool *char_ptr)
{
	const struct kbtf_raw_type *t = kbtf__skip(btf, &id), *pt;
	__u32 pid;

	*type = -1;
	*char_ptr = false;
	if (!t)
		return 1;
	switch (kbtf_kind(t)) {
	case KBTF_KIND_INT:
		if (kbtf__int_encoding(t) & KBTF_INT_BOOL) {
			*type = KPT_T_U8;
			return 1;
		}
		*type = kbtf__int_type(t->size,
				       kbtf__int_encoding(t) & KBTF_INT_SIGNED);
		return t->size > 8 ? 2 : 1;
	case KBTF_KIND_ENUM:
	case KBTF_KIND_ENUM64:
		*type = kbtf__int_type(t->size, kbtf_kflag(t));
		return 1;
	case KBTF_KIND_PTR:
		*type = KPT_T_X64;
		pid = t->type;
		pt = kbtf__skip(btf, &pid);
		if (pt && kbtf_kind(pt) == KBTF_KIND_INT && pt->size == 1)
			*char_ptr = true;
		return 1;
	case KBTF_KIND_STRUCT:
	case KBTF_KIND_UNION:
		if (t->size <= 8) {
			*type = KPT_T_X64;
			return 1;
		}
		return t->size <= 16 ? 2 : -(int)((t->size + 7) / 8);
	case KBTF_KIND_FLOAT:
		return 0;
	default:
		return 1;
	}
}

int kbtf__func(struct kbtf *kbtf, const char *mod, const char *func,
	       struct kbtf_func *out, const char **why)
{
	const struct kbtf_raw_type *fn, *proto, *rt;
	unsigned int reg = 0, slot = 0, i, n;
	const struct kbtf_raw_param *p;
	const struct kbtf_file *btf;
	__u32 rid;
	int regs;
	__u32 id;
	bool cp;

	memset(out, 0, sizeof(*out));
	if (mod && *mod) {
		btf = kbtf__module(kbtf, mod, why);
	} else {
		btf = kbtf__vmlinux(kbtf);
		*why = kbtf->why;
	}
	if (!btf)
		return -ENODATA;
	id = kbtf_file__find_func(btf, func);
	if (!id)
		return -ENOENT;
	fn = kbtf_file__type(btf, id);
	proto = fn ? kbtf_file__type(btf, fn->type) : NULL;
	if (!proto || kbtf_kind(proto) != KBTF_KIND_FUNC_PROTO)
		return -ENOENT;

	rid = proto->type;
	rt = rid ? kbtf__skip(btf, &rid) : NULL;
	out->ret_type = -1;
	if (rt)
		kbtf__classify(btf, proto->type, &out->ret_type, &cp);

	n = kbtf_vlen(proto);
	p = (const struct kbtf_raw_param *)(proto + 1);
	for (i = 0; i < n && out->nparams < KBTF_MAX_PARAMS; i++, p++) {
		struct kbtf_param *kp = &out->params[out->nparams];
		const char *name = kbtf_file__str(btf, p->name_off);

		if (!p->type && (!name || !*name)) {
			out->vararg = true;
			break;
		}
		snprintf(kp->name, sizeof(kp->name), "%s", name ? name : "");
		kbtf__ctype(btf, p->type, kp->ctype, sizeof(kp->ctype), 0);
		regs = kbtf__classify(btf, p->type, &kp->type, &kp->char_ptr);
		out->nparams++;
		if (regs == 1 && reg < 6) {
			snprintf(kp->fetch, sizeof(kp->fetch), "$arg%u",
				 ++reg);
		} else if (regs == 1) {
			snprintf(kp->fetch, sizeof(kp->fetch), "$stack%u",
				 ++slot);
		} else if (regs == 2 && reg + 2 <= 6) {
			reg += 2;
		} else if (regs > 0) {
			slot += regs;
		} else if (regs < 0) {
			slot += -regs;
		}
		if (!kp->fetch[0])
			kp->type = -1;
	}
	return 0;
}

const struct kbtf_param *kbtf__param(const struct kbtf_func *fn,
				     const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < fn->nparams; i++)
		if (strlen(fn->params[i].name) == len &&
		    !strncmp(fn->params[i].name, name, len))
			return &fn->params[i];
	return NULL;
}
