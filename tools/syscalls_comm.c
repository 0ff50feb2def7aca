// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls_comm: the leader's comm of a process (syscalls_comm.h), in an
 * open-addressing table by pid, a power of 2 slots, half used at most.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls_comm.h"

#define COMM_MIN_CAP	64

struct comm_slot {
	__u32 pid;			/* 0: free */
	bool from_leader;		/* a record of the leader named it */
	unsigned long long gen;		/* the batch /proc was read in */
	bool have;
	char comm[KPT_COMM_LEN];
};

struct sys_comms {
	struct comm_slot *tab;
	size_t cap, used;
	char *proc;			/* NULL: not live */
	unsigned long long gen;
};

struct sys_comms *sys_comms__new(const char *proc)
{
	struct sys_comms *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->gen = 1;
	if (proc) {
		c->proc = strdup(proc);
		if (!c->proc) {
			free(c);
			return NULL;
		}
	}
	return c;
}

void sys_comms__free(struct sys_comms *c)
{
	if (c) {
		free(c->tab);
		free(c->proc);
	}
	free(c);
}

void sys_comms__next(struct sys_comms *c)
{
	c->gen++;
}

static struct comm_slot *comm_slot(struct comm_slot *tab, size_t cap,
				   __u32 pid)
{
	size_t i = (size_t)(((__u64)pid * 0x9e3779b97f4a7c15ULL) >> 32) &
		   (cap - 1);

	while (tab[i].pid && tab[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static struct comm_slot *comm_get(struct sys_comms *c, __u32 pid)
{
	size_t cap, i;
	struct comm_slot *tab, *s;

	if ((c->used + 1) * 2 > c->cap) {
		cap = c->cap ? c->cap * 2 : COMM_MIN_CAP;
		tab = cap < SIZE_MAX / 2 / sizeof(*tab) ?
		      calloc(cap, sizeof(*tab)) : NULL;
		if (!tab)
			return NULL;
		for (i = 0; i < c->cap; i++)
			if (c->tab[i].pid)
				*comm_slot(tab, cap, c->tab[i].pid) = c->tab[i];
		free(c->tab);
		c->tab = tab;
		c->cap = cap;
	}
	s = comm_slot(c->tab, c->cap, pid);
	if (!s->pid) {
		s->pid = pid;
		c->used++;
	}
	return s;
}

void sys_comms__note(struct sys_comms *c, __u32 pid, __u32 tid,
		     const char *comm)
{
	struct comm_slot *s;

	if (!c || !pid || pid != tid)
		return;
	s = comm_get(c, pid);
	if (!s)
		return;
	memset(s->comm, 0, sizeof(s->comm));
	memcpy(s->comm, comm, strnlen(comm, KPT_COMM_LEN));
	s->have = true;
	s->from_leader = true;
	s->gen = c->gen;
}

/* /proc/PID/comm into @out; false if it cannot be read */
static bool comm_read(const char *proc, __u32 pid, char *out)
{
	char path[512], buf[64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/comm", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (!n)
		return false;
	if (buf[n - 1] == '\n')
		n--;
	memset(out, 0, KPT_COMM_LEN);
	memcpy(out, buf, n < KPT_COMM_LEN - 1 ? n : KPT_COMM_LEN - 1);
	return true;
}

void sys_comms__get(struct sys_comms *c, __u32 pid, const char *thread_comm,
		    char *out)
{
	struct comm_slot *s = c ? comm_get(c, pid) : NULL;

	memset(out, 0, KPT_COMM_LEN);
	/* the leader's own record of this batch, else /proc once a batch */
	if (s && c->proc && !(s->have && s->from_leader && s->gen == c->gen) &&
	    s->gen != c->gen) {
		char comm[KPT_COMM_LEN];

		s->gen = c->gen;
		if (comm_read(c->proc, pid, comm)) {
			memcpy(s->comm, comm, sizeof(comm));
			s->have = true;
			s->from_leader = false;
		}
	}
	if (s && s->have)
		memcpy(out, s->comm, KPT_COMM_LEN);
	else
		memcpy(out, thread_comm, strnlen(thread_comm, KPT_COMM_LEN));
}
