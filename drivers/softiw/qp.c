// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw verbs objects: queue pairs (numbered, reference counted,
 * with the states the connection manager drives) and completion queues.
 * The SEND/RECV data path is not implemented yet: post_send and post_recv
 * are absent, so the core answers them with -EOPNOTSUPP, and a CQ never
 * holds a completion.
 */
#include <linux/slab.h>

#include "cm.h"

/**
 * softiw_qps_init() - prepare a device's QP table
 * @sdev: the device
 */
void softiw_qps_init(struct softiw_device *sdev)
{
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC1);
}

/**
 * softiw_qps_exit() - release a device's QP table
 * @sdev: the device, unregistered
 *
 * A QP still in the table was orphaned by an unregistration that timed
 * out waiting for its owner; it stays allocated, since the owner may
 * still use it.
 */
void softiw_qps_exit(struct softiw_device *sdev)
{
	if (!xa_empty(&sdev->qps))
		pr_warn("kiwi_softiw: %s: QPs left behind by their owner\n",
			sdev->kdev.name);
	xa_destroy(&sdev->qps);
}

/**
 * softiw_qp_put() - drop a reference on a QP, freeing it on the last one
 * @sqp: the QP
 *
 * Context: any context.
 */
void softiw_qp_put(struct softiw_qp *sqp)
{
	if (refcount_dec_and_test(&sqp->ref))
		kfree(sqp);
}

struct kiwi_qp *softiw_create_qp(struct kiwi_device *kdev,
				 const struct kiwi_qp_init_attr *init)
{
	struct softiw_device *sdev = softiw_dev(kdev);
	struct softiw_qp *sqp;
	u32 qpn;
	int ret;

	might_sleep();
	sqp = kzalloc(sizeof(*sqp), GFP_KERNEL);
	if (!sqp)
		return ERR_PTR(-ENOMEM);
	sqp->sdev = sdev;
	refcount_set(&sqp->ref, 1);
	spin_lock_init(&sqp->lock);
	sqp->state = KIWI_QPS_IDLE;
	ret = xa_alloc(&sdev->qps, &qpn, sqp,
		       XA_LIMIT(1, SOFTIW_MAX_QP), GFP_KERNEL);
	if (ret) {
		kfree(sqp);
		return ERR_PTR(ret == -EBUSY ? -ENOSPC : ret);
	}
	sqp->qp.qpn = qpn;
	return &sqp->qp;
}

/* ERROR is final; anything else may move anywhere the core asks. */
static bool softiw_qp_move_ok(enum kiwi_qp_state from, enum kiwi_qp_state to)
{
	if (to > KIWI_QPS_ERROR)
		return false;
	return from != KIWI_QPS_ERROR || to == KIWI_QPS_ERROR;
}

/*
 * A connected QP asked to close or to fail hands that to its endpoint,
 * which shuts the stream down (CLOSING) or resets it (ERROR).
 */
static void softiw_qp_set_state(struct softiw_qp *sqp,
				enum kiwi_qp_state state)
{
	lockdep_assert_held(&sqp->lock);
	sqp->state = state;
	if (!sqp->cep ||
	    (state != KIWI_QPS_CLOSING && state != KIWI_QPS_ERROR))
		return;
	if (sqp->cep->close_req != KIWI_QPS_ERROR)
		WRITE_ONCE(sqp->cep->close_req, state);
	softiw_cep_request_close(sqp->cep);
}

int softiw_modify_qp(struct kiwi_qp *qp, const struct kiwi_qp_attr *attr,
		     int mask)
{
	struct softiw_qp *sqp = softiw_qp(qp);
	int ret = 0;

	if (mask & ~(KIWI_QP_ATTR_STATE | KIWI_QP_ATTR_ACCESS))
		return -EINVAL;
	spin_lock_bh(&sqp->lock);
	if ((mask & KIWI_QP_ATTR_STATE) &&
	    !softiw_qp_move_ok(sqp->state, attr->qp_state)) {
		ret = -EINVAL;
		goto unlock;
	}
	if (mask & KIWI_QP_ATTR_STATE)
		softiw_qp_set_state(sqp, attr->qp_state);
	if (mask & KIWI_QP_ATTR_ACCESS)
		sqp->access = attr->access;
unlock:
	spin_unlock_bh(&sqp->lock);
	return ret;
}

void softiw_destroy_qp(struct kiwi_qp *qp)
{
	struct softiw_qp *sqp = softiw_qp(qp);

	xa_erase(&sqp->sdev->qps, qp->qpn);
	spin_lock_bh(&sqp->lock);
	softiw_qp_set_state(sqp, KIWI_QPS_ERROR);
	spin_unlock_bh(&sqp->lock);
	softiw_qp_put(sqp);
}

void softiw_add_ref(struct kiwi_qp *qp)
{
	refcount_inc(&softiw_qp(qp)->ref);
}

void softiw_rem_ref(struct kiwi_qp *qp)
{
	softiw_qp_put(softiw_qp(qp));
}

struct kiwi_qp *softiw_get_qp(struct kiwi_device *kdev, u32 qpn)
{
	struct softiw_qp *sqp = xa_load(&softiw_dev(kdev)->qps, qpn);

	return sqp ? &sqp->qp : NULL;
}

struct kiwi_cq *softiw_create_cq(struct kiwi_device *kdev, u32 cqe)
{
	struct softiw_cq *scq = kzalloc(sizeof(*scq), GFP_KERNEL);

	return scq ? &scq->cq : ERR_PTR(-ENOMEM);
}

void softiw_destroy_cq(struct kiwi_cq *cq)
{
	kfree(container_of(cq, struct softiw_cq, cq));
}

int softiw_poll_cq(struct kiwi_cq *cq, int num_entries,
		   struct kiwi_wc *wc)
{
	return 0;
}
