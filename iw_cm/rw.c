// SPDX-License-Identifier: GPL-2.0
/*
 * The rw API (Linux's <rdma/rw.h>) for iWARP: the work requests that move
 * a scatterlist to or from a peer's tagged buffer.
 *
 * A WRITE goes from the scatterlist by the PD's local_dma_lkey, in as few
 * WRITEs as the QP's max_write_sge allows. A READ cannot: iWARP names a
 * READ's sink by STag in the Read Request and the peer's Read Responses
 * are placed to that STag, so the sink is fast-registered, with remote
 * write access, from the QP's MR pool. Each MR of the pool maps up to
 * kiwi_rw_fr_pages() pages; a READ that needs more takes several. An MR
 * used before is invalidated first, in the same chain (LOCAL_INV, then
 * REG_MR, then the READ), so that no STag a peer learnt stays valid for
 * longer than the MR's next use.
 */
#include <linux/slab.h>

#include <rdma/rw.h>

#include "iwcm.h"

enum kiwi_rw_type {
	KIWI_RW_SINGLE_WR,
	KIWI_RW_MULTI_WR,
	KIWI_RW_MR,
};

/* Pages one MR of the rw pool maps. */
static u32 kiwi_rw_fr_pages(struct ib_device *dev)
{
	return min_t(u32, dev->attrs.max_fast_reg_page_list_len, 256);
}

/* Send queue entries one rw context may take: LOCAL_INV, REG_MR, the op. */
#define KIWI_RW_WRS_PER_CTX	3

/**
 * kiwi_rw_init_qp() - grow a new QP's send queue for its rw contexts
 * @dev: the device
 * @init: the attributes; cap.max_send_wr grows by three work requests
 *	(LOCAL_INV, REG_MR, READ or WRITE) per cap.max_rdma_ctxs, capped at
 *	the device's limit
 *
 * Context: any context.
 */
void kiwi_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *init)
{
	u32 want;

	if (!init->cap.max_rdma_ctxs)
		return;
	want = init->cap.max_send_wr +
	       KIWI_RW_WRS_PER_CTX * init->cap.max_rdma_ctxs;
	init->cap.max_send_wr = min_t(u32, want, dev->attrs.max_qp_wr);
}

/**
 * kiwi_rw_init_mrs() - fill a new QP's rw MR pool
 * @qp: the QP
 * @init: its attributes: one MR per cap.max_rdma_ctxs
 *
 * Context: process context; sleeps.
 * Return: 0 or the error of the pool.
 */
int kiwi_rw_init_mrs(struct ib_qp *qp, const struct ib_qp_init_attr *init)
{
	if (!init->cap.max_rdma_ctxs)
		return 0;
	if (!(qp->device->attrs.device_cap_flags &
	      IB_DEVICE_MEM_MGT_EXTENSIONS))
		return -EOPNOTSUPP;
	return kiwi_mr_pool_init(qp, &qp->rdma_mrs, init->cap.max_rdma_ctxs,
				 IB_MR_TYPE_MEM_REG,
				 kiwi_rw_fr_pages(qp->device), 0);
}

/* Skip @*offset bytes of the list: whole entries, then into one. */
static struct scatterlist *kiwi_rw_skip(struct scatterlist *sg, u32 *sg_cnt,
					u32 *offset)
{
	while (sg && *sg_cnt && *offset >= sg_dma_len(sg)) {
		*offset -= sg_dma_len(sg);
		sg = sg_next(sg);
		(*sg_cnt)--;
	}
	return *sg_cnt ? sg : NULL;
}

/* WRITEs from the list by the local_dma_lkey. Return: WRs, or -errno. */
static int kiwi_rw_init_map_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				struct scatterlist *sg, u32 sg_cnt, u32 offset,
				u64 remote_addr, u32 rkey)
{
	u32 max_sge = max_t(u32, qp->max_write_sge, 1);
	u32 i, j, nr_ops = DIV_ROUND_UP(sg_cnt, max_sge);
	struct ib_sge *sge;

	ctx->map.sges = kiwi_should_fail() ? NULL :
			kcalloc(sg_cnt, sizeof(*sge), GFP_KERNEL);
	ctx->map.wrs = kiwi_should_fail() ? NULL :
		       kcalloc(nr_ops, sizeof(*ctx->map.wrs), GFP_KERNEL);
	if (!ctx->map.sges || !ctx->map.wrs) {
		kfree(ctx->map.sges);
		kfree(ctx->map.wrs);
		return -ENOMEM;
	}
	sge = ctx->map.sges;
	for (i = 0; i < nr_ops; i++) {
		struct ib_rdma_wr *wr = &ctx->map.wrs[i];
		u32 n = min(sg_cnt - i * max_sge, max_sge);

		wr->wr.opcode = IB_WR_RDMA_WRITE;
		wr->wr.sg_list = sge;
		wr->wr.num_sge = n;
		wr->remote_addr = remote_addr;
		wr->rkey = rkey;
		for (j = 0; j < n; j++, sge++, sg = sg_next(sg)) {
			sge->addr = sg_dma_address(sg) + offset;
			sge->length = sg_dma_len(sg) - offset;
			sge->lkey = qp->pd->local_dma_lkey;
			remote_addr += sge->length;
			offset = 0;
		}
		if (i + 1 < nr_ops)
			wr->wr.next = &ctx->map.wrs[i + 1].wr;
	}
	ctx->type = KIWI_RW_MULTI_WR;
	ctx->nr_ops = nr_ops;
	return nr_ops;
}

static int kiwi_rw_init_single_wr(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  struct scatterlist *sg, u32 offset,
				  u64 remote_addr, u32 rkey)
{
	struct ib_rdma_wr *wr = &ctx->single.wr;

	ctx->single.sge.addr = sg_dma_address(sg) + offset;
	ctx->single.sge.length = sg_dma_len(sg) - offset;
	ctx->single.sge.lkey = qp->pd->local_dma_lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_RDMA_WRITE;
	wr->wr.sg_list = &ctx->single.sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = remote_addr;
	wr->rkey = rkey;
	ctx->type = KIWI_RW_SINGLE_WR;
	ctx->nr_ops = 1;
	return 1;
}

static void kiwi_rw_put_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			    u32 n)
{
	while (n--)
		kiwi_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[n].mr);
	kfree(ctx->reg);
}

/* Register one piece of the sink; Return: WRs it adds, or -errno. */
static int kiwi_rw_init_one_mr(struct ib_qp *qp, struct rdma_rw_reg_ctx *reg,
			       struct scatterlist *sg, u32 sg_cnt, u32 offset)
{
	int n;

	reg->mr = kiwi_mr_pool_get(qp, &qp->rdma_mrs);
	if (!reg->mr)
		return -EAGAIN;
	n = kiwi_map_mr_sg(reg->mr, sg, sg_cnt, &offset, PAGE_SIZE);
	if (n < 0 || n < (int)min_t(u32, sg_cnt,
				    kiwi_rw_fr_pages(qp->device))) {
		kiwi_mr_pool_put(qp, &qp->rdma_mrs, reg->mr);
		return n < 0 ? n : -EINVAL;
	}
	if (reg->mr->need_inval) {
		reg->inv_wr.opcode = IB_WR_LOCAL_INV;
		reg->inv_wr.ex.invalidate_rkey = reg->mr->lkey;
		reg->inv_wr.next = &reg->reg_wr.wr;
	} else {
		reg->inv_wr.next = NULL;
	}
	ib_update_fast_reg_key(reg->mr, ib_inc_rkey(reg->mr->lkey));
	reg->reg_wr.wr.opcode = IB_WR_REG_MR;
	reg->reg_wr.mr = reg->mr;
	reg->reg_wr.key = reg->mr->lkey;
	reg->reg_wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	reg->sge.addr = reg->mr->iova;
	reg->sge.length = reg->mr->length;
	reg->sge.lkey = reg->mr->lkey;
	reg->mr->need_inval = true;
	return n;
}

/* READs into fast-registered MRs. Return: WRs, or -errno. */
static int kiwi_rw_init_mr_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       struct scatterlist *sg, u32 sg_cnt, u32 offset,
			       u64 remote_addr, u32 rkey)
{
	u32 pages = kiwi_rw_fr_pages(qp->device);
	u32 i, nr_ops = DIV_ROUND_UP(sg_cnt, pages);
	struct rdma_rw_reg_ctx *prev = NULL;
	int count = 0, n;

	ctx->reg = kiwi_should_fail() ? NULL :
		   kcalloc(nr_ops, sizeof(*ctx->reg), GFP_KERNEL);
	if (!ctx->reg)
		return -ENOMEM;
	for (i = 0; i < nr_ops; i++) {
		struct rdma_rw_reg_ctx *reg = &ctx->reg[i];

		n = kiwi_rw_init_one_mr(qp, reg, sg, min(sg_cnt, pages),
					offset);
		if (n < 0) {
			kiwi_rw_put_mrs(ctx, qp, i);
			return n;
		}
		count += reg->inv_wr.next ? 3 : 2;
		if (prev)
			prev->wr.wr.next = reg->inv_wr.next ? &reg->inv_wr :
							      &reg->reg_wr.wr;
		reg->reg_wr.wr.next = &reg->wr.wr;
		reg->wr.wr.opcode = IB_WR_RDMA_READ;
		reg->wr.wr.sg_list = &reg->sge;
		reg->wr.wr.num_sge = 1;
		reg->wr.remote_addr = remote_addr;
		reg->wr.rkey = rkey;
		remote_addr += reg->sge.length;
		sg_cnt -= n;
		while (n--)
			sg = sg_next(sg);
		offset = 0;
		prev = reg;
	}
	ctx->type = KIWI_RW_MR;
	ctx->nr_ops = nr_ops;
	return count;
}

/**
 * kiwi_rdma_rw_ctx_init() - build the work requests of a READ or WRITE
 *	(rdma_rw_ctx_init())
 * @ctx: the context, the caller's
 * @qp: the QP they go on; for a READ, its cap.max_rdma_ctxs gave it MRs
 * @port_num: 1
 * @sg: the local memory, not yet DMA-mapped: this maps it
 * @sg_cnt: its entries
 * @sg_offset: bytes of @sg to skip
 * @remote_addr: the peer's tagged offset
 * @rkey: the peer's STag
 * @dir: DMA_TO_DEVICE for a WRITE to the peer, DMA_FROM_DEVICE for a READ
 *
 * Context: process context (a WRITE of one work request allocates
 * nothing; the others allocate with GFP_KERNEL).
 * Return: the send queue entries the operation takes (what the caller
 * must have room for), or -EINVAL for bad arguments, -ENOMEM, -EIO if
 * mapping failed, -EAGAIN if the QP's MR pool is empty (retry once a
 * context is destroyed).
 */
int kiwi_rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			  u32 sg_offset, u64 remote_addr, u32 rkey,
			  enum dma_data_direction dir)
{
	struct ib_device *dev = qp->device;
	struct scatterlist *first;
	u32 cnt;
	int n, ret;

	if (!sg_cnt || (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE))
		return -EINVAL;
	n = ib_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!n)
		return -EIO;
	cnt = n;
	first = kiwi_rw_skip(sg, &cnt, &sg_offset);
	if (!first) {
		ret = -EINVAL;
		goto err_unmap;
	}
	if (dir == DMA_FROM_DEVICE)
		ret = kiwi_rw_init_mr_wrs(ctx, qp, first, cnt, sg_offset,
					  remote_addr, rkey);
	else if (cnt == 1)
		ret = kiwi_rw_init_single_wr(ctx, qp, first, sg_offset,
					     remote_addr, rkey);
	else
		ret = kiwi_rw_init_map_wrs(ctx, qp, first, cnt, sg_offset,
					   remote_addr, rkey);
	if (ret < 0)
		goto err_unmap;
	return ret;

err_unmap:
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_ctx_init);

/**
 * kiwi_rdma_rw_ctx_wrs() - the chain of work requests of a context
 *	(rdma_rw_ctx_wrs())
 * @ctx: a context of kiwi_rdma_rw_ctx_init()
 * @qp: its QP
 * @port_num: 1
 * @cqe: completes the last RDMA operation, signaled, if @chain_wr is NULL
 * @chain_wr: a work request to run after the last (then nothing of the
 *	context is signaled), or NULL
 *
 * Context: any context.
 * Return: the first work request, to post with ib_post_send().
 */
struct ib_send_wr *kiwi_rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx,
					struct ib_qp *qp, u32 port_num,
					struct ib_cqe *cqe,
					struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;

	switch (ctx->type) {
	case KIWI_RW_MR:
		first = ctx->reg[0].inv_wr.next ? &ctx->reg[0].inv_wr :
						  &ctx->reg[0].reg_wr.wr;
		last = &ctx->reg[ctx->nr_ops - 1].wr.wr;
		break;
	case KIWI_RW_MULTI_WR:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	default:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	}
	if (chain_wr) {
		last->next = chain_wr;
	} else {
		last->next = NULL;
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return first;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_ctx_wrs);

/**
 * kiwi_rdma_rw_ctx_post() - post a context's work requests
 *	(rdma_rw_ctx_post())
 * @ctx: a context of kiwi_rdma_rw_ctx_init()
 * @qp: its QP
 * @port_num: 1
 * @cqe: as for kiwi_rdma_rw_ctx_wrs()
 * @chain_wr: as for kiwi_rdma_rw_ctx_wrs()
 *
 * Context: any context.
 * Return: 0 or the error of ib_post_send().
 */
int kiwi_rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  u32 port_num, struct ib_cqe *cqe,
			  struct ib_send_wr *chain_wr)
{
	return ib_post_send(qp, kiwi_rdma_rw_ctx_wrs(ctx, qp, port_num, cqe,
						     chain_wr), NULL);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_ctx_post);

/**
 * kiwi_rdma_rw_ctx_destroy() - release a context (rdma_rw_ctx_destroy())
 * @ctx: a context of kiwi_rdma_rw_ctx_init(), its work requests done
 * @qp: its QP
 * @port_num: 1
 * @sg: the scatterlist it was made with
 * @sg_cnt: its entries, as given then
 * @dir: the direction, as given then
 *
 * Its MRs go back to the QP's pool (to be invalidated at their next use)
 * and @sg is unmapped.
 *
 * Context: any context.
 */
void kiwi_rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			      u32 port_num, struct scatterlist *sg,
			      u32 sg_cnt, enum dma_data_direction dir)
{
	switch (ctx->type) {
	case KIWI_RW_MR:
		kiwi_rw_put_mrs(ctx, qp, ctx->nr_ops);
		break;
	case KIWI_RW_MULTI_WR:
		kfree(ctx->map.wrs);
		kfree(ctx->map.sges);
		break;
	default:
		break;
	}
	ib_dma_unmap_sg(qp->device, sg, sg_cnt, dir);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_ctx_destroy);

/**
 * kiwi_rdma_rw_mr_factor() - MRs one context of @maxpages pages takes
 *	(rdma_rw_mr_factor())
 * @device: the device
 * @port_num: 1
 * @maxpages: pages of the largest transfer
 *
 * A ULP multiplies its queue depth by this for cap.max_rdma_ctxs.
 *
 * Context: any context.
 * Return: the number of MRs, at least 1.
 */
unsigned int kiwi_rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
				    unsigned int maxpages)
{
	u32 pages = max_t(u32, kiwi_rw_fr_pages(device), 1);

	return max_t(unsigned int, DIV_ROUND_UP(maxpages, pages), 1);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_mr_factor);

/**
 * kiwi_rdma_rw_max_send_wr() - send queue entries @max_rdma_ctxs rw
 *	contexts need (rdma_rw_max_send_wr())
 * @dev: the device
 * @port_num: 1
 * @max_rdma_ctxs: contexts the ULP keeps at once
 * @create_flags: 0 (kiwi has no integrity QPs)
 *
 * For a ULP that sizes its send queue and CQ itself before it creates the
 * QP: as many entries as cap.max_rdma_ctxs adds to cap.max_send_wr, since
 * on iWARP every context may take a REG_MR and a LOCAL_INV besides its
 * READ or WRITE.
 *
 * Context: any context.
 * Return: the number of entries, UINT_MAX if it does not fit.
 */
unsigned int kiwi_rdma_rw_max_send_wr(struct ib_device *dev, u32 port_num,
				      unsigned int max_rdma_ctxs,
				      u32 create_flags)
{
	unsigned int wrs;

	if (check_mul_overflow(max_rdma_ctxs, KIWI_RW_WRS_PER_CTX, &wrs))
		return UINT_MAX;
	return wrs;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_max_send_wr);

/**
 * kiwi_rdma_rw_ctx_signature_init() - a READ or WRITE with protection
 *	information (rdma_rw_ctx_signature_init())
 * @ctx: the context
 * @qp: the QP
 * @port_num: 1
 * @sg: data
 * @sg_cnt: its entries
 * @prot_sg: protection information
 * @prot_sg_cnt: its entries
 * @sig_attrs: how it is checked
 * @remote_addr: the peer's tagged offset
 * @rkey: the peer's STag
 * @dir: the direction
 *
 * Context: any context.
 * Return: -EOPNOTSUPP: kiwi devices have no integrity offload (a ULP
 * only asks with IB_DEVICE_INTEGRITY_HANDOVER, which none advertises).
 */
int kiwi_rdma_rw_ctx_signature_init(struct rdma_rw_ctx *ctx,
				    struct ib_qp *qp, u32 port_num,
				    struct scatterlist *sg, u32 sg_cnt,
				    struct scatterlist *prot_sg,
				    u32 prot_sg_cnt,
				    struct ib_sig_attrs *sig_attrs,
				    u64 remote_addr, u32 rkey,
				    enum dma_data_direction dir)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_ctx_signature_init);

/**
 * kiwi_rdma_rw_ctx_destroy_signature() - release a signature context
 *	(rdma_rw_ctx_destroy_signature())
 * @ctx: the context
 * @qp: the QP
 * @port_num: 1
 * @sg: data
 * @sg_cnt: its entries
 * @prot_sg: protection information
 * @prot_sg_cnt: its entries
 * @dir: the direction
 *
 * Never has anything to do: kiwi_rdma_rw_ctx_signature_init() makes no
 * context.
 *
 * Context: any context.
 */
void kiwi_rdma_rw_ctx_destroy_signature(struct rdma_rw_ctx *ctx,
					struct ib_qp *qp, u32 port_num,
					struct scatterlist *sg, u32 sg_cnt,
					struct scatterlist *prot_sg,
					u32 prot_sg_cnt,
					enum dma_data_direction dir)
{
	WARN_ON_ONCE(1);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_rw_ctx_destroy_signature);
