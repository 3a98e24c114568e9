// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs: dispatch to the provider, and keep every QP, CQ and MR on its
 * device's lists, holding a device reference, until it is destroyed.
 * The data path (post, poll, notify) is a plain indirect call.
 */
#include <linux/err.h>
#include <linux/module.h>

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
 * Return: 0 or the provider's negative errno.
 */
int kiwi_modify_qp(struct kiwi_qp *qp, const struct kiwi_qp_attr *attr,
		   int mask)
{
	might_sleep();
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

/**
 * kiwi_reg_kernel_mr() - register kernel memory
 * @dev: the device
 * @addr: start, in the kernel's direct map
 * @length: bytes
 * @access: KIWI_ACCESS_* bits; KIWI_ACCESS_REMOTE_WRITE requires
 *	KIWI_ACCESS_LOCAL_WRITE
 *
 * The MR's rkey lets the peer of any connected QP of @dev read or write
 * the region, as @access allows.
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if @dev is going away, -EINVAL for
 * an empty region, unknown @access bits or remote write without local
 * write, or the provider's error.
 */
struct kiwi_mr *kiwi_reg_kernel_mr(struct kiwi_device *dev, void *addr,
				   size_t length, u32 access)
{
	struct kiwi_mr *mr;

	might_sleep();
	if (!dev->ops->reg_kernel_mr || !addr || !length ||
	    (access & ~KIWI_ACCESS_ALL) ||
	    ((access & KIWI_ACCESS_REMOTE_WRITE) &&
	     !(access & KIWI_ACCESS_LOCAL_WRITE)))
		return ERR_PTR(-EINVAL);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	mr = dev->ops->reg_kernel_mr(dev, addr, length, access);
	if (IS_ERR(mr)) {
		kiwi_device_put(dev);
		return mr;
	}
	mr->device = dev;
	kiwi_verbs_track(dev, &mr->node, &dev->mrs);
	return mr;
}
EXPORT_SYMBOL_GPL(kiwi_reg_kernel_mr);

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
