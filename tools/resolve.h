/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resolve: what `kptrace probe add` writes for a spec. The tool accepts
 * more than the module's language and turns it into that language:
 * parameter names from BTF (p do_sys_openat2 dfd filename:ustring ->
 * dfd=$arg1:s32 filename=$arg2:ustring), @SYM -> @0xADDR from kallsyms,
 * and one line per function of a glob target.
 */
#ifndef __KPTRACE_RESOLVE_H
#define __KPTRACE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec.h"

struct kbtf;

#define RESOLVE_MAX_SEGS	64

/* Which part of a written line came from which part of the user's. */
struct line_map {
	unsigned int nr;
	struct {
		int orig;	/* offset in the user's line */
		int out;	/* offset in the written line */
		int len;	/* length in the written line */
		bool same;	/* copied as it was */
	} seg[RESOLVE_MAX_SEGS];
};

struct resolver {
	struct kbtf *btf;
	const char *kallsyms;
};

/* The parts of a spec line: head, target, args, then "if ..." as one. */
struct spec_parts {
	unsigned int ntok;
	struct {
		int off;
		int len;
	} tok[RESOLVE_MAX_SEGS - 2];
	int rest;		/* offset of "if ..." or "hist:...", or -1 */
	int rest_len;
};

/* Splits @line at blanks; a "#" token ends it. Returns false if empty. */
bool resolve__split(const char *line, struct spec_parts *parts);

/*
 * Whether the spec's second token is a function target (p, r, b): not
 * for a delete, nor for an s probe, whose tokens are all options.
 */
bool resolve__has_target(const char *line, const struct spec_parts *parts);

/*
 * Writes to @out (KPT_SPEC_LINE_MAX bytes) the line for the spec @line,
 * whose target is replaced by @mod:@sym when @sym is not NULL (a glob's
 * function; a name given in the head then gets "_SYM"). Returns 0, or -1
 * with the column in @line in *@err_pos and the reason in @msg.
 */
int resolve__line(struct resolver *r, const char *line,
		  const struct spec_parts *parts, const char *mod,
		  const char *sym, char *out, struct line_map *map,
		  int *err_pos, char *msg, size_t msglen);

/* The column in the user's line of column @pos of the written line. */
int line_map__orig(const struct line_map *map, int pos);

#endif /* __KPTRACE_RESOLVE_H */
