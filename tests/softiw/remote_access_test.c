// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_remote_access: tagged traffic, RDMA WRITE and READ, against
 * the raw peer of kiwi_softiw_hostile (hostile_peer.h). softiw's WRITE
 * and Read Request checked byte by byte on the wire; ORD 1 holding the
 * second READ back until the first one's response, sent in two segments,
 * is placed, and nothing around it; a SEND sent behind a READ in flight,
 * then modify_qp(ERROR) flushing both once, in order; a WRITE in two
 * segments sent a byte per TCP segment and a Read Request answered with
 * the MR's bytes; three Read Requests against IRD 1; Read Responses
 * taking turns with a SEND on the link; a FIN where a Read Response
 * should come; Read Responses that break a rule; a source MR
 * deregistered while its Read Response is half sent; and a READ the
 * responder refused with a TERMINATE.
 *
 * The table of remote access violations is kiwi_softiw_access
 * (access_test.c).
 */
#include <asm/unaligned.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/sock.h>

#include "cm.h"
#include "cm_fixture.h"
#include "hostile_peer.h"
#include "softiw.h"

/*
 * softiw's RDMA WRITE and Read Request on the wire, byte by byte (RFC
 * 5041, RFC 5040); ORD 1 holds the second READ back until the first one's
 * response is in; the response, in two segments, lands in the READ's
 * buffer only; a SEND after the second READ is transmitted, and then a
 * flush completes the READ in flight and the SEND once each, in order.
 */
static void hostile_rdma_wire(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22101);
	struct hostile_peer p;
	struct ib_wc wc;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	u8 f[160], data[100];
	int i, n;

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	memset(p.buf + 512, HOSTILE_GUARD, 1024);
	for (i = 0; i < 100; i++)
		p.buf[2048 + i] = i * 3;
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_WRITE, p.mr,
					   2048, 100, 0x5000, 0xabcdef01), 0);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 14 + 100 + 4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f), 114U);
	KUNIT_EXPECT_EQ(test, f[2], 0xc1);			/* T, L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x40);			/* RDMAP v1, WRITE */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 4), 0xabcdef01U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 8), 0x5000ULL);
	CMT_EXPECT_MEM(test, f + 16, p.buf + 2048, 100);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 2, IB_WR_RDMA_READ, p.mr,
					   520, 100, 0x7000, 0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 3, IB_WR_RDMA_READ, p.mr,
					   1024, 8, 0x8000, 0x55667788), 0);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 18 + 28 + 4);
	KUNIT_EXPECT_EQ(test, f[2], 0x41);			/* L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x41);			/* Read Request */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 8), 1U);	/* queue */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), 1U);	/* MSN */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 16), 0U);	/* MO */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 20), p.mr->lkey);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 24), p.mr->iova + 520);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 32), 100U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 36), 0x11223344U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 40), 0x7000ULL);
	/* ORD 1: the second READ waits for the first one's response. */
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(p.s, f, sizeof(f), 300), -EAGAIN);

	for (i = 0; i < 100; i++)
		data[i] = 0xc0 ^ i;
	n = hostile_tagged_put(f, 0x8142, p.mr->lkey, p.mr->iova + 520,
			       data, 60);
	n += hostile_tagged_put(f + n, HOSTILE_RRESP_LAST, p.mr->lkey,
				p.mr->iova + 580, data + 60, 40);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 100U);
	CMT_EXPECT_MEM(test, p.buf + 520, data, 100);
	KUNIT_EXPECT_EQ(test, p.buf[519], HOSTILE_GUARD);
	KUNIT_EXPECT_EQ(test, p.buf[620], HOSTILE_GUARD);

	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 52);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), 2U);	/* MSN */
	/* A SEND goes out behind the READ in flight... */
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 4, IB_WR_SEND, p.mr, 0, 4,
					   0, 0), 0);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 18 + 4 + 4);
	KUNIT_EXPECT_EQ(test, f[3], 0x43);			/* SEND */
	/* ... but completes after it: both are flushed, once each. */
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 0);
	KUNIT_ASSERT_EQ(test, kiwi_modify_qp(p.qp, &attr, IB_QP_STATE),
			0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 4ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, p.buf[1024], HOSTILE_GUARD);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * A WRITE in two segments sent one byte per TCP segment, then a Read
 * Request: placed where the STag and TO say, the rest of the buffer
 * untouched, and the Read Response carries the MR's bytes.
 */
static void hostile_rdma_remote(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22102);
	u8 *mem = cmt_buf(t, 1024);
	struct hostile_peer p;
	struct ib_mr *mr;
	u8 f[128];
	int i, n;

	memset(mem, HOSTILE_GUARD, 1024);
	mr = cmt_mr(t, mem + 256, HOSTILE_REGION, KIWI_ACCESS_ALL);
	hostile_peer_connect(t, &p, false, 1);
	n = hostile_tagged_put(f, 0x8140, mr->rkey, mr->iova + 10, "split ", 6);
	n += hostile_tagged_put(f + n, HOSTILE_WRITE_LAST, mr->rkey,
				mr->iova + 16, "write", 5);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f + i, 1), 1);
		usleep_range(200, 500);
	}
	n = hostile_rreq_put(f, 1, 0x99, 0x1234, 11, mr->rkey, mr->iova + 10);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 14 + 11 + 1 + 4);
	KUNIT_EXPECT_EQ(test, f[2], 0xc1);			/* T, L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x42);			/* Read Response */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 4), 0x99U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 8), 0x1234ULL);
	CMT_EXPECT_MEM(test, f + 16, "split write", 11);
	CMT_EXPECT_MEM(test, mem + 266, "split write", 11);
	for (i = 0; i < 1024; i++)
		if (i < 266 || i >= 277)
			KUNIT_EXPECT_EQ(test, mem[i], HOSTILE_GUARD);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * IRD 1: three Read Requests in one TCP segment; the second one is beyond
 * IRD: TERMINATE (RDMAP, remote operation, catastrophic stream, as siw).
 */
static void hostile_rdma_ird(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22103);
	struct hostile_peer p;
	struct ib_mr *mr;
	u8 f[192];
	int i, n = 0;

	hostile_peer_connect(t, &p, false, 1);
	mr = cmt_mr(t, p.buf + 2048, 1024, KIWI_ACCESS_ALL);
	for (i = 1; i <= 3; i++)
		n += hostile_rreq_put(f + n, i, 0x99, 0, 4, mr->rkey,
				      mr->iova);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	hostile_expect_term(t, &p, 0x02, 0x07);
	cmt_teardown(t);
}

#define HOSTILE_SHARE_READS	8
#define HOSTILE_SHARE_LEN	SZ_1M

/*
 * Read FPDUs until the local SEND's; return how many Read Responses
 * ended before it, or -1 if the stream ended first.
 */
static int hostile_rresps_before_send(struct socket *s, u8 *f, int size,
				      int *ended)
{
	int n;

	for (;;) {
		n = hostile_recv_fpdu(s, f, size);
		if (n <= 0)
			return -1;
		if ((f[3] & 0x0f) == 0x03)		/* SEND */
			return *ended;
		if ((f[3] & 0x0f) == 0x02 && (f[2] & 0x40))	/* last */
			++*ended;
	}
}

/* Wait up to 3 s for data at @s, and leave it there. Return: 1 if some. */
static int hostile_peek(struct socket *s)
{
	struct msghdr msg = {};
	u8 byte;
	struct kvec vec = { .iov_base = &byte, .iov_len = 1 };

	s->sk->sk_rcvtimeo = msecs_to_jiffies(3000);
	return kernel_recvmsg(s, &msg, &vec, 1, 1, MSG_PEEK);
}

/*
 * The peer keeps the IRD full of 1 MiB READs and reads nothing until a
 * SEND is posted. Between messages the transmitter takes turns
 * (softiw_tx_frame()): the SEND goes out once the response being sent
 * ends, so of the responses not all on the socket when the SEND is
 * posted at most one goes before it. How many were all on the socket by
 * then depends on TCP's send buffer (megabytes over lo): the transmitter
 * is held still (the endpoint's mutex) while they are counted, from the
 * FPDUs the QP sent, and the SEND is posted. Then the rest come, whole.
 */
static void hostile_rresp_shares_link(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22111);
	u8 *mem = cmt_buf(t, HOSTILE_SHARE_LEN);
	int rcvbuf = 64 * 1024, i, n, ret, ended = 0, done, before;
	struct hostile_peer p = {};
	struct softiw_cep *cep;
	struct ib_mr *mr;
	struct ib_wc wc;
	u32 per;
	u8 *f;

	f = kunit_kmalloc(test, 70 * 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	p.s = cmt_raw_socket(test);
	KUNIT_ASSERT_EQ(test, sock_setsockopt(p.s, SOL_SOCKET, SO_RCVBUF,
					      KERNEL_SOCKPTR(&rcvbuf),
					      sizeof(rcvbuf)), 0);
	hostile_peer_connect_ird(t, &p, false, 1, HOSTILE_SHARE_READS);
	mr = cmt_mr(t, mem, HOSTILE_SHARE_LEN, KIWI_ACCESS_ALL);
	/* FPDUs of one response: its MULPDU less the tagged DDP header */
	per = DIV_ROUND_UP(HOSTILE_SHARE_LEN, kiwi_softiw_qp_mulpdu(p.qp) -
			   (SOFTIW_TAGGED_HLEN - SOFTIW_MPA_LEN_SIZE));
	for (n = 0, i = 1; i <= HOSTILE_SHARE_READS; i++)
		n += hostile_rreq_put(f + n, i, 0x99, 0, HOSTILE_SHARE_LEN,
				      mr->rkey, mr->iova);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	/* the first response is under way: its first bytes are here */
	KUNIT_ASSERT_EQ(test, hostile_peek(p.s), 1);
	cep = p.child->provider_data;
	mutex_lock(&cep->lock);
	done = div_u64(kiwi_softiw_qp_tx_fpdus(p.qp), per);
	ret = hostile_post(p.qp, 7, IB_WR_SEND, p.mr, 0, 4, 0, 0);
	mutex_unlock(&cep->lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* responses are left for the SEND to overtake */
	KUNIT_ASSERT_LT(test, done + 1, HOSTILE_SHARE_READS);
	before = hostile_rresps_before_send(p.s, f, 70 * 1024, &ended);
	kunit_info(test, "%d of %d Read Responses sent by the post, %d before the SEND\n",
		   done, HOSTILE_SHARE_READS, before);
	KUNIT_EXPECT_GE(test, before, done);
	KUNIT_EXPECT_LE(test, before, done + 1);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	/* every response still comes, whole */
	while (ended < HOSTILE_SHARE_READS &&
	       hostile_rresps_before_send(p.s, f, 70 * 1024, &ended) >= 0)
		;
	KUNIT_EXPECT_EQ(test, ended, HOSTILE_SHARE_READS);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * The peer's FIN where the Read Response should come (@after: a READ
 * posted after the FIN): no response can follow it, so the connection
 * ends at once, CLOSE(-ECONNRESET), every work request flushed, the
 * READ queued beyond ORD 1 and the SEND behind it included.
 */
static void hostile_rdma_fin(struct kunit *test, u16 port, bool after)
{
	struct cmt *t = cmt_setup(test, port);
	const struct cmt_rec *r;
	struct hostile_peer p;
	struct ib_wc wc;
	int n, bad = 0;
	u8 f[64];

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	if (after) {
		KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(p.s, SHUT_WR), 0);
		KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t,
						     KIWI_CM_EVENT_DISCONNECT,
						     p.child));
	}
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_READ, p.mr,
					   520, 100, 0x7000, 0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 2, IB_WR_RDMA_READ, p.mr,
					   1024, 8, 0x8000, 0x55667788), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 3, IB_WR_SEND, p.mr, 0, 4,
					   0, 0), 0);
	if (!after) {
		n = hostile_recv_fpdu(p.s, f, sizeof(f));
		KUNIT_ASSERT_EQ(test, n, 2 + 18 + 28 + 4);
		KUNIT_EXPECT_EQ(test, f[3], 0x41);	/* Read Request */
		KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(p.s, SHUT_WR), 0);
	}
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_ERR);
	for (n = 0; n < 8 && kiwi_poll_cq(t->cq, 1, &wc) == 1; n++)
		bad += wc.status != IB_WC_WR_FLUSH_ERR;
	KUNIT_EXPECT_EQ(test, n, 4);	/* 2 READs, the SEND, the RECV */
	KUNIT_EXPECT_EQ(test, bad, 0);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

static void hostile_rdma_fin_for_read(struct kunit *test)
{
	hostile_rdma_fin(test, 22106, false);
}

static void hostile_rdma_read_after_fin(struct kunit *test)
{
	hostile_rdma_fin(test, 22107, true);
}

/**
 * struct hostile_rresp_seg - one Read Response segment a case sends
 * @ctrl: its control bytes: HOSTILE_RRESP_LAST, or 0x8142 without L
 * @stag_xor: flips bits of the READ's sink STag
 * @off: its TO, from the READ's sink TO
 * @len: payload bytes
 */
struct hostile_rresp_seg {
	u16 ctrl;
	u32 stag_xor;
	u32 off;
	u16 len;
};

/**
 * struct hostile_rresp_case - a Read Response that breaks a rule
 * @idle: no READ is posted
 * @seg: the segments sent, in order; @seg[1].ctrl 0 if only one
 * @layer_etype: the TERMINATE's first byte
 * @ecode: its error code
 * @desc: what is wrong
 */
struct hostile_rresp_case {
	bool idle;
	struct hostile_rresp_seg seg[2];
	u8 layer_etype;
	u8 ecode;
	const char *desc;
};

#define HOSTILE_RRESP_MORE	0x8142	/* T, no L, Read Response */
#define HOSTILE_READ_LEN	100

static const struct hostile_rresp_case hostile_rresp_cases[] = {
	{ false, { { HOSTILE_RRESP_LAST, 0, 0, 108 } }, 0x11, 0x01,
	  "longer than the READ" },
	{ false, { { HOSTILE_RRESP_LAST, 0x80, 0, 100 } }, 0x11, 0x00,
	  "another sink STag" },
	{ false, { { HOSTILE_RRESP_LAST, 0, 4, 96 } }, 0x11, 0x01,
	  "another TO" },
	{ false, { { HOSTILE_RRESP_LAST, 0, 0, 60 } }, 0x11, 0x01,
	  "L early" },
	{ false, { { HOSTILE_RRESP_MORE, 0, 0, 100 },
		   { HOSTILE_RRESP_LAST, 0, 100, 8 } }, 0x11, 0x01,
	  "L late, bytes beyond" },
	{ false, { { HOSTILE_RRESP_MORE, 0, 0, 60 },
		   { HOSTILE_RRESP_LAST, 0, 64, 36 } }, 0x11, 0x01,
	  "second segment, TO gap" },
	{ true, { { HOSTILE_RRESP_LAST, 0, 0, 8 } }, 0x10, 0x00,
	  "idle QP" },
};

static void hostile_rresp_case_desc(const struct hostile_rresp_case *c,
				    char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile_rresp_case, hostile_rresp_cases,
		  hostile_rresp_case_desc);

/*
 * A Read Response that does not match the READ waiting for it (or comes
 * with none waiting) ends the connection with the TERMINATE of
 * Documentation/softiw.rst; the READ is flushed and no byte outside its
 * buffer is written.
 */
static void hostile_rresp_bad(struct kunit *test)
{
	const struct hostile_rresp_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 22108);
	const struct hostile_rresp_seg *g;
	struct hostile_peer p;
	u8 f[320], data[128];
	int i, n = 0;

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	memset(p.buf + 512, HOSTILE_GUARD, 1024);
	if (!c->idle) {
		KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_READ,
						   p.mr, 520, HOSTILE_READ_LEN,
						   0x7000, 0x11223344), 0);
		KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)), 52);
		KUNIT_EXPECT_EQ(test, f[3], 0x41);	/* Read Request */
	}
	for (i = 0; i < sizeof(data); i++)
		data[i] = 0xa0 ^ i;
	for (g = c->seg; g < c->seg + ARRAY_SIZE(c->seg) && g->ctrl; g++)
		n += hostile_tagged_put(f + n, g->ctrl, p.mr->lkey ^ g->stag_xor,
					p.mr->iova + 520 + g->off, data,
					g->len);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	hostile_expect_term(t, &p, c->layer_etype, c->ecode);
	for (i = 512; i < 1536; i++)
		if ((i < 520 || i >= 520 + HOSTILE_READ_LEN) &&
		    p.buf[i] != HOSTILE_GUARD)
			break;
	KUNIT_EXPECT_EQ(test, i, 1536);
	cmt_teardown(t);
}

/**
 * struct hostile_big - a large vmalloc()ed MR, released before the QPs
 * @mem: the memory, NULL once freed
 * @mr: its MR, NULL once deregistered
 */
struct hostile_big {
	void *mem;
	struct ib_mr *mr;
};

static void hostile_big_release(struct kunit_resource *res)
{
	struct hostile_big *b = res->data;

	if (b->mr)
		kiwi_dereg_mr(b->mr);
	vfree(b->mem);
	kfree(b);
}

/* More than TCP buffers on both ends hold while the peer does not read. */
#define HOSTILE_BIG	(8 << 20)

/* Read and drop @n bytes. Return: 0, or the error. */
static int hostile_skip(struct socket *s, u8 *scratch, int size, int n)
{
	int ret;

	while (n > 0) {
		ret = cmt_raw_recv(s, scratch, min(n, size), 3000);
		if (ret <= 0)
			return ret ? ret : -ENOTCONN;
		n -= ret;
	}
	return 0;
}

/*
 * The source MR is deregistered while its Read Response is half sent
 * (the peer stopped reading): the rest is not read from the freed memory
 * (KASAN would see it) but refused with a TERMINATE (RDMAP, remote
 * protection, invalid STag) naming the Read Request, header and body,
 * with M, D and R, as siw does; CLOSE(-EPROTO), QP in ERROR.
 */
static void hostile_rdma_dereg_mid_response(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22109);
	struct hostile_big *b = kzalloc(sizeof(*b), GFP_KERNEL);
	u8 rreq[64], want[96], f[96], *scratch;
	const struct cmt_rec *r;
	struct hostile_peer p;
	int n, len, segs = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_big_release,
							 GFP_KERNEL, b));
	scratch = kunit_kmalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	b->mem = vzalloc(HOSTILE_BIG);
	KUNIT_ASSERT_NOT_NULL(test, b->mem);
	b->mr = kiwi_reg_kernel_mr(t->pd, b->mem, HOSTILE_BIG,
				   KIWI_ACCESS_ALL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b->mr));
	hostile_peer_connect(t, &p, false, 1);
	n = hostile_rreq_put(rreq, 1, 0x99, 0x4000, HOSTILE_BIG, b->mr->rkey,
			     b->mr->iova);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, rreq, n), n);
	msleep(300);
	kiwi_dereg_mr(b->mr);
	b->mr = NULL;
	vfree(b->mem);
	b->mem = NULL;
	/* Read Response segments, then the TERMINATE. */
	for (;;) {
		KUNIT_ASSERT_EQ(test, hostile_recv_all(p.s, f, 4), 4);
		if (f[3] != 0x42)
			break;
		KUNIT_ASSERT_EQ(test, f[2] & 0x80, 0x80);	/* tagged */
		KUNIT_ASSERT_EQ(test, f[2] & 0x40, 0);		/* never L */
		n = round_up(2 + get_unaligned_be16(f), 4) + 4 - 4;
		KUNIT_ASSERT_EQ(test, hostile_skip(p.s, scratch, 4096, n), 0);
		segs++;
	}
	KUNIT_EXPECT_GT(test, segs, 0);
	len = hostile_term_expected(want, rreq, 0x01, 0x00, 28);
	KUNIT_ASSERT_EQ(test, hostile_recv_all(p.s, f + 4, len - 4), len - 4);
	CMT_EXPECT_MEM(test, f, want, len);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_ERR);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * The requester's side: a TERMINATE where the Read Response should be
 * (the responder refused the request) completes the READ with an error,
 * and everything posted after it; CLOSE(-ECONNRESET).
 */
static void hostile_rdma_read_refused(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22110);
	const struct cmt_rec *r;
	struct hostile_peer p;
	struct ib_wc wc;
	u8 f[96], want[96];
	int n, bad = 0;

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_READ, p.mr,
					   520, 100, 0x7000, 0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 2, IB_WR_SEND, p.mr, 0, 4,
					   0, 0), 0);
	KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)), 52);
	KUNIT_EXPECT_EQ(test, f[3], 0x41);		/* Read Request */
	n = hostile_term_expected(want, f, 0x01, 0x00, 28);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, want, n), n);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	for (n = 0; n < 8 && kiwi_poll_cq(t->cq, 1, &wc) == 1; n++)
		bad += wc.status == IB_WC_SUCCESS;
	KUNIT_EXPECT_EQ(test, n, 2);	/* the SEND, the RECV */
	KUNIT_EXPECT_EQ(test, bad, 0);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

static struct kunit_case hostile_rdma_cases[] = {
	KUNIT_CASE(hostile_rdma_wire),
	KUNIT_CASE(hostile_rdma_remote),
	KUNIT_CASE(hostile_rdma_ird),
	KUNIT_CASE(hostile_rresp_shares_link),
	KUNIT_CASE(hostile_rdma_fin_for_read),
	KUNIT_CASE(hostile_rdma_read_after_fin),
	KUNIT_CASE_PARAM(hostile_rresp_bad, hostile_rresp_case_gen_params),
	KUNIT_CASE(hostile_rdma_dereg_mid_response),
	KUNIT_CASE(hostile_rdma_read_refused),
	{}
};

static struct kunit_suite hostile_rdma_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_remote_access",
	.init = hostile_init,
	.exit = hostile_exit,
	.test_cases = hostile_rdma_cases,
};

kunit_test_suites(&hostile_rdma_suite);
