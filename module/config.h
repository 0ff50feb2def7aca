/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the settings the module parameters give (params.c checks them
 * and fills kpt_cfg at load time), and the record sizes they bound.
 */
#ifndef _KPT_CONFIG_H
#define _KPT_CONFIG_H

#include <linux/types.h>
#include <linux/init.h>
#include <uapi/kptrace.h>

#define KPT_HDR_SIZE		sizeof(struct kpt_event)
#define KPT_ENTRY_SIZE(args, stack) \
	(KPT_HDR_SIZE + ((args) + (stack)) * sizeof(__u64))
#define KPT_RET_SIZE		(KPT_HDR_SIZE + sizeof(struct kpt_ret))
#define KPT_RECORD_MAX		(64 * 1024)	/* largest record of a probe */
#define KPT_STRSIZE_MAX		4096
#define KPT_LOST_SIZE		(KPT_HDR_SIZE + sizeof(struct kpt_lost))

/* Settings fixed at load time, read by every probe hit. */
struct kpt_config {
	unsigned int	args;		/* register arguments, name=/address= */
	unsigned int	stack;		/* stack frames per entry */
	bool		overwrite;	/* flight recorder mode */
	unsigned int	strsize;	/* bytes per string argument */
	unsigned int	maxactive;	/* default for return probes */
	unsigned long	ring_bytes;	/* per CPU, a power of two */
	bool		wake_net_only;	/* selftests: no writer wakes */
	unsigned int	clock;		/* the default session's, asked */
	unsigned int	bufsize_kb;	/* as given or chosen, for messages */
	u64		mem_max;	/* bytes of hist tables, return */
					/* instances and sessions' rings */
};

extern struct kpt_config kpt_cfg;

/* params.c: the module parameters, at load time */
int __init kpt_params_check(void);
int __init kpt_params_add_probes(void);

#endif /* _KPT_CONFIG_H */
