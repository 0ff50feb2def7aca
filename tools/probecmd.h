/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probecmd: `kptrace probe add|del|list|clear`, probes at run time.
 */
#ifndef __KPTRACE_PROBECMD_H
#define __KPTRACE_PROBECMD_H

/* argv[0] is "probe". Returns the exit status. */
int probecmd__main(int argc, char **argv);

#endif /* __KPTRACE_PROBECMD_H */
