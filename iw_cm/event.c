// SPDX-License-Identifier: GPL-2.0
/*
 * Provider upcalls and their delivery. An upcall may come from any
 * context: it applies the state table under the id's spinlock, copies the
 * private data with GFP_ATOMIC and queues the event in a slot embedded in
 * the id. Each id has its own work item on a per-CPU WQ_MEM_RECLAIM
 * workqueue that hands its events to the owner's handler in order; ids
 * never wait for each other.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "iwcm.h"
#include "trace.h"

static struct workqueue_struct *kiwi_cm_wq;
static DECLARE_WAIT_QUEUE_HEAD(kiwi_event_waitq);
/* Handler calls waiting in a destroy, and the marks of one search. */
static DEFINE_SPINLOCK(kiwi_event_wait_lock);
static LIST_HEAD(kiwi_event_waiters);
static u64 kiwi_event_mark;

/**
 * struct kiwi_cm_call - a handler call in progress, on the worker's stack
 * @task: the worker
 * @waits: the id a kiwi_cm_destroy_id() made in the call waits for, or
 *	NULL (kiwi_event_wait_lock)
 * @wait_node: entry in kiwi_event_waiters while @waits is set
 * @mark: equals kiwi_event_mark when the search found that @waits waits
 *	for the searching call (kiwi_event_wait_lock)
 */
struct kiwi_cm_call {
	struct task_struct *task;
	struct kiwi_cm_priv *waits;
	struct list_head wait_node;
	u64 mark;
};

/* The registration of a call with an id (its own; a request's listener). */
struct kiwi_cm_delivery {
	struct list_head node;
	struct kiwi_cm_call *call;
};

/**
 * kiwi_event_queue() - queue an event for an id's owner
 * @priv: the id
 * @event: the event type
 * @status: its status
 * @pdata: private data, owned by the queue from now on
 * @len: bytes at @pdata
 * @qp_put: a QP reference to drop before delivery, or NULL
 *
 * The pending work item pins the id: queueing it takes a reference that
 * the worker drops when it has emptied the queue.
 *
 * Context: any context; @priv->lock held.
 */
void kiwi_event_queue(struct kiwi_cm_priv *priv, u8 event, int status,
		      void *pdata, u16 len, struct ib_qp *qp_put)
{
	struct kiwi_cm_slot *slot;

	lockdep_assert_held(&priv->lock);
	/* Cannot overflow: one slot per event type, each type comes once. */
	slot = &priv->ring[(priv->head + priv->count) % KIWI_CM_RING];
	priv->count++;
	slot->event = event;
	slot->status = status;
	slot->pdata = pdata;
	slot->len = len;
	slot->qp_put = qp_put;
	kiwi_cm_get(priv);
	if (!queue_work(kiwi_cm_wq, &priv->work))
		refcount_dec(&priv->ref);	/* already pending: it pins */
}

/**
 * kiwi_event_pop() - take the oldest queued event of an id
 * @priv: the id
 * @slot: filled with the event
 *
 * Context: any context; @priv->lock held.
 * Return: true if an event was taken.
 */
bool kiwi_event_pop(struct kiwi_cm_priv *priv, struct kiwi_cm_slot *slot)
{
	lockdep_assert_held(&priv->lock);
	if (!priv->count)
		return false;
	*slot = priv->ring[priv->head];
	priv->head = (priv->head + 1) % KIWI_CM_RING;
	priv->count--;
	return true;
}

/**
 * kiwi_event_release() - free what a popped event still owns
 * @priv: the id
 * @slot: the event
 *
 * Context: process context, no spinlock held (drops a QP reference).
 */
void kiwi_event_release(struct kiwi_cm_priv *priv, struct kiwi_cm_slot *slot)
{
	kfree(slot->pdata);
	slot->pdata = NULL;
	if (slot->qp_put)
		kiwi_cm_qp_put(slot->qp_put);
	slot->qp_put = NULL;
	if (slot->event == KIWI_CM_EVENT_CONNECT_REQUEST)
		kiwi_event_child_done(priv);
}

/**
 * kiwi_event_child_done() - a child's request no longer counts as pending
 * @child: the id; does nothing for an id that is not a pending child
 *
 * Frees the listener's backlog slot and drops the child's listener pin.
 *
 * Context: any context.
 */
void kiwi_event_child_done(struct kiwi_cm_priv *child)
{
	struct kiwi_cm_priv *listener;
	unsigned long flags;

	spin_lock_irqsave(&child->lock, flags);
	listener = child->listener;
	child->listener = NULL;
	spin_unlock_irqrestore(&child->lock, flags);
	if (!listener)
		return;
	spin_lock_irqsave(&listener->lock, flags);
	listener->pending--;
	spin_unlock_irqrestore(&listener->lock, flags);
	kiwi_cm_put(listener);
}

/* Register a handler call with @target, unless @target is being destroyed. */
static bool kiwi_event_enter(struct kiwi_cm_priv *target,
			     struct kiwi_cm_delivery *d)
{
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&target->lock, flags);
	live = !kiwi_cm_owner_gone(target->state);
	if (live)
		list_add(&d->node, &target->deliveries);
	spin_unlock_irqrestore(&target->lock, flags);
	return live;
}

static void kiwi_event_leave(struct kiwi_cm_priv *target,
			     struct kiwi_cm_delivery *d)
{
	unsigned long flags;

	spin_lock_irqsave(&target->lock, flags);
	list_del(&d->node);
	spin_unlock_irqrestore(&target->lock, flags);
	if (wq_has_sleeper(&kiwi_event_waitq))
		wake_up_all(&kiwi_event_waitq);
}

/*
 * The handler call the current task is in, or NULL. Handlers run only in
 * kiwi_event_work(), whose id the running work item pins, and a running
 * call is registered with that id.
 */
static struct kiwi_cm_call *kiwi_event_current(void)
{
	struct work_struct *work = current_work();
	struct kiwi_cm_call *call = NULL;
	struct kiwi_cm_delivery *d;
	struct kiwi_cm_priv *priv;
	unsigned long flags;

	if (!work || work->func != kiwi_event_work)
		return NULL;
	priv = container_of(work, struct kiwi_cm_priv, work);
	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(d, &priv->deliveries, node)
		if (d->call->task == current)
			call = d->call;
	spin_unlock_irqrestore(&priv->lock, flags);
	return call;
}

/* No handler call at all is registered with @priv. */
static bool kiwi_event_idle(struct kiwi_cm_priv *priv)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&priv->lock, flags);
	idle = list_empty(&priv->deliveries);
	spin_unlock_irqrestore(&priv->lock, flags);
	return idle;
}

/*
 * Is every call registered with @priv, but @skip, @c itself or marked
 * (with @mark, as waiting for @c)? With @all false: is any?
 */
static bool kiwi_event_scan(struct kiwi_cm_priv *priv,
			    struct kiwi_cm_call *skip, struct kiwi_cm_call *c,
			    u64 mark, bool all)
{
	struct kiwi_cm_delivery *d;
	bool hit, ret = all;

	lockdep_assert_held(&kiwi_event_wait_lock);
	spin_lock(&priv->lock);
	list_for_each_entry(d, &priv->deliveries, node) {
		if (d->call == skip)
			continue;
		hit = d->call == c || d->call->mark == mark;
		if (hit != all) {
			ret = hit;
			break;
		}
	}
	spin_unlock(&priv->lock);
	return ret;
}

/*
 * Mark every call waiting in a destroy that waits, directly or through
 * other destroys, for @c: the id it waits for is handled by @c or by a
 * call already marked. Each waiter's id is alive while it is listed: its
 * destroy holds the owner's reference until it leaves the list.
 */
static u64 kiwi_event_mark_waiting_for(struct kiwi_cm_call *c)
{
	u64 mark = ++kiwi_event_mark;
	struct kiwi_cm_call *u;
	bool grew;

	lockdep_assert_held(&kiwi_event_wait_lock);
	do {
		grew = false;
		list_for_each_entry(u, &kiwi_event_waiters, wait_node) {
			if (u == c || u->mark == mark ||
			    !kiwi_event_scan(u->waits, u, c, mark, false))
				continue;
			u->mark = mark;
			grew = true;
		}
	} while (grew);
	return mark;
}

/*
 * May @c's destroy of @priv return: does every other call registered with
 * @priv wait, through destroys, for @c (and so would wait for ever)? If
 * so, @c leaves the waiters in the same hold of the lock: a later search
 * must not count @c as still waiting once it may return, or two handlers
 * destroying each other's ids could both return.
 */
static bool kiwi_event_settled(struct kiwi_cm_priv *priv,
			       struct kiwi_cm_call *c)
{
	bool settled;
	u64 mark;

	spin_lock_irq(&kiwi_event_wait_lock);
	mark = kiwi_event_mark_waiting_for(c);
	settled = kiwi_event_scan(priv, c, NULL, mark, true);
	if (settled) {
		c->waits = NULL;
		list_del(&c->wait_node);
	}
	spin_unlock_irq(&kiwi_event_wait_lock);
	return settled;
}

/* @c's destroy now waits for @priv; other waiters may now settle. */
static void kiwi_event_add_waiter(struct kiwi_cm_call *c,
				  struct kiwi_cm_priv *priv)
{
	spin_lock_irq(&kiwi_event_wait_lock);
	c->waits = priv;
	list_add_tail(&c->wait_node, &kiwi_event_waiters);
	spin_unlock_irq(&kiwi_event_wait_lock);
	wake_up_all(&kiwi_event_waitq);
}

/**
 * kiwi_event_wait_idle() - wait until no other task runs the id's handler
 * @priv: a DESTROYING or LINGER id (so no new handler call can start)
 *
 * Waits on a flag, never flushes a workqueue, so it is safe from any
 * worker. Outside handler calls it waits until no call is registered with
 * @priv. From inside a handler call (of any id) it does not wait for its
 * own call, nor for a call that itself waits in a destroy for the caller's
 * call, directly or through other destroys: those would wait for each
 * other forever (handlers destroying each other's ids). Every other call
 * is waited for, including one the core has started but whose handler it
 * has not entered yet.
 *
 * Context: process context; sleeps.
 */
void kiwi_event_wait_idle(struct kiwi_cm_priv *priv)
{
	struct kiwi_cm_call *c;

	might_sleep();
	c = kiwi_event_current();
	if (!c) {
		wait_event(kiwi_event_waitq, kiwi_event_idle(priv));
		return;
	}
	kiwi_event_add_waiter(c, priv);
	wait_event(kiwi_event_waitq, kiwi_event_settled(priv, c));
}

/**
 * kiwi_event_violation() - a provider broke the protocol
 * @priv: the id it happened on
 * @event: the event type (KIWI_CM_NR_EVENTS when not about an event)
 * @why: what went wrong
 *
 * Counted on the device; WARNs once per device.
 *
 * Context: any context.
 */
void kiwi_event_violation(struct kiwi_cm_priv *priv,
			  enum kiwi_cm_event_type event, const char *why)
{
	struct ib_device *dev = priv->id.device;

	if (READ_ONCE(priv->flags) & KIWI_CM_F_ORPHAN)
		return;		/* the provider that broke it is gone */
	kiwi_device_count(dev, KIWI_DEV_CNT_VIOLATIONS);
	/* two violations at once on one device still WARN once */
	if (atomic_xchg(&dev->warned, 1))
		return;
	WARN(1, "kiwi_iwcm: %s: protocol violation: %s %s in state %s\n",
	     dev->name, why, kiwi_cm_event_name(event),
	     kiwi_cm_state_name(READ_ONCE(priv->state)));
}

/* Pin the listener a child's request goes to, NULL if it already went. */
static struct kiwi_cm_priv *kiwi_event_listener_get(struct kiwi_cm_priv *child)
{
	struct kiwi_cm_priv *listener;
	unsigned long flags;

	spin_lock_irqsave(&child->lock, flags);
	listener = child->listener;
	if (listener)
		kiwi_cm_get(listener);	/* the child's pin holds it */
	spin_unlock_irqrestore(&child->lock, flags);
	return listener;
}

/*
 * Register the handler call with the id and, for a request, with the
 * listener whose handler it is: destroying either waits for it. The
 * listener is pinned while registered (the handler may drop the child's
 * pin by destroying the child). Return: false if either is going.
 */
static bool kiwi_event_enter_all(struct kiwi_cm_priv *priv,
				 struct kiwi_cm_priv *listener,
				 struct kiwi_cm_delivery *d,
				 struct kiwi_cm_delivery *dl)
{
	if (listener && !kiwi_event_enter(listener, dl))
		return false;
	if (kiwi_event_enter(priv, d))
		return true;
	if (listener)
		kiwi_event_leave(listener, dl);
	return false;
}

/* Hand one event to the owner's handler (the listener's, for a request). */
static void kiwi_event_deliver(struct kiwi_cm_priv *priv,
			       struct kiwi_cm_slot *slot)
{
	struct kiwi_cm_event ev = {
		.event = slot->event,
		.status = slot->status,
		.private_data = slot->pdata,
		.private_data_len = slot->len,
		.ird = priv->id.ird,
		.ord = priv->id.ord,
	};
	struct kiwi_cm_call call = { .task = current };
	struct kiwi_cm_delivery d = { .call = &call }, dl = { .call = &call };
	struct kiwi_cm_priv *listener = NULL;
	bool request;
	int ret;

	if (slot->qp_put) {
		kiwi_cm_qp_put(slot->qp_put);
		slot->qp_put = NULL;
	}
	request = slot->event == KIWI_CM_EVENT_CONNECT_REQUEST;
	if (request)
		listener = kiwi_event_listener_get(priv);
	if ((request && !listener) ||
	    !kiwi_event_enter_all(priv, listener, &d, &dl)) {
		/* owner gone: a request nobody will answer is rejected */
		kiwi_event_release(priv, slot);
		if (request)
			kiwi_cm_destroy(priv);
		goto out_put_listener;
	}
	kiwi_fault_deliver(&priv->id, &ev);
	ret = priv->id.handler(&priv->id, &ev);
	trace_kiwi_cm_deliver(&priv->id, ev.event, ev.status, ret);
	kiwi_event_leave(priv, &d);
	if (listener)
		kiwi_event_leave(listener, &dl);
	kiwi_event_release(priv, slot);
	if (ret)
		kiwi_cm_destroy(priv);
out_put_listener:
	if (listener)
		kiwi_cm_put(listener);
}

/**
 * kiwi_event_work() - deliver an id's queued events, in order
 * @work: the id's work item
 *
 * Context: a kiwi_cm worker (process context).
 */
void kiwi_event_work(struct work_struct *work)
{
	struct kiwi_cm_priv *priv = container_of(work, struct kiwi_cm_priv,
						 work);
	struct kiwi_cm_slot slot;
	unsigned long flags;
	bool more;

	for (;;) {
		spin_lock_irqsave(&priv->lock, flags);
		more = kiwi_event_pop(priv, &slot);
		spin_unlock_irqrestore(&priv->lock, flags);
		if (!more)
			break;
		kiwi_event_deliver(priv, &slot);
	}
	kiwi_cm_put(priv);
}

/*
 * Apply a step the table allowed: new state, the QP unpinned when the
 * connection ended, the event queued if the owner is to see one.
 */
static void kiwi_event_commit(struct kiwi_cm_priv *priv,
			      struct kiwi_cm_step step, int status,
			      void *pdata, u16 len)
{
	struct ib_qp *qp_put = NULL;

	lockdep_assert_held(&priv->lock);
	kiwi_cm_set_state(priv, step.next);
	if (step.deliver == KIWI_CM_NR_EVENTS) {
		kfree(pdata);
		return;
	}
	if (step.next == KIWI_CM_STATE_IDLE) {
		qp_put = priv->qp;
		priv->qp = NULL;
	}
	kiwi_event_queue(priv, step.deliver, status, pdata, len, qp_put);
}

/*
 * The core ends the connection itself: the owner gets the one terminal
 * event, CLOSE with @status, and the QP is unpinned. For an upcall the
 * provider was told to follow with nothing (its -ENOMEM answer).
 */
static void kiwi_event_end(struct kiwi_cm_priv *priv, int status)
{
	struct kiwi_cm_step step = {
		.action = KIWI_CM_ACT_DELIVER,
		.next = KIWI_CM_STATE_IDLE,
		.deliver = KIWI_CM_EVENT_CLOSE,
	};

	lockdep_assert_held(&priv->lock);
	priv->seen |= BIT(KIWI_CM_EVENT_CLOSE);
	kiwi_event_commit(priv, step, status, NULL, 0);
}

static void *kiwi_event_copy(const struct kiwi_cm_event *ev)
{
	if (!ev->private_data_len)
		return NULL;
	if (kiwi_should_fail())
		return NULL;
	return kmemdup(ev->private_data, ev->private_data_len, GFP_ATOMIC);
}

/* Any upcall but CONNECT_REQUEST: run it through the table. */
static int kiwi_event_upcall(struct kiwi_cm_priv *priv,
			     const struct kiwi_cm_event *ev)
{
	u16 len = ev->private_data_len;
	int status = ev->status;
	struct kiwi_cm_step step;
	unsigned long flags;
	void *pdata = NULL;
	int ret = 0;

	if (len > KIWI_CM_MAX_PRIVATE_DATA) {
		kiwi_event_violation(priv, ev->event, "oversized private data");
		return -EINVAL;
	}
	pdata = kiwi_event_copy(ev);
	if (len && !pdata) {
		/* the owner still gets its event, as a failure */
		kiwi_device_count(priv->id.device, KIWI_DEV_CNT_ALLOC_DROPS);
		len = 0;
		status = -ENOMEM;
		ret = -ENOMEM;
	}

	spin_lock_irqsave(&priv->lock, flags);
	step = kiwi_cm_upcall_step(priv, ev->event, status);
	trace_kiwi_cm_upcall(&priv->id, ev->event, status, priv->state,
			     step.action);
	switch (step.action) {
	case KIWI_CM_ACT_DELIVER:
		priv->seen |= BIT(ev->event);
		/* The depths in force, as the provider negotiated them. */
		if (ev->event == KIWI_CM_EVENT_CONNECT_REPLY ||
		    ev->event == KIWI_CM_EVENT_ESTABLISHED) {
			priv->id.ird = ev->ird;
			priv->id.ord = ev->ord;
		}
		/* The address the stream got, port chosen by TCP or not. */
		if (ev->event == KIWI_CM_EVENT_CONNECT_REPLY && !status &&
		    ev->local_addr.ss_family == priv->id.remote_addr.ss_family)
			priv->id.local_addr = ev->local_addr;
		kiwi_event_commit(priv, step, status, pdata, len);
		if (ret == -ENOMEM && priv->state != KIWI_CM_STATE_IDLE)
			kiwi_event_end(priv, -ENOMEM);
		break;
	case KIWI_CM_ACT_ABSORB:
		if (priv->state != KIWI_CM_STATE_DESTROYING)
			priv->seen |= BIT(ev->event);
		kfree(pdata);
		break;
	case KIWI_CM_ACT_FINISH:
		priv->seen |= BIT(ev->event);
		kfree(pdata);
		kiwi_cm_set_state(priv, step.next);
		kiwi_cm_linger_kick(priv);
		break;
	default:
		kfree(pdata);
		kiwi_event_commit(priv, step, step.status, NULL, 0);
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (ret == -EINVAL)
		kiwi_event_violation(priv, ev->event, "unexpected");
	return ret;
}

/*
 * Make the child id a CONNECT_REQUEST creates, with the event queued. It
 * joins the device's list only complete, request queued, under the
 * device's lock, so a DEVICE_REMOVAL can only come after the request.
 */
static int kiwi_event_child(struct kiwi_cm_priv *listener,
			    const struct kiwi_cm_event *ev)
{
	struct ib_device *dev = listener->id.device;
	struct kiwi_cm_priv *child;
	unsigned long flags;
	void *pdata;
	int ret;

	child = kiwi_cm_alloc(dev, GFP_ATOMIC);
	if (IS_ERR(child))
		return PTR_ERR(child);
	pdata = kiwi_event_copy(ev);
	if (ev->private_data_len && !pdata) {
		ret = -ENOMEM;
		goto err_free_child;
	}
	child->id.handler = listener->id.handler;
	child->id.context = listener->id.context;
	child->id.provider_data = ev->provider_data;
	child->id.local_addr = ev->local_addr;
	child->id.remote_addr = ev->remote_addr;
	child->id.ird = ev->ird;
	child->id.ord = ev->ord;
	child->id.opts = listener->id.opts;
	child->id.tos = listener->id.tos;
	child->id.tos_set = listener->id.tos_set;
	child->flags |= KIWI_CM_F_USED;
	child->seen |= BIT(KIWI_CM_EVENT_CONNECT_REQUEST);

	spin_lock_irqsave(&dev->lock, flags);
	ret = kiwi_cm_link_locked(child);
	if (ret)
		goto err_unlock;
	child->listener = listener;	/* the caller's listener pin */
	spin_lock(&child->lock);
	kiwi_cm_set_state(child, KIWI_CM_STATE_CONN_RECV);
	kiwi_event_queue(child, KIWI_CM_EVENT_CONNECT_REQUEST, 0, pdata,
			 ev->private_data_len, NULL);
	spin_unlock(&child->lock);
	spin_unlock_irqrestore(&dev->lock, flags);
	return 0;

err_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	kfree(pdata);
err_free_child:
	kiwi_cm_put(child);
	return ret;
}

/* CONNECT_REQUEST on a listener: check the backlog, make a child. */
static int kiwi_event_request(struct kiwi_cm_priv *listener,
			      const struct kiwi_cm_event *ev)
{
	struct ib_device *dev = listener->id.device;
	struct kiwi_cm_step step;
	unsigned long flags;
	int ret;

	if (ev->private_data_len > KIWI_CM_MAX_PRIVATE_DATA) {
		kiwi_event_violation(listener, ev->event,
				     "oversized private data");
		return -EINVAL;
	}
	spin_lock_irqsave(&listener->lock, flags);
	step = kiwi_cm_upcall_step(listener, ev->event, 0);
	trace_kiwi_cm_upcall(&listener->id, ev->event, 0, listener->state,
			     step.action);
	if (step.action != KIWI_CM_ACT_DELIVER) {
		spin_unlock_irqrestore(&listener->lock, flags);
		if (step.action == KIWI_CM_ACT_ABSORB)
			return -ECONNREFUSED;
		kiwi_event_violation(listener, ev->event, "unexpected");
		return -EINVAL;
	}
	if (listener->pending >= listener->backlog) {
		spin_unlock_irqrestore(&listener->lock, flags);
		kiwi_device_count(dev, KIWI_DEV_CNT_BACKLOG_DROPS);
		return -ECONNREFUSED;
	}
	listener->pending++;
	kiwi_cm_get(listener);
	spin_unlock_irqrestore(&listener->lock, flags);

	ret = kiwi_event_child(listener, ev);
	if (ret) {
		if (ret == -ENOMEM)
			kiwi_device_count(dev, KIWI_DEV_CNT_ALLOC_DROPS);
		spin_lock_irqsave(&listener->lock, flags);
		listener->pending--;
		spin_unlock_irqrestore(&listener->lock, flags);
		kiwi_cm_put(listener);
		return ret;
	}
	kiwi_device_count(dev, KIWI_DEV_CNT_REQUESTS);
	return 0;
}

/**
 * kiwi_cm_upcall() - report a connection event to the connection manager
 * @id: the id (for CONNECT_REQUEST, the listener)
 * @event: what happened; the core copies what it keeps
 *
 * The event is checked against the state table and queued for the owner;
 * the handler runs later in process context. A provider must hold a
 * reference on @id (kiwi_cm_id_add_ref()) for the duration of the call.
 *
 * Context: any context, hard or soft irq included; does not sleep; no
 * kiwi lock may be held. May be called from inside a provider op.
 * Return: 0 if queued or legitimately ignored (@id is being destroyed).
 * -ECONNREFUSED: a CONNECT_REQUEST was refused (backlog full, listener
 * going); the provider must reject the connection. -ENODEV: a
 * CONNECT_REQUEST while the device is being unregistered; the provider
 * must reject the connection (not counted as an allocation drop).
 * -ENOMEM: no atomic memory; for CONNECT_REQUEST the provider must reject
 * the connection, for other events the owner sees the event with status
 * -ENOMEM and, unless that event ended the connection, then CLOSE with
 * status -ENOMEM (the QP is unpinned); the provider must abort the
 * connection without further upcalls. -EINVAL:
 * a protocol violation (counted, WARNed once per device); the id has been
 * moved to a safe state.
 */
int kiwi_cm_upcall(struct kiwi_cm_id *id, const struct kiwi_cm_event *event)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);

	if (event->event == KIWI_CM_EVENT_CONNECT_REQUEST)
		return kiwi_event_request(priv, event);
	return kiwi_event_upcall(priv, event);
}
EXPORT_SYMBOL_GPL(kiwi_cm_upcall);

/**
 * kiwi_event_queue_delayed() - queue a delayed work of the core
 * @dwork: the work
 * @delay: in jiffies
 *
 * On the core's workqueue, which module exit drains.
 *
 * Context: any context.
 */
void kiwi_event_queue_delayed(struct delayed_work *dwork, unsigned long delay)
{
	queue_delayed_work(kiwi_cm_wq, dwork, delay);
}

/**
 * kiwi_event_init() - module init: the delivery workqueue
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int kiwi_event_init(void)
{
	/*
	 * Not ordered: events of different ids are delivered in parallel;
	 * per-id order comes from each id having one work item. Per-CPU,
	 * not unbound: an upcall from a provider's work or softirq is
	 * delivered on the same CPU, most often by the worker already
	 * running there once it is done, where an unbound queue wakes a
	 * worker on the other CPU for every hop (Documentation/performance.rst).
	 */
	kiwi_cm_wq = alloc_workqueue("kiwi_cm", WQ_MEM_RECLAIM, 0);
	return kiwi_cm_wq ? 0 : -ENOMEM;
}

/**
 * kiwi_event_exit() - module exit: drain and free the workqueue
 *
 * Context: module exit.
 */
void kiwi_event_exit(void)
{
	destroy_workqueue(kiwi_cm_wq);
}
