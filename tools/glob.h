/* SPDX-License-Identifier: GPL-2.0 */
/*
 * glob: a probe target with '*' or '?' (vfs_*, ext4:ext4_*) expanded to
 * the functions it names, from available_filter_functions, refusing with a
 * reason those that cannot or should not be probed one by one.
 */
#ifndef __KPTRACE_GLOB_H
#define __KPTRACE_GLOB_H

#include <stdbool.h>
#include <stddef.h>

struct glob_sym {
	char *name;
	char *mod;		/* NULL for vmlinux */
	const char *skip;	/* why it is refused, NULL: probe it */
};

struct glob_result {
	size_t nr;
	size_t nprobe;		/* syms without skip */
	struct glob_sym *syms;	/* sorted by module, then name */
};

bool glob__is_glob(const char *s, size_t len);

/*
 * Expands @pattern (of module @mod only, if not NULL) against
 * available_filter_functions, kallsyms and the kprobes blacklist (env
 * KPTRACE_FILTER_FUNCTIONS, KPTRACE_KALLSYMS and KPTRACE_BLACKLIST replace
 * them). Returns 0, or -1 with a message in @err.
 */
int glob__expand(const char *mod, const char *pattern,
		 struct glob_result *res, char *err, size_t errlen);
void glob__free(struct glob_result *res);

#endif /* __KPTRACE_GLOB_H */
