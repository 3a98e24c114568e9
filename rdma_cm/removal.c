// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a device's removal: the ULPs were told DEVICE_REMOVAL and
 * have removal_grace_ms to destroy their ids on the device; the ids kept
 * longer are cut loose from it, so that the device's unregistration
 * finishes in bounded time whatever the ULPs hold.
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rdmacm.h"

static unsigned int kiwi_rdma_removal_grace_ms = 10000;
module_param_named(removal_grace_ms, kiwi_rdma_removal_grace_ms, uint, 0644);
MODULE_PARM_DESC(removal_grace_ms,
		 "time ULPs have after DEVICE_REMOVAL to destroy their ids on the device before the ids are cut loose from it, ms (default 10000)");

/* Woken, with the count bumped, whenever an id leaves the list. */
static DECLARE_WAIT_QUEUE_HEAD(kiwi_rdma_gone_wq);
static atomic_t kiwi_rdma_gone_count = ATOMIC_INIT(0);

/**
 * kiwi_rdma_id_gone() - an id left the list of ids: wake the drains
 *
 * Context: any context.
 */
void kiwi_rdma_id_gone(void)
{
	atomic_inc(&kiwi_rdma_gone_count);
	if (wq_has_sleeper(&kiwi_rdma_gone_wq))
		wake_up_all(&kiwi_rdma_gone_wq);
}

/**
 * kiwi_rdma_set_removal_grace() - set removal_grace_ms, for tests
 * @ms: the new value
 *
 * Context: any context.
 * Return: the old value.
 */
unsigned int kiwi_rdma_set_removal_grace(unsigned int ms)
{
	return xchg(&kiwi_rdma_removal_grace_ms, ms);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_set_removal_grace);

static bool kiwi_rdma_dev_in_use(struct ib_device *dev)
{
	struct kiwi_rdma_priv *priv;
	bool used = false;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node) {
		if (priv->id.device == dev) {
			used = true;
			break;
		}
	}
	mutex_unlock(&kiwi_rdma_lock);
	return used;
}

/* Wait for the ids on @dev to be destroyed, until @deadline. */
static void kiwi_rdma_dev_wait(struct ib_device *dev, unsigned long deadline)
{
	for (;;) {
		int seen = atomic_read(&kiwi_rdma_gone_count);
		long left = (long)(deadline - jiffies);

		if (!kiwi_rdma_dev_in_use(dev) || left <= 0)
			return;
		wait_event_timeout(kiwi_rdma_gone_wq,
				   atomic_read(&kiwi_rdma_gone_count) != seen,
				   left);
	}
}

/**
 * kiwi_rdma_dev_drain_work() - the last step of a device's removal
 * @work: the device's drain work
 *
 * Runs once the device's fan-out listeners are closed. Ids whose ULP
 * destroys them within removal_grace_ms end as usual; the others are cut
 * loose (kiwi_rdma_cut_loose()), each named in the log. Then rdma_cm's
 * own reference on the device goes.
 *
 * Context: a kiwi_rdma_id_wq worker: it may wait the whole grace, and
 * must not hold up the ordered queue of device changes.
 */
void kiwi_rdma_dev_drain_work(struct work_struct *work)
{
	struct kiwi_rdma_dev *rdev = container_of(work, struct kiwi_rdma_dev,
						  drain_work);
	unsigned int grace = READ_ONCE(kiwi_rdma_removal_grace_ms);
	struct kiwi_rdma_priv *priv;

	kiwi_rdma_dev_wait(rdev->dev, jiffies + msecs_to_jiffies(grace));
	while ((priv = kiwi_rdma_claim_kept(rdev->dev)))
		kiwi_rdma_cut_loose(priv);
	kiwi_device_put(rdev->dev);
	kfree(rdev);
}
