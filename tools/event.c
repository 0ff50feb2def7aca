// SPDX-License-Identifier: GPL-2.0
/*
 * event: checking, decoding and printing kptrace records.
 *
 * The text format mirrors the module's own debugfs trace (ftrace trace_pipe
 * style lines), with dump_stack style frames that carry the address, so that
 * scripts/decode_stacktrace.sh can read them:
 *
 *	ls-1234 [001] 12.345678: do_sys_openat2: arg0=0xffffff9c arg1=0x7ffc...
 *	cat-97 [002] 12.345680: p_do_sys_openat2_0: dfd=-100 file="/etc/passwd"
 *	 Call Trace:
 *	  [<ffffffff81234500>] do_sys_openat2+0x0/0x1a0
 *	  [<ffffffffc0400080>] kpt_test_func+0x0/0x40 [kpt_test]
 *	ls-1234 [001] 12.345690: do_sys_openat2: ret=-2 lat_ns=1234
 *	CPU:1 [LOST 17 EVENTS: full]
 *
 * Arguments are shown as the probe's spec says (probes.c): u* decimal, s*
 * signed decimal, x* 0x hex, symbol sym+0xoff/0xsize [mod], strings quoted
 * and C-escaped (\" \\ \xNN), "..." after the quote when truncated,
 * (fault) when unreadable: the text of the module's own trace file. Without
 * the probes listing, "probe<id>" and arg<i>=0x<slot>, as the module does.
 *
 * Untrusted text: any process chooses its comm, strings are user data, and
 * probe labels and argument names come from a listing that may be a
 * crafted FILE.probes. All of it is printed by the one rule of
 * kpt_byte_escaped() (uapi/kptrace_record.h), as the module's trace file
 * does: a backslash as \\, any other byte that is not printable ASCII as
 * \xNN (C0 and C1 controls, DEL, every byte of UTF-8), so no escape
 * sequence reaches a terminal and an event stays one line.
 *
 * The JSON format is one object per line, see print_json_*() below.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <kpt_slot.h>
#include <uapi/kptrace_record.h>
#include "spec.h"

#include "event.h"
#include "json.h"
#include "ksyms.h"
#include "probes.h"

static const char * const lost_causes[KPT_LOST_NR] = KPT_LOST_NAMES;

const char *event__lost_cause(__u32 cause)
{
	return cause < KPT_LOST_NR ? lost_causes[cause] : "unknown";
}

enum event_check event__check(const void *rec, size_t avail,
			      const char **why)
{
	enum kpt_record_err err = kpt_record_check(rec, avail);

	*why = err ? kpt_record_why(err) : NULL;
	if (err == KPT_REC_HDR_CUT || err == KPT_REC_CUT)
		return EVENT_PARTIAL;
	return err ? EVENT_BAD : EVENT_OK;
}

/*
 * One byte of untrusted text: a backslash and @quote (if not 0) as \\ and
 * \", what kpt_byte_escaped() names as \xNN, the rest as it is.
 */
static void print_text_byte(FILE *f, unsigned char c, char quote)
{
	static const char hex[] = "0123456789abcdef";

	if (c == '\\' || (quote && c == (unsigned char)quote)) {
		putc_unlocked('\\', f);
		putc_unlocked(c, f);
	} else if (kpt_byte_escaped(c)) {
		putc_unlocked('\\', f);
		putc_unlocked('x', f);
		putc_unlocked(hex[c >> 4], f);
		putc_unlocked(hex[c & 0xf], f);
	} else {
		putc_unlocked(c, f);
	}
}

void event__text_comm(FILE *f, const char *comm)
{
	size_t i;

	for (i = 0; i < KPT_COMM_LEN && comm[i]; i++)
		print_text_byte(f, comm[i], 0);
}

void event__text_bytes(FILE *f, const void *s, size_t len, char quote)
{
	const unsigned char *p = s;
	size_t i;

	for (i = 0; i < len; i++)
		print_text_byte(f, p[i], quote);
}

char *event__text_str(const char *s, size_t len)
{
	char *out = NULL;
	size_t size;
	FILE *f = open_memstream(&out, &size);

	if (!f)
		return NULL;
	event__text_bytes(f, s, strnlen(s, len), 0);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * A name from a probes listing, in text: as untrusted text, and a space
 * as \x20 too, since a name ends at one.
 */
static void print_text_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ')
			fputs("\\x20", f);
		else
			print_text_byte(f, *s, 0);
	}
}

static bool type_is_signed(unsigned int type)
{
	return type >= KPT_T_S8 && type <= KPT_T_S64;
}

static bool type_is_unsigned(unsigned int type)
{
	return type <= KPT_T_U64;
}

static void print_text_str(FILE *f, const struct kpt_event *e, __u64 slot)
{
	const unsigned char *s = kpt_record_str(e, slot);

	if (KPT_STR_FLAGS(slot) & KPT_STR_FAULT) {
		fputs("(fault)", f);
		return;
	}
	if (!s) {
		fputs("(bad)", f);
		return;
	}
	putc_unlocked('"', f);
	event__text_bytes(f, s, KPT_STR_LEN(slot), '"');
	putc_unlocked('"', f);
	if (KPT_STR_FLAGS(slot) & KPT_STR_TRUNC)
		fputs("...", f);
}

/* A symbol argument: "sym+0xoff/0xsize [mod]" as %pS, or 0x<addr>. */
static void print_sym(FILE *f, const struct event_fmt *fmt, __u64 addr,
		      bool json)
{
	const struct ksym *sym = NULL;
	__u64 off;

	if (addr)
		sym = ksyms__find(fmt->ksyms, addr, &off);
	if (json)
		putc_unlocked('"', f);
	if (!sym) {
		fprintf(f, "0x%llx", (unsigned long long)addr);
	} else {
		if (json)
			json__chars(f, sym->name, (size_t)-1);
		else
			fputs(sym->name, f);
		fprintf(f, "+0x%llx/0x%llx", (unsigned long long)off,
			(unsigned long long)sym->size);
		if (sym->module) {
			fputs(" [", f);
			if (json)
				json__chars(f, sym->module, (size_t)-1);
			else
				fputs(sym->module, f);
			putc_unlocked(']', f);
		}
	}
	if (json)
		putc_unlocked('"', f);
}

/*
 * How argument @i of a record of probe @p is shown: *@arg its name and
 * type; false when it is not shown (a name=/address= probe's registers past the
 * function's parameters). Without a spec for it: "arg<i>", x64.
 */
static bool arg_desc(const struct probe *p, unsigned int i,
		     struct probe_arg *arg)
{
	if (p && p->spec && i < p->nargs) {
		*arg = p->args[i];
		return true;
	}
	if (p && p->spec && i < p->spec->nargs)
		return false;
	snprintf(arg->name, sizeof(arg->name), "arg%u", i);
	arg->type = KPT_T_X64;
	return true;
}

/* " name=value" for each argument, as the module's trace prints them. */
static void print_text_args(const struct event_fmt *fmt,
			    const struct kpt_event *e, const struct probe *p,
			    const __u64 *slots)
{
	struct probe_arg arg;
	FILE *f = fmt->out;
	unsigned int i;
	__u64 v;

	for (i = 0; i < e->nr_args; i++) {
		if (!arg_desc(p, i, &arg))
			continue;
		putc_unlocked(' ', f);
		print_text_name(f, arg.name);
		putc_unlocked('=', f);
		v = kpt_slot_extend(slots[i], arg.type);
		if (kpt_type_is_string(arg.type))
			print_text_str(f, e, slots[i]);
		else if (arg.type == KPT_T_SYMBOL)
			print_sym(f, fmt, v, false);
		else if (type_is_signed(arg.type))
			fprintf(f, "%lld", (long long)v);
		else if (type_is_unsigned(arg.type))
			fprintf(f, "%llu", (unsigned long long)v);
		else
			fprintf(f, "0x%llx", (unsigned long long)v);
	}
}

/* "fields":{"name":value,...}: numbers, "0x.." strings, strings, null */
static void print_json_fields(const struct event_fmt *fmt,
			      const struct kpt_event *e,
			      const struct probe *p, const __u64 *slots)
{
	const unsigned char *s;
	struct probe_arg arg;
	FILE *f = fmt->out;
	unsigned int i;
	bool first = true;
	__u64 v;

	fputs(",\"fields\":{", f);
	for (i = 0; i < e->nr_args; i++) {
		if (!arg_desc(p, i, &arg))
			continue;
		if (!first)
			putc_unlocked(',', f);
		first = false;
		json__str(f, arg.name, sizeof(arg.name));
		putc_unlocked(':', f);
		v = kpt_slot_extend(slots[i], arg.type);
		if (kpt_type_is_string(arg.type)) {
			s = kpt_record_str(e, slots[i]);
			if ((KPT_STR_FLAGS(slots[i]) & KPT_STR_FAULT) || !s)
				fputs("null", f);
			else
				json__bytes(f, s, KPT_STR_LEN(slots[i]));
			if (s && (KPT_STR_FLAGS(slots[i]) & KPT_STR_TRUNC)) {
				putc_unlocked(',', f);
				putc_unlocked('"', f);
				json__chars(f, arg.name, sizeof(arg.name));
				fputs("_truncated\":true", f);
			}
		} else if (arg.type == KPT_T_SYMBOL) {
			print_sym(f, fmt, v, true);
		} else if (type_is_signed(arg.type)) {
			fprintf(f, "%lld", (long long)v);
		} else if (type_is_unsigned(arg.type)) {
			fprintf(f, "%llu", (unsigned long long)v);
		} else {
			fprintf(f, "\"0x%llx\"", (unsigned long long)v);
		}
	}
	putc_unlocked('}', f);
}

static void print_text_head(const struct event_fmt *fmt,
			    const struct kpt_event *e, const struct probe *p)
{
	FILE *f = fmt->out;

	event__text_comm(f, e->comm);
	fprintf(f, "-%u [%03u] %llu.%06llu: ", e->tid, e->cpu,
		(unsigned long long)(e->ts_ns / 1000000000ULL),
		(unsigned long long)(e->ts_ns % 1000000000ULL / 1000));
	print_text_name(f, probe__name(p, e->probe_id));
	putc_unlocked(':', f);
}

static void print_text_frame(const struct event_fmt *fmt,
			     const struct kpt_event *e, __u64 addr)
{
	const struct ksym *sym;
	FILE *f = fmt->out;
	__u64 off;

	if (!addr || (e->flags & KPT_F_ADDR_HIDDEN)) {
		fputs("  [<0000000000000000>] ?\n", f);
		return;
	}
	sym = ksyms__find(fmt->ksyms, addr, &off);
	if (!sym) {
		fprintf(f, "  [<%016llx>] 0x%llx\n", (unsigned long long)addr,
			(unsigned long long)addr);
		return;
	}
	fprintf(f, "  [<%016llx>] %s+0x%llx/0x%llx", (unsigned long long)addr,
		sym->name, (unsigned long long)off,
		(unsigned long long)sym->size);
	if (sym->module)
		fprintf(f, " [%s]", sym->module);
	putc_unlocked('\n', f);
}

void event__print_stack(const struct event_fmt *fmt,
			const struct kpt_event *e)
{
	const __u64 *stack = event__stack(e);
	unsigned int i;

	if (!e->nr_stack)
		return;
	fputs(" Call Trace:\n", fmt->out);
	for (i = 0; i < e->nr_stack; i++)
		print_text_frame(fmt, e, stack[i]);
	if (e->flags & KPT_F_STACK_TRUNC)
		fputs("  ...\n", fmt->out);
}

static void print_text_entry(const struct event_fmt *fmt,
			     const struct kpt_event *e, const struct probe *p)
{
	print_text_head(fmt, e, p);
	print_text_args(fmt, e, p, event__args(e));
	putc_unlocked('\n', fmt->out);
	if (fmt->stack)
		event__print_stack(fmt, e);
}

static void print_text_return(const struct event_fmt *fmt,
			      const struct kpt_event *e, const struct probe *p)
{
	const struct kpt_ret *r = (const void *)e->data;

	print_text_head(fmt, e, p);
	fprintf(fmt->out, " ret=%lld lat_ns=%llu", probe__ret(p, r->ret),
		(unsigned long long)r->lat_ns);
	print_text_args(fmt, e, p, e->data + KPT_RET_SLOTS);
	putc_unlocked('\n', fmt->out);
	if (fmt->stack)
		event__print_stack(fmt, e);
}

static void print_json_head(const struct event_fmt *fmt,
			    const struct kpt_event *e, const struct probe *p,
			    const char *type)
{
	FILE *f = fmt->out;

	fprintf(f, "{\"type\":\"%s\",\"probe\":", type);
	json__str(f, probe__name(p, e->probe_id), (size_t)-1);
	fprintf(f, ",\"id\":%u,\"ts_ns\":%llu,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		e->probe_id, (unsigned long long)e->ts_ns, e->cpu, e->pid,
		e->tid);
	json__str(f, e->comm, KPT_COMM_LEN);
}

static void print_json_frame(const struct event_fmt *fmt,
			     const struct kpt_event *e, __u64 addr)
{
	const struct ksym *sym = NULL;
	FILE *f = fmt->out;
	__u64 off;

	if (e->flags & KPT_F_ADDR_HIDDEN)
		addr = 0;
	if (addr)
		sym = ksyms__find(fmt->ksyms, addr, &off);
	fprintf(f, "{\"addr\":\"0x%llx\",\"sym\":", (unsigned long long)addr);
	if (!sym) {
		fputs("null}", f);
		return;
	}
	putc_unlocked('"', f);
	json__chars(f, sym->name, (size_t)-1);
	fprintf(f, "+0x%llx/0x%llx", (unsigned long long)off,
		(unsigned long long)sym->size);
	if (sym->module) {
		fputs(" [", f);
		json__chars(f, sym->module, (size_t)-1);
		fputs("]\",\"module\":", f);
		json__str(f, sym->module, (size_t)-1);
		putc_unlocked('}', f);
	} else {
		fputs("\"}", f);
	}
}

static void print_json_args(const struct event_fmt *fmt,
			    const struct kpt_event *e, const struct probe *p,
			    const __u64 *args)
{
	FILE *f = fmt->out;
	unsigned int i;

	fputs(",\"args\":[", f);
	for (i = 0; i < e->nr_args; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)args[i]);
	putc_unlocked(']', f);
	print_json_fields(fmt, e, p, args);
}

void event__json_stack(const struct event_fmt *fmt, const struct kpt_event *e)
{
	const __u64 *stack = event__stack(e);
	FILE *f = fmt->out;
	unsigned int i;

	fputs(",\"stack\":[", f);
	for (i = 0; i < e->nr_stack; i++) {
		if (i)
			putc_unlocked(',', f);
		print_json_frame(fmt, e, stack[i]);
	}
	putc_unlocked(']', f);
	if (e->flags & KPT_F_STACK_TRUNC)
		fputs(",\"stack_truncated\":true", f);
}

static void print_json_entry(const struct event_fmt *fmt,
			     const struct kpt_event *e, const struct probe *p)
{
	print_json_head(fmt, e, p, "entry");
	print_json_args(fmt, e, p, event__args(e));
	if (fmt->stack)
		event__json_stack(fmt, e);
	fputs("}\n", fmt->out);
}

static void print_json_return(const struct event_fmt *fmt,
			      const struct kpt_event *e, const struct probe *p)
{
	const struct kpt_ret *r = (const void *)e->data;

	print_json_head(fmt, e, p, "return");
	fprintf(fmt->out, ",\"ret\":%lld,\"lat_ns\":%llu,\"entry_ts_ns\":%llu",
		probe__ret(p, r->ret),
		(unsigned long long)r->lat_ns,
		(unsigned long long)r->entry_ts_ns);
	if (e->nr_args)
		print_json_args(fmt, e, p, e->data + KPT_RET_SLOTS);
	/* a syscalls probe's, with stack= */
	if (fmt->stack && e->nr_stack)
		event__json_stack(fmt, e);
	fputs("}\n", fmt->out);
}

static void print_lost(const struct event_fmt *fmt, const struct kpt_event *e)
{
	const struct kpt_lost *l = (const void *)e->data;

	if (fmt->json)
		fprintf(fmt->out,
			"{\"type\":\"lost\",\"cpu\":%u,\"cause\":\"%s\",\"count\":%llu}\n",
			e->cpu, event__lost_cause(l->cause),
			(unsigned long long)l->count);
	else
		fprintf(fmt->out, "CPU:%u [LOST %llu EVENTS: %s]\n", e->cpu,
			(unsigned long long)l->count,
			event__lost_cause(l->cause));
}

/* One record; its probe is looked up once, here. */
void event__print(const struct event_fmt *fmt, const struct kpt_event *e)
{
	const struct probe *p = NULL;

	if (e->type == KPT_EV_ENTRY || e->type == KPT_EV_RETURN)
		p = probes__find(fmt->probes, e->probe_id);
	switch (e->type) {
	case KPT_EV_ENTRY:
		if (fmt->json)
			print_json_entry(fmt, e, p);
		else
			print_text_entry(fmt, e, p);
		break;
	case KPT_EV_RETURN:
		if (fmt->json)
			print_json_return(fmt, e, p);
		else
			print_text_return(fmt, e, p);
		break;
	case KPT_EV_LOST:
		print_lost(fmt, e);
		break;
	default:
		break;
	}
}
