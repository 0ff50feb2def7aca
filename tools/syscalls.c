// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls: x86 system call names by number and number by name, from the
 * table generated from the kernel's syscall_64.tbl and syscall_32.tbl
 * (uapi/kptrace_syscalls.h, tools/gen_syscalls.sh); strace-like -e
 * selections of calls by name and glob; and the parser of tracefs'
 * sys_enter_NAME format files, where the kernel names each call's
 * arguments and says their C types. See syscalls.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/kptrace_syscalls.h>
#include "spec.h"

#include "syscall_classes.h"
#include "syscalls.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const *table(enum syscalls_abi abi, unsigned int *count)
{
	if (abi == SYSCALLS_32) {
		*count = ARRAY_LEN(kpt_syscalls_32);
		return kpt_syscalls_32;
	}
	*count = ARRAY_LEN(kpt_syscalls_64);
	return kpt_syscalls_64;
}

unsigned int syscalls__count(enum syscalls_abi abi)
{
	unsigned int count;

	table(abi, &count);
	return count;
}

const char *syscalls__name(enum syscalls_abi abi, unsigned int nr)
{
	unsigned int count;
	const char * const *t = table(abi, &count);

	return nr < count ? t[nr] : NULL;
}

const char *syscalls__name_fmt(enum syscalls_abi abi, unsigned int nr,
			       char *buf, size_t len)
{
	const char *name = syscalls__name(abi, nr);

	if (name)
		return name;
	snprintf(buf, len, "syscall_%u", nr);
	return buf;
}

int syscalls__nr(enum syscalls_abi abi, const char *name)
{
	unsigned int count, nr;
	const char * const *t = table(abi, &count);

	for (nr = 0; nr < count; nr++)
		if (t[nr] && !strcmp(t[nr], name))
			return nr;
	return -1;
}

const char *syscalls__event_name(unsigned int nr)
{
	/* syscall_64.tbl's entries whose entry point is not sys_NAME */
	static const struct {
		unsigned int nr;
		const char *event;
	} renamed[] = {
		{ 4, "newstat" }, { 5, "newfstat" }, { 6, "newlstat" },
		{ 40, "sendfile64" }, { 63, "newuname" }, { 166, "umount" },
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(renamed); i++)
		if (renamed[i].nr == nr)
			return renamed[i].event;
	return syscalls__name(SYSCALLS_64, nr);
}

/* strace's class %NAME (-e trace=%file): its bit, or 0 */
static unsigned int class_bit(const char *name)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} classes[] = {
		{ "desc", SYSCALL_CLASS_DESC }, { "file", SYSCALL_CLASS_FILE },
		{ "ipc", SYSCALL_CLASS_IPC }, { "net", SYSCALL_CLASS_NETWORK },
		{ "network", SYSCALL_CLASS_NETWORK },
		{ "process", SYSCALL_CLASS_PROCESS },
		{ "signal", SYSCALL_CLASS_SIGNAL },
		{ "memory", SYSCALL_CLASS_MEMORY },
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(classes); i++)
		if (!strcmp(classes[i].name, name))
			return classes[i].bit;
	return 0;
}

bool syscalls__in_class(enum syscalls_abi abi, unsigned int nr,
			const char *cls)
{
	const unsigned char *c = abi == SYSCALLS_64 ? syscall_classes_64 :
				 syscall_classes_32;
	unsigned int n = abi == SYSCALLS_64 ? ARRAY_LEN(syscall_classes_64) :
			 ARRAY_LEN(syscall_classes_32);

	return nr < n && (c[nr] & class_bit(cls));
}

/*
 * Sets @sel[nr] to @value for each call @glob matches (%CLASS: each call
 * of strace's class); false: none.
 */
static bool select_glob(enum syscalls_abi abi, const char * const *t,
			unsigned int count, const char *glob, bool value,
			bool *sel)
{
	unsigned int nr;
	bool matched = false;

	for (nr = 0; nr < count; nr++) {
		if (!t[nr] || (*glob == '%' ?
			       !syscalls__in_class(abi, nr, glob + 1) :
			       !kpt_glob_match(glob, t[nr])))
			continue;
		sel[nr] = value;
		matched = true;
	}
	return matched;
}

/*
 * The selection of @list in @abi; a NAME that matches nothing is an
 * error unless @lenient (its name in *@unmatched then, if not NULL).
 */
static int select_list(enum syscalls_abi abi, const char *list, bool *sel,
		       bool *rest, bool lenient, char *err, size_t errlen)
{
	unsigned int count, nr, pass;
	const char * const *t = table(abi, &count);
	char item[SYSCALL_NAME_LEN];
	bool any_plain = false;
	int selected = 0;
	const char *p;
	size_t len, exclude;

	/* the plain NAMEs first, then the !NAMEs: their order is no matter */
	memset(sel, 0, count * sizeof(*sel));
	*rest = false;
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1 && !any_plain) {
			for (nr = 0; nr < count; nr++)
				sel[nr] = true;
			*rest = true;
		}
		for (p = list; ; p += len + 1) {
			len = strcspn(p, ",");
			exclude = *p == '!';
			if (len == exclude) {
				snprintf(err, errlen, "empty name in '%s'", list);
				return -1;
			}
			if (len - exclude >= sizeof(item)) {
				snprintf(err, errlen, "name too long: '%.*s'",
					 (int)len, p);
				return -1;
			}
			memcpy(item, p + exclude, len - exclude);
			item[len - exclude] = '\0';
			any_plain |= !exclude;
			if (*item == '%' && !class_bit(item + 1)) {
				snprintf(err, errlen,
					 "no class '%s' (%%desc %%file %%ipc %%net %%network %%process %%signal %%memory)",
					 item);
				return -1;
			}
			if (exclude == pass &&
			    !select_glob(abi, t, count, item, !exclude, sel) &&
			    !lenient) {
				snprintf(err, errlen, "no system call matches '%s'",
					 item);
				return -1;
			}
			if (!p[len])
				break;
		}
	}
	/* named ones: '!*' would keep only numbers no call has, so none */
	for (nr = 0; nr < count; nr++)
		selected += sel[nr] && t[nr];
	return selected;
}

int syscalls__select(enum syscalls_abi abi, const char *list, bool *sel,
		     bool *rest, char *err, size_t errlen)
{
	return select_list(abi, list, sel, rest, false, err, errlen);
}

int syscalls__select_both(const char *list, bool *sel64, bool *rest64,
			  bool *sel32, bool *rest32, char *err, size_t errlen)
{
	unsigned int c64 = syscalls__count(SYSCALLS_64);
	unsigned int c32 = syscalls__count(SYSCALLS_32);
	char item[SYSCALL_NAME_LEN];
	int n64, n32;
	bool *one, rest;
	const char *p;
	size_t len, ex;

	n64 = select_list(SYSCALLS_64, list, sel64, rest64, true, err, errlen);
	if (n64 < 0)
		return -1;
	n32 = select_list(SYSCALLS_32, list, sel32, rest32, true, err, errlen);
	if (n32 < 0)
		return -1;
	/* each NAME must match a call of one ABI at least */
	one = calloc(c64 > c32 ? c64 : c32, sizeof(*one));
	if (!one) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (p = list; ; p += len + 1) {
		len = strcspn(p, ",");
		ex = *p == '!';
		memcpy(item, p + ex, len - ex);
		item[len - ex] = '\0';
		if (select_list(SYSCALLS_64, item, one, &rest, true, err,
				errlen) <= 0 &&
		    select_list(SYSCALLS_32, item, one, &rest, true, err,
				errlen) <= 0) {
			snprintf(err, errlen, "no system call matches '%s'",
				 item);
			free(one);
			return -1;
		}
		if (!p[len])
			break;
	}
	free(one);
	return n64 + n32;
}

/* --- format files ---------------------------------------------------- */

struct type_info {
	const char *type;
	enum syscall_arg_kind kind;
	unsigned int bytes;
};

/* The types of SYSCALL_DEFINE arguments that are numbers, x86-64 sizes. */
static const struct type_info types[] = {
	{ "int", SYSCALL_ARG_SIGNED, 4 },
	{ "long", SYSCALL_ARG_SIGNED, 8 },
	{ "long long", SYSCALL_ARG_SIGNED, 8 },
	{ "short", SYSCALL_ARG_SIGNED, 2 },
	{ "s32", SYSCALL_ARG_SIGNED, 4 },
	{ "__s32", SYSCALL_ARG_SIGNED, 4 },
	{ "s64", SYSCALL_ARG_SIGNED, 8 },
	{ "__s64", SYSCALL_ARG_SIGNED, 8 },
	{ "pid_t", SYSCALL_ARG_SIGNED, 4 },
	{ "clockid_t", SYSCALL_ARG_SIGNED, 4 },
	{ "timer_t", SYSCALL_ARG_SIGNED, 4 },
	{ "key_t", SYSCALL_ARG_SIGNED, 4 },
	{ "key_serial_t", SYSCALL_ARG_SIGNED, 4 },
	{ "mqd_t", SYSCALL_ARG_SIGNED, 4 },
	{ "rwf_t", SYSCALL_ARG_SIGNED, 4 },
	{ "off_t", SYSCALL_ARG_SIGNED, 8 },
	{ "loff_t", SYSCALL_ARG_SIGNED, 8 },
	{ "ssize_t", SYSCALL_ARG_SIGNED, 8 },
	{ "unsigned", SYSCALL_ARG_UNSIGNED, 4 },
	{ "unsigned int", SYSCALL_ARG_UNSIGNED, 4 },
	{ "unsigned long", SYSCALL_ARG_UNSIGNED, 8 },
	{ "unsigned long long", SYSCALL_ARG_UNSIGNED, 8 },
	{ "unsigned short", SYSCALL_ARG_UNSIGNED, 2 },
	{ "unsigned char", SYSCALL_ARG_UNSIGNED, 1 },
	{ "u8", SYSCALL_ARG_UNSIGNED, 1 },
	{ "u16", SYSCALL_ARG_UNSIGNED, 2 },
	{ "u32", SYSCALL_ARG_UNSIGNED, 4 },
	{ "__u32", SYSCALL_ARG_UNSIGNED, 4 },
	{ "u64", SYSCALL_ARG_UNSIGNED, 8 },
	{ "__u64", SYSCALL_ARG_UNSIGNED, 8 },
	{ "size_t", SYSCALL_ARG_UNSIGNED, 8 },
	{ "uid_t", SYSCALL_ARG_UNSIGNED, 4 },
	{ "gid_t", SYSCALL_ARG_UNSIGNED, 4 },
	{ "qid_t", SYSCALL_ARG_UNSIGNED, 4 },
	{ "old_uid_t", SYSCALL_ARG_UNSIGNED, 2 },
	{ "old_gid_t", SYSCALL_ARG_UNSIGNED, 2 },
	{ "umode_t", SYSCALL_ARG_UNSIGNED, 2 },
	{ "aio_context_t", SYSCALL_ARG_UNSIGNED, 8 },
};

bool syscalls__arg_is_string(const char *type, const char *name)
{
	static const char * const names[] = {
		"type", "_type", "_description", "_callout_info", "_key",
		"special", "name_user", "uargs", "library", "cmdline_ptr",
	};
	size_t i;

	if (!strncmp(type, "const ", 6))
		type += 6;
	if (strcmp(type, "char *"))
		return false;
	if (syscalls__ends_with(name, "name") ||
	    syscalls__ends_with(name, "path") ||
	    syscalls__ends_with(name, "file"))
		return true;
	for (i = 0; i < ARRAY_LEN(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static void arg_kind(struct syscall_arg *arg)
{
	const char *type = arg->type;
	size_t i;

	arg->bytes = 8;
	if (strchr(type, '*')) {
		arg->kind = syscalls__arg_is_string(type, arg->name) ?
			    SYSCALL_ARG_STR : SYSCALL_ARG_PTR;
		return;
	}
	if (!strncmp(type, "const ", 6))
		type += 6;
	arg->kind = SYSCALL_ARG_HEX;
	for (i = 0; i < ARRAY_LEN(types); i++) {
		if (!strcmp(type, types[i].type)) {
			arg->kind = types[i].kind;
			arg->bytes = types[i].bytes;
			return;
		}
	}
}

/* Does the line of @len bytes at @line start with @prefix? */
static bool starts(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(line, prefix, n);
}

/*
 * "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (after "field:"): the
 * type and name into @arg, or an error message.
 */
static const char *parse_field(const char *line, size_t len,
			       struct syscall_arg *arg)
{
	char buf[256], *semi, *name, *bracket;
	unsigned int offset, size, is_signed;
	size_t tlen;
	int end = -1;

	if (len >= sizeof(buf))
		return "field line too long";
	memcpy(buf, line, len);
	buf[len] = '\0';
	semi = strchr(buf, ';');
	if (!semi)
		return "no ';' after the field";
	*semi = '\0';
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%u;%n", &offset,
		   &size, &is_signed, &end) != 3 || end < 0)
		return "expected offset:N; size:N; signed:N;";
	while (semi > buf && semi[-1] == ' ')
		*--semi = '\0';
	name = strrchr(buf, ' ');
	if (!name || name == buf)
		return "expected a type and a name";
	*name++ = '\0';
	bracket = strchr(name, '[');
	if (bracket)
		*bracket = '\0';
	tlen = strlen(buf);
	while (tlen && buf[tlen - 1] == ' ')
		buf[--tlen] = '\0';
	if (!*name || !tlen)
		return "expected a type and a name";
	if (strlen(name) >= sizeof(arg->name) || tlen >= sizeof(arg->type))
		return "name or type too long";
	strcpy(arg->name, name);
	strcpy(arg->type, buf);
	return NULL;
}

int syscalls__parse_format(const char *text, struct syscall_format *fmt,
			   char *err, size_t errlen)
{
	const char *line, *end, *why = NULL;
	bool in_format = false, have_nr = false;
	struct syscall_arg arg;
	unsigned int lineno = 0;
	size_t len;

	memset(fmt, 0, sizeof(*fmt));
	for (line = text; *line; line = end + (*end == '\n')) {
		end = line + strcspn(line, "\n");
		len = end - line;
		lineno++;
		if (!in_format) {
			if (starts(line, len, "name: sys_enter_")) {
				len -= strlen("name: sys_enter_");
				if (!len || len >= sizeof(fmt->name)) {
					why = "bad event name";
					break;
				}
				memcpy(fmt->name, end - len, len);
			} else if (starts(line, len, "name: ")) {
				why = "not a sys_enter_ event";
				break;
			} else if (len == 7 && starts(line, len, "format:")) {
				in_format = true;
			}
			continue;
		}
		while (len && (*line == '\t' || *line == ' ')) {
			line++;
			len--;
		}
		if (!len)
			continue;
		if (starts(line, len, "print fmt:"))
			break;
		if (!starts(line, len, "field:")) {
			why = "expected field:";
			break;
		}
		why = parse_field(line + 6, len - 6, &arg);
		if (why)
			break;
		if (!strcmp(arg.name, "__syscall_nr"))
			have_nr = true;
		if (!strncmp(arg.name, "common_", 7) ||
		    !strncmp(arg.name, "__", 2))
			continue;
		if (fmt->nr_args == SYSCALL_MAX_ARGS) {
			why = "more than 6 arguments";
			break;
		}
		arg_kind(&arg);
		fmt->args[fmt->nr_args++] = arg;
	}
	if (why) {
		snprintf(err, errlen, "line %u: %s", lineno, why);
		return -1;
	}
	if (!fmt->name[0] || !in_format || !have_nr) {
		snprintf(err, errlen, "not a sys_enter_ format: no %s",
			 !fmt->name[0] ? "name: sys_enter_ line" :
			 !in_format ? "format: line" : "__syscall_nr field");
		return -1;
	}
	return 0;
}

int syscalls__read_format(const char *path, struct syscall_format *fmt,
			  char *err, size_t errlen)
{
	char buf[16384], msg[128];
	size_t n;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "cannot read %s (%s)", path,
			 strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	ret = ferror(f) ? -1 : 0;
	if (!ret && n == sizeof(buf) - 1 && getc(f) != EOF)
		ret = -2;
	fclose(f);
	if (ret) {
		snprintf(err, errlen, "cannot read %s (%s)", path,
			 ret == -2 ? "over 16 KiB" : "read error");
		return -1;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		snprintf(err, errlen, "%s: a NUL byte", path);
		return -1;
	}
	if (syscalls__parse_format(buf, fmt, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", path, msg);
		return -1;
	}
	return 0;
}
