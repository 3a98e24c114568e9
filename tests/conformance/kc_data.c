// SPDX-License-Identifier: GPL-2.0
/*
 * The kit's data-path helpers: memory mapped for a device, MRs, PDs,
 * posting and polling, as a ULP of Linux's verbs does them.
 */
#include <linux/delay.h>
#include <linux/dma-direction.h>
#include <linux/slab.h>

#include "kc.h"

/**
 * kc_buf() - zeroed memory, DMA-mapped for a side's device
 * @t: the fixture
 * @s: the side
 * @len: its length
 *
 * Unmapped and freed when the case ends, after the QPs and MRs over it.
 *
 * Return: the memory; the case is aborted on failure.
 */
struct kc_buf *kc_buf(struct kc *t, struct kc_side *s, size_t len)
{
	struct kc_buf *b;

	KUNIT_ASSERT_LT(t->test, t->nbufs, KC_MAX_OBJS);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, b);
	b->cpu = kzalloc(len, GFP_KERNEL);
	if (!b->cpu) {
		kfree(b);
		KUNIT_ASSERT_FAILURE(t->test, "no memory for %zu bytes", len);
	}
	b->len = len;
	b->dev = s->dev;
	b->dma = ib_dma_map_single(s->dev, b->cpu, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(s->dev, b->dma)) {
		kfree(b->cpu);
		kfree(b);
		KUNIT_ASSERT_FAILURE(t->test, "DMA mapping failed");
	}
	t->bufs[t->nbufs++] = b;
	return b;
}

/**
 * kc_to_dev() - hand a buffer the CPU wrote to the device
 * @b: the buffer
 */
void kc_to_dev(struct kc_buf *b)
{
	ib_dma_sync_single_for_device(b->dev, b->dma, b->len,
				      DMA_BIDIRECTIONAL);
}

/**
 * kc_to_cpu() - take back a buffer the device may have written, to read it
 * @b: the buffer
 */
void kc_to_cpu(struct kc_buf *b)
{
	ib_dma_sync_single_for_cpu(b->dev, b->dma, b->len, DMA_BIDIRECTIONAL);
}

/**
 * kc_free_bufs() - unmap and free the case's memory
 * @t: the fixture
 * @dev: only the memory mapped for this device, or NULL for all
 */
void kc_free_bufs(struct kc *t, struct ib_device *dev)
{
	int i;

	for (i = t->nbufs - 1; i >= 0; i--) {
		struct kc_buf *b = t->bufs[i];

		if (dev && b->dev != dev)
			continue;
		ib_dma_unmap_single(b->dev, b->dma, b->len, DMA_BIDIRECTIONAL);
		kfree(b->cpu);
		kfree(b);
		t->bufs[i] = t->bufs[--t->nbufs];
	}
}

/**
 * kc_mr() - register a buffer, deregistered when the case ends
 * @t: the fixture
 * @pd: the PD
 * @b: the memory
 * @access: IB_ACCESS_* rights
 *
 * Return: the MR; its iova names @b's first byte.
 */
struct ib_mr *kc_mr(struct kc *t, struct ib_pd *pd, struct kc_buf *b,
		    u32 access)
{
	struct ib_mr *mr;

	KUNIT_ASSERT_LT(t->test, t->nmrs, KC_MAX_OBJS);
	mr = kiwi_reg_kernel_mr(pd, b->cpu, b->len, access);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(mr));
	t->mrs[t->nmrs++] = mr;
	return mr;
}

/**
 * kc_forget_mr() - the case deregistered an MR itself
 * @t: the fixture
 * @mr: the MR
 */
void kc_forget_mr(struct kc *t, struct ib_mr *mr)
{
	int i;

	for (i = 0; i < t->nmrs; i++)
		if (t->mrs[i] == mr)
			t->mrs[i] = t->mrs[--t->nmrs];
}

/**
 * kc_pd() - one more PD on a side's device, freed when the case ends
 * @t: the fixture
 * @s: the side
 *
 * Return: the PD.
 */
struct ib_pd *kc_pd(struct kc *t, struct kc_side *s)
{
	struct ib_pd *pd;

	KUNIT_ASSERT_LT(t->test, t->npds, (int)ARRAY_SIZE(t->pds));
	pd = ib_alloc_pd(s->dev, 0);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(pd));
	t->pds[t->npds++] = pd;
	return pd;
}

/**
 * kc_poll() - wait for @n completions of a QP's CQ
 * @t: the fixture
 * @qp: the QP (a QP of kc_qp(): one CQ for both queues)
 * @wc: where they go
 * @n: how many
 *
 * Return: how many came within KC_WAIT_MS.
 */
int kc_poll(struct kc *t, struct ib_qp *qp, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(KC_WAIT_MS);
	int got = 0, k;

	while (got < n) {
		k = ib_poll_cq(qp->send_cq, n - got, wc + got);
		KUNIT_ASSERT_GE(t->test, k, 0);
		got += k;
		if (got < n && time_after(jiffies, end))
			break;
		if (!k)
			usleep_range(500, 1000);
	}
	return got;
}

/**
 * kc_post_recv() - post one receive of @len bytes of @b
 * @t: the fixture
 * @qp: the QP
 * @wr_id: its wr_id
 * @b: the memory
 * @len: bytes
 */
void kc_post_recv(struct kc *t, struct ib_qp *qp, u64 wr_id,
		  struct kc_buf *b, u32 len)
{
	struct ib_sge sge = {
		.addr = b->dma, .length = len, .lkey = qp->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	KUNIT_ASSERT_EQ(t->test, ib_post_recv(qp, &wr, &bad), 0);
}

/**
 * kc_send() - post one SEND of the first @len bytes of @b
 * @qp: the QP
 * @wr_id: its wr_id
 * @b: the memory
 * @len: bytes
 * @flags: IB_SEND_* flags
 *
 * Return: ib_post_send()'s result.
 */
int kc_send(struct ib_qp *qp, u64 wr_id, struct kc_buf *b, u32 len,
	    int flags)
{
	struct ib_sge sge = {
		.addr = b->dma, .length = len, .lkey = qp->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = flags,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(qp, &wr, &bad);
}

/**
 * kc_rdma() - post one signalled RDMA WRITE or READ
 * @qp: the QP
 * @op: IB_WR_RDMA_WRITE or IB_WR_RDMA_READ
 * @wr_id: its wr_id
 * @b: the local memory
 * @lmr: an MR over all of @b, or NULL for the PD's local_dma_lkey (an
 *	RDMA READ's sink needs one: iWARP names it by STag on the wire)
 * @len: bytes, from @b's start
 * @raddr: the remote address (an MR's iova and offset)
 * @rkey: the remote MR's rkey
 *
 * Return: ib_post_send()'s result.
 */
int kc_rdma(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
	    struct kc_buf *b, struct ib_mr *lmr, u32 len, u64 raddr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = lmr ? lmr->iova : b->dma, .length = len,
		.lkey = lmr ? lmr->lkey : qp->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(qp, &wr.wr, &bad);
}
