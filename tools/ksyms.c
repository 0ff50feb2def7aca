// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms: kernel symbol lookup from /proc/kallsyms.
 *
 * Lines look like "ffffffff81234500 T do_sys_openat2" or, for modules,
 * "ffffffffc0400080 T kpt_test_func\t[kpt_test]". Only text symbols
 * (t, T, w, W) are kept. They are sorted by address, keeping the file's
 * order among aliases (the kernel prints its preferred alias first and its
 * own lookup returns that one), and each symbol's size is the distance to
 * the next higher address, as the kernel's kallsyms_lookup_size_offset()
 * computes it. The last symbol has no known size and matches nothing.
 *
 * The file is parsed here only: ksyms__for_each() hands every line to its
 * caller (the table, a lookup by name, the globs of glob.c), and
 * ksyms__split_name() splits the "name [mod]" that other kernel lists end
 * their lines with too.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *strs;		/* names and module names, NUL separated */
	size_t strs_len;
	size_t strs_cap;
};

/* While loading, names are offsets into strs, which may move on realloc. */
struct ksym_load {
	__u64 addr;
	size_t name_off;
	size_t mod_off;		/* (size_t)-1 for vmlinux */
	size_t order;
};

static int ksyms__add_str(struct ksyms *ksyms, const char *s, size_t len,
			  size_t *off)
{
	if (ksyms->strs_len + len + 1 > ksyms->strs_cap) {
		size_t cap = ksyms->strs_cap ? ksyms->strs_cap * 2 : 1 << 20;
		char *strs;

		while (cap < ksyms->strs_len + len + 1)
			cap *= 2;
		strs = realloc(ksyms->strs, cap);
		if (!strs)
			return -ENOMEM;
		ksyms->strs = strs;
		ksyms->strs_cap = cap;
	}
	memcpy(ksyms->strs + ksyms->strs_len, s, len);
	ksyms->strs[ksyms->strs_len + len] = '\0';
	*off = ksyms->strs_len;
	ksyms->strs_len += len + 1;
	return 0;
}

static int ksym_load__cmp(const void *a, const void *b)
{
	const struct ksym_load *sa = a, *sb = b;

	if (sa->addr != sb->addr)
		return sa->addr < sb->addr ? -1 : 1;
	if (sa->order != sb->order)
		return sa->order < sb->order ? -1 : 1;
	return 0;
}

static bool ksyms__is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

bool ksyms__split_name(char *s, struct ksym_line *l)
{
	char *p, *end;

	s += strspn(s, " \t");
	l->name = s;
	l->name_len = strcspn(s, " \t\n");
	if (!l->name_len)
		return false;
	p = s + l->name_len;
	p += strspn(p, " \t");
	l->mod = NULL;
	l->mod_len = 0;
	if (*p == '[') {
		end = strchr(p, ']');
		if (end && end > p + 1) {
			l->mod = p + 1;
			l->mod_len = end - p - 1;
		}
	}
	return true;
}

/* "ADDR TYPE NAME[\t[MOD]]", in place. Returns false for a malformed line. */
static bool ksyms__parse_line(char *line, struct ksym_line *l)
{
	char *end;

	l->addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return false;
	l->type = end[1];
	return ksyms__split_name(end + 3, l);
}

/*
 * An ELF mapping symbol ($x, $d, $x.12: where code or data begins in an
 * arm64 or arm module): /proc/kallsyms lists a module's on arm64 before
 * 6.2, and the kernel's own lookup skips them; so does ours, or a frame
 * of a module would be named "$x".
 */
static bool ksyms__is_mapping(const struct ksym_line *l)
{
	return l->name_len >= 2 && l->name[0] == '$' &&
	       strchr("adtx", l->name[1]) &&
	       (l->name_len == 2 || l->name[2] == '.');
}

int ksyms__for_each(const char *path,
		    int (*fn)(const struct ksym_line *l, void *ctx), void *ctx)
{
	struct ksym_line l;
	size_t cap = 0;
	char *line = NULL;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0)
		if (ksyms__parse_line(line, &l) && !ksyms__is_mapping(&l))
			ret = fn(&l, ctx);
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	return ret;
}

/* What ksyms__load() gathers: names are offsets into strs while loading. */
struct ksyms_loader {
	struct ksyms *ksyms;
	struct ksym_load *load;
	size_t nr, cap;
	size_t last_mod_off, last_mod_len;
};

static int ksyms__load_line(const struct ksym_line *l, void *ctx)
{
	struct ksyms_loader *ld = ctx;
	struct ksyms *ksyms = ld->ksyms;
	struct ksym_load *tmp, *sym;

	if (!ksyms__is_text(l->type) || !l->addr)
		return 0;
	if (ld->nr == ld->cap) {
		ld->cap = ld->cap ? ld->cap * 2 : 4096;
		tmp = realloc(ld->load, ld->cap * sizeof(*ld->load));
		if (!tmp)
			return -ENOMEM;
		ld->load = tmp;
	}
	sym = &ld->load[ld->nr];
	sym->addr = l->addr;
	sym->order = ld->nr;
	if (ksyms__add_str(ksyms, l->name, l->name_len, &sym->name_off))
		return -ENOMEM;
	/* module symbols come in runs: share one copy of the name */
	if (!l->mod) {
		sym->mod_off = (size_t)-1;
	} else if (ld->last_mod_off != (size_t)-1 &&
		   l->mod_len == ld->last_mod_len &&
		   !memcmp(ksyms->strs + ld->last_mod_off, l->mod, l->mod_len)) {
		sym->mod_off = ld->last_mod_off;
	} else {
		if (ksyms__add_str(ksyms, l->mod, l->mod_len,
				   &ld->last_mod_off))
			return -ENOMEM;
		ld->last_mod_len = l->mod_len;
		sym->mod_off = ld->last_mod_off;
	}
	ld->nr++;
	return 0;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms_loader ld = { .last_mod_off = (size_t)-1 };
	struct ksym_load *load;
	size_t nr, i;
	int err;

	ld.ksyms = calloc(1, sizeof(*ld.ksyms));
	if (!ld.ksyms)
		return NULL;
	err = -ksyms__for_each(path, ksyms__load_line, &ld);
	load = ld.load;
	nr = ld.nr;
	if (err)
		goto out;

	if (nr)
		qsort(load, nr, sizeof(*load), ksym_load__cmp);
	ld.ksyms->syms = calloc(nr ? nr : 1, sizeof(*ld.ksyms->syms));
	if (!ld.ksyms->syms) {
		err = ENOMEM;
		goto out;
	}
	ld.ksyms->nr = nr;
	for (i = 0; i < nr; i++) {
		struct ksym *sym = &ld.ksyms->syms[i];
		size_t j;

		sym->addr = load[i].addr;
		sym->name = ld.ksyms->strs + load[i].name_off;
		sym->module = load[i].mod_off == (size_t)-1 ? NULL :
			      ld.ksyms->strs + load[i].mod_off;
		for (j = i + 1; j < nr && load[j].addr == sym->addr; j++)
			;
		sym->size = j < nr ? load[j].addr - sym->addr : 0;
	}

out:
	free(load);
	if (err) {
		ksyms__free(ld.ksyms);
		errno = err;
		return NULL;
	}
	return ld.ksyms;
}

struct ksyms *ksyms__load_frames(const char *path, bool quiet)
{
	struct ksyms *ksyms = ksyms__load(path);

	if (quiet)
		return ksyms;
	if (!ksyms)
		fprintf(stderr,
			"kptrace: cannot read %s (%s): call traces will show bare addresses\n",
			path, strerror(errno));
	else if (!ksyms__count(ksyms))
		fprintf(stderr,
			"kptrace: %s shows no addresses (kptr_restrict?): call traces will show bare addresses\n",
			path);
	return ksyms;
}

void ksyms__free(struct ksyms *ksyms)
{
	if (!ksyms)
		return;
	free(ksyms->syms);
	free(ksyms->strs);
	free(ksyms);
}

size_t ksyms__count(const struct ksyms *ksyms)
{
	return ksyms ? ksyms->nr : 0;
}

const struct ksym *ksyms__find(const struct ksyms *ksyms, __u64 addr,
			       __u64 *offset)
{
	const struct ksym *sym;
	size_t lo = 0, hi;

	if (!ksyms || !ksyms->nr || addr < ksyms->syms[0].addr)
		return NULL;

	/* the last symbol whose address is <= addr */
	hi = ksyms->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksyms->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first of its aliases: the name the kernel itself prints */
	while (lo && ksyms->syms[lo - 1].addr == ksyms->syms[lo].addr)
		lo--;
	sym = &ksyms->syms[lo];
	if (addr - sym->addr >= sym->size)
		return NULL;
	if (offset)
		*offset = addr - sym->addr;
	return sym;
}

/* What ksyms__lookup_name() looks for, and what it found. */
struct ksyms_lookup {
	const char *mod, *name;
	size_t mod_len, name_len;
	int found;
	__u64 addr;
};

static int ksyms__lookup_line(const struct ksym_line *l, void *ctx)
{
	struct ksyms_lookup *q = ctx;

	if (l->name_len != q->name_len || memcmp(l->name, q->name, q->name_len))
		return 0;
	if (!q->mod_len && l->mod)
		return 0;	/* vmlinux asked for */
	if (q->mod_len && (l->mod_len != q->mod_len ||
			   memcmp(l->mod, q->mod, q->mod_len)))
		return 0;
	if (!q->found++)
		q->addr = l->addr;
	return 0;
}

int ksyms__lookup_name(const char *path, const char *mod, const char *name,
		       __u64 *addr)
{
	struct ksyms_lookup q = {
		.mod = mod, .mod_len = mod ? strlen(mod) : 0,
		.name = name, .name_len = strlen(name),
	};
	int err = ksyms__for_each(path, ksyms__lookup_line, &q);

	if (err)
		return err;
	if (q.found)
		*addr = q.addr;
	return q.found;
}
