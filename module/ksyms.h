/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the function names that are not unique, from /proc/kallsyms
 * (ksyms.c). Called under kpt_probes_mutex.
 */
#ifndef _KPT_KSYMS_H
#define _KPT_KSYMS_H

#include <linux/types.h>

int kpt_ksyms_defined(const char *mod, const char *sym, char *where,
		      size_t len, bool *in_module);
void kpt_ksyms_invalidate(void);
void kpt_ksyms_init(void);
void kpt_ksyms_exit(void);

#endif /* _KPT_KSYMS_H */
