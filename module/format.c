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
 * so no raw kernel address is ever printed. A record of a deleted probe
 * decodes with its tombstone (probe.c, its lifetime): the same text, but
 * that a name too long to keep prints as argN, or as "probeN(deleted)" for
 * the label; once the tombstone is freed, the record prints as
 * "probeN(deleted)", its arguments as arg0=0x...
 */
#include <linux/kernel.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <uapi/kptrace_record.h>
#include "format.h"
#include "ring.h"
#include "probe.h"

/*
 * @n bytes of untrusted text (up to a NUL), escaped by the rule of
 * kpt_byte_escaped() (uapi/kptrace_record.h): a backslash, and @quote if
 * not 0, as \\ and \", any other byte that is not printable ASCII as
 * \xNN. So no process name or string can move a terminal's cursor or
 * forge a line. Returns the length written.
 */
int kpt_format_untrusted(char *buf, size_t len, const char *text,
			 unsigned int n, char quote)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned int i;
	int out = 0;

	for (i = 0; i < n && s[i]; i++) {
		if (s[i] == '\\' || (quote && s[i] == quote))
			out += scnprintf(buf + out, len - out, "\\%c", s[i]);
		else if (kpt_byte_escaped(s[i]))
			out += scnprintf(buf + out, len - out, "\\x%02x",
					 s[i]);
		else
			out += scnprintf(buf + out, len - out, "%c", s[i]);
	}
	return out;
}

static int kpt_format_head(const struct kpt_event *ev,
			   const struct kpt_probe_ref *p, char *buf, size_t len)
{
	const char *label = p ? kpt_probe_ref_label(p) : NULL;
	u32 rem;
	u64 sec = div_u64_rem(ev->ts_ns, NSEC_PER_SEC, &rem);
	int n = kpt_format_untrusted(buf, len, ev->comm, KPT_COMM_LEN, 0);

	if (!label)
		return n + scnprintf(buf + n, len - n,
				     "-%u [%03u] %llu.%06u: probe%u(deleted):",
				     ev->tid, ev->cpu, sec, rem / 1000,
				     ev->probe_id);
	return n + scnprintf(buf + n, len - n, "-%u [%03u] %llu.%06u: %s:",
			     ev->tid, ev->cpu, sec, rem / 1000, label);
}

/* A string argument, quoted, escaped as C does, or (fault). */
static int kpt_format_str(const struct kpt_event *ev, u64 slot, char *buf,
			  size_t len)
{
	const char *s = (const char *)ev + KPT_STR_OFF(slot);
	unsigned int n = KPT_STR_LEN(slot);
	int out;

	if (KPT_STR_FLAGS(slot) & KPT_STR_FAULT)
		return scnprintf(buf, len, "(fault)");
	if (KPT_STR_OFF(slot) + n > ev->size)
		return scnprintf(buf, len, "(bad)");
	out = scnprintf(buf, len, "\"");
	out += kpt_format_untrusted(buf + out, len - out, s, n, '"');
	out += scnprintf(buf + out, len - out, "\"");
	if (KPT_STR_FLAGS(slot) & KPT_STR_TRUNC)
		out += scnprintf(buf + out, len - out, "...");
	return out;
}

/* " name=value" for each argument, as its type says. */
static int kpt_format_args(const struct kpt_event *ev,
			   const struct kpt_probe_ref *p, const u64 *slots,
			   char *buf, size_t len)
{
	const char *name;
	int n = 0, i, type;

	for (i = 0; i < ev->nr_args; i++) {
		type = p ? kpt_probe_ref_arg(p, i, &name) : -1;
		if (type < 0) {
			n += scnprintf(buf + n, len - n, " arg%d=0x%llx", i,
				       slots[i]);
			continue;
		}
		if (name)
			n += scnprintf(buf + n, len - n, " %s=", name);
		else
			n += scnprintf(buf + n, len - n, " arg%d=", i);
		if (kpt_type_is_string(type)) {
			n += kpt_format_str(ev, slots[i], buf + n, len - n);
			continue;
		}
		switch (type) {
		case KPT_T_U8: case KPT_T_U16: case KPT_T_U32: case KPT_T_U64:
			n += scnprintf(buf + n, len - n, "%llu", slots[i]);
			break;
		case KPT_T_S8: case KPT_T_S16: case KPT_T_S32: case KPT_T_S64:
			n += scnprintf(buf + n, len - n, "%lld",
				       (s64)slots[i]);
			break;
		case KPT_T_SYMBOL:
			n += scnprintf(buf + n, len - n, "%pS",
				       (void *)(unsigned long)slots[i]);
			break;
		default:
			n += scnprintf(buf + n, len - n, "0x%llx", slots[i]);
			break;
		}
	}
	return n;
}

/* The call trace of @ev, whose frames are at @stack, as dump_stack() */
static int kpt_format_stack(const struct kpt_event *ev, const u64 *stack,
			    char *buf, size_t len)
{
	int n = 0;
	int i;

	if (!ev->nr_stack)
		return 0;
	n += scnprintf(buf + n, len - n, " Call Trace:\n");
	for (i = 0; i < ev->nr_stack; i++)
		n += scnprintf(buf + n, len - n, i ? "  %pB\n" : "  %pS\n",
			       (void *)(unsigned long)stack[i]);
	if (ev->flags & KPT_F_STACK_TRUNC)
		n += scnprintf(buf + n, len - n, "  ...\n");
	return n;
}

/**
 * kpt_format_event() - render @ev as text into @buf
 * @ev: a whole record
 * @buf: where to write
 * @len: room in @buf, at least KPT_TEXT_MAX for any record
 *
 * Returns the number of characters written. Takes rcu_read_lock(): the
 * record's probe (or its tombstone) may be freed meanwhile.
 */
int kpt_format_event(const struct kpt_event *ev, char *buf, size_t len)
{
	const struct kpt_ret *ret = (const struct kpt_ret *)ev->data;
	const struct kpt_lost *lost = (const struct kpt_lost *)ev->data;
	const struct kpt_probe_ref *p = NULL;
	int n = 0;

	rcu_read_lock();
	if (ev->type == KPT_EV_ENTRY || ev->type == KPT_EV_RETURN)
		p = kpt_probe_lookup(ev->probe_id);

	switch (ev->type) {
	case KPT_EV_ENTRY:
		n = kpt_format_head(ev, p, buf, len);
		n += kpt_format_args(ev, p, ev->data, buf + n, len - n);
		n += scnprintf(buf + n, len - n, "\n");
		n += kpt_format_stack(ev, ev->data + ev->nr_args, buf + n,
				      len - n);
		break;
	case KPT_EV_RETURN:
		n = kpt_format_head(ev, p, buf, len);
		n += scnprintf(buf + n, len - n, " ret=%lld lat_ns=%llu",
			       ret->ret, ret->lat_ns);
		n += kpt_format_args(ev, p, ev->data + KPT_RET_SLOTS, buf + n,
				     len - n);
		n += scnprintf(buf + n, len - n, "\n");
		/* a syscalls probe's, with stack= */
		n += kpt_format_stack(ev, ev->data + KPT_RET_SLOTS +
				      ev->nr_args, buf + n, len - n);
		break;
	case KPT_EV_LOST:
		n = scnprintf(buf, len, "CPU:%u [LOST %llu EVENTS: %s]\n",
			      ev->cpu, lost->count,
			      lost->cause < KPT_LOST_NR ?
			      kpt_lost_names[lost->cause] : "?");
		break;
	}
	rcu_read_unlock();
	return n;
}
