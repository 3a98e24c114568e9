// SPDX-License-Identifier: GPL-2.0
/*
 * LINGER: an owner that destroys its id while its own graceful
 * disconnect() is in flight gets what TCP's close() gives: the id is gone
 * for the owner at once, and the core finishes the close in the
 * background. It keeps the QP pinned (the provider keeps its own
 * reference on the id) until the provider's CLOSE arrives, or aborts the
 * connection (QP to ERROR) after linger_ms, or at once when the device is
 * being unregistered.
 *
 * The owner's reference passes to the linger work, armed by destroy. The
 * work runs exactly once: at the timeout, or kicked early by the CLOSE
 * upcall or by unregistration; kicking only shortens a pending delay.
 */
#include <linux/module.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include "iwcm.h"
#include "trace.h"

static unsigned int kiwi_cm_linger_ms = 60000;
module_param_named(linger_ms, kiwi_cm_linger_ms, uint, 0644);
MODULE_PARM_DESC(linger_ms,
		 "milliseconds a destroyed id's graceful close may take before it is aborted");

/**
 * kiwi_cm_set_linger_ms() - set linger_ms
 * @ms: the new value
 *
 * Context: any context.
 * Return: the old value.
 */
unsigned int kiwi_cm_set_linger_ms(unsigned int ms)
{
	return xchg(&kiwi_cm_linger_ms, ms);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_cm_set_linger_ms);

/**
 * kiwi_cm_linger_start() - arm the background close of a LINGER id
 * @priv: the id, just moved to LINGER by kiwi_cm_destroy(); the owner's
 *	reference passes to the linger work
 *
 * If the CLOSE came already (the id is DESTROYING), or the device is
 * being unregistered, the work runs at once.
 *
 * Context: any context.
 */
void kiwi_cm_linger_start(struct kiwi_cm_priv *priv)
{
	unsigned long delay = 0;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	/* unregistration sets dying before it kicks the ids it finds armed */
	if (priv->state == KIWI_CM_STATE_LINGER &&
	    !READ_ONCE(priv->id.device->dying))
		delay = msecs_to_jiffies(READ_ONCE(kiwi_cm_linger_ms));
	priv->flags |= KIWI_CM_F_LINGER;
	kiwi_event_queue_delayed(&priv->linger, delay);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * kiwi_cm_linger_kick() - run an armed linger work now
 * @priv: the id
 *
 * For the CLOSE upcall (the close is over) and unregistration (abort it).
 * Does nothing if no linger work is pending: not armed yet (destroy arms
 * it at once, seeing the state), or already running.
 *
 * Context: any context; @priv->lock held.
 */
void kiwi_cm_linger_kick(struct kiwi_cm_priv *priv)
{
	lockdep_assert_held(&priv->lock);
	if (!(priv->flags & KIWI_CM_F_LINGER))
		return;
	/* Only a pending work is moved: one that runs is not queued twice. */
	if (cancel_delayed_work(&priv->linger))
		kiwi_event_queue_delayed(&priv->linger, 0);
}

/**
 * kiwi_cm_linger_work() - end a background close
 * @work: the id's linger work
 *
 * Still LINGER: the timeout passed, or the device is going; abort the
 * connection (QP to ERROR). DESTROYING: the CLOSE came. Either way unpin
 * the QP and drop the reference the owner left.
 *
 * Context: a kiwi_cm worker (process context).
 */
void kiwi_cm_linger_work(struct work_struct *work)
{
	struct kiwi_cm_priv *priv = container_of(to_delayed_work(work),
						 struct kiwi_cm_priv, linger);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_qp *qp;
	unsigned long flags;
	bool abort;

	spin_lock_irqsave(&priv->lock, flags);
	abort = priv->state == KIWI_CM_STATE_LINGER;
	if (abort)
		kiwi_cm_set_state(priv, KIWI_CM_STATE_DESTROYING);
	qp = priv->qp;
	priv->qp = NULL;
	spin_unlock_irqrestore(&priv->lock, flags);
	if (qp) {
		if (abort)
			qp->device->ops->modify_qp(qp, &attr,
						   IB_QP_STATE);
		kiwi_cm_qp_put(qp);
	}
	kiwi_cm_put(priv);
}
