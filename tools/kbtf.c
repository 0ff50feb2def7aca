// SPDX-License-Identifier: GPL-2.0
/*
 * kbtf: function signatures from the kernel's BTF, read with libbpf.
 *
 * A function's BTF is a FUNC whose type is a FUNC_PROTO listing its
 * parameters' names and types. Where a parameter is at the function's
 * entry follows the x86_64 SysV calling convention: integers, pointers and
 * structs of up to 8 bytes take the next of the six argument registers
 * ($arg1..$arg6), then the next 8-byte stack slot ($stack1.., $stack0
 * being the return address); structs of 9 to 16 bytes take two registers
 * (or two slots), larger ones are copied to the stack, floats go to SSE
 * registers. Parameters that are not in one register or slot get no fetch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kbtf.h"

#define KBTF_MAX_MODS	64

struct kbtf_mod {
	char name[KPT_SPEC_MOD_LEN];
	struct btf *btf;	/* NULL if it could not be read */
	int err;
};

struct kbtf {
	char *dir;
	bool tried;		/* vmlinux loaded or failed */
	struct btf *vmlinux;
	int err;		/* errno of the vmlinux load */
	char why[4400];
	unsigned int nmods;
	struct kbtf_mod mods[KBTF_MAX_MODS];
};

static int kbtf__silent(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

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
	libbpf_set_print(kbtf__silent);
	return kbtf;
}

void kbtf__free(struct kbtf *kbtf)
{
	unsigned int i;

	if (!kbtf)
		return;
	for (i = 0; i < kbtf->nmods; i++)
		btf__free(kbtf->mods[i].btf);
	btf__free(kbtf->vmlinux);
	free(kbtf->dir);
	free(kbtf);
}

static struct btf *kbtf__vmlinux(struct kbtf *kbtf)
{
	char path[4096];

	if (kbtf->tried)
		return kbtf->vmlinux;
	kbtf->tried = true;
	snprintf(path, sizeof(path), "%s/vmlinux", kbtf->dir);
	kbtf->vmlinux = btf__parse(path, NULL);
	if (!kbtf->vmlinux) {
		kbtf->err = errno;
		snprintf(kbtf->why, sizeof(kbtf->why), "cannot read %s: %s",
			 path, strerror(errno));
	}
	return kbtf->vmlinux;
}

/* The BTF of module @mod, split on vmlinux's. */
static struct btf *kbtf__module(struct kbtf *kbtf, const char *mod,
				const char **why)
{
	struct btf *base = kbtf__vmlinux(kbtf);
	static char buf[4400];
	struct kbtf_mod *m;
	char path[4096];
	unsigned int i;

	if (!base) {
		*why = kbtf->why;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", kbtf->dir, mod);
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
		m->btf = btf__parse_split(path, base);
		m->err = m->btf ? 0 : errno;
	}
	m = &kbtf->mods[i];
	if (!m->btf) {
		snprintf(buf, sizeof(buf), "cannot read %s: %s%s", path,
			 strerror(m->err),
			 m->err == ENOENT ? " (module not loaded, or built without BTF)" : "");
		*why = buf;
	}
	return m->btf;
}

/* Skips typedefs and qualifiers. */
static const struct btf_type *kbtf__skip(const struct btf *btf, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	int guard = 32;

	while (t && guard--) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*id = t->type;
			t = btf__type_by_id(btf, *id);
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
static void kbtf__ctype(const struct btf *btf, __u32 id, char *buf,
			size_t len, int depth)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
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
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		kbtf__ctype(btf, t->type, inner, sizeof(inner), depth + 1);
		kbtf__join(buf, len, inner, " *");
		return;
	case BTF_KIND_CONST:
		kbtf__ctype(btf, t->type, inner, sizeof(inner), depth + 1);
		kbtf__join(buf, len, "const ", inner);
		return;
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		kbtf__ctype(btf, t->type, buf, len, depth + 1);
		return;
	case BTF_KIND_STRUCT:
		snprintf(buf, len, "struct %s", name && *name ? name : "?");
		return;
	case BTF_KIND_UNION:
		snprintf(buf, len, "union %s", name && *name ? name : "?");
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		snprintf(buf, len, "enum %s", name && *name ? name : "?");
		return;
	case BTF_KIND_FUNC_PROTO:
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
static int kbtf__classify(const struct btf *btf, __u32 id, int *type,
			  bool *char_ptr)
{
	const struct btf_type *t = kbtf__skip(btf, &id), *pt;
	__u32 pid;

	*type = -1;
	*char_ptr = false;
	if (!t)
		return 1;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (btf_int_encoding(t) & BTF_INT_BOOL) {
			*type = KPT_T_U8;
			return 1;
		}
		*type = kbtf__int_type(t->size,
				       btf_int_encoding(t) & BTF_INT_SIGNED);
		return t->size > 8 ? 2 : 1;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*type = kbtf__int_type(t->size, btf_kflag(t));
		return 1;
	case BTF_KIND_PTR:
		*type = KPT_T_X64;
		pid = t->type;
		pt = kbtf__skip(btf, &pid);
		if (pt && btf_kind(pt) == BTF_KIND_INT && pt->size == 1)
			*char_ptr = true;
		return 1;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (t->size <= 8) {
			*type = KPT_T_X64;
			return 1;
		}
		return t->size <= 16 ? 2 : -(int)((t->size + 7) / 8);
	case BTF_KIND_FLOAT:
		return 0;
	default:
		return 1;
	}
}

int kbtf__func(struct kbtf *kbtf, const char *mod, const char *func,
	       struct kbtf_func *out, const char **why)
{
	const struct btf_type *fn, *proto, *rt;
	unsigned int reg = 0, slot = 0, i, n;
	const struct btf_param *p;
	struct btf *btf;
	__u32 rid;
	int id, regs;
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
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id <= 0)
		return -ENOENT;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || btf_kind(proto) != BTF_KIND_FUNC_PROTO)
		return -ENOENT;

	rid = proto->type;
	rt = rid ? kbtf__skip(btf, &rid) : NULL;
	out->ret_type = -1;
	if (rt)
		kbtf__classify(btf, proto->type, &out->ret_type, &cp);

	n = btf_vlen(proto);
	p = btf_params(proto);
	for (i = 0; i < n && out->nparams < KBTF_MAX_PARAMS; i++, p++) {
		struct kbtf_param *kp = &out->params[out->nparams];
		const char *name = btf__name_by_offset(btf, p->name_off);

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
