/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi verbs: the queue pair, completion queue and memory region objects a
 * ULP uses on a kiwi device, and the wrappers that dispatch to the provider.
 *
 * Objects are allocated by the provider (which embeds them in its own
 * structures) and tracked by the core, which holds a device reference for
 * each until it is destroyed.
 */
#ifndef _KIWI_VERBS_H
#define _KIWI_VERBS_H

#include <linux/list.h>
#include <linux/types.h>

struct kiwi_device;
struct page;
struct scatterlist;
struct kiwi_cq;
struct kiwi_qp;

/**
 * struct kiwi_device_attr - limits of a device, read once at registration
 * @max_qp: queue pairs
 * @max_qp_wr: work requests per queue
 * @max_sge: scatter/gather entries per work request
 * @max_cq: completion queues
 * @max_cqe: entries per completion queue
 * @max_mr: memory regions
 * @max_ird: inbound RDMA read depth, at most KIWI_CM_MAX_IRD_ORD
 * @max_ord: outbound RDMA read depth, at most KIWI_CM_MAX_IRD_ORD
 * @max_private_data: MPA private data bytes a ULP may send in a connect,
 *	accept or reject, over every MPA revision the device may use; at
 *	most KIWI_CM_MAX_PRIVATE_DATA (revision 2 leaves 508)
 */
struct kiwi_device_attr {
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u16 max_ird;
	u16 max_ord;
	u16 max_private_data;
};

/**
 * enum kiwi_qp_state - queue pair states (the subset iWARP uses)
 * @KIWI_QPS_IDLE: created, not connected
 * @KIWI_QPS_RTS: connected, ready to send
 * @KIWI_QPS_CLOSING: graceful close in progress
 * @KIWI_QPS_TERMINATE: a TERMINATE message was sent or received
 * @KIWI_QPS_ERROR: unusable; work requests are flushed
 */
enum kiwi_qp_state {
	KIWI_QPS_IDLE,
	KIWI_QPS_RTS,
	KIWI_QPS_CLOSING,
	KIWI_QPS_TERMINATE,
	KIWI_QPS_ERROR,
};

/* Bits of the mask given to kiwi_modify_qp(). */
#define KIWI_QP_ATTR_STATE	BIT(0)
#define KIWI_QP_ATTR_ACCESS	BIT(1)

/*
 * Access rights of a QP or MR. An MR the peer may write must be locally
 * writable too: KIWI_ACCESS_REMOTE_WRITE requires KIWI_ACCESS_LOCAL_WRITE.
 * A QP's rights say which remote accesses its peer may make at all
 * (REMOTE_WRITE: RDMA WRITEs, REMOTE_READ: Read Requests); LOCAL_WRITE
 * means nothing on a QP. A QP starts with none; rdma_create_qp() gives
 * it KIWI_QP_ACCESS_IWARP, as Linux's iw_cm does for iWARP QPs.
 */
#define KIWI_ACCESS_LOCAL_WRITE		BIT(0)
#define KIWI_ACCESS_REMOTE_WRITE	BIT(1)
#define KIWI_ACCESS_REMOTE_READ		BIT(2)
#define KIWI_ACCESS_ALL			(KIWI_ACCESS_LOCAL_WRITE | \
					 KIWI_ACCESS_REMOTE_WRITE | \
					 KIWI_ACCESS_REMOTE_READ)
#define KIWI_QP_ACCESS_IWARP		(KIWI_ACCESS_REMOTE_WRITE | \
					 KIWI_ACCESS_REMOTE_READ)

/**
 * struct kiwi_qp_attr - attributes changed by kiwi_modify_qp()
 * @qp_state: new state (KIWI_QP_ATTR_STATE)
 * @access: access rights (KIWI_QP_ATTR_ACCESS)
 */
struct kiwi_qp_attr {
	enum kiwi_qp_state qp_state;
	u32 access;
};

/**
 * struct kiwi_qp_cap - queue sizes of a QP
 * @max_send_wr: send queue depth
 * @max_recv_wr: receive queue depth
 * @max_send_sge: scatter/gather entries per send work request
 * @max_recv_sge: scatter/gather entries per receive work request
 */
struct kiwi_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
};

/**
 * struct kiwi_qp_init_attr - what kiwi_create_qp() asks for
 * @send_cq: CQ for send completions
 * @recv_cq: CQ for receive completions
 * @cap: queue sizes
 * @qp_context: the owner's cookie
 */
struct kiwi_qp_init_attr {
	struct kiwi_cq *send_cq;
	struct kiwi_cq *recv_cq;
	struct kiwi_qp_cap cap;
	void *qp_context;
};

/**
 * struct kiwi_qp - a queue pair
 * @device: the device
 * @qpn: number, unique on the device, used by kiwi_conn_param.qpn
 * @send_cq: CQ for send completions
 * @recv_cq: CQ for receive completions
 * @qp_context: the owner's cookie
 * @node: core only: entry in the device's QP list
 *
 * Embedded in, allocated and freed by the provider. The provider sets
 * @qpn; the core sets the rest.
 */
struct kiwi_qp {
	struct kiwi_device *device;
	u32 qpn;
	struct kiwi_cq *send_cq;
	struct kiwi_cq *recv_cq;
	void *qp_context;
	/* private: */
	struct list_head node;
};

/**
 * typedef kiwi_comp_handler - completion notification
 * @cq: the CQ that has new completions
 * @cq_context: the owner's cookie
 *
 * Called by the provider in any context, hard or soft irq included.
 */
typedef void (*kiwi_comp_handler)(struct kiwi_cq *cq, void *cq_context);

/**
 * struct kiwi_cq - a completion queue
 * @device: the device
 * @comp_handler: called when the CQ is armed and a completion arrives
 * @cq_context: the owner's cookie
 * @cqe: number of entries
 * @node: core only: entry in the device's CQ list
 */
struct kiwi_cq {
	struct kiwi_device *device;
	kiwi_comp_handler comp_handler;
	void *cq_context;
	u32 cqe;
	/* private: */
	struct list_head node;
};

/**
 * struct kiwi_mr - a memory region of kernel memory
 * @device: the device
 * @lkey: local key
 * @rkey: remote key
 * @iova: address of the first byte as the peer names it (the tagged
 *	offset): the kernel address for kiwi_reg_kernel_mr(), the caller's
 *	choice for kiwi_reg_page_mr() and kiwi_reg_sg_mr()
 * @length: bytes
 * @node: core only: entry in the device's MR list
 */
struct kiwi_mr {
	struct kiwi_device *device;
	u32 lkey;
	u32 rkey;
	u64 iova;
	u64 length;
	/* private: */
	struct list_head node;
};

/**
 * struct kiwi_sge - a scatter/gather element
 * @addr: address in the MR's address space
 * @length: bytes
 * @lkey: key of the MR
 */
struct kiwi_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/**
 * enum kiwi_wr_opcode - send queue work request types
 * @KIWI_WR_SEND: send @sg_list
 * @KIWI_WR_RDMA_WRITE: write @sg_list to the peer's @remote_addr of @rkey
 * @KIWI_WR_RDMA_READ: read the peer's @remote_addr of @rkey into @sg_list,
 *	whose memory must be registered with KIWI_ACCESS_LOCAL_WRITE
 * @KIWI_WR_SEND_WITH_INV: send @sg_list; the peer invalidates its STag
 *	@invalidate_rkey (one of its MRs with remote access) on receipt
 * @KIWI_WR_LOCAL_INV: invalidate this device's STag @invalidate_rkey, in
 *	send queue order; no SGEs
 *
 * iWARP has no immediate data: there is no RDMA write with immediate.
 */
enum kiwi_wr_opcode {
	KIWI_WR_SEND,
	KIWI_WR_RDMA_WRITE,
	KIWI_WR_RDMA_READ,
	KIWI_WR_SEND_WITH_INV,
	KIWI_WR_LOCAL_INV,
};

/* Flags of a send work request. */
#define KIWI_SEND_SIGNALED	BIT(0)	/* complete it on the CQ */
#define KIWI_SEND_SOLICITED	BIT(1)	/* SEND with Solicited Event */

/**
 * struct kiwi_send_wr - a send queue work request
 * @next: next in the chain, or NULL
 * @wr_id: the owner's cookie, returned in the completion
 * @sg_list: local buffers
 * @num_sge: entries at @sg_list
 * @opcode: what to do
 * @send_flags: KIWI_SEND_*
 * @remote_addr: RDMA: the peer's address (its MR's iova space)
 * @rkey: RDMA: the peer's key, an rkey the peer registered with
 *	KIWI_ACCESS_REMOTE_WRITE (write) or KIWI_ACCESS_REMOTE_READ (read)
 * @invalidate_rkey: SEND_WITH_INV: the peer's STag to invalidate;
 *	LOCAL_INV: this end's
 */
struct kiwi_send_wr {
	struct kiwi_send_wr *next;
	u64 wr_id;
	struct kiwi_sge *sg_list;
	int num_sge;
	enum kiwi_wr_opcode opcode;
	u32 send_flags;
	u64 remote_addr;
	u32 rkey;
	u32 invalidate_rkey;
};

/**
 * struct kiwi_recv_wr - a receive queue work request
 * @next: next in the chain, or NULL
 * @wr_id: the owner's cookie, returned in the completion
 * @sg_list: buffers
 * @num_sge: entries at @sg_list
 */
struct kiwi_recv_wr {
	struct kiwi_recv_wr *next;
	u64 wr_id;
	struct kiwi_sge *sg_list;
	int num_sge;
};

/**
 * enum kiwi_wc_opcode - what a completion completes
 * @KIWI_WC_SEND: a send
 * @KIWI_WC_RDMA_WRITE: an RDMA write
 * @KIWI_WC_RDMA_READ: an RDMA read
 * @KIWI_WC_RECV: a receive
 * @KIWI_WC_LOCAL_INV: a local invalidation
 */
enum kiwi_wc_opcode {
	KIWI_WC_SEND,
	KIWI_WC_RDMA_WRITE,
	KIWI_WC_RDMA_READ,
	KIWI_WC_RECV,
	KIWI_WC_LOCAL_INV,
};

/* Bits of kiwi_wc.wc_flags. */
#define KIWI_WC_WITH_INVALIDATE	BIT(0)	/* the SEND invalidated an STag */

/**
 * struct kiwi_wc - a work completion
 * @wr_id: the work request's cookie
 * @status: 0 or a negative errno: -ECANCELED when flushed (the QP is in
 *	ERROR), -EMSGSIZE for a RECV too small for the message that arrived
 * @opcode: what completed
 * @byte_len: bytes received (KIWI_WC_RECV) or read (KIWI_WC_RDMA_READ)
 * @qp: the QP
 * @wc_flags: KIWI_WC_* bits
 * @invalidate_rkey: KIWI_WC_WITH_INVALIDATE: the STag of this end the
 *	peer's SEND invalidated
 */
struct kiwi_wc {
	u64 wr_id;
	int status;
	enum kiwi_wc_opcode opcode;
	u32 byte_len;
	struct kiwi_qp *qp;
	u32 wc_flags;
	u32 invalidate_rkey;
};

/**
 * enum kiwi_cq_notify - when to call a CQ's completion handler
 * @KIWI_CQ_NEXT_COMP: on the next completion
 * @KIWI_CQ_SOLICITED: on the next solicited completion
 */
enum kiwi_cq_notify {
	KIWI_CQ_NEXT_COMP,
	KIWI_CQ_SOLICITED,
};

int kiwi_query_device(struct kiwi_device *dev, struct kiwi_device_attr *attr);
struct kiwi_qp *kiwi_create_qp(struct kiwi_device *dev,
			       const struct kiwi_qp_init_attr *init);
int kiwi_modify_qp(struct kiwi_qp *qp, const struct kiwi_qp_attr *attr,
		   int mask);
void kiwi_destroy_qp(struct kiwi_qp *qp);
int kiwi_post_send(struct kiwi_qp *qp, const struct kiwi_send_wr *wr,
		   const struct kiwi_send_wr **bad_wr);
int kiwi_post_recv(struct kiwi_qp *qp, const struct kiwi_recv_wr *wr,
		   const struct kiwi_recv_wr **bad_wr);
struct kiwi_cq *kiwi_create_cq(struct kiwi_device *dev, u32 cqe,
			       kiwi_comp_handler handler, void *cq_context);
void kiwi_destroy_cq(struct kiwi_cq *cq);
int kiwi_poll_cq(struct kiwi_cq *cq, int num_entries, struct kiwi_wc *wc);
int kiwi_req_notify_cq(struct kiwi_cq *cq, enum kiwi_cq_notify flags);
struct kiwi_mr *kiwi_reg_kernel_mr(struct kiwi_device *dev, void *addr,
				   size_t length, u32 access);
struct kiwi_mr *kiwi_reg_page_mr(struct kiwi_device *dev,
				 struct page **pages, unsigned int npages,
				 unsigned int offset, u64 length, u64 iova,
				 u32 access);
struct kiwi_mr *kiwi_reg_sg_mr(struct kiwi_device *dev,
			       struct scatterlist *sgl, unsigned int nents,
			       u64 iova, u32 access);
void kiwi_dereg_mr(struct kiwi_mr *mr);

#endif /* _KIWI_VERBS_H */
