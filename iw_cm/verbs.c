// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs: dispatch to the provider, and keep every QP, CQ and MR on its
 * device's lists, holding a device reference, until it is destroyed.
 * The data path (post, poll, notify) is a plain indirect call.
 */
#include <linux/err.h>
#include <linux/math.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "iwcm.h"

/**
 * kiwi_query_device() - read a device's limits
 * @dev: the device
 * @attr: filled with the limits read at registration
 *
 * Context: any context.
 * Return: 0.
 */
int kiwi_query_device(struct kiwi_device *dev, struct kiwi_device_attr *attr)
{
	*attr = dev->attr;
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_query_device);

static void kiwi_verbs_track(struct kiwi_device *dev, struct list_head *node,
			     struct list_head *list)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	list_add_tail(node, list);
	spin_unlock_irqrestore(&dev->lock, flags);
}

static void kiwi_verbs_untrack(struct kiwi_device *dev,
			       struct list_head *node)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	list_del(node);
	spin_unlock_irqrestore(&dev->lock, flags);
}

/**
 * kiwi_verbs_orphan() - cut the leaked verbs objects of a device loose
 * @dev: a device whose unregistration gave up waiting
 *
 * Each object forgets its device; destroying it later does nothing (its
 * provider is gone, and with it the memory). The data path on such an
 * object is a use of a removed device, as it would be on Linux.
 *
 * Context: @dev->lock held.
 * Return: the number of objects, whose device references the caller
 * drops.
 */
unsigned int kiwi_verbs_orphan(struct kiwi_device *dev)
{
	struct kiwi_qp *qp, *next_qp;
	struct kiwi_cq *cq, *next_cq;
	struct kiwi_mr *mr, *next_mr;
	unsigned int n = 0;

	lockdep_assert_held(&dev->lock);
	list_for_each_entry_safe(qp, next_qp, &dev->qps, node) {
		list_del_init(&qp->node);
		WRITE_ONCE(qp->device, NULL);
		n++;
	}
	list_for_each_entry_safe(cq, next_cq, &dev->cqs, node) {
		list_del_init(&cq->node);
		WRITE_ONCE(cq->device, NULL);
		n++;
	}
	list_for_each_entry_safe(mr, next_mr, &dev->mrs, node) {
		list_del_init(&mr->node);
		WRITE_ONCE(mr->device, NULL);
		n++;
	}
	return n;
}

/**
 * kiwi_create_qp() - create a queue pair
 * @dev: the device
 * @init: CQs, queue sizes and cookie
 *
 * The QP starts in IDLE with no access rights: its peer may make no RDMA
 * WRITE or Read Request on it until kiwi_modify_qp() grants
 * KIWI_ACCESS_REMOTE_WRITE or KIWI_ACCESS_REMOTE_READ (rdma_create_qp()
 * grants both).
 *
 * Context: process context; sleeps.
 * Return: the QP, or ERR_PTR(-ENODEV) if @dev is going away, -EINVAL for
 * missing CQs or sizes beyond the device's limits, or the provider's error.
 */
struct kiwi_qp *kiwi_create_qp(struct kiwi_device *dev,
			       const struct kiwi_qp_init_attr *init)
{
	const struct kiwi_device_attr *a = &dev->attr;
	const struct kiwi_qp_cap *cap = &init->cap;
	struct kiwi_qp *qp;

	might_sleep();
	if (!dev->ops->create_qp || !init->send_cq || !init->recv_cq ||
	    cap->max_send_wr > a->max_qp_wr || cap->max_recv_wr > a->max_qp_wr ||
	    cap->max_send_sge > a->max_sge || cap->max_recv_sge > a->max_sge)
		return ERR_PTR(-EINVAL);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	qp = dev->ops->create_qp(dev, init);
	if (IS_ERR(qp)) {
		kiwi_device_put(dev);
		return qp;
	}
	qp->device = dev;
	qp->send_cq = init->send_cq;
	qp->recv_cq = init->recv_cq;
	qp->qp_context = init->qp_context;
	kiwi_verbs_track(dev, &qp->node, &dev->qps);
	return qp;
}
EXPORT_SYMBOL_GPL(kiwi_create_qp);

/**
 * kiwi_modify_qp() - change a QP's state or access rights
 * @qp: the QP
 * @attr: new values
 * @mask: KIWI_QP_ATTR_* bits saying which values to use
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for unknown access bits, or the provider's negative
 * errno.
 */
int kiwi_modify_qp(struct kiwi_qp *qp, const struct kiwi_qp_attr *attr,
		   int mask)
{
	might_sleep();
	if ((mask & KIWI_QP_ATTR_ACCESS) && (attr->access & ~KIWI_ACCESS_ALL))
		return -EINVAL;
	return qp->device->ops->modify_qp(qp, attr, mask);
}
EXPORT_SYMBOL_GPL(kiwi_modify_qp);

/**
 * kiwi_destroy_qp() - destroy a queue pair
 * @qp: the QP
 *
 * The provider flushes the QP and drops the creator's reference; a
 * connection that still pins the QP keeps its memory until the connection
 * manager releases it, so a QP and its cm_id may be destroyed in either
 * order.
 *
 * Context: process context; sleeps.
 */
void kiwi_destroy_qp(struct kiwi_qp *qp)
{
	struct kiwi_device *dev = READ_ONCE(qp->device);

	might_sleep();
	if (!dev)
		return;		/* orphaned: its provider is gone */
	kiwi_verbs_untrack(dev, &qp->node);
	dev->ops->destroy_qp(qp);
	kiwi_device_put(dev);
}
EXPORT_SYMBOL_GPL(kiwi_destroy_qp);

/**
 * kiwi_post_send() - queue send work requests
 * @qp: the QP
 * @wr: chain of work requests
 * @bad_wr: on failure, set to the first request not queued
 *
 * Context: any context; does not sleep.
 * Return: 0 or a negative errno.
 */
int kiwi_post_send(struct kiwi_qp *qp, const struct kiwi_send_wr *wr,
		   const struct kiwi_send_wr **bad_wr)
{
	return qp->device->ops->post_send(qp, wr, bad_wr);
}
EXPORT_SYMBOL_GPL(kiwi_post_send);

/**
 * kiwi_post_recv() - queue receive work requests
 * @qp: the QP
 * @wr: chain of work requests
 * @bad_wr: on failure, set to the first request not queued
 *
 * Context: any context; does not sleep.
 * Return: 0 or a negative errno.
 */
int kiwi_post_recv(struct kiwi_qp *qp, const struct kiwi_recv_wr *wr,
		   const struct kiwi_recv_wr **bad_wr)
{
	return qp->device->ops->post_recv(qp, wr, bad_wr);
}
EXPORT_SYMBOL_GPL(kiwi_post_recv);

/**
 * kiwi_create_cq() - create a completion queue
 * @dev: the device
 * @cqe: minimum number of entries
 * @handler: completion handler, or NULL
 * @cq_context: cookie for @handler
 *
 * Context: process context; sleeps.
 * Return: the CQ, or ERR_PTR(-ENODEV) if @dev is going away, -EINVAL if
 * @cqe is 0 or beyond the device's limit, or the provider's error.
 */
struct kiwi_cq *kiwi_create_cq(struct kiwi_device *dev, u32 cqe,
			       kiwi_comp_handler handler, void *cq_context)
{
	struct kiwi_cq *cq;

	might_sleep();
	if (!dev->ops->create_cq || !cqe || cqe > dev->attr.max_cqe)
		return ERR_PTR(-EINVAL);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	cq = dev->ops->create_cq(dev, cqe);
	if (IS_ERR(cq)) {
		kiwi_device_put(dev);
		return cq;
	}
	cq->device = dev;
	cq->comp_handler = handler;
	cq->cq_context = cq_context;
	kiwi_verbs_track(dev, &cq->node, &dev->cqs);
	return cq;
}
EXPORT_SYMBOL_GPL(kiwi_create_cq);

/**
 * kiwi_destroy_cq() - destroy a completion queue no QP uses any more
 * @cq: the CQ
 *
 * Context: process context; sleeps.
 */
void kiwi_destroy_cq(struct kiwi_cq *cq)
{
	struct kiwi_device *dev = READ_ONCE(cq->device);

	might_sleep();
	if (!dev)
		return;		/* orphaned: its provider is gone */
	kiwi_verbs_untrack(dev, &cq->node);
	dev->ops->destroy_cq(cq);
	kiwi_device_put(dev);
}
EXPORT_SYMBOL_GPL(kiwi_destroy_cq);

/**
 * kiwi_poll_cq() - take completions
 * @cq: the CQ
 * @num_entries: room at @wc
 * @wc: filled with completions
 *
 * Context: any context; does not sleep.
 * Return: number of completions taken, or a negative errno.
 */
int kiwi_poll_cq(struct kiwi_cq *cq, int num_entries, struct kiwi_wc *wc)
{
	return cq->device->ops->poll_cq(cq, num_entries, wc);
}
EXPORT_SYMBOL_GPL(kiwi_poll_cq);

/**
 * kiwi_req_notify_cq() - arm a CQ's completion handler
 * @cq: the CQ
 * @flags: which completion calls the handler
 *
 * Context: any context; does not sleep.
 * Return: 0 or a negative errno.
 */
int kiwi_req_notify_cq(struct kiwi_cq *cq, enum kiwi_cq_notify flags)
{
	return cq->device->ops->req_notify_cq(cq, flags);
}
EXPORT_SYMBOL_GPL(kiwi_req_notify_cq);

/* Are @access valid MR rights? Remote write needs local write. */
static bool kiwi_mr_access_ok(u32 access)
{
	if (access & ~KIWI_ACCESS_ALL)
		return false;
	return !(access & KIWI_ACCESS_REMOTE_WRITE) ||
	       (access & KIWI_ACCESS_LOCAL_WRITE);
}

/* Take over an MR the provider returned, or drop the device reference. */
static struct kiwi_mr *kiwi_mr_track(struct kiwi_device *dev,
				     struct kiwi_mr *mr)
{
	if (IS_ERR(mr)) {
		kiwi_device_put(dev);
		return mr;
	}
	mr->device = dev;
	kiwi_verbs_track(dev, &mr->node, &dev->mrs);
	return mr;
}

/**
 * kiwi_reg_kernel_mr() - register kernel memory
 * @dev: the device
 * @addr: start, in the kernel's direct map or vmalloc space
 * @length: bytes
 * @access: KIWI_ACCESS_* bits; KIWI_ACCESS_REMOTE_WRITE requires
 *	KIWI_ACCESS_LOCAL_WRITE
 *
 * The MR's rkey lets the peer of any connected QP of @dev read or write
 * the region, as @access (and the QP's own rights) allow.
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if @dev is going away, -EINVAL for
 * an empty region, unknown @access bits or remote write without local
 * write, or the provider's error.
 */
struct kiwi_mr *kiwi_reg_kernel_mr(struct kiwi_device *dev, void *addr,
				   size_t length, u32 access)
{
	might_sleep();
	if (!dev->ops->reg_kernel_mr || !addr || !length ||
	    !kiwi_mr_access_ok(access))
		return ERR_PTR(-EINVAL);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	return kiwi_mr_track(dev, dev->ops->reg_kernel_mr(dev, addr, length,
							   access));
}
EXPORT_SYMBOL_GPL(kiwi_reg_kernel_mr);

/* The bytes of @nents entries at @sgl; 0 if there are fewer. */
static u64 kiwi_sg_length(struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;
	u64 len = 0;

	for_each_sg(sgl, sg, nents, i) {
		if (!sg)
			return 0;
		len += sg->length;
	}
	return len;
}

/**
 * kiwi_reg_sg_mr() - register the memory a scatterlist describes
 * @dev: the device
 * @sgl: the first entry; the pages of each entry (page, offset, length:
 *	any offset and length, highmem included) are the caller's and
 *	must stay until kiwi_dereg_mr() returns. Entries of length 0 add
 *	nothing. For an &struct sg_table pass its sgl and orig_nents.
 * @nents: number of entries
 * @iova: tagged offset of the first byte: the MR is [@iova, @iova +
 *	length) to the peer, its bytes in entry order
 * @access: KIWI_ACCESS_* bits, as for kiwi_reg_kernel_mr()
 *
 * The provider copies the list: @sgl may be freed once this returns.
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if @dev is going away,
 * -EOPNOTSUPP if its provider has no such MRs, -EINVAL for no bytes, a
 * region that reaches past the 64-bit tagged offset space or bad
 * @access, or the provider's error.
 */
struct kiwi_mr *kiwi_reg_sg_mr(struct kiwi_device *dev,
			       struct scatterlist *sgl, unsigned int nents,
			       u64 iova, u32 access)
{
	u64 length, end;

	might_sleep();
	length = sgl && nents ? kiwi_sg_length(sgl, nents) : 0;
	if (!length || check_add_overflow(iova, length, &end) ||
	    !kiwi_mr_access_ok(access))
		return ERR_PTR(-EINVAL);
	if (!dev->ops->reg_sg_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	return kiwi_mr_track(dev, dev->ops->reg_sg_mr(dev, sgl, nents, length,
						       iova, access));
}
EXPORT_SYMBOL_GPL(kiwi_reg_sg_mr);

/* Are @npages pages from @offset on exactly what @length bytes need? */
static bool kiwi_pages_fit(struct page **pages, unsigned int npages,
			   unsigned int offset, u64 length)
{
	unsigned int i;

	if (!pages || !npages || !length || offset >= PAGE_SIZE ||
	    length > (u64)npages * PAGE_SIZE - offset ||
	    DIV_ROUND_UP_ULL(offset + length, PAGE_SIZE) != npages)
		return false;
	for (i = 0; i < npages; i++)
		if (!pages[i])
			return false;
	return true;
}

/**
 * kiwi_reg_page_mr() - register bytes spread over an array of pages
 * @dev: the device
 * @pages: the pages (highmem included), the caller's until
 *	kiwi_dereg_mr() returns; the array itself may be freed on return
 * @npages: entries at @pages, each one used
 * @offset: of the first byte in @pages[0], below PAGE_SIZE
 * @length: bytes: from @offset to the end of the first page, then whole
 *	pages, then the start of the last
 * @iova: tagged offset of the first byte
 * @access: KIWI_ACCESS_* bits, as for kiwi_reg_kernel_mr()
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if @dev is going away,
 * -EOPNOTSUPP if its provider has no such MRs, -EINVAL if the pages do
 * not hold exactly @offset + @length bytes (rounded up to a page), for
 * a region that wraps around, bad @access, -ENOMEM, or the provider's
 * error.
 */
struct kiwi_mr *kiwi_reg_page_mr(struct kiwi_device *dev,
				 struct page **pages, unsigned int npages,
				 unsigned int offset, u64 length, u64 iova,
				 u32 access)
{
	struct scatterlist *sgl;
	struct kiwi_mr *mr;
	u64 left = length;
	unsigned int i;
	u32 part;

	might_sleep();
	if (!kiwi_pages_fit(pages, npages, offset, length))
		return ERR_PTR(-EINVAL);
	sgl = kvcalloc(npages, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return ERR_PTR(-ENOMEM);
	sg_init_table(sgl, npages);
	for (i = 0; i < npages; i++) {
		part = min_t(u64, left, PAGE_SIZE - offset);
		sg_set_page(&sgl[i], pages[i], part, offset);
		left -= part;
		offset = 0;
	}
	mr = kiwi_reg_sg_mr(dev, sgl, npages, iova, access);
	kvfree(sgl);
	return mr;
}
EXPORT_SYMBOL_GPL(kiwi_reg_page_mr);

/**
 * kiwi_dereg_mr() - deregister an MR
 * @mr: the MR
 *
 * Context: process context; sleeps.
 */
void kiwi_dereg_mr(struct kiwi_mr *mr)
{
	struct kiwi_device *dev = READ_ONCE(mr->device);

	might_sleep();
	if (!dev)
		return;		/* orphaned: its provider is gone */
	kiwi_verbs_untrack(dev, &mr->node);
	dev->ops->dereg_mr(mr);
	kiwi_device_put(dev);
}
EXPORT_SYMBOL_GPL(kiwi_dereg_mr);
