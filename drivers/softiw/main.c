// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw: module entry points of the software iWARP RNIC.
 */
#include <linux/module.h>

#include <kiwi/iw_cm.h>

static int __init kiwi_softiw_init(void)
{
	return kiwi_iwcm_require();
}

static void __exit kiwi_softiw_exit(void)
{
}

module_init(kiwi_softiw_init);
module_exit(kiwi_softiw_exit);

MODULE_DESCRIPTION("kiwi software iWARP RNIC over kernel TCP");
MODULE_LICENSE("GPL");
