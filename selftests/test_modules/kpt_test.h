/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpt_test: the functions the selftests probe, exported so that another
 * module can call them too.
 */
#ifndef _KPT_TEST_H
#define _KPT_TEST_H

long kpt_test_func(unsigned long a, unsigned long b, unsigned long c,
		   unsigned long d, unsigned long e, unsigned long f);
long kpt_test_call_loop(unsigned long n);
long kpt_test_sleep(unsigned long ms);

#endif /* _KPT_TEST_H */
