/* SPDX-License-Identifier: GPL-2.0 */
/* kpt_test2: what its two files share. */
#ifndef _KPT_TEST2_H
#define _KPT_TEST2_H

void kpt_test2_dup2_calls(unsigned long n);

#endif /* _KPT_TEST2_H */
