/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's <rdma/ib_cm.h>: iWARP has no InfiniBand CM, but Linux's ULPs
 * name its reject reasons in rdma_reject(), which kiwi ignores (an MPA
 * reject carries private data only).
 */
#ifndef _KIWI_IB_CM_H
#define _KIWI_IB_CM_H

/**
 * enum ib_cm_rej_reason - the reject reasons ULPs pass to rdma_reject()
 * @IB_CM_REJ_CONSUMER_DEFINED: the ULP's own reason, in its private data
 */
enum ib_cm_rej_reason {
	IB_CM_REJ_CONSUMER_DEFINED = 28,
};

#endif /* _KIWI_IB_CM_H */
