// SPDX-License-Identifier: GPL-2.0
/*
 * child: COMMAND, run under the tool (child.h). The child restores the
 * signals the tool holds or handles, waits for a byte on the go pipe and
 * execs COMMAND; if exec fails it writes errno on the errno pipe (close
 * on exec: nothing when exec works) and exits 127 (not found) or 126, as
 * a shell. The tool is COMMAND's parent and the subreaper of what it
 * leaves behind: its SIGCHLD handler reaps them all and stops the run
 * when COMMAND itself exits.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "trace.h"

/* How long COMMAND has to end on SIGTERM before it gets SIGKILL */
#define CMD_TERM_SECS	5

static pid_t cmd_pid;
/* set by the SIGCHLD handler */
static volatile sig_atomic_t cmd_done;
static volatile sig_atomic_t cmd_status;
/* -f: the run ends with the last descendant, not with COMMAND */
static volatile sig_atomic_t wait_all, all_done;

/* One line, "kptrace: error: ..." and @what's errno; returns -1. */
static int child_error(const char *what)
{
	fprintf(stderr, "kptrace: error: %s: %s\n", what, strerror(errno));
	return -1;
}

/* SIGCHLD: reaps COMMAND and the orphans it left, stops at COMMAND's exit */
static void on_child(int sig)
{
	int saved = errno, status;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == cmd_pid && !cmd_done) {
			cmd_status = status;
			cmd_done = 1;
			if (!wait_all)
				trace__stop();
		}
	}
	/* none left: the orphans COMMAND left were the tool's (a subreaper) */
	if (wait_all && cmd_done && !all_done && pid < 0 && errno == ECHILD) {
		all_done = 1;
		trace__stop();
	}
	errno = saved;
}

bool child__sigchld(void)
{
	on_child(SIGCHLD);
	return wait_all ? all_done : cmd_done;
}

/*
 * The child: waits until the tool says go (a byte on @go), then runs
 * COMMAND; if exec fails, tells the tool errno on @err and exits 127 (not
 * found) or 126, as a shell.
 */
static void child_run(int go, int err, char **command)
{
	sigset_t ours, none;
	ssize_t n;
	char c;
	int e, sig;

	sigemptyset(&ours);
	signals__add_stops(&ours);
	sigaddset(&ours, SIGCHLD);
	sigaddset(&ours, SIGPIPE);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&ours, sig) == 1)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		n = read(go, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* not armed: the tool says why */
	execvp(command[0], command);
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		e = ENOENT;
	_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* Forks the child, waiting. 0, or -1 with a message. */
static int child_fork(struct child *ch, char **command)
{
	int go[2], err[2];
	sigset_t chld, old;

	if (pipe2(go, O_CLOEXEC))
		return child_error("pipe");
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return child_error("pipe");
	}
	/*
	 * No SIGCHLD before cmd_pid is known; and no stop signal in the
	 * child before it put the default actions back: the tool's handler
	 * there would arm an alarm that outlives the exec
	 */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	signals__add_stops(&chld);
	sigprocmask(SIG_BLOCK, &chld, &old);
	fflush(NULL);
	cmd_pid = fork();
	if (!cmd_pid) {
		close(go[1]);
		close(err[0]);
		child_run(go[0], err[1], command);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	close(err[1]);
	if (cmd_pid < 0) {
		close(go[1]);
		close(err[0]);
		return child_error("fork");
	}
	ch->go = go[1];
	ch->err = err[0];
	ch->pid = cmd_pid;
	return 0;
}

int child__start(struct child *ch, char **command)
{
	if (signals__on_child(on_child))
		return -1;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return child_error("prctl(PR_SET_CHILD_SUBREAPER)");
	return child_fork(ch, command);
}

void child__wait_all(struct child *ch)
{
	(void)ch;
	wait_all = 1;
}

void child__go(struct child *ch)
{
	if (ch->go >= 0 && write(ch->go, "g", 1) != 1)
		fprintf(stderr, "kptrace: cannot start the command: %s\n",
			strerror(errno));
	if (ch->go >= 0)
		close(ch->go);
	ch->go = -1;
}

/* Reaps COMMAND if it ended (@flags: 0 waits, WNOHANG does not). */
static void child_reap(int flags)
{
	int status;
	pid_t w;

	do
		w = waitpid(cmd_pid, &status, flags);
	while (w < 0 && errno == EINTR);
	if (w == cmd_pid) {
		cmd_status = status;
		cmd_done = 1;
	}
}

/*
 * A stop while COMMAND runs: SIGTERM, then CMD_TERM_SECS for it to end;
 * a COMMAND that ignores SIGTERM, or a second stop signal (the user
 * pressing Ctrl-C again), gets SIGKILL: the tool never waits on it for
 * ever with its probes armed. The stop signals and SIGCHLD are held.
 */
static void child_stop(char **command)
{
	struct timespec end, now, left;
	sigset_t wait;
	int sig;

	sigemptyset(&wait);
	signals__add_stops(&wait);
	sigaddset(&wait, SIGCHLD);
	sigprocmask(SIG_BLOCK, &wait, NULL);
	/* trace__stop()'s alarm is no second stop */
	alarm(0);
	sigdelset(&wait, SIGALRM);
	kill(cmd_pid, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += CMD_TERM_SECS;
	for (child_reap(WNOHANG); !cmd_done; child_reap(WNOHANG)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			break;
		sig = sigtimedwait(&wait, NULL, &left);
		if (sig < 0 && errno == EINTR)
			continue;
		if (sig != SIGCHLD)	/* the time is up, or a stop */
			break;
	}
	if (cmd_done)
		return;
	fprintf(stderr, "kptrace: %s did not end on SIGTERM: sending SIGKILL\n",
		command[0]);
	kill(cmd_pid, SIGKILL);
	child_reap(0);
}

int child__end(struct child *ch, char **command)
{
	int status = 0, e;
	sigset_t chld;
	ssize_t n;

	/* from here on, the handler does not reap it behind our back */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (ch->go >= 0) {		/* never started: it exits */
		close(ch->go);
		ch->go = -1;
	}
	if (!cmd_done)
		child_stop(command);
	if (!cmd_done)
		return 1;
	status = cmd_status;
	do
		n = read(ch->err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ch->err);
	ch->err = -1;
	ch->pid = 0;
	if (n == sizeof(e))
		fprintf(stderr, "kptrace: error: %s: %s\n", command[0],
			strerror(e));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
