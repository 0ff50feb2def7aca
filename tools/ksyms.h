/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms: kernel symbol lookup from /proc/kallsyms, module symbols included.
 */
#ifndef __KPTRACE_KSYMS_H
#define __KPTRACE_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct ksym {
	__u64 addr;
	__u64 size;		/* distance to the next symbol, 0 if unknown */
	const char *name;
	const char *module;	/* NULL for vmlinux symbols */
};

struct ksyms;

/*
 * One line of a kallsyms file, "ADDR TYPE NAME" or, for a module's symbol,
 * "ADDR TYPE NAME\t[MOD]", split in place: name and mod point into the
 * line and are not NUL-terminated.
 */
struct ksym_line {
	__u64 addr;
	char type;
	char *name;
	size_t name_len;
	char *mod;		/* NULL for vmlinux */
	size_t mod_len;
};

/*
 * Splits "NAME [MOD]" (blanks before it; a tab or blanks before [MOD]), as
 * kallsyms, available_filter_functions and the kprobes blacklist end their
 * lines: sets @l's name and mod. Returns false when there is no name.
 */
bool ksyms__split_name(char *s, struct ksym_line *l);

/*
 * Calls @fn for each well-formed line of the kallsyms file @path, in the
 * file's order, symbols of every type and zero addresses included, until
 * @fn returns nonzero. Returns what @fn returned, 0 at the end of the file,
 * or -errno when @path cannot be read.
 */
int ksyms__for_each(const char *path,
		    int (*fn)(const struct ksym_line *l, void *ctx), void *ctx);

/*
 * Loads the text symbols of @path (a /proc/kallsyms format file). Returns
 * NULL with errno set on failure. Symbols with address 0 (kptr_restrict) are
 * skipped, so an unprivileged reader gets an empty table, not wrong names.
 */
struct ksyms *ksyms__load(const char *path);
void ksyms__free(struct ksyms *ksyms);

/*
 * ksyms__load() for the frames of call traces: unless @quiet, one line on
 * stderr when @path cannot be read or shows no address (the frames are
 * then bare addresses).
 */
struct ksyms *ksyms__load_frames(const char *path, bool quiet);
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
