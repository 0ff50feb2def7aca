/* SPDX-License-Identifier: GPL-2.0 */
/*
 * speclist: the user's SPECs as the lines the module takes, each with the
 * user's text it came from, for `kptrace probe add` and `kptrace -e`:
 * resolve.c on each (BTF names, @SYM), a glob target expanded to one line
 * per function, every line checked by the module's own parser; an error
 * shown under the user's text, with a caret under its column.
 */
#ifndef __KPTRACE_SPECLIST_H
#define __KPTRACE_SPECLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve.h"

/* One line to give the module, and where it came from. */
struct spec_line {
	char *line;		/* the module's language, no newline */
	char *user;		/* the user's SPEC it came from */
	bool mapped;		/* map says where: else the same columns */
	struct line_map map;
};

struct speclist {
	size_t nr, cap;
	struct spec_line *v;
};

/* What the expansion of a SPEC may do. */
struct spec_opts {
	unsigned long max;	/* functions of one glob (--max) */
	bool quiet;		/* no note of skipped functions */
};

#define SPEC_MAX_DEFAULT	100	/* --max */

/*
 * Appends the lines of the user's @user (may be blank or a comment: no
 * line), resolved by @r, checked by kpt_spec_parse(). Returns 0, -ENOMEM
 * (nothing said), or another -errno after saying why on stderr.
 */
int speclist__resolve(struct speclist *l, struct resolver *r,
		      const char *user, const struct spec_opts *opts);

/*
 * Appends @line as it is, from the user's @user (@map: NULL when the
 * columns are the same). 0, or -ENOMEM.
 */
int speclist__add(struct speclist *l, const char *line, const char *user,
		  const struct line_map *map);

void speclist__free(struct speclist *l);

/* The column in @sl->user of column @pos of @sl->line. */
int spec_line__orig(const struct spec_line *sl, int pos);

/*
 * "kptrace: error: @msg", then the user's @user escaped as untrusted
 * text (event__text_str()) and a caret under its column @pos (none if
 * @pos < 0), as the module's error_log shows a refused line.
 */
void spec__show_error(const char *msg, const char *user, int pos);

/*
 * kpt_spec_parse() of @line, written for the user's @user (@map as for
 * speclist__add()): 0, or -errno after spec__show_error().
 */
int spec__check(const char *line, const char *user,
		const struct line_map *map);

#endif /* __KPTRACE_SPECLIST_H */
