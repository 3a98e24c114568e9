/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi provider interface: what an RNIC driver implements and calls.
 * Documentation/provider-guide.rst walks through writing a provider.
 */
#ifndef _KIWI_PROVIDER_H
#define _KIWI_PROVIDER_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <kiwi/iw_cm.h>
#include <kiwi/verbs.h>

struct dentry;
struct net_device;

/**
 * struct kiwi_provider_ops - what a provider implements
 * @iw_connect: start an active connection to @id->remote_addr for the QP
 *	the core already pinned, from @id->local_addr if its family is set:
 *	its address unless the wildcard, its port unless 0 (then a port of
 *	the provider's choice, free for this peer); answer later with a
 *	CONNECT_REPLY upcall, carrying in local_addr, on success, the address
 *	and port the connection has. Returns 0 or a negative errno (then no
 *	upcall may follow).
 * @iw_accept: accept the connection @id->provider_data stands for; answer
 *	later with ESTABLISHED, or CLOSE(status < 0) if MPA fails.
 *	Returns 0 or a negative errno. After an error no upcall may follow
 *	and the request is over: the id goes IDLE and the core never calls
 *	@iw_reject for it, so the provider closes the connection and lets go
 *	of what @id->provider_data stood for before it returns.
 * @iw_reject: refuse that connection, sending @pdata.
 *	Returns 0 or a negative errno.
 * @iw_create_listen: listen on @id->local_addr.
 *	Returns 0 or a negative errno.
 * @iw_destroy_listen: stop listening; no CONNECT_REQUEST upcall for @id
 *	may start after it returns. Returns 0 or a negative errno.
 * @iw_add_ref: take a reference on @qp. Any context.
 * @iw_rem_ref: drop a reference on @qp, freeing it on the last one.
 *	Process context; never called under a spinlock.
 * @iw_get_qp: find the QP numbered @qpn, without taking a reference.
 *	Must not sleep. Returns the QP or NULL.
 * @query_device: fill @attr. Returns 0 or a negative errno.
 * @create_qp: allocate a QP (holding one reference, the creator's) and
 *	set its qpn. Returns the QP or an ERR_PTR().
 * @modify_qp: change the attributes in @mask. Returns 0 or a negative errno.
 * @destroy_qp: flush the QP and drop the creator's reference.
 * @post_send: queue send work requests. Any context, must not sleep.
 *	Returns 0, or a negative errno with *@bad_wr set.
 * @post_recv: queue receive work requests. Any context, must not sleep.
 *	Returns 0, or a negative errno with *@bad_wr set.
 * @create_cq: allocate a CQ of at least @cqe entries.
 *	Returns the CQ or an ERR_PTR().
 * @destroy_cq: free a CQ; no QP uses it any more.
 * @poll_cq: take up to @num_entries completions. Any context, must not
 *	sleep. Returns number taken, or a negative errno.
 * @req_notify_cq: arm the completion handler. Any context, must not sleep.
 *	Returns 0 or a negative errno.
 * @reg_kernel_mr: register @length bytes of kernel memory at @addr.
 *	Returns the MR or an ERR_PTR().
 * @reg_sg_mr: optional: register the @length bytes of the @nents entries
 *	of @sgl (entries of any offset and length, chained or not) so that
 *	tagged offset @iova names the first byte. The provider copies what
 *	it needs: @sgl is the caller's, and may be freed on return.
 *	kiwi_reg_page_mr() uses it too. Without it those verbs fail with
 *	-EOPNOTSUPP; with it the MR group must be there. Returns the MR or
 *	an ERR_PTR().
 * @dereg_mr: deregister and free an MR.
 *
 * Every op is called in process context with no kiwi lock held and may
 * sleep, except where noted. An op may call back into the core (upcalls,
 * cm_id references) from inside itself.
 */
struct kiwi_provider_ops {
	int (*iw_connect)(struct kiwi_cm_id *id,
			  const struct kiwi_conn_param *param);
	int (*iw_accept)(struct kiwi_cm_id *id,
			 const struct kiwi_conn_param *param);
	int (*iw_reject)(struct kiwi_cm_id *id, const void *pdata, u16 len);
	int (*iw_create_listen)(struct kiwi_cm_id *id, int backlog);
	int (*iw_destroy_listen)(struct kiwi_cm_id *id);
	void (*iw_add_ref)(struct kiwi_qp *qp);
	void (*iw_rem_ref)(struct kiwi_qp *qp);
	struct kiwi_qp *(*iw_get_qp)(struct kiwi_device *dev, u32 qpn);

	int (*query_device)(struct kiwi_device *dev,
			    struct kiwi_device_attr *attr);
	struct kiwi_qp *(*create_qp)(struct kiwi_device *dev,
				     const struct kiwi_qp_init_attr *init);
	int (*modify_qp)(struct kiwi_qp *qp, const struct kiwi_qp_attr *attr,
			 int mask);
	void (*destroy_qp)(struct kiwi_qp *qp);
	int (*post_send)(struct kiwi_qp *qp, const struct kiwi_send_wr *wr,
			 const struct kiwi_send_wr **bad_wr);
	int (*post_recv)(struct kiwi_qp *qp, const struct kiwi_recv_wr *wr,
			 const struct kiwi_recv_wr **bad_wr);
	struct kiwi_cq *(*create_cq)(struct kiwi_device *dev, u32 cqe);
	void (*destroy_cq)(struct kiwi_cq *cq);
	int (*poll_cq)(struct kiwi_cq *cq, int num_entries,
		       struct kiwi_wc *wc);
	int (*req_notify_cq)(struct kiwi_cq *cq, enum kiwi_cq_notify flags);
	struct kiwi_mr *(*reg_kernel_mr)(struct kiwi_device *dev, void *addr,
					 size_t length, u32 access);
	struct kiwi_mr *(*reg_sg_mr)(struct kiwi_device *dev,
				     struct scatterlist *sgl,
				     unsigned int nents, u64 length,
				     u64 iova, u32 access);
	void (*dereg_mr)(struct kiwi_mr *mr);
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

/**
 * struct kiwi_device - an RNIC, as the provider registers it
 * @name: unique name, e.g. "siw0"
 * @netdev: the net_device the RNIC is bound to (may be NULL in tests)
 * @ops: the provider's op table
 * @attr: limits, read with @ops->query_device at registration
 * @ref: core only: references (registration, ids, verbs objects)
 * @drained: core only: completed when @ref reaches zero
 * @lock: core only: protects the lists and @dying
 * @node: core only: entry in the device registry
 * @ids: core only: cm_ids bound to the device
 * @qps: core only: live QPs
 * @cqs: core only: live CQs
 * @mrs: core only: live MRs
 * @dying: core only: unregistration has started
 * @warned: core only: a protocol violation was already WARNed about
 * @counters: core only: see enum kiwi_device_counter
 * @debugfs: core only: the device's debugfs directory
 *
 * Embedded in the provider's device structure, zeroed, with @name, @netdev
 * and @ops set before kiwi_register_device().
 */
struct kiwi_device {
	char name[32];
	struct net_device *netdev;
	const struct kiwi_provider_ops *ops;
	struct kiwi_device_attr attr;
	/* private: */
	refcount_t ref;
	struct completion drained;
	spinlock_t lock;	/* protects the lists and dying */
	struct list_head node;
	struct list_head ids;
	struct list_head qps;
	struct list_head cqs;
	struct list_head mrs;
	bool dying;
	bool warned;
	atomic_long_t counters[KIWI_DEV_NR_COUNTERS];
	struct dentry *debugfs;
};

/**
 * struct kiwi_client - a module that wants to know about devices
 * @name: for messages
 * @add: called for every device registered (and every device already
 *	registered when the client registers); process context, may sleep,
 *	the registry lock is held: do not (un)register devices or clients.
 * @remove: called when a device is unregistered, before its ids get
 *	DEVICE_REMOVAL (and for every device when the client unregisters);
 *	same context as @add
 * @node: core only: entry in the client list
 *
 * The rdma_cm front end is the expected client: it maps net_devices to
 * kiwi devices and turns removal into its own DEVICE_REMOVAL events.
 */
struct kiwi_client {
	const char *name;
	void (*add)(struct kiwi_client *client, struct kiwi_device *dev);
	void (*remove)(struct kiwi_client *client, struct kiwi_device *dev);
	/* private: */
	struct list_head node;
};

int kiwi_register_device(struct kiwi_device *dev);
void kiwi_unregister_device(struct kiwi_device *dev);
struct kiwi_device *kiwi_device_get_by_name(const char *name);
struct kiwi_device *kiwi_device_get_by_netdev(struct net_device *netdev);
bool kiwi_device_get_live(struct kiwi_device *dev);
void kiwi_register_client(struct kiwi_client *client);
void kiwi_unregister_client(struct kiwi_client *client);
void kiwi_device_put(struct kiwi_device *dev);
unsigned long kiwi_device_counter(struct kiwi_device *dev,
				  enum kiwi_device_counter which);

int kiwi_cm_upcall(struct kiwi_cm_id *id, const struct kiwi_cm_event *event);
void kiwi_cm_id_add_ref(struct kiwi_cm_id *id);
void kiwi_cm_id_rem_ref(struct kiwi_cm_id *id);

#endif /* _KIWI_PROVIDER_H */
