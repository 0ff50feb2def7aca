// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the probe spec parser and printer, the line as a whole: the
 * cursor's helpers every clause uses, the head, the target, and the
 * clauses in their order, each parsed and printed by a file of its own
 * (spec_impl.h lists them). It compiles in the kernel (kptrace.ko) and in
 * userspace (the kptrace tool, the host unit tests and the fuzzer), so it
 * allocates nothing and uses only plain string functions.
 *
 * The grammar is ftrace's kprobe_events (Documentation/trace/kprobetrace.rst),
 * with a documented subset for conditions:
 *
 *   p[:[GRP/]NAME] TARGET [FETCHARG]... [if COND] [HIST]   entry probe
 *   r[MAXACTIVE][:[GRP/]NAME] TARGET [FETCHARG]... [if COND] [HIST]
 *                                                     return probe
 *   b[MAXACTIVE][:[GRP/]NAME] TARGET [FETCHARG]...    entry and return
 *   -:[GRP/]NAME                                      remove a probe
 *
 *   TARGET   := SYM[+OFFS] | MOD:SYM[+OFFS] | 0xADDR  (r, b: no offset)
 *
 * Each clause's grammar is above its parser: FETCHARG in spec_fetch.c,
 * COND in spec_cond.c (its GLOB in spec_glob.c), HIST in spec_hist.c.
 * The options of an s probe are in spec.h, above struct kpt_sys_spec,
 * and are parsed in spec_sys.c.
 *
 * A b probe records its fetchargs at entry, as a p probe does, and the
 * return value and latency in a return record of their own (name= and
 * address= with retprobe=1 make such probes): it takes no $retval, no
 * condition and no hist.
 *
 * Everything from " #" on is a comment, so the probes listing can be
 * replayed as it is.
 *
 * An error's column is where ftrace's error_log puts its caret for the
 * same mistake (tools/test/test_ftrace_syntax.c runs the cases of ftrace's
 * kprobe_syntax_errors.tc): the start of the wrong name, target, fetcharg,
 * $variable, @ADDR, +OFFS(...) or type. What ftrace has and kptrace has
 * not (\IMM immediates, TYPE[N] arrays, bitfields, SYM%return, more than
 * 4 nested dereferences) is refused at its start.
 */
#include "spec_impl.h"

#ifndef __KERNEL__
#include <stdarg.h>

/* The kernel's scnprintf(), for userspace (spec_impl.h) */
int kpt_scnprintf(char *buf, int len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len <= 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n >= len ? len - 1 : n;
}
#endif

/* The value of a hex digit, or -1 (also for the tool's \xHH escapes). */
int kpt_hexval(char ch)
{
	if (kpt_is_digit(ch))
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Does the word at @p (up to a space or the end) hold @ch? */
int kpt_word_has(const char *p, char ch)
{
	for (; *p && !kpt_is_space(*p); p++)
		if (*p == ch)
			return 1;
	return 0;
}

/*
 * An unsigned number, decimal or 0x hex, without reporting: 0, -EINVAL if
 * there is none or a letter follows it (c->p is then there), -ERANGE if
 * it does not fit in 64 bits.
 */
int kpt_scan_u64(struct kpt_cursor *c, __u64 *val)
{
	const char *start = c->p;
	__u64 v = 0;
	int base = 10, d;

	if (c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		base = 16;
		c->p += 2;
	}
	if (kpt_hexval(*c->p) < 0 || (base == 10 && !kpt_is_digit(*c->p))) {
		c->p = start;
		return -EINVAL;
	}
	for (;;) {
		d = kpt_hexval(*c->p);
		if (d < 0 || d >= base)
			break;
		/* v * base + d <= 2^64 - 1, the carry of + d included */
		if (v > (~(__u64)0 - d) / base)
			return -ERANGE;
		v = v * base + d;
		c->p++;
	}
	if (kpt_is_ident(*c->p, 0))
		return -EINVAL;
	*val = v;
	return 0;
}

/* An unsigned number, decimal or 0x hex. Returns 0 or -EINVAL. */
int kpt_parse_u64(struct kpt_cursor *c, __u64 *val)
{
	const char *start = c->p;
	int ret = kpt_scan_u64(c, val);

	if (ret == -ERANGE)
		return kpt_fail(c, start, "number too large");
	if (ret && c->p == start)
		return kpt_fail(c, start, "expected a number");
	if (ret)
		return kpt_fail(c, c->p, "garbage after a number");
	return 0;
}

/* A signed number: [+|-]NUMBER. */
int kpt_parse_s64(struct kpt_cursor *c, __s64 *val)
{
	const char *start = c->p;
	int neg = 0;
	__u64 v;
	int ret;

	if (*c->p == '-' || *c->p == '+')
		neg = *c->p++ == '-';
	ret = kpt_parse_u64(c, &v);
	if (ret)
		return ret;
	if (v > (__u64)1 << 63 || (!neg && v == (__u64)1 << 63))
		return kpt_fail(c, start, "number out of range");
	*val = neg ? -(__s64)(v - 1) - 1 : (__s64)v;
	return 0;
}

/* An identifier of at most @len - 1 characters into @out. */
int kpt_parse_ident(struct kpt_cursor *c, char *out, int len,
		    const char *what)
{
	const char *start = c->p;
	int n = 0;

	if (!kpt_is_ident(*c->p, 1))
		return kpt_fail(c, start, what);
	while (kpt_is_ident(*c->p, 0)) {
		if (n == len - 1)
			return kpt_fail(c, start, "name too long");
		out[n++] = *c->p++;
	}
	out[n] = '\0';
	return 0;
}

/* p[:[GRP/]NAME], r|b|s[MAXACTIVE][:[GRP/]NAME] or -:[GRP/]NAME */
static int kpt_parse_head(struct kpt_cursor *c)
{
	struct kpt_spec *spec = c->spec;
	const char *at = c->p;
	char first[KPT_SPEC_NAME_LEN];
	__u64 max;
	int ret;

	if (*c->p != 'p' && *c->p != 'r' && *c->p != 'b' && *c->p != 's' &&
	    *c->p != '-')
		return kpt_fail(c, at, "expected p, r, b, s or - at the start");
	spec->kind = *c->p++;
	if (spec->kind == KPT_SPEC_ENTRY && kpt_is_digit(*c->p))
		return kpt_fail(c, c->p, "MAXACTIVE is for r, b and s probes");
	if (spec->kind != KPT_SPEC_ENTRY && spec->kind != KPT_SPEC_DELETE &&
	    kpt_is_digit(*c->p)) {
		/* any error of the number under its first digit, as ftrace */
		at = c->p;
		if (kpt_scan_u64(c, &max) || !max ||
		    max > (spec->kind == KPT_SPEC_SYSCALLS ?
			   KPT_SYS_MAXACTIVE_MAX : KPT_MAXACTIVE_MAX))
			return kpt_fail(c, at, spec->kind == KPT_SPEC_SYSCALLS ?
					"MAXACTIVE must be 1 to 65536" :
					"MAXACTIVE must be 1 to 4096");
		spec->maxactive = (__u32)max;
	}
	if (*c->p != ':') {
		if (spec->kind == KPT_SPEC_DELETE)
			return kpt_fail(c, c->p, "expected -:[GROUP/]NAME");
		if (*c->p && !kpt_is_space(*c->p))
			return kpt_fail(c, c->p, "expected ':' or a space");
		return 0;
	}
	at = ++c->p;
	ret = kpt_parse_ident(c, first, sizeof(first), "expected a name");
	if (ret)
		return ret;
	if (*c->p == '/') {
		at = ++c->p;
		memcpy(spec->group, first, strlen(first) + 1);
		ret = kpt_parse_ident(c, spec->name, sizeof(spec->name),
				      "expected a name after the group");
		if (ret)
			return ret;
	} else {
		/* a bad name is refused at its start, as ftrace does */
		if (*c->p && !kpt_is_space(*c->p) && kpt_word_has(c->p, '/'))
			return kpt_fail(c, at,
					"the group name must be a C identifier");
		memcpy(spec->name, first, strlen(first) + 1);
	}
	if (*c->p && !kpt_is_space(*c->p))
		return kpt_fail(c, at, "the event name must be a C identifier");
	return 0;
}

static int kpt_is_sym_char(char ch)
{
	return kpt_is_ident(ch, 0) || ch == '.' || ch == '$';
}

/*
 * SYM[+OFFS], MOD:SYM[+OFFS] or 0xADDR: one word, refused under its start
 * as ftrace refuses it (but for a %SUFFIX, under the '%').
 */
static int kpt_parse_target(struct kpt_cursor *c)
{
	struct kpt_spec *spec = c->spec;
	const char *start = c->p, *colon = NULL;
	__u64 off = 0;
	int n = 0;

	if (c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		if (kpt_parse_u64(c, &spec->addr))
			return kpt_fail(c, start, spec->err_msg);
		if (!spec->addr)
			return kpt_fail(c, start, "address 0");
	} else {
		if (!kpt_is_ident(*c->p, 1) && *c->p != '.')
			return kpt_fail(c, start,
					"expected a symbol or an address");
		while (kpt_is_sym_char(*c->p) || (*c->p == ':' && !colon)) {
			if (*c->p == ':') {
				colon = c->p;
				if (n >= KPT_SPEC_MOD_LEN)
					return kpt_fail(c, start,
							"module name too long");
				memcpy(spec->mod, start, n);
				spec->mod[n] = '\0';
				n = 0;
				c->p++;
				continue;
			}
			if (n == KPT_SPEC_SYM_LEN - 1)
				return kpt_fail(c, start, "symbol too long");
			spec->sym[n++] = *c->p++;
		}
		spec->sym[n] = '\0';
		if (colon && (!spec->mod[0] || !n))
			return kpt_fail(c, start, "expected MODULE:SYMBOL");
		if (*c->p == '+') {
			c->p++;
			if (kpt_parse_u64(c, &off))
				return kpt_fail(c, start, spec->err_msg);
			if (off > 0xffffffffULL)
				return kpt_fail(c, start, "offset too large");
			spec->offset = (__u32)off;
		}
	}
	if (!strncmp(c->p, "%return", 7) && !kpt_is_ident(c->p[7], 0))
		return kpt_fail(c, c->p, "no %return suffix: use an r probe");
	if (*c->p == '%')
		return kpt_fail(c, c->p, "unexpected character after the target");
	if (*c->p && !kpt_is_space(*c->p))
		return kpt_fail(c, start,
				"expected SYM[+OFFS], MOD:SYM[+OFFS] or 0xADDR");
	return 0;
}

static void kpt_default_name(struct kpt_spec *spec)
{
	char *p;

	if (spec->sym[0])
		scnprintf(spec->name, sizeof(spec->name), "%c_%s%s%s_%u",
			  spec->kind, spec->mod, spec->mod[0] ? "_" : "",
			  spec->sym, spec->offset);
	else
		scnprintf(spec->name, sizeof(spec->name), "%c_0x%llx",
			  spec->kind, (unsigned long long)spec->addr);
	for (p = spec->name; *p; p++)
		if (!kpt_is_ident(*p, 0))
			*p = '_';
}

/**
 * kpt_spec_parse() - parse one probe spec line
 * @line: the spec, NUL-terminated; a trailing newline is fine
 * @spec: filled in; on error, err_pos and err_msg say where and why
 *
 * Returns 0, or -EINVAL for a malformed line.
 */
int kpt_spec_parse(const char *line, struct kpt_spec *spec)
{
	struct kpt_cursor c = { .line = line, .p = line, .spec = spec };
	const char *target;
	int ret;

	memset(spec, 0, sizeof(*spec));
	if (strlen(line) >= KPT_SPEC_LINE_MAX)
		return kpt_fail(&c, line, "line too long");
	kpt_skip_space(&c);
	ret = kpt_parse_head(&c);
	if (ret)
		return ret;
	if (!spec->group[0])
		memcpy(spec->group, "kptrace", sizeof("kptrace"));
	kpt_skip_space(&c);
	if (spec->kind == KPT_SPEC_DELETE) {
		if (*c.p && *c.p != '#')
			return kpt_fail(&c, c.p, "-:NAME takes nothing more");
		return 0;
	}
	if (spec->kind == KPT_SPEC_SYSCALLS) {
		kpt_sys_fetchargs(spec);
		return kpt_parse_sys(&c);
	}
	if (!*c.p || *c.p == '#')
		return kpt_fail(&c, c.p, "expected a symbol or an address");
	target = c.p;
	ret = kpt_parse_target(&c);
	if (ret)
		return ret;
	if (spec->kind != KPT_SPEC_ENTRY && spec->offset)
		return kpt_fail(&c, target, "a return probe takes no offset");
	for (;;) {
		kpt_skip_space(&c);
		if (!*c.p || *c.p == '#')
			break;
		if (spec->kind == KPT_SPEC_BOTH &&
		    (kpt_at_hist(&c) ||
		     (!strncmp(c.p, "if", 2) && kpt_is_space(c.p[2]))))
			return kpt_fail(&c, c.p,
					"a b probe takes no condition and no hist (use r)");
		if (kpt_at_hist(&c)) {
			ret = kpt_parse_hist(&c);
			if (ret)
				return ret;
			break;
		}
		if (!strncmp(c.p, "if", 2) && kpt_is_space(c.p[2])) {
			c.p += 2;
			ret = kpt_parse_cond(&c);
			if (ret)
				return ret;
			if (kpt_at_hist(&c)) {
				ret = kpt_parse_hist(&c);
				if (ret)
					return ret;
			}
			break;
		}
		ret = kpt_parse_arg(&c);
		if (ret)
			return ret;
	}
	if (!spec->name[0])
		kpt_default_name(spec);
	return 0;
}

/**
 * kpt_spec_print() - the canonical text of a parsed spec
 * @spec: parsed by kpt_spec_parse()
 * @hide: for a reader who may not see kernel addresses: the probe's
 *	address and @ADDR fetchargs print as 0 (the fields and types stay
 *	what they are; an address probe's text no longer replays, and the
 *	constants of conditions print as written)
 * @buf: where to write
 * @len: room in @buf
 *
 * The text parses back to the same spec. Returns the characters written.
 */
int kpt_spec_print(const struct kpt_spec *spec, int hide, char *buf, int len)
{
	int n;

	if (spec->kind == KPT_SPEC_DELETE)
		return scnprintf(buf, len, "-:%s/%s", spec->group, spec->name);
	if (spec->maxactive)
		n = scnprintf(buf, len, "%c%u:%s/%s ", spec->kind,
			      spec->maxactive, spec->group, spec->name);
	else
		n = scnprintf(buf, len, "%c:%s/%s ", spec->kind, spec->group,
			      spec->name);
	if (spec->kind == KPT_SPEC_SYSCALLS && n) {
		buf[--n] = '\0';	/* no target: the options follow */
		return n + kpt_sys_print(&spec->sys, buf + n, len - n);
	}
	if (spec->sym[0])
		n += scnprintf(buf + n, len - n, "%s%s%s", spec->mod,
			       spec->mod[0] ? ":" : "", spec->sym);
	else
		n += scnprintf(buf + n, len - n, "0x%llx",
			       hide ? 0ULL : (unsigned long long)spec->addr);
	if (spec->offset)
		n += scnprintf(buf + n, len - n, "+0x%x", spec->offset);
	n += kpt_args_print(spec, hide, buf + n, len - n);
	n += kpt_cond_print(spec, buf + n, len - n);
	if (spec->hist.nkeys)
		n += scnprintf(buf + n, len - n, " ");
	return n + kpt_hist_print(spec, buf + n, len - n);
}
