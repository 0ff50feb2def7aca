/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syscalls_fd: `kptrace syscalls -y`, the fds of the traced processes
 * with their paths, as strace -y shows them (read(3</etc/hostname>, ...)):
 * a table per process, kept from the records themselves (what open,
 * openat, openat2 and creat returned with their path; dup, dup2, dup3,
 * fcntl F_DUPFD*; close, close_range; the fds of socket, accept*,
 * eventfd*, epoll_create*, signalfd*, timerfd_create, inotify_init*,
 * memfd_create, pidfd_open, ... as "socket:[...]", "anon_inode:[...]";
 * the close-on-exec ones dropped at a successful execve; a process's
 * table at its exit), and for an fd it has not seen made, in a live run,
 * the link /proc/PID/fd/N, read once (a pipe's "pipe:[INODE]").
 */
#ifndef __KPTRACE_SYSCALLS_FD_H
#define __KPTRACE_SYSCALLS_FD_H

#include <stdbool.h>

#include <linux/types.h>

#include "syscall_fmt.h"

struct sys_fds;

/*
 * @proc: /proc, whose PID/fd/N may be read for the fds the table has not
 * seen made; NULL: none (a saved trace). NULL: no memory.
 */
struct sys_fds *sys_fds__new(const char *proc);
void sys_fds__free(struct sys_fds *t);

/*
 * The paths of @c's fd arguments (those syscall_fmt shows as fds), as the
 * table had them before the call, into @paths[SYSCALL_MAX_ARGS] (NULL:
 * not known). The strings live until the next call of sys_fds__*().
 */
void sys_fds__paths(struct sys_fds *t, const struct syscall_call *c,
		    const char **paths);

/*
 * What @c did to the fds of its process. Returns the path of the fd it
 * returned (open's, dup's, socket's...), or NULL. 0 on success is not an
 * fd: a call that makes none returns NULL.
 */
const char *sys_fds__update(struct sys_fds *t, const struct syscall_call *c);

/* Process @pid ended: its table goes. */
void sys_fds__forget(struct sys_fds *t, __u32 pid);

/* Is an argument named @name an fd (syscall_fmt prints it as one)? */
bool sys_fds__is_fd_arg(const char *name);

#endif /* __KPTRACE_SYSCALLS_FD_H */
