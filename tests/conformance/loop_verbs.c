// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_loop verbs objects: CQs (a ring of completions, notification,
 * overflow) and QPs (numbers, references, states, flush). MRs are in
 * loop_mr.c.
 */
#include <linux/slab.h>

#include "loop.h"

/* CQs */

struct ib_cq *loop_create_cq(struct ib_device *ibdev,
			     const struct ib_cq_init_attr *attr)
{
	struct loop_dev *ldev = loop_dev(ibdev);
	struct loop_cq *cq;

	if (atomic_inc_return(&ldev->nr_cqs) > LOOP_MAX_CQ)
		goto full;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		goto uncount;
	cq->ring = kvcalloc(attr->cqe, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring)
		goto free_cq;
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	cq->ibcq.cqe = attr->cqe;
	return &cq->ibcq;

free_cq:
	kfree(cq);
uncount:
	atomic_dec(&ldev->nr_cqs);
	return ERR_PTR(-ENOMEM);
full:
	atomic_dec(&ldev->nr_cqs);
	return ERR_PTR(-ENOSPC);
}

/**
 * loop_destroy_cq() - destroy_cq: free a CQ no QP uses any more
 * @ibcq: the CQ
 *
 * Context: process context.
 */
void loop_destroy_cq(struct ib_cq *ibcq)
{
	struct loop_cq *cq = loop_cq(ibcq);

	atomic_dec(&loop_dev(ibcq->device)->nr_cqs);
	kvfree(cq->ring);
	kfree(cq);
}

/**
 * loop_poll_cq() - poll_cq: take up to @num_entries completions
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: where they go
 *
 * Context: any context; never sleeps (the CQ's spinlock only).
 * Return: completions taken, -EOVERFLOW once the CQ overflowed and is
 * empty, or -EINVAL for a negative @num_entries.
 */
int loop_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct loop_cq *cq = loop_cq(ibcq);
	unsigned long flags;
	int n = 0;

	if (num_entries < 0)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->count) {
		wc[n++] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	if (!n && num_entries && cq->overflow)
		n = -EOVERFLOW;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * loop_req_notify_cq() - req_notify_cq: arm the completion handler
 * @ibcq: the CQ
 * @flags: IB_CQ_NEXT_COMP or IB_CQ_SOLICITED, and
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * Context: any context; never sleeps.
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS was asked and completions
 * wait, 0, or -EINVAL for other flags.
 */
int loop_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	unsigned int which = flags & IB_CQ_SOLICITED_MASK;
	struct loop_cq *cq = loop_cq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	if (!which || (flags & ~(IB_CQ_SOLICITED_MASK |
				 IB_CQ_REPORT_MISSED_EVENTS)))
		return -EINVAL;
	if (which & IB_CQ_NEXT_COMP)
		which = IB_CQ_NEXT_COMP;
	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->armed != IB_CQ_NEXT_COMP)	/* never narrow an arming */
		cq->armed = which;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/**
 * loop_cq_push() - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion
 * @solicited: a RECV of a SEND with Solicited Event
 *
 * A completion that does not fit is lost and the CQ takes none after
 * it; the handler is then due whether armed or not, and the first such
 * push raises IB_EVENT_CQ_ERR. Call
 * loop_cq_notify() once no spinlock is held.
 *
 * Context: any context.
 * Return: 0, or -EOVERFLOW if the completion was lost.
 */
int loop_cq_push(struct loop_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool first = false;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow || cq->count == cq->size) {
		first = !cq->overflow;
		cq->overflow = true;
		cq->due = true;
		ret = -EOVERFLOW;
		goto unlock;
	}
	cq->ring[(cq->head + cq->count) % cq->size] = *wc;
	cq->count++;
	if (cq->armed == IB_CQ_NEXT_COMP ||
	    (cq->armed == IB_CQ_SOLICITED && (solicited || wc->status))) {
		cq->armed = 0;
		cq->due = true;
	}
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);
	if (first)
		kiwi_cq_event(&cq->ibcq, IB_EVENT_CQ_ERR);
	return ret;
}

/**
 * loop_cq_notify() - call a CQ's completion handler if a push made it due
 * @cq: the CQ
 *
 * Context: any context; no spinlock of kiwi_loop held.
 */
void loop_cq_notify(struct loop_cq *cq)
{
	unsigned long flags;
	bool due;

	spin_lock_irqsave(&cq->lock, flags);
	due = cq->due;
	cq->due = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (due && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/* QPs */

static int loop_queue_init(struct loop_queue *q, u32 size, u32 max_sge)
{
	q->size = size;
	q->max_sge = max_sge;
	if (!size)
		return 0;
	q->wqe = kvcalloc(size, sizeof(*q->wqe), GFP_KERNEL);
	return q->wqe ? 0 : -ENOMEM;
}

static void loop_qp_free(struct loop_qp *qp)
{
	kvfree(qp->sq.wqe);
	kvfree(qp->rq.wqe);
	kvfree(qp->inl);
	kfree(qp);
}

static int loop_qp_init(struct loop_qp *qp, const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;
	int ret;

	ret = loop_queue_init(&qp->sq, cap->max_send_wr, cap->max_send_sge);
	if (!ret)
		ret = loop_queue_init(&qp->rq, cap->max_recv_wr,
				      cap->max_recv_sge);
	if (ret || !cap->max_inline_data || !qp->sq.size)
		return ret;
	qp->max_inline = cap->max_inline_data;
	qp->inl = kvcalloc(qp->sq.size, qp->max_inline, GFP_KERNEL);
	return qp->inl ? 0 : -ENOMEM;
}

/**
 * loop_create_qp() - create_qp: a QP of @pd holding the creator's reference
 * @pd: its PD
 * @init: queue sizes, CQs, signalling, inline data
 *
 * Context: process context.
 * Return: the QP, or an ERR_PTR(): -EINVAL for more inline data than
 * the device offers, -ENOMEM, or loop_qp_init()'s error.
 */
struct ib_qp *loop_create_qp(struct ib_pd *pd,
			     const struct ib_qp_init_attr *init)
{
	struct loop_dev *ldev = loop_dev(pd->device);
	struct loop_qp *qp;
	u32 qpn;
	int ret;

	if (init->cap.max_inline_data > LOOP_MAX_INLINE)
		return ERR_PTR(-EINVAL);
	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	ret = loop_qp_init(qp, init);
	if (ret)
		goto free_qp;
	qp->ldev = ldev;
	refcount_set(&qp->ref, 1);
	spin_lock_init(&qp->lock);
	qp->state = IB_QPS_INIT;
	INIT_WORK(&qp->work, loop_qp_work);
	/* reachable by number from xa_alloc() on: set what a peer uses */
	qp->ibqp.pd = pd;
	qp->ibqp.send_cq = init->send_cq;
	qp->ibqp.recv_cq = init->recv_cq;
	qp->ibqp.sq_sig_type = init->sq_sig_type;
	ret = xa_alloc(&ldev->qps, &qpn, qp, XA_LIMIT(1, LOOP_MAX_QP),
		       GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto free_qp;
	}
	qp->ibqp.qp_num = qpn;
	return &qp->ibqp;

free_qp:
	loop_qp_free(qp);
	return ERR_PTR(ret);
}

/**
 * loop_qp_get() - take a reference on a QP
 * @qp: the QP, already referenced by the caller
 *
 * Context: any context.
 */
void loop_qp_get(struct loop_qp *qp)
{
	refcount_inc(&qp->ref);
}

/**
 * loop_qp_put() - drop a reference on a QP, freeing it on the last one
 * @qp: the QP
 *
 * Context: process context, no spinlock held (the rings may be vmalloc'd).
 */
void loop_qp_put(struct loop_qp *qp)
{
	might_sleep();
	if (refcount_dec_and_test(&qp->ref))
		loop_qp_free(qp);
}

/**
 * loop_add_ref() - iw_add_ref: the core pins the QP for a connection
 * @ibqp: the QP
 *
 * Context: any context.
 */
void loop_add_ref(struct ib_qp *ibqp)
{
	loop_qp_get(loop_qp(ibqp));
}

/**
 * loop_rem_ref() - iw_rem_ref: drop a pin; the last reference frees the QP
 * @ibqp: the QP
 *
 * The QP is freed here or in loop_destroy_qp(), whichever drops the last
 * reference: the ULP may destroy the QP before or after its cm_id.
 *
 * Context: process context, no spinlock held.
 */
void loop_rem_ref(struct ib_qp *ibqp)
{
	loop_qp_put(loop_qp(ibqp));
}

/**
 * loop_get_qp() - iw_get_qp: find a QP by number, taking no reference
 * @ibdev: the device
 * @qpn: its number
 *
 * Context: any context; never sleeps.
 * Return: the QP, or NULL.
 */
struct ib_qp *loop_get_qp(struct ib_device *ibdev, u32 qpn)
{
	struct loop_qp *qp = xa_load(&loop_dev(ibdev)->qps, qpn);

	return qp ? &qp->ibqp : NULL;
}

/**
 * loop_qp_report() - report a work request on its queue's CQ
 * @qp: the QP
 * @send: it is a send work request
 * @wqe: the request
 * @status: how it ended
 * @byte_len: bytes received, or read by a READ
 * @wc_flags: IB_WC_WITH_INVALIDATE or 0
 * @inv_rkey: with IB_WC_WITH_INVALIDATE, the STag invalidated
 * @solicited: a RECV of a SEND with Solicited Event
 *
 * A receive is always reported; a send only if signaled or failed.
 *
 * Context: any context; @qp->lock held.
 * Return: 0, or -EOVERFLOW if the CQ lost the completion.
 */
int loop_qp_report(struct loop_qp *qp, bool send, const struct loop_wqe *wqe,
		   enum ib_wc_status status, u32 byte_len, int wc_flags,
		   u32 inv_rkey, bool solicited)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.opcode = IB_WC_RECV,
		.byte_len = byte_len,
		.qp = &qp->ibqp,
		.wc_flags = wc_flags,
		.ex.invalidate_rkey = inv_rkey,
	};
	struct ib_cq *cq = send ? qp->ibqp.send_cq : qp->ibqp.recv_cq;

	lockdep_assert_held(&qp->lock);
	if (send) {
		if (status == IB_WC_SUCCESS && !(wqe->flags & IB_SEND_SIGNALED))
			return 0;
		wc.opcode = kiwi_wr_wc_opcode(wqe->opcode);
		if (wc.opcode != IB_WC_RDMA_READ)
			wc.byte_len = 0;
	}
	return loop_cq_push(loop_cq(cq), &wc, solicited);
}

/**
 * loop_qp_notify() - call the completion handlers of a QP's CQs if due
 * @qp: the QP
 *
 * Context: any context; no spinlock of kiwi_loop held.
 */
void loop_qp_notify(struct loop_qp *qp)
{
	loop_cq_notify(loop_cq(qp->ibqp.send_cq));
	if (qp->ibqp.recv_cq != qp->ibqp.send_cq)
		loop_cq_notify(loop_cq(qp->ibqp.recv_cq));
}

/* Complete every request of @q with IB_WC_WR_FLUSH_ERR, oldest first. */
static u32 loop_queue_flush(struct loop_qp *qp, struct loop_queue *q)
{
	u32 n = q->count;

	lockdep_assert_held(&qp->lock);
	for (; q->count; q->count--, q->head = (q->head + 1) % q->size) {
		if (loop_defect(LOOP_DEFECT_NO_FLUSH))
			continue;	/* deliberately dropped */
		loop_qp_report(qp, q == &qp->sq, loop_queue_at(q, q->head),
			       IB_WC_WR_FLUSH_ERR, 0, 0, 0, false);
	}
	return n;
}

/**
 * loop_qp_error() - move a QP to ERROR and flush both its queues
 * @qp: the QP
 *
 * Every queued work request completes with IB_WC_WR_FLUSH_ERR, sends
 * too when unsignaled; completions that do not fit their CQ are lost.
 * An empty QP does not touch its CQs (they may be gone once the QP was
 * destroyed).
 *
 * Context: process context, loop_mutex held (no work request of the QP
 * is being carried out).
 */
void loop_qp_error(struct loop_qp *qp)
{
	unsigned long flags;
	u32 n;

	lockdep_assert_held(&loop_mutex);
	spin_lock_irqsave(&qp->lock, flags);
	qp->state = IB_QPS_ERR;
	n = loop_queue_flush(qp, &qp->sq);
	n += loop_queue_flush(qp, &qp->rq);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (n)
		loop_qp_notify(qp);
}

/**
 * loop_modify_qp() - modify_qp: access rights, and the state changes the
 *	core asks for
 * @ibqp: the QP
 * @attr: the new attributes
 * @mask: which ones (IB_QP_STATE, IB_QP_ACCESS_FLAGS)
 *
 * IB_QPS_SQD closes the connection gracefully, IB_QPS_ERR aborts it; in
 * ERROR every outstanding work request is flushed before the terminal
 * CLOSE is queued.
 *
 * Context: process context.
 * Return: 0 or -EINVAL.
 */
int loop_modify_qp(struct ib_qp *ibqp, const struct ib_qp_attr *attr,
		   int mask)
{
	struct loop_qp *qp = loop_qp(ibqp);
	unsigned long flags;
	int ret = 0;

	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS))
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~KIWI_ACCESS_ALL))
		return -EINVAL;
	if (mask & IB_QP_STATE) {
		if (attr->qp_state != IB_QPS_ERR &&
		    attr->qp_state != IB_QPS_SQD)
			return -EINVAL;	/* RTS is the provider's to set */
		mutex_lock(&loop_mutex);
		if (attr->qp_state == IB_QPS_ERR)
			loop_qp_cm_error(qp, false);
		else
			ret = loop_qp_cm_close(qp);
		mutex_unlock(&loop_mutex);
	}
	if (!ret && (mask & IB_QP_ACCESS_FLAGS)) {
		spin_lock_irqsave(&qp->lock, flags);
		qp->access = attr->qp_access_flags;
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	return ret;
}

/**
 * loop_query_qp() - query_qp: state, rights, queue sizes, IRD and ORD
 * @ibqp: the QP
 * @attr: filled
 *
 * Context: process context.
 * Return: 0.
 */
int loop_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr)
{
	struct loop_qp *qp = loop_qp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	spin_unlock_irqrestore(&qp->lock, flags);
	attr->cap = (struct ib_qp_cap) {
		.max_send_wr = qp->sq.size,
		.max_recv_wr = qp->rq.size,
		.max_send_sge = qp->sq.max_sge,
		.max_recv_sge = qp->rq.max_sge,
		.max_inline_data = qp->max_inline,
	};
	return 0;
}

/**
 * loop_destroy_qp() - destroy_qp: flush the QP, drop the creator's reference
 * @ibqp: the QP
 *
 * The QP is not freed here unless this was its last reference (see
 * loop_rem_ref()).
 *
 * Context: process context.
 */
void loop_destroy_qp(struct ib_qp *ibqp)
{
	struct loop_qp *qp = loop_qp(ibqp);

	mutex_lock(&loop_mutex);
	xa_erase(&qp->ldev->qps, ibqp->qp_num);
	loop_qp_cm_error(qp, true);
	qp->destroyed = true;
	mutex_unlock(&loop_mutex);
	loop_qp_put(qp);
}
