/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms: kernel symbol lookup from /proc/kallsyms, module symbols included.
 */
#ifndef __KPTRACE_KSYMS_H
#define __KPTRACE_KSYMS_H

#include <linux/types.h>

struct ksym {
	__u64 addr;
	__u64 size;		/* distance to the next symbol, 0 if unknown */
	const char *name;
	const char *module;	/* NULL for vmlinux symbols */
};

struct ksyms;

/*
 * Loads the text symbols of @path (a /proc/kallsyms format file). Returns
 * NULL with errno set on failure. Symbols with address 0 (kptr_restrict) are
 * skipped, so an unprivileged reader gets an empty table, not wrong names.
 */
struct ksyms *ksyms__load(const char *path);
void ksyms__free(struct ksyms *ksyms);
size_t ksyms__count(const struct ksyms *ksyms);

/*
 * The symbol containing @addr and the offset of @addr in it, or NULL when no
 * symbol is known to contain it (before the first one, past the last one).
 */
const struct ksym *ksyms__find(const struct ksyms *ksyms, __u64 addr,
			       __u64 *offset);

/*
 * Scans the kallsyms file @path for symbols of any type named @name, of
 * module @mod (NULL or "": vmlinux). Returns how many there are, with the
 * address of the first in *@addr, or -errno when @path cannot be read.
 */
int ksyms__lookup_name(const char *path, const char *mod, const char *name,
		       __u64 *addr);

#endif /* __KPTRACE_KSYMS_H */
