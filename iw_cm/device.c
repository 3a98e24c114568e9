// SPDX-License-Identifier: GPL-2.0
/*
 * The device registry: providers register RNICs here; unregistering tells
 * every id on the device and waits until all references are gone.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "iwcm.h"

/* Seconds between two reports while unregistration waits for references. */
static unsigned int kiwi_drain_report_secs = 10;
module_param_named(drain_report_secs, kiwi_drain_report_secs, uint, 0644);
MODULE_PARM_DESC(drain_report_secs,
		 "seconds between leak reports while a device unregisters");

/* Seconds unregistration waits before it gives up on leaked references. */
static unsigned int kiwi_drain_timeout_secs = 60;
module_param_named(drain_timeout_secs, kiwi_drain_timeout_secs, uint, 0644);
MODULE_PARM_DESC(drain_timeout_secs,
		 "seconds a device unregistration waits for leaked references before orphaning them (0: forever)");

/* Protects the device list; never held across a callback. */
static DEFINE_MUTEX(kiwi_devices_lock);
static LIST_HEAD(kiwi_devices);

/**
 * kiwi_device_get() - take a reference on a device known to be alive
 * @dev: the device
 *
 * Context: any context; the caller already holds a reference.
 */
void kiwi_device_get(struct ib_device *dev)
{
	refcount_inc(&dev->ref);
}

/**
 * kiwi_device_get_live() - take a reference unless unregistration started
 * @dev: the device, pinned by the caller (or its registration)
 *
 * Context: any context; takes @dev->lock.
 * Return: true with a reference taken, false if @dev is going away.
 */
bool kiwi_device_get_live(struct ib_device *dev)
{
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&dev->lock, flags);
	live = !dev->dying;
	if (live)
		refcount_inc(&dev->ref);
	spin_unlock_irqrestore(&dev->lock, flags);
	return live;
}
EXPORT_SYMBOL_GPL(kiwi_device_get_live);

/**
 * kiwi_device_put() - drop a device reference
 * @dev: the device
 *
 * The last reference completes the wait in kiwi_unregister_device().
 *
 * Context: any context.
 */
void kiwi_device_put(struct ib_device *dev)
{
	if (refcount_dec_and_test(&dev->ref))
		complete(&dev->drained);
}
EXPORT_SYMBOL_GPL(kiwi_device_put);

/**
 * kiwi_device_count() - bump a device counter
 * @dev: the device
 * @which: the counter
 *
 * Context: any context.
 */
void kiwi_device_count(struct ib_device *dev, enum kiwi_device_counter which)
{
	atomic_long_inc(&dev->counters[which]);
}

/**
 * kiwi_device_counter() - read a device counter
 * @dev: the device
 * @which: the counter
 *
 * Context: any context.
 * Return: the counter's value.
 */
unsigned long kiwi_device_counter(struct ib_device *dev,
				  enum kiwi_device_counter which)
{
	if ((unsigned int)which >= KIWI_DEV_NR_COUNTERS)
		return 0;
	return atomic_long_read(&dev->counters[which]);
}
EXPORT_SYMBOL_GPL(kiwi_device_counter);

static struct ib_device *kiwi_device_find(const char *name)
{
	struct ib_device *dev;

	lockdep_assert_held(&kiwi_devices_lock);
	list_for_each_entry(dev, &kiwi_devices, node)
		if (!strcmp(dev->name, name))
			return dev;
	return NULL;
}

static int kiwi_device_check_attr(struct ib_device *dev)
{
	struct ib_device_attr *a = &dev->attrs;

	if (a->max_qp_rd_atom < 0 || a->max_qp_rd_atom > KIWI_CM_MAX_IRD_ORD ||
	    a->max_qp_init_rd_atom < 0 ||
	    a->max_qp_init_rd_atom > KIWI_CM_MAX_IRD_ORD ||
	    dev->iw_max_private_data > KIWI_CM_MAX_PRIVATE_DATA ||
	    dev->num_comp_vectors < 0)
		return -EINVAL;
	return 0;
}

/* Serial number of the last node GUID the core gave a device. */
static atomic64_t kiwi_device_guids = ATOMIC64_INIT(0);

/*
 * What every iWARP device answers the same, and the defaults of what a
 * provider may set: one completion vector, a node GUID of its own.
 */
static void kiwi_device_set_identity(struct ib_device *dev)
{
	u64 serial;

	dev->node_type = RDMA_NODE_RNIC;
	dev->phys_port_cnt = 1;
	if (!dev->num_comp_vectors)
		dev->num_comp_vectors = 1;
	if (!dev->attrs.max_sge_rd)
		dev->attrs.max_sge_rd = dev->attrs.max_send_sge;
	/* What ULPs test for fast registration is what the ops say. */
	if (dev->ops->alloc_mr)
		dev->attrs.device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	else
		dev->attrs.device_cap_flags &= ~IB_DEVICE_MEM_MGT_EXTENSIONS;
	if (!dev->node_guid) {
		/* "kiw" then a serial: unique among this boot's devices. */
		serial = atomic64_inc_return(&kiwi_device_guids);
		dev->node_guid = cpu_to_be64(0x6b69770000000000ULL |
					     (serial & GENMASK_ULL(39, 0)));
	}
	dev->attrs.sys_image_guid = dev->node_guid;
}

/* Ops the core needs from every device. */
static bool kiwi_device_has_cm_ops(const struct kiwi_provider_ops *ops)
{
	return ops->iw_connect && ops->iw_accept && ops->iw_reject &&
	       ops->iw_create_listen && ops->iw_destroy_listen &&
	       ops->iw_add_ref && ops->iw_rem_ref && ops->iw_get_qp &&
	       ops->query_device && ops->modify_qp;
}

/*
 * The verbs ops come in groups, each all or none: the core calls the
 * others of a group without checking once an object of it exists. QPs
 * need CQs.
 */
static bool kiwi_device_has_verbs_groups(const struct kiwi_provider_ops *ops)
{
	int qp = !!ops->create_qp + !!ops->destroy_qp + !!ops->post_send +
		 !!ops->post_recv + !!ops->alloc_pd + !!ops->dealloc_pd;
	int cq = !!ops->create_cq + !!ops->destroy_cq + !!ops->poll_cq +
		 !!ops->req_notify_cq;
	int mr = !!ops->reg_kernel_mr + !!ops->dereg_mr;

	if (qp % 6 || cq % 4 || mr % 2)
		return false;
	/* Optional, but only with the MR group. */
	if (ops->reg_sg_mr && !mr)
		return false;
	/* Fast registration: both or neither, and only with the MR group. */
	if (!ops->alloc_mr != !ops->map_mr_sg || (ops->alloc_mr && !mr))
		return false;
	return !qp || cq;
}

/**
 * kiwi_register_device() - make an RNIC available to ULPs
 * @dev: the device, zeroed except for @name, @netdev, @ops,
 *	@iw_max_private_data and optionally @dma_device, @node_guid and
 *	@num_comp_vectors
 *
 * Reads the device's limits with @ops->query_device, then runs every
 * client's add. Lookups by name or net_device find the device only once
 * the clients have all heard of it.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL for a nameless device, an op table without a
 * connection op or with part of a verbs group (QP: create, destroy,
 * post_send, post_recv, alloc_pd, dealloc_pd; CQ: create, destroy, poll,
 * req_notify, required with QPs; MR: reg_kernel_mr, dereg_mr; reg_sg_mr
 * is optional but needs the MR group, as do alloc_mr and map_mr_sg, which
 * come together), or limits beyond what MPA carries;
 * -EEXIST if the name is taken; the error of @ops->query_device; or
 * -ENOMEM if a client's association with @dev could not be recorded or
 * a client's add returned -ENOMEM (the device was then unregistered
 * again: the clients that heard of it were told it went, and so were the
 * ids they made on it).
 */
int kiwi_register_device(struct ib_device *dev)
{
	const struct kiwi_provider_ops *ops = dev->ops;
	int ret;

	might_sleep();
	if (!dev->name[0] || !ops || !kiwi_device_has_cm_ops(ops) ||
	    !kiwi_device_has_verbs_groups(ops))
		return -EINVAL;
	ret = kiwi_should_fail() ? -ENOMEM : ops->query_device(dev, &dev->attrs);
	if (ret)
		return ret;
	ret = kiwi_device_check_attr(dev);
	if (ret)
		return ret;
	kiwi_device_set_identity(dev);
	/* for dev_printk() only: never registered with the driver model */
	dev->dev.init_name = dev->name;
	dev->dev.parent = dev->dma_device;

	refcount_set(&dev->ref, 1);
	init_completion(&dev->drained);
	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->ids);
	INIT_LIST_HEAD(&dev->pds);
	INIT_LIST_HEAD(&dev->qps);
	INIT_LIST_HEAD(&dev->cqs);
	INIT_LIST_HEAD(&dev->mrs);
	INIT_LIST_HEAD(&dev->client_ctxs);
	kiwi_device_event_init(dev);
	dev->dying = false;
	dev->hidden = true;

	mutex_lock(&kiwi_devices_lock);
	if (kiwi_device_find(dev->name)) {
		mutex_unlock(&kiwi_devices_lock);
		return -EEXIST;
	}
	list_add_tail(&dev->node, &kiwi_devices);
	kiwi_debugfs_add_device(dev);
	mutex_unlock(&kiwi_devices_lock);
	ret = kiwi_clients_device_add(dev);
	if (ret) {
		/* what the clients that heard of it made on it goes too */
		kiwi_unregister_device(dev);
		return ret;
	}
	mutex_lock(&kiwi_devices_lock);
	dev->hidden = false;
	mutex_unlock(&kiwi_devices_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_register_device);

/**
 * kiwi_device_get_by_name() - find a registered device
 * @name: its name
 *
 * Context: process context; sleeps.
 * Return: the device with a reference the caller drops with
 * kiwi_device_put(), or NULL.
 */
struct ib_device *kiwi_device_get_by_name(const char *name)
{
	struct ib_device *dev;

	mutex_lock(&kiwi_devices_lock);
	dev = kiwi_device_find(name);
	if (dev && (dev->hidden || !kiwi_device_get_live(dev)))
		dev = NULL;
	mutex_unlock(&kiwi_devices_lock);
	return dev;
}
EXPORT_SYMBOL_GPL(kiwi_device_get_by_name);

/**
 * kiwi_device_get_by_netdev() - find the device bound to a net_device
 * @netdev: the net_device
 *
 * Context: process context; sleeps.
 * Return: the device with a reference the caller drops with
 * kiwi_device_put(), or NULL.
 */
struct ib_device *kiwi_device_get_by_netdev(struct net_device *netdev)
{
	struct ib_device *dev, *found = NULL;

	mutex_lock(&kiwi_devices_lock);
	list_for_each_entry(dev, &kiwi_devices, node) {
		if (dev->netdev == netdev && !dev->hidden &&
		    kiwi_device_get_live(dev)) {
			found = dev;
			break;
		}
	}
	mutex_unlock(&kiwi_devices_lock);
	return found;
}
EXPORT_SYMBOL_GPL(kiwi_device_get_by_netdev);

/*
 * Queue DEVICE_REMOVAL on every id that its owner still holds, and abort
 * the background closes of LINGER ids now rather than wait linger_ms for
 * them. An id on the list may be at zero references, its kiwi_cm_free()
 * waiting for @dev->lock: it is skipped.
 */
static void kiwi_device_tell_ids(struct ib_device *dev)
{
	struct kiwi_cm_priv *priv;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry(priv, &dev->ids, dev_node) {
		spin_lock(&priv->lock);
		if (priv->state == KIWI_CM_STATE_LINGER)
			kiwi_cm_linger_kick(priv);
		if (!kiwi_cm_owner_gone(priv->state) &&
		    refcount_inc_not_zero(&priv->ref)) {
			kiwi_event_queue(priv, KIWI_CM_EVENT_DEVICE_REMOVAL, 0,
					 NULL, 0, NULL);
			/* never the last: the pending work item pins it */
			refcount_dec(&priv->ref);
		}
		spin_unlock(&priv->lock);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
}

/**
 * kiwi_device_set_drain_timeout() - set drain_timeout_secs
 * @secs: the new value
 *
 * Context: any context.
 * Return: the old value.
 */
unsigned int kiwi_device_set_drain_timeout(unsigned int secs)
{
	return xchg(&kiwi_drain_timeout_secs, secs);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_device_set_drain_timeout);

/*
 * Wait for the references to drain, naming the holders every report
 * period. Return: false if the timeout passed first.
 */
static bool kiwi_device_drain(struct ib_device *dev)
{
	unsigned int timeout = READ_ONCE(kiwi_drain_timeout_secs);
	unsigned int period = max(READ_ONCE(kiwi_drain_report_secs), 1U);
	unsigned int waited = 0;

	if (timeout)
		period = min(period, timeout);
	while (!wait_for_completion_timeout(&dev->drained, period * HZ)) {
		kiwi_device_report_leaks(dev);
		waited += period;
		if (timeout && waited >= timeout)
			return false;
	}
	return true;
}

/*
 * After orphaning only direct device references are left: transient ones
 * (an id being freed) and kiwi_device_get_by_name()/_by_netdev() ones.
 * Their holder has the device itself, so they cannot be cut loose: keep
 * waiting, naming the count every report period, never silently.
 */
static void kiwi_device_drain_held(struct ib_device *dev)
{
	unsigned int period = max(READ_ONCE(kiwi_drain_report_secs), 1U);

	while (!wait_for_completion_timeout(&dev->drained, period * HZ))
		pr_err("kiwi_iwcm: %s: unregister waits for %u device references (kiwi_device_get_by_name/_by_netdev not put)\n",
		       dev->name, refcount_read(&dev->ref));
}

/*
 * Give up on what leaked: cut the ids and verbs objects loose from @dev
 * (see kiwi_cm_orphan() and kiwi_verbs_orphan()) and drop their device
 * references, so that the provider can go.
 */
static void kiwi_device_orphan(struct ib_device *dev)
{
	struct kiwi_cm_priv *priv, *next;
	unsigned int puts, ids = 0;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry_safe(priv, next, &dev->ids, dev_node)
		ids += kiwi_cm_orphan(priv);
	puts = ids + kiwi_verbs_orphan(dev);
	spin_unlock_irqrestore(&dev->lock, flags);
	pr_err("kiwi_iwcm: %s: gave up waiting, orphaned %u ids and %u verbs objects\n",
	       dev->name, ids, puts - ids);
	while (puts--)
		kiwi_device_put(dev);
}

/**
 * kiwi_unregister_device() - take an RNIC away
 * @dev: a registered device
 *
 * New ids and verbs objects are refused from now on, clients' @remove
 * callbacks run, then every live id gets a DEVICE_REMOVAL event; its owner
 * must destroy it, and destroy every QP, CQ and MR of @dev. This waits
 * until they have, and until the provider has dropped every cm_id
 * reference it held, naming what is still alive every drain_report_secs
 * seconds. After drain_timeout_secs (unless 0) it gives up: leaked ids
 * and verbs objects are orphaned (cut loose from @dev, reported again at
 * module unload) and the call returns, so they never hang the provider's
 * unload. A device reference from kiwi_device_get_by_name() or
 * kiwi_device_get_by_netdev() that is never put cannot be cut loose (its
 * holder uses @dev itself): this keeps waiting for it, reporting it every
 * drain_report_secs seconds.
 *
 * Context: process context; sleeps. Not from a cm_id event handler.
 */
void kiwi_unregister_device(struct ib_device *dev)
{
	unsigned long flags;

	might_sleep();
	mutex_lock(&kiwi_devices_lock);
	list_del(&dev->node);
	spin_lock_irqsave(&dev->lock, flags);
	dev->dying = true;
	spin_unlock_irqrestore(&dev->lock, flags);
	mutex_unlock(&kiwi_devices_lock);
	kiwi_clients_device_remove(dev);
	kiwi_device_event_stop(dev);
	kiwi_device_tell_ids(dev);

	kiwi_device_put(dev);
	if (!kiwi_device_drain(dev)) {
		kiwi_device_orphan(dev);
		kiwi_device_drain_held(dev);
	}
	kiwi_debugfs_del_device(dev);
}
EXPORT_SYMBOL_GPL(kiwi_unregister_device);

/**
 * kiwi_device_exit() - module exit check: no device may be left
 *
 * Context: module exit; process context.
 */
void kiwi_device_exit(void)
{
	struct ib_device *dev;

	mutex_lock(&kiwi_devices_lock);
	list_for_each_entry(dev, &kiwi_devices, node)
		pr_err("kiwi_iwcm: device %s still registered at unload\n",
		       dev->name);
	mutex_unlock(&kiwi_devices_lock);
}
