// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw transmit path: SEND work requests become DDP untagged
 * messages on queue 0 (MSN counted from 1, MO of each segment, L on the
 * last) with the RDMAP SEND header; RDMA WRITEs tagged messages to the
 * peer's STag; RDMA READs a Read Request on queue 1; the peer's Read
 * Requests tagged Read Responses. Each is cut into FPDUs of at most
 * MULPDU bytes of ULPDU, sealed with pad and CRC, and queued on the TCP
 * socket without ever blocking, up to SOFTIW_TX_BATCH FPDUs of one
 * message by one call (txbatch.c). Also the TERMINATE message.
 *
 * Runs in the endpoint's work under its mutex. A full socket stops the
 * transmitter with the rest of an FPDU pending; the socket's write space
 * callback queues the work again. A SEND or WRITE is done once its last
 * FPDU is queued on the socket, a READ once its response is placed (by
 * the receiver); send work requests complete in posting order.
 */
#include <asm/unaligned.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "cm.h"

/* Batches sent per run of the work before it lets others run. */
#define SOFTIW_TX_BUDGET	8
/* Shortest MULPDU used, whatever the MSS says. */
#define SOFTIW_MULPDU_MIN	64

/*
 * The longest ULPDU whose FPDU fits one TCP segment: the length field,
 * ULPDU and pad are a multiple of four and the CRC follows.
 */
static u16 softiw_tx_mulpdu(struct sock *sk)
{
	u32 mss = READ_ONCE(tcp_sk(sk)->mss_cache);
	u32 mulpdu;

	if (mss < SOFTIW_MULPDU_MIN + SOFTIW_MPA_LEN_SIZE + SOFTIW_MPA_CRC_SIZE)
		return SOFTIW_MULPDU_MIN;
	mulpdu = round_down(mss - SOFTIW_MPA_CRC_SIZE, SOFTIW_MPA_ALIGN) -
		 SOFTIW_MPA_LEN_SIZE;
	return min_t(u32, mulpdu, SOFTIW_MPA_ULPDU_MAX);
}

/**
 * softiw_tx_start() - prepare the transmitter of a new connection
 * @cep: the endpoint, MPA done, QP bound
 * @res: what MPA negotiated: IRD sizes the queue of Read Requests served,
 *	ORD bounds the READs sent
 *
 * The FPDU buffer comes with the first FPDU (softiw_tx_buf()): a
 * connection that sends nothing does not hold one.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 0 or -ENOMEM.
 */
int softiw_tx_start(struct softiw_cep *cep,
		    const struct kiwi_softiw_mpa_result *res)
{
	struct softiw_tx *tx = &cep->tx;
	unsigned long flags;

	lockdep_assert_held(&cep->lock);
	tx->mulpdu = softiw_tx_mulpdu(cep->sock->sk);
	tx->ird = min_t(u16, res->ird, SOFTIW_MAX_IRD_ORD);
	tx->ord = res->ord;
	if (tx->ird) {
		tx->irq = kiwi_should_fail() ? NULL :
			  kcalloc(tx->ird, sizeof(*tx->irq), GFP_KERNEL);
		if (!tx->irq)
			return -ENOMEM;
	}
	tx->msn = 1;
	tx->rreq_msn = 1;
	spin_lock_irqsave(&cep->qp->lock, flags);
	cep->qp->mulpdu = tx->mulpdu;
	cep->qp->ord = tx->ord;
	cep->qp->ird = tx->ird;
	spin_unlock_irqrestore(&cep->qp->lock, flags);
	return 0;
}

/**
 * softiw_tx_stop() - free the transmitter
 * @cep: the endpoint
 *
 * Context: process context.
 */
void softiw_tx_stop(struct softiw_cep *cep)
{
	softiw_tx_buf_free(&cep->tx);
	kfree(cep->tx.irq);
	cep->tx.irq = NULL;
	cep->tx.irq_count = 0;
}

/**
 * softiw_tx_read_request() - queue the answer to a peer's Read Request
 * @cep: the established endpoint
 * @req: the request, its source already validated
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 0, or -ENOSPC if IRD requests are queued already.
 */
int softiw_tx_read_request(struct softiw_cep *cep,
			   const struct softiw_rresp *req)
{
	struct softiw_tx *tx = &cep->tx;

	lockdep_assert_held(&cep->lock);
	if (tx->irq_count >= tx->ird)
		return -ENOSPC;
	tx->irq[(tx->irq_head + tx->irq_count) % tx->ird] = *req;
	tx->irq_count++;
	return 0;
}

/**
 * softiw_tx_read_done() - a READ's response is all placed
 * @cep: the established endpoint
 *
 * Frees its place among the ORD outstanding READs.
 *
 * Context: process context, the endpoint's mutex held.
 */
void softiw_tx_read_done(struct softiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (!WARN_ON_ONCE(!cep->tx.reads))
		cep->tx.reads--;
}

/* Another segment of the current message fits the batch. */
static bool softiw_tx_more(const struct softiw_tx *tx)
{
	return !tx->last && tx->nfpdu < SOFTIW_TX_BATCH;
}

/* Payload bytes of the next segment of a message of @len bytes. */
static u32 softiw_tx_room(const struct softiw_tx *tx, u32 len, u32 hlen)
{
	return min(len - tx->mo, tx->mulpdu - (hlen - SOFTIW_MPA_LEN_SIZE));
}

/* The RDMAP opcode of a SEND work request. */
static u8 softiw_tx_send_opcode(const struct softiw_wqe *wqe)
{
	bool se = wqe->flags & IB_SEND_SOLICITED;

	if (wqe->opcode == IB_WR_SEND_WITH_INV)
		return se ? SOFTIW_RDMAP_SEND_SE_INV : SOFTIW_RDMAP_SEND_INV;
	return se ? SOFTIW_RDMAP_SEND_SE : SOFTIW_RDMAP_SEND;
}

/* Are all of @wqe's buffers named by address (none by STag)? */
static bool softiw_wqe_by_addr(const struct softiw_wqe *wqe)
{
	u32 i;

	for (i = 0; i < wqe->nbuf; i++)
		if (wqe->buf[i].stag)
			return false;
	return true;
}

/*
 * The @n payload bytes of a SEND's or WRITE's segment whose header of
 * @hlen bytes is at softiw_tx_slot(): sent from the request's buffers, or
 * copied out of a fast-registration MR, checked now.
 */
static int softiw_tx_payload(struct softiw_cep *cep,
			     const struct softiw_wqe *wqe, int hlen, u32 n,
			     bool last)
{
	struct softiw_tx *tx = &cep->tx;
	int ret;

	if (softiw_wqe_by_addr(wqe)) {
		softiw_tx_seal_bufs(tx, hlen, wqe->buf, wqe->nbuf, tx->mo, n,
				    cep->crc, last);
		tx->mo += n;
		return 0;
	}
	ret = softiw_bufs_copy_out(cep->qp->qp.pd, wqe->buf, tx->mo,
				   softiw_tx_slot(tx) + hlen, n);
	if (ret)
		return ret;
	tx->mo += n;
	softiw_tx_seal(tx, cep->crc, last);
	return 0;
}

/*
 * The next segment of a SEND: untagged, queue 0; with Invalidate, every
 * segment names the STag to invalidate.
 */
static int softiw_tx_seg_send(struct softiw_cep *cep,
			      const struct softiw_wqe *wqe)
{
	struct softiw_tx *tx = &cep->tx;
	u32 n = softiw_tx_room(tx, wqe->len, SOFTIW_UNTAGGED_HLEN);
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE + n,
		.opcode = softiw_tx_send_opcode(wqe),
		.stag = wqe->opcode == IB_WR_SEND_WITH_INV ? wqe->rkey : 0,
		.last = tx->mo + n == wqe->len,
		.qn = SOFTIW_DDP_QN_SEND,
		.msn = tx->msn,
		.mo = tx->mo,
	};
	int size = kiwi_softiw_fpdu_size(tx->mulpdu);
	u8 *slot = softiw_tx_slot(tx);
	int hlen = kiwi_softiw_fpdu_put_hdr(&h, slot, size);

	return softiw_tx_payload(cep, wqe, hlen, n, h.last);
}

/* The next segment of an RDMA WRITE: tagged, to the peer's STag. */
static int softiw_tx_seg_write(struct softiw_cep *cep,
			       const struct softiw_wqe *wqe)
{
	struct softiw_tx *tx = &cep->tx;
	u32 n = softiw_tx_room(tx, wqe->len, SOFTIW_TAGGED_HLEN);
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_TAGGED_HLEN - SOFTIW_MPA_LEN_SIZE + n,
		.opcode = SOFTIW_RDMAP_WRITE,
		.tagged = true,
		.last = tx->mo + n == wqe->len,
		.stag = wqe->rkey,
		.to = wqe->remote_addr + tx->mo,
	};
	int size = kiwi_softiw_fpdu_size(tx->mulpdu);
	u8 *slot = softiw_tx_slot(tx);
	int hlen = kiwi_softiw_fpdu_put_hdr(&h, slot, size);

	return softiw_tx_payload(cep, wqe, hlen, n, h.last);
}

/*
 * A SEND or WRITE names memory in a fast-registration MR that it may not
 * read (invalid, of another PD, or too short): the request fails with a
 * local protection error, and the peer learns of a local catastrophic
 * error by a TERMINATE; the connection ends.
 */
static int softiw_tx_local_fault(struct softiw_cep *cep,
				 struct softiw_wqe *wqe)
{
	softiw_sq_fail(cep->qp, wqe, IB_WC_LOC_PROT_ERR);
	cep->rx.hdr_ok = false;
	cep->rx.cause = (struct kiwi_softiw_term_cause) {
		.layer = SOFTIW_TERM_LAYER_RDMAP,
		.etype = SOFTIW_TERM_RDMAP_CATASTROPHIC,
	};
	return -EACCES;
}

/*
 * The next segments of a SEND or RDMA WRITE, as many as the batch holds.
 * A buffer found unreadable after the first segment ends the batch
 * there: the segments before it go, the next batch reports it.
 */
static int softiw_tx_frame_data(struct softiw_cep *cep,
				struct softiw_wqe *wqe)
{
	int ret;

	do {
		if (wqe->opcode == IB_WR_RDMA_WRITE)
			ret = softiw_tx_seg_write(cep, wqe);
		else
			ret = softiw_tx_seg_send(cep, wqe);
	} while (!ret && softiw_tx_more(&cep->tx));
	if (ret && !cep->tx.nfpdu)
		return softiw_tx_local_fault(cep, wqe);
	return 0;
}

/* The DDP header of an RDMA Read Request: untagged, queue 1, one segment. */
static struct kiwi_softiw_ddp_hdr softiw_read_req_hdr(u32 msn)
{
	return (struct kiwi_softiw_ddp_hdr) {
		.ulpdu_len = SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE +
			     sizeof(struct softiw_rdmap_read_req),
		.opcode = SOFTIW_RDMAP_READ_REQ,
		.last = true,
		.qn = SOFTIW_DDP_QN_READ_REQ,
		.msn = msn,
	};
}

/* The body of an RDMA Read Request for @r (its msn goes in the header). */
static void softiw_read_req_body(struct softiw_rdmap_read_req *b,
				 const struct softiw_rresp *r)
{
	put_unaligned_be32(r->sink_stag, &b->sink_stag);
	put_unaligned_be64(r->sink_to, &b->sink_to);
	put_unaligned_be32(r->len, &b->size);
	put_unaligned_be32(r->src_stag, &b->src_stag);
	put_unaligned_be64(r->src_to, &b->src_to);
}

static void softiw_tx_frame_read(struct softiw_cep *cep,
				 const struct softiw_wqe *wqe)
{
	struct softiw_tx *tx = &cep->tx;
	struct kiwi_softiw_ddp_hdr h = softiw_read_req_hdr(tx->rreq_msn);
	struct softiw_rresp r = {
		.sink_stag = wqe->sink_stag,
		.sink_to = wqe->sink_to,
		.src_stag = wqe->rkey,
		.src_to = wqe->remote_addr,
		.len = wqe->len,
	};
	int size = kiwi_softiw_fpdu_size(tx->mulpdu);
	u8 *slot = softiw_tx_slot(tx);
	int hlen = kiwi_softiw_fpdu_put_hdr(&h, slot, size);

	softiw_read_req_body((void *)(slot + hlen), &r);
	softiw_tx_seal(tx, cep->crc, true);
}

/*
 * Report a failed remote read of this end's memory with a TERMINATE
 * that names the Read Request @r answers: its DDP header and body are
 * put back together where the receiver keeps a refused segment's, for
 * softiw_tx_frame_term() to copy. The connection ends: the receiver's
 * state is not needed any more.
 */
static int softiw_tx_refuse(struct softiw_cep *cep,
			    const struct softiw_rresp *r, int err)
{
	struct softiw_rx *rx = &cep->rx;

	rx->h = softiw_read_req_hdr(r->msn);
	rx->hdr_ok = kiwi_softiw_fpdu_put_hdr(&rx->h, rx->hdr,
					      sizeof(rx->hdr)) > 0;
	softiw_read_req_body((void *)rx->term, r);
	rx->term_len = sizeof(struct softiw_rdmap_read_req);
	rx->cause = (struct kiwi_softiw_term_cause) {
		.layer = SOFTIW_TERM_LAYER_RDMAP,
		.etype = SOFTIW_TERM_RDMAP_PROTECTION,
		.ecode = softiw_rdmap_access_ecode(err),
	};
	return -EPROTO;
}

/*
 * The next segment of the oldest Read Response: tagged, to the
 * requester's sink. The source is validated again for every segment:
 * the ULP may have deregistered it since the request arrived.
 */
static int softiw_tx_seg_rresp(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	const struct softiw_rresp *r = &tx->irq[tx->irq_head];
	u32 n = softiw_tx_room(tx, r->len, SOFTIW_TAGGED_HLEN);
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_TAGGED_HLEN - SOFTIW_MPA_LEN_SIZE + n,
		.opcode = SOFTIW_RDMAP_READ_RESP,
		.tagged = true,
		.last = tx->mo + n == r->len,
		.stag = r->sink_stag,
		.to = r->sink_to + tx->mo,
	};
	int size = kiwi_softiw_fpdu_size(tx->mulpdu);
	u8 *slot = softiw_tx_slot(tx);
	int hlen = kiwi_softiw_fpdu_put_hdr(&h, slot, size);
	struct softiw_mr *smr;
	u64 off;

	if (n) {
		smr = softiw_mr_get(cep->qp->qp.pd, r->src_stag,
				    r->src_to + tx->mo, n,
				    IB_ACCESS_REMOTE_READ, &off);
		/* the batch so far goes first; the next one reports it */
		if (IS_ERR(smr) && tx->nfpdu)
			return -EAGAIN;
		if (IS_ERR(smr))
			return softiw_tx_refuse(cep, r, PTR_ERR(smr));
		softiw_mr_copy_from(smr, off, slot + hlen, n);
		softiw_mr_put(smr);
	}
	tx->mo += n;
	softiw_tx_seal(tx, cep->crc, h.last);
	return 0;
}

/*
 * The next segments of the oldest Read Response, as many as the batch
 * holds. A source found gone after the first segment ends the batch
 * there: the segments before it go, the next batch reports it.
 */
static int softiw_tx_frame_rresp(struct softiw_cep *cep)
{
	int ret;

	do {
		ret = softiw_tx_seg_rresp(cep);
	} while (!ret && softiw_tx_more(&cep->tx));
	return ret == -EAGAIN ? 0 : ret;
}

/*
 * A LOCAL_INV reached the head of what is to be sent: it takes effect
 * now, after every older work request was sent. Its STag was valid when
 * posted; one invalidated or deregistered since is gone all the same.
 */
static int softiw_tx_local_inv(struct softiw_cep *cep)
{
	struct softiw_wqe *wqe = cep->tx.wqe;
	int ret;

	softiw_mr_invalidate(cep->qp->qp.pd, wqe->rkey, false);
	cep->tx.wqe = NULL;
	ret = softiw_sq_sent(cep->qp, wqe);
	return ret == -ECANCELED ? 0 : ret;
}

/*
 * A REG_MR reached the head: the MR gets its pages, key and rights now,
 * after every older work request was sent, before any younger one.
 */
static int softiw_tx_fast_reg(struct softiw_cep *cep)
{
	struct softiw_wqe *wqe = cep->tx.wqe;
	int ret;

	softiw_mr_fast_reg(wqe->mr, wqe->rkey, wqe->access);
	cep->tx.wqe = NULL;
	ret = softiw_sq_sent(cep->qp, wqe);
	return ret == -ECANCELED ? 0 : ret;
}

/*
 * The oldest send work request not sent yet, or NULL; beyond ORD a READ,
 * and all after it, waits; so does a fenced request (IB_SEND_FENCE, RFC
 * 5040's Read Fence) while an older READ awaits its response.
 */
static struct softiw_wqe *softiw_tx_next_wqe(const struct softiw_tx *tx,
					     struct softiw_qp *sqp)
{
	struct softiw_wqe *wqe = softiw_sq_next(sqp);

	if (wqe && wqe->opcode == IB_WR_RDMA_READ && tx->reads >= tx->ord)
		return NULL;
	if (wqe && (wqe->flags & IB_SEND_FENCE) && tx->reads)
		return NULL;
	return wqe;
}

/* A work request starts: count it. */
static void softiw_tx_count(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
		softiw_stat_inc(SOFTIW_STAT_SEND);
		break;
	case IB_WR_SEND_WITH_INV:
		softiw_stat_inc(SOFTIW_STAT_SEND_INV);
		break;
	case IB_WR_RDMA_WRITE:
		softiw_stat_inc(SOFTIW_STAT_WRITE);
		break;
	case IB_WR_RDMA_READ:
		softiw_stat_inc(SOFTIW_STAT_READ);
		break;
	case IB_WR_LOCAL_INV:
		softiw_stat_inc(SOFTIW_STAT_LOCAL_INV);
		break;
	case IB_WR_REG_MR:
		softiw_stat_inc(SOFTIW_STAT_REG_MR);
		break;
	default:
		break;
	}
}

/*
 * Frame the next segment of the current message, or start one.
 * Return: 0, -ENODATA if there is nothing to send, -EPROTO for a Read
 * Response whose source is gone, -EACCES for a SEND or WRITE whose source
 * may not be read, -ENOMEM if there is no FPDU buffer.
 */
static int softiw_tx_frame(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	struct softiw_qp *sqp = cep->qp;
	enum ib_qp_state state = softiw_qp_state(sqp);
	struct softiw_wqe *wqe;

	if (state == IB_QPS_ERR || state == IB_QPS_SQE)
		return -ENODATA;
	if (!tx->wqe && !tx->rresp) {
		wqe = softiw_tx_next_wqe(tx, sqp);
		/* Between messages the two take turns when both wait. */
		tx->rresp = tx->irq_count && (!wqe || !tx->rresp_last);
		if (tx->rresp)
			wqe = NULL;
		else if (!wqe)
			return -ENODATA;
		tx->rresp_last = tx->rresp;
		tx->wqe = wqe;
		if (wqe)
			softiw_tx_count(wqe->opcode);
	}
	if (softiw_tx_buf(tx))
		return -ENOMEM;
	if (tx->rresp)
		return softiw_tx_frame_rresp(cep);
	if (tx->wqe->opcode == IB_WR_LOCAL_INV)
		return softiw_tx_local_inv(cep);
	if (tx->wqe->opcode == IB_WR_REG_MR)
		return softiw_tx_fast_reg(cep);
	if (tx->wqe->opcode != IB_WR_RDMA_READ)
		return softiw_tx_frame_data(cep, tx->wqe);
	softiw_tx_frame_read(cep, tx->wqe);
	return 0;
}

/* The pending FPDU is queued: count it, finish its message if last. */
static int softiw_tx_done(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	struct softiw_qp *sqp = cep->qp;
	struct softiw_wqe *wqe = tx->wqe;
	int ret;

	softiw_tx_reset(tx);
	if (tx->term)
		return 0;
	WRITE_ONCE(sqp->tx_fpdus, sqp->tx_fpdus + tx->nfpdu);
	tx->nfpdu = 0;
	if (!tx->last)
		return 0;
	tx->mo = 0;
	if (tx->rresp) {
		tx->rresp = false;
		tx->irq_head = (tx->irq_head + 1) % tx->ird;
		tx->irq_count--;
		return 0;
	}
	tx->wqe = NULL;
	if (wqe->opcode == IB_WR_SEND ||
	    wqe->opcode == IB_WR_SEND_WITH_INV)
		tx->msn++;
	if (wqe->opcode == IB_WR_RDMA_READ) {
		tx->rreq_msn++;
		tx->reads++;
	}
	ret = softiw_sq_sent(sqp, wqe);
	return ret == -ECANCELED ? 0 : ret;
}

/**
 * softiw_tx_step() - send what the queues hold, as far as TCP takes it
 * @cep: the established endpoint
 *
 * Messages go whole, one after the other: the oldest Read Response, or
 * the oldest send work request not sent yet, unless it is a READ and ORD
 * READs are outstanding (then it and everything after it waits for a
 * response). When both wait they take turns, so that a peer keeping the
 * IRD full cannot hold the local sends back, nor the sends its READs.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: SOFTIW_DP_IDLE when there is nothing to send or the socket is
 * full (its write space callback runs the work again), SOFTIW_DP_BUSY
 * when the budget is used up, -EOVERFLOW if a completion did not fit its
 * CQ, -EPROTO if memory a Read Response reads from is no longer
 * registered (cep->rx.cause says why), -EACCES if a SEND's or WRITE's
 * source in a fast-registration MR may not be read (the same; the request
 * failed with IB_WC_LOC_PROT_ERR), -ENOMEM if the first FPDU found no
 * buffer (the stream is reset), or the socket's error.
 */
int softiw_tx_step(struct softiw_cep *cep)
{
	int budget, ret;

	lockdep_assert_held(&cep->lock);
	for (budget = SOFTIW_TX_BUDGET; budget; budget--) {
		if (cep->tx.len) {
			ret = softiw_tx_push(cep);
			if (ret == -EAGAIN)
				return SOFTIW_DP_IDLE;
			if (ret)
				return ret;
			ret = softiw_tx_done(cep);
			if (ret)
				return ret;
		}
		ret = softiw_tx_frame(cep);
		if (ret == -ENODATA)
			return SOFTIW_DP_IDLE;
		if (ret)
			return ret;
	}
	return SOFTIW_DP_BUSY;
}

/* Which headers of the faulty segment a TERMINATE copies (as siw does). */
static u32 softiw_term_hdrs(const struct softiw_rx *rx)
{
	const struct kiwi_softiw_term_cause *c = &rx->cause;

	if (!rx->hdr_ok)
		return 0;
	switch (c->layer) {
	case SOFTIW_TERM_LAYER_DDP:
		if (c->ecode == (rx->h.tagged ? SOFTIW_TERM_DDP_T_VERSION :
						SOFTIW_TERM_DDP_U_VERSION))
			return 0;
		return SOFTIW_TERM_LEN_VALID | SOFTIW_TERM_DDP_HDR;
	case SOFTIW_TERM_LAYER_RDMAP:
		if (c->etype == SOFTIW_TERM_RDMAP_CATASTROPHIC ||
		    c->ecode == SOFTIW_TERM_RDMAP_VERSION ||
		    c->ecode == SOFTIW_TERM_RDMAP_OPCODE)
			return 0;
		/* A Read Request refused for its source: its body too. */
		if (c->etype == SOFTIW_TERM_RDMAP_PROTECTION &&
		    rx->h.opcode == SOFTIW_RDMAP_READ_REQ &&
		    rx->term_len >= sizeof(struct softiw_rdmap_read_req))
			return SOFTIW_TERM_LEN_VALID | SOFTIW_TERM_DDP_HDR |
			       SOFTIW_TERM_RDMAP_HDR;
		return SOFTIW_TERM_LEN_VALID | SOFTIW_TERM_DDP_HDR;
	default:
		return 0;
	}
}

/* Frame a TERMINATE for the receiver's cause into the FPDU buffer. */
static void softiw_tx_frame_term(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	u32 hdrs = softiw_term_hdrs(rx);
	u32 copy = 0, body = sizeof(struct softiw_rdmap_term);
	u32 rdmap = 0;
	struct kiwi_softiw_ddp_hdr h = {
		.opcode = SOFTIW_RDMAP_TERMINATE,
		.last = true,
		.qn = SOFTIW_DDP_QN_TERMINATE,
		.msn = 1,
	};
	int size = kiwi_softiw_fpdu_size(cep->tx.mulpdu);
	__be32 ctrl;
	u8 *p;

	if (hdrs)
		copy = kiwi_softiw_ddp_hdr_size(rx->h.opcode);
	if (hdrs & SOFTIW_TERM_RDMAP_HDR)
		rdmap = sizeof(struct softiw_rdmap_read_req);
	h.ulpdu_len = SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE + body +
		      (copy ? SOFTIW_MPA_LEN_SIZE + copy : 0) + rdmap;
	/* The shortest MULPDU leaves no room for the Read Request's body. */
	if (h.ulpdu_len > cep->tx.mulpdu) {
		h.ulpdu_len -= rdmap;
		hdrs &= ~SOFTIW_TERM_RDMAP_HDR;
		rdmap = 0;
	}
	ctrl = softiw_term_ctrl(&rx->cause, hdrs);
	softiw_tx_reset(&cep->tx);
	p = cep->tx.buf + kiwi_softiw_fpdu_put_hdr(&h, cep->tx.buf, size);
	memcpy(p, &ctrl, sizeof(ctrl));
	p += sizeof(ctrl);
	if (copy) {
		/* The DDP segment length, then the segment's DDP header. */
		put_unaligned_be16(rx->h.ulpdu_len - copy, p);
		memcpy(p + SOFTIW_MPA_LEN_SIZE, rx->hdr + SOFTIW_MPA_LEN_SIZE,
		       copy);
		/* Then the RDMAP header: a Read Request's body. */
		memcpy(p + SOFTIW_MPA_LEN_SIZE + copy, rx->term, rdmap);
	}
	softiw_tx_seal(&cep->tx, cep->crc, true);
	cep->tx.nfpdu = 0;
	cep->tx.term = true;
}

/**
 * softiw_tx_terminate() - send a TERMINATE for the receiver's cause
 * @cep: the established endpoint; cep->rx.cause says why
 *
 * An FPDU partly queued is finished first, so that the TERMINATE starts
 * on an FPDU boundary; one not started is dropped. Never blocks: if the
 * socket has no room, the TERMINATE is not sent.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 0 if the TERMINATE is queued on the socket, else a negative
 * errno (-EAGAIN for a full socket).
 */
int softiw_tx_terminate(struct softiw_cep *cep)
{
	int ret;

	lockdep_assert_held(&cep->lock);
	if (cep->tx.len && cep->tx.sent) {
		ret = softiw_tx_push(cep);
		if (ret)
			return ret;
	}
	ret = softiw_tx_buf(&cep->tx);
	if (ret)
		return ret;
	softiw_tx_frame_term(cep);
	return softiw_tx_push(cep);
}
