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
