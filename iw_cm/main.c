// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm: module entry points of the kiwi iWARP connection manager.
 */
#include <linux/module.h>
#include <linux/printk.h>

#include <kiwi/iw_cm.h>

#include "iwcm.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/**
 * kiwi_iwcm_abi_check() - check that a caller was built from our headers
 * @abi: the caller's KIWI_ABI_VERSION
 *
 * Context: any context.
 * Return: 0 if @abi matches this core, -EPROTO otherwise.
 */
int kiwi_iwcm_abi_check(unsigned int abi)
{
	if (abi != KIWI_ABI_VERSION) {
		pr_err("kiwi_iwcm: caller built for ABI %u, core is ABI %u\n",
		       abi, KIWI_ABI_VERSION);
		return -EPROTO;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_iwcm_abi_check);

static int __init kiwi_iwcm_init(void)
{
	int ret;

	ret = kiwi_cq_init();
	if (ret)
		return ret;
	ret = kiwi_cm_init();
	if (ret)
		goto err_cq_exit;
	ret = kiwi_event_init();
	if (ret)
		goto err_cm_exit;
	kiwi_debugfs_init();
	return 0;

err_cm_exit:
	kiwi_cm_exit();
err_cq_exit:
	kiwi_cq_exit();
	return ret;
}

static void __exit kiwi_iwcm_exit(void)
{
	kiwi_device_exit();
	kiwi_debugfs_exit();
	kiwi_event_exit();
	kiwi_cm_exit();
	kiwi_cq_exit();
}

module_init(kiwi_iwcm_init);
module_exit(kiwi_iwcm_exit);

MODULE_DESCRIPTION("kiwi iWARP connection manager");
MODULE_LICENSE("GPL");
