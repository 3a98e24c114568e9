// SPDX-License-Identifier: GPL-2.0
/*
 * The cm_id API: create, listen, connect, accept, reject, disconnect,
 * destroy; the references that keep an id and its QP alive.
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

static bool kiwi_cm_is_orphan(struct kiwi_cm_priv *priv)
{
	unsigned long flags;
	bool orphan;

	spin_lock_irqsave(&priv->lock, flags);
	orphan = priv->flags & KIWI_CM_F_ORPHAN;
	spin_unlock_irqrestore(&priv->lock, flags);
	return orphan;
}

/* -ENODEV once the device is going away (or gone). */
static int kiwi_cm_check_live(struct kiwi_cm_priv *priv)
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

static int kiwi_cm_check_param(struct ib_device *dev, const void *pdata,
			       unsigned int len, unsigned int ird,
			       unsigned int ord)
{
	const struct ib_device_attr *a = &dev->attrs;

	if (len > dev->iw_max_private_data || (len && !pdata))
		return -EINVAL;
	if (ird > a->max_qp_rd_atom || ord > a->max_qp_init_rd_atom)
		return -EINVAL;
	return 0;
}

/* Look up and pin the QP a connection will use. */
static struct ib_qp *kiwi_cm_get_qp(struct ib_device *dev, u32 qpn)
{
	struct ib_qp *qp = dev->ops->iw_get_qp(dev, qpn);

	if (qp)
		dev->ops->iw_add_ref(qp);
	return qp;
}

/*
 * An op failed after moving the id to @from: go back to IDLE, unless an
 * upcall or destroy has moved the id on meanwhile, and unpin the QP.
 */
static void kiwi_cm_undo(struct kiwi_cm_priv *priv, enum kiwi_cm_state from)
{
	struct ib_qp *qp = NULL;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == from) {
		kiwi_cm_set_state(priv, KIWI_CM_STATE_IDLE);
		qp = priv->qp;
		priv->qp = NULL;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (qp)
		kiwi_cm_qp_put(qp);
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
 * kiwi_cm_listen() - listen for connect requests on @id->local_addr
 * @id: a fresh id
 * @backlog: pending requests allowed; 0 or less for the default
 *
 * A CONNECT_REQUEST beyond @backlog pending ones is refused (the provider
 * rejects the connection) and counted; the listener keeps working.
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL if the id is not fresh and IDLE, -ENODEV if the
 * device is going, or the provider's error.
 */
int kiwi_cm_listen(struct kiwi_cm_id *id, int backlog)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	unsigned long flags;
	int ret;

	might_sleep();
	ret = kiwi_cm_check_live(priv);
	if (ret)
		return ret;
	if (backlog <= 0)
		backlog = KIWI_CM_DEFAULT_BACKLOG;
	backlog = min_t(int, backlog, U16_MAX);
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_LISTEN)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	priv->flags |= KIWI_CM_F_USED;
	priv->backlog = backlog;
	spin_unlock_irqrestore(&priv->lock, flags);

	ret = kiwi_should_fail() ? -ENOMEM :
	      id->device->ops->iw_create_listen(id, backlog);
	if (ret)
		kiwi_cm_undo(priv, KIWI_CM_STATE_LISTEN);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_listen);

/**
 * kiwi_cm_check_option() - validate an iWARP option
 * @optname: enum kiwi_iwarp_opt
 * @optval: the value, a u32
 * @optlen: sizeof(u32)
 * @val: filled in with the value
 *
 * Context: any context.
 * Return: 0, -ENOPROTOOPT for an unknown option, or -EINVAL for a bad
 * length or value.
 */
int kiwi_cm_check_option(int optname, const void *optval, size_t optlen,
			 u32 *val)
{
	u32 v;

	if (optname < 0 || optname >= KIWI_IWARP_NR_OPTS)
		return -ENOPROTOOPT;
	if (!optval || optlen != sizeof(u32))
		return -EINVAL;
	memcpy(&v, optval, sizeof(v));
	switch (optname) {
	case KIWI_IWARP_OPT_MPA_REV:
		if (v != 1 && v != 2)
			return -EINVAL;
		break;
	case KIWI_IWARP_OPT_MPA_CRC:
	case KIWI_IWARP_OPT_P2P:
		if (v > 1)
			return -EINVAL;
		break;
	case KIWI_IWARP_OPT_RTR:
		if (!v || v & ~KIWI_IWARP_RTR_ALL)
			return -EINVAL;
		break;
	default:
		if (!v || v > KIWI_IWARP_TIMEOUT_MAX)
			return -EINVAL;
		break;
	}
	*val = v;
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_cm_check_option);

/**
 * kiwi_cm_set_option() - set an iWARP option of an id
 * @id: the id, neither listening nor connecting yet
 * @optname: enum kiwi_iwarp_opt
 * @optval: the value, a u32
 * @optlen: sizeof(u32)
 *
 * The provider reads the option when the id listens or connects; a
 * listener's children inherit its options. Options not set keep the
 * provider's defaults.
 *
 * Context: any context.
 * Return: 0; -ENOPROTOOPT for an unknown option; -EINVAL for a bad length
 * or value; -EISCONN once the id listens or connects, or for a child.
 */
int kiwi_cm_set_option(struct kiwi_cm_id *id, int optname,
		       const void *optval, size_t optlen)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	unsigned long flags;
	int ret;
	u32 v;

	ret = kiwi_cm_check_option(optname, optval, optlen, &v);
	if (ret)
		return ret;
	spin_lock_irqsave(&priv->lock, flags);
	if (priv->flags & KIWI_CM_F_USED) {
		ret = -EISCONN;
	} else {
		id->opts.val[optname] = v;
		id->opts.set |= BIT(optname);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_set_option);

/*
 * The start connect() and accept() share: check the id and the parameters,
 * pin the QP, take the table step for @op and bind the QP to the id.
 */
static int kiwi_cm_bind_qp(struct kiwi_cm_priv *priv,
			   const struct kiwi_conn_param *param,
			   enum kiwi_cm_op op, u8 flag)
{
	struct ib_device *dev = priv->id.device;
	struct ib_qp *qp;
	unsigned long flags;
	int ret;

	ret = kiwi_cm_check_live(priv);
	if (ret)
		return ret;
	ret = kiwi_cm_check_param(dev, param->private_data,
				  param->private_data_len, param->ird,
				  param->ord);
	if (ret)
		return ret;
	qp = kiwi_cm_get_qp(dev, param->qpn);
	if (!qp)
		return -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, op)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		kiwi_cm_qp_put(qp);
		return -EINVAL;
	}
	priv->flags |= flag;
	priv->qp = qp;
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}

/**
 * kiwi_cm_connect() - start an active connection to @id->remote_addr
 * @id: a fresh id
 * @param: private data, IRD/ORD and the QP to use
 *
 * The QP is pinned until the connection ends. The outcome arrives as a
 * CONNECT_REPLY event. The owner must not destroy the QP while this runs.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL for a QP number the provider does not know, limits
 * beyond the device's (nothing is truncated), or an id not fresh and IDLE;
 * -ENODEV if the device is going; or the provider's error (the id is IDLE
 * again and the QP unpinned).
 */
int kiwi_cm_connect(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	int ret;

	might_sleep();
	ret = kiwi_cm_bind_qp(priv, param, KIWI_CM_OP_CONNECT, KIWI_CM_F_USED);
	if (ret)
		return ret;
	ret = kiwi_should_fail() ? -ENOMEM :
	      id->device->ops->iw_connect(id, param);
	if (ret)
		kiwi_cm_undo(priv, KIWI_CM_STATE_CONN_SENT);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_connect);

/*
 * The provider's accept, or its failure at a fault point: a failed accept
 * has let go of the request (see &kiwi_provider_ops.iw_accept), which the
 * fault does by refusing it.
 */
static int kiwi_cm_provider_accept(struct kiwi_cm_id *id,
				   const struct kiwi_conn_param *param)
{
	const struct kiwi_provider_ops *ops = id->device->ops;

	if (!kiwi_should_fail())
		return ops->iw_accept(id, param);
	ops->iw_reject(id, NULL, 0);
	return -ENOMEM;
}

/**
 * kiwi_cm_accept() - accept the connection a CONNECT_REQUEST announced
 * @id: the child id the request came with
 * @param: private data, IRD/ORD and the QP to use
 *
 * The QP is pinned until the connection ends. The outcome arrives as
 * ESTABLISHED or, if the MPA exchange fails after this returned 0, as a
 * CLOSE with a negative status (and nothing else).
 *
 * Context: process context; sleeps. Legal inside the CONNECT_REQUEST handler.
 * Return: 0; -EINVAL for an unknown QP number, limits beyond the device's,
 * or an id that is not an unanswered request; -ENODEV if the device is
 * going; or the provider's error (the id is then IDLE: destroy it).
 */
int kiwi_cm_accept(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	struct ib_device *dev = id->device;
	int ret;

	might_sleep();
	ret = kiwi_cm_bind_qp(priv, param, KIWI_CM_OP_ACCEPT,
			      KIWI_CM_F_ACCEPTED);
	if (ret)
		return ret;
	ret = kiwi_cm_provider_accept(id, param);
	if (ret) {
		kiwi_cm_undo(priv, KIWI_CM_STATE_CONN_RECV);
		return ret;
	}
	kiwi_device_count(dev, KIWI_DEV_CNT_ACCEPTS);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_cm_accept);

/*
 * iw_reject failed: the request is still the provider's, unanswered. Back
 * to CONN_RECV (unless destroyed meanwhile) so that destroy rejects it.
 */
static void kiwi_cm_unreject(struct kiwi_cm_priv *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == KIWI_CM_STATE_IDLE) {
		kiwi_cm_set_state(priv, KIWI_CM_STATE_CONN_RECV);
		priv->flags &= ~KIWI_CM_F_ACCEPTED;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * kiwi_cm_reject() - refuse the connection a CONNECT_REQUEST announced
 * @id: the child id the request came with
 * @private_data: sent to the peer, or NULL
 * @private_data_len: bytes at @private_data
 *
 * Only the passive side rejects: on any other id (an active id waiting
 * for its CONNECT_REPLY included) this returns -EINVAL and changes
 * nothing; an active side gives up with kiwi_cm_destroy_id().
 *
 * Context: process context; sleeps. Legal inside the CONNECT_REQUEST handler.
 * Return: 0 (the id is IDLE: destroy it), -EINVAL as above or for private
 * data beyond the device's limit, or the provider's error (the request is
 * unanswered again, in CONN_RECV: reject it again, or destroy it, which
 * rejects it).
 */
int kiwi_cm_reject(struct kiwi_cm_id *id, const void *private_data,
		   u16 private_data_len)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	struct ib_device *dev = id->device;
	unsigned long flags;
	int ret;

	might_sleep();
	if (kiwi_cm_is_orphan(priv))
		return -ENODEV;
	ret = kiwi_cm_check_param(dev, private_data, private_data_len, 0, 0);
	if (ret)
		return ret;
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_REJECT)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	priv->flags |= KIWI_CM_F_ACCEPTED;	/* answered */
	spin_unlock_irqrestore(&priv->lock, flags);

	ret = kiwi_should_fail() ? -ENOMEM :
	      dev->ops->iw_reject(id, private_data, private_data_len);
	if (ret) {
		kiwi_cm_unreject(priv);
		return ret;
	}
	kiwi_device_count(dev, KIWI_DEV_CNT_REJECTS);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_cm_reject);

/* Is the owner's graceful close in flight? Destroy lingers only then. */
static void kiwi_cm_set_graceful(struct kiwi_cm_priv *priv, bool graceful)
{
	lockdep_assert_held(&priv->lock);
	if (graceful)
		priv->flags |= KIWI_CM_F_GRACEFUL;
	else
		priv->flags &= ~KIWI_CM_F_GRACEFUL;
}

/**
 * kiwi_cm_disconnect() - tear a connection down
 * @id: an ESTABLISHED or CLOSING id
 * @mode: graceful (QP to CLOSING) or abortive (QP to ERROR)
 *
 * The id moves to CLOSING. The side that disconnects first sees only
 * CLOSE; the peer sees DISCONNECT then CLOSE (graceful) or only CLOSE with
 * a negative status (abortive). Calling it again in CLOSING is legal; an
 * abortive call then escalates a graceful close. Destroying the id while
 * a graceful close is in flight finishes it in the background (see
 * kiwi_cm_destroy_id()).
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL in any other state, or the provider's error.
 */
int kiwi_cm_disconnect(struct kiwi_cm_id *id,
		       enum kiwi_cm_disconnect_mode mode)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	const struct kiwi_provider_ops *ops;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;
	unsigned long flags;
	int ret;

	might_sleep();
	if (kiwi_cm_is_orphan(priv))
		return -ENODEV;
	ops = id->device->ops;
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_DISCONNECT)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	qp = priv->qp;
	if (qp)
		ops->iw_add_ref(qp);	/* a CLOSE may unpin it meanwhile */
	kiwi_cm_set_graceful(priv, qp && mode == KIWI_CM_DISCONNECT_GRACEFUL);
	spin_unlock_irqrestore(&priv->lock, flags);
	if (!qp)
		return 0;

	attr.qp_state = mode == KIWI_CM_DISCONNECT_ABORTIVE ?
			IB_QPS_ERR : IB_QPS_SQD;
	/* A move to ERROR never fails: only a graceful close may. */
	if (attr.qp_state == IB_QPS_SQD && kiwi_should_fail())
		ret = -ENOMEM;
	else
		ret = ops->modify_qp(qp, &attr, IB_QP_STATE);
	if (ret) {		/* no close of ours is in flight */
		spin_lock_irqsave(&priv->lock, flags);
		kiwi_cm_set_graceful(priv, false);
		spin_unlock_irqrestore(&priv->lock, flags);
	}
	kiwi_cm_qp_put(qp);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_disconnect);

/**
 * kiwi_cm_init_qp_attr() - QP attributes a connection needs
 * @id: an id with a connection being set up or up
 * @attr: filled in
 * @mask: set to the IB_QP_* bits filled in
 *
 * Context: any context.
 * Return: 0, or -EINVAL if @id is not in CONN_RECV, CONN_SENT or
 * ESTABLISHED.
 */
int kiwi_cm_init_qp_attr(struct kiwi_cm_id *id, struct ib_qp_attr *attr,
			 int *mask)
{
	switch (kiwi_cm_id_state(id)) {
	case KIWI_CM_STATE_CONN_RECV:
	case KIWI_CM_STATE_CONN_SENT:
	case KIWI_CM_STATE_ESTABLISHED:
		attr->qp_access_flags = IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ;
		*mask = IB_QP_ACCESS_FLAGS;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(kiwi_cm_init_qp_attr);

/**
 * kiwi_cm_id_state() - an id's current state
 * @id: the id
 *
 * Queued events are not yet seen by the owner: the state runs ahead of
 * the handler by what is queued.
 *
 * Context: any context.
 * Return: the state.
 */
enum kiwi_cm_state kiwi_cm_id_state(struct kiwi_cm_id *id)
{
	return READ_ONCE(kiwi_cm_priv(id)->state);
}
EXPORT_SYMBOL_GPL(kiwi_cm_id_state);

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
