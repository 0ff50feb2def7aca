/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpt_bench: the probed function of make bench's micro benchmark, for
 * modules that call it (see kpt_bench.c).
 */
#ifndef _KPT_BENCH_H
#define _KPT_BENCH_H

#include <linux/types.h>

u64 kpt_bench_func(u64 a, u64 b, u64 c, u64 d);

#endif /* _KPT_BENCH_H */
