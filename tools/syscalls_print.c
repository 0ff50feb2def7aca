// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_print: the records of a syscalls probe as calls (struct
 * sys_call), their arguments named by tracefs' formats (struct
 * sys_formats), and the printer of a run (sys_printer__record()): a line
 * or a JSON object per call.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uapi/kptrace_record.h>

#include "event.h"
#include "syscall_sig.h"
#include "syscalls_cmd.h"
#include "syscalls_fd.h"
#include "trace.h"

#define TRACEFS_PATH		"/sys/kernel/tracing"
#define TRACEFS_PATH2		"/sys/kernel/debug/tracing"
#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))

/* --- the formats of the calls ---------------------------------------------- */

struct sys_format_slot {
	bool tried;
	struct syscall_format *fmt;	/* NULL: none */
};

struct sys_formats {
	char *root;		/* tracefs; NULL: not chosen yet */
	bool chosen, quiet;
	unsigned int count;
	struct sys_format_slot *tab;
};

struct sys_formats *sys_formats__new(const char *tracefs, bool quiet)
{
	struct sys_formats *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->quiet = quiet;
	f->count = syscalls__count(SYSCALLS_64);
	f->tab = calloc(f->count, sizeof(*f->tab));
	if (tracefs) {
		f->root = strdup(tracefs);
		f->chosen = true;
	}
	if (!f->tab || (tracefs && !f->root)) {
		sys_formats__free(f);
		return NULL;
	}
	return f;
}

void sys_formats__free(struct sys_formats *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; f->tab && i < f->count; i++)
		free(f->tab[i].fmt);
	free(f->tab);
	free(f->root);
	free(f);
}

/* The first tracefs with events/syscalls, once; a note if none. */
static void sys_formats__choose(struct sys_formats *f)
{
	static const char * const roots[] = { TRACEFS_PATH, TRACEFS_PATH2 };
	char path[256];
	size_t i;

	f->chosen = true;
	for (i = 0; i < ARRAY_LEN(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/syscalls", roots[i]);
		if (!access(path, X_OK)) {
			f->root = strdup(roots[i]);
			return;
		}
	}
	if (!f->quiet)
		fprintf(stderr,
			"kptrace: no %s/events/syscalls (tracefs, with CONFIG_FTRACE_SYSCALLS): arguments show as arg0..arg5\n",
			TRACEFS_PATH);
}

const struct syscall_format *sys_formats__get(struct sys_formats *f,
					      unsigned int nr)
{
	struct sys_format_slot *s;
	const char *event;
	char path[4096], err[256];

	if (!f || nr >= f->count)
		return NULL;
	s = &f->tab[nr];
	if (s->tried)
		return s->fmt;
	s->tried = true;
	if (!f->chosen)
		sys_formats__choose(f);
	event = syscalls__event_name(nr);
	if (!f->root || !event)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format",
		 f->root, event);
	s->fmt = malloc(sizeof(*s->fmt));
	if (s->fmt && syscalls__read_format(path, s->fmt, err, sizeof(err))) {
		free(s->fmt);
		s->fmt = NULL;
	}
	return s->fmt;
}

int sys_formats__set(struct sys_formats *f, unsigned int nr,
		     const struct syscall_format *fmt)
{
	struct sys_format_slot *s;

	if (nr >= f->count)
		return -1;
	s = &f->tab[nr];
	if (!s->fmt)
		s->fmt = malloc(sizeof(*s->fmt));
	if (!s->fmt)
		return -1;
	*s->fmt = *fmt;
	s->tried = true;
	return 0;
}

/* --- a record as a call ---------------------------------------------------- */

int sys_call__from_record(struct sys_call *sc, const struct kpt_event *e,
			  struct sys_formats *formats, __u64 base_ns)
{
	const struct syscall_format *fmt = NULL;
	const struct kpt_ret *r = NULL;
	unsigned int i, n, nargs;
	const char *name;
	const __u64 *a;
	bool compat;
	__u64 slot;
	__u16 flags;
	int nr64;

	if ((e->type != KPT_EV_RETURN && e->type != KPT_EV_ENTRY) ||
	    e->nr_args != SYS_NARGS)
		return -1;
	memset(sc, 0, sizeof(*sc));
	if (e->type == KPT_EV_RETURN) {
		r = (const struct kpt_ret *)e->data;
		a = e->data + KPT_RET_SLOTS;
		sc->entry_ns = r->entry_ts_ns;
	} else {
		a = e->data;
		sc->entry_ns = e->ts_ns;
	}
	sc->nr = a[0];
	compat = e->flags & KPT_F_SYS_COMPAT;
	if (sc->nr <= 0xffffffffULL) {
		/* the table's name, or syscall_NNN in sc->name */
		name = syscalls__name_fmt(compat ? SYSCALLS_32 : SYSCALLS_64,
					  (unsigned int)sc->nr, sc->name,
					  sizeof(sc->name));
		if (name != sc->name)
			snprintf(sc->name, sizeof(sc->name), "%s", name);
		/* a 32-bit call: the format of the x86-64 call of its name */
		nr64 = compat ? syscalls__nr(SYSCALLS_64, sc->name) :
				(int)sc->nr;
		fmt = nr64 >= 0 ? sys_formats__get(formats, (unsigned int)nr64) :
				  NULL;
	} else {
		snprintf(sc->name, sizeof(sc->name), "syscall_%llu",
			 (unsigned long long)sc->nr);
	}
	nargs = fmt ? fmt->nr_args : SYSCALL_MAX_ARGS;
	for (i = 0; i < nargs; i++) {
		sc->vals[i] = a[1 + i];
		if (fmt) {
			sc->args[i] = fmt->args[i];
		} else {
			snprintf(sc->args[i].name, sizeof(sc->args[i].name),
				 "arg%u", i);
			sc->args[i].kind = SYSCALL_ARG_HEX;
			sc->args[i].bytes = 8;
		}
		/* a string only where a slot says so */
		if (sc->args[i].kind == SYSCALL_ARG_STR)
			sc->args[i].kind = SYSCALL_ARG_PTR;
	}
	for (i = SYS_STR_SLOT; i < SYS_NARGS; i++) {
		slot = a[i];
		flags = KPT_STR_FLAGS(slot);
		n = KPT_STR_SYSARG(flags);
		if (!n || n > nargs)
			continue;
		sc->args[n - 1].kind = SYSCALL_ARG_STR;
		if (flags & KPT_STR_FAULT)
			continue;	/* s NULL: (fault) */
		sc->strs[n - 1].s = kpt_record_str(e, slot);
		sc->strs[n - 1].len = KPT_STR_LEN(slot);
		sc->strs[n - 1].trunc = flags & KPT_STR_TRUNC;
		sc->strs[n - 1].bad = !sc->strs[n - 1].s;
	}
	sc->call.ts_ns = sc->entry_ns >= base_ns ? sc->entry_ns - base_ns : 0;
	sc->call.dur_ns = r ? r->lat_ns : 0;
	sc->call.comm = e->comm;
	sc->call.pid = e->pid;
	sc->call.tid = e->tid;
	sc->call.name = sc->name;
	sc->call.nr_args = nargs;
	sc->call.args = sc->args;
	sc->call.vals = sc->vals;
	sc->call.strs = sc->strs;
	sc->call.ret = r ? r->ret : 0;
	sc->call.no_return = !r;
	sc->call.compat = compat;
	sc->call.denied = e->flags & KPT_F_SYS_DENIED;
	return 0;
}

/* below, with the calls shown in progress */
static void pending_end_at(struct sys_printer *p, __u32 tid, __u64 ev_ns,
			   __u64 ts);

/* A signal or an exit record (the probe's signals), printed; false: not one */
static bool printer_event(struct sys_printer *p, const struct kpt_event *e)
{
	const __u64 *a = e->data;
	__u64 ts;

	if (e->type != KPT_EV_ENTRY || e->nr_args != SYS_NARGS ||
	    (a[0] != KPT_SYS_EV_SIGNAL && a[0] != KPT_SYS_EV_EXIT))
		return false;
	if (!p->have_base) {
		p->have_base = true;
		p->base_ns = e->ts_ns;
	}
	ts = e->ts_ns >= p->base_ns ? e->ts_ns - p->base_ns : 0;
	pending_end_at(p, e->tid, e->ts_ns, ts);
	if (a[0] == KPT_SYS_EV_SIGNAL) {
		struct syscall_signal s = {
			.ts_ns = ts, .comm = e->comm, .pid = e->pid,
			.tid = e->tid, .signo = (int)a[1], .code = (int)a[2],
			.err = (int)a[3], .addr = a[4], .status = (__s32)a[5],
			.action = (unsigned int)a[6],
		};

		p->signals++;
		if (p->no_lines)
			return true;
		if (p->json) {
			syscall_sig__json(p->out, &s);
		} else {
			syscall_sig__print(p->out, &s);
			putc_unlocked('\n', p->out);
		}
		return true;
	}
	{
		struct syscall_exit x = {
			.ts_ns = ts, .comm = e->comm, .pid = e->pid,
			.tid = e->tid, .status = (int)a[1], .last = a[2] == 1,
			.group = a[3] == 1,
		};

		p->exits += x.last;
		if (x.last && p->fds)
			sys_fds__forget(p->fds, e->pid);
		if (p->no_lines)
			return true;
		if (p->json) {
			syscall_sig__json_exit(p->out, &x);
		} else if (x.last) {
			/* strace's, per process: a thread's end says nothing */
			syscall_sig__print_exit(p->out, &x);
			putc_unlocked('\n', p->out);
		}
	}
	return true;
}

/* The line or object of @sc (-y: its fds' paths), and its stack if any. */
static void printer_call(struct sys_printer *p, struct sys_call *sc,
			 const struct kpt_event *e)
{
	const char *paths[SYSCALL_MAX_ARGS];

	if (p->fds) {
		sys_fds__paths(p->fds, &sc->call, paths);
		sc->call.fd_paths = paths;
		sc->call.ret_path = sys_fds__update(p->fds, &sc->call);
	}
	if (p->no_lines)
		return;
	if (p->json) {
		syscall_fmt__json_open(p->out, &sc->call);
		if (e && e->nr_stack)
			event__json_stack(&p->lost_fmt, e);
		fputs("}\n", p->out);
	} else {
		syscall_fmt__print(p->out, &sc->call);
		putc_unlocked('\n', p->out);
		if (e)
			event__print_stack(&p->lost_fmt, e);
	}
}

/* A write to the output failed: nowhere to print, the run ends. */
static void printer_check(struct sys_printer *p)
{
	if (ferror(p->out) && !p->out_error) {
		p->out_error = true;
		p->out_errno = trace__flush(p->out);
		trace__stop();
	}
}

/* --- the calls shown in progress, until their return -------------------- */

struct sys_shown_pending {
	__u32 pid, tid;
	bool compat;
	__u64 nr;
	__u64 snap_ns;		/* the snapshot's time, records' clock; 0: ? */
	char comm[KPT_COMM_LEN];	/* as shown: untrusted */
	char name[32];
};

/* The entry of task @tid, or NULL */
static struct sys_shown_pending *pending_of(struct sys_printer *p, __u32 tid)
{
	size_t i;

	for (i = 0; i < p->npending; i++)
		if (p->pending[i].tid == tid)
			return &p->pending[i];
	return NULL;
}

/*
 * Keeps @sc, just shown in progress (a task is in one call at a time: its
 * entry is replaced). Out of memory: its return is not marked resumed.
 */
static void pending_keep(struct sys_printer *p, const struct sys_call *sc)
{
	struct sys_shown_pending *k = pending_of(p, sc->call.tid), *more;
	size_t cap;

	if (!k && p->npending == p->pending_cap) {
		cap = p->pending_cap ? 2 * p->pending_cap : 16;
		more = realloc(p->pending, cap * sizeof(*more));
		if (!more)
			return;
		p->pending = more;
		p->pending_cap = cap;
	}
	if (!k)
		k = &p->pending[p->npending++];
	*k = (struct sys_shown_pending){
		.pid = sc->call.pid, .tid = sc->call.tid,
		.compat = sc->call.compat, .nr = sc->nr,
		.snap_ns = sc->entry_ns,
	};
	if (sc->call.comm)	/* KPT_COMM_LEN bytes, or to a NUL */
		memcpy(k->comm, sc->call.comm,
		       strnlen(sc->call.comm, sizeof(k->comm)));
	snprintf(k->name, sizeof(k->name), "%s", sc->call.name);
}

/*
 * The call @k was shown in progress, and a later call of its task, a
 * signal delivered to it or its end came before its return: it ended
 * unrecorded (entered before the attach, so no return probe was armed for
 * it, or its return missed or lost, as the books count). strace's words
 * for a return it did not see, at @ts_ns, the time it had ended by:
 * "<... NAME resumed>() = ?", its time unknown.
 */
static void pending_ended(struct sys_printer *p,
			  const struct sys_shown_pending *k, __u64 ts_ns)
{
	struct syscall_call c = {
		.ts_ns = ts_ns, .comm = k->comm,
		.pid = k->pid, .tid = k->tid, .name = k->name,
		.no_return = true, .compat = k->compat,
		.resumed = true, .dur_unknown = true,
	};

	if (p->no_lines)
		return;
	if (p->json) {
		syscall_fmt__json(p->out, &c);
	} else {
		syscall_fmt__print(p->out, &c);
		putc_unlocked('\n', p->out);
	}
}

/*
 * Is @sc, a record's call, the return of the call its task was shown in?
 * Yes if it is that call, entered by the snapshot (any time, if the
 * snapshot's is not known). A call of the task entered after the
 * snapshot means that one ended unrecorded: shown so, and the entry goes.
 */
static bool pending_resumes(struct sys_printer *p, const struct sys_call *sc)
{
	struct sys_shown_pending *k = pending_of(p, sc->call.tid);
	bool before, same;

	if (!k)
		return false;
	before = !k->snap_ns || sc->entry_ns <= k->snap_ns;
	same = k->nr == sc->nr && k->compat == sc->call.compat &&
	       !sc->call.no_return;
	if (before && !same)
		return false;	/* an earlier call of the task */
	if (!before)
		pending_ended(p, k, sc->call.ts_ns);
	*k = p->pending[--p->npending];
	return before;
}

/*
 * A signal delivered to task @tid, or its end, at @ev_ns (the records'
 * clock; @ts from the trace's start): both come after the return of the
 * call it was in, so the call shown in progress before @ev_ns ended,
 * shown so before the signal's or end's line (its return record, when
 * there is one, came first and took it).
 */
static void pending_end_at(struct sys_printer *p, __u32 tid, __u64 ev_ns,
			   __u64 ts)
{
	struct sys_shown_pending *k = p->npending ? pending_of(p, tid) : NULL;

	if (!k || !k->snap_ns || ev_ns <= k->snap_ns)
		return;
	pending_ended(p, k, ts);
	*k = p->pending[--p->npending];
}

void sys_printer__fini(struct sys_printer *p)
{
	free(p->pending);
	p->pending = NULL;
	p->npending = 0;
	p->pending_cap = 0;
}

void sys_printer__record(const struct kpt_event *e, void *priv)
{
	struct sys_printer *p = priv;
	struct sys_call sc;
	__u64 nr;

	if (e->type == KPT_EV_LOST) {
		if (!p->no_lines)
			event__print(&p->lost_fmt, e);
	} else if (printer_event(p, e)) {
		/* a record the probe counted as recorded, as a call's */
		p->shown++;
	} else if (sys_call__from_record(&sc, e, p->formats,
					 p->have_base ? p->base_ns : 0)) {
		p->other++;
	} else {
		if (!p->have_base) {
			p->have_base = true;
			p->base_ns = sc.entry_ns;
			sc.call.ts_ns = 0;
		}
		sc.call.resumed = p->npending && pending_resumes(p, &sc);
		printer_call(p, &sc, e);
		p->shown++;
		/* a 32-bit call's row is apart from the x86-64 call's */
		nr = sc.nr | (sc.call.compat ? SYS_SUM_COMPAT : 0);
		if (p->sum && (sys_sum__add_call(p->sum, &sc.call, nr) ||
			       (p->by_comm &&
				sys_sum__add_call(p->by_comm, &sc.call,
						  nr))) &&
		    !p->no_memory) {
			p->no_memory = true;
			trace__stop();
		}
	}
	printer_check(p);
}

void sys_printer__unfinished(struct sys_printer *p, struct sys_call *sc)
{
	__u64 now = sc->call.ts_ns;

	/* the first thing shown, at attach: the time starts there */
	if (!p->have_base && now) {
		p->have_base = true;
		p->base_ns = now;
	}
	/* its time: from the first call shown, or 0 before any */
	sc->call.ts_ns = p->have_base && now >= p->base_ns ?
			 now - p->base_ns : 0;
	sc->call.unfinished = true;
	sc->call.no_return = false;
	printer_call(p, sc, NULL);
	pending_keep(p, sc);
	p->unfinished++;
	printer_check(p);
}
