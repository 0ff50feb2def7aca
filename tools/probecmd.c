// SPDX-License-Identifier: GPL-2.0
/*
 * probecmd: `kptrace probe add|del|list|clear`.
 *
 * add checks every spec with kpt_spec_parse() (include/spec/, the module's
 * own parser) before anything is written, and shows an error as the
 * module's error_log does, with a caret under the column. Specs are
 * written to /dev/kptrace, one per line, in writes of at most 4096 bytes
 * cut at line boundaries (the module refuses more with -E2BIG). When the
 * module refuses a line, the lines before it stay, as with ftrace's
 * kprobe_events; its reason is read from the last entry of error_log.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "glob.h"
#include "kbtf.h"
#include "paths.h"
#include "probecmd.h"
#include "probes.h"
#include "resolve.h"
#include "spec.h"

#define WRITE_MAX	4096	/* the module's limit for one write() */
#define DEFAULT_MAX	100	/* functions of one glob */

static struct probe_env {
	unsigned long max;
	bool dry_run;
	bool quiet;
	const char *file;
} penv = {
	.max = DEFAULT_MAX,
};

struct lines {
	size_t nr, cap;
	char **v;
};

static int lines__add(struct lines *l, const char *s)
{
	char **v;

	if (l->nr == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
	}
	l->v[l->nr] = strdup(s);
	return l->v[l->nr++] ? 0 : -ENOMEM;
}

static void lines__free(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
}

/*
 * As the module's error_log shows a refused line: escaped as untrusted
 * text (event__text_str()), the caret under the column @pos has there.
 */
static void show_error(const char *msg, const char *line, int pos)
{
	size_t len = strcspn(line, "\n");
	char *text = event__text_str(line, len);
	char *head = pos >= 0 ? event__text_str(line, pos) : NULL;
	int col = pos;

	/* a caret may stand past the line's end */
	if (head)
		col = (int)strlen(head) + pos - (int)strnlen(line, pos);
	fprintf(stderr, "kptrace: error: %s\n  Command: %s\n", msg,
		text ? text : "(out of memory)");
	if (pos >= 0)
		fprintf(stderr, "           %*s^\n", col, "");
	free(head);
	free(text);
}

/* kpt_spec_parse() of a written line; errors shown under the user's. */
static int check_line(const char *out, const char *user,
		      const struct line_map *map)
{
	struct kpt_spec *spec = malloc(sizeof(*spec));
	int ret;

	if (!spec)
		return -ENOMEM;
	ret = kpt_spec_parse(out, spec);
	if (ret)
		show_error(spec->err_msg, user,
			   map ? line_map__orig(map, spec->err_pos) :
				 spec->err_pos);
	free(spec);
	return ret;
}

static struct resolver resolver;

static struct kbtf *get_btf(void)
{
	if (!resolver.btf)
		resolver.btf = kbtf__new(path_from_env("KPTRACE_BTF_DIR",
						       BTF_DIR));
	return resolver.btf;
}

/* The target token, split: "MOD:" and the symbol (or glob). */
static void split_target(const char *t, int len, char *mod, size_t mlen,
			 char *sym, size_t slen)
{
	const char *colon = memchr(t, ':', len);

	mod[0] = '\0';
	if (colon) {
		snprintf(mod, mlen, "%.*s", (int)(colon - t), t);
		len -= colon + 1 - t;
		t = colon + 1;
	}
	snprintf(sym, slen, "%.*s", len, t);
}

/* A glob target: one line per function it names. */
static int add_glob(const char *user, const struct spec_parts *parts,
		    struct lines *out)
{
	char mod[KPT_SPEC_MOD_LEN], pattern[KPT_SPEC_SYM_LEN], err[512];
	char line[KPT_SPEC_LINE_MAX], msg[512], first_msg[512] = "";
	int pos, first_pos = -1;
	struct glob_result res;
	struct line_map map;
	size_t i, added = 0;
	int ret = 0;

	split_target(user + parts->tok[1].off, parts->tok[1].len, mod,
		     sizeof(mod), pattern, sizeof(pattern));
	if (strchr(pattern, '+')) {
		show_error("a glob takes no +OFFS", user, parts->tok[1].off);
		return -EINVAL;
	}
	if (glob__expand(mod[0] ? mod : NULL, pattern, &res, err,
			 sizeof(err))) {
		fprintf(stderr, "kptrace: %s\n", err);
		return -EINVAL;
	}
	if (res.nprobe > penv.max) {
		fprintf(stderr,
			"kptrace: '%s' matches %zu functions, more than --max %lu: narrow the glob or raise --max\n",
			pattern, res.nprobe, penv.max);
		glob__free(&res);
		return -E2BIG;
	}
	for (i = 0; i < res.nr; i++) {
		struct glob_sym *s = &res.syms[i];

		if (s->skip) {
			if (!penv.quiet)
				fprintf(stderr, "kptrace: skipping %s%s%s: %s\n",
					s->mod ? s->mod : "", s->mod ? ":" : "",
					s->name, s->skip);
			continue;
		}
		if (resolve__line(&resolver, user, parts, s->mod, s->name, line,
				  &map, &pos, msg, sizeof(msg))) {
			if (first_pos < 0) {
				first_pos = pos;
				snprintf(first_msg, sizeof(first_msg), "%s",
					 msg);
			}
			if (!penv.quiet)
				fprintf(stderr, "kptrace: skipping %s%s%s: %s\n",
					s->mod ? s->mod : "", s->mod ? ":" : "",
					s->name, msg);
			continue;
		}
		ret = check_line(line, user, &map);
		if (ret)
			break;
		ret = lines__add(out, line);
		if (ret)
			break;
		added++;
	}
	if (!ret && !added) {
		if (first_pos >= 0)
			show_error(first_msg, user, first_pos);
		else
			fprintf(stderr,
				"kptrace: '%s' matches no function that can be probed\n",
				pattern);
		ret = -ENOENT;
	} else if (!ret && !penv.quiet) {
		fprintf(stderr, "kptrace: '%s': %zu function%s", pattern,
			added, added == 1 ? "" : "s");
		if (res.nr > added)
			fprintf(stderr, ", %zu skipped", res.nr - added);
		fputc('\n', stderr);
	}
	glob__free(&res);
	return ret;
}

/* One spec of probe add: its lines, checked, into @out. */
static int add_spec(const char *user, struct lines *out)
{
	char line[KPT_SPEC_LINE_MAX], msg[512];
	struct spec_parts parts;
	struct line_map map;
	int pos;

	if (strlen(user) >= KPT_SPEC_LINE_MAX) {
		show_error("line too long", user, 0);
		return -EINVAL;
	}
	if (!resolve__split(user, &parts))
		return 0;	/* blank, or a comment */
	/* a glob of functions (an s probe's comm=GLOB is none) */
	if (resolve__has_target(user, &parts) &&
	    glob__is_glob(user + parts.tok[1].off, parts.tok[1].len))
		return add_glob(user, &parts, out);
	if (resolve__line(&resolver, user, &parts, NULL, NULL, line, &map,
			  &pos, msg, sizeof(msg))) {
		show_error(msg, user, pos);
		return -EINVAL;
	}
	if (check_line(line, user, &map))
		return -EINVAL;
	return lines__add(out, line);
}

/* The last entry of error_log, from its last line starting with '['. */
char *probecmd__error_log_last(void)
{
	const char *path = path_from_env("KPTRACE_ERROR_LOG", ERROR_LOG_PATH);
	char *buf = NULL, *last, *ret;
	size_t n = 0, cap = 0, got;
	FILE *f;

	/* the whole file: its last entry is its newest, escaped lines long */
	f = fopen(path, "re");
	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *more = realloc(buf, cap + 65536);

			if (!more)
				break;
			buf = more;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	for (last = buf + n; last > buf; last--)
		if (*last == '[' && last[-1] == '\n')
			break;
	ret = *last ? strdup(last) : NULL;
	free(buf);
	return ret;
}

static int device__open_write(const char **path)
{
	int fd;

	*path = path_from_env("KPTRACE_DEVICE", DEVICE_PATH);
	fd = open(*path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		fprintf(stderr,
			"kptrace: %s not found: is the kptrace module loaded? (insmod kptrace.ko)\n",
			*path);
	else if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "kptrace: opening %s needs root (CAP_PERFMON or CAP_SYS_ADMIN)\n",
			*path);
	else
		fprintf(stderr, "kptrace: cannot open %s: %s\n", *path,
			strerror(errno));
	return -1;
}

/*
 * Which line the module refused, from error_log's "Command: " line: the
 * line as the module keeps it (blanks around it cut, as strim() does),
 * escaped as show_error() does, all of it (a line that only starts with
 * the refused one is another).
 */
static long refused_line(const char *entry, const struct lines *l,
			 size_t from, size_t to)
{
	const char *cmd = entry ? strstr(entry, "  Command: ") : NULL;
	size_t len, i;
	char *text;
	bool same;

	if (!cmd)
		return -1;
	cmd += 11;
	len = strcspn(cmd, "\n");
	for (i = from; i < to; i++) {
		const char *s = l->v[i], *e = s + strlen(s);

		while (isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		text = event__text_str(s, e - s);
		same = text && strlen(text) == len && !strncmp(text, cmd, len);
		free(text);
		if (same)
			return (long)i;
	}
	return -1;
}

/* The module refused @line (NULL: a line of the write, which is unknown). */
static void say_refused(const char *line, int err)
{
	char *text = line ? event__text_str(line, WRITE_MAX) : NULL;

	if (line)
		fprintf(stderr, "kptrace: the module refused '%s': %s\n",
			text ? text : "?", strerror(err));
	else
		fprintf(stderr, "kptrace: the module refused a line of the write: %s\n",
			strerror(err));
	free(text);
}

/*
 * Writes @l to the device in writes of at most 4096 bytes, whole lines.
 * Returns 0, or 1 after saying why the module refused a line.
 */
static int write_lines(const struct lines *l, const char *what)
{
	char buf[WRITE_MAX], *before, *after;
	size_t i = 0, first, n, len;
	const char *path;
	ssize_t w;
	long bad;
	int fd, err;

	if (penv.dry_run) {
		for (i = 0; i < l->nr; i++)
			printf("%s\n", l->v[i]);
		return 0;
	}
	fd = device__open_write(&path);
	if (fd < 0)
		return 1;
	while (i < l->nr) {
		first = i;
		n = 0;
		while (i < l->nr) {
			len = strlen(l->v[i]);
			if (n + len + 1 > sizeof(buf))
				break;
			memcpy(buf + n, l->v[i], len);
			buf[n + len] = '\n';
			n += len + 1;
			i++;
		}
		before = probecmd__error_log_last();
		w = write(fd, buf, n);
		if (w == (ssize_t)n) {
			free(before);
			continue;
		}
		err = w < 0 ? errno : EIO;
		after = probecmd__error_log_last();
		bad = refused_line(after, l, first, i);
		say_refused(bad >= 0 ? l->v[bad] : NULL, err);
		if (after && (!before || strcmp(before, after)))
			fputs(after, stderr);
		else
			fprintf(stderr, "kptrace: (no reason in %s)\n",
				path_from_env("KPTRACE_ERROR_LOG",
					      ERROR_LOG_PATH));
		if (bad > 0)
			fprintf(stderr,
				"kptrace: %ld of %zu lines were applied before it (kptrace probe list)\n",
				bad, l->nr);
		else if (bad < 0 && first)
			fprintf(stderr,
				"kptrace: %zu of %zu lines were applied before this write (kptrace probe list)\n",
				first, l->nr);
		free(before);
		free(after);
		close(fd);
		return 1;
	}
	close(fd);
	if (!penv.quiet)
		fprintf(stderr, "kptrace: %s %zu probe%s\n", what, l->nr,
			l->nr == 1 ? "" : "s");
	return 0;
}

static int probe_add(int argc, char **argv)
{
	struct lines out = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int i, ret = 0;
	FILE *f;

	resolver.kallsyms = path_from_env("KPTRACE_KALLSYMS", "/proc/kallsyms");
	get_btf();
	if (optind >= argc && !penv.file) {
		fputs("kptrace: probe add needs a SPEC (see kptrace --help)\n",
		      stderr);
		return 2;
	}
	if (penv.file) {
		f = strcmp(penv.file, "-") ? fopen(penv.file, "re") : stdin;
		if (!f) {
			fprintf(stderr, "kptrace: cannot open %s: %s\n",
				penv.file, strerror(errno));
			return 1;
		}
		while (!ret && getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			/* a saved listing: the spec before " # id=" */
			if (strstr(line, " # id="))
				*strstr(line, " # id=") = '\0';
			ret = add_spec(line, &out);
		}
		free(line);
		if (f != stdin)
			fclose(f);
	}
	for (i = optind; !ret && i < argc; i++)
		ret = add_spec(argv[i], &out);
	if (!ret && !out.nr) {
		fputs("kptrace: no probe to add\n", stderr);
		ret = -EINVAL;
	}
	if (ret == -ENOMEM)
		fputs("kptrace: out of memory\n", stderr);
	if (!ret)
		ret = write_lines(&out, "added");
	else
		ret = 1;
	lines__free(&out);
	kbtf__free(resolver.btf);
	return ret;
}

/* "-:NAME" for every listed probe whose GROUP/NAME or NAME match @glob. */
static int listed_names(const char *glob, struct lines *out, size_t *nr)
{
	const char *path = path_from_env("KPTRACE_PROBES", PROBES_PATH);
	char *line = NULL, full[2 * KPT_SPEC_NAME_LEN + 8];
	struct kpt_spec *spec;
	const char *label;
	size_t cap = 0, spec_len, label_len;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr,
			"kptrace: cannot read %s (%s): is the kptrace module loaded? (needs root and debugfs)\n",
			path, strerror(errno));
		return -1;
	}
	spec = malloc(sizeof(*spec));
	while (spec && !ret && getline(&line, &cap, f) > 0) {
		if (probes__split_line(line, &spec_len, &label,
				       &label_len) < 0 ||
		    probes__parse_spec(line, spec_len, spec))
			continue;
		snprintf(full, sizeof(full), "%s/%s", spec->group, spec->name);
		if (glob && !kpt_glob_match(glob, full) &&
		    !kpt_glob_match(glob, spec->name))
			continue;
		snprintf(full, sizeof(full), "-:%s/%s", spec->group,
			 spec->name);
		ret = lines__add(out, full);
		(*nr)++;
	}
	free(line);
	fclose(f);
	if (!spec || ret) {
		fputs("kptrace: out of memory\n", stderr);
		ret = -1;
	}
	free(spec);
	return ret;
}

static int probe_del(int argc, char **argv)
{
	char line[KPT_SPEC_LINE_MAX];
	struct lines out = { 0 };
	size_t nr;
	int i, ret = 0;

	if (optind >= argc) {
		fputs("kptrace: probe del needs a NAME (see kptrace --help)\n",
		      stderr);
		return 2;
	}
	for (i = optind; !ret && i < argc; i++) {
		if (glob__is_glob(argv[i], strlen(argv[i]))) {
			nr = 0;
			ret = listed_names(argv[i], &out, &nr);
			if (!ret && !nr) {
				fprintf(stderr, "kptrace: no probe matches '%s'\n",
					argv[i]);
				ret = -1;
			}
			continue;
		}
		snprintf(line, sizeof(line), "-:%s", argv[i]);
		ret = check_line(line, line, NULL);
		if (!ret)
			ret = lines__add(&out, line);
	}
	ret = ret ? 1 : write_lines(&out, "deleted");
	lines__free(&out);
	return ret;
}

static int probe_clear(void)
{
	struct lines out = { 0 };
	size_t nr = 0;
	int ret;

	ret = listed_names(NULL, &out, &nr);
	if (!ret && !nr) {
		if (!penv.quiet)
			fputs("kptrace: no probes\n", stderr);
	} else if (!ret) {
		ret = write_lines(&out, "deleted");
	}
	lines__free(&out);
	return ret ? 1 : 0;
}

static int probe_list(void)
{
	const char *path = path_from_env("KPTRACE_PROBES", PROBES_PATH);
	char buf[65536];
	size_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr,
			"kptrace: cannot read %s (%s): is the kptrace module loaded? (needs root and debugfs)\n",
			path, strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return fflush(stdout) ? 1 : 0;
}

static const struct option probe_opts[] = {
	{ "max",	required_argument,	NULL, 'm' },
	{ "dry-run",	no_argument,		NULL, 'n' },
	{ "file",	required_argument,	NULL, 'f' },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ NULL,		0,			NULL, 0 },
};

int probecmd__main(int argc, char **argv)
{
	const char *cmd;
	char *end;
	int opt;

	if (argc < 2) {
		fputs("kptrace: probe needs a command: add, del, list or clear\n"
		      "Try 'kptrace --help' for more information.\n", stderr);
		return 2;
	}
	cmd = argv[1];
	argc--;
	argv++;
	optind = 0;	/* glibc: start again */
	opterr = 0;
	/* options may follow the specs; "-:NAME" is for probe del */
	while ((opt = getopt_long(argc, argv, "m:nf:q", probe_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			errno = 0;
			penv.max = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' ||
			    !penv.max) {
				fprintf(stderr, "kptrace: invalid --max '%s': a number > 0\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			penv.dry_run = true;
			break;
		case 'f':
			penv.file = optarg;
			break;
		case 'q':
			penv.quiet = true;
			break;
		default:
			fprintf(stderr,
				"kptrace: invalid option '%s' for probe %s\nTry 'kptrace --help' for more information.\n",
				argv[optind - 1], cmd);
			return 2;
		}
	}
	if (!strcmp(cmd, "add"))
		return probe_add(argc, argv);
	if (penv.file || penv.max != DEFAULT_MAX) {
		fprintf(stderr, "kptrace: --file and --max are for probe add\n");
		return 2;
	}
	if (!strcmp(cmd, "del") || !strcmp(cmd, "delete"))
		return probe_del(argc, argv);
	if (optind < argc) {
		fprintf(stderr, "kptrace: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!strcmp(cmd, "list"))
		return probe_list();
	if (!strcmp(cmd, "clear"))
		return probe_clear();
	fprintf(stderr,
		"kptrace: unknown probe command '%s': add, del, list or clear\nTry 'kptrace --help' for more information.\n",
		cmd);
	return 2;
}
