/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_softiw: the software RNIC's devices and verbs objects, shared by
 * the files of the module.
 */
#ifndef _KIWI_SOFTIW_H
#define _KIWI_SOFTIW_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <kiwi/fault.h>
#include <kiwi/provider.h>
#include <rdma/ib_verbs.h>

/* Limits every softiw device reports through query_device. */
#define SOFTIW_MAX_QP		16384
#define SOFTIW_MAX_QP_WR	1024
#define SOFTIW_MAX_SGE		6
#define SOFTIW_MAX_CQ		16384
#define SOFTIW_MAX_CQE		4096
#define SOFTIW_MAX_MR		4096
#define SOFTIW_MAX_PD		16384
#define SOFTIW_MAX_FR_PAGES	256	/* pages of a fast registration */

/* An STag: a 24-bit index into the device's table, an 8-bit key. */
#define SOFTIW_STAG_KEY		GENMASK(7, 0)
#define SOFTIW_STAG_INDEX_SHIFT	8
/* Every PD's local_dma_lkey: index 0 of the STag table is never an MR. */
#define SOFTIW_LOCAL_DMA_LKEY	0
/* Pieces (scatterlist entries, pages) of one MR. */
#define SOFTIW_MAX_MR_PIECES	SZ_256K
#define SOFTIW_MAX_IRD_ORD	128
/* Longest SEND message, in bytes; a RECV buffer may be larger. */
#define SOFTIW_MAX_MSG		SZ_1M
/* Most bytes of IB_SEND_INLINE data a QP may ask for per send request. */
#define SOFTIW_MAX_INLINE	256

/**
 * struct softiw_device - a kiwi device bound to one net_device
 * @kdev: the core's device; its @netdev is held (dev_hold) while attached
 * @node: entry in the list of attached devices
 * @tracker: the reference on @kdev.netdev
 * @detach_work: unregisters the device after its netdev went away
 * @qps: live QPs by number
 * @mrs: the STag table: MRs by STag index (the STag without its key byte)
 * @mr_keys: the key each index had last, which its next MR's differs from
 */
struct softiw_device {
	struct ib_device kdev;
	struct list_head node;
	netdevice_tracker tracker;
	struct work_struct detach_work;
	struct xarray qps;
	struct xarray mrs;
	u8 mr_keys[SOFTIW_MAX_MR + 1];
};

struct softiw_cep;

/**
 * enum softiw_stat - work the data path counts (stats.c)
 * @SOFTIW_STAT_SEND: SENDs transmitted
 * @SOFTIW_STAT_SEND_INV: SENDs with Invalidate transmitted
 * @SOFTIW_STAT_WRITE: RDMA WRITEs transmitted
 * @SOFTIW_STAT_READ: RDMA Read Requests transmitted
 * @SOFTIW_STAT_REG_MR: fast registrations carried out
 * @SOFTIW_STAT_LOCAL_INV: local invalidations carried out
 * @SOFTIW_STAT_REMOTE_INV: STags a peer's SEND with Invalidate invalidated
 * @SOFTIW_NR_STATS: number of counters
 */
enum softiw_stat {
	SOFTIW_STAT_SEND,
	SOFTIW_STAT_SEND_INV,
	SOFTIW_STAT_WRITE,
	SOFTIW_STAT_READ,
	SOFTIW_STAT_REG_MR,
	SOFTIW_STAT_LOCAL_INV,
	SOFTIW_STAT_REMOTE_INV,
	SOFTIW_NR_STATS
};

void softiw_stat_inc(enum softiw_stat which);
void softiw_stats_init(void);
void softiw_stats_exit(void);

/**
 * struct softiw_mr_piece - a contiguous part of an MR
 * @start: offset of its first byte in the MR
 * @page: its first page (the others follow it), or NULL for a kernel
 *	virtual range
 * @addr: the kernel virtual address of its first byte, if no @page
 * @offset: of its first byte in @page (may exceed a page)
 * @len: bytes
 */
struct softiw_mr_piece {
	u64 start;
	struct page *page;
	void *addr;
	u32 offset;
	u32 len;
};

/**
 * struct softiw_mr_chunk - bytes of an MR mapped by softiw_mr_map()
 * @addr: kernel address
 * @len: bytes
 * @kmapped: @addr is from kmap_local_page()
 */
struct softiw_mr_chunk {
	void *addr;
	u32 len;
	bool kmapped;
};

/**
 * struct softiw_mr - a memory region of kernel memory
 * @mr: the core's MR; lkey and rkey are the same STag
 * @addr: an MR of a kernel virtual range: the address of its first byte,
 *	for local SGEs; NULL for pages and scatterlists
 * @pieces: its bytes, in order of tagged offset
 * @npieces: entries at @pieces
 * @one: the piece of an MR of one piece
 * @access: IB_ACCESS_* rights
 * @users: the STag table's reference and one per remote access in
 *	progress; deregistration waits until it is zero, a fast
 *	registration until it is one
 * @invalid: invalidated (LOCAL_INV, or a peer's SEND with Invalidate),
 *	or a fast-registration MR not registered: its STag does not name
 *	it, locally or remotely
 * @stag: the STag that names it, as the STag table matches it (a fast
 *	registration changes its key; the ULP changes the core's lkey and
 *	rkey before that)
 * @iova: tagged offset of its first byte, as registered
 * @length: its bytes, as registered
 * @fast: an MR of ib_alloc_mr()
 * @pages: fast registration: the page addresses ib_map_mr_sg() mapped,
 *	for the next IB_WR_REG_MR
 * @npages: entries used at @pages
 * @max_pages: entries at @pages (and @pieces)
 * @first_off: offset of the first byte in the first page of @pages
 * @rcu: frees it after the readers of the STag table are done
 */
struct softiw_mr {
	struct ib_mr mr;
	void *addr;
	struct softiw_mr_piece *pieces;
	u32 npieces;
	struct softiw_mr_piece one;
	u32 access;
	refcount_t users;
	bool invalid;
	u32 stag;
	u64 iova;
	u64 length;
	bool fast;
	u64 *pages;
	u32 npages;
	u32 max_pages;
	u32 first_off;
	struct rcu_head rcu;
};

/**
 * struct softiw_buf - one SGE of a work request, resolved when posted
 * @addr: kernel virtual address; NULL if @stag names the memory
 * @len: bytes
 * @stag: 0, or the STag of the fast-registration MR the bytes lie in:
 *	that MR is looked up, and its key, rights and bounds checked, when
 *	the bytes are read or written (a REG_MR queued ahead registers it
 *	in send queue order)
 * @to: with @stag, the tagged offset of the first byte
 */
struct softiw_buf {
	void *addr;
	u32 len;
	u32 stag;
	u64 to;
};

/**
 * struct softiw_wqe - a send or receive work request as queued
 * @wr_id: the owner's cookie
 * @opcode: send queue: &enum ib_wr_opcode
 * @flags: send queue: IB_SEND_* flags
 * @nbuf: entries used at @buf
 * @done: send queue: transmitted (a READ: its response placed); it
 *	completes once every older request has
 * @len: total bytes at @buf
 * @rkey: RDMA WRITE and READ: the peer's STag; SEND_WITH_INV: the
 *	peer's STag to invalidate; LOCAL_INV: this end's
 * @remote_addr: RDMA WRITE and READ: the tagged offset there
 * @sink_stag: RDMA READ: the STag the Read Response is placed in, the
 *	first SGE's (0 if there is none)
 * @sink_to: RDMA READ: the tagged offset of its first byte
 * @mr: REG_MR: the MR to register
 * @access: REG_MR: the rights it gets
 * @fr_sink: RDMA READ: the sink is a fast-registration MR, placed by its
 *	STag when the response arrives (softiw_fr_named())
 * @status: 0, or how a request that failed on its own ends: it is
 *	reported so, instead of as flushed, when the QP's queues are
 *	flushed (softiw_sq_fail())
 * @buf: the local buffers, as many as the ring's max_sge
 */
struct softiw_wqe {
	u64 wr_id;
	u8 opcode;
	u8 flags;
	u8 nbuf;
	bool done;
	u32 len;
	u32 rkey;
	u64 remote_addr;
	u32 sink_stag;
	u64 sink_to;
	struct softiw_mr *mr;
	u32 access;
	bool fr_sink;
	u8 status;
	struct softiw_buf buf[];
};

/**
 * struct softiw_wq - a ring of work requests (send or receive queue),
 *	protected by its QP's lock
 * @wqe: the ring; entries are @stride bytes apart (softiw_wq_at())
 * @size: its number of entries
 * @max_sge: SGEs allowed per work request
 * @stride: bytes per entry: a request with @max_sge buffers
 * @head: index of the oldest entry
 * @count: entries queued
 * @sent: send queue: entries from @head on that the transmitter is done
 *	with (sent, or READs waiting for their response)
 */
struct softiw_wq {
	struct softiw_wqe *wqe;
	u32 size;
	u32 max_sge;
	u32 stride;
	u32 head;
	u32 count;
	u32 sent;
};

/* Entry @i of @wq's ring, counted from its start (modulo its size). */
static inline struct softiw_wqe *softiw_wq_at(const struct softiw_wq *wq,
					      u32 i)
{
	return (void *)wq->wqe + (size_t)(i % wq->size) * wq->stride;
}

/**
 * struct softiw_qp - a queue pair
 * @qp: the core's QP
 * @sdev: its device
 * @ref: the creator's reference and the connection manager's pins
 * @lock: protects @state, @access, @cep, @sq and @rq; interrupts off
 * @state: current state
 * @access: access rights given with IB_QP_ACCESS_FLAGS, none at first:
 *	the remote accesses its peer may make; the receiver reads it
 *	without the lock
 * @cep: the connection endpoint bound to the QP, or NULL
 * @sq: the send queue
 * @rq: the receive queue
 * @sq_inline: IB_SEND_INLINE data, @max_inline bytes for each entry of
 *	@sq, or NULL
 * @max_inline: the QP's max_inline_data
 * @mulpdu: established: longest ULPDU the QP sends in one FPDU
 * @ord: established: READs the QP may have outstanding (MPA's ORD); a
 *	READ posted while it is 0 is refused
 * @ird: established: the peer's Read Requests the QP serves at once
 * @tx_fpdus: FPDUs of SEND messages sent (statistics, for tests)
 * @rx_busy: receive runs that stopped on their budget (statistics)
 * @flush_pending: in ERROR, but the bound endpoint's flush has not run
 *	yet: posts still queue behind the older requests
 * @term_rcvd: a TERMINATE was received from the peer
 * @term_ctrl: its first word, host order (its cause)
 */
struct softiw_qp {
	struct ib_qp qp;
	struct softiw_device *sdev;
	refcount_t ref;
	spinlock_t lock;	/* protects state, access, cep, sq, rq */
	enum ib_qp_state state;
	u32 access;
	struct softiw_cep *cep;
	struct softiw_wq sq;
	struct softiw_wq rq;
	u8 *sq_inline;
	u32 max_inline;
	u16 mulpdu;
	u16 ord;
	u16 ird;
	u64 tx_fpdus;
	u64 rx_busy;
	bool flush_pending;
	bool term_rcvd;
	u32 term_ctrl;
};

/**
 * struct softiw_cqe - a work completion as a CQ's ring keeps it: the
 *	fields of struct ib_wc without its padding (32 bytes, not 40)
 * @wr_id: the work request's cookie
 * @qp: the QP
 * @status: enum ib_wc_status
 * @byte_len: bytes received or read
 * @invalidate_rkey: the STag a SEND with Invalidate invalidated
 * @opcode: enum ib_wc_opcode
 * @wc_flags: IB_WC_* bits
 */
struct softiw_cqe {
	u64 wr_id;
	struct ib_qp *qp;
	enum ib_wc_status status;
	u32 byte_len;
	u32 invalidate_rkey;
	u8 opcode;
	u8 wc_flags;
};

/**
 * struct softiw_cq - a completion queue: a ring of work completions
 * @cq: the core's CQ
 * @lock: protects everything below; taken with interrupts off
 * @wc: the ring, of compact completions
 * @size: its number of entries
 * @head: index of the oldest completion
 * @count: completions in the ring
 * @armed: 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED
 * @notify: the completion handler is due
 * @overflow: a completion did not fit; sticky
 */
struct softiw_cq {
	struct ib_cq cq;
	spinlock_t lock;	/* protects the ring, armed, notify, overflow */
	struct softiw_cqe *wc;
	u32 size;
	u32 head;
	u32 count;
	u8 armed;
	bool notify;
	bool overflow;
};

static inline struct softiw_device *softiw_dev(struct ib_device *kdev)
{
	return container_of(kdev, struct softiw_device, kdev);
}

static inline struct softiw_qp *softiw_qp(struct ib_qp *qp)
{
	return container_of(qp, struct softiw_qp, qp);
}

static inline struct softiw_cq *softiw_cq(struct ib_cq *cq)
{
	return container_of(cq, struct softiw_cq, cq);
}

/* device.c */
int softiw_devices_init(const char *netdevs);
void softiw_devices_exit(void);
int kiwi_softiw_attach(const char *ifname);
int kiwi_softiw_detach(const char *ifname);
int kiwi_softiw_attach_in(struct net *net, const char *ifname);
int kiwi_softiw_detach_in(struct net *net, const char *ifname);
void kiwi_softiw_flush_detach(void);

/* device.c */
extern const struct kiwi_provider_ops softiw_ops;

/* qp.c */
void softiw_qps_init(struct softiw_device *sdev);
void softiw_qps_exit(struct softiw_device *sdev);
void softiw_qp_put(struct softiw_qp *sqp);
struct ib_qp *softiw_create_qp(struct ib_pd *pd,
			       const struct ib_qp_init_attr *init);
int softiw_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr);
int softiw_modify_qp(struct ib_qp *qp, const struct ib_qp_attr *attr,
		     int mask);
void softiw_destroy_qp(struct ib_qp *qp);
void softiw_add_ref(struct ib_qp *qp);
void softiw_rem_ref(struct ib_qp *qp);
struct ib_qp *softiw_get_qp(struct ib_device *kdev, u32 qpn);
int softiw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int softiw_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
void softiw_qp_flush(struct softiw_qp *sqp);
int softiw_wq_report(struct softiw_qp *sqp, struct softiw_wq *wq,
		     u64 wr_id, u8 opcode, u8 flags, enum ib_wc_status status,
		     u32 byte_len, bool solicited, const u32 *inv_rkey);
void softiw_qp_notify(struct softiw_qp *sqp);
struct softiw_wqe *softiw_wq_peek(struct softiw_qp *sqp, struct softiw_wq *wq);
int softiw_wq_complete(struct softiw_qp *sqp, struct softiw_wq *wq,
		       enum ib_wc_status status, u32 byte_len, bool solicited,
		       const u32 *inv_rkey);
struct softiw_wqe *softiw_sq_next(struct softiw_qp *sqp);
struct softiw_wqe *softiw_sq_read(struct softiw_qp *sqp);
bool softiw_sq_has_read(struct softiw_qp *sqp);
int softiw_sq_sent(struct softiw_qp *sqp, struct softiw_wqe *wqe);
int softiw_sq_read_done(struct softiw_qp *sqp, struct softiw_wqe *wqe);
void softiw_sq_fail(struct softiw_qp *sqp, struct softiw_wqe *wqe,
		    enum ib_wc_status status);
enum ib_qp_state softiw_qp_state(struct softiw_qp *sqp);

/**
 * struct softiw_dead_peer - how a connection finds a silent peer
 * @idle_s: silence before the first keepalive probe, s
 * @intvl_s: time between probes, s
 * @timeout_ms: TCP user timeout, ms
 */
struct softiw_dead_peer {
	unsigned int idle_s;
	unsigned int intvl_s;
	unsigned int timeout_ms;
};

/**
 * struct softiw_tos - the type of service of a connection's socket
 * @sent: the IPv4 TOS or IPv6 traffic class its segments carry
 * @received: on the passive side, the one the peer's handshake carried;
 *	0 on the active side
 */
struct softiw_tos {
	u8 sent;
	u8 received;
};

enum ib_qp_state kiwi_softiw_qp_state(struct ib_qp *qp);
u16 kiwi_softiw_qp_mulpdu(struct ib_qp *qp);
u64 kiwi_softiw_qp_tx_fpdus(struct ib_qp *qp);
bool kiwi_softiw_qp_tx_buffered(struct ib_qp *qp);
bool kiwi_softiw_qp_in_setup(struct ib_qp *qp);
u64 kiwi_softiw_qp_rx_busy(struct ib_qp *qp);
bool kiwi_softiw_qp_terminate(struct ib_qp *qp, u32 *ctrl);
void kiwi_softiw_qp_depths(struct ib_qp *qp, u16 *ird, u16 *ord);
bool kiwi_softiw_qp_dead_peer(struct ib_qp *qp,
			      struct softiw_dead_peer *plan);
bool kiwi_softiw_qp_tos(struct ib_qp *qp, struct softiw_tos *tos);
void kiwi_softiw_listener_tos(struct kiwi_cm_id *id, struct softiw_tos *tos);

/* socket.c */
void kiwi_softiw_dead_peer_plan(unsigned int ms, u32 rnd,
				struct softiw_dead_peer *plan);
void kiwi_softiw_sock_release(struct socket *sock, bool abort);

/* cq.c */
struct ib_cq *softiw_create_cq(struct ib_device *kdev,
			       const struct ib_cq_init_attr *attr);
void softiw_destroy_cq(struct ib_cq *cq);
int softiw_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int softiw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);
int softiw_cq_push(struct softiw_cq *scq, const struct ib_wc *wc,
		   bool solicited);
void softiw_cq_notify(struct softiw_cq *scq);

/* mr.c */
void softiw_mrs_init(struct softiw_device *sdev);
void softiw_mrs_exit(struct softiw_device *sdev);
struct ib_pd *softiw_alloc_pd(struct ib_device *kdev);
void softiw_dealloc_pd(struct ib_pd *pd);
struct ib_mr *softiw_reg_kernel_mr(struct ib_pd *pd, void *addr,
				   size_t length, u32 access);
struct ib_mr *softiw_reg_sg_mr(struct ib_pd *pd, struct scatterlist *sgl,
			       unsigned int nents, u64 length, u64 iova,
			       u32 access);
void softiw_dereg_mr(struct ib_mr *mr);
int softiw_mr_resolve(const struct ib_pd *pd, const struct ib_sge *sge,
		      u32 access, struct softiw_buf *buf);
struct softiw_mr *softiw_mr_get(const struct ib_pd *pd, u32 stag,
				u64 to, u32 len, u32 access, u64 *off);
void softiw_mr_map(const struct softiw_mr *smr, u64 off, u32 len,
		   struct softiw_mr_chunk *chunk);
void softiw_mr_unmap(const struct softiw_mr_chunk *chunk);
void softiw_mr_copy_from(const struct softiw_mr *smr, u64 off, void *dst,
			 u32 len);
void softiw_mr_put(struct softiw_mr *smr);
int softiw_bufs_copy_out(const struct ib_pd *pd, const struct softiw_buf *b,
			 u32 off, u8 *dst, u32 len);
int softiw_mr_invalidate(const struct ib_pd *pd, u32 stag, bool remote);
struct softiw_mr *softiw_mr_alloc(struct ib_pd *pd, u32 npieces, u64 iova,
				  u64 length, u32 access);
struct ib_mr *softiw_mr_publish(struct softiw_device *sdev,
				struct softiw_mr *smr);

static inline struct softiw_mr *softiw_mr(struct ib_mr *mr)
{
	return container_of(mr, struct softiw_mr, mr);
}

/* fastreg.c */
struct ib_mr *softiw_alloc_mr(struct ib_pd *pd, u32 max_num_sg);
int softiw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset);
bool softiw_fr_named(const struct ib_pd *pd, u32 lkey);
int softiw_reg_check(const struct ib_pd *pd, const struct ib_reg_wr *wr);
void softiw_mr_fast_reg(struct softiw_mr *smr, u32 key, u32 access);
bool softiw_mr_known(const struct ib_pd *pd, u32 stag);

#endif /* _KIWI_SOFTIW_H */
