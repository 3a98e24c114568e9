/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_loop: a reference RNIC provider with no wire underneath. Two
 * devices, kiwi_loop0 (192.0.2.1) and kiwi_loop1 (192.0.2.2); a
 * connection joins two QPs in memory, and work requests are carried out
 * by copying between the two ends' memory.
 *
 * One rule keeps it simple: everything that changes a connection, an
 * endpoint, a QP's queues (other than posting) or an MR's registration
 * runs under loop_mutex, in process context: the provider ops the core
 * calls, and the work items of loop_wq that make upcalls and carry out
 * work requests. Posting, polling and arming run in any context under
 * the QP's and the CQ's spinlocks only; a CQ's lock nests inside a QP's.
 *
 * Upcalls (kiwi_cm_upcall()), kiwi_qp_event(), kiwi_cm_id_rem_ref() and
 * CQ completion handlers are called with loop_mutex held. That is safe
 * because the core only queues an upcall or an event (its handlers run
 * from its own work, which may call loop's ops and so take loop_mutex)
 * and a completion handler may not sleep. A core that ran a ULP's
 * handler inline would deadlock here: a provider whose ops sleep on a
 * lock its upcalls hold must not make upcalls under it.
 */
#ifndef _KIWI_LOOP_H
#define _KIWI_LOOP_H

#include <linux/in.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <kiwi/provider.h>

#define LOOP_NR_DEVS		2
#define LOOP_MAX_QP		1024
#define LOOP_MAX_QP_WR		256
#define LOOP_MAX_SGE		4
#define LOOP_MAX_CQ		1024
#define LOOP_MAX_CQE		4096
#define LOOP_MAX_MR		4096
#define LOOP_MAX_PD		1024
#define LOOP_MAX_IRD_ORD	16
#define LOOP_MAX_FR_PAGES	256
#define LOOP_MAX_INLINE		256
#define LOOP_MAX_MR_SIZE	((u64)U32_MAX)
#define LOOP_MAX_PDATA		508	/* MPA revision 2: 512 less IRD/ORD */
#define LOOP_LOCAL_DMA_LKEY	0	/* never an MR's STag: indexes from 1 */
#define LOOP_EV_RING		8	/* events an endpoint may have queued */

/**
 * enum loop_defect - the defect the module parameter "defect" selects
 * @LOOP_DEFECT_NONE: none, a correct provider
 * @LOOP_DEFECT_NO_REM_REF: no kiwi_cm_id_rem_ref() after a CLOSE
 * @LOOP_DEFECT_CLOSE_BEFORE_ESTABLISHED: accept reports CLOSE(0), then
 *	ESTABLISHED
 * @LOOP_DEFECT_NO_FLUSH: a QP moved to ERROR drops its work requests
 */
enum loop_defect {
	LOOP_DEFECT_NONE,
	LOOP_DEFECT_NO_REM_REF,
	LOOP_DEFECT_CLOSE_BEFORE_ESTABLISHED,
	LOOP_DEFECT_NO_FLUSH,
};

/**
 * struct loop_dev - a kiwi_loop device
 * @ibdev: the core's device
 * @addr: the IPv4 address it answers for
 * @qps: QPs by number, from 1
 * @mrs: MRs by STag index, from 1
 * @nr_pds: live PDs
 * @nr_cqs: live CQs
 * @listeners: listening ids (loop_mutex)
 * @eps: live endpoints (loop_mutex)
 * @next_port: the next ephemeral port to try (loop_mutex)
 */
struct loop_dev {
	struct ib_device ibdev;
	__be32 addr;
	struct xarray qps;
	struct xarray mrs;
	atomic_t nr_pds;
	atomic_t nr_cqs;
	struct list_head listeners;
	struct list_head eps;
	u16 next_port;
};

/**
 * struct loop_cq - a completion queue: a ring of completions
 * @ibcq: the core's CQ
 * @lock: protects the rest
 * @ring: @size completions, the oldest at @head
 * @size: entries
 * @head: the oldest completion
 * @count: completions waiting
 * @armed: IB_CQ_NEXT_COMP, IB_CQ_SOLICITED, or 0
 * @due: the handler is to be called
 * @overflow: a completion was lost; no more are taken
 */
struct loop_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* protects the ring and the flags */
	struct ib_wc *ring;
	u32 size;
	u32 head;
	u32 count;
	u8 armed;
	bool due;
	bool overflow;
};

/**
 * enum loop_mr_kind - what backs an MR
 * @LOOP_MR_KERNEL: kernel virtual memory (reg_kernel_mr)
 * @LOOP_MR_SG: the entries of a scatterlist (reg_sg_mr)
 * @LOOP_MR_FR: pages of a fast registration (alloc_mr, IB_WR_REG_MR)
 */
enum loop_mr_kind {
	LOOP_MR_KERNEL,
	LOOP_MR_SG,
	LOOP_MR_FR,
};

/**
 * struct loop_piece - a scatterlist entry of an MR
 * @to: tagged offset of its first byte
 * @len: bytes
 * @page: first page
 * @offset: first byte in @page, below PAGE_SIZE
 */
struct loop_piece {
	u64 to;
	u64 len;
	struct page *page;
	u32 offset;
};

/**
 * struct loop_mr - a memory region
 * @ibmr: the core's MR
 * @ldev: the device
 * @pd: its PD (set before the MR can be found)
 * @kind: what backs it
 * @index: STag index
 * @key: STag key; READ_ONCE() outside loop_mutex, like the next three
 * @valid: the STag names the MR
 * @access: IB_ACCESS_* rights
 * @iova: tagged offset of the first byte
 * @length: bytes
 * @va: LOOP_MR_KERNEL: the memory
 * @pieces: LOOP_MR_SG: the entries, in TO order
 * @npieces: LOOP_MR_SG: their number
 * @pages: LOOP_MR_FR: page addresses the registration uses
 * @npages: LOOP_MR_FR: their number
 * @page_size: LOOP_MR_FR: bytes per page
 * @first_off: LOOP_MR_FR: offset of the first byte in the first page
 * @map: LOOP_MR_FR: pages ib_map_mr_sg() mapped, for the next REG_MR
 * @nmap: LOOP_MR_FR: their number
 * @map_off: LOOP_MR_FR: offset of their first byte in the first page
 * @max_pages: LOOP_MR_FR: room in @pages and @map
 * @rcu: frees the MR after lockless lookups are done
 */
struct loop_mr {
	struct ib_mr ibmr;
	struct loop_dev *ldev;
	struct ib_pd *pd;
	enum loop_mr_kind kind;
	u32 index;
	u8 key;
	bool valid;
	u32 access;
	u64 iova;
	u64 length;
	void *va;
	struct loop_piece *pieces;
	u32 npieces;
	u64 *pages;
	u32 npages;
	u32 page_size;
	u32 first_off;
	u64 *map;
	u32 nmap;
	u32 map_off;
	u32 max_pages;
	struct rcu_head rcu;
};

/**
 * struct loop_wqe - a queued work request
 * @wr_id: the owner's cookie
 * @opcode: enum ib_wr_opcode (send queue)
 * @flags: IB_SEND_* (IB_SEND_SIGNALED added on IB_SIGNAL_ALL_WR QPs)
 * @num_sge: entries at @sge (0 for inline data)
 * @len: bytes of the request
 * @inl: the data was copied inline, into the QP's inline buffer
 * @sge: the SGEs
 * @remote_addr: RDMA READ/WRITE: the peer's address
 * @rkey: RDMA READ/WRITE: the peer's STag; SEND_WITH_INV and LOCAL_INV:
 *	the STag to invalidate; REG_MR: the key
 * @access: REG_MR: the rights
 * @mr: REG_MR: the MR
 */
struct loop_wqe {
	u64 wr_id;
	u32 opcode;
	u32 flags;
	u32 num_sge;
	u32 len;
	bool inl;
	struct ib_sge sge[LOOP_MAX_SGE];
	u64 remote_addr;
	u32 rkey;
	int access;
	struct loop_mr *mr;
};

/**
 * struct loop_queue - a send or receive queue
 * @wqe: @size entries, the oldest at @head
 * @size: entries
 * @head: the oldest
 * @count: entries queued
 * @max_sge: SGEs per request
 */
struct loop_queue {
	struct loop_wqe *wqe;
	u32 size;
	u32 head;
	u32 count;
	u32 max_sge;
};

struct loop_ep;

/**
 * struct loop_qp - a queue pair
 * @ibqp: the core's QP
 * @ldev: the device
 * @ref: the creator's, the core's pins, the endpoint's, a queued work's
 * @lock: protects @state and the queues
 * @state: IB_QPS_INIT, RTS, SQD or ERR
 * @sq: send queue
 * @rq: receive queue
 * @inl: inline data, @max_inline bytes per send queue entry
 * @max_inline: inline bytes a request may carry
 * @access: the rights its peer has (IB_QP_ACCESS_FLAGS)
 * @ird: Read Requests of the peer it serves at once
 * @ord: READs it may have outstanding
 * @ep: the endpoint bound to it (loop_mutex)
 * @destroyed: destroy_qp was called (loop_mutex)
 * @work: carries out the send queue
 */
struct loop_qp {
	struct ib_qp ibqp;
	struct loop_dev *ldev;
	refcount_t ref;
	spinlock_t lock;	/* protects the state and the queues */
	enum ib_qp_state state;
	struct loop_queue sq;
	struct loop_queue rq;
	u8 *inl;
	u32 max_inline;
	int access;
	u16 ird;
	u16 ord;
	struct loop_ep *ep;
	bool destroyed;
	struct work_struct work;
};

/**
 * struct loop_listener - a listening id
 * @node: entry in &loop_dev.listeners
 * @ldev: the device
 * @id: the listening id
 * @addr: the address it listens on (the wildcard, or the device's)
 * @reqs: their passive endpoints
 */
struct loop_listener {
	struct list_head node;
	struct loop_dev *ldev;
	struct kiwi_cm_id *id;
	struct sockaddr_in addr;
	struct list_head reqs;
};

/**
 * enum loop_ep_state - where an endpoint's connection is
 * @LOOP_EP_REQ: passive: requested, not answered
 * @LOOP_EP_CONNECTING: active: waiting for the answer
 * @LOOP_EP_CONNECTED: connected (a graceful close may be going on)
 * @LOOP_EP_CLOSED: its last event is queued, or it never had an id
 */
enum loop_ep_state {
	LOOP_EP_REQ,
	LOOP_EP_CONNECTING,
	LOOP_EP_CONNECTED,
	LOOP_EP_CLOSED,
};

/**
 * struct loop_ev - an event queued for an endpoint's id
 * @type: the event
 * @status: its status
 * @last: the last event: the endpoint lets go of the id after it
 */
struct loop_ev {
	enum kiwi_cm_event_type type;
	int status;
	bool last;
};

/**
 * struct loop_ep - one end of a connection; every field but @ref under
 *	loop_mutex
 * @ref: its own (until its last event), its peer's, a queued work's
 * @ldev: the device
 * @dev_node: entry in &loop_dev.eps while it lives
 * @listener: passive, until answered: the listener
 * @lnode: entry in &loop_listener.reqs
 * @id: the id it reports to, with a provider reference
 * @peer: the other end, referenced
 * @qp: the QP bound to it, referenced
 * @state: see enum loop_ep_state
 * @delivered: passive: its CONNECT_REQUEST reached the core
 * @silent: an upcall failed with -ENOMEM: no more upcalls
 * @done: it let go of everything
 * @close_req: this end asked for a graceful close (QP to SQD)
 * @fin_sent: this end's half is closed
 * @fin_rcvd: the peer's half is closed
 * @ird: the IRD offered, then negotiated
 * @ord: the ORD offered, then negotiated
 * @local: local address
 * @remote: the peer's address
 * @pdata_len: bytes at @pdata
 * @pdata: the peer's private data, for the next upcall that carries some
 * @ev: queued events, the oldest at @ev_head
 * @ev_head: see @ev
 * @ev_count: see @ev
 * @work: delivers the events
 */
struct loop_ep {
	refcount_t ref;
	struct loop_dev *ldev;
	struct list_head dev_node;
	struct loop_listener *listener;
	struct list_head lnode;
	struct kiwi_cm_id *id;
	struct loop_ep *peer;
	struct loop_qp *qp;
	enum loop_ep_state state;
	bool delivered;
	bool silent;
	bool done;
	bool close_req;
	bool fin_sent;
	bool fin_rcvd;
	u16 ird;
	u16 ord;
	struct sockaddr_in local;
	struct sockaddr_in remote;
	u16 pdata_len;
	u8 pdata[KIWI_CM_MAX_PRIVATE_DATA];
	struct loop_ev ev[LOOP_EV_RING];
	u32 ev_head;
	u32 ev_count;
	struct work_struct work;
};

/**
 * struct loop_seg - a run of bytes to copy from or to
 * @mr: the MR whose tagged offsets @addr names, or NULL: @addr is a
 *	kernel virtual address
 * @addr: where it starts
 * @len: bytes
 */
struct loop_seg {
	struct loop_mr *mr;
	u64 addr;
	u32 len;
};

/**
 * struct loop_sgl - the runs of a work request's buffer
 * @seg: the runs
 * @n: their number
 * @len: their total
 */
struct loop_sgl {
	struct loop_seg seg[LOOP_MAX_SGE];
	u32 n;
	u64 len;
};

extern struct mutex loop_mutex;
extern struct workqueue_struct *loop_wq;

static inline struct loop_dev *loop_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct loop_dev, ibdev);
}

static inline struct loop_qp *loop_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct loop_qp, ibqp);
}

static inline struct loop_cq *loop_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct loop_cq, ibcq);
}

static inline struct loop_mr *loop_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct loop_mr, ibmr);
}

static inline struct loop_wqe *loop_queue_at(struct loop_queue *q, u32 i)
{
	return &q->wqe[i % q->size];
}

/* loop_dev.c */
bool loop_defect(enum loop_defect which);
struct loop_dev *loop_dev_by_addr(__be32 addr);

/* loop_cm.c */
int loop_connect(struct kiwi_cm_id *id, const struct kiwi_conn_param *param);
int loop_accept(struct kiwi_cm_id *id, const struct kiwi_conn_param *param);
int loop_reject(struct kiwi_cm_id *id, const void *pdata, u16 len);
int loop_create_listen(struct kiwi_cm_id *id, int backlog);
int loop_destroy_listen(struct kiwi_cm_id *id);
void loop_listeners_free(struct loop_dev *ldev);

/* loop_ep.c */
struct loop_ep *loop_ep_alloc(struct loop_dev *ldev);
void loop_ep_put(struct loop_ep *ep);
void loop_ep_queue(struct loop_ep *ep, enum kiwi_cm_event_type type,
		   int status, bool last);
void loop_ep_link(struct loop_ep *a, struct loop_ep *b);
void loop_ep_bind(struct loop_ep *ep, struct loop_qp *qp);
struct loop_qp *loop_qp_bindable(struct loop_dev *ldev, u32 qpn);
void loop_qp_connect(struct loop_qp *qp, u16 ird, u16 ord);
void loop_ep_unlisten(struct loop_ep *ep);
void loop_ep_release(struct loop_ep *ep);
void loop_ep_fail_connect(struct loop_ep *ep, int status);
void loop_ep_finish(struct loop_ep *ep, int status);
void loop_conn_abort(struct loop_ep *ep, int status, int peer_status);
void loop_conn_close_step(struct loop_ep *ep);
void loop_qp_cm_error(struct loop_qp *qp, bool let_close);
int loop_qp_cm_close(struct loop_qp *qp);

/* loop_verbs.c */
struct ib_cq *loop_create_cq(struct ib_device *ibdev,
			     const struct ib_cq_init_attr *attr);
void loop_destroy_cq(struct ib_cq *ibcq);
int loop_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int loop_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int loop_cq_push(struct loop_cq *cq, const struct ib_wc *wc, bool solicited);
void loop_cq_notify(struct loop_cq *cq);

/* loop_mr.c */
struct ib_mr *loop_reg_kernel_mr(struct ib_pd *pd, void *addr, size_t length,
				 u32 access);
struct ib_mr *loop_reg_sg_mr(struct ib_pd *pd, struct scatterlist *sgl,
			     unsigned int nents, u64 length, u64 iova,
			     u32 access);
void loop_dereg_mr(struct ib_mr *ibmr);
struct ib_mr *loop_alloc_mr(struct ib_pd *pd, u32 max_num_sg);
int loop_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
struct loop_mr *loop_mr_find(struct loop_dev *ldev, u32 stag);
struct loop_mr *loop_mr_fr(struct loop_dev *ldev, u32 stag);
bool loop_mr_range_ok(const struct loop_mr *mr, u64 addr, u64 len);
void loop_copy(const struct loop_sgl *dst, const struct loop_sgl *src,
	       u64 len);

/* loop_verbs.c, QPs */
struct ib_qp *loop_create_qp(struct ib_pd *pd,
			     const struct ib_qp_init_attr *init);
int loop_modify_qp(struct ib_qp *ibqp, const struct ib_qp_attr *attr,
		   int mask);
int loop_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr);
void loop_destroy_qp(struct ib_qp *ibqp);
void loop_add_ref(struct ib_qp *ibqp);
void loop_rem_ref(struct ib_qp *ibqp);
struct ib_qp *loop_get_qp(struct ib_device *ibdev, u32 qpn);
void loop_qp_get(struct loop_qp *qp);
void loop_qp_put(struct loop_qp *qp);
void loop_qp_error(struct loop_qp *qp);
void loop_qp_notify(struct loop_qp *qp);
int loop_qp_report(struct loop_qp *qp, bool send, const struct loop_wqe *wqe,
		   enum ib_wc_status status, u32 byte_len, int wc_flags,
		   u32 inv_rkey, bool solicited);

/* loop_post.c */
int loop_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int loop_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
void loop_qp_kick(struct loop_qp *qp);
void loop_qp_work(struct work_struct *work);

#endif /* _KIWI_LOOP_H */
