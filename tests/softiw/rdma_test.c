// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_rdma: RDMA WRITE and READ between two softiw QPs connected
 * over loopback (dp_fixture.h): a WRITE and a READ of each message size
 * around the tagged MULPDU, CRC on and off, placed byte for byte and
 * nothing around them; READs, SENDs and WRITEs mixed in both directions
 * at once, more READs than ORD, over 127.0.0.1 and ::1; READs flushed
 * when their QP is destroyed; READs refused at ORD 0; SEND with
 * Invalidate, and one the target may not honour.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "dp_fixture.h"
#include "hostile_peer.h"
#include "kiwi_test.h"
#include "softiw.h"

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

static struct kunit_case rdma_cases[] = {
	KUNIT_CASE_PARAM(rdma_write_size, dpt_size_gen),
	KUNIT_CASE_PARAM(rdma_read_size, dpt_size_gen),
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

kunit_test_suite(rdma_suite);
