// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the fields of a probe spec, which conditions and hist keys and
 * values name (a fetcharg's name or a field name), and its "if" condition,
 * parsed and printed.
 *
 *   COND     := TERM [&& TERM | || TERM]...           (&& binds tighter)
 *   TERM     := FIELD OP NUMBER | comm == GLOB | comm != GLOB
 *   GLOB     := bytes, * and ?; \xNN and \\ escapes   (kpt_parse_glob())
 *   FIELD    := a numeric fetcharg's NAME | retval | lat_ns | pid | tid
 *             | cpu | uid                             (retval, lat_ns: r)
 *   OP       := == | != | < | <= | > | >= | &         (& : any bit set)
 */
#include "spec_impl.h"

const char * const kpt_field_names[] = {
	[KPT_CF_RETVAL - KPT_CF_RETVAL] = "retval",
	[KPT_CF_LAT_NS - KPT_CF_RETVAL] = "lat_ns",
	[KPT_CF_PID - KPT_CF_RETVAL] = "pid",
	[KPT_CF_TID - KPT_CF_RETVAL] = "tid",
	[KPT_CF_CPU - KPT_CF_RETVAL] = "cpu",
	[KPT_CF_UID - KPT_CF_RETVAL] = "uid",
	[KPT_CF_COMM - KPT_CF_RETVAL] = "comm",
	[KPT_CF_STACKTRACE - KPT_CF_RETVAL] = "stacktrace",
};

static const char * const kpt_op_names[] = {
	"==", "!=", "<", "<=", ">", ">=", "&",
};

/* A field of a condition or a hist: a fetcharg's name or a field name. */
int kpt_parse_field(struct kpt_cursor *c, __u16 *field)
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

int kpt_parse_cond(struct kpt_cursor *c)
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

/* The condition, " if TERM && TERM || ...", as kpt_parse_cond() reads it */
int kpt_cond_print(const struct kpt_spec *spec, char *buf, int len)
{
	const struct kpt_cond *t;
	unsigned int i;
	int n = 0;

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
	return n;
}
