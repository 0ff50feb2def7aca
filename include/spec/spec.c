// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the probe spec parser. It compiles in the kernel (kptrace.ko)
 * and in userspace (the kptrace tool, the host unit tests and the fuzzer),
 * so it allocates nothing and uses only plain string functions.
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
 *   FETCHARG := [NAME=]FETCH[:TYPE]                   (NAME: 31 characters)
 *   FETCH    := %REG | $argN | $stackN | $stack | $retval | $comm
 *             | @ADDR[+|-OFFS] | +|-[u]OFFS(FETCH)    (ADDR: 0x or decimal)
 *   TYPE     := u8 | u16 | u32 | u64 | s8 | ... | s64 | x8 | ... | x64
 *             | string | ustring | str | symbol       (default x64)
 *   COND     := TERM [&& TERM | || TERM]...           (&& binds tighter)
 *   TERM     := FIELD OP NUMBER | comm == GLOB | comm != GLOB
 *   GLOB     := bytes, * and ?; \xNN and \\ escapes   (kpt_parse_glob())
 *   FIELD    := a numeric fetcharg's NAME | retval | lat_ns | pid | tid
 *             | cpu | uid                             (retval, lat_ns: r)
 *   OP       := == | != | < | <= | > | >= | &         (& : any bit set)
 *   HIST     := hist:keys=KEY[,KEY]...[:vals=VAL[,VAL]...][:sort=S[.descending]]
 *               [:size=N][:events]        (ftrace's hist trigger words)
 *   KEY      := FIELD[.hex|.log2|.loglin|.buckets=N] | a string fetcharg
 *             | comm | stacktrace                     (at most 3)
 *   VAL      := hitcount | a numeric FIELD: its sum, min and max (4)
 *
 * A b probe records its fetchargs at entry, as a p probe does, and the
 * return value and latency in a return record of their own (name= and
 * address= with retprobe=1 make such probes): it takes no $retval, no
 * condition and no hist.
 *
 * $argN counts from 1, $stackN from 0. In a return probe, $argN, $stackN,
 * $stack, $comm and dereferences of them are fetched at the entry of the
 * call; $retval at its return. Unnamed fetchargs are named arg1, arg2, ...
 * by position. @SYM is not accepted here (the kernel does not export its
 * symbol lookup): the tool turns @SYM into @0xADDR. Everything from " #"
 * on is a comment, so the probes listing can be replayed as it is.
 *
 * A string type reads memory, as in ftrace: the string is where the last
 * +OFFS(...) or @ADDR points, or $comm. kptrace's own: a $argN holds the
 * string's address (the tool writes NAME:string for a BTF parameter as
 * $argN:string). A register, $stack, $stackN or $retval is refused.
 *
 * An error's column is where ftrace's error_log puts its caret for the
 * same mistake (tools/test/test_ftrace_syntax.c runs the cases of ftrace's
 * kprobe_syntax_errors.tc): the start of the wrong name, target, fetcharg,
 * $variable, @ADDR, +OFFS(...) or type. What ftrace has and kptrace has
 * not (\IMM immediates, TYPE[N] arrays, bitfields, SYM%return, more than
 * 4 nested dereferences) is refused at its start.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/kprobes.h>
#else
#define NOKPROBE_SYMBOL(fn)
#include <string.h>
#include <errno.h>
#include <stdio.h>
#define scnprintf kpt_scnprintf
#include <stdarg.h>
static int kpt_scnprintf(char *buf, int len, const char *fmt, ...)
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
#include <uapi/kptrace_record.h>
#include "spec.h"

const char * const kpt_reg_names[KPT_REG_NR] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "ip", "flags",
};

const char * const kpt_type_names[KPT_T_NR] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string", "ustring", "str", "symbol",
};

static const char * const kpt_field_names[] = {
	[KPT_CF_RETVAL - KPT_CF_RETVAL] = "retval",
	[KPT_CF_LAT_NS - KPT_CF_RETVAL] = "lat_ns",
	[KPT_CF_PID - KPT_CF_RETVAL] = "pid",
	[KPT_CF_TID - KPT_CF_RETVAL] = "tid",
	[KPT_CF_CPU - KPT_CF_RETVAL] = "cpu",
	[KPT_CF_UID - KPT_CF_RETVAL] = "uid",
	[KPT_CF_COMM - KPT_CF_RETVAL] = "comm",
	[KPT_CF_STACKTRACE - KPT_CF_RETVAL] = "stacktrace",
};

static const char * const kpt_hist_mod_names[] = {
	[KPT_HM_NONE] = "", [KPT_HM_HEX] = ".hex", [KPT_HM_LOG2] = ".log2",
	[KPT_HM_LOGLIN] = ".loglin", [KPT_HM_BUCKETS] = ".buckets=",
};

static const char * const kpt_op_names[] = {
	"==", "!=", "<", "<=", ">", ">=", "&",
};

#define KPT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* an argument's name: 31 characters, as ftrace's MAX_ARG_NAME_LEN */
#define KPT_ARG_NAME_LEN	32

/* Bytes of an integer type, 0 for the others. */
int kpt_type_size(unsigned int type)
{
	if (type > KPT_T_X64)
		return type == KPT_T_SYMBOL ? 8 : 0;
	return 1 << (type % 4);
}

int kpt_type_is_string(unsigned int type)
{
	return type == KPT_T_STRING || type == KPT_T_USTRING ||
	       type == KPT_T_STR;
}
NOKPROBE_SYMBOL(kpt_type_is_string);

int kpt_type_is_signed(unsigned int type)
{
	return type >= KPT_T_S8 && type <= KPT_T_S64;
}

/*
 * A comm glob is read and printed by the one rule of untrusted text
 * (kpt_byte_escaped(), uapi/kptrace_record.h), so that the probes listing
 * prints no byte raw that a terminal obeys and still parses back: \xNN is
 * any byte but NUL, \\ a backslash. Written raw, a control byte (the
 * error line must stay printable) is refused, and so is a quote where the
 * glob may be quoted (a filter's); bytes from 0x80 on (UTF-8) are taken.
 */
#define KPT_GLOB_CONTROL \
	"a comm glob cannot hold control characters (write them \\xNN)"

static int kpt_is_control(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f;
}

static int kpt_is_quote(char ch)
{
	return ch == '"' || ch == '\'';
}

/* Shell-style glob with '*' and '?', as for a comm filter. */
int kpt_glob_match(const char *glob, const char *str)
{
	const char *star = NULL, *back = NULL;

	while (*str) {
		if (*glob == '*') {
			star = ++glob;
			back = str;
		} else if (*glob == '?' || *glob == *str) {
			glob++;
			str++;
		} else if (star) {
			glob = star;
			str = ++back;
		} else {
			return 0;
		}
	}
	while (*glob == '*')
		glob++;
	return !*glob;
}
NOKPROBE_SYMBOL(kpt_glob_match);

/* The parser's cursor: the whole line, for error positions. */
struct kpt_cursor {
	const char	*line;
	const char	*p;
	struct kpt_spec	*spec;
};

static int kpt_fail(struct kpt_cursor *c, const char *at, const char *msg)
{
	c->spec->err_pos = (int)(at - c->line);
	c->spec->err_msg = msg;
	return -EINVAL;
}

static int kpt_is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static int kpt_is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int kpt_is_ident(char ch, int first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '_' || (!first && kpt_is_digit(ch));
}

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

static void kpt_skip_space(struct kpt_cursor *c)
{
	while (kpt_is_space(*c->p))
		c->p++;
}

/*
 * kpt_parse_glob() - a comm glob at the cursor, decoded into @glob
 * @start: where an error of the whole glob (too long) points
 * @quote: the quote that ends it, or 0: a space (or the end) ends it
 * @quotes_ok: whether it may hold a raw quote (not where it may be quoted)
 *
 * An empty glob is the caller's to refuse, after its closing quote.
 */
static int kpt_parse_glob(struct kpt_cursor *c, const char *start,
			  char *glob, char quote, int quotes_ok)
{
	int n = 0, hi, lo;

	while (*c->p && (quote ? *c->p != quote : !kpt_is_space(*c->p))) {
		const char *at = c->p;
		char ch = *c->p++;

		if (n == KPT_SPEC_GLOB_LEN - 1)
			return kpt_fail(c, start, "comm glob too long");
		if (ch == '\\' && *c->p == '\\') {
			c->p++;
		} else if (ch == '\\') {
			hi = *c->p == 'x' ? kpt_hexval(c->p[1]) : -1;
			lo = hi < 0 ? -1 : kpt_hexval(c->p[2]);
			if (lo < 0)
				return kpt_fail(c, at,
						"a comm glob escapes a byte as \\xNN, a backslash as \\\\");
			ch = (char)(hi << 4 | lo);
			if (!ch)
				return kpt_fail(c, at,
						"a comm glob cannot hold \\x00");
			c->p += 3;
		} else if (kpt_is_quote(ch) && !quotes_ok) {
			return kpt_fail(c, at,
					"a comm glob cannot hold quotes (write them \\xNN)");
		} else if (kpt_is_control(ch)) {
			return kpt_fail(c, at, KPT_GLOB_CONTROL);
		}
		glob[n++] = ch;
	}
	glob[n] = '\0';
	return 0;
}

/*
 * kpt_print_glob() - @glob as kpt_parse_glob() reads it back, and by the
 * one rule of untrusted text: \\ and \xNN, a quote as \xNN too, '#' (so
 * that no " #" in a glob reads as the listing's comment), and a space
 * unless @quoted (a filter's glob is printed between quotes). The tool
 * writes its -c GLOB into a spec line with it.
 */
int kpt_print_glob(const char *glob, int quoted, char *buf, int len)
{
	int n = 0;

	for (; *glob; glob++) {
		unsigned char ch = *glob;

		if (ch == '\\')
			n += scnprintf(buf + n, len - n, "\\\\");
		else if (kpt_byte_escaped(ch) || kpt_is_quote(ch) || ch == '#' ||
			 (ch == ' ' && !quoted))
			n += scnprintf(buf + n, len - n, "\\x%02x", ch);
		else
			n += scnprintf(buf + n, len - n, "%c", ch);
	}
	return n;
}

/* Does the word at @p (up to a space or the end) hold @ch? */
static int kpt_word_has(const char *p, char ch)
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
static int kpt_scan_u64(struct kpt_cursor *c, __u64 *val)
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
static int kpt_parse_u64(struct kpt_cursor *c, __u64 *val)
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
static int kpt_parse_s64(struct kpt_cursor *c, __s64 *val)
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
static int kpt_parse_ident(struct kpt_cursor *c, char *out, int len,
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
		if (kpt_scan_u64(c, &max) || !max || max > KPT_MAXACTIVE_MAX)
			return kpt_fail(c, at, "MAXACTIVE must be 1 to 4096");
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

/*
 * The part of a fetcharg before ":TYPE" or the end of the argument. An
 * error is under the start of the part that is wrong, as ftrace's: the
 * $variable, the @ADDR, the +OFFS(...). (The +|-OFFS of @ADDR+OFFS is
 * kptrace's own: its errors are under it.)
 */
static int kpt_parse_fetch(struct kpt_cursor *c, struct kpt_fetch *f,
			   int depth)
{
	const char *start = c->p, *open;
	struct kpt_deref d = { 0 };
	int neg = 0, ret;
	unsigned int i;
	__u64 v = 0;
	__s64 sv;

	switch (*c->p) {
	case '%':
		c->p++;
		for (i = 0; i < KPT_REG_NR; i++) {
			size_t len = strlen(kpt_reg_names[i]);

			if (!strncmp(c->p, kpt_reg_names[i], len) &&
			    !kpt_is_ident(c->p[len], 0)) {
				f->base = KPT_FB_REG;
				f->reg = i;
				c->p += len;
				return 0;
			}
		}
		return kpt_fail(c, start, "unknown register");
	case '$':
		if (!strncmp(c->p, "$arg", 4) && kpt_is_digit(c->p[4])) {
			c->p += 4;
			ret = kpt_scan_u64(c, &v);
			if (ret == -EINVAL)
				return kpt_fail(c, start, "unknown $variable");
			if (ret || v < 1 || v > 6)
				return kpt_fail(c, start, "$argN: N must be 1 to 6");
			f->base = KPT_FB_ARG;
			f->index = (__u32)v;
			return 0;
		}
		if (!strncmp(c->p, "$stack", 6) && kpt_is_digit(c->p[6])) {
			c->p += 6;
			ret = kpt_scan_u64(c, &v);
			if (ret == -EINVAL)
				return kpt_fail(c, start, "unknown $variable");
			if (ret || v > 1023)
				return kpt_fail(c, start, "$stackN: N too large");
			f->base = KPT_FB_STACK;
			f->index = (__u32)v;
			return 0;
		}
		if (!strncmp(c->p, "$stack", 6) && !kpt_is_ident(c->p[6], 0)) {
			c->p += 6;
			f->base = KPT_FB_STACKP;
			return 0;
		}
		if (!strncmp(c->p, "$retval", 7) && !kpt_is_ident(c->p[7], 0)) {
			if (c->spec->kind != KPT_SPEC_RETURN)
				return kpt_fail(c, start,
						"$retval is for r probes");
			c->p += 7;
			f->base = KPT_FB_RETVAL;
			return 0;
		}
		if (!strncmp(c->p, "$comm", 5) && !kpt_is_ident(c->p[5], 0)) {
			if (depth)
				return kpt_fail(c, start,
						"$comm cannot be dereferenced");
			c->p += 5;
			f->base = KPT_FB_COMM;
			return 0;
		}
		return kpt_fail(c, start, "unknown $variable");
	case '@':
		/* a symbol never starts with a digit: @11 is an address */
		if (!kpt_is_digit(c->p[1]))
			return kpt_fail(c, start,
					"@ takes an address (the tool resolves @SYMBOL)");
		c->p++;
		if (kpt_scan_u64(c, &f->imm))
			return kpt_fail(c, start, "bad address after @");
		if (*c->p == '+' || *c->p == '-') {
			const char *off = c->p;

			ret = kpt_parse_s64(c, &sv);
			if (ret)
				return ret;
			/* check_add_overflow(), check_sub_overflow(): no wrap */
			if (sv >= 0 ? f->imm > ~(__u64)0 - (__u64)sv :
				      f->imm < -(__u64)sv)
				return kpt_fail(c, off, "address out of range");
			f->imm += (__u64)sv;
		}
		f->base = KPT_FB_ADDR;
		return 0;
	case '\\':
		return kpt_fail(c, start,
				"immediate values (\\IMM) are not supported");
	case '+':
	case '-':
		if (depth >= KPT_SPEC_MAX_DEREF)
			return kpt_fail(c, start, "dereferences nested too deep");
		neg = *c->p++ == '-';
		if (*c->p == 'u') {
			if (neg)
				return kpt_fail(c, start, "expected +uOFFS(...)");
			d.user = 1;
			c->p++;
		}
		ret = kpt_scan_u64(c, &v);
		if (!ret && v > 0x7fffffff)
			ret = -ERANGE;
		if (ret == -ERANGE)
			return kpt_fail(c, start, "offset too large");
		if (ret)
			return kpt_fail(c, start, "bad dereference offset");
		d.off = neg ? -(__s32)v : (__s32)v;
		if (*c->p != '(')
			return kpt_fail(c, start, "expected '(' after the offset");
		open = ++c->p;
		ret = kpt_parse_fetch(c, f, depth + 1);
		if (ret)
			return ret;
		if (*c->p != ')') {
			/*
			 * ftrace pairs each '(' with the last ')', so the
			 * ')' missing is the innermost dereference's, at
			 * the end of its argument: before the ')'s that
			 * closed the inner ones here.
			 */
			while (c->p > open && c->p[-1] == ')')
				c->p--;
			return kpt_fail(c, c->p, "expected ')'");
		}
		c->p++;
		f->deref[f->nderef++] = d;
		return 0;
	default:
		return kpt_fail(c, start, "unknown fetch argument");
	}
}

static int kpt_parse_type(struct kpt_cursor *c, struct kpt_fetch *f)
{
	const char *start = c->p;
	unsigned int i;
	size_t len;

	for (i = 0; i < KPT_T_NR; i++) {
		len = strlen(kpt_type_names[i]);
		if (!strncmp(c->p, kpt_type_names[i], len) &&
		    !kpt_is_ident(c->p[len], 0)) {
			c->p += len;
			f->type = i;
			break;
		}
	}
	if (i == KPT_T_NR)
		return kpt_fail(c, start, "unknown type");
	if (f->base == KPT_FB_COMM && f->type != KPT_T_STRING)
		return kpt_fail(c, start, "$comm is a string");
	/*
	 * A string is read from memory: the last +OFFS(...) or @ADDR is
	 * where it is, $comm is one. kptrace's own: a $argN holds its
	 * address (what the tool writes for a BTF name). Not a register,
	 * $stack, $stackN or $retval (ftrace's BAD_STRING).
	 */
	if (kpt_type_is_string(f->type) && !f->nderef &&
	    f->base != KPT_FB_ADDR && f->base != KPT_FB_COMM &&
	    f->base != KPT_FB_ARG)
		return kpt_fail(c, start,
				"a string needs +OFFS(...), @ADDR, $argN or $comm");
	return 0;
}

static int kpt_arg_lookup(const struct kpt_spec *spec, const char *name,
			  size_t len)
{
	unsigned int i;

	for (i = 0; i < spec->nargs; i++)
		if (strlen(spec->args[i].name) == len &&
		    !strncmp(spec->args[i].name, name, len))
			return (int)i;
	return -1;
}

/* [NAME=]FETCH[:TYPE] */
static int kpt_parse_arg(struct kpt_cursor *c)
{
	struct kpt_spec *spec = c->spec;
	struct kpt_fetch *f;
	const char *start = c->p, *q;
	int ret;

	if (spec->nargs == KPT_SPEC_MAX_ARGS)
		return kpt_fail(c, start, "too many fetch arguments (16)");
	f = &spec->args[spec->nargs];
	memset(f, 0, sizeof(*f));
	f->type = KPT_T_X64;

	for (q = c->p; kpt_is_ident(*q, q == c->p); q++)
		;
	if (*q == '=' && q != c->p) {
		ret = kpt_parse_ident(c, f->name, KPT_ARG_NAME_LEN,
				      "expected an argument name");
		if (ret)
			return ret;
		c->p++;		/* '=' */
	} else if (kpt_word_has(c->p, '=')) {
		/* no fetch holds a '=': NAME=FETCH, with a bad NAME */
		return kpt_fail(c, start, *c->p == '=' ?
				"expected an argument name before '='" :
				"the argument name must be a C identifier");
	} else {
		scnprintf(f->name, sizeof(f->name), "arg%u", spec->nargs + 1);
	}
	if (kpt_arg_lookup(spec, f->name, strlen(f->name)) >= 0)
		return kpt_fail(c, start, "duplicate argument name");
	{
		unsigned int i;

		for (i = 0; i < KPT_ARRAY_SIZE(kpt_field_names); i++)
			if (!strcmp(f->name, kpt_field_names[i]))
				return kpt_fail(c, start,
						"argument name is reserved");
	}

	ret = kpt_parse_fetch(c, f, 0);
	if (ret)
		return ret;
	if (f->base == KPT_FB_COMM)
		f->type = KPT_T_STRING;
	if (*c->p == ':') {
		c->p++;
		ret = kpt_parse_type(c, f);
		if (ret)
			return ret;
	}
	if (*c->p == '[')
		return kpt_fail(c, c->p,
				"array types (TYPE[N]) are not supported");
	if (*c->p && !kpt_is_space(*c->p))
		return kpt_fail(c, c->p, "unexpected character in the argument");
	spec->nargs++;
	return 0;
}

/* A field of a condition or a hist: a fetcharg's name or a field name. */
static int kpt_parse_field(struct kpt_cursor *c, __u16 *field)
{
	const struct kpt_spec *spec = c->spec;
	const char *name = c->p;
	unsigned int i;
	size_t len;
	int idx;

	while (kpt_is_ident(*c->p, c->p == name))
		c->p++;
	len = (size_t)(c->p - name);
	if (!len)
		return kpt_fail(c, name, "expected a field name");
	idx = kpt_arg_lookup(spec, name, len);
	if (idx >= 0) {
		*field = (__u16)idx;
		return 0;
	}
	for (i = 0; i < KPT_ARRAY_SIZE(kpt_field_names); i++)
		if (strlen(kpt_field_names[i]) == len &&
		    !strncmp(kpt_field_names[i], name, len))
			break;
	if (i == KPT_ARRAY_SIZE(kpt_field_names))
		return kpt_fail(c, name, "unknown field");
	*field = (__u16)(KPT_CF_RETVAL + i);
	if ((*field == KPT_CF_RETVAL || *field == KPT_CF_LAT_NS) &&
	    spec->kind != KPT_SPEC_RETURN)
		return kpt_fail(c, name,
				"retval and lat_ns are for return probes");
	return 0;
}

/**
 * kpt_spec_field_name() - the name of a field of a condition or a hist
 * @spec: the spec it belongs to
 * @field: a fetcharg index or an enum kpt_cond_field
 */
const char *kpt_spec_field_name(const struct kpt_spec *spec,
				unsigned int field)
{
	if (field < KPT_CF_RETVAL)
		return spec->args[field].name;
	return kpt_field_names[field - KPT_CF_RETVAL];
}

static int kpt_parse_term(struct kpt_cursor *c, struct kpt_cond *t)
{
	struct kpt_spec *spec = c->spec;
	const char *start = c->p;
	unsigned int i;
	size_t len;
	int ret;

	ret = kpt_parse_field(c, &t->field);
	if (ret)
		return ret;
	if (t->field < KPT_CF_RETVAL &&
	    kpt_type_is_string(spec->args[t->field].type))
		return kpt_fail(c, start,
				"only numbers and comm can be compared");
	if (t->field == KPT_CF_STACKTRACE)
		return kpt_fail(c, start, "stacktrace is a hist key only");
	kpt_skip_space(c);

	start = c->p;
	for (i = 0; i < KPT_ARRAY_SIZE(kpt_op_names); i++) {
		len = strlen(kpt_op_names[i]);
		/* "<" must not match "<=": longer operators come first */
		if (i == KPT_OP_LT || i == KPT_OP_GT) {
			if (!strncmp(c->p, kpt_op_names[i + 1], 2))
				continue;
		}
		if (!strncmp(c->p, kpt_op_names[i], len)) {
			if (i == KPT_OP_AND && c->p[1] == '&')
				continue;
			t->op = (__u8)i;
			c->p += len;
			break;
		}
	}
	if (i == KPT_ARRAY_SIZE(kpt_op_names))
		return kpt_fail(c, start, "expected ==, !=, <, <=, >, >= or &");
	kpt_skip_space(c);

	start = c->p;
	if (t->field == KPT_CF_COMM) {
		char quote = 0;

		if (t->op != KPT_OP_EQ && t->op != KPT_OP_NE)
			return kpt_fail(c, start, "comm takes == or !=");
		if (kpt_is_quote(*c->p))
			quote = *c->p++;
		ret = kpt_parse_glob(c, start, t->glob, quote, 0);
		if (ret)
			return ret;
		if (quote && *c->p++ != quote)
			return kpt_fail(c, start, "unterminated string");
		if (!t->glob[0])
			return kpt_fail(c, start, "expected a comm glob");
		return 0;
	}
	ret = kpt_parse_s64(c, &t->value);
	if (ret)
		return ret;
	return 0;
}

static int kpt_at_hist(const struct kpt_cursor *c)
{
	return !strncmp(c->p, "hist:", 5);
}

static int kpt_parse_cond(struct kpt_cursor *c)
{
	struct kpt_spec *spec = c->spec;
	struct kpt_cond *t;
	int ret;

	for (;;) {
		kpt_skip_space(c);
		if (spec->ncond == KPT_SPEC_MAX_COND)
			return kpt_fail(c, c->p, "too many condition terms (8)");
		t = &spec->cond[spec->ncond];
		memset(t, 0, sizeof(*t));
		if (spec->ncond) {
			if (strncmp(c->p, "&&", 2) && strncmp(c->p, "||", 2))
				return kpt_fail(c, c->p, "expected && or ||");
			t->or = c->p[0] == '|';
			c->p += 2;
			kpt_skip_space(c);
		}
		ret = kpt_parse_term(c, t);
		if (ret)
			return ret;
		spec->ncond++;
		kpt_skip_space(c);
		if (!*c->p || *c->p == '#' || kpt_at_hist(c))
			return 0;
	}
}

/* Does the field hold a number (not a string, comm or a stack)? */
int kpt_field_numeric(const struct kpt_spec *spec, unsigned int field)
{
	if (field < KPT_CF_RETVAL)
		return !kpt_type_is_string(spec->args[field].type);
	return field != KPT_CF_COMM && field != KPT_CF_STACKTRACE;
}

/* $retval is a long; an argument is as its type says */
int kpt_field_signed(const struct kpt_spec *spec, unsigned int field)
{
	return field == KPT_CF_RETVAL ||
	       (field < KPT_CF_RETVAL &&
		kpt_type_is_signed(spec->args[field].type));
}

static int kpt_hist_field_end(char ch)
{
	return !ch || ch == ',' || ch == ':' || kpt_is_space(ch) || ch == '#';
}

/* KEY := FIELD[.hex|.log2|.loglin|.buckets=N], VAL := FIELD (a number) */
static int kpt_parse_hist_field(struct kpt_cursor *c,
				struct kpt_hist_field *hf, int key)
{
	const char *start = c->p, *mod;
	unsigned int i;
	__u64 n;
	int ret;

	memset(hf, 0, sizeof(*hf));
	ret = kpt_parse_field(c, &hf->field);
	if (ret)
		return ret;
	hf->is_signed = kpt_field_signed(c->spec, hf->field);
	if (!key && !kpt_field_numeric(c->spec, hf->field))
		return kpt_fail(c, start, "a value must be a number");
	if (*c->p == '.') {
		mod = c->p;
		for (i = KPT_HM_HEX; i <= KPT_HM_BUCKETS; i++)
			if (!strncmp(c->p, kpt_hist_mod_names[i],
				     strlen(kpt_hist_mod_names[i])))
				break;
		if (!key)
			return kpt_fail(c, mod, "a value takes no modifier");
		if (i > KPT_HM_BUCKETS)
			return kpt_fail(c, mod,
					"expected .hex, .log2, .loglin or .buckets=N");
		if (!kpt_field_numeric(c->spec, hf->field))
			return kpt_fail(c, mod, "only a number takes a modifier");
		c->p += strlen(kpt_hist_mod_names[i]);
		hf->mod = (__u8)i;
		if (i == KPT_HM_BUCKETS) {
			ret = kpt_parse_u64(c, &n);
			if (ret)
				return ret;
			if (!n || n > 0xffffffffULL)
				return kpt_fail(c, mod,
						"the bucket size must be 1 to 4294967295");
			hf->buckets = (__u32)n;
		}
	}
	if (!kpt_hist_field_end(*c->p))
		return kpt_fail(c, c->p, "unexpected character in a hist field");
	return 0;
}

static int kpt_hist_word(struct kpt_cursor *c, const char *word)
{
	size_t len = strlen(word);

	if (strncmp(c->p, word, len))
		return 0;
	c->p += len;
	return 1;
}

/* @word as a whole field name: not "hitcount" of "hitcounts" */
static int kpt_hist_name(struct kpt_cursor *c, const char *word)
{
	size_t len = strlen(word);

	if (strncmp(c->p, word, len) || kpt_is_ident(c->p[len], 0))
		return 0;
	c->p += len;
	return 1;
}

/* sort=hitcount|KEY|VAL[.descending|.ascending], of those given before */
static int kpt_parse_hist_sort(struct kpt_cursor *c)
{
	struct kpt_hist_spec *h = &c->spec->hist;
	const char *start = c->p;
	unsigned int i;
	__u16 field;
	int ret;

	if (!h->nkeys)
		return kpt_fail(c, start, "sort= comes after keys=");
	if (kpt_hist_name(c, "hitcount")) {
		h->sort = KPT_HIST_SORT_HITCOUNT;
	} else {
		ret = kpt_parse_field(c, &field);
		if (ret)
			return ret;
		for (i = 0; i < h->nkeys; i++)
			if (h->keys[i].field == field)
				break;
		if (i < h->nkeys) {
			h->sort = (__u8)(KPT_HIST_SORT_KEY + i);
		} else {
			for (i = 0; i < h->nvals; i++)
				if (h->vals[i].field == field)
					break;
			if (i == h->nvals)
				return kpt_fail(c, start,
						"sort= takes hitcount or a key or value given before it");
			h->sort = (__u8)(KPT_HIST_SORT_VAL + i);
		}
	}
	if (kpt_hist_word(c, ".descending"))
		h->descending = 1;
	else
		kpt_hist_word(c, ".ascending");
	if (!kpt_hist_field_end(*c->p) || *c->p == ',')
		return kpt_fail(c, c->p, "sort= takes one field");
	return 0;
}

/* hist:keys=KEY[,KEY]...[:vals=VAL[,VAL]...][:sort=S][:size=N][:events] */
static int kpt_parse_hist(struct kpt_cursor *c)
{
	struct kpt_hist_spec *h = &c->spec->hist;
	const char *hist = c->p, *start;
	unsigned int k;
	__u64 n;
	int ret;

	c->p += 5;	/* hist: */
	h->size = KPT_HIST_SIZE_DEF;
	for (;;) {
		start = c->p;
		if (kpt_hist_word(c, "keys=") || kpt_hist_word(c, "key=")) {
			if (h->nkeys)
				return kpt_fail(c, start, "keys= given twice");
			do {
				if (h->nkeys == KPT_HIST_MAX_KEYS)
					return kpt_fail(c, c->p,
							"too many keys (3)");
				start = c->p;
				ret = kpt_parse_hist_field(c,
							   &h->keys[h->nkeys],
							   1);
				if (ret)
					return ret;
				/* each once: the key's words are bounded */
				for (k = 0; k < h->nkeys; k++)
					if (h->keys[k].field ==
					    h->keys[h->nkeys].field)
						return kpt_fail(c, start,
								"a key given twice");
				h->nkeys++;
			} while (*c->p == ',' && c->p++);
		} else if (kpt_hist_word(c, "vals=") ||
			   kpt_hist_word(c, "values=")) {
			if (h->nvals)
				return kpt_fail(c, start, "vals= given twice");
			if (!h->nkeys)
				return kpt_fail(c, start,
						"vals= comes after keys=");
			do {
				if (kpt_hist_name(c, "hitcount"))
					continue;	/* always there */
				if (h->nvals == KPT_HIST_MAX_VALS)
					return kpt_fail(c, c->p,
							"too many values (4 and hitcount)");
				ret = kpt_parse_hist_field(c,
							   &h->vals[h->nvals],
							   0);
				if (ret)
					return ret;
				h->nvals++;
			} while (*c->p == ',' && c->p++);
		} else if (kpt_hist_word(c, "sort=")) {
			ret = kpt_parse_hist_sort(c);
			if (ret)
				return ret;
		} else if (kpt_hist_word(c, "size=")) {
			ret = kpt_parse_u64(c, &n);
			if (ret)
				return ret;
			if (!n || n > KPT_HIST_SIZE_MAX)
				return kpt_fail(c, start,
						"size= must be 1 to 131072 entries");
			h->size = (__u32)n;
			h->size_given = 1;
		} else if (kpt_hist_word(c, "events")) {
			h->events = 1;
		} else {
			return kpt_fail(c, start,
					"expected keys=, vals=, sort=, size= or events");
		}
		if (*c->p != ':')
			break;
		c->p++;
	}
	if (!h->nkeys)
		return kpt_fail(c, hist, "hist: needs keys=");
	kpt_skip_space(c);
	if (*c->p && *c->p != '#')
		return kpt_fail(c, c->p, "hist: must end the spec");
	return 0;
}

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

/* nr=N[-M][,N[-M]...]: x86-64 syscall numbers */
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
	KPT_SO_EXCLUDE, KPT_SO_STACK, KPT_SO_NR_OPTS
};

/* ending in '=': takes a value; else a flag (summary: either) */
static const char * const kpt_sys_opts[KPT_SO_NR_OPTS] = {
	[KPT_SO_PID] = "pid=", [KPT_SO_TID] = "tid=",
	[KPT_SO_CHILDREN] = "children=", [KPT_SO_COMM] = "comm=",
	[KPT_SO_CGROUP] = "cgroup=", [KPT_SO_NR] = "nr=",
	[KPT_SO_FAILURE] = "failure", [KPT_SO_DURATION] = "duration=",
	[KPT_SO_SUMMARY] = "summary", [KPT_SO_EXCLUDE] = "exclude=",
	[KPT_SO_STACK] = "stack=",
};

/* The options of an s probe, after its head (struct kpt_sys_spec) */
static int kpt_parse_sys(struct kpt_cursor *c)
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
					"expected pid=, tid=, children=, exclude=, comm=, cgroup=, nr=, failure, duration=, stack= or summary");
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
	}
	return 0;
}

/* The fixed fetchargs of an s probe: what its records' args[] hold */
static void kpt_sys_fetchargs(struct kpt_spec *spec)
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

static int kpt_print_fetch(const struct kpt_fetch *f, int level, int hide,
			   char *buf, int len)
{
	const struct kpt_deref *d;
	int n = 0;

	if (level > 0) {
		d = &f->deref[level - 1];
		if (d->user)
			n += scnprintf(buf, len, "+u%d(", d->off);
		else
			n += scnprintf(buf, len, "%+d(", d->off);
		n += kpt_print_fetch(f, level - 1, hide, buf + n, len - n);
		return n + scnprintf(buf + n, len - n, ")");
	}
	switch (f->base) {
	case KPT_FB_REG:
		return scnprintf(buf, len, "%%%s", kpt_reg_names[f->reg]);
	case KPT_FB_ARG:
		return scnprintf(buf, len, "$arg%u", f->index);
	case KPT_FB_STACK:
		return scnprintf(buf, len, "$stack%u", f->index);
	case KPT_FB_STACKP:
		return scnprintf(buf, len, "$stack");
	case KPT_FB_RETVAL:
		return scnprintf(buf, len, "$retval");
	case KPT_FB_COMM:
		return scnprintf(buf, len, "$comm");
	default:
		return scnprintf(buf, len, "@0x%llx",
				 hide ? 0ULL : (unsigned long long)f->imm);
	}
}

/* An s probe's options, as kpt_parse_sys() reads them */
static int kpt_sys_nr_bit(const struct kpt_sys_spec *sys, unsigned int nr)
{
	return !!(sys->nr[nr / 64] & (1ULL << (nr % 64)));
}

static int kpt_sys_print(const struct kpt_sys_spec *sys, char *buf, int len)
{
	unsigned int i, j;
	int n = 0, first = 1;

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
	for (i = 0; sys->nr_given && i < KPT_SYS_NR_BITS; i = j + 1) {
		if (!kpt_sys_nr_bit(sys, i)) {
			j = i;
			continue;
		}
		for (j = i; j + 1 < KPT_SYS_NR_BITS &&
		     kpt_sys_nr_bit(sys, j + 1); j++)
			;
		n += scnprintf(buf + n, len - n, "%s%u", first ? " nr=" : ",",
			       i);
		if (j > i)
			n += scnprintf(buf + n, len - n, "-%u", j);
		first = 0;
	}
	if (sys->failure)
		n += scnprintf(buf + n, len - n, " failure");
	if (sys->duration_ns)
		n += scnprintf(buf + n, len - n, " duration=%llu",
			       (unsigned long long)sys->duration_ns);
	if (sys->stack)
		n += scnprintf(buf + n, len - n, " stack=%u", sys->stack);
	if (sys->summary)
		n += scnprintf(buf + n, len - n, " summary=%u", sys->summary);
	return n;
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
	const struct kpt_cond *t;
	unsigned int i;
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
	for (i = 0; i < spec->nargs; i++) {
		n += scnprintf(buf + n, len - n, " %s=", spec->args[i].name);
		n += kpt_print_fetch(&spec->args[i], spec->args[i].nderef,
				     hide, buf + n, len - n);
		n += scnprintf(buf + n, len - n, ":%s",
			       kpt_type_names[spec->args[i].type]);
	}
	for (i = 0; i < spec->ncond; i++) {
		t = &spec->cond[i];
		n += scnprintf(buf + n, len - n, "%s",
			       !i ? " if " : t->or ? " || " : " && ");
		if (t->field < KPT_CF_RETVAL)
			n += scnprintf(buf + n, len - n, "%s",
				       spec->args[t->field].name);
		else
			n += scnprintf(buf + n, len - n, "%s",
				       kpt_field_names[t->field -
						       KPT_CF_RETVAL]);
		n += scnprintf(buf + n, len - n, " %s ", kpt_op_names[t->op]);
		if (t->field == KPT_CF_COMM) {
			n += scnprintf(buf + n, len - n, "\"");
			n += kpt_print_glob(t->glob, 1, buf + n, len - n);
			n += scnprintf(buf + n, len - n, "\"");
		} else {
			n += scnprintf(buf + n, len - n, "%lld",
				       (long long)t->value);
		}
	}
	if (spec->hist.nkeys)
		n += scnprintf(buf + n, len - n, " ");
	return n + kpt_hist_print(spec, buf + n, len - n);
}

static int kpt_print_hist_field(const struct kpt_spec *spec,
				const struct kpt_hist_field *hf, char *buf,
				int len)
{
	int n = scnprintf(buf, len, "%s%s",
			  kpt_spec_field_name(spec, hf->field),
			  kpt_hist_mod_names[hf->mod]);

	if (hf->mod == KPT_HM_BUCKETS)
		n += scnprintf(buf + n, len - n, "%u", hf->buckets);
	return n;
}

/**
 * kpt_hist_print() - the canonical text of a spec's hist: part
 * @spec: parsed by kpt_spec_parse()
 * @buf: where to write
 * @len: room in @buf
 *
 * Every part spelled out, as ftrace's "trigger info" line. Nothing when
 * the spec has no hist. Returns the characters written.
 */
int kpt_hist_print(const struct kpt_spec *spec, char *buf, int len)
{
	const struct kpt_hist_spec *h = &spec->hist;
	const char *name;
	unsigned int i;
	int n;

	if (!h->nkeys)
		return 0;
	n = scnprintf(buf, len, "hist:keys=");
	for (i = 0; i < h->nkeys; i++) {
		if (i)
			n += scnprintf(buf + n, len - n, ",");
		n += kpt_print_hist_field(spec, &h->keys[i], buf + n, len - n);
	}
	n += scnprintf(buf + n, len - n, ":vals=hitcount");
	for (i = 0; i < h->nvals; i++) {
		n += scnprintf(buf + n, len - n, ",");
		n += kpt_print_hist_field(spec, &h->vals[i], buf + n, len - n);
	}
	if (h->sort == KPT_HIST_SORT_HITCOUNT)
		name = "hitcount";
	else if (h->sort < KPT_HIST_SORT_VAL)
		name = kpt_spec_field_name(spec,
					   h->keys[h->sort - KPT_HIST_SORT_KEY].field);
	else
		name = kpt_spec_field_name(spec,
					   h->vals[h->sort - KPT_HIST_SORT_VAL].field);
	n += scnprintf(buf + n, len - n, ":sort=%s", name);
	n += scnprintf(buf + n, len - n, "%s:size=%u%s",
		       h->descending ? ".descending" : "", h->size,
		       h->events ? ":events" : "");
	return n;
}
