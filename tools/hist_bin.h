/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist_bin: the binary form of an aggregation (ioctl KPT_IOC_HIST on
 * /dev/kptrace, layout in uapi/kptrace.h), into the struct hist that
 * hist__parse() makes of the text of hist/NAME.
 */
#ifndef __KPTRACE_HIST_BIN_H
#define __KPTRACE_HIST_BIN_H

#include <stdbool.h>
#include <stddef.h>

#include "hist.h"

struct ksyms;

/*
 * Converts the table @blob (@len bytes, as KPT_IOC_HIST returns it) of the
 * aggregation @name into @h: the same entries, keys, values and totals as
 * hist__parse() gets from the text file. Stack frames and symbol keys are
 * named with @ks as the module's %pS (the probed address) and %pB (return
 * addresses) name them; NULL or an unknown address: 0x<hex>, as the
 * kernel. On error returns -1 with a message in @err; @h is then freed.
 */
int hist_bin__parse(const void *blob, size_t len, const char *name,
		    const struct ksyms *ks, struct hist *h, char *err,
		    size_t errlen);

/*
 * Opens @dev (/dev/kptrace), for writing when @rw (to clear). Returns the
 * fd; -1 after a message on stderr; -2 when the module has no
 * KPT_IOC_HIST (an older one: read the text files instead).
 */
int hist_bin__open(const char *dev, bool rw);

/*
 * Reads the aggregation @name through @fd with KPT_IOC_HIST, the live
 * table, or with @clear a new interval started and the one that ended,
 * into @h. A buffer too small is grown and the read made again (after a
 * clear: the interval it ended, by its gen). Names frames and symbols from
 * KPTRACE_KALLSYMS (/proc/kallsyms), loaded once. Returns 0, or -1 with a
 * message in @err.
 */
int hist_bin__read(int fd, const char *name, bool clear, struct hist *h,
		   char *err, size_t errlen);

#endif /* __KPTRACE_HIST_BIN_H */
