/* SPDX-License-Identifier: GPL-2.0 */
/* kptrace: text rendering of a record (format.c), for trace and trace_pipe. */
#ifndef _KPT_FORMAT_H
#define _KPT_FORMAT_H

#include <linux/types.h>
#include <linux/kallsyms.h>
#include <uapi/kptrace.h>
#include "spec.h"
#include "config.h"

/* Room for the text of any record, as kpt_format_event() asks */
#define KPT_TEXT_MAX	(KPT_MAX_STACK * (KSYM_SYMBOL_LEN + 8) + \
			 KPT_SPEC_MAX_ARGS * (KPT_SPEC_NAME_LEN + 64) + \
			 4 * KPT_RECORD_MAX + 1024)
int kpt_format_event(const struct kpt_event *ev, char *buf, size_t len);
int kpt_format_untrusted(char *buf, size_t len, const char *text,
			 unsigned int n, char quote);

#endif /* _KPT_FORMAT_H */
