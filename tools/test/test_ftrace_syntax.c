// SPDX-License-Identifier: GPL-2.0
/*
 * test_ftrace_syntax: the peer suite. The malformed specs of ftrace's own
 * selftest, tools/testing/selftests/ftrace/test.d/kprobe/
 * kprobe_syntax_errors.tc (Linux 6.1), through kpt_spec_parse()
 * (include/spec/, built here under AddressSanitizer and UBSan).
 *
 *	test_ftrace_syntax
 *
 * Each spec is written as the .tc writes it in its check_error line, the
 * '^' at the column of ftrace's caret (shell quoting undone: the .tc's
 * 'arg1=\^x' is "arg1=\\^x" here). Each must be refused with kptrace's
 * message at ftrace's column. Where kptrace's grammar differs from
 * ftrace's, the row gives kptrace's own column and why; such a row whose
 * column became ftrace's fails too, so that the exceptions stay true. One
 * spec is not for a parser: an unknown symbol is refused by the module at
 * registration (-ENOENT), so here it must be accepted.
 *
 * Left out, 6 check_error lines of the .tc that are not about syntax:
 * BAD_INSN_BNDRY ('p vfs_read+3') needs the kernel's instruction decoder
 * (the module refuses it with -EILSEQ: selftests/kpt_spec_syntax_errors.sh),
 * and the 5 multiprobe ones (DIFF_PROBE_TYPE, DIFF_ARG_TYPE 3 times,
 * SAME_PROBE) append a probe to an existing event: kptrace appends none,
 * it refuses a name in use with -EEXIST (selftests/kpt_spec_add_del.sh).
 *
 * Prints "ok N" / "not ok N" lines, a summary, then "N passed, N failed";
 * exit status 1 if any failed.
 */
#include <stdio.h>
#include <string.h>

#include "spec.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SAME		-1	/* kptrace's column is ftrace's */
#define ACCEPTED	NULL	/* kpt_spec_parse() takes it */

struct ftrace_case {
	const char *tc;		/* the .tc's spec, '^' at ftrace's caret */
	const char *ftrace;	/* ftrace's error (TP_ERR_*) */
	const char *msg;	/* kptrace's message, or ACCEPTED */
	int col;		/* kptrace's column, or SAME */
	const char *why;	/* why kptrace differs (col != SAME, ACCEPTED) */
};

#define STRING_MSG	"a string needs +OFFS(...), @ADDR, $argN or $comm"
#define TARGET_MSG	"expected SYM[+OFFS], MOD:SYM[+OFFS] or 0xADDR"
#define IMM_MSG		"immediate values (\\IMM) are not supported"
#define IMM_WHY		"kptrace has no immediate values (\\IMM, \\\"STR\"): refused at the backslash"
#define ARRAY_MSG	"array types (TYPE[N]) are not supported"
#define ARRAY_WHY	"kptrace has no array types: refused at the '['"
#define DEPTH_MSG	"dereferences nested too deep"

static const struct ftrace_case cases[] = {
	{ "p^100 vfs_read", "MAXACT_NO_KPROBE",
	  "MAXACTIVE is for r, b and s probes", SAME, NULL },
	{ "r^1a111 vfs_read", "BAD_MAXACT",
	  "MAXACTIVE must be 1 to 4096", SAME, NULL },
	{ "r^100000 vfs_read", "MAXACT_TOO_BIG",
	  "MAXACTIVE must be 1 to 4096", SAME, NULL },
	{ "p ^non_exist_func", "BAD_PROBE_ADDR", ACCEPTED, SAME,
	  "a symbol lookup, not syntax: the module refuses it at registration "
	  "(-ENOENT, \"no such symbol\", no column; kpt_spec_syntax_errors.sh)" },
	{ "p ^hoge-fuga", "BAD_PROBE_ADDR", TARGET_MSG, SAME, NULL },
	{ "p ^hoge+1000-1000", "BAD_PROBE_ADDR", TARGET_MSG, SAME, NULL },
	{ "r ^vfs_read+10", "BAD_RETPROBE",
	  "a return probe takes no offset", SAME, NULL },
	{ "p:^/bar vfs_read", "NO_GROUP_NAME", "expected a name", SAME, NULL },
	/* kptrace: a name starts with a letter or _ (checked first) */
	{ "p:^12345678901234567890123456789012345678901234567890123456789012345/bar vfs_read",
	  "GROUP_TOO_LONG", "expected a name", SAME, NULL },
	{ "p:^foo.1/bar vfs_read", "BAD_GROUP_NAME",
	  "the group name must be a C identifier", SAME, NULL },
	{ "p:^ vfs_read", "NO_EVENT_NAME", "expected a name", SAME, NULL },
	{ "p:foo/^12345678901234567890123456789012345678901234567890123456789012345 vfs_read",
	  "EVENT_TOO_LONG", "expected a name after the group", SAME, NULL },
	{ "p:foo/^bar.1 vfs_read", "BAD_EVENT_NAME",
	  "the event name must be a C identifier", SAME, NULL },
	{ "p vfs_read ^$retval", "RETVAL_ON_PROBE",
	  "$retval is for r probes", SAME, NULL },
	{ "p vfs_read ^$stack10000", "BAD_STACK_NUM",
	  "$stackN: N too large", SAME, NULL },
	{ "p vfs_read ^$arg10000", "BAD_ARG_NUM",
	  "$argN: N must be 1 to 6", SAME, NULL },
	{ "p vfs_read ^$none_var", "BAD_VAR", "unknown $variable", SAME, NULL },
	{ "p vfs_read ^%none_reg", "BAD_REG_NAME",
	  "unknown register", SAME, NULL },
	{ "p vfs_read ^@12345678abcde", "BAD_MEM_ADDR",
	  "bad address after @", SAME, NULL },
	{ "p vfs_read ^@+10", "FILE_ON_KPROBE",
	  "@ takes an address (the tool resolves @SYMBOL)", SAME, NULL },
	{ "p vfs_read arg1=\\^x", "BAD_IMM", IMM_MSG, 16,
	  IMM_WHY "; ftrace's caret is on the bad value after it" },
	{ "p vfs_read arg1=\\\"abcd^", "IMMSTR_NO_CLOSE", IMM_MSG, 16,
	  IMM_WHY "; ftrace's caret is at the end, where the closing quote is missing" },
	{ "p vfs_read ^+0@0)", "DEREF_NEED_BRACE",
	  "expected '(' after the offset", SAME, NULL },
	{ "p vfs_read ^+0ab1(@0)", "BAD_DEREF_OFFS",
	  "bad dereference offset", SAME, NULL },
	{ "p vfs_read +0(+0(@0^)", "DEREF_OPEN_BRACE", "expected ')'", SAME,
	  NULL },
	{ "p vfs_read +0(^$comm)", "COMM_CANT_DEREF",
	  "$comm cannot be dereferenced", SAME, NULL },
	{ "p vfs_read ^&1", "BAD_FETCH_ARG", "unknown fetch argument", SAME,
	  NULL },
	{ "p vfs_read +0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))",
	  "TOO_MANY_OPS", DEPTH_MSG, 23,
	  "kptrace nests 4 dereferences (KPT_SPEC_MAX_DEREF) and refuses the 5th, "
	  "at its start; ftrace runs out of its 16 fetch instructions at the "
	  "outermost one" },
	{ "p vfs_read +0(@11):u8[10^", "ARRAY_NO_CLOSE", ARRAY_MSG, 21,
	  ARRAY_WHY },
	{ "p vfs_read +0(@11):u8[10]^a", "BAD_ARRAY_SUFFIX", ARRAY_MSG, 21,
	  ARRAY_WHY },
	{ "p vfs_read +0(@11):u8[^10a]", "BAD_ARRAY_NUM", ARRAY_MSG, 21,
	  ARRAY_WHY },
	{ "p vfs_read +0(@11):u8[^256]", "ARRAY_TOO_BIG", ARRAY_MSG, 21,
	  ARRAY_WHY },
	{ "p vfs_read @11:^unknown_type", "BAD_TYPE", "unknown type", SAME,
	  NULL },
	{ "p vfs_read $stack0:^string", "BAD_STRING", STRING_MSG, SAME, NULL },
	/* kptrace has no bitfield types: the type is unknown */
	{ "p vfs_read @11:^b10@a/16", "BAD_BITFIELD", "unknown type", SAME,
	  NULL },
	{ "p vfs_read ^arg123456789012345678901234567890=@11",
	  "ARG_NAME_TOO_LONG", "name too long", SAME, NULL },
	{ "p vfs_read ^=@11", "NO_ARG_NAME",
	  "expected an argument name before '='", SAME, NULL },
	{ "p vfs_read ^var.1=@11", "BAD_ARG_NAME",
	  "the argument name must be a C identifier", SAME, NULL },
	{ "p vfs_read var1=@11 ^var1=@12", "USED_ARG_NAME",
	  "duplicate argument name", SAME, NULL },
	{ "p vfs_read ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))",
	  "ARG_TOO_LONG", DEPTH_MSG, 47,
	  "kptrace has no length limit on a fetcharg (ftrace: 63 characters); it "
	  "refuses this one for its 5th nested dereference, at its start" },
	{ "p vfs_read arg1=^", "NO_ARG_BODY", "unknown fetch argument", SAME,
	  NULL },
	{ "p vfs_read^%hoge", "BAD_ADDR_SUFFIX",
	  "unexpected character after the target", SAME, NULL },
	{ "p ^vfs_read+10%return", "BAD_RETPROBE",
	  "no %return suffix: use an r probe", 13,
	  "kptrace has no %return suffix (a return probe is an r probe): refused "
	  "at the '%', as ftrace refuses an unknown suffix; ftrace takes it, then "
	  "refuses the offset at the target" },
};

static int nr, failed;

static void result(int ok, const char *name, const char *detail)
{
	nr++;
	if (ok) {
		printf("ok %d %s\n", nr, name);
		return;
	}
	failed++;
	printf("not ok %d %s\n# %s\n", nr, name, detail);
}

int main(void)
{
	unsigned int i, same = 0, other = 0, refused = 0, accepted = 0;
	static struct kpt_spec spec;
	char line[KPT_SPEC_LINE_MAX], name[256], detail[512];

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ftrace_case *t = &cases[i];
		const char *caret = strchr(t->tc, '^');
		int ftrace_col, want_col, ret;

		if (!caret || strchr(caret + 1, '^') ||
		    strlen(t->tc) >= sizeof(line)) {
			snprintf(name, sizeof(name), "ftrace %s: %s", t->ftrace,
				 t->tc);
			result(0, name, "one '^' per row");
			continue;
		}
		ftrace_col = (int)(caret - t->tc);
		memcpy(line, t->tc, ftrace_col);
		strcpy(line + ftrace_col, caret + 1);
		snprintf(name, sizeof(name), "ftrace %s at %d: %.200s", t->ftrace,
			 ftrace_col, line);
		ret = kpt_spec_parse(line, &spec);

		if (t->msg == ACCEPTED) {
			snprintf(detail, sizeof(detail),
				 "refused at %d: '%s'; the row says: %s",
				 spec.err_pos, ret ? spec.err_msg : "",
				 t->why);
			result(!ret, name, detail);
			accepted += !ret;
			printf("#   %s\n", t->why);
			continue;
		}
		want_col = t->col == SAME ? ftrace_col : t->col;
		if (ret)
			snprintf(detail, sizeof(detail),
				 "at %d: '%s', expected at %d: '%s'%s%s",
				 spec.err_pos, spec.err_msg, want_col, t->msg,
				 t->why ? "; the row says: " : "",
				 t->why ? t->why : "");
		else
			snprintf(detail, sizeof(detail), "accepted");
		if (t->col == ftrace_col)
			snprintf(detail, sizeof(detail),
				 "an exception at ftrace's own column %d: make it SAME",
				 ftrace_col);
		result(ret && t->col != ftrace_col &&
		       spec.err_pos == want_col && !strcmp(spec.err_msg, t->msg),
		       name, detail);
		if (t->why)
			printf("#   at %d, not %d: %s\n", t->col, ftrace_col,
			       t->why);
		refused += !!ret;
		if (ret && spec.err_pos == ftrace_col)
			same++;
		else if (ret)
			other++;
	}
	snprintf(detail, sizeof(detail), "%u rows",
		 (unsigned int)ARRAY_SIZE(cases));
	result(ARRAY_SIZE(cases) == 43,
	       "the 43 syntax cases of kprobe_syntax_errors.tc", detail);
	printf("# kprobe_syntax_errors.tc: %u specs, %u refused",
	       (unsigned int)ARRAY_SIZE(cases), refused);
	printf(" (%u at ftrace's column, %u at their own), %u at registration\n",
	       same, other, accepted);
	printf("1..%d\n%d passed, %d failed\n", nr, nr - failed, failed);
	return failed ? 1 : 0;
}
