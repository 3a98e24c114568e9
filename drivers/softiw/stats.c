// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw statistics: how many of each kind of work the data path
 * carried out, over all devices since the module loaded, in
 * /sys/kernel/debug/kiwi_softiw/ops. Tests read them to see that a ULP
 * exercised what it should (fast registration, RDMA READ and WRITE, SEND
 * with Invalidate); they outlive the devices, which a test may detach.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "softiw.h"

/* Per CPU: the data path of every connection counts without sharing. */
static DEFINE_PER_CPU(unsigned long [SOFTIW_NR_STATS], softiw_stats);
static struct dentry *softiw_debugfs;

static const char *const softiw_stat_names[SOFTIW_NR_STATS] = {
	[SOFTIW_STAT_SEND] = "send",
	[SOFTIW_STAT_SEND_INV] = "send_with_inv",
	[SOFTIW_STAT_WRITE] = "rdma_write",
	[SOFTIW_STAT_READ] = "rdma_read",
	[SOFTIW_STAT_REG_MR] = "reg_mr",
	[SOFTIW_STAT_LOCAL_INV] = "local_inv",
	[SOFTIW_STAT_REMOTE_INV] = "remote_inv",
};

/**
 * softiw_stat_inc() - count one piece of work
 * @which: what was done
 *
 * Context: any context.
 */
void softiw_stat_inc(enum softiw_stat which)
{
	this_cpu_inc(softiw_stats[which]);
}

static int softiw_stats_show(struct seq_file *m, void *unused)
{
	unsigned long sum;
	int i, cpu;

	for (i = 0; i < SOFTIW_NR_STATS; i++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += per_cpu(softiw_stats[i], cpu);
		seq_printf(m, "%s %lu\n", softiw_stat_names[i], sum);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(softiw_stats);

/**
 * softiw_stats_init() - create the debugfs file
 *
 * Context: module init.
 */
void softiw_stats_init(void)
{
	softiw_debugfs = debugfs_create_dir("kiwi_softiw", NULL);
	debugfs_create_file("ops", 0400, softiw_debugfs, NULL,
			    &softiw_stats_fops);
}

/**
 * softiw_stats_exit() - remove the debugfs file
 *
 * Context: module exit.
 */
void softiw_stats_exit(void)
{
	debugfs_remove_recursive(softiw_debugfs);
}
