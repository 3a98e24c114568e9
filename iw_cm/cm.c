// SPDX-License-Identifier: GPL-2.0
/*
 * cm_id objects: create and destroy, the references that keep an id and
 * its QP alive, orphans. The calls on a live id are in conn.c.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "iwcm.h"

static struct kmem_cache *kiwi_cm_cache;
static atomic_t kiwi_cm_live = ATOMIC_INIT(0);
/* Ids whose device unregistered without them; see kiwi_cm_orphan(). */
static DEFINE_SPINLOCK(kiwi_cm_orphans_lock);
static LIST_HEAD(kiwi_cm_orphans);

/**
 * kiwi_cm_alloc() - allocate an id for a device
 * @dev: the device
 * @gfp: GFP_KERNEL for a ULP's id, GFP_ATOMIC for a child made in an upcall
 *
 * The id starts IDLE with one reference, its owner's. It is not on the
 * device's list yet: the caller fills it in, then kiwi_cm_link_locked()
 * makes it visible. An id never linked is freed by kiwi_cm_put().
 *
 * Context: any context if @gfp allows it.
 * Return: the id or ERR_PTR(-ENOMEM).
 */
struct kiwi_cm_priv *kiwi_cm_alloc(struct ib_device *dev, gfp_t gfp)
{
	struct kiwi_cm_priv *priv;

	priv = kiwi_should_fail() ? NULL : kmem_cache_zalloc(kiwi_cm_cache, gfp);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&priv->lock);
	refcount_set(&priv->ref, 1);
	INIT_LIST_HEAD(&priv->deliveries);
	INIT_LIST_HEAD(&priv->dev_node);
	INIT_WORK(&priv->work, kiwi_event_work);
	INIT_DELAYED_WORK(&priv->linger, kiwi_cm_linger_work);
	priv->id.device = dev;
	priv->state = KIWI_CM_STATE_IDLE;
	atomic_inc(&kiwi_cm_live);
	return priv;
}

/**
 * kiwi_cm_link_locked() - make a filled-in id visible on its device
 * @priv: an id from kiwi_cm_alloc(), not linked yet
 *
 * From now on kiwi_unregister_device() sees the id; it pins the device.
 *
 * Context: any context; the device's lock held.
 * Return: 0, or -ENODEV if the device is going (the id stays unlinked).
 */
int kiwi_cm_link_locked(struct kiwi_cm_priv *priv)
{
	struct ib_device *dev = priv->id.device;

	lockdep_assert_held(&dev->lock);
	if (dev->dying)
		return -ENODEV;
	refcount_inc(&dev->ref);
	list_add_tail(&priv->dev_node, &dev->ids);
	return 0;
}

/*
 * The last reference went. Whether the id was orphaned is decided under
 * its lock, against kiwi_cm_orphan(): either the orphaning came first
 * (then @dev may be gone, and the orphan list has the id), or FREEING
 * makes the orphaning pass the id by (then the id's device reference,
 * still held, keeps @dev for the list_del below, and is dropped here).
 */
static void kiwi_cm_free(struct kiwi_cm_priv *priv)
{
	struct ib_device *dev = priv->id.device;
	unsigned long flags;
	bool linked = true;
	bool orphan;

	spin_lock_irqsave(&priv->lock, flags);
	orphan = priv->flags & KIWI_CM_F_ORPHAN;
	priv->flags |= KIWI_CM_F_FREEING;
	spin_unlock_irqrestore(&priv->lock, flags);
	kiwi_race_at(KIWI_RACE_CM_FREE, &priv->id);
	if (orphan) {	/* @dev is gone */
		spin_lock_irqsave(&kiwi_cm_orphans_lock, flags);
		list_del(&priv->dev_node);
		spin_unlock_irqrestore(&kiwi_cm_orphans_lock, flags);
		kmem_cache_free(kiwi_cm_cache, priv);
		atomic_dec(&kiwi_cm_live);
		return;
	}
	spin_lock_irqsave(&dev->lock, flags);
	if (list_empty(&priv->dev_node))
		linked = false;		/* failed before kiwi_cm_link_locked() */
	else
		list_del(&priv->dev_node);
	spin_unlock_irqrestore(&dev->lock, flags);
	kmem_cache_free(kiwi_cm_cache, priv);
	atomic_dec(&kiwi_cm_live);
	if (linked)
		kiwi_device_put(dev);
}

/**
 * kiwi_cm_orphan() - cut an id loose from a device that is going away
 * @priv: an id on the device's list
 *
 * For kiwi_unregister_device() when references did not drain in time:
 * the id forgets its QP (whose provider is leaving), is moved to the
 * orphan list and will not touch its device again; its owner gets -ENODEV
 * and may still destroy it; it is reported at module unload if it lives
 * that long. An id already being freed is left alone.
 *
 * Context: the device's lock held.
 * Return: true if orphaned: the caller drops the id's device reference.
 */
bool kiwi_cm_orphan(struct kiwi_cm_priv *priv)
{
	unsigned int i;

	lockdep_assert_held(&priv->id.device->lock);
	kiwi_race_at(KIWI_RACE_CM_ORPHAN, &priv->id);
	spin_lock(&priv->lock);
	if (priv->flags & KIWI_CM_F_FREEING) {
		spin_unlock(&priv->lock);
		return false;
	}
	priv->flags |= KIWI_CM_F_ORPHAN;
	priv->qp = NULL;
	for (i = 0; i < KIWI_CM_RING; i++)
		priv->ring[i].qp_put = NULL;
	spin_unlock(&priv->lock);
	spin_lock(&kiwi_cm_orphans_lock);
	list_move_tail(&priv->dev_node, &kiwi_cm_orphans);
	spin_unlock(&kiwi_cm_orphans_lock);
	return true;
}

/**
 * kiwi_cm_is_orphan() - whether an id was cut loose from its device
 * @priv: the id
 *
 * Context: any context; takes the id's lock.
 * Return: true once kiwi_cm_orphan() has run for it.
 */
bool kiwi_cm_is_orphan(struct kiwi_cm_priv *priv)
{
	unsigned long flags;
	bool orphan;

	spin_lock_irqsave(&priv->lock, flags);
	orphan = priv->flags & KIWI_CM_F_ORPHAN;
	spin_unlock_irqrestore(&priv->lock, flags);
	return orphan;
}

/**
 * kiwi_cm_check_live() - whether a call may still reach the id's device
 * @priv: the id
 *
 * Context: any context; takes the id's lock.
 * Return: 0, or -ENODEV once the device is going away (or gone).
 */
int kiwi_cm_check_live(struct kiwi_cm_priv *priv)
{
	if (kiwi_cm_is_orphan(priv))
		return -ENODEV;
	return READ_ONCE(priv->id.device->dying) ? -ENODEV : 0;
}

/**
 * kiwi_cm_get() - take a reference on an id
 * @priv: the id, already pinned by the caller
 *
 * Context: any context.
 */
void kiwi_cm_get(struct kiwi_cm_priv *priv)
{
	refcount_inc(&priv->ref);
}

/**
 * kiwi_cm_put() - drop a reference on an id, freeing it on the last one
 * @priv: the id
 *
 * Context: any context.
 */
void kiwi_cm_put(struct kiwi_cm_priv *priv)
{
	if (refcount_dec_and_test(&priv->ref))
		kiwi_cm_free(priv);
}

/**
 * kiwi_cm_id_add_ref() - pin an id while a provider endpoint points at it
 * @id: the id
 *
 * Context: any context; the caller already holds the id alive (an op it
 * is inside, or an earlier reference).
 */
void kiwi_cm_id_add_ref(struct kiwi_cm_id *id)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	priv->provider_refs++;
	kiwi_cm_get(priv);
	spin_unlock_irqrestore(&priv->lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_cm_id_add_ref);

/**
 * kiwi_cm_id_rem_ref() - drop a reference taken with kiwi_cm_id_add_ref()
 * @id: the id; may be freed before this returns
 *
 * Context: any context.
 */
void kiwi_cm_id_rem_ref(struct kiwi_cm_id *id)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	unsigned long flags;
	bool held;

	spin_lock_irqsave(&priv->lock, flags);
	held = priv->provider_refs;
	if (held)
		priv->provider_refs--;
	spin_unlock_irqrestore(&priv->lock, flags);
	if (!held) {
		kiwi_event_violation(priv, KIWI_CM_NR_EVENTS,
				     "rem_ref without add_ref");
		return;
	}
	kiwi_cm_put(priv);
}
EXPORT_SYMBOL_GPL(kiwi_cm_id_rem_ref);

/**
 * kiwi_cm_qp_put() - drop the reference a connection held on its QP
 * @qp: the QP
 *
 * Context: process context, no spinlock held (the provider may sleep).
 */
void kiwi_cm_qp_put(struct ib_qp *qp)
{
	might_sleep();
	qp->device->ops->iw_rem_ref(qp);
}

/**
 * kiwi_cm_create_id() - create a connection manager id
 * @dev: the device the id will use
 * @handler: the owner's event handler
 * @context: the owner's cookie, stored in the id
 *
 * Context: process context; sleeps.
 * Return: the id in state IDLE, or ERR_PTR(-EINVAL) without a handler,
 * -ENOMEM, or -ENODEV if @dev is being unregistered.
 */
struct kiwi_cm_id *kiwi_cm_create_id(struct ib_device *dev,
				     kiwi_cm_handler handler, void *context)
{
	struct kiwi_cm_priv *priv;
	unsigned long flags;
	int ret;

	might_sleep();
	if (!handler)
		return ERR_PTR(-EINVAL);
	priv = kiwi_cm_alloc(dev, GFP_KERNEL);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	priv->id.handler = handler;
	priv->id.context = context;
	spin_lock_irqsave(&dev->lock, flags);
	ret = kiwi_cm_link_locked(priv);
	spin_unlock_irqrestore(&dev->lock, flags);
	if (ret)
		goto err_free;
	return &priv->id;

err_free:
	kiwi_cm_put(priv);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(kiwi_cm_create_id);

/* Tell the provider the id is gone, according to the state it was in. */
static void kiwi_cm_teardown(struct kiwi_cm_priv *priv,
			     enum kiwi_cm_state old, bool accepted,
			     struct ib_qp *qp)
{
	const struct kiwi_provider_ops *ops = priv->id.device->ops;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	switch (old) {
	case KIWI_CM_STATE_LISTEN:
		ops->iw_destroy_listen(&priv->id);
		break;
	case KIWI_CM_STATE_CONN_RECV:
		if (!accepted) {
			ops->iw_reject(&priv->id, NULL, 0);
			break;
		}
		fallthrough;
	case KIWI_CM_STATE_CONN_SENT:
	case KIWI_CM_STATE_ESTABLISHED:
	case KIWI_CM_STATE_CLOSING:
		if (qp)
			ops->modify_qp(qp, &attr, IB_QP_STATE);
		break;
	default:
		break;
	}
	if (qp)
		kiwi_cm_qp_put(qp);
}

/**
 * kiwi_cm_destroy() - destroy an id on behalf of its owner
 * @priv: the id
 *
 * Idempotent: only the call that moves the id to DESTROYING (or LINGER)
 * acts; it drops the owner's reference last, or hands it to the linger
 * work that finishes the owner's graceful close in the background.
 *
 * Context: process context; sleeps.
 */
void kiwi_cm_destroy(struct kiwi_cm_priv *priv)
{
	struct kiwi_cm_slot queued[KIWI_CM_RING];
	struct ib_qp *qp = NULL;
	enum kiwi_cm_state old;
	unsigned long flags;
	unsigned int n = 0;
	bool accepted, orphan, linger;

	might_sleep();
	spin_lock_irqsave(&priv->lock, flags);
	old = priv->state;
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_DESTROY)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return;
	}
	linger = priv->state == KIWI_CM_STATE_LINGER;
	if (!linger) {		/* LINGER keeps the QP pinned */
		qp = priv->qp;
		priv->qp = NULL;
	}
	accepted = priv->flags & KIWI_CM_F_ACCEPTED;
	orphan = priv->flags & KIWI_CM_F_ORPHAN;
	while (kiwi_event_pop(priv, &queued[n]))
		n++;
	spin_unlock_irqrestore(&priv->lock, flags);

	if (!orphan && !linger)
		kiwi_cm_teardown(priv, old, accepted, qp);
	else if (qp)
		kiwi_cm_qp_put(qp);
	while (n--)
		kiwi_event_release(priv, &queued[n]);
	kiwi_event_child_done(priv);
	kiwi_event_wait_idle(priv);
	if (linger)
		kiwi_cm_linger_start(priv);	/* takes the owner's reference */
	else
		kiwi_cm_put(priv);
}

/**
 * kiwi_cm_destroy_id() - destroy an id
 * @id: the id
 *
 * Ends whatever the id was doing (a listener stops listening, a pending
 * request is rejected, a connection is aborted), drops the events still
 * queued, and waits until no handler call for @id is in progress: a call
 * lasts from its registration with the id, before the core enters the
 * handler, to the handler's return, and for a listener includes its
 * children's CONNECT_REQUEST calls. Not waited for are the caller's own
 * call, and calls that themselves wait in a destroy for the caller's call
 * (handlers destroying each other's ids, which would wait for ever). When
 * this returns no other handler call for @id runs or will start, so the
 * owner may free its context; @id must not be used again; the memory goes
 * when the provider drops its last reference.
 *
 * A connection whose graceful close the owner started with
 * kiwi_cm_disconnect() is not aborted: like TCP's close(), the core
 * finishes that close in the background (state LINGER), keeping the QP
 * pinned until the provider's CLOSE, and aborts it only after linger_ms
 * or when the device is unregistered. This call does not wait for it.
 *
 * Context: process context; sleeps. Legal inside any handler, the id's
 * own included, and from WQ_MEM_RECLAIM workers (it never flushes a
 * workqueue). Documentation/iw_cm.rst, "The owner's context", has the
 * rule in full.
 */
void kiwi_cm_destroy_id(struct kiwi_cm_id *id)
{
	kiwi_cm_destroy(kiwi_cm_priv(id));
}
EXPORT_SYMBOL_GPL(kiwi_cm_destroy_id);

/**
 * kiwi_cm_id_flush() - wait until the events queued on an id are handled
 * @id: the id, pinned by the caller
 *
 * For tests: the events queued before the call have been delivered (or
 * dropped) when it returns.
 *
 * Context: process context; sleeps. Not from the id's handler.
 */
void kiwi_cm_id_flush(struct kiwi_cm_id *id)
{
	flush_work(&kiwi_cm_priv(id)->work);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_cm_id_flush);

/**
 * kiwi_cm_live_ids() - number of ids allocated and not yet freed
 *
 * Context: any context.
 * Return: the number.
 */
int kiwi_cm_live_ids(void)
{
	return atomic_read(&kiwi_cm_live);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_cm_live_ids);

/**
 * kiwi_device_live_ids() - ids of a device allocated and not yet freed
 * @dev: the device
 *
 * An id counts until its last reference goes, the provider's included:
 * the conformance kit reads it to see that a provider let go of an id.
 *
 * Context: any context.
 * Return: the number.
 */
int kiwi_device_live_ids(struct ib_device *dev)
{
	struct kiwi_cm_priv *priv;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry(priv, &dev->ids, dev_node)
		n++;
	spin_unlock_irqrestore(&dev->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_device_live_ids);

/**
 * kiwi_cm_init() - module init: the id cache
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int kiwi_cm_init(void)
{
	kiwi_cm_cache = KMEM_CACHE(kiwi_cm_priv, 0);
	return kiwi_cm_cache ? 0 : -ENOMEM;
}

/**
 * kiwi_cm_exit() - module exit: free the id cache, unless ids leaked
 *
 * Context: module exit.
 */
void kiwi_cm_exit(void)
{
	int live = atomic_read(&kiwi_cm_live);
	struct kiwi_cm_priv *priv;
	char line[256];

	if (!live) {
		kmem_cache_destroy(kiwi_cm_cache);
		return;
	}
	pr_err("kiwi_iwcm: %d cm_ids leaked at unload, cache kept\n", live);
	spin_lock_irq(&kiwi_cm_orphans_lock);
	list_for_each_entry(priv, &kiwi_cm_orphans, dev_node) {
		spin_lock(&priv->lock);
		kiwi_cm_describe(priv, line, sizeof(line));
		spin_unlock(&priv->lock);
		pr_err("kiwi_iwcm: leaked %s\n", line);
	}
	spin_unlock_irq(&kiwi_cm_orphans_lock);
}
