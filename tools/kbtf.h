/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbtf: function signatures from the kernel's BTF (/sys/kernel/btf/vmlinux,
 * and /sys/kernel/btf/MOD for module functions), read by kbtf.c's own
 * parser of raw BTF: where each parameter is at the function's entry
 * ($argN or $stackN) and the fetch type that shows it (int -> s32,
 * unsigned long -> u64, pointers -> x64...).
 */
#ifndef __KPTRACE_KBTF_H
#define __KPTRACE_KBTF_H

#include <stdbool.h>

#include "spec.h"

#define KBTF_MAX_PARAMS	32

struct kbtf_param {
	char name[KPT_SPEC_NAME_LEN];	/* "" when BTF has none */
	char ctype[64];		/* "const char *", for messages */
	int type;		/* enum kpt_fetch_type, -1: not one fetch */
	bool char_ptr;		/* a pointer to char: a string, if asked */
	char fetch[16];		/* "$arg2", "$stack1", "" if none */
};

struct kbtf_func {
	unsigned int nparams;
	bool vararg;
	int ret_type;		/* as type above; -1 for void */
	struct kbtf_param params[KBTF_MAX_PARAMS];
};

struct kbtf;

/* The BTF of the files in @dir (/sys/kernel/btf), loaded when first used. */
struct kbtf *kbtf__new(const char *dir);
void kbtf__free(struct kbtf *kbtf);

/*
 * The signature of function @func, of module @mod (NULL or "" for
 * vmlinux). Returns 0, -ENODATA when there is no BTF to read (*@why says
 * why), or -ENOENT when the BTF does not know the function.
 */
int kbtf__func(struct kbtf *kbtf, const char *mod, const char *func,
	       struct kbtf_func *out, const char **why);

/* The parameter named @name, or NULL. */
const struct kbtf_param *kbtf__param(const struct kbtf_func *fn,
				     const char *name, size_t len);

#endif /* __KPTRACE_KBTF_H */
