// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_loop endpoints: their references, QP binding, the events queued
 * for their ids and the work that upcalls them, and the ends of a
 * connection (refused, aborted, closed gracefully).
 *
 * Events are queued on the endpoint they are for and upcalled by its
 * work item (loop_wq), in order, under loop_mutex. Before the terminal
 * event of an end (CLOSE, or a failed CONNECT_REPLY) its QP is in ERROR
 * and flushed, and so is the other end's when the connection ended.
 *
 * How an endpoint lets go of what it holds, smallest step first:
 *
 *   loop_ep_unbind()        its QP: to ERROR, flushed, unpinned
 *   loop_ep_unlink()        its peer: each drops the other's reference
 *   loop_ep_unlisten()      its listener's list of requests
 *   loop_ep_done()          the device's list and its own reference
 *   loop_ep_let_go()        the id (kiwi_cm_id_rem_ref()), then done;
 *                           after the id's last event only
 *   loop_ep_release()       a request never accepted: unlisten, unlink,
 *                           done (it holds no id)
 *   loop_ep_fail_connect()  an active end's attempt failed: unbind, then
 *                           the last event CONNECT_REPLY(status)
 *   loop_ep_finish()        a connected end is over: unbind, then the
 *                           last event CLOSE(status)
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "loop.h"

static void loop_ep_work(struct work_struct *work);

/**
 * loop_ep_alloc() - allocate an endpoint
 * @ldev: its device, or NULL if not known yet
 *
 * Context: process context.
 * Return: the endpoint, holding its own reference, or NULL.
 */
struct loop_ep *loop_ep_alloc(struct loop_dev *ldev)
{
	struct loop_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL);

	if (!ep)
		return NULL;
	refcount_set(&ep->ref, 1);
	ep->ldev = ldev;
	INIT_LIST_HEAD(&ep->dev_node);
	INIT_LIST_HEAD(&ep->lnode);
	INIT_WORK(&ep->work, loop_ep_work);
	return ep;
}

/**
 * loop_ep_put() - drop a reference on an endpoint, freeing it on the last
 * @ep: the endpoint, or NULL
 *
 * Context: any context.
 */
void loop_ep_put(struct loop_ep *ep)
{
	if (ep && refcount_dec_and_test(&ep->ref))
		kfree(ep);
}

/**
 * loop_ep_queue() - queue an event for an endpoint's id
 * @ep: the endpoint
 * @type: the event
 * @status: its status
 * @last: the endpoint lets go of the id after it
 *
 * The endpoint's work upcalls it, after the events queued before.
 *
 * Context: process context, loop_mutex held.
 */
void loop_ep_queue(struct loop_ep *ep, enum kiwi_cm_event_type type,
		   int status, bool last)
{
	lockdep_assert_held(&loop_mutex);
	if (ep->done || WARN_ON_ONCE(ep->ev_count == LOOP_EV_RING))
		return;
	ep->ev[(ep->ev_head + ep->ev_count++) % LOOP_EV_RING] =
		(struct loop_ev) { .type = type, .status = status, .last = last };
	refcount_inc(&ep->ref);		/* the queued work's */
	if (!queue_work(loop_wq, &ep->work))
		refcount_dec(&ep->ref);	/* never the last: the caller's */
}

/* @ep lets go of everything: its device list entry and its own reference. */
static void loop_ep_done(struct loop_ep *ep)
{
	lockdep_assert_held(&loop_mutex);
	if (ep->done)
		return;
	ep->done = true;
	list_del_init(&ep->dev_node);
	loop_ep_put(ep);
}

/* Cut the link between @ep and its peer. */
static void loop_ep_unlink(struct loop_ep *ep)
{
	struct loop_ep *peer = ep->peer;

	lockdep_assert_held(&loop_mutex);
	if (!peer)
		return;
	ep->peer = NULL;
	peer->peer = NULL;
	loop_ep_put(peer);
	loop_ep_put(ep);
}

/**
 * loop_ep_link() - make two endpoints each other's peer
 * @a: one
 * @b: the other
 *
 * Context: loop_mutex held.
 */
void loop_ep_link(struct loop_ep *a, struct loop_ep *b)
{
	lockdep_assert_held(&loop_mutex);
	refcount_inc(&a->ref);
	refcount_inc(&b->ref);
	a->peer = b;
	b->peer = a;
}

/**
 * loop_ep_bind() - bind a QP to an endpoint
 * @ep: the endpoint
 * @qp: the QP, from loop_qp_bindable()
 *
 * Context: loop_mutex held.
 */
void loop_ep_bind(struct loop_ep *ep, struct loop_qp *qp)
{
	lockdep_assert_held(&loop_mutex);
	loop_qp_get(qp);
	ep->qp = qp;
	qp->ep = ep;
}

/* The connection is over for @ep's QP: ERROR, flushed, unbound. */
static void loop_ep_unbind(struct loop_ep *ep)
{
	struct loop_qp *qp = ep->qp;

	lockdep_assert_held(&loop_mutex);
	if (!qp)
		return;
	loop_qp_error(qp);
	qp->ep = NULL;
	ep->qp = NULL;
	loop_qp_put(qp);
}

/**
 * loop_qp_bindable() - a QP a connection may take
 * @ldev: the device it must be of
 * @qpn: its number
 *
 * Context: loop_mutex held.
 * Return: the QP, if it is idle, unbound and not destroyed; else NULL.
 */
struct loop_qp *loop_qp_bindable(struct loop_dev *ldev, u32 qpn)
{
	struct loop_qp *qp = xa_load(&ldev->qps, qpn);

	lockdep_assert_held(&loop_mutex);
	if (!qp || qp->ep || qp->destroyed ||
	    READ_ONCE(qp->state) != IB_QPS_INIT)
		return NULL;
	return qp;
}

/**
 * loop_qp_connect() - a QP's connection is up
 * @qp: the QP
 * @ird: the peer's Read Requests it serves at once
 * @ord: the READs it may have outstanding
 *
 * Context: loop_mutex held.
 */
void loop_qp_connect(struct loop_qp *qp, u16 ird, u16 ord)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->state = IB_QPS_RTS;
	qp->ird = ird;
	qp->ord = ord;
	spin_unlock_irqrestore(&qp->lock, flags);
}

/**
 * loop_ep_unlisten() - a passive endpoint leaves its listener's requests
 * @ep: the endpoint
 *
 * Context: loop_mutex held.
 */
void loop_ep_unlisten(struct loop_ep *ep)
{
	lockdep_assert_held(&loop_mutex);
	if (!ep->listener)
		return;
	list_del_init(&ep->lnode);
	ep->listener = NULL;
}

/**
 * loop_ep_release() - a passive endpoint that was never accepted goes
 * @ep: the endpoint; it holds no id
 *
 * Context: process context, loop_mutex held.
 */
void loop_ep_release(struct loop_ep *ep)
{
	lockdep_assert_held(&loop_mutex);
	ep->state = LOOP_EP_CLOSED;
	loop_ep_unlisten(ep);
	loop_ep_unlink(ep);
	loop_ep_done(ep);
}

/**
 * loop_ep_fail_connect() - an active end's attempt failed
 * @ep: the active end
 * @status: CONNECT_REPLY's status
 *
 * Its QP goes to ERROR; CONNECT_REPLY(@status) carries what is in its
 * private data buffer. A request not yet delivered goes with it; a
 * delivered one waits for the ULP's answer.
 *
 * Context: process context, loop_mutex held.
 */
void loop_ep_fail_connect(struct loop_ep *ep, int status)
{
	struct loop_ep *pep = ep->peer;

	lockdep_assert_held(&loop_mutex);
	if (ep->state != LOOP_EP_CONNECTING)
		return;
	ep->state = LOOP_EP_CLOSED;
	loop_ep_unbind(ep);
	loop_ep_queue(ep, KIWI_CM_EVENT_CONNECT_REPLY, status, true);
	if (!pep)
		return;
	loop_ep_unlink(ep);
	if (!pep->delivered)
		loop_ep_release(pep);
}

/**
 * loop_ep_finish() - a connected end is over: QP flushed, CLOSE queued
 * @ep: the end
 * @status: CLOSE's status
 *
 * Context: process context, loop_mutex held.
 */
void loop_ep_finish(struct loop_ep *ep, int status)
{
	lockdep_assert_held(&loop_mutex);
	if (ep->state != LOOP_EP_CONNECTED)
		return;
	ep->state = LOOP_EP_CLOSED;
	loop_ep_unbind(ep);
	loop_ep_queue(ep, KIWI_CM_EVENT_CLOSE, status, true);
}

/**
 * loop_conn_abort() - end a connection abortively
 * @ep: the end that ends it
 * @status: CLOSE's status for @ep
 * @peer_status: CLOSE's status for the other end
 *
 * Both QPs go to ERROR and are flushed before either CLOSE is upcalled.
 *
 * Context: process context, loop_mutex held.
 */
void loop_conn_abort(struct loop_ep *ep, int status, int peer_status)
{
	struct loop_ep *peer = ep->peer;

	lockdep_assert_held(&loop_mutex);
	loop_ep_finish(ep, status);
	if (peer)
		loop_ep_finish(peer, peer_status);
	loop_ep_unlink(ep);
}

static bool loop_sq_empty(struct loop_qp *qp)
{
	unsigned long flags;
	bool empty;

	spin_lock_irqsave(&qp->lock, flags);
	empty = !qp->sq.count;
	spin_unlock_irqrestore(&qp->lock, flags);
	return empty;
}

/**
 * loop_conn_close_step() - let a graceful close go as far as it can
 * @ep: an end of the connection
 *
 * An end that asked to close sends its "FIN" once its send queue is
 * done: the other end hears DISCONNECT, unless it closed first. Once both
 * ends have, both get CLOSE(0).
 *
 * Context: process context, loop_mutex held.
 */
void loop_conn_close_step(struct loop_ep *ep)
{
	struct loop_ep *peer = ep->peer;

	lockdep_assert_held(&loop_mutex);
	if (ep->state != LOOP_EP_CONNECTED || !peer)
		return;
	if (ep->close_req && !ep->fin_sent && loop_sq_empty(ep->qp)) {
		ep->fin_sent = true;
		peer->fin_rcvd = true;
		if (!peer->fin_sent)
			loop_ep_queue(peer, KIWI_CM_EVENT_DISCONNECT, 0, false);
	}
	if (ep->fin_sent && ep->fin_rcvd) {
		loop_ep_finish(ep, 0);
		loop_ep_finish(peer, 0);
		loop_ep_unlink(ep);
	}
}

/**
 * loop_qp_cm_close() - a QP asked to close gracefully (IB_QPS_SQD)
 * @qp: the QP
 *
 * Context: process context, loop_mutex held.
 * Return: 0, or -EINVAL if the QP is not connected.
 */
int loop_qp_cm_close(struct loop_qp *qp)
{
	struct loop_ep *ep = qp->ep;
	unsigned long flags;

	lockdep_assert_held(&loop_mutex);
	if (!ep || ep->state != LOOP_EP_CONNECTED)
		return -EINVAL;
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return -EINVAL;
	}
	qp->state = IB_QPS_SQD;
	spin_unlock_irqrestore(&qp->lock, flags);
	ep->close_req = true;
	if (!loop_sq_empty(qp))
		loop_qp_kick(qp);	/* its close follows its sends */
	loop_conn_close_step(ep);
	return 0;
}

/**
 * loop_qp_cm_error() - a QP goes to ERROR (modify_qp, destroy_qp)
 * @qp: the QP
 * @let_close: destroy_qp: a graceful close this end started goes on
 *
 * A connection is aborted; an attempt not yet answered gives up. A QP
 * destroyed while its own graceful close is in flight is flushed but
 * its connection still closes gracefully, as TCP's close() would.
 *
 * Context: process context, loop_mutex held.
 */
void loop_qp_cm_error(struct loop_qp *qp, bool let_close)
{
	struct loop_ep *ep = qp->ep;

	lockdep_assert_held(&loop_mutex);
	if (ep && ep->state == LOOP_EP_CONNECTED) {
		if (let_close && ep->close_req) {
			loop_qp_error(qp);
			loop_conn_close_step(ep);
		} else {
			loop_conn_abort(ep, -ECONNABORTED, -ECONNRESET);
		}
	} else if (ep && ep->state == LOOP_EP_CONNECTING) {
		loop_ep_fail_connect(ep, -ECONNABORTED);
	}
	loop_qp_error(qp);
}

/* Upcalls */

static void loop_ev_fill(const struct loop_ep *ep, const struct loop_ev *ev,
			 struct kiwi_cm_event *e)
{
	*e = (struct kiwi_cm_event) { .event = ev->type, .status = ev->status };
	if (ev->type == KIWI_CM_EVENT_CONNECT_REPLY) {
		e->private_data = ep->pdata_len ? ep->pdata : NULL;
		e->private_data_len = ep->pdata_len;
	}
	if ((ev->type == KIWI_CM_EVENT_CONNECT_REPLY && !ev->status) ||
	    ev->type == KIWI_CM_EVENT_ESTABLISHED) {
		e->ird = ep->ord;	/* the peer's IRD: this end's ORD */
		e->ord = ep->ird;
	}
	if (ev->type == KIWI_CM_EVENT_CONNECT_REPLY && !ev->status)
		memcpy(&e->local_addr, &ep->local, sizeof(ep->local));
}

/* Deliver a request to the listener; refuse it if the core does. */
static void loop_ep_request(struct loop_ep *pep)
{
	struct loop_ep *aep = pep->peer;
	struct kiwi_cm_event e = {
		.event = KIWI_CM_EVENT_CONNECT_REQUEST,
		.provider_data = pep,
		.private_data = pep->pdata_len ? pep->pdata : NULL,
		.private_data_len = pep->pdata_len,
		.ird = pep->ird,
		.ord = pep->ord,
	};

	lockdep_assert_held(&loop_mutex);
	if (pep->state != LOOP_EP_REQ || !pep->listener || !aep)
		return;		/* refused or given up meanwhile */
	memcpy(&e.local_addr, &pep->local, sizeof(pep->local));
	memcpy(&e.remote_addr, &pep->remote, sizeof(pep->remote));
	/* loop_mutex keeps the listener: iw_destroy_listen waits for it */
	if (kiwi_cm_upcall(pep->listener->id, &e)) {
		loop_ep_fail_connect(aep, -ECONNREFUSED);
		return;
	}
	pep->delivered = true;
}

/* The id's owner got its last event from @ep: drop @ep's reference. */
static void loop_ep_let_go(struct loop_ep *ep, bool close)
{
	lockdep_assert_held(&loop_mutex);
	if (ep->id && !(close && loop_defect(LOOP_DEFECT_NO_REM_REF)))
		kiwi_cm_id_rem_ref(ep->id);
	ep->id = NULL;
	loop_ep_done(ep);
}

static void loop_ep_deliver(struct loop_ep *ep, const struct loop_ev *ev)
{
	struct kiwi_cm_event e;
	int ret;

	lockdep_assert_held(&loop_mutex);
	if (ev->type == KIWI_CM_EVENT_CONNECT_REQUEST) {
		loop_ep_request(ep);
		return;
	}
	if (ep->id && !ep->silent) {
		loop_ev_fill(ep, ev, &e);
		ret = kiwi_cm_upcall(ep->id, &e);
		if (ret == -ENOMEM) {
			/* the core ended it for the owner: abort, silently */
			ep->silent = true;
			loop_conn_abort(ep, -ENOMEM, -ECONNRESET);
		}
	}
	if (ev->last)
		loop_ep_let_go(ep, ev->type == KIWI_CM_EVENT_CLOSE);
}

static void loop_ep_work(struct work_struct *work)
{
	struct loop_ep *ep = container_of(work, struct loop_ep, work);
	struct loop_ev ev;

	mutex_lock(&loop_mutex);
	while (ep->ev_count) {
		ev = ep->ev[ep->ev_head];
		ep->ev_head = (ep->ev_head + 1) % LOOP_EV_RING;
		ep->ev_count--;
		loop_ep_deliver(ep, &ev);
	}
	mutex_unlock(&loop_mutex);
	loop_ep_put(ep);	/* the queued work's */
}
