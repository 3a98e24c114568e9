// SPDX-License-Identifier: GPL-2.0
/*
 * kc_bad_input, a case of kiwi_conformance_verbs: bad input through every
 * op a ULP reaches the provider by. Each is refused with an errno (and
 * *bad_wr set for a work request), nothing of it is queued or completes,
 * and the connection keeps working.
 */
#include <linux/bits.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>

#include "kc.h"

/**
 * struct kc_bad - one bad input, refused by the stack
 * @name: what it is
 * @run: makes the call on a connected pair whose queues hold 4 work
 *	requests (or what the device rounded that to); returns 0 if it
 *	was refused as it should be, or the result that shows it was not.
 *	Only calls the core passes on to the provider: what the core
 *	refuses itself (queues, SGEs, CQs or fast-registration MRs beyond
 *	the device's limits) is its own test's business.
 */
struct kc_bad {
	const char *name;
	long (*run)(struct kc *t, struct kc_conn *c);
};

/* A refused call's result, as 0; anything else as itself (or 1). */
static long kc_refused_ret(int ret, bool bad_wr_ok)
{
	if (ret >= 0)
		return ret ?: 1;
	return bad_wr_ok ? 0 : 2;
}

/* The queue sizes @qp has (query_qp), or those the kit asked for. */
static struct ib_qp_cap kc_cap(struct ib_qp *qp)
{
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, 0, &init))	/* it fills cap whatever the mask */
		return (struct ib_qp_cap){
			.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = min(2, qp->device->attrs.max_send_sge),
			.max_recv_sge = min(2, qp->device->attrs.max_recv_sge),
		};
	return init.cap;
}

/* @n SGEs over @b, for the PD of @qp. */
static struct ib_sge *kc_sges(struct kc *t, struct ib_qp *qp,
			      struct kc_buf *b, u32 n)
{
	struct ib_sge *sge = kunit_kcalloc(t->test, n, sizeof(*sge),
					   GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(t->test, sge);
	for (i = 0; i < n; i++)
		sge[i] = (struct ib_sge){
			.addr = b->dma, .length = 8,
			.lkey = qp->pd->local_dma_lkey,
		};
	return sge;
}

static long kc_bad_send_sges(struct kc *t, struct kc_conn *c)
{
	u32 n = kc_cap(c->qa).max_send_sge + 1;
	struct ib_send_wr wr = {
		.sg_list = kc_sges(t, c->qa, kc_buf(t, &t->a, 64), n),
		.num_sge = n, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(c->qa, &wr, &bad);

	return kc_refused_ret(ret, bad == &wr);
}

static long kc_bad_opcode(struct kc *t, struct kc_conn *c)
{
	struct ib_send_wr wr = { .opcode = (enum ib_wr_opcode)0x7f };
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(c->qa, &wr, &bad);

	return kc_refused_ret(ret, bad == &wr);
}

static long kc_bad_recv_sges(struct kc *t, struct kc_conn *c)
{
	u32 n = kc_cap(c->qb).max_recv_sge + 1;
	struct ib_recv_wr wr = {
		.sg_list = kc_sges(t, c->qb, kc_buf(t, &t->b, 64), n),
		.num_sge = n,
	};
	const struct ib_recv_wr *bad = NULL;
	int ret = ib_post_recv(c->qb, &wr, &bad);

	return kc_refused_ret(ret, bad == &wr);
}

/* One receive more than the queue holds: that one is refused. */
static long kc_bad_rq_full(struct kc *t, struct kc_conn *c)
{
	u32 n = kc_cap(c->qb).max_recv_wr, i;
	struct kc_buf *b = kc_buf(t, &t->b, 64);
	struct ib_sge sge = {
		.addr = b->dma, .length = 64, .lkey = c->qb->pd->local_dma_lkey,
	};
	struct ib_recv_wr *wr = kunit_kcalloc(t->test, n + 1, sizeof(*wr),
					      GFP_KERNEL);
	struct kc_buf *sb = kc_buf(t, &t->a, 8);
	const struct ib_recv_wr *bad = NULL;
	struct ib_wc wc;
	int ret;

	KUNIT_ASSERT_NOT_NULL(t->test, wr);
	for (i = 0; i <= n; i++) {
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < n ? &wr[i + 1] : NULL;
	}
	ret = ib_post_recv(c->qb, wr, &bad);
	if (ret >= 0 || bad != &wr[n])
		return ret ?: 1;
	/* Use up the n taken, for the check after. */
	for (i = 0; i < n; i++) {
		if (kc_send(c->qa, i, sb, 8, IB_SEND_SIGNALED))
			return 3;
		if (kc_poll(t, c->qb, &wc, 1) != 1 ||
		    kc_poll(t, c->qa, &wc, 1) != 1)
			return 4;
	}
	return 0;
}

static long kc_bad_inline(struct kc *t, struct kc_conn *c)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = c->qb->send_cq, .recv_cq = c->qb->recv_cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 1U << 30 },
	};
	struct ib_qp *qp = ib_create_qp(t->b.pd, &init);

	if (IS_ERR(qp))
		return 0;
	ib_destroy_qp(qp);
	return 1;
}

/* Three pages mapped into an MR allocated for two. */
static long kc_bad_map_pages(struct kc *t, struct kc_conn *c)
{
	struct kc_buf *b = kc_buf(t, &t->b, 4 * PAGE_SIZE);
	struct scatterlist sg[3];
	struct ib_mr *mr;
	int i, n;

	if (!(t->b.dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		kunit_skip(t->test, "%s has no fast registration", t->b.name);
	mr = ib_alloc_mr(t->b.pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sg_init_table(sg, ARRAY_SIZE(sg));
	for (i = 0; i < ARRAY_SIZE(sg); i++) {
		sg_dma_address(&sg[i]) = b->dma + i * PAGE_SIZE;
		sg_dma_len(&sg[i]) = PAGE_SIZE;
	}
	n = ib_map_mr_sg(mr, sg, ARRAY_SIZE(sg), NULL, PAGE_SIZE);
	ib_dereg_mr(mr);
	/* Fewer entries mapped than given, or an errno: both refuse. */
	return n < (int)ARRAY_SIZE(sg) ? 0 : n;
}

/* 8 bytes of @b, by the PD's local_dma_lkey of @qp. */
static struct ib_sge kc_bad_dma(struct ib_qp *qp, struct kc_buf *b)
{
	return (struct ib_sge){
		.addr = b->dma, .length = 8, .lkey = qp->pd->local_dma_lkey,
	};
}

/* 8 bytes at @off in @mr, an MR of kc_mr(). */
static struct ib_sge kc_bad_sge(const struct ib_mr *mr, u64 off)
{
	return (struct ib_sge){
		.addr = mr->iova + off, .length = 8, .lkey = mr->lkey,
	};
}

/* An MR of @pd over 64 bytes of side @s, with @access. */
static struct ib_mr *kc_bad_mr(struct kc *t, struct kc_side *s,
			       struct ib_pd *pd, u32 access)
{
	return kc_mr(t, pd, kc_buf(t, s, 64), access);
}

/*
 * Post one signalled request of @op and @flags on side a's QP: @num_sge
 * SGEs at @sge, and for RDMA the peer's MR @rmr (or none). Return: as
 * struct kc_bad's @run.
 */
static long kc_bad_post(struct kc_conn *c, enum ib_wr_opcode op, int flags,
			struct ib_sge *sge, int num_sge,
			const struct ib_mr *rmr)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = op, .send_flags = IB_SEND_SIGNALED | flags,
			.sg_list = sge, .num_sge = num_sge,
		},
		.remote_addr = rmr ? rmr->iova : 0,
		.rkey = rmr ? rmr->rkey : 0,
	};
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(c->qa, &wr.wr, &bad);

	return kc_refused_ret(ret, bad == &wr.wr);
}

/* Post one receive of @num_sge SGEs at @sge on side b's QP. */
static long kc_bad_post_recv(struct kc_conn *c, struct ib_sge *sge,
			     int num_sge)
{
	struct ib_recv_wr wr = { .sg_list = sge, .num_sge = num_sge };
	const struct ib_recv_wr *bad = NULL;
	int ret = ib_post_recv(c->qb, &wr, &bad);

	return kc_refused_ret(ret, bad == &wr);
}

static long kc_bad_send_other_pd(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->a, kc_pd(t, &t->a),
				     IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge = kc_bad_sge(mr, 0);

	return kc_bad_post(c, IB_WR_SEND, 0, &sge, 1, NULL);
}

static long kc_bad_send_dereg(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->a, c->qa->pd,
				     IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge = kc_bad_sge(mr, 0);

	kc_forget_mr(t, mr);
	if (ib_dereg_mr(mr))
		return 3;
	return kc_bad_post(c, IB_WR_SEND, 0, &sge, 1, NULL);
}

/* 8 bytes from 4 before the MR's end. */
static long kc_bad_send_range(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->a, c->qa->pd,
				     IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge = kc_bad_sge(mr, 64 - 4);

	return kc_bad_post(c, IB_WR_SEND, 0, &sge, 1, NULL);
}

static long kc_bad_send_neg_sge(struct kc *t, struct kc_conn *c)
{
	struct ib_sge sge = kc_bad_dma(c->qa, kc_buf(t, &t->a, 64));

	return kc_bad_post(c, IB_WR_SEND, 0, &sge, -1, NULL);
}

/* A send flag no kiwi provider knows. */
static long kc_bad_send_flag(struct kc *t, struct kc_conn *c)
{
	struct ib_sge sge = kc_bad_dma(c->qa, kc_buf(t, &t->a, 64));

	return kc_bad_post(c, IB_WR_SEND, BIT(30), &sge, 1, NULL);
}

static long kc_bad_send_csum(struct kc *t, struct kc_conn *c)
{
	struct ib_sge sge = kc_bad_dma(c->qa, kc_buf(t, &t->a, 64));

	return kc_bad_post(c, IB_WR_SEND, IB_SEND_IP_CSUM, &sge, 1, NULL);
}

/* One byte more inline data than the QP has room for. */
static long kc_bad_send_inline(struct kc *t, struct kc_conn *c)
{
	u32 len = kc_cap(c->qa).max_inline_data + 1;
	struct kc_buf *b;
	struct ib_sge sge;

	if (len > SZ_64K)
		kunit_skip(t->test, "the QP takes %u bytes inline", len - 1);
	b = kc_buf(t, &t->a, len);
	/* inline data is read by kernel address, as in Linux */
	sge = (struct ib_sge){
		.addr = (uintptr_t)b->cpu, .length = len,
		.lkey = c->qa->pd->local_dma_lkey,
	};
	return kc_bad_post(c, IB_WR_SEND, IB_SEND_INLINE, &sge, 1, NULL);
}

static long kc_bad_send_imm(struct kc *t, struct kc_conn *c)
{
	struct ib_sge sge = kc_bad_dma(c->qa, kc_buf(t, &t->a, 64));

	return kc_bad_post(c, IB_WR_SEND_WITH_IMM, 0, &sge, 1, NULL);
}

/* A request of @op to a writable MR of the peer's, from good memory. */
static long kc_bad_remote_op(struct kc *t, struct kc_conn *c,
			     enum ib_wr_opcode op)
{
	struct ib_mr *rmr = kc_bad_mr(t, &t->b, c->qb->pd,
				      IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ);
	struct ib_sge sge = kc_bad_dma(c->qa, kc_buf(t, &t->a, 64));

	return kc_bad_post(c, op, 0, &sge, 1, rmr);
}

static long kc_bad_write_imm(struct kc *t, struct kc_conn *c)
{
	return kc_bad_remote_op(t, c, IB_WR_RDMA_WRITE_WITH_IMM);
}

/* kiwi has no struct ib_atomic_wr: an ib_rdma_wr carries the opcode. */
static long kc_bad_atomic(struct kc *t, struct kc_conn *c)
{
	return kc_bad_remote_op(t, c, IB_WR_ATOMIC_CMP_AND_SWP);
}

/* iWARP names a READ's sink by STag on the wire: never local_dma_lkey. */
static long kc_bad_read_dma_sink(struct kc *t, struct kc_conn *c)
{
	return kc_bad_remote_op(t, c, IB_WR_RDMA_READ);
}

/*
 * A fast-registration MR of @pd on side a over two pages, mapped and
 * given a new key; the row skips if side a has no fast registration.
 */
static struct ib_mr *kc_bad_fr_mr(struct kc *t, struct ib_pd *pd)
{
	struct kc_buf *b = kc_buf(t, &t->a, 2 * PAGE_SIZE);
	struct scatterlist sg;
	struct ib_mr *mr;

	if (!(t->a.dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		kunit_skip(t->test, "%s has no fast registration", t->a.name);
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(mr));
	KUNIT_ASSERT_LT(t->test, t->nmrs, KC_MAX_OBJS);
	t->mrs[t->nmrs++] = mr;
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma;
	sg_dma_len(&sg) = 2 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(t->test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
	return mr;
}

/* Post a signalled IB_WR_REG_MR of @mr with @access on side a's QP. */
static long kc_bad_post_reg(struct kc_conn *c, struct ib_mr *mr, int access)
{
	struct ib_reg_wr wr = {
		.wr = { .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr, .key = mr->rkey & 0xff, .access = access,
	};
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(c->qa, &wr.wr, &bad);

	return kc_refused_ret(ret, bad == &wr.wr);
}

static long kc_bad_reg_other_pd(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_fr_mr(t, kc_pd(t, &t->a));

	return kc_bad_post_reg(c, mr, IB_ACCESS_LOCAL_WRITE);
}

static long kc_bad_reg_access(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_fr_mr(t, c->qa->pd);

	return kc_bad_post_reg(c, mr, IB_ACCESS_REMOTE_WRITE);
}

/* Post a signalled IB_WR_LOCAL_INV of @stag on side a's QP. */
static long kc_bad_post_inv(struct kc_conn *c, u32 stag)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = stag,
	};
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(c->qa, &wr, &bad);

	return kc_refused_ret(ret, bad == &wr);
}

/* The STag of a live MR of the QP's PD, with another key: no MR's. */
static long kc_bad_inv_unknown(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->a, c->qa->pd,
				     IB_ACCESS_LOCAL_WRITE);

	return kc_bad_post_inv(c, ib_inc_rkey(mr->lkey));
}

static long kc_bad_inv_other_pd(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->a, kc_pd(t, &t->a),
				     IB_ACCESS_LOCAL_WRITE);

	return kc_bad_post_inv(c, mr->lkey);
}

static long kc_bad_recv_neg_sge(struct kc *t, struct kc_conn *c)
{
	struct ib_sge sge = kc_bad_dma(c->qb, kc_buf(t, &t->b, 64));

	return kc_bad_post_recv(c, &sge, -1);
}

static long kc_bad_recv_other_pd(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->b, kc_pd(t, &t->b),
				     IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge = kc_bad_sge(mr, 0);

	return kc_bad_post_recv(c, &sge, 1);
}

static long kc_bad_recv_read_only(struct kc *t, struct kc_conn *c)
{
	struct ib_mr *mr = kc_bad_mr(t, &t->b, c->qb->pd,
				     IB_ACCESS_REMOTE_READ);
	struct ib_sge sge = kc_bad_sge(mr, 0);

	return kc_bad_post_recv(c, &sge, 1);
}

static const struct kc_bad kc_bads[] = {
	{ "send with more SGEs than the QP has", kc_bad_send_sges },
	{ "send of an unknown opcode", kc_bad_opcode },
	{ "receive with more SGEs than the QP has", kc_bad_recv_sges },
	{ "more receives than the queue holds", kc_bad_rq_full },
	{ "QP with 1 GiB of inline data", kc_bad_inline },
	{ "three pages mapped into an MR of two", kc_bad_map_pages },
	{ "send from an MR of another PD", kc_bad_send_other_pd },
	{ "send from a deregistered MR", kc_bad_send_dereg },
	{ "send past its MR's end", kc_bad_send_range },
	{ "send with num_sge -1", kc_bad_send_neg_sge },
	{ "send with an unknown send flag", kc_bad_send_flag },
	{ "send with IB_SEND_IP_CSUM", kc_bad_send_csum },
	{ "inline send beyond max_inline_data", kc_bad_send_inline },
	{ "IB_WR_SEND_WITH_IMM", kc_bad_send_imm },
	{ "IB_WR_RDMA_WRITE_WITH_IMM", kc_bad_write_imm },
	{ "IB_WR_ATOMIC_CMP_AND_SWP", kc_bad_atomic },
	{ "RDMA READ into local_dma_lkey", kc_bad_read_dma_sink },
	{ "IB_WR_REG_MR of another PD's MR", kc_bad_reg_other_pd },
	{ "IB_WR_REG_MR of remote write without local write",
	  kc_bad_reg_access },
	{ "IB_WR_LOCAL_INV of an STag no MR has", kc_bad_inv_unknown },
	{ "IB_WR_LOCAL_INV of another PD's MR", kc_bad_inv_other_pd },
	{ "receive with num_sge -1", kc_bad_recv_neg_sge },
	{ "receive into an MR of another PD", kc_bad_recv_other_pd },
	{ "receive into an MR without IB_ACCESS_LOCAL_WRITE",
	  kc_bad_recv_read_only },
};

static void kc_bad_desc(const struct kc_bad *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kc_bad, kc_bads, kc_bad_desc);

/**
 * kc_bad_params() - kc_bad_input's parameters, one per bad input
 * @prev: the last one, or NULL for the first
 * @desc: filled with the next one's name
 *
 * Return: the next one, or NULL after the last.
 */
const void *kc_bad_params(const void *prev, char *desc)
{
	return kc_bad_gen_params(prev, desc);
}

/**
 * kc_bad_input() - bad input is refused and leaves the connection working
 * @test: the case; its parameter a &struct kc_bad
 *
 * The call is refused with an errno (and *bad_wr set for a work
 * request); no completion comes of it, and a SEND after it lands in the
 * receive posted for it, not in a refused one.
 */
void kc_bad_input(struct kunit *test)
{
	const struct kc_bad *bad = test->param_value;
	struct kc *t = kc_of(test);
	struct kc_qp_opts o = { .wr = 4 };
	struct kc_buf *sa, *sb;
	struct kc_conn c = {};
	struct ib_wc wc;

	kc_connected(t, &c, &o);
	KUNIT_EXPECT_EQ_MSG(test, bad->run(t, &c), 0, "%s: not refused",
			    bad->name);
	kc_settle(t);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(c.qa->send_cq, 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(c.qb->send_cq, 1, &wc), 0);
	sa = kc_buf(t, &t->a, 8);
	sb = kc_buf(t, &t->b, 8);
	kc_post_recv(t, c.qb, 0x5c, sb, 8);
	KUNIT_ASSERT_EQ(test, kc_send(c.qa, 0x5c, sa, 8, IB_SEND_SIGNALED),
			0);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qa, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x5c);
	KUNIT_ASSERT_EQ(test, kc_poll(t, c.qb, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, wc.wr_id, 0x5c,
			    "%s: the SEND landed in a refused receive",
			    bad->name);
}
