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
#include <rdma/ib_verbs.h>

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
 * @alloc_pd: allocate a PD and set its local_dma_lkey.
 *	Returns the PD or an ERR_PTR().
 * @dealloc_pd: free a PD; no QP or MR uses it any more.
 * @create_qp: allocate a QP of @pd (holding one reference, the
 *	creator's) and set its qp_num. Every remote access through it must
 *	be refused for an MR of another PD. The provider checks
 *	&ib_qp_cap.max_inline_data (-EINVAL for more than it offers; 0 if
 *	it has no inline data); the core checked the rest of @init against
 *	the device's attributes. Returns the QP or an ERR_PTR().
 * @modify_qp: change the attributes in @mask. Returns 0 or a negative errno.
 * @query_qp: optional: fill @attr's qp_state, cur_qp_state,
 *	qp_access_flags, cap, max_rd_atomic (ORD) and max_dest_rd_atomic
 *	(IRD) with what the QP has now (the core zeroed @attr and fills
 *	the rest). Returns 0 or a negative errno.
 * @destroy_qp: flush the QP and drop the creator's reference.
 * @post_send: queue send work requests. Any context, must not sleep.
 *	IB_SEND_INLINE data is copied before it returns; an IB_SEND_FENCE
 *	request starts only once every older RDMA READ has its response.
 *	Returns 0, or a negative errno with *@bad_wr set.
 * @post_recv: queue receive work requests. Any context, must not sleep.
 *	Returns 0, or a negative errno with *@bad_wr set.
 * @create_cq: allocate a CQ of at least @attr->cqe entries.
 *	Returns the CQ or an ERR_PTR().
 * @destroy_cq: free a CQ; no QP uses it any more.
 * @poll_cq: take up to @num_entries completions. Any context, must not
 *	sleep. Returns number taken, or a negative errno.
 * @req_notify_cq: arm the completion handler. Any context, must not sleep.
 *	Returns 0 or a negative errno.
 * @reg_kernel_mr: register @length bytes of kernel memory at @addr in @pd.
 *	Returns the MR or an ERR_PTR().
 * @reg_sg_mr: optional: register the @length bytes of the @nents entries
 *	of @sgl (entries of any offset and length, chained or not) so that
 *	tagged offset @iova names the first byte. The provider copies what
 *	it needs: @sgl is the caller's, and may be freed on return.
 *	kiwi_reg_page_mr() uses it too. Without it those verbs fail with
 *	-EOPNOTSUPP; with it the MR group must be there. Returns the MR or
 *	an ERR_PTR().
 * @dereg_mr: deregister and free an MR.
 * @alloc_mr: optional: allocate a fast-registration MR of @pd for up to
 *	@max_num_sg pages, invalid, with an STag of its own. Returns the
 *	MR or an ERR_PTR(). Requires @map_mr_sg and the MR group.
 * @map_mr_sg: map the @sg_nents entries of @sg (from *@sg_offset on)
 *	into @mr's page list, of pages of @mr->page_size, for its next
 *	IB_WR_REG_MR; kiwi_sg_to_pages() does the walk. Returns the
 *	entries mapped, or a negative errno.
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
	void (*iw_add_ref)(struct ib_qp *qp);
	void (*iw_rem_ref)(struct ib_qp *qp);
	struct ib_qp *(*iw_get_qp)(struct ib_device *dev, u32 qpn);

	int (*query_device)(struct ib_device *dev,
			    struct ib_device_attr *attr);
	struct ib_pd *(*alloc_pd)(struct ib_device *dev);
	void (*dealloc_pd)(struct ib_pd *pd);
	struct ib_qp *(*create_qp)(struct ib_pd *pd,
				   const struct ib_qp_init_attr *init);
	int (*modify_qp)(struct ib_qp *qp, const struct ib_qp_attr *attr,
			 int mask);
	int (*query_qp)(struct ib_qp *qp, struct ib_qp_attr *attr);
	void (*destroy_qp)(struct ib_qp *qp);
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr);
	int (*post_recv)(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);
	struct ib_cq *(*create_cq)(struct ib_device *dev,
				   const struct ib_cq_init_attr *attr);
	void (*destroy_cq)(struct ib_cq *cq);
	int (*poll_cq)(struct ib_cq *cq, int num_entries,
		       struct ib_wc *wc);
	int (*req_notify_cq)(struct ib_cq *cq, enum ib_cq_notify_flags flags);
	struct ib_mr *(*reg_kernel_mr)(struct ib_pd *pd, void *addr,
				       size_t length, u32 access);
	struct ib_mr *(*reg_sg_mr)(struct ib_pd *pd, struct scatterlist *sgl,
				   unsigned int nents, u64 length, u64 iova,
				   u32 access);
	void (*dereg_mr)(struct ib_mr *mr);
	struct ib_mr *(*alloc_mr)(struct ib_pd *pd, u32 max_num_sg);
	int (*map_mr_sg)(struct ib_mr *mr, struct scatterlist *sg,
			 int sg_nents, unsigned int *sg_offset);
};

/**
 * kiwi_wr_wc_opcode() - what a send work request completes as
 * @opcode: its opcode, one the provider carries out
 *
 * Context: any context.
 * Return: the completion opcode.
 */
static inline enum ib_wc_opcode kiwi_wr_wc_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

int kiwi_register_device(struct ib_device *dev);
void kiwi_unregister_device(struct ib_device *dev);
struct ib_device *kiwi_device_get_by_name(const char *name);
struct ib_device *kiwi_device_get_by_netdev(struct net_device *netdev);
bool kiwi_device_get_live(struct ib_device *dev);
void kiwi_device_put(struct ib_device *dev);
unsigned long kiwi_device_counter(struct ib_device *dev,
				  enum kiwi_device_counter which);

void kiwi_qp_event(struct ib_qp *qp, enum ib_event_type type);
void kiwi_cq_event(struct ib_cq *cq, enum ib_event_type type);
void kiwi_device_event(struct ib_device *dev, enum ib_event_type type);

int kiwi_cm_upcall(struct kiwi_cm_id *id, const struct kiwi_cm_event *event);
void kiwi_cm_id_add_ref(struct kiwi_cm_id *id);
void kiwi_cm_id_rem_ref(struct kiwi_cm_id *id);

#endif /* _KIWI_PROVIDER_H */
