// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: one record as text, in the style of ftrace's trace_pipe, with
 * stacks as a dump_stack() call trace that scripts/decode_stacktrace.sh
 * understands:
 *
 *   cat-97 [001] 12.345678: do_sys_openat2: arg0=0xffffff9c arg1=0x7ffd...
 *    Call Trace:
 *     do_sys_openat2+0x0/0x1a0
 *     __x64_sys_openat+0x6c/0xa0
 *   cat-97 [001] 12.345701: do_sys_openat2: ret=3 lat_ns=23040
 *   CPU:1 [LOST 17 EVENTS: full]
 *
 * Symbols come from %pS (the probed address) and %pB (return addresses),
 * so no raw kernel address is ever printed.
 */
#include <linux/kernel.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include "kptrace.h"

static int kpt_format_head(const struct kpt_event *ev, char *buf, size_t len)
{
	u32 rem;
	u64 sec = div_u64_rem(ev->ts_ns, NSEC_PER_SEC, &rem);

	return scnprintf(buf, len, "%.*s-%u [%03u] %llu.%06u: %s:",
			 KPT_COMM_LEN, ev->comm, ev->tid, ev->cpu, sec,
			 rem / 1000, kpt_probe_name(ev->probe_id));
}

/**
 * kpt_format_event() - render @ev as text into @buf
 * @ev: a whole record
 * @buf: where to write
 * @len: room in @buf, at least KPT_TEXT_MAX for any record
 *
 * Returns the number of characters written.
 */
int kpt_format_event(const struct kpt_event *ev, char *buf, size_t len)
{
	const struct kpt_ret *ret = (const struct kpt_ret *)ev->data;
	const struct kpt_lost *lost = (const struct kpt_lost *)ev->data;
	const u64 *stack = ev->data + ev->nr_args;
	int n = 0;
	int i;

	switch (ev->type) {
	case KPT_EV_ENTRY:
		n = kpt_format_head(ev, buf, len);
		for (i = 0; i < ev->nr_args; i++)
			n += scnprintf(buf + n, len - n, " arg%d=0x%llx", i,
				       ev->data[i]);
		n += scnprintf(buf + n, len - n, "\n");
		if (!ev->nr_stack)
			break;
		n += scnprintf(buf + n, len - n, " Call Trace:\n");
		for (i = 0; i < ev->nr_stack; i++)
			n += scnprintf(buf + n, len - n,
				       i ? "  %pB\n" : "  %pS\n",
				       (void *)(unsigned long)stack[i]);
		if (ev->flags & KPT_F_STACK_TRUNC)
			n += scnprintf(buf + n, len - n, "  ...\n");
		break;
	case KPT_EV_RETURN:
		n = kpt_format_head(ev, buf, len);
		n += scnprintf(buf + n, len - n, " ret=%lld lat_ns=%llu\n",
			       ret->ret, ret->lat_ns);
		break;
	case KPT_EV_LOST:
		n = scnprintf(buf, len, "CPU:%u [LOST %llu EVENTS: %s]\n",
			      ev->cpu, lost->count,
			      lost->cause < KPT_LOST_NR ?
			      kpt_lost_names[lost->cause] : "?");
		break;
	}
	return n;
}
