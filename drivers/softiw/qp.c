// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw queue pairs: numbers, references, the states the connection
 * manager drives, the send and receive queues, and flush (post.c queues
 * the work requests).
 *
 * The QP's lock protects its state, its endpoint pointer and both queues;
 * it is taken with interrupts off, since posting is legal in any context.
 * A CQ's lock nests inside it. The data path (transmit and receive, in
 * the endpoint's work) holds the endpoint's mutex while it uses the
 * buffers of the oldest work requests; a flush of a connected QP takes
 * that mutex too, so that no work request is completed under the data
 * path's feet and every one completes exactly once.
 *
 * Flush rules (Documentation/softiw.rst, "QP states and flush"): a work
 * request posted to a QP in ERROR completes at once with
 * IB_WC_WR_FLUSH_ERR; the move to ERROR completes every queued one with
 * IB_WC_WR_FLUSH_ERR before
 * modify_qp (or destroy_qp) returns. Between the move and the flush
 * (which waits for the endpoint's mutex) posts are still queued, so that
 * they complete after the older requests, never ahead of them.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>

#include "cm.h"

/**
 * softiw_qps_init() - prepare a device's QP table
 * @sdev: the device
 */
void softiw_qps_init(struct softiw_device *sdev)
{
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC1);
}

/**
 * softiw_qps_exit() - release a device's QP table
 * @sdev: the device, unregistered
 *
 * A QP still in the table was orphaned by an unregistration that timed
 * out waiting for its owner; it stays allocated, since the owner may
 * still use it.
 */
void softiw_qps_exit(struct softiw_device *sdev)
{
	if (!xa_empty(&sdev->qps))
		pr_warn("kiwi_softiw: %s: QPs left behind by their owner\n",
			sdev->kdev.name);
	xa_destroy(&sdev->qps);
}

static void softiw_qp_free(struct softiw_qp *sqp)
{
	kvfree(sqp->sq.wqe);
	kvfree(sqp->rq.wqe);
	kvfree(sqp->sq_inline);
	kfree(sqp);
}

/**
 * softiw_qp_put() - drop a reference on a QP, freeing it on the last one
 * @sqp: the QP
 *
 * Context: any context for a reference that is not the last; the last
 * one frees rings that may be vmalloc'd, so process context.
 */
void softiw_qp_put(struct softiw_qp *sqp)
{
	if (refcount_dec_and_test(&sqp->ref))
		softiw_qp_free(sqp);
}

static int softiw_wq_init(struct softiw_wq *wq, u32 size, u32 max_sge)
{
	wq->size = size;
	wq->max_sge = max_sge;
	wq->stride = struct_size(wq->wqe, buf, max_sge);
	if (!size)
		return 0;
	wq->wqe = kiwi_should_fail() ? NULL :
		  kvcalloc(size, wq->stride, GFP_KERNEL);
	return wq->wqe ? 0 : -ENOMEM;
}

/*
 * IB_SEND_INLINE data is copied when posted into a buffer of the send
 * ring's entry; a QP that asks for none gets none.
 */
static int softiw_sq_inline_init(struct softiw_qp *sqp, u32 max_inline)
{
	if (max_inline > SOFTIW_MAX_INLINE)
		return -EINVAL;
	sqp->max_inline = max_inline;
	if (!max_inline || !sqp->sq.size)
		return 0;
	sqp->sq_inline = kiwi_should_fail() ? NULL :
			 kvcalloc(sqp->sq.size, max_inline, GFP_KERNEL);
	return sqp->sq_inline ? 0 : -ENOMEM;
}

struct ib_qp *softiw_create_qp(struct ib_pd *pd,
			       const struct ib_qp_init_attr *init)
{
	struct softiw_device *sdev = softiw_dev(pd->device);
	const struct ib_qp_cap *cap = &init->cap;
	struct softiw_qp *sqp;
	u32 qpn;
	int ret;

	might_sleep();
	sqp = kiwi_should_fail() ? NULL : kzalloc(sizeof(*sqp), GFP_KERNEL);
	if (!sqp)
		return ERR_PTR(-ENOMEM);
	sqp->sdev = sdev;
	refcount_set(&sqp->ref, 1);
	spin_lock_init(&sqp->lock);
	sqp->state = IB_QPS_INIT;
	ret = softiw_wq_init(&sqp->sq, cap->max_send_wr, cap->max_send_sge);
	if (ret)
		goto free_qp;
	ret = softiw_wq_init(&sqp->rq, cap->max_recv_wr, cap->max_recv_sge);
	if (ret)
		goto free_qp;
	ret = softiw_sq_inline_init(sqp, cap->max_inline_data);
	if (ret)
		goto free_qp;
	/*
	 * From xa_alloc() on, a connect can find and bind the QP, and
	 * complete into its CQs: set them now, not when the core does
	 * after create_qp returns (it stores the same values).
	 */
	sqp->qp.send_cq = init->send_cq;
	sqp->qp.recv_cq = init->recv_cq;
	sqp->qp.pd = pd;
	sqp->qp.sq_sig_type = init->sq_sig_type;
	ret = kiwi_should_fail() ? -ENOMEM :
	      xa_alloc(&sdev->qps, &qpn, sqp,
		       XA_LIMIT(1, SOFTIW_MAX_QP), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto free_qp;
	}
	sqp->qp.qp_num = qpn;
	return &sqp->qp;

free_qp:
	softiw_qp_free(sqp);
	return ERR_PTR(ret);
}

/*
 * The moves a ULP (or the core for it) may ask for: any state to ERROR,
 * a connected QP to CLOSING. RTS and TERMINATE are the endpoint's to set.
 */
static bool softiw_qp_move_ok(enum ib_qp_state from, enum ib_qp_state to)
{
	if (to == IB_QPS_ERR)
		return true;
	return to == IB_QPS_SQD &&
	       (from == IB_QPS_RTS || from == IB_QPS_SQD);
}

static struct softiw_cq *softiw_wq_cq(struct softiw_qp *sqp,
				      struct softiw_wq *wq)
{
	return softiw_cq(wq == &sqp->sq ? sqp->qp.send_cq : sqp->qp.recv_cq);
}

/**
 * softiw_wq_report() - report one work request on its queue's CQ
 * @sqp: the QP
 * @wq: its send or receive queue
 * @wr_id: the request's cookie
 * @opcode: a send request's &enum ib_wr_opcode
 * @flags: a send request's IB_SEND_* flags
 * @status: how it ended
 * @byte_len: bytes received, or read by a READ
 * @solicited: a RECV filled by a SEND with Solicited Event
 * @inv_rkey: a RECV's SEND with Invalidate invalidated this STag, or NULL
 *
 * A receive is always reported, a send only if signaled or failed.
 *
 * Context: any context, the QP's lock held.
 * Return: 0, or -EOVERFLOW if the CQ is full.
 */
int softiw_wq_report(struct softiw_qp *sqp, struct softiw_wq *wq,
		     u64 wr_id, u8 opcode, u8 flags, enum ib_wc_status status,
		     u32 byte_len, bool solicited, const u32 *inv_rkey)
{
	struct ib_wc wc = {
		.wr_id = wr_id, .status = status, .qp = &sqp->qp,
		.byte_len = byte_len,
	};

	if (inv_rkey) {
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = *inv_rkey;
	}

	lockdep_assert_held(&sqp->lock);
	if (wq == &sqp->sq) {
		if (!status && !(flags & IB_SEND_SIGNALED))
			return 0;
		wc.opcode = kiwi_wr_wc_opcode(opcode);
		if (wc.opcode != IB_WC_RDMA_READ)
			wc.byte_len = 0;
	} else {
		wc.opcode = IB_WC_RECV;
	}
	return softiw_cq_push(softiw_wq_cq(sqp, wq), &wc, solicited);
}

/* Return: the number of work requests flushed. */
static u32 softiw_wq_flush(struct softiw_qp *sqp, struct softiw_wq *wq)
{
	u32 n = wq->count;
	struct softiw_wqe *wqe;

	lockdep_assert_held(&sqp->lock);
	while (wq->count) {
		wqe = softiw_wq_at(wq, wq->head);
		softiw_wq_report(sqp, wq, wqe->wr_id, wqe->opcode, wqe->flags,
				 wqe->status ?: IB_WC_WR_FLUSH_ERR, 0, false,
				 NULL);
		wq->head = (wq->head + 1) % wq->size;
		wq->count--;
	}
	wq->sent = 0;
	return n;
}

/**
 * softiw_qp_notify() - call the completion handlers of a QP's CQs
 * @sqp: the QP
 *
 * Context: any context, the QP's lock not held.
 */
void softiw_qp_notify(struct softiw_qp *sqp)
{
	softiw_cq_notify(softiw_cq(sqp->qp.send_cq));
	if (sqp->qp.recv_cq != sqp->qp.send_cq)
		softiw_cq_notify(softiw_cq(sqp->qp.recv_cq));
}

/**
 * softiw_qp_flush() - move a QP to ERROR and flush both its queues
 * @sqp: the QP
 *
 * Every queued work request completes with IB_WC_WR_FLUSH_ERR (send
 * requests too when unsignaled), oldest first, and the completion handlers due
 * are called. With nothing queued the CQs are not touched: a destroyed
 * QP may outlive its CQs while its connection winds down.
 *
 * Context: process context; the data path of the QP is not running: the
 * caller holds the bound endpoint's mutex, or no endpoint is bound.
 */
void softiw_qp_flush(struct softiw_qp *sqp)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&sqp->lock, flags);
	if (sqp->cep)
		lockdep_assert_held(&sqp->cep->lock);
	sqp->state = IB_QPS_ERR;
	sqp->flush_pending = false;
	n = softiw_wq_flush(sqp, &sqp->sq);
	n += softiw_wq_flush(sqp, &sqp->rq);
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (n)
		softiw_qp_notify(sqp);
}

/*
 * A connected QP asked to close or to fail hands that to its endpoint,
 * which shuts the stream down (CLOSING) or resets it (ERROR).
 */
static void softiw_qp_set_state(struct softiw_qp *sqp,
				enum ib_qp_state state)
{
	lockdep_assert_held(&sqp->lock);
	sqp->state = state;
	if (!sqp->cep ||
	    (state != IB_QPS_SQD && state != IB_QPS_ERR))
		return;
	if (sqp->cep->close_req != IB_QPS_ERR)
		WRITE_ONCE(sqp->cep->close_req, state);
	softiw_cep_request_close(sqp->cep);
}

/* Flush after a move to ERROR, serialised with the endpoint's data path. */
static void softiw_qp_flush_sync(struct softiw_qp *sqp,
				 struct softiw_cep *cep)
{
	if (!cep) {
		softiw_qp_flush(sqp);
		return;
	}
	mutex_lock(&cep->lock);
	softiw_qp_flush(sqp);
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
}

/* Returns the bound endpoint, referenced, if the QP just went to ERROR. */
static int softiw_qp_move(struct softiw_qp *sqp, enum ib_qp_state state,
			  struct softiw_cep **cep)
{
	lockdep_assert_held(&sqp->lock);
	if (!softiw_qp_move_ok(sqp->state, state))
		return -EINVAL;
	softiw_qp_set_state(sqp, state);
	if (state == IB_QPS_ERR && sqp->cep) {
		sqp->flush_pending = true;
		refcount_inc(&sqp->cep->ref);
		*cep = sqp->cep;
	}
	return 0;
}

int softiw_modify_qp(struct ib_qp *qp, const struct ib_qp_attr *attr,
		     int mask)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	struct softiw_cep *cep = NULL;
	unsigned long flags;
	int ret = 0;

	might_sleep();
	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS))
		return -EINVAL;
	spin_lock_irqsave(&sqp->lock, flags);
	if (mask & IB_QP_STATE)
		ret = softiw_qp_move(sqp, attr->qp_state, &cep);
	if (!ret && (mask & IB_QP_ACCESS_FLAGS))
		WRITE_ONCE(sqp->access, attr->qp_access_flags);
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (!ret && (mask & IB_QP_STATE) &&
	    attr->qp_state == IB_QPS_ERR)
		softiw_qp_flush_sync(sqp, cep);
	return ret;
}

int softiw_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	attr->qp_state = sqp->state;
	attr->cur_qp_state = sqp->state;
	attr->qp_access_flags = sqp->access;
	attr->max_rd_atomic = sqp->ord;
	attr->max_dest_rd_atomic = sqp->ird;
	spin_unlock_irqrestore(&sqp->lock, flags);
	attr->cap = (struct ib_qp_cap) {
		.max_send_wr = sqp->sq.size,
		.max_recv_wr = sqp->rq.size,
		.max_send_sge = sqp->sq.max_sge,
		.max_recv_sge = sqp->rq.max_sge,
		.max_inline_data = sqp->max_inline,
	};
	return 0;
}

/*
 * The ULP lets go of a QP whose graceful close is in flight: flush it as
 * for ERROR, but leave the endpoint's close graceful (the FIN, then the
 * peer's) rather than reset the stream, as TCP's close() would.
 */
static void softiw_qp_let_close(struct softiw_qp *sqp,
				struct softiw_cep **cep)
{
	lockdep_assert_held(&sqp->lock);
	sqp->state = IB_QPS_ERR;
	sqp->flush_pending = true;
	refcount_inc(&sqp->cep->ref);
	*cep = sqp->cep;
	softiw_cep_request_close(sqp->cep);
}

void softiw_destroy_qp(struct ib_qp *qp)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	struct softiw_cep *cep = NULL;
	unsigned long flags;

	might_sleep();
	xa_erase(&sqp->sdev->qps, qp->qp_num);
	spin_lock_irqsave(&sqp->lock, flags);
	if (sqp->state == IB_QPS_SQD && sqp->cep &&
	    READ_ONCE(sqp->cep->close_req) == IB_QPS_SQD)
		softiw_qp_let_close(sqp, &cep);
	else
		softiw_qp_move(sqp, IB_QPS_ERR, &cep);
	spin_unlock_irqrestore(&sqp->lock, flags);
	softiw_qp_flush_sync(sqp, cep);
	softiw_qp_put(sqp);
}

void softiw_add_ref(struct ib_qp *qp)
{
	refcount_inc(&softiw_qp(qp)->ref);
}

void softiw_rem_ref(struct ib_qp *qp)
{
	softiw_qp_put(softiw_qp(qp));
}

struct ib_qp *softiw_get_qp(struct ib_device *kdev, u32 qpn)
{
	struct softiw_qp *sqp = xa_load(&softiw_dev(kdev)->qps, qpn);

	return sqp ? &sqp->qp : NULL;
}

/**
 * softiw_wq_peek() - the oldest work request of a queue
 * @sqp: the QP
 * @wq: its send or receive queue
 *
 * The entry stays valid until it is completed or flushed; the data path
 * uses it under the endpoint's mutex, which a flush also takes.
 *
 * Context: any context.
 * Return: the entry, or NULL if the queue is empty or the QP in ERROR.
 */
struct softiw_wqe *softiw_wq_peek(struct softiw_qp *sqp, struct softiw_wq *wq)
{
	struct softiw_wqe *wqe = NULL;
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	if (wq->count && sqp->state != IB_QPS_ERR)
		wqe = softiw_wq_at(wq, wq->head);
	spin_unlock_irqrestore(&sqp->lock, flags);
	return wqe;
}

/**
 * softiw_wq_complete() - complete the oldest work request of a queue
 * @sqp: the QP
 * @wq: its send or receive queue
 * @status: how it ended
 * @byte_len: receive: bytes placed
 * @solicited: receive: the message asked for a solicited event
 * @inv_rkey: receive: the STag the message invalidated, or NULL
 *
 * Context: process context, the endpoint's mutex held (the data path).
 * Return: 0; -ECANCELED if the QP is in ERROR (the request was flushed);
 * -EOVERFLOW if the CQ had no room: the caller moves the QP to ERROR.
 */
int softiw_wq_complete(struct softiw_qp *sqp, struct softiw_wq *wq,
		       enum ib_wc_status status, u32 byte_len, bool solicited,
		       const u32 *inv_rkey)
{
	struct softiw_wqe *wqe;
	unsigned long flags;
	int ret = -ECANCELED;

	spin_lock_irqsave(&sqp->lock, flags);
	lockdep_assert_held(&sqp->cep->lock);
	if (wq->count && sqp->state != IB_QPS_ERR) {
		wqe = softiw_wq_at(wq, wq->head);
		ret = softiw_wq_report(sqp, wq, wqe->wr_id, wqe->opcode,
				       wqe->flags, status, byte_len,
				       solicited, inv_rkey);
		wq->head = (wq->head + 1) % wq->size;
		wq->count--;
	}
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (ret != -ECANCELED)
		softiw_qp_notify(sqp);
	return ret;
}

/**
 * softiw_sq_next() - the send work request the transmitter takes next
 * @sqp: the QP
 *
 * The oldest one not sent yet; older ones may still wait for their
 * completion (READs for their response).
 *
 * Context: any context.
 * Return: the entry, or NULL if there is none or the QP is in ERROR.
 */
struct softiw_wqe *softiw_sq_next(struct softiw_qp *sqp)
{
	struct softiw_wq *sq = &sqp->sq;
	struct softiw_wqe *wqe = NULL;
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	if (sq->sent < sq->count && sqp->state != IB_QPS_ERR)
		wqe = softiw_wq_at(sq, sq->head + sq->sent);
	spin_unlock_irqrestore(&sqp->lock, flags);
	return wqe;
}

/**
 * softiw_sq_read() - the oldest RDMA READ whose response is awaited
 * @sqp: the QP
 *
 * Read Responses arrive in the order of the requests (RFC 5040).
 *
 * Context: any context.
 * Return: the entry, or NULL if there is none or the QP is in ERROR.
 */
struct softiw_wqe *softiw_sq_read(struct softiw_qp *sqp)
{
	struct softiw_wq *sq = &sqp->sq;
	struct softiw_wqe *wqe = NULL, *w;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&sqp->lock, flags);
	for (i = 0; i < sq->sent && sqp->state != IB_QPS_ERR; i++) {
		w = softiw_wq_at(sq, sq->head + i);
		if (w->opcode == IB_WR_RDMA_READ && !w->done) {
			wqe = w;
			break;
		}
	}
	spin_unlock_irqrestore(&sqp->lock, flags);
	return wqe;
}

/**
 * softiw_sq_has_read() - whether an RDMA READ still needs its response
 * @sqp: the QP
 *
 * Sent and awaiting its response, or still queued.
 *
 * Context: any context.
 * Return: true if the send queue holds a READ that is not done.
 */
bool softiw_sq_has_read(struct softiw_qp *sqp)
{
	struct softiw_wq *sq = &sqp->sq;
	const struct softiw_wqe *w;
	unsigned long flags;
	bool found = false;
	u32 i;

	spin_lock_irqsave(&sqp->lock, flags);
	for (i = 0; i < sq->count && !found; i++) {
		w = softiw_wq_at(sq, sq->head + i);
		found = w->opcode == IB_WR_RDMA_READ && !w->done;
	}
	spin_unlock_irqrestore(&sqp->lock, flags);
	return found;
}

/* Complete the oldest send work requests that are done, in order. */
static int softiw_sq_retire(struct softiw_qp *sqp, bool *reported)
{
	struct softiw_wq *sq = &sqp->sq;
	struct softiw_wqe *wqe;
	int ret = 0;

	lockdep_assert_held(&sqp->lock);
	while (sq->count && softiw_wq_at(sq, sq->head)->done) {
		wqe = softiw_wq_at(sq, sq->head);
		if (softiw_wq_report(sqp, sq, wqe->wr_id, wqe->opcode,
				     wqe->flags, IB_WC_SUCCESS, wqe->len, false,
				     NULL))
			ret = -EOVERFLOW;
		*reported = true;
		sq->head = (sq->head + 1) % sq->size;
		sq->count--;
		sq->sent--;
	}
	return ret;
}

/*
 * @wqe was sent (@sent) or its READ response placed: mark it, and
 * complete what can complete. A sent READ is not done yet.
 */
static int softiw_sq_update(struct softiw_qp *sqp, struct softiw_wqe *wqe,
			    bool sent)
{
	bool reported = false;
	unsigned long flags;
	int ret = -ECANCELED;

	spin_lock_irqsave(&sqp->lock, flags);
	lockdep_assert_held(&sqp->cep->lock);
	if (sqp->state != IB_QPS_ERR) {
		if (sent)
			sqp->sq.sent++;
		if (!sent || wqe->opcode != IB_WR_RDMA_READ)
			wqe->done = true;
		ret = softiw_sq_retire(sqp, &reported);
	}
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (reported)
		softiw_qp_notify(sqp);
	return ret;
}

/**
 * softiw_sq_sent() - the transmitter is done with a send work request
 * @sqp: the QP
 * @wqe: the entry softiw_sq_next() returned, all of it queued on the socket
 *
 * A SEND or RDMA WRITE is done; a READ now waits for its response. Send
 * work requests complete in the order they were posted.
 *
 * Context: process context, the endpoint's mutex held (the data path).
 * Return: 0; -ECANCELED if the QP is in ERROR (the request was flushed);
 * -EOVERFLOW if a completion did not fit its CQ.
 */
int softiw_sq_sent(struct softiw_qp *sqp, struct softiw_wqe *wqe)
{
	return softiw_sq_update(sqp, wqe, true);
}

/**
 * softiw_sq_read_done() - the last byte of a READ's response is placed
 * @sqp: the QP
 * @wqe: the entry softiw_sq_read() returned
 *
 * Context: process context, the endpoint's mutex held (the data path).
 * Return: as softiw_sq_sent().
 */
int softiw_sq_read_done(struct softiw_qp *sqp, struct softiw_wqe *wqe)
{
	return softiw_sq_update(sqp, wqe, false);
}

/**
 * softiw_sq_fail() - a send work request failed on its own
 * @sqp: the QP
 * @wqe: the request, still queued (being sent, or a READ awaiting its
 *	response)
 * @status: how it ended
 *
 * The caller ends the connection: the request is reported with @status,
 * in order, when the QP's queues are flushed.
 *
 * Context: process context, the endpoint's mutex held (the data path).
 */
void softiw_sq_fail(struct softiw_qp *sqp, struct softiw_wqe *wqe,
		    enum ib_wc_status status)
{
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	lockdep_assert_held(&sqp->cep->lock);
	wqe->status = status;
	spin_unlock_irqrestore(&sqp->lock, flags);
}

/**
 * softiw_qp_state() - a QP's state
 * @sqp: the QP
 *
 * Context: any context.
 * Return: the state.
 */
enum ib_qp_state softiw_qp_state(struct softiw_qp *sqp)
{
	unsigned long flags;
	enum ib_qp_state state;

	spin_lock_irqsave(&sqp->lock, flags);
	state = sqp->state;
	spin_unlock_irqrestore(&sqp->lock, flags);
	return state;
}

/**
 * kiwi_softiw_qp_state() - a softiw QP's state, for tests
 * @qp: the QP
 *
 * Context: any context.
 * Return: the state.
 */
enum ib_qp_state kiwi_softiw_qp_state(struct ib_qp *qp)
{
	return softiw_qp_state(softiw_qp(qp));
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_state);

/**
 * kiwi_softiw_qp_mulpdu() - the MULPDU of a connected QP, for tests
 * @qp: the QP
 *
 * Context: any context.
 * Return: the longest ULPDU the QP sends in one FPDU, 0 before it was
 * connected.
 */
u16 kiwi_softiw_qp_mulpdu(struct ib_qp *qp)
{
	return READ_ONCE(softiw_qp(qp)->mulpdu);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_mulpdu);

/**
 * kiwi_softiw_qp_tx_fpdus() - FPDUs of SEND messages a QP sent, for tests
 * @qp: the QP
 *
 * Context: any context.
 * Return: their number.
 */
u64 kiwi_softiw_qp_tx_fpdus(struct ib_qp *qp)
{
	return READ_ONCE(softiw_qp(qp)->tx_fpdus);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_tx_fpdus);

/**
 * kiwi_softiw_qp_rx_busy() - receive runs of a QP that used up their
 *	budget, for tests
 * @qp: the QP
 *
 * Context: any context.
 * Return: their number.
 */
u64 kiwi_softiw_qp_rx_busy(struct ib_qp *qp)
{
	return READ_ONCE(softiw_qp(qp)->rx_busy);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_rx_busy);

/**
 * kiwi_softiw_qp_terminate() - the TERMINATE a QP received, for tests
 * @qp: the QP
 * @ctrl: set to the first word of its body, host order
 *
 * Context: any context.
 * Return: true if the peer sent a TERMINATE.
 */
bool kiwi_softiw_qp_terminate(struct ib_qp *qp, u32 *ctrl)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	unsigned long flags;
	bool rcvd;

	spin_lock_irqsave(&sqp->lock, flags);
	rcvd = sqp->term_rcvd;
	*ctrl = sqp->term_ctrl;
	spin_unlock_irqrestore(&sqp->lock, flags);
	return rcvd;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_terminate);

/**
 * kiwi_softiw_qp_depths() - the IRD and ORD a connected QP uses, for tests
 * @qp: the QP
 * @ird: set to the peer's Read Requests it serves at once
 * @ord: set to the READs it may have outstanding
 *
 * Both are what MPA negotiated (revision 2) or the ULP asked (revision
 * 1), 0 before the QP was connected.
 *
 * Context: any context.
 */
void kiwi_softiw_qp_depths(struct ib_qp *qp, u16 *ird, u16 *ord)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	*ird = sqp->ird;
	*ord = sqp->ord;
	spin_unlock_irqrestore(&sqp->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_depths);
