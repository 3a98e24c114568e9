// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_conformance_verbs: the data path of a connected QP pair through
 * Linux's verbs: SEND/RECV, RDMA WRITE and READ, send queue order,
 * unsignaled sends, memory protection (PDs, keys, rights, bounds), fast
 * registration and invalidation, drain, CQ notification, the limits the
 * device advertises, and bad input (its table is in kc_bad_test.c).
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include <kiwi/provider.h>

#include "kc.h"

/* Fill @b's first @len bytes, for the device. */
static void kc_pattern(struct kc_buf *b, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b->cpu[i] = seed + i * 13;
	kc_to_dev(b);
}

/* An MR over a whole buffer of side a, for an RDMA READ's sink. */
static struct ib_mr *kc_sink(struct kc *t, struct kc_buf *b)
{
	return kc_mr(t, t->a.pd, b, IB_ACCESS_LOCAL_WRITE);
}

/* The limits query_device gives are the ones the device keeps: a receive
 * queue of max_qp_wr takes that many receives and refuses one more.
 */
static void kc_attrs(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct ib_device_attr *at = &t->b.dev->attrs;
	struct kc_qp_opts o = { .wr = min_t(int, at->max_qp_wr, 1024) };
	struct kc_buf *b = kc_buf(t, &t->b, 64);
	struct ib_sge sge = {
		.addr = b->dma, .length = 64, .lkey = t->b.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	struct ib_qp *qp;
	int i, ret = 0;

	KUNIT_EXPECT_GT(test, at->max_qp_wr, 0);
	KUNIT_EXPECT_GT(test, at->max_send_sge, 0);
	KUNIT_EXPECT_GT(test, at->max_recv_sge, 0);
	KUNIT_EXPECT_GT(test, at->max_cqe, 0);
	KUNIT_EXPECT_GT(test, at->max_qp_rd_atom, 0);
	KUNIT_EXPECT_GT(test, at->max_qp_init_rd_atom, 0);
	o.cqe = min_t(int, 2 * o.wr, at->max_cqe);
	qp = kc_qp(t, &t->b, &o);
	for (i = 0; i < o.wr && !ret; i++) {
		wr.wr_id = i;
		ret = ib_post_recv(qp, &wr, &bad);
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "receive %d of %d refused", i, o.wr);
	if (o.wr == at->max_qp_wr)
		KUNIT_EXPECT_LT(test, ib_post_recv(qp, &wr, &bad), 0);
}

/* Sync: a SEND from a to b, received. RDMA WRITEs posted before it are
 * placed by the time its receive completes.
 */
static void kc_sync(struct kc *t, struct kc_conn *c)
{
	struct kunit *test = t->test;
	struct kc_buf *sa = kc_buf(t, &t->a, 8), *sb = kc_buf(t, &t->b, 8);
	struct ib_wc wc[2];

	kc_post_recv(t, c->qb, 0x5c, sb, 8);
	KUNIT_ASSERT_EQ(test, kc_send(c->qa, 0x5c, sa, 8, IB_SEND_SIGNALED),
			0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c->qa, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c->qb, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
}

/* A SEND lands in the peer's oldest receive, whole, with its length. */
static void kc_send_recv(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *sa = kc_buf(t, &t->a, 4096), *rb = kc_buf(t, &t->b, 4096);
	struct kc_conn c = {};
	struct ib_wc wc;

	kc_connected(t, &c, NULL);
	kc_pattern(sa, 3000, 1);
	kc_post_recv(t, c.qb, 77, rb, 4096);
	kc_post_recv(t, c.qb, 78, rb, 4096);
	KUNIT_ASSERT_EQ(test, kc_send(c.qa, 42, sa, 3000, IB_SEND_SIGNALED),
			0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 42);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, c.qa);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qb, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 77);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 3000);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, c.qb);
	kc_to_cpu(rb);
	KUNIT_EXPECT_EQ(test, memcmp(rb->cpu, sa->cpu, 3000), 0);
	KUNIT_EXPECT_EQ(test, rb->cpu[3000], 0);
}

/* An RDMA WRITE lands at the offset it names, and nowhere else. */
static void kc_rdma_write(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *la = kc_buf(t, &t->a, 8192), *rb = kc_buf(t, &t->b, 8192);
	struct ib_mr *mr = kc_mr(t, t->b.pd, rb, IB_ACCESS_LOCAL_WRITE |
				 IB_ACCESS_REMOTE_WRITE);
	struct kc_conn c = {};
	struct ib_wc wc;

	kc_connected(t, &c, NULL);
	kc_pattern(la, 5000, 3);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_WRITE, 9, la, NULL, 5000,
				      mr->iova + 100, mr->rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9);
	kc_sync(t, &c);
	kc_to_cpu(rb);
	KUNIT_EXPECT_EQ(test, memcmp(rb->cpu + 100, la->cpu, 5000), 0);
	KUNIT_EXPECT_EQ(test, rb->cpu[99], 0);
	KUNIT_EXPECT_EQ(test, rb->cpu[5100], 0);
}

/* An RDMA READ brings the bytes it names. */
static void kc_rdma_read(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *la = kc_buf(t, &t->a, 8192), *rb = kc_buf(t, &t->b, 8192);
	struct ib_mr *mr = kc_mr(t, t->b.pd, rb, IB_ACCESS_REMOTE_READ);
	struct ib_mr *sink = kc_sink(t, la);
	struct kc_conn c = {};
	struct ib_wc wc;

	kc_connected(t, &c, NULL);
	kc_pattern(rb, 8192, 5);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_READ, 11, la, sink, 6000,
				      mr->iova + 50, mr->rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 11);
	kc_to_cpu(la);
	KUNIT_EXPECT_EQ(test, memcmp(la->cpu, rb->cpu + 50, 6000), 0);
	KUNIT_EXPECT_EQ(test, la->cpu[6000], 0);
}

/* Sends complete in the order they were posted, and arrive in it. */
static void kc_sq_order(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *sa = kc_buf(t, &t->a, 8 * 64);
	struct kc_buf *rb = kc_buf(t, &t->b, 8 * 64);
	struct kc_conn c = {};
	struct ib_wc wc[8];
	int i;

	kc_connected(t, &c, NULL);
	for (i = 0; i < 8; i++) {
		struct kc_buf one = *rb;

		one.cpu += i * 64;
		one.dma += i * 64;
		kc_post_recv(t, c.qb, i, &one, 64);
	}
	for (i = 0; i < 8; i++) {
		struct kc_buf one = *sa;

		one.cpu += i * 64;
		one.dma += i * 64;
		memset(one.cpu, i + 1, 16 + i);
		kc_to_dev(sa);
		KUNIT_ASSERT_EQ(test, kc_send(c.qa, i, &one, 16 + i,
					      IB_SEND_SIGNALED), 0);
	}
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, wc, 8), 8);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, i);
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
	}
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qb, wc, 8), 8);
	kc_to_cpu(rb);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, i);
		KUNIT_EXPECT_EQ(test, wc[i].byte_len, 16 + i);
		KUNIT_EXPECT_EQ(test, rb->cpu[i * 64], i + 1);
	}
}

static const bool kc_sig_cases[] = { false, true };

static void kc_sig_desc(const bool *v, char *desc)
{
	strscpy(desc, *v ? "IB_SIGNAL_ALL_WR" : "IB_SIGNAL_REQ_WR",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kc_sig, kc_sig_cases, kc_sig_desc);

/* Unsignaled sends complete only on an IB_SIGNAL_ALL_WR QP. */
static void kc_unsignaled(struct kunit *test)
{
	const bool *all = test->param_value;
	struct kc *t = kc_of(test);
	struct kc_qp_opts o = { .sig_all = *all };
	struct kc_buf *sa = kc_buf(t, &t->a, 64), *rb = kc_buf(t, &t->b, 64);
	struct kc_conn c = {};
	struct ib_wc wc[4];
	int i, n = *all ? 4 : 1;

	kc_connected(t, &c, &o);
	for (i = 0; i < 4; i++)
		kc_post_recv(t, c.qb, i, rb, 64);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, kc_send(c.qa, i, sa, 8,
					      i == 3 ? IB_SEND_SIGNALED : 0),
				0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qb, wc, 4), 4);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, wc, n), n);
	KUNIT_EXPECT_EQ(test, wc[n - 1].wr_id, 3);
	kc_settle(t);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(c.qa->send_cq, 4, wc), 0);
}

/* A remote access the peer refuses ends the connection: the request fails,
 * no byte arrives, the peer's QP hears an access error and both
 * ids a CLOSE with a negative status.
 */
static void kc_refused(struct kc *t, struct kc_conn *c, struct kc_buf *rb,
		       u64 raddr, u32 rkey, const char *what)
{
	struct kunit *test = t->test;
	struct kc_buf *la = kc_buf(t, &t->a, 256);
	const struct kc_ev *r;
	struct ib_wc wc;

	kunit_info(test, "refused: %s\n", what);
	kc_connected(t, c, NULL);
	KUNIT_ASSERT_EQ(test, kc_rdma(c->qa, IB_WR_RDMA_READ, 1, la,
				      kc_sink(t, la), 256,
				      raddr, rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c->qa, &wc, 1), 1);
	KUNIT_EXPECT_NE_MSG(test, wc.status, IB_WC_SUCCESS, "%s", what);
	kc_to_cpu(la);
	KUNIT_EXPECT_EQ_MSG(test, la->cpu[0], 0, "%s: bytes came", what);
	KUNIT_EXPECT_TRUE_MSG(test, kc_wait_qp_event(t, c->qb,
						     IB_EVENT_QP_ACCESS_ERR),
			      "%s: no IB_EVENT_QP_ACCESS_ERR", what);
	r = kc_wait(t, c->a, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	r = kc_wait(t, c->b, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	c->a = NULL;
	c->b = NULL;
}

/* An MR of another PD than the QP's is out of the peer's reach. */
static void kc_pd_isolation(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *rb = kc_buf(t, &t->b, 4096);
	struct ib_pd *other = kc_pd(t, &t->b);
	struct ib_mr *mr = kc_mr(t, other, rb, IB_ACCESS_REMOTE_READ);
	struct ib_mr *own = kc_mr(t, t->b.pd, rb, IB_ACCESS_REMOTE_READ);
	struct kc_buf *la = kc_buf(t, &t->a, 256);
	struct kc_conn c = {};
	struct ib_wc wc;

	memset(rb->cpu, 0x77, 4096);
	kc_to_dev(rb);
	kc_refused(t, &c, rb, mr->iova, mr->rkey, "MR of another PD");
	kc_connected(t, &c, NULL);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_READ, 2, la,
				      kc_sink(t, la), 256,
				      own->iova, own->rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	kc_to_cpu(la);
	KUNIT_EXPECT_EQ(test, la->cpu[0], 0x77);
}

/* Keys: two MRs differ; a deregistered MR, an MR without the right and an
 * access out of bounds are refused; a good access still works after.
 */
static void kc_mr_keys(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *rb = kc_buf(t, &t->b, 4096);
	struct ib_mr *gone = kc_mr(t, t->b.pd, rb, IB_ACCESS_REMOTE_READ);
	struct ib_mr *wr_only = kc_mr(t, t->b.pd, rb, IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE);
	struct ib_mr *good = kc_mr(t, t->b.pd, rb, IB_ACCESS_REMOTE_READ);
	struct kc_buf *la = kc_buf(t, &t->a, 256);
	struct kc_conn c = {};
	u32 gone_rkey = gone->rkey;
	u64 gone_iova = gone->iova;
	struct ib_wc wc;

	memset(rb->cpu, 0x66, 4096);
	kc_to_dev(rb);
	KUNIT_EXPECT_NE(test, gone->rkey, good->rkey);
	KUNIT_EXPECT_NE(test, wr_only->rkey, good->rkey);
	KUNIT_EXPECT_NE(test, wr_only->rkey, gone->rkey);
	kc_forget_mr(t, gone);
	KUNIT_ASSERT_EQ(test, ib_dereg_mr(gone), 0);
	kc_refused(t, &c, rb, gone_iova, gone_rkey, "deregistered MR");
	kc_refused(t, &c, rb, wr_only->iova, wr_only->rkey,
		   "MR without IB_ACCESS_REMOTE_READ");
	kc_refused(t, &c, rb, good->iova + 4096 - 100, good->rkey,
		   "READ past the MR's end");
	kc_connected(t, &c, NULL);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_READ, 2, la,
				      kc_sink(t, la), 256,
				      good->iova, good->rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	kc_to_cpu(la);
	KUNIT_EXPECT_EQ(test, la->cpu[255], 0x66);
}

/* Post one signalled REG_MR or LOCAL_INV on @qp and wait for it. */
static void kc_local(struct kc *t, struct ib_qp *qp, struct ib_mr *mr,
		     bool reg)
{
	struct kunit *test = t->test;
	struct ib_reg_wr rw = {
		.wr = { .opcode = IB_WR_REG_MR, .send_flags = IB_SEND_SIGNALED },
		.mr = mr, .key = mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = mr->rkey,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_send(qp, reg ? &rw.wr : &inv, &bad), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, qp, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, reg ? IB_WC_REG_MR : IB_WC_LOCAL_INV);
}

/*
 * A fast-registration MR of @s's PD over the two pages of @b, mapped and
 * given a new key, not registered yet; the case skips if @s's device has
 * no fast registration.
 */
static struct ib_mr *kc_fr_mr(struct kc *t, struct kc_side *s,
			      struct kc_buf *b)
{
	struct kunit *test = t->test;
	struct scatterlist sg;
	struct ib_mr *mr;

	if (!(s->dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		kunit_skip(test, "%s has no fast registration", s->dev->name);
	mr = ib_alloc_mr(s->pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_ASSERT_LT(test, t->nmrs, KC_MAX_OBJS);
	t->mrs[t->nmrs++] = mr;
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma;
	sg_dma_len(&sg) = 2 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
	return mr;
}

/* Fast registration: a registered MR takes a peer's WRITE; once
 * invalidated, it refuses the next.
 */
static void kc_fastreg(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *rb = kc_buf(t, &t->b, 2 * PAGE_SIZE);
	struct kc_buf *la = kc_buf(t, &t->a, 4096);
	struct ib_mr *mr = kc_fr_mr(t, &t->b, rb);
	struct kc_conn c = {};
	struct ib_wc wc;

	kc_connected(t, &c, NULL);
	kc_local(t, c.qb, mr, true);
	kc_pattern(la, 4096, 9);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_WRITE, 3, la, NULL, 4096,
				      mr->iova + 100, mr->rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	kc_sync(t, &c);
	kc_to_cpu(rb);
	KUNIT_EXPECT_EQ(test, memcmp(rb->cpu + 100, la->cpu, 4096), 0);
	kc_local(t, c.qb, mr, false);
	memset(rb->cpu, 0, 2 * PAGE_SIZE);
	kc_to_dev(rb);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_WRITE, 4, la, NULL, 4096,
				      mr->iova, mr->rkey), 0);
	KUNIT_EXPECT_TRUE_MSG(test, kc_wait_qp_event(t, c.qb,
						     IB_EVENT_QP_ACCESS_ERR),
			      "WRITE to an invalidated MR: no access error");
	KUNIT_EXPECT_NOT_NULL(test, kc_wait(t, c.b, KIWI_CM_EVENT_CLOSE));
	kc_to_cpu(rb);
	KUNIT_EXPECT_NULL(test, memchr_inv(rb->cpu, 0, 2 * PAGE_SIZE));
}

/* A fast-registered MR backs local SGEs: a RECV's sink, and the source
 * of a SEND posted in one chain behind the REG_MR that registers it.
 */
static void kc_fastreg_local(struct kunit *test)
{
	struct kc *t = kc_of(test);
	const u32 len = PAGE_SIZE + 1000;	/* across a page boundary */
	struct kc_buf *sa = kc_buf(t, &t->a, 2 * PAGE_SIZE);
	struct kc_buf *rb = kc_buf(t, &t->b, 2 * PAGE_SIZE);
	struct ib_mr *ma = kc_fr_mr(t, &t->a, sa), *mb = kc_fr_mr(t, &t->b, rb);
	struct ib_sge src = { .addr = ma->iova + 20, .length = len,
			      .lkey = ma->lkey };
	struct ib_sge sink = { .addr = mb->iova + 10, .length = len,
			       .lkey = mb->lkey };
	struct ib_send_wr send = {
		.wr_id = 7, .opcode = IB_WR_SEND, .sg_list = &src,
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR, .next = &send },
		.mr = ma, .key = ma->rkey & 0xff,
		.access = IB_ACCESS_LOCAL_WRITE,
	};
	struct ib_recv_wr recv = { .wr_id = 8, .sg_list = &sink,
				   .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *bad;
	struct kc_conn c = {};
	struct ib_wc wc;

	kc_connected(t, &c, NULL);
	kc_local(t, c.qb, mb, true);
	KUNIT_ASSERT_EQ(test, ib_post_recv(c.qb, &recv, &rbad), 0);
	kc_pattern(sa, 2 * PAGE_SIZE, 5);
	KUNIT_ASSERT_EQ(test, ib_post_send(c.qa, &reg.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qb, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	kc_to_cpu(rb);
	KUNIT_EXPECT_EQ(test, memcmp(rb->cpu + 10, sa->cpu + 20, len), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(rb->cpu, 0, 10));
}

static void kc_count_flush(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kc *t = cq->cq_context;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->flushes += wc->status == IB_WC_WR_FLUSH_ERR;
	spin_unlock_irqrestore(&t->lock, flags);
}

/* Process @qp's CQ until @n flushes were counted, or KC_WAIT_MS passed. */
static int kc_wait_flushes(struct kc *t, struct ib_qp *qp, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(KC_WAIT_MS);

	while (READ_ONCE(t->flushes) < n && time_before(jiffies, end)) {
		if (!ib_process_cq_direct(qp->recv_cq, 16))
			usleep_range(500, 1000);
	}
	return READ_ONCE(t->flushes);
}

/* A QP moved to ERROR flushes its receives; ib_drain_qp() then returns
 * (its own markers, posted in ERROR, complete at once).
 */
static void kc_drain(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_qp_opts o = { .lib_cq = true };
	struct ib_qp_attr err = { .qp_state = IB_QPS_ERR };
	struct ib_cqe cqe = { .done = kc_count_flush };
	struct kc_buf *rb = kc_buf(t, &t->b, 64);
	struct ib_sge sge = {
		.addr = rb->dma, .length = 64, .lkey = t->b.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &cqe, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	struct kc_conn c = {};
	int i;

	kc_connected(t, &c, &o);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, ib_post_recv(c.qb, &wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(c.qb, &err, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ_MSG(test, kc_wait_flushes(t, c.qb, 4), 4,
			    "receives flushed when the QP went to ERROR");
	ib_drain_qp(c.qb);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->flushes), 4);
	KUNIT_ASSERT_EQ(test, ib_post_recv(c.qb, &wr, &bad), 0);
	KUNIT_EXPECT_EQ_MSG(test, kc_wait_flushes(t, c.qb, 5), 5,
			    "a receive posted in ERROR did not complete");
}

/*
 * req_notify_cq(IB_CQ_REPORT_MISSED_EVENTS) says when completions wait.
 * The peer answers a READ only after it took the SEND before it (RFC
 * 5040 orders both on one stream): when the READ completes, the peer's
 * RECV has completed, and is still on its CQ.
 */
static void kc_missed_events(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_buf *sa = kc_buf(t, &t->a, 64), *rb = kc_buf(t, &t->b, 64);
	struct kc_buf *la = kc_buf(t, &t->a, 8), *src = kc_buf(t, &t->b, 8);
	struct ib_mr *mr = kc_mr(t, t->b.pd, src, IB_ACCESS_REMOTE_READ);
	struct ib_mr *sink = kc_sink(t, la);
	struct kc_conn c = {};
	struct ib_wc wc[2];
	int ret;

	kc_connected(t, &c, NULL);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(c.qb->recv_cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	kc_post_recv(t, c.qb, 1, rb, 64);
	KUNIT_ASSERT_EQ(test, kc_send(c.qa, 1, sa, 8, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, kc_rdma(c.qa, IB_WR_RDMA_READ, 2, la, sink, 8,
				      mr->iova, mr->rkey), 0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	ret = ib_req_notify_cq(c.qb->recv_cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	KUNIT_EXPECT_GT_MSG(test, ret, 0,
			    "a completion waits, yet req_notify_cq() returned %d",
			    ret);
}

/* A CQ that overflows tells its owner once with IB_EVENT_CQ_ERR, ends
 * its QP with IB_EVENT_QP_FATAL, and the connection with a CLOSE of
 * negative status.
 */
static void kc_cq_overflow(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_qp_opts o = { .cqe = 4, .wr = 64 };
	struct kc_buf *sa = kc_buf(t, &t->a, 8), *rb = kc_buf(t, &t->b, 8);
	struct kc_conn c = {};
	const struct kc_ev *r;
	int i, n;

	o.wr = min(o.wr, t->b.dev->attrs.max_qp_wr);
	kc_connected(t, &c, &o);
	n = c.qb->recv_cq->cqe + 2;
	if (c.qb->recv_cq->cqe <= 0 || n > o.wr)
		kunit_skip(test, "a CQ of 4 holds %d", n - 2);
	for (i = 0; i < n; i++)
		kc_post_recv(t, c.qb, i, rb, 8);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, kc_send(c.qa, i, sa, 8, 0), 0);
	KUNIT_EXPECT_TRUE_MSG(test, kc_wait_qp_event(t, c.qb,
						     IB_EVENT_QP_FATAL),
			      "%d receives completed on a CQ of %d: no IB_EVENT_QP_FATAL",
			      n, n - 2);
	r = kc_wait(t, c.b, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	KUNIT_EXPECT_GT_MSG(test, kc_wait_cq_errs(t, c.qb->recv_cq), 0,
			    "the CQ overflowed: no IB_EVENT_CQ_ERR");
	kc_settle(t);
	KUNIT_EXPECT_EQ_MSG(test, kc_wait_cq_errs(t, c.qb->recv_cq), 1,
			    "IB_EVENT_CQ_ERR more than once");
}

static struct kunit_case kc_verbs_cases[] = {
	KUNIT_CASE(kc_attrs),
	KUNIT_CASE(kc_send_recv),
	KUNIT_CASE(kc_rdma_write),
	KUNIT_CASE(kc_rdma_read),
	KUNIT_CASE(kc_sq_order),
	KUNIT_CASE_PARAM(kc_unsignaled, kc_sig_gen_params),
	KUNIT_CASE(kc_pd_isolation),
	KUNIT_CASE(kc_mr_keys),
	KUNIT_CASE(kc_fastreg),
	KUNIT_CASE(kc_fastreg_local),
	KUNIT_CASE(kc_drain),
	KUNIT_CASE(kc_missed_events),
	KUNIT_CASE(kc_cq_overflow),
	KUNIT_CASE_PARAM(kc_bad_input, kc_bad_params),
	{}
};

struct kunit_suite kc_verbs_suite = {
	.name = "kiwi_conformance_verbs",
	.init = kc_case_init,
	.exit = kc_case_exit,
	.test_cases = kc_verbs_cases,
};
