// SPDX-License-Identifier: GPL-2.0
/*
 * resolve: turns what `kptrace probe add` accepts into the module's
 * language (include/spec/), token by token, keeping track of where each
 * written token came from, so that an error kpt_spec_parse() finds in the
 * written line is shown under the user's own text.
 *
 *   NAME[:TYPE], NAME=NAME2[:TYPE]	a parameter of the function, from BTF:
 *					NAME=$argN:TYPE ($stackN past six),
 *					TYPE from BTF unless given
 *   +OFFS(NAME)			the same inside dereferences
 *   $retval (r, no type)		the function's return type from BTF
 *   @SYM[+|-OFFS], @MOD:SYM		@0xADDR, from kallsyms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbtf.h"
#include "ksyms.h"
#include "resolve.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const reserved[] = {
	"retval", "lat_ns", "pid", "tid", "cpu", "uid", "comm",
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_ident(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

bool resolve__split(const char *line, struct spec_parts *parts)
{
	const char *p = line;
	unsigned int max = ARRAY_SIZE(parts->tok);

	memset(parts, 0, sizeof(*parts));
	parts->rest = -1;
	for (;;) {
		while (is_blank(*p))
			p++;
		if (!*p || *p == '#')
			break;
		/* a condition and a hist: part go to the module as they are */
		if (parts->ntok >= 2 &&
		    ((!strncmp(p, "if", 2) && (is_blank(p[2]) || !p[2])) ||
		     !strncmp(p, "hist:", 5))) {
			parts->rest = p - line;
			parts->rest_len = strcspn(p, "\n");
			while (parts->rest_len && is_blank(p[parts->rest_len - 1]))
				parts->rest_len--;
			break;
		}
		if (parts->ntok == max) {
			/* too many: the rest as it is, kpt_spec_parse() says */
			parts->rest = p - line;
			parts->rest_len = strcspn(p, "\n");
			break;
		}
		parts->tok[parts->ntok].off = p - line;
		while (*p && !is_blank(*p))
			p++;
		parts->tok[parts->ntok].len = p - line -
					       parts->tok[parts->ntok].off;
		parts->ntok++;
	}
	return parts->ntok > 0;
}

int line_map__orig(const struct line_map *map, int pos)
{
	unsigned int i;
	int d;

	for (i = map->nr; i-- > 0;) {
		if (map->seg[i].out > pos)
			continue;
		d = pos - map->seg[i].out;
		if (!map->seg[i].same)
			return map->seg[i].orig;
		return map->seg[i].orig + d;
	}
	return 0;
}

/* The written line, and its map. */
struct out {
	char *buf;
	int len;
	bool full;
	struct line_map *map;
};

static void out__put(struct out *o, int orig, const char *s, int len,
		     bool same)
{
	if (o->len && o->len < KPT_SPEC_LINE_MAX - 1)
		o->buf[o->len++] = ' ';
	if (o->map->nr < RESOLVE_MAX_SEGS) {
		o->map->seg[o->map->nr].orig = orig;
		o->map->seg[o->map->nr].out = o->len;
		o->map->seg[o->map->nr].len = len;
		o->map->seg[o->map->nr].same = same;
		o->map->nr++;
	}
	if (o->len + len >= KPT_SPEC_LINE_MAX) {
		o->full = true;
		len = KPT_SPEC_LINE_MAX - 1 - o->len;
	}
	memcpy(o->buf + o->len, s, len);
	o->len += len;
	o->buf[o->len] = '\0';
}

/* What the target says, for BTF. */
struct target {
	char mod[KPT_SPEC_MOD_LEN];
	char sym[KPT_SPEC_SYM_LEN];
	bool addr;		/* 0xADDR */
	bool offset;		/* SYM+OFFS, OFFS not 0 */
	bool is_ret;
};

struct ctx {
	struct resolver *r;
	const char *line;
	struct target tg;
	int fn_state;		/* 0: not looked up, 1: ok, -errno */
	const char *fn_why;
	struct kbtf_func fn;
	int *err_pos;
	char *msg;
	size_t msglen;
};

static void parse_target(const char *t, int len, struct target *tg)
{
	const char *colon, *plus, *end = t + len;
	int n;

	if (len > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		tg->addr = true;
		return;
	}
	colon = memchr(t, ':', len);
	if (colon) {
		n = colon - t;
		snprintf(tg->mod, sizeof(tg->mod), "%.*s", n, t);
		t = colon + 1;
	}
	plus = memchr(t, '+', end - t);
	if (plus) {
		tg->offset = strtoul(plus + 1, NULL, 0) != 0;
		end = plus;
	}
	snprintf(tg->sym, sizeof(tg->sym), "%.*s", (int)(end - t), t);
}

static int fail(struct ctx *c, int pos, const char *fmt, const char *a,
		const char *b)
{
	*c->err_pos = pos;
	snprintf(c->msg, c->msglen, fmt, a, b);
	return -1;
}

/* The BTF parameter @name of the target function. */
static const struct kbtf_param *ctx__param(struct ctx *c, const char *name,
					   int len, int pos)
{
	const struct kbtf_param *p;
	char buf[KPT_SPEC_NAME_LEN], list[512];
	unsigned int i;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%.*s", len, name);
	if (c->tg.addr) {
		fail(c, pos, "'%s': BTF names need a function symbol, not an address%s",
		     buf, "");
		return NULL;
	}
	if (c->tg.offset) {
		fail(c, pos, "'%s': BTF names are for the function's entry, not %s+OFFS",
		     buf, c->tg.sym);
		return NULL;
	}
	if (!c->fn_state)
		c->fn_state = kbtf__func(c->r->btf, c->tg.mod, c->tg.sym,
					 &c->fn, &c->fn_why) ?: 1;
	if (c->fn_state == -ENODATA) {
		fail(c, pos, "'%s': no BTF (%s): use $argN", buf, c->fn_why);
		return NULL;
	}
	if (c->fn_state < 0) {
		fail(c, pos, "'%s': BTF does not know the function %s: use $argN",
		     buf, c->tg.sym);
		return NULL;
	}
	p = kbtf__param(&c->fn, name, len);
	if (!p) {
		list[0] = '\0';
		for (i = 0; i < c->fn.nparams && n < sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s",
				      i ? ", " : "", c->fn.params[i].name);
		fail(c, pos, "'%s' is not a parameter of the function (%s)",
		     buf, c->fn.nparams ? list : "it has none");
		return NULL;
	}
	if (p->type < 0 || !p->fetch[0]) {
		fail(c, pos, "'%s' (%s) is not passed in one register or stack slot",
		     buf, p->ctype);
		return NULL;
	}
	return p;
}

/*
 * @SYM or @MOD:SYM at @s (@len bytes before the type): @0xADDR into @o.
 * Returns the characters eaten.
 */
static int resolve_at(struct ctx *c, const char *s, int len, int pos,
		      char *o, size_t olen)
{
	char mod[KPT_SPEC_MOD_LEN] = "", sym[KPT_SPEC_SYM_LEN];
	int n = 1, ret;
	const char *colon;
	__u64 addr = 0;

	while (n < len && (is_ident(s[n], false) || s[n] == '.' ||
			   s[n] == ':'))
		n++;
	snprintf(sym, sizeof(sym), "%.*s", n - 1, s + 1);
	colon = strchr(sym, ':');
	if (colon) {
		snprintf(mod, sizeof(mod), "%.*s", (int)(colon - sym), sym);
		memmove(sym, colon + 1, strlen(colon + 1) + 1);
	}
	ret = ksyms__lookup_name(c->r->kallsyms, mod, sym, &addr);
	if (ret < 0)
		return fail(c, pos, "@%s: cannot read %s", sym, c->r->kallsyms);
	if (!ret)
		return fail(c, pos,
			    "@%s: no such symbol in %s (data symbols need CONFIG_KALLSYMS_ALL)",
			    sym, c->r->kallsyms);
	if (ret > 1)
		return fail(c, pos, "@%s: ambiguous, more than one symbol of that name in %s",
			    sym, c->r->kallsyms);
	if (!addr)
		return fail(c, pos, "@%s: %s shows no addresses (root, kptr_restrict)",
			    sym, c->r->kallsyms);
	snprintf(o, olen, "@0x%llx", (unsigned long long)addr);
	return n;
}

static int type_lookup(const char *s, int len)
{
	int t;

	for (t = 0; t < KPT_T_NR; t++)
		if ((int)strlen(kpt_type_names[t]) == len &&
		    !strncmp(kpt_type_names[t], s, len))
			return t;
	return -1;
}

/* One fetcharg token at @a (column @col of the line) into @o. */
static int resolve_arg(struct ctx *c, const char *a, int alen, int col,
		       char *o, size_t olen)
{
	char name[KPT_SPEC_NAME_LEN] = "", fetch[KPT_SPEC_LINE_MAX];
	const struct kbtf_param *bare = NULL, *p;
	int i = 0, fpos = 0, fend = alen, type = -1, n = 0, k, ret;
	const char *colon = NULL;
	unsigned int j;

	while (i < alen && is_ident(a[i], !i))
		i++;
	if (i && i < alen && a[i] == '=') {
		snprintf(name, sizeof(name), "%.*s", i, a);
		fpos = i + 1;
	}
	for (i = fpos; i < alen; i++)
		if (a[i] == ':')
			colon = a + i;
	if (colon) {
		type = type_lookup(colon + 1, a + alen - colon - 1);
		if (type >= 0)
			fend = colon - a;
	}

	for (i = fpos; i < fend && n < (int)sizeof(fetch) - 32;) {
		if (a[i] == '@' && i + 1 < fend && a[i + 1] != '0') {
			ret = resolve_at(c, a + i, fend - i, col + i,
					 fetch + n, sizeof(fetch) - n);
			if (ret < 0)
				return ret;
			n += strlen(fetch + n);
			i += ret;
			continue;
		}
		if ((i == fpos || a[i - 1] == '(') && is_ident(a[i], true)) {
			for (k = i; k < fend && is_ident(a[k], false); k++)
				;
			p = ctx__param(c, a + i, k - i, col + i);
			if (!p)
				return -1;
			if (i == fpos && k == fend)
				bare = p;
			n += snprintf(fetch + n, sizeof(fetch) - n, "%s",
				      p->fetch);
			i = k;
			continue;
		}
		fetch[n++] = a[i++];
	}
	fetch[n] = '\0';

	if (bare) {
		if (!name[0]) {
			snprintf(name, sizeof(name), "%s", bare->name);
			for (j = 0; j < ARRAY_SIZE(reserved); j++)
				if (!strcmp(name, reserved[j]))
					strcat(name, "_");
		}
		if (type < 0)
			type = bare->type;
	} else if (!strcmp(fetch, "$retval") && type < 0 && c->tg.is_ret &&
		   !c->tg.addr && !c->tg.offset && c->r->btf) {
		if (!c->fn_state)
			c->fn_state = kbtf__func(c->r->btf, c->tg.mod,
						 c->tg.sym, &c->fn,
						 &c->fn_why) ?: 1;
		if (c->fn_state > 0 && c->fn.ret_type >= 0)
			type = c->fn.ret_type;
	}
	/*
	 * A string parameter past the sixth: the pointer is in its stack
	 * slot, the string where it points (the module takes a string only
	 * from memory, $argN or $comm).
	 */
	if (bare && type >= 0 && kpt_type_is_string(type) &&
	    !strncmp(fetch, "$stack", 6)) {
		memmove(fetch + 3, fetch, strlen(fetch) + 1);
		memcpy(fetch, "+0(", 3);
		strcat(fetch, ")");
	}
	if (snprintf(o, olen, "%s%s%s%s%s", name, name[0] ? "=" : "", fetch,
		     type >= 0 ? ":" : "",
		     type >= 0 ? kpt_type_names[type] : "") >= (int)olen)
		return fail(c, col, "%s%s", "line too long", "");
	return 0;
}

/* The head with "_SYM" after its name, when a glob expands. */
static void head_for(const char *h, int hlen, const char *sym, char *o,
		     size_t olen)
{
	const char *colon = memchr(h, ':', hlen), *slash;
	int base, room, i, start;

	if (!colon) {
		snprintf(o, olen, "%.*s", hlen, h);
		return;
	}
	slash = memchr(colon, '/', h + hlen - colon);
	start = (slash ? slash : colon) + 1 - h;
	base = hlen - start;
	room = KPT_SPEC_NAME_LEN - 1 - base - 1;
	if (room < 1) {
		snprintf(o, olen, "%.*s", hlen, h);
		return;
	}
	snprintf(o, olen, "%.*s_%.*s", hlen, h, room, sym);
	for (i = hlen + 1; o[i]; i++)
		if (!is_ident(o[i], false))
			o[i] = '_';
}

bool resolve__has_target(const char *line, const struct spec_parts *parts)
{
	char kind = parts->ntok ? line[parts->tok[0].off] : 0;

	return parts->ntok >= 2 && kind != '-' && kind != 's';
}

int resolve__line(struct resolver *r, const char *line,
		  const struct spec_parts *parts, const char *mod,
		  const char *sym, char *outbuf, struct line_map *map,
		  int *err_pos, char *msg, size_t msglen)
{
	struct ctx c = {
		.r = r, .line = line, .err_pos = err_pos, .msg = msg,
		.msglen = msglen,
	};
	struct out o = { .buf = outbuf, .map = map };
	char tok[KPT_SPEC_LINE_MAX];
	const char *t;
	unsigned int i;
	int len;

	memset(map, 0, sizeof(*map));
	outbuf[0] = '\0';
	if (!parts->ntok)
		return 0;
	t = line + parts->tok[0].off;
	len = parts->tok[0].len;
	c.tg.is_ret = t[0] == 'r';
	if (!resolve__has_target(line, parts)) {
		for (i = 0; i < parts->ntok; i++)
			out__put(&o, parts->tok[i].off,
				 line + parts->tok[i].off, parts->tok[i].len,
				 true);
		goto rest;
	}
	if (sym) {
		head_for(t, len, sym, tok, sizeof(tok));
		out__put(&o, parts->tok[0].off, tok, strlen(tok),
			 !strncmp(tok, t, len) && (int)strlen(tok) == len);
		snprintf(tok, sizeof(tok), "%s%s%s", mod ? mod : "",
			 mod ? ":" : "", sym);
		out__put(&o, parts->tok[1].off, tok, strlen(tok), false);
		snprintf(c.tg.mod, sizeof(c.tg.mod), "%s", mod ? mod : "");
		snprintf(c.tg.sym, sizeof(c.tg.sym), "%s", sym);
	} else {
		out__put(&o, parts->tok[0].off, t, len, true);
		out__put(&o, parts->tok[1].off, line + parts->tok[1].off,
			 parts->tok[1].len, true);
		parse_target(line + parts->tok[1].off, parts->tok[1].len,
			     &c.tg);
	}
	for (i = 2; i < parts->ntok; i++) {
		t = line + parts->tok[i].off;
		len = parts->tok[i].len;
		if (resolve_arg(&c, t, len, parts->tok[i].off, tok,
				sizeof(tok)))
			return -1;
		out__put(&o, parts->tok[i].off, tok, strlen(tok),
			 (int)strlen(tok) == len && !strncmp(tok, t, len));
	}
rest:
	if (parts->rest >= 0)
		out__put(&o, parts->rest, line + parts->rest, parts->rest_len,
			 true);
	if (o.full) {
		*err_pos = 0;
		snprintf(msg, msglen, "line too long");
		return -1;
	}
	return 0;
}
