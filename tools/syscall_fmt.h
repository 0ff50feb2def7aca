/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscall_fmt: one system call as a line of text in perf trace's shape or
 * as a JSON object, and the decoders of its values: errno names and
 * messages, open flags, mmap prot and flags, AT_FDCWD. The formats are
 * described at the top of syscall_fmt.c.
 */
#ifndef __KPTRACE_SYSCALL_FMT_H
#define __KPTRACE_SYSCALL_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <linux/types.h>

#include "syscalls.h"

/* A string argument's bytes, as the probe read them. */
struct syscall_str {
	const void *s;		/* NULL: not readable (fault), or bad */
	size_t len;		/* without a NUL; may hold NULs */
	bool trunc;		/* cut: the string goes on */
	bool bad;		/* with s NULL: its slot is not in the record */
};

/* One call: entry and exit together. */
struct syscall_call {
	__u64 ts_ns;		/* at entry, from the start of the trace */
	__u64 dur_ns;
	const char *comm;	/* untrusted: KPT_COMM_LEN bytes or to a NUL */
	__u32 pid, tid;
	const char *name;	/* syscalls__name_fmt(): "openat", "syscall_999" */
	unsigned int nr_args;
	/* names and kinds (syscalls__parse_format()); NULL: arg0.. in hex */
	const struct syscall_arg *args;
	const __u64 *vals;	/* nr_args raw register values */
	const struct syscall_str *strs;	/* per argument, read for STR ones */
	__s64 ret;
	bool no_return;		/* exit, exit_group: ret is not known */
	/*
	 * -y: per argument, the path of the fd it is (an argument shown as
	 * an fd), or NULL; the path of the fd the call returned. NULL: none.
	 */
	const char * const *fd_paths;
	const char *ret_path;
	bool compat;		/* a 32-bit call: name and number are i386's */
	bool denied;		/* seccomp denied it: it never ran */
	/*
	 * In progress (no return yet, kptrace syscalls at attach or at a
	 * stop): " <unfinished ...>" for " = RET"; dur_ns, how long it has
	 * been blocked, if blocked_known.
	 */
	bool unfinished, blocked_known;
	/*
	 * The return of a call shown in progress before (strace's "<...
	 * NAME resumed>", perf trace's "[continued]"): "<... NAME
	 * resumed>(ARGS) = RET".
	 */
	bool resumed;
	/* its time is not known: "(     ? ms)", "dur_ns":null */
	bool dur_unknown;
};

/* Is @ret an error, -4095..-1 (the kernel's IS_ERR_VALUE)? */
bool syscall_fmt__is_error(__s64 ret);

/* The errno name of @err > 0 ("ENOENT", "ERESTARTSYS"), or NULL. */
const char *syscall_fmt__errno_name(int err);

/* Its message: strerror()'s, a fixed text for the kernel-internal ones. */
const char *syscall_fmt__errno_msg(int err);

/*
 * The decoders: into @buf of @len bytes (cut to fit), which they return.
 * open(2) flags "RDONLY|CLOEXEC", mmap prot "READ|WRITE" or "NONE", mmap
 * flags "PRIVATE|ANONYMOUS"; bits they do not know as one 0x hex at the end.
 */
char *syscall_fmt__open_flags(char *buf, size_t len, __u64 flags);
char *syscall_fmt__mmap_prot(char *buf, size_t len, __u64 prot);
char *syscall_fmt__mmap_flags(char *buf, size_t len, __u64 flags);

/*
 * The line of @c, without a newline, into @buf of @size bytes. Returns its
 * length, or -1 if it did not fit (then @buf holds as much as fitted).
 */
int syscall_fmt__line(char *buf, size_t size, const struct syscall_call *c);

/* The same line into @f. */
void syscall_fmt__print(FILE *f, const struct syscall_call *c);

/* The JSON object of @c and a newline. */
void syscall_fmt__json(FILE *f, const struct syscall_call *c);

/* The same object, not closed: the caller adds members, then "}\n". */
void syscall_fmt__json_open(FILE *f, const struct syscall_call *c);

#endif /* __KPTRACE_SYSCALL_FMT_H */
