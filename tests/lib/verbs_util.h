/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shorthands of the test suites for verbs calls they make often.
 */
#ifndef _KIWI_TEST_VERBS_UTIL_H
#define _KIWI_TEST_VERBS_UTIL_H

#include <rdma/ib_verbs.h>

/*
 * The QP type and signalling of the suites' QPs, first in their
 * struct ib_qp_init_attr initializers: sends complete when signalled.
 */
#define KT_QP_RC	.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR

/**
 * kt_cq() - a CQ on completion vector 0
 * @dev: the device
 * @cqe: entries
 * @handler: completion handler, or NULL
 * @ctx: its cookie
 *
 * Context: process context; sleeps.
 * Return: kiwi_create_cq()'s result.
 */
static inline struct ib_cq *kt_cq(struct ib_device *dev, u32 cqe,
				  ib_comp_handler handler, void *ctx)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };

	return kiwi_create_cq(dev, handler, NULL, ctx, &attr);
}

#endif /* _KIWI_TEST_VERBS_UTIL_H */
