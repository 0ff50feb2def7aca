// SPDX-License-Identifier: GPL-2.0
/*
 * speclist: the user's SPECs as the module's lines (speclist.h). Each
 * SPEC is split (resolve__split()); a glob target (vfs_*, MOD:ext4_*)
 * becomes one line per function of available_filter_functions that can
 * be probed (glob.c), refused past --max; every line is resolved
 * (resolve__line(): BTF names, @SYM) and checked by kpt_spec_parse(), the
 * module's own parser, before anything reaches the module. A line keeps
 * the user's text and the map of its columns, so that an error found in
 * the line, here or by the module (KPT_IOC_ADD's pos), is shown under
 * the user's own text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "glob.h"
#include "speclist.h"

int speclist__add(struct speclist *l, const char *line, const char *user,
		  const struct line_map *map)
{
	struct spec_line *v, *sl;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	sl = &l->v[l->nr];
	memset(sl, 0, sizeof(*sl));
	sl->line = strdup(line);
	sl->user = strdup(user);
	if (map) {
		sl->map = *map;
		sl->mapped = true;
	}
	if (!sl->line || !sl->user) {
		free(sl->line);
		free(sl->user);
		return -ENOMEM;
	}
	l->nr++;
	return 0;
}

void speclist__free(struct speclist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].line);
		free(l->v[i].user);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int spec_line__orig(const struct spec_line *sl, int pos)
{
	return sl->mapped ? line_map__orig(&sl->map, pos) : pos;
}

void spec__show_error(const char *msg, const char *user, int pos)
{
	size_t len = strcspn(user, "\n");
	char *text = event__text_str(user, len);
	char *head = pos >= 0 ? event__text_str(user, pos) : NULL;
	int col = pos;

	/* a caret may stand past the line's end */
	if (head)
		col = (int)strlen(head) + pos - (int)strnlen(user, pos);
	fprintf(stderr, "kptrace: error: %s\n  Command: %s\n", msg,
		text ? text : "(out of memory)");
	if (pos >= 0)
		fprintf(stderr, "           %*s^\n", col, "");
	free(head);
	free(text);
}

int spec__check(const char *line, const char *user,
		const struct line_map *map)
{
	struct kpt_spec *spec = malloc(sizeof(*spec));
	int ret;

	if (!spec)
		return -ENOMEM;
	ret = kpt_spec_parse(line, spec);
	/* the shared parser's own message, at its column */
	if (ret)
		spec__show_error(spec->err_msg, user,
				 map ? line_map__orig(map, spec->err_pos) :
				       spec->err_pos);
	free(spec);
	return ret;
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
static int add_glob(struct speclist *l, struct resolver *r, const char *user,
		    const struct spec_parts *parts,
		    const struct spec_opts *opts)
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
		spec__show_error("a glob takes no +OFFS", user,
				 parts->tok[1].off);
		return -EINVAL;
	}
	if (glob__expand(mod[0] ? mod : NULL, pattern, &res, err,
			 sizeof(err))) {
		fprintf(stderr, "kptrace: %s\n", err);
		return -EINVAL;
	}
	if (res.nprobe > opts->max) {
		fprintf(stderr,
			"kptrace: '%s' matches %zu functions, more than --max %lu: narrow the glob or raise --max\n",
			pattern, res.nprobe, opts->max);
		glob__free(&res);
		return -E2BIG;
	}
	for (i = 0; i < res.nr; i++) {
		struct glob_sym *s = &res.syms[i];

		if (s->skip) {
			if (!opts->quiet)
				fprintf(stderr, "kptrace: skipping %s%s%s: %s\n",
					s->mod ? s->mod : "", s->mod ? ":" : "",
					s->name, s->skip);
			continue;
		}
		if (resolve__line(r, user, parts, s->mod, s->name, line, &map,
				  &pos, msg, sizeof(msg))) {
			if (first_pos < 0) {
				first_pos = pos;
				snprintf(first_msg, sizeof(first_msg), "%s",
					 msg);
			}
			if (!opts->quiet)
				fprintf(stderr, "kptrace: skipping %s%s%s: %s\n",
					s->mod ? s->mod : "", s->mod ? ":" : "",
					s->name, msg);
			continue;
		}
		ret = spec__check(line, user, &map);
		if (ret)
			break;
		ret = speclist__add(l, line, user, &map);
		if (ret)
			break;
		added++;
	}
	if (!ret && !added) {
		if (first_pos >= 0)
			spec__show_error(first_msg, user, first_pos);
		else
			fprintf(stderr,
				"kptrace: '%s' matches no function that can be probed\n",
				pattern);
		ret = -ENOENT;
	} else if (!ret && !opts->quiet) {
		fprintf(stderr, "kptrace: '%s': %zu function%s", pattern,
			added, added == 1 ? "" : "s");
		if (res.nr > added)
			fprintf(stderr, ", %zu skipped", res.nr - added);
		fputc('\n', stderr);
	}
	glob__free(&res);
	return ret;
}

int speclist__resolve(struct speclist *l, struct resolver *r,
		      const char *user, const struct spec_opts *opts)
{
	char line[KPT_SPEC_LINE_MAX], msg[512];
	struct spec_parts parts;
	struct line_map map;
	int pos, ret;

	if (strlen(user) >= KPT_SPEC_LINE_MAX) {
		spec__show_error("line too long", user, 0);
		return -EINVAL;
	}
	if (!resolve__split(user, &parts))
		return 0;	/* blank, or a comment */
	/* a glob of functions (an s probe's comm=GLOB is none) */
	if (resolve__has_target(user, &parts) &&
	    glob__is_glob(user + parts.tok[1].off, parts.tok[1].len))
		return add_glob(l, r, user, &parts, opts);
	if (resolve__line(r, user, &parts, NULL, NULL, line, &map, &pos, msg,
			  sizeof(msg))) {
		spec__show_error(msg, user, pos);
		return -EINVAL;
	}
	ret = spec__check(line, user, &map);
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	return speclist__add(l, line, user, &map);
}
