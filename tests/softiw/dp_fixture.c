// SPDX-License-Identifier: GPL-2.0
/*
 * The datapath suites' two connected QPs: see dp_fixture.h.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "verbs_util.h"
#include "cm_fixture.h"
#include "dp_fixture.h"
#include "kiwi_test.h"
#include "softiw.h"

#define DPT_WAIT_MS	5000
#define DPT_TAGGED_HDR	14	/* tagged DDP header, in a ULPDU */

static void dpt_comp(struct ib_cq *cq, void *ctx)
{
	struct dpt_side *s = ctx;

	atomic_inc(&s->calls);
}

/* QPs go first: they complete into the CQs. */
static void dpt_release(struct kunit_resource *res)
{
	struct dpt *d = res->data;
	int i;

	cmt_release(d->t);
	for (i = 0; i < 2; i++) {
		if (d->s[i].cq)
			kiwi_destroy_cq(d->s[i].cq);
		vfree(d->s[i].buf);
	}
}

/**
 * dpt_exit() - restore the module parameters a case may have set
 * @test: the test
 *
 * The exit of the suites on the pair: mpa_crc off, dead_peer_ms at
 * its default.
 */
void dpt_exit(struct kunit *test)
{
	cmt_param(test, "mpa_crc", "N");
	cmt_param(test, "dead_peer_ms", "60000");
}

/**
 * dpt_setup() - two QPs on the fixture's device, not connected
 * @test: the test
 * @port: the TCP port of the fixture's listener
 * @cqe: entries of each side's CQ
 * @sq: send queue size of each QP
 * @rq: receive queue size of each QP
 *
 * Each side has a CQ of its own, for sends and receives, and
 * DPT_BUF bytes registered with KIWI_ACCESS_ALL. All of it is
 * released when the test case ends.
 *
 * Return: the pair; the test is aborted on failure.
 */
struct dpt *dpt_setup(struct kunit *test, u16 port, u32 cqe, u32 sq,
		      u32 rq)
{
	struct dpt *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ib_cq *cq;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->t = cmt_setup(test, port);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 dpt_release,
							 GFP_KERNEL, d));
	for (i = 0; i < 2; i++) {
		struct dpt_side *s = &d->s[i];
		struct ib_qp_init_attr init = {
			KT_QP_RC,
			.cap = { .max_send_wr = sq, .max_recv_wr = rq,
				 .max_send_sge = 2, .max_recv_sge = 2 },
		};

		s->buf = vzalloc(DPT_BUF);
		KUNIT_ASSERT_NOT_NULL(test, s->buf);
		cq = kt_cq(d->t->dev, cqe, dpt_comp, s);
		KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
		s->cq = cq;
		s->mr = cmt_mr(d->t, s->buf, DPT_BUF, KIWI_ACCESS_ALL);
		init.send_cq = cq;
		init.recv_cq = cq;
		s->qp = cmt_qp_init(d->t, &init);
	}
	return d;
}

/**
 * dpt_connect_depth() - connect the pair with the depths asked for
 * @d: the pair
 * @ird: the IRD s[1] accepts with
 * @ord: the ORD of both ends
 *
 * Connect s[0] (IRD 4, ORD @ord) to s[1] (accepting with @ird and @ord),
 * over the loopback address of the fixture's family.
 */
void dpt_connect_depth(struct dpt *d, u32 ird, u32 ord)
{
	struct kunit *test = d->t->test;
	struct kiwi_conn_param p = {
		.ird = ird, .ord = ord, .qpn = d->s[1].qp->qp_num,
	};
	struct kiwi_conn_param c = {
		.private_data = "dp", .private_data_len = 2,
		.ird = 4, .ord = ord, .qpn = d->s[0].qp->qp_num,
	};
	const struct cmt_rec *r;

	cmt_listen(d->t);
	d->id[0] = cmt_connect_param(d->t, d->t->port, &c);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	d->id[1] = r->id;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(d->id[1], &p), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(d->t, KIWI_CM_EVENT_ESTABLISHED,
					     d->id[1]));
	r = cmt_wait(d->t, KIWI_CM_EVENT_CONNECT_REPLY, d->id[0]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, r->status, 0);
	cmt_expect_ends(d->t, d->id[0], KIWI_TEST_LO, d->id[1], KIWI_TEST_LO);
}

/**
 * dpt_connect() - connect the pair, IRD and ORD 4 on each end
 * @d: the pair
 */
void dpt_connect(struct dpt *d)
{
	dpt_connect_depth(d, 4, 4);
}

/**
 * dpt_recv() - post a RECV into @s's buffer
 * @s: the side
 * @wr_id: its wr_id
 * @off: where in the buffer
 * @len: bytes
 *
 * Return: what kiwi_post_recv() returns.
 */
int dpt_recv(struct dpt_side *s, u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = s->mr->iova + off, .length = len, .lkey = s->mr->lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	};
	const struct ib_recv_wr *bad = NULL;

	return kiwi_post_recv(s->qp, &wr, &bad);
}

/**
 * dpt_send() - post a SEND of @s's buffer
 * @s: the side
 * @wr_id: its wr_id
 * @off: where in the buffer
 * @len: bytes
 * @flags: its send_flags
 *
 * Return: what kiwi_post_send() returns.
 */
int dpt_send(struct dpt_side *s, u64 wr_id, u32 off, u32 len,
	     u32 flags)
{
	struct ib_sge sge = {
		.addr = s->mr->iova + off, .length = len, .lkey = s->mr->lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = flags,
	};
	const struct ib_send_wr *bad = NULL;

	return kiwi_post_send(s->qp, &wr, &bad);
}

/**
 * dpt_poll() - wait for one completion
 * @s: the side whose CQ is polled
 * @wc: the completion
 *
 * Return: 1, 0 on timeout, or poll's error.
 */
int dpt_poll(struct dpt_side *s, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(DPT_WAIT_MS);
	int n;

	do {
		n = kiwi_poll_cq(s->cq, 1, wc);
		if (n)
			return n;
		usleep_range(200, 1000);
	} while (time_before(jiffies, end));
	return 0;
}

/**
 * dpt_fill() - a pattern of bytes, a different one for each @seed
 * @buf: where
 * @len: bytes
 * @seed: the first byte
 */
void dpt_fill(u8 *buf, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = seed + i * 7 + (i >> 8);
}

const struct dpt_size_param dpt_size_params[] = {
	{ "0 nocrc", DPT_ZERO, false }, { "0 crc", DPT_ZERO, true },
	{ "1 nocrc", DPT_ONE, false }, { "1 crc", DPT_ONE, true },
	{ "P-1 nocrc", DPT_P_MINUS, false }, { "P-1 crc", DPT_P_MINUS, true },
	{ "P nocrc", DPT_P, false }, { "P crc", DPT_P, true },
	{ "P+1 nocrc", DPT_P_PLUS, false }, { "P+1 crc", DPT_P_PLUS, true },
	{ "3P+5 nocrc", DPT_MULTI, false }, { "3P+5 crc", DPT_MULTI, true },
	{ "max nocrc", DPT_MAX, false }, { "max crc", DPT_MAX, true },
};

static void dpt_size_desc(const struct dpt_size_param *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dpt_size, dpt_size_params, dpt_size_desc);

/**
 * dpt_size_gen() - the rows of dpt_size_params, for KUNIT_CASE_PARAM()
 * @prev: the row before, or NULL for the first
 * @desc: set to the row's name
 *
 * Return: the next row, or NULL after the last.
 */
const void *dpt_size_gen(const void *prev, char *desc)
{
	return dpt_size_gen_params(prev, desc);
}

/**
 * dpt_len() - the length of a message of a size of enum dpt_size
 * @size: the size
 * @p: the payload of one full FPDU
 *
 * Return: bytes.
 */
u32 dpt_len(u8 size, u32 p)
{
	static const u32 add[] = {
		[DPT_P_MINUS] = -1, [DPT_P] = 0, [DPT_P_PLUS] = 1,
	};

	switch (size) {
	case DPT_ZERO:
		return 0;
	case DPT_ONE:
		return 1;
	case DPT_MULTI:
		return 3 * p + 5;
	case DPT_MAX:
		return SOFTIW_MAX_MSG;
	default:
		return p + add[size];
	}
}

/**
 * dpt_expect_terminated() - the peer's TERMINATE and both QPs in
 *	ERROR after a protocol error
 * @d: the pair
 * @layer: the TERMINATE's layer
 * @etype: its error type
 * @ecode: its error code
 *
 * s[1] found the error, its CLOSE is -EPROTO; s[0] got the TERMINATE,
 * its CLOSE is -ECONNRESET.
 */
void dpt_expect_terminated(struct dpt *d, u32 layer, u32 etype,
			   u32 ecode)
{
	struct kunit *test = d->t->test;
	const struct cmt_rec *r;
	u32 ctrl = 0;

	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[0]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_terminate(d->s[0].qp, &ctrl));
	KUNIT_EXPECT_EQ(test, ctrl >> 28, layer);
	KUNIT_EXPECT_EQ(test, (ctrl >> 24) & 0xf, etype);
	KUNIT_EXPECT_EQ(test, (ctrl >> 16) & 0xff, ecode);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(d->s[0].qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(d->s[1].qp), IB_QPS_ERR);
}

/**
 * dpt_expect_wc() - @s's next completion, successful
 * @test: the test
 * @s: the side
 * @wr_id: the wr_id it must have
 * @opcode: its opcode
 * @byte_len: its byte_len
 */
void dpt_expect_wc(struct kunit *test, struct dpt_side *s, u64 wr_id,
		   int opcode, u32 byte_len)
{
	struct ib_wc wc = {};

	KUNIT_ASSERT_EQ(test, dpt_poll(s, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
	KUNIT_EXPECT_EQ(test, wc.byte_len, byte_len);
}

/**
 * dpt_rdma_setup_family() - the pair connected for RDMA
 * @test: the test
 * @dp: set to the pair
 * @port: the TCP port of the listener
 * @family: the address family to connect over
 * @crc: mpa_crc on
 * @room: set to the payload of a full tagged FPDU
 */
void dpt_rdma_setup_family(struct kunit *test, struct dpt **dp,
			   int port, int family, bool crc, u32 *room)
{
	struct dpt *d;

	cmt_param(test, "mpa_crc", crc ? "Y" : "N");
	d = dpt_setup(test, port, 16, 8, 8);
	d->t->family = family;
	dpt_connect(d);
	*room = kiwi_softiw_qp_mulpdu(d->s[0].qp) - DPT_TAGGED_HDR;
	*dp = d;
}

/**
 * dpt_rdma_setup() - the pair connected for RDMA over 127.0.0.1
 * @test: the test
 * @dp: set to the pair
 * @port: the TCP port of the listener
 * @crc: mpa_crc on
 * @room: set to the payload of a full tagged FPDU
 */
void dpt_rdma_setup(struct kunit *test, struct dpt **dp, int port,
		    bool crc, u32 *room)
{
	dpt_rdma_setup_family(test, dp, port, AF_INET, crc, room);
}

/**
 * dpt_send_inv() - post a signaled SEND with Invalidate
 * @s: the side
 * @wr_id: its wr_id
 * @len: bytes, from the start of @s's buffer
 * @rkey: the STag the peer is to invalidate
 *
 * Return: what kiwi_post_send() returns.
 */
int dpt_send_inv(struct dpt_side *s, u64 wr_id, u32 len, u32 rkey)
{
	struct ib_sge sge = {
		.addr = s->mr->iova, .length = len, .lkey = s->mr->lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND_WITH_INV,
		.send_flags = IB_SEND_SIGNALED, .ex.invalidate_rkey = rkey,
	};
	const struct ib_send_wr *bad = NULL;

	return kiwi_post_send(s->qp, &wr, &bad);
}
