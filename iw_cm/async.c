// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous QP events: a provider raises them from any context, the
 * QP's event_handler hears them in process context, never after
 * ib_destroy_qp() returned. Events of one QP are delivered one at a time;
 * an event raised again before its delivery is delivered once.
 */
#include <linux/bitops.h>
#include <linux/workqueue.h>

#include "iwcm.h"

/* The events a QP may carry (enum ib_event_type's QP entries). */
#define KIWI_QP_EVENTS	(BIT(IB_EVENT_QP_FATAL) | BIT(IB_EVENT_QP_REQ_ERR) | \
			 BIT(IB_EVENT_QP_ACCESS_ERR) | BIT(IB_EVENT_COMM_EST) | \
			 BIT(IB_EVENT_SQ_DRAINED) | \
			 BIT(IB_EVENT_QP_LAST_WQE_REACHED))

static void kiwi_qp_event_work(struct work_struct *work)
{
	struct ib_qp *qp = container_of(work, struct ib_qp, ev_work);
	struct ib_event ev = { .device = qp->device, .element.qp = qp };
	unsigned long pending, flags;
	unsigned int type;

	spin_lock_irqsave(&qp->ev_lock, flags);
	pending = qp->ev_dead ? 0 : qp->ev_pending;
	qp->ev_pending = 0;
	spin_unlock_irqrestore(&qp->ev_lock, flags);

	for_each_set_bit(type, &pending, BITS_PER_LONG) {
		ev.event = type;
		qp->event_handler(&ev, qp->qp_context);
	}
}

/**
 * kiwi_qp_event_init() - prepare a new QP for asynchronous events
 * @qp: the QP, not yet visible to its provider's data path
 *
 * Context: any context.
 */
void kiwi_qp_event_init(struct ib_qp *qp)
{
	spin_lock_init(&qp->ev_lock);
	qp->ev_pending = 0;
	qp->ev_dead = false;
	INIT_WORK(&qp->ev_work, kiwi_qp_event_work);
}

/**
 * kiwi_qp_event_stop() - no more asynchronous events for a QP
 * @qp: the QP
 * @sync: wait for a delivery in progress (not from the QP's handler)
 *
 * After a synchronous stop no handler of @qp runs.
 *
 * Context: process context if @sync, else any context.
 */
void kiwi_qp_event_stop(struct ib_qp *qp, bool sync)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->ev_lock, flags);
	qp->ev_dead = true;
	qp->ev_pending = 0;
	spin_unlock_irqrestore(&qp->ev_lock, flags);
	if (sync)
		cancel_work_sync(&qp->ev_work);
	else
		cancel_work(&qp->ev_work);
}

/**
 * kiwi_qp_event() - raise an asynchronous event on a QP
 * @qp: a QP of the caller's device, whose memory the caller keeps valid
 *	during the call
 * @type: IB_EVENT_QP_FATAL (a local error ended the QP),
 *	IB_EVENT_QP_REQ_ERR (the peer sent what the QP could not carry out),
 *	IB_EVENT_QP_ACCESS_ERR (the peer broke a memory protection rule), or
 *	another QP event of enum ib_event_type; any other value is a
 *	provider bug, warned about once and dropped
 *
 * The QP's event_handler hears it in process context, unless the QP has
 * none or is being destroyed: ib_destroy_qp() ends delivery. Raising is
 * cheap and never fails; raising an event still pending does nothing.
 *
 * Context: any context.
 */
void kiwi_qp_event(struct ib_qp *qp, enum ib_event_type type)
{
	unsigned long flags;

	if (WARN_ON_ONCE((unsigned int)type >= BITS_PER_LONG ||
			 !(BIT(type) & KIWI_QP_EVENTS)) || !qp->event_handler)
		return;
	spin_lock_irqsave(&qp->ev_lock, flags);
	if (!qp->ev_dead) {
		qp->ev_pending |= BIT(type);
		queue_work(system_wq, &qp->ev_work);
	}
	spin_unlock_irqrestore(&qp->ev_lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_qp_event);
