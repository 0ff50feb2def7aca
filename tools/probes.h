/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probes: probe id -> name, from /sys/kernel/debug/kptrace/probes.
 */
#ifndef __KPTRACE_PROBES_H
#define __KPTRACE_PROBES_H

#include <linux/types.h>

struct probes;

/* Never fails for lack of the file: names then fall back to "probe<id>". */
struct probes *probes__load(const char *path);
void probes__free(struct probes *probes);

/*
 * The probe's name (its spec, as given to the module). An id not seen yet
 * makes it re-read the file once, in case it was not there at start.
 */
const char *probes__name(struct probes *probes, __u32 id);

#endif /* __KPTRACE_PROBES_H */
