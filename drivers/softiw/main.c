// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw: module entry points of the software iWARP RNIC.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include <kiwi/iw_cm.h>

#include "cm.h"
#include "softiw.h"

#if IS_ENABLED(CONFIG_KUNIT)
/* kiwi_should_fail(): the fault points of a KUnit build */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#endif

static char *softiw_netdevs = "";
module_param_named(netdevs, softiw_netdevs, charp, 0444);
MODULE_PARM_DESC(netdevs, "interfaces to attach at load, comma-separated, e.g. lo (default: none)");

static int __init kiwi_softiw_init(void)
{
	int ret;

	ret = kiwi_iwcm_require();
	if (ret)
		return ret;
	ret = softiw_cm_init();
	if (ret)
		return ret;
	softiw_stats_init();
	ret = softiw_devices_init(softiw_netdevs);
	if (ret) {
		softiw_stats_exit();
		softiw_cm_exit();
	}
	return ret;
}

static void __exit kiwi_softiw_exit(void)
{
	softiw_devices_exit();
	softiw_stats_exit();
	softiw_cm_exit();
}

module_init(kiwi_softiw_init);
module_exit(kiwi_softiw_exit);

MODULE_DESCRIPTION("kiwi software iWARP RNIC over kernel TCP");
MODULE_LICENSE("GPL");
