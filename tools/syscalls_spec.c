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

/* Is x86-64 call @nr in @sel's nr= (which @sel->nr is not NULL for)? */
static bool sel_nr(const struct sys_sel *sel, unsigned int nr)
{
	return nr < syscalls__count(SYSCALLS_64) ? sel->nr[nr] : sel->nr_rest;
}

int syscalls_cmd__spec(const struct sys_sel *sel, pid_t tool_pid, char *buf,
		       size_t len)
{
	unsigned int nr, end;
	const char *sep = " nr=";
	size_t pos = 0;

	spec_add(buf, len, &pos, "s:%s/sys_%d", SYS_GROUP, (int)tool_pid);
	spec_ids(buf, len, &pos, " pid=", sel->pid, sel->npid);
	spec_ids(buf, len, &pos, " tid=", sel->tid, sel->ntid);
	if (sel->children)
		spec_add(buf, len, &pos, " children=%u", sel->children);
	else if (!sel->npid && !sel->ntid)
		/* its own calls: tracing them would never end */
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
	for (nr = 0; sel->nr && nr < SYS_NR_SPAN; nr = end + 1) {
		end = nr;
		if (!sel_nr(sel, nr))
			continue;
		while (end + 1 < SYS_NR_SPAN && sel_nr(sel, end + 1))
			end++;
		if (end > nr)
			spec_add(buf, len, &pos, "%s%u-%u", sep, nr, end);
		else
			spec_add(buf, len, &pos, "%s%u", sep, nr);
		sep = ",";
	}
	if (sel->failure)
		spec_add(buf, len, &pos, " failure");
	if (sel->duration_ns)
		spec_add(buf, len, &pos, " duration=%llu",
			 (unsigned long long)sel->duration_ns);
	if (sel->stack)
		spec_add(buf, len, &pos, " stack=%u", sel->stack);
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
