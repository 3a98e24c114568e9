// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_testlib: helpers and fakes shared by kiwi's KUnit suites.
 */
#include <linux/module.h>

#include <kiwi/iw_cm.h>

#include "kiwi_test.h"

/*
 * A test module's own parameters are not set yet when KUnit runs its
 * suites (at MODULE_STATE_COMING in 6.1, before the arguments are
 * parsed): the suites' knobs live here, in a module loaded before them.
 */
static unsigned int fuzz_iters = 400;
module_param(fuzz_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_iters,
		 "mutated frames of each kind kiwi_softiw_fuzz sends (400)");

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

MODULE_DESCRIPTION("kiwi KUnit helpers");
MODULE_LICENSE("GPL");
