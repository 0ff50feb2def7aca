// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_fd: the fd tables of -y (syscalls_fd.h). An open-addressing
 * table by (process, fd), a power of 2 slots, half used at most; a slot
 * once used stays (a closed fd is known closed: no /proc look-up for it).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "syscalls.h"
#include "syscalls_fd.h"

#define FD_MIN_CAP		256
#define FD_AT_FDCWD		(-100)
#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))
#define FD_O_CLOEXEC		02000000	/* O_, SOCK_, EFD_, EPOLL_CLOEXEC */
#define FD_F_DUPFD		0
#define FD_F_DUPFD_CLOEXEC	1030
#define FD_CLOSE_RANGE_CLOEXEC	4

enum fd_state { FD_EMPTY, FD_OPEN, FD_CLOSED };

struct fd_slot {
	__u32 pid;
	__s32 fd;
	enum fd_state state;
	bool cloexec;
	char *path;		/* FD_OPEN: NULL if not known */
};

struct sys_fds {
	struct fd_slot *tab;
	size_t cap, used;
	char *proc;		/* NULL: not live */
	char *scratch[SYSCALL_MAX_ARGS];	/* /proc's, until the next call */
};

struct sys_fds *sys_fds__new(const char *proc)
{
	struct sys_fds *t = calloc(1, sizeof(*t));

	if (t && proc) {
		t->proc = strdup(proc);
		if (!t->proc) {
			free(t);
			return NULL;
		}
	}
	return t;
}

void sys_fds__free(struct sys_fds *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->tab[i].path);
	for (i = 0; i < SYSCALL_MAX_ARGS; i++)
		free(t->scratch[i]);
	free(t->tab);
	free(t->proc);
	free(t);
}

bool sys_fds__is_fd_arg(const char *name)
{
	return syscalls__ends_with(name, "fd");
}

static struct fd_slot *fd_slot(struct fd_slot *tab, size_t cap, __u32 pid,
			       __s32 fd)
{
	__u64 h = (((__u64)pid << 32) ^ (__u32)fd) * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 32) & (cap - 1);

	while (tab[i].state != FD_EMPTY &&
	       (tab[i].pid != pid || tab[i].fd != fd))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int fd_grow(struct sys_fds *t)
{
	size_t cap = t->cap ? t->cap * 2 : FD_MIN_CAP, i;
	struct fd_slot *tab;

	if (cap > SIZE_MAX / 2 / sizeof(*tab))
		return -1;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	for (i = 0; i < t->cap; i++)
		if (t->tab[i].state != FD_EMPTY)
			*fd_slot(tab, cap, t->tab[i].pid, t->tab[i].fd) =
				t->tab[i];
	free(t->tab);
	t->tab = tab;
	t->cap = cap;
	return 0;
}

/* The slot of (@pid, @fd), made if need be; NULL: no memory. */
static struct fd_slot *fd_get(struct sys_fds *t, __u32 pid, __s32 fd,
			      bool make)
{
	struct fd_slot *s;

	if (!t->cap && !make)
		return NULL;
	if ((t->used + 1) * 2 > t->cap && make && fd_grow(t))
		return NULL;
	s = fd_slot(t->tab, t->cap, pid, fd);
	if (s->state == FD_EMPTY && !make)
		return NULL;
	if (s->state == FD_EMPTY) {
		s->pid = pid;
		s->fd = fd;
		s->state = FD_CLOSED;
		t->used++;
	}
	return s;
}

static void fd_put(struct sys_fds *t, __u32 pid, __s32 fd, const char *path,
		   bool cloexec)
{
	struct fd_slot *s = fd_get(t, pid, fd, true);

	if (!s)
		return;
	free(s->path);
	s->path = path ? strdup(path) : NULL;
	s->state = FD_OPEN;
	s->cloexec = cloexec;
}

static void fd_close(struct sys_fds *t, __u32 pid, __s32 fd)
{
	struct fd_slot *s = fd_get(t, pid, fd, false);

	if (!s || s->state != FD_OPEN)
		return;
	free(s->path);
	s->path = NULL;
	s->state = FD_CLOSED;
}

/* /proc/PID/fd/N's link, or NULL */
static char *fd_readlink(const char *proc, __u32 pid, __s32 fd)
{
	char link[512], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%u/fd/%d", proc, pid, fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* The path of (@pid, @fd): the table's, else /proc's (kept) in a live run. */
static const char *fd_path(struct sys_fds *t, __u32 pid, __s32 fd)
{
	struct fd_slot *s = fd_get(t, pid, fd, false);
	char *path;

	if (fd < 0)
		return NULL;
	if (s)
		return s->state == FD_OPEN ? s->path : NULL;
	if (!t->proc)
		return NULL;
	path = fd_readlink(t->proc, pid, fd);
	if (path)
		fd_put(t, pid, fd, path, false);
	free(path);
	s = fd_get(t, pid, fd, false);
	return s ? s->path : NULL;
}

void sys_fds__paths(struct sys_fds *t, const struct syscall_call *c,
		    const char **paths)
{
	unsigned int i;

	for (i = 0; i < SYSCALL_MAX_ARGS; i++) {
		paths[i] = NULL;
		if (i >= c->nr_args || !c->args ||
		    !sys_fds__is_fd_arg(c->args[i].name) ||
		    (__s32)c->vals[i] == FD_AT_FDCWD)
			continue;
		paths[i] = fd_path(t, c->pid, (__s32)c->vals[i]);
	}
	/* a later fd_put() may move the table: copies, kept until the next */
	for (i = 0; i < SYSCALL_MAX_ARGS; i++) {
		free(t->scratch[i]);
		t->scratch[i] = paths[i] ? strdup(paths[i]) : NULL;
		paths[i] = t->scratch[i];
	}
}

/* The calls whose fd's path is no string of theirs: its kind */
static const struct {
	const char *call;
	const char *path;
	int flags_arg;		/* the argument with its CLOEXEC flag; -1 */
} fd_kinds[] = {
	{ "socket", "socket:", 1 }, { "accept", "socket:", -1 },
	{ "accept4", "socket:", 3 }, { "eventfd", "anon_inode:[eventfd]", -1 },
	{ "eventfd2", "anon_inode:[eventfd]", 1 },
	{ "epoll_create", "anon_inode:[eventpoll]", -1 },
	{ "epoll_create1", "anon_inode:[eventpoll]", 0 },
	{ "signalfd", "anon_inode:[signalfd]", -1 },
	{ "signalfd4", "anon_inode:[signalfd]", 3 },
	{ "timerfd_create", "anon_inode:[timerfd]", 1 },
	{ "inotify_init", "anon_inode:inotify", -1 },
	{ "inotify_init1", "anon_inode:inotify", 0 },
	{ "fanotify_init", "anon_inode:[fanotify]", -1 },
	{ "memfd_create", "memfd:", 1 },
	{ "pidfd_open", "anon_inode:[pidfd]", -1 },
	{ "userfaultfd", "anon_inode:[userfaultfd]", 0 },
	{ "perf_event_open", "anon_inode:[perf_event]", -1 },
	{ "io_uring_setup", "anon_inode:[io_uring]", -1 },
};

static bool is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* open's, openat's, openat2's, creat's path argument, or -1 */
static int open_path_arg(const char *name)
{
	if (is(name, "open") || is(name, "creat"))
		return 0;
	if (is(name, "openat") || is(name, "openat2") ||
	    is(name, "open_by_handle_at"))
		return 1;
	return -1;
}

/* A new fd @fd of @c: its path (the string, the link, its kind) */
static const char *fd_made(struct sys_fds *t, const struct syscall_call *c,
			   __s32 fd, const char *path, bool cloexec)
{
	char *link = NULL;
	struct fd_slot *s;

	/* a relative path: the link says where (if the fd is still it) */
	if ((!path || *path != '/') && t->proc)
		link = fd_readlink(t->proc, c->pid, fd);
	fd_put(t, c->pid, fd, link ? link : path, cloexec);
	free(link);
	s = fd_get(t, c->pid, fd, false);
	return s ? s->path : NULL;
}

static void fds_exec(struct sys_fds *t, __u32 pid)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->tab[i].pid == pid && t->tab[i].state == FD_OPEN &&
		    t->tab[i].cloexec)
			fd_close(t, pid, t->tab[i].fd);
}

static void fds_close_range(struct sys_fds *t, const struct syscall_call *c)
{
	__u32 first = (__u32)c->vals[0], last = (__u32)c->vals[1];
	bool cloexec = c->vals[2] & FD_CLOSE_RANGE_CLOEXEC;
	size_t i;

	for (i = 0; i < t->cap; i++) {
		struct fd_slot *s = &t->tab[i];

		if (s->pid != c->pid || s->state != FD_OPEN ||
		    (__u32)s->fd < first || (__u32)s->fd > last)
			continue;
		if (cloexec)
			s->cloexec = true;
		else
			fd_close(t, c->pid, s->fd);
	}
}

const char *sys_fds__update(struct sys_fds *t, const struct syscall_call *c)
{
	const char *name = c->name, *old;
	__s32 fd = (__s32)c->ret;
	char *copy;
	int a;
	size_t i;

	if (c->no_return || c->unfinished || c->denied ||
	    syscall_fmt__is_error(c->ret) || c->nr_args < 1)
		return NULL;
	if (is(name, "close")) {
		fd_close(t, c->pid, (__s32)c->vals[0]);
		return NULL;
	}
	if (is(name, "close_range")) {
		fds_close_range(t, c);
		return NULL;
	}
	if (is(name, "execve") || is(name, "execveat")) {
		fds_exec(t, c->pid);
		return NULL;
	}
	a = open_path_arg(name);
	if (a >= 0) {
		const struct syscall_str *s = c->strs && c->args &&
			c->args[a].kind == SYSCALL_ARG_STR ? &c->strs[a] : NULL;
		char *path = s && s->s && !s->trunc ?
			strndup(s->s, s->len) : NULL;
		bool cloexec = !is(name, "openat2") && !is(name, "creat") &&
			       c->nr_args > (unsigned int)a + 1 &&
			       (c->vals[a + 1] & FD_O_CLOEXEC);

		old = fd_made(t, c, fd, path, cloexec);
		free(path);
		return old;
	}
	if (is(name, "dup") || is(name, "dup2") || is(name, "dup3") ||
	    ((is(name, "fcntl") || is(name, "fcntl64")) && c->nr_args > 1 &&
	     ((__u32)c->vals[1] == FD_F_DUPFD ||
	      (__u32)c->vals[1] == FD_F_DUPFD_CLOEXEC))) {
		old = fd_path(t, c->pid, (__s32)c->vals[0]);
		copy = old ? strdup(old) : NULL;
		fd_put(t, c->pid, fd, copy,
		       (is(name, "dup3") && (c->vals[2] & FD_O_CLOEXEC)) ||
		       (is(name, "fcntl") &&
			(__u32)c->vals[1] == FD_F_DUPFD_CLOEXEC));
		free(copy);
		return fd_path(t, c->pid, fd);
	}
	for (i = 0; i < ARRAY_LEN(fd_kinds); i++) {
		if (!is(name, fd_kinds[i].call))
			continue;
		return fd_made(t, c, fd, fd_kinds[i].path,
			       fd_kinds[i].flags_arg >= 0 &&
			       c->nr_args > (unsigned int)fd_kinds[i].flags_arg &&
			       (c->vals[fd_kinds[i].flags_arg] & FD_O_CLOEXEC));
	}
	return NULL;
}

void sys_fds__forget(struct sys_fds *t, __u32 pid)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->tab[i].pid == pid && t->tab[i].state == FD_OPEN)
			fd_close(t, pid, t->tab[i].fd);
}
