// SPDX-License-Identifier: GPL-2.0
/*
 * test_spec: unit tests of the spec parser (include/spec/, built here
 * under AddressSanitizer and UBSan) and of the tool's translation of specs
 * (resolve.c with kbtf.c: BTF names, @SYM).
 *
 *	test_spec BTF_DIR KALLSYMS
 *
 * Every syntax element of the grammar parses to the expected fields; every
 * error is refused with its message at its exact column; every valid spec
 * survives parse -> print -> parse unchanged. Prints "ok N" / "not ok N"
 * lines, then "N passed, N failed"; exit status 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbtf.h"
#include "resolve.h"
#include "spec.h"
#include "ktap.h"

static struct kpt_spec spec, spec2;

static int fetch_equal(const struct kpt_fetch *a, const struct kpt_fetch *b)
{
	unsigned int i;

	if (strcmp(a->name, b->name) || a->base != b->base ||
	    a->type != b->type || a->nderef != b->nderef ||
	    (a->base == KPT_FB_REG && a->reg != b->reg) ||
	    a->index != b->index || a->imm != b->imm)
		return 0;
	for (i = 0; i < a->nderef; i++)
		if (a->deref[i].off != b->deref[i].off ||
		    a->deref[i].user != b->deref[i].user)
			return 0;
	return 1;
}

/*
 * Field by field: the parser copies whole name buffers, so the bytes after
 * a name's NUL may differ (see the report on spec.c).
 */
static int spec_equal(const struct kpt_spec *a, const struct kpt_spec *b)
{
	struct kpt_hist_spec ha, hb;
	unsigned int i;

	if (a->kind != b->kind || strcmp(a->group, b->group) ||
	    strcmp(a->name, b->name) || strcmp(a->mod, b->mod) ||
	    strcmp(a->sym, b->sym) || a->addr != b->addr ||
	    a->offset != b->offset || a->maxactive != b->maxactive ||
	    a->nargs != b->nargs || a->ncond != b->ncond)
		return 0;
	for (i = 0; i < a->nargs; i++)
		if (!fetch_equal(&a->args[i], &b->args[i]))
			return 0;
	/* an s line's selection, its decoded comm glob included */
	if (memcmp(&a->sys, &b->sys, sizeof(a->sys)))
		return 0;
	for (i = 0; i < a->ncond; i++)
		if (a->cond[i].field != b->cond[i].field ||
		    a->cond[i].op != b->cond[i].op ||
		    a->cond[i].or != b->cond[i].or ||
		    a->cond[i].value != b->cond[i].value ||
		    strcmp(a->cond[i].glob, b->cond[i].glob))
			return 0;
	/*
	 * struct kpt_hist_spec has no holes: its pad bytes are zeroed. But
	 * size_given says how it was written, not what it is: the printed
	 * spec always has size=, so the spec parsed again has it given.
	 */
	ha = a->hist;
	hb = b->hist;
	ha.size_given = 0;
	hb.size_given = 0;
	return !memcmp(&ha, &hb, sizeof(ha));
}

/* parse -> print -> parse -> print: the same spec and the same text */
static int round_trip(const char *line, char *out, size_t len)
{
	char again[KPT_SPEC_LINE_MAX];

	if (kpt_spec_parse(line, &spec))
		return 0;
	kpt_spec_print(&spec, 0, out, len);
	if (kpt_spec_parse(out, &spec2))
		return 0;
	kpt_spec_print(&spec2, 0, again, sizeof(again));
	return !strcmp(out, again) && spec_equal(&spec, &spec2);
}

/* five escaped bytes of a comm glob; the message of a bad escape */
#define C3x5		"\\xc3\\xc3\\xc3\\xc3\\xc3"
#define GLOB_ESC	"a comm glob escapes a byte as \\xNN, a backslash as \\\\"
#define GLOB_CTL	"a comm glob cannot hold control characters (write them \\xNN)"

/* @line parses, prints back as @canon, and survives the round trip. */
static void good(const char *line, const char *canon)
{
	char out[KPT_SPEC_LINE_MAX], name[128];
	int ret = kpt_spec_parse(line, &spec);

	snprintf(name, sizeof(name), "parse: %s", line);
	if (ret) {
		result(0, name, "refused at %d: %s", spec.err_pos,
		       spec.err_msg);
		return;
	}
	kpt_spec_print(&spec, 0, out, sizeof(out));
	if (strcmp(out, canon)) {
		result(0, name, "printed '%s', expected '%s'", out, canon);
		return;
	}
	result(round_trip(line, out, sizeof(out)), name,
	       "round trip changed it: '%s'", out);
}

/* @line is refused with @msg at column @pos. */
static void bad(const char *line, int pos, const char *msg)
{
	char name[160];
	int ret = kpt_spec_parse(line, &spec);

	snprintf(name, sizeof(name), "error: %s", line);
	if (!ret) {
		result(0, name, "accepted");
		return;
	}
	result(spec.err_pos == pos && !strcmp(spec.err_msg, msg), name,
	       "at %d: '%s', expected at %d: '%s'", spec.err_pos,
	       spec.err_msg, pos, msg);
}

static void check(int ok, const char *name)
{
	result(ok, name, "wrong fields");
}

static void check_fields(void)
{
	const struct kpt_fetch *f;

	kpt_spec_parse("r16:grp/ev mod:sym a=+8(-16(+u4($arg2))):s16 $comm", &spec);
	f = &spec.args[0];
	check(spec.kind == 'r' && spec.maxactive == 16 &&
	      !strcmp(spec.group, "grp") && !strcmp(spec.name, "ev") &&
	      !strcmp(spec.mod, "mod") && !strcmp(spec.sym, "sym") &&
	      spec.nargs == 2 && f->base == KPT_FB_ARG && f->index == 2 &&
	      f->nderef == 3 && f->deref[0].off == 4 && f->deref[0].user &&
	      f->deref[1].off == -16 && !f->deref[1].user &&
	      f->deref[2].off == 8 && f->type == KPT_T_S16 &&
	      spec.args[1].base == KPT_FB_COMM &&
	      spec.args[1].type == KPT_T_STRING &&
	      !strcmp(spec.args[1].name, "arg2"),
	      "fields: derefs innermost first, user flag, $comm a string");

	kpt_spec_parse("p 0xffffffff81000000 @0xffffffff82000000-8 %r15:x8", &spec);
	check(!spec.sym[0] && spec.addr == 0xffffffff81000000ULL &&
	      spec.args[0].base == KPT_FB_ADDR &&
	      spec.args[0].imm == 0xffffffff81fffff8ULL &&
	      spec.args[1].reg == KPT_REG_R15 &&
	      !strcmp(spec.name, "p_0xffffffff81000000"),
	      "fields: address target, @ADDR-OFFS, default name");

	kpt_spec_parse("r f a=$arg1 b=$retval if a == -1 && b < 0 || pid != 7 && comm == 'ba*'",
		       &spec);
	check(spec.ncond == 4 && spec.cond[0].field == 0 &&
	      spec.cond[0].value == -1 && spec.cond[0].op == KPT_OP_EQ &&
	      !spec.cond[1].or && spec.cond[1].field == 1 &&
	      spec.cond[1].op == KPT_OP_LT && spec.cond[2].or &&
	      spec.cond[2].field == KPT_CF_PID &&
	      spec.cond[2].op == KPT_OP_NE && !spec.cond[3].or &&
	      spec.cond[3].field == KPT_CF_COMM &&
	      !strcmp(spec.cond[3].glob, "ba*"),
	      "fields: condition terms, && and ||, comm glob");
	check(!kpt_spec_parse("s comm=a\\x20\\\\\\xc3\xc3\"*", &spec) &&
	      !strcmp(spec.sys.comm, "a \\\xc3\xc3\"*") &&
	      !kpt_spec_parse("p f if comm == '\\x1b?\\x27'", &spec) &&
	      !strcmp(spec.cond[0].glob, "\x1b?'"),
	      "fields: comm globs decoded (\\xNN, \\\\, raw bytes from 0x80)");

	kpt_spec_parse("p m:f.isra.0+0x10", &spec);
	check(spec.offset == 16 && !strcmp(spec.sym, "f.isra.0") &&
	      !strcmp(spec.name, "p_m_f_isra_0_16"),
	      "fields: MOD:SYM+OFFS, '.' in names and default name");

	check(kpt_glob_match("ba*", "bash") && kpt_glob_match("?at", "cat") &&
	      kpt_glob_match("*", "") && !kpt_glob_match("ba?", "bash") &&
	      kpt_glob_match("a*b*c", "axxbyyc") && !kpt_glob_match("a*b", "ac"),
	      "kpt_glob_match: * and ?");
	check(kpt_type_size(KPT_T_U8) == 1 && kpt_type_size(KPT_T_S32) == 4 &&
	      kpt_type_size(KPT_T_X64) == 8 &&
	      kpt_type_size(KPT_T_SYMBOL) == 8 &&
	      !kpt_type_size(KPT_T_STRING) &&
	      kpt_type_is_string(KPT_T_STR) &&
	      !kpt_type_is_string(KPT_T_SYMBOL),
	      "kpt_type_size, kpt_type_is_string");
}

static void grammar(void)
{
	char line[KPT_SPEC_LINE_MAX];
	int i, n;

	/* heads */
	good("p f", "p:kptrace/p_f_0 f");
	good("p:ev f", "p:kptrace/ev f");
	good("p:grp/ev f", "p:grp/ev f");
	good("r f", "r:kptrace/r_f_0 f");
	good("r1:ev f", "r1:kptrace/ev f");
	good("r4096 f", "r4096:kptrace/r_f_0 f");
	/* b: an entry record and a return record (name= with retprobe=1) */
	good("b f $arg1", "b:kptrace/b_f_0 f arg1=$arg1:x64");
	good("b16:ev f s=+0($arg2):string", "b16:kptrace/ev f s=+0($arg2):string");
	good("-:ev", "-:kptrace/ev");
	good("-:grp/ev", "-:grp/ev");
	good("  p:ev f  # a comment", "p:kptrace/ev f");
	good("\tp\tf\t$arg1\n", "p:kptrace/p_f_0 f arg1=$arg1:x64");
	/* targets */
	good("p f+0x10", "p:kptrace/p_f_16 f+0x10");
	good("p f+16", "p:kptrace/p_f_16 f+0x10");
	good("p mod:f", "p:kptrace/p_mod_f_0 mod:f");
	good("p mod:f+4", "p:kptrace/p_mod_f_4 mod:f+0x4");
	good("p 0xffffffffc0001000", "p:kptrace/p_0xffffffffc0001000 0xffffffffc0001000");
	good("p .text.x", "p:kptrace/p__text_x_0 .text.x");
	good("p f$x", "p:kptrace/p_f_x_0 f$x");
	/* registers */
	for (i = 0; i < KPT_REG_NR; i++) {
		char canon[128];

		snprintf(line, sizeof(line), "p:e f %%%s", kpt_reg_names[i]);
		snprintf(canon, sizeof(canon), "p:kptrace/e f arg1=%%%s:x64",
			 kpt_reg_names[i]);
		good(line, canon);
	}
	/* variables */
	good("p:e f $arg1 $arg6", "p:kptrace/e f arg1=$arg1:x64 arg2=$arg6:x64");
	good("p:e f $stack0 $stack1023 $stack",
	     "p:kptrace/e f arg1=$stack0:x64 arg2=$stack1023:x64 arg3=$stack:x64");
	good("r:e f $retval", "r:kptrace/e f arg1=$retval:x64");
	good("p:e f $comm", "p:kptrace/e f arg1=$comm:string");
	good("p:e f c=$comm:string", "p:kptrace/e f c=$comm:string");
	good("p:e f @0xffffffff81000000", "p:kptrace/e f arg1=@0xffffffff81000000:x64");
	good("p:e f @0x1000+16 @0x1000-16",
	     "p:kptrace/e f arg1=@0x1010:x64 arg2=@0xff0:x64");
	/* the ends of the address space, reached but not passed */
	good("p:e f @0xfffffffffffffffe+1 @0x10-16 @0x8000000000000000-9223372036854775808",
	     "p:kptrace/e f arg1=@0xffffffffffffffff:x64 arg2=@0x0:x64 arg3=@0x0:x64");
	/* dereferences */
	good("p:e f +0(%di)", "p:kptrace/e f arg1=+0(%di):x64");
	good("p:e f -8(%si)", "p:kptrace/e f arg1=-8(%si):x64");
	good("p:e f +u8(%di):ustring", "p:kptrace/e f arg1=+u8(%di):ustring");
	good("p:e f +1(+2(+3(+4($arg1))))",
	     "p:kptrace/e f arg1=+1(+2(+3(+4($arg1)))):x64");
	good("p:e f +0x10(@0x1000)", "p:kptrace/e f arg1=+16(@0x1000):x64");
	good("r:e f +8($retval):u32", "r:kptrace/e f arg1=+8($retval):u32");
	/* types: a string's from memory */
	for (i = 0; i < KPT_T_NR; i++) {
		const char *fetch = kpt_type_is_string(i) ? "+0(%ax)" : "%ax";
		char canon[128];

		snprintf(line, sizeof(line), "p:e f a=%s:%s", fetch,
			 kpt_type_names[i]);
		snprintf(canon, sizeof(canon), "p:kptrace/e f a=%s:%s", fetch,
			 kpt_type_names[i]);
		good(line, canon);
	}
	good("p:e f a=@0x1000:string b=@4096+8:ustring c=$arg2:str",
	     "p:kptrace/e f a=@0x1000:string b=@0x1008:ustring c=$arg2:str");
	good("r:e f s=+0($retval):string u=-8(%di):ustring",
	     "r:kptrace/e f s=+0($retval):string u=-8(%di):ustring");
	/* @ADDR in decimal, as ftrace's: a symbol never starts with a digit */
	good("p:e f @11 @0 +0(@4096):u8",
	     "p:kptrace/e f arg1=@0xb:x64 arg2=@0x0:x64 arg3=+0(@0x1000):u8");
	/* argument names: 31 characters, as ftrace's */
	good("p:e f a234567890123456789012345678901=%di",
	     "p:kptrace/e f a234567890123456789012345678901=%di:x64");
	/* 16 arguments is the most */
	n = snprintf(line, sizeof(line), "p:e f");
	for (i = 0; i < KPT_SPEC_MAX_ARGS; i++)
		n += snprintf(line + n, sizeof(line) - n, " a%d=$arg1", i);
	check(!kpt_spec_parse(line, &spec) && spec.nargs == 16,
	      "parse: 16 fetch arguments");
	/* conditions */
	good("p:e f a=$arg1 if a == 1", "p:kptrace/e f a=$arg1:x64 if a == 1");
	good("p:e f a=$arg1:s32 if a != -100 && a < 0x10 || a <= 3 && a > -2 || a >= 7",
	     "p:kptrace/e f a=$arg1:s32 if a != -100 && a < 16 || a <= 3 && a > -2 || a >= 7");
	good("p:e f a=$arg1 if a & 0x40", "p:kptrace/e f a=$arg1:x64 if a & 64");
	good("p:e f if pid == 1 && tid == 2 && cpu == 3 && uid == 0",
	     "p:kptrace/e f if pid == 1 && tid == 2 && cpu == 3 && uid == 0");
	good("r:e f if retval < 0 || lat_ns > 1000000",
	     "r:kptrace/e f if retval < 0 || lat_ns > 1000000");
	good("p:e f if comm == bash", "p:kptrace/e f if comm == \"bash\"");
	good("p:e f if comm != \"kworker/*\"", "p:kptrace/e f if comm != \"kworker/*\"");
	good("p:e f if comm == 'a b'", "p:kptrace/e f if comm == \"a b\"");
	/* a glob prints by the one rule of untrusted text, and reads back */
	good("p:e f if comm == caf\xc3\xa9*", "p:kptrace/e f if comm == \"caf\\xc3\\xa9*\"");
	good("p:e f if comm == caf\\xc3\\xA9*", "p:kptrace/e f if comm == \"caf\\xc3\\xa9*\"");
	good("p:e f if comm == 'a\\\\b'", "p:kptrace/e f if comm == \"a\\\\b\"");
	good("p:e f if comm == \\x1b[2J\\x9b", "p:kptrace/e f if comm == \"\\x1b[2J\\x9b\"");
	good("p:e f if comm == a\\x22b\\x27\\x20", "p:kptrace/e f if comm == \"a\\x22b\\x27 \"");
	good("s:e comm=a\\x20b", "s:kptrace/e comm=a\\x20b");
	/* '#' too: no " #" in a listed glob reads as the listing's comment */
	good("p:e f if comm == 'a # id=7 '", "p:kptrace/e f if comm == \"a \\x23 id=7 \"");
	good("s:e comm=a#\\x20#", "s:kptrace/e comm=a\\x23\\x20\\x23");
	good("p:e f if comm == \\x41\\x2a", "p:kptrace/e f if comm == \"A*\"");
	good("s:e comm=\\x1b\\\\\xff\"'", "s:kptrace/e comm=\\x1b\\\\\\xff\\x22\\x27");
	good("p:e f if comm == " C3x5 C3x5 C3x5,
	     "p:kptrace/e f if comm == \"" C3x5 C3x5 C3x5 "\"");
	good("p:e f if pid==1&&cpu!=2", "p:kptrace/e f if pid == 1 && cpu != 2");
	good("p 0xffffffffffffffff", "p:kptrace/p_0xffffffffffffffff 0xffffffffffffffff");
	good("p:e f a=$arg1 if a == -9223372036854775808",
	     "p:kptrace/e f a=$arg1:x64 if a == -9223372036854775808");
	good("p:e f if pid == 1 # comment", "p:kptrace/e f if pid == 1");
}

static void errors(void)
{
	static char huge[KPT_SPEC_LINE_MAX + 1];
	char line[KPT_SPEC_LINE_MAX];
	int i, n;

	bad("", 0, "expected p, r, b, s or - at the start");
	bad("x f", 0, "expected p, r, b, s or - at the start");
	bad("p", 1, "expected a symbol or an address");
	bad("p:", 2, "expected a name");
	bad("p:1e f", 2, "expected a name");
	bad("p:g/ f", 4, "expected a name after the group");
	/* a bad name, as ftrace: under its start, group or event */
	bad("p:e- f", 2, "the event name must be a C identifier");
	bad("p:g.1/e f", 2, "the group name must be a C identifier");
	bad("p:g/e.1 f", 4, "the event name must be a C identifier");
	bad("-:g/e! f", 4, "the event name must be a C identifier");
	bad("p1 f", 1, "MAXACTIVE is for r, b and s probes");
	bad("r1a f", 1, "MAXACTIVE must be 1 to 4096");
	bad("px f", 1, "expected ':' or a space");
	bad("r0 f", 1, "MAXACTIVE must be 1 to 4096");
	bad("r4097 f", 1, "MAXACTIVE must be 1 to 4096");
	/* an s probe's: 20000 parked threads each hold one */
	good("s65536:e", "s65536:kptrace/e");
	bad("s65537:e", 1, "MAXACTIVE must be 1 to 65536");
	bad("r65536 f", 1, "MAXACTIVE must be 1 to 4096");
	bad("-", 1, "expected -:[GROUP/]NAME");
	bad("-:e f", 4, "-:NAME takes nothing more");
	bad("p:e", 3, "expected a symbol or an address");
	bad("p 0x0", 2, "address 0");
	/* a bad target, as ftrace: under its start (but a %SUFFIX) */
	bad("p 0xfg", 2, "garbage after a number");
	bad("p 0x10+4", 2, "expected SYM[+OFFS], MOD:SYM[+OFFS] or 0xADDR");
	bad("p 0x1ffffffffffffffff", 2, "number too large");
	bad("p %ax", 2, "expected a symbol or an address");
	bad("p :f", 2, "expected a symbol or an address");
	bad("p m:", 2, "expected MODULE:SYMBOL");
	bad("p f+", 2, "expected a number");
	bad("p f+0x1g", 2, "garbage after a number");
	bad("p f+4-4", 2, "expected SYM[+OFFS], MOD:SYM[+OFFS] or 0xADDR");
	bad("p f%hoge", 3, "unexpected character after the target");
	bad("p f%return", 3, "no %return suffix: use an r probe");
	bad("p f+4%return", 5, "no %return suffix: use an r probe");
	bad("p f+0x100000000", 2, "offset too large");
	bad("p f-4", 2, "expected SYM[+OFFS], MOD:SYM[+OFFS] or 0xADDR");
	bad("r f+4", 2, "a return probe takes no offset");
	bad("b:e m:f+4", 4, "a return probe takes no offset");
	bad("b f $retval", 4, "$retval is for r probes");
	bad("b f $arg1 if arg1 == 0", 10,
	    "a b probe takes no condition and no hist (use r)");
	bad("b f hist:keys=comm", 4,
	    "a b probe takes no condition and no hist (use r)");
	bad("b0 f", 1, "MAXACTIVE must be 1 to 4096");
	bad("p f %zz", 4, "unknown register");
	bad("p f %axe", 4, "unknown register");
	bad("p f $arg0", 4, "$argN: N must be 1 to 6");
	bad("p f $arg7", 4, "$argN: N must be 1 to 6");
	bad("p f $stack1024", 4, "$stackN: N too large");
	bad("p f $retval", 4, "$retval is for r probes");
	bad("p f $foo", 4, "unknown $variable");
	bad("p f +0($comm)", 7, "$comm cannot be dereferenced");
	bad("p f $comm:u32", 10, "$comm is a string");
	bad("p f @sym", 4, "@ takes an address (the tool resolves @SYMBOL)");
	bad("p f @12ab", 4, "bad address after @");
	bad("p f @0x1ffffffffffffffff", 4, "bad address after @");
	bad("p f \\1", 4, "immediate values (\\IMM) are not supported");
	/* strings: from memory, or the address in a $argN */
	bad("p f %di:string", 8, "a string needs +OFFS(...), @ADDR, $argN or $comm");
	bad("p f $stack0:ustring", 12,
	    "a string needs +OFFS(...), @ADDR, $argN or $comm");
	bad("p f $stack:str", 11,
	    "a string needs +OFFS(...), @ADDR, $argN or $comm");
	bad("r f $retval:string", 12,
	    "a string needs +OFFS(...), @ADDR, $argN or $comm");
	bad("p f +0(%di):u8[4]", 14, "array types (TYPE[N]) are not supported");
	bad("p f @0x10+x", 10, "expected a number");
	/* a bad dereference, as ftrace: under its start */
	bad("p f +8%di", 4, "expected '(' after the offset");
	bad("p f +8x(%di)", 4, "bad dereference offset");
	bad("p f +(%di)", 4, "bad dereference offset");
	bad("p f +8(%di", 10, "expected ')'");
	/* ftrace closes each '(' with the last ')': the innermost lacks it */
	bad("p f +8(+0(+0(%di))", 16, "expected ')'");
	bad("p f +8(+0(%di):u8", 13, "expected ')'");
	bad("p f -u8(%di)", 4, "expected +uOFFS(...)");
	bad("p f +0x80000000(%di)", 4, "offset too large");
	bad("p f +u0x80000000(%di)", 4, "offset too large");
	bad("p f +1(+2(+3(+4(+5(%di)))))", 16, "dereferences nested too deep");
	bad("p f dfd", 4, "unknown fetch argument");
	bad("p f $arg1:u7", 10, "unknown type");
	bad("p f $arg1:", 10, "unknown type");
	bad("p f $arg1x", 4, "unknown $variable");
	bad("p f $arg1(", 9, "unexpected character in the argument");
	bad("p f a=$arg1 a=$arg2", 12, "duplicate argument name");
	bad("p f =$arg1", 4, "expected an argument name before '='");
	bad("p f a.b=$arg1", 4, "the argument name must be a C identifier");
	bad("p f +0(%di)=$arg1", 4, "the argument name must be a C identifier");
	bad("p f a2345678901234567890123456789012=%di", 4, "name too long");
	bad("p f arg2=$arg1 $arg2", 15, "duplicate argument name");
	bad("p f pid=$arg1", 4, "argument name is reserved");
	bad("p f comm=$comm", 4, "argument name is reserved");
	bad("p f if", 4, "unknown fetch argument");
	bad("p f if x == 1", 7, "unknown field");
	bad("p f if == 1", 7, "expected a field name");
	bad("p f a=$arg1 if a ~ 1", 17, "expected ==, !=, <, <=, >, >= or &");
	bad("p f a=$arg1 if a == x", 20, "expected a number");
	bad("p f a=$arg1 if a == 9223372036854775808", 20,
	    "number out of range");
	/* 2^64 and more: refused, never wrapped (in a target, at its start) */
	bad("p f+18446744073709551616", 2, "number too large");
	bad("p f+18446744073709551619", 2, "number too large");
	bad("p f+18446744073709551620", 2, "number too large");
	bad("p f+99999999999999999999", 2, "number too large");
	bad("p f a=$arg1 if a == 18446744073709551617", 20,
	    "number too large");
	bad("p f a=$arg1 if a == -18446744073709551617", 21,
	    "number too large");
	bad("p f $arg18446744073709551617", 4, "$argN: N must be 1 to 6");
	bad("p f $stack18446744073709551616", 4, "$stackN: N too large");
	bad("p f +18446744073709551616(%di)", 4, "offset too large");
	bad("p f @0x10+18446744073709551617", 10, "number too large");
	bad("p f @0xffffffffffffffff+1", 23, "address out of range");
	bad("p f @0x10-17", 9, "address out of range");
	bad("p f @0x10-0x11", 9, "address out of range");
	bad("p f @0x1-9223372036854775808", 8, "address out of range");
	bad("p f @0xfffffffffffffff0+0x7fffffffffffffff", 23, "address out of range");
	bad("p f +8(@0xffffffffffffffff+1)", 26, "address out of range");
	bad("r18446744073709551617 f", 1, "MAXACTIVE must be 1 to 4096");
	bad("p 0x10000000000000000", 2, "number too large");
	bad("p f a=$arg1 if a == 1 b", 22, "expected && or ||");
	bad("p f a=$arg1 if a == 1 &&", 24, "expected a field name");
	bad("p f if retval < 0", 7, "retval and lat_ns are for return probes");
	bad("p f if lat_ns > 0", 7, "retval and lat_ns are for return probes");
	bad("p f a=$arg1:string if a == 1", 22,
	    "only numbers and comm can be compared");
	bad("p f if comm < x", 14, "comm takes == or !=");
	bad("p f if comm == 'abc", 15, "unterminated string");
	bad("p f if comm == abcdefghijklmnopq", 15, "comm glob too long");
	bad("p f if comm == ''", 15, "expected a comm glob");
	bad("p f if comm == a\001b", 16, GLOB_CTL);
	bad("p f if comm == 'a\033[2J'", 17, GLOB_CTL);
	bad("s comm=a\001b", 8, GLOB_CTL);
	bad("s comm=ab\177", 9, GLOB_CTL);
	bad("p f if comm == a\\qb", 16, GLOB_ESC);
	bad("p f if comm == 'a\\x4'", 17, GLOB_ESC);
	bad("s comm=ab\\", 9, GLOB_ESC);
	bad("s comm=a\\X41", 8, GLOB_ESC);
	bad("p f if comm == a\\x00", 16, "a comm glob cannot hold \\x00");
	bad("p f if comm == a\\x22\"", 20, "a comm glob cannot hold quotes (write them \\xNN)");
	bad("p f if comm == " C3x5 C3x5 C3x5 "\\xc3", 15, "comm glob too long");
	bad("s comm=", 7, "expected a comm glob");
	bad("p f if comm == 'abcdefghijklmnop'", 15, "comm glob too long");
	bad("s comm=abcdefghijklmnop", 7, "comm glob too long");
	bad("s summary signals", 10, "signals or denied with summary: a summary keeps no records");
	bad("s denied summary", 9, "signals or denied with summary: a summary keeps no records");
	bad("s nr32=512", 7, "syscall numbers are 0 to 511, N-M with N <= M");
	bad("s signals signals", 10, "option given twice");
	n = snprintf(line, sizeof(line), "p f");
	for (i = 0; i < KPT_SPEC_MAX_ARGS + 1; i++)
		n += snprintf(line + n, sizeof(line) - n, " a%d=$arg1", i);
	bad(line, n - 9, "too many fetch arguments (16)");
	n = snprintf(line, sizeof(line), "p f if pid == 0");
	for (i = 0; i < KPT_SPEC_MAX_COND; i++)
		n += snprintf(line + n, sizeof(line) - n, " && pid == %d", i);
	bad(line, n - 11, "too many condition terms (8)");
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	bad(huge, 0, "line too long");
	memset(line, ' ', 300);
	memcpy(line, "p ", 2);
	memset(line + 2, 'f', 298);
	line[300] = '\0';
	bad(line, 2, "symbol too long");
	snprintf(line, sizeof(line), "p:%0100d f", 0);
	bad(line, 2, "expected a name");
	snprintf(line, sizeof(line), "p:e%0100d f", 0);
	bad(line, 2, "name too long");
}

/* resolve.c: the user's line -> the written line, or an error at a column */
static void resolve(struct resolver *r, const char *user, const char *want,
		    int want_pos, const char *want_msg)
{
	char out[KPT_SPEC_LINE_MAX], msg[512], name[200];
	struct spec_parts parts;
	struct line_map map;
	int pos = -1, ret;

	snprintf(name, sizeof(name), "translate: %s", user);
	resolve__split(user, &parts);
	ret = resolve__line(r, user, &parts, NULL, NULL, out, &map, &pos, msg,
			    sizeof(msg));
	if (want) {
		if (ret)
			result(0, name, "refused at %d: %s", pos, msg);
		else
			result(!strcmp(out, want) && !kpt_spec_parse(out, &spec),
			       name, "wrote '%s', expected '%s'", out, want);
		return;
	}
	if (!ret && kpt_spec_parse(out, &spec)) {
		ret = -1;
		pos = line_map__orig(&map, spec.err_pos);
		snprintf(msg, sizeof(msg), "%s", spec.err_msg);
	}
	result(ret && pos == want_pos && strstr(msg, want_msg), name,
	       "at %d: '%s', expected at %d: '%s'", pos, ret ? msg : "",
	       want_pos, want_msg);
}

static void resolving(const char *btf_dir, const char *kallsyms)
{
	struct resolver r = { .kallsyms = kallsyms };
	struct resolver none = { .kallsyms = kallsyms };

	r.btf = kbtf__new(btf_dir);
	none.btf = kbtf__new("/nonexistent");
	resolve(&r, "p do_sys_openat2 dfd filename:ustring",
		"p do_sys_openat2 dfd=$arg1:s32 filename=$arg2:ustring", 0, NULL);
	resolve(&r, "p:o do_sys_openat2 d=dfd:u32 how",
		"p:o do_sys_openat2 d=$arg1:u32 how=$arg3:x64", 0, NULL);
	resolve(&r, "p do_sys_openat2 $arg1 n=+0(filename):string",
		"p do_sys_openat2 $arg1 n=+0($arg2):string", 0, NULL);
	resolve(&r, "r do_sys_openat2 dfd $retval if dfd == -100",
		"r do_sys_openat2 dfd=$arg1:s32 $retval:s64 if dfd == -100",
		0, NULL);
	resolve(&r, "p many_args a b c d e f g h",
		"p many_args a=$arg1:s32 b=$arg2:s64 c=$arg3:s8 d=$arg4:u16 e=$arg5:x64 f=$arg6:u64 g=$stack1:s32 h=$stack2:s16",
		0, NULL);
	resolve(&r, "p big_struct x y", "p big_struct x=$arg3:s32 y=$arg4:s32",
		0, NULL);
	resolve(&r, "p with_float x", "p with_float x=$arg1:s32", 0, NULL);
	resolve(&r, "p cpu_fn cpu e u b",
		"p cpu_fn cpu_=$arg1:s32 e=$arg2:s32 u=$arg3:u32 b=$arg4:u8",
		0, NULL);
	resolve(&r, "p kpt_test:kpt_test_func a f",
		"p kpt_test:kpt_test_func a=$arg1:u64 f=$arg6:u64", 0, NULL);
	resolve(&r, "p printk_like fmt:string",
		"p printk_like fmt=$arg1:string", 0, NULL);
	resolve(&r, "p do_sys_openat2 j=@jiffies +8(@kpt_test:kpt_var):u32",
		"p do_sys_openat2 j=@0xffffffff82001000 +8(@0xffffffffc0401000):u32",
		0, NULL);
	resolve(&r, "p do_sys_openat2 @jiffies+8",
		"p do_sys_openat2 @0xffffffff82001000+8", 0, NULL);
	resolve(&r, "p do_sys_openat2 @jiffies:u32 v=@kpt_test:kpt_var:s8",
		"p do_sys_openat2 @0xffffffff82001000:u32 v=@0xffffffffc0401000:s8",
		0, NULL);
	resolve(&r, "p do_sys_openat2 $comm %di @0x10", "p do_sys_openat2 $comm %di @0x10",
		0, NULL);
	resolve(&r, "p big_struct s", NULL, 13, "(struct big16) is not passed");
	resolve(&r, "p with_float d", NULL, 13, "(double) is not passed");
	resolve(&r, "p do_sys_openat2 fd", NULL, 17,
		"'fd' is not a parameter of the function (dfd, filename, how)");
	resolve(&r, "p do_sys_openat2+4 dfd", NULL, 19,
		"BTF names are for the function's entry");
	resolve(&r, "p 0xffffffff81000000 dfd", NULL, 21,
		"need a function symbol, not an address");
	resolve(&r, "p nosuch x", NULL, 9, "BTF does not know the function nosuch");
	resolve(&none, "p do_sys_openat2 dfd", NULL, 17,
		"no BTF (cannot read /nonexistent/vmlinux");
	resolve(&r, "p do_sys_openat2 @nosuch", NULL, 17, "@nosuch: no such symbol");
	resolve(&r, "p do_sys_openat2 @dup_sym", NULL, 17, "@dup_sym: ambiguous");
	/* parse errors after translation: under the user's text */
	resolve(&r, "p do_sys_openat2 dfd %zz", NULL, 21, "unknown register");
	resolve(&r, "p do_sys_openat2 dfd $arg1:u7", NULL, 27, "unknown type");
	resolve(&r, "p do_sys_openat2 dfd dfd", NULL, 21, "duplicate argument name");
	resolve(&r, "p do_sys_openat2 filename:ustring if filename == 1", NULL,
		37, "only numbers and comm can be compared");
	kbtf__free(r.btf);
	kbtf__free(none.btf);
}

/* hist: parts, ftrace's hist trigger words */
static void hists(void)
{
	good("r:lat do_sys_openat2 $retval hist:keys=comm,lat_ns.log2",
	     "r:kptrace/lat do_sys_openat2 arg1=$retval:x64 hist:keys=comm,lat_ns.log2:vals=hitcount:sort=hitcount:size=2048");
	check(spec.hist.nkeys == 2 && spec.hist.keys[0].field == KPT_CF_COMM &&
	      spec.hist.keys[1].field == KPT_CF_LAT_NS &&
	      spec.hist.keys[1].mod == KPT_HM_LOG2 && !spec.hist.nvals &&
	      spec.hist.size == KPT_HIST_SIZE_DEF && !spec.hist.events,
	      "fields: hist:keys=comm,lat_ns.log2");
	good("p f a=%di:u32 b=+0(%si):string if a > 3 hist:key=a.buckets=10,b:"
	     "values=hitcount,a:sort=a.descending:size=16:events",
	     "p:kptrace/p_f_0 f a=%di:u32 b=+0(%si):string if a > 3 hist:keys=a.buckets=10,b:vals=hitcount,a:sort=a.descending:size=16:events");
	check(spec.hist.keys[0].buckets == 10 && spec.hist.keys[1].field == 1 &&
	      spec.hist.nvals == 1 && spec.hist.vals[0].field == 0 &&
	      spec.hist.sort == KPT_HIST_SORT_KEY && spec.hist.descending &&
	      spec.hist.size == 16 && spec.hist.events && spec.ncond == 1,
	      "fields: keys, values, sort, size, events");
	good("r f hist:keys=stacktrace,cpu.hex,pid:vals=lat_ns,retval:sort=retval",
	     "r:kptrace/r_f_0 f hist:keys=stacktrace,cpu.hex,pid:vals=hitcount,lat_ns,retval:sort=retval:size=2048");
	check(spec.hist.sort == KPT_HIST_SORT_VAL + 1, "fields: sort by a value");
	good("p f hist:keys=tid.loglin,uid # note",
	     "p:kptrace/p_f_0 f hist:keys=tid.loglin,uid:vals=hitcount:sort=hitcount:size=2048");
	bad("p f hist:", 9, "expected keys=, vals=, sort=, size= or events");
	bad("p f hist:size=4", 4, "hist: needs keys=");
	bad("p f hist:keys=lat_ns", 14, "retval and lat_ns are for return probes");
	bad("p f hist:keys=nosuch", 14, "unknown field");
	bad("p f a=%di b=%si c=%dx d=%cx hist:keys=a,b,c,d", 44,
	    "too many keys (3)");
	bad("p f hist:keys=pid:keys=tid", 18, "keys= given twice");
	bad("p f hist:keys=comm.log2", 18, "only a number takes a modifier");
	bad("p f hist:keys=pid.log3", 17,
	    "expected .hex, .log2, .loglin or .buckets=N");
	bad("p f hist:keys=pid.buckets=0", 17,
	    "the bucket size must be 1 to 4294967295");
	bad("p f hist:keys=pid:vals=comm", 23, "a value must be a number");
	bad("p f hist:keys=pid:vals=tid.log2", 26, "a value takes no modifier");
	bad("p f hist:keys=pid:vals=a", 23, "unknown field");
	bad("p f a=%di b=%si c=%dx d=%cx e=%r8 hist:keys=pid:vals=a,b,c,d,e",
	    61, "too many values (4 and hitcount)");
	bad("p f hist:keys=pid:sort=tid", 23,
	    "sort= takes hitcount or a key or value given before it");
	bad("p f hist:keys=pid:sort=pid,tid", 26, "sort= takes one field");
	bad("p f hist:keys=pid:size=0", 18, "size= must be 1 to 131072 entries");
	bad("p f hist:keys=pid:size=131073", 18,
	    "size= must be 1 to 131072 entries");
	bad("p f hist:keys=pid a=%di", 18, "hist: must end the spec");
	bad("p f hist:keys=stacktrace,pid,stacktrace", 29, "a key given twice");
	bad("p f hist:vals=pid:keys=tid", 9, "vals= comes after keys=");
	bad("p f hist:sort=hitcount:keys=tid", 14, "sort= comes after keys=");
	good("p f hitcountx=%di hist:keys=pid:vals=hitcountx:sort=hitcountx",
	     "p:kptrace/p_f_0 f hitcountx=%di:x64 hist:keys=pid:vals=hitcount,hitcountx:sort=hitcountx:size=2048");
	bad("p f hist:keys=pid:sort=hitcounts", 23, "unknown field");
	bad("p f hist:keys=pid:vals=hitcount2", 23, "unknown field");
	bad("p f hist:keys=pid$", 17, "unexpected character in a hist field");
	bad("p f if stacktrace == 1", 7, "stacktrace is a hist key only");
	bad("p f stacktrace=%di", 4, "argument name is reserved");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_spec BTF_DIR KALLSYMS\n");
		return 2;
	}
	check_fields();
	grammar();
	errors();
	hists();
	resolving(argv[1], argv[2]);
	printf("1..%d\n%d passed, %d failed\n", nr, nr - failed, failed);
	return failed ? 1 : 0;
}
