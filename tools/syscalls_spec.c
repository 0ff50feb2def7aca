// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_spec: the spec line of `kptrace syscalls`' probe, from the
 * selection of its command line (struct sys_sel), and what the module's
 * canonical answer says back (exclude=).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "syscalls_cmd.h"
#include "syscalls_run.h"

/* --- the spec line ------------------------------------------------------- */

/* Appends to @buf at *@pos; false once something did not fit. */
static bool spec_add(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *pos) {
		*pos = len;
		return false;
	}
	*pos += n;
	return true;
}

static void spec_ids(char *buf, size_t len, size_t *pos, const char *key,
		     const __u32 *ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		spec_add(buf, len, pos, "%s%u", i ? "," : key, ids[i]);
}

/* Is call @nr of @bits (@count of them, then @rest) selected? */
static bool sel_nr(const bool *bits, unsigned int count, bool rest,
		   unsigned int nr)
{
	return nr < count ? bits[nr] : rest;
}

/* " KEY=N[-M],..." of the numbers selected, to SYS_NR_SPAN */
static void spec_nrs(char *buf, size_t len, size_t *pos, const char *key,
		     const bool *bits, unsigned int count, bool rest)
{
	const char *sep = key;
	unsigned int nr, end;

	for (nr = 0; nr < SYS_NR_SPAN; nr = end + 1) {
		end = nr;
		if (!sel_nr(bits, count, rest, nr))
			continue;
		while (end + 1 < SYS_NR_SPAN &&
		       sel_nr(bits, count, rest, end + 1))
			end++;
		if (end > nr)
			spec_add(buf, len, pos, "%s%u-%u", sep, nr, end);
		else
			spec_add(buf, len, pos, "%s%u", sep, nr);
		sep = ",";
	}
}

int syscalls_cmd__spec(const struct sys_sel *sel, pid_t tool_pid, char *buf,
		       size_t len)
{
	char name[32];

	snprintf(name, sizeof(name), "sys_%d", (int)tool_pid);
	return syscalls_cmd__spec_named(sel, name, tool_pid, buf, len);
}

int syscalls_cmd__spec_named(const struct sys_sel *sel, const char *name,
			     pid_t tool_pid, char *buf, size_t len)
{
	size_t pos = 0;

	spec_add(buf, len, &pos, "s:%s/%s", SYS_GROUP, name);
	spec_ids(buf, len, &pos, " pid=", sel->pid, sel->npid);
	spec_ids(buf, len, &pos, " tid=", sel->tid, sel->ntid);
	if (sel->children)
		spec_add(buf, len, &pos, " children=%u", sel->children);
	/*
	 * Its own calls: tracing them would never end. pid= and tid= never
	 * name the tool, children= of its own pid is COMMAND's; -f -p's
	 * children= may have the tool below it (-f -p $$, -f -p 1).
	 */
	if (!sel->npid && !sel->ntid && sel->children != (__u32)tool_pid)
		spec_add(buf, len, &pos, " exclude=%d", (int)tool_pid);
	if (sel->comm[0]) {
		/* escaped as the module's listing prints it (its bytes as given) */
		char glob[4 * SYS_COMM_MAX + 1];

		/* a byte prints as 4 at most: all of them fit, never a cut glob */
		static_assert(SYS_COMM_MAX + 1 == KPT_SPEC_GLOB_LEN,
			      "-c's bytes are a comm glob's");
		kpt_print_glob(sel->comm, 0, glob, sizeof(glob));
		spec_add(buf, len, &pos, " comm=%s", glob);
	}
	if (sel->cgroup)
		spec_add(buf, len, &pos, " cgroup=%llu",
			 (unsigned long long)sel->cgroup);
	if (sel->nr)
		spec_nrs(buf, len, &pos, " nr=", sel->nr,
			 syscalls__count(SYSCALLS_64), sel->nr_rest);
	if (sel->nr && sel->nr32)
		spec_nrs(buf, len, &pos, " nr32=", sel->nr32,
			 syscalls__count(SYSCALLS_32), sel->nr32_rest);
	if (sel->failure)
		spec_add(buf, len, &pos, " failure");
	if (sel->duration_ns)
		spec_add(buf, len, &pos, " duration=%llu",
			 (unsigned long long)sel->duration_ns);
	if (sel->stack)
		spec_add(buf, len, &pos, " stack=%u", sel->stack);
	if (sel->signals)
		spec_add(buf, len, &pos, " signals");
	if (sel->denied)
		spec_add(buf, len, &pos, " denied");
	if (sel->summary)
		spec_add(buf, len, &pos, " summary");
	return pos < len ? (int)pos : -1;
}

/* --- the probe's exclude= ------------------------------------------------- */

/*
 * The value of " exclude=" in the canonical spec @spec (the module's
 * global number of the pid written), or 0.
 */
__u32 sys_spec__exclude(const char *spec)
{
	const char *p = strstr(spec, " exclude=");

	return p ? (__u32)strtoul(p + 9, NULL, 10) : 0;
}

/* --- the probes of a run ---------------------------------------------------- */

/* /proc/PID/stat's parent, or 0 */
static __u32 proc_ppid(__u32 pid)
{
	char path[64], buf[512], *p;
	unsigned long ppid = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %lu", &ppid) != 1)
		return 0;
	return (__u32)ppid;
}

/* Is @pid a descendant of one of @pids (-f: its calls are in that one's)? */
static bool under_one_of(__u32 pid, const __u32 *pids, unsigned int n)
{
	unsigned int depth, i;
	__u32 p = pid;

	for (depth = 0; depth < 64 && p > 1; depth++) {
		p = proc_ppid(p);
		for (i = 0; i < n; i++)
			if (pids[i] == p && p != pid)
				return true;
	}
	return false;
}

int sys_spec__plan(const struct sys_env *env, struct sys_sel *sels,
		   unsigned int max)
{
	struct sys_sel one = env->sel;
	unsigned int n = 0, i, k, npids = 0;
	__u32 *pids;

	memcpy(one.tid, env->tids, env->ntids * sizeof(*env->tids));
	one.ntid = env->ntids;
	if (!env->npids) {
		sels[0] = one;
		return 1;
	}
	pids = malloc(env->npids * sizeof(*pids));
	if (!pids)
		return -1;
	/* -f: one already under another is in that one's children= */
	for (i = 0; i < env->npids; i++)
		if (!env->follow ||
		    !under_one_of(env->pids[i], env->pids, env->npids))
			pids[npids++] = env->pids[i];
	for (i = 0; i < npids; i += SYS_MAX_IDS) {
		if (n == max)
			goto full;
		sels[n] = one;
		k = npids - i < SYS_MAX_IDS ? npids - i : SYS_MAX_IDS;
		memcpy(sels[n].pid, pids + i, k * sizeof(*pids));
		sels[n++].npid = k;
	}
	for (i = 0; env->follow && i < npids; i++) {
		if (n == max)
			goto full;
		sels[n] = one;
		sels[n++].children = pids[i];
	}
	free(pids);
	return (int)n;
full:
	free(pids);
	return 0;
}

void sys_spec__name(char *buf, size_t len, pid_t tool_pid, unsigned int i)
{
	if (i)
		snprintf(buf, len, "sys_%d_%u", (int)tool_pid, i + 1);
	else
		snprintf(buf, len, "sys_%d", (int)tool_pid);
}
