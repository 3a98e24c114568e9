// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_testlib: helpers and fakes shared by kiwi's KUnit suites.
 */
#include <linux/module.h>
#include <linux/xarray.h>

#include <kiwi/iw_cm.h>
#include <rdma/ib_verbs.h>

#include "kiwi_test.h"

/*
 * A test module's own parameters are not set yet when KUnit runs its
 * suites (at MODULE_STATE_COMING in 6.1, before the arguments are
 * parsed): the suites' knobs live here, in a module loaded before them.
 */
static unsigned int fuzz_iters = 400;
module_param(fuzz_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_iters,
		 "mutated frames of each kind the fuzz suites send (400; Replies: fuzz_reply_iters)");

/**
 * kiwi_test_fuzz_iters() - how many mutated frames of each kind to send
 *
 * Context: any context.
 * Return: kiwi_testlib's fuzz_iters parameter, 400 unless set (make
 * stress sets 100,000).
 */
unsigned int kiwi_test_fuzz_iters(void)
{
	return fuzz_iters;
}
EXPORT_SYMBOL_GPL(kiwi_test_fuzz_iters);

/* Replies cost a connection each, half the others' rate: make stress runs them apart. */
static unsigned int fuzz_reply_iters;
module_param(fuzz_reply_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_reply_iters,
		 "mutated MPA Replies kiwi_softiw_fuzz_reply sends (0: fuzz_iters)");

/**
 * kiwi_test_fuzz_reply_iters() - how many mutated MPA Replies to send
 *
 * Context: any context.
 * Return: kiwi_testlib's fuzz_reply_iters parameter, or fuzz_iters if it
 * is 0 (the default).
 */
unsigned int kiwi_test_fuzz_reply_iters(void)
{
	return fuzz_reply_iters ?: fuzz_iters;
}
EXPORT_SYMBOL_GPL(kiwi_test_fuzz_reply_iters);

static unsigned int flood_peers = 1000;
module_param(flood_peers, uint, 0444);
MODULE_PARM_DESC(flood_peers,
		 "half-open peers kiwi_softiw_flood holds at once (1000)");

/**
 * kiwi_test_flood_peers() - how many half-open peers to hold at once
 *
 * Context: any context.
 * Return: kiwi_testlib's flood_peers parameter, 1000 unless set (make
 * stress sets 10,000).
 */
unsigned int kiwi_test_flood_peers(void)
{
	return flood_peers;
}
EXPORT_SYMBOL_GPL(kiwi_test_flood_peers);

static unsigned int stress_secs = 20;
module_param(stress_secs, uint, 0444);
MODULE_PARM_DESC(stress_secs, "seconds kiwi_softiw_stress runs (20)");

/**
 * kiwi_test_stress_secs() - how long the SMP stress runs
 *
 * Context: any context.
 * Return: kiwi_testlib's stress_secs parameter, 20 unless set (make
 * stress sets 300).
 */
unsigned int kiwi_test_stress_secs(void)
{
	return stress_secs;
}
EXPORT_SYMBOL_GPL(kiwi_test_stress_secs);

static int __init kiwi_testlib_init(void)
{
	return kiwi_iwcm_require();
}

static void __exit kiwi_testlib_exit(void)
{
}

module_init(kiwi_testlib_init);
module_exit(kiwi_testlib_exit);

/**
 * kiwi_test_dev_list_len() - the entries of one of a device's object lists
 * @dev: the device
 * @list: one of @dev's object lists: its pds, cqs, qps or mrs
 *
 * For the suites that check a scenario left nothing behind.
 *
 * Context: process context; takes the device's lock.
 * Return: the number of entries.
 */
int kiwi_test_dev_list_len(struct ib_device *dev, struct list_head *list)
{
	struct list_head *pos;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each(pos, list)
		n++;
	spin_unlock_irqrestore(&dev->lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(kiwi_test_dev_list_len);

/**
 * kiwi_test_xa_len() - the entries of an xarray (a provider's QP numbers
 *	or STags)
 * @xa: the xarray
 *
 * Context: any context; walks @xa under RCU.
 * Return: the number of entries.
 */
int kiwi_test_xa_len(struct xarray *xa)
{
	unsigned long index;
	void *entry;
	int n = 0;

	xa_for_each(xa, index, entry)
		n++;
	return n;
}
EXPORT_SYMBOL_GPL(kiwi_test_xa_len);

MODULE_DESCRIPTION("kiwi KUnit helpers");
MODULE_LICENSE("GPL");
