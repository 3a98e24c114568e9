// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm: module entry points of the RDMA CM front end for kernel ULPs.
 */
#include <linux/module.h>

#include <kiwi/iw_cm.h>

static int __init kiwi_rdmacm_init(void)
{
	return kiwi_iwcm_require();
}

static void __exit kiwi_rdmacm_exit(void)
{
}

module_init(kiwi_rdmacm_init);
module_exit(kiwi_rdmacm_exit);

MODULE_DESCRIPTION("kiwi RDMA connection manager for kernel ULPs");
MODULE_LICENSE("GPL");
