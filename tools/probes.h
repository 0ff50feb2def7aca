/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probes: what the module's probes are, from its probes listing: id ->
 * label (the name events carry), parsed spec (names and types of the
 * arguments), and the line itself.
 */
#ifndef __KPTRACE_PROBES_H
#define __KPTRACE_PROBES_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "spec.h"

struct kbtf;

/* How one argument of a record is shown. */
struct probe_arg {
	char name[KPT_SPEC_NAME_LEN];
	__u8 type;		/* enum kpt_fetch_type */
};

struct probe {
	__u32 id;
	bool known;		/* in the listing; else only "probe<id>" */
	bool reg_args;		/* name=/address= shape: arg0.. = $arg1..:x64 */
	char *line;		/* the listing's line, without the newline */
	char *label;		/* events carry this */
	struct kpt_spec *spec;	/* NULL if the line did not parse */
	unsigned int nargs;	/* args[] shown; past them: argN=0x.. */
	struct probe_arg *args;
	char *btf_note;		/* "# id=N btf=..." line for FILE.probes */
	/* return probes (r, b): BTF's type of the return value, -1: none */
	int ret_type;
	unsigned long gen;	/* when the entry was made: the later wins */
};

struct probes;

/*
 * Never fails for lack of the file: names then fall back to "probe<id>".
 * @btf (may be NULL) names the arguments of name=/address= probes from BTF.
 * @reread: the listing is the module's, while it records: an id it lacks
 * makes it read the file again, once per id. Else (a saved listing) it is
 * read only here. Returns NULL only when out of memory.
 */
struct probes *probes__load(const char *path, struct kbtf *btf, bool quiet,
			    bool reread);
void probes__free(struct probes *probes);

/*
 * The probe of @id, or NULL when the listing does not have it. With
 * @reread, an id not seen yet makes it re-read the file once, in case it
 * came later; the miss is remembered.
 */
const struct probe *probes__find(struct probes *probes, __u32 id);

/*
 * A return event's ret= of @p (may be NULL): the raw register, cut to the
 * return type BTF gave a return probe (an int's -2 is 4294967294 in rax).
 */
long long probe__ret(const struct probe *p, __s64 raw);

/* The name events of @id carry: the label, or "probe<id>". */
const char *probes__name(struct probes *probes, __u32 id);
/* ... of probe @p of @id, found already (may be NULL) */
const char *probe__name(const struct probe *p, __u32 id);

/*
 * Adds @line, a line of the listing ("SPEC # id=N ..."), as if the
 * listing had it: a session's probe, named by the canonical spec its
 * KPT_IOC_ADD answered (session.c). A line of an id known already
 * replaces it. 0, -EINVAL if @line has no id, or -ENOMEM.
 */
int probes__add(struct probes *probes, const char *line);

/* Every known probe, in id order, for saving FILE.probes. */
int probes__save(struct probes *probes, FILE *f);
/*
 * The same as @trace.probes, next to a trace saved with -w (mode 0600: it
 * may hold kernel addresses). 0, or -1 with a message.
 */
int probes__save_to(struct probes *probes, const char *trace);

/*
 * Splits a listing line "SPEC # id=N [label=L] ...": *@spec_len is the
 * length of the spec part. Returns the id or -1 when there is no id=.
 * *@label (not NUL-terminated, *@label_len bytes) is NULL without label=.
 */
long probes__split_line(const char *line, size_t *spec_len,
			const char **label, size_t *label_len);

/*
 * kpt_spec_parse() of a listing's spec part. A return probe at an offset
 * (an address= item the kernel moved) is listed as "r:... SYM+0xOFF ..."
 * or "b:...", which the language refuses: parsed as a 'p' line, then
 * given its kind back.
 */
int probes__parse_spec(const char *spec_text, size_t len,
		       struct kpt_spec *spec);

#endif /* __KPTRACE_PROBES_H */
