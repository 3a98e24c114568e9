// SPDX-License-Identifier: GPL-2.0
/*
 * Wildcard listen: a listener bound to 0.0.0.0 or :: listens on every kiwi
 * device of its namespace, present and future, through one iw_cm id per
 * device (a "fan"). The core's client callbacks keep the list of devices;
 * they run under the core's registry lock, so they only record and queue
 * work. Fans are opened, with the provider's create_listen, under
 * kiwi_rdma_fan_lock alone, which no client callback, netdev notifier or
 * event handler path takes; they are closed after that lock is dropped.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <net/net_namespace.h>

#include "rdmacm.h"

/* Protects the fan list and every id's fan and backlog fields. */
static DEFINE_MUTEX(kiwi_rdma_fan_lock);
static LIST_HEAD(kiwi_rdma_fans);
/* Devices known from the client's add callback (kiwi_rdma_lock). */
static LIST_HEAD(kiwi_rdma_devs);

/* A device's fans that failed for want of memory are tried again. */
#define KIWI_RDMA_FAN_RETRY	HZ

static void kiwi_rdma_fan_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kiwi_rdma_fan_work, kiwi_rdma_fan_work_fn);

static bool kiwi_rdma_fan_has(struct kiwi_rdma_priv *owner,
			      struct kiwi_rdma_dev *rdev)
{
	struct kiwi_rdma_fan *fan;

	lockdep_assert_held(&kiwi_rdma_fan_lock);
	list_for_each_entry(fan, &kiwi_rdma_fans, node)
		if (fan->owner == owner && fan->rdev == rdev)
			return true;
	return false;
}

static bool kiwi_rdma_dev_in(struct kiwi_rdma_dev *rdev, struct net *net)
{
	struct net_device *nd = rdev->dev->netdev;

	return nd && net_eq(dev_net(nd), net);
}

/*
 * The next wildcard listener (@only, or any) and device of its namespace
 * without a fan. An rdev found here stays allocated while the caller
 * holds kiwi_rdma_fan_lock: its remove_work takes that lock first.
 */
static bool kiwi_rdma_fan_next(struct kiwi_rdma_priv *only,
			       struct kiwi_rdma_priv **ownerp,
			       struct kiwi_rdma_dev **rdevp)
{
	struct kiwi_rdma_priv *priv;
	struct kiwi_rdma_dev *rdev;
	bool found = false;

	lockdep_assert_held(&kiwi_rdma_fan_lock);
	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node) {
		if (!priv->fan || (only && priv != only))
			continue;
		list_for_each_entry(rdev, &kiwi_rdma_devs, node) {
			if (kiwi_rdma_dev_in(rdev, priv->net) &&
			    !kiwi_rdma_fan_has(priv, rdev)) {
				*ownerp = priv;
				*rdevp = rdev;
				found = true;
				goto out_unlock;
			}
		}
	}
out_unlock:
	mutex_unlock(&kiwi_rdma_lock);
	return found;
}

/*
 * Listen on one device for @owner. A fan that fails stays recorded, so
 * that this pass does not try it again; one that failed for want of
 * memory is marked, to be forgotten (and tried again) at the pass's end.
 */
static int kiwi_rdma_fan_open(struct kiwi_rdma_priv *owner,
			      struct kiwi_rdma_dev *rdev)
{
	struct kiwi_rdma_fan *fan;
	struct kiwi_cm_id *cm;
	int ret;

	lockdep_assert_held(&kiwi_rdma_fan_lock);
	fan = kiwi_should_fail() ? NULL : kzalloc(sizeof(*fan), GFP_KERNEL);
	if (!fan)
		return -ENOMEM;
	fan->owner = owner;
	fan->rdev = rdev;
	list_add_tail(&fan->node, &kiwi_rdma_fans);
	cm = kiwi_cm_create_id(rdev->dev, kiwi_rdma_cm_handler, owner);
	if (IS_ERR(cm)) {
		ret = PTR_ERR(cm);
		goto out_failed;
	}
	cm->local_addr = owner->id.route.addr.src_addr;
	kiwi_rdma_apply_options(owner, cm);
	ret = kiwi_cm_listen(cm, owner->backlog);
	if (ret) {
		kiwi_cm_destroy_id(cm);
		goto out_failed;
	}
	fan->cm = cm;
	return 0;

out_failed:
	fan->nomem = ret == -ENOMEM;
	return ret;
}

/* Forget the fans that failed for want of memory. */
static void kiwi_rdma_fan_forget_nomem(void)
{
	struct kiwi_rdma_fan *fan, *next;

	lockdep_assert_held(&kiwi_rdma_fan_lock);
	list_for_each_entry_safe(fan, next, &kiwi_rdma_fans, node) {
		if (fan->nomem) {
			list_del(&fan->node);
			kfree(fan);
		}
	}
}

/*
 * Open the fans missing for @only (rdma_listen(): any error but a device
 * going away fails the call) or for every wildcard listener (a device was
 * added: errors are reported and that device is skipped, except -ENOMEM,
 * which this returns at the end of the pass for the work to try again).
 */
static int kiwi_rdma_fan_fill(struct kiwi_rdma_priv *only)
{
	struct kiwi_rdma_priv *owner;
	struct kiwi_rdma_dev *rdev;
	bool again = false;
	int ret;

	lockdep_assert_held(&kiwi_rdma_fan_lock);
	while (kiwi_rdma_fan_next(only, &owner, &rdev)) {
		ret = kiwi_rdma_fan_open(owner, rdev);
		if (!ret || ret == -ENODEV)
			continue;
		if (only)
			return ret;
		if (ret == -ENOMEM) {
			again = true;
			if (!kiwi_rdma_fan_has(owner, rdev))
				break;	/* not even the fan: end the pass */
			continue;
		}
		pr_warn_ratelimited("kiwi_rdmacm: wildcard listen on %s failed: %d\n",
				    rdev->dev->name, ret);
	}
	kiwi_rdma_fan_forget_nomem();
	return again ? -ENOMEM : 0;
}

/*
 * Close the fans on @gone. @pinned: each pins its owner (a device's
 * removal closes them), whose teardown waits for the unpin: a fan's iw_cm
 * id may deliver a request to its owner until it is destroyed.
 */
static void kiwi_rdma_fan_close(struct list_head *gone, bool pinned)
{
	struct kiwi_rdma_fan *fan, *next;
	struct kiwi_rdma_priv *owner;

	list_for_each_entry_safe(fan, next, gone, node) {
		owner = fan->owner;
		if (fan->cm)
			kiwi_cm_destroy_id(fan->cm);
		list_del(&fan->node);
		kfree(fan);
		if (pinned)
			kiwi_rdma_unpin(owner);
	}
}

/**
 * kiwi_rdma_fan_listen() - listen on every kiwi device of the id's namespace
 * @priv: an id bound to a wildcard address, in state LISTEN
 * @backlog: for every device's listener
 *
 * Devices registered later get a listener too, until kiwi_rdma_fan_stop().
 *
 * Context: process context; sleeps. No lock of this module held.
 * Return: 0, or the first device's error (then nothing listens).
 */
int kiwi_rdma_fan_listen(struct kiwi_rdma_priv *priv, int backlog)
{
	int ret;

	mutex_lock(&kiwi_rdma_fan_lock);
	priv->backlog = backlog;
	priv->fan = true;
	ret = kiwi_rdma_fan_fill(priv);
	mutex_unlock(&kiwi_rdma_fan_lock);
	if (ret)
		kiwi_rdma_fan_stop(priv);
	return ret;
}

/**
 * kiwi_rdma_fan_stop() - stop a wildcard listener on every device
 * @priv: the id; nothing happens if it is not a wildcard listener
 *
 * Returns when no request handler of the fans it closed runs any more.
 * Fans a device's removal took are closed there, each pinning @priv (as
 * a call does): the teardown waits for them after this.
 *
 * Context: process context; sleeps. Not from a handler of @priv's fans.
 */
void kiwi_rdma_fan_stop(struct kiwi_rdma_priv *priv)
{
	struct kiwi_rdma_fan *fan, *next;
	LIST_HEAD(gone);

	mutex_lock(&kiwi_rdma_fan_lock);
	priv->fan = false;
	list_for_each_entry_safe(fan, next, &kiwi_rdma_fans, node)
		if (fan->owner == priv)
			list_move_tail(&fan->node, &gone);
	mutex_unlock(&kiwi_rdma_fan_lock);
	kiwi_rdma_fan_close(&gone, false);
}

/**
 * kiwi_rdma_fan_count() - devices a wildcard listener listens on, for tests
 * @priv: the id
 *
 * Return: the number of its fans with a listening iw_cm id.
 */
int kiwi_rdma_fan_count(struct kiwi_rdma_priv *priv)
{
	struct kiwi_rdma_fan *fan;
	int n = 0;

	mutex_lock(&kiwi_rdma_fan_lock);
	list_for_each_entry(fan, &kiwi_rdma_fans, node)
		n += fan->owner == priv && fan->cm;
	mutex_unlock(&kiwi_rdma_fan_lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_fan_count);

static void kiwi_rdma_fan_work_fn(struct work_struct *work)
{
	int ret;

	mutex_lock(&kiwi_rdma_fan_lock);
	ret = kiwi_rdma_fan_fill(NULL);
	mutex_unlock(&kiwi_rdma_fan_lock);
	if (ret != -ENOMEM)
		return;
	pr_warn_ratelimited("kiwi_rdmacm: no memory for a wildcard listener's share of a device; trying again\n");
	queue_delayed_work(kiwi_rdma_wq, &kiwi_rdma_fan_work,
			   KIWI_RDMA_FAN_RETRY);
}

/**
 * kiwi_rdma_fan_exit() - stop the work that opens wildcard listeners' fans
 *
 * Context: process context; sleeps. After the client is unregistered (no
 * device add queues the work any more), before kiwi_rdma_wq is destroyed.
 */
void kiwi_rdma_fan_exit(void)
{
	cancel_delayed_work_sync(&kiwi_rdma_fan_work);
}

static void kiwi_rdma_dev_remove_work(struct work_struct *work)
{
	struct kiwi_rdma_dev *rdev = container_of(work, struct kiwi_rdma_dev,
						  remove_work);
	struct kiwi_rdma_fan *fan, *next;
	LIST_HEAD(gone);

	mutex_lock(&kiwi_rdma_fan_lock);
	list_for_each_entry_safe(fan, next, &kiwi_rdma_fans, node) {
		if (fan->rdev == rdev) {
			/* the owner's fan_stop no longer sees it: pin the owner */
			atomic_inc(&fan->owner->calls);
			list_move_tail(&fan->node, &gone);
		}
	}
	mutex_unlock(&kiwi_rdma_fan_lock);
	kiwi_rdma_fan_close(&gone, true);
	queue_work(kiwi_rdma_id_wq, &rdev->drain_work);
}

/**
 * kiwi_rdma_device_add() - client callback: a kiwi device was registered
 * @dev: the device
 *
 * Records it and has wildcard listeners of its namespace listen on it, in
 * a worker: this runs under the core's client lock.
 *
 * Context: process context, the core's client lock held.
 * Return: 0 (also for a device already going: kiwi_rdma_device_remove()
 * runs for it next), or -ENOMEM, on which the core fails the device's
 * registration, or this module's registration as a client.
 */
int kiwi_rdma_device_add(struct ib_device *dev)
{
	struct kiwi_rdma_dev *rdev;

	rdev = kiwi_should_fail() ? NULL : kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;
	if (!kiwi_device_get_live(dev)) {
		kfree(rdev);
		return 0;
	}
	rdev->dev = dev;
	INIT_WORK(&rdev->remove_work, kiwi_rdma_dev_remove_work);
	INIT_WORK(&rdev->drain_work, kiwi_rdma_dev_drain_work);
	mutex_lock(&kiwi_rdma_lock);
	list_add_tail(&rdev->node, &kiwi_rdma_devs);
	mutex_unlock(&kiwi_rdma_lock);
	mod_delayed_work(kiwi_rdma_wq, &kiwi_rdma_fan_work, 0);
	return 0;
}

/**
 * kiwi_rdma_dev_forget() - a kiwi device goes: close its fans in a worker
 * @dev: the device
 *
 * Context: process context, the core's client lock held.
 */
void kiwi_rdma_dev_forget(struct ib_device *dev)
{
	struct kiwi_rdma_dev *rdev;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(rdev, &kiwi_rdma_devs, node) {
		if (rdev->dev == dev) {
			list_del(&rdev->node);
			queue_work(kiwi_rdma_wq, &rdev->remove_work);
			break;
		}
	}
	mutex_unlock(&kiwi_rdma_lock);
}

/**
 * kiwi_rdma_fan_cm() - a wildcard listener's iw_cm id on a device, for tests
 * @priv: the listener
 * @dev: the device
 *
 * Return: the listening iw_cm id, or NULL.
 */
struct kiwi_cm_id *kiwi_rdma_fan_cm(struct kiwi_rdma_priv *priv,
				    struct ib_device *dev)
{
	struct kiwi_rdma_fan *fan;
	struct kiwi_cm_id *cm = NULL;

	mutex_lock(&kiwi_rdma_fan_lock);
	list_for_each_entry(fan, &kiwi_rdma_fans, node)
		if (fan->owner == priv && fan->rdev->dev == dev)
			cm = fan->cm;
	mutex_unlock(&kiwi_rdma_fan_lock);
	return cm;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_fan_cm);
