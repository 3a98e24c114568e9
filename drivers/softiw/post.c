// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw posting: send and receive work requests checked, resolved
 * and queued on a QP's rings (qp.c owns the rings, their states and
 * flush; tx.c and rx.c carry the queued requests out).
 *
 * A request is checked whole before it takes a ring entry, so a refused
 * one leaves the queue as it was. Its SGEs are resolved against the QP's
 * PD when posted; inline data (IB_SEND_INLINE) is copied into the send
 * ring's own buffer then, so the caller may reuse its memory at once.
 */
#include <linux/slab.h>

#include "cm.h"

/*
 * An SGE in a fast-registration MR of the QP's PD: named by STag, and
 * checked when its bytes are used, after the registrations queued ahead
 * of it took effect (the ULP sets the key a queued REG_MR gives before
 * that registration runs).
 */
static void softiw_buf_by_stag(struct softiw_buf *buf, const struct ib_sge *sge)
{
	*buf = (struct softiw_buf) {
		.len = sge->length, .stag = sge->lkey, .to = sge->addr,
	};
}

/* Resolve a work request's SGEs into @wqe; the total must fit a message. */
static int softiw_wqe_fill(struct softiw_qp *sqp, struct softiw_wqe *wqe,
			   const struct ib_sge *sg, int num_sge, u32 access,
			   u32 max_len)
{
	u64 len = 0;
	int i, ret;

	for (i = 0; i < num_sge; i++) {
		if (sg[i].length && softiw_fr_named(sqp->qp.pd, sg[i].lkey)) {
			softiw_buf_by_stag(&wqe->buf[i], &sg[i]);
		} else {
			ret = softiw_mr_resolve(sqp->qp.pd, &sg[i], access,
						&wqe->buf[i]);
			if (ret)
				return ret;
		}
		len += sg[i].length;
	}
	if (len > max_len)
		return -EMSGSIZE;
	wqe->nbuf = num_sge;
	wqe->len = len;
	return 0;
}

/* A READ's sink of a fast-registration MR, found by STag when placed. */
static int softiw_wqe_fr_sink(struct softiw_wqe *wqe, const struct ib_sge *sge)
{
	softiw_buf_by_stag(&wqe->buf[0], sge);
	wqe->nbuf = 1;
	wqe->len = sge->length;
	wqe->fr_sink = true;
	return 0;
}

/* The next free entry of @wq, or NULL if it is full. */
static struct softiw_wqe *softiw_wq_slot(struct softiw_wq *wq)
{
	if (wq->count == wq->size)
		return NULL;
	return softiw_wq_at(wq, wq->head + wq->count);
}

/* In ERROR with its queues flushed: a post completes at once. */
static bool softiw_qp_flushed(struct softiw_qp *sqp)
{
	lockdep_assert_held(&sqp->lock);
	return sqp->state == IB_QPS_ERR && !sqp->flush_pending;
}

/*
 * IB_SEND_INLINE: a SEND or RDMA WRITE whose payload is copied now into
 * the ring entry's buffer. As in Linux, the SGEs' lkeys are not looked
 * at; their addresses are kernel virtual, softiw being a virtual-DMA
 * device.
 */
static int softiw_wqe_inline(struct softiw_qp *sqp, struct softiw_wqe *wqe,
			     const struct ib_send_wr *wr)
{
	struct softiw_wq *sq = &sqp->sq;
	u32 len = 0, n;
	u8 *dst;
	int i;

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_INV &&
	    wr->opcode != IB_WR_RDMA_WRITE)
		return -EINVAL;
	if (!sqp->sq_inline)
		return -EINVAL;
	dst = sqp->sq_inline +
	      (size_t)((sq->head + sq->count) % sq->size) * sqp->max_inline;
	for (i = 0; i < wr->num_sge; i++) {
		n = wr->sg_list[i].length;
		if (n > sqp->max_inline - len)
			return -EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		len += n;
	}
	wqe->nbuf = 0;
	if (len)	/* then num_sge, and so the ring's max_sge, is >= 1 */
		wqe->buf[wqe->nbuf++] = (struct softiw_buf) { dst, len };
	wqe->len = len;
	return 0;
}

/*
 * Resolve a send work request's SGEs: a SEND reads up to 1 MiB, an RDMA
 * WRITE reads and an RDMA READ writes up to 4 GiB - 1 of local memory.
 */
static int softiw_sq_fill(struct softiw_qp *sqp, struct softiw_wqe *wqe,
			  const struct ib_send_wr *wr)
{
	if (wr->send_flags & IB_SEND_INLINE)
		return softiw_wqe_inline(sqp, wqe, wr);
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		return softiw_wqe_fill(sqp, wqe, wr->sg_list, wr->num_sge, 0,
				       SOFTIW_MAX_MSG);
	case IB_WR_LOCAL_INV:
		if (wr->num_sge)
			return -EINVAL;
		if (!softiw_mr_known(sqp->qp.pd, wr->ex.invalidate_rkey))
			return -EINVAL;
		return softiw_wqe_fill(sqp, wqe, NULL, 0, 0, 0);
	case IB_WR_RDMA_WRITE:
		return softiw_wqe_fill(sqp, wqe, wr->sg_list, wr->num_sge, 0,
				       U32_MAX);
	case IB_WR_RDMA_READ:
		/* The sink is named by STag on the wire: never STag 0. */
		if (wr->num_sge && wr->sg_list[0].lkey == SOFTIW_LOCAL_DMA_LKEY)
			return -EINVAL;
		if (wr->num_sge == 1 &&
		    softiw_fr_named(sqp->qp.pd, wr->sg_list[0].lkey))
			return softiw_wqe_fr_sink(wqe, &wr->sg_list[0]);
		return softiw_wqe_fill(sqp, wqe, wr->sg_list, wr->num_sge,
				       IB_ACCESS_LOCAL_WRITE, U32_MAX);
	case IB_WR_REG_MR:
		if (wr->num_sge || softiw_reg_check(sqp->qp.pd, reg_wr(wr)))
			return -EINVAL;
		return softiw_wqe_fill(sqp, wqe, NULL, 0, 0, 0);
	default:
		return -EOPNOTSUPP;
	}
}

static int softiw_sq_add(struct softiw_qp *sqp, const struct ib_send_wr *wr)
{
	struct softiw_wqe *wqe = softiw_wq_slot(&sqp->sq);
	int ret;

	lockdep_assert_held(&sqp->lock);
	if (wr->send_flags & ~(IB_SEND_SIGNALED | IB_SEND_SOLICITED |
				IB_SEND_FENCE | IB_SEND_INLINE))
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > sqp->sq.max_sge)
		return -EINVAL;
	/* With ORD 0 a READ would wait forever, and all behind it. */
	if (wr->opcode == IB_WR_RDMA_READ && !sqp->ord &&
	    sqp->state == IB_QPS_RTS)
		return -EINVAL;
	if (!wqe)
		return -ENOMEM;
	wqe->fr_sink = false;
	wqe->status = 0;
	ret = softiw_sq_fill(sqp, wqe, wr);
	if (ret)
		return ret;
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->flags = wr->send_flags;
	if (sqp->qp.sq_sig_type == IB_SIGNAL_ALL_WR)
		wqe->flags |= IB_SEND_SIGNALED;
	wqe->done = false;
	wqe->rkey = 0;
	wqe->remote_addr = 0;
	wqe->mr = NULL;
	if (wr->opcode == IB_WR_REG_MR) {
		wqe->mr = softiw_mr(reg_wr(wr)->mr);
		wqe->rkey = reg_wr(wr)->key;
		wqe->access = reg_wr(wr)->access;
	}
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV) {
		wqe->rkey = wr->ex.invalidate_rkey;
	} else if (wr->opcode == IB_WR_RDMA_WRITE ||
		   wr->opcode == IB_WR_RDMA_READ) {
		wqe->rkey = rdma_wr(wr)->rkey;
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
	}
	wqe->sink_stag = wr->num_sge ? wr->sg_list[0].lkey : 0;
	wqe->sink_to = wr->num_sge ? wr->sg_list[0].addr : 0;
	sqp->sq.count++;
	return 0;
}

int softiw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	bool queued = false, flushed = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&sqp->lock, flags);
	for (; wr; wr = wr->next) {
		if (softiw_qp_flushed(sqp)) {
			softiw_wq_report(sqp, &sqp->sq, wr->wr_id, wr->opcode,
					 0, IB_WC_WR_FLUSH_ERR, 0, false,
					 NULL);
			flushed = true;
			continue;
		}
		ret = sqp->state == IB_QPS_RTS || sqp->flush_pending ?
		      softiw_sq_add(sqp, wr) : -ENOTCONN;
		if (ret)
			break;
		queued = true;
	}
	if (ret)
		*bad_wr = wr;
	if (queued && sqp->cep)
		softiw_cep_kick(sqp->cep);
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (flushed)
		softiw_qp_notify(sqp);
	return ret;
}

static int softiw_rq_add(struct softiw_qp *sqp, const struct ib_recv_wr *wr)
{
	struct softiw_wqe *wqe = softiw_wq_slot(&sqp->rq);
	int ret;

	lockdep_assert_held(&sqp->lock);
	if (wr->num_sge < 0 || wr->num_sge > sqp->rq.max_sge)
		return -EINVAL;
	if (!wqe)
		return -ENOMEM;
	ret = softiw_wqe_fill(sqp, wqe, wr->sg_list, wr->num_sge,
			      IB_ACCESS_LOCAL_WRITE, U32_MAX);
	if (ret)
		return ret;
	wqe->wr_id = wr->wr_id;
	wqe->flags = 0;
	wqe->status = 0;
	sqp->rq.count++;
	return 0;
}

int softiw_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	bool flushed = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&sqp->lock, flags);
	for (; wr; wr = wr->next) {
		if (softiw_qp_flushed(sqp)) {
			softiw_wq_report(sqp, &sqp->rq, wr->wr_id, 0, 0,
					 IB_WC_WR_FLUSH_ERR, 0, false, NULL);
			flushed = true;
			continue;
		}
		ret = softiw_rq_add(sqp, wr);
		if (ret)
			break;
	}
	if (ret)
		*bad_wr = wr;
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (flushed)
		softiw_qp_notify(sqp);
	return ret;
}

