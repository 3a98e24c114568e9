/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's <rdma/ib_cm.h>: iWARP has no InfiniBand CM, but Linux's ULPs
 * name its reject reasons in rdma_reject(), which kiwi ignores (an MPA
 * reject carries private data only), and Linux's RDMA trace headers name
 * its events.
 */
#ifndef _KIWI_IB_CM_H
#define _KIWI_IB_CM_H

/**
 * enum ib_cm_event_type - the InfiniBand CM's events, never raised by kiwi
 * @IB_CM_REQ_ERROR: see Linux's <rdma/ib_cm.h>
 * @IB_CM_REQ_RECEIVED: ditto
 * @IB_CM_REP_ERROR: ditto
 * @IB_CM_REP_RECEIVED: ditto
 * @IB_CM_RTU_RECEIVED: ditto
 * @IB_CM_USER_ESTABLISHED: ditto
 * @IB_CM_DREQ_ERROR: ditto
 * @IB_CM_DREQ_RECEIVED: ditto
 * @IB_CM_DREP_RECEIVED: ditto
 * @IB_CM_TIMEWAIT_EXIT: ditto
 * @IB_CM_MRA_RECEIVED: ditto
 * @IB_CM_REJ_RECEIVED: ditto
 * @IB_CM_LAP_ERROR: ditto
 * @IB_CM_LAP_RECEIVED: ditto
 * @IB_CM_APR_RECEIVED: ditto
 * @IB_CM_SIDR_REQ_ERROR: ditto
 * @IB_CM_SIDR_REQ_RECEIVED: ditto
 * @IB_CM_SIDR_REP_RECEIVED: ditto
 *
 * Linux's RDMA trace headers (<trace/misc/rdma.h>, which NFS/RDMA's
 * traces include) name them to print the events of IB ULPs.
 */
enum ib_cm_event_type {
	IB_CM_REQ_ERROR,
	IB_CM_REQ_RECEIVED,
	IB_CM_REP_ERROR,
	IB_CM_REP_RECEIVED,
	IB_CM_RTU_RECEIVED,
	IB_CM_USER_ESTABLISHED,
	IB_CM_DREQ_ERROR,
	IB_CM_DREQ_RECEIVED,
	IB_CM_DREP_RECEIVED,
	IB_CM_TIMEWAIT_EXIT,
	IB_CM_MRA_RECEIVED,
	IB_CM_REJ_RECEIVED,
	IB_CM_LAP_ERROR,
	IB_CM_LAP_RECEIVED,
	IB_CM_APR_RECEIVED,
	IB_CM_SIDR_REQ_ERROR,
	IB_CM_SIDR_REQ_RECEIVED,
	IB_CM_SIDR_REP_RECEIVED
};

/**
 * enum ib_cm_rej_reason - the reject reasons ULPs pass to rdma_reject()
 *	or find in a REJECTED event's status
 * @IB_CM_REJ_STALE_CONN: on InfiniBand, the peer holds a stale
 *	connection; kiwi never reports it (NFS/RDMA checks for it)
 * @IB_CM_REJ_CONSUMER_DEFINED: the ULP's own reason, in its private data
 */
enum ib_cm_rej_reason {
	IB_CM_REJ_STALE_CONN = 10,
	IB_CM_REJ_CONSUMER_DEFINED = 28,
};

#endif /* _KIWI_IB_CM_H */
