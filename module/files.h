/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace: the files users open, /dev/kptrace (chardev.c) and
 * /sys/kernel/debug/kptrace/ (debugfs.c), made last at load time and
 * removed first (main.c).
 */
#ifndef _KPT_FILES_H
#define _KPT_FILES_H

int kpt_debugfs_init(void);
void kpt_debugfs_exit(void);
int kpt_chardev_init(void);
void kpt_chardev_exit(void);

#endif /* _KPT_FILES_H */
