// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm: module entry points of the RDMA CM front end for kernel ULPs.
 */
#include <linux/module.h>
#include <linux/workqueue.h>

#include "rdmacm.h"

#if IS_ENABLED(CONFIG_KUNIT)
/* kiwi_should_fail(): the fault points of a KUnit build */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#endif

struct workqueue_struct *kiwi_rdma_wq;
struct workqueue_struct *kiwi_rdma_id_wq;

static struct ib_client kiwi_rdma_client = {
	.name = "kiwi_rdmacm",
	.add = kiwi_rdma_device_add,
	.remove = kiwi_rdma_device_remove,
};

static int __init kiwi_rdmacm_init(void)
{
	int ret;

	ret = kiwi_iwcm_require();
	if (ret)
		return ret;
	kiwi_rdma_wq = alloc_ordered_workqueue("kiwi_rdmacm", WQ_MEM_RECLAIM);
	if (!kiwi_rdma_wq)
		return -ENOMEM;
	/*
	 * Not ordered: each id has one work item, ids never wait for each
	 * other. Per-CPU: a resolution runs on the CPU that asked for it,
	 * without a wake-up on another (as kiwi_iwcm's queue).
	 */
	kiwi_rdma_id_wq = alloc_workqueue("kiwi_rdmacm_id", WQ_MEM_RECLAIM, 0);
	if (!kiwi_rdma_id_wq) {
		ret = -ENOMEM;
		goto err_destroy_wq;
	}
	ret = kiwi_rdma_netdev_init();
	if (ret)
		goto err_destroy_id_wq;
	ret = kiwi_register_client(&kiwi_rdma_client);
	if (ret)
		goto err_netdev_exit;
	return 0;

err_netdev_exit:
	/*
	 * The devices added before the failure queued the fan work, and
	 * their removal work, which queues a drain on the id queue.
	 */
	kiwi_rdma_fan_exit();
	flush_workqueue(kiwi_rdma_wq);
	kiwi_rdma_netdev_exit();

err_destroy_id_wq:
	destroy_workqueue(kiwi_rdma_id_wq);
err_destroy_wq:
	destroy_workqueue(kiwi_rdma_wq);
	return ret;
}

static void __exit kiwi_rdmacm_exit(void)
{
	unsigned int leaked = kiwi_rdma_reap();

	if (leaked)
		pr_err("kiwi_rdmacm: %u ids leaked at unload\n", leaked);
	kiwi_unregister_client(&kiwi_rdma_client);
	kiwi_rdma_fan_exit();
	kiwi_rdma_netdev_exit();
	/* a device's removal work queues its drain on the id queue */
	destroy_workqueue(kiwi_rdma_wq);
	destroy_workqueue(kiwi_rdma_id_wq);
}

module_init(kiwi_rdmacm_init);
module_exit(kiwi_rdmacm_exit);

MODULE_DESCRIPTION("kiwi RDMA connection manager for kernel ULPs");
MODULE_LICENSE("GPL");
