// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous events. QP events: a provider raises them from any
 * context, the QP's event_handler hears them in process context, never
 * after ib_destroy_qp() returned. CQ events (IB_EVENT_CQ_ERR) likewise:
 * the CQ's event_handler hears them, never after ib_destroy_cq() or
 * ib_free_cq() returned. Device events: a provider raises them from any
 * context, every registered ib_event_handler of the device hears them in
 * process context, never after its unregistration returned. Events of
 * one QP, one CQ or one device are delivered one at a time. A QP or CQ
 * event raised again before its delivery is delivered once; a device's
 * events are delivered in the order they were raised (a port's down and
 * up both arrive, the last one last).
 */
#include <linux/bitops.h>
#include <linux/rwsem.h>
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

static void kiwi_cq_event_work(struct work_struct *work)
{
	struct ib_cq *cq = container_of(work, struct ib_cq, ev_work);
	struct ib_event ev = {
		.device = cq->device,
		.element.cq = cq,
		.event = IB_EVENT_CQ_ERR,
	};
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&cq->ev_lock, flags);
	pending = cq->ev_pending && !cq->ev_dead;
	cq->ev_pending = false;
	spin_unlock_irqrestore(&cq->ev_lock, flags);
	if (pending)
		cq->event_handler(&ev, cq->cq_context);
}

/**
 * kiwi_cq_event_init() - prepare a new CQ for asynchronous events
 * @cq: the CQ, not yet used by any QP
 *
 * Context: any context.
 */
void kiwi_cq_event_init(struct ib_cq *cq)
{
	spin_lock_init(&cq->ev_lock);
	cq->ev_pending = false;
	cq->ev_dead = false;
	INIT_WORK(&cq->ev_work, kiwi_cq_event_work);
}

/**
 * kiwi_cq_event_stop() - no more asynchronous events for a CQ
 * @cq: the CQ
 * @sync: wait for a delivery in progress (not from the CQ's handler)
 *
 * After a synchronous stop no handler of @cq runs.
 *
 * Context: process context if @sync, else any context.
 */
void kiwi_cq_event_stop(struct ib_cq *cq, bool sync)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->ev_lock, flags);
	cq->ev_dead = true;
	cq->ev_pending = false;
	spin_unlock_irqrestore(&cq->ev_lock, flags);
	if (sync)
		cancel_work_sync(&cq->ev_work);
	else
		cancel_work(&cq->ev_work);
}

/**
 * kiwi_cq_event() - raise IB_EVENT_CQ_ERR on a CQ
 * @cq: a CQ of the caller's device, whose memory the caller keeps valid
 *	during the call
 * @type: IB_EVENT_CQ_ERR (the CQ overflowed: a completion was lost); any
 *	other value is a provider bug, warned about once and dropped
 *
 * The CQ's event_handler hears it in process context, unless the CQ has
 * none or is being destroyed: ib_destroy_cq() and ib_free_cq() end
 * delivery. Raise it once per overflow, not once per lost completion;
 * raising it again before its delivery does nothing.
 *
 * Context: any context.
 */
void kiwi_cq_event(struct ib_cq *cq, enum ib_event_type type)
{
	unsigned long flags;

	if (WARN_ON_ONCE(type != IB_EVENT_CQ_ERR) || !cq->event_handler)
		return;
	spin_lock_irqsave(&cq->ev_lock, flags);
	if (!cq->ev_dead) {
		cq->ev_pending = true;
		queue_work(system_wq, &cq->ev_work);
	}
	spin_unlock_irqrestore(&cq->ev_lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_cq_event);

/* The events a device may carry. */
#define KIWI_DEVICE_EVENTS	(BIT(IB_EVENT_PORT_ACTIVE) | \
				 BIT(IB_EVENT_PORT_ERR) | \
				 BIT(IB_EVENT_DEVICE_FATAL))

/* Take the oldest pending device event; false if there is none. */
static bool kiwi_device_event_pop(struct ib_device *dev,
				  enum ib_event_type *type)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&dev->lock, flags);
	any = dev->ev_count;
	if (any) {
		*type = dev->ev_ring[dev->ev_head];
		dev->ev_head = (dev->ev_head + 1) % KIWI_DEVICE_EV_RING;
		dev->ev_count--;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	return any;
}

static void kiwi_device_event_work(struct work_struct *work)
{
	struct ib_device *dev = container_of(work, struct ib_device, ev_work);
	struct ib_event ev = { .device = dev, .element.port_num = 1 };
	struct ib_event_handler *h;

	down_read(&dev->ev_rwsem);
	while (kiwi_device_event_pop(dev, &ev.event))
		list_for_each_entry(h, &dev->ev_handlers, list)
			h->handler(h, &ev);
	up_read(&dev->ev_rwsem);
}

/**
 * kiwi_device_event_init() - prepare a device for device events
 * @dev: the device, being registered
 *
 * Context: any context.
 */
void kiwi_device_event_init(struct ib_device *dev)
{
	init_rwsem(&dev->ev_rwsem);
	INIT_LIST_HEAD(&dev->ev_handlers);
	dev->ev_head = 0;
	dev->ev_count = 0;
	INIT_WORK(&dev->ev_work, kiwi_device_event_work);
}

/**
 * kiwi_device_event_stop() - deliver no more device events
 * @dev: the device, marked dying (kiwi_device_event() raises nothing)
 *
 * Waits for a delivery in progress. A handler still registered is
 * warned about: its ULP should have unregistered it in its ib_client's
 * remove callback.
 *
 * Context: process context, not from an event handler of @dev.
 */
void kiwi_device_event_stop(struct ib_device *dev)
{
	cancel_work_sync(&dev->ev_work);
	down_read(&dev->ev_rwsem);
	WARN_ONCE(!list_empty(&dev->ev_handlers),
		  "kiwi_iwcm: %s: event handler still registered at removal\n",
		  dev->name);
	up_read(&dev->ev_rwsem);
}

/**
 * kiwi_device_event() - raise an event of a whole device
 * @dev: a registered device of the caller's
 * @type: IB_EVENT_PORT_ACTIVE (its port, 1, came up), IB_EVENT_PORT_ERR
 *	(it went down) or IB_EVENT_DEVICE_FATAL (the device failed); any
 *	other value is a provider bug, warned about once and dropped
 *
 * Every &struct ib_event_handler registered on @dev hears it in process
 * context, in the order the events were raised. Raising is cheap and
 * never fails: when more than a few wait, the oldest is dropped, so the
 * last state of the port always arrives. A dying device raises nothing.
 *
 * Context: any context.
 */
void kiwi_device_event(struct ib_device *dev, enum ib_event_type type)
{
	unsigned long flags;
	unsigned int tail;

	if (WARN_ON_ONCE((unsigned int)type >= BITS_PER_LONG ||
			 !(BIT(type) & KIWI_DEVICE_EVENTS)))
		return;
	spin_lock_irqsave(&dev->lock, flags);
	if (!dev->dying) {
		if (dev->ev_count == KIWI_DEVICE_EV_RING) {
			dev->ev_head = (dev->ev_head + 1) % KIWI_DEVICE_EV_RING;
			dev->ev_count--;
		}
		tail = (dev->ev_head + dev->ev_count) % KIWI_DEVICE_EV_RING;
		dev->ev_ring[tail] = type;
		dev->ev_count++;
		queue_work(system_wq, &dev->ev_work);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_device_event);

/**
 * kiwi_register_event_handler() - hear a device's events
 *	(ib_register_event_handler())
 * @handler: set up by INIT_IB_EVENT_HANDLER() for a registered device
 *
 * Context: process context, not from an event handler.
 */
void kiwi_register_event_handler(struct ib_event_handler *handler)
{
	struct ib_device *dev = handler->device;

	down_write(&dev->ev_rwsem);
	list_add_tail(&handler->list, &dev->ev_handlers);
	up_write(&dev->ev_rwsem);
}
EXPORT_SYMBOL_GPL(kiwi_register_event_handler);

/**
 * kiwi_unregister_event_handler() - stop hearing a device's events
 *	(ib_unregister_event_handler())
 * @handler: a registered handler
 *
 * When it returns, @handler's function is not running and will not run.
 *
 * Context: process context, not from an event handler of the device.
 */
void kiwi_unregister_event_handler(struct ib_event_handler *handler)
{
	struct ib_device *dev = handler->device;

	down_write(&dev->ev_rwsem);
	list_del_init(&handler->list);
	up_write(&dev->ev_rwsem);
}
EXPORT_SYMBOL_GPL(kiwi_unregister_event_handler);
