// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_pending: the calls in progress of the selected tasks, read
 * from /proc (syscalls_pending.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_record.h>

#include "spec.h"
#include "syscalls_pending.h"

#define PROC_ROOT	"/proc"

/* a process of the scan: its pid, its parent's, whether it is shown */
struct pend_proc {
	__u32 pid, ppid;
	bool in;
};

static bool id_in(const __u32 *ids, unsigned int n, __u32 id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

bool sys_pending__listable(const struct sys_pending_sel *sel)
{
	return sel->npids || sel->ntids || sel->parent || sel->comm;
}

bool sys_pending__parse(const char *text, __u64 *args)
{
	unsigned long long v[7];
	long long nr;

	/* "NR A1 .. A6 SP PC", "-1 SP PC" (in no call), or "running" */
	if (sscanf(text, "%lld 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx",
		   &nr, &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7 ||
	    nr < 0)
		return false;
	args[0] = (__u64)nr;
	memcpy(args + 1, v + 1, 6 * sizeof(*args));
	return true;
}

/* The text of @path into @buf (cut to fit); false if it cannot be read. */
static bool read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n > 0;
}

/* se.exec_start of a sched file, in ns; 0 if none */
static __u64 sched_start(const char *path)
{
	char buf[8192], *p;
	unsigned long long ms = 0, frac = 0;
	int digits = 0;

	if (!read_text(path, buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "se.exec_start");
	if (!p)
		return 0;
	p = strchr(p, ':');
	if (!p || sscanf(p + 1, " %llu.", &ms) != 1)
		return 0;
	p = strchr(p, '.');
	for (p = p ? p + 1 : NULL; p && isdigit((unsigned char)*p) &&
	     digits < 6; p++, digits++)
		frac = frac * 10 + (unsigned long long)(*p - '0');
	while (digits++ < 6)
		frac *= 10;
	return ms * 1000000ULL + frac;
}

/* Every process of /proc with its parent: the array, its length in *n. */
static struct pend_proc *list_procs(const char *proc, size_t *n)
{
	struct pend_proc *procs = NULL, *more;
	size_t cap = 0;
	char path[300], buf[512], *p;
	struct dirent *d;
	DIR *dir;

	*n = 0;
	dir = opendir(proc);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		unsigned long ppid;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", proc, d->d_name);
		/* "PID (COMM) S PPID ...": COMM may hold ') ' */
		if (!read_text(path, buf, sizeof(buf)))
			continue;
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %lu", &ppid) != 1)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			more = realloc(procs, cap * sizeof(*procs));
			if (!more)
				break;
			procs = more;
		}
		procs[*n].pid = (__u32)strtoul(d->d_name, NULL, 10);
		procs[*n].ppid = (__u32)ppid;
		procs[*n].in = false;
		(*n)++;
	}
	closedir(dir);
	return procs;
}

/*
 * Marks the processes of @sel in @procs: -p's (with -f, and COMMAND's,
 * descendants too); -t and -c are by task, later.
 */
static void mark_procs(struct pend_proc *procs, size_t n,
		       const struct sys_pending_sel *sel)
{
	bool more = true;
	size_t i, j;

	/* -c alone: every process, its tasks checked by comm later */
	for (i = 0; i < n; i++)
		procs[i].in = sel->npids ?
			      id_in(sel->pids, sel->npids, procs[i].pid) :
			      !sel->parent && sel->comm;
	if (!sel->follow && !sel->parent)
		return;
	while (more) {
		more = false;
		for (i = 0; i < n; i++) {
			if (procs[i].in)
				continue;
			if (sel->parent && procs[i].ppid == sel->parent)
				procs[i].in = true;
			for (j = 0; j < n && !procs[i].in; j++)
				if (procs[j].in && procs[j].pid == procs[i].ppid &&
				    (sel->follow || sel->parent))
					procs[i].in = true;
			more |= procs[i].in;
		}
	}
}

static bool nr_wanted(const struct sys_pending_sel *sel, __u64 nr)
{
	if (!sel->nr)
		return true;
	if (nr < syscalls__count(SYSCALLS_64))
		return sel->nr[nr];
	return sel->nr_rest;
}

/* The call task @tid of process @pid is in, printed; 1, or 0 if none. */
static unsigned int show_task(struct sys_printer *p,
			      const struct sys_pending_sel *sel, __u32 pid,
			      __u32 tid, __u64 now_ns, __u64 self_start)
{
	const char *proc = sel->proc ? sel->proc : PROC_ROOT;
	__u64 rec[1 + (sizeof(struct kpt_event) + 8 * SYS_NARGS) / 8] = { 0 };
	struct kpt_event *e = (struct kpt_event *)rec;
	char path[300], text[512];
	struct sys_call sc;
	__u64 start;
	size_t n;

	snprintf(path, sizeof(path), "%s/%u/task/%u/syscall", proc, pid, tid);
	if (!read_text(path, text, sizeof(text)) ||
	    !sys_pending__parse(text, e->data) || !nr_wanted(sel, e->data[0]))
		return 0;
	/* its call entered by now: a later one, after */
	if (sel->now)
		now_ns = sel->now(sel->now_ctx);
	snprintf(path, sizeof(path), "%s/%u/task/%u/comm", proc, pid, tid);
	if (read_text(path, text, sizeof(text))) {
		n = strcspn(text, "\n");
		memcpy(e->comm, text, n < KPT_COMM_LEN - 1 ? n :
		       KPT_COMM_LEN - 1);
	}
	if (sel->comm && !kpt_glob_match(sel->comm, e->comm))
		return 0;
	e->magic = KPT_MAGIC;
	e->type = KPT_EV_ENTRY;
	e->nr_args = SYS_NARGS;
	e->size = sizeof(rec);
	e->ts_ns = now_ns;
	e->pid = pid;
	e->tid = tid;
	if (sys_call__from_record(&sc, e, p->formats, 0))
		return 0;
	/* its registers are not its arguments: it has none */
	if (!strcmp(sc.name, "restart_syscall"))
		sc.call.nr_args = 0;
	snprintf(path, sizeof(path), "%s/%u/task/%u/sched", proc, pid, tid);
	start = sched_start(path);
	if (start && self_start >= start) {
		sc.call.dur_ns = self_start - start;
		sc.call.blocked_known = true;
	}
	sys_printer__unfinished(p, &sc);
	return 1;
}

/* Each task of process @pid (of -t's only, if any) */
static unsigned int show_proc(struct sys_printer *p,
			      const struct sys_pending_sel *sel, __u32 pid,
			      __u64 now_ns, __u64 self_start)
{
	const char *proc = sel->proc ? sel->proc : PROC_ROOT;
	unsigned int shown = 0;
	struct dirent *d;
	char path[300];
	DIR *dir;
	__u32 tid;

	snprintf(path, sizeof(path), "%s/%u/task", proc, pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		tid = (__u32)strtoul(d->d_name, NULL, 10);
		if (sel->ntids && !id_in(sel->tids, sel->ntids, tid))
			continue;
		shown += show_task(p, sel, pid, tid, now_ns, self_start);
	}
	closedir(dir);
	return shown;
}

unsigned int sys_pending__show(struct sys_printer *p,
			       const struct sys_pending_sel *sel,
			       __u64 now_ns)
{
	const char *proc = sel->proc ? sel->proc : PROC_ROOT;
	struct pend_proc *procs;
	unsigned int shown = 0, i;
	char path[300], text[512], *t;
	__u64 self_start;
	size_t n, j;

	if (!sys_pending__listable(sel))
		return 0;
	snprintf(path, sizeof(path), "%s/self/sched", proc);
	self_start = sched_start(path);
	/* -t alone: each thread, in its process */
	for (i = 0; sel->ntids && !sel->npids && i < sel->ntids; i++) {
		unsigned long tgid = 0;

		snprintf(path, sizeof(path), "%s/%u/status", proc,
			 sel->tids[i]);
		if (!read_text(path, text, sizeof(text)))
			continue;
		t = strstr(text, "\nTgid:");
		if (t && sscanf(t + 6, "%lu", &tgid) == 1 && tgid)
			shown += show_task(p, sel, (__u32)tgid, sel->tids[i],
					   now_ns, self_start);
	}
	if (sel->ntids && !sel->npids)
		return shown;
	procs = list_procs(proc, &n);
	mark_procs(procs, n, sel);
	for (j = 0; j < n; j++)
		if (procs[j].in && procs[j].pid != sel->self)
			shown += show_proc(p, sel, procs[j].pid, now_ns,
					   self_start);
	free(procs);
	return shown;
}
