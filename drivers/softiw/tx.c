// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw transmit path: SEND work requests become DDP untagged
 * messages on queue 0 (MSN counted from 1, MO of each segment, L on the
 * last) with the RDMAP SEND header, cut into FPDUs of at most MULPDU
 * bytes of ULPDU, sealed with pad and CRC, and queued on the TCP socket
 * without ever blocking. Also the TERMINATE message.
 *
 * Runs in the endpoint's work under its mutex. A full socket stops the
 * transmitter with the rest of an FPDU pending; the socket's write space
 * callback queues the work again. A SEND completes, in order, once its
 * last FPDU is queued on the socket.
 */
#include <asm/unaligned.h>
#include <kunit/visibility.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "cm.h"

/* FPDUs sent per run of the work before it lets others run. */
#define SOFTIW_TX_BUDGET	32
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
 *
 * The FPDU buffer comes with the first FPDU (softiw_tx_buf()): a
 * connection that sends nothing does not hold one.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 0.
 */
int softiw_tx_start(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	unsigned long flags;

	lockdep_assert_held(&cep->lock);
	tx->mulpdu = softiw_tx_mulpdu(cep->sock->sk);
	tx->msn = 1;
	spin_lock_irqsave(&cep->qp->lock, flags);
	cep->qp->mulpdu = tx->mulpdu;
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
	kvfree(cep->tx.buf);
	cep->tx.buf = NULL;
	cep->tx.len = 0;
}

/* The FPDU buffer, allocated for the first FPDU. Return: 0 or -ENOMEM. */
static int softiw_tx_buf(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;

	if (!tx->buf)
		tx->buf = kvmalloc(kiwi_softiw_fpdu_size(tx->mulpdu),
				   GFP_KERNEL);
	return tx->buf ? 0 : -ENOMEM;
}

/**
 * kiwi_softiw_qp_tx_buffered() - does a QP's connection hold an FPDU
 *	buffer? For tests
 * @qp: the QP
 *
 * Context: any context.
 * Return: true if the QP is connected and its transmitter has a buffer.
 */
bool kiwi_softiw_qp_tx_buffered(struct kiwi_qp *qp)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	unsigned long flags;
	bool buffered;

	spin_lock_irqsave(&sqp->lock, flags);
	/* set under the endpoint's mutex; a test reads it when idle */
	buffered = sqp->cep && data_race(sqp->cep->tx.buf);
	spin_unlock_irqrestore(&sqp->lock, flags);
	return buffered;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_tx_buffered);

/* Queue the rest of the pending FPDU. Return: 0 when all of it is queued. */
static int softiw_tx_push(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec;
	int ret;

	while (tx->sent < tx->len) {
		vec.iov_base = tx->buf + tx->sent;
		vec.iov_len = tx->len - tx->sent;
		ret = kernel_sendmsg(cep->sock, &msg, &vec, 1, vec.iov_len);
		if (ret < 0)
			return ret;
		if (!ret)
			return -EAGAIN;
		tx->sent += ret;
	}
	return 0;
}

/* Copy @len bytes of a work request's buffers, from offset @off. */
static void softiw_wqe_copy_out(const struct softiw_wqe *wqe, u32 off,
				u8 *dst, u32 len)
{
	const struct softiw_buf *b = wqe->buf;
	u32 n;

	for (; len; b++) {
		if (off >= b->len) {
			off -= b->len;
			continue;
		}
		n = min(len, b->len - off);
		memcpy(dst, b->addr + off, n);
		dst += n;
		len -= n;
		off = 0;
	}
}

/* Frame the next segment of @wqe's message into the FPDU buffer. */
static void softiw_tx_frame(struct softiw_cep *cep,
			    const struct softiw_wqe *wqe)
{
	struct softiw_tx *tx = &cep->tx;
	u32 room = tx->mulpdu - (SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE);
	u32 n = min(wqe->len - tx->mo, room);
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE + n,
		.opcode = wqe->flags & KIWI_SEND_SOLICITED ?
			  SOFTIW_RDMAP_SEND_SE : SOFTIW_RDMAP_SEND,
		.last = tx->mo + n == wqe->len,
		.qn = SOFTIW_DDP_QN_SEND,
		.msn = tx->msn,
		.mo = tx->mo,
	};
	int size = kiwi_softiw_fpdu_size(tx->mulpdu);
	int hlen = kiwi_softiw_fpdu_put_hdr(&h, tx->buf, size);

	softiw_wqe_copy_out(wqe, tx->mo, tx->buf + hlen, n);
	tx->len = kiwi_softiw_fpdu_seal(tx->buf, size, cep->crc);
	tx->sent = 0;
	tx->mo += n;
	tx->last = h.last;
	tx->term = false;
}

/* The pending FPDU is queued: count it, complete its SEND if it was last. */
static int softiw_tx_done(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	struct softiw_qp *sqp = cep->qp;
	int ret;

	tx->len = 0;
	if (tx->term)
		return 0;
	WRITE_ONCE(sqp->tx_fpdus, sqp->tx_fpdus + 1);
	if (!tx->last)
		return 0;
	tx->msn++;
	tx->mo = 0;
	ret = softiw_wq_complete(sqp, &sqp->sq, 0, 0, false);
	return ret == -ECANCELED ? 0 : ret;
}

/**
 * softiw_tx_step() - send what the send queue holds, as far as TCP takes it
 * @cep: the established endpoint
 *
 * Context: process context, the endpoint's mutex held.
 * Return: SOFTIW_DP_IDLE when the queue is empty or the socket full (its
 * write space callback runs the work again), SOFTIW_DP_BUSY when the
 * budget is used up, -EOVERFLOW if a completion did not fit its CQ,
 * -ENOMEM if the first FPDU found no buffer (the stream is reset), or the
 * socket's error.
 */
int softiw_tx_step(struct softiw_cep *cep)
{
	struct softiw_wqe *wqe;
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
		wqe = softiw_wq_peek(cep->qp, &cep->qp->sq);
		if (!wqe)
			return SOFTIW_DP_IDLE;
		ret = softiw_tx_buf(cep);
		if (ret)
			return ret;
		softiw_tx_frame(cep, wqe);
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
		/*
		 * No R: the RDMAP header it names is a Read Request's 28-byte
		 * body, which the receiver refuses without reading.
		 */
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
	struct kiwi_softiw_ddp_hdr h = {
		.opcode = SOFTIW_RDMAP_TERMINATE,
		.last = true,
		.qn = SOFTIW_DDP_QN_TERMINATE,
		.msn = 1,
	};
	int size = kiwi_softiw_fpdu_size(cep->tx.mulpdu);
	__be32 ctrl = softiw_term_ctrl(&rx->cause, hdrs);
	u8 *p;

	if (hdrs)
		copy = kiwi_softiw_ddp_hdr_size(rx->h.opcode);
	h.ulpdu_len = SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE + body +
		      (copy ? SOFTIW_MPA_LEN_SIZE + copy : 0);
	p = cep->tx.buf + kiwi_softiw_fpdu_put_hdr(&h, cep->tx.buf, size);
	memcpy(p, &ctrl, sizeof(ctrl));
	p += sizeof(ctrl);
	if (copy) {
		/* The DDP segment length, then the segment's DDP header. */
		put_unaligned_be16(rx->h.ulpdu_len - copy, p);
		memcpy(p + SOFTIW_MPA_LEN_SIZE, rx->hdr + SOFTIW_MPA_LEN_SIZE,
		       copy);
	}
	cep->tx.len = kiwi_softiw_fpdu_seal(cep->tx.buf, size, cep->crc);
	cep->tx.sent = 0;
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
	ret = softiw_tx_buf(cep);
	if (ret)
		return ret;
	softiw_tx_frame_term(cep);
	return softiw_tx_push(cep);
}
