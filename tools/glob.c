// SPDX-License-Identifier: GPL-2.0
/*
 * glob: probe targets with '*' and '?' expanded to functions.
 *
 * The candidates are the functions of available_filter_functions ("name"
 * or "name [module]" lines: what ftrace can trace, so neither notrace nor
 * inlined) and the text symbols of kallsyms, that match the glob
 * (kpt_glob_match(), the matcher of the module's comm filters). Each is
 * refused, with the reason said, when it is
 *   - in the kprobes blacklist (/sys/kernel/debug/kprobes/blacklist),
 *   - only in kallsyms: notrace or inlined somewhere (a symbol of a
 *     compiler-made part such as foo.cold is left out silently),
 *   - ambiguous: listed twice in available_filter_functions, or more than
 *     one text symbol of that name in vmlinux (or in its module), so that
 *     a probe by name would pick one of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "ksyms.h"
#include "paths.h"
#include "spec.h"

#define FROM_AFF	0x1	/* in available_filter_functions */
#define FROM_KALLSYMS	0x2

struct cand {
	char *name;
	char *mod;
	unsigned int from;
	unsigned int aff_count;
	unsigned int ksym_count;
	bool blacklisted;
};

struct cands {
	size_t nr, cap;
	struct cand *v;
};

bool glob__is_glob(const char *s, size_t len)
{
	return memchr(s, '*', len) || memchr(s, '?', len);
}

static int cand__cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int r = strcmp(x->mod ? x->mod : "", y->mod ? y->mod : "");

	return r ? r : strcmp(x->name, y->name);
}

/* Appends a sighting; glob__expand() sorts and merges them. */
static int cands__add(struct cands *c, const struct ksym_line *l,
		      unsigned int from)
{
	struct cand *x;

	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;

		x = realloc(c->v, cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		c->v = x;
		c->cap = cap;
	}
	x = &c->v[c->nr];
	memset(x, 0, sizeof(*x));
	x->name = strndup(l->name, l->name_len);
	x->mod = l->mod ? strndup(l->mod, l->mod_len) : NULL;
	c->nr++;
	if (!x->name || (l->mod && !x->mod))
		return -ENOMEM;
	x->from = from;
	if (from == FROM_AFF)
		x->aff_count = 1;
	else
		x->ksym_count = 1;
	return 0;
}

/* Sorted sightings of one symbol become one candidate. */
static void cands__merge(struct cands *c)
{
	size_t i, out = 0;

	for (i = 0; i < c->nr; i++) {
		struct cand *x = &c->v[i], *o;

		if (out && !cand__cmp(&c->v[out - 1], x)) {
			o = &c->v[out - 1];
			o->from |= x->from;
			o->aff_count += x->aff_count;
			o->ksym_count += x->ksym_count;
			free(x->name);
			free(x->mod);
			continue;
		}
		c->v[out++] = *x;
	}
	c->nr = out;
}

/* Does "name [mod]" match the pattern and the module asked for? */
static bool wanted(const char *mod, const char *pattern,
		   const struct ksym_line *l)
{
	char save = l->name[l->name_len];
	bool ok;

	if (mod && (l->mod_len != strlen(mod) ||
		    strncmp(l->mod, mod, l->mod_len)))
		return false;
	l->name[l->name_len] = '\0';
	ok = kpt_glob_match(pattern, l->name);
	l->name[l->name_len] = save;
	return ok;
}

static int read_aff(const char *mod, const char *pattern, struct cands *c,
		    char *err, size_t errlen)
{
	const char *path = getenv("KPTRACE_FILTER_FUNCTIONS");
	struct ksym_line l;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	if (path && *path) {
		f = fopen(path, "re");
	} else {
		path = FILTER_FUNCS_PATH;
		f = fopen(path, "re");
		if (!f && errno == ENOENT) {
			path = FILTER_FUNCS_PATH2;
			f = fopen(path, "re");
		}
	}
	if (!f) {
		snprintf(err, errlen,
			 "cannot read %s (%s): globs need tracefs (mount -t tracefs none /sys/kernel/tracing) and root",
			 path, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		if (!ksyms__split_name(line, &l) || !wanted(mod, pattern, &l))
			continue;
		if (cands__add(c, &l, FROM_AFF))
			ret = -1;
	}
	free(line);
	fclose(f);
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

/* What read_kallsyms() looks for, and where it puts it. */
struct kallsyms_glob {
	const char *mod, *pattern;
	struct cands *c;
};

static int kallsyms_glob__line(const struct ksym_line *l, void *ctx)
{
	struct kallsyms_glob *g = ctx;

	if (!strchr("tTwW", l->type) || !wanted(g->mod, g->pattern, l))
		return 0;
	return cands__add(g->c, l, FROM_KALLSYMS);
}

/* Text symbols of kallsyms. Unreadable: no check. */
static int read_kallsyms(const char *mod, const char *pattern,
			 struct cands *c)
{
	const char *path = path_from_env("KPTRACE_KALLSYMS", "/proc/kallsyms");
	struct kallsyms_glob g = { .mod = mod, .pattern = pattern, .c = c };
	int ret = ksyms__for_each(path, kallsyms_glob__line, &g);

	return ret == -ENOMEM ? ret : 0;
}

static int str__cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* "0x...-0x...\tname" or "... name [mod]" lines: by name. */
static int read_blacklist(struct cands *c)
{
	const char *path = path_from_env("KPTRACE_BLACKLIST", BLACKLIST_PATH);
	char *line = NULL, **names = NULL, **tmp;
	size_t cap = 0, i, nr = 0, ncap = 0;
	struct ksym_line l;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!ret && getline(&line, &cap, f) > 0) {
		if (!ksyms__split_name(line + strcspn(line, " \t"), &l))
			continue;
		if (nr == ncap) {
			ncap = ncap ? ncap * 2 : 1024;
			tmp = realloc(names, ncap * sizeof(*names));
			if (!tmp) {
				ret = -ENOMEM;
				break;
			}
			names = tmp;
		}
		names[nr] = strndup(l.name, l.name_len);
		if (!names[nr++])
			ret = -ENOMEM;
	}
	free(line);
	fclose(f);
	if (!ret && nr) {
		qsort(names, nr, sizeof(*names), str__cmp);
		for (i = 0; i < c->nr; i++)
			if (bsearch(&c->v[i].name, names, nr, sizeof(*names),
				    str__cmp))
				c->v[i].blacklisted = true;
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return ret;
}

static void cands__free(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->v[i].name);
		free(c->v[i].mod);
	}
	free(c->v);
}

int glob__expand(const char *mod, const char *pattern,
		 struct glob_result *res, char *err, size_t errlen)
{
	struct cands c = { 0 };
	struct glob_sym *s;
	size_t i;

	memset(res, 0, sizeof(*res));
	if (read_aff(mod, pattern, &c, err, errlen))
		goto err;
	if (read_kallsyms(mod, pattern, &c)) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	if (c.nr)
		qsort(c.v, c.nr, sizeof(*c.v), cand__cmp);
	cands__merge(&c);
	if (read_blacklist(&c)) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	res->syms = calloc(c.nr ? c.nr : 1, sizeof(*res->syms));
	if (!res->syms) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	for (i = 0; i < c.nr; i++) {
		struct cand *x = &c.v[i];

		/* foo.cold, foo.isra.0: parts of functions, not functions */
		if (!(x->from & FROM_AFF) && strchr(x->name, '.'))
			continue;
		s = &res->syms[res->nr++];
		s->name = x->name;
		s->mod = x->mod;
		x->name = NULL;
		x->mod = NULL;
		if (x->blacklisted)
			s->skip = "in the kprobes blacklist";
		else if (!(x->from & FROM_AFF))
			s->skip = "not in available_filter_functions (notrace or inlined)";
		else if (x->aff_count > 1)
			s->skip = "ambiguous: listed more than once in available_filter_functions";
		else if (x->ksym_count > 1)
			s->skip = "ambiguous: more than one symbol of that name in kallsyms";
		else
			res->nprobe++;
	}
	cands__free(&c);
	return 0;

err:
	cands__free(&c);
	return -1;
}

void glob__free(struct glob_result *res)
{
	size_t i;

	for (i = 0; i < res->nr; i++) {
		free(res->syms[i].name);
		free(res->syms[i].mod);
	}
	free(res->syms);
	memset(res, 0, sizeof(*res));
}
