// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs: dispatch to the provider, and keep every PD, QP, CQ and MR on
 * its device's lists, holding a device reference, until it is destroyed.
 * The data path (post, poll, notify) is a plain indirect call. CQs are in
 * cq.c, MRs in mr.c.
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
int kiwi_query_device(struct ib_device *dev, struct ib_device_attr *attr)
{
	*attr = dev->attrs;
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_query_device);

/* A new object goes on its device's list of @type and gets its id. */
void kiwi_verbs_track(struct ib_device *dev, struct rdma_restrack_entry *res,
		      enum rdma_restrack_type type, struct list_head *node,
		      struct list_head *list)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	res->type = type;
	res->id = dev->res_next[type]++;
	res->valid = true;
	list_add_tail(node, list);
	spin_unlock_irqrestore(&dev->lock, flags);
}

void kiwi_verbs_untrack(struct ib_device *dev, struct rdma_restrack_entry *res,
			struct list_head *node)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	res->valid = false;
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
unsigned int kiwi_verbs_orphan(struct ib_device *dev)
{
	struct ib_pd *pd, *next_pd;
	struct ib_qp *qp, *next_qp;
	struct ib_cq *cq, *next_cq;
	struct ib_mr *mr, *next_mr;
	unsigned int n = 0;

	lockdep_assert_held(&dev->lock);
	list_for_each_entry_safe(pd, next_pd, &dev->pds, node) {
		list_del_init(&pd->node);
		WRITE_ONCE(pd->device, NULL);
		n++;
	}
	list_for_each_entry_safe(qp, next_qp, &dev->qps, node) {
		kiwi_qp_event_stop(qp, false);
		list_del_init(&qp->node);
		WRITE_ONCE(qp->device, NULL);
		n++;
	}
	list_for_each_entry_safe(cq, next_cq, &dev->cqs, node) {
		kiwi_cq_event_stop(cq, false);
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
 * kiwi_alloc_pd() - allocate a protection domain (ib_alloc_pd())
 * @dev: the device
 * @flags: 0; IB_PD_UNSAFE_GLOBAL_RKEY (an rkey giving the peer all of
 *	memory) is refused
 *
 * Context: process context; sleeps.
 * Return: the PD, or ERR_PTR(-ENODEV) if @dev is going away,
 * -EOPNOTSUPP for IB_PD_UNSAFE_GLOBAL_RKEY, -EINVAL for another flag,
 * -EOPNOTSUPP for a device without verbs, or the provider's error.
 */
struct ib_pd *kiwi_alloc_pd(struct ib_device *dev, unsigned int flags)
{
	struct ib_pd *pd;

	might_sleep();
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		return ERR_PTR(-EOPNOTSUPP);
	if (flags)
		return ERR_PTR(-EINVAL);
	if (!dev->ops->alloc_pd)
		return ERR_PTR(-EOPNOTSUPP);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	pd = kiwi_should_fail() ? ERR_PTR(-ENOMEM) : dev->ops->alloc_pd(dev);
	if (IS_ERR(pd)) {
		kiwi_device_put(dev);
		return pd;
	}
	pd->device = dev;
	pd->flags = 0;
	pd->unsafe_global_rkey = 0;
	atomic_set(&pd->usecnt, 0);
	kiwi_verbs_track(dev, &pd->res, RDMA_RESTRACK_PD, &pd->node, &dev->pds);
	return pd;
}
EXPORT_SYMBOL_GPL(kiwi_alloc_pd);

/**
 * kiwi_dealloc_pd() - free a protection domain (ib_dealloc_pd())
 * @pd: the PD; every QP and MR of it destroyed
 *
 * A PD still in use is a ULP bug: it is WARNed about and kept (leaked),
 * so that the QPs and MRs using it stay sound.
 *
 * Context: process context; sleeps.
 */
void kiwi_dealloc_pd(struct ib_pd *pd)
{
	struct ib_device *dev = READ_ONCE(pd->device);

	might_sleep();
	if (!dev)
		return;		/* orphaned: its provider is gone */
	if (WARN_ONCE(atomic_read(&pd->usecnt),
		      "kiwi: %s: PD freed with %d QPs and MRs in it\n",
		      dev->name, atomic_read(&pd->usecnt)))
		return;
	kiwi_verbs_untrack(dev, &pd->res, &pd->node);
	dev->ops->dealloc_pd(pd);
	kiwi_device_put(dev);
}
EXPORT_SYMBOL_GPL(kiwi_dealloc_pd);

/* Can a QP of @dev have the queues and settings @init asks for? */
static bool kiwi_qp_init_ok(struct ib_device *dev,
			    const struct ib_qp_init_attr *init)
{
	const struct ib_device_attr *a = &dev->attrs;
	const struct ib_qp_cap *cap = &init->cap;

	if (!init->send_cq || !init->recv_cq || init->srq || init->xrcd ||
	    init->rwq_ind_tbl || init->source_qpn ||
	    init->create_flags || init->qp_type != IB_QPT_RC ||
	    (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	     init->sq_sig_type != IB_SIGNAL_REQ_WR))
		return false;
	if (init->send_cq->device != dev || init->recv_cq->device != dev)
		return false;
	return cap->max_send_wr <= a->max_qp_wr &&
	       cap->max_recv_wr <= a->max_qp_wr &&
	       cap->max_send_sge <= a->max_send_sge &&
	       cap->max_recv_sge <= a->max_recv_sge;
}

/**
 * kiwi_create_qp() - create a queue pair (ib_create_qp())
 * @pd: its protection domain
 * @init: CQs, queue sizes, signalling, event handler and cookie; the
 *	CQs must be of @pd's device
 *
 * The QP starts in IB_QPS_INIT with no access rights: its peer may make
 * no RDMA WRITE or Read Request on it until kiwi_modify_qp() grants
 * IB_ACCESS_REMOTE_WRITE or IB_ACCESS_REMOTE_READ (rdma_create_qp()
 * grants both). &ib_qp_cap.max_rdma_ctxs, for the rw API, grows
 * @init->cap.max_send_wr by three per context (within the device's
 * limit) and gives the QP a fast-registration MR per context.
 * &ib_qp_cap.max_inline_data is the provider's to check, as in Linux:
 * no device attribute says how much inline data a QP may have.
 *
 * Context: process context; sleeps.
 * Return: the QP, or ERR_PTR(-ENODEV) if the device is going away,
 * -EINVAL for missing or foreign CQs, an SRQ, create flags, a QP type
 * other than IB_QPT_RC or sizes beyond the device's limits, or the
 * provider's error (-EINVAL for more inline data than it offers).
 */
struct ib_qp *kiwi_create_qp(struct ib_pd *pd, struct ib_qp_init_attr *init)
{
	struct ib_device *dev = pd ? READ_ONCE(pd->device) : NULL;
	struct ib_qp *qp;
	int ret;

	might_sleep();
	if (!dev || !init || !dev->ops->create_qp)
		return ERR_PTR(-EINVAL);
	kiwi_rw_init_qp(dev, init);
	if (!kiwi_qp_init_ok(dev, init))
		return ERR_PTR(-EINVAL);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	qp = kiwi_should_fail() ? ERR_PTR(-ENOMEM) :
	     dev->ops->create_qp(pd, init);
	if (IS_ERR(qp)) {
		kiwi_device_put(dev);
		return qp;
	}
	qp->device = dev;
	qp->pd = pd;
	qp->send_cq = init->send_cq;
	qp->recv_cq = init->recv_cq;
	qp->srq = NULL;
	qp->event_handler = init->event_handler;
	qp->qp_context = init->qp_context;
	qp->qp_type = IB_QPT_RC;
	qp->port = 1;
	qp->sq_sig_type = init->sq_sig_type;
	qp->max_write_sge = init->cap.max_send_sge;
	qp->max_read_sge = min_t(u32, init->cap.max_send_sge,
				 dev->attrs.max_sge_rd);
	kiwi_qp_event_init(qp);
	kiwi_mr_pool_qp_init(qp);
	atomic_inc(&pd->usecnt);
	atomic_inc(&init->send_cq->usecnt);
	atomic_inc(&init->recv_cq->usecnt);
	kiwi_verbs_track(dev, &qp->res, RDMA_RESTRACK_QP, &qp->node, &dev->qps);
	ret = kiwi_rw_init_mrs(qp, init);
	if (ret) {
		kiwi_destroy_qp(qp);
		return ERR_PTR(ret);
	}
	return qp;
}
EXPORT_SYMBOL_GPL(kiwi_create_qp);

/**
 * kiwi_modify_qp() - change a QP's state or access rights (ib_modify_qp())
 * @qp: the QP
 * @attr: new values
 * @mask: IB_QP_STATE and IB_QP_ACCESS_FLAGS bits saying which to use
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for other mask bits or unknown access bits, or the
 * provider's negative errno.
 */
int kiwi_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	might_sleep();
	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS))
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~KIWI_ACCESS_ALL))
		return -EINVAL;
	/* A move to ERROR never fails: drains rely on it. */
	if (!((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_ERR) &&
	    kiwi_should_fail())
		return -ENOMEM;
	return qp->device->ops->modify_qp(qp, attr, mask);
}
EXPORT_SYMBOL_GPL(kiwi_modify_qp);

/**
 * kiwi_query_qp() - a QP's current attributes (ib_query_qp())
 * @qp: the QP
 * @attr: filled whatever @mask says: qp_state and cur_qp_state,
 *	qp_access_flags, cap, max_rd_atomic (ORD), max_dest_rd_atomic
 *	(IRD); dest_qp_num is 0 (iWARP names no remote QP)
 * @mask: ignored, as most of Linux's providers do
 * @init: filled with the attributes the QP was created with, its current
 *	cap; may not be NULL
 *
 * Context: process context.
 * Return: 0, -EOPNOTSUPP if the provider cannot tell, or its errno.
 */
int kiwi_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	int ret;

	if (!qp->device->ops->query_qp)
		return -EOPNOTSUPP;
	memset(attr, 0, sizeof(*attr));
	ret = kiwi_should_fail() ? -ENOMEM : qp->device->ops->query_qp(qp, attr);
	if (ret)
		return ret;
	*init = (struct ib_qp_init_attr) {
		.event_handler = qp->event_handler,
		.qp_context = qp->qp_context,
		.send_cq = qp->send_cq,
		.recv_cq = qp->recv_cq,
		.cap = attr->cap,
		.sq_sig_type = qp->sq_sig_type,
		.qp_type = qp->qp_type,
		.port_num = qp->port,
	};
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_query_qp);

/**
 * kiwi_destroy_qp() - destroy a queue pair (ib_destroy_qp())
 * @qp: the QP
 *
 * The provider flushes the QP and drops the creator's reference; a
 * connection that still pins the QP keeps its memory until the connection
 * manager releases it, so a QP and its cm_id may be destroyed in either
 * order. The QP's event_handler is not running and never runs again once
 * this returns.
 *
 * Context: process context; sleeps. Not from the QP's event_handler.
 * Return: 0.
 */
int kiwi_destroy_qp(struct ib_qp *qp)
{
	struct ib_device *dev = READ_ONCE(qp->device);
	struct ib_cq *scq = qp->send_cq, *rcq = qp->recv_cq;
	struct ib_pd *pd = qp->pd;

	might_sleep();
	if (!dev)
		return 0;	/* orphaned: its provider is gone */
	kiwi_qp_event_stop(qp, true);
	/* what the ULP left in its pools, with the rw API's */
	kiwi_mr_pool_destroy(qp, &qp->rdma_mrs);
	kiwi_mr_pool_destroy(qp, &qp->sig_mrs);
	kiwi_verbs_untrack(dev, &qp->res, &qp->node);
	dev->ops->destroy_qp(qp);
	atomic_dec(&scq->usecnt);
	atomic_dec(&rcq->usecnt);
	atomic_dec(&pd->usecnt);
	kiwi_device_put(dev);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_destroy_qp);

/**
 * kiwi_post_send() - queue send work requests
 * @qp: the QP
 * @wr: chain of work requests
 * @bad_wr: on failure, set to the first request not queued
 *
 * ULPs call it as ib_post_send(), which allows a NULL @bad_wr.
 *
 * Context: any context; does not sleep.
 * Return: 0 or a negative errno.
 */
int kiwi_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
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
 * ULPs call it as ib_post_recv(), which allows a NULL @bad_wr.
 *
 * Context: any context; does not sleep.
 * Return: 0 or a negative errno.
 */
int kiwi_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	return qp->device->ops->post_recv(qp, wr, bad_wr);
}
EXPORT_SYMBOL_GPL(kiwi_post_recv);

