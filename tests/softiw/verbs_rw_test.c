// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_verbs_rw: memory registration and Linux's rw API on softiw
 * over a connection on lo: fast registration (ib_alloc_mr(),
 * ib_map_mr_sg(), IB_WR_REG_MR, LOCAL_INV) under a peer's WRITE and as a
 * READ's sink, READs and WRITEs of the rw API through the QP's MR pool,
 * and the bad input the CQ and MR pools and the rw API refuse.
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <rdma/rw.h>

#include "cm_fixture.h"
#include "softiw.h"
#include "vt_pair.h"

/* Post @wr on @qp and take its completion, which must be @opcode's. */
static void vt_post_wait(struct kunit *test, struct vt_pair *p,
			 struct ib_qp *qp, struct ib_send_wr *wr,
			 enum ib_wc_opcode opcode)
{
	struct ib_wc wc;

	wr->send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr->wr_id);
}

/*
 * Register @mr (already mapped) on @p's passive QP with a new key, then
 * have the active side WRITE @len bytes of @src (by DMA address) to it
 * and SEND behind the WRITE: once the SEND is in, so is the WRITE.
 */
static void vt_fr_write(struct kunit *test, struct vt_pair *p,
			struct ib_mr *mr, u8 *src, u32 len)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 30, .opcode = IB_WR_REG_MR },
		.mr = mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_sge sge = {
		.addr = ib_dma_map_single(p->t->dev, src, len, DMA_TO_DEVICE),
		.length = len, .lkey = p->t->pd->local_dma_lkey,
	};
	struct ib_rdma_wr write = {
		.wr = { .wr_id = 31, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &sge, .num_sge = 1 },
	};
	u32 old = mr->rkey;
	struct ib_wc wc;
	int i;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
	KUNIT_EXPECT_EQ(test, mr->rkey & ~0xffU, old & ~0xffU);
	KUNIT_EXPECT_NE(test, mr->rkey, old);
	reg.key = mr->rkey & 0xff;
	vt_post_wait(test, p, p->qp[1], &reg.wr, IB_WC_REG_MR);
	write.remote_addr = mr->iova;
	write.rkey = mr->rkey;
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	vt_post_wait(test, p, p->qp[0], &write.wr, IB_WC_RDMA_WRITE);
	KUNIT_ASSERT_EQ(test, vt_send(p, 1, IB_SEND_SIGNALED), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
}

/*
 * Fast registration: ib_alloc_mr(), ib_map_mr_sg() over two entries (the
 * first at an offset, the second from a page start), IB_WR_REG_MR under
 * a new key, a peer's WRITE to it; then LOCAL_INV, a new mapping and key,
 * and a second WRITE. Refused: what breaks the rules.
 */
static void verbs_fast_reg(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 5);
	const u32 off = 100, tail = 500, len = PAGE_SIZE - off + tail;
	struct ib_send_wr inv = { .wr_id = 32, .opcode = IB_WR_LOCAL_INV };
	struct ib_reg_wr bad_reg = { .wr = { .opcode = IB_WR_REG_MR } };
	struct scatterlist sg[2];
	struct page *pages;
	struct ib_mr *mr, *kmr;
	u8 *src, *dst;
	u32 i;

	vt_connect(p, NULL);
	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	dst = page_address(pages);
	src = cmt_buf(p->t, 2 * PAGE_SIZE);
	for (i = 0; i < 2 * PAGE_SIZE; i++)
		src[i] = i * 7 + 3;

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_alloc_mr(p->t->pd,
							  IB_MR_TYPE_SG_GAPS,
							  4)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_alloc_mr(p->t->pd,
							  IB_MR_TYPE_MEM_REG,
							  SOFTIW_MAX_FR_PAGES +
							  1)), -EINVAL);
	KUNIT_EXPECT_TRUE(test, p->t->dev->attrs.device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
	mr = ib_alloc_mr(p->t->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_table(sg, 2);
	sg_set_page(&sg[0], pages, PAGE_SIZE - off, off);
	sg_set_page(&sg[1], nth_page(pages, 1), tail, 0);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(p->t->dev, sg, 2,
					    DMA_BIDIRECTIONAL), 2);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, 3), -EINVAL);
	/* A second entry not starting on a page leaves a gap: not taken. */
	sg_dma_address(&sg[1]) += 8;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 1);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)(PAGE_SIZE - off));
	sg_dma_address(&sg[1]) -= 8;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, mr->iova, (u64)(uintptr_t)(dst + off));
	KUNIT_EXPECT_EQ(test, mr->length, (u64)len);

	/* No MR, or one not of ib_alloc_mr(): refused when posted. */
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[1], &bad_reg.wr, NULL),
			-EINVAL);
	kmr = cmt_mr(p->t, src, 64, IB_ACCESS_LOCAL_WRITE);
	bad_reg.mr = kmr;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[1], &bad_reg.wr, NULL),
			-EINVAL);
	bad_reg.mr = mr;
	bad_reg.access = IB_ACCESS_REMOTE_WRITE;	/* no local write */
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[1], &bad_reg.wr, NULL),
			-EINVAL);

	vt_fr_write(test, p, mr, src, len);
	KUNIT_EXPECT_EQ(test, memcmp(dst + off, src, len), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(dst, 0, off), NULL);

	inv.ex.invalidate_rkey = mr->rkey;
	vt_post_wait(test, p, p->qp[1], &inv, IB_WC_LOCAL_INV);
	/* Again, one page from its start, under another key. */
	sg_init_one(&sg[0], dst, 256);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(p->t->dev, sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, 1, NULL, PAGE_SIZE), 1);
	vt_fr_write(test, p, mr, src + 1000, 256);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src + 1000, 256), 0);
	cmt_teardown(p->t);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	__free_pages(pages, 1);
}

/*
 * The iWARP READ: its sink a fast-registration MR, registered by a
 * REG_MR posted in the same chain, ahead of the READ (as Linux's rw API
 * posts them); the response lands in the MR's two pages.
 */
static void verbs_fast_reg_read_sink(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 6);
	const u32 off = 300, len = PAGE_SIZE;
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 40, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_sge sge = { .length = len };
	struct ib_rdma_wr read = {
		.wr = { .wr_id = 41, .opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED, .sg_list = &sge,
			.num_sge = 1 },
	};
	struct ib_mr *mr, *src_mr;
	struct scatterlist sg;
	struct page *pages;
	struct ib_wc wc;
	u8 *src, *dst;
	u32 i;

	vt_connect(p, NULL);
	src = cmt_buf(p->t, len);
	for (i = 0; i < len; i++)
		src[i] = i * 13 + 1;
	src_mr = cmt_mr(p->t, src, len, IB_ACCESS_REMOTE_READ);
	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	dst = page_address(pages);
	mr = ib_alloc_mr(p->t->pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_one(&sg, dst + off, len);	/* across the page boundary */
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(p->t->dev, &sg, 1,
					    DMA_FROM_DEVICE), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey) & 0xff);
	reg.mr = mr;
	reg.key = mr->rkey & 0xff;
	sge.addr = mr->iova;
	sge.lkey = mr->lkey;
	read.remote_addr = src_mr->iova;
	read.rkey = src_mr->rkey;
	reg.wr.next = &read.wr;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &reg.wr, NULL), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 40ULL + i);	/* in order */
	}
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_EQ(test, memcmp(dst + off, src, len), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(dst, 0, off), NULL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(dst + off + len, 0,
					     PAGE_SIZE - off), NULL);
	cmt_teardown(p->t);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	__free_pages(pages, 1);
}

#define VT_RW_PAGES	3

/* The next completion on @cq, which must be a success of @opcode. */
static void vt_expect_wc(struct kunit *test, struct ib_cq *cq,
			 enum ib_wc_opcode opcode)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, vt_poll(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, opcode);
}

/*
 * The rw API on softiw: a READ of three pages into a scatterlist goes by
 * one fast-registered MR of the QP's pool (REG_MR, READ: two work
 * requests; LOCAL_INV first when the MR is used again); a WRITE of three
 * entries by the local_dma_lkey, in two WRITEs of the QP's two SGEs,
 * chained to a SEND (only the SEND signaled). The
 * pool has max_rdma_ctxs MRs: a context beyond them gets -EAGAIN.
 */
static void verbs_rw(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 8);
	const u32 len = VT_RW_PAGES * PAGE_SIZE;
	struct scatterlist sg[VT_RW_PAGES];
	struct rdma_rw_ctx ctx, busy;
	struct page *pages[VT_RW_PAGES];
	struct ib_send_wr send;
	struct ib_sge send_sge;
	unsigned int seen = 0;
	struct ib_wc wc;
	struct ib_qp *qp;
	struct ib_mr *mr;
	u8 *peer;
	int i, round;

	p->rdma_ctxs = 1;
	p->send_sge = 2;
	vt_connect(p, NULL);
	qp = p->qp[0];

	peer = cmt_buf(p->t, len);
	mr = cmt_mr(p->t, peer, len, IB_ACCESS_LOCAL_WRITE |
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	sg_init_table(sg, VT_RW_PAGES);
	for (i = 0; i < VT_RW_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		sg_set_page(&sg[i], pages[i], PAGE_SIZE, 0);
	}

	for (round = 0; round < 2; round++) {
		for (i = 0; i < len; i++)
			peer[i] = i * 7 + round;
		for (i = 0; i < VT_RW_PAGES; i++)
			memset(page_address(pages[i]), 0, PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&ctx, qp, 1, sg,
						       VT_RW_PAGES, 0,
						       mr->iova, mr->rkey,
						       DMA_FROM_DEVICE),
				round ? 3 : 2);
		KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&busy, qp, 1, sg,
						       VT_RW_PAGES, 0,
						       mr->iova, mr->rkey,
						       DMA_FROM_DEVICE),
				-EAGAIN);
		KUNIT_ASSERT_EQ(test, rdma_rw_ctx_post(&ctx, qp, 1, NULL,
						       NULL), 0);
		vt_expect_wc(test, p->t->cq, IB_WC_RDMA_READ);
		rdma_rw_ctx_destroy(&ctx, qp, 1, sg, VT_RW_PAGES,
				    DMA_FROM_DEVICE);
		for (i = 0; i < VT_RW_PAGES; i++)
			KUNIT_EXPECT_EQ(test,
					memcmp(page_address(pages[i]),
					       peer + i * PAGE_SIZE,
					       PAGE_SIZE), 0);
	}

	for (i = 0; i < VT_RW_PAGES; i++)
		memset(page_address(pages[i]), 0x5a + i, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&ctx, qp, 1, sg, VT_RW_PAGES,
					       0, mr->iova, mr->rkey,
					       DMA_TO_DEVICE), 2);
	/*
	 * A WRITE completes when its data is sent, not placed: chain a
	 * SEND behind it, as nvmet chains its response. Once the SEND is
	 * received, the WRITEs are placed; only the SEND is signaled.
	 */
	KUNIT_ASSERT_EQ(test, vt_recv(p, 9), 0);
	send_sge = vt_sge(p, 0);
	send = (struct ib_send_wr) { .wr_id = 8, .sg_list = &send_sge,
				     .num_sge = 1, .opcode = IB_WR_SEND,
				     .send_flags = IB_SEND_SIGNALED };
	KUNIT_ASSERT_EQ(test, rdma_rw_ctx_post(&ctx, qp, 1, NULL, &send), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		seen |= BIT(wc.opcode == IB_WC_RECV);
		KUNIT_EXPECT_EQ(test, wc.wr_id,
				wc.opcode == IB_WC_RECV ? 9ULL : 8ULL);
	}
	KUNIT_EXPECT_EQ(test, seen, 3U);
	rdma_rw_ctx_destroy(&ctx, qp, 1, sg, VT_RW_PAGES, DMA_TO_DEVICE);
	for (i = 0; i < VT_RW_PAGES; i++)
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(peer + i * PAGE_SIZE,
						     0x5a + i, PAGE_SIZE),
				    NULL);

	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(p->t->dev, 1, 256), 1U);
	KUNIT_EXPECT_EQ(test, rdma_rw_mr_factor(p->t->dev, 1, 257), 2U);
	cmt_teardown(p->t);
	for (i = 0; i < VT_RW_PAGES; i++)
		__free_page(pages[i]);
}

/*
 * Bad input to the pools and the rw API: each call refuses with an errno
 * and takes nothing (the QP's pool keeps its MR, mapped entries are
 * unmapped); what kiwi lacks (integrity, SRQs) says -EOPNOTSUPP.
 */
static void verbs_rw_refused(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 9);
	struct ib_srq_init_attr srq_attr = { .attr = { .max_wr = 4 } };
	struct scatterlist sg;
	struct rdma_rw_ctx ctx;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ib_mr *mr;
	u8 *buf;

	p->rdma_ctxs = 1;
	vt_connect(p, NULL);
	qp = p->qp[0];
	buf = cmt_buf(p->t, PAGE_SIZE);
	sg_init_one(&sg, buf, PAGE_SIZE);

	/* CQ pool */
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_cq_pool_get(p->t->dev, 8, 0,
							     IB_POLL_DIRECT)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_cq_pool_get(p->t->dev, 0, 0,
							     IB_POLL_WORKQUEUE)),
			-EINVAL);
	cq = ib_cq_pool_get(p->t->dev, 8, 1000, IB_POLL_WORKQUEUE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_EXPECT_LT(test, cq->comp_vector,
			(unsigned int)p->t->dev->num_comp_vectors);
	ib_cq_pool_put(cq, 8);

	/* MR pool: integrity refused; the rw pool has its one MR */
	KUNIT_EXPECT_EQ(test, ib_mr_pool_init(qp, &qp->sig_mrs, 1,
					      IB_MR_TYPE_INTEGRITY, 4, 4),
			-EOPNOTSUPP);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp->sig_mrs));
	mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_EXPECT_NULL(test, ib_mr_pool_get(qp, &qp->rdma_mrs));
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 1);
	/* a READ needs a pool MR: none left */
	KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&ctx, qp, 1, &sg, 1, 0, 0, 0,
					       DMA_FROM_DEVICE), -EAGAIN);
	ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

	/* rw: no entries, a bidirectional transfer, an offset past the end */
	KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&ctx, qp, 1, &sg, 0, 0, 0, 0,
					       DMA_TO_DEVICE), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&ctx, qp, 1, &sg, 1, 0, 0, 0,
					       DMA_BIDIRECTIONAL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rw_ctx_init(&ctx, qp, 1, &sg, 1, PAGE_SIZE,
					       0, 0, DMA_FROM_DEVICE), -EINVAL);
	/* the failed READ gave its MR back */
	mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	KUNIT_EXPECT_NOT_NULL(test, mr);
	if (mr)
		ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
	KUNIT_EXPECT_EQ(test, rdma_rw_ctx_signature_init(&ctx, qp, 1, &sg, 1,
							 NULL, 0, NULL, 0, 0,
							 DMA_TO_DEVICE),
			-EOPNOTSUPP);

	/* what kiwi has not */
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_create_srq(p->t->pd,
							    &srq_attr)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg_pi(mr, &sg, 1, NULL, NULL, 0, NULL,
					      PAGE_SIZE), -EOPNOTSUPP);
	cmt_teardown(p->t);
}

static struct kunit_case verbs_rw_cases[] = {
	KUNIT_CASE(verbs_fast_reg),
	KUNIT_CASE(verbs_fast_reg_read_sink),
	KUNIT_CASE(verbs_rw),
	KUNIT_CASE(verbs_rw_refused),
	{}
};

static struct kunit_suite verbs_rw_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_verbs_rw",
	.test_cases = verbs_rw_cases,
};

kunit_test_suite(verbs_rw_suite);
