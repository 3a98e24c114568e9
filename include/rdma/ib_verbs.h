/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi verbs, in the shapes of Linux's <rdma/ib_verbs.h>: the device,
 * protection domain, queue pair, completion queue and memory region
 * objects a ULP uses, the work requests and completions it exchanges
 * with them, and the calls that dispatch to the provider.
 *
 * The types carry Linux's names, fields and layouts, so that a ULP
 * written for Linux builds against kiwi with no line changed: put kiwi's
 * include directory ahead of the kernel's (NOSTDINC_FLAGS in its Kbuild).
 * Every exported function has a kiwi_ prefix, so kiwi loads next to the
 * distribution's own ib_core; the defines and inline functions below give
 * them Linux's names. A ULP must not mix this header with Linux's.
 *
 * Objects are allocated by the provider (which embeds them in its own
 * structures) and tracked by the core, which holds a device reference
 * for each until it is destroyed. What differs from Linux, and why, is in
 * Documentation/verbs.rst.
 */
#ifndef _KIWI_IB_VERBS_H
#define _KIWI_IB_VERBS_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/if_ether.h>
#include <linux/irq_poll.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/restrack.h>

#define ib_alloc_pd(pd_device, flags)	kiwi_alloc_pd(pd_device, flags)
#define ib_dealloc_pd			kiwi_dealloc_pd
#define ib_create_qp			kiwi_create_qp
#define ib_modify_qp			kiwi_modify_qp
#define ib_destroy_qp			kiwi_destroy_qp
#define ib_create_cq			kiwi_create_cq
#define ib_destroy_cq			kiwi_destroy_cq
#define ib_alloc_cq			kiwi_alloc_cq
#define ib_free_cq			kiwi_free_cq
#define ib_process_cq_direct		kiwi_process_cq_direct
#define ib_dereg_mr			kiwi_dereg_mr
#define ib_alloc_mr			kiwi_alloc_mr
#define ib_drain_qp			kiwi_drain_qp
#define ib_drain_sq			kiwi_drain_sq
#define ib_drain_rq			kiwi_drain_rq
#define ib_map_mr_sg			kiwi_map_mr_sg
#define ib_wc_status_msg		kiwi_wc_status_msg
#define ib_event_msg			kiwi_event_msg
#define ib_register_client		kiwi_register_client
#define ib_unregister_client		kiwi_unregister_client
#define ib_set_client_data		kiwi_set_client_data
#define ib_get_client_data		kiwi_get_client_data
#define ib_cq_pool_get			kiwi_cq_pool_get
#define ib_cq_pool_put			kiwi_cq_pool_put
#define ib_register_event_handler	kiwi_register_event_handler
#define ib_unregister_event_handler	kiwi_unregister_event_handler
#define ib_query_qp			kiwi_query_qp

struct ib_cq;
struct ib_device;
struct ib_pd;
struct ib_qp;
struct ib_rwq_ind_table;
struct ib_srq;
struct ib_xrcd;
struct dentry;
struct kiwi_provider_ops;
struct net_device;
struct page;

#define IB_DEVICE_NAME_MAX	64

/**
 * enum rdma_node_type - what a device is
 * @RDMA_NODE_IB_CA: an InfiniBand channel adapter (never a kiwi device)
 * @RDMA_NODE_RNIC: an iWARP RNIC (every kiwi device)
 */
enum rdma_node_type {
	RDMA_NODE_IB_CA = 1,
	RDMA_NODE_RNIC = 4,
};

/**
 * enum ib_atomic_cap - atomic operations (iWARP has none)
 * @IB_ATOMIC_NONE: none
 */
enum ib_atomic_cap {
	IB_ATOMIC_NONE,
};

/**
 * enum ib_device_cap_flags - bits of &ib_device_attr.device_cap_flags
 * @IB_DEVICE_MEM_MGT_EXTENSIONS: fast registration and invalidation
 */
enum ib_device_cap_flags {
	IB_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21,
};

/**
 * enum ib_kernel_cap_flags - bits of &ib_device_attr.kernel_cap_flags
 * @IBK_LOCAL_DMA_LKEY: &ib_pd.local_dma_lkey needs no MR of the core's
 * @IBK_INTEGRITY_HANDOVER: never set by kiwi
 * @IBK_ON_DEMAND_PAGING: never set by kiwi
 * @IBK_SG_GAPS_REG: never set by kiwi
 */
enum ib_kernel_cap_flags {
	IBK_LOCAL_DMA_LKEY = 1 << 0,
	IBK_INTEGRITY_HANDOVER = 1 << 1,
	IBK_ON_DEMAND_PAGING = 1 << 2,
	IBK_SG_GAPS_REG = 1 << 3,
};

/**
 * struct ib_odp_caps - on-demand paging (kiwi has none: all zero)
 * @general_caps: none
 * @per_transport_caps: none
 * @per_transport_caps.rc_odp_caps: none
 * @per_transport_caps.uc_odp_caps: none
 * @per_transport_caps.ud_odp_caps: none
 * @per_transport_caps.xrc_odp_caps: none
 */
struct ib_odp_caps {
	u64 general_caps;
	struct {
		u32 rc_odp_caps;
		u32 uc_odp_caps;
		u32 ud_odp_caps;
		u32 xrc_odp_caps;
	} per_transport_caps;
};

/**
 * struct ib_device_attr - limits of a device, read once at registration
 * @fw_ver: firmware version, provider's choice
 * @sys_image_guid: the device's GUID
 * @max_mr_size: bytes one MR may cover
 * @page_size_cap: page sizes an MR may use (bit n: 2^n bytes)
 * @vendor_id: provider's choice
 * @vendor_part_id: provider's choice
 * @hw_ver: provider's choice
 * @max_qp: queue pairs
 * @max_qp_wr: work requests per queue
 * @device_cap_flags: enum ib_device_cap_flags bits
 * @kernel_cap_flags: enum ib_kernel_cap_flags bits
 * @max_send_sge: scatter/gather entries per send work request
 * @max_recv_sge: scatter/gather entries per receive work request
 * @max_sge_rd: scatter/gather entries of an RDMA READ's sink
 * @max_cq: completion queues
 * @max_cqe: entries per completion queue
 * @max_mr: memory regions
 * @max_pd: protection domains
 * @max_qp_rd_atom: inbound RDMA read depth (IRD), at most
 *	KIWI_CM_MAX_IRD_ORD
 * @max_ee_rd_atom: 0 (no end-to-end contexts)
 * @max_res_rd_atom: inbound reads of the whole device
 * @max_qp_init_rd_atom: outbound RDMA read depth (ORD), at most
 *	KIWI_CM_MAX_IRD_ORD
 * @max_ee_init_rd_atom: 0
 * @atomic_cap: IB_ATOMIC_NONE
 * @masked_atomic_cap: IB_ATOMIC_NONE
 * @max_mw: 0 (no memory windows)
 * @max_srq: 0 (no shared receive queues)
 * @max_srq_wr: 0
 * @max_srq_sge: 0
 * @max_fast_reg_page_list_len: pages one fast registration may map
 * @max_pi_fast_reg_page_list_len: 0 (no signature offload)
 * @sig_prot_cap: 0
 * @sig_guard_cap: 0
 * @odp_caps: none
 * @max_sgl_rd: 0: no preferred READ scatter/gather length
 *
 * Linux's field names and order; the fields of IB features iWARP does
 * not have are left out.
 */
struct ib_device_attr {
	u64 fw_ver;
	__be64 sys_image_guid;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_ver;
	int max_qp;
	int max_qp_wr;
	u64 device_cap_flags;
	u64 kernel_cap_flags;
	int max_send_sge;
	int max_recv_sge;
	int max_sge_rd;
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_ee_rd_atom;
	int max_res_rd_atom;
	int max_qp_init_rd_atom;
	int max_ee_init_rd_atom;
	enum ib_atomic_cap atomic_cap;
	enum ib_atomic_cap masked_atomic_cap;
	int max_mw;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	unsigned int max_fast_reg_page_list_len;
	unsigned int max_pi_fast_reg_page_list_len;
	int sig_prot_cap;
	int sig_guard_cap;
	struct ib_odp_caps odp_caps;
	u32 max_sgl_rd;
};

/**
 * enum kiwi_device_counter - per-device counters
 * @KIWI_DEV_CNT_REQUESTS: CONNECT_REQUESTs queued to a listener
 * @KIWI_DEV_CNT_ACCEPTS: successful kiwi_cm_accept() calls
 * @KIWI_DEV_CNT_REJECTS: successful kiwi_cm_reject() calls
 * @KIWI_DEV_CNT_BACKLOG_DROPS: CONNECT_REQUESTs refused, backlog full
 * @KIWI_DEV_CNT_ALLOC_DROPS: upcalls refused for want of atomic memory
 * @KIWI_DEV_CNT_VIOLATIONS: provider protocol violations
 * @KIWI_DEV_NR_COUNTERS: number of counters
 */
enum kiwi_device_counter {
	KIWI_DEV_CNT_REQUESTS,
	KIWI_DEV_CNT_ACCEPTS,
	KIWI_DEV_CNT_REJECTS,
	KIWI_DEV_CNT_BACKLOG_DROPS,
	KIWI_DEV_CNT_ALLOC_DROPS,
	KIWI_DEV_CNT_VIOLATIONS,
	KIWI_DEV_NR_COUNTERS
};

/* Device events that may wait for delivery (&ib_device.ev_ring). */
#define KIWI_DEVICE_EV_RING	8

/**
 * struct ib_device - an RNIC, as its provider registers it
 * @name: unique name, e.g. "siw0"
 * @node_type: RDMA_NODE_RNIC
 * @node_guid: unique per device; the provider's choice, or the core
 *	derives one from the name
 * @phys_port_cnt: 1
 * @num_comp_vectors: completion vectors, at least 1
 * @dma_device: the device DMA addresses are mapped for (a PCI RNIC's
 *	&pci_dev.dev), or NULL for a virtual-DMA device such as softiw,
 *	whose DMA addresses are kernel virtual addresses
 * @attrs: limits, read with @ops->query_device at registration
 * @iw_max_private_data: MPA private data bytes a ULP may send in a
 *	connect, accept or reject, over every MPA revision the device may
 *	use; at most KIWI_CM_MAX_PRIVATE_DATA (revision 2 leaves 508)
 * @netdev: the net_device the RNIC is bound to (may be NULL in tests)
 * @ops: the provider's op table
 * @dev: for dev_printk() only: named as the device, its parent
 *	@dma_device; the core never registers it with the driver model
 * @ref: core only: references (registration, ids, verbs objects)
 * @drained: core only: completed when @ref reaches zero
 * @lock: core only: protects the lists and @dying
 * @node: core only: entry in the device registry
 * @ids: core only: cm_ids bound to the device
 * @pds: core only: live PDs
 * @qps: core only: live QPs
 * @cqs: core only: live CQs
 * @mrs: core only: live MRs
 * @dying: core only: unregistration has started
 * @hidden: core only: registering, its clients not all told yet: not
 *	found by name or net_device (the registry's lock)
 * @warned: core only: a protocol violation was already WARNed about
 *	(set once, by the first to see it 0)
 * @counters: core only: see enum kiwi_device_counter
 * @debugfs: core only: the device's debugfs directory
 * @res_next: core only: the next &rdma_restrack_entry.id of each type
 * @ev_rwsem: core only: protects @ev_handlers; held for reading while
 *	they run
 * @ev_handlers: core only: the registered &struct ib_event_handler
 * @ev_ring: core only: device events raised, not yet delivered, oldest
 *	at @ev_head (under @lock)
 * @ev_head: core only: see @ev_ring
 * @ev_count: core only: events in @ev_ring
 * @ev_work: core only: delivers @ev_ring
 *
 * Embedded in the provider's device structure, zeroed, with @name,
 * @netdev, @ops and optionally @dma_device, @node_guid and
 * @num_comp_vectors set before kiwi_register_device().
 */
struct ib_device {
	char name[IB_DEVICE_NAME_MAX];
	enum rdma_node_type node_type;
	__be64 node_guid;
	u32 phys_port_cnt;
	int num_comp_vectors;
	struct device *dma_device;
	struct ib_device_attr attrs;
	u16 iw_max_private_data;
	struct net_device *netdev;
	const struct kiwi_provider_ops *ops;
	struct device dev;
	/* private: */
	refcount_t ref;
	struct completion drained;
	spinlock_t lock;	/* protects the lists and dying */
	struct list_head node;
	struct list_head ids;
	struct list_head pds;
	struct list_head qps;
	struct list_head cqs;
	struct list_head mrs;
	bool dying;
	bool hidden;
	atomic_t warned;
	atomic_long_t counters[KIWI_DEV_NR_COUNTERS];
	struct dentry *debugfs;
	u32 res_next[RDMA_RESTRACK_MAX];	/* lock */
	struct rw_semaphore ev_rwsem;		/* protects ev_handlers */
	struct list_head ev_handlers;
	u8 ev_ring[KIWI_DEVICE_EV_RING];	/* lock: enum ib_event_type */
	unsigned int ev_head;			/* lock */
	unsigned int ev_count;			/* lock */
	struct work_struct ev_work;
	struct list_head client_ctxs;	/* clients added to it (lock) */
	struct list_head client_node;	/* kiwi_client_devices */
};

/**
 * struct ib_client - a module that wants to hear of every device
 * @name: for messages
 * @add: a device appeared (or was there when the client registered);
 *	process context, may sleep. Return 0 to be associated with it,
 *	an error (-EOPNOTSUPP quietly) to ignore it. May be NULL.
 * @remove: a device the client was added to goes, before its ids hear
 *	DEVICE_REMOVAL (or the client unregisters); process context, may
 *	sleep, flush workqueues and destroy the client's ids, QPs, CQs, MRs
 *	and PDs of @ibdev. @client_data is what ib_set_client_data() stored.
 * @rename: never called (kiwi devices keep their names)
 * @node: core only: entry in the client list
 *
 * Linux's fields for IB and netlink (get_nl_info, get_net_dev_by_params)
 * are absent: no kiwi ULP has a use for them on iWARP.
 */
struct ib_client {
	const char *name;
	int (*add)(struct ib_device *ibdev);
	void (*remove)(struct ib_device *ibdev, void *client_data);
	void (*rename)(struct ib_device *ibdev, void *client_data);
	/* private: */
	struct list_head node;
};

/**
 * enum ib_event_type - asynchronous events (the ones kiwi raises)
 * @IB_EVENT_CQ_ERR: a CQ overflowed
 * @IB_EVENT_QP_FATAL: a QP went to ERROR for a local reason
 * @IB_EVENT_QP_REQ_ERR: the peer sent a request the QP could not carry out
 * @IB_EVENT_QP_ACCESS_ERR: the peer broke a memory protection rule
 * @IB_EVENT_COMM_EST: never raised by kiwi
 * @IB_EVENT_SQ_DRAINED: never raised by kiwi
 * @IB_EVENT_PATH_MIG: never raised by kiwi (IB only)
 * @IB_EVENT_PATH_MIG_ERR: never raised by kiwi (IB only)
 * @IB_EVENT_DEVICE_FATAL: the device failed
 * @IB_EVENT_PORT_ACTIVE: the port came up (softiw: its interface came up)
 * @IB_EVENT_PORT_ERR: the port went down (softiw: its interface went
 *	down)
 * @IB_EVENT_LID_CHANGE: never raised by kiwi (IB only)
 * @IB_EVENT_PKEY_CHANGE: never raised by kiwi (IB only)
 * @IB_EVENT_SM_CHANGE: never raised by kiwi (IB only)
 * @IB_EVENT_SRQ_ERR: never raised by kiwi (no SRQs)
 * @IB_EVENT_SRQ_LIMIT_REACHED: never raised by kiwi (no SRQs)
 * @IB_EVENT_QP_LAST_WQE_REACHED: never raised by kiwi (no SRQs)
 * @IB_EVENT_CLIENT_REREGISTER: never raised by kiwi (IB only)
 * @IB_EVENT_GID_CHANGE: never raised by kiwi (IB only)
 * @IB_EVENT_WQ_FATAL: never raised by kiwi
 */
enum ib_event_type {
	IB_EVENT_CQ_ERR,
	IB_EVENT_QP_FATAL,
	IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR,
	IB_EVENT_COMM_EST,
	IB_EVENT_SQ_DRAINED,
	IB_EVENT_PATH_MIG,
	IB_EVENT_PATH_MIG_ERR,
	IB_EVENT_DEVICE_FATAL,
	IB_EVENT_PORT_ACTIVE,
	IB_EVENT_PORT_ERR,
	IB_EVENT_LID_CHANGE,
	IB_EVENT_PKEY_CHANGE,
	IB_EVENT_SM_CHANGE,
	IB_EVENT_SRQ_ERR,
	IB_EVENT_SRQ_LIMIT_REACHED,
	IB_EVENT_QP_LAST_WQE_REACHED,
	IB_EVENT_CLIENT_REREGISTER,
	IB_EVENT_GID_CHANGE,
	IB_EVENT_WQ_FATAL,
};

/**
 * struct ib_event - an asynchronous event
 * @device: the device
 * @element: what it is about
 * @element.cq: IB_EVENT_CQ_ERR: the CQ
 * @element.qp: the QP events: the QP
 * @element.srq: unused
 * @element.port_num: unused
 * @event: its type
 */
struct ib_event {
	struct ib_device *device;
	union {
		struct ib_cq *cq;
		struct ib_qp *qp;
		struct ib_srq *srq;
		u32 port_num;
	} element;
	enum ib_event_type event;
};

/**
 * struct ib_event_handler - a ULP's handler of a device's events
 * @device: the device
 * @handler: hears IB_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ERR and
 *	IB_EVENT_DEVICE_FATAL of @device (&ib_event.element.port_num is 1),
 *	in process context, one event at a time
 * @list: core only: entry in the device's handler list
 *
 * Set up with INIT_IB_EVENT_HANDLER(), then ib_register_event_handler().
 */
struct ib_event_handler {
	struct ib_device *device;
	void (*handler)(struct ib_event_handler *handler,
			struct ib_event *event);
	struct list_head list;
};

#define INIT_IB_EVENT_HANDLER(_ptr, _device, _handler)		\
	do {							\
		struct ib_event_handler *__h = (_ptr);		\
								\
		__h->device = _device;				\
		__h->handler = _handler;			\
		INIT_LIST_HEAD(&__h->list);			\
	} while (0)

/**
 * enum ib_pd_flags - flags of ib_alloc_pd()
 * @IB_PD_UNSAFE_GLOBAL_RKEY: an rkey for all of memory: refused by kiwi
 */
enum ib_pd_flags {
	IB_PD_UNSAFE_GLOBAL_RKEY = 0x01,
};

/**
 * struct ib_pd - a protection domain
 * @local_dma_lkey: an lkey that names all of kernel memory by DMA
 *	address in local SGEs, without an MR; never valid remotely
 * @flags: 0 (kiwi has no IB_PD_UNSAFE_GLOBAL_RKEY)
 * @device: the device
 * @unsafe_global_rkey: 0
 * @res: its id among the device's PDs (set by the core)
 * @usecnt: core only: QPs and MRs of the PD
 * @node: core only: entry in the device's PD list
 *
 * Every QP and MR belongs to one PD; a peer reaches an MR only through a
 * QP of the MR's PD.
 */
struct ib_pd {
	u32 local_dma_lkey;
	u32 flags;
	struct ib_device *device;
	u32 unsafe_global_rkey;
	struct rdma_restrack_entry res;
	/* private: */
	atomic_t usecnt;
	struct list_head node;
};

/**
 * typedef ib_comp_handler - completion notification
 * @cq: the CQ that has new completions
 * @cq_context: the owner's cookie
 *
 * Called by the provider in any context, hard or soft irq included.
 */
typedef void (*ib_comp_handler)(struct ib_cq *cq, void *cq_context);

/**
 * enum ib_poll_context - how the CQ library runs a CQ's done callbacks
 * @IB_POLL_SOFTIRQ: in softirq context (irq_poll)
 * @IB_POLL_WORKQUEUE: in a work on a high-priority per-CPU workqueue
 * @IB_POLL_UNBOUND_WORKQUEUE: in a work on an unbound workqueue
 * @IB_POLL_LAST_POOL_TYPE: the last type ib_cq_pool_get() takes
 * @IB_POLL_DIRECT: only when the owner calls ib_process_cq_direct()
 */
enum ib_poll_context {
	IB_POLL_SOFTIRQ,
	IB_POLL_WORKQUEUE,
	IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_LAST_POOL_TYPE = IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_DIRECT,
};

/**
 * struct ib_cq - a completion queue
 * @device: the device
 * @comp_handler: called when the CQ is armed and a completion arrives
 * @event_handler: hears IB_EVENT_CQ_ERR (the CQ overflowed) in process
 *	context, never after the CQ's destruction returned; or NULL
 * @cq_context: the owner's cookie
 * @cqe: number of entries
 * @cqe_used: entries ib_cq_pool_get() handed out
 * @usecnt: core only: QPs using the CQ
 * @poll_ctx: CQ library: its poll context
 * @wc: CQ library: the batch completions are polled into
 * @iop: CQ library: IB_POLL_SOFTIRQ's poller
 * @work: CQ library: the workqueue contexts' work
 * @comp_wq: CQ library: the workqueue of @work
 * @shared: made by ib_cq_pool_get(), freed by ib_cq_pool_put()
 * @comp_vector: the completion vector asked for
 * @res: its id among the device's CQs (set by the core)
 * @node: core only: entry in the device's CQ list
 */
struct ib_cq {
	struct ib_device *device;
	ib_comp_handler comp_handler;
	void (*event_handler)(struct ib_event *event, void *cq_context);
	void *cq_context;
	int cqe;
	unsigned int cqe_used;
	atomic_t usecnt;
	enum ib_poll_context poll_ctx;
	struct ib_wc *wc;
	union {
		struct irq_poll iop;
		struct work_struct work;
	};
	struct workqueue_struct *comp_wq;
	u8 shared:1;
	unsigned int comp_vector;
	struct rdma_restrack_entry res;
	/* private: */
	struct list_head node;
	spinlock_t ev_lock;		/* protects ev_pending, ev_dead */
	bool ev_pending;
	bool ev_dead;
	struct work_struct ev_work;
};

/**
 * struct ib_cq_init_attr - what ib_create_cq() asks for
 * @cqe: entries, at least 1
 * @comp_vector: completion vector, below &ib_device.num_comp_vectors
 * @flags: 0
 */
struct ib_cq_init_attr {
	unsigned int cqe;
	u32 comp_vector;
	u32 flags;
};

/**
 * enum ib_qp_state - queue pair states, as iWARP uses them
 * @IB_QPS_RESET: never entered by kiwi
 * @IB_QPS_INIT: created, not connected (RFC 5040's Idle)
 * @IB_QPS_RTR: never entered by kiwi
 * @IB_QPS_RTS: connected, ready to send
 * @IB_QPS_SQD: graceful close in progress (Closing)
 * @IB_QPS_SQE: a TERMINATE message was sent or received (Terminate)
 * @IB_QPS_ERR: unusable; work requests are flushed (Error)
 */
enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR,
};

/**
 * enum ib_qp_attr_mask - which fields of &struct ib_qp_attr a call uses
 * @IB_QP_STATE: @qp_state
 * @IB_QP_ACCESS_FLAGS: @qp_access_flags
 */
enum ib_qp_attr_mask {
	IB_QP_STATE = 1,
	IB_QP_ACCESS_FLAGS = 1 << 3,
};

/**
 * enum ib_access_flags - access rights of a QP or MR
 * @IB_ACCESS_LOCAL_WRITE: the device may write the memory
 * @IB_ACCESS_REMOTE_WRITE: the peer may RDMA WRITE it; needs LOCAL_WRITE
 * @IB_ACCESS_REMOTE_READ: the peer may RDMA READ it
 * @IB_ACCESS_REMOTE_ATOMIC: refused (iWARP has no atomics)
 * @IB_ACCESS_MW_BIND: refused (no memory windows)
 *
 * A QP's rights say which remote accesses its peer may make at all;
 * LOCAL_WRITE means nothing on a QP. rdma_create_qp() gives a QP
 * REMOTE_WRITE and REMOTE_READ, as Linux's iw_cm does.
 */
enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = 1,
	IB_ACCESS_REMOTE_WRITE = 1 << 1,
	IB_ACCESS_REMOTE_READ = 1 << 2,
	IB_ACCESS_REMOTE_ATOMIC = 1 << 3,
	IB_ACCESS_MW_BIND = 1 << 4,
};

#define KIWI_ACCESS_ALL		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ)
#define KIWI_QP_ACCESS_IWARP	(IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ)

/**
 * struct ib_qp_cap - queue sizes of a QP
 * @max_send_wr: send queue depth
 * @max_recv_wr: receive queue depth
 * @max_send_sge: scatter/gather entries per send work request
 * @max_recv_sge: scatter/gather entries per receive work request
 * @max_inline_data: bytes of IB_SEND_INLINE data
 * @max_rdma_ctxs: RDMA READ/WRITE contexts the rw API needs (counted
 *	into the send queue)
 */
struct ib_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
	u32 max_rdma_ctxs;
};

/**
 * struct ib_qp_attr - attributes changed by ib_modify_qp()
 * @qp_state: new state (IB_QP_STATE)
 * @cur_qp_state: unused
 * @qp_access_flags: access rights (IB_QP_ACCESS_FLAGS)
 * @cap: unused by ib_modify_qp()
 * @max_rd_atomic: ORD, as rdma_init_qp_attr() reports it
 * @max_dest_rd_atomic: IRD, as rdma_init_qp_attr() reports it
 * @dest_qp_num: unused (IB only)
 */
struct ib_qp_attr {
	enum ib_qp_state qp_state;
	enum ib_qp_state cur_qp_state;
	int qp_access_flags;
	struct ib_qp_cap cap;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u32 dest_qp_num;
};

/**
 * enum ib_sig_type - which send work requests complete on the CQ
 * @IB_SIGNAL_ALL_WR: every one
 * @IB_SIGNAL_REQ_WR: those with IB_SEND_SIGNALED, and every failed one
 */
enum ib_sig_type {
	IB_SIGNAL_ALL_WR,
	IB_SIGNAL_REQ_WR,
};

/**
 * enum ib_qp_type - QP types
 * @IB_QPT_RC: reliable connected (the only one iWARP has)
 */
enum ib_qp_type {
	IB_QPT_RC = 2,
};

/**
 * struct ib_qp_init_attr - what a QP is created with
 * @event_handler: asynchronous events of the QP, or NULL; process context
 * @qp_context: the owner's cookie, given to @event_handler
 * @send_cq: CQ for send completions
 * @recv_cq: CQ for receive completions
 * @srq: must be NULL (no shared receive queues)
 * @xrcd: must be NULL (no XRC, an InfiniBand feature)
 * @cap: queue sizes; on return, what the QP got
 * @sq_sig_type: which sends complete
 * @qp_type: IB_QPT_RC
 * @create_flags: must be 0
 * @port_num: unused (one port)
 * @rwq_ind_tbl: must be NULL (no receive work queue indirection)
 * @source_qpn: must be 0 (no special QPs)
 */
struct ib_qp_init_attr {
	void (*event_handler)(struct ib_event *event, void *qp_context);
	void *qp_context;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct ib_srq *srq;
	struct ib_xrcd *xrcd;
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	enum ib_qp_type qp_type;
	u32 create_flags;
	u32 port_num;
	struct ib_rwq_ind_table *rwq_ind_tbl;
	u32 source_qpn;
};

/**
 * struct ib_qp - a queue pair
 * @device: the device
 * @pd: its protection domain
 * @send_cq: CQ for send completions
 * @recv_cq: CQ for receive completions
 * @srq: NULL
 * @event_handler: the owner's asynchronous event handler, or NULL
 * @qp_context: the owner's cookie
 * @qp_num: number, unique on the device (rdma_conn_param.qp_num)
 * @max_write_sge: send SGEs an RDMA WRITE may have
 * @max_read_sge: SGEs an RDMA READ's sink may have
 * @qp_type: IB_QPT_RC
 * @port: 1
 * @sq_sig_type: which sends complete
 * @mr_lock: protects @rdma_mrs, @sig_mrs and @mrs_used (ib_mr_pool_*)
 * @mrs_used: MRs taken from the QP's pools
 * @rdma_mrs: the MR pool of the rw API, or a ULP's (ib_mr_pool_init())
 * @sig_mrs: a ULP's second MR pool (Linux's integrity MRs; kiwi has none)
 * @res: its id among the device's QPs (set by the core)
 * @node: core only: entry in the device's QP list
 *
 * Embedded in, allocated and freed by the provider. The provider sets
 * @qp_num; the core sets the rest.
 */
struct ib_qp {
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct ib_srq *srq;
	void (*event_handler)(struct ib_event *event, void *qp_context);
	void *qp_context;
	u32 qp_num;
	u32 max_write_sge;
	u32 max_read_sge;
	enum ib_qp_type qp_type;
	u32 port;
	enum ib_sig_type sq_sig_type;
	spinlock_t mr_lock;	/* protects the MR pools and mrs_used */
	int mrs_used;
	struct list_head rdma_mrs;
	struct list_head sig_mrs;
	struct rdma_restrack_entry res;
	/* private: */
	struct list_head node;
	spinlock_t ev_lock;		/* protects ev_pending, ev_dead */
	unsigned long ev_pending;	/* BIT(enum ib_event_type) */
	bool ev_dead;
	struct work_struct ev_work;
};

/**
 * enum ib_mr_type - kinds of MR
 * @IB_MR_TYPE_MEM_REG: fast-registered memory
 * @IB_MR_TYPE_SG_GAPS: refused
 * @IB_MR_TYPE_DM: refused
 * @IB_MR_TYPE_USER: refused (no user memory)
 * @IB_MR_TYPE_DMA: refused
 * @IB_MR_TYPE_INTEGRITY: refused
 */
enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
	IB_MR_TYPE_SG_GAPS,
	IB_MR_TYPE_DM,
	IB_MR_TYPE_USER,
	IB_MR_TYPE_DMA,
	IB_MR_TYPE_INTEGRITY,
};

/**
 * struct ib_mr - a memory region
 * @device: the device
 * @pd: its protection domain
 * @lkey: local key
 * @rkey: remote key
 * @iova: address of the first byte as the peer names it (the tagged
 *	offset): the kernel address for kiwi_reg_kernel_mr(), the caller's
 *	choice for kiwi_reg_page_mr() and kiwi_reg_sg_mr()
 * @length: bytes
 * @page_size: bytes of a page of the MR (PAGE_SIZE)
 * @type: IB_MR_TYPE_MEM_REG
 * @need_inval: for the ULP's own use (Linux's ULPs track invalidation)
 * @qp_entry: entry in an MR pool (ib_mr_pool_get() takes it off)
 * @sig_attrs: always NULL (no integrity MRs)
 * @res: its id among the device's MRs (set by the core)
 * @node: core only: entry in the device's MR list
 */
struct ib_mr {
	struct ib_device *device;
	struct ib_pd *pd;
	u32 lkey;
	u32 rkey;
	u64 iova;
	u64 length;
	unsigned int page_size;
	enum ib_mr_type type;
	bool need_inval;
	struct list_head qp_entry;
	struct ib_sig_attrs *sig_attrs;
	struct rdma_restrack_entry res;
	/* private: */
	struct list_head node;
};

/**
 * struct ib_sge - a scatter/gather element
 * @addr: with @lkey an MR's: an address in the MR's iova space; with
 *	&ib_pd.local_dma_lkey: a DMA address (ib_dma_map_single() and kin)
 * @length: bytes
 * @lkey: key of the MR, or the PD's local_dma_lkey
 */
struct ib_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/**
 * struct ib_cqe - a completion's callback, for the CQ library
 * @done: called with the CQ and the completion, in the CQ's poll context
 *
 * ULPs embed it in their request structures and find those from it with
 * container_of().
 */
struct ib_cqe {
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
};

/**
 * enum ib_wr_opcode - send queue work request types
 * @IB_WR_RDMA_WRITE: write sg_list to the peer's &ib_rdma_wr.remote_addr
 *	of its &ib_rdma_wr.rkey
 * @IB_WR_RDMA_WRITE_WITH_IMM: refused (iWARP has no immediate data)
 * @IB_WR_SEND: send sg_list
 * @IB_WR_SEND_WITH_IMM: refused
 * @IB_WR_RDMA_READ: read the peer's remote_addr of rkey into sg_list,
 *	whose memory must be locally writable
 * @IB_WR_ATOMIC_CMP_AND_SWP: refused (iWARP has no atomics)
 * @IB_WR_ATOMIC_FETCH_AND_ADD: refused
 * @IB_WR_LOCAL_INV: invalidate this device's STag ex.invalidate_rkey, in
 *	send queue order; no SGEs
 * @IB_WR_BIND_MW: refused
 * @IB_WR_SEND_WITH_INV: send sg_list; the peer invalidates its STag
 *	ex.invalidate_rkey (one of its MRs with remote access) on receipt
 * @IB_WR_LSO: refused
 * @IB_WR_RDMA_READ_WITH_INV: refused
 * @IB_WR_MASKED_ATOMIC_CMP_AND_SWP: refused
 * @IB_WR_MASKED_ATOMIC_FETCH_AND_ADD: refused
 * @IB_WR_REG_MR: fast registration: give the MR of a &struct ib_reg_wr
 *	the pages ib_map_mr_sg() mapped, its key and rights, in send queue
 *	order; no SGEs
 * @IB_WR_REG_MR_INTEGRITY: refused (no integrity MRs)
 */
enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = 0,
	IB_WR_RDMA_WRITE_WITH_IMM = 1,
	IB_WR_SEND = 2,
	IB_WR_SEND_WITH_IMM = 3,
	IB_WR_RDMA_READ = 4,
	IB_WR_ATOMIC_CMP_AND_SWP = 5,
	IB_WR_ATOMIC_FETCH_AND_ADD = 6,
	IB_WR_LOCAL_INV = 7,
	IB_WR_BIND_MW = 8,
	IB_WR_SEND_WITH_INV = 9,
	IB_WR_LSO = 10,
	IB_WR_RDMA_READ_WITH_INV = 11,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP = 12,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD = 13,
	IB_WR_REG_MR = 0x20,
	IB_WR_REG_MR_INTEGRITY,
};

/**
 * enum ib_send_flags - flags of a send work request
 * @IB_SEND_FENCE: start only once every earlier RDMA READ completed
 *	(RFC 5040's Read Fence)
 * @IB_SEND_SIGNALED: complete it on the CQ
 * @IB_SEND_SOLICITED: SEND with Solicited Event
 * @IB_SEND_INLINE: a SEND or RDMA WRITE whose data is copied when posted,
 *	up to the QP's &ib_qp_cap.max_inline_data; the SGEs' lkeys are
 *	not used
 * @IB_SEND_IP_CSUM: refused
 */
enum ib_send_flags {
	IB_SEND_FENCE = 1,
	IB_SEND_SIGNALED = 1 << 1,
	IB_SEND_SOLICITED = 1 << 2,
	IB_SEND_INLINE = 1 << 3,
	IB_SEND_IP_CSUM = 1 << 4,
};

/**
 * struct ib_send_wr - a send queue work request
 * @next: next in the chain, or NULL
 * @wr_id: the owner's cookie, returned in the completion
 * @wr_cqe: for the CQ library: the completion's callback
 * @sg_list: local buffers
 * @num_sge: entries at @sg_list
 * @opcode: what to do
 * @send_flags: enum ib_send_flags bits
 * @ex: opcode-dependent
 * @ex.imm_data: refused
 * @ex.invalidate_rkey: IB_WR_SEND_WITH_INV: the peer's STag to
 *	invalidate; IB_WR_LOCAL_INV: this end's
 *
 * RDMA READ and WRITE are the @wr of a &struct ib_rdma_wr.
 */
struct ib_send_wr {
	struct ib_send_wr *next;
	union {
		u64 wr_id;
		struct ib_cqe *wr_cqe;
	};
	struct ib_sge *sg_list;
	int num_sge;
	enum ib_wr_opcode opcode;
	int send_flags;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
};

/**
 * struct ib_rdma_wr - an RDMA READ or WRITE work request
 * @wr: the work request; its opcode says which
 * @remote_addr: the peer's address (its MR's iova space)
 * @rkey: the peer's key, registered with IB_ACCESS_REMOTE_WRITE (write)
 *	or IB_ACCESS_REMOTE_READ (read)
 */
struct ib_rdma_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u32 rkey;
};

/**
 * rdma_wr() - the RDMA work request a send work request is part of
 * @wr: an IB_WR_RDMA_READ or IB_WR_RDMA_WRITE request
 *
 * Context: any context.
 * Return: the &struct ib_rdma_wr that embeds @wr.
 */
static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

/**
 * struct ib_reg_wr - a fast registration work request (IB_WR_REG_MR)
 * @wr: the work request
 * @mr: an MR of ib_alloc_mr(), mapped by ib_map_mr_sg(), invalid
 * @key: the key byte its STag gets (ib_update_fast_reg_key())
 * @access: IB_ACCESS_* rights it gets
 */
struct ib_reg_wr {
	struct ib_send_wr wr;
	struct ib_mr *mr;
	u32 key;
	int access;
};

/**
 * reg_wr() - the registration work request a send work request is part of
 * @wr: an IB_WR_REG_MR request
 *
 * Context: any context.
 * Return: the &struct ib_reg_wr that embeds @wr.
 */
static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

/**
 * struct ib_recv_wr - a receive queue work request
 * @next: next in the chain, or NULL
 * @wr_id: the owner's cookie, returned in the completion
 * @wr_cqe: for the CQ library: the completion's callback
 * @sg_list: buffers
 * @num_sge: entries at @sg_list
 */
struct ib_recv_wr {
	struct ib_recv_wr *next;
	union {
		u64 wr_id;
		struct ib_cqe *wr_cqe;
	};
	struct ib_sge *sg_list;
	int num_sge;
};

/**
 * enum ib_wc_status - how a work request ended
 * @IB_WC_SUCCESS: it did what it asked
 * @IB_WC_LOC_LEN_ERR: a RECV too small for the message that arrived, or
 *	a message longer than the QP carries
 * @IB_WC_LOC_QP_OP_ERR: the QP could not carry out the request
 * @IB_WC_LOC_EEC_OP_ERR: never reported by kiwi
 * @IB_WC_LOC_PROT_ERR: an SGE names memory its lkey does not cover
 * @IB_WC_WR_FLUSH_ERR: flushed: the QP went to ERROR first
 * @IB_WC_MW_BIND_ERR: never reported by kiwi
 * @IB_WC_BAD_RESP_ERR: never reported by kiwi
 * @IB_WC_LOC_ACCESS_ERR: the local memory lacked the access needed
 * @IB_WC_REM_INV_REQ_ERR: the peer found the request invalid
 * @IB_WC_REM_ACCESS_ERR: the peer refused the remote access
 * @IB_WC_REM_OP_ERR: the peer could not carry out the request
 * @IB_WC_RETRY_EXC_ERR: the connection failed under the request
 * @IB_WC_RNR_RETRY_EXC_ERR: never reported by kiwi
 * @IB_WC_LOC_RDD_VIOL_ERR: never reported by kiwi
 * @IB_WC_REM_INV_RD_REQ_ERR: never reported by kiwi
 * @IB_WC_REM_ABORT_ERR: the peer terminated the connection
 * @IB_WC_INV_EECN_ERR: never reported by kiwi
 * @IB_WC_INV_EEC_STATE_ERR: never reported by kiwi
 * @IB_WC_FATAL_ERR: the CQ overflowed or the device failed
 * @IB_WC_RESP_TIMEOUT_ERR: never reported by kiwi
 * @IB_WC_GENERAL_ERR: any other failure
 */
enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR,
	IB_WC_REM_ABORT_ERR,
	IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR,
	IB_WC_FATAL_ERR,
	IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR
};

/**
 * enum ib_wc_opcode - what a completion completes
 * @IB_WC_SEND: a send
 * @IB_WC_RDMA_WRITE: an RDMA write
 * @IB_WC_RDMA_READ: an RDMA read
 * @IB_WC_COMP_SWAP: never reported by kiwi
 * @IB_WC_FETCH_ADD: never reported by kiwi
 * @IB_WC_BIND_MW: never reported by kiwi
 * @IB_WC_LOCAL_INV: a local invalidation
 * @IB_WC_LSO: never reported by kiwi
 * @IB_WC_REG_MR: a fast registration
 * @IB_WC_RECV: a receive; a ULP may test (opcode & IB_WC_RECV)
 */
enum ib_wc_opcode {
	IB_WC_SEND = 0,
	IB_WC_RDMA_WRITE = 1,
	IB_WC_RDMA_READ = 2,
	IB_WC_COMP_SWAP = 3,
	IB_WC_FETCH_ADD = 4,
	IB_WC_BIND_MW = 5,
	IB_WC_LOCAL_INV = 6,
	IB_WC_LSO = 7,
	IB_WC_REG_MR = 8,
	IB_WC_RECV = 1 << 7,
};

/**
 * enum ib_wc_flags - bits of &ib_wc.wc_flags
 * @IB_WC_WITH_IMM: never set by kiwi
 * @IB_WC_WITH_INVALIDATE: the SEND invalidated ex.invalidate_rkey
 */
enum ib_wc_flags {
	IB_WC_WITH_IMM = 1 << 1,
	IB_WC_WITH_INVALIDATE = 1 << 2,
};

/**
 * struct ib_wc - a work completion
 * @wr_id: the work request's cookie
 * @wr_cqe: the work request's callback (CQ library)
 * @status: how it ended; a flushed request has IB_WC_WR_FLUSH_ERR
 * @opcode: what completed; valid only with IB_WC_SUCCESS
 * @vendor_err: the provider's own reason, or 0
 * @byte_len: bytes received (IB_WC_RECV) or read (IB_WC_RDMA_READ)
 * @qp: the QP
 * @ex: opcode-dependent
 * @ex.imm_data: never set by kiwi
 * @ex.invalidate_rkey: IB_WC_WITH_INVALIDATE: the STag of this end the
 *	peer's SEND invalidated
 * @src_qp: 0
 * @slid: 0
 * @wc_flags: enum ib_wc_flags bits
 * @pkey_index: 0
 * @sl: 0 (InfiniBand and RoCE addressing, as the fields below)
 * @dlid_path_bits: 0
 * @port_num: 0
 * @smac: zero
 * @vlan_id: 0
 * @network_hdr_type: 0
 *
 * Linux's layout, field for field.
 */
struct ib_wc {
	union {
		u64 wr_id;
		struct ib_cqe *wr_cqe;
	};
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 vendor_err;
	u32 byte_len;
	struct ib_qp *qp;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	u32 src_qp;
	u32 slid;
	int wc_flags;
	u16 pkey_index;
	u8 sl;
	u8 dlid_path_bits;
	u32 port_num;
	u8 smac[ETH_ALEN];
	u16 vlan_id;
	u8 network_hdr_type;
};

/**
 * enum ib_cq_notify_flags - when to call a CQ's completion handler
 * @IB_CQ_SOLICITED: on the next solicited (or failed) completion
 * @IB_CQ_NEXT_COMP: on the next completion
 * @IB_CQ_SOLICITED_MASK: the bits that choose between the two
 * @IB_CQ_REPORT_MISSED_EVENTS: return 1 if completions arrived that the
 *	arming will not be called for (poll again), else 0
 */
enum ib_cq_notify_flags {
	IB_CQ_SOLICITED = 1 << 0,
	IB_CQ_NEXT_COMP = 1 << 1,
	IB_CQ_SOLICITED_MASK = IB_CQ_SOLICITED | IB_CQ_NEXT_COMP,
	IB_CQ_REPORT_MISSED_EVENTS = 1 << 2,
};

int kiwi_query_device(struct ib_device *dev, struct ib_device_attr *attr);
struct ib_pd *kiwi_alloc_pd(struct ib_device *dev, unsigned int flags);
void kiwi_dealloc_pd(struct ib_pd *pd);
struct ib_qp *kiwi_create_qp(struct ib_pd *pd,
			     struct ib_qp_init_attr *init);
int kiwi_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask);
int kiwi_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init);
int kiwi_destroy_qp(struct ib_qp *qp);
int kiwi_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int kiwi_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
struct ib_cq *kiwi_create_cq(struct ib_device *dev,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr);
void kiwi_destroy_cq(struct ib_cq *cq);
int kiwi_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int kiwi_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);
struct ib_cq *kiwi_alloc_cq(struct ib_device *dev, void *private,
			    int nr_cqe, int comp_vector,
			    enum ib_poll_context poll_ctx);
void kiwi_free_cq(struct ib_cq *cq);
int kiwi_process_cq_direct(struct ib_cq *cq, int budget);
void kiwi_drain_qp(struct ib_qp *qp);
void kiwi_drain_sq(struct ib_qp *qp);
void kiwi_drain_rq(struct ib_qp *qp);
struct ib_mr *kiwi_reg_kernel_mr(struct ib_pd *pd, void *addr,
				 size_t length, u32 access);
struct ib_mr *kiwi_reg_page_mr(struct ib_pd *pd, struct page **pages,
			       unsigned int npages, unsigned int offset,
			       u64 length, u64 iova, u32 access);
struct ib_mr *kiwi_reg_sg_mr(struct ib_pd *pd, struct scatterlist *sgl,
			     unsigned int nents, u64 iova, u32 access);
int kiwi_dereg_mr(struct ib_mr *mr);
struct ib_mr *kiwi_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			    u32 max_num_sg);
int kiwi_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset, unsigned int page_size);
int kiwi_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		     unsigned int *sg_offset, unsigned int max_pages,
		     int (*set_page)(struct ib_mr *mr, u64 addr));
const char *kiwi_wc_status_msg(enum ib_wc_status status);
const char *kiwi_event_msg(enum ib_event_type event);

struct ib_cq *kiwi_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			       int comp_vector_hint,
			       enum ib_poll_context poll_ctx);
void kiwi_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe);

int kiwi_register_client(struct ib_client *client);
void kiwi_unregister_client(struct ib_client *client);
void kiwi_set_client_data(struct ib_device *dev, struct ib_client *client,
			  void *data);
void *kiwi_get_client_data(struct ib_device *dev, struct ib_client *client);
void kiwi_register_event_handler(struct ib_event_handler *handler);
void kiwi_unregister_event_handler(struct ib_event_handler *handler);

/**
 * ib_post_send() - queue send work requests
 * @qp: the QP
 * @wr: the chain
 * @bad_wr: on failure, the first request not queued; may be NULL
 *
 * Context: any context; does not sleep.
 * Return: 0, or a negative errno: the requests before *@bad_wr are queued.
 */
static inline int ib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad_wr)
{
	const struct ib_send_wr *dummy;

	return kiwi_post_send(qp, wr, bad_wr ? : &dummy);
}

/**
 * ib_post_recv() - queue receive work requests
 * @qp: the QP
 * @wr: the chain
 * @bad_wr: on failure, the first request not queued; may be NULL
 *
 * Context: any context; does not sleep.
 * Return: 0, or a negative errno: the requests before *@bad_wr are queued.
 */
static inline int ib_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	const struct ib_recv_wr *dummy;

	return kiwi_post_recv(qp, wr, bad_wr ? : &dummy);
}

/**
 * ib_poll_cq() - take completions
 * @cq: the CQ
 * @num_entries: room at @wc
 * @wc: where to put them
 *
 * Context: any context; does not sleep.
 * Return: completions taken, or a negative errno.
 */
static inline int ib_poll_cq(struct ib_cq *cq, int num_entries,
			     struct ib_wc *wc)
{
	return kiwi_poll_cq(cq, num_entries, wc);
}

/**
 * ib_req_notify_cq() - arm a CQ's completion handler
 * @cq: the CQ
 * @flags: IB_CQ_NEXT_COMP or IB_CQ_SOLICITED, with
 *	IB_CQ_REPORT_MISSED_EVENTS if wanted
 *
 * Context: any context; does not sleep.
 * Return: 0; 1 if IB_CQ_REPORT_MISSED_EVENTS was given and completions
 * are waiting; or a negative errno.
 */
static inline int ib_req_notify_cq(struct ib_cq *cq,
				   enum ib_cq_notify_flags flags)
{
	return kiwi_req_notify_cq(cq, flags);
}

/**
 * ib_alloc_cq_any() - a CQ of the CQ library on any completion vector
 * @dev: the device
 * @private: the owner's cookie (&ib_cq.cq_context)
 * @nr_cqe: entries
 * @poll_ctx: how its callbacks run
 *
 * Context: process context; may sleep.
 * Return: the CQ or an ERR_PTR().
 */
static inline struct ib_cq *ib_alloc_cq_any(struct ib_device *dev,
					    void *private, int nr_cqe,
					    enum ib_poll_context poll_ctx)
{
	return kiwi_alloc_cq(dev, private, nr_cqe, -1, poll_ctx);
}

/**
 * ib_update_fast_reg_key() - set the key byte of an MR's lkey and rkey
 * @mr: an MR of ib_alloc_mr(), invalid
 * @newkey: the key; the next IB_WR_REG_MR of @mr gives its STag this key
 *
 * Context: any context.
 */
static inline void ib_update_fast_reg_key(struct ib_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & 0xffffff00) | newkey;
	mr->rkey = (mr->rkey & 0xffffff00) | newkey;
}

/**
 * ib_inc_rkey() - the next key byte of an STag
 * @rkey: the STag
 *
 * Context: any context.
 * Return: @rkey with its key byte incremented.
 */
static inline u32 ib_inc_rkey(u32 rkey)
{
	const u32 mask = 0x000000ff;

	return ((rkey + 1) & mask) | (rkey & ~mask);
}

/**
 * rdma_protocol_iwarp() - does a port speak iWARP?
 * @dev: the device
 * @port: its port
 *
 * Context: any context.
 * Return: true: every kiwi device is an iWARP RNIC.
 */
static inline bool rdma_protocol_iwarp(const struct ib_device *dev, u32 port)
{
	return true;
}

/**
 * rdma_protocol_ib() - does a port speak InfiniBand?
 * @dev: the device
 * @port: its port
 *
 * Context: any context.
 * Return: false.
 */
static inline bool rdma_protocol_ib(const struct ib_device *dev, u32 port)
{
	return false;
}

/**
 * rdma_protocol_roce() - does a port speak RoCE?
 * @dev: the device
 * @port: its port
 *
 * Context: any context.
 * Return: false.
 */
static inline bool rdma_protocol_roce(const struct ib_device *dev, u32 port)
{
	return false;
}

/**
 * rdma_ib_or_roce() - is a port InfiniBand or RoCE?
 * @dev: the device
 * @port: its port
 *
 * Context: any context.
 * Return: false.
 */
static inline bool rdma_ib_or_roce(const struct ib_device *dev, u32 port)
{
	return false;
}

/**
 * rdma_cap_read_inv() - may an RDMA READ invalidate its sink's MR?
 * @dev: the device
 * @port: its port
 *
 * Context: any context.
 * Return: false: kiwi has no IB_WR_RDMA_READ_WITH_INV.
 */
static inline bool rdma_cap_read_inv(struct ib_device *dev, u32 port)
{
	return false;
}

/**
 * rdma_cap_read_multi_sge() - may an RDMA READ's sink have several SGEs?
 * @dev: the device
 * @port: its port
 *
 * Context: any context.
 * Return: false, as for every iWARP device.
 */
static inline bool rdma_cap_read_multi_sge(struct ib_device *dev, u32 port)
{
	return false;
}

/**
 * ib_uses_virt_dma() - are the device's DMA addresses virtual addresses?
 * @dev: the device
 *
 * Context: any context.
 * Return: true if the device has no &ib_device.dma_device.
 */
static inline bool ib_uses_virt_dma(struct ib_device *dev)
{
	return !dev->dma_device;
}

/**
 * ib_dma_mapping_error() - did a mapping fail?
 * @dev: the device
 * @dma_addr: what the mapping returned
 *
 * Context: any context.
 * Return: non-zero if it failed.
 */
static inline int ib_dma_mapping_error(struct ib_device *dev, u64 dma_addr)
{
	if (ib_uses_virt_dma(dev))
		return 0;
	return dma_mapping_error(dev->dma_device, dma_addr);
}

/**
 * ib_dma_map_single() - map a kernel virtual buffer for the device
 * @dev: the device
 * @cpu_addr: the buffer
 * @size: its bytes
 * @direction: DMA direction
 *
 * Context: any context.
 * Return: its DMA address; check it with ib_dma_mapping_error().
 */
static inline u64 ib_dma_map_single(struct ib_device *dev, void *cpu_addr,
				    size_t size,
				    enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)cpu_addr;
	return dma_map_single(dev->dma_device, cpu_addr, size, direction);
}

/**
 * ib_dma_unmap_single() - undo ib_dma_map_single()
 * @dev: the device
 * @addr: the DMA address
 * @size: its bytes
 * @direction: DMA direction
 *
 * Context: any context.
 */
static inline void ib_dma_unmap_single(struct ib_device *dev, u64 addr,
				       size_t size,
				       enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_single(dev->dma_device, addr, size, direction);
}

/**
 * ib_dma_map_page() - map part of a page for the device
 * @dev: the device
 * @page: the page
 * @offset: first byte in it
 * @size: bytes
 * @direction: DMA direction
 *
 * Context: any context.
 * Return: its DMA address; check it with ib_dma_mapping_error().
 */
static inline u64 ib_dma_map_page(struct ib_device *dev, struct page *page,
				  unsigned long offset, size_t size,
				  enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)(page_address(page) + offset);
	return dma_map_page(dev->dma_device, page, offset, size, direction);
}

/**
 * ib_dma_unmap_page() - undo ib_dma_map_page()
 * @dev: the device
 * @addr: the DMA address
 * @size: its bytes
 * @direction: DMA direction
 *
 * Context: any context.
 */
static inline void ib_dma_unmap_page(struct ib_device *dev, u64 addr,
				     size_t size,
				     enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_page(dev->dma_device, addr, size, direction);
}

/**
 * ib_dma_map_sg() - map a scatterlist for the device
 * @dev: the device
 * @sg: its first entry
 * @nents: entries
 * @direction: DMA direction
 *
 * For a virtual-DMA device each entry's DMA address is its kernel
 * address, and no entry merges with another.
 *
 * Context: any context.
 * Return: the entries mapped; 0 on failure.
 */
static inline int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sg,
				int nents, enum dma_data_direction direction)
{
	struct scatterlist *s;
	int i;

	if (!ib_uses_virt_dma(dev))
		return dma_map_sg(dev->dma_device, sg, nents, direction);
	for_each_sg(sg, s, nents, i) {
		sg_dma_address(s) = (uintptr_t)sg_virt(s);
		sg_dma_len(s) = s->length;
	}
	return nents;
}

/**
 * ib_dma_unmap_sg() - undo ib_dma_map_sg()
 * @dev: the device
 * @sg: its first entry
 * @nents: the entries given to ib_dma_map_sg()
 * @direction: DMA direction
 *
 * Context: any context.
 */
static inline void ib_dma_unmap_sg(struct ib_device *dev,
				   struct scatterlist *sg, int nents,
				   enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_sg(dev->dma_device, sg, nents, direction);
}

/**
 * ib_dma_sync_single_for_cpu() - give a mapped buffer to the CPU
 * @dev: the device
 * @addr: the DMA address
 * @size: bytes
 * @dir: DMA direction
 *
 * Context: any context.
 */
static inline void ib_dma_sync_single_for_cpu(struct ib_device *dev,
					      u64 addr, size_t size,
					      enum dma_data_direction dir)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_single_for_cpu(dev->dma_device, addr, size, dir);
}

/**
 * ib_dma_sync_single_for_device() - give a mapped buffer to the device
 * @dev: the device
 * @addr: the DMA address
 * @size: bytes
 * @dir: DMA direction
 *
 * Context: any context.
 */
static inline void ib_dma_sync_single_for_device(struct ib_device *dev,
						 u64 addr, size_t size,
						 enum dma_data_direction dir)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_single_for_device(dev->dma_device, addr, size, dir);
}

/**
 * ib_dma_pci_p2p_dma_supported() - may the device DMA to PCI peer memory?
 * @dev: the device
 *
 * Context: any context.
 * Return: false: kiwi devices do not do peer-to-peer DMA.
 */
static inline bool ib_dma_pci_p2p_dma_supported(struct ib_device *dev)
{
	return false;
}

/**
 * ibdev_to_node() - the NUMA node of a device
 * @ibdev: the device
 *
 * Context: any context.
 * Return: the node of its @dma_device, or NUMA_NO_NODE.
 */
static inline int ibdev_to_node(struct ib_device *ibdev)
{
	return ibdev->dma_device ? dev_to_node(ibdev->dma_device) :
				   NUMA_NO_NODE;
}

#include <kiwi/verbs_absent.h>

#endif /* _KIWI_IB_VERBS_H */
