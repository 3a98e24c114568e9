/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kiwi's verbs do not have, in Linux's shapes: integrity (T10-PI)
 * memory regions and shared receive queues. Linux's ULPs test for them
 * (IB_DEVICE_INTEGRITY_HANDOVER in device_cap_flags, attrs.max_srq) and
 * take their plain path when a device lacks them, as every kiwi device
 * does; their code for the features still has to compile. The calls
 * here fail with -EOPNOTSUPP and change nothing.
 *
 * Included by <rdma/ib_verbs.h>; not for direct use.
 */
#ifndef _KIWI_VERBS_ABSENT_H
#define _KIWI_VERBS_ABSENT_H

#include <linux/err.h>
#include <rdma/signature.h>	/* Linux's: plain types and constants */

/**
 * enum ib_qp_create_flags - QP creation flags (all refused by kiwi)
 * @IB_QP_CREATE_INTEGRITY_EN: a QP for integrity MRs
 */
enum ib_qp_create_flags {
	IB_QP_CREATE_INTEGRITY_EN = 1 << 6,
};

/**
 * enum ib_mr_status_check - what ib_check_mr_status() may check
 * @IB_MR_CHECK_SIG_STATUS: the integrity check of a signature MR
 */
enum ib_mr_status_check {
	IB_MR_CHECK_SIG_STATUS = 1,
};

/**
 * struct ib_mr_status - what ib_check_mr_status() found
 * @fail_status: IB_MR_CHECK_* bits of the checks that failed
 * @sig_err: the integrity error, with IB_MR_CHECK_SIG_STATUS
 */
struct ib_mr_status {
	u32 fail_status;
	struct ib_sig_err sig_err;
};

/**
 * ib_check_mr_status() - the integrity status of a signature MR
 * @mr: the MR
 * @check_mask: IB_MR_CHECK_* bits
 * @mr_status: what was found
 *
 * Context: any context.
 * Return: -EOPNOTSUPP: kiwi has no signature MRs.
 */
static inline int ib_check_mr_status(struct ib_mr *mr, u32 check_mask,
				     struct ib_mr_status *mr_status)
{
	return -EOPNOTSUPP;
}

/**
 * ib_alloc_mr_integrity() - an MR for data with protection information
 * @pd: its protection domain
 * @max_num_data_sg: data pages it could map
 * @max_num_meta_sg: protection information pages it could map
 *
 * No kiwi device advertises IBK_INTEGRITY_HANDOVER, so a ULP that checks
 * (iSER's initiator does) never calls this.
 *
 * Context: process context.
 * Return: ERR_PTR(-EOPNOTSUPP): kiwi has no integrity MRs.
 */
static inline struct ib_mr *ib_alloc_mr_integrity(struct ib_pd *pd,
						  u32 max_num_data_sg,
						  u32 max_num_meta_sg)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * ib_map_mr_sg_pi() - map data and protection information into an MR
 * @mr: an integrity MR
 * @data_sg: data
 * @data_sg_nents: its entries
 * @data_sg_offset: offset into the first, or NULL
 * @meta_sg: protection information
 * @meta_sg_nents: its entries
 * @meta_sg_offset: offset into the first, or NULL
 * @page_size: page size of the mapping
 *
 * Context: any context.
 * Return: -EOPNOTSUPP: kiwi has no integrity MRs.
 */
static inline int ib_map_mr_sg_pi(struct ib_mr *mr,
				  struct scatterlist *data_sg,
				  int data_sg_nents,
				  unsigned int *data_sg_offset,
				  struct scatterlist *meta_sg,
				  int meta_sg_nents,
				  unsigned int *meta_sg_offset,
				  unsigned int page_size)
{
	return -EOPNOTSUPP;
}

/**
 * enum ib_srq_type - kinds of shared receive queue
 * @IB_SRQT_BASIC: the plain one
 * @IB_SRQT_XRC: extended reliable connection (IB only)
 * @IB_SRQT_TM: tag matching
 */
enum ib_srq_type {
	IB_SRQT_BASIC,
	IB_SRQT_XRC,
	IB_SRQT_TM,
};

/**
 * struct ib_srq_attr - sizes of a shared receive queue
 * @max_wr: work requests
 * @max_sge: SGEs per work request
 * @srq_limit: low-water mark
 */
struct ib_srq_attr {
	u32 max_wr;
	u32 max_sge;
	u32 srq_limit;
};

/**
 * struct ib_srq_init_attr - what a shared receive queue is created with
 * @event_handler: its asynchronous events
 * @srq_context: cookie for @event_handler
 * @attr: its sizes
 * @srq_type: its kind
 */
struct ib_srq_init_attr {
	void (*event_handler)(struct ib_event *event, void *srq_context);
	void *srq_context;
	struct ib_srq_attr attr;
	enum ib_srq_type srq_type;
};

/**
 * struct ib_srq - a shared receive queue (never created by kiwi)
 * @device: its device
 * @pd: its PD
 * @srq_context: the owner's cookie
 */
struct ib_srq {
	struct ib_device *device;
	struct ib_pd *pd;
	void *srq_context;
};

/**
 * ib_create_srq() - create a shared receive queue
 * @pd: the PD
 * @srq_init_attr: what it is created with
 *
 * Context: process context.
 * Return: ERR_PTR(-EOPNOTSUPP): kiwi devices have none (attrs.max_srq 0).
 */
static inline struct ib_srq *ib_create_srq(struct ib_pd *pd,
					   struct ib_srq_init_attr *srq_init_attr)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * ib_destroy_srq() - destroy a shared receive queue
 * @srq: one ib_create_srq() made (never, on kiwi)
 *
 * Context: process context.
 * Return: 0.
 */
static inline int ib_destroy_srq(struct ib_srq *srq)
{
	return 0;
}

/**
 * ib_post_srq_recv() - post receive work requests to a shared queue
 * @srq: the queue
 * @recv_wr: the chain
 * @bad_recv_wr: set to @recv_wr, the first not posted, unless NULL
 *
 * Context: any context.
 * Return: -EOPNOTSUPP.
 */
static inline int ib_post_srq_recv(struct ib_srq *srq,
				   const struct ib_recv_wr *recv_wr,
				   const struct ib_recv_wr **bad_recv_wr)
{
	if (bad_recv_wr)
		*bad_recv_wr = recv_wr;
	return -EOPNOTSUPP;
}

#endif /* _KIWI_VERBS_ABSENT_H */
