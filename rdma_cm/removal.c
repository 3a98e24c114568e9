// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a device's removal: the ULPs were told DEVICE_REMOVAL and
 * have removal_grace_ms to destroy their ids on the device; the ids kept
 * longer are cut loose from it, so that the device's unregistration
 * finishes in bounded time whatever the ULPs hold.
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
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
 * kiwi_rdma_claim_kept() - pin an id a ULP kept on a removed device
 * @dev: the device, past the ULPs' grace after DEVICE_REMOVAL
 *
 * The id moves to REMOVED, where no call is legal any more, and the cut
 * takes its teardown (@torn, with @cutting), so that no teardown starts
 * while the cut runs: an rdma_destroy_id() waits for the cut, a handler
 * asking for the teardown leaves it to the cut (kiwi_rdma_cut_loose()).
 * An id whose teardown was taken already is left to it.
 *
 * Context: process context; sleeps.
 * Return: the id, or NULL if no other id uses @dev.
 */
static struct kiwi_rdma_priv *kiwi_rdma_claim_kept(struct ib_device *dev)
{
	struct kiwi_rdma_priv *priv, *found = NULL;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node) {
		if (priv->id.device != dev)
			continue;
		spin_lock_irq(&priv->lock);
		if (!priv->torn && priv->state != KIWI_RDMA_DESTROYING &&
		    priv->state != KIWI_RDMA_REMOVED) {
			priv->state = KIWI_RDMA_REMOVED;
			priv->torn = true;
			priv->cutting = true;
			found = priv;
		}
		spin_unlock_irq(&priv->lock);
		if (found)
			break;
	}
	mutex_unlock(&kiwi_rdma_lock);
	return found;
}

/**
 * kiwi_rdma_cut_loose() - let an id the ULP kept go of its device
 * @priv: the id, from kiwi_rdma_claim_kept()
 *
 * Waits for the calls and the handler call in flight, then destroys the
 * id's iw_cm id (a connection is reset) and drops its device. The ULP's
 * QP stays the ULP's: the core cuts it loose if the ULP keeps it too.
 * The id's memory, port and namespace stay until rdma_destroy_id(). A
 * teardown asked for meanwhile runs at the end: an rdma_destroy_id()
 * waiting for the cut gets it, else, if a handler asked for it, the cut
 * runs it.
 *
 * Context: process context; sleeps. Not from a handler of the id.
 */
static void kiwi_rdma_cut_loose(struct kiwi_rdma_priv *priv)
{
	struct kiwi_cm_id *cm;
	bool owed;

	might_sleep();
	wait_var_event(&priv->calls, !atomic_read(&priv->calls));
	cancel_delayed_work_sync(&priv->work);
	wait_var_event(&priv->handler_task, kiwi_rdma_handler_idle(priv));
	pr_warn("kiwi_rdmacm: %s: id %pISpc -> %pISpc kept past DEVICE_REMOVAL, cut loose from the device\n",
		priv->id.device->name, &priv->id.route.addr.src_addr,
		&priv->id.route.addr.dst_addr);
	mutex_lock(&kiwi_rdma_lock);
	cm = priv->cm;
	priv->cm = NULL;
	mutex_unlock(&kiwi_rdma_lock);
	if (cm)
		kiwi_cm_destroy_id(cm);
	kiwi_rdma_clear_device(priv);
	spin_lock_irq(&priv->lock);
	priv->cutting = false;
	/* a waiting destroy keeps @torn: the teardown is its own */
	owed = !priv->destroy_waits && priv->destroy_deferred;
	if (!priv->destroy_waits && !owed)
		priv->torn = false;
	spin_unlock_irq(&priv->lock);
	smp_mb();	/* @cutting cleared before wake_up_var() looks */
	/* only hashes the address: the destroy woken may free @priv */
	wake_up_var(&priv->torn);
	if (owed)
		kiwi_rdma_teardown(priv, NULL);
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
