// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_testlib: helpers and fakes shared by kiwi's KUnit suites.
 */
#include <linux/module.h>

#include <kiwi/iw_cm.h>

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
