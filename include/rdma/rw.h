/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's <rdma/rw.h>: Linux's API for RDMA READs and WRITEs of a
 * scatterlist, for iWARP. A WRITE's source goes by the PD's
 * local_dma_lkey; a READ's sink is fast-registered with remote write
 * access (iWARP places a Read Response by STag), from the QP's MR pool
 * that ib_qp_init_attr.cap.max_rdma_ctxs sized. The defines give kiwi's
 * exports Linux's names.
 */
#ifndef _KIWI_RDMA_RW_H
#define _KIWI_RDMA_RW_H

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>

#define rdma_rw_ctx_init		kiwi_rdma_rw_ctx_init
#define rdma_rw_ctx_destroy		kiwi_rdma_rw_ctx_destroy
#define rdma_rw_ctx_wrs			kiwi_rdma_rw_ctx_wrs
#define rdma_rw_ctx_post		kiwi_rdma_rw_ctx_post
#define rdma_rw_mr_factor		kiwi_rdma_rw_mr_factor
#define rdma_rw_max_send_wr		kiwi_rdma_rw_max_send_wr
#define rdma_rw_ctx_signature_init	kiwi_rdma_rw_ctx_signature_init
#define rdma_rw_ctx_destroy_signature	kiwi_rdma_rw_ctx_destroy_signature

/**
 * struct rdma_rw_reg_ctx - one fast-registered piece of a READ sink
 * @sge: the MR, as the READ's sink
 * @wr: the RDMA READ
 * @reg_wr: the registration, ahead of @wr
 * @inv_wr: the invalidation of the MR's last use, ahead of @reg_wr
 * @mr: the MR, from the QP's pool
 */
struct rdma_rw_reg_ctx {
	struct ib_sge sge;
	struct ib_rdma_wr wr;
	struct ib_reg_wr reg_wr;
	struct ib_send_wr inv_wr;
	struct ib_mr *mr;
};

/**
 * struct rdma_rw_ctx - the work requests of one READ or WRITE
 * @nr_ops: RDMA operations (READs or WRITEs)
 * @type: how they are built (private to kiwi)
 * @single: one WRITE of one SGE
 * @single.sge: its SGE
 * @single.wr: the WRITE
 * @map: WRITEs of several SGEs
 * @map.sges: the SGEs
 * @map.wrs: the WRITEs
 * @reg: READs into fast-registered MRs, @nr_ops of them
 *
 * The caller embeds it; only the calls below touch it.
 */
struct rdma_rw_ctx {
	u32 nr_ops;
	u8 type;
	union {
		struct {
			struct ib_sge sge;
			struct ib_rdma_wr wr;
		} single;
		struct {
			struct ib_sge *sges;
			struct ib_rdma_wr *wrs;
		} map;
		struct rdma_rw_reg_ctx *reg;
	};
};

int kiwi_rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			  u32 sg_offset, u64 remote_addr, u32 rkey,
			  enum dma_data_direction dir);
void kiwi_rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			      u32 port_num, struct scatterlist *sg,
			      u32 sg_cnt, enum dma_data_direction dir);
struct ib_send_wr *kiwi_rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx,
					struct ib_qp *qp, u32 port_num,
					struct ib_cqe *cqe,
					struct ib_send_wr *chain_wr);
int kiwi_rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  u32 port_num, struct ib_cqe *cqe,
			  struct ib_send_wr *chain_wr);
unsigned int kiwi_rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
				    unsigned int maxpages);
unsigned int kiwi_rdma_rw_max_send_wr(struct ib_device *dev, u32 port_num,
				      unsigned int max_rdma_ctxs,
				      u32 create_flags);
int kiwi_rdma_rw_ctx_signature_init(struct rdma_rw_ctx *ctx,
				    struct ib_qp *qp, u32 port_num,
				    struct scatterlist *sg, u32 sg_cnt,
				    struct scatterlist *prot_sg,
				    u32 prot_sg_cnt,
				    struct ib_sig_attrs *sig_attrs,
				    u64 remote_addr, u32 rkey,
				    enum dma_data_direction dir);
void kiwi_rdma_rw_ctx_destroy_signature(struct rdma_rw_ctx *ctx,
					struct ib_qp *qp, u32 port_num,
					struct scatterlist *sg, u32 sg_cnt,
					struct scatterlist *prot_sg,
					u32 prot_sg_cnt,
					enum dma_data_direction dir);

#endif /* _KIWI_RDMA_RW_H */
