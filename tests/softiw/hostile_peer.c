// SPDX-License-Identifier: GPL-2.0
/*
 * The hostile and fuzz suites' raw MPA peer (hostile_peer.h), and the
 * checks and .exit the hostile suites share.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <net/sock.h>

#include "fpdu.h"
#include "hostile_peer.h"
#include "softiw.h"

/**
 * hostile_recv_all() - read exactly @len bytes
 * @s: the socket
 * @buf: where
 * @len: how many
 *
 * Waits up to 3 s for each piece.
 *
 * Return: the bytes read, fewer on end of stream, an error or a timeout.
 */
int hostile_recv_all(struct socket *s, u8 *buf, int len)
{
	int got = 0, ret;

	while (got < len) {
		ret = cmt_raw_recv(s, buf + got, len - got, 3000);
		if (ret <= 0)
			return got;
		got += ret;
	}
	return got;
}

/**
 * hostile_post_recv() - post a RECV of part of the peer's QP buffer
 * @t: the fixture
 * @p: the peer
 * @wr_id: its cookie
 * @off: where in @p->buf
 * @len: its length
 */
void hostile_post_recv(struct cmt *t, struct hostile_peer *p,
		       u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = p->mr->iova + off, .length = len, .lkey = p->mr->lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				   .num_sge = 1 };
	const struct ib_recv_wr *bad;

	KUNIT_ASSERT_EQ(t->test, kiwi_post_recv(p->qp, &wr, &bad), 0);
}

/* The QP of @o, on the fixture's CQ. */
static struct ib_qp *hostile_peer_qp(struct cmt *t,
				     const struct hostile_opts *o)
{
	struct ib_qp_init_attr init = {
		.send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = o->sq ?: 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return cmt_qp_init(t, &init);
}

/**
 * hostile_peer_open() - a revision 1 MPA connection, accepted
 * @t: the fixture; its listener is started here
 * @p: the peer: the Request goes from @p->s if set, else from a new client
 * @o: its settings
 *
 * Aborts the test unless the accept and the Reply went through.
 */
void hostile_peer_open(struct cmt *t, struct hostile_peer *p,
		       const struct hostile_opts *o)
{
	struct kunit *test = t->test;
	struct kiwi_conn_param cp = { .ird = o->ird, .ord = o->ord };
	u8 req[20] = KEY_REQ, rep[20];
	const struct cmt_rec *r;
	int i;

	req[16] = o->crc ? 0x40 : 0;
	req[17] = 1;
	cmt_listen(t);
	if (!p->s)
		p->s = cmt_raw_connect(test, t->port);
	else
		KUNIT_ASSERT_EQ(test, cmt_raw_connect_to(p->s, t->port), 0);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p->s, req, sizeof(req)), 20);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	p->child = r->id;
	p->buf = cmt_buf(t, 4096);
	p->mr = cmt_mr(t, p->buf, 4096, IB_ACCESS_LOCAL_WRITE);
	p->qp = hostile_peer_qp(t, o);
	cp.qpn = p->qp->qp_num;
	for (i = 0; i < o->nrecv; i++)
		hostile_post_recv(t, p, i, i * 256, 256);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(p->child, &cp), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_ESTABLISHED,
					     p->child));
	KUNIT_ASSERT_EQ(test, hostile_recv_all(p->s, rep, sizeof(rep)), 20);
	CMT_EXPECT_MEM(test, rep, KEY_REP, 16);
	KUNIT_EXPECT_EQ(test, rep[16] & 0x60, o->crc ? 0x40 : 0);
}

/**
 * hostile_peer_connect_ird() - hostile_peer_open() with ORD 1 and
 *	cmt_qp()'s queues
 * @t: the fixture; its listener is started here
 * @p: the peer: the Request goes from @p->s if set, else from a new client
 * @crc: ask for MPA CRC
 * @nrecv: RECVs posted before the accept
 * @ird: Read Requests the QP serves
 */
void hostile_peer_connect_ird(struct cmt *t, struct hostile_peer *p,
			      bool crc, int nrecv, u16 ird)
{
	const struct hostile_opts o = {
		.crc = crc, .nrecv = nrecv, .ird = ird, .ord = 1,
	};

	hostile_peer_open(t, p, &o);
}

/**
 * hostile_peer_connect() - hostile_peer_connect_ird() from a new client,
 *	serving one Read Request
 * @t: the fixture
 * @p: the peer
 * @crc: ask for MPA CRC
 * @nrecv: RECVs to post before accepting
 */
void hostile_peer_connect(struct cmt *t, struct hostile_peer *p,
			  bool crc, int nrecv)
{
	p->s = NULL;
	hostile_peer_connect_ird(t, p, crc, nrecv, 1);
}

/**
 * hostile_fpdu_put() - lay out an untagged FPDU
 * @buf: where
 * @f: its fields
 * @crc: with a CRC (else 0 in its place)
 *
 * RFC 5044 section 4, RFC 5041 section 4.
 *
 * Return: its size on the wire.
 */
int hostile_fpdu_put(u8 *buf, const struct hostile_fpdu *f, bool crc)
{
	int n = 2 + 18 + f->len;
	__le32 sum = 0;

	put_unaligned_be16(18 + f->len, buf);
	put_unaligned_be16(f->ctrl, buf + 2);
	put_unaligned_be32(0, buf + 4);		/* RDMAP-owned word */
	put_unaligned_be32(f->qn, buf + 8);
	put_unaligned_be32(f->msn, buf + 12);
	put_unaligned_be32(f->mo, buf + 16);
	memcpy(buf + 20, f->data, f->len);
	while (n % 4)
		buf[n++] = 0;
	if (crc)
		sum = kiwi_softiw_fpdu_crc(buf, n);
	memcpy(buf + n, &sum, 4);
	return n + 4;
}

/**
 * hostile_tagged_put() - lay out a tagged FPDU, without a CRC
 * @buf: where
 * @ctrl: the two DDP/RDMAP control bytes
 * @stag: its STag
 * @to: its tagged offset
 * @data: payload
 * @len: payload bytes
 *
 * RFC 5041 section 4.3; the CRC's place holds 0.
 *
 * Return: its size on the wire.
 */
int hostile_tagged_put(u8 *buf, u16 ctrl, u32 stag, u64 to,
		       const void *data, u16 len)
{
	int n = 2 + 14 + len;

	put_unaligned_be16(14 + len, buf);
	put_unaligned_be16(ctrl, buf + 2);
	put_unaligned_be32(stag, buf + 4);
	put_unaligned_be64(to, buf + 8);
	memcpy(buf + 16, data, len);
	while (n % 4)
		buf[n++] = 0;
	memset(buf + n, 0, 4);
	return n + 4;
}

/**
 * hostile_rreq_put() - lay out a Read Request FPDU, without a CRC
 * @buf: where
 * @msn: its MSN on queue 1
 * @sink_stag: the requester's STag
 * @sink_to: the requester's tagged offset
 * @size: bytes asked for
 * @src_stag: the STag read from
 * @src_to: the tagged offset read from
 *
 * RFC 5040 section 4.4.
 *
 * Return: its size on the wire.
 */
int hostile_rreq_put(u8 *buf, u32 msn, u32 sink_stag, u64 sink_to,
		     u32 size, u32 src_stag, u64 src_to)
{
	u8 body[28];
	const struct hostile_fpdu f = { HOSTILE_RREQ, msn, 0, body, 28, 1 };

	put_unaligned_be32(sink_stag, body);
	put_unaligned_be64(sink_to, body + 4);
	put_unaligned_be32(size, body + 12);
	put_unaligned_be32(src_stag, body + 16);
	put_unaligned_be64(src_to, body + 20);
	return hostile_fpdu_put(buf, &f, false);
}

/**
 * hostile_term_expected() - lay out the TERMINATE a refused segment earns
 * @buf: where
 * @seg: the refused untagged segment, without a CRC
 * @layer_etype: the TERMINATE's first byte
 * @ecode: its error code
 * @rdmap: bytes of @seg's RDMAP header it copies, with R; 0 for none
 *
 * The TERMINATE we expect for a refused untagged segment @seg (no CRC):
 * queue 2, MSN 1, the cause, M and D, the segment's DDP length and header,
 * then, with R, @rdmap bytes of its RDMAP header (RFC 5040 section 4.8).
 *
 * Return: its length.
 */
int hostile_term_expected(u8 *buf, const u8 *seg, u8 layer_etype, u8 ecode,
			  u8 rdmap)
{
	u8 body[4 + 2 + 18 + 28] = { layer_etype, ecode, rdmap ? 0xe0 : 0xc0 };
	const struct hostile_fpdu term = { 0x4147, 1, 0, body,
					   4 + 2 + 18 + rdmap, 2 };

	put_unaligned_be16(get_unaligned_be16(seg) - 18, body + 4);
	memcpy(body + 6, seg + 2, 18 + rdmap);
	return hostile_fpdu_put(buf, &term, false);
}

/**
 * hostile_recv_fpdu() - read one whole FPDU (no CRC)
 * @s: the socket
 * @buf: where
 * @size: room at @buf
 *
 * Return: its size, or 0 if it was cut short or did not fit.
 */
int hostile_recv_fpdu(struct socket *s, u8 *buf, int size)
{
	int n;

	if (hostile_recv_all(s, buf, 2) != 2)
		return 0;
	n = round_up(2 + get_unaligned_be16(buf), 4) + 4;
	if (n > size)
		return 0;
	return 2 + hostile_recv_all(s, buf + 2, n - 2);
}

/**
 * hostile_post() - post one signaled send work request on @qp
 * @qp: the QP
 * @wr_id: its cookie
 * @opcode: IB_WR_SEND, IB_WR_RDMA_WRITE or IB_WR_RDMA_READ
 * @mr: the MR of its local buffer
 * @off: where the buffer starts in @mr
 * @len: its length
 * @raddr: RDMA: the peer's tagged offset
 * @rkey: RDMA: the peer's STag
 *
 * Return: kiwi_post_send()'s.
 */
int hostile_post(struct ib_qp *qp, u64 wr_id, int opcode, struct ib_mr *mr,
		 u32 off, u32 len, u64 raddr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = mr->iova + off, .length = len, .lkey = mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr, .rkey = rkey,
	};
	const struct ib_send_wr *bad;

	return kiwi_post_send(qp, &wr.wr, &bad);
}

/**
 * hostile_poll() - wait up to about 3 s for one completion on the
 *	fixture's CQ
 * @t: the fixture
 * @wc: where it goes
 *
 * Return: 1, or 0 if none came.
 */
int hostile_poll(struct cmt *t, struct ib_wc *wc)
{
	int i, n = 0;

	for (i = 0; i < 300 && !n; i++) {
		n = kiwi_poll_cq(t->cq, 1, wc);
		if (!n)
			usleep_range(5000, 10000);
	}
	return n;
}

/**
 * hostile_prime() - send the initiator's first FPDU
 * @t: the fixture
 * @p: the peer, connected
 *
 * MPA revision 1: the responder sends nothing before the initiator's
 * first FPDU (RFC 5044). Send one, a SEND the oldest RECV takes, and
 * take its completion off the CQ.
 */
void hostile_prime(struct cmt *t, struct hostile_peer *p)
{
	const struct hostile_fpdu f = { HOSTILE_SEND_LAST, 1, 0, "go", 2 };
	struct kunit *test = t->test;
	struct ib_wc wc;
	u8 buf[32];
	int n;

	n = hostile_fpdu_put(buf, &f, false);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p->s, buf, n), n);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/**
 * hostile_expect_term() - expect the TERMINATE that ends the connection
 * @t: the fixture
 * @p: the peer; its socket is closed here
 * @layer_etype: the TERMINATE's first byte
 * @ecode: its error code
 *
 * The client reads a TERMINATE with this cause, then the FIN; the QP is
 * in ERROR, the id hears CLOSE(-EPROTO) and the next completion on the
 * fixture's CQ is a flush.
 */
void hostile_expect_term(struct cmt *t, struct hostile_peer *p, u8 layer_etype,
			 u8 ecode)
{
	struct kunit *test = t->test;
	const struct cmt_rec *r;
	struct ib_wc wc;
	u8 f[24], rest[64];
	int n;

	KUNIT_ASSERT_EQ(test, hostile_recv_all(p->s, f, sizeof(f)), 24);
	/* The rest of the TERMINATE, then a FIN, not a reset. */
	n = 2 + get_unaligned_be16(f);
	n = round_up(n, 4) + 4 - sizeof(f);
	KUNIT_ASSERT_LE(test, n, (int)sizeof(rest));
	KUNIT_EXPECT_EQ(test, hostile_recv_all(p->s, rest, n), n);
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(p->s, rest, sizeof(rest), 3000), 0);
	/* No reset after the FIN either (it would set EPIPE here). */
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->s->sk->sk_err), 0);
	KUNIT_EXPECT_EQ(test, f[2], 0x41);		/* L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x47);		/* RDMAP v1, TERMINATE */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 8), 2U);	/* queue */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), 1U);	/* MSN */
	KUNIT_EXPECT_EQ(test, f[20], layer_etype);
	KUNIT_EXPECT_EQ(test, f[21], ecode);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p->child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p->qp), IB_QPS_ERR);
	/* The RECV is flushed, not completed with the bad data. */
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	cmt_raw_close(p->s, false);
}

/**
 * hostile_init() - watch the case's TCP sockets
 * @test: the case
 *
 * A hostile peer must not leave a TCP socket behind: when the case ends,
 * kiwi_test_tcp_watch() checks that every socket it opened is gone.
 *
 * Context: process context.
 * Return: 0.
 */
int hostile_init(struct kunit *test)
{
	kiwi_test_tcp_watch(test);
	return 0;
}

/**
 * hostile_exit() - put back the module parameters a hostile case may
 *	change
 * @test: the case
 *
 * The .exit of the hostile suites: mpa_timeout_ms and max_pending back
 * to their defaults, 10000 and 32.
 */
void hostile_exit(struct kunit *test)
{
	cmt_param(test, "mpa_timeout_ms", "10000");
	cmt_param(test, "max_pending", "32");
}
