// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw transmit batches: the FPDUs of one message framed together
 * (tx.c decides what goes in them) and queued on the TCP socket by one
 * sendmsg() of a kvec array, resumed where a full socket stopped it.
 *
 * An FPDU is copied whole into the batch's buffer, or, when its payload
 * lies in memory the work request names by address (a SEND's or WRITE's
 * buffers, which the ULP keeps until the request completes), only its
 * header and trailer are: the payload is sent from where it is, and TCP
 * makes the one copy. The request completes once its last byte is queued
 * on the socket, so the memory is not reused before TCP copied it. The
 * CRC, when negotiated, is computed over the same bytes as they are
 * framed.
 */
#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "cm.h"

/* kvecs of a batch: per FPDU a header, the payload's buffers, a trailer */
#define SOFTIW_TX_VECS	(SOFTIW_TX_BATCH * (SOFTIW_MAX_SGE + 2))

/**
 * softiw_tx_buf() - the batch's buffer and kvecs, allocated for the
 *	first FPDU a connection sends
 * @tx: the transmitter
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int softiw_tx_buf(struct softiw_tx *tx)
{
	if (!tx->buf)
		tx->buf = kiwi_should_fail() ? NULL :
			  kvmalloc_array(SOFTIW_TX_BATCH,
					 kiwi_softiw_fpdu_size(tx->mulpdu),
					 GFP_KERNEL);
	if (tx->buf && !tx->vec)
		tx->vec = kiwi_should_fail() ? NULL :
			  kmalloc_array(SOFTIW_TX_VECS, sizeof(*tx->vec),
					GFP_KERNEL);
	return tx->buf && tx->vec ? 0 : -ENOMEM;
}

/**
 * softiw_tx_buf_free() - free what softiw_tx_buf() allocated
 * @tx: the transmitter
 *
 * Context: process context.
 */
void softiw_tx_buf_free(struct softiw_tx *tx)
{
	kvfree(tx->buf);
	tx->buf = NULL;
	kfree(tx->vec);
	tx->vec = NULL;
	softiw_tx_reset(tx);
}

/**
 * softiw_tx_reset() - empty the batch
 * @tx: the transmitter
 *
 * Context: process context, the endpoint's mutex held.
 */
void softiw_tx_reset(struct softiw_tx *tx)
{
	tx->len = 0;
	tx->sent = 0;
	tx->used = 0;
	tx->nvec = 0;
}

/**
 * softiw_tx_slot() - where the next FPDU of the batch is framed
 * @tx: the transmitter, its buffer allocated
 *
 * Context: process context, the endpoint's mutex held.
 * Return: the first unused byte of the batch's buffer.
 */
u8 *softiw_tx_slot(const struct softiw_tx *tx)
{
	return tx->buf + tx->used;
}

/* Append @len bytes at @base to the batch, merged with the last kvec. */
static void softiw_tx_add(struct softiw_tx *tx, void *base, u32 len)
{
	struct kvec *last = tx->nvec ? &tx->vec[tx->nvec - 1] : NULL;

	if (!len)
		return;
	if (last && last->iov_base + last->iov_len == base)
		last->iov_len += len;
	else
		tx->vec[tx->nvec++] = (struct kvec) {
			.iov_base = base, .iov_len = len,
		};
	tx->len += len;
}

/* Count a framed FPDU; @last: it ends its message. */
static void softiw_tx_counted(struct softiw_tx *tx, bool last)
{
	tx->nfpdu++;
	tx->last = last;
	tx->term = false;
}

/**
 * softiw_tx_seal() - add the FPDU framed whole at softiw_tx_slot()
 * @tx: the transmitter
 * @crc: CRC was negotiated
 * @last: the FPDU ends its message
 *
 * Context: process context, the endpoint's mutex held.
 */
void softiw_tx_seal(struct softiw_tx *tx, bool crc, bool last)
{
	u8 *slot = softiw_tx_slot(tx);
	int n = kiwi_softiw_fpdu_seal(slot, kiwi_softiw_fpdu_size(tx->mulpdu),
				      crc);

	tx->used += n;
	softiw_tx_add(tx, slot, n);
	softiw_tx_counted(tx, last);
}

/**
 * softiw_tx_seal_bufs() - add an FPDU whose payload is sent from a work
 *	request's buffers
 * @tx: the transmitter
 * @hlen: bytes of length field and header written at softiw_tx_slot()
 * @b: the buffers, named by address (not by STag)
 * @nbuf: entries at @b
 * @off: message offset of the payload's first byte
 * @n: payload bytes
 * @crc: CRC was negotiated
 * @last: the FPDU ends its message
 *
 * Context: process context, the endpoint's mutex held.
 */
void softiw_tx_seal_bufs(struct softiw_tx *tx, u32 hlen,
			 const struct softiw_buf *b, u32 nbuf, u32 off, u32 n,
			 bool crc, bool last)
{
	const struct softiw_buf *end = b + nbuf;
	u8 *hdr = softiw_tx_slot(tx), *trailer = hdr + hlen;
	u32 pad = softiw_fpdu_pad(hlen - SOFTIW_MPA_LEN_SIZE + n), part;
	u32 sum = ~0U;
	__le32 field = 0;

	if (crc)
		sum = __crc32c_le(sum, hdr, hlen);
	softiw_tx_add(tx, hdr, hlen);
	for (; n && b < end; b++, off = 0) {
		if (off >= b->len) {
			off -= b->len;
			continue;
		}
		part = min(n, b->len - off);
		if (crc)
			sum = __crc32c_le(sum, b->addr + off, part);
		softiw_tx_add(tx, b->addr + off, part);
		n -= part;
	}
	memset(trailer, 0, pad);
	if (crc)
		field = cpu_to_le32(~__crc32c_le(sum, trailer, pad));
	memcpy(trailer + pad, &field, sizeof(field));
	tx->used += hlen + pad + sizeof(field);
	softiw_tx_add(tx, trailer, pad + sizeof(field));
	softiw_tx_counted(tx, last);
}

/**
 * softiw_tx_push() - queue the rest of the batch on the socket
 * @cep: the endpoint
 *
 * Context: process context, the endpoint's mutex held; never blocks.
 * Return: 0 when all of it is queued, -EAGAIN if the socket is full, or
 * the socket's error.
 */
int softiw_tx_push(struct softiw_cep *cep)
{
	struct softiw_tx *tx = &cep->tx;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int ret;

	while (tx->sent < tx->len) {
		iov_iter_kvec(&msg.msg_iter, WRITE, tx->vec, tx->nvec, tx->len);
		iov_iter_advance(&msg.msg_iter, tx->sent);
		ret = sock_sendmsg(cep->sock, &msg);
		if (ret < 0)
			return ret;
		if (!ret)
			return -EAGAIN;
		tx->sent += ret;
	}
	return 0;
}

/**
 * kiwi_softiw_qp_tx_buffered() - does a QP's connection hold an FPDU
 *	buffer? For tests
 * @qp: the QP
 *
 * Context: any context.
 * Return: true if the QP is connected and its transmitter has a buffer.
 */
bool kiwi_softiw_qp_tx_buffered(struct ib_qp *qp)
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
