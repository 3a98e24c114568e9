// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw: the end of connection setup, between the MPA Reply and
 * the first ULP data (RFC 6581, RFC 5044).
 *
 * In peer-to-peer mode the initiator sends one ready-to-receive (RTR)
 * message after the Reply: a zero-length RDMA Write, a zero-length RDMA
 * Read Request, or a zero-length Send. The responder sends nothing before
 * it has received it, consumes it without completing a RECV or touching
 * memory, and answers a Read with a zero-length Read Response, which the
 * initiator awaits before it reports the connection. The frames are tiny
 * and come before any other FPDU, so they are built and parsed here, in
 * a buffer of the endpoint, apart from the data path.
 *
 * Also: the TERMINATE of an MPA-level refusal (LLP layer), and the MPA
 * revision 1 rule that the responder sends no FPDU before it has
 * received one.
 *
 * Runs under the endpoint's mutex, in process context.
 */
#include <asm/unaligned.h>
#include <linux/net.h>

#include "cm.h"

/* ULPDU_Length of each setup frame: DDP header plus body. */
#define SOFTIW_RTR_TAGGED_LEN	(sizeof(struct softiw_ddp_tagged) - \
				 SOFTIW_MPA_LEN_SIZE)
#define SOFTIW_RTR_UNTAGGED_LEN	(SOFTIW_UNTAGGED_HLEN - SOFTIW_MPA_LEN_SIZE)
#define SOFTIW_RTR_READ_LEN	(SOFTIW_RTR_UNTAGGED_LEN + \
				 sizeof(struct softiw_rdmap_read_req))

/**
 * softiw_rtr_start() - what is left of connection setup once MPA is done
 * @cep: the endpoint, in setup; cep->active says which end it is
 * @res: what MPA agreed
 *
 * Context: process context, the endpoint's mutex held.
 */
void softiw_rtr_start(struct softiw_cep *cep,
		      const struct kiwi_softiw_mpa_result *res)
{
	struct softiw_rtr *rtr = &cep->setup->rtr;

	lockdep_assert_held(&cep->lock);
	rtr->type = res->p2p ? res->rtr : 0;
	rtr->got = 0;
	cep->hold_tx = !cep->active && res->rev == SOFTIW_MPA_REV1;
}

/**
 * softiw_rtr_awaited() - must a frame arrive before the connection is up
 * @cep: the endpoint, softiw_rtr_start() done
 *
 * Context: process context, the endpoint's mutex held.
 * Return: true for a peer-to-peer responder (the RTR) and for the
 * initiator of a READ RTR (the READ response).
 */
bool softiw_rtr_awaited(const struct softiw_cep *cep)
{
	const struct softiw_rtr *rtr = &cep->setup->rtr;

	if (!rtr->type)
		return false;
	return !cep->active || rtr->type == SOFTIW_RTR_READ;
}

/* Build one setup FPDU from @h and @body, and queue it whole. */
static int softiw_rtr_put(struct softiw_cep *cep,
			  const struct kiwi_softiw_ddp_hdr *h,
			  const void *body, size_t blen)
{
	u8 buf[SOFTIW_RTR_FRAME_MAX];
	int n;

	n = kiwi_softiw_fpdu_put_hdr(h, buf, sizeof(buf));
	if (n < 0)
		return n;
	memcpy(buf + n, body, blen);
	n = kiwi_softiw_fpdu_seal(buf, sizeof(buf), cep->crc);
	if (n < 0)
		return n;
	return softiw_sock_send(cep->sock, buf, n);
}

static int softiw_rtr_send_tagged(struct softiw_cep *cep, u8 opcode,
				  u32 stag, u64 to)
{
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_RTR_TAGGED_LEN,
		.opcode = opcode,
		.tagged = true,
		.last = true,
		.stag = stag,
		.to = to,
	};

	return softiw_rtr_put(cep, &h, NULL, 0);
}

static int softiw_rtr_send_read(struct softiw_cep *cep)
{
	struct softiw_rdmap_read_req body = {};
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_RTR_READ_LEN,
		.opcode = SOFTIW_RDMAP_READ_REQ,
		.last = true,
		.qn = SOFTIW_DDP_QN_READ_REQ,
		.msn = cep->tx.rreq_msn,
	};
	int ret;

	ret = softiw_rtr_put(cep, &h, &body, sizeof(body));
	if (!ret)
		cep->tx.rreq_msn++;	/* the ULP's first READ is MSN 2 */
	return ret;
}

static int softiw_rtr_send_send(struct softiw_cep *cep)
{
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_RTR_UNTAGGED_LEN,
		.opcode = SOFTIW_RDMAP_SEND,
		.last = true,
		.qn = SOFTIW_DDP_QN_SEND,
		.msn = cep->tx.msn,
	};
	int ret;

	ret = softiw_rtr_put(cep, &h, NULL, 0);
	if (!ret)
		cep->tx.msn++;
	return ret;
}

/**
 * softiw_rtr_send() - the initiator sends its RTR message
 * @cep: the endpoint, data path started, nothing sent since the Request
 *
 * A zero-length RDMA Write to STag 0 at offset 0; a zero-length RDMA
 * Read Request (MSN 1 of queue 1) whose sink and source are STag 0 at
 * offset 0; or a zero-length Send, which takes MSN 1 of queue 0 so that
 * the ULP's first SEND is MSN 2.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 0 if the RTR is queued on the socket or none is due, else a
 * negative errno.
 */
int softiw_rtr_send(struct softiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	switch (cep->setup->rtr.type) {
	case SOFTIW_RTR_WRITE:
		return softiw_rtr_send_tagged(cep, SOFTIW_RDMAP_WRITE, 0, 0);
	case SOFTIW_RTR_READ:
		return softiw_rtr_send_read(cep);
	case SOFTIW_RTR_SEND:
		return softiw_rtr_send_send(cep);
	default:
		return 0;
	}
}

/* Bytes of the awaited frame: its first four, then the whole FPDU. */
static size_t softiw_rtr_frame_len(const struct softiw_rtr *rtr)
{
	if (rtr->got < SOFTIW_MPA_LEN_SIZE + sizeof(struct softiw_ddp_ctrl))
		return SOFTIW_MPA_LEN_SIZE + sizeof(struct softiw_ddp_ctrl);
	return kiwi_softiw_fpdu_size(get_unaligned_be16(rtr->buf));
}

static int softiw_rtr_refuse(struct softiw_cep *cep, u8 ecode)
{
	cep->rx.hdr_ok = false;
	cep->rx.cause = (struct kiwi_softiw_term_cause) {
		.layer = SOFTIW_TERM_LAYER_LLP,
		.etype = SOFTIW_TERM_LLP_MPA,
		.ecode = ecode,
	};
	return -EPROTO;
}

/*
 * The first four bytes are in: a TERMINATE ends the connection (never
 * answered by another), a frame longer than any expected is refused
 * before it is read.
 */
static int softiw_rtr_peek(struct softiw_cep *cep)
{
	u16 ctrl = get_unaligned_be16(cep->setup->rtr.buf +
					SOFTIW_MPA_LEN_SIZE);

	if (FIELD_GET(SOFTIW_RDMAP_OPCODE, ctrl) == SOFTIW_RDMAP_TERMINATE)
		return -ECONNRESET;
	if (softiw_rtr_frame_len(&cep->setup->rtr) > SOFTIW_RTR_FRAME_MAX)
		return softiw_rtr_refuse(cep, SOFTIW_TERM_MPA_RTR);
	return 0;
}

/* Read the awaited frame. Return: 1 once all of it is in, 0, -errno. */
static int softiw_rtr_read(struct softiw_cep *cep)
{
	struct softiw_rtr *rtr = &cep->setup->rtr;
	size_t need;
	int ret;

	while (rtr->got < (need = softiw_rtr_frame_len(rtr))) {
		ret = softiw_sock_recv(cep->sock, rtr->buf + rtr->got,
				       need - rtr->got);
		if (ret == -EAGAIN)
			return 0;
		if (!ret)
			return -ECONNRESET;
		if (ret < 0)
			return ret;
		rtr->got += ret;
		if (rtr->got == need && need == SOFTIW_MPA_LEN_SIZE +
					sizeof(struct softiw_ddp_ctrl)) {
			ret = softiw_rtr_peek(cep);
			if (ret)
				return ret;
		}
	}
	return 1;
}

/* Does @h, with the body at @body, make the RTR of @type? */
static bool softiw_rtr_matches(u8 type, const struct kiwi_softiw_ddp_hdr *h,
			       const u8 *body)
{
	const struct softiw_rdmap_read_req *rr = (const void *)body;

	if (!h->last)
		return false;
	switch (type) {
	case SOFTIW_RTR_WRITE:
		/* siw sends STag 1: the STag of a zero-length Write is moot. */
		return h->opcode == SOFTIW_RDMAP_WRITE &&
		       h->ulpdu_len == SOFTIW_RTR_TAGGED_LEN;
	case SOFTIW_RTR_READ:
		return h->opcode == SOFTIW_RDMAP_READ_REQ && h->msn == 1 &&
		       !h->mo && h->ulpdu_len == SOFTIW_RTR_READ_LEN &&
		       !get_unaligned_be32(&rr->size);
	case SOFTIW_RTR_SEND:
		return h->opcode == SOFTIW_RDMAP_SEND && h->msn == 1 &&
		       !h->mo && h->ulpdu_len == SOFTIW_RTR_UNTAGGED_LEN;
	default:
		return false;
	}
}

/* The initiator's READ RTR is answered by an empty response to STag 0. */
static bool softiw_rtr_is_response(const struct kiwi_softiw_ddp_hdr *h)
{
	return h->opcode == SOFTIW_RDMAP_READ_RESP && h->last && !h->stag &&
	       !h->to && h->ulpdu_len == SOFTIW_RTR_TAGGED_LEN;
}

/*
 * The responder took the RTR: answer a Read. The next SEND, or Read
 * Request, of the same kind as the RTR is MSN 2.
 */
static int softiw_rtr_consume(struct softiw_cep *cep)
{
	const struct softiw_rdmap_read_req *rr =
		(const void *)(cep->setup->rtr.buf + SOFTIW_UNTAGGED_HLEN);

	cep->rx.fpdus++;
	switch (cep->setup->rtr.type) {
	case SOFTIW_RTR_SEND:
		cep->rx.msn++;
		return 0;
	case SOFTIW_RTR_READ:
		cep->rx.rreq_msn++;
		return softiw_rtr_send_tagged(cep, SOFTIW_RDMAP_READ_RESP,
					get_unaligned_be32(&rr->sink_stag),
					get_unaligned_be64(&rr->sink_to));
	default:
		return 0;
	}
}

/**
 * softiw_rtr_recv() - take in the RTR message, or the READ response
 * @cep: the endpoint, softiw_rtr_awaited() true
 *
 * Reads no byte past the frame. The responder answers a READ RTR.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 1 when the frame arrived and was right, 0 if it has not all
 * arrived; -EPROTO for a wrong frame (cep->rx.cause holds the TERMINATE's
 * cause: LLP, MPA, no matching RTR, or CRC error), -ECONNRESET for an
 * end of stream or a TERMINATE from the peer, or the socket's error.
 */
int softiw_rtr_recv(struct softiw_cep *cep)
{
	struct softiw_rtr *rtr = &cep->setup->rtr;
	struct kiwi_softiw_term_cause cause;
	struct kiwi_softiw_ddp_hdr h;
	int ret;

	lockdep_assert_held(&cep->lock);
	ret = softiw_rtr_read(cep);
	if (ret <= 0)
		return ret;
	if (kiwi_softiw_fpdu_check(rtr->buf, rtr->got, cep->crc))
		return softiw_rtr_refuse(cep, SOFTIW_TERM_MPA_CRC);
	if (kiwi_softiw_fpdu_get_hdr(rtr->buf, rtr->got, &h, &cause))
		return softiw_rtr_refuse(cep, SOFTIW_TERM_MPA_RTR);
	if (cep->active) {
		if (!softiw_rtr_is_response(&h))
			return softiw_rtr_refuse(cep, SOFTIW_TERM_MPA_RTR);
		cep->rx.fpdus++;
		return 1;
	}
	if (!softiw_rtr_matches(rtr->type, &h,
				rtr->buf + SOFTIW_UNTAGGED_HLEN))
		return softiw_rtr_refuse(cep, SOFTIW_TERM_MPA_RTR);
	ret = softiw_rtr_consume(cep);
	return ret ? ret : 1;
}

/**
 * softiw_rtr_terminate() - send the TERMINATE of an MPA-level refusal
 * @cep: the endpoint; cep->crc says whether FPDUs carry a CRC
 * @ecode: SOFTIW_TERM_MPA_*: the LLP error code
 *
 * Sent on queue 2 with MSN 1, with no copied header, as the only FPDU
 * after the MPA frames or right after the peer's RTR: nothing else can
 * be half sent.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: 0 if the TERMINATE is queued on the socket, else a negative
 * errno.
 */
int softiw_rtr_terminate(struct softiw_cep *cep, u8 ecode)
{
	struct kiwi_softiw_term_cause cause = {
		.layer = SOFTIW_TERM_LAYER_LLP,
		.etype = SOFTIW_TERM_LLP_MPA,
		.ecode = ecode,
	};
	__be32 ctrl = softiw_term_ctrl(&cause, 0);
	struct kiwi_softiw_ddp_hdr h = {
		.ulpdu_len = SOFTIW_RTR_UNTAGGED_LEN + sizeof(ctrl),
		.opcode = SOFTIW_RDMAP_TERMINATE,
		.last = true,
		.qn = SOFTIW_DDP_QN_TERMINATE,
		.msn = 1,
	};

	lockdep_assert_held(&cep->lock);
	return softiw_rtr_put(cep, &h, &ctrl, sizeof(ctrl));
}

/**
 * softiw_rtr_tx_held() - may the transmitter not send yet
 * @cep: the established endpoint
 *
 * RFC 5044: in MPA revision 1 the responder sends no FPDU
 * before it has received a valid one from the initiator.
 *
 * Context: process context, the endpoint's mutex held.
 * Return: true while the transmitter must wait.
 */
bool softiw_rtr_tx_held(const struct softiw_cep *cep)
{
	return cep->hold_tx && !cep->rx.fpdus;
}
