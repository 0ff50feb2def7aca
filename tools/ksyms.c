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

/*
 * Parses one line in place. Returns false for lines to skip: malformed ones,
 * non-text symbols and zeroed addresses.
 */
static bool ksyms__parse_line(char *line, __u64 *addr, char **name,
			      size_t *name_len, char **mod, size_t *mod_len)
{
	char *p = line, *end;

	*addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || !*addr)
		return false;
	p = end + 1;
	if (!ksyms__is_text(p[0]) || p[1] != ' ')
		return false;
	p += 2;
	*name = p;
	*name_len = strcspn(p, " \t\n");
	if (!*name_len)
		return false;
	p += *name_len;
	*mod = NULL;
	*mod_len = 0;
	p += strspn(p, " \t");
	if (*p == '[') {
		end = strchr(p, ']');
		if (end && end > p + 1) {
			*mod = p + 1;
			*mod_len = end - p - 1;
		}
	}
	return true;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksym_load *load = NULL, *tmp;
	size_t nr = 0, cap = 0, i, last_mod_off = (size_t)-1;
	size_t last_mod_len = 0, line_cap = 0;
	struct ksyms *ksyms;
	char *line = NULL;
	int err = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	ksyms = calloc(1, sizeof(*ksyms));
	if (!ksyms) {
		err = ENOMEM;
		goto out;
	}

	while (getline(&line, &line_cap, f) > 0) {
		char *name, *mod;
		size_t name_len, mod_len;
		__u64 addr;

		if (!ksyms__parse_line(line, &addr, &name, &name_len,
				       &mod, &mod_len))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 4096;
			tmp = realloc(load, cap * sizeof(*load));
			if (!tmp) {
				err = ENOMEM;
				goto out;
			}
			load = tmp;
		}
		load[nr].addr = addr;
		load[nr].order = nr;
		if (ksyms__add_str(ksyms, name, name_len, &load[nr].name_off)) {
			err = ENOMEM;
			goto out;
		}
		/* module symbols come in runs: share one copy of the name */
		if (!mod) {
			load[nr].mod_off = (size_t)-1;
		} else if (last_mod_off != (size_t)-1 && mod_len == last_mod_len &&
			   !memcmp(ksyms->strs + last_mod_off, mod, mod_len)) {
			load[nr].mod_off = last_mod_off;
		} else {
			if (ksyms__add_str(ksyms, mod, mod_len, &last_mod_off)) {
				err = ENOMEM;
				goto out;
			}
			last_mod_len = mod_len;
			load[nr].mod_off = last_mod_off;
		}
		nr++;
	}
	if (ferror(f)) {
		err = EIO;
		goto out;
	}

	if (nr)
		qsort(load, nr, sizeof(*load), ksym_load__cmp);
	ksyms->syms = calloc(nr ? nr : 1, sizeof(*ksyms->syms));
	if (!ksyms->syms) {
		err = ENOMEM;
		goto out;
	}
	ksyms->nr = nr;
	for (i = 0; i < nr; i++) {
		struct ksym *sym = &ksyms->syms[i];
		size_t j;

		sym->addr = load[i].addr;
		sym->name = ksyms->strs + load[i].name_off;
		sym->module = load[i].mod_off == (size_t)-1 ? NULL :
			      ksyms->strs + load[i].mod_off;
		for (j = i + 1; j < nr && load[j].addr == sym->addr; j++)
			;
		sym->size = j < nr ? load[j].addr - sym->addr : 0;
	}

out:
	free(load);
	free(line);
	fclose(f);
	if (err) {
		ksyms__free(ksyms);
		errno = err;
		return NULL;
	}
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

int ksyms__lookup_name(const char *path, const char *mod, const char *name,
		       __u64 *addr)
{
	size_t cap = 0, nlen = strlen(name), mlen = mod ? strlen(mod) : 0;
	char *line = NULL, *p, *end;
	int found = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		__u64 a = strtoull(line, &end, 16);

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		p = end + 3;
		if (strncmp(p, name, nlen))
			continue;
		p += nlen;
		if (*p && !strchr(" \t\n", *p))
			continue;
		p += strspn(p, " \t");
		if (mlen ? (*p != '[' || strncmp(p + 1, mod, mlen) ||
			    p[mlen + 1] != ']') : *p == '[')
			continue;
		if (!found++)
			*addr = a;
	}
	free(line);
	fclose(f);
	return found;
}
