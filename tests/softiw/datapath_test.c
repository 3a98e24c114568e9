// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_datapath: SEND/RECV between two softiw QPs connected over
 * loopback (127.0.0.1; order and graceful close over ::1 too): message
 * sizes around the MULPDU with CRC on and off, order, unsignaled sends,
 * CQ notification and overflow, protocol errors that end in a
 * TERMINATE, and the flush rules (post in ERROR, modify to ERROR,
 * graceful close, destroy with SENDs stalled on a raw peer that never
 * reads).
 */
#include <asm/unaligned.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include <kiwi/iw_cm.h>

#include "cm_fixture.h"
#include "dp_fixture.h"
#include "hostile_peer.h"
#include "kiwi_test.h"
#include "softiw.h"

#define DPT_DDP_HDR	18	/* untagged DDP header, in a ULPDU */
#define DPT_CHUNK	SZ_64K

/* Wait until the handler was called @want times; true if it was. */
static bool dpt_wait_calls(struct dpt_side *s, int want)
{
	int i;

	for (i = 0; i < 200 && atomic_read(&s->calls) < want; i++)
		usleep_range(5000, 10000);
	msleep(20);	/* room for a call that should not come */
	return atomic_read(&s->calls) == want;
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

static struct kunit_case dp_cases[] = {
	KUNIT_CASE_PARAM(dp_message_size, dpt_size_gen),
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

kunit_test_suite(dp_suite);
