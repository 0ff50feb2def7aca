// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: a probe spec's fetchargs and their types, parsed and printed
 * (the line around them is spec.c's).
 *
 *   FETCHARG := [NAME=]FETCH[:TYPE]                   (NAME: 31 characters)
 *   FETCH    := %REG | $argN | $stackN | $stack | $retval | $comm
 *             | @ADDR[+|-OFFS] | +|-[u]OFFS(FETCH)    (ADDR: 0x or decimal)
 *   TYPE     := u8 | u16 | u32 | u64 | s8 | ... | s64 | x8 | ... | x64
 *             | string | ustring | str | symbol       (default x64)
 *
 * $argN counts from 1, $stackN from 0. In a return probe, $argN, $stackN,
 * $stack, $comm and dereferences of them are fetched at the entry of the
 * call; $retval at its return. Unnamed fetchargs are named arg1, arg2, ...
 * by position. @SYM is not accepted here (the kernel does not export its
 * symbol lookup): the tool turns @SYM into @0xADDR.
 *
 * A string type reads memory, as in ftrace: the string is where the last
 * +OFFS(...) or @ADDR points, or $comm. kptrace's own: a $argN holds the
 * string's address (the tool writes NAME:string for a BTF parameter as
 * $argN:string). A register, $stack, $stackN or $retval is refused.
 */
#include "spec_impl.h"

#ifdef __aarch64__
const char * const kpt_reg_names[KPT_REG_NR] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
	"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
	"x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29",
	"x30", "sp", "pc", "pstate",
};
#else
const char * const kpt_reg_names[KPT_REG_NR] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "ip", "flags",
};
#endif

const char * const kpt_type_names[KPT_T_NR] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string", "ustring", "str", "symbol",
};

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

int kpt_arg_lookup(const struct kpt_spec *spec, const char *name,
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
int kpt_parse_arg(struct kpt_cursor *c)
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

/* The fetchargs, " NAME=FETCH:TYPE" each, as kpt_parse_arg() reads them */
int kpt_args_print(const struct kpt_spec *spec, int hide, char *buf, int len)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < spec->nargs; i++) {
		n += scnprintf(buf + n, len - n, " %s=", spec->args[i].name);
		n += kpt_print_fetch(&spec->args[i], spec->args[i].nderef,
				     hide, buf + n, len - n);
		n += scnprintf(buf + n, len - n, ":%s",
			       kpt_type_names[spec->args[i].type]);
	}
	return n;
}
