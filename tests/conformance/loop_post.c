// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_loop posting and the in-memory data path.
 *
 * post_send and post_recv check a work request whole (its SGEs against
 * the QP's PD, without sleeping) before it takes an entry of the queue,
 * so a refused one leaves the queue as it was; inline data is copied
 * then. A request posted to a QP in ERROR completes at once, flushed. A
 * QP's send queue is carried out by its work item, under loop_mutex,
 * oldest first, one request at a time: a SEND is copied into the peer's
 * oldest RECV, an RDMA WRITE into the peer's MR, an RDMA READ out of it.
 * A READ is done before the next request starts, so the ORD and the
 * Read Fence hold by construction.
 *
 * What ends a connection, as softiw does with a TERMINATE: the peer
 * refusing a request (no RECV, a RECV too short, an STag it may not use:
 * the request completes with IB_WC_REM_*, the peer's QP hears
 * QP_REQ_ERR or QP_ACCESS_ERR and its id CLOSE(-EPROTO), this QP hears
 * QP_FATAL and its id CLOSE(-ECONNRESET)); a local buffer gone bad since
 * posting (IB_WC_LOC_*, CLOSE(-EPROTO) here); a completion that does not
 * fit its CQ (QP_FATAL, CLOSE(-EOVERFLOW) for its QP, CLOSE(-ECONNRESET)
 * for the other). The other requests of both QPs are flushed before the
 * CLOSEs are reported.
 */
#include <linux/string.h>

#include "loop.h"

#define LOOP_SEND_FLAGS	(IB_SEND_SIGNALED | IB_SEND_SOLICITED | \
			 IB_SEND_FENCE | IB_SEND_INLINE)

/* May a work request name this local buffer? */
static int loop_sge_check(struct loop_qp *qp, const struct ib_sge *sge,
			  bool sink)
{
	struct loop_mr *mr;
	int ret = 0;

	if (!sge->length)
		return 0;
	if (sge->lkey == LOOP_LOCAL_DMA_LKEY)
		return sge->addr ? 0 : -EINVAL;
	rcu_read_lock();
	/* A REG_MR queued ahead may give an MR of ib_alloc_mr() this key. */
	mr = loop_mr_find(qp->ldev, sge->lkey) ?:
	     loop_mr_fr(qp->ldev, sge->lkey);
	if (!mr || mr->pd != qp->ibqp.pd)
		ret = -EINVAL;
	else if (mr->kind == LOOP_MR_FR)
		ret = 0;	/* checked when carried out */
	else if (!READ_ONCE(mr->valid) ||
		 !loop_mr_range_ok(mr, sge->addr, sge->length))
		ret = -EINVAL;
	else if (sink && !(READ_ONCE(mr->access) & IB_ACCESS_LOCAL_WRITE))
		ret = -EACCES;
	rcu_read_unlock();
	return ret;
}

/* Check the SGEs of a request and sum them up into *@len. */
static int loop_sges_check(struct loop_qp *qp, const struct ib_sge *sg,
			   int num_sge, bool sink, u32 *len)
{
	u64 total = 0;
	int i, ret;

	for (i = 0; i < num_sge; i++) {
		ret = loop_sge_check(qp, &sg[i], sink);
		if (ret)
			return ret;
		total += sg[i].length;
	}
	if (total > U32_MAX)
		return -EMSGSIZE;
	*len = total;
	return 0;
}

/* May this QP invalidate (LOCAL_INV) the STag? */
static bool loop_stag_known(struct loop_qp *qp, u32 stag)
{
	struct loop_mr *mr;
	bool known;

	rcu_read_lock();
	mr = loop_mr_find(qp->ldev, stag);
	known = mr && mr->pd == qp->ibqp.pd;
	rcu_read_unlock();
	return known;
}

static bool loop_reg_ok(struct loop_qp *qp, const struct ib_reg_wr *reg)
{
	const struct loop_mr *mr = reg->mr ? loop_mr(reg->mr) : NULL;

	if (!mr || mr->ldev != qp->ldev || mr->kind != LOOP_MR_FR ||
	    mr->pd != qp->ibqp.pd || (reg->access & ~KIWI_ACCESS_ALL))
		return false;
	return !(reg->access & IB_ACCESS_REMOTE_WRITE) ||
	       (reg->access & IB_ACCESS_LOCAL_WRITE);
}

/* An RDMA READ's sink is named by STag on the wire: never the PD's
 * local_dma_lkey, which no peer may use.
 */
static bool loop_read_sink_ok(const struct ib_send_wr *wr)
{
	int i;

	for (i = 0; i < wr->num_sge; i++)
		if (wr->sg_list[i].lkey == LOOP_LOCAL_DMA_LKEY)
			return false;
	return true;
}

/* Is the request's opcode one the QP carries out, with these flags? */
static int loop_send_check(struct loop_qp *qp, const struct ib_send_wr *wr)
{
	bool inl = wr->send_flags & IB_SEND_INLINE;

	if ((wr->send_flags & ~LOOP_SEND_FLAGS) || wr->num_sge < 0 ||
	    wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
		return inl && !qp->max_inline ? -EINVAL : 0;
	case IB_WR_RDMA_READ:	/* with ORD 0 it could never start */
		return inl || !qp->ord || !loop_read_sink_ok(wr) ? -EINVAL : 0;
	case IB_WR_LOCAL_INV:
		return inl || wr->num_sge ||
		       !loop_stag_known(qp, wr->ex.invalidate_rkey) ?
		       -EINVAL : 0;
	case IB_WR_REG_MR:
		return inl || wr->num_sge || !loop_reg_ok(qp, reg_wr(wr)) ?
		       -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* IB_SEND_INLINE: copy the data into the entry's inline buffer now. */
static int loop_send_inline(struct loop_qp *qp, struct loop_wqe *wqe,
			    const struct ib_send_wr *wr, u32 slot)
{
	u8 *dst = qp->inl + (size_t)slot * qp->max_inline;
	u32 len = 0, n;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		n = wr->sg_list[i].length;
		if (n > qp->max_inline - len)
			return -EINVAL;
		if (n && !wr->sg_list[i].addr)
			return -EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		len += n;
	}
	wqe->inl = true;
	wqe->num_sge = 0;
	wqe->len = len;
	return 0;
}

static void loop_send_fill(struct loop_qp *qp, struct loop_wqe *wqe,
			   const struct ib_send_wr *wr)
{
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->flags = wr->send_flags;
	if (qp->ibqp.sq_sig_type == IB_SIGNAL_ALL_WR)
		wqe->flags |= IB_SEND_SIGNALED;
	wqe->rkey = 0;
	wqe->remote_addr = 0;
	wqe->mr = NULL;
	wqe->access = 0;
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		wqe->rkey = rdma_wr(wr)->rkey;
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		wqe->mr = loop_mr(reg_wr(wr)->mr);
		wqe->rkey = reg_wr(wr)->key;
		wqe->access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
}

static int loop_sq_add(struct loop_qp *qp, const struct ib_send_wr *wr)
{
	struct loop_queue *sq = &qp->sq;
	u32 slot = (sq->head + sq->count) % (sq->size ? : 1);
	struct loop_wqe *wqe;
	int ret;

	lockdep_assert_held(&qp->lock);
	ret = loop_send_check(qp, wr);
	if (ret)
		return ret;
	if (sq->count == sq->size)
		return -ENOMEM;
	wqe = &sq->wqe[slot];
	wqe->inl = false;
	if (wr->send_flags & IB_SEND_INLINE) {
		ret = loop_send_inline(qp, wqe, wr, slot);
	} else {
		ret = loop_sges_check(qp, wr->sg_list, wr->num_sge,
				      wr->opcode == IB_WR_RDMA_READ,
				      &wqe->len);
		wqe->num_sge = wr->num_sge;
		memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
	}
	if (ret)
		return ret;
	loop_send_fill(qp, wqe, wr);
	sq->count++;
	return 0;
}

/**
 * loop_qp_kick() - have a QP's send queue carried out
 * @qp: the QP, referenced by the caller
 *
 * Context: any context.
 */
void loop_qp_kick(struct loop_qp *qp)
{
	loop_qp_get(qp);	/* the queued work's */
	if (!queue_work(loop_wq, &qp->work))
		refcount_dec(&qp->ref);	/* never the last: the caller's */
}

/* A request posted to a QP in ERROR completes at once, flushed. */
static void loop_post_flushed(struct loop_qp *qp, bool send, u64 wr_id,
			      u32 opcode)
{
	struct loop_wqe wqe = { .wr_id = wr_id, .opcode = opcode };

	lockdep_assert_held(&qp->lock);
	loop_qp_report(qp, send, &wqe, IB_WC_WR_FLUSH_ERR, 0, 0, 0, false);
}

/**
 * loop_post_send() - post_send: queue send work requests
 * @ibqp: the QP
 * @wr: the chain
 * @bad_wr: set to the first request refused
 *
 * Checked and queued here, carried out in order by the QP's work; a QP
 * in ERROR completes them at once with IB_WC_WR_FLUSH_ERR.
 *
 * Context: any context; never sleeps.
 * Return: 0, -EINVAL for a request the QP cannot carry out, or -ENOMEM
 * when the send queue is full.
 */
int loop_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct loop_qp *qp = loop_qp(ibqp);
	bool queued = false, flushed = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_ERR) {
			loop_post_flushed(qp, true, wr->wr_id, wr->opcode);
			flushed = true;
			continue;
		}
		ret = qp->state == IB_QPS_RTS ? loop_sq_add(qp, wr) : -ENOTCONN;
		if (ret)
			break;
		queued = true;
	}
	if (ret)
		*bad_wr = wr;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (flushed)
		loop_qp_notify(qp);
	if (queued)
		loop_qp_kick(qp);
	return ret;
}

static int loop_rq_add(struct loop_qp *qp, const struct ib_recv_wr *wr)
{
	struct loop_queue *rq = &qp->rq;
	struct loop_wqe *wqe;
	u32 len;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (wr->num_sge < 0 || wr->num_sge > rq->max_sge)
		return -EINVAL;
	ret = loop_sges_check(qp, wr->sg_list, wr->num_sge, true, &len);
	if (ret)
		return ret;
	if (rq->count == rq->size)
		return -ENOMEM;
	wqe = loop_queue_at(rq, rq->head + rq->count);
	*wqe = (struct loop_wqe) {
		.wr_id = wr->wr_id,
		.num_sge = wr->num_sge,
		.len = len,
	};
	memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
	rq->count++;
	return 0;
}

/**
 * loop_post_recv() - post_recv: queue receives
 * @ibqp: the QP
 * @wr: the chain
 * @bad_wr: set to the first request refused
 *
 * Context: any context; never sleeps.
 * Return: 0, -EINVAL for a bad SGE, or -ENOMEM when the queue is full.
 */
int loop_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct loop_qp *qp = loop_qp(ibqp);
	bool flushed = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_ERR) {
			loop_post_flushed(qp, false, wr->wr_id, 0);
			flushed = true;
			continue;
		}
		ret = loop_rq_add(qp, wr);
		if (ret)
			break;
	}
	if (ret)
		*bad_wr = wr;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (flushed)
		loop_qp_notify(qp);
	return ret;
}

/* The data path */

/* Copy the oldest entry of @q, if the QP is not in ERROR. */
static bool loop_queue_peek(struct loop_qp *qp, struct loop_queue *q,
			    struct loop_wqe *wqe)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&qp->lock, flags);
	any = q->count && qp->state != IB_QPS_ERR;
	if (any)
		*wqe = *loop_queue_at(q, q->head);
	spin_unlock_irqrestore(&qp->lock, flags);
	return any;
}

/* Complete the oldest entry of @q. Return: -EOVERFLOW if the CQ lost it. */
static int loop_queue_complete(struct loop_qp *qp, struct loop_queue *q,
			       enum ib_wc_status status, u32 byte_len,
			       int wc_flags, u32 inv_rkey, bool solicited)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->lock, flags);
	if (q->count) {
		ret = loop_qp_report(qp, q == &qp->sq,
				     loop_queue_at(q, q->head), status,
				     byte_len, wc_flags, inv_rkey, solicited);
		q->head = (q->head + 1) % q->size;
		q->count--;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	loop_qp_notify(qp);
	return ret;
}

static int loop_sq_done(struct loop_qp *qp, enum ib_wc_status status,
			u32 byte_len)
{
	return loop_queue_complete(qp, &qp->sq, status, byte_len, 0, 0, false);
}

/* Resolve local SGEs for the copy; an IB_WC_* status if one went bad. */
static enum ib_wc_status loop_sgl_local(struct loop_qp *qp,
					const struct loop_wqe *wqe, bool sink,
					struct loop_sgl *sgl)
{
	const struct ib_sge *sge;
	struct loop_mr *mr;
	u32 i;

	lockdep_assert_held(&loop_mutex);
	sgl->n = wqe->num_sge;
	sgl->len = wqe->len;
	for (i = 0; i < wqe->num_sge; i++) {
		sge = &wqe->sge[i];
		sgl->seg[i] = (struct loop_seg) {
			.addr = sge->addr, .len = sge->length,
		};
		if (!sge->length || sge->lkey == LOOP_LOCAL_DMA_LKEY)
			continue;
		mr = loop_mr_find(qp->ldev, sge->lkey);
		if (!mr || !mr->valid || mr->pd != qp->ibqp.pd ||
		    !loop_mr_range_ok(mr, sge->addr, sge->length))
			return IB_WC_LOC_PROT_ERR;
		if (sink && !(mr->access & IB_ACCESS_LOCAL_WRITE))
			return IB_WC_LOC_ACCESS_ERR;
		sgl->seg[i].mr = mr;
	}
	return IB_WC_SUCCESS;
}

/* The data a SEND or WRITE sends: inline, or its SGEs. */
static enum ib_wc_status loop_sgl_source(struct loop_qp *qp,
					 const struct loop_wqe *wqe,
					 struct loop_sgl *sgl)
{
	u32 slot = qp->sq.head % qp->sq.size;

	if (!wqe->inl)
		return loop_sgl_local(qp, wqe, false, sgl);
	sgl->n = 1;
	sgl->len = wqe->len;
	sgl->seg[0] = (struct loop_seg) {
		.addr = (uintptr_t)(qp->inl + (size_t)slot * qp->max_inline),
		.len = wqe->len,
	};
	return IB_WC_SUCCESS;
}

/* The peer's MR a READ or WRITE names: false if the peer refuses it. */
static bool loop_sgl_remote(struct loop_qp *pqp, const struct loop_wqe *wqe,
			    u32 right, struct loop_sgl *sgl)
{
	struct loop_mr *mr;

	lockdep_assert_held(&loop_mutex);
	if (!(READ_ONCE(pqp->access) & right))
		return false;	/* the QP's rights are checked first */
	mr = loop_mr_find(pqp->ldev, wqe->rkey);
	if (!mr || !mr->valid || mr->pd != pqp->ibqp.pd ||
	    !(mr->access & right) ||
	    !loop_mr_range_ok(mr, wqe->remote_addr, wqe->len))
		return false;
	sgl->n = 1;
	sgl->len = wqe->len;
	sgl->seg[0] = (struct loop_seg) {
		.mr = mr, .addr = wqe->remote_addr, .len = wqe->len,
	};
	return true;
}

/*
 * The peer refused the oldest request: it completes with @status, the
 * peer's QP hears @peer_event, and the peer ends the connection as with
 * a TERMINATE.
 */
static void loop_fail_remote(struct loop_ep *ep, enum ib_wc_status status,
			     enum ib_event_type peer_event)
{
	struct loop_ep *peer = ep->peer;

	loop_sq_done(ep->qp, status, 0);
	kiwi_qp_event(&peer->qp->ibqp, peer_event);
	kiwi_qp_event(&ep->qp->ibqp, IB_EVENT_QP_FATAL);
	loop_conn_abort(peer, -EPROTO, -ECONNRESET);
}

/* A local buffer of the oldest request went bad: it completes failed. */
static void loop_fail_local(struct loop_ep *ep, enum ib_wc_status status)
{
	loop_sq_done(ep->qp, status, 0);
	kiwi_qp_event(&ep->qp->ibqp, IB_EVENT_QP_FATAL);
	kiwi_qp_event(&ep->peer->qp->ibqp, IB_EVENT_QP_FATAL);
	loop_conn_abort(ep, -EPROTO, -ECONNRESET);
}

/* A completion of @ep's QP did not fit its CQ. */
static void loop_fail_overflow(struct loop_ep *ep)
{
	kiwi_qp_event(&ep->qp->ibqp, IB_EVENT_QP_FATAL);
	kiwi_qp_event(&ep->peer->qp->ibqp, IB_EVENT_QP_FATAL);
	loop_conn_abort(ep, -EOVERFLOW, -ECONNRESET);
}

/* SEND with Invalidate: the peer's STag must be a valid remote MR of its PD. */
static bool loop_remote_inv(struct loop_qp *pqp, u32 stag)
{
	struct loop_mr *mr = loop_mr_find(pqp->ldev, stag);

	if (!mr || !mr->valid || mr->pd != pqp->ibqp.pd ||
	    !(mr->access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)))
		return false;
	WRITE_ONCE(mr->valid, false);
	return true;
}

static int loop_exec_send(struct loop_ep *ep, const struct loop_wqe *wqe)
{
	struct loop_qp *pqp = ep->peer->qp;
	bool inv = wqe->opcode == IB_WR_SEND_WITH_INV;
	enum ib_wc_status st;
	struct loop_sgl src, dst;
	struct loop_wqe recv;

	st = loop_sgl_source(ep->qp, wqe, &src);
	if (st) {
		loop_fail_local(ep, st);
		return -EPROTO;
	}
	if (!loop_queue_peek(pqp, &pqp->rq, &recv) ||
	    loop_sgl_local(pqp, &recv, true, &dst)) {
		loop_fail_remote(ep, IB_WC_REM_OP_ERR, IB_EVENT_QP_REQ_ERR);
		return -EPROTO;
	}
	if (src.len > dst.len) {
		loop_queue_complete(pqp, &pqp->rq, IB_WC_LOC_LEN_ERR, 0, 0, 0,
				    false);
		loop_fail_remote(ep, IB_WC_REM_INV_REQ_ERR,
				 IB_EVENT_QP_REQ_ERR);
		return -EPROTO;
	}
	if (inv && !loop_remote_inv(pqp, wqe->rkey)) {
		loop_fail_remote(ep, IB_WC_REM_ACCESS_ERR,
				 IB_EVENT_QP_ACCESS_ERR);
		return -EPROTO;
	}
	loop_copy(&dst, &src, src.len);
	if (loop_sq_done(ep->qp, IB_WC_SUCCESS, 0)) {
		loop_fail_overflow(ep);
		return -EOVERFLOW;
	}
	if (loop_queue_complete(pqp, &pqp->rq, IB_WC_SUCCESS, src.len,
				inv ? IB_WC_WITH_INVALIDATE : 0,
				inv ? wqe->rkey : 0,
				wqe->flags & IB_SEND_SOLICITED)) {
		loop_fail_overflow(ep->peer);
		return -EOVERFLOW;
	}
	return 0;
}

/* RDMA WRITE (@read false) or RDMA READ (@read true). */
static int loop_exec_rdma(struct loop_ep *ep, const struct loop_wqe *wqe,
			  bool read)
{
	struct loop_qp *pqp = ep->peer->qp;
	struct loop_sgl local, remote;
	enum ib_wc_status st;

	if (read && ep->fin_rcvd) {	/* no Read Response after a FIN */
		loop_conn_abort(ep, -ECONNRESET, -ECONNRESET);
		return -ECONNRESET;
	}
	st = read ? loop_sgl_local(ep->qp, wqe, true, &local) :
		    loop_sgl_source(ep->qp, wqe, &local);
	if (st) {
		loop_fail_local(ep, st);
		return -EPROTO;
	}
	if (wqe->len && !loop_sgl_remote(pqp, wqe, read ?
					 IB_ACCESS_REMOTE_READ :
					 IB_ACCESS_REMOTE_WRITE, &remote)) {
		loop_fail_remote(ep, IB_WC_REM_ACCESS_ERR,
				 IB_EVENT_QP_ACCESS_ERR);
		return -EPROTO;
	}
	if (wqe->len && read)
		loop_copy(&local, &remote, wqe->len);
	else if (wqe->len)
		loop_copy(&remote, &local, wqe->len);
	if (loop_sq_done(ep->qp, IB_WC_SUCCESS, read ? wqe->len : 0)) {
		loop_fail_overflow(ep);
		return -EOVERFLOW;
	}
	return 0;
}

/* IB_WR_REG_MR: the pages mapped become the MR's, with key and rights. */
static void loop_exec_reg(const struct loop_wqe *wqe)
{
	struct loop_mr *mr = wqe->mr;
	u8 key = wqe->rkey & 0xff;

	lockdep_assert_held(&loop_mutex);
	WRITE_ONCE(mr->valid, false);
	memcpy(mr->pages, mr->map, mr->nmap * sizeof(*mr->pages));
	mr->npages = mr->nmap;
	mr->page_size = mr->ibmr.page_size;
	mr->first_off = mr->map_off;
	WRITE_ONCE(mr->iova, mr->ibmr.iova);
	WRITE_ONCE(mr->length, mr->npages ? mr->ibmr.length : 0);
	WRITE_ONCE(mr->access, wqe->access);
	WRITE_ONCE(mr->key, key);
	mr->ibmr.lkey = mr->index << 8 | key;
	mr->ibmr.rkey = mr->ibmr.lkey;
	WRITE_ONCE(mr->valid, true);
}

static int loop_exec_local(struct loop_ep *ep, const struct loop_wqe *wqe)
{
	struct loop_mr *mr;

	if (wqe->opcode == IB_WR_REG_MR) {
		loop_exec_reg(wqe);
	} else {
		mr = loop_mr_find(ep->qp->ldev, wqe->rkey);
		if (!mr || mr->pd != ep->qp->ibqp.pd) {
			loop_fail_local(ep, IB_WC_LOC_PROT_ERR);
			return -EPROTO;
		}
		WRITE_ONCE(mr->valid, false);
	}
	if (loop_sq_done(ep->qp, IB_WC_SUCCESS, 0)) {
		loop_fail_overflow(ep);
		return -EOVERFLOW;
	}
	return 0;
}

/* Carry out the oldest send request. Return: 0, or the connection ended. */
static int loop_exec(struct loop_ep *ep, const struct loop_wqe *wqe)
{
	if (READ_ONCE(ep->peer->qp->state) == IB_QPS_ERR) {
		/* the peer let go of its QP during its graceful close */
		loop_conn_abort(ep, -ECONNRESET, -ECONNRESET);
		return -ECONNRESET;
	}
	switch (wqe->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		return loop_exec_send(ep, wqe);
	case IB_WR_RDMA_WRITE:
		return loop_exec_rdma(ep, wqe, false);
	case IB_WR_RDMA_READ:
		return loop_exec_rdma(ep, wqe, true);
	default:
		return loop_exec_local(ep, wqe);
	}
}

/* Carry out a connected QP's send queue, then let a graceful close on. */
static void loop_sq_run(struct loop_qp *qp)
{
	struct loop_ep *ep = qp->ep;
	struct loop_wqe wqe;

	lockdep_assert_held(&loop_mutex);
	if (!ep)
		return;
	while (ep->state == LOOP_EP_CONNECTED &&
	       loop_queue_peek(qp, &qp->sq, &wqe))
		if (loop_exec(ep, &wqe))
			return;
	loop_conn_close_step(ep);
}

/**
 * loop_qp_work() - the work item that carries out a QP's send queue
 * @work: &loop_qp.work
 *
 * Context: process context (loop_wq); takes loop_mutex.
 */
void loop_qp_work(struct work_struct *work)
{
	struct loop_qp *qp = container_of(work, struct loop_qp, work);

	mutex_lock(&loop_mutex);
	loop_sq_run(qp);
	mutex_unlock(&loop_mutex);
	loop_qp_put(qp);
}
