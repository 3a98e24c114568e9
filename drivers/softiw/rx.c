// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw receive path: the byte stream of an established connection
 * parsed into FPDUs, however TCP cuts it, from the socket's skbs as
 * tcp_read_sock() offers them. Untagged SEND segments are placed
 * straight from the skbs into the oldest posted RECV at their
 * message offset; a RECV completes with the message's length when its
 * last segment is in and its CRC (when negotiated) checked. Tagged RDMA
 * WRITE segments are placed into the MR their STag names, at their
 * tagged offset, once STag, rights and bounds are checked; Read
 * Responses into the oldest READ awaiting one. Read Requests are checked
 * and queued for the transmitter to answer, at most IRD at a time.
 *
 * Nothing the peer sends is buffered beyond one header, one trailer and
 * the first bytes of a TERMINATE body (or a Read Request's), and nothing
 * is written outside a posted RECV, a READ's buffers, or an MR that
 * grants remote write: a message that does not fit, a SEND without a
 * RECV, a bad MSN or MO, an STag, offset or right that does not check
 * out, a bad CRC, version or opcode all stop the receiver with the cause
 * for a TERMINATE (RFC 5040 section 7, RFC 5041 section 7).
 *
 * Runs in the endpoint's work under its mutex, the socket locked.
 */
#include <asm/unaligned.h>
#include <linux/crc32.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"

/*
 * Bytes received per run of the work before it lets others run. Every
 * FPDU costs at least SOFTIW_RX_FPDU_COST, so that a peer streaming
 * empty segments cannot keep the work (and the endpoint's mutex) forever.
 */
#define SOFTIW_RX_BUDGET	(256 * 1024)
#define SOFTIW_RX_FPDU_COST	1024

/**
 * softiw_rx_start() - prepare the receiver of a new connection
 * @cep: the endpoint, MPA done
 *
 * Context: process context, the endpoint's mutex held.
 */
void softiw_rx_start(struct softiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	memset(&cep->rx, 0, sizeof(cep->rx));
	cep->rx.msn = 1;
	cep->rx.rreq_msn = 1;
}

static int softiw_rx_refuse(struct softiw_rx *rx, u8 layer, u8 etype,
			    u8 ecode)
{
	rx->cause.layer = layer;
	rx->cause.etype = etype;
	rx->cause.ecode = ecode;
	return -EPROTO;
}

static int softiw_rx_untagged_error(struct softiw_rx *rx, u8 ecode)
{
	return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_DDP,
				SOFTIW_TERM_DDP_UNTAGGED, ecode);
}

static int softiw_rx_tagged_error(struct softiw_rx *rx, u8 ecode)
{
	return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_DDP,
				SOFTIW_TERM_DDP_TAGGED, ecode);
}

/*
 * Take up to @len bytes of the skb tcp_read_sock() offers into @vec (of
 * @nvec entries, at least @len bytes). Return: the bytes taken, or
 * -EAGAIN once the skb is used up.
 */
static int softiw_rx_recv(struct softiw_cep *cep, struct kvec *vec,
			  size_t nvec, size_t len)
{
	struct softiw_rx *rx = &cep->rx;
	u32 n = min_t(size_t, len, rx->feed_len), done = 0, part;
	int ret;

	if (!n)
		return -EAGAIN;
	for (; done < n && nvec; vec++, nvec--) {
		part = min_t(size_t, n - done, vec->iov_len);
		ret = skb_copy_bits(rx->feed, rx->feed_off + done,
				    vec->iov_base, part);
		if (ret)
			return ret;
		done += part;
	}
	rx->feed_off += done;
	rx->feed_len -= done;
	return done;
}

static int softiw_rx_recv_buf(struct softiw_cep *cep, void *buf, size_t len)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };

	return softiw_rx_recv(cep, &vec, 1, len);
}

/* Read the length field and DDP/RDMAP header; check them. */
static int softiw_rx_hdr(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	size_t need;
	int hlen, ret;

	for (;;) {
		ret = kiwi_softiw_fpdu_get_hdr(rx->hdr, rx->got, &rx->h,
					       &rx->cause);
		if (!ret)
			break;
		if (ret != -ENODATA) {
			/* A TERMINATE copies a header that was read whole. */
			hlen = kiwi_softiw_ddp_hdr_size(rx->h.opcode);
			rx->hdr_ok = hlen > 0 &&
				     rx->got >= SOFTIW_MPA_LEN_SIZE + hlen;
			return -EPROTO;
		}
		need = rx->got < 4 ? 4 : SOFTIW_MPA_LEN_SIZE +
			kiwi_softiw_ddp_hdr_size(rx->h.opcode);
		ret = softiw_rx_recv_buf(cep, rx->hdr + rx->got,
					 need - rx->got);
		if (ret < 0)
			return ret;
		rx->got += ret;
	}
	need = SOFTIW_MPA_LEN_SIZE + kiwi_softiw_ddp_hdr_size(rx->h.opcode);
	rx->hdr_ok = true;
	if (cep->crc)
		rx->crc = __crc32c_le(~0U, rx->hdr, need);
	rx->left = rx->h.ulpdu_len - (need - SOFTIW_MPA_LEN_SIZE);
	rx->trailer_len = softiw_fpdu_pad(rx->h.ulpdu_len) +
			  SOFTIW_MPA_CRC_SIZE;
	rx->got = 0;
	return 0;
}

/* A SEND segment: it must continue the current message, or start one. */
static int softiw_rx_begin_send(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	struct softiw_qp *sqp = cep->qp;
	int ret;

	if (rx->h.msn != rx->msn)
		return softiw_rx_untagged_error(rx, SOFTIW_TERM_DDP_U_MSN_RANGE);
	if (!rx->wqe) {
		rx->wqe = softiw_wq_peek(sqp, &sqp->rq);
		/* In ERROR the ULP ended the connection: not the peer's fault. */
		if (!rx->wqe && softiw_qp_state(sqp) == IB_QPS_ERR)
			return -ECONNABORTED;
		if (!rx->wqe)
			return softiw_rx_untagged_error(rx,
						SOFTIW_TERM_DDP_U_NO_BUF);
		rx->mo = 0;
	}
	if (rx->h.mo != rx->mo)
		return softiw_rx_untagged_error(rx, SOFTIW_TERM_DDP_U_INV_MO);
	if (rx->left > rx->wqe->len - rx->mo) {
		/* The RECV learns why; the TERMINATE tells the peer. */
		ret = softiw_wq_complete(sqp, &sqp->rq, IB_WC_LOC_LEN_ERR, 0,
					 false, NULL);
		rx->wqe = NULL;
		if (ret == -EOVERFLOW)
			return ret;
		return softiw_rx_untagged_error(rx, SOFTIW_TERM_DDP_U_TOO_LONG);
	}
	return 0;
}

/* Does the QP let its peer make remote accesses of kind @access? */
static bool softiw_rx_qp_allows(struct softiw_cep *cep, u32 access)
{
	return (READ_ONCE(cep->qp->access) & access) == access;
}

/*
 * The QP's rights forbid the access whatever the STag: RDMAP, remote
 * protection error, access rights violation (RFC 5040 section 4.8).
 */
static int softiw_rx_qp_refuse(struct softiw_rx *rx)
{
	return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_RDMAP,
				SOFTIW_TERM_RDMAP_PROTECTION,
				SOFTIW_TERM_RDMAP_ACCESS);
}

/*
 * An RDMA WRITE segment: the QP must allow remote writes, its STag must
 * name an MR of this device that
 * grants remote write, and the segment must fit it. Zero-length segments
 * are checked too (a peer-to-peer RTR hook would claim its zero-length
 * WRITE before this).
 */
static int softiw_rx_begin_write(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	struct softiw_mr *smr;
	u64 off;

	if (!softiw_rx_qp_allows(cep, IB_ACCESS_REMOTE_WRITE))
		return softiw_rx_qp_refuse(rx);
	smr = softiw_mr_get(cep->qp->qp.pd, rx->h.stag, rx->h.to,
			    rx->left, IB_ACCESS_REMOTE_WRITE, &off);
	if (IS_ERR(smr))
		return softiw_rx_tagged_error(rx,
				softiw_ddp_access_ecode(PTR_ERR(smr)));
	softiw_mr_put(smr);
	return 0;
}

/*
 * A Read Response segment: it answers the oldest READ still waiting, to
 * the sink STag that READ named, at the next offset of its buffer.
 */
static int softiw_rx_begin_rresp(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	struct softiw_qp *sqp = cep->qp;
	struct softiw_wqe *wqe = softiw_sq_read(sqp);

	if (!wqe && softiw_qp_state(sqp) == IB_QPS_ERR)
		return -ECONNABORTED;
	/* Nothing asked for it: not a buffer error but a broken peer. */
	if (!wqe)
		return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_DDP,
					SOFTIW_TERM_DDP_CATASTROPHIC,
					SOFTIW_TERM_DDP_C_LOCAL);
	if (rx->h.stag != wqe->sink_stag)
		return softiw_rx_tagged_error(rx, SOFTIW_TERM_DDP_T_INV_STAG);
	if (rx->h.to != wqe->sink_to + rx->rmo ||
	    rx->left > wqe->len - rx->rmo ||
	    (rx->h.last && rx->rmo + rx->left != wqe->len))
		return softiw_rx_tagged_error(rx, SOFTIW_TERM_DDP_T_BOUNDS);
	rx->rwqe = wqe;
	return 0;
}

/* What to do with the segment whose header just arrived. */
static int softiw_rx_begin(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;

	switch (rx->h.opcode) {
	case SOFTIW_RDMAP_SEND:
	case SOFTIW_RDMAP_SEND_SE:
	case SOFTIW_RDMAP_SEND_INV:
	case SOFTIW_RDMAP_SEND_SE_INV:
		return softiw_rx_begin_send(cep);
	case SOFTIW_RDMAP_TERMINATE:
		/* The only message of queue 2: one with another MSN is bogus. */
		if (rx->h.msn != 1)
			return -ECONNRESET;
		rx->term_len = 0;
		return 0;
	case SOFTIW_RDMAP_READ_REQ:
		if (rx->h.msn != rx->rreq_msn)
			return softiw_rx_untagged_error(rx,
						SOFTIW_TERM_DDP_U_MSN_RANGE);
		rx->term_len = 0;
		return 0;
	case SOFTIW_RDMAP_WRITE:
		return softiw_rx_begin_write(cep);
	default:
		return softiw_rx_begin_rresp(cep);
	}
}

/*
 * The kvecs of up to *@len bytes of @wqe's buffers from @b on (@off
 * bytes into it), as far as a buffer named by STag. Return: their
 * number; *@len is set to their bytes.
 */
static size_t softiw_wqe_kvec(const struct softiw_wqe *wqe,
			      const struct softiw_buf *b, u32 off, u32 *len,
			      struct kvec *vec)
{
	const struct softiw_buf *end = wqe->buf + wqe->nbuf;
	u32 left = *len, part;
	size_t n = 0;

	for (; left && b < end && !b->stag; b++, off = 0) {
		part = min(left, b->len - off);
		vec[n].iov_base = b->addr + off;
		vec[n++].iov_len = part;
		left -= part;
	}
	*len -= left;
	return n;
}

/* Add @len received bytes at @vec to the running CRC. */
static u32 softiw_rx_crc(u32 crc, const struct kvec *vec, size_t len)
{
	size_t part;

	for (; len; vec++) {
		part = min(len, vec->iov_len);
		crc = __crc32c_le(crc, vec->iov_base, part);
		len -= part;
	}
	return crc;
}

/* Receive @want bytes into @vec, adding them to the CRC and the budget. */
static int softiw_rx_take(struct softiw_cep *cep, struct kvec *vec,
			  size_t nvec, u32 want, u32 *budget)
{
	struct softiw_rx *rx = &cep->rx;
	int ret;

	ret = softiw_rx_recv(cep, vec, nvec, want);
	if (ret < 0)
		return ret;
	if (cep->crc)
		rx->crc = softiw_rx_crc(rx->crc, vec, ret);
	rx->left -= ret;
	*budget -= min_t(u32, *budget, ret);
	return ret;
}

/*
 * The body of a TERMINATE or Read Request: its first SOFTIW_TERM_KEEP
 * bytes are kept, the rest (of a TERMINATE) discarded.
 */
static int softiw_rx_body(struct softiw_cep *cep, u32 want, u32 *budget)
{
	struct softiw_rx *rx = &cep->rx;
	u8 scratch[64];
	struct kvec vec = { .iov_base = scratch, .iov_len = sizeof(scratch) };
	int ret;

	if (rx->term_len < sizeof(rx->term)) {
		vec.iov_base = rx->term + rx->term_len;
		vec.iov_len = sizeof(rx->term) - rx->term_len;
	}
	vec.iov_len = min_t(u32, want, vec.iov_len);
	ret = softiw_rx_take(cep, &vec, 1, vec.iov_len, budget);
	if (ret > 0 && vec.iov_base != scratch)
		rx->term_len += ret;
	return ret;
}

/*
 * Receive up to @want bytes into @smr from offset @mo on, as far as its
 * contiguous chunk goes; drops the reference softiw_mr_get() took.
 */
static int softiw_rx_take_mr(struct softiw_cep *cep, struct softiw_mr *smr,
			     u64 mo, u32 want, u32 *budget)
{
	struct softiw_mr_chunk chunk;
	struct kvec vec;
	int ret;

	softiw_mr_map(smr, mo, want, &chunk);
	vec.iov_base = chunk.addr;
	vec.iov_len = chunk.len;
	ret = softiw_rx_take(cep, &vec, 1, chunk.len, budget);
	softiw_mr_unmap(&chunk);
	softiw_mr_put(smr);
	return ret;
}

/*
 * WRITE payload (or a Read Response's, for a fast-registered sink), into
 * the MR checked again for every piece: as much as fits the contiguous
 * chunk of the MR the next byte goes to.
 */
static int softiw_rx_place(struct softiw_cep *cep, u32 want, u32 *budget)
{
	struct softiw_rx *rx = &cep->rx;
	u32 off = rx->h.ulpdu_len - (SOFTIW_TAGGED_HLEN -
				     SOFTIW_MPA_LEN_SIZE) - rx->left;
	struct softiw_mr *smr;
	u64 mo;

	smr = softiw_mr_get(cep->qp->qp.pd, rx->h.stag,
			    rx->h.to + off, want, IB_ACCESS_REMOTE_WRITE,
			    &mo);
	if (IS_ERR(smr))
		return softiw_rx_tagged_error(rx,
				softiw_ddp_access_ecode(PTR_ERR(smr)));
	return softiw_rx_take_mr(cep, smr, mo, want, budget);
}

/*
 * A RECV's (@recv) or READ's buffer in a fast-registration MR that may
 * not be written (invalid, of another PD, without local write, or too
 * short): the request fails with a local protection error and the peer
 * hears of a local catastrophic error; the connection ends.
 */
static int softiw_rx_local_fault(struct softiw_cep *cep, bool recv)
{
	struct softiw_rx *rx = &cep->rx;
	struct softiw_qp *sqp = cep->qp;
	int ret = 0;

	if (recv) {
		ret = softiw_wq_complete(sqp, &sqp->rq, IB_WC_LOC_PROT_ERR, 0,
					 false, NULL);
		rx->wqe = NULL;
	} else {
		softiw_sq_fail(sqp, rx->rwqe, IB_WC_LOC_PROT_ERR);
	}
	if (ret == -EOVERFLOW)
		return ret;
	softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_DDP,
			 SOFTIW_TERM_DDP_CATASTROPHIC, SOFTIW_TERM_DDP_C_LOCAL);
	return -EACCES;
}

/*
 * Payload of a SEND or Read Response into the buffer of a fast-
 * registration MR at @b, @off bytes into it: the MR is checked for every
 * piece, and as much goes as fits the contiguous chunk of the MR.
 */
static int softiw_rx_into_stag(struct softiw_cep *cep,
			       const struct softiw_buf *b, u32 off, u32 want,
			       u32 *budget, bool recv)
{
	struct softiw_mr *smr;
	u64 mo;

	smr = softiw_mr_get(cep->qp->qp.pd, b->stag, b->to + off, want,
			    IB_ACCESS_LOCAL_WRITE, &mo);
	if (IS_ERR(smr))
		return softiw_rx_local_fault(cep, recv);
	return softiw_rx_take_mr(cep, smr, mo, want, budget);
}

/*
 * Payload of a SEND (@recv) or Read Response into the buffers of @wqe,
 * from message offset @mo: by kernel address, as far as a buffer named
 * by STag, or into that buffer.
 */
static int softiw_rx_into(struct softiw_cep *cep,
			  const struct softiw_wqe *wqe, u32 mo, u32 want,
			  u32 *budget, bool recv)
{
	const struct softiw_buf *b = wqe->buf;
	struct kvec vec[SOFTIW_MAX_SGE];
	size_t nvec;

	while (mo >= b->len) {
		mo -= b->len;
		b++;
	}
	if (b->stag)
		return softiw_rx_into_stag(cep, b, mo, min(want, b->len - mo),
					   budget, recv);
	nvec = softiw_wqe_kvec(wqe, b, mo, &want, vec);
	return softiw_rx_take(cep, vec, nvec, want, budget);
}

/* Read payload into where its segment belongs. */
static int softiw_rx_payload(struct softiw_cep *cep, u32 *budget)
{
	struct softiw_rx *rx = &cep->rx;
	u32 want = min(rx->left, *budget);
	int ret;

	switch (rx->h.opcode) {
	case SOFTIW_RDMAP_TERMINATE:
	case SOFTIW_RDMAP_READ_REQ:
		ret = softiw_rx_body(cep, want, budget);
		break;
	case SOFTIW_RDMAP_WRITE:
		ret = softiw_rx_place(cep, want, budget);
		break;
	case SOFTIW_RDMAP_READ_RESP:
		if (rx->rwqe->fr_sink)	/* by its STag, as a WRITE */
			ret = softiw_rx_place(cep, want, budget);
		else
			ret = softiw_rx_into(cep, rx->rwqe, rx->rmo, want,
					     budget, false);
		if (ret > 0)
			rx->rmo += ret;
		break;
	default:
		ret = softiw_rx_into(cep, rx->wqe, rx->mo, want, budget, true);
		if (ret > 0)
			rx->mo += ret;
		break;
	}
	return ret < 0 ? ret : 0;
}

/* A TERMINATE from the peer: keep its cause; the QP goes to ERROR. */
static int softiw_rx_terminated(struct softiw_cep *cep)
{
	struct softiw_qp *sqp = cep->qp;
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	sqp->term_rcvd = true;
	sqp->term_ctrl = get_unaligned_be32(cep->rx.term);
	if (sqp->state != IB_QPS_ERR)
		sqp->state = IB_QPS_SQE;
	spin_unlock_irqrestore(&sqp->lock, flags);
	return -ECONNRESET;
}

/*
 * The last segment of a SEND: its RECV completes. A SEND with Invalidate
 * first invalidates the STag it names, which must be one of this
 * device's MRs with a remote right.
 */
static int softiw_rx_send_done(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	struct softiw_qp *sqp = cep->qp;
	u8 op = rx->h.opcode;
	bool se = op == SOFTIW_RDMAP_SEND_SE || op == SOFTIW_RDMAP_SEND_SE_INV;
	bool inv = op == SOFTIW_RDMAP_SEND_INV ||
		   op == SOFTIW_RDMAP_SEND_SE_INV;
	int ret;

	if (inv && softiw_mr_invalidate(cep->qp->qp.pd, rx->h.stag, true))
		return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_RDMAP,
					SOFTIW_TERM_RDMAP_PROTECTION,
					SOFTIW_TERM_RDMAP_NO_INV);
	if (inv)
		softiw_stat_inc(SOFTIW_STAT_REMOTE_INV);
	rx->wqe = NULL;
	rx->msn++;
	ret = softiw_wq_complete(sqp, &sqp->rq, IB_WC_SUCCESS, rx->mo, se,
				 inv ? &rx->h.stag : NULL);
	return ret == -ECANCELED ? 0 : ret;
}

/* The last segment of a Read Response: its READ completes. */
static int softiw_rx_rresp_done(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	struct softiw_wqe *wqe = rx->rwqe;
	int ret;

	rx->rwqe = NULL;
	rx->rmo = 0;
	softiw_tx_read_done(cep);
	ret = softiw_sq_read_done(cep->qp, wqe);
	return ret == -ECANCELED ? 0 : ret;
}

/*
 * A Read Request: at most IRD are served at once, the QP must allow
 * remote reads, and its source must name an MR of this device that
 * grants remote read, and fit it.
 */
static int softiw_rx_read_request(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	const struct softiw_rdmap_read_req *b = (const void *)rx->term;
	struct softiw_rresp r = {
		.sink_stag = get_unaligned_be32(&b->sink_stag),
		.sink_to = get_unaligned_be64(&b->sink_to),
		.len = get_unaligned_be32(&b->size),
		.src_stag = get_unaligned_be32(&b->src_stag),
		.src_to = get_unaligned_be64(&b->src_to),
		.msn = rx->h.msn,
	};
	struct softiw_mr *smr;
	u64 off;

	rx->rreq_msn++;
	if (cep->tx.irq_count >= cep->tx.ird)
		return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_RDMAP,
					SOFTIW_TERM_RDMAP_OPERATION,
					SOFTIW_TERM_RDMAP_STREAM);
	if (!softiw_rx_qp_allows(cep, IB_ACCESS_REMOTE_READ))
		return softiw_rx_qp_refuse(rx);
	smr = softiw_mr_get(cep->qp->qp.pd, r.src_stag, r.src_to, r.len,
			    IB_ACCESS_REMOTE_READ, &off);
	if (IS_ERR(smr))
		return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_RDMAP,
					SOFTIW_TERM_RDMAP_PROTECTION,
				softiw_rdmap_access_ecode(PTR_ERR(smr)));
	softiw_mr_put(smr);
	return softiw_tx_read_request(cep, &r);
}

/* The whole FPDU is in and its CRC good: complete what it completes. */
static int softiw_rx_done(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	int ret = 0;

	rx->fpdus++;
	switch (rx->h.opcode) {
	case SOFTIW_RDMAP_TERMINATE:
		return softiw_rx_terminated(cep);
	case SOFTIW_RDMAP_READ_REQ:
		ret = softiw_rx_read_request(cep);
		break;
	case SOFTIW_RDMAP_WRITE:
		break;
	case SOFTIW_RDMAP_READ_RESP:
		if (rx->h.last)
			ret = softiw_rx_rresp_done(cep);
		break;
	default:
		if (rx->h.last)
			ret = softiw_rx_send_done(cep);
		break;
	}
	/* A refused segment's header stays for the TERMINATE to copy. */
	if (ret != -EPROTO) {
		rx->stage = SOFTIW_RX_HDR;
		rx->got = 0;
		rx->hdr_ok = false;
	}
	return ret;
}

/* Read pad and CRC; check the CRC. */
static int softiw_rx_trailer(struct softiw_cep *cep)
{
	struct softiw_rx *rx = &cep->rx;
	u8 pad = rx->trailer_len - SOFTIW_MPA_CRC_SIZE;
	__le32 sum;
	int ret;

	ret = softiw_rx_recv_buf(cep, rx->trailer + rx->got,
				 rx->trailer_len - rx->got);
	if (ret < 0)
		return ret;
	rx->got += ret;
	if (rx->got < rx->trailer_len)
		return 0;
	if (cep->crc) {
		sum = cpu_to_le32(~__crc32c_le(rx->crc, rx->trailer, pad));
		if (memcmp(rx->trailer + pad, &sum, sizeof(sum)))
			return softiw_rx_refuse(rx, SOFTIW_TERM_LAYER_LLP,
						SOFTIW_TERM_LLP_MPA,
						SOFTIW_TERM_MPA_CRC);
	}
	return softiw_rx_done(cep);
}

static int softiw_rx_advance(struct softiw_cep *cep, u32 *budget)
{
	struct softiw_rx *rx = &cep->rx;
	int ret;

	switch (rx->stage) {
	case SOFTIW_RX_HDR:
		ret = softiw_rx_hdr(cep);
		if (ret)
			return ret;
		*budget -= min_t(u32, *budget, SOFTIW_RX_FPDU_COST);
		ret = softiw_rx_begin(cep);
		if (!ret)
			rx->stage = SOFTIW_RX_PAYLOAD;
		return ret;
	case SOFTIW_RX_PAYLOAD:
		if (rx->left)
			return softiw_rx_payload(cep, budget);
		rx->stage = SOFTIW_RX_TRAILER;
		return 0;
	default:
		return softiw_rx_trailer(cep);
	}
}

/*
 * The stream ended: a FIN between FPDUs is a graceful close; one inside
 * an FPDU cut a message short, an LLP error.
 */
static int softiw_rx_eof(const struct softiw_rx *rx)
{
	if (rx->stage == SOFTIW_RX_HDR && !rx->got)
		return SOFTIW_DP_EOF;
	return -ECONNRESET;
}

/*
 * tcp_read_sock()'s actor: parse what the socket holds from @skb, at
 * @off, @len bytes, until they are used up (rx->ret stays -EAGAIN), the
 * budget is (0) or an error stops the receiver. Return: the bytes taken.
 */
static int softiw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			   unsigned int off, size_t len)
{
	struct softiw_cep *cep = desc->arg.data;
	struct softiw_rx *rx = &cep->rx;
	int ret = 0;

	/* tcp_read_sock() offers the rest of a part-used skb again */
	if (!desc->count)
		return 0;
	rx->feed = skb;
	rx->feed_off = off;
	rx->feed_len = min_t(size_t, len, U32_MAX);
	while (rx->budget) {
		ret = softiw_rx_advance(cep, &rx->budget);
		if (ret)
			break;
	}
	rx->feed = NULL;
	if (ret != -EAGAIN) {
		rx->ret = ret;
		desc->count = 0;
	}
	return len - rx->feed_len;
}

/* After the socket was read: the socket's error, or the end of stream. */
static int softiw_rx_drained(struct softiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int err = READ_ONCE(sk->sk_err);

	if (err)
		return -err;
	/* data that came after the read keeps the FIN behind it */
	if ((READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
	    skb_queue_empty_lockless(&sk->sk_receive_queue))
		return softiw_rx_eof(&cep->rx);
	return SOFTIW_DP_IDLE;
}

/**
 * softiw_rx_step() - take in what the peer sent, as far as it has arrived
 * @cep: the established endpoint
 *
 * Context: process context, the endpoint's mutex held.
 * Return: SOFTIW_DP_IDLE when the socket is empty, SOFTIW_DP_BUSY when
 * the budget is used up, SOFTIW_DP_EOF at the end of the stream between
 * two FPDUs; -EPROTO for a protocol error (cep->rx.cause says which; send a
 * TERMINATE), -EACCES for a RECV's or READ's buffer in a fast-registration
 * MR that may not be written (the same; the request failed with
 * IB_WC_LOC_PROT_ERR), -ECONNRESET for a TERMINATE received, a reset or an end
 * of the stream inside an FPDU, -ECONNABORTED if the QP went to ERROR,
 * -EOVERFLOW if a completion did not fit its CQ, or the socket's error.
 */
int softiw_rx_step(struct softiw_cep *cep)
{
	read_descriptor_t desc = { .arg.data = cep, .count = 1 };
	struct softiw_rx *rx = &cep->rx;
	struct sock *sk = cep->sock->sk;

	lockdep_assert_held(&cep->lock);
	rx->budget = SOFTIW_RX_BUDGET;
	rx->ret = -EAGAIN;
	lock_sock(sk);
	tcp_read_sock(sk, &desc, softiw_rx_actor);
	release_sock(sk);
	if (rx->ret == -EAGAIN)
		return softiw_rx_drained(cep);
	if (rx->ret)
		return rx->ret;
	WRITE_ONCE(cep->qp->rx_busy, cep->qp->rx_busy + 1);
	return SOFTIW_DP_BUSY;
}
