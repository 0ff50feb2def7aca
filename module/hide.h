/* SPDX-License-Identifier: GPL-2.0 */
/* kptrace: kernel addresses hidden from readers that may not see them. */
#ifndef _KPT_HIDE_H
#define _KPT_HIDE_H

#include <linux/types.h>

bool kpt_addrs_visible(void);
int kpt_records_open_check(void);
int kpt_records_read_check(void);
size_t kpt_hide_addrs(void *buf, size_t len);
bool kpt_hide_value(__u64 *v);	/* zeroes a kernel address in *v */
bool kpt_hide_range(__u64 min, __u64 max, bool is_signed);

#endif /* _KPT_HIDE_H */
