// SPDX-License-Identifier: GPL-2.0
/*
 * probecmd: `kptrace probe add|del|list|clear`, on the default session.
 *
 * add resolves and checks every spec (speclist.c: BTF names, @SYM, globs,
 * kpt_spec_parse() of include/spec/, the module's own parser) before
 * anything reaches the module, and shows an error with a caret under the
 * user's column. Then each line is added with ioctl(KPT_IOC_ADD), which
 * answers in the call: a refusal brings the module's reason and its
 * column, shown under the user's text as the tool's own errors are. When
 * the module refuses a line, the lines before it stay, as with ftrace's
 * kprobe_events. del and clear send -:GROUP/NAME lines the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glob.h"
#include "kbtf.h"
#include "paths.h"
#include "probecmd.h"
#include "probes.h"
#include "session.h"
#include "speclist.h"

static struct probe_env {
	struct spec_opts spec;	/* --max, -q */
	bool dry_run;
	const char *file;
} penv = {
	.spec = { .max = SPEC_MAX_DEFAULT },
};

static struct resolver resolver;

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
 * Adds (or deletes) @l's lines one by one with KPT_IOC_ADD. Returns 0, or
 * 1 after the module's reason for the line it refused.
 */
static int add_lines(const struct speclist *l, const char *what)
{
	struct session s;
	const char *path;
	size_t i;
	int fd;

	if (penv.dry_run) {
		for (i = 0; i < l->nr; i++)
			printf("%s\n", l->v[i].line);
		return 0;
	}
	fd = device__open_write(&path);
	if (fd < 0)
		return 1;
	session__default(&s, fd, path);
	for (i = 0; i < l->nr; i++) {
		if (session__add(&s, &l->v[i], NULL, NULL))
			break;
	}
	close(fd);
	if (i < l->nr) {
		if (i)
			fprintf(stderr,
				"kptrace: %zu of %zu lines were applied before it (kptrace probe list)\n",
				i, l->nr);
		return 1;
	}
	if (!penv.spec.quiet)
		fprintf(stderr, "kptrace: %s %zu probe%s\n", what, l->nr,
			l->nr == 1 ? "" : "s");
	return 0;
}

static int probe_add(int argc, char **argv)
{
	struct speclist out = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int i, ret = 0;
	FILE *f;

	resolver.kallsyms = path_from_env("KPTRACE_KALLSYMS", KALLSYMS_PATH);
	resolver.btf = kbtf__new(path_from_env("KPTRACE_BTF_DIR", BTF_DIR));
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
			ret = speclist__resolve(&out, &resolver, line,
						&penv.spec);
		}
		free(line);
		if (f != stdin)
			fclose(f);
	}
	for (i = optind; !ret && i < argc; i++)
		ret = speclist__resolve(&out, &resolver, argv[i], &penv.spec);
	if (!ret && !out.nr) {
		fputs("kptrace: no probe to add\n", stderr);
		ret = -EINVAL;
	}
	if (ret == -ENOMEM)
		fputs("kptrace: out of memory\n", stderr);
	if (!ret)
		ret = add_lines(&out, "added");
	else
		ret = 1;
	speclist__free(&out);
	kbtf__free(resolver.btf);
	return ret;
}

/*
 * "-:NAME" for every listed probe of the default session (no session= in
 * its comment) whose GROUP/NAME or NAME match @glob.
 */
static int listed_names(const char *glob, struct speclist *out, size_t *nr)
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
		    strstr(line + spec_len, " session=") ||
		    probes__parse_spec(line, spec_len, spec))
			continue;
		snprintf(full, sizeof(full), "%s/%s", spec->group, spec->name);
		if (glob && !kpt_glob_match(glob, full) &&
		    !kpt_glob_match(glob, spec->name))
			continue;
		snprintf(full, sizeof(full), "-:%s/%s", spec->group,
			 spec->name);
		ret = speclist__add(out, full, full, NULL);
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
	struct speclist out = { 0 };
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
		ret = spec__check(line, line, NULL);
		if (!ret)
			ret = speclist__add(&out, line, line, NULL);
	}
	ret = ret ? 1 : add_lines(&out, "deleted");
	speclist__free(&out);
	return ret;
}

static int probe_clear(void)
{
	struct speclist out = { 0 };
	size_t nr = 0;
	int ret;

	ret = listed_names(NULL, &out, &nr);
	if (!ret && !nr) {
		if (!penv.spec.quiet)
			fputs("kptrace: no probes\n", stderr);
	} else if (!ret) {
		ret = add_lines(&out, "deleted");
	}
	speclist__free(&out);
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
			penv.spec.max = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' ||
			    !penv.spec.max) {
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
			penv.spec.quiet = true;
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
	if (penv.file || penv.spec.max != SPEC_MAX_DEFAULT) {
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
