/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls: x86 system call names and numbers (the table generated into
 * include/uapi/ from the kernel's), -e NAME[,!NAME...] selections, and
 * the parser of tracefs' events/syscalls/sys_enter_NAME/format, which
 * names each call's arguments.
 */
#ifndef __KPTRACE_SYSCALLS_H
#define __KPTRACE_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum syscalls_abi {
	SYSCALLS_64,		/* x86-64 (not x32) */
	SYSCALLS_32,		/* i386: tasks in 32-bit mode */
};

/* Does @s end with @suffix? */
static inline bool syscalls__ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* One past the highest number of @abi: the size of a selection. */
unsigned int syscalls__count(enum syscalls_abi abi);

/* The name of call @nr of @abi, or NULL for a number no table names. */
const char *syscalls__name(enum syscalls_abi abi, unsigned int nr);

/* The name, or "syscall_NNN" written into @buf (of @len bytes). */
const char *syscalls__name_fmt(enum syscalls_abi abi, unsigned int nr,
			       char *buf, size_t len);

/* The number of call @name of @abi, or -1. */
int syscalls__nr(enum syscalls_abi abi, const char *name);

/*
 * The NAME of tracefs' events/syscalls/sys_enter_NAME of x86-64 call @nr:
 * the name the SYSCALL_DEFINE of its entry point gives, which is the
 * call's but for a few (stat's entry point is sys_newstat: the event is
 * sys_enter_newstat). NULL for a number the table does not name.
 */
const char *syscalls__event_name(unsigned int nr);

/*
 * A selection, as strace's -e trace=: @list is NAME[,NAME...], each a name,
 * a glob ('*', '?': the matcher of comm filters and probe globs,
 * kpt_glob_match()) or one of strace's classes (%file, %desc, %net,
 * %network, %process, %signal, %memory, %ipc: its calls as strace's
 * tables have them), and a NAME written !NAME excludes what it matches.
 * The selection is what the plain NAMEs match (every call when there is
 * none) less what the !NAMEs match, in any order: "open*,!openat2" is
 * open, openat and open_by_handle_at, "!read,!write" all but read and
 * write. A NAME that matches nothing, or an empty one, is an error.
 * Sets @sel[nr] (syscalls__count(@abi) entries) for each number selected.
 * With !NAMEs only, the numbers no name is known for are selected too,
 * as strace's "trace=!read" keeps them: those in the table's gaps, and
 * those past its end (a kernel newer than the table), which *@rest says.
 * Returns the count of named calls selected (0: none, which '!*' is),
 * or -1 with a message in @err.
 */
int syscalls__select(enum syscalls_abi abi, const char *list, bool *sel,
		     bool *rest, char *err, size_t errlen);

/*
 * The same selection of both ABIs at once (-e, for nr= and nr32=): a NAME
 * must match a call of one of them, not of each (newfstatat is x86-64's
 * only, socketcall i386's). Returns the count of named calls selected in
 * both, or -1 with a message in @err.
 */
int syscalls__select_both(const char *list, bool *sel64, bool *rest64,
			  bool *sel32, bool *rest32, char *err, size_t errlen);

/*
 * Is call @nr of @abi in strace's class @cls ("file", "desc", "ipc",
 * "net" or "network", "process", "signal", "memory": strace's -e
 * trace=%CLASS, from tools/syscalls/classes)?
 */
bool syscalls__in_class(enum syscalls_abi abi, unsigned int nr,
			const char *cls);

/* --- events/syscalls/sys_enter_NAME/format -------------------------- */

#define SYSCALL_MAX_ARGS	6
#define SYSCALL_NAME_LEN	64	/* a call's or an argument's name */
#define SYSCALL_TYPE_LEN	64	/* an argument's C type */

enum syscall_arg_kind {
	SYSCALL_ARG_SIGNED,	/* int, long, pid_t, off_t, ...: decimal */
	SYSCALL_ARG_UNSIGNED,	/* unsigned int, size_t, u32, ...: decimal */
	SYSCALL_ARG_HEX,	/* a type not in the table: 0x hex */
	SYSCALL_ARG_PTR,	/* a pointer: 0x hex, NULL */
	SYSCALL_ARG_STR,	/* a user string: see syscalls__arg_is_string() */
};

struct syscall_arg {
	char name[SYSCALL_NAME_LEN];
	char type[SYSCALL_TYPE_LEN];	/* as the format says: "const char *" */
	enum syscall_arg_kind kind;
	unsigned int bytes;	/* the C type's size: 8, 4, 2 or 1 */
};

struct syscall_format {
	char name[SYSCALL_NAME_LEN];	/* "openat" of "name: sys_enter_openat" */
	unsigned int nr_args;
	struct syscall_arg args[SYSCALL_MAX_ARGS];
};

/*
 * Is argument @name of C type @type a NUL-terminated user string? Only a
 * char pointer ("const char *" or "char *": not "const char *const *")
 * whose name says it is a string: a name ending in "name", "path" or
 * "file" (filename, pathname, oldname, newname, dev_name, path, oldpath,
 * specialfile, ...) or one of type, _type, _description, _callout_info,
 * _key, special, name_user, uargs, library and cmdline_ptr. As perf trace
 * does, by name: the type alone would take write()'s and syslog()'s
 * buffers ("const char * buf", "char * buf") for strings too.
 */
bool syscalls__arg_is_string(const char *type, const char *name);

/*
 * Parses the text of a sys_enter_NAME format file: "name: sys_enter_NAME",
 * then after "format:" one "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;"
 * line per field. The arguments are the fields but common_* (the header of
 * every event) and those whose name starts with "__": __syscall_nr, and
 * the __NAME_val copies of user data that kernels from 6.19 append (not
 * used for what is a string: they include shmdt()'s shmaddr). The kind of
 * each comes from its type (the size and signed of a syscall field say
 * nothing: 8 and 0 for all). Returns 0, or -1 with a message in @err.
 */
int syscalls__parse_format(const char *text, struct syscall_format *fmt,
			   char *err, size_t errlen);

/* The same, of the file at @path. */
int syscalls__read_format(const char *path, struct syscall_format *fmt,
			  char *err, size_t errlen);

#endif /* __KPTRACE_SYSCALLS_H */
