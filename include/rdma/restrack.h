/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's <rdma/restrack.h>: the part of Linux's resource tracking that
 * ULPs read. Each PD, CQ, QP and MR carries an entry whose @id names it
 * among the live objects of its type on its device; NFS/RDMA, for one,
 * puts the ids of its CQs and MRs in its completion IDs and traces.
 * kiwi keeps no netlink view of the objects.
 */
#ifndef _KIWI_RDMA_RESTRACK_H
#define _KIWI_RDMA_RESTRACK_H

#include <linux/types.h>

/**
 * enum rdma_restrack_type - the kinds of tracked objects, as Linux's
 * @RDMA_RESTRACK_PD: protection domain
 * @RDMA_RESTRACK_CQ: completion queue
 * @RDMA_RESTRACK_QP: queue pair
 * @RDMA_RESTRACK_CM_ID: connection manager id (not tracked by kiwi)
 * @RDMA_RESTRACK_MR: memory region
 * @RDMA_RESTRACK_CTX: user context (kiwi has none)
 * @RDMA_RESTRACK_COUNTER: statistic counter (kiwi has none)
 * @RDMA_RESTRACK_SRQ: shared receive queue (kiwi has none)
 * @RDMA_RESTRACK_MAX: the number of kinds
 */
enum rdma_restrack_type {
	RDMA_RESTRACK_PD,
	RDMA_RESTRACK_CQ,
	RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID,
	RDMA_RESTRACK_MR,
	RDMA_RESTRACK_CTX,
	RDMA_RESTRACK_COUNTER,
	RDMA_RESTRACK_SRQ,
	RDMA_RESTRACK_MAX
};

/**
 * struct rdma_restrack_entry - what the core tracks of a verbs object
 * @valid: the object is live (between its creation and its destruction)
 * @type: its kind
 * @id: set by the core when the object is created: a device numbers its
 *	objects of each type in creation order, so @id differs from every
 *	other live one's unless 2^32 were created while it lived
 */
struct rdma_restrack_entry {
	bool valid;
	enum rdma_restrack_type type;
	u32 id;
};

#endif /* _KIWI_RDMA_RESTRACK_H */
