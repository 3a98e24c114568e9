// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_datapath: SEND/RECV between two softiw QPs connected over
 * loopback (127.0.0.1; order, graceful close and the mixed RDMA case over
 * ::1 too): message sizes around the MULPDU with CRC on and off, order,
 * unsignaled sends, CQ notification and overflow, protocol errors that
 * end in a TERMINATE, and the flush rules (post in ERROR, modify to
 * ERROR, graceful close, destroy with SENDs stalled on a raw peer that
 * never reads).
 */
#include <asm/unaligned.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "verbs_util.h"
#include "cm_fixture.h"
#include "hostile_peer.h"
#include "kiwi_test.h"
#include "softiw.h"

#define DPT_DDP_HDR	18	/* untagged DDP header, in a ULPDU */
#define DPT_BUF		(SOFTIW_MAX_MSG + 64)
#define DPT_WAIT_MS	5000
#define DPT_CHUNK	SZ_64K

/**
 * struct dpt_side - one end of the connection
 * @cq: its CQ, for sends and receives
 * @qp: its QP
 * @mr: @buf, registered with local write access
 * @buf: DPT_BUF bytes
 * @calls: completion handler calls
 */
struct dpt_side {
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
	u8 *buf;
	atomic_t calls;
};

/**
 * struct dpt - two connected QPs
 * @t: the connection fixture
 * @s: [0] the active end, [1] the passive end
 * @id: their cm_ids
 */
struct dpt {
	struct cmt *t;
	struct dpt_side s[2];
	struct kiwi_cm_id *id[2];
};

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

static void dpt_exit(struct kunit *test)
{
	cmt_param(test, "mpa_crc", "N");
	cmt_param(test, "dead_peer_ms", "60000");
}

static struct dpt *dpt_setup(struct kunit *test, u16 port, u32 cqe, u32 sq,
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

/*
 * Connect s[0] (IRD 4, ORD @ord) to s[1] (accepting with @ird and @ord),
 * over the loopback address of the fixture's family.
 */
static void dpt_connect_depth(struct dpt *d, u32 ird, u32 ord)
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

static void dpt_connect(struct dpt *d)
{
	dpt_connect_depth(d, 4, 4);
}

static int dpt_recv(struct dpt_side *s, u64 wr_id, u32 off, u32 len)
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

static int dpt_send(struct dpt_side *s, u64 wr_id, u32 off, u32 len,
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

/* Wait for one completion. Return: 1, 0 on timeout, or poll's error. */
static int dpt_poll(struct dpt_side *s, struct ib_wc *wc)
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

/* Wait until the handler was called @want times; true if it was. */
static bool dpt_wait_calls(struct dpt_side *s, int want)
{
	int i;

	for (i = 0; i < 200 && atomic_read(&s->calls) < want; i++)
		usleep_range(5000, 10000);
	msleep(20);	/* room for a call that should not come */
	return atomic_read(&s->calls) == want;
}

static void dpt_fill(u8 *buf, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = seed + i * 7 + (i >> 8);
}

enum dpt_size {
	DPT_ZERO, DPT_ONE, DPT_P_MINUS, DPT_P, DPT_P_PLUS, DPT_MULTI, DPT_MAX,
};

/**
 * struct dpt_size_param - a message size and a CRC setting
 * @name: description
 * @size: enum dpt_size; P is the payload of one full FPDU (MULPDU - 18)
 * @crc: mpa_crc
 */
struct dpt_size_param {
	const char *name;
	u8 size;
	bool crc;
};

static const struct dpt_size_param dpt_size_params[] = {
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

static u32 dpt_len(u8 size, u32 p)
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

/* One message of each size arrives whole, in as many FPDUs as it needs. */
static void dp_message_size(struct kunit *test)
{
	const struct dpt_size_param *p = test->param_value;
	struct dpt_side *a, *b;
	struct ib_wc wc;
	u64 fpdus;
	u32 len, payload;
	struct dpt *d;

	cmt_param(test, "mpa_crc", p->crc ? "Y" : "N");
	d = dpt_setup(test, 23100 + (p - dpt_size_params), 4, 2, 2);
	a = &d->s[0];
	b = &d->s[1];
	KUNIT_ASSERT_EQ(test, dpt_recv(b, 1, 0, SOFTIW_MAX_MSG + 8), 0);
	dpt_connect(d);
	payload = kiwi_softiw_qp_mulpdu(a->qp) - DPT_DDP_HDR;
	KUNIT_ASSERT_GT(test, payload, 0U);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_mulpdu(a->qp),
			kiwi_softiw_qp_mulpdu(b->qp));
	len = dpt_len(p->size, payload);
	dpt_fill(a->buf, len, 3);
	memset(b->buf, 0xa5, len + 8);
	fpdus = kiwi_softiw_qp_tx_fpdus(a->qp);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 2, 0, len, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, b->qp);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, len), 0);
	KUNIT_EXPECT_EQ(test, b->buf[len], 0xa5);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_tx_fpdus(a->qp) - fpdus,
			(u64)max(1U, DIV_ROUND_UP(len, payload)));
	cmt_teardown(d->t);
}

/* A connection takes its FPDU buffer with its first SEND, not before. */
static void dp_tx_buffer_on_first_send(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23280, 4, 2, 2);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, dpt_recv(b, 1, 0, 4096), 0);
	dpt_connect(d);
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_tx_buffered(a->qp));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_tx_buffered(b->qp));
	dpt_fill(a->buf, 100, 7);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 2, 0, 100, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 100U);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, 100), 0);
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_tx_buffered(a->qp));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_tx_buffered(b->qp));
	cmt_teardown(d->t);
}

/*
 * 64 messages of different lengths arrive in order, each in its RECV:
 * over 127.0.0.1, then over ::1.
 */
static void dp_many_in_order(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23201, 256, 64, 64);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	int i, bad = 0, sbad = 0;
	struct ib_wc wc;
	u32 len;

	d->t->family = kiwi_test_family(test);
	dpt_connect(d);
	for (i = 0; i < 64; i++)
		KUNIT_ASSERT_EQ(test, dpt_recv(b, i, i * 8192, 8192), 0);
	for (i = 0; i < 64; i++) {
		len = (i * 97) % 8000 + 1;
		dpt_fill(a->buf + i * 8192, len, i);
		KUNIT_ASSERT_EQ(test, dpt_send(a, 100 + i, i * 8192, len,
					       IB_SEND_SIGNALED), 0);
	}
	for (i = 0; i < 64; i++) {
		len = (i * 97) % 8000 + 1;
		KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
		bad += wc.wr_id != i || wc.status || wc.byte_len != len ||
		       memcmp(a->buf + i * 8192, b->buf + i * 8192, len);
		KUNIT_ASSERT_EQ(test, dpt_poll(a, &wc), 1);
		sbad += wc.wr_id != 100 + i || wc.status;
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, sbad, 0);
	cmt_teardown(d->t);
}

/* Only the signaled send of eight produces a completion. */
static void dp_unsignaled(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23202, 32, 8, 8);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	struct ib_wc wc;
	int i;

	dpt_connect(d);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, dpt_recv(b, i, i * 64, 64), 0);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, dpt_send(a, i, 0, 10 + i,
					       i == 7 ? IB_SEND_SIGNALED : 0),
				0);
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.byte_len, 10U + i);
	}
	KUNIT_ASSERT_EQ(test, dpt_poll(a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	msleep(50);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 0);
	cmt_teardown(d->t);
}

static int dpt_move(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return kiwi_modify_qp(qp, &attr, IB_QP_STATE);
}

#define DPT_FENCE_AT	5	/* the first fenced SEND's wr_id */
#define DPT_FLUSH_SQ	9	/* a READ, then SENDs 1 to 8 */
#define DPT_FLUSH_RECVS	3

/* A signaled SEND of 16 bytes of @p's buffer, @flags added. */
static int dpt_peer_send(struct hostile_peer *p, u64 wr_id, u32 flags)
{
	struct ib_sge sge = {
		.addr = p->mr->iova, .length = 16, .lkey = p->mr->lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED | flags,
	};
	const struct ib_send_wr *bad = NULL;

	return kiwi_post_send(p->qp, &wr, &bad);
}

/*
 * modify_qp(ERROR) completes every outstanding WR once, before it
 * returns. A raw peer never answers the READ: SENDs 1 to 4 go out
 * behind it but complete only after it, SEND 5 is fenced and waits for
 * it, with 6 to 8 behind. All nine complete flushed, once each, in
 * posting order, then the RECVs; the stream is reset, CLOSE(-ECONNABORTED).
 */
static void dp_flush_on_error(struct kunit *test)
{
	static const struct hostile_opts o = {
		.nrecv = 1 + DPT_FLUSH_RECVS, .ird = 1, .ord = 1, .sq = 16,
	};
	struct cmt *t = cmt_setup(test, 23203);
	struct hostile_peer p = {};
	const struct cmt_rec *r;
	struct ib_wc wc[16];
	int i, n;
	u8 f[64];

	hostile_peer_open(t, &p, &o);
	hostile_prime(t, &p);	/* RECV 0 */
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 0, IB_WR_RDMA_READ, p.mr,
					   2048, 64, 0x7000, 0x11223344), 0);
	for (i = 1; i < DPT_FLUSH_SQ; i++)
		KUNIT_ASSERT_EQ(test, dpt_peer_send(&p, i, i == DPT_FENCE_AT ?
						    IB_SEND_FENCE : 0), 0);
	KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)),
			2 + 18 + 28 + 4);
	KUNIT_EXPECT_EQ(test, f[3], 0x41);			/* Read Request */
	for (i = 1; i < DPT_FENCE_AT; i++) {
		KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)),
				2 + 18 + 16 + 4);
		KUNIT_EXPECT_EQ(test, f[3], 0x43);		/* SEND */
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), (u32)i);
	}
	/* Sent or not, none completes ahead of the READ. */
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, wc), 0);
	KUNIT_ASSERT_EQ(test, dpt_move(p.qp, IB_QPS_ERR), 0);
	n = kiwi_poll_cq(t->cq, ARRAY_SIZE(wc), wc);
	KUNIT_ASSERT_EQ(test, n, DPT_FLUSH_SQ + DPT_FLUSH_RECVS);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, i < DPT_FLUSH_SQ ? (u64)i :
				(u64)(i - DPT_FLUSH_SQ + 1));
		KUNIT_EXPECT_EQ(test, wc[i].opcode,
				!i ? IB_WC_RDMA_READ :
				i < DPT_FLUSH_SQ ? IB_WC_SEND : IB_WC_RECV);
	}
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, wc), 0);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_ERR);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNABORTED);
	/* Nothing more went out: the reset is all the peer reads. */
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(p.s, f, sizeof(f), 3000),
			-ECONNRESET);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/* Posts to a QP in ERROR complete at once; outside RTS a send is refused. */
static void dp_post_in_error(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23204, 16, 4, 4);
	struct dpt_side *a = &d->s[0];
	struct ib_sge sge = { .addr = a->mr->iova, .length = 8,
				.lkey = a->mr->lkey };
	struct ib_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				   .opcode = IB_WR_SEND };
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, kiwi_post_send(a->qp, &wr, &bad), -ENOTCONN);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr);
	KUNIT_ASSERT_EQ(test, dpt_recv(a, 1, 0, 64), 0);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 0);
	KUNIT_ASSERT_EQ(test, dpt_move(a->qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	/* Unsignaled, yet a flushed send completes. */
	KUNIT_EXPECT_EQ(test, dpt_send(a, 2, 0, 8, 0), 0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, dpt_recv(a, 3, 0, 8), 0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 0);
	cmt_teardown(d->t);
}

/* SGEs are checked against their MR; queues are bounded by their size. */
static void dp_post_checks(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23205, 16, 2, 2);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	struct ib_mr *ro = cmt_mr(d->t, b->buf, 4096, 0);
	struct ib_sge sge[3] = {
		{ .addr = ro->iova, .length = 8, .lkey = ro->lkey },
	};
	struct ib_recv_wr rwr[2] = {
		{ .wr_id = 1, .sg_list = sge, .num_sge = 1, .next = &rwr[1] },
		{ .wr_id = 2, .sg_list = sge, .num_sge = 1 },
	};
	struct ib_send_wr swr = { .sg_list = sge, .num_sge = 2,
				    .opcode = IB_WR_SEND };
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;

	KUNIT_EXPECT_EQ(test, kiwi_post_recv(b->qp, &rwr[1], &rbad), -EACCES);
	sge[0] = (struct ib_sge) { .addr = b->mr->iova, .length = 8,
				     .lkey = b->mr->lkey ^ 1 };
	KUNIT_EXPECT_EQ(test, kiwi_post_recv(b->qp, &rwr[1], &rbad), -EINVAL);
	sge[0] = (struct ib_sge) { .addr = b->mr->iova + DPT_BUF - 4,
				     .length = 8, .lkey = b->mr->lkey };
	KUNIT_EXPECT_EQ(test, kiwi_post_recv(b->qp, &rwr[1], &rbad), -EINVAL);
	sge[0].addr = b->mr->iova;
	rwr[1].num_sge = 3;
	KUNIT_EXPECT_EQ(test, kiwi_post_recv(b->qp, rwr, &rbad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, rbad, &rwr[1]);
	rwr[1].num_sge = 1;
	KUNIT_EXPECT_EQ(test, kiwi_post_recv(b->qp, &rwr[1], &rbad), 0);
	KUNIT_EXPECT_EQ(test, kiwi_post_recv(b->qp, &rwr[1], &rbad), -ENOMEM);

	dpt_connect(d);
	sge[0] = (struct ib_sge) { .addr = a->mr->iova, .length = SZ_512K,
				     .lkey = a->mr->lkey };
	sge[1] = sge[0];
	sge[1].length = SZ_512K + 1;
	KUNIT_EXPECT_EQ(test, kiwi_post_send(a->qp, &swr, &sbad), -EMSGSIZE);
	/* An RDMA READ lands in local memory: it needs local write. */
	swr.opcode = IB_WR_RDMA_READ;
	swr.num_sge = 1;
	sge[0] = (struct ib_sge) { .addr = ro->iova, .length = 8,
				     .lkey = ro->lkey };
	KUNIT_EXPECT_EQ(test, kiwi_post_send(a->qp, &swr, &sbad), -EACCES);
	swr.opcode = (enum ib_wr_opcode)99;
	KUNIT_EXPECT_EQ(test, kiwi_post_send(a->qp, &swr, &sbad), -EOPNOTSUPP);
	KUNIT_EXPECT_PTR_EQ(test, sbad, &swr);
	cmt_teardown(d->t);
}

/* The peer's TERMINATE and both QPs in ERROR after a protocol error. */
static void dpt_expect_terminated(struct dpt *d, u32 layer, u32 etype,
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

/* A message longer than its RECV: the RECV fails, the peer is terminated. */
static void dp_recv_too_small(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23206, 16, 4, 4);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, dpt_recv(&d->s[1], 1, 0, 100), 0);
	dpt_connect(d);
	KUNIT_ASSERT_EQ(test, dpt_send(&d->s[0], 2, 0, 200, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(&d->s[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_LEN_ERR);
	/* DDP, untagged buffer, message too long */
	dpt_expect_terminated(d, 1, 2, 5);
	/* No byte beyond the posted 100. */
	KUNIT_EXPECT_EQ(test, d->s[1].buf[100], 0);
	cmt_teardown(d->t);
}

/* A SEND with no RECV posted. */
static void dp_send_without_recv(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23207, 16, 4, 4);

	dpt_connect(d);
	KUNIT_ASSERT_EQ(test, dpt_send(&d->s[0], 2, 0, 10, 0), 0);
	/* DDP, untagged buffer, invalid MSN: no buffer */
	dpt_expect_terminated(d, 1, 2, 2);
	cmt_teardown(d->t);
}

/* NEXT_COMP fires once per arming; SOLICITED only for solicited messages. */
static void dp_cq_notify(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23208, 32, 8, 8);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	struct ib_wc wc;
	int i;

	dpt_connect(d);
	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, dpt_recv(b, i, i * 64, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 0, 0, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_TRUE(test, dpt_wait_calls(b, 0));

	KUNIT_ASSERT_EQ(test, kiwi_req_notify_cq(b->cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 1, 0, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_TRUE(test, dpt_wait_calls(b, 1));
	KUNIT_ASSERT_EQ(test, dpt_send(a, 2, 0, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_TRUE(test, dpt_wait_calls(b, 1));

	KUNIT_ASSERT_EQ(test, kiwi_req_notify_cq(b->cq, IB_CQ_SOLICITED), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 3, 0, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_TRUE(test, dpt_wait_calls(b, 1));
	KUNIT_ASSERT_EQ(test, dpt_send(a, 4, 0, 4, IB_SEND_SOLICITED), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 4ULL);
	KUNIT_EXPECT_TRUE(test, dpt_wait_calls(b, 2));
	KUNIT_EXPECT_TRUE(test, dpt_wait_calls(a, 0));
	cmt_teardown(d->t);
}

/*
 * A RECV completion that does not fit: the completions that fit are
 * polled, then -EOVERFLOW; the QP is in ERROR and the peer terminated.
 */
static void dp_cq_overflow(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23209, 2, 4, 4);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	const struct cmt_rec *r;
	struct ib_wc wc[4];
	u32 ctrl = 0;
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, dpt_recv(b, i, i * 64, 64), 0);
	dpt_connect(d);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, dpt_send(a, i, 0, 4, 0), 0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(b->cq, 4, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0ULL);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(b->cq, 4, wc), -EOVERFLOW);
	KUNIT_EXPECT_GE(test, atomic_read(&b->calls), 1);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(b->qp), IB_QPS_ERR);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[0]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_terminate(a->qp, &ctrl));
	KUNIT_EXPECT_EQ(test, ctrl >> 24, 0U);	/* RDMAP, catastrophic */
	cmt_teardown(d->t);
}

/* Once a CQ overflowed it takes nothing more, even with room again. */
static void dp_cq_overflow_sticky(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23291, 1, 4, 4);
	struct dpt_side *a = &d->s[0];
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, dpt_recv(a, 1, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_recv(a, 2, 64, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_move(a->qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, dpt_recv(a, 3, 0, 64), 0);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(a->cq, 1, &wc), -EOVERFLOW);
	cmt_teardown(d->t);
}

/*
 * A message too long for its RECV, whose IB_WC_LOC_LEN_ERR completion does not
 * fit the CQ: the overflow wins, CLOSE(-EOVERFLOW) and a catastrophic
 * TERMINATE, not the DDP error.
 */
static void dp_cq_overflow_too_long(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23292, 1, 4, 4);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	const struct cmt_rec *r;
	struct ib_wc wc;
	u32 ctrl = 0;

	KUNIT_ASSERT_EQ(test, dpt_recv(b, 0, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_recv(b, 1, 64, 10), 0);
	dpt_connect(d);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 0, 0, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 1, 0, 200, 0), 0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EOVERFLOW);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(b->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0ULL);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(b->cq, 1, &wc), -EOVERFLOW);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[0]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_terminate(a->qp, &ctrl));
	KUNIT_EXPECT_EQ(test, ctrl >> 24, 0U);	/* RDMAP, catastrophic */
	cmt_teardown(d->t);
}

static void dpt_fault_disarm(struct kunit_resource *res)
{
	kiwi_fault_fail_nth(0);
}

/*
 * The core cannot copy the private data of a CONNECT_REPLY(0): its owner
 * gets CONNECT_REPLY(-ENOMEM), and softiw drops the connection with no
 * further upcall: the QP flushed, the stream reset under the peer.
 */
static void dp_reply_dropped(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23293, 16, 4, 4);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	struct kiwi_conn_param p = {
		.ird = 4, .ord = 4, .qpn = b->qp->qp_num,
		.private_data = "ok", .private_data_len = 2,
	};
	const struct cmt_rec *r;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, dpt_recv(a, 1, 0, 64), 0);
	cmt_listen(d->t);
	d->id[0] = cmt_connect_qp(d->t, "dp", d->t->port, a->qp->qp_num);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	d->id[1] = r->id;
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 dpt_fault_disarm,
							 GFP_KERNEL, d));
	/*
	 * Fault points before the reply's copy: accept's op, the passive
	 * end's Read Request queue and Reply, the active end's queue.
	 */
	kiwi_fault_fail_nth(5);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(d->id[1], &p), 0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CONNECT_REPLY, d->id[0]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ENOMEM);
	KUNIT_EXPECT_EQ(test, kiwi_fault_remaining(), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(a->qp), IB_QPS_ERR);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	cmt_teardown(d->t);
}

#define DPT_WIRE_SENDS	16	/* as many as the fixture's CQ holds */
#define DPT_WIRE_LEN	SOFTIW_MAX_MSG	/* 1 MiB */
/* what a socket's buffers may pass their ceiling by: a segment each */
#define DPT_WIRE_SLACK	SZ_256K

/* Wait up to 5 s for @qp's transmitter to stop: FPDUs sent by then. */
static u64 dpt_tx_stalled(struct ib_qp *qp)
{
	u64 last = kiwi_softiw_qp_tx_fpdus(qp), now;
	int i, still = 0;

	for (i = 0; i < 500 && (!last || still < 10); i++) {
		usleep_range(10000, 11000);
		now = kiwi_softiw_qp_tx_fpdus(qp);
		still = now == last ? still + 1 : 0;
		last = now;
	}
	return last;
}

/*
 * Destroying a QP with SENDs on the wire completes each of them once,
 * in posting order: those done before it succeed, the rest are flushed.
 * The raw peer never reads, so the stream holds no more than its receive
 * buffer and softiw's send buffer, which TCP grows at most to the
 * namespace's tcp_rmem and tcp_wmem ceilings: of 16 MiB of SENDs, what
 * lies past those is still queued, the transmitter stalled on the full
 * socket, when the QP goes; and no SEND may succeed that the stream could
 * not have taken.
 */
static void dp_destroy_in_flight(struct kunit *test)
{
	static const struct hostile_opts o = {
		.nrecv = 1, .ird = 1, .ord = 1, .sq = DPT_WIRE_SENDS,
	};
	u32 room = READ_ONCE(init_net.ipv4.sysctl_tcp_rmem[2]) +
		   READ_ONCE(init_net.ipv4.sysctl_tcp_wmem[2]) + DPT_WIRE_SLACK;
	int i, n, ok = 0, flushed = 0, bad = 0, fit = room / DPT_WIRE_LEN;
	struct ib_wc wc[DPT_WIRE_SENDS];
	struct hostile_peer p = {};
	struct ib_mr *mr;
	struct cmt *t;
	u64 fpdus;

	if (fit >= DPT_WIRE_SENDS)
		kunit_skip(test, "TCP's buffers may take all %d MiB",
			   DPT_WIRE_SENDS);
	t = cmt_setup(test, 23210);
	hostile_peer_open(t, &p, &o);
	hostile_prime(t, &p);	/* RECV 0: softiw may send from now on */
	mr = cmt_mr(t, cmt_buf(t, DPT_WIRE_LEN), DPT_WIRE_LEN,
		    IB_ACCESS_LOCAL_WRITE);
	for (i = 0; i < DPT_WIRE_SENDS; i++)
		KUNIT_ASSERT_EQ(test, hostile_post(p.qp, i, IB_WR_SEND, mr, 0,
						   DPT_WIRE_LEN, 0, 0), 0);
	fpdus = dpt_tx_stalled(p.qp);
	KUNIT_EXPECT_GT(test, fpdus, 0ULL);
	cmt_destroy(t, p.child);
	cmt_destroy_qp(t, p.qp);
	n = kiwi_poll_cq(t->cq, ARRAY_SIZE(wc), wc);
	for (i = 0; i < n; i++) {
		bad += wc[i].wr_id != i;
		if (wc[i].status == IB_WC_SUCCESS && !flushed) {
			ok++;
			bad += wc[i].opcode != IB_WC_SEND;
		} else if (wc[i].status == IB_WC_WR_FLUSH_ERR) {
			flushed++;
		} else {
			bad++;
		}
	}
	pr_info("%s: %llu FPDUs out, then %d SENDs of 1 MiB completed, %d flushed (room %u KiB)\n",
		__func__, fpdus, ok, flushed, room >> 10);
	KUNIT_EXPECT_EQ(test, n, DPT_WIRE_SENDS);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_LE(test, ok, fit);
	KUNIT_EXPECT_GE(test, flushed, DPT_WIRE_SENDS - fit);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, wc), 0);
	cmt_teardown(t);
}

/*
 * A graceful close lets posted sends finish; the RECVs left over are
 * flushed before CLOSE reaches the ULP: the handler, when CLOSE reaches
 * it, finds both flushed RECVs on the CQ already. Over 127.0.0.1, then
 * over ::1.
 */
static void dp_graceful_drains(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23211, 64, 16, 32);
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	const struct cmt_rec *r;
	struct ib_wc wc;
	int i, bad = 0;

	d->t->family = kiwi_test_family(test);
	dpt_connect(d);
	spin_lock_irq(&d->t->lock);
	d->t->close_cq = b->cq;
	d->t->close_id = d->id[1];
	spin_unlock_irq(&d->t->lock);
	for (i = 0; i < 18; i++)
		KUNIT_ASSERT_EQ(test, dpt_recv(b, i, i * DPT_CHUNK / 2,
					       DPT_CHUNK / 2), 0);
	for (i = 0; i < 16; i++)
		KUNIT_ASSERT_EQ(test, dpt_send(a, i, 0, DPT_CHUNK / 2,
					       IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(d->id[0],
						 KIWI_CM_DISCONNECT_GRACEFUL),
			0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(d->t, KIWI_CM_EVENT_DISCONNECT,
					     d->id[1]));
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
		bad += wc.wr_id != i || wc.status;
		KUNIT_ASSERT_EQ(test, dpt_poll(a, &wc), 1);
		bad += wc.wr_id != i || wc.status;
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(d->id[1],
						 KIWI_CM_DISCONNECT_GRACEFUL),
			0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_ASSERT_EQ(test, d->t->close_nwc, 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, d->t->close_wc[i].wr_id, 16ULL + i);
		KUNIT_EXPECT_EQ(test, d->t->close_wc[i].status,
				IB_WC_WR_FLUSH_ERR);
	}
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(b->cq, 1, &wc), 0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[0]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	cmt_teardown(d->t);
}

/*
 * A peer that stops reading (a raw client that did MPA by hand): once
 * both windows are full, nothing it answers moves the data, and after
 * dead_peer_ms the connection ends with CLOSE(-ETIMEDOUT), sends flushed.
 */
static void dp_dead_peer(struct kunit *test)
{
	/* Revision 2: a revision 1 responder would wait for our first FPDU. */
	static const u8 req[24] =
		"MPA ID Req Frame\x10\x02\x00\x04\x00\x01\x00\x01";
	struct kiwi_conn_param cp = { .ird = 1, .ord = 1 };
	const struct cmt_rec *r;
	struct dpt_side *b;
	struct socket *raw;
	struct ib_wc wc;
	struct dpt *d;
	int i, n = 0, bad = 0;
	u8 rep[24];

	cmt_param(test, "dead_peer_ms", "2000");
	d = dpt_setup(test, 23212, 64, 16, 4);
	b = &d->s[1];
	cmt_listen(d->t);
	raw = cmt_raw_connect(test, d->t->port);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(raw, req, sizeof(req)), 24);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	d->id[1] = r->id;
	cp.qpn = b->qp->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(d->id[1], &cp), 0);
	KUNIT_ASSERT_EQ(test, cmt_raw_recv(raw, rep, sizeof(rep), 3000), 24);
	for (i = 0; i < 16; i++)
		KUNIT_ASSERT_EQ(test, dpt_send(b, i, 0, SOFTIW_MAX_MSG, 0), 0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	if (!r)
		r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	while (kiwi_poll_cq(b->cq, 1, &wc) == 1) {
		n++;
		bad += wc.status != IB_WC_WR_FLUSH_ERR;
	}
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	cmt_raw_close(raw, true);
	cmt_teardown(d->t);
}

/* When the user timeout of @plan ends a connection with a silent peer, s. */
static unsigned int dpt_dead_peer_end(const struct softiw_dead_peer *plan)
{
	unsigned int t = plan->idle_s;

	/* A probe at idle_s, then a check at every interval after it. */
	do {
		t += plan->intvl_s;
	} while ((u64)t * 1000 < plan->timeout_ms);
	return t;
}

static const unsigned int dpt_dead_peer_ms[] = {
	1000, 1500, 2000, 3000, 10000, 60000, 60500, 600000,
};

static void dpt_dead_peer_ms_desc(const unsigned int *ms, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "dead_peer_ms=%u", *ms);
}

KUNIT_ARRAY_PARAM(dpt_dead_peer_ms, dpt_dead_peer_ms, dpt_dead_peer_ms_desc);

/*
 * Whatever the random draw, a silent peer ends the connection between
 * dead_peer_ms and a second after it, a live one is probed at most once
 * every third of dead_peer_ms, and the first probes of connections
 * opened together spread over at least a third of it (a burst of
 * probes overflows the receive backlog of a veth pair).
 */
static void dp_dead_peer_plan(struct kunit *test)
{
	const unsigned int *ms = test->param_value;
	unsigned int secs = DIV_ROUND_UP(*ms, 1000);
	unsigned int lo = UINT_MAX, hi = 0, end;
	struct softiw_dead_peer plan;
	u32 i;

	for (i = 0; i < 256; i++) {
		kiwi_softiw_dead_peer_plan(*ms, i * 2654435761U, &plan);
		KUNIT_EXPECT_EQ(test, plan.timeout_ms, *ms);
		KUNIT_EXPECT_GE(test, plan.idle_s, max(secs / 3, 1U));
		KUNIT_EXPECT_GE(test, plan.intvl_s, 1U);
		end = dpt_dead_peer_end(&plan);
		KUNIT_EXPECT_LE(test, end, secs + 1);
		lo = min(lo, plan.idle_s);
		hi = max(hi, plan.idle_s);
	}
	KUNIT_EXPECT_GE(test, hi - lo, secs >= 6 ? secs / 3 : 0);
}

/*
 * Both ends of every connection probe on their own schedule: four
 * sockets with dead_peer_ms at 600 s (300 possible first probes) do not
 * all share one. dead_peer_ms=0 leaves keepalive off.
 */
static void dp_dead_peer_sockets(struct kunit *test)
{
	struct softiw_dead_peer plan[4], *p = plan;
	unsigned int conn, side, same = 0;
	struct ib_qp *qp;
	struct dpt *d;

	cmt_param(test, "dead_peer_ms", "600000");
	for (conn = 0; conn < 2; conn++) {
		d = dpt_setup(test, 23214 + conn, 16, 4, 4);
		dpt_connect(d);
		for (side = 0; side < 2; side++, p++) {
			qp = d->s[side].qp;
			KUNIT_ASSERT_TRUE(test, kiwi_softiw_qp_dead_peer(qp, p));
			KUNIT_EXPECT_EQ(test, p->timeout_ms, 600000U);
			KUNIT_EXPECT_GE(test, p->idle_s, 200U);
			KUNIT_EXPECT_LE(test, p->idle_s, 500U);
			KUNIT_EXPECT_LE(test, dpt_dead_peer_end(p), 601U);
			same += p->idle_s == plan[0].idle_s;
		}
	}
	KUNIT_EXPECT_LT(test, same, 4U);

	cmt_param(test, "dead_peer_ms", "0");
	d = dpt_setup(test, 23216, 16, 4, 4);
	dpt_connect(d);
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_dead_peer(d->s[0].qp, plan));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_dead_peer(d->s[1].qp, plan));
}

static void dpt_link_up_res(struct kunit_resource *res)
{
	struct net_device *dev = res->data;

	rtnl_lock();
	dev_change_flags(dev, dev->flags | IFF_UP, NULL);
	rtnl_unlock();
	dev_put(dev);
}

/* Take @ifname of @net down, without telling kiwi; up again after @test. */
static void dpt_link_down(struct kunit *test, struct net *net,
			  const char *ifname)
{
	struct net_device *dev = dev_get_by_name(net, ifname);
	void *held;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	held = kunit_alloc_resource(test, NULL, dpt_link_up_res, GFP_KERNEL,
				    dev);
	if (!held)
		dev_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, held);
	rtnl_lock();
	ret = dev_change_flags(dev, dev->flags & ~IFF_UP, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/*
 * An idle connection whose peer goes silent (kv1's link down in the peer
 * namespace, nothing sent, kiwi not told) ends with CLOSE(-ETIMEDOUT)
 * through keepalive, between dead_peer_ms and a second after it: at
 * 3000 ms the schedule is fixed (probes at 1 s and 2 s, the end at 3 s).
 */
static void dp_dead_peer_idle(struct kunit *test)
{
	struct net *peer = kiwi_test_peer_net(test);
	const struct cmt_rec *r;
	struct ib_qp *qa, *qb;
	struct cmt *ta, *tb;
	struct kiwi_cm_id *a;
	ktime_t t0;
	s64 ms;

	cmt_param(test, "dead_peer_ms", "3000");
	ta = cmt_setup_in(test, &init_net, "kv0", "softiw_kv0", 24120);
	tb = cmt_setup_in(test, peer, "kv1", "softiw_kv1", 24120);
	cmt_qp(ta);
	qa = ta->qps[ta->nqps - 1];
	cmt_qp(tb);
	qb = tb->qps[tb->nqps - 1];
	a = cmt_connect_veth(ta, qa, tb, qb);

	dpt_link_down(test, peer, "kv1");
	t0 = ktime_get();
	r = cmt_wait(ta, KIWI_CM_EVENT_CLOSE, a);
	ms = ktime_ms_delta(ktime_get(), t0);
	kunit_info(test, "CLOSE: %lld ms after the link went down\n", ms);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "no CLOSE %lld ms after link down",
				  ms);
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ms, 2500);
	KUNIT_EXPECT_LE(test, ms, 4500);
	KUNIT_EXPECT_EQ(test, cmt_count(ta, KIWI_CM_EVENT_DISCONNECT), 0);
	cmt_release(ta);
	cmt_teardown(tb);
}

/*
 * A QP destroyed while its connection still pins it never reaches its CQ
 * again, so the ULP may destroy the CQ at once: the flush the connection
 * does when it ends would otherwise use the freed CQ (KASAN).
 */
static void dp_destroyed_qp_leaves_cq(struct kunit *test)
{
	struct dpt *d = dpt_setup(test, 23213, 64, 16, 16);
	struct dpt_side *a = &d->s[0];
	int calls;

	dpt_connect(d);
	KUNIT_ASSERT_EQ(test, dpt_recv(a, 1, 0, DPT_CHUNK), 0);
	KUNIT_ASSERT_EQ(test, kiwi_req_notify_cq(a->cq, IB_CQ_NEXT_COMP), 0);
	cmt_destroy_qp(d->t, a->qp);
	calls = atomic_read(&a->calls);
	KUNIT_EXPECT_EQ(test, calls, 1);	/* the flushed RECV */
	kiwi_destroy_cq(a->cq);
	a->cq = NULL;
	KUNIT_EXPECT_NOT_NULL(test, cmt_wait(d->t, KIWI_CM_EVENT_CLOSE,
					     d->id[0]));
	KUNIT_EXPECT_NOT_NULL(test, cmt_wait(d->t, KIWI_CM_EVENT_CLOSE,
					     d->id[1]));
	KUNIT_EXPECT_EQ(test, atomic_read(&a->calls), calls);
	cmt_teardown(d->t);
}

/* ---- RDMA WRITE and READ between two softiw QPs ---- */

#define DPT_TAGGED_HDR	14	/* tagged DDP header, in a ULPDU */
#define DPT_OFF		32	/* where the target buffer starts */

static int dpt_rdma(struct dpt_side *s, u64 wr_id, int opcode, u32 off,
		    u32 len, const struct dpt_side *peer, u32 peer_off)
{
	struct ib_sge sge = {
		.addr = s->mr->iova + off, .length = len, .lkey = s->mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = peer->mr->iova + peer_off,
		.rkey = peer->mr->rkey,
	};
	const struct ib_send_wr *bad = NULL;

	return kiwi_post_send(s->qp, &wr.wr, &bad);
}

static void dpt_expect_wc(struct kunit *test, struct dpt_side *s, u64 wr_id,
			  int opcode, u32 byte_len)
{
	struct ib_wc wc = {};

	KUNIT_ASSERT_EQ(test, dpt_poll(s, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
	KUNIT_EXPECT_EQ(test, wc.byte_len, byte_len);
}

/*
 * Data placed at the peer's DPT_OFF, byte for byte, and nothing around
 * it; the payload went out in as many tagged FPDUs as it needs.
 */
static void dpt_expect_placed(struct kunit *test, const u8 *src,
			      const u8 *dst, u32 len, u64 fpdus, u32 room)
{
	KUNIT_EXPECT_EQ(test, memcmp(src, dst + DPT_OFF, len), 0);
	KUNIT_EXPECT_EQ(test, dst[DPT_OFF - 1], 0xa5);
	KUNIT_EXPECT_EQ(test, dst[DPT_OFF + len], 0xa5);
	KUNIT_EXPECT_EQ(test, fpdus, (u64)max(1U, DIV_ROUND_UP(len, room)));
}

/*
 * FPDUs a QP sent since @base. The responder counts its last FPDU just
 * after the socket took it, so the reader may see the data first: wait
 * a little for the count to reach what @len needs (it must not pass it).
 */
static u64 dpt_fpdus_since(struct dpt_side *s, u64 base, u32 len, u32 room)
{
	u64 want = max(1U, DIV_ROUND_UP(len, room));
	int i;

	for (i = 0; i < 100; i++) {
		if (kiwi_softiw_qp_tx_fpdus(s->qp) - base >= want)
			break;
		usleep_range(1000, 2000);
	}
	return kiwi_softiw_qp_tx_fpdus(s->qp) - base;
}

static void dpt_rdma_setup_family(struct kunit *test, struct dpt **dp,
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

static void dpt_rdma_setup(struct kunit *test, struct dpt **dp, int port,
			   bool crc, u32 *room)
{
	dpt_rdma_setup_family(test, dp, port, AF_INET, crc, room);
}

/*
 * An RDMA WRITE of each size lands in the peer's MR at the offset asked
 * for; the writer completes it (IB_WC_RDMA_WRITE), the target sees no
 * completion. A SEND behind it proves it was placed: DDP places in order.
 */
static void rdma_write_size(struct kunit *test)
{
	const struct dpt_size_param *p = test->param_value;
	struct dpt_side *a, *b;
	struct ib_wc wc;
	u32 len, room;
	struct dpt *d;
	u64 fpdus;

	dpt_rdma_setup(test, &d, 23300 + (p - dpt_size_params), p->crc, &room);
	a = &d->s[0];
	b = &d->s[1];
	len = dpt_len(p->size, room);
	dpt_fill(a->buf, len, 7);
	memset(b->buf, 0xa5, DPT_BUF);
	fpdus = kiwi_softiw_qp_tx_fpdus(a->qp);
	KUNIT_ASSERT_EQ(test, dpt_rdma(a, 1, IB_WR_RDMA_WRITE, 0, len, b,
				       DPT_OFF), 0);
	dpt_expect_wc(test, a, 1, IB_WC_RDMA_WRITE, 0);
	fpdus = kiwi_softiw_qp_tx_fpdus(a->qp) - fpdus;
	KUNIT_ASSERT_EQ(test, dpt_recv(b, 2, DPT_BUF - 16, 16), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, 3, 0, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	dpt_expect_placed(test, a->buf, b->buf, len, fpdus, room);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(b->cq, 1, &wc), 0);
	cmt_teardown(d->t);
}

/*
 * An RDMA READ of each size: the reader's buffer gets the peer's bytes,
 * nothing around it; IB_WC_RDMA_READ with the length read; the peer
 * answered in as many tagged FPDUs as needed and saw no completion.
 */
static void rdma_read_size(struct kunit *test)
{
	const struct dpt_size_param *p = test->param_value;
	struct dpt_side *a, *b;
	struct ib_wc wc;
	u32 len, room;
	struct dpt *d;
	u64 fpdus;

	dpt_rdma_setup(test, &d, 23330 + (p - dpt_size_params), p->crc, &room);
	a = &d->s[0];
	b = &d->s[1];
	len = dpt_len(p->size, room);
	dpt_fill(b->buf, len, 9);
	memset(a->buf, 0xa5, DPT_BUF);
	fpdus = kiwi_softiw_qp_tx_fpdus(b->qp);
	KUNIT_ASSERT_EQ(test, dpt_rdma(a, 1, IB_WR_RDMA_READ, DPT_OFF, len,
				       b, 0), 0);
	dpt_expect_wc(test, a, 1, IB_WC_RDMA_READ, len);
	dpt_expect_placed(test, b->buf, a->buf, len,
			  dpt_fpdus_since(b, fpdus, len, room), room);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(b->cq, 1, &wc), 0);
	cmt_teardown(d->t);
}

/*
 * READs, SENDs and WRITEs mixed, in both directions at once, more READs
 * than ORD (4): every one completes once, in posting order per QP, with
 * the right data. Over 127.0.0.1, then over ::1.
 */
static void rdma_mixed_order(struct kunit *test)
{
	static const int ops[] = {
		IB_WR_RDMA_READ, IB_WR_SEND, IB_WR_RDMA_WRITE,
		IB_WR_RDMA_READ, IB_WR_RDMA_READ, IB_WR_RDMA_READ,
		IB_WR_RDMA_READ, IB_WR_RDMA_READ,
	};
	static const int wcs[] = {
		[IB_WR_SEND] = IB_WC_SEND,
		[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
		[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
	};
	const u32 len = 5000;
	struct dpt_side *s, *peer;
	struct dpt *d;
	u32 room, src, dst;
	int i, k;

	dpt_rdma_setup_family(test, &d, 23360, kiwi_test_family(test), false,
			      &room);
	for (k = 0; k < 2; k++) {
		dpt_fill(d->s[k].buf, SZ_64K, 16 * k + 1);
		memset(d->s[k].buf + SZ_64K, 0xa5, SZ_64K);
		KUNIT_ASSERT_EQ(test, dpt_recv(&d->s[k], 100, SZ_512K, len),
				0);
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		for (k = 0; k < 2; k++) {
			s = &d->s[k];
			peer = &d->s[!k];
			src = i * 6000;
			dst = SZ_64K + i * 6000;
			KUNIT_ASSERT_EQ(test,
					ops[i] == IB_WR_SEND ?
					dpt_send(s, i, src, len,
						 IB_SEND_SIGNALED) :
					dpt_rdma(s, i, ops[i],
						 ops[i] == IB_WR_RDMA_READ ?
						 dst : src, len, peer,
						 ops[i] == IB_WR_RDMA_READ ?
						 src : dst), 0);
		}
	}
	for (k = 0; k < 2; k++) {
		s = &d->s[k];
		peer = &d->s[!k];
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			struct ib_wc wc = {};

			KUNIT_ASSERT_EQ(test, dpt_poll(s, &wc), 1);
			if (wc.opcode == IB_WC_RECV) {
				KUNIT_EXPECT_EQ(test, wc.byte_len, len);
				KUNIT_ASSERT_EQ(test, dpt_poll(s, &wc), 1);
			}
			KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
			KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
			KUNIT_EXPECT_EQ(test, wc.opcode, wcs[ops[i]]);
		}
		/* Each completed once: nothing more comes. */
		KUNIT_EXPECT_EQ(test, kiwi_poll_cq(s->cq, 1,
						   &(struct ib_wc){}), 0);
	}
	/*
	 * A WRITE completes when sent; it is placed before the READs posted
	 * after it are answered, so check the data once all are complete.
	 */
	for (k = 0; k < 2; k++) {
		s = &d->s[k];
		peer = &d->s[!k];
		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			if (ops[i] == IB_WR_SEND)
				continue;
			/* Each side wrote (or read into) its own area. */
			src = i * 6000;
			dst = SZ_64K + i * 6000;
			if (ops[i] == IB_WR_RDMA_READ)
				KUNIT_EXPECT_EQ(test, memcmp(s->buf + dst,
							     peer->buf + src,
							     len), 0);
			else
				KUNIT_EXPECT_EQ(test, memcmp(peer->buf + dst,
							     s->buf + src,
							     len), 0);
		}
	}
	cmt_teardown(d->t);
}

/*
 * READs in flight when the requester's QP is destroyed: a raw peer takes
 * all six Read Requests (ORD 8) and the SEND behind them, and answers
 * none. destroy_qp completes every one once, flushed, in posting order,
 * before it returns; the stream is reset, CLOSE(-ECONNABORTED).
 */
static void rdma_destroy_reads_in_flight(struct kunit *test)
{
	static const struct hostile_opts o = {
		.nrecv = 1, .ird = 1, .ord = 8, .sq = 8,
	};
	struct cmt *t = cmt_setup(test, 23361);
	struct hostile_peer p = {};
	const struct cmt_rec *r;
	struct ib_wc wc[8];
	int i, n;
	u8 f[64];

	hostile_peer_open(t, &p, &o);
	hostile_prime(t, &p);
	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, hostile_post(p.qp, i, IB_WR_RDMA_READ,
						   p.mr, 512 + i * 256, 256,
						   0x7000 + i * SZ_4K,
						   0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 6, IB_WR_SEND, p.mr, 0, 8,
					   0, 0), 0);
	for (i = 0; i < 6; i++) {
		KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)),
				2 + 18 + 28 + 4);
		KUNIT_EXPECT_EQ(test, f[3], 0x41);		/* Read Request */
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), i + 1U);
	}
	KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)),
			2 + 18 + 8 + 4);
	KUNIT_EXPECT_EQ(test, f[3], 0x43);			/* SEND */
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, wc), 0);
	cmt_destroy_qp(t, p.qp);
	n = kiwi_poll_cq(t->cq, ARRAY_SIZE(wc), wc);
	KUNIT_ASSERT_EQ(test, n, 7);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc[i].opcode,
				i < 6 ? IB_WC_RDMA_READ : IB_WC_SEND);
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
	}
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, wc), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(p.s, f, sizeof(f), 3000),
			-ECONNRESET);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * ORD 0 on both ends (each asked for it, the passive end with IRD 0 as
 * well), with either MPA revision: a READ is refused at post with
 * -EINVAL, and does not hold up the SEND posted after it.
 */
static void rdma_read_ord_zero(struct kunit *test)
{
	const struct ib_send_wr *bad = NULL;
	struct dpt_side *a, *b;
	struct ib_sge sge;
	struct ib_send_wr send;
	struct ib_rdma_wr read;
	struct ib_wc wc;
	struct dpt *d;
	int k;

	d = dpt_setup(test, 23364, 16, 8, 8);
	dpt_connect_depth(d, 0, 0);
	for (k = 0; k < 2; k++) {
		a = &d->s[k];
		b = &d->s[!k];
		KUNIT_EXPECT_EQ(test, dpt_rdma(a, 1, IB_WR_RDMA_READ, 0, 64,
					       b, 0), -EINVAL);
		/* In a chain: the SEND before it goes, bad_wr is the READ. */
		sge = (struct ib_sge){
			.addr = a->mr->iova, .length = 8, .lkey = a->mr->lkey,
		};
		send = (struct ib_send_wr){
			.wr_id = 2, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED, .next = &read.wr,
		};
		read = (struct ib_rdma_wr){
			.wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1,
				.opcode = IB_WR_RDMA_READ,
				.send_flags = IB_SEND_SIGNALED },
			.remote_addr = b->mr->iova, .rkey = b->mr->rkey,
		};
		KUNIT_ASSERT_EQ(test, dpt_recv(b, 4, 0, 64), 0);
		KUNIT_ASSERT_EQ(test, dpt_recv(b, 6, 64, 64), 0);
		KUNIT_EXPECT_EQ(test, kiwi_post_send(a->qp, &send, &bad),
				-EINVAL);
		KUNIT_EXPECT_PTR_EQ(test, bad,
				    (const struct ib_send_wr *)&read.wr);
		KUNIT_ASSERT_EQ(test, dpt_send(a, 5, 0, 8,
					       IB_SEND_SIGNALED), 0);
		dpt_expect_wc(test, a, 2, IB_WC_SEND, 0);
		dpt_expect_wc(test, a, 5, IB_WC_SEND, 0);
		KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 4ULL);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 6ULL);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(a->qp),
				IB_QPS_RTS);
	}
	cmt_teardown(d->t);
}

static int dpt_send_inv(struct dpt_side *s, u64 wr_id, u32 len, u32 rkey)
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

/*
 * SEND with Invalidate: the target's RECV reports the STag invalidated;
 * from then on a WRITE to it is refused (DDP, tagged, invalid STag) and
 * posting with it as lkey is -EINVAL. A LOCAL_INV needs a valid STag.
 */
static void rdma_send_with_inv(struct kunit *test)
{
	struct dpt_side *a, *b;
	struct ib_send_wr lwr = { .opcode = IB_WR_LOCAL_INV,
				  .ex.invalidate_rkey = 0xffffff01 };
	const struct ib_send_wr *bad = NULL;
	struct ib_sge sge;
	struct ib_rdma_wr wr = { .wr = { .sg_list = &sge, .num_sge = 1,
					 .opcode = IB_WR_RDMA_WRITE } };
	struct ib_mr *mr;
	struct ib_wc wc;
	struct dpt *d;
	u32 room;

	dpt_rdma_setup(test, &d, 23362, true, &room);
	a = &d->s[0];
	b = &d->s[1];
	KUNIT_EXPECT_EQ(test, kiwi_post_send(a->qp, &lwr, &bad), -EINVAL);
	sge = (struct ib_sge) { .addr = a->mr->iova, .length = 8,
				  .lkey = a->mr->lkey };
	mr = cmt_mr(d->t, b->buf + SZ_512K, SZ_4K, KIWI_ACCESS_ALL);
	KUNIT_ASSERT_EQ(test, dpt_recv(b, 1, 0, 64), 0);
	dpt_fill(a->buf, 64, 5);
	KUNIT_ASSERT_EQ(test, dpt_send_inv(a, 2, 64, mr->rkey), 0);
	dpt_expect_wc(test, a, 2, IB_WC_SEND, 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 64U);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, mr->rkey);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf, b->buf, 64), 0);
	/* The STag is gone for local use too. */
	lwr.ex.invalidate_rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, kiwi_post_send(b->qp, &lwr, &bad), -EINVAL);
	memset(b->buf + SZ_512K, 0xa5, SZ_4K);
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	KUNIT_ASSERT_EQ(test, kiwi_post_send(a->qp, &wr.wr, &bad), 0);
	dpt_expect_terminated(d, 1, 1, 0);	/* DDP, tagged, invalid STag */
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(b->buf + SZ_512K, 0xa5, SZ_4K),
			    NULL);
	cmt_teardown(d->t);
}

/* A SEND with Invalidate of an STag the target cannot invalidate. */
static void rdma_send_inv_refused(struct kunit *test)
{
	struct dpt_side *a, *b;
	struct ib_mr *mr;
	struct dpt *d;
	u32 room;

	dpt_rdma_setup(test, &d, 23363, false, &room);
	a = &d->s[0];
	b = &d->s[1];
	/* Local access only: not the peer's to invalidate. */
	mr = cmt_mr(d->t, b->buf, SZ_4K, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_EQ(test, dpt_recv(b, 1, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_send_inv(a, 2, 8, mr->rkey), 0);
	dpt_expect_terminated(d, 0, 1, 9);	/* RDMAP, protection, no inv. */
	cmt_teardown(d->t);
}

/*
 * MRs over pages and scatterlists (kiwi_softiw_mr): the target's memory
 * is MRT_SLOTS allocations of two pages each, full of guard bytes; an MR
 * takes spans of it in an order of its own, so that a transfer crosses
 * from a span to one in another allocation.
 */
#define MRT_SLOTS	4
#define MRT_SLOT	(2 * PAGE_SIZE)
#define MRT_MEM		(MRT_SLOTS * MRT_SLOT)
#define MRT_MAX_SPANS	6
#define MRT_IOVA	0x7ff000001234ULL	/* TO of an MR's first byte */

/**
 * struct mrt_span - bytes of an MR in the slots
 * @page: its first page, numbered across the slots (slot @page / 2)
 * @off: offset of its first byte in that page
 * @len: bytes; may run on into the second page of the slot
 */
struct mrt_span {
	u8 page;
	u16 off;
	u16 len;
};

/**
 * struct mrt_layout - an MR over a page array or a scatterlist
 * @sg: a scatterlist of @spans; else a page array of @spans' pages, the
 *	first from its @off on, and @length bytes
 * @spans: the entries, or the pages
 * @nspans: their number
 * @length: bytes of the page array
 */
struct mrt_layout {
	bool sg;
	struct mrt_span spans[MRT_MAX_SPANS];
	u8 nspans;
	u32 length;
};

/* Pages 1, 2, 5 from offset 100: pieces of 3996, 4096 and 300 bytes. */
static const struct mrt_layout mrt_pages = {
	.spans = { { 1, 100 }, { 2, 0 }, { 5, 0 } }, .nspans = 3,
	.length = 2 * PAGE_SIZE + 200,
};

/*
 * Entries of 1, 511, 4096 + 3 (over two pages), 4096 and 2 bytes: the
 * last two are contiguous in memory, yet two entries.
 */
static const struct mrt_layout mrt_sg = {
	.sg = true,
	.spans = { { 0, 3, 1 }, { 2, 7, 511 }, { 4, 5, PAGE_SIZE + 3 },
		   { 6, 0, PAGE_SIZE }, { 7, 0, 2 } },
	.nspans = 5,
};

/**
 * struct mrt - the target's memory and its MR
 * @slot: the allocations
 * @image: what the slots must hold
 * @spans: the MR's bytes in order
 * @nspans: their number
 * @length: the MR's bytes
 * @mr: the MR
 */
struct mrt {
	struct page *slot[MRT_SLOTS];
	u8 *image;
	struct mrt_span spans[MRT_MAX_SPANS];
	int nspans;
	u32 length;
	struct ib_mr *mr;
};

static void mrt_release(struct kunit_resource *res)
{
	struct mrt *m = res->data;
	int i;

	if (m->mr)
		kiwi_dereg_mr(m->mr);
	for (i = 0; i < MRT_SLOTS; i++)
		if (m->slot[i])
			__free_pages(m->slot[i], 1);
}

static u8 *mrt_addr(struct mrt *m, u8 page)
{
	return (u8 *)page_address(m->slot[page / 2]) + (page % 2) * PAGE_SIZE;
}

/* The spans of @l, a page array's cut at page ends. */
static void mrt_spans(struct mrt *m, const struct mrt_layout *l)
{
	u32 left = l->length, off;
	int i;

	m->nspans = l->nspans;
	m->length = 0;
	for (i = 0; i < l->nspans; i++) {
		m->spans[i] = l->spans[i];
		if (!l->sg) {
			off = i ? 0 : l->spans[0].off;
			m->spans[i].off = off;
			m->spans[i].len = min_t(u32, left, PAGE_SIZE - off);
			left -= m->spans[i].len;
		}
		m->length += m->spans[i].len;
	}
}

/* Byte @x of an MR's test pattern. */
static u8 mrt_byte(u32 x)
{
	return x * 13 + (x >> 9) + 1;
}

/*
 * Write the pattern's bytes [@to, @to + @len) where the MR keeps them:
 * into @base, a copy of the slots (the image), or the slots if NULL.
 */
static void mrt_put(struct mrt *m, u8 *base, u32 to, u32 len)
{
	u32 start = 0, i, x;
	int k;
	u8 *p;

	for (k = 0; k < m->nspans; k++) {
		const struct mrt_span *sp = &m->spans[k];

		p = base ? base + sp->page / 2 * MRT_SLOT +
			   sp->page % 2 * PAGE_SIZE : mrt_addr(m, sp->page);
		for (i = 0; i < sp->len; i++) {
			x = start + i;
			if (x >= to && x - to < len)
				p[sp->off + i] = mrt_byte(x);
		}
		start += sp->len;
	}
}

/* Index of the first byte of the slots that differs from the image. */
static int mrt_diff(struct mrt *m)
{
	const u8 *mem;
	int i, j;

	for (i = 0; i < MRT_SLOTS; i++) {
		mem = page_address(m->slot[i]);
		for (j = 0; j < MRT_SLOT; j++)
			if (mem[j] != m->image[i * MRT_SLOT + j])
				return i * MRT_SLOT + j;
	}
	return -1;
}

static struct ib_mr *mrt_reg(struct kunit *test, struct mrt *m,
			     struct ib_pd *pd, bool sg)
{
	struct scatterlist sgl[MRT_MAX_SPANS];
	struct page *pages[MRT_MAX_SPANS];
	const struct mrt_span *sp;
	int i;

	sg_init_table(sgl, m->nspans);
	for (i = 0; i < m->nspans; i++) {
		sp = &m->spans[i];
		pages[i] = nth_page(m->slot[sp->page / 2], sp->page % 2);
		sg_set_page(&sgl[i], pages[i], sp->len, sp->off);
	}
	if (sg)
		return kiwi_reg_sg_mr(pd, sgl, m->nspans, MRT_IOVA,
				      KIWI_ACCESS_ALL);
	return kiwi_reg_page_mr(pd, pages, m->nspans, m->spans[0].off,
				m->length, MRT_IOVA, KIWI_ACCESS_ALL);
}

/*
 * Slots full of guard bytes (the MR's bytes too if @filled: the pattern)
 * and the MR of @l over them in @pd.
 */
static struct mrt *mrt_setup(struct kunit *test, struct ib_pd *pd,
			     const struct mrt_layout *l, bool filled)
{
	struct mrt *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct ib_mr *mr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->image = kunit_kzalloc(test, MRT_MEM, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->image);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 mrt_release,
							 GFP_KERNEL, m));
	for (i = 0; i < MRT_SLOTS; i++) {
		m->slot[i] = alloc_pages(GFP_KERNEL, 1);
		KUNIT_ASSERT_NOT_NULL(test, m->slot[i]);
		memset(page_address(m->slot[i]), 0xa5, MRT_SLOT);
	}
	memset(m->image, 0xa5, MRT_MEM);
	mrt_spans(m, l);
	if (filled) {
		mrt_put(m, NULL, 0, m->length);
		mrt_put(m, m->image, 0, m->length);
	}
	mr = mrt_reg(test, m, pd, l->sg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	m->mr = mr;
	KUNIT_EXPECT_EQ(test, mr->iova, MRT_IOVA);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)m->length);
	return m;
}

/* An RDMA WRITE or READ of @s's bytes from 0 on to the target's @to. */
static int mrt_post(struct dpt_side *s, u64 wr_id, int opcode, u32 off,
		    u32 len, const struct ib_mr *mr, u32 to)
{
	struct ib_sge sge = {
		.addr = s->mr->iova + off, .length = len, .lkey = s->mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = mr->iova + to, .rkey = mr->rkey,
	};
	const struct ib_send_wr *bad = NULL;

	return kiwi_post_send(s->qp, &wr.wr, &bad);
}

/* @a's WRITE is placed at @b once a SEND behind it arrives. */
static void mrt_write_placed(struct kunit *test, struct dpt_side *a,
			     struct dpt_side *b, u64 wr_id)
{
	struct ib_wc wc;

	dpt_expect_wc(test, a, wr_id, IB_WC_RDMA_WRITE, 0);
	KUNIT_ASSERT_EQ(test, dpt_recv(b, wr_id + 1, DPT_BUF - 16, 16), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, wr_id + 2, 0, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id + 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/**
 * struct mrt_case - a remote access to a page array or scatterlist MR
 * @name: description
 * @layout: the MR
 * @read: an RDMA READ of the MR, else a WRITE into it
 * @to: offset in the MR of the first byte
 * @len: bytes
 * @ecode: 0, or the error code of the TERMINATE the target sends
 *	(one byte past the end: tagged bounds, DDP or RDMAP)
 */
struct mrt_case {
	const char *name;
	const struct mrt_layout *layout;
	bool read;
	u32 to;
	u32 len;
	u8 ecode;
};

#define MRT_P1	(PAGE_SIZE - 100)	/* the first page's piece */
#define MRT_PL	(2 * PAGE_SIZE + 200)	/* the page array's length */
#define MRT_SL	(1 + 511 + PAGE_SIZE + 3 + PAGE_SIZE + 2)

static const struct mrt_case mrt_cases[] = {
	{ "WRITE pages, all", &mrt_pages, false, 0, MRT_PL },
	{ "WRITE pages, across a page", &mrt_pages, false, MRT_P1 - 6, 20 },
	{ "WRITE pages, ends on a page end", &mrt_pages, false, 0, MRT_P1 },
	{ "WRITE pages, one whole page", &mrt_pages, false, MRT_P1,
	  PAGE_SIZE },
	{ "WRITE pages, last byte", &mrt_pages, false, MRT_PL - 1, 1 },
	{ "WRITE pages, 1 past the end", &mrt_pages, false, 1, MRT_PL, 1 },
	{ "READ pages, all", &mrt_pages, true, 0, MRT_PL },
	{ "READ pages, across a page", &mrt_pages, true, MRT_P1 - 6, 20 },
	{ "READ pages, ends on a page end", &mrt_pages, true, 0, MRT_P1 },
	{ "READ pages, 1 past the end", &mrt_pages, true, MRT_PL - 10, 11,
	  1 },
	{ "WRITE sg, all", &mrt_sg, false, 0, MRT_SL },
	{ "WRITE sg, the 1-byte entry", &mrt_sg, false, 0, 1 },
	{ "WRITE sg, mid 511 to mid 4099", &mrt_sg, false, 201, 2311 },
	{ "WRITE sg, ends on an entry end", &mrt_sg, false, 0, 512 },
	{ "WRITE sg, 4099 entry exactly", &mrt_sg, false, 512,
	  PAGE_SIZE + 3 },
	{ "WRITE sg, 1 past the end", &mrt_sg, false, MRT_SL - 10, 11, 1 },
	{ "READ sg, all", &mrt_sg, true, 0, MRT_SL },
	{ "READ sg, mid 511 to last", &mrt_sg, true, 300, MRT_SL - 300 },
	{ "READ sg, 4099 entry exactly", &mrt_sg, true, 512, PAGE_SIZE + 3 },
	{ "READ sg, 1 past the end", &mrt_sg, true, 0, MRT_SL + 1, 1 },
};

static void mrt_case_desc(const struct mrt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mrt_case, mrt_cases, mrt_case_desc);

/* A WRITE into the MR: its bytes placed, not one byte else of the slots. */
static void mr_write(struct kunit *test, struct dpt *d, struct mrt *m,
		     const struct mrt_case *c, u32 room)
{
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	u32 i;

	for (i = 0; i < c->len; i++)
		a->buf[i] = mrt_byte(c->to + i);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 1, IB_WR_RDMA_WRITE, 0, c->len,
				       m->mr, c->to), 0);
	if (c->ecode) {
		/* One segment: refused before a byte of it is placed. */
		KUNIT_ASSERT_LE(test, c->len, room);
		dpt_expect_terminated(d, 1, 1, c->ecode);
	} else {
		mrt_write_placed(test, a, b, 1);
		mrt_put(m, m->image, c->to, c->len);
	}
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
}

/* A READ of the MR: the reader gets its bytes; the slots are unchanged. */
static void mr_read(struct kunit *test, struct dpt *d, struct mrt *m,
		    const struct mrt_case *c)
{
	struct dpt_side *a = &d->s[0];
	u32 i, bad = 0;

	memset(a->buf, 0xa5, DPT_OFF + c->len + 1);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 1, IB_WR_RDMA_READ, DPT_OFF,
				       c->len, m->mr, c->to), 0);
	if (c->ecode) {
		dpt_expect_terminated(d, 0, 1, c->ecode);
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(a->buf, 0xa5,
						     DPT_OFF + c->len + 1),
				    NULL);
	} else {
		dpt_expect_wc(test, a, 1, IB_WC_RDMA_READ, c->len);
		for (i = 0; i < c->len; i++)
			bad += a->buf[DPT_OFF + i] != mrt_byte(c->to + i);
		KUNIT_EXPECT_EQ(test, bad, 0U);
		KUNIT_EXPECT_EQ(test, a->buf[DPT_OFF - 1], 0xa5);
		KUNIT_EXPECT_EQ(test, a->buf[DPT_OFF + c->len], 0xa5);
	}
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
}

/*
 * Each row: a WRITE into or READ of a page array or scatterlist MR of
 * the peer, over a real connection; byte for byte, guard bytes around.
 */
static void mr_access(struct kunit *test)
{
	const struct mrt_case *c = test->param_value;
	struct dpt *d;
	struct mrt *m;
	u32 room;

	dpt_rdma_setup(test, &d, 23400 + (c - mrt_cases), true, &room);
	m = mrt_setup(test, d->t->pd, c->layout, c->read);
	if (c->read)
		mr_read(test, d, m, c);
	else
		mr_write(test, d, m, c, room);
	cmt_teardown(d->t);
}

/**
 * struct mrt_inv_case - invalidating a page array or scatterlist MR
 * @name: description
 * @layout: the MR
 * @remote: by the peer's SEND with Invalidate, else by a LOCAL_INV
 */
struct mrt_inv_case {
	const char *name;
	const struct mrt_layout *layout;
	bool remote;
};

static const struct mrt_inv_case mrt_inv_cases[] = {
	{ "pages, LOCAL_INV", &mrt_pages, false },
	{ "pages, SEND_WITH_INV", &mrt_pages, true },
	{ "sg, LOCAL_INV", &mrt_sg, false },
	{ "sg, SEND_WITH_INV", &mrt_sg, true },
};

static void mrt_inv_case_desc(const struct mrt_inv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mrt_inv_case, mrt_inv_cases, mrt_inv_case_desc);

/* @b invalidates @m's STag itself. */
static void mrt_local_inv(struct kunit *test, struct dpt_side *b,
			  struct mrt *m)
{
	struct ib_send_wr wr = {
		.wr_id = 5, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = m->mr->rkey,
	};
	const struct ib_send_wr *bad = NULL;

	KUNIT_ASSERT_EQ(test, kiwi_post_send(b->qp, &wr, &bad), 0);
	dpt_expect_wc(test, b, 5, IB_WC_LOCAL_INV, 0);
}

/* @a's SEND with Invalidate makes @b's RECV report @m's STag. */
static void mrt_remote_inv(struct kunit *test, struct dpt_side *a,
			   struct dpt_side *b, struct mrt *m)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, dpt_recv(b, 6, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_send_inv(a, 7, 8, m->mr->rkey), 0);
	dpt_expect_wc(test, a, 7, IB_WC_SEND, 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 6ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, m->mr->rkey);
}

/*
 * A WRITE lands in the MR; once its STag is invalidated, by the owner or
 * by the peer, the next WRITE is refused (DDP, tagged, invalid STag) and
 * nothing more of the slots changes.
 */
static void mr_invalidate(struct kunit *test)
{
	const struct mrt_inv_case *c = test->param_value;
	struct dpt_side *a, *b;
	struct dpt *d;
	struct mrt *m;
	u32 room, i;

	dpt_rdma_setup(test, &d, 23430 + (c - mrt_inv_cases), false, &room);
	a = &d->s[0];
	b = &d->s[1];
	m = mrt_setup(test, d->t->pd, c->layout, false);
	for (i = 0; i < 16; i++)
		a->buf[i] = mrt_byte(i);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 1, IB_WR_RDMA_WRITE, 0, 16, m->mr,
				       0), 0);
	mrt_write_placed(test, a, b, 1);
	mrt_put(m, m->image, 0, 16);
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
	if (c->remote)
		mrt_remote_inv(test, a, b, m);
	else
		mrt_local_inv(test, b, m);
	memset(a->buf, 0x11, 16);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 8, IB_WR_RDMA_WRITE, 0, 16, m->mr,
				       0), 0);
	dpt_expect_terminated(d, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
	cmt_teardown(d->t);
}

/* Post a RECV of @mr's first 8 bytes on the fixture's newest QP. */
static int mrt_recv(struct cmt *t, const struct ib_mr *mr)
{
	struct ib_sge sge = { .addr = mr->iova, .length = 8,
				.lkey = mr->lkey };
	struct ib_recv_wr wr = { .wr_id = 1, .sg_list = &sge,
				   .num_sge = 1 };
	const struct ib_recv_wr *bad = NULL;

	return kiwi_post_recv(t->qps[t->nqps - 1], &wr, &bad);
}

/*
 * Registration checks: page arrays must hold exactly the bytes asked
 * for, scatterlists some bytes, neither may run past the top of the TO
 * space; their lkey backs no SGE (SGEs are kernel addresses).
 */
static void mr_reg_checks(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 23440);
	struct ib_pd *pd = t->pd;
	struct page *pages[2];
	struct scatterlist sg;
	struct ib_mr *mr;
	struct mrt *m;

	m = mrt_setup(test, pd, &mrt_sg, false);
	pages[0] = m->slot[0];
	pages[1] = m->slot[1];
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 2, 0,
						       PAGE_SIZE, 0, 0)),
			-EINVAL);		/* a page too many */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1, 1,
						       PAGE_SIZE, 0, 0)),
			-EINVAL);		/* a byte too many */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1,
						       PAGE_SIZE, 1, 0, 0)),
			-EINVAL);		/* offset beyond the page */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1, 0, 0,
						       0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1, 0, 8,
						       -4ULL, 0)),
			-EINVAL);		/* past the top of the TOs */
	mr = kiwi_reg_page_mr(pd, pages, 1, 0, 8, 0, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);	/* no local write */
	sg_init_table(&sg, 1);
	sg_set_page(&sg, m->slot[0], 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_sg_mr(pd, &sg, 1, 0, 0)),
			-EINVAL);		/* no bytes */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_sg_mr(pd, &sg, 0, 0, 0)),
			-EINVAL);
	cmt_qp(t);
	KUNIT_EXPECT_EQ(test, mrt_recv(t, m->mr), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_recv(t, cmt_mr(t, cmt_buf(t, 64), 64,
						 IB_ACCESS_LOCAL_WRITE)),
			0);
	cmt_teardown(t);
}

static struct kunit_case rdma_cases[] = {
	KUNIT_CASE_PARAM(rdma_write_size, dpt_size_gen_params),
	KUNIT_CASE_PARAM(rdma_read_size, dpt_size_gen_params),
	KUNIT_CASE_PARAM(rdma_mixed_order, kiwi_test_family_params),
	KUNIT_CASE(rdma_destroy_reads_in_flight),
	KUNIT_CASE(rdma_read_ord_zero),
	KUNIT_CASE(rdma_send_with_inv),
	KUNIT_CASE(rdma_send_inv_refused),
	{}
};

static struct kunit_suite rdma_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_rdma",
	.exit = dpt_exit,
	.test_cases = rdma_cases,
};

static struct kunit_case dp_cases[] = {
	KUNIT_CASE_PARAM(dp_message_size, dpt_size_gen_params),
	KUNIT_CASE(dp_tx_buffer_on_first_send),
	KUNIT_CASE_PARAM(dp_many_in_order, kiwi_test_family_params),
	KUNIT_CASE(dp_unsignaled),
	KUNIT_CASE(dp_flush_on_error),
	KUNIT_CASE(dp_post_in_error),
	KUNIT_CASE(dp_post_checks),
	KUNIT_CASE(dp_recv_too_small),
	KUNIT_CASE(dp_send_without_recv),
	KUNIT_CASE(dp_cq_notify),
	KUNIT_CASE(dp_cq_overflow),
	KUNIT_CASE(dp_cq_overflow_sticky),
	KUNIT_CASE(dp_cq_overflow_too_long),
	KUNIT_CASE(dp_reply_dropped),
	KUNIT_CASE(dp_destroy_in_flight),
	KUNIT_CASE_PARAM(dp_graceful_drains, kiwi_test_family_params),
	KUNIT_CASE(dp_dead_peer),
	KUNIT_CASE_PARAM(dp_dead_peer_plan, dpt_dead_peer_ms_gen_params),
	KUNIT_CASE(dp_dead_peer_sockets),
	KUNIT_CASE(dp_dead_peer_idle),
	KUNIT_CASE(dp_destroyed_qp_leaves_cq),
	{}
};

static struct kunit_suite dp_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_datapath",
	.exit = dpt_exit,
	.test_cases = dp_cases,
};

static struct kunit_case mr_cases[] = {
	KUNIT_CASE_PARAM(mr_access, mrt_case_gen_params),
	KUNIT_CASE_PARAM(mr_invalidate, mrt_inv_case_gen_params),
	KUNIT_CASE(mr_reg_checks),
	{}
};

static struct kunit_suite mr_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_mr",
	.exit = dpt_exit,
	.test_cases = mr_cases,
};

kunit_test_suites(&dp_suite, &rdma_suite, &mr_suite);
