// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the options of an s probe (struct kpt_sys_spec, whose grammar
 * is above it in spec.h), parsed and printed, and its fixed fetchargs.
 */
#include "spec_impl.h"

/* pid=, tid=: N[,N...], at most KPT_SYS_MAX_IDS, each from 1 */
static int kpt_parse_sys_ids(struct kpt_cursor *c, __u32 *ids, __u8 *n)
{
	const char *at;
	__u64 v;
	int ret;

	do {
		at = c->p;
		if (*n == KPT_SYS_MAX_IDS)
			return kpt_fail(c, at, "at most 8 ids");
		ret = kpt_parse_u64(c, &v);
		if (ret)
			return ret;
		if (!v || v > 0x3fffffff)
			return kpt_fail(c, at, "not a pid");
		ids[(*n)++] = (__u32)v;
	} while (*c->p == ',' && c->p++);
	return 0;
}

/* nr=, nr32=: N[-M][,N[-M]...], x86-64 or i386 syscall numbers */
static int kpt_parse_sys_nrs(struct kpt_cursor *c, __u64 *bits)
{
	const char *at;
	__u64 lo, hi;
	int ret;

	do {
		at = c->p;
		ret = kpt_parse_u64(c, &lo);
		if (ret)
			return ret;
		hi = lo;
		if (*c->p == '-') {
			c->p++;
			ret = kpt_parse_u64(c, &hi);
			if (ret)
				return ret;
		}
		if (lo > hi || hi >= KPT_SYS_NR_BITS)
			return kpt_fail(c, at,
					"syscall numbers are 0 to 511, N-M with N <= M");
		for (; lo <= hi; lo++)
			bits[lo / 64] |= 1ULL << (lo % 64);
	} while (*c->p == ',' && c->p++);
	return 0;
}

enum kpt_sys_opt {
	KPT_SO_PID, KPT_SO_TID, KPT_SO_CHILDREN, KPT_SO_COMM, KPT_SO_CGROUP,
	KPT_SO_NR, KPT_SO_FAILURE, KPT_SO_DURATION, KPT_SO_SUMMARY,
	KPT_SO_EXCLUDE, KPT_SO_STACK, KPT_SO_NR32, KPT_SO_SIGNALS,
	KPT_SO_DENIED, KPT_SO_NR_OPTS
};

/* ending in '=': takes a value; else a flag (summary: either) */
static const char * const kpt_sys_opts[KPT_SO_NR_OPTS] = {
	[KPT_SO_PID] = "pid=", [KPT_SO_TID] = "tid=",
	[KPT_SO_CHILDREN] = "children=", [KPT_SO_COMM] = "comm=",
	[KPT_SO_CGROUP] = "cgroup=", [KPT_SO_NR] = "nr=",
	[KPT_SO_FAILURE] = "failure", [KPT_SO_DURATION] = "duration=",
	[KPT_SO_SUMMARY] = "summary", [KPT_SO_EXCLUDE] = "exclude=",
	[KPT_SO_STACK] = "stack=", [KPT_SO_NR32] = "nr32=",
	[KPT_SO_SIGNALS] = "signals", [KPT_SO_DENIED] = "denied",
};

/* The options of an s probe, after its head (struct kpt_sys_spec) */
int kpt_parse_sys(struct kpt_cursor *c)
{
	struct kpt_sys_spec *sys = &c->spec->sys;
	unsigned int i, seen = 0;
	const char *at;
	size_t len;
	__u64 v = 0;
	int ret;

	for (;;) {
		kpt_skip_space(c);
		if (!*c->p || *c->p == '#')
			break;
		at = c->p;
		for (i = 0; i < KPT_ARRAY_SIZE(kpt_sys_opts); i++) {
			len = strlen(kpt_sys_opts[i]);
			if (!strncmp(c->p, kpt_sys_opts[i], len) &&
			    (kpt_sys_opts[i][len - 1] == '=' || !c->p[len] ||
			     kpt_is_space(c->p[len]) ||
			     (i == KPT_SO_SUMMARY && c->p[len] == '=')))
				break;
		}
		if (i == KPT_ARRAY_SIZE(kpt_sys_opts))
			return kpt_fail(c, at,
					"expected pid=, tid=, children=, exclude=, comm=, cgroup=, nr=, nr32=, failure, duration=, stack=, signals, denied or summary");
		if (seen & (1U << i))
			return kpt_fail(c, at, "option given twice");
		seen |= 1U << i;
		c->p += len;
		ret = 0;
		switch (i) {
		case KPT_SO_PID:
			ret = kpt_parse_sys_ids(c, sys->pid, &sys->npid);
			break;
		case KPT_SO_TID:
			ret = kpt_parse_sys_ids(c, sys->tid, &sys->ntid);
			break;
		case KPT_SO_CHILDREN:
		case KPT_SO_EXCLUDE:
			ret = kpt_parse_u64(c, &v);
			if (!ret && (!v || v > 0x3fffffff))
				return kpt_fail(c, at + len, "not a pid");
			if (i == KPT_SO_CHILDREN)
				sys->children = (__u32)v;
			else
				sys->exclude = (__u32)v;
			break;
		case KPT_SO_COMM:
			ret = kpt_parse_glob(c, c->p, sys->comm, 0, 1);
			if (!ret && !sys->comm[0])
				return kpt_fail(c, c->p, "expected a comm glob");
			break;
		case KPT_SO_CGROUP:
			ret = kpt_parse_u64(c, &sys->cgroup);
			if (!ret && !sys->cgroup)
				return kpt_fail(c, at + len, "cgroup id 0");
			break;
		case KPT_SO_NR:
			sys->nr_given = 1;
			ret = kpt_parse_sys_nrs(c, sys->nr);
			break;
		case KPT_SO_NR32:
			sys->nr_given = 1;
			ret = kpt_parse_sys_nrs(c, sys->nr32);
			break;
		case KPT_SO_SIGNALS:
			sys->signals = 1;
			break;
		case KPT_SO_DENIED:
			sys->denied = 1;
			break;
		case KPT_SO_FAILURE:
			sys->failure = 1;
			break;
		case KPT_SO_DURATION:
			ret = kpt_parse_u64(c, &sys->duration_ns);
			break;
		case KPT_SO_STACK:
			ret = kpt_parse_u64(c, &v);
			if (!ret && (!v || v > KPT_SYS_MAX_STACK))
				return kpt_fail(c, at + len,
						"stack= must be 1 to 64 frames");
			sys->stack = (__u8)v;
			break;
		default:
			sys->summary = KPT_SYS_SUM_DEF;
			if (*c->p != '=')
				break;
			c->p++;
			ret = kpt_parse_u64(c, &v);
			if (!ret && (v < 16 || v > KPT_SYS_SUM_MAX))
				return kpt_fail(c, at + len + 1,
						"summary= must be 16 to 65536 entries");
			/* a power of 2, as the tables are */
			for (sys->summary = 16; sys->summary < v;)
				sys->summary *= 2;
			break;
		}
		if (ret)
			return ret;
		if (*c->p && !kpt_is_space(*c->p))
			return kpt_fail(c, c->p, "unexpected character in an option");
		if (sys->stack && sys->summary)
			return kpt_fail(c, at, "stack= with summary: a summary keeps no calls");
		if ((sys->signals || sys->denied) && sys->summary)
			return kpt_fail(c, at,
					"signals or denied with summary: a summary keeps no records");
	}
	return 0;
}

/* The fixed fetchargs of an s probe: what its records' args[] hold */
void kpt_sys_fetchargs(struct kpt_spec *spec)
{
	static const char * const names[KPT_SYS_NARGS] = {
		"nr", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "str0",
		"str1",
	};
	unsigned int i;

	for (i = 0; i < KPT_SYS_NARGS; i++) {
		struct kpt_fetch *f = &spec->args[i];

		memcpy(f->name, names[i], strlen(names[i]) + 1);
		f->base = KPT_FB_ARG;
		f->index = 1;
		f->type = !i ? KPT_T_U64 : i < 7 ? KPT_T_X64 : KPT_T_USTRING;
	}
	spec->nargs = KPT_SYS_NARGS;
	memcpy(spec->sym, "x64_sys_call", sizeof("x64_sys_call"));
	if (!spec->name[0])
		memcpy(spec->name, "syscalls", sizeof("syscalls"));
}

/* An s probe's options, as kpt_parse_sys() reads them */
static int kpt_sys_nr_bit(const __u64 *bits, unsigned int nr)
{
	return !!(bits[nr / 64] & (1ULL << (nr % 64)));
}

/* " OPT=N[-M],...": the numbers of @bits as ranges, or nothing */
static int kpt_sys_nrs_print(const char *opt, const __u64 *bits, char *buf,
			     int len)
{
	unsigned int i, j;
	int n = 0, first = 1;

	for (i = 0; i < KPT_SYS_NR_BITS; i = j + 1) {
		if (!kpt_sys_nr_bit(bits, i)) {
			j = i;
			continue;
		}
		for (j = i; j + 1 < KPT_SYS_NR_BITS &&
		     kpt_sys_nr_bit(bits, j + 1); j++)
			;
		n += scnprintf(buf + n, len - n, "%s%s%u", first ? " " : ",",
			       first ? opt : "", i);
		if (j > i)
			n += scnprintf(buf + n, len - n, "-%u", j);
		first = 0;
	}
	return n;
}

int kpt_sys_print(const struct kpt_sys_spec *sys, char *buf, int len)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < sys->npid; i++)
		n += scnprintf(buf + n, len - n, "%s%u", i ? "," : " pid=",
			       sys->pid[i]);
	for (i = 0; i < sys->ntid; i++)
		n += scnprintf(buf + n, len - n, "%s%u", i ? "," : " tid=",
			       sys->tid[i]);
	if (sys->children)
		n += scnprintf(buf + n, len - n, " children=%u", sys->children);
	if (sys->exclude)
		n += scnprintf(buf + n, len - n, " exclude=%u", sys->exclude);
	if (sys->comm[0]) {
		n += scnprintf(buf + n, len - n, " comm=");
		n += kpt_print_glob(sys->comm, 0, buf + n, len - n);
	}
	if (sys->cgroup)
		n += scnprintf(buf + n, len - n, " cgroup=%llu",
			       (unsigned long long)sys->cgroup);
	if (sys->nr_given) {
		n += kpt_sys_nrs_print("nr=", sys->nr, buf + n, len - n);
		n += kpt_sys_nrs_print("nr32=", sys->nr32, buf + n, len - n);
	}
	if (sys->failure)
		n += scnprintf(buf + n, len - n, " failure");
	if (sys->duration_ns)
		n += scnprintf(buf + n, len - n, " duration=%llu",
			       (unsigned long long)sys->duration_ns);
	if (sys->stack)
		n += scnprintf(buf + n, len - n, " stack=%u", sys->stack);
	if (sys->signals)
		n += scnprintf(buf + n, len - n, " signals");
	if (sys->denied)
		n += scnprintf(buf + n, len - n, " denied");
	if (sys->summary)
		n += scnprintf(buf + n, len - n, " summary=%u", sys->summary);
	return n;
}
