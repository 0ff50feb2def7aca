// SPDX-License-Identifier: GPL-2.0
/*
 * event: checking, decoding and printing kptrace records.
 *
 * The text format mirrors the module's own debugfs trace (ftrace trace_pipe
 * style lines), with dump_stack style frames that carry the address, so that
 * scripts/decode_stacktrace.sh can read them:
 *
 *	ls-1234 [001] 12.345678: do_sys_openat2: arg0=0xffffff9c arg1=0x7ffc...
 *	 Call Trace:
 *	  [<ffffffff81234500>] do_sys_openat2+0x0/0x1a0
 *	  [<ffffffffc0400080>] kpt_test_func+0x0/0x40 [kpt_test]
 *	ls-1234 [001] 12.345690: do_sys_openat2: ret=-2 lat_ns=1234
 *	CPU:1 [LOST 17 EVENTS: full]
 *
 * The JSON format is one object per line, see print_json_*() below.
 */
#include <string.h>

#include "event.h"
#include "ksyms.h"
#include "probes.h"

static const char * const lost_causes[KPT_LOST_NR] = {
	[KPT_LOST_FULL]		= "full",
	[KPT_LOST_OVERWRITTEN]	= "overwritten",
	[KPT_LOST_NESTED]	= "nested",
	[KPT_LOST_TOO_BIG]	= "too_big",
};

const char *event__lost_cause(__u32 cause)
{
	return cause < KPT_LOST_NR ? lost_causes[cause] : "unknown";
}

enum event_check event__check(const void *rec, size_t avail,
			      const char **why)
{
	const struct kpt_event *e = rec;
	size_t need = sizeof(*e);

	if (avail < sizeof(*e)) {
		*why = "truncated record header";
		return EVENT_PARTIAL;
	}
	*why = NULL;
	if (e->magic != KPT_MAGIC)
		*why = "bad magic";
	else if (e->size < sizeof(*e))
		*why = "size smaller than the header";
	else if (e->size % 8)
		*why = "size not a multiple of 8";
	if (*why)
		return EVENT_BAD;

	switch (e->type) {
	case KPT_EV_ENTRY:
		if (e->nr_args > KPT_MAX_ARGS)
			*why = "more than KPT_MAX_ARGS args";
		else if (e->nr_stack > KPT_MAX_STACK)
			*why = "more than KPT_MAX_STACK frames";
		need += (e->nr_args + e->nr_stack) * sizeof(__u64);
		break;
	case KPT_EV_RETURN:
		need += sizeof(struct kpt_ret);
		break;
	case KPT_EV_LOST:
		need += sizeof(struct kpt_lost);
		break;
	default:
		/* unknown types are skipped by size */
		break;
	}
	if (!*why && e->size < need)
		*why = "size too small for its payload";
	if (*why)
		return EVENT_BAD;
	if (e->size > avail) {
		*why = "truncated record";
		return EVENT_PARTIAL;
	}
	return EVENT_OK;
}

/* comm may hold any bytes and need not be NUL-terminated */
static void print_comm_text(FILE *f, const char *comm)
{
	size_t i;

	for (i = 0; i < KPT_COMM_LEN && comm[i]; i++) {
		unsigned char c = comm[i];

		/* keep one event per line */
		putc_unlocked(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

/*
 * The inside of a JSON string of raw bytes: control characters, DEL and
 * bytes >= 0x80 are written as \u00XX, so the output is plain ASCII and
 * always valid UTF-8 whatever the bytes were.
 */
static void print_json_chars(FILE *f, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			putc_unlocked('\\', f);
			putc_unlocked(c, f);
		} else if (c < 0x20 || c >= 0x7f) {
			fputs("\\u00", f);
			putc_unlocked(hex[c >> 4], f);
			putc_unlocked(hex[c & 0xf], f);
		} else {
			putc_unlocked(c, f);
		}
	}
}

static void print_json_str(FILE *f, const char *s, size_t max)
{
	putc_unlocked('"', f);
	print_json_chars(f, s, max);
	putc_unlocked('"', f);
}

static void print_text_head(const struct event_fmt *fmt,
			    const struct kpt_event *e)
{
	FILE *f = fmt->out;

	print_comm_text(f, e->comm);
	fprintf(f, "-%u [%03u] %llu.%06llu: %s:", e->tid, e->cpu,
		(unsigned long long)(e->ts_ns / 1000000000ULL),
		(unsigned long long)(e->ts_ns % 1000000000ULL / 1000),
		probes__name(fmt->probes, e->probe_id));
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

static void print_text_entry(const struct event_fmt *fmt,
			     const struct kpt_event *e)
{
	const __u64 *args = event__args(e), *stack = event__stack(e);
	FILE *f = fmt->out;
	unsigned int i;

	print_text_head(fmt, e);
	for (i = 0; i < e->nr_args; i++)
		fprintf(f, " arg%u=0x%llx", i, (unsigned long long)args[i]);
	putc_unlocked('\n', f);
	if (!fmt->stack || !e->nr_stack)
		return;
	fputs(" Call Trace:\n", f);
	for (i = 0; i < e->nr_stack; i++)
		print_text_frame(fmt, e, stack[i]);
	if (e->flags & KPT_F_STACK_TRUNC)
		fputs("  ...\n", f);
}

static void print_text_return(const struct event_fmt *fmt,
			      const struct kpt_event *e)
{
	const struct kpt_ret *r = (const void *)e->data;

	print_text_head(fmt, e);
	fprintf(fmt->out, " ret=%lld lat_ns=%llu\n", (long long)r->ret,
		(unsigned long long)r->lat_ns);
}

static void print_json_head(const struct event_fmt *fmt,
			    const struct kpt_event *e, const char *type)
{
	FILE *f = fmt->out;

	fprintf(f, "{\"type\":\"%s\",\"probe\":", type);
	print_json_str(f, probes__name(fmt->probes, e->probe_id), (size_t)-1);
	fprintf(f, ",\"id\":%u,\"ts_ns\":%llu,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		e->probe_id, (unsigned long long)e->ts_ns, e->cpu, e->pid,
		e->tid);
	print_json_str(f, e->comm, KPT_COMM_LEN);
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
	print_json_chars(f, sym->name, (size_t)-1);
	fprintf(f, "+0x%llx/0x%llx", (unsigned long long)off,
		(unsigned long long)sym->size);
	if (sym->module) {
		fputs(" [", f);
		print_json_chars(f, sym->module, (size_t)-1);
		fputs("]\",\"module\":", f);
		print_json_str(f, sym->module, (size_t)-1);
		putc_unlocked('}', f);
	} else {
		fputs("\"}", f);
	}
}

static void print_json_entry(const struct event_fmt *fmt,
			     const struct kpt_event *e)
{
	const __u64 *args = event__args(e), *stack = event__stack(e);
	FILE *f = fmt->out;
	unsigned int i;

	print_json_head(fmt, e, "entry");
	fputs(",\"args\":[", f);
	for (i = 0; i < e->nr_args; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)args[i]);
	putc_unlocked(']', f);
	if (fmt->stack) {
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
	fputs("}\n", f);
}

static void print_json_return(const struct event_fmt *fmt,
			      const struct kpt_event *e)
{
	const struct kpt_ret *r = (const void *)e->data;

	print_json_head(fmt, e, "return");
	fprintf(fmt->out, ",\"ret\":%lld,\"lat_ns\":%llu,\"entry_ts_ns\":%llu}\n",
		(long long)r->ret, (unsigned long long)r->lat_ns,
		(unsigned long long)r->entry_ts_ns);
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

void event__print(const struct event_fmt *fmt, const struct kpt_event *e)
{
	switch (e->type) {
	case KPT_EV_ENTRY:
		if (fmt->json)
			print_json_entry(fmt, e);
		else
			print_text_entry(fmt, e);
		break;
	case KPT_EV_RETURN:
		if (fmt->json)
			print_json_return(fmt, e);
		else
			print_text_return(fmt, e);
		break;
	case KPT_EV_LOST:
		print_lost(fmt, e);
		break;
	default:
		break;
	}
}
