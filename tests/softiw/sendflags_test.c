// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_sendflags: IB_SEND_INLINE and IB_SEND_FENCE on softiw.
 *
 * Inline data is taken when posted: the caller's memory may change at
 * once, and its lkey is not looked at. A fenced request waits for the
 * responses of every older READ: a LOCAL_INV of a READ's sink, and a
 * SEND telling the peer its memory was read, go behind the data.
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "kiwi_test.h"
#include "softiw.h"
#include "verbs_util.h"
#include "vt_pair.h"

#define SF_PORT		22451
#define SF_BAD_LKEY	0xdeadbe00	/* an lkey inline data never uses */
#define SF_READ_LEN	SZ_64K

/* A connected pair whose QP 0 takes @inline_data bytes inline, 2 SGEs. */
static struct vt_pair *sf_pair(struct kunit *test, u16 port, u32 inline_data)
{
	struct vt_pair *p = vt_setup(test, port);

	p->inline_data = inline_data;
	p->send_sge = 2;
	vt_connect(p, NULL);
	return p;
}

/* Wait for completions until @want (BIT(wr_id)) are in; all successful. */
static void sf_wait(struct kunit *test, struct vt_pair *p, u32 want)
{
	u32 seen = 0;
	struct ib_wc wc;

	while ((seen & want) != want) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		seen |= BIT(wc.wr_id);
	}
}

/*
 * An inline SEND of two SGEs (the buffer's halves, swapped) whose lkey
 * is no key at all: the RECV gets the bytes as they were when posted,
 * though the buffer was overwritten right after.
 */
static void sf_inline_send(struct kunit *test)
{
	struct vt_pair *p = sf_pair(test, SF_PORT, VT_LEN);
	const u32 half = VT_LEN / 2;
	struct ib_sge sge[2] = {
		{ .addr = p->dma[0] + half, .length = half,
		  .lkey = SF_BAD_LKEY },
		{ .addr = p->dma[0], .length = half, .lkey = SF_BAD_LKEY },
	};
	struct ib_send_wr wr = { .wr_id = 1, .sg_list = sge, .num_sge = 2,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_INLINE |
					       IB_SEND_SIGNALED };
	u8 want[VT_LEN];
	u32 i;

	for (i = 0; i < VT_LEN; i++)
		p->buf[0][i] = i + 1;
	memcpy(want, p->buf[0] + half, half);
	memcpy(want + half, p->buf[0], half);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr, NULL), 0);
	memset(p->buf[0], 0xee, VT_LEN);
	sf_wait(test, p, BIT(1) | BIT(2));
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[1], want, VT_LEN), 0);
	cmt_teardown(p->t);
}

/*
 * An inline RDMA WRITE into the peer's MR, chained to a SEND: once the
 * SEND's RECV is in, the WRITE's bytes are placed, as they were posted.
 */
static void sf_inline_write(struct kunit *test)
{
	struct vt_pair *p = sf_pair(test, SF_PORT + 1, VT_LEN);
	const u32 access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	u8 *dst = cmt_buf(p->t, VT_LEN);
	struct ib_mr *mr = cmt_mr(p->t, dst, VT_LEN, access);
	struct ib_sge sge = { .addr = p->dma[0], .length = VT_LEN,
			      .lkey = SF_BAD_LKEY };
	struct ib_sge ssge = vt_sge(p, 0);
	struct ib_send_wr send = { .wr_id = 1, .sg_list = &ssge,
				   .num_sge = 1, .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED };
	struct ib_rdma_wr write = {
		.wr = { .wr_id = 0, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_INLINE, .next = &send },
		.remote_addr = mr->iova, .rkey = mr->rkey,
	};

	memset(p->buf[0], 0x3c, VT_LEN);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &write.wr, NULL), 0);
	memset(p->buf[0], 0x99, VT_LEN);
	sf_wait(test, p, BIT(1) | BIT(2));
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(dst, 0x3c, VT_LEN), NULL);
	cmt_teardown(p->t);
}

/**
 * struct sf_refused_case - inline data softiw refuses when posted
 * @name: what it is
 * @opcode: the request's opcode
 * @len: bytes in its one SGE (none for a LOCAL_INV)
 * @inline_data: the QP's max_inline_data
 *
 * Each request is one softiw takes without IB_SEND_INLINE: only the flag
 * is wrong.
 */
struct sf_refused_case {
	const char *name;
	enum ib_wr_opcode opcode;
	u32 len;
	u32 inline_data;
};

static const struct sf_refused_case sf_refused_cases[] = {
	{ "inline READ", IB_WR_RDMA_READ, 8, VT_LEN },
	{ "inline LOCAL_INV", IB_WR_LOCAL_INV, 0, VT_LEN },
	{ "one byte over the QP's limit", IB_WR_SEND, 17, 16 },
	{ "QP created without inline data", IB_WR_SEND, 8, 0 },
};

static void sf_refused_case_desc(const struct sf_refused_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sf_refused_case, sf_refused_cases, sf_refused_case_desc);

/* The case's request, valid but for IB_SEND_INLINE: wr_id 7. */
static void sf_refused_wr(struct vt_pair *p, const struct sf_refused_case *c,
			  struct ib_sge *sge, struct ib_rdma_wr *wr)
{
	const u32 access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	u8 *buf = cmt_buf(p->t, VT_LEN);
	struct ib_mr *mr = cmt_mr(p->t, buf, VT_LEN, access);

	*sge = (struct ib_sge) { .addr = p->dma[0], .length = c->len,
				 .lkey = p->t->pd->local_dma_lkey };
	*wr = (struct ib_rdma_wr) {
		.wr = { .wr_id = 7, .sg_list = sge, .num_sge = 1,
			.opcode = c->opcode,
			.send_flags = IB_SEND_INLINE | IB_SEND_SIGNALED },
	};
	if (c->opcode == IB_WR_RDMA_READ) {
		/* into an MR of this side, from the peer's: the same PD */
		*sge = (struct ib_sge) { .addr = mr->iova, .length = c->len,
					 .lkey = mr->lkey };
		wr->remote_addr = mr->iova + c->len;
		wr->rkey = mr->rkey;
	} else if (c->opcode == IB_WR_LOCAL_INV) {
		wr->wr.num_sge = 0;
		wr->wr.ex.invalidate_rkey = mr->lkey;
	}
}

/*
 * -EINVAL with bad_wr at it; the same request without IB_SEND_INLINE is
 * taken, and completes before the SEND posted after it.
 */
static void sf_inline_refused(struct kunit *test)
{
	const struct sf_refused_case *c = test->param_value;
	struct vt_pair *p = sf_pair(test, SF_PORT + 2, c->inline_data);
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	struct ib_wc wc;

	sf_refused_wr(p, c, &sge, &wr);
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &wr.wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr.wr);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	wr.wr.send_flags &= ~IB_SEND_INLINE;
	if (c->opcode == IB_WR_SEND)	/* it needs a RECV of its own */
		KUNIT_ASSERT_EQ(test, vt_recv(p, 3), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, vt_send(p, 1, IB_SEND_SIGNALED), 0);
	sf_wait(test, p, BIT(7) | BIT(1) | BIT(2) |
		(c->opcode == IB_WR_SEND ? BIT(3) : 0));
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->t->cq, 1, &wc), 0);
	cmt_teardown(p->t);
}

/*
 * create_qp takes up to SOFTIW_MAX_INLINE bytes of inline data, which
 * query_qp reports, and refuses one more.
 */
static void sf_inline_limit(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, SF_PORT + 3);
	struct ib_qp_init_attr init = {
		KT_QP_RC, .send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = SOFTIW_MAX_INLINE + 1 },
	};
	struct ib_qp_init_attr qinit;
	struct ib_qp_attr attr;
	struct ib_qp *qp;

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_create_qp(t->pd, &init)),
			-EINVAL);
	init.cap.max_inline_data = SOFTIW_MAX_INLINE;
	qp = ib_create_qp(t->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, ib_query_qp(qp, &attr, ~0, &qinit), 0);
	KUNIT_EXPECT_EQ(test, attr.cap.max_inline_data,
			(u32)SOFTIW_MAX_INLINE);
	ib_destroy_qp(qp);
	cmt_teardown(t);
}

/**
 * struct sf_read - an RDMA READ of the peer's memory into a
 *	fast-registered MR of the active side
 * @src: the peer's memory, SF_READ_LEN bytes
 * @dst: where it lands
 * @sg: @dst's scatterlist
 * @mr: the sink's MR, registered
 * @sge: the READ's sink
 * @wr: the READ, wr_id 1, signaled
 * @dev: the device @sg is mapped for
 *
 * The fixture deregisters the MR, after the QPs are gone.
 */
struct sf_read {
	u8 *src;
	u8 *dst;
	struct scatterlist sg;
	struct ib_mr *mr;
	struct ib_sge sge;
	struct ib_rdma_wr wr;
	struct ib_device *dev;
};

static void sf_read_init(struct kunit *test, struct vt_pair *p,
			 struct sf_read *r)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 0, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_mr *src_mr;
	u32 i;

	r->src = cmt_buf(p->t, SF_READ_LEN);
	for (i = 0; i < SF_READ_LEN; i++)
		r->src[i] = i * 7 + 3;
	src_mr = cmt_mr(p->t, r->src, SF_READ_LEN, IB_ACCESS_REMOTE_READ);
	r->dst = cmt_buf(p->t, SF_READ_LEN);
	r->dev = p->t->dev;
	r->mr = ib_alloc_mr(p->t->pd, IB_MR_TYPE_MEM_REG,
			    SF_READ_LEN / PAGE_SIZE + 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r->mr);
	KUNIT_ASSERT_LT(test, p->t->nmrs, CMT_MAX_IDS);
	p->t->mrs[p->t->nmrs++] = r->mr;
	sg_init_one(&r->sg, r->dst, SF_READ_LEN);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(p->t->dev, &r->sg, 1,
					    DMA_FROM_DEVICE), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(r->mr, &r->sg, 1, NULL, PAGE_SIZE),
			1);
	reg.mr = r->mr;
	reg.key = r->mr->rkey & 0xff;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &reg.wr, NULL), 0);
	sf_wait(test, p, BIT(0));
	r->sge = (struct ib_sge) { .addr = r->mr->iova, .length = SF_READ_LEN,
				   .lkey = r->mr->lkey };
	r->wr = (struct ib_rdma_wr) {
		.wr = { .wr_id = 1, .opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED, .sg_list = &r->sge,
			.num_sge = 1 },
		.remote_addr = src_mr->iova, .rkey = src_mr->rkey,
	};
}

/* Before cmt_teardown(), which puts the device. */
static void sf_read_unmap(struct sf_read *r)
{
	ib_dma_unmap_sg(r->dev, &r->sg, 1, DMA_FROM_DEVICE);
}

/*
 * A LOCAL_INV of a READ's sink posted right behind the READ. Fenced, it
 * waits for the response: the READ succeeds and its data is in. Not
 * fenced, it runs as soon as the Read Request is sent, and the response
 * finds its sink's STag invalid: the READ fails.
 */
static void sf_fence_local_inv(struct kunit *test)
{
	const bool fenced = *(const bool *)test->param_value;
	struct vt_pair *p = sf_pair(test, SF_PORT + 4, 0);
	struct ib_send_wr inv = { .wr_id = 2, .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	struct sf_read r;
	struct ib_wc wc;

	sf_read_init(test, p, &r);
	inv.ex.invalidate_rkey = r.mr->lkey;
	if (fenced)
		inv.send_flags |= IB_SEND_FENCE;
	r.wr.wr.next = &inv;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &r.wr.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	if (fenced) {
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, memcmp(r.dst, r.src, SF_READ_LEN), 0);
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_LOCAL_INV);
	} else {
		KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	}
	sf_read_unmap(&r);
	cmt_teardown(p->t);
}

/* Whether the LOCAL_INV is fenced. */
static const bool sf_fence_params[] = { true, false };

static void sf_fence_desc(const bool *fenced, char *desc)
{
	strscpy(desc, *fenced ? "fenced" : "not fenced",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sf_fence, sf_fence_params, sf_fence_desc);

/*
 * A fenced SEND behind a READ of 64 KiB: the peer's RECV of it
 * completes only after the READ has completed on this side (both QPs
 * report on the fixture's one CQ, in the order things happened).
 */
static void sf_fence_send(struct kunit *test)
{
	struct vt_pair *p = sf_pair(test, SF_PORT + 5, 0);
	struct ib_sge sge = vt_sge(p, 0);
	struct ib_send_wr send = { .wr_id = 2, .opcode = IB_WR_SEND,
				   .sg_list = &sge, .num_sge = 1,
				   .send_flags = IB_SEND_SIGNALED |
						 IB_SEND_FENCE };
	struct sf_read r;
	struct ib_wc wc;
	u32 seen = 0;

	sf_read_init(test, p, &r);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 3), 0);
	r.wr.wr.next = &send;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &r.wr.wr, NULL), 0);
	while ((seen & 0xe) != 0xe) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		if (wc.wr_id == 3)	/* the RECV: after the READ */
			KUNIT_EXPECT_TRUE(test, seen & BIT(1));
		seen |= BIT(wc.wr_id);
	}
	KUNIT_EXPECT_EQ(test, memcmp(r.dst, r.src, SF_READ_LEN), 0);
	sf_read_unmap(&r);
	cmt_teardown(p->t);
}

static struct kunit_case sendflags_cases[] = {
	KUNIT_CASE(sf_inline_send),
	KUNIT_CASE(sf_inline_write),
	KUNIT_CASE_PARAM(sf_inline_refused, sf_refused_case_gen_params),
	KUNIT_CASE(sf_inline_limit),
	KUNIT_CASE_PARAM(sf_fence_local_inv, sf_fence_gen_params),
	KUNIT_CASE(sf_fence_send),
	{}
};

static struct kunit_suite sendflags_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_sendflags",
	.test_cases = sendflags_cases,
};

kunit_test_suite(sendflags_suite);
