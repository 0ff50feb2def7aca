// SPDX-License-Identifier: GPL-2.0
/*
 * probes: what the module's probes are, from its probes listing,
 * /sys/kernel/debug/kptrace/probes, whose lines are
 *
 *	"SPEC # id=N [label=L] at=WHERE kprobe|kretprobe MODE hits=N missed=N"
 *
 * SPEC is in the language a write to /dev/kptrace takes; kpt_spec_parse()
 * (include/spec/, built into the tool too) gives the names and types of
 * the arguments that records carry. Events carry L when given, else the
 * spec's name. Ids are never reused while the module stays loaded, but
 * may be large and sparse: the table is sorted by id.
 *
 * The listing of a live module is read again when a record names an id it
 * lacks (a probe added since), once per such id: a miss is remembered as
 * an entry that is not known. A saved listing (-r) is read once: a crafted
 * trace full of ids it lacks costs a lookup each, never a re-read. Lines
 * are appended and the table sorted once per read, so a listing's order
 * costs nothing either. Names and labels are taken as they are: the text
 * output escapes them (event.c).
 *
 * Legacy probes (name=/address= module parameters) record arg0.. =
 * $arg1..:x64; at a function's entry, when BTF knows the function, they
 * are shown with the parameters' names and types instead. A saved
 * FILE.probes carries that as "# id=N btf=NAME:TYPE,..." lines, so that
 * -r shows the same on a machine without that kernel's BTF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbtf.h"
#include "probes.h"

struct probes {
	char *path;
	struct kbtf *btf;
	bool quiet;
	bool reread;		/* a live listing: read again for new ids */
	bool btf_said;		/* "no BTF" said once */
	size_t nr, cap;
	struct probe *tab;	/* sorted by id, but while probes__read() */
	unsigned long gen;	/* of the last entry made: the later wins */
};

long probes__split_line(const char *line, size_t *spec_len,
			const char **label, size_t *label_len)
{
	const char *comment = strstr(line, " # id="), *l, *end;
	unsigned long id;
	char *p;

	*label = NULL;
	*label_len = 0;
	if (!comment)
		return -1;
	*spec_len = comment - line;
	errno = 0;
	id = strtoul(comment + 6, &p, 10);
	if (p == comment + 6 || errno || id > 0xffffffffUL ||
	    (*p && *p != ' ' && *p != '\n'))
		return -1;
	l = strstr(p, " label=");
	if (l) {
		l += 7;
		end = l + strcspn(l, " \t\n");
		if (end > l) {
			*label = l;
			*label_len = end - l;
		}
	}
	return (long)id;
}

int probes__parse_spec(const char *spec_text, size_t len,
		       struct kpt_spec *spec)
{
	char buf[KPT_SPEC_LINE_MAX], kind, *p;
	unsigned long maxactive;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, spec_text, len);
	buf[len] = '\0';
	ret = kpt_spec_parse(buf, spec);
	kind = buf[0];
	if (!ret || (kind != KPT_SPEC_RETURN && kind != KPT_SPEC_BOTH) ||
	    !spec->err_msg ||
	    strcmp(spec->err_msg, "a return probe takes no offset"))
		return ret;
	/* that offset alone: the same line as a p probe, then its head */
	maxactive = strtoul(buf + 1, &p, 10);
	*--p = KPT_SPEC_ENTRY;
	ret = kpt_spec_parse(p, spec);
	if (!ret) {
		spec->kind = kind;
		spec->maxactive = maxactive;
	}
	return ret;
}

static void probe__clear(struct probe *p)
{
	free(p->line);
	free(p->label);
	free(p->spec);
	free(p->args);
	free(p->btf_note);
	memset(p, 0, sizeof(*p));
	p->ret_type = -1;
}

/* arg0=$arg1:x64 arg1=$arg2:x64 ...: what name=/address= probes record */
static bool probe__has_reg_args(const struct kpt_spec *spec)
{
	unsigned int i;
	char name[16];

	if (!spec->nargs)
		return false;
	for (i = 0; i < spec->nargs; i++) {
		const struct kpt_fetch *f = &spec->args[i];

		snprintf(name, sizeof(name), "arg%u", i);
		if (strcmp(f->name, name) || f->base != KPT_FB_ARG ||
		    f->index != i + 1 || f->nderef || f->type != KPT_T_X64)
			return false;
	}
	return !spec->ncond;
}

/* The arguments as the spec says. */
static int probe__args_from_spec(struct probe *p)
{
	unsigned int i;

	p->nargs = p->spec->nargs;
	p->args = calloc(p->nargs ? p->nargs : 1, sizeof(*p->args));
	if (!p->args)
		return -ENOMEM;
	for (i = 0; i < p->nargs; i++) {
		memcpy(p->args[i].name, p->spec->args[i].name,
		       sizeof(p->args[i].name));
		p->args[i].type = p->spec->args[i].type;
	}
	return 0;
}

/*
 * A probe of name=/address= shape at a function's entry shows the function's parameters
 * that are in registers, as many as it records. A return probe on a
 * function, of that shape or not, shows ret= as the function's return type (the
 * module records the whole register: an int's upper half means nothing).
 */
static void probe__args_from_btf(struct probes *probes, struct probe *p)
{
	const struct kpt_spec *spec = p->spec;
	const char *why = NULL;
	struct kbtf_func fn;
	unsigned int i, n = 0;
	char want[16], *note, *q;
	int ret;

	if (!probes->btf || !spec->sym[0] || spec->offset ||
	    (!p->reg_args && spec->kind == KPT_SPEC_ENTRY))
		return;
	ret = kbtf__func(probes->btf, spec->mod, spec->sym, &fn, &why);
	if (ret == -ENODATA) {
		if (p->reg_args && !probes->quiet && !probes->btf_said)
			fprintf(stderr,
				"kptrace: no BTF (%s): name=/address= probes show arg0.. as recorded\n",
				why);
		probes->btf_said = true;
		return;
	}
	if (ret)
		return;
	if (spec->kind != KPT_SPEC_ENTRY && fn.ret_type >= 0 &&
	    fn.ret_type < KPT_T_STRING)
		p->ret_type = fn.ret_type;
	for (n = 0; p->reg_args && n < fn.nparams && n < p->nargs; n++) {
		snprintf(want, sizeof(want), "$arg%u", n + 1);
		if (!fn.params[n].name[0] || fn.params[n].type < 0 ||
		    strcmp(fn.params[n].fetch, want))
			break;
	}
	if (!n && p->ret_type < 0)
		return;
	note = malloc(64 + n * (KPT_SPEC_NAME_LEN + 10));
	if (!note)
		return;
	/* past the parameters, the registers mean nothing: not shown */
	if (p->reg_args && !fn.vararg && n == fn.nparams)
		p->nargs = n;
	q = note + sprintf(note, "# id=%u btf=", p->id);
	for (i = 0; i < n; i++) {
		snprintf(p->args[i].name, sizeof(p->args[i].name), "%s",
			 fn.params[i].name);
		p->args[i].type = fn.params[i].type;
		q += sprintf(q, "%s%s:%s", i ? "," : "", p->args[i].name,
			     kpt_type_names[p->args[i].type]);
	}
	if (p->ret_type >= 0)
		q += sprintf(q, " ret=%s", kpt_type_names[p->ret_type]);
	sprintf(q, " shown=%u", p->nargs);
	free(p->btf_note);
	p->btf_note = note;
}

long long probe__ret(const struct probe *p, __s64 raw)
{
	switch (p ? p->ret_type : -1) {
	case KPT_T_S8:
		return (__s8)raw;
	case KPT_T_S16:
		return (__s16)raw;
	case KPT_T_S32:
		return (__s32)raw;
	case KPT_T_U8:
	case KPT_T_X8:
		return (__u8)raw;
	case KPT_T_U16:
	case KPT_T_X16:
		return (__u16)raw;
	case KPT_T_U32:
	case KPT_T_X32:
		return (__u32)raw;
	default:
		return raw;
	}
}

/* "# id=N btf=NAME:TYPE,... shown=N", as probes__save() writes it */
static void probe__apply_note(struct probe *p, const char *note)
{
	const char *q = strstr(note, " btf=");
	unsigned int i = 0, t;
	size_t len, tlen;
	char *end;

	if (!q || !p->spec)
		return;
	q += 5;
	/* a spec probe's note has only ret= */
	while (p->reg_args && *q && *q != ' ' && *q != '\n' &&
	       i < p->spec->nargs) {
		len = strcspn(q, "\n:, ");
		if (q[len] != ':' || !len || len >= KPT_SPEC_NAME_LEN)
			return;
		tlen = strcspn(q + len + 1, "\n, ");
		for (t = 0; t < KPT_T_NR; t++)
			if (strlen(kpt_type_names[t]) == tlen &&
			    !strncmp(kpt_type_names[t], q + len + 1, tlen))
				break;
		if (t == KPT_T_NR)
			return;
		memcpy(p->args[i].name, q, len);
		p->args[i].name[len] = '\0';
		p->args[i].type = t;
		i++;
		q += len + 1 + tlen;
		if (*q == ',')
			q++;
	}
	end = strstr(q, " ret=");
	if (end) {
		tlen = strcspn(end + 5, "\n ");
		for (t = 0; t < KPT_T_STRING; t++)
			if (strlen(kpt_type_names[t]) == tlen &&
			    !strncmp(kpt_type_names[t], end + 5, tlen))
				p->ret_type = t;
	}
	q = strstr(q, " shown=");
	if (q && p->reg_args) {
		t = strtoul(q + 7, &end, 10);
		if (end > q + 7 && t <= p->spec->nargs)
			p->nargs = t;
	}
	free(p->btf_note);
	p->btf_note = strndup(note, strcspn(note, "\n"));
}

static struct probe *probes__lookup(struct probes *probes, __u32 id)
{
	size_t lo = 0, hi = probes->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (probes->tab[mid].id == id)
			return &probes->tab[mid];
		if (probes->tab[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Room for one more entry at the end of the table. */
static struct probe *probes__grow(struct probes *probes)
{
	struct probe *p;

	if (probes->nr == probes->cap) {
		size_t cap = probes->cap ? probes->cap * 2 : 64;

		p = realloc(probes->tab, cap * sizeof(*p));
		if (!p)
			return NULL;
		probes->tab = p;
		probes->cap = cap;
	}
	p = &probes->tab[probes->nr];
	memset(p, 0, sizeof(*p));
	p->ret_type = -1;
	return p;
}

/* A new entry of @id at its place in the sorted table (a remembered miss). */
static struct probe *probes__insert(struct probes *probes, __u32 id)
{
	struct probe *p = probes__grow(probes);
	size_t lo = 0, hi = probes->nr;

	if (!p)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (probes->tab[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&probes->tab[lo + 1], &probes->tab[lo],
		(probes->nr - lo) * sizeof(*p));
	probes->nr++;
	p = &probes->tab[lo];
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->ret_type = -1;
	p->gen = ++probes->gen;
	return p;
}

static int probe__cmp(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* Sorts the table by id; of entries with one id, the latest is kept. */
static void probes__sort(struct probes *probes)
{
	size_t i, out = 0;

	qsort(probes->tab, probes->nr, sizeof(*probes->tab), probe__cmp);
	for (i = 0; i < probes->nr; i++) {
		if (i + 1 < probes->nr &&
		    probes->tab[i + 1].id == probes->tab[i].id) {
			probe__clear(&probes->tab[i]);
			continue;
		}
		probes->tab[out++] = probes->tab[i];
	}
	probes->nr = out;
}

/*
 * One line of the listing, appended to the table: probes__sort() puts it
 * in its place. Returns -ENOMEM, else 0.
 */
static int probes__add_line(struct probes *probes, const char *line)
{
	struct kpt_spec *spec;
	size_t spec_len, label_len, len = strcspn(line, "\n");
	const char *label;
	struct probe *p;
	long id;

	id = probes__split_line(line, &spec_len, &label, &label_len);
	if (id < 0)
		return 0;
	p = probes__grow(probes);
	if (!p)
		return -ENOMEM;
	spec = malloc(sizeof(*spec));
	if (!spec)
		return -ENOMEM;
	if (probes__parse_spec(line, spec_len, spec)) {
		free(spec);
		spec = NULL;
	}
	/* in the table from here on: probe__clear() frees what it holds */
	probes->nr++;
	p->id = (__u32)id;
	p->gen = ++probes->gen;
	p->known = true;
	p->spec = spec;
	p->line = strndup(line, len);
	if (label)
		p->label = strndup(label, label_len);
	else if (spec)
		p->label = strdup(spec->name);
	else
		p->label = NULL;
	if (!p->line || (!p->label && (label || spec)))
		return -ENOMEM;
	if (!spec)
		return 0;
	p->reg_args = probe__has_reg_args(spec);
	if (probe__args_from_spec(p))
		return -ENOMEM;
	return 0;
}

/* (Re)reads the listing; "# id=N btf=" notes apply after all lines. */
static void probes__read(struct probes *probes)
{
	char *line = NULL, **notes = NULL, **tmp;
	size_t cap = 0, nnotes = 0, i;
	struct probe *p;
	FILE *f;

	if (!probes->path)
		return;
	f = fopen(probes->path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "# id=", 5)) {
			tmp = realloc(notes, (nnotes + 1) * sizeof(*notes));
			if (!tmp)
				break;
			notes = tmp;
			notes[nnotes] = strdup(line);
			if (notes[nnotes])
				nnotes++;
			continue;
		}
		if (probes__add_line(probes, line))
			break;
	}
	fclose(f);
	free(line);
	probes__sort(probes);
	for (i = 0; i < probes->nr; i++) {
		p = &probes->tab[i];
		if (p->known && p->spec && !p->btf_note)
			probe__args_from_btf(probes, p);
	}
	for (i = 0; i < nnotes; i++) {
		p = probes__lookup(probes, strtoul(notes[i] + 5, NULL, 10));
		if (p)
			probe__apply_note(p, notes[i]);
		free(notes[i]);
	}
	free(notes);
}

int probes__add(struct probes *probes, const char *line)
{
	size_t spec_len, label_len;
	const char *label;
	struct probe *p;
	long id;
	int ret;

	id = probes__split_line(line, &spec_len, &label, &label_len);
	if (id < 0)
		return -EINVAL;
	ret = probes__add_line(probes, line);
	probes__sort(probes);
	p = probes__lookup(probes, (__u32)id);
	if (p && p->known && p->spec && !p->btf_note)
		probe__args_from_btf(probes, p);
	return ret;
}

struct probes *probes__load(const char *path, struct kbtf *btf, bool quiet,
			    bool reread)
{
	struct probes *probes;

	probes = calloc(1, sizeof(*probes));
	if (!probes)
		return NULL;
	probes->btf = btf;
	probes->quiet = quiet;
	probes->reread = reread;
	if (path) {
		probes->path = strdup(path);
		if (!probes->path) {
			free(probes);
			return NULL;
		}
	}
	probes__read(probes);
	return probes;
}

void probes__free(struct probes *probes)
{
	size_t i;

	if (!probes)
		return;
	for (i = 0; i < probes->nr; i++)
		probe__clear(&probes->tab[i]);
	free(probes->tab);
	free(probes->path);
	free(probes);
}

const struct probe *probes__find(struct probes *probes, __u32 id)
{
	struct probe *p;

	if (!probes)
		return NULL;
	p = probes__lookup(probes, id);
	if (!p && probes->reread) {
		/* not seen yet: read the file again, once for this id */
		probes__read(probes);
		p = probes__lookup(probes, id);
		if (!p)
			p = probes__insert(probes, id);
	}
	return p && p->known ? p : NULL;
}

const char *probe__name(const struct probe *p, __u32 id)
{
	static char fallback[32];

	if (p && p->label)
		return p->label;
	snprintf(fallback, sizeof(fallback), "probe%u", id);
	return fallback;
}

const char *probes__name(struct probes *probes, __u32 id)
{
	return probe__name(probes__find(probes, id), id);
}

int probes__save(struct probes *probes, FILE *f)
{
	size_t i;

	for (i = 0; probes && i < probes->nr; i++)
		if (probes->tab[i].known)
			fprintf(f, "%s\n", probes->tab[i].line);
	for (i = 0; probes && i < probes->nr; i++)
		if (probes->tab[i].known && probes->tab[i].btf_note)
			fprintf(f, "%s\n", probes->tab[i].btf_note);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int probes__save_to(struct probes *probes, const char *trace)
{
	char path[4096];
	FILE *f;
	int fd, ret;

	snprintf(path, sizeof(path), "%s.probes", trace);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "kptrace: cannot create %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ret = probes__save(probes, f);
	if (fclose(f) || ret) {
		fprintf(stderr, "kptrace: cannot write %s\n", path);
		return -1;
	}
	return 0;
}
